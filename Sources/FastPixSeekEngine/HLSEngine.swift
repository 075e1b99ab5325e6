#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// HLS (live, EVENT, VOD) over the project's own playlist handling.
///
/// libavformat's hls demuxer marks live playlists unseekable and never exposes
/// PROGRAM-DATE-TIME, so this engine fetches and parses playlists itself
/// (`HLSPlaylist`, RFC 8216), reloads live ones on a library thread, tracks
/// segments by media sequence number, and demuxes each segment with an
/// `FFmpegEngine`, which resolves landings inside it exactly as for files.
///
/// Timelines: the item timeline starts at the oldest segment seen at open;
/// segments follow by EXTINF. The engine's ticks (`timeline`) are that item
/// time in the segments' time base. Inside one discontinuity domain, ticks map
/// to the segments' pts by one anchor (the first segment of the domain that
/// was demuxed), so frames keep their exact pts spacing.
// @unchecked Sendable: tracker state is guarded by `tm`, demux state by the player's
// engine lock, `engines` by `em` and the engine lock (see the field comments).
public final class HLSEngine: MediaEngine, PacketSource, @unchecked Sendable {
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

    struct Anchor { var ticks: Int64; var pts: Int64 }

    static func looksLikePlaylist(_ url: String) -> Bool {
        var path = Substring(url)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        return path.lowercased().hasSuffix(".m3u8") || path.lowercased().hasSuffix(".m3u")
    }

    private let policy: IOPolicy
    private let fetchGuard: IOGuard
    private let mediaURL: String
    /// The media playlist came from the network (or through a playlist that
    /// did): everything it names must be http or https.
    private let remote: Bool
    public let timeline: Timeline
    public let referenceStream: Int32
    public let hasVideo: Bool
    private let ticksPerSecond: Rational

    // Tracker state: guarded by `tm` (the reload thread writes it).
    private let tm = Monitor()
    private var tracker = HLSLiveTracker()
    /// The tracker's window with item-timeline starts, rebuilt at each update.
    private var segments = Window()
    private var targetDuration = 0
    private var holdBack = Rational(0)
    private var endList = false
    private var closing = false
    private var stalled = false
    private var lastChange: UInt64 = 0
    private var reloadError: ErrorCode?
    private var reloader: OSThread?
    /// An ended (VOD) playlist's last frame, item ticks, with the segment it is in: the
    /// seekable end, as a file's is its last frame. Learned by demuxing the last segment
    /// (at open, or once ENDLIST appears) under the engine lock.
    private var lastFrame: (sequence: Int64, ticks: Int64)?
    /// The last segment whose download for `lastFrame` was tried (engine lock): it is not
    /// fetched again just for the range. Every seek reads the seekable range first, so a
    /// retry there made every later seek, wherever it landed, wait out the I/O timeout
    /// behind a stalled last segment (issue 18.5). Once a seek or a read brings the segment
    /// in, the last frame is learned from it without I/O.
    private var lastFrameTried: Int64?

    /// The stream facts of the item, from the first segment opened. Segment
    /// engines come and go; these stay, so `itemInfo`/`streamInfo` never
    /// touch `engines` and their pointers outlive any eviction.
    private let facts: ItemFacts

    // Demux state: used under the player's engine lock only, except `engines`,
    // which `interrupt()` reads from any thread: it is written under both the
    // engine lock and `em`, and read under either.
    private let em = Monitor()
    private var engines: [Int64: FFmpegEngine] = [:]
    private var engineOrder: [Int64] = []
    private var anchors: [Int64: Anchor] = [:]
    private var currentSequence: Int64?
    /// The item's per-seek state: the latest landing (segment and segment pts),
    /// the seek id and EXT-X-DISCONTINUITY marks (see PacketStamp).
    private var stamp: PacketStamp
    private var retiredCounters: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// The last init section fetched (fMP4), by URI and byte range.
    private var initSections: [String: FallibleBuffer<UInt8>] = [:]

