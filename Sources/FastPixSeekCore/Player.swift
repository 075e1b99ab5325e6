/// Listener of a player's events. Every method has a no-op default.
/// The C type is `fpx_listener`.
public protocol PlayerListener: AnyObject, Sendable {
    func onSeekAccuracy(_ outcome: SeekOutcome)
    func onSeekClamped(_ clamp: SeekClamp, seekID: UInt64)
    func onItemStatus(_ status: ItemStatusInfo)
    func onScrubStateChanged(_ state: ScrubState)
    func onScrubPositionChanged(_ position: ScrubPosition)
    func onFrameStep(_ result: FrameStepResult)
    /// The background index of the current item is complete (`IndexMode.full`).
    func onIndexComplete(frames: UInt64)
    /// The player has dropped this listener (removed, or the player destroyed).
    func onRemoved()
}

public extension PlayerListener {
    func onSeekAccuracy(_ outcome: SeekOutcome) {}
    func onSeekClamped(_ clamp: SeekClamp, seekID: UInt64) {}
    func onItemStatus(_ status: ItemStatusInfo) {}
    func onScrubStateChanged(_ state: ScrubState) {}
    func onScrubPositionChanged(_ position: ScrubPosition) {}
    func onFrameStep(_ result: FrameStepResult) {}
    func onIndexComplete(frames: UInt64) {}
    func onRemoved() {}
}

public enum ItemStatus: Int32, Sendable { case none = 0, loading, ready, failed }

/// The C type is `fpx_item_status_info`.
public struct ItemStatusInfo: Hashable, Sendable {
    public var itemID: UInt64
    public var status: ItemStatus
    public var error: ErrorCode?
    public var avError: Int32
}

/// Per-player counters. The C type is `fpx_player_stats`.
public struct PlayerStats: Hashable, Sendable {
    public var seeksIssued: UInt64 = 0
    public var seeksCompleted: UInt64 = 0
    public var seeksSuperseded: UInt64 = 0
    public var seeksCancelled: UInt64 = 0
    public var seeksFailed: UInt64 = 0
    public var packetsDemuxed: UInt64 = 0
    public var bytesRead: UInt64 = 0
    public var eventsDelivered: UInt64 = 0
    /// Reference-stream frames the background index of the current item has
    /// read (`IndexMode.full`), and whether it reached the end.
    public var indexFrames: UInt64 = 0
    public var indexComplete = false
}

/// An engine that can be used for seeking and reading.
public typealias PlayerEngine = MediaEngine & PacketSource

/// A player: one item at a time, a serial worker for its media I/O, the seek
/// manager's state machine (issue, supersede, cancel, complete) and the event
/// queue. Thread-safe.
// @unchecked Sendable: mutable state is guarded by `m` (see "Guards everything below"),
// engine calls are serialised by `engineLock`; `config`, `events`, `factory` are immutable.
public final class Player: @unchecked Sendable {
    public struct Config {
        public var delivery: EventQueue.Mode
        public var ioTimeoutNanoseconds: UInt64
        public var wakeup: (() -> Void)?
        /// The protocol policy. The C field is `protocol_whitelist`.
        public var protocols: ProtocolPolicy
        /// The cap on buffered media. The C field is `max_buffer_bytes`.
        public var maxBufferBytes: Int
        /// The C field is `index_mode`.
        public var indexMode: IndexMode
        public init(delivery: EventQueue.Mode = .thread, ioTimeoutNanoseconds: UInt64 = 10_000_000_000,
                    wakeup: (() -> Void)? = nil, protocols: ProtocolPolicy = .default,
                    maxBufferBytes: Int = IOPolicy.defaultMaxBufferBytes, indexMode: IndexMode = .keyframes) {
            self.indexMode = indexMode
            self.delivery = delivery
            self.ioTimeoutNanoseconds = ioTimeoutNanoseconds
            self.wakeup = wakeup
            self.protocols = protocols
            self.maxBufferBytes = maxBufferBytes
        }
    }

