#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// One playlist's feed of an HLS (live, EVENT, VOD) or DASH item, over the project's own
/// playlist handling: the variant's, or a separate audio rendition's. It is no engine: the
/// item's engine, `HLSItemEngine`, plays one feed or two and reaches them through
/// `HLSItemFeed`.
///
/// libavformat's hls demuxer marks live playlists unseekable and never exposes
/// PROGRAM-DATE-TIME, so the feed fetches and parses playlists itself
/// (`HLSPlaylist`, RFC 8216), reloads live ones on the shared executor, tracks
/// segments by media sequence number, and demuxes each segment with an
/// `FFmpegEngine`, which resolves landings inside it exactly as for files.
///
/// The feed is split along its locks: `HLSFetch` (stateless fetching),
/// `HLSPlaylistFeed` (the window and the reloads, its lock `HLSPlaylistFeed.m`),
/// `HLSSegmentCache` (the segment engines, engine lock plus leaf lock `em`; Sync.swift),
/// and this façade (anchors, landings, steps, reads: the player's engine lock).
///
/// Timelines: the item timeline starts at the oldest segment seen at open;
/// segments follow by EXTINF. The feed's ticks (`timeline`) are that item
/// time in the segments' time base. Inside one discontinuity domain, ticks map
/// to the segments' pts by one anchor (the domain's first listed segment that is
/// no hole: `HLSPlacement`), so frames keep their exact pts spacing; a segment past a 33-bit
/// timestamp wrap inside the domain is moved by whole wrap periods first
/// (`HLSPlacement.wrapCount`), and what the host sees of it is unwrapped (`unwrap`).
// @unchecked Sendable: the feed and the cache guard their own state; the façade's demux
// state is used under the player's engine lock only (see the field comments).
final class HLSFeed: HLSItemFeed, @unchecked Sendable {
    /// One segment of the window, read from the playlist's compact list when asked.
    struct Segment {
        let list: HLSSegmentList
        let index: Int
        /// Item-timeline start of the playlist's first segment.
        let base: Rational
        var sequence: Int64 { list.sequence(at: index) }
        var duration: Rational { list.duration(at: index) }
        var uri: String { list.uri(at: index) }
        var byteRange: HLSByteRange? { list.byteRange(at: index) }
        /// EXT-X-MAP: the init section (fMP4) demuxed in front of the segment.
        var map: HLSMap? { list.map(at: index) }
        var startDateMS: Int64? { list.startDate(at: index) }
        var discontinuity: Bool { list.discontinuity(at: index) }
        /// EXT-X-GAP: never fetched.
        var gap: Bool { list.gap(at: index) }
        /// EXT-X-KEY METHOD=AES-128 in effect, nil when clear.
        var key: HLSKey? { list.key(at: index) }
        var discontinuitySequence: Int64 { list.discontinuitySequence(at: index) }
        /// Start on the item timeline, seconds.
        var itemStart: Rational { base + list.startOffset(at: index) }
        var itemEnd: Rational { itemStart + duration }
    }

    /// The tracker's window: the current playlist's segments with item-timeline starts. It
    /// shares the playlist's storage (no copy per segment: issue 18.4).
    struct Window: RandomAccessCollection {
        var list = HLSSegmentList()
        var base = Rational(0)
        var startIndex: Int { 0 }
        var endIndex: Int { list.count }
        subscript(i: Int) -> Segment { Segment(list: list, index: i, base: base) }
        func index(ofSequence s: Int64) -> Int? {
            guard let k = Int(exactly: Int128(s) - Int128(list.mediaSequence)), k >= 0, k < list.count else { return nil }
            return k
        }
        /// The last segment starting at or before item time `t`.
        func lastIndex(startingAtOrBefore t: Rational) -> Int? { list.lastIndex(startingAtOrBefore: t - base) }
        /// As `SegmentLanding` sees them (item ticks), made when read.
        func spans(ticksPerSecond: Rational) -> Spans { Spans(window: self, ticksPerSecond: ticksPerSecond) }
    }

    struct Spans: RandomAccessCollection {
        let window: Window
        let ticksPerSecond: Rational
        var startIndex: Int { 0 }
        var endIndex: Int { window.count }
        subscript(i: Int) -> SegmentSpan {
            let s = window[i]
            return SegmentSpan(sequence: s.sequence, domain: s.discontinuitySequence, start: s.itemStart * ticksPerSecond)
        }
    }

    /// A discontinuity domain's placement (HLSPlacement: a fixed rule, never history).
    typealias Anchor = HLSPlacement.Anchor

    static func looksLikePlaylist(_ url: String) -> Bool {
        var path = Substring(url)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        let p = path.lowercased()
        return p.hasSuffix(".m3u8") || p.hasSuffix(".m3u") || p.hasSuffix(".mpd")
    }

    private let policy: IOPolicy
    let timeline: Timeline
    let referenceStream: Int32
    let hasVideo: Bool
    /// At-or-after landings: each segment's Lander lands them, and `resolve` crosses to the
    /// next readable segment when the target is past a segment's last frame.
    var landsAtOrAfter: Bool { true }
    private let ticksPerSecond: Rational

