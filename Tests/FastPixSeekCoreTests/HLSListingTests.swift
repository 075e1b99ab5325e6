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
        XCTAssertEqual(m.selectVariant()?.uri, "http://h/v1.m3u8")
        XCTAssertEqual(m.selectVariant(.closest(maxBandwidth: 10_000_000))?.uri, "http://h/v1.m3u8")
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

/// The host's variant choice (fpx_player_config.hls_*) on fake variants.
final class HLSVariantChoiceTests: XCTestCase {
    func variants() throws -> [HLSVariant] {
        let text = """
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
        a.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720
        b.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=9000000,RESOLUTION=1920x1080,URI="i.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=6000000,RESOLUTION=1920x1080
        c.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=300000
        d.m3u8
        """
        guard case .master(let m) = try HLSPlaylist.parse(text) else { throw XCTSkip("master") }
        return m.variants
    }

    func testChoices() throws {
        let v = try variants()
        XCTAssertEqual(HLSVariantChoice().select(v), 3)                                  // highest, never the I-frame
        XCTAssertEqual(HLSVariantChoice(index: 1).select(v), 1)
        XCTAssertNil(HLSVariantChoice(index: 2).select(v))                               // I-frame: refused
        XCTAssertNil(HLSVariantChoice(index: 5).select(v))
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 3_000_000).select(v), 1)
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 100).select(v), 4)                  // none fits: the lowest
        XCTAssertEqual(HLSVariantChoice(maxHeight: 720).select(v), 1)                     // 1080 left out
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 500_000, maxHeight: 720).select(v), 4)  // no RESOLUTION fits
        XCTAssertEqual(HLSVariantChoice(maxHeight: 100).select(v), 4)                     // only the one without RESOLUTION
        XCTAssertNil(HLSVariantChoice().select([]))
    }
}
