import XCTest
@testable import FastPixSeekPolicy

/// A scripted demuxer behind the policy's seam: packets in decode order, the
/// positioning quirks the engines meet, and counters of every seam crossing and
/// of every packet handed out and let go (so no packet leaks or is used twice).
final class ScriptedSeam: LandingSeam {
    typealias Packet = Int
    struct Quirks {
        var seekByDTS = false
        /// A timestamp seek finds the last keyframe whose pts + shift <= t (mov edit lists).
        var indexShift: Int64 = 0
        var landAfterKey = 0
        var byteSeekable = false
        /// A timestamp seek lands on the last reference packet whose dts is at or before
        /// the target, key or not (MPEG-TS's binary search on dts): usually mid-GOP, past
        /// the keyframe the target needs.
        var landNearDTS = false
        /// After a positioning, packets carry no dts (Matroska).
        var noDTSAfterSeek = false
    }
    var packets: [DemuxedPacket]
    let quirks: Quirks
    var index: ContainerIndexFacts?
    /// Index seeks search pts (Matroska cues) rather than dts; nil: as `index` says.
    var indexByPTS: Bool?
    /// Index seeks land this many keyframes after (or before) the one the search found.
    var indexSeekOffBy = 0
    private var pos = 0
    private var sought = false
    private(set) var reads = 0, releases = 0
    private(set) var seeks = 0, byteSeeks = 0, indexSeeks = 0, rewinds = 0, indexAsked = 0
    private(set) var live = Set<Int>()
    private var nextToken = 0
    let offsets: [Int64]

    init(_ packets: [DemuxedPacket], quirks: Quirks = Quirks()) {
        self.quirks = quirks
        var o: [Int64] = [], at: Int64 = 0
        for p in packets { o.append(at); at += p.isKey && p.stream == 0 ? 4000 : 700 }
        offsets = o
        self.packets = packets.enumerated().map { i, p in
            var q = p
            q.size = p.isKey && p.stream == 0 ? 4000 : 700
            if quirks.byteSeekable { q.pos = o[i] }
            return q
        }
    }

    /// Positionings of every kind: the seam crossings outside the per-packet loop.
    var positionings: Int { seeks + byteSeeks + indexSeeks + rewinds }

    /// Timestamp positionings.
    var timestampSeeks: Int { seeks }

    func seek(toTicks ticks: Int64) throws -> Bool {
        seeks += 1
        sought = true
        if quirks.landNearDTS {
            pos = packets.lastIndex { $0.stream == 0 && ($0.dts ?? $0.pts!) <= ticks } ?? 0
            return true
        }
        var found: Int?
        for (i, p) in packets.enumerated() where p.stream == 0 && p.isKey {
            let t = quirks.seekByDTS ? (p.dts ?? p.pts!) : p.pts! &+ quirks.indexShift
            if t <= ticks { found = i }
        }
        pos = min(packets.count, (found ?? 0) + (found == nil ? 0 : quirks.landAfterKey))
        return true
    }
    func seek(toByte offset: Int64) throws -> Bool {
        guard quirks.byteSeekable else { return false }
        byteSeeks += 1
        sought = true
        pos = offsets.firstIndex { $0 >= offset } ?? packets.count
        return true
    }
    func seek(toIndexTimestamp ts: Int64) throws -> Bool {
        indexSeeks += 1
        sought = true
        let byPTS = indexByPTS ?? (index?.container == .matroska)
        // The last indexed keyframe at or before the aim (a backward index search).
        let keys = packets.indices.filter { packets[$0].stream == 0 && packets[$0].isKey }
        guard let k = keys.lastIndex(where: { (byPTS ? packets[$0].pts! : packets[$0].dts!) <= ts }) else { return false }
        pos = keys[min(max(0, k + indexSeekOffBy), keys.count - 1)]
        while pos > 0 && packets[pos - 1].stream != 0 { pos -= 1 }
        return true
    }
    func rewind() throws { rewinds += 1; pos = 0; sought = false }
    func read() throws -> (header: DemuxedPacket, packet: Int)? {
        guard pos < packets.count else { return nil }
        pos += 1
        reads += 1
        nextToken += 1
        let token = nextToken
        live.insert(token)
        var h = packets[pos - 1]
        if sought && quirks.noDTSAfterSeek { h.dts = nil }
        return (h, token)
    }
    func release(_ packet: Int) {
        XCTAssertTrue(live.remove(packet) != nil, "packet \(packet) released twice or never handed out")
        releases += 1
    }
    func containerIndex() -> ContainerIndexFacts? { indexAsked += 1; return index }