    /// The playlist window and its live reloads (its own lock, `HLSPlaylistFeed.m`).
    private let feed: HLSPlaylistFeed
    /// The segment engines (engine lock; `em` for `interrupt`).
    private let cache: HLSSegmentCache
    /// The last segment whose download for the last frame was tried (engine lock): it is not
    /// fetched again just for the range. Every seek reads the seekable range first, so a
    /// retry there made every later seek, wherever it landed, wait out the I/O timeout
    /// behind a stalled last segment (issue 18.5). Once a seek or a read brings the segment
    /// in, the last frame is learned from it without I/O.
    private var lastFrameTried: Int64?

    /// The stream facts of the item, from the first segment opened. Segment
    /// engines come and go; these stay, so `itemInfo`/`streamInfo` never
    /// touch the segment engines and their pointers outlive any eviction.
    private let facts: ItemFacts

    // Demux state: used under the player's engine lock only.
    private var anchors: [Int64: Anchor] = [:]
    /// Each segment's 33-bit wrap count on its domain (HLSPlacement.wrapCount), by media
    /// sequence number; kept while the window lists the segment.
    private var wrapCounts: [Int64: Int64] = [:]
    /// The 33-bit wrap period in the reference stream's time base; nil when it is no whole
    /// number of ticks (then segments are never unwrapped). Set in init.
    private var wrapPeriod: Int64?
    /// Segments known to be holes (seek.h, "Gaps"), by media sequence number.
    private var holes: [Int64: HoleReason] = [:]
    private var currentSequence: Int64?
    /// A landing whose reads start in a segment before its own (an open GOP's or a segment
    /// cut mid-GOP's pre-roll, `SegmentLanding.preRollStart`): its segment and frame (segment
    /// pts). Reading into the segments up to it stamps their packets against the landing. Engine lock.
    private var preRollInto: (sequence: Int64, pts: Int64)?
    /// The placement origin of the current segment's domain (PacketView.itemOriginPTS).
    private var currentOrigin: Int64?
    /// fpx_item_info.start_pts: item time 0 on the first domain's pts timeline. Set in init.
    private var originPTS: Int64?
    /// Where reading starts with no seek (the start segment's first frame, item ticks). Set in init.
    private(set) var startTicks: Int64?
    /// The item's per-seek state: the latest landing (segment and segment pts),
    /// the seek id and EXT-X-DISCONTINUITY marks (see PacketStamp).
    private var stamp: PacketStamp
    /// The master playlist's variants and renditions, when opened through one (the item's
    /// `hlsListing`).
    let listing: HLSListing?
    /// The audio rendition the item plays as a second feed (HLSRenditions.select): its URI,
    /// nil when there is none (a media playlist, muxed audio, hls_audio -1). The factory
    /// opens it (`HLSRenditionMerge`).
    let audioRenditionURI: String?
    /// Its index in the master's renditions.
    let audioRenditionIndex: Int?
    /// The master's renditions (empty for a media playlist), for a later audio switch.
    let renditions: [HLSRendition]
    /// The media playlist came from the network (or through a playlist that did).
    let remote: Bool
    /// The item is an MPD's (its playlists are `DASHManifest`'s, see PlaylistLoad).
    let isDASH: Bool
    /// A rendition feed: its domains are placed by the reference feed's (seconds of item
    /// time 0 on the domain's pts timeline, nil when the reference lists no such domain).
    private let domainOrigin: ((Int64) throws -> Rational?)?

    /// Opens `url`, a master or a media playlist. A rendition feed (`fromRemote`: reached
    /// through a remote master; `domainOrigin`: the reference feed's placement; `base`: the
    /// item-timeline start of its first segment) is a media playlist.
    convenience init(url: String, policy: IOPolicy) throws {
        try self.init(url: url, policy: policy, fromRemote: false, domainOrigin: nil, base: nil, holeSink: nil)
    }

