import XCTest
@testable import FastPixSeekPolicy

/// Backward frame steps into the GOP before a proven run: positioned by byte
/// offset (MPEG-TS), one GOP read per GOP entered (steps refused without reading:
/// `LandingRulesTests`).
final class BackwardStepTests: XCTestCase {
    static let cfr: [Int64] = (0..<240).map { Int64($0) * 3600 }   // 25 fps in 1/90000

    /// Records the lander's window into a grid of the test's own: from the window's
    /// first packet (a keyframe) to its largest reference dts.
    func record(_ l: Lander<ScriptedSeam>, into grid: inout FrameGrid, eof: Bool) {
        let w = l.window.entries.map(\.header).filter { $0.stream == 0 }
        guard let first = w.first, let start = first.pts else { return }
        let end = eof ? Int64.max : w.compactMap { $0.dts }.max()!
        var positions: [Int64: Int64] = [:]
        for h in w where h.isKey { positions[h.pts!] = h.pos! }
        grid.record(start: start, end: max(start, end), frames: w.map { ($0.pts!, $0.isKey, $0.dts) },
                    keyPositions: positions)
    }

    /// Walks backward GOP by GOP from the last one, as the engine's backward
    /// steps do, and checks the grid proves every frame, each GOP read once.
    func walk(keyEvery: Int, audioEvery: Int, openGOP: Bool = false, spanFactor: Double = 1) throws -> (reads: Int, entries: [Int]) {
        let packets = Script.video(pts: Self.cfr, keyEvery: keyEvery, openGOP: openGOP, maxDuration: 3600,
                                   audioEvery: audioEvery)
        // Timestamp seeks land mid-GOP on a non-key packet, as in MPEG-TS.
        let d = ScriptedSeam(packets, quirks: .init(seekByDTS: true, landAfterKey: 5, byteSeekable: true))
        let l = Lander<ScriptedSeam>(facts: Media.facts(packets, byByte: true, byPTS: false))
        var grid = FrameGrid()
        // The landing on the last frame: a scan of the last GOP.
        let s = try l.scan(target: Self.cfr.last!, window: nil, wantsKeyframe: false, firstFrame: 0, d,
                           shouldStop: { false })
        record(l, into: &grid, eof: s.reachedEnd)
        let fileBytes = d.offsets.last! + 700
        let fallback = Double(fileBytes) / Double(Self.cfr.last!)
        var entries: [Int] = []
        let before = d.reads
        for _ in 0..<100 {
            guard let cov = grid.coverage(around: Self.cfr.last!), cov.lowerBound > 0 else { break }
            let k = try XCTUnwrap(grid.keyframe(for: cov.lowerBound))
            XCTAssertEqual(k.pts, cov.lowerBound)
            XCTAssertNotNil(k.pos, "the grid keeps keyframe byte offsets")
            let back = try XCTUnwrap(Lander<ScriptedSeam>.backwardByteSpan(before: k, grid: grid, ticksPerSecond: 90000,
                                                                           fallbackBytesPerTick: fallback))
            let r0 = d.reads
            let scan = try XCTUnwrap(l.scanBackward(into: k, back: Int64(Double(back) * spanFactor), d,
                                                    shouldStop: { false }))
            XCTAssertLessThan(scan.firstKey.pts, k.pts)
            record(l, into: &grid, eof: scan.reachedEnd)
            entries.append(d.reads - r0)
            let now = try XCTUnwrap(grid.coverage(around: Self.cfr.last!))
            XCTAssertLessThan(now.lowerBound, cov.lowerBound, "each entry extends the proven run backward")
        }
        // Every frame is proven, in one run, from the first frame.
        XCTAssertEqual(grid.coverage(around: 0)?.lowerBound, 0)
        for (i, f) in Self.cfr.enumerated().dropFirst() { XCTAssertEqual(grid.frame(from: f, offset: -1), Self.cfr[i - 1]) }
        XCTAssertNil(try l.scanBackward(into: grid.keyframe(for: 0)!, back: 4096, d, shouldStop: { false }),
                     "nothing before the first keyframe")
        return (d.reads - before, entries)
    }