    func resetCounters() { seeks = 0; byteSeeks = 0; indexSeeks = 0; rewinds = 0; reads = 0; releases = 0 }
}

enum Media {
    /// 25 fps in 1/90000, `n` frames, B-pyramid GOPs of `keyEvery`, audio every other packet.
    static func video(frames n: Int = 240, keyEvery: Int = 24, openGOP: Bool = false, audioEvery: Int = 2,
                      discardLeading: Int = 0) -> [DemuxedPacket] {
        let pts = (0..<n).map { Int64($0) * 3600 }
        return Script.video(pts: pts, keyEvery: keyEvery, openGOP: openGOP, maxDuration: 3600,
                            discardLeading: discardLeading, audioEvery: audioEvery).map {
            DemuxedPacket(stream: $0.stream, pts: $0.pts, dts: $0.dts, duration: $0.stream == 0 ? 3600 : 1800,
                          isKey: $0.isKey, isDiscard: $0.isDiscard)
        }
    }

    static func facts(_ packets: [DemuxedPacket], byByte: Bool = false, byPTS: Bool = true,
                      priming: Priming? = nil, hasVideo: Bool = true, ticksPerSecond: Int64 = 90000,
                      costlySeeks: Bool = false) -> DemuxerFacts {
        let ends = packets.filter { $0.stream == 0 }.compactMap(\.pts)
        return DemuxerFacts(referenceStream: 0, ticksPerSecond: ticksPerSecond, settleCount: 3, originTicks: 0,
                            durationEndTicks: (ends.max() ?? 0) + 3600, seekable: true, positionsByByte: byByte,
                            seeksByPTS: byPTS, costlySeeks: costlySeeks, fileSize: nil, maxWindowBytes: 64 << 20,
                            hasVideo: hasVideo, priming: priming ?? .none(referenceStream: 0, timeBaseNum: 1, timeBaseDen: 90000))
    }
}

final class LanderTests: XCTestCase {
    func frames(_ p: [DemuxedPacket]) -> [Int64] {
        p.filter { $0.stream == 0 && !$0.isDiscard }.compactMap(\.pts).sorted()
    }
    func keys(_ p: [DemuxedPacket]) -> [Int64] {
        p.filter { $0.stream == 0 && !$0.isDiscard && $0.isKey }.compactMap(\.pts).sorted()
    }
    func exact(_ t: Int64, id: UInt64 = 1) -> LandingRequest {
        LandingRequest(target: Rational(t), wantsKeyframe: false, keyframeWindow: nil, seekID: id)
    }
    /// Every packet read is either released or still in the window.
    func assertConserved(_ s: ScriptedSeam, _ l: Lander<ScriptedSeam>, handed: Int = 0, file: StaticString = #filePath,
                         line: UInt = #line) {
        XCTAssertEqual(s.live.count, l.window.count + handed, "packets leaked or lost", file: file, line: line)
    }

