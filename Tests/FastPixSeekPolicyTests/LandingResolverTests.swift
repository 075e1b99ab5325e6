import XCTest
@testable import FastPixSeekPolicy

/// A scripted demuxer: packets in decode order, and the positioning quirks
/// the FFmpeg engine meets in real containers.
final class ScriptedDemuxer: LandingDemuxer {
    struct Quirks {
        /// Seeks compare against dts (MPEG-TS) instead of pts (mov, Matroska).
        var seekByDTS = false
        /// The container index is shifted by this many ticks (mov edit lists):
        /// a seek to t finds the last keyframe whose pts + shift <= t.
        var indexShift: Int64 = 0
        /// A seek lands this many packets after the keyframe it found, on a
        /// non-key packet (MPEG-TS resyncs mid-GOP).
        var landAfterKey = 0
        /// After a seek, packets carry no dts (Matroska).
        var noDTSAfterSeek = false
        /// Byte seeks supported (MPEG-TS): packets carry byte offsets
        /// (`offsets`), and a byte seek lands on the first packet at or after it.
        var byteSeekable = false
        /// A timestamp seek lands on the last reference packet whose dts is at
        /// or before the target, key or not (MPEG-TS's binary search on dts):
        /// usually mid-GOP, past the keyframe the target needs.
        var landNearDTS = false
    }

    let packets: [PacketHeader]
    let quirks: Quirks
    let referenceStream: Int32 = 0
    private var pos = 0
    private var pendingIndex: Int?
    private var sought = false
    private(set) var window: [Int] = []   // indices into packets
    private(set) var reads = 0

    /// Byte offsets: a keyframe is 4,000 bytes, any other packet 700.
    let offsets: [Int64]
    private(set) var byteSeeks = 0
    private(set) var timestampSeeks = 0

    init(_ packets: [PacketHeader], quirks: Quirks = Quirks()) {
        self.packets = packets; self.quirks = quirks
        var o: [Int64] = [], at: Int64 = 0
        for p in packets { o.append(at); at += p.isKey && p.stream == 0 ? 4000 : 700 }
        offsets = o
    }

    var positionsByByte: Bool { quirks.byteSeekable }
    func seek(toByte offset: Int64) throws -> Bool {
        guard quirks.byteSeekable else { return false }
        byteSeeks += 1
        pos = offsets.firstIndex { $0 >= offset } ?? packets.count
        sought = true
        return true
    }

    func seek(toTicks ticks: Int64) throws -> Bool {
        timestampSeeks += 1
        if quirks.landNearDTS {
            pos = packets.lastIndex { $0.stream == 0 && ($0.dts ?? $0.pts!) <= ticks } ?? 0
            sought = true
            return true
        }
        var found: Int?
        for (i, p) in packets.enumerated() where p.stream == 0 && p.isKey {
            let t = quirks.seekByDTS ? (p.dts ?? p.pts!) : p.pts! &+ quirks.indexShift
            if t <= ticks { found = i }
        }
        pos = min(packets.count, (found ?? 0) + (found == nil ? 0 : quirks.landAfterKey))
        sought = true
        return true
    }
    func rewind() throws { pos = 0; sought = false }
    func resetWindow() { window.removeAll(); pendingIndex = nil }
    func next() throws -> PacketHeader? {
        guard pos < packets.count else { return nil }
        var h = packets[pos]
        pendingIndex = pos
        pos += 1
        reads += 1
        if sought && quirks.noDTSAfterSeek { h.dts = nil }
        if quirks.byteSeekable { h.pos = offsets[pendingIndex!] }
        return h
    }
    func keep() { if let i = pendingIndex { window.append(i); pendingIndex = nil } }
    func drop() { pendingIndex = nil }

