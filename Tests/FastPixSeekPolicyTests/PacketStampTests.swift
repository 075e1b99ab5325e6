import XCTest
@testable import FastPixSeekPolicy

/// The per-seek packet rules (PacketStamp), without FFmpeg.
final class PacketStampTests: XCTestCase {
    let video = PacketStamp.TimeBase(1, 90000)
    let audio = PacketStamp.TimeBase(1, 48000)
    let disc = PacketView.flagDiscontinuity, decodeOnly = PacketView.flagDecodeOnly

    func testNothingBeforeTheFirstLanding() {
        var s = PacketStamp(referenceTimeBase: video)
        XCTAssertEqual(s.nextFlags(presents: 0, timeBase: video), 0)
        XCTAssertEqual(s.nextFlags(presents: -100, timeBase: audio), 0)
        XCTAssertEqual(s.seekID, 0)
        XCTAssertNil(s.landedPTS)
    }

    func testDiscontinuityOnceAndDecodeOnlyBeforeTheLanding() {
        var s = PacketStamp(referenceTimeBase: video)
        s.land(9000, seekID: 7)
        XCTAssertEqual(s.seekID, 7)
        // The keyframe before the landing: DISCONTINUITY (first packet) and DECODE_ONLY.
        XCTAssertEqual(s.nextFlags(presents: 3600, timeBase: video), disc | decodeOnly)
        XCTAssertEqual(s.nextFlags(presents: 5400, timeBase: video), decodeOnly)
        XCTAssertEqual(s.nextFlags(presents: 9000, timeBase: video), 0)   // the landed frame itself
        XCTAssertEqual(s.nextFlags(presents: 12600, timeBase: video), 0)
        XCTAssertEqual(s.nextFlags(presents: nil, timeBase: video), 0)     // unknown time: never DECODE_ONLY
        // A new landing marks the next packet again.
        s.land(3600, seekID: 8)
        XCTAssertEqual(s.nextFlags(presents: 3600, timeBase: video), disc)
        XCTAssertEqual(s.seekID, 8)
    }

    func testStepKeepsTheLatestSeekID() {
        var s = PacketStamp(referenceTimeBase: video)
        s.land(9000, seekID: 5)
        s.land(12600, seekID: 0)   // a frame step
        XCTAssertEqual(s.seekID, 5)
        XCTAssertEqual(s.landedPTS, 12600)
        XCTAssertEqual(s.nextFlags(presents: 9000, timeBase: video), disc | decodeOnly)
    }

    func testPresentsBeforeIsExactAcrossTimeBases() {
        // Landing at 1/3 s on a 1/3-tick base; audio at 1/48000: 16000 ticks is exactly 1/3 s.
        let third = PacketStamp.TimeBase(1, 3)
        XCTAssertTrue(PacketStamp.presentsBefore(15999, timeBase: audio, landed: 1, referenceTimeBase: third))
        XCTAssertFalse(PacketStamp.presentsBefore(16000, timeBase: audio, landed: 1, referenceTimeBase: third))
        // 1/12288 (AV1, 24 fps MP4) against 1/90000: 1228.8/12288 = 0.1 s = 9000/90000.
        let av1 = PacketStamp.TimeBase(1, 12288)
        XCTAssertTrue(PacketStamp.presentsBefore(8999, timeBase: video, landed: 1229, referenceTimeBase: av1))
        XCTAssertTrue(PacketStamp.presentsBefore(9000, timeBase: video, landed: 1229, referenceTimeBase: av1))
        // 1229/12288 s = 9001.46.../90000: 9001 before, 9002 not.
        XCTAssertTrue(PacketStamp.presentsBefore(9001, timeBase: video, landed: 1229, referenceTimeBase: av1))
        XCTAssertFalse(PacketStamp.presentsBefore(9002, timeBase: video, landed: 1229, referenceTimeBase: av1))
        // Large values do not overflow (128-bit products).
        XCTAssertTrue(PacketStamp.presentsBefore(Int64.max - 1, timeBase: PacketStamp.TimeBase(1, Int32.max),
                                                 landed: Int64.max, referenceTimeBase: PacketStamp.TimeBase(1, 1)))
        // An invalid time base never presents before.
        XCTAssertFalse(PacketStamp.presentsBefore(0, timeBase: PacketStamp.TimeBase(0, 0), landed: 100,
                                                  referenceTimeBase: video))
        // Audio packets through nextFlags.
        var s = PacketStamp(referenceTimeBase: video)
        s.land(90000, seekID: 1)      // 1 s
        _ = s.nextFlags(presents: nil, timeBase: video)
        XCTAssertEqual(s.nextFlags(presents: 47999, timeBase: audio), decodeOnly)
        XCTAssertEqual(s.nextFlags(presents: 48000, timeBase: audio), 0)
    }