    init(url: String, policy: IOPolicy, fromRemote: Bool, domainOrigin: ((Int64) throws -> Rational?)?,
         base: ((HLSMediaPlaylist) -> Rational)?, holeSink: HLSPlaylistFeed?) throws {
        self.policy = policy
        self.domainOrigin = domainOrigin
        let fetchGuard = IOGuard(policy: policy)
        // Master playlists: pick the highest-bandwidth variant.
        var playlistURL = url
        var media: HLSMediaPlaylist
        var masterSeen: (HLSMasterPlaylist, String)?
        var audio: HLSRenditions.Selection = .none
        var remote = fromRemote
        // An MPD is read as the master of its representations (PlaylistLoad).
        let (first, dash) = try PlaylistLoad.load(url, guard: fetchGuard, fromRemote: fromRemote, policy: policy)
        remote = remote || HLSFetch.isRemote(url)
        switch first {
        case .media(let m): media = m
        case .master(let master):
            guard domainOrigin == nil else { throw EngineError(.invalidData) }
            // The host's choice (HLSVariantChoice): an index that names no playable variant
            // is refused; no variant at all is bad data.
            guard let k = policy.hlsVariant.select(master.variants) else {
                throw EngineError(policy.hlsVariant.index != nil ? .invalidArgument : .invalidData)
            }
            let v = master.variants[k]
            playlistURL = v.uri
            masterSeen = (master, v.uri)
            // The audio rendition (a host index that names no AUDIO rendition is refused).
            do { audio = try HLSRenditions.select(master.renditions, variant: v, choice: policy.hlsAudio) }
            catch { throw EngineError(.invalidArgument) }
            guard case .media(let m) = try PlaylistLoad.load(v.uri, guard: fetchGuard, fromRemote: remote, policy: policy,
                                                             known: dash).0 else {
                throw EngineError(.invalidData)
            }
            media = m
            remote = remote || HLSFetch.isRemote(v.uri)
        }
        guard !media.segments.isEmpty else { throw EngineError(.invalidData) }
        self.remote = remote
        isDASH = dash != nil
        if case .rendition(let i) = audio, let m = masterSeen {
            audioRenditionURI = m.0.renditions[i].uri
            audioRenditionIndex = i
        } else {
            audioRenditionURI = nil
            audioRenditionIndex = nil
        }
        renditions = masterSeen?.0.renditions ?? []
        let feed = HLSPlaylistFeed(policy: policy, fetchGuard: fetchGuard, mediaURL: playlistURL, remote: remote, media: media,
                                   shift: base?(media) ?? Rational(0), holeSink: holeSink)
        self.feed = feed
        let cache = HLSSegmentCache(policy: policy, remote: remote)
        self.cache = cache
        let segments = feed.window
        // Open the segment playback starts from (the live edge's, or the first)
        // to learn the stream's time base.
        // Playback starts where RFC 8216 says: EXT-X-START, else the live edge
        // of a live playlist, else the beginning.
        // Holes there (seek.h, "Gaps") are skipped: the next segment that can be read, else
        // (trailing holes: a live edge or an EXT-X-START among them) the last one before.
        let startIndex = media.segmentIndex(at: media.preferredStartOffset) ?? (segments.count - 1)
        var opened: [Int: FFmpegEngine] = [:]
        var early: [Int64: HoleReason] = [:]
        let choice = try HLSHoles.startSegment(at: startIndex, count: segments.count) { k in
            let s = segments[k]
            if let r = early[s.sequence] { return r }
            do {
                if s.gap { throw SegmentHole(reason: .gap) }
                // A packed audio segment without an ID3 timestamp: at its listed start on the
                // reference feed's placement (a rendition feed), else its own domain's anchor.
                let listed: () -> Rational? = {
                    (try? domainOrigin?(s.discontinuitySequence)).map { $0 + s.itemStart }
                }
                opened[k] = try HLSFeed.openTwice { try cache.open(s, listedOnDomain: listed) }
                return .none
            } catch let h as SegmentHole {
                early[s.sequence] = h.reason
                HLSFeed.report(feed, s.sequence, h.reason)
                return h.reason
            }
        }
        guard let k = choice, let e = opened[k] else { throw EngineError(.notFound) }
        // Only the chosen segment's engine is kept (the search opens one at most, but say so).
        for (i, o) in opened where i != k { o.close() }
        let seg = segments[k]
        holes = early
        timeline = Timeline(timeBaseNum: e.timeline.timeBaseNum, timeBaseDen: e.timeline.timeBaseDen, originTicks: 0)
        referenceStream = e.referenceStream
        hasVideo = e.hasVideo
        facts = e.facts
        if let (master, uri) = masterSeen {
            var sel: Int?
            if case .rendition(let i) = audio { sel = i }
            listing = HLSListing(master: master, selectedURI: uri, audio: sel, audioStream: e.facts.streamCount)
        } else {
            listing = nil
        }
        stamp = PacketStamp(referenceTimeBase: PacketStamp.TimeBase(e.timeline.timeBaseNum, e.timeline.timeBaseDen))
        ticksPerSecond = Rational(Int128(e.timeline.timeBaseDen), Int128(e.timeline.timeBaseNum))
        wrapPeriod = HLSPlacement.wrapPeriod(timeBaseNum: e.timeline.timeBaseNum, timeBaseDen: e.timeline.timeBaseDen)
        cache.adopt(e, sequence: seg.sequence, keep: nil)
        currentSequence = seg.sequence
        let startFirst = try e.seekableRange()?.lowerBound
        // The placement (HLSPlacement) of the first domain gives start_pts (unknown when its
        // anchor cannot be read now); the start segment's domain gives the start playhead.
        originPTS = (try? domainAnchor(for: segments[0]))?.originPTS
        let a = try anchor(for: seg)
        currentOrigin = a.originPTS &+ deliveredShift(seg.sequence)
        startTicks = startFirst.map { a.ticks(ofPTS: $0) }
        if !feed.isEnded {
            feed.startReloads()
        } else {
            // A last segment that cannot be read now does not fail the open: the window ends
            // at its listed end until a seek or a read brings that segment in (learnLastFrame).
            try? learnLastFrame()
        }
    }

    /// An ended playlist: demuxes its last segment (once) for the last frame (engine lock held).
    private func learnLastFrame() throws {
        let (segs, _, live, _) = feed.snapshot
        guard !live, let s = segs.last, feed.lastFrame?.sequence != s.sequence else { return }
        if cache[s.sequence] == nil {
            if lastFrameTried == s.sequence { return }
            lastFrameTried = s.sequence
        }
        guard let f = try frameTicks(s) else { return }
        feed.lastFrame = (s.sequence, f.upperBound)
    }

    deinit { close() }

    // MARK: Segments

    /// The window's first MSN when the per-segment state was last bounded (`forgetBehindWindow`).
    private var boundedAt: Int64?