    func ready(_ p: [DemuxedPacket], quirks: ScriptedSeam.Quirks = .init(), byByte: Bool = false,
               byPTS: Bool = true) throws -> (ScriptedSeam, Lander<ScriptedSeam>) {
        let s = ScriptedSeam(p, quirks: quirks)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p, byByte: byByte, byPTS: byPTS))
        XCTAssertNotNil(try l.seekableRange(s))
        s.resetCounters()
        return (s, l)
    }

    // MARK: Seekable range

    func testRangeSkipsDiscardedPrerollAndEndsAtTheLastFrame() throws {
        let p = Media.video(discardLeading: 2)
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        let r = try XCTUnwrap(try l.seekableRange(s))
        XCTAssertEqual(r, frames(p).first!...frames(p).last!)
        XCTAssertTrue(l.rangeKnown)
        XCTAssertFalse(l.positionLost, "left at the start, nothing lost")
        XCTAssertEqual(l.window.count, 0)
        assertConserved(s, l)
        // Measured once.
        let reads = s.reads
        _ = try l.seekableRange(s)
        XCTAssertEqual(s.reads, reads)
    }

    func testUnseekableHasNoRangeAndNoReads() throws {
        let p = Media.video()
        var f = Media.facts(p)
        f.seekable = false
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: f)
        XCTAssertNil(try l.seekableRange(s))
        XCTAssertTrue(l.rangeKnown)
        XCTAssertEqual(s.reads, 0)
        XCTAssertThrowsError(try l.resolve(exact(0), s, shouldStop: { false }))
    }

    // MARK: Order of resolution

    func testColdExactSeekCrossesTheSeamOnceOutsideThePacketLoop() throws {
        for openGOP in [false, true] {
            let p = Media.video(openGOP: openGOP)
            let all = frames(p)
            for t in stride(from: Int64(0), to: all.last!, by: 7919) {
                let (s, l) = try ready(p)
                let landing = try l.resolve(exact(t), s, shouldStop: { false })
                XCTAssertEqual(landing.pts, all.last { $0 <= t }, "t=\(t) openGOP=\(openGOP)")
                XCTAssertEqual(s.positionings, 1, "one positioning, then the per-packet loop")
                XCTAssertEqual(landing.packetsRead, UInt64(s.reads))
                assertConserved(s, l)
            }
        }
    }

    func testMemoryDecidesWithoutTheSeamAndOnlyOnce() throws {
        let p = Media.video()
        let (s, l) = try ready(p)
        _ = try l.resolve(exact(50_000), s, shouldStop: { false })
        s.resetCounters()
        // The frames around 50,000 are proven now: memory decides, no crossing at all.
        let m = try XCTUnwrap(l.resolveFromMemory(exact(46_800, id: 2), s))
        XCTAssertEqual(m.pts, 46_800)
        XCTAssertEqual(m.packetsRead, 0)
        XCTAssertEqual(s.positionings + s.reads, 0)
        // The same through resolve: memory first.
        XCTAssertEqual(try l.resolve(exact(43_200, id: 3), s, shouldStop: { false }).packetsRead, 0)
        // A request whose memory check already ran goes straight on (memory is asked once per seek).
        var r = exact(43_200, id: 4)
        r.memoryChecked = true
        let scanned = try l.resolve(r, s, shouldStop: { false })
        XCTAssertEqual(scanned.pts, 43_200)
        XCTAssertGreaterThan(scanned.packetsRead, 0)
        assertConserved(s, l)
    }

    func testIndexBeforeScanForNearestKeyframe() throws {
        let p = Media.video()
        let (s, l) = try ready(p)
        // A complete mov index: one entry per sample (dts), keyframes flagged.
        let ref = p.filter { $0.stream == 0 }
        s.index = ContainerIndexFacts(container: .mov, entries: ref.map {
            .init(timestamp: $0.dts!, isKey: $0.isKey, isDiscard: false)
        }, frameCount: Int64(ref.count), writtenByLavf: false)
        let t: Int64 = 24 * 3600 * 3 + 3600   // one frame after the 4th keyframe
        let w = LandingRules.keyframeWindow(target: Rational(t), toleranceTicks: Rational(90000))
        let landing = try l.resolve(LandingRequest(target: Rational(t), wantsKeyframe: true, keyframeWindow: w, seekID: 1),
                                    s, shouldStop: { false })
        XCTAssertEqual(landing.pts, 24 * 3600 * 3)
        XCTAssertEqual(landing.resolution, .keyframe)
        XCTAssertFalse(landing.coversTarget)
        XCTAssertEqual(s.seeks, 0, "no timestamp scan")
        XCTAssertGreaterThan(s.indexSeeks, 0)
        XCTAssertLessThan(s.reads, 24, "O(1) packets, not a GOP")
        XCTAssertEqual(s.indexAsked, 1)
        // One positioning per keyframe whose pts it learns, the chosen one learned last: at
        // most 2 (testFirstIndexSeekPositionsAtMostTwice); learned pts are kept.
        XCTAssertLessThanOrEqual(s.positionings, 2)
        s.resetCounters()
        l.clearWindow(s)
        let again = try l.resolve(LandingRequest(target: Rational(t), wantsKeyframe: true, keyframeWindow: w, seekID: 2),
                                  s, shouldStop: { false })
        XCTAssertEqual(again.pts, landing.pts)
        XCTAssertLessThanOrEqual(s.positionings, 1, "pts known: memory, or one positioning")
        assertConserved(s, l)
    }

    func testFirstIndexSeekPositionsAtMostTwice() throws {
        // A fresh lander (no pts learned yet) and a complete mov index (entries are dts, a
        // lower bound of the pts): for every target, on a frame, between frames and in the
        // frames that decode before a keyframe but present after it (its dts <= target <
        // its pts), a nearest-keyframe seek positions at most twice (issue 17) and lands on
        // the nearest keyframe the tolerance allows (ties earlier), else the covering frame.
        let p = Media.video(keyEvery: 12, audioEvery: 3)
        let ref = p.filter { $0.stream == 0 }
        let keys = keys(p), all = frames(p)
        let index = ContainerIndexFacts(container: .mov, entries: ref.map {
            .init(timestamp: $0.dts!, isKey: $0.isKey, isDiscard: false)
        }, frameCount: Int64(ref.count), writtenByLavf: false)
        var worst = 0
        for tol: Int64 in [3600 * 7, 90000] {
            for t in stride(from: Int64(0), through: all.last!, by: 1200) {
                let (s, l) = try ready(p)
                s.index = index
                let w = LandingRules.keyframeWindow(target: Rational(t), toleranceTicks: Rational(tol))
                let landing = try l.resolve(LandingRequest(target: Rational(t), wantsKeyframe: true, keyframeWindow: w,
                                                           seekID: 1), s, shouldStop: { false })
                let inWindow = keys.filter { abs($0 - t) <= tol }
                let want = inWindow.min { a, b in abs(a - t) < abs(b - t) || (abs(a - t) == abs(b - t) && a < b) }
                    ?? all.last { $0 <= t }!
                XCTAssertEqual(landing.pts, want, "target \(t), tolerance \(tol)")
                XCTAssertLessThanOrEqual(s.positionings, 2, "target \(t), tolerance \(tol)")
                worst = max(worst, s.positionings)
                assertConserved(s, l)
            }
        }
        XCTAssertEqual(worst, 2)
    }

    // MARK: Index trust

    func testIndexTrust() {
        let r: ClosedRange<Int64> = 0...(239 * 3600)
        func entries(_ n: Int, every: Int = 24, skip: Set<Int> = []) -> [ContainerIndexFacts.Entry] {
            (0..<n).filter { !skip.contains($0) }.map { .init(timestamp: Int64($0) * 3600, isKey: $0 % every == 0, isDiscard: false) }
        }
        let mov = ContainerIndexFacts(container: .mov, entries: entries(240), frameCount: 240, writtenByLavf: false)
        XCTAssertEqual(IndexTrust.trusted(mov, range: r, ticksPerSecond: 90000, hasVideo: true)?.count, 10)
        // Fragmented (fewer entries than frames): not complete.
        var frag = mov
        frag.frameCount = 480
        XCTAssertNil(IndexTrust.trusted(frag, range: r, ticksPerSecond: 90000, hasVideo: true))
        // Not reaching the last frame.
        let short = ContainerIndexFacts(container: .mov, entries: entries(100), frameCount: 100, writtenByLavf: false)
        XCTAssertNil(IndexTrust.trusted(short, range: r, ticksPerSecond: 90000, hasVideo: true))
        // Matroska: libavformat's cues only, no holes.
        let cues = (0..<10).map { ContainerIndexFacts.Entry(timestamp: Int64($0) * 24 * 3600, isKey: true, isDiscard: false) }
        let mkv = ContainerIndexFacts(container: .matroska, entries: cues, frameCount: 0, writtenByLavf: true)
        XCTAssertNotNil(IndexTrust.trusted(mkv, range: r, ticksPerSecond: 90000, hasVideo: true))
        var other = mkv
        other.writtenByLavf = false
        XCTAssertNil(IndexTrust.trusted(other, range: r, ticksPerSecond: 90000, hasVideo: true))
        var holed = mkv
        holed.entries = [cues[0], cues[1], cues[8], cues[9]]
        XCTAssertNil(IndexTrust.trusted(holed, range: r, ticksPerSecond: 90000, hasVideo: true), "a hole: keyframes read so far")
        XCTAssertNil(IndexTrust.trusted(mkv, range: r, ticksPerSecond: 90000, hasVideo: false), "audio-only Matroska")
        var ts = mov
        ts.container = .other
        XCTAssertNil(IndexTrust.trusted(ts, range: r, ticksPerSecond: 90000, hasVideo: true))
    }

    // MARK: Stepping

    func testForwardStepsReadAboutOnePacketEach() throws {
        let p = Media.video(audioEvery: 0)
        let all = frames(p)
        let (s, l) = try ready(p)
        _ = try l.resolve(exact(all[30]), s, shouldStop: { false })
        var at = all[30]
        s.resetCounters()
        for i in 31..<120 {
            let step = try XCTUnwrap(try l.step(from: at, forward: true, count: 1, seekID: 0, s, shouldStop: { false }))
            XCTAssertEqual(step.pts, all[i])
            at = step.pts
        }
        XCTAssertLessThanOrEqual(s.reads, 89 + 24, "about one packet per step")
        XCTAssertEqual(l.landedPTS, all[119])
        assertConserved(s, l)
    }

    func testBackwardStepsCrossGOPsAndStopAtTheFirstFrame() throws {
        let p = Media.video(keyEvery: 12)
        let all = frames(p)
        let (s, l) = try ready(p)
        _ = try l.resolve(exact(all[100]), s, shouldStop: { false })
        var at = all[100]
        for i in stride(from: 99, through: 0, by: -1) {
            let step = try XCTUnwrap(try l.step(from: at, forward: false, count: 1, seekID: 0, s, shouldStop: { false }))
            XCTAssertEqual(step.pts, all[i])
            at = step.pts
        }
        s.resetCounters()
        XCTAssertNil(try l.step(from: at, forward: false, count: 1, seekID: 0, s, shouldStop: { false }))
        XCTAssertEqual(s.reads, 0, "refused from the range, no reading")
        XCTAssertNil(try l.step(from: all.last!, forward: true, count: 1, seekID: 0, s, shouldStop: { false }))
    }

    func testLongStepsKeepTheWindowUnderItsCap() throws {
        let p = Media.video(frames: 6000, keyEvery: 250, audioEvery: 0)
        let all = frames(p)
        let (s, l) = try ready(p)
        let step = try XCTUnwrap(try l.step(from: all[0], forward: true, count: 5000, seekID: 0, s, shouldStop: { false }))
        XCTAssertEqual(step.pts, all[5000])
        XCTAssertLessThanOrEqual(l.window.count, PacketWindow<Int>.maxPackets + 1)
        XCTAssertLessThan(s.reads, 5600, "each packet read about once")
        assertConserved(s, l)
    }

    // MARK: Repositioning

    func testRepositioningLearnsTheAimShift() throws {
        // Timestamp seeks land a GOP early (mov's edit-list shift): the first
        // positioning learns by how much; later ones land at once.
        let p = Media.video(keyEvery: 12, audioEvery: 0)
        let shift: Int64 = 12 * 3600
        let (s, l) = try ready(p, quirks: .init(indexShift: shift))
        _ = try l.resolve(exact(200 * 3600), s, shouldStop: { false })
        let k1 = try XCTUnwrap(l.grid.keyframe(for: 200 * 3600))
        // Empty the window so positioning must seek.
        l.clearWindow(s)
        s.resetCounters()
        XCTAssertTrue(try l.position(at: k1, s, shouldStop: { false }))
        XCTAssertGreaterThan(s.seeks, 1, "the first positioning misses")
        XCTAssertNotEqual(l.seekAimShift, 0)
        _ = try l.resolve(exact(100 * 3600), s, shouldStop: { false })
        let k2 = try XCTUnwrap(l.grid.keyframe(for: 100 * 3600))
        l.clearWindow(s)
        s.resetCounters()
        XCTAssertTrue(try l.position(at: k2, s, shouldStop: { false }))
        XCTAssertEqual(s.seeks, 1, "the learned shift lands at once")
        assertConserved(s, l)
    }

    func testRepositioningGivesUpAfterItsBudget() throws {
        // Every timestamp seek lands a GOP early and the shift never settles (a demuxer that
        // lies): position(at:) stops after Budget.repositionAttempts seeks; the caller scans.
        final class Drifting: LandingSeam {
            typealias Packet = Int
            let inner: ScriptedSeam
            var drift: Int64 = 0
            init(_ s: ScriptedSeam) { inner = s }
            func seek(toTicks t: Int64) throws -> Bool { drift += 48 * 3600; return try inner.seek(toTicks: t - drift) }
            func seek(toByte o: Int64) throws -> Bool { try inner.seek(toByte: o) }
            func seek(toIndexTimestamp t: Int64) throws -> Bool { try inner.seek(toIndexTimestamp: t) }
            func rewind() throws { try inner.rewind() }
            func read() throws -> (header: DemuxedPacket, packet: Int)? { try inner.read() }
            func release(_ p: Int) { inner.release(p) }
            func containerIndex() -> ContainerIndexFacts? { nil }
        }
        let p = Media.video(keyEvery: 12, audioEvery: 0)
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        _ = try l.seekableRange(s)
        _ = try l.resolve(exact(200 * 3600), s, shouldStop: { false })
        let k = try XCTUnwrap(l.grid.keyframe(for: 200 * 3600))
        let d = Drifting(s)
        let ld = Lander<Drifting>(facts: Media.facts(p))
        _ = try ld.seekableRange(d)
        ld.absorb(start: k.pts, end: k.pts, frames: [(k.pts, true, k.dts)], entryPoints: [], keyPositions: [:])
        s.resetCounters()
        XCTAssertFalse(try ld.position(at: k, d, shouldStop: { false }))
        XCTAssertLessThanOrEqual(s.seeks, Lander<Drifting>.Budget.repositionAttempts)
        XCTAssertGreaterThan(s.seeks, 1)
    }

    func testPositionByByteWhereTimestampSeeksLandMidGOP() throws {
        let p = Media.video(keyEvery: 15)
        let (s, l) = try ready(p, quirks: .init(seekByDTS: true, landAfterKey: 5, byteSeekable: true), byByte: true,
                               byPTS: false)
        let t: Int64 = 150 * 3600
        XCTAssertEqual(try l.resolve(exact(t), s, shouldStop: { false }).pts, t)
        let k = try XCTUnwrap(l.grid.keyframe(for: t))
        XCTAssertNotNil(k.pos)
        l.clearWindow(s)
        s.resetCounters()
        XCTAssertTrue(try l.position(at: k, s, shouldStop: { false }))
        XCTAssertEqual(s.byteSeeks, 1)
        XCTAssertEqual(s.seeks, 0)
    }

    // MARK: Host reads and the stamp

    func testHostReadsStartAtTheKeyframeWithDiscontinuityAndDecodeOnly() throws {
        let p = Media.video()
        let all = frames(p)
        let (s, l) = try ready(p)
        let t = all[40]
        let landing = try l.resolve(exact(t), s, shouldStop: { false })
        XCTAssertEqual(landing.pts, t)
        var first = true
        var sawLanded = false
        var handed = 0
        for _ in 0..<40 {
            guard let (h, flags) = try l.nextForHost(s, { e, owned -> (DemuxedPacket, UInt32) in
                if owned { handed += 1; s.release(e.packet) }
                let tb = l.stamp.referenceTimeBase
                return (e.header, l.stamp.nextFlags(presents: e.presents ?? e.header.dts, timeBase: tb))
            }) else { break }
            if first {
                XCTAssertTrue(h.isKey && h.stream == 0, "reads start at the landing's keyframe")
                XCTAssertNotEqual(flags & PacketView.flagDiscontinuity, 0)
                first = false
            } else {
                XCTAssertEqual(flags & PacketView.flagDiscontinuity, 0)
            }
            if let pts = h.pts, pts < t { XCTAssertNotEqual(flags & PacketView.flagDecodeOnly, 0) }
            if h.stream == 0, h.pts == t { sawLanded = true; XCTAssertEqual(flags & PacketView.flagDecodeOnly, 0) }
        }
        XCTAssertTrue(sawLanded)
        XCTAssertEqual(l.stamp.seekID, 1)
        _ = handed
    }

    func testAFailedReadLosesThePositionAndTheNextReadRestoresIt() throws {
        final class Failing: LandingSeam {
            typealias Packet = Int
            let inner: ScriptedSeam
            var failNext = false
            init(_ s: ScriptedSeam) { inner = s }
            func seek(toTicks t: Int64) throws -> Bool { try inner.seek(toTicks: t) }
            func seek(toByte o: Int64) throws -> Bool { try inner.seek(toByte: o) }
            func seek(toIndexTimestamp t: Int64) throws -> Bool { try inner.seek(toIndexTimestamp: t) }
            func rewind() throws { try inner.rewind() }
            func read() throws -> (header: DemuxedPacket, packet: Int)? {
                if failNext { failNext = false; throw EngineError(.io) }
                return try inner.read()
            }
            func release(_ p: Int) { inner.release(p) }
            func containerIndex() -> ContainerIndexFacts? { nil }
        }
        let p = Media.video()
        let all = frames(p)
        let f = Failing(ScriptedSeam(p))
        let l = Lander<Failing>(facts: Media.facts(p))
        _ = try l.seekableRange(f)
        _ = try l.resolve(exact(all[100]), f, shouldStop: { false })
        // Drain the window, then fail the next read from the demuxer.
        while l.window.hasUnread { _ = try l.nextForHost(f) { e, owned in if owned { f.release(e.packet) } } }
        f.failNext = true
        XCTAssertThrowsError(try l.nextForHost(f) { _, _ in })
        XCTAssertTrue(l.positionLost)
        XCTAssertFalse(l.window.contiguous)
        try l.restoreReadPosition(f, shouldStop: { false })
        XCTAssertFalse(l.positionLost)
        let first = try XCTUnwrap(try l.nextForHost(f) { e, owned -> DemuxedPacket in
            if owned { f.release(e.packet) }
            return e.header
        })
        XCTAssertTrue(first.isKey && first.stream == 0, "back at the playhead's keyframe")
        XCTAssertLessThanOrEqual(first.pts!, all[100])
    }

    func testCancelledScanThrowsAndKeepsNoPacket() throws {
        let p = Media.video()
        let (s, l) = try ready(p)
        var n = 0
        XCTAssertThrowsError(try l.resolve(exact(200 * 3600), s, shouldStop: { n += 1; return n > 5 }))
        l.close(s)
        assertConserved(s, l)
        XCTAssertTrue(s.live.isEmpty)
    }
}