    // @unchecked Sendable: its mutable fields are guarded by the owning player's `m`.
    final class Item: @unchecked Sendable {
        let id: UInt64
        let url: String
        var status: ItemStatus = .loading
        var error: ErrorCode?
        var avError: Int32 = 0
        var engine: PlayerEngine?
        /// Closed, replaced, or its player destroyed (destroy sets it for the current item).
        var cancelled = false {
            didSet { if cancelled { stop.set() } }
        }
        /// Set with `cancelled`: what the item's own I/O (open, steps, the background index)
        /// checks per packet and in FFmpeg's interrupt callback, with no lock.
        let stop = CancelFlag()
        /// While the item opens: the deadline of the whole open (0 after).
        var openDeadline: UInt64 = 0
        /// The background index (`IndexMode.full`): its thread, its reader
        /// while open (for `interrupt`), and its progress.
        /// The index job is queued or running on `Executor.background` (guarded by the player's `m`).
        var indexRunning = false
        var indexer: FrameIndexer?
        var indexFrames: UInt64 = 0
        var indexComplete = false
        init(id: UInt64, url: String) { self.id = id; self.url = url }
        var statusInfo: ItemStatusInfo { ItemStatusInfo(itemID: id, status: status, error: error, avError: avError) }
    }

    final class SeekRequest {
        enum State { case queued, inFlight, done }
        let id: UInt64
        let item: Item
        let target: MediaTime
        let precision: SeekPrecision
        let callback: (@Sendable (SeekOutcome) -> Void)?
        let issuedAt: UInt64
        var state = State.queued
        /// Why the request must stop; setting it also sets `cancel`.
        var stopReason: FinishReason? {
            didSet { if stopReason != nil { cancel.set() } }
        }
        /// Read by the engine between packets and by FFmpeg's interrupt callback, with no
        /// lock (set with `stopReason`, which destroy also sets for an in-flight request).
        let cancel = CancelFlag()
        /// Called under the player lock once the outcome is decided and its event queued
        /// (for `seekAndWait`); it must only signal.
        var onDecided: ((SeekOutcome) -> Void)?
        init(id: UInt64, item: Item, target: MediaTime, precision: SeekPrecision,
             callback: (@Sendable (SeekOutcome) -> Void)?, issuedAt: UInt64) {
            self.id = id; self.item = item; self.target = target; self.precision = precision
            self.callback = callback; self.issuedAt = issuedAt
        }
    }

    enum Job {
        case open(Item)
        case seek(SeekRequest)
        case close(Item)
    }

    public let config: Config
    public let events: EventQueue
    private let factory: EngineFactory
    /// Guards everything below.
    let m = Monitor()
    var item: Item?
    private var nextItemID: UInt64 = 1
    private var nextListenerID: UInt64 = 1
    private var seekManagerEnabled = false
    /// The seek manager's state machine (ids, pending list, transitions): a value whose
    /// transitions return the effects applied here (`applyLocked`).
    var seeks = SeekManager<SeekRequest>()
    private var jobs: [Job] = []
    var listeners: [(id: UInt64, listener: PlayerListener)] = []
    var stats = PlayerStats()
    var destroyed = false
    /// The player's serial job queue on the shared pool (`Executor.work`): its opens,
    /// seeks and closes run there one at a time, in order. The player owns no thread.
    private let work = SerialQueue(executor: Executor.work)
    /// Held while an engine resolves a seek or reads a packet.
    let engineLock = Monitor()
    /// The demux counters of the current item's engine as of the end of the last
    /// engine call (`withEngine`), for `statistics` when the engine lock is busy:
    /// stats never wait for it (a log callback runs with it held, seek.h "Logging").
    /// A leaf lock, never held across anything else.
    private let demuxSnapLock = Monitor()
    private var demuxSnap: (engine: ObjectIdentifier, packets: UInt64, bytes: UInt64)?

    /// Runs `body` with the engine lock held, then publishes `e`'s demux counters.
    func withEngine<T>(_ e: PlayerEngine, _ body: () throws -> T) rethrows -> T {
        engineLock.lock()
        defer {
            publishDemuxHeld(e)
            engineLock.unlock()
        }
        return try body()
    }