    /// Bounds the state kept per segment, key and domain by the window (issue 28.8; seek.h,
    /// "Memory"): once the window has slid, the holes (by MSN, here and in the feed's
    /// report), the keys (URI and bytes) no window segment uses, and the anchors of
    /// domains no window segment is in are forgotten. None of them can be needed again: a
    /// segment that left the window is never read (FPX_ERROR_EXPIRED). Engine lock; runs
    /// before each segment fetch (the only way that state grows), O(window) per slide.
    private func forgetBehindWindow() {
        let segs = feed.window
        guard let first = segs.first, let last = segs.last, boundedAt != first.sequence else { return }
        boundedAt = first.sequence
        let msns = first.sequence...last.sequence
        holes = holes.filter { msns.contains($0.key) }
        wrapCounts = wrapCounts.filter { msns.contains($0.key) }
        let domains = first.discontinuitySequence...last.discontinuitySequence
        anchors = anchors.filter { domains.contains($0.key) }
        cache.forgetKeys(except: segs.list.keyURIs)
        let reported = feed.forgetHoles(outside: msns)
        Log.emit(Log.debug, "fastpixseek: HLS live state: window \(segs.count) segments, \(cache.keyCount) keys, "
                 + "\(holes.count) holes, \(reported) holes reported, \(anchors.count) domains")
    }

    /// The discontinuity sequences of the window's segments (first...last), nil when empty.
    var windowDomains: ClosedRange<Int64>? {
        let segs = feed.window
        guard let first = segs.first, let last = segs.last else { return nil }
        return first.discontinuitySequence...last.discontinuitySequence
    }

    /// The engine of a segment, fetched and demuxed if needed; `SegmentHole` for a hole
    /// (seek.h, "Gaps": a GAP is never fetched, a 404/5xx is tried twice).
    private func engine(for s: Segment, stop: (() -> Bool)? = nil) throws -> FFmpegEngine {
        if let e = cache[s.sequence] { return e }
        forgetBehindWindow()
        if let h = holes[s.sequence] { throw SegmentHole(reason: h) }
        if feed.isClosing { throw EngineError(.cancelled) }
        do {
            if s.gap { throw SegmentHole(reason: .gap) }
            return try HLSFeed.openTwice {
                try cache.engine(for: s, keep: currentSequence, stop: stop, listedOnDomain: { self.listedOnDomain(s) })
            }
        } catch let h as SegmentHole {
            holes[s.sequence] = h.reason
            HLSFeed.report(feed, s.sequence, h.reason)
            throw h
        }
    }

    /// A segment that is a hole: thrown instead of fetching or demuxing it.
    struct SegmentHole: Error { let reason: HoleReason }

    /// Runs a segment open; a failure that makes a hole (HLSHoles.makesHole) is tried once
    /// more, and failing again is `SegmentHole(.failed)`.
    static func openTwice(_ open: () throws -> FFmpegEngine) throws -> FFmpegEngine {
        func holeClass(_ error: Error) -> Bool {
            // A key that cannot be fetched is an encryption error, never a hole.
            guard let e = error as? EngineError, e.code != .encryption else { return false }
            let f: SegmentFailure
            if e.avError == fpx_averror_http_server_error() { f = .serverError }
            else if e.avError == fpx_averror_http_not_found() || e.code == .notFound { f = .notFound }
            else { f = .other }
            return HLSHoles.makesHole(f)
        }
        do { return try open() } catch where holeClass(error) {
            do { return try open() } catch where holeClass(error) { throw SegmentHole(reason: .failed) }
        }
    }

    /// Counts a hole once and logs it (never the URI: it may carry a token).
    static func report(_ feed: HLSPlaylistFeed, _ sequence: Int64, _ reason: HoleReason) {
        guard feed.recordHole(sequence: sequence, reason: reason) else { return }
        Log.emit(Log.warning, "fastpixseek: HLS segment \(sequence) skipped: " +
                 (reason == .gap ? "EXT-X-GAP (not fetched)" : "its download failed twice (HTTP 404/5xx or missing)"))
    }

    /// Whether segment `s` is a hole, finding out by opening it when not known.
    private func holeState(_ s: Segment) throws -> HoleReason {
        if cache[s.sequence] != nil { return .none }
        do { _ = try engine(for: s); return .none } catch let h as SegmentHole { return h.reason }
    }

    /// `frameTicks`, nil for a hole.
    private func framesOrNil(_ s: Segment) throws -> ClosedRange<Int64>? {
        do { return try frameTicks(s) } catch is SegmentHole { return nil }
    }

    var holeReport: HoleReport { feed.holeReport }
    /// The feed whose report is the item's (a rendition feed's holes are counted there too).
    var holeFeed: HLSPlaylistFeed { feed }

