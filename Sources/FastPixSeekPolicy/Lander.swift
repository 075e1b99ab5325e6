/// The whole landing algorithm of one item, over a `LandingSeam`: the order of
/// resolution (memory, the container's index, the scan), the forward scan,
/// stepping both ways, repositioning at a keyframe (with the learned aim
/// shift), the seekable-range measurement, which container index to trust,
/// the priming rules and the packet window. It does no I/O itself and starts
/// no thread: every packet and every positioning comes through the seam, which
/// each call is handed (the engine passes itself), so the lander holds no
/// reference to it.
///
/// Serial: one call at a time (the engine's callers hold the player's engine lock).
///
/// See docs/ARCHITECTURE.md, "Resolving a landing" and "The frame grid".
public final class Lander<Seam: LandingSeam> {
    public typealias Entry = PacketWindow<PacketHandle>.Entry

    /// The named budgets of the algorithm.
    public enum Budget {
        /// Positionings at a known keyframe before `position(at:)` gives up (the caller scans).
        public static var repositionAttempts: Int { 6 }
        /// Reference packets read from the start to find the first frame.
        public static var firstFrameReferencePackets: Int { 512 }
        /// Tail positionings (each twice further back) to find the last frame.
        public static var lastFrameAttempts: Int { 24 }
        /// Rounds of a step (each proves frames or reads packets; the bound only
        /// stops a demuxer that makes no progress).
        public static var stepRounds: Int { 1_000_000 }
        /// Reference packets a forward step reads per round, at most.
        public static var stepPacketsPerRound: Int { PacketWindow<PacketHandle>.maxPackets / 2 }
        /// Packets a seek reads on from the host's read position to reach a target
        /// just past the window (`continueForward`), at most.
        public static var continuationPackets: Int { PacketWindow<PacketHandle>.maxPackets / 2 }
        /// Positionings one forward scan tries (`scan`) before the media is declared unreadable.
        public static var scanAttempts: Int { 40 }
        /// Attempts after which a scan stops stepping back and reads from the first packet
        /// (the first keyframe is always found there).
        public static var scanAttemptsBeforeStart: Int { 30 }
        /// Attempts whose byte step grows by a quarter; after them it doubles (the rate is
        /// far off by then).
        public static var gentleByteSteps: Int { 12 }
        /// The smallest byte step back: one MPEG-TS packet (188 bytes).
        public static var minimumByteStep: Int64 { 188 }
        /// Packets read after an index positioning to meet the first reference packet
        /// (`resolveFromIndex`; the index's keyframe must be that packet).
        public static var indexPositionPackets: Int { PacketWindow<PacketHandle>.maxPackets }
        /// Positionings of a backward entry, each twice further back (`scanBackward`).
        public static var backwardAttempts: Int { 24 }
        /// The smallest backward byte span: a few transport packets and then some.
        public static var minimumBackwardSpan: Int64 { 4096 }
        /// A backward span is one typical GOP of bytes and this much more (a GOP's bytes vary).
        public static var backwardSpanMargin: Double { 1.25 }
        /// Past this a span, a step or a backoff in bytes or ticks stops doubling and jumps
        /// to `farthestSpan`, far from overflow (and farther than any media).
        public static var largestSpan: Int64 { Int64.max / 4 }
        /// Where a span past `largestSpan` stays.
        public static var farthestSpan: Int64 { Int64.max / 2 }
    }

    public let facts: DemuxerFacts
    public internal(set) var window: PacketWindow<PacketHandle>
    /// What is known of the frame grid.
    public private(set) var grid = FrameGrid()
    /// The per-seek state the host's packets are stamped from.
    public var stamp: PacketStamp
    /// The seekable range [first frame, last frame] in ticks, once measured.
    public private(set) var range: ClosedRange<Int64>?
    public private(set) var rangeKnown = false
    /// The measured range ends before a packet cut short by the end of the data (a
    /// truncated file: `scanLastFrame`), so its end is the last frame read whole.
    public private(set) var rangeEndsAtCut = false
    /// The first keyframe in decode order and the frames read after it that present
    /// before it (an open GOP's leading frames, which decode from data before the
    /// stream's start), measured with the range (`scanFirstFrame`). HLS: a segment's
    /// leading frames (and a segment cut mid-GOP, the frames before its first keyframe) need
    /// an earlier segment (`SegmentLanding.preRollStart`).
    public private(set) var head: SegmentHead?
    /// The container's keyframe index when trusted (see `IndexTrust`).
    public private(set) var keyIndex: KeyframeIndex?
    private var indexRead = false
    /// pts - dts of the first reference keyframe (`scanFirstFrame`): how the first seek by
    /// the container's index predicts the pts of its keyframes (`resolveFromIndex`).
    private var firstKeyframeOffset: Int64?
    private var container: ContainerIndexFacts.Container = .other
    private var containerFrameCount: Int64 = 0
    /// Learned by `position(at:)`: what to add to a keyframe's pts (or dts) so a
    /// backward seek lands exactly on it (mov shifts its index by the edit list).
    public private(set) var seekAimShift: Int64 = 0
    /// The host's read position was moved by an operation that did not land (a
    /// cancelled, failed or refused seek or step, a failed read): the next host
    /// read first puts it back at the keyframe the playhead needs, with DISCONTINUITY.
    public internal(set) var positionLost = false {
        didSet { if positionLost { endRun() } }
    }
    /// Lazy positioning: the keyframe a landing decided from memory decodes
    /// from, for the next host read, valid while `landing` is the landed frame.
    private var lazyKey: (landing: Int64, key: FrameGrid.Keyframe)?
    /// Continuation is on for this item's player (see Lander+Continuation.swift).
    public var continuation = false
    /// The host's reads are one run: since the packet flagged DISCONTINUITY, every
    /// host packet came from the contiguous window in order, so `window.cursor` is
    /// the host's read position in it.
    public internal(set) var hostRun = false
    /// Packets delivered in the current run (for `unread`).
    var runDelivered = 0
    /// The largest pts the host reported its decoder returned in this run.
    public internal(set) var reportedOutput: Int64?
    /// The window's size when `recordHostReads` last recorded it.
    var recordedCount = -1
    /// Streams the host switched off (`setStreamEnabled`): host reads skip their packets
    /// still in the window (the demuxer discards the rest), and `unread` counts only the
    /// packets the host got.
    public private(set) var disabledStreams: Set<Int32> = []
    /// Streams switched on again: their packets demuxed up to this ordinal
    /// (`PacketWindow.lastDemuxed` then) stay passed over (seek.h: "packets already
    /// buffered stay without it").
    var hiddenThrough: [Int32: UInt64] = [:]
    /// Landings that continued the host's run (for tests and stats).
    public internal(set) var continuedLandings: UInt64 = 0
    /// Packets read through the seam (a landing's `packetsRead` is its share).
    public private(set) var packetsRead: UInt64 = 0