    public init(url: String, policy: IOPolicy) throws {
        self.policy = policy
        fetchGuard = IOGuard(policy: policy)
        // Master playlists: pick the highest-bandwidth variant.
        var playlistURL = url
        var media: HLSMediaPlaylist
        var remote = false
        let first = try HLSEngine.parse(try HLSEngine.fetch(url, guard: fetchGuard, fromRemote: false,
                                                            limit: HLSEngine.playlistLimit(policy)), url: url, policy: policy)
        remote = HLSEngine.isRemote(url)
        switch first {
        case .media(let m): media = m
        case .master(let master):
            guard let v = master.selectVariant() else { throw EngineError(.invalidData) }
            playlistURL = v.uri
            guard case .media(let m) = try HLSEngine.parse(try HLSEngine.fetch(v.uri, guard: fetchGuard, fromRemote: remote,
                                                                               limit: HLSEngine.playlistLimit(policy)),
                                                           url: v.uri, policy: policy) else {
                throw EngineError(.invalidData)
            }
            media = m
            remote = remote || HLSEngine.isRemote(v.uri)
        }
        mediaURL = playlistURL
        self.remote = remote
        guard !media.segments.isEmpty else { throw EngineError(.invalidData) }
        var t = HLSLiveTracker()
        t.update(media)
        segments = HLSEngine.window(media, base: t.baseOffset)
        targetDuration = media.targetDuration
        holdBack = media.liveEdgeOffset
        endList = !media.isLive
        lastChange = monotonicNanoseconds()
        // Open the segment playback starts from (the live edge's, or the first)
        // to learn the stream's time base.
        // Playback starts where RFC 8216 says: EXT-X-START, else the live edge
        // of a live playlist, else the beginning.
        let startIndex = media.segmentIndex(at: media.preferredStartOffset) ?? (segments.count - 1)
        let seg = segments[startIndex]
        var inits: [String: FallibleBuffer<UInt8>] = [:]
        let e = try HLSEngine.openSegment(seg, policy: policy, remote: remote, initSections: &inits)
        timeline = Timeline(timeBaseNum: e.timeline.timeBaseNum, timeBaseDen: e.timeline.timeBaseDen, originTicks: 0)
        referenceStream = e.referenceStream
        hasVideo = e.hasVideo
        facts = e.facts
        stamp = PacketStamp(referenceTimeBase: PacketStamp.TimeBase(e.timeline.timeBaseNum, e.timeline.timeBaseDen))
        ticksPerSecond = Rational(Int128(e.timeline.timeBaseDen), Int128(e.timeline.timeBaseNum))
        em.locked { engines[seg.sequence] = e }
        engineOrder = [seg.sequence]
        currentSequence = seg.sequence
        tracker = t
        initSections = inits
        if !endList {
            reloader = OSThread(name: "fpx-hls-reload") { [weak self] in self?.reloadLoop() }
        } else {
            // The start segment anchors its domain first, as it would when read first. A last
            // segment that cannot be read now does not fail the open: the window ends at its
            // listed end until a seek or a read brings that segment in (learnLastFrame).
            _ = try anchor(for: seg, engine: e)
            try? learnLastFrame()
        }
    }

    /// An ended playlist: demuxes its last segment (once) for the last frame (engine lock held).
    private func learnLastFrame() throws {
        let (last, ended, known) = tm.locked { (segments.last, endList, lastFrame?.sequence) }
        guard ended, let s = last, known != s.sequence else { return }
        if engines[s.sequence] == nil {
            if lastFrameTried == s.sequence { return }
            lastFrameTried = s.sequence
        }
        guard let f = try frameTicks(s) else { return }
        tm.locked { lastFrame = (s.sequence, f.upperBound) }
    }

    deinit { close() }

    // MARK: Fetching and tracking

    /// The most bytes a playlist may have (seek.h section 8: "Memory"); the buffer cap
    /// when that is smaller.
    static let maxPlaylistBytes = 16 << 20

    static func playlistLimit(_ policy: IOPolicy) -> Int { min(maxPlaylistBytes, max(1, policy.maxBufferBytes)) }