    /// The anchor of a segment's discontinuity domain (HLSPlacement): the domain's first
    /// listed segment that is no hole, read when the domain is first needed and kept. Call
    /// it before taking a segment engine to use: reading the anchor may evict engines.
    private func domainAnchor(for s: Segment) throws -> Anchor {
        if let a = anchors[s.discontinuitySequence] { return a }
        // A rendition feed: placed by the reference feed's domain (seek.h: every stream of a
        // domain at its pts distance from the anchor's first frame), floored to its ticks.
        if let o = try domainOrigin?(s.discontinuitySequence) {
            let a = Anchor(ticks: 0, pts: Int64(clamping: (o * ticksPerSecond).floor))
            anchors[s.discontinuitySequence] = a
            return a
        }
        let segs = feed.window
        var anchorSegment = s
        if let i = segs.index(ofSequence: s.sequence) {
            guard let k = try HLSPlacement.anchorIndex(for: i, count: segs.count,
                                                       domain: { segs.list.discontinuitySequence(at: $0) },
                                                       hole: { try holeState(segs[$0]) }) else {
                throw SegmentHole(reason: holes[s.sequence] ?? .failed)
            }
            anchorSegment = segs[k]
        }
        guard let r = try engine(for: anchorSegment).seekableRange() else { throw EngineError(.invalidData) }
        let a = Anchor(listedStart: anchorSegment.itemStart, ticksPerSecond: ticksPerSecond, firstFramePTS: r.lowerBound)
        anchors[s.discontinuitySequence] = a
        return a
    }

    /// The placement of segment `s`'s own pts (as its demuxer gives them): its domain's anchor
    /// moved by the segment's 33-bit wrap count (seek.h, "Timestamp wrap"), so that
    /// `ticks(ofPTS:)` of a segment past a wrap inside the domain follows its predecessors.
    /// Call it before taking a segment engine to use (it may open the segment and evict others).
    private func anchor(for s: Segment) throws -> Anchor {
        let a = try domainAnchor(for: s)
        guard let p = wrapPeriod else { return a }
        let k = try wrapCount(s, a, p)
        return k == 0 ? a : Anchor(ticks: a.ticks, pts: a.pts &- k &* p)
    }

    /// Segment `s`'s wrap count (HLSPlacement.wrapCount): its first frame against where its
    /// domain's anchor `a` expects it by the EXTINF sums. 0 without a period.
    private func wrapCount(_ s: Segment, _ a: Anchor, _ p: Int64) throws -> Int64 {
        if let k = wrapCounts[s.sequence] { return k }
        guard let first = try engine(for: s).seekableRange()?.lowerBound else { return 0 }
        let listed = Int64(clamping: (s.itemStart * ticksPerSecond).floor)
        let k = HLSPlacement.wrapCount(firstPTS: first, expectedPTS: a.pts(ofTicks: listed), period: p)
        wrapCounts[s.sequence] = k
        return k
    }

    /// The shift from segment `s`'s own pts to the pts delivered to the host (seek.h,
    /// "Timestamp wrap": unwrapped, continuous across a wrap inside a domain), in the
    /// reference stream's time base; 0 when not known (nothing read from the segment).
    private func deliveredShift(_ s: Int64) -> Int64 {
        guard let p = wrapPeriod, let k = wrapCounts[s] else { return 0 }
        return k &* p
    }

    /// The same in stream `i`'s time base (0 when its period is no whole number of ticks).
    private func deliveredShift(_ s: Int64, stream i: Int32) -> Int64 {
        guard let k = wrapCounts[s], k != 0, let f = facts.info(i),
              let p = HLSPlacement.wrapPeriod(timeBaseNum: f.timeBaseNum, timeBaseDen: f.timeBaseDen) else { return 0 }
        return k &* p
    }

    /// Segment `from`'s pts `p` on segment `to`'s own pts (the same domain, across a wrap).
    private func pts(_ p: Int64, from: Int64, to: Int64) -> Int64 { p &+ deliveredShift(from) &- deliveredShift(to) }

    /// A packed audio segment without an ID3 timestamp (HLSPackedAudio.segmentStart): its
    /// listed start on its domain's pts timeline, seconds, when the domain is placed already
    /// (a rendition feed's always is, by the reference feed); nil for the domain's anchor
    /// segment, whose first sample then places the domain at its listed start.
    private func listedOnDomain(_ s: Segment) -> Rational? {
        let o: Rational
        if let a = anchors[s.discontinuitySequence] {
            o = Rational(Int128(a.originPTS) * Int128(timeline.timeBaseNum), Int128(timeline.timeBaseDen))
        } else if let f = try? domainOrigin?(s.discontinuitySequence) {
            o = f
        } else {
            return nil
        }
        return o + s.itemStart
    }

    /// Item time 0 on domain `d`'s pts timeline, seconds (its anchor, read if needed); nil
    /// when the window lists no segment of the domain. Engine lock held.
    func originSeconds(ofDomain d: Int64) throws -> Rational? {
        let segs = feed.window
        guard let i = segs.indices.first(where: { segs.list.discontinuitySequence(at: $0) == d }) else { return nil }
        let a = try domainAnchor(for: segs[i])
        return Rational(Int128(a.originPTS) * Int128(timeline.timeBaseNum), Int128(timeline.timeBaseDen))
    }

    /// Frees the segment engines (the owner of an item's timeline once a variant switch left
    /// it idle: HLSItemEngine); the playlist stays, and an anchor read later opens the
    /// segment it needs again. Engine lock held.
    func releaseSegments() { cache.close() }

    /// The segment the reads are in and its discontinuity domain (engine lock held).
    var readingSegment: (sequence: Int64, domain: Int64)? {
        guard let q = currentSequence, let s = feed.segment(q) else { return nil }
        return (q, s.discontinuitySequence)
    }

