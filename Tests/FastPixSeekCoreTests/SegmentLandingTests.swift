import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// HLS cross-segment landing decisions (SegmentLanding) on fake segment data, no FFmpeg.
/// Ticks are 1/90000 s; segments are 1 s (90000 ticks) at 25 fps (3600 ticks a frame).
final class SegmentLandingTests: XCTestCase {
    /// Three contiguous 1 s segments; segment k's frames from `firstOffset[k]` after its
    /// listed start to the last frame before the next listed start.
    func spans(domains: [Int64] = [0, 0, 0]) -> [SegmentSpan] {
        domains.enumerated().map { SegmentSpan(sequence: Int64(10 + $0.offset), domain: $0.element,
                                               start: Rational(Int64($0.offset) * 90000)) }
    }

    /// Frames as the fake demuxer reports them. Default: each segment's frames start at its
    /// listed start and end one frame before the next.
    func frames(_ firsts: [Int64] = [0, 90000, 180000], lasts: [Int64]? = nil) -> (Int) -> ClosedRange<Int64>? {
        let l = lasts ?? firsts.map { $0 + 90000 - 3600 }
        return { firsts[$0]...l[$0] }
    }

    func testListedSegment() {
        let s = spans()
        XCTAssertEqual(SegmentLanding.listedSegment(for: Rational(-5), in: s), 0)   // before the window start
        XCTAssertEqual(SegmentLanding.listedSegment(for: Rational(0), in: s), 0)
        XCTAssertEqual(SegmentLanding.listedSegment(for: Rational(89999), in: s), 0)
        XCTAssertEqual(SegmentLanding.listedSegment(for: Rational(90000), in: s), 1)  // exactly on a start
        XCTAssertEqual(SegmentLanding.listedSegment(for: Rational(10_000_000), in: s), 2) // past the end
        XCTAssertNil(SegmentLanding.listedSegment(for: Rational(0), in: []))
    }

    func testContinues() {
        let s = spans(domains: [0, 0, 1])
        XCTAssertTrue(SegmentLanding.continues(s[0], s[1]))
        XCTAssertFalse(SegmentLanding.continues(s[1], s[2]))   // EXT-X-DISCONTINUITY
        var gap = s
        gap[1].sequence = 12                                    // a sequence number skipped
        XCTAssertFalse(SegmentLanding.continues(gap[0], gap[1]))
    }

