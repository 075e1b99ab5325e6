import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// An MPD read into the HLS item model (DASHManifest, DASHSegments, DASHListing, DASHSidx,
/// DASHTemplate, DASHValues): segment addressing, inheritance, BaseURL resolution, the listing
/// and the typed refusals. The MPDs follow what ffmpeg's dash muxer and Shaka Packager write
/// (test_dash.py plays the real ones).
final class DASHManifestTests: XCTestCase {
    private func mpd(_ body: String, root: String = "type=\"static\" mediaPresentationDuration=\"PT8S\"") -> String {
        "<?xml version=\"1.0\"?><MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" \(root)>\(body)</MPD>"
    }

    private func media(_ m: DASHManifest, set: Int = 0, rep: Int = 0) throws -> HLSMediaPlaylist {
        let r = try XCTUnwrap(m.representation(set: set, representation: rep))
        return try DASHSegments.playlist(r, manifest: m)
    }

    func testValues() {
        XCTAssertEqual(DASHValues.duration("PT8S"), Rational(8))
        XCTAssertEqual(DASHValues.duration("PT1M2.5S"), Rational(125, 2))
        XCTAssertEqual(DASHValues.duration("P0Y0M1DT1H0M0.001S"), Rational(90_000_001, 1000))
        XCTAssertNil(DASHValues.duration("P1Y"))
        XCTAssertNil(DASHValues.duration("-PT1S"))
        XCTAssertNil(DASHValues.duration("PT"))
        XCTAssertNil(DASHValues.duration("PT1H1H"))   // each unit once, in order
        XCTAssertNil(DASHValues.duration("PT1S1M"))
        XCTAssertNil(DASHValues.duration("P1S"))
        XCTAssertEqual(DASHValues.byteRange("828-65564"), HLSByteRange(length: 64737, offset: 828))
        XCTAssertNil(DASHValues.byteRange("10-9"))
        XCTAssertNil(DASHValues.byteRange("10-"))
        XCTAssertEqual(DASHValues.frameRate("30000/1001"), Rational(30000, 1001))
        XCTAssertNil(DASHValues.frameRate("25/0"))
    }

    func testTemplates() throws {
        let t = try DASHTemplate("chunk-$RepresentationID$-$Number%05d$-$Bandwidth$$$.m4s", what: "@media", line: 1)
        XCTAssertEqual(t.render(representationID: "v1", bandwidth: 300, number: 42), "chunk-v1-00042-300$.m4s")
        let time = try DASHTemplate("a_$Time$.m4s", what: "@media", line: 1)
        XCTAssertEqual(time.render(representationID: "a", bandwidth: 1, time: 96256), "a_96256.m4s")
        XCTAssertThrowsError(try DASHTemplate("$Foo$", what: "@media", line: 3)) {
            XCTAssertEqual(($0 as? DASHError)?.errorCode, .invalidData)
        }
        XCTAssertThrowsError(try DASHTemplate("$Number%5x$", what: "@media", line: 3))
        XCTAssertThrowsError(try DASHTemplate("$RepresentationID%02d$", what: "@media", line: 3))
        XCTAssertThrowsError(try DASHTemplate("$Number", what: "@media", line: 3))
        XCTAssertThrowsError(try DASHTemplate("$Number$$Time$", what: "@media", line: 3))
        XCTAssertThrowsError(try DASHTemplate("$SubNumber$", what: "@media", line: 3)) {
            XCTAssertEqual($0 as? DASHError, .unsupported("SegmentTemplate $SubNumber$"))
        }
    }

    func testTemplateWithTimelineAndRepeatToTheEnd() throws {
        // Audio as ffmpeg writes it, the last S repeating to the Period's end (r=-1).
        let m = try DASHManifest.parse(mpd("""
            <BaseURL>http://cdn/x/</BaseURL><Period><AdaptationSet contentType="audio">
            <SegmentTemplate timescale="48000" initialization="init-$RepresentationID$.m4s"
              media="chunk-$RepresentationID$-$Number%05d$.m4s" startNumber="1">
            <SegmentTimeline><S t="0" d="92160"/><S d="96256" r="-1"/></SegmentTimeline></SegmentTemplate>
            <Representation id="a" bandwidth="64000" codecs="mp4a.40.2"/></AdaptationSet></Period>
            """), url: "http://origin/v.mpd")
        let pl = try media(m)
        // 8 s = 384000 ticks: 92160, then 96256 x 3 reaches 380928, a fourth to 477184 covers the end.
        XCTAssertEqual(pl.segments.count, 5)
        XCTAssertEqual(pl.segments[0].uri, "http://cdn/x/chunk-a-00001.m4s")
        XCTAssertEqual(pl.segments[4].uri, "http://cdn/x/chunk-a-00005.m4s")
        XCTAssertEqual(pl.segments[0].map?.uri, "http://cdn/x/init-a.m4s")
        XCTAssertEqual(pl.segments[1].duration, Rational(96256, 48000))   // not decimal: kept exactly
        XCTAssertEqual(pl.segments[2].startOffset, Rational(92160 + 96256, 48000))
        XCTAssertEqual(pl.mediaSequence, 1)
        XCTAssertTrue(pl.endList)
        XCTAssertEqual(pl.playlistType, .vod)
    }

