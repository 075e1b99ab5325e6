import XCTest
@testable import FastPixSeekCore

/// EXT-X-KEY METHOD=AES-128 in the compact segment table: which key each segment has, its
/// IV (from the tag, right-aligned, or the media sequence number), and the refusals.
final class HLSKeyTests: XCTestCase {
    func media(_ text: String) throws -> HLSMediaPlaylist {
        let parsed = try HLSPlaylist.parse(text, url: "http://h/p/x.m3u8")
        guard case .media(let m) = parsed else {
            XCTFail("not parsed as a media playlist: \(parsed)")
            throw ErrorCode.invalidArgument
        }
        return m
    }

    func testKeysApplyFromTheirTagOnAndIVs() throws {
        let m = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:7
        #EXTINF:2,
        a.ts
        #EXT-X-KEY:METHOD=AES-128,URI="k1.bin"
        #EXTINF:2,
        b.ts
        #EXTINF:2,
        c.ts
        #EXT-X-KEY:METHOD=AES-128,URI="/k2.bin",IV=0x0102
        #EXTINF:2,
        d.ts
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:2,
        e.ts
        """)
        let s = m.segments
        XCTAssertNil(s.key(at: 0))
        XCTAssertEqual(s.key(at: 1)?.uri, "http://h/p/k1.bin")
        XCTAssertEqual(s.key(at: 2)?.uri, "http://h/p/k1.bin")
        XCTAssertEqual(s.key(at: 3)?.uri, "http://h/k2.bin")
        XCTAssertNil(s.key(at: 4))
        // No IV attribute: the media sequence number, big-endian in 16 bytes.
        XCTAssertEqual(s.key(at: 2)?.iv(sequence: 9), [UInt8](repeating: 0, count: 15) + [9])
        // IV=0x0102: a 128-bit number, right-aligned.
        XCTAssertEqual(s.key(at: 3)?.iv(sequence: 10), [UInt8](repeating: 0, count: 14) + [1, 2])
        // What a key cache keeps for this window (issue 28.8): every key in effect, resolved.
        XCTAssertEqual(s.keyURIs, ["http://h/p/k1.bin", "http://h/k2.bin"])
    }

    func testKeyURIsAreThoseOfTheWindowsSegments() throws {
        // Key rotation: a URI per segment; a tag after the last segment applies to none.
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:40\n"
        for n in 40..<44 { text += "#EXT-X-KEY:METHOD=AES-128,URI=\"key?n=\(n)\"\n#EXTINF:1,\ns\(n).ts\n" }
        text += "#EXT-X-KEY:METHOD=AES-128,URI=\"key?n=99\"\n"
        XCTAssertEqual(try media(text).segments.keyURIs, Set((40..<44).map { "http://h/p/key?n=\($0)" }))
        XCTAssertEqual(try media("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\na.ts\n").segments.keyURIs, [])
    }

    func testRefusals() {
        func err(_ key: String) -> HLSError? {
            do { _ = try HLSPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(key)\n#EXTINF:2,\na.ts\n"); return nil }
            catch let e as HLSError { return e } catch { return nil }
        }
        XCTAssertEqual(err("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"k\""), .encryption("EXT-X-KEY METHOD=SAMPLE-AES-CTR"))
        XCTAssertEqual(err("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"x\""),
                       .encryption("EXT-X-KEY METHOD=AES-128 KEYFORMAT=x"))
        XCTAssertNil(err("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"identity\""))
        if case .malformed? = err("#EXT-X-KEY:METHOD=AES-128") {} else { XCTFail("AES-128 without a URI") }
        if case .malformed? = err("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x\(String(repeating: "1", count: 34))") {} else {
            XCTFail("an IV longer than 128 bits")
        }
        XCTAssertTrue(HLSError.encryption("EXT-X-KEY METHOD=SAMPLE-AES").description.contains("METHOD=SAMPLE-AES"))
    }
}