    func testWalkReadsEachGOPAboutOnce() throws {
        let n = Script.video(pts: Self.cfr, keyEvery: 15, maxDuration: 3600, audioEvery: 2).count
        let (reads, entries) = try walk(keyEvery: 15, audioEvery: 2)
        XCTAssertLessThanOrEqual(Double(reads), 1.5 * Double(n), "entries: \(entries)")
        // A GOP is 15 video + ~8 audio packets.
        let median = entries.sorted()[entries.count / 2]
        XCTAssertLessThanOrEqual(median, 2 * 23, "entries: \(entries)")
    }

    func testOpenGOPWalk() throws {
        let n = Script.video(pts: Self.cfr, keyEvery: 24, openGOP: true, maxDuration: 3600, audioEvery: 0).count
        let (reads, _) = try walk(keyEvery: 24, audioEvery: 0, openGOP: true)
        XCTAssertLessThanOrEqual(Double(reads), 1.6 * Double(n))
    }

    func testAByteOffsetTooLateIsDoubled() throws {
        // A span far too short: the first keyframe found is the run's own; the
        // resolver goes further back until it finds the one before.
        let n = Script.video(pts: Self.cfr, keyEvery: 15, maxDuration: 3600, audioEvery: 2).count
        let (reads, entries) = try walk(keyEvery: 15, audioEvery: 2, spanFactor: 0.05)
        XCTAssertFalse(entries.isEmpty)
        // Each retry reads only up to where the last one started: the misses
        // add up to about one span, not one per retry.
        XCTAssertLessThanOrEqual(Double(reads), 2.5 * Double(n), "entries: \(entries)")
    }

    func testLongGOPFirstEntryUsesTheKnownRun() throws {
        // 96-frame GOPs (3.84 s): before two keyframe offsets are known, the
        // span comes from the run known after k (the last GOP), not from 1 s.
        let n = Script.video(pts: Self.cfr, keyEvery: 96, maxDuration: 3600, audioEvery: 0).count
        let (reads, entries) = try walk(keyEvery: 96, audioEvery: 0)
        XCTAssertLessThanOrEqual(entries.first ?? 0, 2 * 96, "entries: \(entries)")
        XCTAssertLessThanOrEqual(Double(reads), 1.6 * Double(n), "entries: \(entries)")
    }

    func testNoBytePositioningFallsBack() throws {
        let packets = Script.video(pts: Self.cfr, keyEvery: 15, maxDuration: 3600)
        let d = ScriptedSeam(packets, quirks: .init(seekByDTS: true))
        let l = Lander<ScriptedSeam>(facts: Media.facts(packets, byPTS: false))
        let k = FrameGrid.Keyframe(pts: Self.cfr[30], dts: nil, pos: 30 * 700)
        XCTAssertNil(try l.scanBackward(into: k, back: 8192, d, shouldStop: { false }))
        XCTAssertEqual(d.positionings, 0)
        XCTAssertNil(Lander<ScriptedSeam>.backwardByteSpan(before: FrameGrid.Keyframe(pts: 0, dts: nil), grid: FrameGrid(),
                                                           ticksPerSecond: 90000, fallbackBytesPerTick: 1))
    }

    func testKeyframePositionsSurviveMerges() {
        var g = FrameGrid()
        g.record(start: 100, end: 200, frames: [(100, true, 90), (150, false, 140), (200, false, 190)])
        g.record(start: 100, end: 300, frames: [(100, true, 90), (250, false, 240), (300, true, 290)],
                 keyPositions: [100: 5000, 300: 9000])
        XCTAssertEqual(g.keyframe(for: 150)?.pos, 5000)
        XCTAssertEqual(g.keyframe(for: 300)?.pos, 9000)
        g.record(start: 0, end: 99, frames: [(0, true, -10), (50, false, 40)], keyPositions: [0: 0])
        XCTAssertEqual(g.keyframe(for: 10)?.pos, 0)
        XCTAssertEqual(g.keyframe(for: 150)?.pos, 5000)
        XCTAssertEqual(g.bytesPerTick, 30)
        XCTAssertLessThanOrEqual(FrameGrid.bytesPerKeyframe, 32)
    }
}
