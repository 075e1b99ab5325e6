import XCTest
@testable import FastPixSeekPolicy

/// Packed audio's ID3 PRIV timestamp (RFC 8216 section 3.4) read from bytes, and where a
/// packed segment's first sample sits (HLSPackedAudio).
final class HLSPackedAudioTests: XCTestCase {
    static let owner = Array("com.apple.streaming.transportStreamTimestamp".utf8)

    static func syncsafe(_ v: Int) -> [UInt8] {
        [UInt8((v >> 21) & 0x7F), UInt8((v >> 14) & 0x7F), UInt8((v >> 7) & 0x7F), UInt8(v & 0x7F)]
    }

    static func be32(_ v: Int) -> [UInt8] {
        [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func frame(_ id: String, _ body: [UInt8], major: UInt8 = 4, format: UInt8 = 0) -> [UInt8] {
        Array(id.utf8) + (major == 4 ? syncsafe(body.count) : be32(body.count)) + [0, format] + body
    }

    static func priv(_ ts: UInt64, owner: [UInt8] = owner) -> [UInt8] {
        owner + [0] + (0..<8).map { UInt8((ts >> (8 * (7 - UInt64($0)))) & 0xFF) }
    }

    static func tag(_ frames: [UInt8], major: UInt8 = 4, flags: UInt8 = 0, padding: Int = 0) -> [UInt8] {
        let body = frames + [UInt8](repeating: 0, count: padding)
        return Array("ID3".utf8) + [major, 0, flags] + syncsafe(body.count) + body
    }

    func ts(_ b: [UInt8]) -> HLSPackedAudio.Timestamp {
        b.withUnsafeBytes { HLSPackedAudio.timestamp($0) }
    }

    /// The bytes Shaka Packager v3.8 writes at the start of a packed AAC segment.
    func testShakaPackagersTag() {
        let hex = "494433040000000000 3f 5052495600000035 0000"
            .replacingOccurrences(of: " ", with: "")
        var b: [UInt8] = stride(from: 0, to: hex.count, by: 2).map {
            let i = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[i..<hex.index(i, offsetBy: 2)], radix: 16)!
        }
        b += Self.owner + [0, 0, 0, 0, 0, 0, 0, 0x1B, 0xA8] + [0xFF, 0xF1, 0x4C, 0x40]
        XCTAssertEqual(ts(b), .ticks(7080))
    }

    func testV24AndV23WithOtherFramesAndPadding() {
        let other = Self.frame("TXXX", [3] + Array("x\0y".utf8))
        XCTAssertEqual(ts(Self.tag(other + Self.frame("PRIV", Self.priv(123_456_789)), padding: 20)), .ticks(123_456_789))
        let other3 = Self.frame("TXXX", [0] + Array("x\0y".utf8), major: 3)
        XCTAssertEqual(ts(Self.tag(other3 + Self.frame("PRIV", Self.priv(42), major: 3), major: 3)), .ticks(42))
        // Another owner's PRIV frame first.
        let foreign = Self.frame("PRIV", Self.priv(7, owner: Array("com.example".utf8)))
        XCTAssertEqual(ts(Self.tag(foreign + Self.frame("PRIV", Self.priv(9)))), .ticks(9))
    }

    func testOnlyThe33LowBitsCount() {
        XCTAssertEqual(ts(Self.tag(Self.frame("PRIV", Self.priv(UInt64.max)))), .ticks((1 << 33) - 1))
        XCTAssertEqual(ts(Self.tag(Self.frame("PRIV", Self.priv((1 << 33) + 5)))), .ticks(5))
    }

    func testAbsent() {
        XCTAssertEqual(ts([]), .absent)
        XCTAssertEqual(ts([0xFF, 0xF1, 0x4C, 0x40]), .absent)   // ADTS, no tag
        XCTAssertEqual(ts(Self.tag(Self.frame("TXXX", [3, 0x61, 0, 0x62]))), .absent)
        XCTAssertEqual(ts(Self.tag([], padding: 30)), .absent)
        // ID3v2.2 has no PRIV frame.
        XCTAssertEqual(ts(Self.tag(Self.frame("PRIV", Self.priv(9)), major: 2)), .absent)
    }

    func testUnsynchronisedAndDataLengthIndicator() {
        // A timestamp with 0xFF bytes, unsynchronised (0x00 stuffed after each 0xFF) in a v2.4 frame
        // that also carries a data length indicator.
        let p = Self.priv(0x1_FF00_FF01)
        var stuffed: [UInt8] = []
        for b in p { stuffed.append(b); if b == 0xFF { stuffed.append(0) } }
        let body = Self.syncsafe(p.count) + stuffed
        XCTAssertEqual(ts(Self.tag(Self.frame("PRIV", body, format: 0x03))), .ticks(0x1_FF00_FF01))
        // v2.3: the tag's unsynchronisation flag.
        XCTAssertEqual(ts(Self.tag(Self.frame("PRIV", stuffed, major: 3), major: 3, flags: 0x80)), .ticks(0x1_FF00_FF01))
    }

    func testExtendedHeaderIsSkipped() {
        let ext4 = Self.syncsafe(6) + [1, 0]
        XCTAssertEqual(ts(Self.tag(ext4 + Self.frame("PRIV", Self.priv(77)), flags: 0x40)), .ticks(77))
        let ext3 = Self.be32(6) + [0, 0, 0, 0, 0, 0]
        XCTAssertEqual(ts(Self.tag(ext3 + Self.frame("PRIV", Self.priv(78), major: 3), major: 3, flags: 0x40)), .ticks(78))
    }

    /// Every truncation of a good tag, and bad sizes: malformed or absent, never a trap nor a
    /// read past the bytes (the bytes are copied into an exact-size buffer; ASan builds catch
    /// an overread).
    func testTruncatedAndMalformedTags() {
        let good = Self.tag(Self.frame("TXXX", [3, 0x61, 0, 0x62]) + Self.frame("PRIV", Self.priv(99)))
        XCTAssertEqual(ts(good), .ticks(99))
        for n in 0..<good.count {
            let cut = Array(good.prefix(n))
            let r = ts(cut)
            if n < 3 {
                XCTAssertEqual(r, .absent, "\(n) bytes")
            } else if case .malformed = r {} else {
                XCTFail("\(n) bytes: \(r)")
            }
        }
        // Sizes that are not syncsafe, a frame past the tag, a timestamp of 7 bytes.
        var b = good
        b[6] = 0x80
        guard case .malformed = ts(b) else { return XCTFail("not syncsafe") }
        let tooBig = Self.tag(Array("PRIV".utf8) + Self.syncsafe(1000) + [0, 0] + Self.priv(1))
        guard case .malformed = ts(tooBig) else { return XCTFail("frame past the tag") }
        let short = Self.tag(Self.frame("PRIV", Array(Self.priv(1).dropLast())))
        guard case .malformed = ts(short) else { return XCTFail("7-byte timestamp") }
        let hugeTag = Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F] + [0, 0]
        guard case .malformed = ts(hugeTag) else { return XCTFail("a 256 MB tag in 12 bytes") }
        let compressed = Self.tag(Self.frame("PRIV", Self.priv(1), format: 0x08))
        guard case .malformed = ts(compressed) else { return XCTFail("compressed frame") }
        let badExt = Self.tag(Self.syncsafe(500) + [1, 0] + Self.frame("PRIV", Self.priv(1)), flags: 0x40)
        guard case .malformed = ts(badExt) else { return XCTFail("extended header past the tag") }
    }