    /// Parses a playlist into its compact form. Its text and parsed segments together may
    /// not exceed the buffer cap, nor its segments `HLSPlaylist.Limits.maxSegments`:
    /// FPX_ERROR_TOO_LARGE (issue 18.4).
    static func parse(_ bytes: FallibleBuffer<UInt8>, url: String, policy: IOPolicy) throws -> HLSPlaylist {
        do {
            return try bytes.withUnsafeBufferPointer {
                try HLSPlaylist.parse($0, url: url, limits: HLSPlaylist.Limits(maxBytes: max(1, policy.maxBufferBytes)))
            }
        } catch let e as HLSError {
            throw EngineError(e.errorCode)
        }
    }

    static func isRemote(_ url: String) -> Bool {
        ProtocolGate.protocolName(url).map(ProtocolPolicy.isRemote) ?? false
    }

    /// GETs a whole resource (a playlist, a segment) through libavformat's
    /// protocols, bounded by the I/O timeout and interruptible. The URL must
    /// pass the protocol policy (`fromRemote`: it was named by a playlist from
    /// the network, so http/https only). More than `limit` bytes is
    /// FPX_ERROR_TOO_LARGE, decided from Content-Length when the server sends
    /// one, else as the bytes arrive (never more than `limit` is held).
    /// The bytes are appended to `into` (a new buffer by default). Every allocation
    /// sized by the server or the playlist goes through `FallibleBuffer`: out of
    /// memory is FPX_ERROR_NO_MEMORY, never a trap (issue 18.3).
    @discardableResult
    static func fetch(_ url: String, guard g: IOGuard, fromRemote: Bool, limit: Int,
                      range: HLSByteRange? = nil, stop: (() -> Bool)? = nil,
                      into out: FallibleBuffer<UInt8> = FallibleBuffer<UInt8>()) throws -> FallibleBuffer<UInt8> {
        try ProtocolGate.check(url, policy: g.policy.protocols, fromRemote: fromRemote)
        var cb = AVIOInterruptCB(callback: ioInterruptCallback, opaque: Unmanaged.passUnretained(g).toOpaque())
        var opts: OpaquePointer?
        if let t = g.timeoutNanoseconds, t > 0 {
            av_dict_set(&opts, "rw_timeout", String(min(t / 1000, UInt64(Int64.max))), 0)
        }
        av_dict_set(&opts, "protocol_whitelist", ProtocolGate.whitelist(g.policy.protocols), 0)

        g.begin(stop: stop)
        defer { g.end() }
        var io: UnsafeMutablePointer<AVIOContext>?
        let ret = avio_open2(&io, url, AVIO_FLAG_READ, &cb, &opts)
        av_dict_free(&opts)
        guard ret >= 0, let ctx = io else { throw g.error(for: ret) }
        defer { avio_closep(&io) }
        // A byte range: seek to it (a Range request over http, lseek for files).
        if let r = range, r.offset > 0 {
            let got = avio_seek(ctx, r.offset, SEEK_SET)
            if got < 0 { throw g.error(for: Int32(truncatingIfNeeded: got)) }
        }
        var want = limit
        if let r = range { want = Int(clamping: r.length) }
        let size = avio_size(ctx)
        if range == nil && size > Int64(limit) { throw EngineError(.tooLarge) }
        if range != nil && want > limit { throw EngineError(.tooLarge) }
        func grow(_ n: Int) throws {
            do { try out.reserve(n) } catch { throw EngineError(.noMemory) }
        }
        // With a size, reserve it once (at most the cap); without one, grow by half again
        // from 1 MiB (0.3.0 reserved the whole cap, which under a low RLIMIT_AS trapped).
        let start = out.count
        try grow(start &+ (size > 0 ? Int(min(Int64(want), size)) : min(want, 1 << 20)))
        while true {
            let got = out.count - start
            let room = min(65536, want - got + 1)
            if room <= 0 { break }
            if out.capacity - out.count < room { try grow(max(out.count + room, out.capacity + out.capacity / 2)) }
            let n = avio_read(ctx, out.tail, Int32(room))
            if n == fpx_averror_eof() || n == 0 { break }
            if n < 0 { throw g.error(for: n) }
            if range == nil && got + Int(n) > limit { throw EngineError(.tooLarge) }
            out.commit(min(Int(n), want - got))
            if range != nil && out.count - start >= want { break }
            g.extend()
        }
        // A transfer cut short (deadline, stop, abort) is an error, never a short body.
        if g.wasCut { throw g.error(for: fpx_averror_exit()) }
        return out
    }

