import XCTest
@testable import FastPixSeekCore

/// I-frame variants are listed, never selected; the listing's fields and C strings.
final class HLSListingTests: XCTestCase {
    let text = """
    #EXTM3U
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="eng",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="a.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="deu",URI="s.m3u8"
    #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180,FRAME-RATE=29.970,CODECS="avc1.4d401e",AUDIO="aud",HDCP-LEVEL=NONE
    v1.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=200000,AUDIO="aud"
    v2.m3u8
    #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=9000000,URI="i.m3u8"
    """

    func testIFrameVariantsAreListedNeverSelected() throws {
        guard case .master(let m) = try HLSPlaylist.parse(text, url: "http://h/m.m3u8") else { return XCTFail("master") }
        XCTAssertEqual(m.variants.map(\.iFrame), [false, false, true])
        XCTAssertEqual(HLSVariantChoice().select(m.variants), 0)
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 10_000_000).select(m.variants), 0)
        let l = HLSListing(master: m, selectedURI: "http://h/v1.m3u8")
        XCTAssertEqual(l.variants.map(\.selected), [true, false, false])
        XCTAssertEqual(l.variants[0].width, 320)
        XCTAssertEqual(l.variants[0].frameRateNum, 2997)
        XCTAssertEqual(l.variants[0].frameRateDen, 100)
        XCTAssertEqual(l.variants[0].hdcpLevel.map { String(cString: $0) }, "NONE")
        XCTAssertEqual(l.variants[1].codecs, nil)
        XCTAssertEqual(l.renditions.count, 2)
        XCTAssertEqual(l.renditions[0].type, .audio)
        XCTAssertEqual(l.renditions[0].channels.map { String(cString: $0) }, "2")
        XCTAssertTrue(l.renditions[0].inSelectedGroup && l.renditions[0].isDefault && l.renditions[0].hasURI)
        XCTAssertEqual(l.renditions[1].type, .subtitle)
        XCTAssertFalse(l.renditions[1].inSelectedGroup)   // v1 names no SUBTITLES group
    }
}