    func testRestartClearsTheLandingAndTheMark() {
        var s = PacketStamp(referenceTimeBase: video)
        s.land(9000, seekID: 3)
        s.restart(seekID: 4)
        XCTAssertNil(s.landedPTS)
        XCTAssertEqual(s.seekID, 4)
        XCTAssertEqual(s.nextFlags(presents: 0, timeBase: video), 0)
    }

    func testRestoredMarksDiscontinuityAndKeepsTheLanding() {
        var s = PacketStamp(referenceTimeBase: video)
        s.land(9000, seekID: 3)
        _ = s.nextFlags(presents: 3600, timeBase: video)
        s.restored()
        XCTAssertEqual(s.nextFlags(presents: 3600, timeBase: video), disc | decodeOnly)
        XCTAssertEqual(s.nextFlags(presents: 9000, timeBase: video), 0)
        s.forgetLanding()
        XCTAssertNil(s.landedPTS)
        XCTAssertEqual(s.nextFlags(presents: 0, timeBase: video), 0)
        XCTAssertEqual(s.seekID, 3)
    }

    private func packet(_ seg: Int64, pts: Int64, flags: UInt32 = 0, seekID: UInt64 = 0) -> PacketView {
        var p = PacketView(data: nil, size: 0, streamIndex: 0, pts: pts, dts: pts, duration: 3600, position: 0,
                           flags: flags, seekID: seekID, avPacket: nil)
        p.landedPTS = seg == 1 ? 9000 : nil
        p.landedPTSInStream = p.landedPTS
        return p
    }

    func testHLSSegmentPackets() {
        var item = PacketStamp(referenceTimeBase: video)
        // Before any seek: nothing added.
        var p = packet(0, pts: 0)
        item.stampSegmentPacket(&p, segment: 0, referenceStream: 0)
        XCTAssertEqual(p.flags, 0); XCTAssertEqual(p.seekID, 0); XCTAssertNil(p.landedPTS)
        // A landing in segment 1; its reader stamps DISCONTINUITY and DECODE_ONLY itself.
        item.land(9000, seekID: 9, segment: 1)
        p = packet(1, pts: 3600, flags: disc | decodeOnly, seekID: 9)
        item.stampSegmentPacket(&p, segment: 1, referenceStream: 0)
        XCTAssertEqual(p.flags, disc | decodeOnly)
        XCTAssertEqual(p.landedPTS, 9000); XCTAssertEqual(p.landedPTSInStream, 9000)
        // Still in segment 1: one DISCONTINUITY only.
        p = packet(1, pts: 12600, seekID: 9)
        item.stampSegmentPacket(&p, segment: 1, referenceStream: 0)
        XCTAssertEqual(p.flags, 0)
        // Segment 2, on the landing's pts timeline: its reader restarts with the landing
        // (landingCarried) and stamps DECODE_ONLY and the landing fields itself (muxed audio
        // at its start may present before the landing); the item adds its seek id only.
        item.enterSegment(discontinuous: false)
        XCTAssertEqual(item.landingCarried(into: 2), 9000)
        XCTAssertNil(item.landingCarried(into: 1))
        p = packet(2, pts: 8000, flags: decodeOnly, seekID: 2)
        p.landedPTS = 9000; p.landedPTSInStream = 9000; p.trimSamples = 5
        item.stampSegmentPacket(&p, segment: 2, referenceStream: 0)
        XCTAssertEqual(p.seekID, 9)
        XCTAssertEqual(p.flags, decodeOnly)
        XCTAssertEqual(p.landedPTS, 9000); XCTAssertEqual(p.landedPTSInStream, 9000); XCTAssertEqual(p.trimSamples, 5)
        // Segment 3 follows EXT-X-DISCONTINUITY: its first packet says so, once; its reader has
        // no landing (another pts timeline): the landing fields, no in-stream landing, and
        // no DECODE_ONLY (everything there presents after the landing).
        item.enterSegment(discontinuous: true)
        XCTAssertNil(item.landingCarried(into: 3))
        p = packet(3, pts: 0, flags: decodeOnly, seekID: 9)
        item.stampSegmentPacket(&p, segment: 3, referenceStream: 0)
        XCTAssertEqual(p.flags, disc)
        XCTAssertEqual(p.landedPTS, 9000)
        XCTAssertEqual(p.landedStreamIndex, 0)
        XCTAssertNil(p.landedPTSInStream)
        p = packet(3, pts: 3600, seekID: 9)
        item.stampSegmentPacket(&p, segment: 3, referenceStream: 0)
        XCTAssertEqual(p.flags, 0)
        // A plain segment boundary adds nothing, and past the discontinuity no later segment
        // carries the landing; a new landing starts afresh.
        item.enterSegment(discontinuous: false)
        XCTAssertNil(item.landingCarried(into: 4))
        p = packet(4, pts: 0, seekID: 9)
        item.stampSegmentPacket(&p, segment: 4, referenceStream: 0)
        XCTAssertEqual(p.flags, 0)
        item.land(100, seekID: 10, segment: 4)
        item.enterSegment(discontinuous: false)
        XCTAssertEqual(item.landingCarried(into: 5), 100)
    }