    /// The container index: one entry per reference keyframe, its dts (mov)
    /// or its pts (Matroska), `missing` ones left out (sparse cues).
    func index(byPTS: Bool, missing: Set<Int64> = []) -> KeyframeIndex {
        let e = packets.filter { $0.stream == 0 && $0.isKey && !missing.contains($0.pts!) }.map {
            KeyframeIndex.Entry(timestamp: byPTS ? $0.pts! : $0.dts!, pts: nil, landable: !$0.isDiscard)
        }
        indexByPTS = byPTS
        return KeyframeIndex(entries: e, timestampIsPTS: byPTS)
    }
    private var indexByPTS = false
    /// Index seeks: to the packet the entry names, or `indexSeekOffBy` keyframes later/earlier.
    var indexSeekOffBy = 0
    private(set) var indexSeeks = 0
    func seek(toIndexTimestamp ts: Int64) throws -> Bool {
        indexSeeks += 1
        let keys = packets.indices.filter { packets[$0].stream == 0 && packets[$0].isKey }
        guard let k = keys.firstIndex(where: { (indexByPTS ? packets[$0].pts! : packets[$0].dts!) == ts }) else { return false }
        let j = min(max(0, k + indexSeekOffBy), keys.count - 1)
        pos = keys[j]
        // Packets of other streams interleaved just before the keyframe come first.
        while pos > 0 && packets[pos - 1].stream != 0 { pos -= 1 }
        sought = true
        return true
    }
}

/// Builds a video stream in decode order from a presentation-order frame list.
enum Script {
    /// frames: presentation times; keys: indices of keyframes; B-frames in
    /// mini-groups of 3 with a pyramid (middle B decoded first). `openGOP`:
    /// the B-frames just before a keyframe decode after it (leading pictures).
    static func video(pts: [Int64], keyEvery: Int, openGOP: Bool = false, maxDuration: Int64,
                      discardLeading: Int = 0, audioEvery: Int = 0) -> [PacketHeader] {
        let n = pts.count
        var anchors = Set<Int>()
        for i in 0..<n where i % 4 == 0 || i % keyEvery == 0 || i == n - 1 { anchors.insert(i) }
        if !openGOP { for i in stride(from: keyEvery, to: n, by: keyEvery) { anchors.insert(i - 1) } }
        var order: [Int] = []
        var pendingB: [Int] = []
        for i in 0..<n {
            if anchors.contains(i) {
                order.append(i)
                // pyramid: middle first
                if pendingB.count == 3 { order += [pendingB[1], pendingB[0], pendingB[2]] } else { order += pendingB }
                pendingB.removeAll()
            } else {
                pendingB.append(i)
            }
        }
        let delay: Int64 = 2
        var out: [PacketHeader] = []
        for (k, i) in order.enumerated() {
            let dts = pts[k] - delay * maxDuration
            out.append(PacketHeader(stream: 0, pts: pts[i], dts: dts, isKey: i % keyEvery == 0,
                                    isDiscard: i < discardLeading))
            if audioEvery > 0 && k % audioEvery == 0 {
                out.append(PacketHeader(stream: 1, pts: pts[i], dts: pts[i], isKey: true))
            }
        }
        return out
    }
}

final class LandingResolverTests: XCTestCase {
    // MARK: Policy

    func testWindowIsExactOnA12288TimeBase() {
        // 1/10 s = 1228.8 ticks of 1/12288 s. A keyframe at 12288 (1 s) is exactly
        // 1/10 s before a target of 1.1 s = 13516.8 ticks: it must be inside.
        let tb = Timeline(timeBaseNum: 1, timeBaseDen: 12288, originTicks: 0)
        let tol = tb.ticks(ofDuration: MediaTime(value: 1, timescale: 10))!
        XCTAssertEqual(tol, Rational(6144, 5))
        let target = tb.ticks(of: MediaTime(value: 11, timescale: 10))!
        let w = LandingPolicy.keyframeWindow(target: target, toleranceTicks: tol)
        XCTAssertEqual(w, 12288...14745)
        // Rounding the tolerance to 1228 ticks first (the old code) loses it.
        XCTAssertFalse((Int64(target.ceil) - 1228...Int64(target.floor) + 1228).contains(12288))
        // Tolerance 0 between ticks: no whole tick inside.
        XCTAssertNil(LandingPolicy.keyframeWindow(target: Rational(1, 2), toleranceTicks: Rational(0)))
        XCTAssertEqual(LandingPolicy.keyframeWindow(target: Rational(5), toleranceTicks: Rational(0)), 5...5)
    }