    func testTimeTemplateWithDurationAndPresentationTimeOffset() throws {
        let m = try DASHManifest.parse(mpd("""
            <Period><AdaptationSet contentType="video" width="160" height="120" frameRate="12800/512">
            <SegmentTemplate timescale="12800" initialization="v_init.mp4" media="v_$Time$.m4s" duration="25600"
              presentationTimeOffset="1000"/>
            <Representation id="0" bandwidth="310664" codecs="avc1.4d400b"/></AdaptationSet></Period>
            """, root: "type=\"static\" mediaPresentationDuration=\"PT5S\""), url: "http://h/d/m.mpd")
        let pl = try media(m)
        XCTAssertEqual(pl.segments.map(\.rawURI), ["http://h/d/v_1000.m4s", "http://h/d/v_26600.m4s", "http://h/d/v_52200.m4s"])
        XCTAssertEqual(pl.segments[2].duration, Rational(1, 1))     // the Period ends at 5 s
        XCTAssertEqual(pl.duration, Rational(5))
        let v = m.master.variants[0]
        XCTAssertEqual(v.resolution, HLSResolution(width: 160, height: 120))
        XCTAssertEqual(v.frameRate, Rational(25))
        XCTAssertEqual(v.codecs, "avc1.4d400b")
    }

    func testSegmentListWithRangesAndBaseURLAtEveryLevel() throws {
        // ffmpeg -single_file 1, with BaseURLs at MPD, Period, AdaptationSet and Representation.
        let m = try DASHManifest.parse(mpd("""
            <BaseURL>media/</BaseURL><Period><BaseURL>p/</BaseURL><AdaptationSet contentType="video">
            <BaseURL>../a/</BaseURL>
            <Representation id="0" bandwidth="1" width="160" height="120"><BaseURL>v.mp4</BaseURL>
            <SegmentList timescale="1000000" duration="2000000"><Initialization range="0-827"/>
            <SegmentURL mediaRange="828-65564"/><SegmentURL mediaRange="65565-141405"/>
            <SegmentURL media="other.mp4"/></SegmentList>
            </Representation></AdaptationSet></Period>
            """, root: "type=\"static\" mediaPresentationDuration=\"PT5S\""), url: "http://h/dir/x.mpd?tok=1")
        let pl = try media(m)
        XCTAssertEqual(pl.segments.count, 3)
        XCTAssertEqual(pl.segments[0].uri, "http://h/dir/media/a/v.mp4")
        XCTAssertEqual(pl.segments[0].byteRange, HLSByteRange(length: 64737, offset: 828))
        XCTAssertEqual(pl.segments[0].map, HLSMap(uri: "http://h/dir/media/a/v.mp4", rawURI: "http://h/dir/media/a/v.mp4",
                                                  byteRange: HLSByteRange(length: 828, offset: 0)))
        XCTAssertEqual(pl.segments[2].uri, "http://h/dir/media/a/other.mp4")
        XCTAssertNil(pl.segments[2].byteRange)
        XCTAssertEqual(pl.segments[2].duration, Rational(1))   // the last one ends with the Period
    }

