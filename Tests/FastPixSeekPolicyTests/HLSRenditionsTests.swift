import XCTest
@testable import FastPixSeekPolicy

/// The rules of a variant with a separate audio rendition (HLSRenditions) on fake data: which
/// rendition plays, the merge order, an audio packet's landing fields, the window.
final class HLSRenditionsTests: XCTestCase {
    struct Facts: HLSRenditions.RenditionFacts {
        var type = "AUDIO", groupID = "aud", isDefault = false, autoselect = false, hasURI = true
    }

    func testChoiceOnFakeRenditions() throws {
        func pick(_ r: [Facts], _ group: String?, _ c: HLSRenditions.Choice = .init()) throws -> HLSRenditions.Selection {
            try HLSRenditions.select(r, audioGroup: group, choice: c)
        }
        let r = [Facts(groupID: "other", isDefault: true), Facts(), Facts(autoselect: true),
                 Facts(isDefault: true, autoselect: true), Facts(type: "SUBTITLES", isDefault: true)]
        XCTAssertEqual(try pick(r, "aud"), .rendition(3))                 // DEFAULT first
        XCTAssertEqual(try pick(Array(r.prefix(3)), "aud"), .rendition(2))  // else AUTOSELECT
        XCTAssertEqual(try pick(Array(r.prefix(2)), "aud"), .rendition(1))  // else the first
        XCTAssertEqual(try pick(r, "none"), .none)                        // an empty group
        XCTAssertEqual(try pick(r, nil), .none)                           // a variant without AUDIO
        XCTAssertEqual(try pick([Facts(isDefault: true, hasURI: false)], "aud"), .none)   // muxed
        XCTAssertEqual(try pick(r, "aud", .init(index: 0)), .rendition(0))   // any group
        XCTAssertEqual(try pick(r, "aud", .init(index: 3, off: true)), .none)
        XCTAssertThrowsError(try pick(r, "aud", .init(index: 4)))          // a subtitle rendition
        XCTAssertThrowsError(try pick(r, "aud", .init(index: 5)))          // past the list
        XCTAssertThrowsError(try pick(r, "aud", .init(index: -1)))
    }

    func testMergeOrder() {
        let ref = PacketStamp.TimeBase(1, 90000), aud = PacketStamp.TimeBase(1, 44100)
        // Video dts 900 (10 ms) from origin 0; audio dts 441 (10 ms) with the same origin: a tie
        // goes to the video.
        let v = HLSRenditions.itemDecodeTime(dts: 900, pts: 3900, timeBase: ref, origin: 0, referenceTimeBase: ref)
        let a = HLSRenditions.itemDecodeTime(dts: 441, pts: 441, timeBase: aud, origin: 0, referenceTimeBase: ref)
        XCTAssertEqual(v, Rational(1, 100))
        XCTAssertEqual(HLSRenditions.next(reference: .some(v), rendition: .some(a)), .reference)
        let a2 = HLSRenditions.itemDecodeTime(dts: 440, pts: nil, timeBase: aud, origin: 0, referenceTimeBase: ref)
        XCTAssertEqual(HLSRenditions.next(reference: .some(v), rendition: .some(a2)), .rendition)
        // The origin (in reference ticks) moves both: item time = dts x tb - origin x ref tb.
        let o = HLSRenditions.itemDecodeTime(dts: 441, pts: nil, timeBase: aud, origin: 900, referenceTimeBase: ref)
        XCTAssertEqual(o, Rational(0))
        // No time: first; nothing waiting: the other side; neither: nil.
        XCTAssertEqual(HLSRenditions.next(reference: .some(v), rendition: .some(nil)), .rendition)
        XCTAssertEqual(HLSRenditions.next(reference: .some(nil), rendition: .some(a)), .reference)
        XCTAssertEqual(HLSRenditions.next(reference: nil, rendition: .some(a)), .rendition)
        XCTAssertEqual(HLSRenditions.next(reference: .some(v), rendition: nil), .reference)
        XCTAssertNil(HLSRenditions.next(reference: nil, rendition: nil))
        XCTAssertNil(HLSRenditions.itemDecodeTime(dts: nil, pts: nil, timeBase: aud, origin: 0, referenceTimeBase: ref))
    }

