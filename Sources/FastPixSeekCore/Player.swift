
// ItemStatus (fpx_item_status) is generated from seek.h: ABIEnums.swift.

/// The C type is `fpx_item_status_info`.
public struct ItemStatusInfo: Hashable, Sendable {
    public var itemID: UInt64
    public var status: ItemStatus
    public var error: ErrorCode?
    public var avError: Int32
    /// HLS holes met by the item so far (seek.h, "Gaps").
    public var holes = HoleReport()
    public init(itemID: UInt64, status: ItemStatus, error: ErrorCode?, avError: Int32, holes: HoleReport = HoleReport()) {
        self.itemID = itemID; self.status = status; self.error = error; self.avError = avError; self.holes = holes
    }
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
    /// HLS holes of the current item (seek.h, "Gaps").
    public var segmentsSkipped: UInt64 = 0
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
        /// The C fields are `hls_variant`, `hls_max_bandwidth`, `hls_max_height`.
        public var hlsVariant = HLSVariantChoice()
        /// The C field is `hls_audio`.
        public var hlsAudio = HLSRenditions.Choice()
        /// The reference stream by index (a video stream); nil: automatic. The C field is
        /// `reference_stream` (1-based there, 0 automatic).
        public var referenceStream: Int32?
        /// The C fields are `tls_ca_file` and `tls_insecure`.
        public var tls = TLSPolicy.default
        /// The I/O policy of one item's opens (and of its preview and index readers):
        /// every choice above that the engines read, aborted by `aborted`.
        func ioPolicy(aborted: @escaping @Sendable () -> Bool, openDeadline: OpenDeadline? = nil) -> IOPolicy {
            var p = IOPolicy(timeoutNanoseconds: ioTimeoutNanoseconds, aborted: aborted, protocols: protocols,
                             maxBufferBytes: maxBufferBytes, openDeadline: openDeadline)
            p.hlsVariant = hlsVariant
            p.hlsAudio = hlsAudio
            p.referenceStream = referenceStream
            p.tls = tls
            return p
        }
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
        /// While the item opens: the deadlines of the whole open (none after).
        let openDeadline = OpenDeadline()
        /// The background index (`IndexMode.full`): its thread, its reader
        /// while open (for `interrupt`), and its progress.
        /// The index job is queued or running on `Executor.background` (guarded by the player's `m`).
        var indexRunning = false
        var indexer: FrameIndexer?
        var indexFrames: UInt64 = 0
        var indexComplete = false
        init(id: UInt64, url: String) { self.id = id; self.url = url }
        var statusInfo: ItemStatusInfo {
            ItemStatusInfo(itemID: id, status: status, error: error, avError: avError, holes: engine?.holeReport ?? HoleReport())
        }
    }

    /// One issued seek. Whether it is queued, in flight or done is the seek manager's
    /// (`seeks`) alone: the request carries no state of its own.
    final class SeekRequest {
        let id: UInt64
        let item: Item
        let target: MediaTime
        let precision: SeekPrecision
        /// Which frame an exact seek lands on (`SeekTarget.convention`).
        let convention: FrameConvention
        let callback: (@Sendable (SeekOutcome) -> Void)?
        let issuedAt: UInt64
        /// The calling thread asked memory (`resolveFromMemory`) and it did not decide: the
        /// worker does not ask again (under the player lock).
        var memoryDeclined = false
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
        init(id: UInt64, item: Item, target: MediaTime, precision: SeekPrecision, convention: FrameConvention = .onScreen,
             callback: (@Sendable (SeekOutcome) -> Void)?, issuedAt: UInt64) {
            self.id = id; self.item = item; self.target = target; self.precision = precision
            self.convention = convention
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
    let factory: EngineFactory
    /// Guards everything below.
    let m = Monitor()
    var item: Item?
    var nextItemID: UInt64 = 1
    var nextListenerID: UInt64 = 1
    var seekManagerEnabled = false
    /// Continuation is on (fpx_player_set_continuation); applied to each item's engine.
    var continuationEnabled = false
    /// The seek manager's state machine (ids, pending list, transitions): a value whose
    /// transitions return the effects applied here (`applyLocked`).
    var seeks = SeekManager<SeekRequest>()
    var jobs: [Job] = []
    var listeners: [(id: UInt64, listener: PlayerListener)] = []
    var stats = PlayerStats()
    var destroyed = false
    /// The player's serial job queue on a shared pool (`Executor.work`, or `Executor.network`
    /// while its item is read over a protocol: `open`): its opens, seeks and closes run
    /// there one at a time, in order. The player owns no thread.
    let work = SerialQueue(executor: Executor.work)
    /// Held while an engine resolves a seek or reads a packet.
    let engineLock = Monitor()
    /// The demux counters of the current item's engine as of the end of the last
    /// engine call (`withEngine`), for `statistics` when the engine lock is busy:
    /// stats never wait for it (a log callback runs with it held, seek.h "Logging").
    /// A leaf lock, never held across anything else.
    let demuxSnapLock = Monitor()
    var demuxSnap: (engine: ObjectIdentifier, packets: UInt64, bytes: UInt64)?
    /// FPX_PACKET_FLAG_DISPOSABLE's state (the in-band HEVC sub-layer counts). Guarded by
    /// `engineLock`: only `readPacket` touches it, inside `withEngine`.
    var disposable = DisposableMarker()

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
    func publishDemuxHeld(_ e: PlayerEngine) {
        let c = e.demuxCounters
        demuxSnapLock.locked { demuxSnap = (ObjectIdentifier(e), c.packets, c.bytes) }
    }
    /// The frame the player stands on (stream pts), from the last landing or step.
    var playheadTicks: Int64?
    /// The scrub session, created with the seek manager. Guarded by `m`.
    var scrubSessionStorage: ScrubSession?
    /// The preview source and its state (Player+Preview.swift); has its own locks.
    let previewState = PreviewState()
    /// The scrub session, created with the seek manager (read under `m`).
    public var scrubSession: ScrubSession? { m.locked { scrubSessionStorage } }
    /// Item facts (stream info strings, extradata, codec parameters) the host
    /// was handed, kept until destroy so that another thread's open or close
    /// cannot free them under it (seek.h, section 5). Guarded by `m`.
    var retainedFacts: [AnyObject] = []
    /// Demux counters of the background indexes' readers (all items).
    var indexDemux: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// Demux counters of engines already closed.
    var retiredDemux: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// The stop flag of the packet reads now in progress: set, and replaced by
    /// a fresh one, by every call that interrupts a blocked packet read (a new
    /// seek, cancel_pending_seeks, close_item, open, destroy:
    /// `interruptReadsLocked`). A read captures it under `m` and then checks
    /// it with no lock. Guarded by `m` (the reference; the flag is atomic).
    var readCancel = CancelFlag()

    /// Interrupts the packet reads in progress (see `readCancel`).
    func interruptReadsLocked() {
        readCancel.set()
        readCancel = CancelFlag()
    }
    /// The packet last handed to the host (`PacketView.owner`). The player,
    /// not the engine that demuxed it, owns it: it is released by the next
    /// read or by destroy, never by a seek, a step, a close, an open or an
    /// engine evicting a segment. Guarded by `m`.
    var hostPacket: AnyObject?

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
            // Jobs that may block on a server run on their own pool (Executor.forMedia).
            work.use(Executor.forMedia(url))
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

    func retireCurrentItemLocked() {
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
        _ = m.locked { cancelPendingLocked(reason: .cancelled) }
        if let it = m.locked({ item }) { joinIndex(it) }
        let e: PlayerEngine? = m.locked { let e = item?.engine; item?.engine = nil; item = nil; return e }
        if let e = e { retire(e) }
        for case .close(let it) in m.locked({ jobs }) { runClose(it) }
        m.locked { jobs.removeAll() }
        let packet: AnyObject? = m.locked { let p = hostPacket; hostPacket = nil; return p }
        _ = packet
        scrubSession?.shutdown()
        previewState.shutdown()
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