    func testInheritanceFromPeriodAndAdaptationSet() throws {
        let m = try DASHManifest.parse(mpd("""
            <Period><SegmentTemplate timescale="1000" startNumber="7" media="p_$Number$.m4s" duration="2000"/>
            <AdaptationSet mimeType="video/mp4"><SegmentTemplate media="$RepresentationID$_$Number$.m4s"/>
            <Representation id="hi" bandwidth="2000"><SegmentTemplate initialization="$RepresentationID$_i.mp4"/></Representation>
            <Representation id="lo" bandwidth="1000" height="72" width="96"/></AdaptationSet></Period>
            """, root: "type=\"static\" mediaPresentationDuration=\"PT4S\""), url: "http://h/m.mpd")
        let hi = try media(m, rep: 0), lo = try media(m, rep: 1)
        XCTAssertEqual(hi.segments.map(\.uri), ["http://h/hi_7.m4s", "http://h/hi_8.m4s"])
        XCTAssertEqual(hi.segments[0].map?.uri, "http://h/hi_i.mp4")
        XCTAssertEqual(lo.segments.map(\.uri), ["http://h/lo_7.m4s", "http://h/lo_8.m4s"])
        XCTAssertNil(lo.segments[0].map)
        XCTAssertEqual(hi.mediaSequence, 7)
        // Variants in document order, chosen like HLS variants.
        let master = m.master
        XCTAssertEqual(master.variants.map(\.bandwidth), [2000, 1000])
        XCTAssertEqual(master.variants[1].uri, "http://h/m.mpd#fpx-dash=0.1")
        XCTAssertEqual(HLSVariantChoice(maxBandwidth: 1500).select(master.variants), 1)
        XCTAssertEqual(HLSVariantChoice().select(master.variants), 0)
        let k = try XCTUnwrap(DASHManifest.splitKey(master.variants[1].uri))
        XCTAssertEqual(k.mpd, "http://h/m.mpd")
        XCTAssertEqual(m.representation(set: k.set, representation: k.representation)?.id, "lo")
        XCTAssertNil(DASHManifest.splitKey("http://h/m.mpd#fpx-dash=x.1"))
        XCTAssertNil(DASHManifest.splitKey("http://h/m.mpd"))
    }

    func testAudioSetsAreRenditions() throws {
        let m = try DASHManifest.parse(mpd("""
            <Period><AdaptationSet contentType="video"><SegmentTemplate media="v$Number$" duration="2"/>
            <Representation id="v" bandwidth="9" codecs="avc1"/></AdaptationSet>
            <AdaptationSet contentType="text"><Representation id="t" bandwidth="1"/></AdaptationSet>
            <AdaptationSet lang="en" mimeType="audio/mp4"><Label>English</Label><SegmentTemplate media="a$Number$" duration="2"/>
            <Representation id="a1" bandwidth="64000"/><Representation id="a2" bandwidth="128000"/></AdaptationSet>
            <AdaptationSet lang="fr" contentType="audio"><EssentialProperty schemeIdUri="urn:x"/>
            <Representation id="a3" bandwidth="1"/></AdaptationSet>
            <AdaptationSet lang="de"><SegmentTemplate media="d$Number$" duration="2"/>
            <Representation id="a4" bandwidth="1" codecs="mp4a.40.2"/></AdaptationSet></Period>
            """), url: "http://h/m.mpd")
        XCTAssertEqual(m.adaptationSets.map(\.index), [0, 2, 4])   // text and the EssentialProperty set left out
        let master = m.master
        XCTAssertEqual(master.variants.count, 1)
        XCTAssertEqual(master.variants[0].audioGroup, "audio")
        XCTAssertEqual(master.renditions.map(\.name), ["English", "de"])
        XCTAssertEqual(master.renditions[0].uri, "http://h/m.mpd#fpx-dash=2.1")   // the highest bandwidth
        XCTAssertEqual(try HLSRenditions.select(master.renditions, variant: master.variants[0], choice: .init()),
                       .rendition(0))
    }

    func testPeriodsAreDiscontinuityDomainsOnOneTimescale() throws {
        let m = try DASHManifest.parse(mpd("""
            <Period id="a" duration="PT4S"><BaseURL>a/</BaseURL><AdaptationSet contentType="video">
            <SegmentTemplate timescale="12800" media="v$Number$.m4s" initialization="i.mp4"><SegmentTimeline>
            <S t="0" d="25600" r="1"/></SegmentTimeline></SegmentTemplate>
            <Representation id="0" bandwidth="9" width="160" height="120"/></AdaptationSet></Period>
            <Period id="b"><BaseURL>b/</BaseURL><AdaptationSet contentType="video">
            <SegmentList timescale="1000" duration="3000"><Initialization sourceURL="i.mp4"/>
            <SegmentURL media="s1.m4s"/><SegmentURL media="s2.m4s"/></SegmentList>
            <Representation id="x" bandwidth="9"/></AdaptationSet></Period>
            """, root: "type=\"static\" mediaPresentationDuration=\"PT9S\""), url: "http://h/m.mpd")
        XCTAssertEqual(m.periods.map(\.start), [Rational(0), Rational(4)])
        XCTAssertEqual(m.periods.map(\.duration), [Rational(4), Rational(5)])
        let parts = try XCTUnwrap(try m.representationInEveryPeriod(set: 0, representation: 0))
        XCTAssertEqual(parts.map(\.id), ["0", "x"])
        let pl = try DASHSegments.playlist(parts, url: m.url, indexes: [nil, nil])
        XCTAssertEqual(pl.segments.map(\.uri), ["http://h/a/v1.m4s", "http://h/a/v2.m4s", "http://h/b/s1.m4s", "http://h/b/s2.m4s"])
        XCTAssertEqual(pl.segments.map(\.discontinuitySequence), [0, 0, 1, 1])
        XCTAssertEqual(pl.segments.map(\.discontinuity), [false, false, true, false])
        XCTAssertEqual(pl.segments.map(\.map?.uri), ["http://h/a/i.mp4", "http://h/a/i.mp4", "http://h/b/i.mp4", "http://h/b/i.mp4"])
        // 12800 and 1000: one timescale, 64000; the last segment ends with its Period (9 s).
        XCTAssertEqual(pl.segments.map(\.duration), [Rational(2), Rational(2), Rational(3), Rational(2)])
        XCTAssertEqual(pl.segments[2].startOffset, Rational(4))
        XCTAssertEqual(pl.duration, Rational(9))
    }

