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
/// Where each part is: this file holds the lander's state, its reads and positionings
/// through the seam and the host's reads; Lander+Resolve.swift the order of resolution;
/// Lander+Rules.swift the pure choices (`LandingRules`); Lander+Scan.swift the scans;
/// Lander+Step.swift frame steps; Lander+Position.swift positioning at a known keyframe;
/// Lander+Range.swift the seekable range and the container's index; Lander+Samples.swift
/// raw PCM; Lander+Continuation.swift continuation.
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
        /// Reference packets read past the smallest pts before it is the first frame (no
        /// earlier one can follow): twice the reorder depth (`settleCount`), at least 4.
        public static func firstFrameSettlePackets(settleCount: Int) -> Int { max(4, 2 * settleCount) }
        /// Whole reference packets a tail read gives before its largest pts is the last
        /// frame (else it backs off further): twice the reorder depth, and 2.
        public static func lastFrameTailPackets(settleCount: Int) -> Int { 2 * settleCount + 2 }
    }

    public let facts: DemuxerFacts
    public internal(set) var window: PacketWindow<PacketHandle>
    /// What is known of the frame grid.
    public private(set) var grid = FrameGrid()
    /// The per-seek state the host's packets are stamped from.
    public var stamp: PacketStamp
    /// The seekable range [first frame, last frame] in ticks, once measured.
    public internal(set) var range: ClosedRange<Int64>?
    public internal(set) var rangeKnown = false
    /// The measured range ends before a packet cut short by the end of the data (a
    /// truncated file: `scanLastFrame`), so its end is the last frame read whole.
    public internal(set) var rangeEndsAtCut = false
    /// The first keyframe in decode order and the frames read after it that present
    /// before it (an open GOP's leading frames, which decode from data before the
    /// stream's start), measured with the range (`scanFirstFrame`). HLS: a segment's
    /// leading frames (and a segment cut mid-GOP, the frames before its first keyframe) need
    /// an earlier segment (`SegmentLanding.preRollStart`).
    public internal(set) var head: SegmentHead?
    /// The container's keyframe index when trusted (see `IndexTrust`).
    public internal(set) var keyIndex: KeyframeIndex?
    var indexRead = false
    /// pts - dts of the first reference keyframe (`scanFirstFrame`): how the first seek by
    /// the container's index predicts the pts of its keyframes (`resolveFromIndex`).
    var firstKeyframeOffset: Int64?
    var container: ContainerIndexFacts.Container = .other
    var containerFrameCount: Int64 = 0
    /// Learned by `position(at:)`: what to add to a keyframe's pts (or dts) so a
    /// backward seek lands exactly on it (mov shifts its index by the edit list).
    public internal(set) var seekAimShift: Int64 = 0
    /// The host's read position was moved by an operation that did not land (a
    /// cancelled, failed or refused seek or step, a failed read): the next host
    /// read first puts it back at the keyframe the playhead needs, with DISCONTINUITY.
    public internal(set) var positionLost = false {
        didSet { if positionLost { endRun() } }
    }
    /// Lazy positioning: the keyframe a landing decided from memory decodes
    /// from, for the next host read, valid while `landing` is the landed frame.
    var lazyKey: (landing: Int64, key: FrameGrid.Keyframe)?
    /// Continuation is on for this item's player (see Lander+Continuation.swift).
    public var continuation = false
    /// The host's reads are one run: since the packet flagged DISCONTINUITY, every
    /// host packet came from the contiguous window in order, so `window.cursor` is
    /// the host's read position in it.
    public internal(set) var hostRun = false
    /// The host's last read in this run returned the end of the stream. A host drains its
    /// decoder there (its last frames come out only then), so the run does not continue
    /// (`continues(to:key:)`); packets given back (`unread`) mean its decoder never saw
    /// the end, and the run continues again.
    public internal(set) var hostReachedEnd = false
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
        hostReachedEnd = false
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
                if hostRun { hostReachedEnd = true }
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
}