    /// The window's segments with their item-timeline starts.
    static func window(_ media: HLSMediaPlaylist, base: Rational) -> Window {
        Window(list: media.segments, base: base)
    }

    /// Takes the tracker's current window (lock held).
    private func adopt(_ media: HLSMediaPlaylist) {
        segments = HLSEngine.window(media, base: tracker.baseOffset)
        targetDuration = media.targetDuration
        holdBack = media.liveEdgeOffset
        endList = !media.isLive
    }

    private func reloadLoop() {
        while true {
            let (stop, interval) = tm.locked { (closing, tracker.reloadInterval ?? Rational(Int64(max(targetDuration, 1)))) }
            if stop { return }
            // RFC 8216 6.3.4: a target duration, half of one after an unchanged reload.
            let waitNS = UInt64(clamping: max((interval * Rational(1_000_000_000)).floor, 100_000_000))
            let due = monotonicNanoseconds() &+ waitNS
            let quit: Bool = tm.locked {
                while !closing && monotonicNanoseconds() < due { tm.wait(until: due) }
                return closing
            }
            if quit { return }
            do {
                let bytes = try HLSEngine.fetch(mediaURL, guard: fetchGuard, fromRemote: remote,
                                                limit: HLSEngine.playlistLimit(policy))
                guard case .media(let media) = try HLSEngine.parse(bytes, url: mediaURL, policy: policy) else { continue }
                tm.locked {
                    let delta = tracker.update(media)
                    adopt(media)
                    let now = monotonicNanoseconds()
                    if !delta.unchanged { lastChange = now; stalled = false; reloadError = nil }
                    // A live playlist that stops growing for 3 target durations has stalled.
                    if delta.unchanged && !endList && now &- lastChange > UInt64(3 * max(targetDuration, 1)) * 1_000_000_000 {
                        stalled = true
                    }
                    tm.broadcast()
                }
                if !media.isLive { return }
            } catch {
                let code = (error as? EngineError)?.code ?? .io
                tm.locked {
                    reloadError = code
                    if monotonicNanoseconds() &- lastChange > UInt64(3 * max(targetDuration, 1)) * 1_000_000_000 { stalled = true }
                    tm.broadcast()
                }
            }
        }
    }

    // MARK: Segments

    /// Downloads a segment (its byte range, if any) and demuxes it from memory,
    /// behind its init section when it has one (fMP4: EXT-X-MAP). The init
    /// section and the segment together may not exceed the buffer cap.
    static func openSegment(_ s: Segment, policy: IOPolicy, remote: Bool, initSections: inout [String: FallibleBuffer<UInt8>],
                            stop: (() -> Bool)? = nil) throws -> FFmpegEngine {
        let g = IOGuard(policy: policy)
        let cap = max(1, policy.maxBufferBytes)
        let bytes = FallibleBuffer<UInt8>()
        if let m = s.map {
            let key = m.uri + (m.byteRange.map { "@\($0.offset)+\($0.length)" } ?? "")
            let section: FallibleBuffer<UInt8>
            if let cached = initSections[key] {
                section = cached
            } else {
                section = try HLSEngine.fetch(m.uri, guard: g, fromRemote: remote, limit: min(cap, 16 << 20),
                                              range: m.byteRange, stop: stop)
                initSections = [key: section]
            }
            do { try section.withUnsafeBufferPointer { try bytes.append(contentsOf: $0) } } catch {
                throw EngineError(.noMemory)
            }
        }
        try HLSEngine.fetch(s.uri, guard: g, fromRemote: remote, limit: max(1, cap - bytes.count),
                            range: s.byteRange, stop: stop, into: bytes)
        guard bytes.count > 0 else { throw EngineError(.invalidData) }
        return try FFmpegEngine(url: s.uri, policy: policy, memory: bytes)
    }

