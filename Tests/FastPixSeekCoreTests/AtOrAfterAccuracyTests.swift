import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// The verdict of an at-or-after seek (seek.h, fpx_accuracy): tolerance 0 before the request,
/// +infinity after it, so `withinRequestedTolerance` is landed >= requested, exactly.
final class AtOrAfterAccuracyTests: XCTestCase {
    func verdict(requested: MediaTime, landed: MediaTime) -> SeekAccuracy {
        SeekAccuracy(requested: requested, landed: landed, toleranceBefore: MediaTime(value: 0, timescale: 1),
                     toleranceAfter: .positiveInfinity)
    }

    func testWithinIsLandedAtOrAfterRequested() {
        let t = MediaTime(value: 1001, timescale: 30000)
        XCTAssertTrue(verdict(requested: t, landed: MediaTime(value: 1001, timescale: 30000)).withinRequestedTolerance)
        XCTAssertTrue(verdict(requested: t, landed: MediaTime(value: 3600 * 2002, timescale: 30000)).withinRequestedTolerance)
        // One tick of 1/90000 earlier than 1001/30000 (= 3003/90000): outside.
        XCTAssertFalse(verdict(requested: t, landed: MediaTime(value: 3002, timescale: 90000)).withinRequestedTolerance)
        let d = verdict(requested: t, landed: MediaTime(value: 2002, timescale: 30000)).delta
        XCTAssertEqual(MediaTime.compare(d, MediaTime(value: 1001, timescale: 30000)), 0)
        XCTAssertFalse(verdict(requested: t, landed: .invalid).withinRequestedTolerance)
    }

    func testFiniteTolerancesAreUnchanged() {
        let t = MediaTime(value: 1, timescale: 1)
        let a = SeekAccuracy(requested: t, landed: MediaTime(value: 12, timescale: 10),
                             toleranceBefore: MediaTime(value: 1, timescale: 10), toleranceAfter: MediaTime(value: 1, timescale: 10))
        XCTAssertFalse(a.withinRequestedTolerance)
        let b = SeekAccuracy(requested: t, landed: MediaTime(value: 11, timescale: 10),
                             toleranceBefore: MediaTime(value: 1, timescale: 10), toleranceAfter: MediaTime(value: 1, timescale: 10))
        XCTAssertTrue(b.withinRequestedTolerance)
    }
}
