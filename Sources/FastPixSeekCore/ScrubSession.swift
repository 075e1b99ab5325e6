// ScrubState (the C type fpx_scrub_state) is generated from seek.h: ABIEnums.swift.
extension ScrubState {
    public var isActive: Bool { self != .idle }
}

/// A throttled position during a drag. The C type is `fpx_scrub_position`.
public struct ScrubPosition: Hashable, Sendable {
    public var time: MediaTime
    public var sampleCount: UInt64
}

/// What an ended gesture produced. The C type is `fpx_scrub_result`.
public struct ScrubResult: Sendable {
    /// nil when the settling seek was cancelled.
    public var outcome: SeekOutcome?
    public var sampleCount: UInt64
    public var wasCancelled: Bool { outcome == nil }
}

/// Coalesces a scrub gesture into one seek.
///
/// `update` issues no seek, allocates nothing and takes only this session's
/// own lock, so it is safe at touch rate. Positions reach listeners at most
/// once per `positionThrottle`; the last position of a burst is never lost:
/// it is delivered one throttle interval after the previous delivery, or at
/// `end`/`cancel`, whichever comes first. `end` issues exactly one seek.
///
/// Edge cases: `begin` while scrubbing restarts the gesture (sample count 0,
/// no state event); `begin` while settling moves to scrubbing and the settling
/// seek is superseded by the next `end` like any newer seek (its end callback
/// still runs once); `update`/`end` without `begin` fail with `.invalidState`;
/// non-numeric times fail with `.invalidTime`; destroying the player cancels a
/// settling seek, whose end callback reports `wasCancelled`.
// @unchecked Sendable: every mutable field is guarded by `m`; `player` is immutable.
public final class ScrubSession: @unchecked Sendable {
    public static let defaultPositionThrottleNanoseconds =
        UInt64(ABIConstants.FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS) * 1_000_000

    unowned let player: Player
    private let m = Monitor()
    private var state = ScrubState.idle
    private var samples: UInt64 = 0
    private var latest = MediaTime.zero
    private var throttle = ScrubSession.defaultPositionThrottleNanoseconds
    private var lastEmit: UInt64 = 0
    private var trailing = false
    private var timerArmed = false
    /// The gesture whose end seek is settling. Set, with the state, before the
    /// seek is issued: its completion may run before `player.seek` returns.
    private var settlingGesture: UInt64 = 0
    private var nextGesture: UInt64 = 1
    /// The deadline of the next trailing-position job queued on the shared timer thread.
    private var scheduledFor: UInt64?
    /// A job is posting a trailing position now (`shutdown` waits for it).
    private var firing = false
    private var stopping = false

    init(player: Player) { self.player = player }

    public var currentState: ScrubState { m.locked { state } }

    public var positionThrottleNanoseconds: UInt64 {
        get { m.locked { throttle } }
        set {
            m.locked {
                throttle = newValue
                if timerArmed { scheduleLocked(lastEmit &+ throttle) }
            }
        }
    }

    /// Starts a gesture at `time`. The C function is `fpx_scrub_begin`.
    public func begin(at time: MediaTime) throws {
        guard time.isNumeric else { throw ErrorCode.invalidTime }
        let changed: Bool = try m.locked {
            guard !stopping else { throw ErrorCode.invalidHandle }
            let was = state
            state = .scrubbing
            samples = 0
            latest = time
            trailing = false
            lastEmit = 0
            return was != .scrubbing
        }
        if changed { postState(.scrubbing) }
    }

    /// Records a sample. Issues no seek. The C function is `fpx_scrub_update`.
    public func update(to time: MediaTime) throws {
        guard time.isNumeric else { throw ErrorCode.invalidTime }
        m.lock()
        guard state == .scrubbing else { m.unlock(); throw ErrorCode.invalidState }
        samples &+= 1
        latest = time
        let now = monotonicNanoseconds()
        if now &- lastEmit >= throttle {
            lastEmit = now
            trailing = false
            let p = ScrubPosition(time: time, sampleCount: samples)
            m.unlock()
            postPosition(p)
            return
        }
        trailing = true
        if !timerArmed {
            timerArmed = true
            scheduleLocked(lastEmit &+ throttle)
        }
        m.unlock()
    }