    /// The item-timeline start of the window's first segment, seconds, with its media
    /// sequence number and date (a rendition feed is aligned on it).
    var firstListed: (start: Rational, sequence: Int64, dateMS: Int64?)? {
        let segs = feed.window
        guard let f = segs.first else { return nil }
        return (f.itemStart, f.sequence, f.startDateMS)
    }

    /// The item-timeline start of segment `sequence` when the window lists it, seconds.
    func itemStart(ofSequence q: Int64) -> Rational? { feed.segment(q)?.itemStart }

    private func ticks(ofPTS pts: Int64, _ a: Anchor) -> Int64 { a.ticks &+ (pts &- a.pts) }
    private func pts(ofTicks t: Int64, _ a: Anchor) -> Int64 { a.pts &+ (t &- a.ticks) }

    // MARK: What the item engine reads (HLSItemFeed)

    private var windowSnapshot: (segs: Window, hold: Rational, live: Bool, td: Int) {
        feed.snapshot
    }

    /// The window's end on the item timeline, seconds (`HLSWindow.end`).
    private func windowEnd(_ segs: Window, hold: Rational, live: Bool) -> Rational? {
        guard let first = segs.first, let last = segs.last else { return nil }
        var lastFrame: Rational?
        if !live, let lf = feed.lastFrame, lf.sequence == last.sequence {
            lastFrame = Rational(lf.ticks) * Rational(Int128(timeline.timeBaseNum), Int128(timeline.timeBaseDen))
        }
        return HLSWindow.end(firstStart: first.itemStart, lastEnd: last.itemEnd, holdBack: hold, live: live,
                             lastFrame: lastFrame)
    }

    func seekableRange() throws -> ClosedRange<Int64>? {
        // A failure leaves the listed end (as at open); the seek itself will meet the error.
        try? learnLastFrame()
        guard let w = liveWindow(), let s = timeline.ticks(of: w.start), let e = timeline.ticks(of: w.end) else {
            return nil
        }
        let lo = Int64(clamping: s.ceil), hi = Int64(clamping: e.floor)
        return lo <= hi ? lo...hi : lo...lo
    }

    /// The playlist's window and dates, as `HLSWindow` says.
    func liveWindow() -> LiveWindow? {
        let (segs, hold, live, td) = windowSnapshot
        guard let first = segs.first, let last = segs.last, let end = windowEnd(segs, hold: hold, live: live) else {
            return nil
        }
        let tsDen = timeline.timeBaseDen
        func mt(_ r: Rational) -> MediaTime { MediaTime(rational: r, preferredTimescales: [tsDen, 1000]) }
        let dated = segs.list.allDated
        var startDate: Int64?, endDate: Int64?
        if dated, let sd = first.startDateMS {
            startDate = sd &* 1000
            if let i = segs.lastIndex(startingAtOrBefore: end), let d = segs[i].startDateMS {
                endDate = HLSWindow.date(of: end, segmentStart: segs[i].itemStart, dateMS: d)
            }
        }
        return LiveWindow(isLive: live, isDateAddressable: dated && startDate != nil && endDate != nil,
                          start: mt(first.itemStart), end: mt(end),
                          startDateMicroseconds: startDate, endDateMicroseconds: endDate,
                          firstSequence: first.sequence, lastSequence: last.sequence,
                          // The distance from the newest segment's end to the edge: none
                          // for VOD, whose end is not reduced.
                          targetDuration: MediaTime(value: Int64(td), timescale: 1),
                          holdBack: live ? mt(hold) : MediaTime(value: 0, timescale: 1))
    }

    func itemTime(forDateMicroseconds us: Int64) -> MediaTime? {
        let segs = feed.window
        let lastSequence = segs.last?.sequence
        for k in segs.indices {
            guard let d = segs.list.startDate(at: k) else { continue }
            let s = segs[k]
            if let r = HLSWindow.itemTime(ofDate: us, segmentStart: s.itemStart, dateMS: d, duration: s.duration,
                                          isLast: s.sequence == lastSequence) {
                return MediaTime(rational: r, preferredTimescales: [timeline.timeBaseDen, 1_000_000])
            }
        }
        return nil
    }

    /// The segments as `SegmentLanding` sees them (item ticks).
    private func spans(_ segs: Window) -> Spans { segs.spans(ticksPerSecond: ticksPerSecond) }

    /// A segment's first and last frame in item ticks (demuxing it if needed).
    private func frameTicks(_ s: Segment) throws -> ClosedRange<Int64>? {
        let a = try anchor(for: s)
        let e = try engine(for: s)
        guard let r = try e.seekableRange() else { return nil }
        return ticks(ofPTS: r.lowerBound, a)...ticks(ofPTS: r.upperBound, a)
    }

    /// The engine of a segment with its range (and head) measured, to land in. Measuring
    /// moves the reader to the start and forgets its landing (`Lander.seekableRange`), so it
    /// comes before a landing, never after one (`startReads` asks for the head): a landing
    /// in a segment whose EXTINF span alone placed the target otherwise lost its DECODE_ONLY
    /// and landing fields.
    private func measured(_ s: Segment) throws -> FFmpegEngine {
        let e = try engine(for: s)
        _ = try e.seekableRange()
        return e
    }

