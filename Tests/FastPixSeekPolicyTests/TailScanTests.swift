import XCTest
@testable import FastPixSeekPolicy

/// The range's last frame from a tail read to EOF (TailScan) and the test of a packet cut
/// short (DemuxedPacket.isCut), without FFmpeg. The files themselves (MP4 and MKV cut with
/// head -c, against ffprobe and ffmpeg) are Tests/python/test_truncated_range.py.
final class TailScanTests: XCTestCase {
    func testIsCut() {
        let whole = DemuxedPacket(stream: 0, pts: 0, dts: 0, isKey: false, pos: 900, size: 100)
        XCTAssertFalse(whole.isCut(fileSize: 1000))        // ends exactly at the end of the file
        XCTAssertTrue(whole.isCut(fileSize: 999))          // one byte past it
        XCTAssertFalse(whole.isCut(fileSize: nil))         // size unknown: only the flag tells
        var corrupt = whole
        corrupt.isCorrupt = true
        XCTAssertTrue(corrupt.isCut(fileSize: nil))
        let noPos = DemuxedPacket(stream: 0, pts: 0, dts: 0, isKey: false, pos: nil, size: 100)
        XCTAssertFalse(noPos.isCut(fileSize: 10))
        // A position near Int64.max does not overflow.
        let far = DemuxedPacket(stream: 0, pts: 0, dts: 0, isKey: false, pos: Int64.max - 10, size: 100)
        XCTAssertTrue(far.isCut(fileSize: Int64.max - 5))
    }

    func testWholeTail() {
        var t = TailScan()
        // Decode order of an IPBB GOP: pts 0, 3, 1, 2; audio (stream 1) in between.
        for (ref, last) in [(true, 0), (false, 0), (true, 3), (true, 1), (true, 2)] as [(Bool, Int64)] {
            t.add(onRef: ref, cut: false, lastFrame: ref ? last : nil)
        }
        XCTAssertFalse(t.endsAtCut)
        XCTAssertEqual(t.result.last, 3)
        XCTAssertEqual(t.result.count, 4)
    }

    func testDataEndingInACutPacket() {
        var t = TailScan()
        t.add(onRef: true, cut: false, lastFrame: 0)
        t.add(onRef: true, cut: false, lastFrame: 2)
        t.add(onRef: true, cut: true, lastFrame: 5)       // read short: not a frame of the range
        t.add(onRef: true, cut: true, lastFrame: 4)       // after it in decode order: neither
        XCTAssertTrue(t.endsAtCut)
        XCTAssertEqual(t.result.last, 2)
        XCTAssertEqual(t.result.count, 2)
    }

    func testACutPacketOfAnotherStreamEndsTheReferenceFramesToo() {
        var t = TailScan()
        t.add(onRef: true, cut: false, lastFrame: 7)
        t.add(onRef: false, cut: true, lastFrame: nil)
        t.add(onRef: false, cut: false, lastFrame: nil)    // a whole non-reference packet proves nothing
        t.add(onRef: true, cut: true, lastFrame: 9)
        XCTAssertTrue(t.endsAtCut)
        XCTAssertEqual(t.result.last, 7)
    }

    func testDamageInsideTheDataIsNotTheEnd() {
        var t = TailScan()
        t.add(onRef: true, cut: false, lastFrame: 0)
        t.add(onRef: true, cut: true, lastFrame: 3)       // flagged corrupt, but data follows
        t.add(onRef: true, cut: false, lastFrame: 1)
        XCTAssertFalse(t.endsAtCut)
        XCTAssertEqual(t.result.last, 3)                   // as before the rule: every packet
        XCTAssertEqual(t.result.count, 3)
    }

    func testCutBeforeAnyWholeFrame() {
        var t = TailScan()
        t.add(onRef: true, cut: true, lastFrame: 4)
        XCTAssertTrue(t.endsAtCut)
        XCTAssertNil(t.result.last)                        // the lander backs off further
        XCTAssertEqual(t.result.count, 0)
    }
}