    func testNearestKeyframeTiesGoEarlier() {
        XCTAssertEqual(LandingPolicy.nearestKeyframe(target: Rational(10), before: 8, after: 12), 8)
        XCTAssertEqual(LandingPolicy.nearestKeyframe(target: Rational(21, 2), before: 8, after: 12), 12)
        XCTAssertEqual(LandingPolicy.nearestKeyframe(target: Rational(10), before: nil, after: 12), 12)
        XCTAssertNil(LandingPolicy.nearestKeyframe(target: Rational(10), before: nil, after: nil))
        XCTAssertTrue(LandingPolicy.isBetterKeyframe(Rational(8), than: Rational(12), target: Rational(10)))
        XCTAssertFalse(LandingPolicy.isBetterKeyframe(Rational(12), than: Rational(8), target: Rational(10)))
        // Between ticks: 2 * 10.5 - 8 = 13, so 12 is the last tick strictly nearer than 8.
        XCTAssertEqual(LandingPolicy.lastTickStrictlyNearer(than: 8, target: Rational(21, 2)), 12)
        XCTAssertEqual(LandingPolicy.lastTickStrictlyNearer(than: 8, target: Rational(10)), 11)
    }

    // MARK: Scripted demuxers

    struct Oracle {
        let frames: [Int64]
        let keys: [Int64]
        init(_ p: [PacketHeader]) {
            frames = p.filter { $0.stream == 0 && !$0.isDiscard }.map { $0.pts! }.sorted()
            keys = p.filter { $0.stream == 0 && !$0.isDiscard && $0.isKey }.map { $0.pts! }.sorted()
        }
        func covering(_ t: Rational) -> Int64 { frames.last { Rational($0) <= t } ?? frames[0] }
        func nearestKey(_ t: Rational, tol: Rational) -> Int64? {
            var best: Int64?
            for k in keys where (Rational(k) - t).magnitude <= tol {
                if best == nil || (Rational(k) - t).magnitude < (Rational(best!) - t).magnitude { best = k }
            }
            return best
        }
    }