    /// A segment's first keyframe and leading frames (`SegmentHead`), segment pts; nil for
    /// a hole or a segment without a keyframe.
    private func head(_ s: Segment) throws -> SegmentHead? {
        do {
            let e = try engine(for: s)
            _ = try e.seekableRange()   // measures the head with the range
            return e.head
        } catch is SegmentHole { return nil }
    }

    /// Lands where the policy says (`SegmentLander` over this window, `WindowSeam`).
    func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        try SegmentLander(WindowSeam(feed: self, segs: feed.window, shouldStop: shouldStop)).resolve(request)
    }

    /// Steps where the policy says (`SegmentLander` over this window, `WindowSeam`).
    func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        let (segs, hold, live, _) = windowSnapshot
        guard !segs.isEmpty else { return .noFrame }
        let edgeTicks: Int64? = live ? Int64(clamping: ((segs[segs.count - 1].itemEnd - hold) * ticksPerSecond).floor) : nil
        let seam = WindowSeam(feed: self, segs: segs, shouldStop: shouldStop)
        let firstTicks = try seekableRange()?.lowerBound ?? 0
        return try SegmentLander(seam).step(from: from ?? startTicks ?? firstTicks, forward: forward, count: count,
                                            seekID: seekID, live: live, holdBackEdge: edgeTicks)
    }

    func interrupt() {
        feed.interrupt()
        cache.interrupt()
    }

    func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        while true {
            guard let seq = currentSequence else { throw EngineError(.eof) }
            if let e = cache[seq] {
                do {
                    var p = try e.readPacket(shouldStop: shouldStop)
                    stamp.stampSegmentPacket(&p, segment: seq, referenceStream: referenceStream)
                    unwrap(&p, segment: seq)
                    p.itemOriginPTS = currentOrigin
                    return p
                } catch let err as EngineError where err.code == .eof {
                    // On to the next segment.
                }
            }
            let next = cache[seq] == nil && holes[seq] == nil ? seq : seq &+ 1
            let s = try feed.waitForSegment(next, shouldStop: shouldStop)
            // The segment's reader may be open from before (a seek there, then
            // one back): read it from its start, with this seek's id and flags.
            do {
                _ = try engine(for: s, stop: shouldStop)   // a hole throws here, unfetched
                let a = try anchor(for: s)
                stamp.enterSegment(discontinuous: s.discontinuity)
                // After an open GOP's pre-roll, the landing's own segment: DECODE_ONLY up to it;
                // a later segment on the landing's timeline: against it too (its first muxed
                // audio packets may present before the landing).
                // Landings on the segment's own pts (segments may lie across a 33-bit wrap).
                let landing = preRollInto.flatMap { s.sequence <= $0.sequence ? pts($0.pts, from: $0.sequence, to: s.sequence) : nil }
                    ?? stamp.landingCarried(into: s.sequence).map { pts($0, from: stamp.landedSegment ?? s.sequence, to: s.sequence) }
                if let p = preRollInto, s.sequence >= p.sequence { preRollInto = nil }
                try engine(for: s, stop: shouldStop).restartFromBeginning(seekID: stamp.seekID, landing: landing)
                currentOrigin = a.originPTS &+ deliveredShift(s.sequence)
            } catch is SegmentHole {
                // A hole: on to the next segment, whose first packet is a DISCONTINUITY.
                stamp.enterSegment(discontinuous: true)
            }
            currentSequence = s.sequence
        }
    }

    /// A packet of segment `seq` as the host sees it (seek.h, "Timestamp wrap"): its pts,
    /// dts and landing fields moved by the segment's wrap count, continuous across a wrap.
    private func unwrap(_ p: inout PacketView, segment seq: Int64) {
        let d = deliveredShift(seq, stream: p.streamIndex)
        guard d != 0 else { return }
        p.pts = p.pts.map { $0 &+ d }
        p.dts = p.dts.map { $0 &+ d }
        p.landedPTSInStream = p.landedPTSInStream.map { $0 &+ d }
        p.landedPTS = p.landedPTS.map { $0 &+ deliveredShift(seq) }
    }

    var itemInfo: ItemInfo {
        let w = liveWindow()
        var info = ItemInfo(streamCount: facts.streamCount, referenceStream: referenceStream, hasVideo: hasVideo,
                            // A live item has no duration: its window moves (see liveWindow()). An ended
                            // one's is its segments' (the window ends at the last frame, inside the last).
                            duration: vodDuration(w) ?? .invalid,
                            timeline: timeline,
                            seekable: true, formatName: isDASH ? fpxDASHFormatName : fpxHLSFormatName)
        // start_pts: the first domain's placement (HLSPlacement); FPX_NOPTS when unknown.
        info.startPTS = originPTS ?? ABIConstants.FPX_NOPTS
        return info
    }

    private func vodDuration(_ w: LiveWindow?) -> MediaTime? {
        guard let w = w, !w.isLive else { return nil }
        let segs = feed.window
        guard let first = segs.first, let last = segs.last else { return nil }
        return MediaTime(rational: last.itemEnd - first.itemStart, preferredTimescales: [timeline.timeBaseDen, 1000])
    }

    func streamInfo(_ index: Int32) -> StreamInfo? { facts.info(index) }
    /// Each stream's time base, read from the facts without handing them out.
    var streamTimeBases: [PacketStamp.TimeBase] { facts.infos.map { PacketStamp.TimeBase($0.timeBaseNum, $0.timeBaseDen) } }
    /// Each stream's sample rate (0 but for audio).
    var streamSampleRates: [Int32] { facts.infos.map { $0.type == .audio ? $0.sampleRate : 0 } }
    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { facts.videoPacketFormat(index) }

    var factsOwner: AnyObject? { facts.ownerIfHandedOut }

    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        guard index >= 0, index < itemInfo.streamCount else { throw ErrorCode.invalidArgument }
        if index == referenceStream {
            if enabled { return }
            throw ErrorCode.referenceStream
        }
        try cache.setStreamEnabled(index, enabled)
    }

    func close() {
        feed.close()
        cache.close()
        currentSequence = nil
    }

    var demuxCounters: (packets: UInt64, bytes: UInt64) { cache.demuxCounters }
}

