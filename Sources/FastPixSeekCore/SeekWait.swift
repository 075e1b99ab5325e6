/// The synchronous seek: issue, land it on the calling thread when the player is idle, else
/// block until the worker decides it.
///
/// The rule (seek.h, fpx_player_seek_wait; docs/ARCHITECTURE.md, "The data flow of one seek"):
/// 1. A seek that memory decides completes inside the issue, as for `fpx_player_seek`.
/// 2. Else, when the player is idle (its engine lock free, no job queued, no seek pending),
///    the caller lands it itself (`landInline`): no hand-off to the worker and back. It is in
///    flight from its issue, so a newer seek, a cancel, a close or a destroy stops it through
///    its `CancelFlag` as they stop a worker's seek, and it completes with that reason.
/// 3. The landing stops at the wait's deadline too; a seek the deadline stopped is handed to
///    the worker (`SeekManager.handOff`), which lands it from the start and completes it
///    later, and the wait returns nil (FPX_ERROR_TIMEOUT). One that landed first completes.
/// 4. Whichever thread lands it, the outcome is posted to the event queue before the wait
///    returns, and the callbacks run where they always do (never inside this call).
/// 5. Else (the player is busy) the seek goes to the worker, and the caller waits.
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
        let deadline = timeoutNanoseconds.map { monotonicNanoseconds() &+ $0 }
        // A zero timeout cannot be met by a landing: that seek goes to the worker at once.
        let issued = try issue(target, completion: completion, onDecided: { outcome in
            box.m.locked {
                box.outcome = outcome
                box.m.broadcast()
            }
        }, landInline: timeoutNanoseconds != 0)
        if let inline = issued.inline { landInline(inline, deadline: deadline) }
        return box.m.locked {
            while box.outcome == nil {
                if let d = deadline, monotonicNanoseconds() >= d { break }
                box.m.wait(until: deadline)
            }
            return box.outcome
        }
    }

    /// Lands `inline` on the calling thread (rule 2), with the engine lock held (taken by
    /// `issue`); releases it. The seek completes here exactly as the worker completes it
    /// (`completeLandingLocked`), under `m` before the engine lock is released, so a seek
    /// issued after it, which lands under that lock, completes after it; or, stopped by the
    /// deadline, it is handed to the worker (rule 3).
    func landInline(_ inline: InlineLanding, deadline: UInt64?) {
        let req = inline.req, engine = inline.engine
        defer {
            publishDemuxHeld(engine)
            engineLock.unlock()
        }
        let cancel = req.cancel
        // Set once the deadline stopped the landing: whatever the engine then returned, the
        // seek was cut short by the wait, not decided (an atomic flag: FFmpeg's interrupt
        // callback asks too).
        let timedOut = CancelFlag()
        let run = land(req, on: engine, shouldStop: {
            if cancel.isSet { return true }
            guard let d = deadline, monotonicNanoseconds() >= d else { return false }
            timedOut.set()
            return true
        })
        m.locked {
            if timedOut.isSet, req.stopReason == nil, !destroyed, let job = seeks.handOff(req.id) {
                applyLocked([job])
                return
            }
            completeLandingLocked(req, run, engine: engine)
        }
    }
}

final class SeekWaitBox {
    let m = Monitor()
    var outcome: SeekOutcome?
}