/// The packet window's invariants.
final class PacketWindowTests: XCTestCase {
    /// Appends a packet as the demuxer gives it (numbered in demux order first).
    func add(_ i: Int, key: Bool = false, stream: Int32 = 0, dts: Int64? = nil, size: Int = 10,
             _ w: inout PacketWindow<Int>) {
        let e = w.demuxed(PacketWindow<Int>.Entry(header: DemuxedPacket(stream: stream, pts: Int64(i), dts: dts ?? Int64(i),
                                                                         isKey: key, size: size),
                                                  presents: Int64(i), notLandable: false, packet: i))
        w.append(e)
    }

    func testBytesDTSAndCursor() {
        var w = PacketWindow<Int>(referenceStream: 0)
        add(0, key: true, &w)
        add(1, stream: 1, dts: 99, &w)
        add(2, dts: 5, size: 30, &w)
        XCTAssertEqual(w.bytes, 50)
        XCTAssertEqual(w.maxReferenceDTS, 5, "other streams' dts do not count")
        w.point(at: 10)
        XCTAssertEqual(w.cursor, 3, "clamped to the window")
        XCTAssertNil(w.takeNext())
        w.point(at: -1)
        XCTAssertEqual(w.takeNext()?.packet, 0)
        XCTAssertFalse(w.contiguous)
        XCTAssertNil(w.indexOfKeyframe(presenting: 0), "only a contiguous window is searched")
        w.markContiguous()
        XCTAssertEqual(w.indexOfKeyframe(presenting: 0), 0)
        XCTAssertEqual(w.clear(), [0, 1, 2])
        XCTAssertEqual(w.bytes, 0)
        XCTAssertNil(w.maxReferenceDTS)
        XCTAssertEqual(w.cursor, 0)
    }

