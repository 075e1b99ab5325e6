import XCTest
@testable import FastPixSeekPolicy

/// HLS holes (seek.h, "Gaps") on fake data: which failures make a hole, where a seek into
/// one lands, where a step over one continues, and how holes are reported.
final class HLSHolesTests: XCTestCase {
    func holes(_ h: [Int: HoleReason]) -> (Int) -> HoleReason { { h[$0] ?? .none } }

    func testOnlyNotFoundAndServerErrorsMakeHoles() {
        XCTAssertTrue(HLSHoles.makesHole(.notFound))
        XCTAssertTrue(HLSHoles.makesHole(.serverError))
        XCTAssertFalse(HLSHoles.makesHole(.other))
    }

    func testLandingSkipsToTheFirstReadableSegmentAfter() {
        let h = holes([2: .gap, 3: .failed])
        XCTAssertEqual(HLSHoles.landing(covering: 1, count: 6, hole: h), .segment(1))
        XCTAssertEqual(HLSHoles.landing(covering: 2, count: 6, hole: h), .firstFrameAfter(index: 4, reason: .gap))
        XCTAssertEqual(HLSHoles.landing(covering: 3, count: 6, hole: h), .firstFrameAfter(index: 4, reason: .failed))
        XCTAssertNil(HLSHoles.landing(covering: 6, count: 6, hole: h))
    }

    func testLandingAtTheEndFallsBackToTheLastFrameBefore() {
        let h = holes([4: .gap, 5: .failed])
        XCTAssertEqual(HLSHoles.landing(covering: 5, count: 6, hole: h), .lastFrameBefore(index: 3, reason: .failed))
        XCTAssertNil(HLSHoles.landing(covering: 0, count: 1, hole: holes([0: .gap])))
    }

    func testLandingAsksOnlyWhatItNeeds() {
        var asked: [Int] = []
        let r = HLSHoles.landing(covering: 1, count: 9, hole: { asked.append($0); return $0 == 1 ? .gap : .none })
        XCTAssertEqual(r, .firstFrameAfter(index: 2, reason: .gap))
        XCTAssertEqual(asked, [1, 2])
    }

    func testTheStartFallsBackToTheLastReadableSegmentBeforeTrailingHoles() {
        // A live playlist whose last 4 of 10 segments are holes: its edge (7) is among them.
        let live = holes([6: .gap, 7: .gap, 8: .gap, 9: .gap])
        XCTAssertEqual(HLSHoles.startSegment(at: 7, count: 10, hole: live), 5)
        // An EXT-X-START in trailing holes, one of them a failed download.
        XCTAssertEqual(HLSHoles.startSegment(at: 9, count: 10, hole: holes([8: .gap, 9: .failed])), 7)
        // A hole with a readable segment after it: the first after, as before.
        XCTAssertEqual(HLSHoles.startSegment(at: 2, count: 6, hole: holes([2: .gap])), 3)
        XCTAssertEqual(HLSHoles.startSegment(at: 1, count: 6, hole: live), 1)
        // Only holes: nil (the open fails).
        XCTAssertNil(HLSHoles.startSegment(at: 0, count: 2, hole: holes([0: .gap, 1: .gap])))
        // Asked in order: the start, the ones after it, then back from the start.
        var asked: [Int] = []
        _ = HLSHoles.startSegment(at: 2, count: 4, hole: { asked.append($0); return $0 >= 2 ? .gap : .none })
        XCTAssertEqual(asked, [2, 3, 1])
    }

    func testTheReportForgetsHolesThatLeftTheWindow() {
        var r = HoleReport()
        for q in Int64(0)..<10 { r.record(sequence: q, reason: .gap) }
        r.record(sequence: 3, reason: .failed, playlist: 1)
        XCTAssertEqual(r.remembered, 11)
        r.forget(playlist: 0, outside: 7...12)
        XCTAssertEqual(r.remembered, 4)  // 7, 8, 9 and the rendition's 3
        XCTAssertEqual(r.count, 11)      // the count stays
        XCTAssertFalse(r.record(sequence: 8, reason: .gap))  // still counted once
        r.forget(playlist: 1, outside: 7...12)
        XCTAssertEqual(r.remembered, 3)
        XCTAssertEqual(r.lastSequence, 3)
    }

    func testStepsSkipHoles() {
        let h = holes([2: .gap, 3: .gap])
        XCTAssertEqual(HLSHoles.stepTarget(from: 1, forward: true, count: 6, hole: h), 4)
        XCTAssertEqual(HLSHoles.stepTarget(from: 4, forward: false, count: 6, hole: h), 1)
        XCTAssertNil(HLSHoles.stepTarget(from: 1, forward: true, count: 4, hole: h))
        XCTAssertNil(HLSHoles.stepTarget(from: 0, forward: false, count: 4, hole: h))
    }

    func testReportCountsEachSegmentOnce() {
        var r = HoleReport()
        XCTAssertEqual(r.count, 0)
        XCTAssertEqual(r.lastSequence, -1)
        XCTAssertEqual(r.lastReason, HoleReason.none)
        XCTAssertTrue(r.record(sequence: 7, reason: .gap))
        XCTAssertFalse(r.record(sequence: 7, reason: .gap))
        XCTAssertFalse(r.record(sequence: 8, reason: .none))
        XCTAssertTrue(r.record(sequence: 9, reason: .failed))
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r.lastSequence, 9)
        XCTAssertEqual(r.lastReason, .failed)
    }
}