    func testADynamicMPDIsALivePlaylistDatedByItsClock() throws {
        // As ffmpeg's dash muxer writes it live: the window moved on to number 6, t = 5 s.
        let m = try DASHManifest.parse(mpd("""
            <Period id="0" start="PT0.0S"><AdaptationSet contentType="video">
            <Representation id="0" bandwidth="1"><SegmentTemplate timescale="12800" initialization="i.m4s"
              media="c-$Number%05d$.m4s" startNumber="6" presentationTimeOffset="0">
            <SegmentTimeline><S t="64000" d="12800" r="5" /></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period>
            """, root: "type=\"dynamic\" availabilityStartTime=\"2026-12-02T18:12:22.713Z\" "
                 + "suggestedPresentationDelay=\"PT1S\" minimumUpdatePeriod=\"PT1S\""), url: "http://h/live.mpd")
        let ast = try XCTUnwrap(HLSDate.unixMillisecondsExact("2026-12-02T18:12:22.713Z"))
        XCTAssertEqual(m.live?.availabilityStartMS, ast)
        let parts = try XCTUnwrap(try m.representationInEveryPeriod(set: 0, representation: 0))
        let pl = try DASHSegments.playlist(parts, url: m.url, indexes: [nil], live: m.live)
        XCTAssertTrue(pl.isLive)
        XCTAssertEqual(pl.mediaSequence, 6)
        XCTAssertEqual(pl.holdBack, Rational(1))
        XCTAssertEqual(pl.segments.map(\.uri).first, "http://h/c-00006.m4s")
        // Segment t = 64000 / 12800 = 5 s after availabilityStartTime, the next ones by duration.
        XCTAssertEqual(pl.segments[0].startDateExact, ast + Rational(5000))
        XCTAssertEqual(pl.segments[3].startDateExact, ast + Rational(8000))
        XCTAssertTrue(pl.segments.allDated)
    }

    func testLiveTimingIsReadFromTheMPD() throws {
        let m = try DASHManifest.parse(mpd("""
            <UTCTiming schemeIdUri="urn:example:unknown" value="x"/>
            <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="/time http://other/time"/>
            <UTCTiming schemeIdUri="urn:mpeg:dash:utc:direct:2014" value="2026-12-02T18:00:01.5Z"/>
            <Period start="PT0S"><AdaptationSet contentType="video"><Representation id="0" bandwidth="1">
            <SegmentTemplate timescale="10" media="$Number$.m4s" duration="20"/></Representation></AdaptationSet></Period>
            """, root: "type=\"dynamic\" availabilityStartTime=\"2026-12-02T18:00:00Z\" publishTime=\"2026-12-02T18:00:03Z\" "
                 + "timeShiftBufferDepth=\"PT6S\" minimumUpdatePeriod=\"PT0.5S\" suggestedPresentationDelay=\"PT3S\""))
        let live = try XCTUnwrap(m.live)
        XCTAssertEqual(live.timeShiftBufferDepth, Rational(6))
        XCTAssertEqual(live.minimumUpdatePeriod, Rational(1, 2))
        XCTAssertEqual(live.suggestedPresentationDelay, Rational(3))
        XCTAssertEqual(live.publishMS, live.availabilityStartMS + Rational(3000))
        XCTAssertEqual(live.utcTiming.map(\.scheme), [nil, .httpXSDate, .direct])
        XCTAssertEqual(live.utcTiming[1].value, "/time http://other/time")
        XCTAssertEqual(live.utcTiming[2].directMS, live.availabilityStartMS + Rational(1500))
    }