    /// Resolves every target against the brute-force oracle; checks the
    /// landing, the resolution, and that the host's reads start at a keyframe
    /// the landed frame decodes from.
    func check(_ name: String, _ packets: [PacketHeader], quirks: ScriptedDemuxer.Quirks, tolerance: Rational?,
               settle: Int = 3, file: StaticString = #filePath, line: UInt = #line) {
        let o = Oracle(packets)
        var targets: [Rational] = []
        for f in o.frames { targets += [Rational(f), Rational(f - 1), Rational(Int128(2 * f + 1), 2)] }
        if let tol = tolerance { for k in o.keys { targets += [Rational(k) + tol, Rational(k) - tol, Rational(k) + tol + Rational(1, 7)] } }
        let first = o.frames[0], last = o.frames.last!
        var wrong = 0
        for var t in targets {
            // The player clamps into [first, last] before resolving.
            if t < Rational(first) { t = Rational(first) }
            if Rational(last) < t { t = Rational(last) }
            let d = ScriptedDemuxer(packets, quirks: quirks)
            let window = tolerance.flatMap { LandingPolicy.keyframeWindow(target: t, toleranceTicks: $0) }
            let req = LandingRequest(target: t, wantsKeyframe: tolerance != nil, keyframeWindow: window, seekID: 1)
            let scan: LandingScan
            do {
                scan = try LandingResolver.scan(d, target: req.targetFloor, exactTarget: t, window: req.keyframeWindow,
                                                wantsKeyframe: req.wantsKeyframe, firstFrame: first, ticksPerSecond: 100,
                                                settleCount: settle, shouldStop: { false })
            } catch {
                XCTFail("\(name): target \(t): \(error)", file: file, line: line); return
            }
            let dec = LandingResolver.decide(req, scan: scan)
            let cov = o.covering(t)
            let want = tolerance.flatMap { o.nearestKey(t, tol: $0) } ?? cov
            let wantRes: LandingResolution = tolerance == nil ? .coveringFrame
                : (o.nearestKey(t, tol: tolerance!) != nil ? .keyframe : .fallbackCoveringFrame)
            let start = d.window[dec.startIndex]
            let startPkt = packets[start]
            let landedAt = d.window.firstIndex { packets[$0].stream == 0 && packets[$0].pts == dec.pts && !packets[$0].isDiscard }
            var ok = dec.pts == want && dec.resolution == wantRes && dec.coversTarget == (want == cov)
            ok = ok && startPkt.isKey && startPkt.stream == 0 && startPkt.pts! <= dec.pts
            ok = ok && landedAt != nil && d.window.index(of: start)! <= landedAt!
            if !ok {
                wrong += 1
                if wrong <= 5 {
                    XCTFail("\(name): target \(t): landed \(dec.pts) \(dec.resolution) covers \(dec.coversTarget), "
                            + "want \(want) \(wantRes) covers \(want == cov); start pts \(startPkt.pts!) key \(startPkt.isKey)",
                            file: file, line: line)
                }
            }
        }
        XCTAssertEqual(wrong, 0, "\(name): \(wrong) of \(targets.count) wrong", file: file, line: line)
    }

    static let cfr: [Int64] = (0..<120).map { Int64($0) * 512 }
    /// Frame durations of 1, 2 and 3 periods.
    static let vfr: [Int64] = {
        var t: Int64 = 0, out: [Int64] = []
        for i in 0..<120 { out.append(t); t += Int64(100 * (1 + i / 40)) }
        return out
    }()

