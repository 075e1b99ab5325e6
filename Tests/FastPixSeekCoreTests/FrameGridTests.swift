import XCTest
@testable import FastPixSeekCore

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
}