    func testDropLeadingGOPsAndTrim() {
        var w = PacketWindow<Int>(referenceStream: 0)
        for i in 0..<30 { add(i, key: i % 10 == 0, &w) }
        w.markContiguous()
        w.point(at: 5)
        let (out, lost) = w.dropLeadingGOPs()
        XCTAssertEqual(out, Array(0..<20))
        XCTAssertTrue(lost, "the host's cursor was inside the dropped packets")
        XCTAssertEqual(w.cursor, 0)
        XCTAssertEqual(w.bytes, 100)
        XCTAssertEqual(w.maxReferenceDTS, 29)
        // Trim: under the cap nothing goes; over it whole GOPs read past go.
        XCTAssertEqual(w.trim(maxBytes: 1000), [])
        w.point(at: 8)
        XCTAssertEqual(w.trim(maxBytes: 50), Array(20..<28), "no keyframe read past: all read goes")
        XCTAssertFalse(w.contiguous, "and the window gives up proving what follows")
        XCTAssertEqual(w.cursor, 0)
        var v = PacketWindow<Int>(referenceStream: 0)
        for i in 0..<30 { add(i, key: i % 10 == 0, &v) }
        v.markContiguous()
        v.point(at: 25)
        XCTAssertEqual(v.trim(maxBytes: 100), Array(0..<20))
        XCTAssertEqual(v.cursor, 5)
        XCTAssertTrue(v.contiguous)
    }