    /// With the engine lock held: records `e`'s counters for `statistics`.
    private func publishDemuxHeld(_ e: PlayerEngine) {
        let c = e.demuxCounters
        demuxSnapLock.locked { demuxSnap = (ObjectIdentifier(e), c.packets, c.bytes) }
    }
    /// The frame the player stands on (stream pts), from the last landing or step.
    var playheadTicks: Int64?
    /// The scrub session, created with the seek manager. Guarded by `m`.
    private var scrubSessionStorage: ScrubSession?
    /// The scrub session, created with the seek manager (read under `m`).
    public var scrubSession: ScrubSession? { m.locked { scrubSessionStorage } }
    /// Item facts (stream info strings, extradata, codec parameters) the host
    /// was handed, kept until destroy so that another thread's open or close
    /// cannot free them under it (seek.h, section 5). Guarded by `m`.
    private var retainedFacts: [AnyObject] = []
    /// Demux counters of the background indexes' readers (all items).
    private var indexDemux: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// Demux counters of engines already closed.
    private var retiredDemux: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// The stop flag of the packet reads now in progress: set, and replaced by
    /// a fresh one, by every call that interrupts a blocked packet read (a new
    /// seek, cancel_pending_seeks, close_item, open, destroy:
    /// `interruptReadsLocked`). A read captures it under `m` and then checks
    /// it with no lock. Guarded by `m` (the reference; the flag is atomic).
    private var readCancel = CancelFlag()

    /// Interrupts the packet reads in progress (see `readCancel`).
    func interruptReadsLocked() {
        readCancel.set()
        readCancel = CancelFlag()
    }
    /// The packet last handed to the host (`PacketView.owner`). The player,
    /// not the engine that demuxed it, owns it: it is released by the next
    /// read or by destroy, never by a seek, a step, a close, an open or an
    /// engine evicting a segment. Guarded by `m`.
    private var hostPacket: AnyObject?

    public convenience init?(config: Config, factory: @escaping EngineFactory) {
        var failure = ErrorCode.noMemory
        self.init(config: config, factory: factory, failure: &failure)
    }

    /// `failure` says why it returned nil: `.noFileDescriptors` (EMFILE, ENFILE) or `.noMemory`.
    public init?(config: Config, factory: @escaping EngineFactory, failure: inout ErrorCode) {
        self.config = config
        self.factory = factory
        guard let q = EventQueue(mode: config.delivery, wakeup: config.wakeup, failure: &failure) else { return nil }
        self.events = q
    }

    // MARK: Items

