import XCTest
@testable import FastPixSeekPolicy

/// Preview sources without I/O (seek.h, "Seek previews"): the JSON reader, starts read exactly
/// to the microsecond below, the last-start rule with ties, WebVTT timings and payloads, and
/// what the writer writes reading back to the same tiles. Whole sheets written by
/// `fpx-seek sprite` against ffmpeg: Tests/python/test_preview.py; hostile sources from C:
/// Tests/c/test_preview.c.
final class PreviewSheetTests: XCTestCase {
    func us(_ s: String) -> Int64? { PreviewSheet.decimalMicroseconds(s) }

    func testDecimalMicrosecondsAreExactAndFloored() {
        XCTAssertEqual(us("0"), 0)
        XCTAssertEqual(us("1.5"), 1_500_000)
        XCTAssertEqual(us("0.041708333333333333"), 41708)   // 1001/24000 s, floored
        XCTAssertEqual(us("0.0000019"), 1)
        XCTAssertEqual(us("0.000001"), 1)                   // 1e-6 * 1e6 in Double is not 1 exactly
        XCTAssertEqual(us("1e-6"), 1)
        XCTAssertEqual(us("1E3"), 1_000_000_000)
        XCTAssertEqual(us("3e0"), 3_000_000)
        XCTAssertEqual(us("123456789.123456789"), 123_456_789_123_456)
        XCTAssertEqual(us("1e9"), 1_000_000_000_000_000)
        XCTAssertNil(us("1.000001e9"))                      // past 1e9 s
        XCTAssertNil(us("1e400"))
        XCTAssertEqual(us("1e-400"), 0)
        XCTAssertEqual(us("-0"), 0)
        XCTAssertEqual(us("-0.0e5"), 0)
        XCTAssertNil(us("-0.0000001"))
        XCTAssertNil(us("-1"))
    }

    func testJSONReader() {
        func parse(_ s: String) -> PreviewJSON? { PreviewJSON.parse(Array(s.utf8)) }
        XCTAssertNotNil(parse(" {\"a\": [1, -2.5e3, true, false, null, \"x\"]} "))
        XCTAssertNil(parse("{\"a\":1,}"))
        XCTAssertNil(parse("{\"a\":01}"))
        XCTAssertNil(parse("{\"a\":1} x"))
        XCTAssertNil(parse("{'a':1}"))
        XCTAssertNil(parse("{\"a\":\"\u{1}\"}"))            // a raw control character
        XCTAssertNil(parse("{\"a\":\"\\ud800\"}"))          // a lone surrogate
        XCTAssertNil(PreviewJSON.parse([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]))  // not UTF-8
        guard case .string(let s)? = parse("{\"a\":\"\\ud83d\\ude00\\n\\u00e9\"}")?["a"] else { return XCTFail() }
        XCTAssertEqual(s, "\u{1F600}\n\u{E9}")
        guard case .number(let n)? = parse("{\"a\":1,\"a\":2}")?["a"] else { return XCTFail() }
        XCTAssertEqual(n, "2")                               // the last of a repeated key, as JSON.parse
        let deep = String(repeating: "[", count: 31) + String(repeating: "]", count: 31)
        XCTAssertNotNil(parse("{\"a\":\(deep)}"))  // 32 deep with the object
        XCTAssertNil(parse(String(repeating: "[", count: 40) + String(repeating: "]", count: 40)))
        XCTAssertEqual(jsonString("a\"\\\n\u{1}"), "\"a\\\"\\\\\\n\\u0001\"")
    }

    func testLastStartRuleAndTies() throws {
        let text = """
        {"url":"s.jpg","tile_width":10,"tile_height":5,"duration":4,
         "tiles":[{"start":2,"x":20,"y":0},{"start":0,"x":0,"y":0},{"start":2,"x":30,"y":0,"url":"b.jpg"}]}
        """
        let sheet = try PreviewSheet.parseSpritesheet(Array(text.utf8))
        XCTAssertEqual(sheet.tiles.map { $0.x }, [0, 20, 30])      // start order, ties as written
        XCTAssertEqual(sheet.tileIndex(at: MediaTime(value: 2, timescale: 1)), 2)  // the last of equal starts
        XCTAssertEqual(sheet.tileIndex(at: MediaTime(value: 1999999, timescale: 1_000_000)), 0)
        XCTAssertNil(sheet.tileIndex(at: MediaTime(value: -1, timescale: 1)))
        XCTAssertEqual(sheet.tiles[2].image, "b.jpg")
        XCTAssertEqual(sheet.defaultImage, "s.jpg")
        XCTAssertEqual(MediaTime.compare(sheet.end, MediaTime(value: 4, timescale: 1)), 0)
        XCTAssertEqual(MediaTime.compare(sheet.tileEnd(0), MediaTime(value: 2, timescale: 1)), 0)
    }

