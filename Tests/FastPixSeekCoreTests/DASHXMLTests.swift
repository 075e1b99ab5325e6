import XCTest
@testable import FastPixSeekCore

/// The strict XML reader MPDs go through (DASHXML): what it reads, and that every defect and
/// every bound is a typed error, never a trap or an expansion.
final class DASHXMLTests: XCTestCase {
    func testElementsAttributesTextEntitiesCommentsCDATA() throws {
        let doc = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment -->
        <!DOCTYPE MPD>
        <mpd:MPD xmlns:mpd="urn:mpeg:dash:schema:mpd:2011" a='1 &amp; 2' b="&lt;&#65;&#x42;&gt;&quot;&apos;">
          <BaseURL>http://h/<![CDATA[x&y]]>/</BaseURL>
          <?pi ignored?>
          <Empty/>
          <Multi
             line="a
        b"/>
        </mpd:MPD>
        """
        let root = try DASHXML.parse(doc)
        XCTAssertEqual(root.name, "MPD")
        XCTAssertEqual(root[attribute: "a"], "1 & 2")
        XCTAssertEqual(root[attribute: "b"], "<AB>\"'")
        XCTAssertEqual(root.child("BaseURL")?.text, "http://h/x&y/")
        XCTAssertEqual(root.children.map(\.name), ["BaseURL", "Empty", "Multi"])
        XCTAssertEqual(root.child("Multi")?[attribute: "line"], "a b")   // whitespace normalised
        XCTAssertEqual(root.child("Multi")?.line, 8)
    }

    private func assertMalformed(_ doc: String, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try DASHXML.parse(doc), file: file, line: line) { e in
            guard case .malformedXML(_, let reason)? = e as? DASHError else {
                return XCTFail("\(e) is not malformedXML", file: file, line: line)
            }
            XCTAssertTrue(reason.contains(words), "\(reason) does not say \(words)", file: file, line: line)
            XCTAssertEqual((e as? DASHError)?.errorCode, .invalidData, file: file, line: line)
        }
    }

    func testMalformedDocumentsAreTyped() {
        assertMalformed("<MPD><A></B></MPD>", "</B> closes <A>")
        assertMalformed("<MPD>", "is not closed")
        assertMalformed("<MPD a=1/>", "quoted value")
        assertMalformed("<MPD a='1' a='2'/>", "duplicate attribute")
        assertMalformed("<MPD a='1'b='2'/>", "a space expected")
        assertMalformed("<MPD a='&bogus;'/>", "unknown entity")
        assertMalformed("<MPD a='&#0;'/>", "unknown entity")
        assertMalformed("<MPD a='&amp'/>", "unterminated entity")
        assertMalformed("<MPD a='<'/>", "'<' in the value")
        assertMalformed("<MPD/><MPD/>", "outside the root")
        assertMalformed("<MPD/>text", "outside the root")
        assertMalformed("<MPD><!-- x </MPD>", "unterminated comment")
        assertMalformed("<MPD><![CDATA[x</MPD>", "unterminated CDATA")
        assertMalformed("<MPD a='1", "unterminated value")
        XCTAssertThrowsError(try DASHXML.parse("  ")) { XCTAssertEqual($0 as? DASHError, .notAManifest) }
    }

    func testInvalidUTF8IsTyped() {
        let bytes: [UInt8] = Array("<MPD a='".utf8) + [0xC3, 0x28] + Array("'/>".utf8)
        XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try DASHXML.parse($0) }) {
            XCTAssertEqual($0 as? DASHError, .invalidEncoding)
        }
    }

    func testAnInternalSubsetIsRefusedNeverExpanded() {
        let laughs = "<!DOCTYPE MPD [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><MPD x='&b;'/>"
        XCTAssertThrowsError(try DASHXML.parse(laughs)) {
            XCTAssertEqual($0 as? DASHError, .unsupported("a DOCTYPE with an internal subset"))
            XCTAssertEqual(($0 as? DASHError)?.errorCode, .unsupported)
        }
    }

    func testBoundsAreTooLarge() {
        var limits = DASHXML.Limits()
        limits.maxDepth = 8
        let deep = String(repeating: "<a>", count: 9) + String(repeating: "</a>", count: 9)
        XCTAssertThrowsError(try DASHXML.parse(deep, limits: limits)) {
            XCTAssertEqual(($0 as? DASHError)?.errorCode, .tooLarge)
        }
        // Far deeper than the default bound: refused, not a stack overflow.
        let hostile = String(repeating: "<a>", count: 100_000)
        XCTAssertThrowsError(try DASHXML.parse(hostile)) { XCTAssertEqual(($0 as? DASHError)?.errorCode, .tooLarge) }
        limits = DASHXML.Limits()
        limits.maxElements = 10
        let wide = "<MPD>" + String(repeating: "<S/>", count: 10) + "</MPD>"
        XCTAssertThrowsError(try DASHXML.parse(wide, limits: limits)) { XCTAssertEqual(($0 as? DASHError)?.errorCode, .tooLarge) }
        limits = DASHXML.Limits()
        limits.maxAttributes = 2
        XCTAssertThrowsError(try DASHXML.parse("<MPD a='1' b='2' c='3'/>", limits: limits)) {
            XCTAssertEqual(($0 as? DASHError)?.errorCode, .tooLarge)
        }
    }

    func testEveryPrefixOfADocumentFailsTypedOrParses() {
        // Truncation anywhere: a typed error, never a trap.
        let doc = "<?xml version='1.0'?><MPD a=\"&amp;\"><P><![CDATA[x]]><!--c--><S t='1'/></P></MPD>"
        let bytes = Array(doc.utf8)
        for n in 0..<bytes.count {
            let cut = Array(bytes[0..<n])
            XCTAssertThrowsError(try cut.withUnsafeBufferPointer { try DASHXML.parse($0) }) {
                XCTAssertNotNil($0 as? DASHError)
            }
        }
        XCTAssertNoThrow(try DASHXML.parse(doc))
    }
}