    func testTargetBeforeASegmentsFirstFrameLandsInThePreviousOne() {
        // Segment 1's first frame is 1 frame late (pts vs EXTINF): a target between its listed
        // start and its first frame is covered by segment 0's last frame.
        let s = spans()
        let f = frames([0, 93600, 180000], lasts: [86400, 176400, 266400])
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(90000), in: s, frames: f), 0)
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(93599), in: s, frames: f), 0)
        // Exactly on the first frame: that segment.
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(93600), in: s, frames: f), 1)
        // Fractional ticks just before it.
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(187199, 2), in: s, frames: f), 0)
    }

    func testAcrossADiscontinuityTheTargetStaysInItsSegment() {
        let s = spans(domains: [0, 1, 1])
        let f = frames([0, 93600, 180000], lasts: [86400, 176400, 266400])
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(90000), in: s, frames: f), 1)
    }

    func testWindowStartAndEnd() {
        let s = spans()
        let f = frames([1800, 90000, 180000])
        // Before the first frame of the first segment: nothing earlier, the first segment.
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(0), in: s, frames: f), 0)
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(-90000), in: s, frames: f), 0)
        // Past the last frame of the last segment: the last segment.
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(270000), in: s, frames: f), 2)
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(266400), in: s, frames: f), 2)
    }

    func testGapBetweenSegments() {
        // Segment 0's frames end early (a gap in the media before segment 1's listed start):
        // a target in the gap is covered by segment 0's last frame, in segment 0.
        let s = spans()
        let f = frames([0, 90000, 180000], lasts: [72000, 176400, 266400])
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(80000), in: s, frames: f), 0)
        // Segment 1's frames start early (before its listed start): a target at or after
        // its first frame but listed in segment 0 is covered by segment 1.
        let g = frames([0, 86400, 180000], lasts: [82800, 176400, 266400])
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(86400), in: s, frames: g), 1)
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(86399), in: s, frames: g), 0)
        // ... but not across a discontinuity.
        XCTAssertEqual(SegmentLanding.coveringSegment(for: Rational(86400), in: spans(domains: [0, 1, 1]), frames: g), 0)
    }

    func testFramesAreAskedOnlyWhenNeeded() {
        var asked: [Int] = []
        let s = spans()
        let i = SegmentLanding.coveringSegment(for: Rational(100000), in: s) { k -> ClosedRange<Int64>? in
            asked.append(k); return frames()(k)
        }
        XCTAssertEqual(i, 1)
        XCTAssertEqual(asked, [1])
    }

    func testKeyframeWindowSpanningTwoSegments() {
        // Target 0.9 s in segment 0 (keyframe at 0), window +-0.2 s reaches segment 1's first
        // keyframe at 1.0 s: it is nearer, it wins.
        let w: ClosedRange<Int64> = 63000...99000
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(81000), window: w, here: 0,
                                                             hereIsKeyframe: false, nextFirstKey: 90000), .next)
        // Target 0.5 s, window +-0.6 s: the keyframe at 0 and the one at 1.0 s are equally near:
        // the tie goes to the earlier, here.
        let w2: ClosedRange<Int64> = -9000...99000
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(45000), window: w2, here: 0,
                                                             hereIsKeyframe: true, nextFirstKey: 90000), .here)
        // Target one tick past the middle: the next keyframe is strictly nearer.
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(45001), window: w2, here: 0,
                                                             hereIsKeyframe: true, nextFirstKey: 90000), .next)
        // Half a tick before the middle: here.
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(89999, 2), window: w2, here: 0,
                                                             hereIsKeyframe: true, nextFirstKey: 90000), .here)
        // The next keyframe outside the window: here, even as the covering-frame fallback.
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(81000), window: 72000...89999, here: 79200,
                                                             hereIsKeyframe: false, nextFirstKey: 90000), .here)
        // No next segment.
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(81000), window: w, here: 0,
                                                             hereIsKeyframe: false, nextFirstKey: nil), .here)
        // The window edge exactly on the next keyframe (inclusive).
        XCTAssertEqual(SegmentLanding.keyframeAcrossBoundary(target: Rational(81000), window: 72000...90000, here: 79200,
                                                             hereIsKeyframe: false, nextFirstKey: 90000), .next)
    }

    func testWindowReachesNext() {
        let s = spans(domains: [0, 0, 1])
        XCTAssertTrue(SegmentLanding.windowReachesNext(63000...99000, segment: 0, in: s, lastFrame: 86400))
        XCTAssertFalse(SegmentLanding.windowReachesNext(63000...86400, segment: 0, in: s, lastFrame: 86400))
        XCTAssertTrue(SegmentLanding.windowReachesNext(63000...86400, segment: 0, in: s, lastFrame: nil))
        XCTAssertFalse(SegmentLanding.windowReachesNext(150000...200000, segment: 1, in: s, lastFrame: 176400)) // discontinuity
        XCTAssertFalse(SegmentLanding.windowReachesNext(250000...300000, segment: 2, in: s, lastFrame: 266400)) // window end
    }

    func testStepCrossingAndLiveEdge() {
        XCTAssertEqual(SegmentLanding.stepCrossing(from: 1, forward: true, count: 3, live: false), .segment(2))
        XCTAssertEqual(SegmentLanding.stepCrossing(from: 1, forward: false, count: 3, live: true), .segment(0))
        XCTAssertEqual(SegmentLanding.stepCrossing(from: 2, forward: true, count: 3, live: false), .noFrame)
        XCTAssertEqual(SegmentLanding.stepCrossing(from: 2, forward: true, count: 3, live: true), .notPublished)
        XCTAssertEqual(SegmentLanding.stepCrossing(from: 0, forward: false, count: 3, live: true), .noFrame)
        XCTAssertTrue(SegmentLanding.isPastHoldBack(100, forward: true, edge: 99))
        XCTAssertFalse(SegmentLanding.isPastHoldBack(99, forward: true, edge: 99))
        XCTAssertFalse(SegmentLanding.isPastHoldBack(100, forward: false, edge: 99))
        XCTAssertFalse(SegmentLanding.isPastHoldBack(100, forward: true, edge: nil))
    }

    func testAtLiveEdgeExplanationsAreTrueForEachCause() {
        let notPub = "\(FrameStepUnavailableReason.atLiveEdge(.notPublished).explanation)"
        let past = "\(FrameStepUnavailableReason.atLiveEdge(.pastHoldBack).explanation)"
        XCTAssertTrue(notPub.contains("not been published"))
        XCTAssertFalse(past.contains("not been published"))
        XCTAssertTrue(past.contains("hold-back"))
        XCTAssertEqual(FrameStepUnavailableReason.atLiveEdge(.pastHoldBack).code, 4)
        XCTAssertEqual(FrameStepUnavailableReason.atLiveEdge(.notPublished).code, 4)
        let byCode = "\(FrameStepUnavailableReason.explanation(code: 4))"
        XCTAssertTrue(byCode.contains("not been published") && byCode.contains("hold-back"))
    }
}