    public init(facts: DemuxerFacts) {
        self.facts = facts
        window = PacketWindow(referenceStream: facts.referenceStream)
        stamp = PacketStamp(referenceTimeBase: PacketStamp.TimeBase(facts.priming.timeBaseNum, facts.priming.timeBaseDen),
                            referenceLandsInPackets: facts.priming.samplesAreFrames)
    }

    var ref: Int32 { facts.referenceStream }

    /// The landed frame (the playhead).
    public var landedPTS: Int64? { stamp.landedPTS }

    // MARK: Reading through the seam

    /// One packet through the seam, with the window's byte cap checked first (a
    /// hostile stream whose GOP never ends would grow it without bound). A
    /// failed read loses the read position.
    func read(_ s: Seam) throws -> Entry? {
        if window.bytes > facts.maxWindowBytes { throw EngineError(.tooLarge) }
        let r: (header: DemuxedPacket, packet: PacketHandle)?
        do {
            r = try s.read()
        } catch {
            // Part of a packet may be consumed: the demuxer is somewhere the window cannot say.
            window.demuxerMoved()
            positionLost = true
            throw error
        }
        guard let (h, p) = r else { return nil }
        packetsRead &+= 1
        return window.demuxed(Entry(header: h, presents: facts.priming.presents(h),
                                    notLandable: facts.priming.notLandable(h), packet: p))
    }

    /// Where a positioning goes.
    enum Positioning { case ticks(Int64), byte(Int64), indexTimestamp(Int64), start }

    /// Every positioning through the seam: the window learns that the demuxer moved (it is
    /// contiguous again only once emptied and refilled), and the host's read position is
    /// lost until something lands or restores it. False when the demuxer refused.
    func move(_ s: Seam, _ to: Positioning) throws -> Bool {
        window.demuxerMoved()
        positionLost = true
        switch to {
        case .ticks(let t): return try s.seek(toTicks: t)
        case .byte(let b): return b >= 0 ? try s.seek(toByte: b) : false
        case .indexTimestamp(let t): return try s.seek(toIndexTimestamp: t)
        case .start: try s.rewind(); return true
        }
    }

    func release(_ s: Seam, _ packets: [PacketHandle]) { for p in packets { s.release(p) } }

    /// Empties the window; the read position is then lost until something lands or restores it.
    public func clearWindow(_ s: Seam) {
        positionLost = true
        release(s, window.clear())
        // Every packet from now on was demuxed after any stream was switched on again.
        hiddenThrough.removeAll()
    }

    /// The host's run ends (its next packet will be a DISCONTINUITY, or not from the window).
    func endRun() {
        hostRun = false
        runDelivered = 0
        reportedOutput = nil
    }

    /// A host packet is delivered: from the window (`inWindow`), starting a run
    /// when it carries the pending DISCONTINUITY.
    func noteDelivered(startsRun: Bool, inWindow: Bool) {
        guard inWindow else { endRun(); return }
        if startsRun {
            endRun()
            hostRun = true
        }
        if hostRun { runDelivered += 1 }
    }

    /// Lets go of everything (the engine closes).
    public func close(_ s: Seam) {
        clearWindow(s)
    }

    func trimWindow(_ s: Seam) {
        release(s, window.trim(maxBytes: facts.maxWindowBytes))
        if !window.contiguous { endRun() }
    }

    /// Records what the window proves about the frame grid.
    func recordWindow() {
        guard let p = window.proof() else { return }
        grid.record(start: p.start, end: p.end, frames: p.frames, entryPoints: p.entryPoints, keyPositions: p.keyPositions)
    }

