/// The seek manager's state machine as a value: seek ids, the pending list and
/// the transitions (issue, supersede, cancel, start, complete). Each transition
/// returns the effects the owner must apply (outcomes to post, stop flags to
/// set, reads to interrupt, jobs to queue); the value does no I/O, takes no lock
/// and starts nothing, so it is tested without threads (`SeekManagerValueTests`).
///
/// `Player` keeps one under its lock with its `SeekRequest`s as payloads.
///
/// The rules:
/// - every issued seek completes exactly once (`complete` effects, or the
///   owner's own completion of the request it ran);
/// - a new seek supersedes every queued one (completed `.superseded` at once,
///   in issue order, before anything of the new one) and tells the in-flight
///   one to stop (`.superseded`, unless it is already stopping);
/// - a seek decided at once (from memory) is only allowed with nothing in
///   flight, so that completions keep the order of issue;
/// - a seek landed on the caller's thread (`fpx_player_seek_wait` on an idle
///   player) is only allowed with nothing pending at all; it is in flight from
///   its issue, and when it must give up (its wait timed out) it goes back to
///   the queue as an ordinary seek (`handOff`), unless it was told to stop;
/// - cancel completes the queued ones and tells the in-flight one to stop with
///   the given reason; the count is of the seeks this call decided.
public struct SeekManager<Payload> {
    public enum State: Equatable, Sendable { case queued, inFlight }

    public struct Entry {
        public let id: UInt64
        public var state: State
        /// Why the in-flight seek must stop (it still completes, with this reason).
        public var stopReason: FinishReason?
        public let payload: Payload
    }

    public enum Effect {
        /// Complete this seek now with this reason (it has left the pending list).
        case complete(UInt64, FinishReason, Payload)
        /// Tell the in-flight seek to stop (its flag); it completes when its job returns.
        case stop(UInt64, FinishReason, Payload)
        /// Interrupt packet reads in progress (the read position moves).
        case interruptReads
        /// Queue the job that runs this seek.
        case run(UInt64, Payload)
    }

    /// What the job of a seek does when it starts.
    public enum Start: Equatable {
        /// Run it (it is now in flight).
        case proceed
        /// Complete it with this reason without running it.
        case finish(FinishReason)
        /// Already completed: nothing to do.
        case gone
    }

    public private(set) var entries: [Entry] = []
    private var next: UInt64 = 1

    public init() {}

    /// No seek is queued or in flight.
    public var isIdle: Bool { entries.isEmpty }
    public var hasInFlight: Bool { entries.contains { $0.state == .inFlight } }

    /// The next seek id (ids start at 1 and are never reused).
    public mutating func takeID() -> UInt64 {
        let id = next
        next += 1
        return id
    }

    private mutating func supersedeLocked(into effects: inout [Effect]) {
        var kept: [Entry] = []
        for var e in entries {
            if e.state == .queued {
                effects.append(.complete(e.id, .superseded, e.payload))
            } else {
                if e.stopReason == nil {
                    e.stopReason = .superseded
                    effects.append(.stop(e.id, .superseded, e.payload))
                }
                kept.append(e)
            }
        }
        entries = kept
    }

    /// A new seek, to run on the worker.
    public mutating func issue(_ id: UInt64, _ payload: Payload) -> [Effect] {
        var effects: [Effect] = []
        supersedeLocked(into: &effects)
        entries.append(Entry(id: id, state: .queued, stopReason: nil, payload: payload))
        effects.append(.interruptReads)
        effects.append(.run(id, payload))
        return effects
    }

    /// A new seek decided at once (from memory), with nothing in flight: nil when
    /// one is in flight (the seek must go to the worker: `issue`). Else the
    /// queued ones are superseded and reads interrupted; the caller completes the
    /// new one itself (it never enters the pending list).
    public mutating func issueDecided(_ id: UInt64) -> [Effect]? {
        guard !hasInFlight else { return nil }
        var effects: [Effect] = []
        supersedeLocked(into: &effects)
        effects.append(.interruptReads)
        return effects
    }

    /// A new seek that the caller lands itself, on its own thread: allowed only when nothing
    /// is pending (nil otherwise: the seek must go to the worker, `issue`). It enters the list
    /// in flight at once (never queued: no job runs it), so that a later seek, a cancel or a
    /// destroy tells it to stop as they tell a worker's seek; reads are interrupted.
    public mutating func issueInline(_ id: UInt64, _ payload: Payload) -> [Effect]? {
        guard isIdle else { return nil }
        entries.append(Entry(id: id, state: .inFlight, stopReason: nil, payload: payload))
        return [.interruptReads]
    }

    /// The in-flight seek `id`, landed by its caller, is given up before it landed (its wait
    /// timed out) and handed to the worker: it is queued again and its job is to run
    /// (`.run`). Nil when it is not pending or must stop: the caller then completes it with
    /// its stop reason (`stopReason(of:)`), as the worker would.
    public mutating func handOff(_ id: UInt64) -> Effect? {
        guard let i = entries.firstIndex(where: { $0.id == id }), entries[i].state == .inFlight,
              entries[i].stopReason == nil else { return nil }
        entries[i].state = .queued
        return .run(id, entries[i].payload)
    }

    /// Cancels every pending seek: queued ones complete with `reason`, an in-flight
    /// one not already stopping is told to stop with it. Returns how many this
    /// call decided.
    public mutating func cancelAll(_ reason: FinishReason) -> (count: Int, effects: [Effect]) {
        var n = 0
        var effects: [Effect] = []
        var kept: [Entry] = []
        for var e in entries {
            if e.state == .queued {
                n += 1
                effects.append(.complete(e.id, reason, e.payload))
            } else {
                if e.stopReason == nil {
                    n += 1
                    e.stopReason = reason
                    effects.append(.stop(e.id, reason, e.payload))
                }
                kept.append(e)
            }
        }
        entries = kept
        return (n, effects)
    }

    /// Completes every pending seek whose payload matches (e.g. behind a failed
    /// open) with `reason`, queued or in flight.
    public mutating func completeAll(where match: (Payload) -> Bool, _ reason: FinishReason) -> [Effect] {
        var effects: [Effect] = []
        entries.removeAll { e in
            guard match(e.payload) else { return false }
            effects.append(.complete(e.id, reason, e.payload))
            return true
        }
        return effects
    }

    /// The job of seek `id` starts.
    public mutating func start(_ id: UInt64) -> Start {
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return .gone }
        if let r = entries[i].stopReason { entries.remove(at: i); return .finish(r) }
        guard entries[i].state == .queued else { return .gone }
        entries[i].state = .inFlight
        return .proceed
    }

    /// Why seek `id` must stop, if it must (nil also when it is not pending).
    public func stopReason(of id: UInt64) -> FinishReason? {
        entries.first { $0.id == id }?.stopReason
    }

    /// Seek `id` completed (by its job, or by the owner): it leaves the list.
    /// False when it was not pending (already completed, or never issued here):
    /// the caller must not complete it again.
    @discardableResult
    public mutating func complete(_ id: UInt64) -> Bool {
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries.remove(at: i)
        return true
    }
}