    private func segment(_ sequence: Int64) -> Segment? { tm.locked { segments.index(ofSequence: sequence).map { segments[$0] } } }

    private func engine(for s: Segment, stop: (() -> Bool)? = nil) throws -> FFmpegEngine {
        if let e = engines[s.sequence] { return e }
        if tm.locked({ closing }) { throw EngineError(.cancelled) }
        let e = try HLSEngine.openSegment(s, policy: policy, remote: remote, initSections: &initSections, stop: stop)
        for i in disabledStreams { try? e.setStreamEnabled(i, false) }
        em.locked { engines[s.sequence] = e }
        engineOrder.append(s.sequence)
        // Keep the segment engines bounded: the current one and two neighbours,
        // and the segments held within the buffer cap (the current and the new
        // one are always kept). Evicting one frees nothing the host holds:
        // packets belong to the player (PacketView.owner), stream facts to `facts`.
        var held = em.locked { engines.values.reduce(0) { $0 &+ $1.bufferedBytes } }
        var i = 0
        while i < engineOrder.count && (engineOrder.count > 3 || held > policy.maxBufferBytes) {
            let old = engineOrder[i]
            if old == currentSequence || old == s.sequence { i += 1; continue }
            engineOrder.remove(at: i)
            if let o = em.locked({ engines.removeValue(forKey: old) }) { held &-= o.bufferedBytes; retire(o) }
        }
        return e
    }

    private func retire(_ e: FFmpegEngine) {
        let c = e.demuxCounters
        retiredCounters.packets &+= c.packets
        retiredCounters.bytes &+= c.bytes
        e.close()
    }

    /// The anchor of a segment's discontinuity domain, made from it if new.
    private func anchor(for s: Segment, engine e: FFmpegEngine) throws -> Anchor {
        if let a = anchors[s.discontinuitySequence] { return a }
        guard let r = try e.seekableRange() else { throw EngineError(.invalidData) }
        let a = Anchor(ticks: Int64(clamping: (s.itemStart * ticksPerSecond).floor), pts: r.lowerBound)
        anchors[s.discontinuitySequence] = a
        return a
    }

    private func ticks(ofPTS pts: Int64, _ a: Anchor) -> Int64 { a.ticks &+ (pts &- a.pts) }
    private func pts(ofTicks t: Int64, _ a: Anchor) -> Int64 { a.pts &+ (t &- a.ticks) }

    // MARK: MediaEngine

    private var windowSnapshot: (segs: Window, hold: Rational, live: Bool, td: Int) {
        tm.locked { (segments, holdBack, !endList, targetDuration) }
    }

    /// The window's end on the item timeline, seconds: a live playlist's hold-back edge (the
    /// newest segment's end minus HOLD-BACK); an ended one's last frame, as for files (its last
    /// segment's end until that segment is demuxed).
    private func windowEnd(_ segs: Window, hold: Rational, live: Bool) -> Rational? {
        guard let first = segs.first, let last = segs.last else { return nil }
        var end = live ? last.itemEnd - hold : last.itemEnd
        if !live, let lf = tm.locked({ lastFrame }), lf.sequence == last.sequence {
            end = Rational(lf.ticks) * Rational(Int128(timeline.timeBaseNum), Int128(timeline.timeBaseDen))
        }
        return end < first.itemStart ? first.itemStart : end
    }

    public func seekableRange() throws -> ClosedRange<Int64>? {
        // A failure leaves the listed end (as at open); the seek itself will meet the error.
        try? learnLastFrame()
        guard let w = liveWindow(), let s = timeline.ticks(of: w.start), let e = timeline.ticks(of: w.end) else {
            return nil
        }
        let lo = Int64(clamping: s.ceil), hi = Int64(clamping: e.floor)
        return lo <= hi ? lo...hi : lo...lo
    }

