/// The synchronous seek: issue, then block until the outcome is decided.
extension Player {
    /// Seeks and blocks until the seek is decided (landed, failed, superseded or cancelled), or
    /// `timeoutNanoseconds` passes (`nil`: no limit). Returns nil on timeout; the seek then stays
    /// issued and completes later as usual. The outcome is returned as soon as it is decided:
    /// it does not wait for event delivery, so it cannot deadlock in host-delivery mode, and the
    /// listeners and `completion` still get it through the event queue.
    /// Not callable from a callback (the C layer checks). The C function is `fpx_player_seek_wait`.
    public func seekAndWait(to target: MediaTime, precision: SeekPrecision, timeoutNanoseconds: UInt64?,
                            completion: (@Sendable (SeekOutcome) -> Void)? = nil) throws -> SeekOutcome? {
        try seekAndWait(SeekTarget(time: target, precision: precision), timeoutNanoseconds: timeoutNanoseconds,
                        completion: completion)
    }

    /// `seekAndWait(to:precision:)` with the target already validated.
    public func seekAndWait(_ target: SeekTarget, timeoutNanoseconds: UInt64?,
                            completion: (@Sendable (SeekOutcome) -> Void)? = nil) throws -> SeekOutcome? {
        let box = SeekWaitBox()
        _ = try seek(target, completion: completion) { outcome in
            box.m.locked {
                box.outcome = outcome
                box.m.broadcast()
            }
        }
        let deadline = timeoutNanoseconds.map { monotonicNanoseconds() &+ $0 }
        return box.m.locked {
            while box.outcome == nil {
                if let d = deadline, monotonicNanoseconds() >= d { break }
                box.m.wait(until: deadline)
            }
            return box.outcome
        }
    }
}

final class SeekWaitBox {
    let m = Monitor()
    var outcome: SeekOutcome?
}