extension HLSFeed {
    /// The feed as the HLS policy's seam (`SegmentSeam`): one snapshot of the playlist
    /// window (segment indices are its), item ticks on the policy's side, each segment's
    /// own pts (its domain's anchor, its 33-bit wrap) on the feed's. It fetches, demuxes
    /// and positions; every choice is `SegmentLander`'s. Engine lock held.
    struct WindowSeam: SegmentSeam {
        let feed: HLSFeed
        let segs: Window
        let shouldStop: () -> Bool
        var spans: Spans { feed.spans(segs) }

        func hole(_ i: Int) throws -> HoleReason { try feed.holeState(segs[i]) }
        func frames(_ i: Int) throws -> ClosedRange<Int64>? { try feed.framesOrNil(segs[i]) }

        func head(_ i: Int) throws -> SegmentHead? {
            let s = segs[i]
            do {
                let a = try feed.anchor(for: s)
                return try feed.head(s)?.shifted(by: a.ticks &- a.pts)
            } catch is SegmentHole { return nil }
        }

        func resolve(_ request: LandingRequest, segment i: Int) throws -> Landing {
            let s = segs[i]
            let a = try feed.anchor(for: s)
            let req = LandingRequest(target: request.target + Rational(feed.pts(ofTicks: 0, a)),
                                     wantsKeyframe: request.wantsKeyframe,
                                     keyframeWindow: request.keyframeWindow.map {
                                         feed.pts(ofTicks: $0.lowerBound, a)...feed.pts(ofTicks: $0.upperBound, a)
                                     },
                                     seekID: request.seekID, atOrAfter: request.atOrAfter)
            var l = try feed.measured(s).resolve(req, shouldStop: shouldStop)
            l.streamPTS = l.pts &+ feed.deliveredShift(s.sequence)
            l.pts = feed.ticks(ofPTS: l.pts, a)
            return l
        }

        func step(from: Int64, segment i: Int, forward: Bool, seekID: UInt64) throws -> StepResultKind {
            let s = segs[i]
            let a = try feed.anchor(for: s)
            let r = try feed.engine(for: s).step(from: feed.pts(ofTicks: from, a), forward: forward, count: 1,
                                                   seekID: seekID, shouldStop: shouldStop)
            guard case .landed(var l) = r else { return r }
            l.streamPTS = l.pts &+ feed.deliveredShift(s.sequence)
            l.pts = feed.ticks(ofPTS: l.pts, a)
            return .landed(l)
        }

        func positionReads(at p: Int64, segment i: Int, seekID: UInt64) throws -> Int64 {
            let s = segs[i]
            let a = try feed.anchor(for: s)
            let pts = feed.pts(ofTicks: p, a)
            feed.stamp.land(pts, seekID: seekID, segment: s.sequence)
            feed.currentSequence = s.sequence
            feed.currentOrigin = a.originPTS &+ feed.deliveredShift(s.sequence)
            feed.preRollInto = nil
            return pts &+ feed.deliveredShift(s.sequence)
        }

        func preRoll(from j: Int, landing p: Int64, segment i: Int, seekID: UInt64) throws -> UInt64 {
            let s = segs[i], prev = segs[j]
            let pts = feed.pts(ofTicks: p, try feed.anchor(for: s))
            // One domain (`SegmentLanding.continues`): the same anchor, the same pts timeline;
            // the landing on the previous segment's own pts (it may lie before a 33-bit wrap).
            _ = try feed.anchor(for: prev)
            let n = try feed.engine(for: prev).preRoll(landing: feed.pts(pts, from: s.sequence, to: prev.sequence),
                                                         seekID: seekID, shouldStop: shouldStop)
            feed.currentSequence = prev.sequence
            feed.preRollInto = (s.sequence, pts)
            return n
        }
    }
}

/// A static C string naming the format of HLS items.
// nonisolated(unsafe): an immutable pointer into the binary's read-only data (a StaticString).
nonisolated(unsafe) let fpxHLSFormatName: UnsafePointer<CChar>? = {
    let s: StaticString = "hls (fastpixseek)"
    return UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}()

/// A static C string naming the format of DASH items (an MPD read by `PlaylistLoad`).
// nonisolated(unsafe): an immutable pointer into the binary's read-only data (a StaticString).
nonisolated(unsafe) let fpxDASHFormatName: UnsafePointer<CChar>? = {
    let s: StaticString = "dash (fastpixseek)"
    return UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}()

