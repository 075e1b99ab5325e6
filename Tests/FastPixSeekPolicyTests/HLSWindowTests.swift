import XCTest
@testable import FastPixSeekPolicy

/// The HLS window and date rules (`HLSWindow`) on numbers (item seconds, microseconds).
final class HLSWindowTests: XCTestCase {
    func r(_ n: Int128, _ d: Int128 = 1) -> Rational { Rational(n, d) }

    func testALiveWindowEndsAtTheHoldBackEdge() {
        XCTAssertEqual(HLSWindow.end(firstStart: r(10), lastEnd: r(70), holdBack: r(18), live: true, lastFrame: r(69)), r(52),
                       "a live playlist's last frame is no end")
    }

    func testAnEndedWindowEndsAtItsLastFrameOnceKnown() {
        XCTAssertEqual(HLSWindow.end(firstStart: r(0), lastEnd: r(60), holdBack: r(18), live: false, lastFrame: nil), r(60))
        XCTAssertEqual(HLSWindow.end(firstStart: r(0), lastEnd: r(60), holdBack: r(18), live: false, lastFrame: r(5996, 100)),
                       r(5996, 100))
    }

    func testTheWindowNeverEndsBeforeItStarts() {
        XCTAssertEqual(HLSWindow.end(firstStart: r(10), lastEnd: r(16), holdBack: r(18), live: true, lastFrame: nil), r(10))
    }

    func testDateOfAnItemTime() {
        XCTAssertEqual(HLSWindow.date(of: r(12) + r(1, 3), segmentStart: r(10), dateMS: 1_000), 1_000_000 + 2_333_333,
                       "floored to a microsecond")
    }

    func testItemTimeOfADate() {
        let start = r(10), d: Int64 = 1_000, dur = r(6)
        XCTAssertEqual(HLSWindow.itemTime(ofDate: 1_000_000, segmentStart: start, dateMS: d, duration: dur, isLast: false), r(10))
        XCTAssertEqual(HLSWindow.itemTime(ofDate: 1_500_001, segmentStart: start, dateMS: d, duration: dur, isLast: false),
                       r(10) + r(500_001, 1_000_000))
        XCTAssertNil(HLSWindow.itemTime(ofDate: 999_999, segmentStart: start, dateMS: d, duration: dur, isLast: false))
        XCTAssertNil(HLSWindow.itemTime(ofDate: 7_000_000, segmentStart: start, dateMS: d, duration: dur, isLast: false),
                     "the span excludes its end")
        XCTAssertEqual(HLSWindow.itemTime(ofDate: 7_000_000, segmentStart: start, dateMS: d, duration: dur, isLast: true), r(16),
                       "but the last segment's")
    }
}