    /// Contiguity is derived from the demuxer's order (issue 26): a packet read and let go,
    /// a positioning, or a packet from before one ends it, whatever the caller marks.
    func testContiguityEndsWhenTheDemuxerGetsAhead() {
        var w = PacketWindow<Int>(referenceStream: 0)
        add(0, key: true, &w)
        w.markContiguous()
        XCTAssertTrue(w.contiguous)
        // The demuxer gives packet 1; it is let go (a stop): the window no longer ends there.
        _ = w.demuxed(PacketWindow<Int>.Entry(header: DemuxedPacket(stream: 0, pts: 1, dts: 1, isKey: false),
                                              presents: 1, notLandable: false, packet: 1))
        XCTAssertFalse(w.contiguous, "a packet read past the window and not kept")
        XCTAssertNil(w.indexOfKeyframe(presenting: 0), "so no landing replays it")
        w.markContiguous()
        XCTAssertFalse(w.contiguous, "marking cannot make it so")
        add(2, &w)
        XCTAssertFalse(w.contiguous, "nor appending what came after the gap")
        _ = w.clear()
        add(3, key: true, &w)
        w.markContiguous()
        XCTAssertTrue(w.contiguous, "emptied and refilled")
        w.demuxerMoved()
        XCTAssertFalse(w.contiguous, "a positioning")
        _ = w.clear()
        add(4, key: true, &w)
        w.markContiguous(atEOF: true)
        XCTAssertTrue(w.atEOF)
        w.demuxerMoved()
        XCTAssertFalse(w.atEOF, "the end is only known while contiguous")
    }
}

