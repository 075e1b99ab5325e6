/// The seek manager: issuing, memory-decided seeks, cancel, completion (seek.h, sections 4, 5).
extension Player {
    // MARK: Seeks

    /// Sets up the seek manager. The C function is `fpx_player_setup_seek_manager`.
    public func setupSeekManager() throws {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            seekManagerEnabled = true
            if scrubSessionStorage == nil { scrubSessionStorage = ScrubSession(player: self) }
        }
    }

    /// Issues a seek. Returns its id; the callback runs exactly once. Never blocks: a seek
    /// that memory decides (`MediaEngine.resolveFromMemory`) completes inside this call, its
    /// events queued before it returns; any other goes to the worker.
    /// The C function is `fpx_player_seek`.
    public func seek(to target: MediaTime, precision: SeekPrecision,
                     completion: (@Sendable (SeekOutcome) -> Void)?,
                     onDecided: ((SeekOutcome) -> Void)? = nil) throws -> UInt64 {
        try seek(SeekTarget(time: target, precision: precision), completion: completion, onDecided: onDecided)
    }

    /// `seek(to:precision:)` with the target already validated (`SeekTarget`, once per seek).
    public func seek(_ st: SeekTarget, completion: (@Sendable (SeekOutcome) -> Void)?,
                     onDecided: ((SeekOutcome) -> Void)? = nil) throws -> UInt64 {
        try issue(st, completion: completion, onDecided: onDecided, landInline: false).id
    }

    /// A seek its caller lands itself (`landInline`): the request, in flight, and the engine,
    /// whose lock the caller holds (taken by `issue`) until it has completed or handed off.
    struct InlineLanding {
        let req: SeekRequest
        let engine: PlayerEngine
    }

    /// Issues a seek (`seek`). With `landInline` (fpx_player_seek_wait), a seek that memory
    /// does not decide is given back to the caller to land on its own thread, with the engine
    /// lock still held, when the player is idle: the engine lock was free (tried, never
    /// waited for), no seek is queued or in flight, no job is queued, and the engine can land
    /// it. Otherwise it goes to the worker as any other.
    func issue(_ st: SeekTarget, completion: (@Sendable (SeekOutcome) -> Void)?,
               onDecided: ((SeekOutcome) -> Void)?, landInline: Bool) throws -> (id: UInt64, inline: InlineLanding?) {
        let target = st.time, precision = st.precision, convention = st.convention
        let issuedAt = monotonicNanoseconds()
        // A seek that memory decides completes here, on the calling thread, with no I/O and no
        // worker trip (docs/ARCHITECTURE.md, "The data flow of one seek"). The engine lock is
        // only tried, never waited for: an engine busy (in I/O, or indexing) sends the seek to
        // the worker as before, so this call never blocks. engineLock comes before m (Sync.swift).
        let engineHeld = engineLock.tryLock()
        var keepEngine = false
        defer { if engineHeld && !keepEngine { engineLock.unlock() } }
        return try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item else { throw ErrorCode.noItem }
            if it.status == .failed { throw ErrorCode.itemFailed }
            let id = seeks.takeID()
            stats.seeksIssued += 1
            let req = SeekRequest(id: id, item: it, target: target, precision: precision, convention: convention,
                                  callback: completion, issuedAt: issuedAt)
            req.onDecided = onDecided
            guard seekManagerEnabled else {
                completeLocked(req, pending: false, reason: .noSeekManager, clamp: .seekableRangeUnknown)
                return (id, nil)
            }
            if engineHeld && resolveFromMemoryLocked(req) { return (id, nil) }
            if engineHeld && landInline, let inline = issueInlineLocked(req) {
                keepEngine = true
                return (id, inline)
            }
            applyLocked(seeks.issue(id, req))
            m.broadcast()
            return (id, nil)
        }
    }

    /// Enters `req` in flight for its caller to land (`issue`, `landInline`), with the engine
    /// lock and `m` held: nil (nothing changed) unless the ready item's engine lands it and
    /// the player is idle (no job queued, no seek pending: `SeekManager.issueInline`).
    func issueInlineLocked(_ req: SeekRequest) -> InlineLanding? {
        let it = req.item
        guard it === item, !it.cancelled, it.status == .ready, let engine = it.engine, jobs.isEmpty,
              Self.engineLands(req, engine), let effects = seeks.issueInline(req.id, req) else { return nil }
        applyLocked(effects)
        m.broadcast()
        return InlineLanding(req: req, engine: engine)
    }

    /// Completes `req` from memory when the ready item's engine can decide its landing with no
    /// I/O (`MediaEngine.resolveFromMemory`). Called with `engineLock` (taken by a try-lock) and
    /// `m` held. False: the seek goes to the worker, with nothing changed.
    ///
    /// Order and supersede rules stay those of the worker path: with a seek in flight (its
    /// completion is still to come) it declines; seeks still queued complete as superseded
    /// first, so completions keep the order of issue.
    func resolveFromMemoryLocked(_ req: SeekRequest) -> Bool {
        let it = req.item
        guard it === item, !it.cancelled, it.status == .ready, let engine = it.engine,
              !seeks.hasInFlight, Self.engineLands(req, engine) else { return false }
        let known = engine.seekableRangeInMemory()
        guard known.known else { return false }
        let timeline = engine.timeline
        var clamp: SeekClamp = .seekableRangeUnknown
        var tolerance = MediaTime(value: 0, timescale: timeline.timeBaseDen)
        guard let request = try? Self.landingRequest(req, timeline: timeline, range: known.range, clamp: &clamp,
                                                     tolerance: &tolerance) else { return false }
        guard let landing = engine.resolveFromMemory(request) else {
            // Memory was asked and did not decide: the worker goes straight to the index or the
            // scan (memory is checked once per seek).
            req.memoryDeclined = true
            return false
        }
        // As on the worker path: queued seeks superseded, and a read blocked in I/O stops (the
        // landing moved the read position). Nothing is in flight (checked above). The seek
        // never enters the pending list: it completes here, once.
        applyLocked(seeks.issueDecided(req.id) ?? [])
        completeLocked(req, pending: false, reason: .completed, clamp: clamp, landing: landing, timeline: timeline,
                       tolerance: tolerance, streamIndex: engine.referenceStream)
        return true
    }

    /// The landing request for `req` on `timeline`, with `range` the seekable range in ticks
    /// (nil: unknown): the clamp, the target in exact ticks and, for nearest-keyframe
    /// precision, the keyframe window and the tolerance the outcome reports.
    static func landingRequest(_ req: SeekRequest, timeline: Timeline, range: ClosedRange<Int64>?,
                                       clamp: inout SeekClamp, tolerance: inout MediaTime) throws -> LandingRequest {
        clamp = SeekClamp.clamp(req.target, into: range.map {
            (timeline.itemTime(ofTicks: $0.lowerBound), timeline.itemTime(ofTicks: $0.upperBound))
        })
        let target = clamp.clampedTarget(requested: req.target)
        guard let ticks = timeline.ticks(of: target) else { throw ErrorCode.invalidTime }
        var window: ClosedRange<Int64>?
        var wantsKeyframe = false
        if case .nearestKeyframe(let tol) = req.precision {
            wantsKeyframe = true
            // Exact: the tolerance is never rounded to the stream's ticks.
            guard let tolTicks = timeline.ticks(ofDuration: tol) else { throw ErrorCode.invalidArgument }
            tolerance = tol
            window = LandingRules.keyframeWindow(target: ticks, toleranceTicks: tolTicks)
        }
        return LandingRequest(target: ticks, wantsKeyframe: wantsKeyframe, keyframeWindow: window, seekID: req.id,
                              atOrAfter: req.convention == .atOrAfter)
    }

    /// Whether `engine` lands `req`'s convention (`MediaEngine.landsAtOrAfter`); a seek it
    /// cannot land fails with `.unsupported` on the worker.
    static func engineLands(_ req: SeekRequest, _ engine: MediaEngine) -> Bool {
        req.convention == .onScreen || engine.landsAtOrAfter
    }

    /// Cancels every queued or in-flight seek. The C function is `fpx_player_cancel_pending_seeks`.
    @discardableResult
    public func cancelPendingSeeks() throws -> Int {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            interruptReadsLocked()
            return cancelPendingLocked(reason: .cancelled)
        }
    }

    @discardableResult
    func cancelPendingLocked(reason: FinishReason) -> Int {
        // Counts the seeks this call decides: queued ones, and an in-flight one
        // not already overtaken (a superseded one stays superseded).
        let (n, effects) = seeks.cancelAll(reason)
        applyLocked(effects)
        return n
    }

    /// Applies the seek manager's effects, in order (with `m` held).
    func applyLocked(_ effects: [SeekManager<SeekRequest>.Effect]) {
        for e in effects {
            switch e {
            case .complete(_, let reason, let req): completeLocked(req, pending: false, reason: reason, clamp: nil)
            case .stop(_, let reason, let req): req.stopReason = reason
            case .interruptReads: interruptReadsLocked()
            case .run(_, let req): enqueueLocked(.seek(req))
            }
        }
    }

    /// Builds the outcome and posts clamp, accuracy and completion, in that
    /// order, as one event. Exactly once per request: the seek manager is the one
    /// record of what is still to complete. `pending`: the request is (or was) in
    /// its pending list and completes only if it still is there (a request the
    /// manager already completed, by an effect, is not completed again); false:
    /// the manager decided it (a `.complete` effect, a `.finish` start) or it never
    /// entered the list (decided from memory, no seek manager), and it completes now.
    func completeLocked(_ req: SeekRequest, pending: Bool, reason: FinishReason, clamp: SeekClamp?,
                        landing: Landing? = nil, timeline: Timeline? = nil,
                        tolerance: MediaTime? = nil, error: ErrorCode? = nil, streamIndex: Int32 = -1) {
        if pending { guard seeks.complete(req.id) else { return } }
        m.broadcast()
        switch reason {
        case .completed: stats.seeksCompleted += 1
        case .superseded: stats.seeksSuperseded += 1
        case .cancelled: stats.seeksCancelled += 1
        case .failed, .noSeekManager: stats.seeksFailed += 1
        }
        let landed: MediaTime
        if reason == .completed, let l = landing, let tl = timeline {
            landed = tl.itemTime(ofTicks: l.pts)
            if req.item === item { playheadTicks = l.pts }
        } else {
            landed = .invalid
        }
        let zero = timeline.map { MediaTime(value: 0, timescale: $0.timeBaseDen) } ?? .zero
        let tol = tolerance ?? (req.precision == .exact ? zero : req.precision.tolerance)
        // At or after: nothing before the target counts, anything after it does (seek.h, fpx_accuracy).
        let accuracy = req.convention == .atOrAfter
            ? SeekAccuracy(requested: req.target, landed: landed, toleranceBefore: zero,
                           toleranceAfter: .positiveInfinity)
            : SeekAccuracy(requested: req.target, landed: landed, toleranceBefore: tol, toleranceAfter: tol)
        let done = reason == .completed && landing != nil
        var built = SeekOutcome(
            seekID: req.id, precision: req.precision, reason: reason, error: error,
            latencyNanoseconds: monotonicNanoseconds() &- req.issuedAt,
            accuracy: accuracy, clamp: clamp ?? .none,
            resolution: done ? (landing?.resolution ?? .none) : .none,
            frameCoversTarget: done && (landing?.coversTarget ?? false),
            landedIsKeyframe: done && (landing?.isKeyframe ?? false),
            streamIndex: done ? streamIndex : -1,
            landedStreamPTS: done ? (landing?.streamPTS ?? landing?.pts) : nil,
            timeline: timeline, packetsRead: landing?.packetsRead ?? 0)
        if done, let h = landing?.pastHole { built.landedPastHole = h }
        built.convention = req.convention
        let outcome = built
        let callback = req.callback
        events.post { [self] in
            let ls = self.m.locked { self.listeners.map { $0.listener } }
            if outcome.clamp.didClamp { for l in ls { l.onSeekClamped(outcome.clamp, seekID: outcome.seekID) } }
            if outcome.finished { for l in ls { l.onSeekAccuracy(outcome) } }
            callback?(outcome)
        }
        // After the post: a seek_wait that returns now finds the events queued, so the
        // host's next dispatch delivers them (seek.h, fpx_player_seek_wait).
        req.onDecided?(outcome)
        req.onDecided = nil
    }

    func postItemStatusLocked(_ it: Item) {
        let info = it.statusInfo
        events.post { [self] in
            let ls = self.m.locked { self.listeners.map { $0.listener } }
            for l in ls { l.onItemStatus(info) }
        }
    }
}
