import FastPixSeekCore

/// The playlist feed of an HLS item: the media playlist's current window and what the
/// tracker knows, guarded by one lock (`HLSPlaylistFeed.m` in Sync.swift's lock order), and
/// the live reloads. A reload is a job on the shared executor (`Executor.network`), queued
/// by the shared timer when due (RFC 8216 6.3.4: a target duration, half of one after an
/// unchanged reload); the item owns no thread. Every member is safe from any thread.
// @unchecked Sendable: the mutable state is guarded by `m`; the rest is immutable.
final class HLSPlaylistFeed: @unchecked Sendable {
    let policy: IOPolicy
    /// Playlist fetches (the open's and the reloads'); interrupted for good at close.
    let fetchGuard: IOGuard
    let mediaURL: String
    /// The media playlist came from the network (or through a playlist that did):
    /// everything it names must be http or https.
    let remote: Bool

    private let m = Monitor()
    private var tracker = HLSLiveTracker()
    /// The tracker's window with item-timeline starts, rebuilt at each update.
    private var segments = HLSFeed.Window()
    private var targetDuration = 0
    private var holdBack = Rational(0)
    private var endList = false
    private var closing = false
    private var stalled = false
    private var lastChange: UInt64 = 0
    private var reloadError: ErrorCode?
    /// A reload job is running (close waits for it).
    private var reloading = false
    /// An ended (VOD) playlist's last frame, item ticks, with the segment it is in (see
    /// HLSFeed.learnLastFrame).
    private var lastFrameValue: (sequence: Int64, ticks: Int64)?
    private var holes = HoleReport()

    /// Added to the tracker's base: a rendition feed's first segment on the item timeline.
    let shift: Rational

    init(policy: IOPolicy, fetchGuard: IOGuard, mediaURL: String, remote: Bool, media: HLSMediaPlaylist,
         shift: Rational = Rational(0), holeSink: HLSPlaylistFeed? = nil) {
        self.policy = policy
        self.shift = shift
        self.holeSink = holeSink
        self.fetchGuard = fetchGuard
        self.mediaURL = mediaURL
        self.remote = remote
        tracker.update(media)
        adopt(media)
        lastChange = monotonicNanoseconds()
    }

    /// Takes the tracker's current window (lock held).
    private func adopt(_ media: HLSMediaPlaylist) {
        segments = HLSFeed.Window(list: media.segments, base: tracker.baseOffset + shift)
        targetDuration = media.targetDuration
        holdBack = media.liveEdgeOffset
        endList = !media.isLive
    }

    // MARK: Reading the feed

    var window: HLSFeed.Window { m.locked { segments } }

    var snapshot: (segs: HLSFeed.Window, hold: Rational, live: Bool, td: Int) {
        m.locked { (segments, holdBack, !endList, targetDuration) }
    }

    var isClosing: Bool { m.locked { closing } }
    var isEnded: Bool { m.locked { endList } }
    var targetDurationNow: Int { m.locked { targetDuration } }

    var lastFrame: (sequence: Int64, ticks: Int64)? {
        get { m.locked { lastFrameValue } }
        set { m.locked { lastFrameValue = newValue } }
    }

    /// A rendition feed's holes are also counted in its variant's feed (the item's report).
    let holeSink: HLSPlaylistFeed?

    /// HLS holes met (seek.h, "Gaps"): true when `sequence` is new.
    func recordHole(sequence: Int64, reason: HoleReason, playlist: Int = 0) -> Bool {
        let new = m.locked { holes.record(sequence: sequence, reason: reason, playlist: playlist) }
        // Outside `m`: leaf locks are never nested.
        if new, let sink = holeSink { _ = sink.recordHole(sequence: sequence, reason: reason, playlist: 1) }
        return new
    }

    var holeReport: HoleReport { m.locked { holes } }