    func field(_ text: String, vtt: Bool = false) -> PreviewField? {
        do {
            _ = vtt ? try PreviewSheet.parseWebVTT(Array(text.utf8)) : try PreviewSheet.parseSpritesheet(Array(text.utf8))
            return nil
        } catch let e as PreviewSourceError {
            XCTAssertEqual(e.code, .previewMalformed)
            return e.field
        } catch {
            return PreviewField.none
        }
    }

    func testWebVTT() throws {
        let t = try PreviewSheet.parseWebVTT(Array("""
        WEBVTT

        NOTE
        a note -->

        00:01.000 --> 00:02.000
        a.jpg#xywh=0,0,10,10

        x
        100:00:02.000 --> 100:00:03.500 line:0
        dir/b c.jpg#xywh=pixel:10,0,10,10
        """.utf8))
        XCTAssertEqual(t.tiles.count, 2)
        XCTAssertEqual(t.tiles[1].image, "dir/b c.jpg")
        XCTAssertEqual(MediaTime.compare(t.tiles[1].start, MediaTime(value: 360_002_000, timescale: 1000)), 0)
        XCTAssertEqual(MediaTime.compare(t.end, MediaTime(value: 360_003_500, timescale: 1000)), 0)
        XCTAssertEqual(field("WEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\na.jpg#xywh=0,0,1,1\r\n", vtt: true), nil)
        XCTAssertEqual(field("WEBVTTX\n", vtt: true), .syntax)
        XCTAssertEqual(field("WEBVTT\n\n00:01.000 --> 00:02.00\na#xywh=0,0,1,1\n", vtt: true), .cueTiming)
        XCTAssertEqual(field("WEBVTT\n\n00:01.000 --> 00:02.000\na#xywh=0,0,1,1,1\n", vtt: true), .cueXywh)
        XCTAssertEqual(field("WEBVTT\n\n00:01.000 --> 00:02.000\n#xywh=0,0,1,1\n", vtt: true), .cueXywh)
    }

    func testWhatTheWriterWritesReadsBack() throws {
        let tiles = [(MediaTime(value: 0, timescale: 24000), Int32(0)), (MediaTime(value: 1001, timescale: 24000), 160),
                     (MediaTime(value: 48048, timescale: 24000), 320)].map {
            PreviewTile(start: $0.0, image: "sprite.jpg", x: $0.1, y: 0, width: 160, height: 90)
        }
        let sheet = PreviewSheet(tiles: tiles, end: MediaTime(value: 6, timescale: 1))
        let json = try PreviewSheet.parseSpritesheet(Array(sheet.spritesheetJSON(url: "sprite.jpg", tileWidth: 160,
                                                                                   tileHeight: 90, duration: sheet.end).utf8))
        let vtt = try PreviewSheet.parseWebVTT(Array(sheet.webVTT(duration: sheet.end).utf8))
        for back in [json, vtt] {
            XCTAssertEqual(back.tiles.map { $0.x }, [0, 160, 320])
            for (i, t) in tiles.enumerated() {
                // JSON: to the microsecond below the exact start; VTT: to the millisecond above.
                XCTAssertEqual(back.tileIndex(at: back.tiles[i].start), i)
                XCTAssertLessThan(abs(back.tiles[i].start.seconds - t.start.seconds), 0.001)
            }
        }
        XCTAssertEqual(json.tileIndex(at: MediaTime(value: 1001, timescale: 24000)), 1)  // exactly at the frame
        XCTAssertEqual(PreviewSheet.vttTime(MediaTime(value: 1001, timescale: 24000)), "00:00:00.042")
    }
}
