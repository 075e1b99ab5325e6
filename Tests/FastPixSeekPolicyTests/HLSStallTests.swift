import XCTest
@testable import FastPixSeekPolicy

/// The live HLS stall rule (`HLSStall`) on numbers.
final class HLSStallTests: XCTestCase {
    let second: UInt64 = 1_000_000_000

    func testStalledAfterThreeTargetDurationsWithoutChange() {
        XCTAssertEqual(HLSStall.limitNanoseconds(targetDuration: 4), 12 * second)
        XCTAssertFalse(HLSStall.hasStalled(unchangedFor: 12 * second, targetDuration: 4), "exactly the limit is no stall")
        XCTAssertTrue(HLSStall.hasStalled(unchangedFor: 12 * second + 1, targetDuration: 4))
    }

    func testATargetDurationCountsAsOneSecondAtLeast() {
        XCTAssertEqual(HLSStall.limitNanoseconds(targetDuration: 0), 3 * second)
        XCTAssertEqual(HLSStall.limitNanoseconds(targetDuration: -5), 3 * second)
    }

    func testTheLimitSaturates() {
        XCTAssertEqual(HLSStall.limitNanoseconds(targetDuration: Int.max), UInt64.max)
        XCTAssertFalse(HLSStall.hasStalled(unchangedFor: UInt64.max, targetDuration: Int.max))
    }

    func testAReaderWaitsForPublishingTheStallLimitOrTheTimeout() {
        XCTAssertEqual(HLSStall.publishWait(timeoutNanoseconds: 5 * second, targetDuration: 4), 12 * second)
        XCTAssertEqual(HLSStall.publishWait(timeoutNanoseconds: 30 * second, targetDuration: 4), 30 * second)
        XCTAssertNil(HLSStall.publishWait(timeoutNanoseconds: 0, targetDuration: 4), "no I/O timeout: no bound")
    }
}