    /// Attaches a new item, replacing the current one. The C function is `fpx_player_open`.
    public func open(_ url: String) throws {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            retireCurrentItemLocked()
            playheadTicks = nil
            let it = Item(id: nextItemID, url: url)
            nextItemID += 1
            item = it
            enqueueLocked(.open(it))
            postItemStatusLocked(it)
            m.broadcast()
        }
    }

    /// Detaches the current item. The C function is `fpx_player_close_item`.
    public func closeItem() throws {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            retireCurrentItemLocked()
            m.broadcast()
        }
    }

    private func retireCurrentItemLocked() {
        interruptReadsLocked()
        guard let old = item else { return }
        old.cancelled = true
        cancelPendingLocked(reason: .cancelled)
        old.engine?.interrupt()
        old.indexer?.interrupt()
        enqueueLocked(.close(old))
        item = nil
        playheadTicks = nil
        let none = ItemStatusInfo(itemID: old.id, status: .none, error: nil, avError: 0)
        postToListeners { $0.onItemStatus(none) }
    }

    public var itemStatus: ItemStatusInfo {
        m.locked { item?.statusInfo ?? ItemStatusInfo(itemID: 0, status: .none, error: nil, avError: 0) }
    }

    /// Waits for the current item to be ready or failed. The C function is `fpx_player_wait_item`.
    /// Returns early when the player is destroyed (see `isDestroyed`).
    public func waitItem(timeoutNanoseconds: UInt64?) -> ItemStatusInfo {
        let deadline = timeoutNanoseconds.map { Deadline.after($0) }
        return m.locked {
            while let it = item, it.status == .loading, !destroyed {
                if let d = deadline, monotonicNanoseconds() >= d { break }
                m.wait(until: deadline)
            }
            return item?.statusInfo ?? ItemStatusInfo(itemID: 0, status: .none, error: nil, avError: 0)
        }
    }

    /// True once `destroy` has begun: a wait that returned early because of it
    /// reports `.cancelled`.
    public var isDestroyed: Bool { m.locked { destroyed } }

    /// The ready item's engine.
    public func readyEngine() throws -> PlayerEngine {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item else { throw ErrorCode.noItem }
            switch it.status {
            case .ready: if let e = it.engine { return e }; throw ErrorCode.itemNotReady
            case .failed: throw ErrorCode.itemFailed
            default: throw ErrorCode.itemNotReady
            }
        }
    }

    /// The seekable range on the item timeline. Blocking.
    public func seekableRange() throws -> (start: MediaTime, end: MediaTime)? {
        let engine = try readyEngine()
        return try withEngine(engine) {
            guard let r = try engine.seekableRange() else { return nil }
            return (engine.timeline.itemTime(ofTicks: r.lowerBound), engine.timeline.itemTime(ofTicks: r.upperBound))
        }
    }

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
        guard target.isNumeric else { throw ErrorCode.invalidTime }
        if case .nearestKeyframe(let tol) = precision, !SeekPrecision.validate(tolerance: tol) {
            throw ErrorCode.invalidArgument
        }
        let issuedAt = monotonicNanoseconds()
        // A seek that memory decides completes here, on the calling thread, with no I/O and no
        // worker trip (docs/ARCHITECTURE.md, "The data flow of one seek"). The engine lock is
        // only tried, never waited for: an engine busy (in I/O, or indexing) sends the seek to
        // the worker as before, so this call never blocks. Lock order: engineLock -> m.
        let engineHeld = engineLock.tryLock()
        defer { if engineHeld { engineLock.unlock() } }
        return try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item else { throw ErrorCode.noItem }
            if it.status == .failed { throw ErrorCode.itemFailed }
            let id = seeks.takeID()
            stats.seeksIssued += 1
            let req = SeekRequest(id: id, item: it, target: target, precision: precision,
                                  callback: completion, issuedAt: issuedAt)
            req.onDecided = onDecided
            guard seekManagerEnabled else {
                completeLocked(req, reason: .noSeekManager, clamp: .seekableRangeUnknown)
                return id
            }
            if engineHeld && resolveFromMemoryLocked(req) { return id }
            applyLocked(seeks.issue(id, req))
            m.broadcast()
            return id
        }
    }

    /// Completes `req` from memory when the ready item's engine can decide its landing with no
    /// I/O (`MediaEngine.resolveFromMemory`). Called with `engineLock` (taken by a try-lock) and
    /// `m` held. False: the seek goes to the worker, with nothing changed.
    ///
    /// Order and supersede rules stay those of the worker path: with a seek in flight (its
    /// completion is still to come) it declines; seeks still queued complete as superseded
    /// first, so completions keep the order of issue.
    private func resolveFromMemoryLocked(_ req: SeekRequest) -> Bool {
        let it = req.item
        guard it === item, !it.cancelled, it.status == .ready, let engine = it.engine,
              !seeks.hasInFlight else { return false }
        let known = engine.seekableRangeInMemory()
        guard known.known else { return false }
        let timeline = engine.timeline
        var clamp: SeekClamp = .seekableRangeUnknown
        var tolerance = MediaTime(value: 0, timescale: timeline.timeBaseDen)
        guard let request = try? Self.landingRequest(req, timeline: timeline, range: known.range, clamp: &clamp,
                                                     tolerance: &tolerance),
              let landing = engine.resolveFromMemory(request) else { return false }
        // As on the worker path: queued seeks superseded, and a read blocked in I/O stops (the
        // landing moved the read position). Nothing is in flight (checked above).
        applyLocked(seeks.issueDecided(req.id) ?? [])
        req.state = .inFlight
        completeLocked(req, reason: .completed, clamp: clamp, landing: landing, timeline: timeline,
                       tolerance: tolerance, streamIndex: engine.referenceStream)
        return true
    }

    /// The landing request for `req` on `timeline`, with `range` the seekable range in ticks
    /// (nil: unknown): the clamp, the target in exact ticks and, for nearest-keyframe
    /// precision, the keyframe window and the tolerance the outcome reports.
    private static func landingRequest(_ req: SeekRequest, timeline: Timeline, range: ClosedRange<Int64>?,
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
            window = LandingPolicy.keyframeWindow(target: ticks, toleranceTicks: tolTicks)
        }
        return LandingRequest(target: ticks, wantsKeyframe: wantsKeyframe, keyframeWindow: window, seekID: req.id)
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
    private func cancelPendingLocked(reason: FinishReason) -> Int {
        // Counts the seeks this call decides: queued ones, and an in-flight one
        // not already overtaken (a superseded one stays superseded).
        let (n, effects) = seeks.cancelAll(reason)
        applyLocked(effects)
        return n
    }

    /// Applies the seek manager's effects, in order (with `m` held).
    private func applyLocked(_ effects: [SeekManager<SeekRequest>.Effect]) {
        for e in effects {
            switch e {
            case .complete(_, let reason, let req): completeLocked(req, reason: reason, clamp: nil)
            case .stop(_, let reason, let req): req.stopReason = reason
            case .interruptReads: interruptReadsLocked()
            case .run(_, let req): enqueueLocked(.seek(req))
            }
        }
    }

    /// Builds the outcome and posts clamp, accuracy and completion, in that
    /// order, as one event. Exactly once per request.
    private func completeLocked(_ req: SeekRequest, reason: FinishReason, clamp: SeekClamp?,
                                landing: Landing? = nil, timeline: Timeline? = nil,
                                tolerance: MediaTime? = nil, error: ErrorCode? = nil, streamIndex: Int32 = -1) {
        guard req.state != .done else { return }
        req.state = .done
        seeks.complete(req.id)
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
        let accuracy = SeekAccuracy(requested: req.target, landed: landed, toleranceBefore: tol, toleranceAfter: tol)
        let done = reason == .completed && landing != nil
        let outcome = SeekOutcome(
            seekID: req.id, precision: req.precision, reason: reason, error: error,
            latencyNanoseconds: monotonicNanoseconds() &- req.issuedAt,
            accuracy: accuracy, clamp: clamp ?? .none,
            resolution: done ? (landing?.resolution ?? .none) : .none,
            frameCoversTarget: done && (landing?.coversTarget ?? false),
            landedIsKeyframe: done && (landing?.isKeyframe ?? false),
            streamIndex: done ? streamIndex : -1,
            landedStreamPTS: done ? (landing?.streamPTS ?? landing?.pts) : nil,
            timeline: timeline, packetsRead: landing?.packetsRead ?? 0)
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

    private func postItemStatusLocked(_ it: Item) {
        let info = it.statusInfo
        events.post { [self] in
            let ls = self.m.locked { self.listeners.map { $0.listener } }
            for l in ls { l.onItemStatus(info) }
        }
    }

    // MARK: Worker

    /// Queues `job` (with `m` held): one run of `runNextJob` on the player's serial queue
    /// per job, so jobs run in order, one at a time, on the shared pool.
    private func enqueueLocked(_ job: Job) {
        jobs.append(job)
        work.async { [self] in self.runNextJob() }
    }

    private func runNextJob() {
        let job: Job? = m.locked { jobs.isEmpty ? nil : jobs.removeFirst() }
        switch job {
        case .open(let it): runOpen(it)
        case .seek(let req): runSeek(req)
        case .close(let it): runClose(it)
        case nil: break
        }
    }

    private func runOpen(_ it: Item) {
        let skip = m.locked { it.cancelled || destroyed }
        if skip { return }
        // One deadline bounds the whole open: the engine's open and the range
        // measurement below (seek.h, "Time bounds").
        m.locked { it.openDeadline = config.ioTimeoutNanoseconds > 0 ? Deadline.after(config.ioTimeoutNanoseconds) : 0 }
        let policy = IOPolicy(timeoutNanoseconds: config.ioTimeoutNanoseconds,
                              aborted: { [stop = it.stop] in stop.isSet },
                              protocols: config.protocols, maxBufferBytes: config.maxBufferBytes,
                              openDeadline: { [self] in self.m.locked { it.openDeadline } })
        var engine: PlayerEngine?
        var failure: ErrorCode?
        var avError: Int32 = 0
        do {
            engine = try factory(it.url, policy)
            // Measure the seekable range now, on the worker, so the first seek
            // costs what later ones do and range queries need no I/O. A failure
            // here only leaves the range unknown.
            if let e = engine {
                if let b = e as? BackgroundIndexable { withEngine(e) { b.setIndexMode(config.indexMode) } }
                _ = try? withEngine(e) { try e.seekableRange() }
            }
        } catch let e as EngineError {
            failure = e.code
            avError = e.avError
        } catch let e as ErrorCode {
            failure = e
        } catch {
            failure = .internal
        }
        var discard: PlayerEngine?
        m.locked {
            it.openDeadline = 0
            if it.cancelled || destroyed {
                discard = engine
                return
            }
            if let e = engine {
                it.engine = e
                it.status = .ready
                if config.indexMode == .full { startIndexLocked(it, e) }
            } else {
                it.status = .failed
                it.error = failure ?? .internal
                it.avError = avError
                // Seeks queued behind a failed open complete as failed.
                for case .complete(_, _, let r) in seeks.completeAll(where: { $0.item === it }, .failed) {
                    completeLocked(r, reason: .failed, clamp: nil, error: .itemFailed)
                }
            }
            postItemStatusLocked(it)
            m.broadcast()
        }
        if let d = discard { retire(d) }
    }

    private func runClose(_ it: Item) {
        joinIndex(it)
        let e: PlayerEngine? = m.locked { let e = it.engine; it.engine = nil; return e }
        if let e = e { retire(e) }
    }

    private func retire(_ e: PlayerEngine) {
        engineLock.locked {
            e.close()
            let c = e.demuxCounters
            let facts = e.factsOwner
            // Its counters move to retiredDemux: the snapshot must not count them twice.
            demuxSnapLock.locked { if demuxSnap?.engine == ObjectIdentifier(e) { demuxSnap = nil } }
            m.locked {
                retiredDemux.packets &+= c.packets; retiredDemux.bytes &+= c.bytes
                if let f = facts { retainedFacts.append(f) }
            }
        }
    }

    private func runSeek(_ req: SeekRequest) {
        var engine: PlayerEngine?
        let proceed: Bool = m.locked {
            guard req.state == .queued else { return false }
            switch seeks.start(req.id) {
            case .gone: return false
            case .finish(let stop): completeLocked(req, reason: stop, clamp: nil); return false
            case .proceed: break
            }
            guard req.item === item, !req.item.cancelled, req.item.status == .ready, let e = req.item.engine else {
                let err: ErrorCode = req.item.status == .failed ? .itemFailed : .noItem
                completeLocked(req, reason: req.item.cancelled ? .cancelled : .failed, clamp: nil, error: err)
                return false
            }
            engine = e
            req.state = .inFlight
            return true
        }
        guard proceed, let engine = engine else { return }
        let timeline = engine.timeline
        var clamp: SeekClamp = .seekableRangeUnknown
        var landing: Landing?
        var failure: ErrorCode?
        var tolerance: MediaTime = MediaTime(value: 0, timescale: timeline.timeBaseDen)
        // No lock per packet: stopReason (supersede, cancel, destroy) sets the request's flag.
        let cancel = req.cancel
        let shouldStop: () -> Bool = { cancel.isSet }
        withEngine(engine) {
            do {
                let range = try engine.seekableRange()
                let request = try Self.landingRequest(req, timeline: timeline, range: range, clamp: &clamp,
                                                      tolerance: &tolerance)
                landing = try engine.resolve(request, shouldStop: shouldStop)
            } catch let e as ErrorCode {
                failure = e
            } catch let e as EngineError {
                failure = e.code
            } catch {
                failure = .internal
            }
        }
        m.locked {
            if let stop = req.stopReason ?? (destroyed ? .cancelled : nil) {
                completeLocked(req, reason: stop, clamp: clamp, timeline: timeline, tolerance: tolerance)
            } else if let l = landing {
                completeLocked(req, reason: .completed, clamp: clamp, landing: l, timeline: timeline,
                               tolerance: tolerance, streamIndex: engine.referenceStream)
            } else {
                completeLocked(req, reason: .failed, clamp: clamp, timeline: timeline, tolerance: tolerance,
                               error: failure ?? .internal)
            }
        }
    }

    // MARK: Packets

    /// Waits (lock held) until the current item is ready and no seek is pending.
    func settledEngineLocked(deadline: UInt64?) throws -> PlayerEngine {
        while true {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item else { throw ErrorCode.noItem }
            if it.status == .failed { throw ErrorCode.itemFailed }
            if it.status == .ready && seeks.isIdle, let e = it.engine { return e }
            if let d = deadline, monotonicNanoseconds() >= d { throw ErrorCode.timeout }
            m.wait(until: deadline)
        }
    }

    /// Posts an event that runs `body` for every listener at delivery time.
    func postToListeners(_ body: @escaping @Sendable (PlayerListener) -> Void) {
        events.post { [self] in
            let ls = self.m.locked { self.listeners.map { $0.listener } }
            for l in ls { body(l) }
        }
    }

    /// Runs `body` for every listener now; only on the delivery thread.
    func notifyListenersNow(_ body: (PlayerListener) -> Void) {
        let ls = m.locked { listeners.map { $0.listener } }
        for l in ls { body(l) }
    }

    /// Reads the next packet, after pending seeks settle. The C function is `fpx_player_read_packet`.
    ///
    /// A new seek, `cancelPendingSeeks`, `closeItem`, `open` or `destroy`
    /// interrupts a read blocked in I/O: it throws `.interrupted` (never a
    /// truncated packet).
    public func readPacket() throws -> PacketView {
        let deadline = config.ioTimeoutNanoseconds > 0 ? Deadline.after(config.ioTimeoutNanoseconds) : nil
        // One flag for the whole read: set by whatever interrupts reads (a seek, a cancel, close,
        // open, destroy: each replaces `readCancel`), checked per packet without a lock.
        let (engine, cancel): (PlayerEngine, CancelFlag) = try m.locked {
            (try settledEngineLocked(deadline: deadline), readCancel)
        }
        let stop: () -> Bool = { cancel.isSet }
        // The previous packet is released only now, at the next read (seek.h, section 5).
        let previous: AnyObject? = m.locked { let p = hostPacket; hostPacket = nil; return p }
        _ = previous
        let v = try withEngine(engine) { () throws -> PacketView in
            // Interrupted while waiting for the engine lock: nothing was read.
            if stop() { throw ErrorCode.interrupted }
            return try engine.readPacket(shouldStop: stop)
        }
        let dropped: AnyObject? = m.locked {
            // Destroyed meanwhile: do not outlive the player's teardown.
            if destroyed { return v.owner }
            hostPacket = v.owner
            return nil
        }
        if dropped != nil { throw ErrorCode.invalidHandle }
        return v
    }

    // MARK: Listeners

    public func addListener(_ l: PlayerListener) throws -> UInt64 {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            let id = nextListenerID
            nextListenerID += 1
            listeners.append((id, l))
            return id
        }
    }

    public func removeListener(_ id: UInt64) throws {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let i = listeners.firstIndex(where: { $0.id == id }) else { throw ErrorCode.notFound }
            let l = listeners.remove(at: i).listener
            events.post { l.onRemoved() }
        }
    }

    // MARK: Background index

    /// Starts the item's index thread (`IndexMode.full`), if the engine can.
    private func startIndexLocked(_ it: Item, _ e: PlayerEngine) {
        guard e is BackgroundIndexable else { return }
        it.indexRunning = true
        Executor.background.run { [self] in
            self.runIndex(it, e)
            self.m.locked { it.indexRunning = false; self.m.broadcast() }
        }
    }

    /// Stops (the caller already interrupted it) and joins the item's index thread.
    private func joinIndex(_ it: Item) {
        m.locked { while it.indexRunning { m.wait() } }
    }

    /// The index thread: opens a second reader of the item and feeds the
    /// engine's frame grid batch by batch, each under the engine lock for the
    /// time of one `FrameGrid.record` (no I/O under it), so a seek waits at
    /// most that long. Stops at the item's close or the player's destroy
    /// (their interrupt makes the reader's I/O return at once).
    private func runIndex(_ it: Item, _ e: PlayerEngine) {
        guard let b = e as? BackgroundIndexable else { return }
        let gone: @Sendable () -> Bool = { [stop = it.stop] in stop.isSet }
        guard let make = engineLock.locked({ gone() ? nil : b.indexerFactory() }) else { return }
        let policy = IOPolicy(timeoutNanoseconds: config.ioTimeoutNanoseconds, aborted: gone,
                              protocols: config.protocols, maxBufferBytes: config.maxBufferBytes)
        guard let ix = try? make(policy) else { return }
        let stopped: Bool = m.locked {
            if it.cancelled || destroyed { return true }
            it.indexer = ix
            return false
        }
        var counted: (packets: UInt64, bytes: UInt64) = (0, 0)
        func account() {
            let c = ix.demuxCounters
            m.locked {
                indexDemux.packets &+= c.packets &- counted.packets
                indexDemux.bytes &+= c.bytes &- counted.bytes
            }
            counted = c
        }
        var complete = false
        if !stopped {
            while !gone() {
                let batch: FrameIndexBatch?
                do { batch = try ix.next() } catch { break }
                account()
                guard let bt = batch else { complete = true; break }
                engineLock.locked { if !gone() { b.absorb(bt) } }
                m.locked { it.indexFrames &+= UInt64(bt.newFrames) }
            }
        }
        account()
        m.locked { it.indexer = nil }
        ix.close()
        m.locked {
            guard complete, !it.cancelled, !destroyed else { return }
            it.indexComplete = true
            let frames = it.indexFrames
            postToListeners { $0.onIndexComplete(frames: frames) }
        }
    }

    // MARK: Stats

    public var statistics: PlayerStats {
        var s = m.locked { stats }
        let engine = m.locked { item?.engine }
        var c = m.locked { retiredDemux }
        m.locked {
            s.indexFrames = item?.indexFrames ?? 0
            s.indexComplete = item?.indexComplete ?? false
            c.packets &+= indexDemux.packets
            c.bytes &+= indexDemux.bytes
        }
        if let e = engine {
            // Never waits for the engine lock (held across I/O, and by the thread a log
            // callback runs on): when it is busy, the counters as of the last engine call.
            var live: (packets: UInt64, bytes: UInt64) = (0, 0)
            if engineLock.tryLock() {
                live = e.demuxCounters
                demuxSnapLock.locked { demuxSnap = (ObjectIdentifier(e), live.packets, live.bytes) }
                engineLock.unlock()
            } else if let snap = demuxSnapLock.locked({ demuxSnap }), snap.engine == ObjectIdentifier(e) {
                live = (snap.packets, snap.bytes)
            }
            c.packets &+= live.packets
            c.bytes &+= live.bytes
        }
        s.packetsDemuxed = c.packets
        s.bytesRead = c.bytes
        s.eventsDelivered = events.deliveredCount
        return s
    }

    // MARK: Destroy

    /// Cancels everything, stops the worker and delivers the remaining events.
    /// The C function is `fpx_player_destroy`.
    public func destroy() {
        let already: Bool = m.locked {
            if destroyed { return true }
            cancelPendingLocked(reason: .cancelled)
            if let it = item {
                it.cancelled = true
                it.engine?.interrupt()
                it.indexer?.interrupt()
            }
            interruptReadsLocked()
            destroyed = true
            m.broadcast()
            return false
        }
        if already { return }
        // Every job still queued runs now (opens skip, seeks complete as cancelled, closes
        // close), on the pool; destroy waits for the last.
        work.waitIdle()
        // Pending seeks that raced with the flag.
        m.locked { cancelPendingLocked(reason: .cancelled) }
        if let it = m.locked({ item }) { joinIndex(it) }
        let e: PlayerEngine? = m.locked { let e = item?.engine; item?.engine = nil; item = nil; return e }
        if let e = e { retire(e) }
        for case .close(let it) in m.locked({ jobs }) { runClose(it) }
        m.locked { jobs.removeAll() }
        let packet: AnyObject? = m.locked { let p = hostPacket; hostPacket = nil; return p }
        _ = packet
        scrubSession?.shutdown()
        // The listeners are dropped by an event, not here: events already queued look the
        // listeners up when they run (postToListeners), so emptying the list now would lose
        // them (a step's on_frame_step, a seek's on_seek_accuracy still queued behind a busy
        // callback, or everything in FPX_DELIVERY_HOST). Posted last, after the worker and
        // the scrub timer stopped, it runs after every event of this player and before
        // destroy returns; add/remove_listener are refused from `destroyed` on, so nothing
        // else changes the list meanwhile.
        events.post { [self] in
            let dropped = self.m.locked { let ls = self.listeners; self.listeners.removeAll(); return ls }
            for (_, l) in dropped { l.onRemoved() }
        }
        events.shutdown()
        // Item facts handed to the host live until here (seek.h, section 5).
        m.locked { retainedFacts.removeAll() }
    }

    /// True when the calling thread is running one of this player's callbacks.
    public var isInCallback: Bool { events.isDeliveringOnCurrentThread }
}

/// An engine failure with FFmpeg's original code.
public struct EngineError: Error, Sendable {
    public var code: ErrorCode
    public var avError: Int32
    public init(_ code: ErrorCode, avError: Int32 = 0) { self.code = code; self.avError = avError }
}
