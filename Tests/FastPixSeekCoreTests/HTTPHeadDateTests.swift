import XCTest
@testable import FastPixSeekCore

/// The Date of a HEAD answer (DASH UTCTiming http-head): `HTTPHeadDate`'s rules, each broken.
/// Ground truth for instants: RFC 9110's own example, 784111777 s (Sun, 06 Nov 1994 08:49:37 GMT),
/// and Python's `calendar.timegm` for the others (values written here).
final class HTTPHeadDateTests: XCTestCase {
    private func read(_ text: String) throws -> Rational {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { try HTTPHeadDate.unixMilliseconds(head: $0) }
    }

    private func refused(_ text: String, _ want: HTTPHeadDate.Refusal, line: UInt = #line) {
        XCTAssertThrowsError(try read(text), line: line) { e in
            XCTAssertEqual(e as? HTTPHeadDate.Refusal, want, line: line)
        }
    }

    private func seconds(_ s: Int64) -> Rational { Rational(Int128(s) * 1_000, 1) }

    func testTheRFCsExampleIsItsInstant() throws {
        let head = "HTTP/1.1 200 OK\r\nServer: x\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n"
        XCTAssertEqual(try read(head), seconds(784_111_777))
    }

    func testFieldNameAnyCaseBareLFAndHTTP10() throws {
        // calendar.timegm((2026, 12, 2, 21, 0, 0)) == 1796245200
        XCTAssertEqual(try read("HTTP/1.0 204 No Content\ndate:Wed, 02 Dec 2026 21:00:00 GMT  \n\n"), seconds(1_796_245_200))
        XCTAssertEqual(try read("HTTP/1.1 200\r\nDATE: Wed, 02 Dec 2026 21:00:00 GMT\r\n\r\n"), seconds(1_796_245_200))
    }

    func testLeapDayAndLeapSecond() throws {
        // calendar.timegm((2024, 2, 29, 23, 59, 59)) == 1709251199; second 60 is the next second.
        XCTAssertEqual(try read("HTTP/1.1 200 OK\r\nDate: Thu, 29 Feb 2024 23:59:59 GMT\r\n\r\n"), seconds(1_709_251_199))
        XCTAssertEqual(try read("HTTP/1.1 200 OK\r\nDate: Thu, 29 Feb 2024 23:59:60 GMT\r\n\r\n"), seconds(1_709_251_200))
    }

    func testTheFirstDateFieldCounts() throws {
        let head = "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nDate: Mon, 07 Nov 1994 08:49:37 GMT\r\n\r\n"
        XCTAssertEqual(try read(head), seconds(784_111_777))
    }

    func testStatusOtherThan2xxIsRefusedWithIt() {
        refused("HTTP/1.1 302 Found\r\nLocation: /t\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", .status(302))
        refused("HTTP/1.1 404 Not Found\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", .status(404))
    }

    func testNotAnHTTPHeadIsMalformed() {
        refused("ICY 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", .malformed)
        refused("HTTP/2 200\r\n\r\n", .malformed)
        refused("HTTP/1.1 2000 OK\r\n\r\n", .malformed)
        refused("HTTP/1.1 20x OK\r\n\r\n", .malformed)
        refused("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", .malformed)
        // Obsolete line folding (RFC 9110 5.5: a recipient may reject it).
        refused("HTTP/1.1 200 OK\r\nX: a\r\n folded\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", .malformed)
    }

    func testNoDateField() {
        refused("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", .noDate)
    }

    func testObsoleteAndInvalidDatesAreRefused() {
        for date in ["Sunday, 06-Nov-94 08:49:37 GMT",     // RFC 850
                     "Sun Nov  6 08:49:37 1994",           // asctime
                     "Sun, 06 Nov 1994 08:49:37 UTC",      // not GMT
                     "Sun, 6 Nov 1994 08:49:37 GMT",       // one-digit day
                     "Xyz, 06 Nov 1994 08:49:37 GMT",      // no day name
                     "Sun, 06 Nox 1994 08:49:37 GMT",      // no month
                     "Sat, 29 Feb 2025 00:00:00 GMT",      // not a leap year
                     "Sun, 31 Nov 1994 00:00:00 GMT",      // November has 30 days
                     "Sun, 00 Nov 1994 00:00:00 GMT",
                     "Sun, 06 Nov 1994 24:00:00 GMT",
                     "Sun, 06 Nov 1994 08:60:00 GMT",
                     "Sun, 06 Nov 1994 08:49:61 GMT",
                     "Sun, 06 Nov 1994 08:4a:37 GMT",
                     ""] {
            refused("HTTP/1.1 200 OK\r\nDate: \(date)\r\n\r\n", .badDate)
        }
    }

    func testAHeadThatDoesNotEndOrIsTooLongIsIncomplete() {
        refused("HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n", .incomplete)
        let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: HTTPHeadDate.maxBytes) + "\r\n\r\n"
        refused(long, .incomplete)
    }

    func testHeadEndFindsTheEmptyLine() {
        func end(_ s: String) -> Int? { Array(s.utf8).withUnsafeBufferPointer { HTTPHeadDate.headEnd($0) } }
        XCTAssertEqual(end("HTTP/1.1 200 OK\r\n\r\nbody"), 19)
        XCTAssertEqual(end("HTTP/1.1 200 OK\n\nbody"), 17)
        XCTAssertNil(end("HTTP/1.1 200 OK\r\n\r"))
        XCTAssertNil(end(""))
    }
}