    /// Forgets the holes outside this feed's window `window` (MSNs), here and, for a
    /// rendition feed, in the item's report (issue 28.8). Returns how many are remembered.
    @discardableResult
    func forgetHoles(outside window: ClosedRange<Int64>) -> Int {
        let n = m.locked { holes.forget(playlist: 0, outside: window); return holes.remembered }
        // Outside `m`: leaf locks are never nested.
        holeSink?.forgetHoles(playlist: 1, outside: window)
        return n
    }

    private func forgetHoles(playlist: Int, outside window: ClosedRange<Int64>) {
        m.locked { holes.forget(playlist: playlist, outside: window) }
    }

    func segment(_ sequence: Int64) -> HLSFeed.Segment? {
        m.locked { segments.index(ofSequence: sequence).map { segments[$0] } }
    }

    /// The segment `sequence`, waiting for a live playlist to publish it.
    func waitForSegment(_ sequence: Int64, shouldStop: () -> Bool) throws -> HLSFeed.Segment {
        let deadline = HLSStall.publishWait(timeoutNanoseconds: policy.timeoutNanoseconds,
                                            targetDuration: targetDurationNow).map { Deadline.after($0) }
        while true {
            let found: HLSFeed.Segment? = try m.locked {
                if closing { throw EngineError(.cancelled) }
                if let k = segments.index(ofSequence: sequence) { return segments[k] }
                if let first = segments.first, sequence < first.sequence { throw EngineError(.expired) }
                if endList { throw EngineError(.eof) }
                if stalled { throw EngineError(.stalled) }
                if let d = deadline, monotonicNanoseconds() >= d { throw EngineError(reloadError ?? .stalled) }
                m.wait(until: min(deadline ?? UInt64.max, Deadline.after(50_000_000)))
                return nil
            }
            if let s = found { return s }
            // Outside `m`: the stop check is called with no feed lock held (Sync.swift,
            // callbacks).
            if shouldStop() { throw EngineError(.interrupted) }
        }
    }

    // MARK: Reloads

    /// Starts the reloads of a live playlist (none for an ended one).
    func startReloads() { m.locked { scheduleLocked() } }

    /// Queues the next reload when it is due (lock held).
    private func scheduleLocked() {
        guard !closing, !endList else { return }
        let interval = tracker.reloadInterval ?? Rational(Int64(max(targetDuration, 1)))
        let waitNS = UInt64(clamping: max((interval * Rational(1_000_000_000)).floor, 100_000_000))
        Executor.timers.after(monotonicNanoseconds() &+ waitNS) { [weak self] in
            // The timer thread only queues: the fetch runs on a pool thread.
            Executor.network.run { [weak self] in self?.reloadOnce() }
        }
    }

    private func reloadOnce() {
        let go: Bool = m.locked {
            if closing { return false }
            reloading = true
            return true
        }
        guard go else { return }
        do {
            if case .media(let media) = try PlaylistLoad.load(mediaURL, guard: fetchGuard, fromRemote: remote,
                                                              policy: policy).0 {
                m.locked {
                    let delta = tracker.update(media)
                    adopt(media)
                    let now = monotonicNanoseconds()
                    if !delta.unchanged { lastChange = now; stalled = false; reloadError = nil }
                    // A live playlist that stops growing has stalled (HLSStall).
                    if delta.unchanged && !endList && HLSStall.hasStalled(unchangedFor: now &- lastChange,
                                                                          targetDuration: targetDuration) {
                        stalled = true
                    }
                }
            }
        } catch {
            let code = (error as? EngineError)?.code ?? .io
            m.locked {
                reloadError = code
                if HLSStall.hasStalled(unchangedFor: monotonicNanoseconds() &- lastChange, targetDuration: targetDuration) {
                    stalled = true
                }
            }
        }
        m.locked {
            reloading = false
            scheduleLocked()
            m.broadcast()
        }
    }

    /// Wakes every waiter and stops the reloads (an in-flight fetch is aborted).
    func interrupt() {
        m.locked { closing = true; m.broadcast() }
        fetchGuard.interrupt()
    }

    /// `interrupt`, then waits for a running reload to finish.
    func close() {
        interrupt()
        m.locked { while reloading { m.wait() } }
    }
}
