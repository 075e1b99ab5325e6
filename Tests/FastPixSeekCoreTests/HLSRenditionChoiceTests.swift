import XCTest
@testable import FastPixSeekCore

/// Which audio rendition plays (`HLSRenditions.select`, policy) for masters as the parser
/// reads them. The merge order, an audio packet's landing fields and the window are tested in
/// the policy's HLSRenditionsTests.
final class HLSRenditionChoiceTests: XCTestCase {
    func master(_ media: String) throws -> HLSMasterPlaylist {
        let text = "#EXTM3U\n" + media + """
        #EXT-X-STREAM-INF:BANDWIDTH=500000,AUDIO="aud"
        v1.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=200000
        v2.m3u8
        """
        let parsed = try HLSPlaylist.parse(text, url: "http://h/m.m3u8")
        guard case .master(let m) = parsed else {
            XCTFail("not parsed as a master: \(parsed)")
            throw ErrorCode.invalidArgument
        }
        return m
    }

    func select(_ m: HLSMasterPlaylist, variant: Int = 0, _ c: HLSRenditions.Choice = .init()) throws -> HLSRenditions.Selection {
        try HLSRenditions.select(m.renditions, variant: m.variants[variant], choice: c)
    }

    func testAutomaticChoice() throws {
        let three = """
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="other",NAME="x",DEFAULT=YES,URI="x.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="a",URI="a.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="b",AUTOSELECT=YES,URI="b.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="c",DEFAULT=YES,AUTOSELECT=YES,URI="c.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="aud",NAME="s",DEFAULT=YES,URI="s.m3u8"

        """
        let m = try master(three)
        XCTAssertEqual(try select(m), .rendition(3))                     // DEFAULT in the variant's group
        XCTAssertEqual(try select(m, variant: 1), .none)                 // a variant with no AUDIO group
        let noDefault = try master(three.replacingOccurrences(of: "NAME=\"c\",DEFAULT=YES,", with: "NAME=\"c\","))
        XCTAssertEqual(try select(noDefault), .rendition(2))             // the first AUTOSELECT
        let plain = try master("""
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="a",URI="a.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="b",URI="b.m3u8"

        """)
        XCTAssertEqual(try select(plain), .rendition(0))                 // else the first
        let muxed = try master("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"m\",DEFAULT=YES\n")
        XCTAssertEqual(try select(muxed), .none)                         // no URI: in the variant
    }

    func testHostChoice() throws {
        let m = try master("""
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="a",DEFAULT=YES,URI="a.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="other",NAME="b",URI="b.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="m"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="s",URI="s.m3u8"

        """)
        XCTAssertEqual(try select(m, .init(index: 1)), .rendition(1))    // any group
        XCTAssertEqual(try select(m, variant: 1, .init(index: 1)), .rendition(1))
        XCTAssertEqual(try select(m, .init(index: 2)), .none)            // muxed
        XCTAssertEqual(try select(m, .init(off: true)), .none)
        XCTAssertThrowsError(try select(m, .init(index: 3)))             // a subtitle rendition
        XCTAssertThrowsError(try select(m, .init(index: 4)))             // past the list
        XCTAssertThrowsError(try select(m, .init(index: -1)))
        let l = HLSListing(master: m, selectedURI: "http://h/v1.m3u8", audio: 1, audioStream: 1)
        XCTAssertEqual(l.renditions.map(\.selected), [false, true, false, false])
        XCTAssertEqual(l.renditions.map(\.streamIndex), [-1, 1, -1, -1])
    }
}
