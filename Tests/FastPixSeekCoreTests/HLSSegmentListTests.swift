import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// The compact segment table (issue 18.4): its size, its limits, and that it reads back
/// every field exactly as the parser computed it.
final class HLSSegmentListTests: XCTestCase {
    private func playlist(_ n: Int, extinf: String = "2.002") -> [UInt8] {
        var s = "#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:7\n"
        for i in 0..<n { s += "#EXTINF:\(extinf),\nseg\(i).ts\n" }
        s += "#EXT-X-ENDLIST\n"
        return Array(s.utf8)
    }

    func testEntryIsFiftySixBytes() {
        XCTAssertEqual(MemoryLayout<HLSSegmentList.Entry>.stride, 56)
    }

    func testFieldsReadBackExactly() throws {
        let m = try XCTUnwrap(try HLSPlaylist.parse(playlist(1000), url: "http://h/a/pl.m3u8").media)
        XCTAssertEqual(m.segments.count, 1000)
        XCTAssertEqual(m.segments[999].sequence, 1006)
        XCTAssertEqual(m.segments[999].startOffset, Rational(2002 * 999, 1000))
        XCTAssertEqual(m.segments[999].uri, "http://h/a/seg999.ts")
        XCTAssertEqual(m.segments[999].rawURI, "seg999.ts")
        XCTAssertEqual(m.duration, Rational(2002, 1))
        XCTAssertEqual(m.segmentIndex(at: Rational(2002 * 500, 1000)), 500)
        XCTAssertEqual(m.segmentIndex(at: Rational(2002 * 500 - 1, 1000)), 499)
        XCTAssertNil(m.segmentIndex(at: Rational(2002, 1)))
        // Durations too fine for the compact field go to the side table, exactly.
        let w = try XCTUnwrap(try HLSPlaylist.parse(playlist(3, extinf: "999999999.123456789012345678")).media)
        XCTAssertEqual(w.segments[2].duration, Rational(999_999_999_123_456_789_012_345_678, 1_000_000_000_000_000_000))
        XCTAssertEqual(w.segments[2].startOffset, Rational(2 * 999_999_999_123_456_789_012_345_678, 1_000_000_000_000_000_000))
    }

    func testSegmentCountCapIsTooLarge() {
        XCTAssertThrowsError(try HLSPlaylist.parse(playlist(11), limits: HLSPlaylist.Limits(maxSegments: 10))) {
            guard case .tooLarge = $0 as? HLSError else { return XCTFail("\($0)") }
            XCTAssertEqual(($0 as? HLSError)?.errorCode, .tooLarge)
        }
        XCTAssertNoThrow(try HLSPlaylist.parse(playlist(10), limits: HLSPlaylist.Limits(maxSegments: 10)))
    }

    func testByteBudgetCountsTextAndTable() throws {
        let bytes = playlist(1000)
        // The table alone is 56,000 bytes plus the URIs; the text is held too.
        let m = try XCTUnwrap(try HLSPlaylist.parse(bytes).media)
        let need = bytes.count + m.segments.allocatedBytes
        XCTAssertGreaterThan(m.segments.allocatedBytes, 56_000)
        XCTAssertThrowsError(try HLSPlaylist.parse(bytes, limits: HLSPlaylist.Limits(maxBytes: bytes.count + 50_000))) {
            guard case .tooLarge = $0 as? HLSError else { return XCTFail("\($0)") }
        }
        XCTAssertNoThrow(try HLSPlaylist.parse(bytes, limits: HLSPlaylist.Limits(maxBytes: need + 4096)))
    }

    func testFallibleBufferReportsFailureInsteadOfTrapping() throws {
        let b = FallibleBuffer<UInt8>()
        XCTAssertThrowsError(try b.reserve(Int.max / 2))
        try b.reserve(10)
        try b.append(1)
        XCTAssertEqual(b.count, 1)
        XCTAssertEqual(b[0], 1)
    }
}