    public func liveWindow() -> LiveWindow? {
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
                let off = ((end - segs[i].itemStart) * Rational(1_000_000)).floor
                endDate = d &* 1000 &+ Int64(clamping: off)
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

    public func itemTime(forDateMicroseconds us: Int64) -> MediaTime? {
        let segs = tm.locked { segments }
        let lastSequence = segs.last?.sequence
        for k in segs.indices {
            guard let d = segs.list.startDate(at: k) else { continue }
            let s = segs[k]
            let startUS = d &* 1000
            let endUS = startUS &+ Int64(clamping: (s.duration * Rational(1_000_000)).ceil)
            if us >= startUS && us < endUS || (us == endUS && s.sequence == lastSequence) {
                let r = s.itemStart + Rational(Int128(us &- startUS), 1_000_000)
                return MediaTime(rational: r, preferredTimescales: [timeline.timeBaseDen, 1_000_000])
            }
        }
        return nil
    }

    /// The segments as `SegmentLanding` sees them (item ticks).
    private func spans(_ segs: Window) -> Spans { segs.spans(ticksPerSecond: ticksPerSecond) }

    /// A segment's first and last frame in item ticks (demuxing it if needed).
    private func frameTicks(_ s: Segment) throws -> ClosedRange<Int64>? {
        let e = try engine(for: s)
        let a = try anchor(for: s, engine: e)
        guard let r = try e.seekableRange() else { return nil }
        return ticks(ofPTS: r.lowerBound, a)...ticks(ofPTS: r.upperBound, a)
    }

    /// Fetches and demuxes what `SegmentLanding` asks for, and lands where it says.
    public func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        let segs = tm.locked { segments }
        let sp = spans(segs)
        guard let i = try SegmentLanding.coveringSegment(for: request.target, in: sp, frames: { try frameTicks(segs[$0]) })
        else { throw EngineError(.noStream) }
        let seg = segs[i]
        let a = try anchor(for: seg, engine: try engine(for: seg))
        let shift = Rational(pts(ofTicks: 0, a))
        var req = LandingRequest(target: request.target + shift, wantsKeyframe: request.wantsKeyframe,
                                 keyframeWindow: request.keyframeWindow.map { pts(ofTicks: $0.lowerBound, a)...pts(ofTicks: $0.upperBound, a) },
                                 seekID: request.seekID)
        // A keyframe window past this segment's last frame: the next segment's first keyframe
        // may be nearer. Open it before resolving here, so that opening it cannot evict this one.
        var nextFirst: Int64?
        if request.wantsKeyframe, let w = request.keyframeWindow,
           SegmentLanding.windowReachesNext(w, segment: i, in: sp, lastFrame: try frameTicks(seg)?.upperBound) {
            nextFirst = try frameTicks(segs[i + 1])?.lowerBound
        }
        let here = try engine(for: seg).resolve(req, shouldStop: shouldStop)
        if let w = request.keyframeWindow, let n = nextFirst,
           SegmentLanding.keyframeAcrossBoundary(target: request.target, window: w, here: ticks(ofPTS: here.pts, a),
                                                 hereIsKeyframe: here.resolution == .keyframe, nextFirstKey: n) == .next {
            let next = segs[i + 1]
            let nk = pts(ofTicks: n, a)
            req.target = Rational(nk)
            req.keyframeWindow = nk...nk
            let there = try engine(for: next).resolve(req, shouldStop: shouldStop)
            var l = finish(there, seg: next, anchor: a, seekID: request.seekID)
            l.coversTarget = false
            return l
        }
        return finish(here, seg: seg, anchor: a, seekID: request.seekID)
    }

