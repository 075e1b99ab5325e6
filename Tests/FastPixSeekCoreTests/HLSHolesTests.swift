import XCTest
@testable import FastPixSeekCore

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
