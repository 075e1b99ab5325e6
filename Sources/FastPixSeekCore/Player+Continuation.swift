/// Continuation (seek.h, "Continuation"; the rule is the policy's, Lander+Continuation.swift):
/// turning it on or off, the host's report of what its decoder returned, and packets a
/// binding read ahead but did not use.
public protocol Continuable: AnyObject {
    /// On or off for this engine's item.
    func setContinuation(_ on: Bool)
    /// The host's decoder of the reference stream returned frames up to `pts` in the current run.
    func reportDecoderOutput(_ pts: Int64)
    /// The host did not use the last `count` packets it read: they are delivered again.
    /// False when the engine cannot (the next read then restarts at the playhead, with
    /// DISCONTINUITY).
    func unreadPackets(_ count: Int) -> Bool
}

extension Player {
    /// Turns continuation on or off for this player (default off). Applies to the current
    /// item at once and to every item opened later. Takes the engine lock, so it waits for
    /// a seek in progress. The C function is `fpx_player_set_continuation`.
    public func setContinuation(_ on: Bool) throws {
        let engine: PlayerEngine? = try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            continuationEnabled = on
            return item?.status == .ready ? item?.engine : nil
        }
        if let e = engine, let c = e as? Continuable { withEngine(e) { c.setContinuation(on) } }
    }

    /// Whether continuation is on. The C function is `fpx_player_continuation`.
    public func continuation() throws -> Bool {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            return continuationEnabled
        }
    }

    /// The largest pts (reference stream time base) the host's decoder of the reference
    /// stream returned since the last DISCONTINUITY packet it was fed. The C function is
    /// `fpx_player_report_decoded`.
    public func reportDecoded(pts: Int64) throws {
        let engine = try readyEngine()
        guard let c = engine as? Continuable else { return }
        withEngine(engine) { c.reportDecoderOutput(pts) }
    }

    /// The host did not use the last `count` packets it read; the next reads deliver them
    /// again, stamped for the landing current then. The C function is `fpx_player_unread_packets`.
    public func unreadPackets(_ count: Int) throws {
        guard count >= 0 else { throw ErrorCode.invalidArgument }
        let engine = try readyEngine()
        guard count > 0 else { return }
        guard let c = engine as? Continuable else { throw ErrorCode.unsupported }
        _ = withEngine(engine) { c.unreadPackets(count) }
    }
}