    /// The window by the clock: available once a segment's end is on the clock, gone once
    /// that end is more than the depth behind.
    func testWindowFromTheClockAndTheDepth() {
        let e = DASHLive.elapsed(nowMS: Rational(10_500), availabilityStartMS: Rational(1_000), periodStart: Rational(2))
        XCTAssertEqual(e, Rational(15, 2))
        XCTAssertTrue(DASHLive.inWindow(end: Rational(15, 2), elapsed: e, depth: nil))
        XCTAssertFalse(DASHLive.inWindow(end: Rational(8), elapsed: e, depth: nil))
        XCTAssertTrue(DASHLive.inWindow(end: Rational(2), elapsed: e, depth: Rational(6)))
        XCTAssertFalse(DASHLive.inWindow(end: Rational(3, 2), elapsed: e, depth: Rational(6)))
        XCTAssertTrue(DASHLive.inWindow(end: Rational(0), elapsed: e, depth: nil))
        // 2 s segments at 7.5 s: 0..2, 2..4, 4..6 are out (6 <= 7.5); depth 3 s keeps ends > 4.5.
        XCTAssertEqual(DASHLive.numberRange(elapsed: e, duration: Rational(2), periodDuration: nil, depth: nil, max: 100), 0..<3)
        XCTAssertEqual(DASHLive.numberRange(elapsed: e, duration: Rational(2), periodDuration: nil, depth: Rational(3), max: 100),
                       2..<3)
        XCTAssertEqual(DASHLive.numberRange(elapsed: Rational(8), duration: Rational(2), periodDuration: nil, depth: Rational(4),
                                            max: 100), 2..<4)
        // The Period's end caps it; the count cap keeps the newest; before the start, nothing.
        XCTAssertEqual(DASHLive.numberRange(elapsed: Rational(100), duration: Rational(2), periodDuration: Rational(5),
                                            depth: nil, max: 100), 0..<3)
        XCTAssertEqual(DASHLive.numberRange(elapsed: Rational(100), duration: Rational(2), periodDuration: nil, depth: nil, max: 4),
                       46..<50)
        XCTAssertEqual(DASHLive.numberRange(elapsed: Rational(-5), duration: Rational(2), periodDuration: nil, depth: Rational(1),
                                            max: 4), 0..<0)
        XCTAssertEqual(DASHLive.numberRange(elapsed: Rational(1_000_000_000), duration: Rational(1, 1000), periodDuration: nil,
                                            depth: nil, max: 3), 999_999_999_997..<1_000_000_000_000)
    }

    func testNumberBasedLiveListsTheSegmentsTheClockMakesAvailable() throws {
        let m = try DASHManifest.parse(mpd("""
            <Period start="PT1S"><AdaptationSet contentType="video"><Representation id="v" bandwidth="1">
            <SegmentTemplate timescale="1000" media="s-$Number$.m4s" initialization="i.mp4" duration="2000"
              startNumber="5" presentationTimeOffset="300"/></Representation><Representation id="w" bandwidth="2">
            <SegmentTemplate timescale="1000" media="t-$Time$.m4s" initialization="i.mp4" duration="2000"
              startNumber="5" presentationTimeOffset="300"/></Representation></AdaptationSet></Period>
            """, root: "type=\"dynamic\" availabilityStartTime=\"2026-12-02T18:00:00Z\" timeShiftBufferDepth=\"PT5S\" "
                 + "minimumUpdatePeriod=\"PT0.5S\""), url: "http://h/l.mpd")
        let live = try XCTUnwrap(m.live)
        let parts = try XCTUnwrap(try m.representationInEveryPeriod(set: 0, representation: 0))
        // 20.5 s after availabilityStartTime: 19.5 s into the Period; ends 2..18 available,
        // the depth keeps ends above 14.5: segments 7 and 8 (numbers 12, 13).
        let now = live.availabilityStartMS + Rational(20_500)
        let pl = try DASHSegments.playlist(parts, url: m.url, indexes: [nil], live: live, nowMS: now)
        XCTAssertTrue(pl.isLive)
        XCTAssertEqual(pl.mediaSequence, 12)
        XCTAssertEqual(pl.segments.map(\.uri), ["http://h/s-12.m4s", "http://h/s-13.m4s"])
        // $Time$: presentationTimeOffset + k x @duration.
        let byTime = try XCTUnwrap(try m.representationInEveryPeriod(set: 0, representation: 1))
        XCTAssertEqual(try DASHSegments.playlist(byTime, url: m.url, indexes: [nil], live: live, nowMS: now).segments.map(\.uri),
                       ["http://h/t-14300.m4s", "http://h/t-16300.m4s"])
        XCTAssertEqual(pl.duration, Rational(4))
        XCTAssertEqual(pl.segments[0].startDateExact, live.availabilityStartMS + Rational(15_000))
        // minimumUpdatePeriod (0.5 s) is shorter than the target duration (2 s): it sets the reloads.
        XCTAssertEqual(pl.reloadInterval(previousUnchanged: false), Rational(1, 2))
        // ffmpeg's number-based MPDs say PT500S: the window moves with the clock, reloads
        // stay every target duration.
        var slow = live
        slow.minimumUpdatePeriod = Rational(500)
        XCTAssertEqual(try DASHSegments.playlist(parts, url: m.url, indexes: [nil], live: slow, nowMS: now)
                        .reloadInterval(previousUnchanged: false), Rational(2))
        // Before the first segment ends, nothing is available: typed.
        XCTAssertThrowsError(try DASHSegments.playlist(parts, url: m.url, indexes: [nil], live: live,
                                                       nowMS: live.availabilityStartMS + Rational(2_999))) { e in
            XCTAssertEqual(e as? DASHError, .malformed(element: "MPD", line: 0, reason: "no segment is available by the MPD's clock"))
        }
    }

