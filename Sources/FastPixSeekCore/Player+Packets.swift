/// Host packets: reading after pending seeks settle (fpx_player_read_packet).
extension Player {
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
        var v = try withEngine(engine) { () throws -> PacketView in
            // Interrupted while waiting for the engine lock: nothing was read.
            if stop() { throw ErrorCode.interrupted }
            let memoryEpoch = MemoryReserve.epoch
            var v: PacketView
            do {
                v = try engine.readPacket(shouldStop: stop)
            } catch let e as EngineError {
                // While the process is out of memory, what libavformat made of an allocation
                // failure is FPX_ERROR_NO_MEMORY (seek.h section 6).
                throw EngineError(MemoryReserve.classify(e.code, since: memoryEpoch), avError: e.avError)
            }
            // FPX_PACKET_FLAG_DISPOSABLE: decided here for every engine (DisposablePackets.swift).
            disposable.mark(&v, format: engine.videoPacketFormat(v.streamIndex), engine: ObjectIdentifier(engine))
            return v
        }
        if v.itemOriginPTS == nil { v.itemOriginPTS = engine.timeline.originTicks }
        let dropped: AnyObject? = m.locked {
            // Destroyed meanwhile: do not outlive the player's teardown.
            if destroyed { return v.owner }
            hostPacket = v.owner
            return nil
        }
        if dropped != nil { throw ErrorCode.invalidHandle }
        return v
    }
}
