import XCTest
@testable import FastPixSeekPolicy

/// The host's variant choice (fpx_player_config.hls_*) on fake variants.
final class HLSVariantChoiceTests: XCTestCase {
    struct Variant: HLSVariantChoice.VariantFacts {
        var bandwidth: Int64
        var height: Int64?
        var iFrame = false
    }

    func testChoices() {
        let v = [Variant(bandwidth: 800_000, height: 360), Variant(bandwidth: 3_000_000, height: 720),
                 Variant(bandwidth: 9_000_000, height: 1080, iFrame: true), Variant(bandwidth: 6_000_000, height: 1080),
                 Variant(bandwidth: 300_000, height: nil)]
        XCTAssertEqual(HLSVariantChoice().select(v), 3)                                  // highest, never the I-frame
        XCTAssertEqual(HLSVariantChoice(index: 1).select(v), 1)
        XCTAssertNil(HLSVariantChoice(index: 2).select(v))                               // I-frame: refused
        XCTAssertNil(HLSVariantChoice(index: 5).select(v))
        XCTAssertNil(HLSVariantChoice(index: -1).select(v))
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 3_000_000).select(v), 1)
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 100).select(v), 4)                  // none fits: the lowest
        XCTAssertEqual(HLSVariantChoice(maxHeight: 720).select(v), 1)                     // 1080 left out
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 500_000, maxHeight: 720).select(v), 4)  // no RESOLUTION fits
        XCTAssertEqual(HLSVariantChoice(maxHeight: 100).select(v), 4)                     // only the one without RESOLUTION
        XCTAssertNil(HLSVariantChoice().select([Variant]()))
        XCTAssertNil(HLSVariantChoice().select([Variant(bandwidth: 1, height: nil, iFrame: true)]))   // I-frame only
        // Ties: the earlier variant.
        let tie = [Variant(bandwidth: 5, height: nil), Variant(bandwidth: 5, height: nil)]
        XCTAssertEqual(HLSVariantChoice().select(tie), 0)
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 1).select(tie), 0)
    }
}