    func testBPyramidClosedGOP() {
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512, audioEvery: 3)
        check("b-pyramid exact", p, quirks: .init(), tolerance: nil)
        check("b-pyramid keyframe 1/10 s", p, quirks: .init(), tolerance: Rational(6144, 5))
        check("b-pyramid keyframe wide", p, quirks: .init(), tolerance: Rational(12288))
    }

    func testOpenGOPLeadingFrames() {
        let p = Script.video(pts: Self.cfr, keyEvery: 24, openGOP: true, maxDuration: 512)
        // Leading pictures: decoded after a keyframe, presented before it.
        XCTAssertTrue(zip(p, p.dropFirst()).contains { $0.isKey && $0.pts! > 0 && $1.pts! < $0.pts! })
        check("open GOP exact", p, quirks: .init(), tolerance: nil)
        check("open GOP keyframe", p, quirks: .init(), tolerance: Rational(6144, 5))
    }

    func testMatroskaWithoutDTSAfterSeek() {
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512, audioEvery: 2)
        check("mkv exact", p, quirks: .init(noDTSAfterSeek: true), tolerance: nil)
        check("mkv keyframe", p, quirks: .init(noDTSAfterSeek: true), tolerance: Rational(6144, 5))
    }

    func testTSSeeksLandOnNonKeyPackets() {
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512, audioEvery: 2)
        check("ts exact", p, quirks: .init(seekByDTS: true, landAfterKey: 3), tolerance: nil)
        check("ts keyframe", p, quirks: .init(seekByDTS: true, landAfterKey: 5), tolerance: Rational(6144, 5))
    }

    func testMovEditListShiftedIndex() {
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512)
        // Index a GOP late (seeks land a GOP early) and a few frames early (seeks land past the target).
        check("mov shift -gop", p, quirks: .init(indexShift: -24 * 512), tolerance: nil)
        check("mov shift +", p, quirks: .init(indexShift: 3 * 512), tolerance: nil)
        check("mov shift + keyframe", p, quirks: .init(indexShift: 3 * 512), tolerance: Rational(6144, 5))
    }

    func testVFR() {
        let p = Script.video(pts: Self.vfr, keyEvery: 16, maxDuration: 300)
        check("vfr exact", p, quirks: .init(), tolerance: nil)
        check("vfr keyframe", p, quirks: .init(), tolerance: Rational(250))
    }

    func testDiscardAndPrimingPacketsAreNeverLandings() {
        // Edit-list pre-roll / priming: the first 5 frames (key included) are discard-flagged.
        let p = Script.video(pts: Self.cfr.map { $0 - 5 * 512 }, keyEvery: 24, maxDuration: 512, discardLeading: 5)
        check("discard exact", p, quirks: .init(), tolerance: nil)
        check("discard keyframe", p, quirks: .init(), tolerance: Rational(6144, 5))
        check("discard keyframe wide", p, quirks: .init(), tolerance: Rational(12288))
    }

    func testFromGridAgreesWithPolicy() {
        var g = FrameGrid()
        var frames: [(pts: Int64, key: Bool, dts: Int64?)] = []
        for i in 0..<48 {
            let t = Int64(i) * 512
            frames.append((pts: t, key: i % 24 == 0, dts: t))
        }
        g.record(start: 0, end: Int64.max, frames: frames)
        let tol = Rational(6144, 5)
        // Exactly 1/10 s past the keyframe at 12288: the keyframe.
        let t = Rational(12288) + tol
        let req = LandingRequest(target: t, wantsKeyframe: true,
                                 keyframeWindow: LandingPolicy.keyframeWindow(target: t, toleranceTicks: tol), seekID: 1)
        let k = LandingResolver.fromGrid(req, grid: g)
        XCTAssertEqual(k?.pts, 12288)
        XCTAssertEqual(k?.resolution, .keyframe)
        XCTAssertEqual(k?.covers, false)
        // A hair further: fallback to the covering frame.
        let t2 = t + Rational(1, 1000)
        let req2 = LandingRequest(target: t2, wantsKeyframe: true,
                                  keyframeWindow: LandingPolicy.keyframeWindow(target: t2, toleranceTicks: tol), seekID: 1)
        XCTAssertEqual(LandingResolver.fromGrid(req2, grid: g)?.resolution, .fallbackCoveringFrame)
        XCTAssertEqual(LandingResolver.fromGrid(req2, grid: g)?.pts, 13312)
    }

    // MARK: The container's keyframe index

    func checkIndex(_ name: String, _ packets: [PacketHeader], byPTS: Bool, quirks: ScriptedDemuxer.Quirks = .init(),
                    tolerance: Rational, maxReads: Int, file: StaticString = #filePath, line: UInt = #line) {
        let o = Oracle(packets)
        var targets: [Rational] = []
        for f in o.frames { targets += [Rational(f), Rational(Int128(2 * f + 1), 2)] }
        for k in o.keys { targets += [Rational(k) + tolerance, Rational(k) - tolerance, Rational(k) + tolerance + Rational(1, 7)] }
        let first = o.frames[0], last = o.frames.last!
        var wrong = 0, decided = 0
        let base = ScriptedDemuxer(packets, quirks: quirks)
        var index = base.index(byPTS: byPTS)
        for var t in targets {
            if t < Rational(first) { t = Rational(first) }
            if Rational(last) < t { t = Rational(last) }
            let d = ScriptedDemuxer(packets, quirks: quirks)
            _ = d.index(byPTS: byPTS)
            // A fresh index half the time (cold), the learned one otherwise (warm).
            var idx = wrong % 2 == 0 && decided % 2 == 0 ? base.index(byPTS: byPTS) : index
            let req = LandingRequest(target: t, wantsKeyframe: true,
                                     keyframeWindow: LandingPolicy.keyframeWindow(target: t, toleranceTicks: tolerance), seekID: 1)
            guard let dec = try? LandingResolver.resolveFromIndex(req, index: &idx, demuxer: d, settleCount: 3,
                                                                  shouldStop: { false }) else {
                // Undecided: only when no keyframe is inside the window.
                if o.nearestKey(t, tol: tolerance) != nil {
                    wrong += 1
                    XCTFail("\(name): target \(t): index undecided though keyframe \(o.nearestKey(t, tol: tolerance)!) is inside", file: file, line: line)
                }
                continue
            }
            index = idx
            decided += 1
            let want = o.nearestKey(t, tol: tolerance)
            let startPkt = packets[d.window[dec.startIndex]]
            let covers = want == o.covering(t)
            if dec.pts != want || dec.resolution != .keyframe || dec.coversTarget != covers || !startPkt.isKey
                || startPkt.pts != dec.pts || d.reads > maxReads {
                wrong += 1
                if wrong <= 5 {
                    XCTFail("\(name): target \(t): landed \(dec.pts) covers \(dec.coversTarget) after \(d.reads) reads; "
                            + "want \(String(describing: want)) covers \(covers)", file: file, line: line)
                }
            }
        }
        XCTAssertGreaterThan(decided, 20, name, file: file, line: line)
        XCTAssertEqual(wrong, 0, "\(name): \(wrong) of \(targets.count) wrong", file: file, line: line)
    }

    func testIndexMovDTSEntries() {
        // mov: entries are dts (below the pts by the reorder delay), B-pyramid, interleaved audio.
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512, audioEvery: 3)
        // Two keyframes learned (a seek and a packet or two each) plus the frames up to the target.
        checkIndex("mov 1/10 s", p, byPTS: false, tolerance: Rational(6144, 5), maxReads: 24)
        checkIndex("mov 1 s", p, byPTS: false, tolerance: Rational(12288), maxReads: 80)
    }

    func testIndexMatroskaCuesWithoutDTS() {
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512, audioEvery: 2)
        checkIndex("mkv", p, byPTS: true, quirks: .init(noDTSAfterSeek: true), tolerance: Rational(6144, 5), maxReads: 24)
    }

    func testIndexOpenGOPAndDiscardPreRoll() {
        let open = Script.video(pts: Self.cfr, keyEvery: 24, openGOP: true, maxDuration: 512)
        checkIndex("open GOP", open, byPTS: false, tolerance: Rational(6144, 5), maxReads: 24)
        let cut = Script.video(pts: Self.cfr.map { $0 - 5 * 512 }, keyEvery: 24, maxDuration: 512, discardLeading: 5)
        checkIndex("discard pre-roll", cut, byPTS: false, tolerance: Rational(12288), maxReads: 80)
    }

    func testIndexSeekThatMissesIsNeverALanding() {
        // The demuxer lands a keyframe off from the entry asked for: the resolver must
        // give up (the engine then scans), never land on the wrong keyframe.
        let p = Script.video(pts: Self.cfr, keyEvery: 24, maxDuration: 512)
        for off in [-1, 1] {
            let d = ScriptedDemuxer(p)
            var idx = d.index(byPTS: false)
            d.indexSeekOffBy = off
            let t = Rational(24 * 512 + 100)
            let req = LandingRequest(target: t, wantsKeyframe: true,
                                     keyframeWindow: LandingPolicy.keyframeWindow(target: t, toleranceTicks: Rational(12288)),
                                     seekID: 1)
            XCTAssertNil(try LandingResolver.resolveFromIndex(req, index: &idx, demuxer: d, settleCount: 3, shouldStop: { false }))
        }
    }
}