    func testLandingFieldsExactAcrossTimeBases() {
        let av1 = PacketStamp.TimeBase(1, 12288)
        var s = PacketStamp(referenceTimeBase: av1)
        func apkt(_ pts: Int64, _ dur: Int64) -> PacketView {
            PacketView(data: nil, size: 0, streamIndex: 1, pts: pts, dts: pts, duration: dur, position: 0, flags: 0,
                       seekID: 0, avPacket: nil)
        }
        // Before any landing: nothing.
        var v = apkt(4096, 1024)
        s.describeLanding(&v, referenceStream: 0, streamTimeBase: audio, audioSampleRate: 48000)
        XCTAssertNil(v.landedPTS); XCTAssertNil(v.landedPTSInStream); XCTAssertEqual(v.trimSamples, 0)
        // Landing at 1229/12288 s = 4800.78125 audio ticks: rounded up to 4801; the packet
        // [4096, 5120) straddles it: ceil(4800.78125 - 4096) = 705 samples present before it.
        s.land(1229, seekID: 1)
        v = apkt(4096, 1024)
        s.describeLanding(&v, referenceStream: 0, streamTimeBase: audio, audioSampleRate: 48000)
        XCTAssertEqual(v.landedPTS, 1229)
        XCTAssertEqual(v.landedStreamIndex, 0)
        XCTAssertEqual(v.landedPTSInStream, 4801)
        XCTAssertEqual(v.trimSamples, 705)
        // Wholly after, or wholly before: no trim. Not audio: no trim.
        for (p, d) in [(Int64(4801), Int64(1024)), (Int64(3776), Int64(1024))] {
            v = apkt(p, d)
            s.describeLanding(&v, referenceStream: 0, streamTimeBase: audio, audioSampleRate: 48000)
            XCTAssertEqual(v.trimSamples, 0, "\(p)")
        }
        v = apkt(4096, 1024)
        s.describeLanding(&v, referenceStream: 0, streamTimeBase: audio, audioSampleRate: 0)
        XCTAssertEqual(v.trimSamples, 0)
        XCTAssertEqual(v.landedPTSInStream, 4801)
        // The reference stream itself: the landing as is.
        var r = PacketView(data: nil, size: 0, streamIndex: 0, pts: 1000, dts: 1000, duration: 512, position: 0,
                           flags: 0, seekID: 0, avPacket: nil)
        s.describeLanding(&r, referenceStream: 0, streamTimeBase: av1)
        XCTAssertEqual(r.landedPTSInStream, 1229)
        // An unknown stream (invalid time base): the landing, no in-stream value.
        v = apkt(4096, 1024)
        s.describeLanding(&v, referenceStream: 0, streamTimeBase: PacketStamp.TimeBase(0, 0), audioSampleRate: 48000)
        XCTAssertEqual(v.landedPTS, 1229); XCTAssertNil(v.landedPTSInStream); XCTAssertEqual(v.trimSamples, 0)
        // Exactly on a tick: not rounded past it (1 s = 48000 audio ticks).
        var t = PacketStamp(referenceTimeBase: PacketStamp.TimeBase(1, 90000))
        t.land(90000, seekID: 1)
        v = apkt(47000, 1024)
        t.describeLanding(&v, referenceStream: 0, streamTimeBase: audio, audioSampleRate: 48000)
        XCTAssertEqual(v.landedPTSInStream, 48000)
        XCTAssertEqual(v.trimSamples, 1000)
        // A negative landing (before the stream's zero) rounds up towards zero.
        t.land(-3, seekID: 1)
        v = apkt(-100, 10)
        t.describeLanding(&v, referenceStream: 0, streamTimeBase: audio, audioSampleRate: 48000)
        XCTAssertEqual(v.landedPTSInStream, -1)   // -3/90000 s = -1.6 audio ticks
    }
}