/// The priming rules.
final class PrimingTests: XCTestCase {
    func testSkipSamplesAndStartTime() {
        // 44.1 kHz MP3 in 1/14112000 (libavformat's mp3 time base): 1105 samples of priming.
        let pr = Priming(referenceStream: 0, sampleRate: 44100, audioStart: nil, timeBaseNum: 1, timeBaseDen: 14_112_000)
        let p = DemuxedPacket(stream: 0, pts: 0, dts: 0, duration: 1152 * 320, isKey: true, skipSamples: 1105)
        XCTAssertEqual(pr.presents(p), 1105 * 320)
        XCTAssertFalse(pr.notLandable(p))
        let all = DemuxedPacket(stream: 0, pts: 0, dts: 0, duration: 1152 * 320, isKey: true, skipSamples: 1152)
        XCTAssertTrue(pr.notLandable(all), "only priming: never a landing")
        XCTAssertEqual(pr.presents(DemuxedPacket(stream: 1, pts: 7, dts: 7, isKey: true, skipSamples: 1105)), 7,
                       "other streams as they are")
        // Opus after a seek: no side data, the stream's start time decides.
        let opus = Priming(referenceStream: 0, sampleRate: 48000, audioStart: 312, timeBaseNum: 1, timeBaseDen: 48000)
        XCTAssertEqual(opus.presents(DemuxedPacket(stream: 0, pts: -100, dts: -100, duration: 960, isKey: true)), 312)
        XCTAssertTrue(opus.notLandable(DemuxedPacket(stream: 0, pts: -1000, dts: -1000, duration: 960, isKey: true)))
        XCTAssertTrue(Priming.none(referenceStream: 0, timeBaseNum: 1, timeBaseDen: 90000).notLandable(DemuxedPacket(stream: 0, pts: 0, dts: 0, isKey: true,
                                                                                 isDiscard: true)))
        // av_rescale_q's rounding: halves away from zero.
        XCTAssertEqual(Priming.samplesToTicks(1, rate: 2, num: 1, den: 1), 1)
        XCTAssertEqual(Priming.samplesToTicks(1, rate: 3, num: 1, den: 1), 0)
    }
}