    func dropLeadingGOPs(_ s: Seam) {
        let (out, lost) = window.dropLeadingGOPs()
        release(s, out)
        if lost { positionLost = true }
    }

    /// A run the background indexer proved (`FrameGrid.record`).
    public func absorb(start: Int64, end: Int64, frames: [(pts: Int64, key: Bool, dts: Int64?)],
                       entryPoints: [FrameGrid.Keyframe], keyPositions: [Int64: Int64]) {
        grid.record(start: start, end: end, frames: frames, entryPoints: entryPoints, keyPositions: keyPositions)
    }

    /// A stream was enabled again: the window was read without it, so no seek may replay it.
    public func windowMissesStream() {
        window.markDiscontiguous()
        endRun()
    }

    /// The host switches a stream off or back on (the engine discards it in the demuxer).
    /// Off ends the host's run: packets it got before are no longer told apart from those
    /// it will not get, so `unread` could not count them back. On again: the window was
    /// read without it (`windowMissesStream`).
    public func setStreamEnabled(_ stream: Int32, _ enabled: Bool) {
        if enabled {
            guard disabledStreams.remove(stream) != nil else { return }
            hiddenThrough[stream] = window.lastDemuxed
            windowMissesStream()
        } else if disabledStreams.insert(stream).inserted {
            endRun()
        }
    }

    /// A packet host reads pass over: of a stream switched off, or buffered before it was
    /// switched on again. An entry's answer only turns from no to yes at a switch-off
    /// (which ends the run), so `unread` counts back exactly what the host got.
    func hiddenFromHost(_ e: Entry) -> Bool {
        if disabledStreams.isEmpty && hiddenThrough.isEmpty { return false }
        if disabledStreams.contains(e.header.stream) { return true }
        return hiddenThrough[e.header.stream].map { e.order <= $0 } ?? false
    }

    /// Whether the host's next packet is in the window (no I/O): a packet after the cursor
    /// the host is not to pass over.
    public var nextForHostIsBuffered: Bool {
        var i = window.cursor
        while i < window.count {
            if !hiddenFromHost(window.entries[i]) { return true }
            i += 1
        }
        return false
    }

    /// The landing the host's packets follow; `seekID` 0: a frame step.
    func land(_ pts: Int64, seekID: UInt64) {
        positionLost = false
        stamp.land(pts, seekID: seekID)
        // The next host packet is a DISCONTINUITY: a new run.
        endRun()
    }

    // MARK: Host reads

    /// The next packet for the host: from the window, else read on (appended to
    /// the window while it is contiguous, which is then kept under its caps
    /// after `body` has taken its own reference). `owned`: the window does not
    /// keep the packet, `body` takes it over. nil at the end of the stream.
    /// The read position must be in place (`positionLost` false: `restoreReadPosition`).
    /// The cursor passes a packet only once `body` took it: a `body` that fails (no memory
    /// for the host's reference) leaves it next, so no packet is skipped unseen. Packets
    /// of streams switched off, and those buffered before one was switched on again, are
    /// passed over (`hiddenFromHost`), never given to `body`.
    public func nextForHost<R>(_ s: Seam, _ body: (Entry, _ owned: Bool) throws -> R) throws -> R? {
        while true {
            if let e = window.peekNext() {
                if hiddenFromHost(e) { _ = window.takeNext(); continue }
                let startsRun = stamp.discontinuityPending
                let r = try body(e, false)
                _ = window.takeNext()
                noteDelivered(startsRun: startsRun, inWindow: true)
                return r
            }
            // Whether the window ends where the demuxer is: asked before the read (the read
            // itself puts the demuxer one packet ahead until the packet is appended).
            let appends = window.contiguous
            guard let e = try read(s) else {
                window.reachedEOF()
                return nil
            }
            if hiddenFromHost(e) {
                // Demuxed before the demuxer discarded the stream.
                if appends {
                    window.append(e)
                    window.point(at: window.count)
                    trimWindow(s)
                } else {
                    s.release(e.packet)
                }
                continue
            }
            return try deliverRead(e, appends: appends, s, body)
        }
    }

    /// A packet read for the host: kept at the end of the window when it `appends`.
    private func deliverRead<R>(_ e: Entry, appends: Bool, _ s: Seam, _ body: (Entry, _ owned: Bool) throws -> R) throws -> R {
        let startsRun = stamp.discontinuityPending
        guard appends else {
            // Not kept: if `body` fails, the packet is gone and the read position with it.
            noteDelivered(startsRun: startsRun, inWindow: false)
            do { return try body(e, true) } catch { positionLost = true; throw error }
        }
        window.append(e)
        defer { trimWindow(s) }
        let r = try body(e, false)
        window.point(at: window.count)
        noteDelivered(startsRun: startsRun, inWindow: true)
        return r
    }