    private func finish(_ l: Landing, seg: Segment, anchor a: Anchor, seekID: UInt64) -> Landing {
        stamp.land(l.pts, seekID: seekID, segment: seg.sequence)
        currentSequence = seg.sequence
        var out = l
        out.streamPTS = l.pts
        out.pts = ticks(ofPTS: l.pts, a)
        return out
    }

    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        let (segs, hold, live, _) = windowSnapshot
        guard !segs.isEmpty else { return .noFrame }
        let edgeTicks: Int64? = live ? Int64(clamping: ((segs[segs.count - 1].itemEnd - hold) * ticksPerSecond).floor) : nil
        let sp = spans(segs)
        let firstTicks = try seekableRange()?.lowerBound ?? 0
        var fromTicks = from ?? firstTicks
        var remaining = count
        var result: StepLanding?
        var packets: UInt64 = 0
        while remaining > 0 {
            // The segment holding the playhead frame (its EXTINF span and its pts may disagree).
            guard let i = try SegmentLanding.coveringSegment(for: Rational(fromTicks), in: sp,
                                                             frames: { try frameTicks(segs[$0]) }) else { return .noFrame }
            let seg = segs[i]
            let e = try engine(for: seg)
            let a = try anchor(for: seg, engine: e)
            let localFrom = pts(ofTicks: fromTicks, a)
            // Step inside this segment as far as it goes, one frame at a time at its edges.
            let r = try e.step(from: localFrom, forward: forward, count: 1, seekID: seekID, shouldStop: shouldStop)
            switch r {
            case .landed(let l):
                packets &+= l.packetsRead
                let t = ticks(ofPTS: l.pts, a)
                if SegmentLanding.isPastHoldBack(t, forward: forward, edge: edgeTicks) { return .atLiveEdge(.pastHoldBack) }
                result = StepLanding(pts: t, packetsRead: packets, streamPTS: l.pts)
                stamp.land(l.pts, seekID: seekID, segment: seg.sequence)
                currentSequence = seg.sequence
                fromTicks = t
                remaining -= 1
            case .noFrame, .atLiveEdge:
                let j: Int
                switch SegmentLanding.stepCrossing(from: i, forward: forward, count: segs.count, live: live) {
                case .segment(let k): j = k
                case .noFrame: return .noFrame
                case .notPublished: return .atLiveEdge(.notPublished)
                }
                let other = segs[j]
                let oe = try engine(for: other)
                guard let orr = try oe.seekableRange() else { return .noFrame }
                let oa = try anchor(for: other, engine: oe)
                let landedPTS = forward ? orr.lowerBound : orr.upperBound
                let t = ticks(ofPTS: landedPTS, oa)
                if SegmentLanding.isPastHoldBack(t, forward: forward, edge: edgeTicks) { return .atLiveEdge(.pastHoldBack) }
                // An exact landing on the boundary frame positions the packets too.
                let l = try oe.resolve(LandingRequest(target: Rational(landedPTS), wantsKeyframe: false, keyframeWindow: nil,
                                                      seekID: seekID), shouldStop: shouldStop)
                packets &+= l.packetsRead
                result = StepLanding(pts: t, packetsRead: packets, streamPTS: landedPTS)
                stamp.land(landedPTS, seekID: seekID, segment: other.sequence)
                currentSequence = other.sequence
                fromTicks = t
                remaining -= 1
            }
        }
        guard let l = result else { return .noFrame }
        return .landed(l)
    }

    public func interrupt() {
        tm.locked { closing = true; tm.broadcast() }
        fetchGuard.interrupt()
        for e in em.locked({ Array(engines.values) }) { e.interrupt() }
    }

    // MARK: PacketSource

    public func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        while true {
            guard let seq = currentSequence else { throw EngineError(.eof) }
            if let e = engines[seq] {
                do {
                    var p = try e.readPacket(shouldStop: shouldStop)
                    stamp.stampSegmentPacket(&p, segment: seq, referenceStream: referenceStream)
                    return p
                } catch let err as EngineError where err.code == .eof {
                    // On to the next segment.
                }
            }
            let next = engines[seq] == nil ? seq : seq &+ 1
            let s = try waitForSegment(next, shouldStop: shouldStop)
            // The segment's reader may be open from before (a seek there, then
            // one back): read it from its start, with this seek's id and flags.
            try engine(for: s, stop: shouldStop).restartFromBeginning(seekID: stamp.seekID)
            stamp.enterSegment(discontinuous: s.discontinuity)
            currentSequence = s.sequence
        }
    }

    /// The segment `sequence`, waiting for a live playlist to publish it.
    private func waitForSegment(_ sequence: Int64, shouldStop: () -> Bool) throws -> Segment {
        let deadline = policy.timeoutNanoseconds > 0
            ? Deadline.after(max(policy.timeoutNanoseconds, UInt64(max(targetDurationNow, 1)) * 3_000_000_000))
            : nil
        while true {
            let found: Segment? = try tm.locked {
                if closing { throw EngineError(.cancelled) }
                if let k = segments.index(ofSequence: sequence) { return segments[k] }
                if let first = segments.first, sequence < first.sequence { throw EngineError(.expired) }
                if endList { throw EngineError(.eof) }
                if stalled { throw EngineError(.stalled) }
                if let d = deadline, monotonicNanoseconds() >= d { throw EngineError(reloadError ?? .stalled) }
                tm.wait(until: min(deadline ?? UInt64.max, Deadline.after(50_000_000)))
                return nil
            }
            if let s = found { return s }
            // Outside `tm`: shouldStop takes the player's lock, which is held
            // while interrupt() takes `tm` (lock order: Player.m -> tm).
            if shouldStop() { throw EngineError(.interrupted) }
        }
    }

    private var targetDurationNow: Int { tm.locked { targetDuration } }

    public var itemInfo: ItemInfo {
        let w = liveWindow()
        return ItemInfo(streamCount: facts.streamCount, referenceStream: referenceStream, hasVideo: hasVideo,
                        // A live item has no duration: its window moves (see liveWindow()). An ended
                        // one's is its segments' (the window ends at the last frame, inside the last).
                        duration: vodDuration(w) ?? .invalid,
                        timeline: timeline,
                        seekable: true, formatName: fpxHLSFormatName)
    }

    private func vodDuration(_ w: LiveWindow?) -> MediaTime? {
        guard let w = w, !w.isLive else { return nil }
        let segs = tm.locked { segments }
        guard let first = segs.first, let last = segs.last else { return nil }
        return MediaTime(rational: last.itemEnd - first.itemStart, preferredTimescales: [timeline.timeBaseDen, 1000])
    }

    public func streamInfo(_ index: Int32) -> StreamInfo? { facts.info(index) }
    public func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { facts.videoPacketFormat(index) }

    public var factsOwner: AnyObject? { facts.ownerIfHandedOut }

    /// Streams the host disabled; applied to every segment engine, now and later.
    /// Read and written under the player's engine lock, like `engines`' writers.
    private var disabledStreams: Set<Int32> = []

    public func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        guard index >= 0, index < itemInfo.streamCount else { throw ErrorCode.invalidArgument }
        if index == referenceStream {
            if enabled { return }
            throw ErrorCode.referenceStream
        }
        if enabled { disabledStreams.remove(index) } else { disabledStreams.insert(index) }
        for e in em.locked({ Array(engines.values) }) { try e.setStreamEnabled(index, enabled) }
    }

    public func close() {
        let t: OSThread? = tm.locked { closing = true; tm.broadcast(); let t = reloader; reloader = nil; return t }
        fetchGuard.interrupt()
        t?.join()
        let all: [FFmpegEngine] = em.locked { let a = Array(engines.values); engines.removeAll(); return a }
        for e in all { retire(e) }
        engineOrder.removeAll()
        currentSequence = nil
    }

    public var demuxCounters: (packets: UInt64, bytes: UInt64) {
        var c = retiredCounters
        for e in engines.values {
            let d = e.demuxCounters
            c.packets &+= d.packets
            c.bytes &+= d.bytes
        }
        return c
    }
}

/// A static C string naming the format of HLS items.
// nonisolated(unsafe): an immutable pointer into the binary's read-only data (a StaticString).
nonisolated(unsafe) let fpxHLSFormatName: UnsafePointer<CChar>? = {
    let s: StaticString = "hls (fastpixseek)"
    return UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}()