    func testRandomBytesAfterID3NeverTrap() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<80, using: &g)
            var b = Array("ID3".utf8) + (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            if b.count > 6, Bool.random(using: &g) { b.replaceSubrange(6..<min(10, b.count), with: [0, 0, 0, UInt8(n & 0x7F)]) }
            _ = ts(b)
        }
    }

    func testSegmentStartAndShift() {
        // The ID3 time wins; without it, the listed start on the domain.
        XCTAssertEqual(HLSPackedAudio.segmentStart(.ticks(7080), listedOnDomain: Rational(5)), Rational(7080, 90000))
        XCTAssertEqual(HLSPackedAudio.segmentStart(.absent, listedOnDomain: Rational(5)), Rational(5))
        XCTAssertEqual(HLSPackedAudio.segmentStart(.malformed("x"), listedOnDomain: nil), nil)
        // A 33-bit timestamp past a wrap inside the domain is unwrapped near its listed start
        // (seek.h, "Timestamp wrap"); without a listed start (the anchor) it is taken as it is.
        let period = Rational(1 << 33, 90000)
        XCTAssertEqual(HLSPackedAudio.segmentStart(.ticks(180_000), listedOnDomain: period + Rational(2)), period + Rational(2))
        XCTAssertEqual(HLSPackedAudio.segmentStart(.ticks((1 << 33) - 90000), listedOnDomain: nil), period - Rational(1))
        XCTAssertEqual(HLSPackedAudio.segmentStart(.ticks(180_000), listedOnDomain: nil), Rational(2))
        // ADTS AAC's 1/28224000: 7080 / 90000 s = 2_220_288 ticks exactly; 1 / 90000 s = 313.6 -> 314.
        XCTAssertEqual(HLSPackedAudio.shift(start: Rational(7080, 90000), firstPTS: 0, timeBaseNum: 1,
                                            timeBaseDen: 28_224_000), 2_220_288)
        XCTAssertEqual(HLSPackedAudio.shift(start: Rational(1, 90000), firstPTS: 0, timeBaseNum: 1,
                                            timeBaseDen: 28_224_000), 314)
        XCTAssertEqual(HLSPackedAudio.shift(start: Rational(2), firstPTS: 100, timeBaseNum: 1, timeBaseDen: 1000), 1900)
        // The largest 33-bit timestamp, in a fine time base: no overflow.
        XCTAssertEqual(HLSPackedAudio.shift(start: Rational((1 << 33) - 1, 90000), firstPTS: 0, timeBaseNum: 1,
                                            timeBaseDen: 28_224_000), Int64((Double((1 << 33) - 1) * 313.6).rounded()))
        XCTAssertEqual(HLSPackedAudio.shift(start: Rational(1), firstPTS: 0, timeBaseNum: 0, timeBaseDen: 0), 0)
    }
}