    /// Puts the host's reads back at the keyframe the playhead frame (the last
    /// landing) needs, or at the start when nothing landed yet, with DISCONTINUITY.
    public func restoreReadPosition(_ s: Seam, shouldStop: () -> Bool) throws {
        if let l = landedPTS, samplesAreFrames {
            guard try position(atSample: l, s, shouldStop: shouldStop) else { throw EngineError(.invalidData) }
        } else if let l = landedPTS {
            let lazy = lazyKey.flatMap { $0.landing == l ? $0.key : nil }
            if let k = lazy ?? grid.keyframe(for: l), try position(at: k, s, shouldStop: shouldStop) {
                // positioned
            } else {
                let sc = try scanFrom(target: l, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
                window.point(at: sc.lastKeyLE?.index ?? sc.firstKey.index)
            }
        } else {
            clearWindow(s)
            _ = try move(s, .start)
        }
        positionLost = false
        stamp.restored()
    }

    /// Reads from the first packet with no landing: fresh flags (no DECODE_ONLY
    /// threshold, no DISCONTINUITY) under `seekID` (HLS: reading enters a segment).
    /// `landing`: reading enters the segment a landing is in after its pre-roll in the
    /// segment before (`preRoll`): every packet presenting before that frame is DECODE_ONLY
    /// and carries the landing, still with no DISCONTINUITY.
    public func restartFromBeginning(_ s: Seam, seekID: UInt64, landing: Int64? = nil) throws {
        clearWindow(s)
        _ = try move(s, .start)
        positionLost = false
        stamp.restart(seekID: seekID)
        if let l = landing { stamp.continueLanding(l, seekID: 0) }
    }

    /// HLS open GOP or a later segment cut mid-GOP (`SegmentLanding.preRollStart`): a landing
    /// on `pts`, a frame of a later segment that presents after every frame here, needs this
    /// segment's last GOP.
    /// Points the host's reads at the keyframe this stream's last frame needs (an exact
    /// landing on it) and moves the landing to `pts`, so every packet read here that
    /// presents before it is DECODE_ONLY and carries that landing. Returns the packets read.
    public func preRoll(landing pts: Int64, seekID: UInt64, _ s: Seam, shouldStop: () -> Bool) throws -> UInt64 {
        let start = packetsRead
        guard let r = try seekableRange(s) else { throw EngineError(.noStream) }
        _ = try resolve(LandingRequest(target: Rational(r.upperBound), wantsKeyframe: false, keyframeWindow: nil,
                                       seekID: seekID), s, shouldStop: shouldStop)
        // A lazy positioning (memory decided) still goes to the last frame's keyframe.
        if let k = lazyKey, k.landing == r.upperBound { lazyKey = (pts, k.key) }
        if stamp.discontinuityPending { stamp.land(pts, seekID: seekID) } else { stamp.continueLanding(pts, seekID: seekID) }
        return packetsRead &- start
    }

    // MARK: Positioning at a known keyframe

    /// Points the host's reads at keyframe `k`: in the window when it holds it,
    /// else by its byte offset (where the demuxer positions by byte), else by a
    /// timestamp seek to its pts (demuxers that seek by pts) or dts, corrected
    /// by the learned aim shift and backed off when the seek lands past it. False
    /// when it could not be found where the grid said (the caller scans).
    public func position(at k: FrameGrid.Keyframe, _ s: Seam, shouldStop: () -> Bool) throws -> Bool {
        if let i = window.indexOfKeyframe(presenting: k.pts) {
            window.point(at: i)
            return true
        }
        if try positionByByte(at: k, s, shouldStop: shouldStop) { return true }
        let base = facts.seeksByPTS ? k.pts : (k.dts ?? k.pts)
        var aim = base &+ seekAimShift
        var backoff: Int64 = 0
        for _ in 0..<Budget.repositionAttempts {
            clearWindow(s)
            let anchor = aim &- backoff
            if try !move(s, .ticks(anchor)) { return false }
            var found = false, passed = false
            var earlyBy: Int64?
            while let e = try read(s) {
                if shouldStop() { s.release(e.packet); throw EngineError(.cancelled) }
                if found { window.append(e); break }
                guard e.header.stream == ref, e.header.isKey, let t = e.presents else {
                    let late = e.header.stream == ref && (e.header.dts ?? Int64.min) > (k.dts ?? k.pts)
                    s.release(e.packet)
                    if late { passed = true; break }
                    continue
                }
                if t == k.pts { found = true; window.markContiguous(); window.append(e); continue }
                s.release(e.packet)
                if t > k.pts { passed = true; break }
                if backoff == 0 && earlyBy == nil { earlyBy = k.pts &- t; break }
            }
            if found {
                if backoff == 0 { seekAimShift = anchor &- base }
                // Any non-reference packets read after K stay in the window too.
                window.point(at: 0)
                return true
            }
            if let e = earlyBy {
                aim = aim &+ e
                continue
            }
            if !passed { return false }
            backoff = max(facts.ticksPerSecond, backoff &* 2)
        }
        return false
    }

    /// By a byte seek to `k`'s offset (MPEG-TS): the first reference packet read must be `k`.
    func positionByByte(at k: FrameGrid.Keyframe, _ s: Seam, shouldStop: () -> Bool) throws -> Bool {
        guard facts.positionsByByte, let offset = k.pos, offset >= 0 else { return false }
        clearWindow(s)
        guard try move(s, .byte(offset)) else { return false }
        while let e = try read(s) {
            if shouldStop() { s.release(e.packet); throw EngineError(.cancelled) }
            guard e.header.stream == ref else { s.release(e.packet); continue }
            guard e.header.isKey, e.presents == k.pts else { s.release(e.packet); return false }
            window.markContiguous()
            window.append(e)
            window.point(at: 0)
            return true
        }
        return false
    }

    // MARK: Rates

    /// The file's average bytes per tick over the seekable range.
    func fileBytesPerTick(_ r: ClosedRange<Int64>) -> Double? {
        guard let size = facts.fileSize, size > 0, r.upperBound > r.lowerBound else { return nil }
        return Double(size) / Double(r.upperBound &- r.lowerBound)
    }

    /// The bytes per tick a scan steps back by where positioning is by byte:
    /// the grid's, else the file's average; nil elsewhere or before the range is known.
    func scanBytesPerTick() -> Double? {
        guard facts.positionsByByte else { return nil }
        if let r = grid.bytesPerTick { return r }
        return range.flatMap { fileBytesPerTick($0) }
    }

    // MARK: The container's keyframe index

    /// The trusted container index, read once through the seam after the range is measured.
    func keyframeIndex(_ s: Seam) -> KeyframeIndex? {
        if indexRead { return keyIndex }
        guard let r = range else { return nil }
        indexRead = true
        guard let f = s.containerIndex() else { return nil }
        container = f.container
        containerFrameCount = f.frameCount
        keyIndex = IndexTrust.trusted(f, range: r, ticksPerSecond: facts.ticksPerSecond, hasVideo: facts.hasVideo)
        return keyIndex
    }

    /// index_mode OFF: no container index; a landing the grid does not know is scanned.
    public func disableContainerIndex() {
        indexRead = true
        keyIndex = nil
    }

    /// Where a seek for index entry `timestamp` aims: mov searches its index for
    /// `timestamp - (min_corrected_pts + dts_shift)`, a per-file constant of a
    /// few frames libavformat does not publish, so aim halfway to the next
    /// keyframe entry (the resolver checks where it landed).
    func indexAim(_ timestamp: Int64) -> Int64 {
        guard container == .mov, let e = keyIndex?.entries,
              let i = e.firstIndex(where: { $0.timestamp == timestamp }) else { return timestamp }
        let gap = i + 1 < e.count ? e[i + 1].timestamp &- timestamp : (i > 0 ? timestamp &- e[i - 1].timestamp : 0)
        return timestamp &+ max(0, gap / 2)
    }

    /// The reference stream's exact number of packets when a trusted mov index lists every sample.
    func exactFrameCount(_ s: Seam) -> Int64? {
        guard keyframeIndex(s) != nil, container == .mov, containerFrameCount > 0 else { return nil }
        return containerFrameCount
    }

    // MARK: Seekable range

    /// [first frame, last frame], measured once: the smallest landable pts of the
    /// opening packets, and the largest of the tail (positioned near the end,
    /// read to EOF, backing off when too few packets came) read whole: on a file
    /// cut short, the last frame before the cut (`scanLastFrame`). Leaves the reads
    /// at the start, with no landing.
    public func seekableRange(_ s: Seam) throws -> ClosedRange<Int64>? {
        if rangeKnown { return range }
        guard facts.seekable else { rangeKnown = true; range = nil; return nil }
        let first = try scanFirstFrame(s)
        let last = try scanLastFrame(s)
        rangeKnown = true
        if let f = first, let l = last, f <= l { range = f...l } else { range = nil }
        clearWindow(s)
        _ = try move(s, .start)
        stamp.forgetLanding()
        positionLost = false
        return range
    }

    func scanFirstFrame(_ s: Seam) throws -> Int64? {
        _ = try move(s, .start)
        var minPTS: Int64?
        var refPackets = 0, after = 0
        var sawKey = false
        var firstKey: Int64?, leading: [Int64] = [], beforeKey: [Int64] = []
        var midGOP = false
        while let e = try read(s) {
            s.release(e.packet)
            guard e.header.stream == ref else { continue }
            refPackets += 1
            if refPackets == 1 && !e.header.isKey { midGOP = true }
            if e.header.isKey {
                if !sawKey { firstKey = e.presents ?? e.header.dts }
                sawKey = true
                if firstKeyframeOffset == nil, let p = e.presents, let d = e.header.dts { firstKeyframeOffset = p &- d }
            }
            if !e.notLandable, let t = e.presents ?? e.header.dts {
                if minPTS == nil || t < minPTS! { minPTS = t; after = 0 } else { after += 1 }
                if sawKey, let k = firstKey, t < k { leading.append(t) }
                if !sawKey { beforeKey.append(t) }
            }
            // Enough packets past the smallest pts that nothing earlier can follow.
            if sawKey && minPTS != nil && after > max(4, 2 * facts.settleCount) { break }
            if refPackets > Budget.firstFrameReferencePackets { break }
        }
        // Cut mid-GOP (HLS `split_by_time`): the frames read before the first keyframe present
        // before it too, and need an earlier segment's GOP; with no keyframe within the
        // budget, every frame read (SegmentLanding.preRollStart).
        if midGOP {
            head = SegmentHead(keyframe: firstKey, leading: beforeKey.filter { t in firstKey.map { t < $0 } ?? true } + leading,
                               startsMidGOP: true)
        } else {
            head = firstKey.map { SegmentHead(keyframe: $0, leading: leading) }
        }
        return minPTS
    }

    /// The largest landable pts of the tail. A file cut short (an interrupted
    /// download, `head -c`) ends in a packet whose bytes are not all there
    /// (`DemuxedPacket.isCut`: flagged corrupt, or past the file's size): that
    /// packet and every reference packet after it in decode order are no frames
    /// of the range, which ends at the last frame read whole before it, and
    /// `rangeEndsAtCut` says so. A cut packet followed by a whole reference
    /// packet is damage inside the data, not its end: the tail counts as before.
    /// No I/O beyond the tail's reads.
    func scanLastFrame(_ s: Seam) throws -> Int64? {
        let endTicks = facts.durationEndTicks ?? Budget.largestSpan
        var backoff = facts.ticksPerSecond
        rangeEndsAtCut = false
        for _ in 0..<Budget.lastFrameAttempts {
            let target = endTicks &- backoff
            let atStart = target <= facts.originTicks
            if atStart { _ = try move(s, .start) } else if try !move(s, .ticks(target)) { _ = try move(s, .start) }
            var tail = TailScan()
            while let e = try read(s) {
                s.release(e.packet)
                let cut = e.header.isCut(fileSize: facts.fileSize)
                let onRef = e.header.stream == ref
                var last: Int64?
                if onRef, !e.notLandable, let t = e.presents ?? e.header.dts { last = lastFrame(of: e, presenting: t) }
                tail.add(onRef: onRef, cut: cut, lastFrame: last)
            }
            let (m, whole) = tail.result
            if m != nil && whole > 2 * facts.settleCount + 2 || atStart {
                rangeEndsAtCut = tail.endsAtCut && m != nil
                return m
            }
            backoff = backoff > Budget.largestSpan ? backoff : backoff * 2
        }
        return nil
    }

    // MARK: Resolve

    /// The landing when memory decides it (the frame grid, or the trusted index
    /// with the presentation times known): no positioning, no reading. The host's
    /// reads are re-pointed inside the window when it holds the landing's
    /// keyframe, else the next host read positions (`positionLost`, lazily at the
    /// keyframe). The seam is crossed at most once per item (the index facts).
    public func resolveFromMemory(_ request: LandingRequest, _ s: Seam) -> Landing? {
        guard rangeKnown, facts.seekable else { return nil }
        if samplesAreFrames { return resolveSamplesFromMemory(request, s) }
        recordHostReads()
        if request.atOrAfter, samplesAreFrames { return resolveSamplesFromMemory(request.coveringAtCeil, s) }
        var known = request.atOrAfter ? LandingRules.fromGridAtOrAfter(request, grid: grid)
                                      : LandingRules.fromGrid(request, grid: grid)
        if known == nil, request.wantsKeyframe, request.keyframeWindow != nil, let index = keyframeIndex(s) {
            known = LandingRules.fromIndexInMemory(request, index: index, grid: grid)
        }
        guard let k = known else { return nil }
        let landing = Landing(pts: k.pts, isKeyframe: k.pts == k.key.pts, resolution: k.resolution,
                              coversTarget: k.covers, packetsRead: 0)
        let inWindow = window.indexOfKeyframe(presenting: k.key.pts)
        if continues(to: k.pts, key: k.key) {
            continueLanding(k.pts, seekID: request.seekID)
            return landing
        }
        // Continuing would need reading on past the window (its keyframe was delivered in
        // this run, the landing's packet not read yet): that is I/O, the worker's
        // (`continueForward`).
        if continuation, hostRun, window.contiguous, let ki = inWindow, ki < window.cursor,
           indexOfFrame(presenting: k.pts) == nil {
            return nil
        }
        land(k.pts, seekID: request.seekID)
        if let i = inWindow {
            window.point(at: i)
        } else {
            // The window is of another place: let it go, so that nothing (a step
            // extending it) mistakes it for the landing's; the next read refills it.
            clearWindow(s)
            lazyKey = (k.pts, k.key)
            positionLost = true
        }
        return landing
    }

    /// Resolves `request` in order: memory (unless the caller already asked it,
    /// `request.memoryChecked`), the trusted container index for nearest-keyframe
    /// seeks, then the scan. Leaves the packets from the landing's keyframe in the
    /// window and the host's reads pointed at it.
    public func resolve(_ request: LandingRequest, _ s: Seam, shouldStop: () -> Bool) throws -> Landing {
        guard facts.seekable else { throw EngineError(.unsupported) }
        let start = packetsRead
        if !request.memoryChecked, let l = resolveFromMemory(request, s) { return l }
        if request.atOrAfter { return try resolveAtOrAfter(request, s, start: start, shouldStop: shouldStop) }
        if samplesAreFrames { return try resolveSamples(request, s, shouldStop: shouldStop) }
        if let l = try continueForward(request, s, shouldStop: shouldStop) { return l }
        if request.wantsKeyframe, request.keyframeWindow != nil, var index = keyframeIndex(s) {
            let d = try resolveFromIndex(request, index: &index, s, predictedOffset: firstKeyframeOffset,
                                         shouldStop: shouldStop)
            keyIndex = index
            if let d = d {
                window.markContiguous()
                recordWindow()
                window.point(at: d.startIndex)
                land(d.pts, seekID: request.seekID)
                return Landing(pts: d.pts, isKeyframe: d.isKeyframe, resolution: d.resolution,
                               coversTarget: d.coversTarget, packetsRead: packetsRead &- start)
            }
        }
        let scan = try scanFrom(target: request.targetFloor, exactTarget: request.target, window: request.keyframeWindow,
                                wantsKeyframe: request.wantsKeyframe, s, shouldStop: shouldStop)
        let d = LandingRules.decide(request, scan: scan)
        window.point(at: d.startIndex)
        land(d.pts, seekID: request.seekID)
        return Landing(pts: d.pts, isKeyframe: d.isKeyframe, resolution: d.resolution, coversTarget: d.coversTarget,
                       packetsRead: packetsRead &- start)
    }

    /// The first frame at or after the target (`LandingRequest.atOrAfter`; memory was asked
    /// first): the exact landing at `targetCeil`, which is that frame when one starts there;
    /// else the frame after it, by a one-frame step along the grid (which reads on only when
    /// the scan did not already prove it). Either way the host's packets start at the
    /// keyframe the landed frame needs, stamped as an exact landing's (DECODE_ONLY before it).
    /// Raw PCM: the sample at `targetCeil`. A target past the last frame was clamped to it
    /// (the player clamps first), so a frame at or after it always exists.
    func resolveAtOrAfter(_ request: LandingRequest, _ s: Seam, start: UInt64,
                          shouldStop: () -> Bool) throws -> Landing {
        var exact = request.coveringAtCeil
        exact.memoryChecked = true
        if samplesAreFrames { return try resolveSamples(exact, s, shouldStop: shouldStop) }
        exact.memoryChecked = false
        var first = try resolve(exact, s, shouldStop: shouldStop)
        first.packetsRead = packetsRead &- start
        if first.pts >= request.targetCeil {
            first.coversTarget = Rational(first.pts) == request.target
            return first
        }
        guard let st = try step(from: first.pts, forward: true, count: 1, seekID: request.seekID, s,
                                shouldStop: shouldStop) else {
            // No frame after it: only when the range is unknown (nothing was clamped).
            first.coversTarget = false
            return first
        }
        let key = grid.keyframe(for: st.pts)
        return Landing(pts: st.pts, isKeyframe: key.map { $0.pts == st.pts && $0.landable } ?? false,
                       resolution: .coveringFrame, coversTarget: Rational(st.pts) == request.target,
                       packetsRead: packetsRead &- start)
    }

    /// The resolver's scan over the window; records what it proves.
    func scanFrom(target T: Int64, exactTarget: Rational? = nil, window kw: ClosedRange<Int64>?, wantsKeyframe: Bool,
                  _ s: Seam, shouldStop: () -> Bool) throws -> LandingScan {
        let rate = scanBytesPerTick()
        let gap = rate != nil ? grid.typicalKeyframeGap : nil
        let sc = try scan(target: T, exactTarget: exactTarget, window: kw, wantsKeyframe: wantsKeyframe,
                          firstFrame: range?.lowerBound ?? facts.originTicks, bytesPerTick: rate, keyframeGap: gap,
                          keyframeAnchor: gap != nil ? grid.nearestKnownKeyframe(to: T) : nil, s, shouldStop: shouldStop)
        window.markContiguous(atEOF: sc.reachedEnd)
        recordWindow()
        return sc
    }

    // MARK: Frame stepping

    /// Moves `count` frames from `from` (nil: the first frame) along the grid and
    /// points the host's reads at the keyframe the new frame needs. nil when
    /// there are not that many frames that way.
    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64, _ s: Seam,
                     shouldStop: () -> Bool) throws -> StepLanding? {
        guard facts.seekable else { throw EngineError(.unsupported) }
        let start = packetsRead
        guard let r = try seekableRange(s) else { throw EngineError(.unsupported) }
        let f0 = min(max(from ?? r.lowerBound, r.lowerBound), r.upperBound)
        // Refused without reading when the range (or the exact frame count) proves it impossible.
        if LandingRules.stepIsImpossible(count: count, forward: forward, from: f0, range: r,
                                            frameCount: exactFrameCount(s)) {
            return nil
        }
        if grid.frame(from: f0, offset: 0) == nil {
            _ = try scanFrom(target: f0, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
        }
        var target: Int64?
        for _ in 0..<Budget.stepRounds {
            if let t = grid.frame(from: f0, offset: forward ? count : -count) { target = t; break }
            guard let cov = grid.coverage(around: f0) else { return nil }
            if forward {
                if cov.upperBound == Int64.max { return nil }
                // As many reference packets as frames are still missing (at least one).
                let missing = count - (grid.framesKnown(after: f0) ?? 0)
                try extendRun(cov, packets: min(max(1, missing), Budget.stepPacketsPerRound), s, shouldStop: shouldStop)
            } else {
                if cov.lowerBound <= r.lowerBound { return nil }
                try scanGOPBefore(cov, range: r, s, shouldStop: shouldStop)
                guard let now = grid.coverage(around: f0), now.lowerBound < cov.lowerBound else {
                    // The frames before the proven run cannot be connected to it:
                    // packets between are missing or unreadable (the media's fault).
                    throw EngineError(.invalidData)
                }
            }
        }
        guard let t = target, let k = grid.keyframe(for: t) else { return nil }
        if continues(to: t, key: k) {
            continueLanding(t, seekID: seekID)
            return StepLanding(pts: t, packetsRead: packetsRead &- start)
        }
        if try !position(at: k, s, shouldStop: shouldStop) {
            let sc = try scanFrom(target: t, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
            window.point(at: sc.lastKeyLE?.index ?? sc.firstKey.index)
        }
        land(t, seekID: seekID)
        return StepLanding(pts: t, packetsRead: packetsRead &- start)
    }

    /// Proves the GOP before the run `cov`: by byte offset where timestamp seeks
    /// land imprecisely (MPEG-TS), else a scan back from the frame before it;
    /// then reads on until the frames up to the run are proven (Matroska has no
    /// dts after a seek, so the scan may stop short).
    func scanGOPBefore(_ cov: ClosedRange<Int64>, range r: ClosedRange<Int64>, _ s: Seam,
                       shouldStop: () -> Bool) throws {
        var scanned = false
        if facts.positionsByByte, let k = grid.keyframe(for: cov.lowerBound), k.pts == cov.lowerBound,
           let back = Self.backwardByteSpan(before: k, grid: grid, ticksPerSecond: facts.ticksPerSecond,
                                            fallbackBytesPerTick: fileBytesPerTick(r)) {
            let sc = try scanBackward(into: k, back: back, s, shouldStop: shouldStop)
            if let sc = sc {
                window.markContiguous(atEOF: sc.reachedEnd)
                recordWindow()
                scanned = true
            }
        }
        if !scanned {
            _ = try scanFrom(target: cov.lowerBound &- 1, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
        }
        try extendWindow(untilDTS: cov.lowerBound &- 1, s, shouldStop: shouldStop)
    }

    /// Reads on until the window's largest reference dts reaches `d` (or EOF).
    func extendWindow(untilDTS d: Int64, _ s: Seam, shouldStop: () -> Bool) throws {
        guard window.contiguous else { return }
        while !window.atEOF && (window.maxReferenceDTS ?? Int64.min) < d {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let e = try read(s) else { window.reachedEOF(); break }
            window.append(e)
        }
        recordWindow()
    }

    /// Extends the proven run `cov` forward: `n` more reference packets into the
    /// window when it is contiguous and starts inside the run, else a scan from
    /// the run's end. A window that outgrows its cap drops whole GOPs from its
    /// front (the run stays proven in the grid), so a long step never re-reads.
    func extendRun(_ cov: ClosedRange<Int64>, packets n: Int, _ s: Seam, shouldStop: () -> Bool) throws {
        let joins = window.contiguous && window.entries.first.flatMap { $0.presents }.map { cov.contains($0) } == true
        if !joins {
            _ = try scanFrom(target: cov.upperBound, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
            trimWindow(s)
            return
        }
        var refs = 0
        while refs < n {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let e = try read(s) else { window.reachedEOF(); break }
            if e.header.stream == ref { refs += 1 }
            window.append(e)
            if window.count > PacketWindow<PacketHandle>.maxPackets || window.bytes > facts.maxWindowBytes / 2 {
                recordWindow()
                dropLeadingGOPs(s)
            }
        }
        recordWindow()
    }
}

/// Which container index to trust: only one known to be complete, because a
/// keyframe missing from the index must not exist (docs/ARCHITECTURE.md, "The
/// container's keyframe index").
public enum IndexTrust {
    /// - mov/MP4: the sample table lists every sample: complete when it has as
    ///   many entries as the stream has frames (not fragmented) and they reach
    ///   the last frame measured from the file's end;
    /// - Matroska: libavformat's cues (it cues every video keyframe), at least
    ///   three, reaching both ends with no gap over twice the typical (lower median) one;
    /// - everything else: none.
    public static func trusted(_ f: ContainerIndexFacts, range r: ClosedRange<Int64>, ticksPerSecond: Int64,
                               hasVideo: Bool) -> KeyframeIndex? {
        guard f.entries.count > 1 else { return nil }
        let keys = f.entries.filter(\.isKey).map {
            KeyframeIndex.Entry(timestamp: $0.timestamp, pts: nil, landable: !$0.isDiscard)
        }
        guard !keys.isEmpty else { return nil }
        let lastTimestamp = f.entries.map(\.timestamp).max() ?? Int64.min
        switch f.container {
        case .mov:
            guard f.frameCount == Int64(f.entries.count), lastTimestamp &+ ticksPerSecond >= r.upperBound else { return nil }
        case .matroska:
            guard hasVideo, f.writtenByLavf else { return nil }
            let ts = keys.map(\.timestamp)
            guard ts.count >= 3, ts.first! <= r.lowerBound else { return nil }
            var gaps = zip(ts.dropFirst(), ts).map { $0 &- $1 }
            gaps.sort()
            let typical = gaps[(gaps.count - 1) / 2]
            guard typical > 0, gaps.last! <= 2 &* typical, r.upperBound &- ts.last! <= 2 &* typical else { return nil }
        case .other:
            return nil
        }
        return KeyframeIndex(entries: keys, timestampIsPTS: f.container == .matroska)
    }
}