    func testATimelineWindowFollowsTheDepthNotTheList() throws {
        // The MPD lists 6 s (numbers 6..11, t = 5..11 s); the depth is 3 s.
        let m = try DASHManifest.parse(mpd("""
            <Period id="0" start="PT0.0S"><AdaptationSet contentType="video">
            <Representation id="0" bandwidth="1"><SegmentTemplate timescale="12800" initialization="i.m4s"
              media="c-$Number$.m4s" startNumber="6"><SegmentTimeline><S t="64000" d="12800" r="5" /></SegmentTimeline>
            </SegmentTemplate></Representation></AdaptationSet></Period>
            """, root: "type=\"dynamic\" availabilityStartTime=\"2026-12-02T18:12:22.713Z\" timeShiftBufferDepth=\"PT3S\""),
            url: "http://h/live.mpd")
        let live = try XCTUnwrap(m.live)
        let parts = try XCTUnwrap(try m.representationInEveryPeriod(set: 0, representation: 0))
        // At 10.5 s: ends 6..10 are available (11 is not yet), ends above 7.5: 8, 9, 10.
        let pl = try DASHSegments.playlist(parts, url: m.url, indexes: [nil], live: live,
                                           nowMS: live.availabilityStartMS + Rational(10_500))
        XCTAssertEqual(pl.mediaSequence, 8)
        XCTAssertEqual(pl.segments.map(\.uri), ["http://h/c-8.m4s", "http://h/c-9.m4s", "http://h/c-10.m4s"])
        XCTAssertEqual(pl.segments[0].startDateExact, live.availabilityStartMS + Rational(7_000))
        // No depth: every available one.
        var deep = live
        deep.timeShiftBufferDepth = nil
        XCTAssertEqual(try DASHSegments.playlist(parts, url: m.url, indexes: [nil], live: deep,
                                                 nowMS: live.availabilityStartMS + Rational(10_500)).segments.count, 5)
    }

    func testSidx() throws {
        // A version 0 sidx of two references, after a 16-byte styp, read from byte 900.
        var box: [UInt8] = [0, 0, 0, 16] + Array("styp".utf8) + [UInt8](repeating: 0, count: 8)
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        // (appended piece by piece: Swift 6.0.3 cannot type-check the sum as one expression)
        var body: [UInt8] = [0, 0, 0, 0]
        for v: UInt32 in [1, 12800, 0, 10] { body += u32(v) }
        body += [0, 0, 0, 2]
        for v: UInt32 in [1000, 25600, 0x9000_0000, 2000, 25600, 0] { body += u32(v) }
        box += u32(UInt32(8 + body.count)) + Array("sidx".utf8) + body
        let x = try box.withUnsafeBufferPointer { try DASHSidx.parse($0, offset: 900, maxReferences: 10) }
        XCTAssertEqual(x.timescale, 12800)
        // The first byte after the sidx box is 900 + 16 + 56 = 972; first_offset 10.
        XCTAssertEqual(x.references.map(\.range), [HLSByteRange(length: 1000, offset: 982), HLSByteRange(length: 2000, offset: 1982)])
        var hier = box
        hier[16 + 8 + 24] |= 0x80   // the first reference points at another sidx
        XCTAssertThrowsError(try hier.withUnsafeBufferPointer { try DASHSidx.parse($0, offset: 0, maxReferences: 10) }) {
            XCTAssertEqual(($0 as? DASHError)?.errorCode, .unsupported)
        }
        XCTAssertThrowsError(try box.withUnsafeBufferPointer { try DASHSidx.parse($0, offset: 0, maxReferences: 1) }) {
            XCTAssertEqual(($0 as? DASHError)?.errorCode, .tooLarge)
        }
        for n in 0..<box.count {
            let cut = Array(box[0..<n])
            XCTAssertThrowsError(try cut.withUnsafeBufferPointer { try DASHSidx.parse($0, offset: 0, maxReferences: 10) })
        }
    }

