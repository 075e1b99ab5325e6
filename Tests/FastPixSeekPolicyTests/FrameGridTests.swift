import XCTest
@testable import FastPixSeekPolicy

final class FrameGridTests: XCTestCase {
    // 30000/1001 fps in a 1/30000 time base, keyframe every 10 frames.
    func frames(_ range: Range<Int>) -> [(pts: Int64, key: Bool, dts: Int64?)] {
        range.map { (Int64($0) * 1001, $0 % 10 == 0, Int64($0 - 2) * 1001) }
    }

    func testCoveringFrameAndKeyframeInsideASegment() {
        var g = FrameGrid()
        g.record(start: 10_010, end: 19 * 1001, frames: frames(10..<20))
        XCTAssertEqual(g.coveringFrame(12_500), 12_012)
        XCTAssertEqual(g.keyframe(for: 15_015)?.pts, 10_010)
        XCTAssertNil(g.coveringFrame(5_000), "before the segment: unknown, not guessed")
        XCTAssertNil(g.coveringFrame(30_000), "after the claimed end: unknown")
    }

    func testAdjacentSegmentsMergeAndStepsCrossThem() {
        var g = FrameGrid()
        g.record(start: 10_010, end: 19 * 1001 + 500, frames: frames(10..<20))
        g.record(start: 0, end: 10_009, frames: frames(0..<10))
        XCTAssertEqual(g.coverage(around: 0), 0...(19 * 1001 + 500))
        XCTAssertEqual(g.frame(from: 10_010, offset: -1), 9009)
        XCTAssertEqual(g.frame(from: 9009, offset: 3), 12_012)
        XCTAssertNil(g.frame(from: 19 * 1001, offset: 1))
    }

    func testUnboundedEndMergesWithoutOverflow() {
        var g = FrameGrid()
        g.record(start: 10_010, end: Int64.max, frames: frames(10..<20))
        g.record(start: 0, end: 10_010, frames: frames(0..<11))
        XCTAssertEqual(g.coverage(around: 5005), 0...Int64.max)
    }

    func testDiscardKeyframeIsAnEntryPointNotALanding() {
        var g = FrameGrid()
        let entry = FrameGrid.Keyframe(pts: -3003, dts: -5005, landable: false)
        g.record(start: -3003, end: 9009, frames: frames(0..<10).map { ($0.pts, false, $0.dts) }, entryPoints: [entry])
        XCTAssertEqual(g.keyframe(for: 2002)?.pts, -3003)
        let around = g.keyframes(in: -5000, 5000, around: 1001)
        XCTAssertNotNil(around)
        XCTAssertNil(around?.before, "a discard keyframe is never a keyframe landing")
    }

    func testCapClearsInsteadOfGrowing() {
        var g = FrameGrid(maxFrames: 15)
        g.record(start: 0, end: 9009, frames: frames(0..<10))
        g.record(start: 100_100, end: 109_109, frames: frames(100..<110))
        XCTAssertEqual(g.frameCount, 0)
        XCTAssertEqual(g.byteCount, 0)
    }

    /// The background index records overlapping runs in order (FrameGrid's in-place fast
    /// path); the grid must be the one a single record of everything gives, with a
    /// segment from a scan further on left alone and merged when the runs reach it.
    func testOverlappingRunsInOrderEqualOneRecord() {
        var whole = FrameGrid()
        whole.record(start: 0, end: Int64.max, frames: frames(0..<200))
        var g = FrameGrid()
        g.record(start: 150_150, end: 159 * 1001, frames: frames(150..<160)) // a scan, ahead
        var k = 0
        while k < 200 {
            let from = max(0, k - 10), to = min(200, k + 20)
            let end = to == 200 ? Int64.max : Int64(to - 1 - 2) * 1001
            g.record(start: Int64(from) * 1001, end: end, frames: frames(from..<to))
            k += 20
        }
        XCTAssertEqual(g.frameCount, 200)
        XCTAssertEqual(g.coverage(around: 0), 0...Int64.max)
        for t in stride(from: Int64(0), to: 200 * 1001, by: 777) {
            XCTAssertEqual(g.coveringFrame(t), whole.coveringFrame(t), "t \(t)")
            XCTAssertEqual(g.keyframe(for: t)?.pts, whole.keyframe(for: t)?.pts, "t \(t)")
        }
        XCTAssertEqual(g.frame(from: 0, offset: 199), 199 * 1001)
        XCTAssertEqual(g.byteCount, whole.byteCount)
    }

    func testMergeTailKeepsSortedUniqueValues() {
        var a: [Int64] = [1, 3, 5, 7]
        FrameGrid.mergeTail(&a, [4, 5, 6, 9])
        XCTAssertEqual(a, [1, 3, 4, 5, 6, 7, 9])
        FrameGrid.mergeTail(&a, [10])
        XCTAssertEqual(a, [1, 3, 4, 5, 6, 7, 9, 10])
        FrameGrid.mergeTail(&a, [0])
        XCTAssertEqual(a, [0, 1, 3, 4, 5, 6, 7, 9, 10])
    }
}