    /// Ends the gesture with exactly one seek. The callback runs once, after
    /// the seek completes. The C function is `fpx_scrub_end`.
    public func end(at time: MediaTime, precision: SeekPrecision, convention: FrameConvention = .onScreen,
                    completion: (@Sendable (ScrubResult) -> Void)?) throws -> UInt64 {
        let target = try SeekTarget(time: time, precision: precision, convention: convention)
        let (count, flush, gesture): (UInt64, ScrubPosition?, UInt64) = try m.locked {
            guard state == .scrubbing else { throw ErrorCode.invalidState }
            let f = trailing ? ScrubPosition(time: latest, sampleCount: samples) : nil
            trailing = false
            state = .settling
            let g = nextGesture
            nextGesture &+= 1
            settlingGesture = g
            return (samples, f, g)
        }
        if let f = flush { postPosition(f) }
        postState(.settling)
        do {
            return try player.seek(target) { [self] outcome in
                self.settled(outcome, gesture: gesture, sampleCount: count, completion: completion)
            }
        } catch {
            let idle: Bool = m.locked {
                guard state == .settling && settlingGesture == gesture else { return false }
                state = .idle
                return true
            }
            if idle { postState(.idle) }
            throw error
        }
    }

    /// Abandons the gesture. Issues no seek; nothing to undo, since updates
    /// never moved the playhead. While settling, cancels the settling seek.
    /// The C function is `fpx_scrub_cancel`.
    public func cancel() throws {
        let (was, flush): (ScrubState, ScrubPosition?) = m.locked {
            let w = state
            var f: ScrubPosition?
            if w == .scrubbing {
                f = trailing ? ScrubPosition(time: latest, sampleCount: samples) : nil
                trailing = false
                state = .idle
            }
            return (w, f)
        }
        switch was {
        case .idle: return
        case .scrubbing:
            if let f = flush { postPosition(f) }
            postState(.idle)
        case .settling:
            try player.cancelPendingSeeks()
        }
    }

    /// Runs on the delivery thread, inside the seek's completion.
    private func settled(_ outcome: SeekOutcome, gesture: UInt64, sampleCount: UInt64,
                         completion: (@Sendable (ScrubResult) -> Void)?) {
        let becameIdle: Bool = m.locked {
            if state == .settling && settlingGesture == gesture { state = .idle; return true }
            return false
        }
        if becameIdle { player.notifyListenersNow { $0.onScrubStateChanged(.idle) } }
        completion?(ScrubResult(outcome: outcome.reason == .cancelled ? nil : outcome, sampleCount: sampleCount))
    }

    private func postState(_ s: ScrubState) { player.postToListeners { $0.onScrubStateChanged(s) } }
    private func postPosition(_ p: ScrubPosition) { player.postToListeners { $0.onScrubPositionChanged(p) } }

    /// Queues a trailing-position job at `due` on the shared timer thread (with `m`
    /// held), unless one at or before `due` is queued already: that one reschedules.
    private func scheduleLocked(_ due: UInt64) {
        if let s = scheduledFor, s <= due { return }
        scheduledFor = due
        Executor.timers.after(due) { [weak self] in self?.fire() }
    }

    /// Delivers the trailing position when its throttle interval is up (on the
    /// shared timer thread).
    private func fire() {
        m.lock()
        let now = monotonicNanoseconds()
        if let s = scheduledFor, s <= now { scheduledFor = nil }
        guard !stopping, timerArmed else { m.unlock(); return }
        let due = lastEmit &+ throttle
        if now < due {
            scheduleLocked(due)
            m.unlock()
            return
        }
        timerArmed = false
        if trailing && state == .scrubbing {
            trailing = false
            lastEmit = now
            let p = ScrubPosition(time: latest, sampleCount: samples)
            firing = true
            m.unlock()
            postPosition(p)
            m.lock()
            firing = false
            m.broadcast()
        }
        m.unlock()
    }

    /// From here on no trailing position is posted (a job posting one now is waited for).
    func shutdown() {
        m.locked {
            stopping = true
            while firing { m.wait() }
        }
    }
}