    /// Parses the MPD and builds every representation's segments over every Period (but
    /// SegmentBase's, which need its sidx).
    private static func readAll(_ doc: String) throws {
        let m = try DASHManifest.parse(doc, url: "http://h/m.mpd")
        for a in m.adaptationSets {
            for r in a.representations {
                guard let parts = try m.representationInEveryPeriod(set: a.index, representation: r.index) else {
                    return XCTFail("no representation \(a.index).\(r.index)")
                }
                if try parts.allSatisfy({ try DASHSegments.indexRange($0) == nil }) {
                    _ = try DASHSegments.playlist(parts, url: m.url, indexes: parts.map { _ in nil }, live: m.live)
                }
            }
        }
    }

    private func assertRefused(_ doc: String, _ want: DASHError, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Self.readAll(doc), file: file, line: line) { e in
            XCTAssertEqual(e as? DASHError, want, file: file, line: line)
        }
    }

    func testRefusalsAreTypedAndNamed() {
        let set = "<AdaptationSet contentType=\"video\"><SegmentTemplate media=\"$Number$\" duration=\"1\"/>"
        assertRefused(mpd("<Period>\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>",
                          root: "type=\"dynamic\""),
                      .malformed(element: "MPD", line: 1, reason: "a dynamic MPD without @availabilityStartTime"))
        assertRefused(mpd("<Period>\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>",
                          root: "type=\"dynamic\" availabilityStartTime=\"2026-12-02T00:00:00Z\""),
                      .unsupported("a number-based live SegmentTemplate without the MPD's clock"))
        let live = "type=\"dynamic\" availabilityStartTime=\"2026-12-02T00:00:00Z\" "
        let one = "<Period>\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>"
        assertRefused(mpd(one, root: live + "timeShiftBufferDepth=\"1 minute\""),
                      .malformed(element: "MPD", line: 1, reason: "@timeShiftBufferDepth is not an xs:duration"))
        assertRefused(mpd(one, root: live + "minimumUpdatePeriod=\"-PT2S\""),
                      .malformed(element: "MPD", line: 1, reason: "@minimumUpdatePeriod is not an xs:duration"))
        assertRefused(mpd(one, root: live + "publishTime=\"yesterday\""),
                      .malformed(element: "MPD", line: 1, reason: "@publishTime is not an xs:dateTime"))
        assertRefused(mpd("<UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:direct:2014\" value=\"2026-12-02T00:00:00\"/>" + one,
                          root: live), .malformed(element: "UTCTiming", line: 1, reason: "@value is not an xs:dateTime"))
        assertRefused(mpd("<UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:http-xsdate:2014\"/>" + one, root: live),
                      .malformed(element: "UTCTiming", line: 1, reason: "no @value"))
        assertRefused(mpd("<UTCTiming value=\"http://h/t\"/>" + one, root: live),
                      .malformed(element: "UTCTiming", line: 1, reason: "no @schemeIdUri"))
        assertRefused(mpd("<Period duration=\"PT4S\">\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>"
                          + "<Period>\(set)<Representation id=\"0\" bandwidth=\"1\"/><Representation id=\"1\" bandwidth=\"1\"/>"
                          + "</AdaptationSet></Period>"),
                      .unsupported("Periods whose audio and video adaptation sets or representations differ"))
        assertRefused(mpd("<Period duration=\"PT2S\">\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>"
                          + "<Period start=\"PT0S\">\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>"),
                      .malformed(element: "Period", line: 1, reason: "@start is not after the previous Period's"))
        assertRefused(mpd("<Period>\(set)<ContentProtection schemeIdUri=\"urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED\"/>"
                          + "<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>"),
                      .encryption("ContentProtection Widevine (urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED)"))
        assertRefused(mpd("<Period>\(set)<Representation id=\"0\" bandwidth=\"1\"><ContentProtection schemeIdUri=\"urn:x:drm\"/>"
                          + "</Representation></AdaptationSet></Period>"), .encryption("ContentProtection (urn:x:drm)"))
        assertRefused(mpd("<Period>\(set)<Representation id=\"0\" bandwidth=\"1\" dependencyId=\"1\"/></AdaptationSet></Period>"),
                      .unsupported("Representation@dependencyId (dependent representations)"))
        assertRefused(mpd("<Period><AdaptationSet contentType=\"video\"><SegmentBase/><Representation id=\"0\" bandwidth=\"1\"/>"
                          + "</AdaptationSet></Period>"), .unsupported("SegmentBase without @indexRange (a self-indexed file)"))
        assertRefused(mpd("<Period><AdaptationSet contentType=\"video\"><SegmentTemplate media=\"$Number$\"><SegmentTimeline>"
                          + "<S t=\"0\" d=\"5\"/><S t=\"6\" d=\"5\"/></SegmentTimeline></SegmentTemplate>"
                          + "<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>"),
                      .unsupported("a SegmentTimeline with a gap or an overlap (S@t)"))
        assertRefused(mpd("<Period><AdaptationSet contentType=\"video\"><SegmentTemplate media=\"$Number$\"><SegmentTimeline>"
                          + "<S t=\"0\" d=\"5\" r=\"-1\"/></SegmentTimeline></SegmentTemplate>"
                          + "<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>", root: "type=\"static\""),
                      .unsupported("SegmentTimeline S@r=-1 with no later S@t and no Period duration"))
        assertRefused(mpd("<Period>\(set)<Representation id=\"0\" bandwidth=\"1\"/></AdaptationSet></Period>",
                          root: "type=\"static\" mediaPresentationDuration=\"PT100000000S\""),
                      .tooLarge("more than 1000000 segments"))
        assertRefused(mpd("<Period>\(set)<Representation bandwidth=\"1\"/></AdaptationSet></Period>"),
                      .malformed(element: "Representation", line: 1, reason: "no @id"))
        assertRefused(mpd("<Period><AdaptationSet contentType=\"video\"><Representation id=\"0\" bandwidth=\"1\"/>"
                          + "</AdaptationSet></Period>", root: "type=\"static\""),
                      .malformed(element: "Representation", line: 1, reason: "no segment information and no Period duration"))
        assertRefused(mpd("<Period><AdaptationSet contentType=\"text\"><Representation id=\"0\" bandwidth=\"1\"/>"
                          + "</AdaptationSet></Period>"),
                      .malformed(element: "Period", line: 1, reason: "no audio or video Representation"))
        assertRefused("<?xml version=\"1.0\"?><html/>", .notAManifest)
    }

    /// Random byte edits of MPDs as ffmpeg and Shaka write them: every result parses and maps
    /// to segments, or is a DASHError; never a trap, never another error.
    func testRandomMutationsNeverTrap() {
        var rng = SplitMix64(state: 0xDA5E_F00D)
        let seeds = [mpd("""
            <Period id="0" start="PT0.0S"><AdaptationSet id="0" contentType="video" frameRate="25/1">
            <Representation id="0" mimeType="video/mp4" codecs="avc1.4d400b" bandwidth="283089" width="160" height="120">
            <SegmentTemplate timescale="12800" initialization="init-stream$RepresentationID$.m4s"
              media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
            <SegmentTimeline><S t="0" d="25600" r="3" /></SegmentTimeline></SegmentTemplate></Representation>
            </AdaptationSet><AdaptationSet id="1" contentType="audio" lang="und">
            <Representation id="2" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="64306">
            <SegmentTemplate timescale="48000" initialization="init-$RepresentationID$.m4s" media="c-$Time$.m4s">
            <SegmentTimeline><S t="0" d="92160" /><S d="96256" r="-1" /></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period>
            """), mpd("""
            <Period id="0"><AdaptationSet id="0" contentType="video"><Representation id="0" bandwidth="1">
            <BaseURL>v-stream0.mp4</BaseURL><SegmentList timescale="1000000" duration="2000000" startNumber="1">
            <Initialization range="0-827" /><SegmentURL mediaRange="828-65564" indexRange="828-879" />
            <SegmentURL media="x.mp4" /></SegmentList></Representation></AdaptationSet></Period>
            """)]
        let interesting: [UInt8] = Array("0123456789<>/=\"'&;$%-!?[]#x ".utf8) + [0x00, 0xFF, 0xC3, 0x80]
        for i in 0..<1500 {
            var b = Array(seeds[i % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let at = Int.random(in: 0..<b.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: b[at] = interesting.randomElement(using: &rng)!
                case 1: b.remove(at: at)
                default: b.insert(contentsOf: b[at..<min(b.count, at + Int.random(in: 1...40, using: &rng))], at: at)
                }
                if b.isEmpty { b = [0x3C] }
            }
            do {
                let text = String(decoding: b, as: UTF8.self)
                if b.allSatisfy({ $0 < 0x80 }) { try Self.readAll(text) } else {
                    _ = try b.withUnsafeBufferPointer { try DASHManifest.parse($0, url: "http://h/m.mpd") }
                }
            } catch is DASHError {
            } catch {
                XCTFail("mutation \(i): \(error) is not a DASHError")
            }
        }
    }
}
