import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

private func r(_ n: Int128, _ d: Int128 = 1) -> Rational { Rational(n, d) }

/// Parses and expects a media playlist.
private func media(_ text: String, url: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> HLSMediaPlaylist {
    let p = try HLSPlaylist.parse(text, url: url)
    guard case .media(let m) = p else {
        XCTFail("expected a media playlist", file: file, line: line)
        throw HLSError.notAPlaylist
    }
    return m
}

/// The HLSError thrown by parsing `text`, or nil when it parsed.
private func parseError(_ text: String) -> HLSError? {
    do {
        _ = try HLSPlaylist.parse(text)
        return nil
    } catch let e as HLSError {
        return e
    } catch {
        XCTFail("unexpected error type \(error)")
        return nil
    }
}

private func isMalformed(_ e: HLSError?) -> Bool {
    if case .malformed = e { return true }
    return false
}

private func malformedLine(_ e: HLSError?) -> Int? {
    if case .malformed(let line, _) = e { return line }
    return nil
}

final class HLSPlaylistTests: XCTestCase {

    // MARK: Master playlists

    let masterText = """
    #EXTM3U
    #EXT-X-VERSION:6
    #EXT-X-INDEPENDENT-SEGMENTS
    # a comment
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English, main",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",DEFAULT=NO,URI="audio/de.m3u8"
    #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2",FRAME-RATE=29.970,AUDIO="aac"
    low/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=7680000,RESOLUTION=1920x1080,CODECS="avc1.640028,mp4a.40.2",FRAME-RATE=59.94,AUDIO="aac",CLOSED-CAPTIONS=NONE
    https://other.example.com/hi/index.m3u8
    #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="low/iframe.m3u8"
    #EXT-X-FUTURE-TAG:WHATEVER=1

    #EXT-X-STREAM-INF:BANDWIDTH=2560000,RESOLUTION=1280x720,CODECS="avc1.4d401f,mp4a.40.2"
    ../mid/index.m3u8?x=1
    """

    func testMasterParsing() throws {
        let p = try HLSPlaylist.parse(masterText, url: "http://example.com/video/master.m3u8")
        guard let m = p.master else { return XCTFail("expected master") }
        XCTAssertNil(p.media)
        XCTAssertEqual(m.version, 6)
        XCTAssertTrue(m.independentSegments)
        // The I-frame variant is listed (0.4.0: HLSVariant.iFrame), after the two before it.
        XCTAssertEqual(m.variants.count, 4)
        XCTAssertEqual(m.variants.map(\.iFrame), [false, false, true, false])
        XCTAssertEqual(m.variants[2].uri, "http://example.com/video/low/iframe.m3u8")

        let low = m.variants[0]
        XCTAssertEqual(low.bandwidth, 1_280_000)
        XCTAssertEqual(low.averageBandwidth, 1_000_000)
        XCTAssertEqual(low.resolution, HLSResolution(width: 640, height: 360))
        XCTAssertEqual(low.codecs, "avc1.4d401e,mp4a.40.2")
        XCTAssertEqual(low.codecList, ["avc1.4d401e", "mp4a.40.2"])
        XCTAssertEqual(low.frameRate, r(2997, 100))
        XCTAssertEqual(low.audioGroup, "aac")
        XCTAssertEqual(low.rawURI, "low/index.m3u8")
        XCTAssertEqual(low.uri, "http://example.com/video/low/index.m3u8")

        let hi = m.variants[1]
        XCTAssertEqual(hi.frameRate, r(5994, 100))
        XCTAssertEqual(hi.closedCaptions, "NONE")
        XCTAssertEqual(hi.uri, "https://other.example.com/hi/index.m3u8")
        XCTAssertNil(hi.averageBandwidth)

        let mid = m.variants[3]
        XCTAssertEqual(mid.uri, "http://example.com/mid/index.m3u8?x=1")
        XCTAssertNil(mid.frameRate)

        XCTAssertEqual(m.renditions.count, 2)
        let en = m.renditions[0]
        XCTAssertEqual(en.type, "AUDIO")
        XCTAssertEqual(en.groupID, "aac")
        XCTAssertEqual(en.name, "English, main")     // comma inside quotes
        XCTAssertEqual(en.language, "en")
        XCTAssertTrue(en.isDefault)
        XCTAssertTrue(en.autoselect)
        XCTAssertEqual(en.uri, "http://example.com/video/audio/en.m3u8")
        XCTAssertFalse(m.renditions[1].isDefault)
        XCTAssertEqual(m.renditions(inGroup: "aac").count, 2)
    }

    func testVariantSelection() throws {
        let m = try HLSMasterPlaylist.parse(masterText)
        func pick(_ c: HLSVariantChoice, in m: HLSMasterPlaylist) -> HLSVariant? { c.select(m.variants).map { m.variants[$0] } }
        XCTAssertEqual(pick(HLSVariantChoice(), in: m)?.bandwidth, 7_680_000)
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: 0), in: m)?.bandwidth, 1_280_000, "nothing fits: the lowest")
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: 3_000_000), in: m)?.bandwidth, 2_560_000)
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: 2_560_000), in: m)?.bandwidth, 2_560_000)
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: 2_559_999), in: m)?.bandwidth, 1_280_000)
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: .max), in: m)?.bandwidth, 7_680_000)
        // No URL: URIs stay as written.
        XCTAssertEqual(m.variants[0].uri, "low/index.m3u8")

        let empty = try HLSMasterPlaylist.parse("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\"\n")
        XCTAssertNil(HLSVariantChoice().select(empty.variants))

        // Ties: the first one in playlist order.
        let tie = try HLSMasterPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=5\na.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=5\nb.m3u8\n")
        XCTAssertEqual(pick(HLSVariantChoice(), in: tie)?.uri, "a.m3u8")
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: 0), in: tie)?.uri, "a.m3u8")
        XCTAssertEqual(pick(HLSVariantChoice(maxBandwidth: 5), in: tie)?.uri, "a.m3u8")
    }

    func testMasterErrors() {
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\na.m3u8\n")), "no BANDWIDTH")
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n")), "no URI line")
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nb\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=axb\na\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=\"30\"\na\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=-1\na\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"x\"\n")), "no GROUP-ID")
        XCTAssertEqual(parseError("#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"k\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\na\n"),
                       .unsupported(tag: "EXT-X-SESSION-KEY"))
        // Master and media tags mixed.
        let mixed = parseError("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-STREAM-INF:BANDWIDTH=1\na\n")
        XCTAssertEqual(malformedLine(mixed), 3)
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na\n#EXTINF:4,\nb.ts\n")))
        // The wrong kind for the typed entry points.
        XCTAssertThrowsError(try HLSMediaPlaylist.parse(masterText))
        XCTAssertThrowsError(try HLSMasterPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:1\n"))
    }

    // MARK: Live playlists with dates and discontinuities

    let live1 = """
    #EXTM3U
    #EXT-X-VERSION:6
    #EXT-X-TARGETDURATION:4
    #EXT-X-MEDIA-SEQUENCE:100
    #EXT-X-DISCONTINUITY-SEQUENCE:7
    #EXT-X-SERVER-CONTROL:HOLD-BACK=9.5,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=24,CAN-BLOCK-RELOAD=YES
    #EXT-X-PART-INF:PART-TARGET=1.0
    #EXT-X-PROGRAM-DATE-TIME:2024-02-29T23:59:58.500Z
    #EXTINF:4.004,
    seg100.ts
    #EXTINF:4.004,
    seg101.ts
    #EXT-X-DISCONTINUITY
    #EXTINF:3.5,ad break
    ../ads/ad0.ts
    #EXTINF:3.5,
    ../ads/ad1.ts
    #EXT-X-DISCONTINUITY
    #EXT-X-PROGRAM-DATE-TIME:2024-03-01T00:00:30+01:00
    #EXTINF:4,
    seg104.ts
    #EXT-X-PART:DURATION=1.0,URI="seg105.0.ts"
    #EXTINF:4.004,
    seg105.ts
    #EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg106.0.ts"
    """
    let liveURL = "https://cdn.example.com/live/chan/index.m3u8?token=abc"

    func testSlidingLivePlaylistWithDatesAcrossDiscontinuity() throws {
        let m = try media(live1, url: liveURL)
        XCTAssertEqual(m.version, 6)
        XCTAssertEqual(m.targetDuration, 4)
        XCTAssertEqual(m.mediaSequence, 100)
        XCTAssertEqual(m.discontinuitySequence, 7)
        XCTAssertEqual(m.nextSequence, 106)
        XCTAssertTrue(m.isLive)
        XCTAssertFalse(m.endList)
        XCTAssertEqual(m.playlistType, HLSPlaylistType.none)
        XCTAssertEqual(m.holdBack, r(19, 2))
        XCTAssertEqual(m.partHoldBack, r(1))
        XCTAssertEqual(m.serverControl?.canSkipUntil, r(24))
        XCTAssertEqual(m.serverControl?.canBlockReload, true)
        XCTAssertEqual(m.serverControl?.canSkipDateRanges, false)

        let s = m.segments
        XCTAssertEqual(s.map(\.sequence), [100, 101, 102, 103, 104, 105])
        XCTAssertEqual(s.map(\.discontinuitySequence), [7, 7, 8, 8, 9, 9])
        XCTAssertEqual(s.map(\.discontinuity), [false, false, true, false, true, false])
        XCTAssertEqual(s.map(\.startOffset), [r(0), r(4004, 1000), r(8008, 1000), r(11508, 1000), r(15008, 1000), r(19008, 1000)])
        XCTAssertEqual(m.duration, r(23012, 1000))
        XCTAssertEqual(s[2].title, "ad break")
        XCTAssertNil(s[3].title)
        XCTAssertEqual(s[0].uri, "https://cdn.example.com/live/chan/seg100.ts")
        XCTAssertEqual(s[2].uri, "https://cdn.example.com/live/ads/ad0.ts")
        XCTAssertEqual(s[2].rawURI, "../ads/ad0.ts")

        // 2024-02-29T23:59:58.500Z: 2024-02-29 is day 19782; + 1 day - 1.5 s.
        let pdt0: Int64 = 19782 * 86_400_000 + 86_400_000 - 1_500
        XCTAssertEqual(pdt0, 1_709_251_198_500)
        XCTAssertEqual(s[0].programDateTime, pdt0)
        XCTAssertEqual(s[0].startDate, pdt0)
        XCTAssertNil(s[1].programDateTime)
        XCTAssertEqual(s[1].startDate, pdt0 + 4004, "inherited: PDT + cumulative EXTINF")
        // A discontinuity without a new PDT: no date.
        XCTAssertNil(s[2].startDate)
        XCTAssertNil(s[3].startDate)
        // A new PDT after the discontinuity (local +01:00 -> 23:00:30Z the day before).
        let pdt4: Int64 = 19782 * 86_400_000 + 23 * 3_600_000 + 30_000
        XCTAssertEqual(s[4].programDateTime, pdt4)
        XCTAssertEqual(s[4].startDate, pdt4)
        XCTAssertEqual(s[5].startDate, pdt4 + 4000)
        XCTAssertEqual(s[5].startDateExact, Rational(Int128(pdt4 + 4000), 1))

        // Date lookups.
        XCTAssertEqual(m.segment(containingDate: pdt0)?.sequence, 100)
        XCTAssertEqual(m.segment(containingDate: pdt0 + 4003)?.sequence, 100)
        XCTAssertEqual(m.segment(containingDate: pdt0 + 4004)?.sequence, 101)
        XCTAssertNil(m.segment(containingDate: pdt0 + 8008), "the ad break has no dates")
        XCTAssertEqual(m.segment(containingDate: pdt4 + 7999)?.sequence, 105)
        XCTAssertNil(m.segment(containingDate: pdt4 + 8004))
        XCTAssertNil(m.segment(containingDate: .min))

        // Offset lookups (exact boundaries).
        XCTAssertEqual(m.segment(at: r(0))?.sequence, 100)
        XCTAssertEqual(m.segment(at: r(4003, 1000))?.sequence, 100)
        XCTAssertEqual(m.segment(at: r(4004, 1000))?.sequence, 101)
        XCTAssertEqual(m.segment(at: r(23011, 1000))?.sequence, 105)
        XCTAssertNil(m.segment(at: r(23012, 1000)))
        XCTAssertNil(m.segment(at: r(-1, 1_000_000)))
        XCTAssertNil(m.segment(at: Rational(Int128.max, 1)))
        XCTAssertNil(m.segment(at: Rational(Int128.min + 1, 3)))
        XCTAssertEqual(m.segmentIndex(at: r(15008, 1000)), 4)

        // Live edge: HOLD-BACK 9.5 s -> start at 23.012 - 9.5 = 13.512, inside ad1 (103).
        XCTAssertEqual(m.liveEdgeOffset, r(19, 2))
        XCTAssertEqual(m.preferredStartOffset, r(13512, 1000))
        XCTAssertEqual(m.segment(at: m.preferredStartOffset)?.sequence, 103)

        XCTAssertEqual(m.segment(sequence: 104)?.uri, "https://cdn.example.com/live/chan/seg104.ts")
        XCTAssertNil(m.segment(sequence: 99))
        XCTAssertNil(m.segment(sequence: 106))
        XCTAssertNil(m.segment(sequence: .max))
        XCTAssertNil(m.segment(sequence: .min))
    }

    func testLiveEdgeWithoutHoldBackIsThreeTargetDurations() throws {
        let m = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n" + String(repeating: "#EXTINF:6,\na.ts\n", count: 5))
        XCTAssertNil(m.holdBack)
        XCTAssertEqual(m.liveEdgeOffset, r(18))
        XCTAssertEqual(m.preferredStartOffset, r(12))
        let short = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n")
        XCTAssertEqual(short.preferredStartOffset, r(0), "clamped at the start")
    }

    func testSubMillisecondDerivedDates() throws {
        let m = try media("""
        #EXTM3U
        #EXT-X-TARGETDURATION:1
        #EXT-X-PROGRAM-DATE-TIME:1970-01-01T00:00:00.0005Z
        #EXTINF:0.0015,
        a.ts
        #EXTINF:0.0015,
        b.ts
        #EXTINF:0.0015,
        c.ts
        """)
        // 0.5 ms, then + 1.5 ms each, exactly.
        XCTAssertEqual(m.segments.map(\.startDateExact), [r(1, 2), r(2), r(7, 2)])
        XCTAssertEqual(m.segments.map(\.startDate), [0, 2, 3])
        XCTAssertEqual(m.segments[0].programDateTime, 0)
    }

    // MARK: Reloads

    let live2 = """
    #EXTM3U
    #EXT-X-VERSION:6
    #EXT-X-TARGETDURATION:4
    #EXT-X-MEDIA-SEQUENCE:102
    #EXT-X-DISCONTINUITY-SEQUENCE:8
    #EXT-X-SERVER-CONTROL:HOLD-BACK=9.5,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=24,CAN-BLOCK-RELOAD=YES
    #EXTINF:3.5,ad break
    ../ads/ad0.ts
    #EXTINF:3.5,
    ../ads/ad1.ts
    #EXT-X-DISCONTINUITY
    #EXT-X-PROGRAM-DATE-TIME:2024-03-01T00:00:30+01:00
    #EXTINF:4,
    seg104.ts
    #EXTINF:4.004,
    seg105.ts
    #EXTINF:4.004,
    seg106.ts
    """

    func testReloadInterval() throws {
        let m = try media(live1)
        XCTAssertEqual(m.reloadInterval(previousUnchanged: false), r(4))
        XCTAssertEqual(m.reloadInterval(previousUnchanged: true), r(2))
        let odd = try media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n")
        XCTAssertEqual(odd.reloadInterval(previousUnchanged: true), r(5, 2))
        let vod = try media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:5,\na.ts\n")
        XCTAssertNil(vod.reloadInterval(previousUnchanged: false), "VOD never reloads")
        let ended = try media("#EXTM3U\n#EXT-X-TARGETDURATION:5\n#EXTINF:5,\na.ts\n#EXT-X-ENDLIST\n")
        XCTAssertNil(ended.reloadInterval(previousUnchanged: true))
    }

    func testExpiryBetweenSnapshots() throws {
        let a = try media(live1, url: liveURL)
        let b = try media(live2, url: liveURL)
        XCTAssertEqual(b.segments.map(\.discontinuitySequence), [8, 8, 9, 9, 9])
        XCTAssertEqual(b.segments[2].startDate, a.segments[4].startDate)
        XCTAssertEqual(b.segments[4].startDate, a.segments[5].startDate! + 4004)

        let d = b.track(previous: a)
        XCTAssertEqual(d.expired, 100..<102)
        XCTAssertEqual(d.added, 106..<107)
        XCTAssertFalse(d.unchanged)
        XCTAssertFalse(d.restarted)
        XCTAssertTrue(d.contiguous)
        XCTAssertFalse(d.ended)
        XCTAssertTrue(d.isExpired(100))
        XCTAssertTrue(d.isExpired(101))
        XCTAssertFalse(d.isExpired(102))
        XCTAssertTrue(b.hasExpired(101))
        XCTAssertFalse(b.hasExpired(102))
        XCTAssertFalse(b.hasExpired(200))

        // The same playlist again: unchanged, reload after half a target duration.
        let c = try media(live2, url: liveURL)
        let same = c.track(previous: b)
        XCTAssertTrue(same.unchanged)
        XCTAssertTrue(same.expired.isEmpty)
        XCTAssertTrue(same.added.isEmpty)
        XCTAssertEqual(c.reloadInterval(previousUnchanged: same.unchanged), r(2))

        // ENDLIST appears.
        let endText = live2 + "\n#EXT-X-ENDLIST\n"
        let e = try media(endText, url: liveURL)
        let ended = e.track(previous: c)
        XCTAssertTrue(ended.ended)
        XCTAssertFalse(ended.unchanged)
        XCTAssertTrue(ended.added.isEmpty)
        XCTAssertFalse(e.isLive)

        // Missed reloads: a window past the previous one entirely.
        let far = try media("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:110\n#EXT-X-DISCONTINUITY-SEQUENCE:9\n#EXTINF:4,\nseg110.ts\n")
        let jump = far.track(previous: a)
        XCTAssertEqual(jump.expired, 100..<106)
        XCTAssertEqual(jump.added, 110..<111)
        XCTAssertFalse(jump.contiguous)

        // The sequence going backwards is a restart.
        let back = a.track(previous: b)
        XCTAssertTrue(back.restarted)
        XCTAssertEqual(back.expired, 102..<107)
        XCTAssertEqual(back.added, 100..<106)

        // The same MSN naming another resource is a restart too.
        let renamed = try media(live2.replacingOccurrences(of: "seg105.ts", with: "other105.ts"), url: liveURL)
        XCTAssertTrue(renamed.track(previous: b).restarted)
    }

    func testLiveTrackerStableTimeline() throws {
        var t = HLSLiveTracker()
        XCTAssertNil(t.reloadInterval)
        let a = try media(live1, url: liveURL)
        let d0 = t.update(a)
        XCTAssertEqual(d0.added, 100..<106)
        XCTAssertEqual(t.reloadInterval, r(4))
        XCTAssertEqual(t.stableOffset(ofSequence: 104), r(15008, 1000))

        let d1 = t.update(try media(live2, url: liveURL))
        XCTAssertEqual(d1.expired, 100..<102)
        XCTAssertEqual(t.baseOffset, r(8008, 1000))
        XCTAssertEqual(t.stableOffset(ofSequence: 104), r(15008, 1000), "the same MSN keeps its stable offset")
        XCTAssertEqual(t.stableOffset(ofSequence: 106), r(23012, 1000))
        XCTAssertNil(t.stableOffset(ofSequence: 100))
        XCTAssertEqual(t.segment(atStableOffset: r(23012, 1000))?.sequence, 106)
        XCTAssertNil(t.segment(atStableOffset: r(1)), "expired")
        XCTAssertNil(t.segment(atStableOffset: Rational(Int128.min + 1, 7)))
        XCTAssertFalse(t.timelineEstimated)

        t.update(try media(live2, url: liveURL))
        XCTAssertEqual(t.lastDelta?.unchanged, true)
        XCTAssertEqual(t.reloadInterval, r(2))

        // Missed segments: estimated at one target duration each.
        let far = try media("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:109\n#EXT-X-DISCONTINUITY-SEQUENCE:9\n#EXTINF:4,\nseg109.ts\n")
        let missed = t.update(far)
        XCTAssertFalse(missed.restarted)
        XCTAssertFalse(missed.contiguous)
        XCTAssertTrue(t.timelineEstimated)
        XCTAssertEqual(t.stableOffset(ofSequence: 109), r(27016, 1000) + r(8), "107 and 108 were missed: 2 x 4 s")

        // A restart (the discontinuity sequence went backwards) continues after the previous end.
        let restart = t.update(try media("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n"))
        XCTAssertTrue(restart.restarted)
        XCTAssertEqual(restart.expired, 109..<110)
        XCTAssertEqual(t.stableOffset(ofSequence: 0), r(35016, 1000) + r(4))
    }

    // MARK: VOD and EVENT

    func testVODAndEvent() throws {
        let vod = try media("""
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-TARGETDURATION:10
        #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
        #EXTINF:9.009,
        http://media.example.com/first.ts
        #EXTINF:9.009,
        http://media.example.com/second.ts
        #EXTINF:3.003,
        http://media.example.com/third.ts
        #EXT-X-ENDLIST
        """)
        XCTAssertEqual(vod.playlistType, .vod)
        XCTAssertTrue(vod.endList)
        XCTAssertFalse(vod.isLive)
        XCTAssertEqual(vod.mediaSequence, 0)
        XCTAssertEqual(vod.segments.map(\.sequence), [0, 1, 2])
        XCTAssertEqual(vod.duration, r(21021, 1000))
        XCTAssertEqual(vod.start, HLSStart(timeOffset: r(-25, 2), precise: true))
        XCTAssertEqual(vod.preferredStartOffset, r(21021, 1000) - r(25, 2))
        XCTAssertEqual(vod.segment(at: vod.preferredStartOffset)?.sequence, 0)

        // VOD without ENDLIST is still not live.
        XCTAssertFalse(try media("#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:1\n").isLive)

        let event = "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXT-X-TARGETDURATION:2\n#EXT-X-START:TIME-OFFSET=100\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n"
        let ev = try media(event)
        XCTAssertEqual(ev.playlistType, .event)
        XCTAssertTrue(ev.isLive)
        XCTAssertEqual(ev.preferredStartOffset, r(4), "positive offsets past the end clamp to the end")
        XCTAssertEqual(ev.start?.precise, false)
        let evEnded = try media(event + "#EXT-X-ENDLIST\n")
        XCTAssertFalse(evEnded.isLive)
        XCTAssertEqual(try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-START:TIME-OFFSET=-100\n#EXTINF:2,\na.ts\n").preferredStartOffset, r(0))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-PLAYLIST-TYPE:LIVE\n#EXT-X-TARGETDURATION:2\n")))
    }

    // MARK: Byte ranges and maps

    func testByteRangesWithImplicitOffsetsAndMaps() throws {
        let m = try media("""
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-BYTERANGE:1000@720
        #EXTINF:2.0,
        main.mp4
        #EXT-X-BYTERANGE:2000
        #EXTINF:2.0,
        main.mp4
        #EXT-X-GAP
        #EXT-X-BYTERANGE:500
        #EXTINF:1.5,
        main.mp4
        #EXT-X-MAP:URI="other-init.mp4"
        #EXT-X-BYTERANGE:300@0
        #EXTINF:1,
        other.mp4
        #EXTINF:1,
        whole.mp4
        #EXT-X-ENDLIST
        """, url: "https://h.example/v/p.m3u8")
        XCTAssertTrue(m.independentSegments)
        let s = m.segments
        XCTAssertEqual(s.map(\.byteRange), [
            HLSByteRange(length: 1000, offset: 720), HLSByteRange(length: 2000, offset: 1720),
            HLSByteRange(length: 500, offset: 3720), HLSByteRange(length: 300, offset: 0), nil])
        XCTAssertEqual(s[2].byteRange?.end, 4220)
        XCTAssertEqual(s.map(\.gap), [false, false, true, false, false])
        let init1 = HLSMap(uri: "https://h.example/v/init.mp4", rawURI: "init.mp4", byteRange: HLSByteRange(length: 720, offset: 0))
        let init2 = HLSMap(uri: "https://h.example/v/other-init.mp4", rawURI: "other-init.mp4", byteRange: nil)
        XCTAssertEqual(s.map(\.map), [init1, init1, init1, init2, init2])
        XCTAssertEqual(m.duration, r(75, 10))

        // A MAP BYTERANGE without an offset starts at 0.
        let m2 = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"64\"\n#EXTINF:2,\na.mp4\n")
        XCTAssertEqual(m2.segments[0].map?.byteRange, HLSByteRange(length: 64, offset: 0))

        // An implicit offset needs a previous sub-range of the same resource.
        let noPrev = parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\na.mp4\n")
        XCTAssertEqual(malformedLine(noPrev), 3)
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:100@0\n#EXTINF:2,\na.mp4\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\nb.mp4\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.mp4\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\na.mp4\n")))
        // Overflowing ranges and bad syntax.
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:9223372036854775807@1\n#EXTINF:2,\na\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:12@x\n#EXTINF:2,\na\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:1@2@3\n#EXTINF:2,\na\n")))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:BYTERANGE=\"1@0\"\n")), "MAP without URI")
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"i\",BYTERANGE=1@0\n")), "unquoted")
    }

    // MARK: Exact durations

    func testExactEXTINFRationals() throws {
        let m = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + String(repeating: "#EXTINF:2.002,\ns.ts\n", count: 3) + "#EXTINF:6\nt.ts\n#EXTINF:0.1,\nu.ts\n")
        XCTAssertEqual(m.segments[0].duration, Rational(2002, 1000))
        XCTAssertEqual(m.segments[3].duration, Rational(6, 1))
        XCTAssertEqual(m.segments[3].startOffset, Rational(6006, 1000), "3 x 2.002 == 6006/1000 exactly")
        XCTAssertEqual(m.segments[4].startOffset, Rational(12006, 1000))
        XCTAssertEqual(m.duration, Rational(12106, 1000))

        XCTAssertEqual(HLSNumber.decimal("2.002"), Rational(2002, 1000))
        XCTAssertEqual(HLSNumber.decimal("6"), Rational(6, 1))
        XCTAssertEqual(HLSNumber.decimal("06.500"), Rational(13, 2))
        XCTAssertEqual(HLSNumber.decimal("2."), Rational(2, 1))
        XCTAssertEqual(HLSNumber.decimal(".5"), Rational(1, 2))
        XCTAssertEqual(HLSNumber.decimal("0.333333333333333333"), Rational(333_333_333_333_333_333, 1_000_000_000_000_000_000))
        XCTAssertEqual(HLSNumber.decimal("-1.25", allowSign: true), Rational(-5, 4))
        XCTAssertEqual(HLSNumber.decimal("+3", allowSign: true), Rational(3, 1))
        XCTAssertEqual(HLSNumber.decimal("1000000000"), Rational(1_000_000_000, 1))
        for bad in ["", ".", "-1", "+1", "1.2.3", "1e3", "0x10", " 1", "1 ", "abc", "1000000000.1", "99999999999999999999999",
                    "0.0000000000000000001", "1,5", "--1", "\u{0661}"] {
            XCTAssertNil(HLSNumber.decimal(bad), bad)
        }
        XCTAssertNil(HLSNumber.decimal("--1", allowSign: true))
        XCTAssertEqual(HLSNumber.decimalInteger("9223372036854775807"), .max)
        XCTAssertNil(HLSNumber.decimalInteger("9223372036854775808"))
        XCTAssertNil(HLSNumber.decimalInteger("-1"))
        XCTAssertNil(HLSNumber.decimalInteger(""))
        XCTAssertNil(HLSNumber.decimalInteger("+1"))
    }

    func testSafeCompare() {
        XCTAssertEqual(HLSNumber.compare(Rational(Int128.max, 1), Rational(Int128.max - 1, 1)), 1)
        XCTAssertEqual(HLSNumber.compare(Rational(1, Int128.max), Rational(1, Int128.max - 2)), -1)
        XCTAssertEqual(HLSNumber.compare(Rational(Int128.min + 1, 3), Rational(Int128.max, 7)), -1)
        XCTAssertEqual(HLSNumber.compare(Rational(2002, 1000), Rational(1001, 500)), 0)
        XCTAssertEqual(HLSNumber.compare(Rational(-1, 2), Rational(-1, 3)), -1)
        XCTAssertNil(HLSNumber.add(Rational(Int128.max, 1), Rational(1, 1)))
        XCTAssertNil(HLSNumber.subtract(Rational(1, Int128.max), Rational(1, Int128.max - 1)))
        XCTAssertEqual(HLSNumber.add(Rational(1, 3), Rational(1, 6)), Rational(1, 2))
    }

    // MARK: Dates

    func testProgramDateTimeParsing() {
        func ms(_ s: String) -> Int64? { HLSDate.unixMilliseconds(s) }
        XCTAssertEqual(ms("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(ms("1970-01-01T00:00:00.000+00:00"), 0)
        XCTAssertEqual(ms("1970-01-01T00:00:00.001Z"), 1)
        // 2000-03-01 is day 11017 (10957 for 2000-01-01, + 31 + 29); 00:00 at +01:00 is 23:00Z the day before.
        XCTAssertEqual(ms("2000-03-01T00:00:00.5+01:00"), 11017 * 86_400_000 - 3_600_000 + 500)
        XCTAssertEqual(ms("2000-03-01T00:00:00.5+01:00"), 951_865_200_500)
        // Leap years: 2000 (by 400) and 2024 are, 1900 (by 100) and 2023 are not.
        XCTAssertEqual(ms("2024-02-29T00:00:00Z"), 1_709_164_800_000)
        XCTAssertEqual(ms("2024-03-01T00:00:00Z"), 1_709_164_800_000 + 86_400_000)
        XCTAssertEqual(ms("2000-02-29T23:59:59Z"), 951_868_799_000)
        XCTAssertNil(ms("2023-02-29T00:00:00Z"))
        XCTAssertNil(ms("1900-02-29T00:00:00Z"))
        XCTAssertEqual(ms("1900-03-01T00:00:00Z"), -2_203_891_200_000)
        // Offsets in every accepted form.
        XCTAssertEqual(ms("2019-06-15T12:34:56-05:00"), 1_560_620_096_000)
        XCTAssertEqual(ms("2019-06-15T12:34:56-0500"), 1_560_620_096_000)
        XCTAssertEqual(ms("2019-06-15T12:34:56-05"), 1_560_620_096_000)
        XCTAssertEqual(ms("2019-06-15T17:34:56.789z"), 1_560_620_096_789)
        XCTAssertEqual(ms("2019-06-15 17:34:56.789Z"), 1_560_620_096_789)
        XCTAssertEqual(ms("2024-12-31T23:30:00-02:30"), 1_735_696_800_000, "crosses a year")
        XCTAssertEqual(ms("2038-01-19T03:14:08Z"), 2_147_483_648_000)
        XCTAssertEqual(ms("9999-12-31T23:59:59.999Z"), 253_402_300_799_999)
        XCTAssertEqual(ms("0000-03-01T00:00:00Z"), -62_162_035_200_000)
        // Fractions: exact to the ms, rounded down below it (also before 1970).
        XCTAssertEqual(ms("2019-06-15T17:34:56.7899999Z"), 1_560_620_096_789)
        XCTAssertEqual(ms("1969-12-31T23:59:59.9995Z"), -1)
        XCTAssertEqual(HLSDate.unixMillisecondsExact("1969-12-31T23:59:59.9995Z"), Rational(-1, 2))
        XCTAssertEqual(ms("1969-12-31T23:59:59Z"), -1000)
        // A leap second lands on the next second.
        XCTAssertEqual(ms("2016-12-31T23:59:60Z"), ms("2017-01-01T00:00:00Z"))
        for bad in ["", "2019-06-15", "2019-06-15T12:34:56", "2019-06-15T12:34Z", "2019-13-01T00:00:00Z",
                    "2019-00-01T00:00:00Z", "2019-04-31T00:00:00Z", "2019-06-15T24:00:00Z", "2019-06-15T12:60:00Z",
                    "2019-06-15T12:00:61Z", "2019-06-15T12:00:00.Z", "2019-06-15T12:00:00+2400", "2019-06-15T12:00:00+05:",
                    "2019-06-15T12:00:00+05:60", "2019-06-15T12:00:00ZZ", "19-06-15T12:00:00Z", "2019-6-15T12:00:00Z",
                    "2019-06-15X12:00:00Z", "+2019-06-15T12:00:00Z", "2019-06-15T12:00:00 Z"] {
            XCTAssertNil(ms(bad), bad)
        }
        XCTAssertEqual(HLSDate.daysFromCivil(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(HLSDate.daysFromCivil(year: 1969, month: 12, day: 31), -1)
        XCTAssertEqual(HLSDate.daysFromCivil(year: 2000, month: 3, day: 1), 11017)
        XCTAssertEqual(HLSDate.daysFromCivil(year: 2024, month: 2, day: 29), 19782)
        _ = HLSDate.daysFromCivil(year: .max, month: .max, day: .max)
        _ = HLSDate.daysFromCivil(year: .min, month: .min, day: .min)
    }

    // MARK: URLs

    func testRFC3986NormalExamples() {
        let base = "http://a/b/c/d;p?q"
        let cases: [(String, String)] = [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
            (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
            ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
            ("../../g", "http://a/g"),
        ]
        for (ref, want) in cases {
            XCTAssertEqual(HLSURL.resolve(base: base, reference: ref), want, "reference '\(ref)'")
        }
    }

    func testRFC3986AbnormalExamples() {
        let base = "http://a/b/c/d;p?q"
        let cases: [(String, String)] = [
            ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
            ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."),
            ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
            ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
            ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
            ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
        ]
        for (ref, want) in cases {
            XCTAssertEqual(HLSURL.resolve(base: base, reference: ref), want, "reference '\(ref)'")
        }
        // HLS-shaped cases: query strings on the base are dropped, kept on the reference.
        let pl = "https://cdn.example.com/live/chan/index.m3u8?token=abc#frag"
        XCTAssertEqual(HLSURL.resolve(base: pl, reference: "seg1.ts?t=2"), "https://cdn.example.com/live/chan/seg1.ts?t=2")
        XCTAssertEqual(HLSURL.resolve(base: pl, reference: "../../x/./y.ts"), "https://cdn.example.com/x/y.ts")
        XCTAssertEqual(HLSURL.resolve(base: "https://h.example", reference: "a.ts"), "https://h.example/a.ts")
        XCTAssertEqual(HLSURL.resolve(base: "https://u:p@h.example:8443/a/b", reference: "//o.example/c"), "https://o.example/c")
        XCTAssertEqual(HLSURL.resolve(base: "/local/dir/p.m3u8", reference: "s.ts"), "/local/dir/s.ts")
        XCTAssertEqual(HLSURL.resolve(base: "p.m3u8", reference: "s.ts"), "s.ts")
        XCTAssertEqual(HLSURL.resolve(base: "file:///srv/hls/p.m3u8", reference: "s.ts"), "file:///srv/hls/s.ts")
        XCTAssertEqual(HLSURL.resolve(base: "http://a/b", reference: "./c:d"), "http://a/c:d", "a colon after a slash is no scheme")
        let u = HLSURL(parsing: "https://h.example:1/p/q?x=1&y#f")
        XCTAssertEqual(u.scheme, "https")
        XCTAssertEqual(u.authority, "h.example:1")
        XCTAssertEqual(u.path, "/p/q")
        XCTAssertEqual(u.query, "x=1&y")
        XCTAssertEqual(u.fragment, "f")
        XCTAssertEqual(u.description, "https://h.example:1/p/q?x=1&y#f")
    }

    // MARK: Attribute lists

    func testAttributeLists() throws {
        let text: Substring = #"A=1,B="x, y=z",C=0x1fA0,D=-2.5,E=1920x1080,F=ENUM,G="",H=0X0"#
        guard case .success(let a) = HLSAttributeList.parse(text) else { return XCTFail("parse") }
        XCTAssertEqual(a.attributes.map(\.name), ["A", "B", "C", "D", "E", "F", "G", "H"])
        XCTAssertEqual(a.decimalInteger("A"), 1)
        XCTAssertEqual(a.quotedString("B"), "x, y=z")
        XCTAssertNil(a.enumerated("B"))
        XCTAssertEqual(a.hexadecimal("C"), [0x1f, 0xa0])
        XCTAssertEqual(a.hexadecimal("H"), [0x00])
        XCTAssertEqual(a.signedDecimalFloat("D"), Rational(-5, 2))
        XCTAssertNil(a.decimalFloat("D"))
        XCTAssertEqual(a.resolution("E"), HLSResolution(width: 1920, height: 1080))
        XCTAssertEqual(a.enumerated("F"), "ENUM")
        XCTAssertEqual(a.quotedString("G"), "")
        XCTAssertNil(a.decimalInteger("Z"))
        XCTAssertNil(a.quotedString("A"))
        XCTAssertNil(a.hexadecimal("A"))
        XCTAssertNil(a.resolution("F"))

        guard case .success(let spaced) = HLSAttributeList.parse("A=1, B=\"2\" ,C=3,") else { return XCTFail("spaced") }
        XCTAssertEqual(spaced.attributes.count, 3)
        guard case .success(let empty) = HLSAttributeList.parse("") else { return XCTFail("empty") }
        XCTAssertTrue(empty.attributes.isEmpty)

        for bad in [#"A="open"#, "A", "A=", "=1", "a=1", "A=1,A=2", "A=1 B=2", #"A=x"y""#, #"A="x"y"#, "A=1,,B=2"] {
            if case .success = HLSAttributeList.parse(Substring(bad)) { XCTFail("accepted \(bad)") }
        }
    }

    // MARK: Errors

    func testErrors() {
        XCTAssertEqual(parseError(""), .notAPlaylist)
        XCTAssertEqual(parseError("hello\n#EXTM3U\n"), .notAPlaylist)
        XCTAssertEqual(parseError("#EXT-X-TARGETDURATION:1\n"), .notAPlaylist)
        XCTAssertEqual(parseError("#EXTM3Ux\n"), .notAPlaylist)
        XCTAssertEqual(parseError("\u{FEFF}#EXTM3U\n#EXT-X-TARGETDURATION:1\n"), .notAPlaylist, "a BOM")
        XCTAssertThrowsError(try HLSPlaylist.parse([0x23, 0x45, 0x58, 0x54, 0x4D, 0x33, 0x55, 0x0A, 0xFF, 0xFE])) {
            XCTAssertEqual($0 as? HLSError, .invalidEncoding)
        }
        XCTAssertEqual(parseError("#EXTM3U\n"), .malformed(line: 0, reason: "missing EXT-X-TARGETDURATION"))

        // EXTINF without a URI.
        XCTAssertEqual(malformedLine(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n")), 3)
        XCTAssertEqual(malformedLine(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXTINF:2,\na.ts\n")), 4)
        // A URI without EXTINF.
        XCTAssertEqual(malformedLine(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts\n")), 3)

        // Encryption: AES-128 parses (HLSKeyTests); other methods and key formats are refused by name.
        XCTAssertNil(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\",IV=0x0102\n#EXTINF:2,\na.ts\n"))
        let sample = parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k\"\n")
        XCTAssertEqual(sample, .encryption("EXT-X-KEY METHOD=SAMPLE-AES"))
        XCTAssertEqual(sample?.errorCode, .encryption)
        XCTAssertEqual(sample.map(ErrorCode.init), .encryption)
        XCTAssertNil(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=NONE\n#EXTINF:2,\na.ts\n"))
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:URI=\"k\"\n")))
        XCTAssertEqual(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n"), .unsupported(tag: "EXT-X-SKIP"))
        XCTAssertEqual(parseError("#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n"), .unsupported(tag: "EXT-X-DEFINE"))

        // Malformed numbers and values.
        let bad = [
            "#EXTINF:abc,\na.ts", "#EXTINF:-1,\na.ts", "#EXTINF:1.2.3,\na.ts", "#EXTINF:,\na.ts", "#EXTINF\na.ts",
            "#EXTINF:1e3,\na.ts", "#EXTINF:99999999999,\na.ts",
        ]
        for b in bad {
            let e = parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + b + "\n")
            XCTAssertEqual(malformedLine(e), 3, b)
            XCTAssertEqual(e?.errorCode, .invalidData)
        }
        for header in ["#EXT-X-TARGETDURATION:1e3", "#EXT-X-TARGETDURATION:-4", "#EXT-X-TARGETDURATION:4.5",
                       "#EXT-X-TARGETDURATION:", "#EXT-X-TARGETDURATION:2000000000",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-TARGETDURATION:2",
                       "#EXT-X-VERSION:x\n#EXT-X-TARGETDURATION:2", "#EXT-X-VERSION:3\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2",
                       "#EXT-X-MEDIA-SEQUENCE:99999999999999999999\n#EXT-X-TARGETDURATION:2",
                       "#EXT-X-DISCONTINUITY-SEQUENCE:-1\n#EXT-X-TARGETDURATION:2",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:2023-02-29T00:00:00Z",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-SERVER-CONTROL:HOLD-BACK=x",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=MAYBE",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-START:PRECISE=YES",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-START:TIME-OFFSET=1,PRECISE=1",
                       "#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-MEDIA-SEQUENCE:1",
                       "#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXT-X-MEDIA-SEQUENCE:5",
                       "#EXT-X-TARGETDURATION:2\n#EXTM3U"] {
            let e = parseError("#EXTM3U\n" + header + "\n")
            XCTAssertTrue(isMalformed(e), "\(header): \(String(describing: e))")
        }
        // The MSN after the last segment must fit in Int64.
        XCTAssertTrue(isMalformed(parseError("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\na.ts\n")))
        XCTAssertNotNil(try? media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:9223372036854775806\n#EXTINF:2,\na.ts\n"))
        XCTAssertEqual(HLSError.malformed(line: 1, reason: "x").errorCode, .invalidData)
        XCTAssertEqual(HLSError.notAPlaylist.errorCode, .invalidData)
        XCTAssertEqual(HLSError.invalidEncoding.errorCode, .invalidData)
        XCTAssertFalse(HLSError.unsupported(tag: "EXT-X-KEY").description.isEmpty)
    }

    func testLenientInput() throws {
        // CRLF, blank lines, comments, unknown tags, trailing blanks, LL-HLS parts and date ranges.
        let text = "#EXTM3U\r\n\r\n# comment\r\n#EXT-X-TARGETDURATION:2  \r\n#EXT-X-UNKNOWN:X=1\r\n#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2020-01-01T00:00:00Z\"\r\n"
            + "#EXT-X-BITRATE:500\r\n#EXTINF:2.5,Title, with comma\r\n#EXT-X-PART:DURATION=1,URI=\"p\"\r\n a.ts \r\n#EXT-X-ENDLIST"
        let m = try media(text)
        XCTAssertEqual(m.segments.count, 1)
        XCTAssertEqual(m.segments[0].uri, "a.ts")
        XCTAssertEqual(m.segments[0].title, "Title, with comma")
        XCTAssertEqual(m.segments[0].duration, r(5, 2))
        XCTAssertTrue(m.endList)
        // The [UInt8] entry point gives the same result.
        XCTAssertEqual(try HLSMediaPlaylist.parse(Array(text.utf8)), m)
        // An empty live playlist is valid.
        XCTAssertEqual(try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n").segments.count, 0)
        XCTAssertNil(try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n").segment(at: r(0)))
    }

    func testExtremeValuesNeverTrap() throws {
        // The largest accepted durations with the finest fractions, dated at the end of year 9999.
        let big = "#EXTINF:999999999.999999999999999999,\nx.ts\n"
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1000000000\n#EXT-X-MEDIA-SEQUENCE:9223372036854775000\n"
            + "#EXT-X-SERVER-CONTROL:HOLD-BACK=999999999.999999999999999999\n#EXT-X-START:TIME-OFFSET=-999999999.999999999999999999\n"
            + "#EXT-X-PROGRAM-DATE-TIME:9999-12-31T23:59:59.999999999-23:59\n" + String(repeating: big, count: 200)
        let m = try media(text)
        XCTAssertEqual(m.segments.count, 200)
        XCTAssertEqual(m.nextSequence, 9223372036854775200)
        XCTAssertNotNil(m.segments.last?.startDate)
        XCTAssertEqual(m.segment(at: m.preferredStartOffset)?.sequence, m.segments.last?.sequence)
        XCTAssertNotNil(m.segment(containingDate: m.segments[100].startDate!))
        XCTAssertNil(m.segment(containingDate: .max))

        // Absurd sequence jumps between reloads.
        let a = try media("#EXTM3U\n#EXT-X-TARGETDURATION:1000000000\n#EXTINF:1,\na\n")
        let b = try media("#EXTM3U\n#EXT-X-TARGETDURATION:1000000000\n#EXT-X-MEDIA-SEQUENCE:9223372036854775806\n#EXTINF:1,\nb\n")
        let d = b.track(previous: a)
        XCTAssertEqual(d.expired, 0..<1)
        XCTAssertEqual(d.added, 9223372036854775806..<9223372036854775807)
        var t = HLSLiveTracker()
        for _ in 0..<5 { t.update(a); t.update(b) }
        _ = t.stableOffset(ofSequence: 9223372036854775806)
        XCTAssertTrue(t.timelineEstimated)
    }

    // MARK: Fuzz

    func testRandomMutationsNeverTrap() {
        // HLS_FUZZ_ITERATIONS / HLS_FUZZ_SEED widen the run locally; the default is fixed and quick.
        let env = ProcessInfo.processInfo.environment
        let iterations = env["HLS_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 2000
        var rng = SplitMix64(state: env["HLS_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x5EED_F00D)
        let seeds = [live1, live2, masterText, """
        #EXTM3U
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-BYTERANGE:1000@720
        #EXTINF:2.0,
        main.mp4
        #EXT-X-BYTERANGE:2000
        #EXTINF:2.0,
        main.mp4
        #EXT-X-START:TIME-OFFSET=-1.5
        #EXT-X-ENDLIST
        """]
        let interesting: [UInt8] = Array("0123456789:,@\"=#-.x\n\r ZT+".utf8) + [0x00, 0xFF, 0xC3, 0x80]
        let tags = ["#EXT-X-DISCONTINUITY", "#EXTINF:0.000000000000000001,", "#EXTINF:1000000000,", "#EXT-X-GAP",
                    "#EXT-X-BYTERANGE:9223372036854775807", "#EXT-X-BYTERANGE:1", "#EXT-X-PROGRAM-DATE-TIME:9999-12-31T23:59:59.999999999-23:59",
                    "#EXT-X-PROGRAM-DATE-TIME:0000-01-01T00:00:00+23:59", "#EXT-X-MEDIA-SEQUENCE:9223372036854775806",
                    "#EXT-X-DISCONTINUITY-SEQUENCE:9223372036854775807", "#EXT-X-STREAM-INF:BANDWIDTH=9223372036854775807",
                    "#EXT-X-START:TIME-OFFSET=-1000000000", "#EXT-X-SERVER-CONTROL:HOLD-BACK=1000000000", "#EXT-X-ENDLIST",
                    "#EXT-X-TARGETDURATION:1000000000", "seg.ts", "../../../x", "#EXT-X-MAP:URI=\"\"", "#EXTM3U"]
        var parsed = 0, failed = 0
        for i in 0..<iterations {
            let seed = seeds[i % seeds.count]
            var b = Array(seed.utf8)
            var lines = seed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let lineLevel = Int.random(in: 0..<3, using: &rng) == 0
            if lineLevel {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: lines.insert(tags.randomElement(using: &rng)!, at: Int.random(in: 1...lines.count, using: &rng))
                    case 1: if lines.count > 1 { lines.remove(at: Int.random(in: 1..<lines.count, using: &rng)) }
                    case 2: if lines.count > 1 { let k = Int.random(in: 1..<lines.count, using: &rng); lines.insert(lines[k], at: k) }
                    default:
                        if lines.count > 2 {
                            let a = Int.random(in: 1..<lines.count, using: &rng), c = Int.random(in: 1..<lines.count, using: &rng)
                            lines.swapAt(a, c)
                        }
                    }
                }
                b = Array(lines.joined(separator: "\n").utf8)
            } else {
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    guard !b.isEmpty else { break }
                    let k = Int.random(in: 0..<b.count, using: &rng)
                    switch Int.random(in: 0..<5, using: &rng) {
                    case 0: b[k] = interesting.randomElement(using: &rng)!
                    case 1: b[k] = UInt8.random(in: 0...255, using: &rng)
                    case 2: b.remove(at: k)
                    case 3: b.insert(interesting.randomElement(using: &rng)!, at: k)
                    default: b.removeSubrange(k..<min(b.count, k + Int.random(in: 1...20, using: &rng)))
                    }
                }
            }
            do {
                let p = try HLSPlaylist.parse(b, url: i % 2 == 0 ? liveURL : nil)
                parsed += 1
                exercise(p, &rng)
            } catch let e as HLSError {
                failed += 1
                _ = e.errorCode
                _ = e.description
            } catch {
                XCTFail("non-HLSError \(error)")
            }
        }
        XCTAssertEqual(parsed + failed, iterations)
        XCTAssertGreaterThan(parsed, 100, "the mutations should not all fail")
        XCTAssertGreaterThan(failed, 100, "the mutations should not all pass")
    }

    private func exercise<G: RandomNumberGenerator>(_ p: HLSPlaylist, _ rng: inout G) {
        switch p {
        case .master(let m):
            _ = HLSVariantChoice().select(m.variants)
            _ = HLSVariantChoice(maxBandwidth: Int64.random(in: .min ... .max, using: &rng),
                                 maxHeight: Int64.random(in: .min ... .max, using: &rng)).select(m.variants)
            _ = m.variants.map(\.codecList)
        case .media(let m):
            _ = m.duration
            _ = m.liveEdgeOffset
            _ = m.preferredStartOffset
            _ = m.reloadInterval(previousUnchanged: true)
            _ = m.segment(at: Rational(Int128(Int64.random(in: .min ... .max, using: &rng)), Int128(Int64.random(in: 1 ... .max, using: &rng))))
            _ = m.segment(at: Rational(Int128.max, 1))
            _ = m.segment(at: m.preferredStartOffset)
            _ = m.segment(containingDate: Int64.random(in: .min ... .max, using: &rng))
            if let d = m.segments.first?.startDate { XCTAssertNotNil(m.segment(containingDate: d) ?? m.segments.first) }
            _ = m.segment(sequence: Int64.random(in: .min ... .max, using: &rng))
            _ = m.hasExpired(.min)
            if let live = try? HLSMediaPlaylist.parse(live1, url: liveURL) {
                _ = m.track(previous: live)
                _ = live.track(previous: m)
                var t = HLSLiveTracker()
                t.update(live)
                t.update(m)
                t.update(live)
                _ = t.stableOffset(ofSequence: 104)
                _ = t.segment(atStableOffset: Rational(Int128.min + 1, 1))
                _ = t.reloadInterval
            }
            var t2 = HLSLiveTracker()
            t2.update(m)
            t2.update(m)
            XCTAssertEqual(t2.lastDelta?.unchanged, true)
        }
    }
}