    func testAudioPacketStamp() {
        // seek.h's example: AAC at 48 kHz (time base 1/48000), a landing at 25.5 s given as a
        // 90 kHz video pts (2295000); the packet at 1223680 ([25.4933, 25.5147) s) straddles it.
        let ref = PacketStamp.TimeBase(1, 90000), aud = PacketStamp.TimeBase(1, 48000)
        func packet(_ pts: Int64) -> PacketView {
            PacketView(data: nil, size: 1, streamIndex: 1, pts: pts, dts: pts, duration: 1024, position: -1,
                       flags: PacketView.flagKey | PacketView.flagDecodeOnly, seekID: 3, avPacket: nil)
        }
        var p = packet(1223680)
        PacketStamp.stampRenditionPacket(&p, landed: 2_295_000, referenceStream: 0, referenceTimeBase: ref, streamTimeBase: aud,
                                         sampleRate: 48000, inLandingSegment: true)
        XCTAssertEqual(p.trimSamples, 320)
        XCTAssertEqual(p.landedPTS, 2_295_000)
        XCTAssertEqual(p.landedStreamIndex, 0)
        XCTAssertEqual(p.landedPTSInStream, 1_224_000)
        XCTAssertEqual(p.flags & PacketView.flagDecodeOnly, PacketView.flagDecodeOnly)
        XCTAssertEqual(p.flags & PacketView.flagKey, PacketView.flagKey)
        var before = packet(1222656)                                     // wholly before: decode-only, no trim
        PacketStamp.stampRenditionPacket(&before, landed: 2_295_000, referenceStream: 0, referenceTimeBase: ref,
                                         streamTimeBase: aud, sampleRate: 48000, inLandingSegment: true)
        XCTAssertEqual(before.trimSamples, 0)
        XCTAssertNotEqual(before.flags & PacketView.flagDecodeOnly, 0)
        var after = packet(1224704)                                      // after: neither
        PacketStamp.stampRenditionPacket(&after, landed: 2_295_000, referenceStream: 0, referenceTimeBase: ref,
                                         streamTimeBase: aud, sampleRate: 48000, inLandingSegment: true)
        XCTAssertEqual(after.flags & PacketView.flagDecodeOnly, 0)
        XCTAssertEqual(after.trimSamples, 0)
        var later = packet(1223680)                                      // a later segment: landed_pts only
        PacketStamp.stampRenditionPacket(&later, landed: 2_295_000, referenceStream: 0, referenceTimeBase: ref,
                                         streamTimeBase: aud, sampleRate: 48000, inLandingSegment: false)
        XCTAssertEqual(later.landedPTS, 2_295_000)
        XCTAssertNil(later.landedPTSInStream)
        XCTAssertEqual(later.trimSamples, 0)
        XCTAssertEqual(later.flags & PacketView.flagDecodeOnly, 0)
        var none = packet(1223680)                                       // before any landing: nothing
        PacketStamp.stampRenditionPacket(&none, landed: nil, referenceStream: 0, referenceTimeBase: ref, streamTimeBase: aud,
                                         sampleRate: 48000, inLandingSegment: false)
        XCTAssertNil(none.landedPTS)
        XCTAssertEqual(none.landedStreamIndex, -1)
        XCTAssertEqual(none.flags & PacketView.flagDecodeOnly, 0)
    }

    func testHolesOfBothPlaylistsAreCountedOnceEach() {
        var r = HoleReport()
        XCTAssertTrue(r.record(sequence: 3, reason: .failed))
        XCTAssertTrue(r.record(sequence: 3, reason: .gap, playlist: 1))   // the rendition's own MSN 3
        XCTAssertFalse(r.record(sequence: 3, reason: .failed, playlist: 1))
        XCTAssertFalse(r.record(sequence: 3, reason: .failed))
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r.lastSequence, 3)
        XCTAssertEqual(r.lastReason, .gap)
    }

    func testWindowIntersection() {
        func w(_ s: Int64, _ e: Int64, date: Int64?) -> LiveWindow {
            LiveWindow(isLive: true, isDateAddressable: date != nil, start: MediaTime(value: s, timescale: 1000),
                       end: MediaTime(value: e, timescale: 1000), startDateMicroseconds: date,
                       endDateMicroseconds: date.map { $0 + (e - s) * 1000 }, firstSequence: 5, lastSequence: 9,
                       targetDuration: MediaTime(value: 2, timescale: 1), holdBack: MediaTime(value: 6, timescale: 1))
        }
        let v = w(10_000, 20_000, date: 1_000_000_000)
        let a = HLSRenditions.intersect(v, w(10_500, 19_000, date: nil))
        XCTAssertEqual(a.start, MediaTime(value: 10_500, timescale: 1000))
        XCTAssertEqual(a.end, MediaTime(value: 19_000, timescale: 1000))
        XCTAssertEqual(a.startDateMicroseconds, 1_000_500_000)
        XCTAssertEqual(a.endDateMicroseconds, 1_009_000_000)
        XCTAssertEqual(a.firstSequence, 5)
        XCTAssertEqual(HLSRenditions.intersect(v, w(9_000, 30_000, date: nil)), v)   // wider: the variant's
        let empty = HLSRenditions.intersect(v, w(25_000, 30_000, date: nil))
        XCTAssertEqual(empty.start, empty.end)
    }
}
