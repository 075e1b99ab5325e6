import XCTest
@testable import FastPixSeekPolicy

extension ScriptedSeam {
    /// The container index: one entry per reference keyframe, its dts (mov) or its pts
    /// (Matroska), as `seek(toIndexTimestamp:)` then searches it.
    func keyframeIndex(byPTS: Bool) -> KeyframeIndex {
        indexByPTS = byPTS
        let e = packets.filter { $0.stream == 0 && $0.isKey }.map {
            KeyframeIndex.Entry(timestamp: byPTS ? $0.pts! : $0.dts!, pts: nil, landable: !$0.isDiscard)
        }
        return KeyframeIndex(entries: e, timestampIsPTS: byPTS)
    }

    /// The scripted packet a window entry is (byte offsets are unique on a byte-seekable seam).
    func packetIndex(_ e: PacketWindow<PacketHandle>.Entry) -> Int? {
        e.header.pos.flatMap { p in offsets.firstIndex(of: p) }
    }
}

/// Builds a video stream in decode order from a presentation-order frame list.
enum Script {
    /// frames: presentation times; keys: indices of keyframes; B-frames in
    /// mini-groups of 3 with a pyramid (middle B decoded first). `openGOP`:
    /// the B-frames just before a keyframe decode after it (leading pictures).
    static func video(pts: [Int64], keyEvery: Int, openGOP: Bool = false, maxDuration: Int64,
                      discardLeading: Int = 0, audioEvery: Int = 0) -> [DemuxedPacket] {
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
        var out: [DemuxedPacket] = []
        for (k, i) in order.enumerated() {
            let dts = pts[k] - delay * maxDuration
            out.append(DemuxedPacket(stream: 0, pts: pts[i], dts: dts, isKey: i % keyEvery == 0,
                                    isDiscard: i < discardLeading))
            if audioEvery > 0 && k % audioEvery == 0 {
                out.append(DemuxedPacket(stream: 1, pts: pts[i], dts: pts[i], isKey: true))
            }
        }
        return out
    }
}

/// The lander's scans on scripted seams with the positioning quirks of real containers,
/// against a brute-force oracle: every frame as a target (and between frames, and at the
/// edges of the keyframe window), the landing, its resolution, and that the host's reads
/// start at a keyframe the landed frame decodes from.
final class LanderScanTests: XCTestCase {
    // MARK: Scripted seams

    struct Oracle {
        let frames: [Int64]
        let keys: [Int64]
        init(_ p: [DemuxedPacket]) {
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
    func check(_ name: String, _ packets: [DemuxedPacket], quirks: ScriptedSeam.Quirks, tolerance: Rational?,
               file: StaticString = #filePath, line: UInt = #line) {
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
            let s = ScriptedSeam(packets, quirks: quirks)
            let l = Lander<ScriptedSeam>(facts: Media.facts(packets, ticksPerSecond: 100))
            let window = tolerance.flatMap { LandingRules.keyframeWindow(target: t, toleranceTicks: $0) }
            let req = LandingRequest(target: t, wantsKeyframe: tolerance != nil, keyframeWindow: window, seekID: 1)
            let scan: LandingScan
            do {
                scan = try l.scan(target: req.targetFloor, exactTarget: t, window: req.keyframeWindow,
                                  wantsKeyframe: req.wantsKeyframe, firstFrame: first, s, shouldStop: { false })
            } catch {
                XCTFail("\(name): target \(t): \(error)", file: file, line: line); return
            }
            let dec = LandingRules.decide(req, scan: scan)
            let cov = o.covering(t)
            let want = tolerance.flatMap { o.nearestKey(t, tol: $0) } ?? cov
            let wantRes: LandingResolution = tolerance == nil ? .coveringFrame
                : (o.nearestKey(t, tol: tolerance!) != nil ? .keyframe : .fallbackCoveringFrame)
            let startPkt = l.window.entries[dec.startIndex].header
            let landedAt = l.window.entries.firstIndex {
                $0.header.stream == 0 && $0.header.pts == dec.pts && !$0.header.isDiscard
            }
            var ok = dec.pts == want && dec.resolution == wantRes && dec.coversTarget == (want == cov)
            ok = ok && startPkt.isKey && startPkt.stream == 0 && startPkt.pts! <= dec.pts
            ok = ok && landedAt.map { dec.startIndex <= $0 } == true
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

    // MARK: The container's keyframe index

    func checkIndex(_ name: String, _ packets: [DemuxedPacket], byPTS: Bool, quirks: ScriptedSeam.Quirks = .init(),
                    tolerance: Rational, maxReads: Int, file: StaticString = #filePath, line: UInt = #line) {
        let o = Oracle(packets)
        var targets: [Rational] = []
        for f in o.frames { targets += [Rational(f), Rational(Int128(2 * f + 1), 2)] }
        for k in o.keys { targets += [Rational(k) + tolerance, Rational(k) - tolerance, Rational(k) + tolerance + Rational(1, 7)] }
        let first = o.frames[0], last = o.frames.last!
        var wrong = 0, decided = 0
        let base = ScriptedSeam(packets, quirks: quirks)
        var index = base.keyframeIndex(byPTS: byPTS)
        for var t in targets {
            if t < Rational(first) { t = Rational(first) }
            if Rational(last) < t { t = Rational(last) }
            let s = ScriptedSeam(packets, quirks: quirks)
            _ = s.keyframeIndex(byPTS: byPTS)
            let l = Lander<ScriptedSeam>(facts: Media.facts(packets))
            // A fresh index half the time (cold), the learned one otherwise (warm).
            var idx = wrong % 2 == 0 && decided % 2 == 0 ? base.keyframeIndex(byPTS: byPTS) : index
            let req = LandingRequest(target: t, wantsKeyframe: true,
                                     keyframeWindow: LandingRules.keyframeWindow(target: t, toleranceTicks: tolerance), seekID: 1)
            guard let dec = try? l.resolveFromIndex(req, index: &idx, s, shouldStop: { false }) else {
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
            let startPkt = l.window.entries[dec.startIndex].header
            let covers = want == o.covering(t)
            if dec.pts != want || dec.resolution != .keyframe || dec.coversTarget != covers || !startPkt.isKey
                || startPkt.pts != dec.pts || s.reads > maxReads {
                wrong += 1
                if wrong <= 5 {
                    XCTFail("\(name): target \(t): landed \(dec.pts) covers \(dec.coversTarget) after \(s.reads) reads; "
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
            let s = ScriptedSeam(p)
            var idx = s.keyframeIndex(byPTS: false)
            s.indexSeekOffBy = off
            let l = Lander<ScriptedSeam>(facts: Media.facts(p))
            let t = Rational(24 * 512 + 100)
            let req = LandingRequest(target: t, wantsKeyframe: true,
                                     keyframeWindow: LandingRules.keyframeWindow(target: t, toleranceTicks: Rational(12288)),
                                     seekID: 1)
            XCTAssertNil(try l.resolveFromIndex(req, index: &idx, s, shouldStop: { false }))
        }
    }
}
