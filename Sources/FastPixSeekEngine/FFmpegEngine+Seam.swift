import CFFmpeg
import FastPixSeekCore

/// The engine's landing entry points, each a bounded I/O operation around one
/// call of its `Lander` (the policy decides everything), and the engine as the
/// lander's `LandingSeam`: positioning, packets and their headers, the container's index.
///
/// See docs/ARCHITECTURE.md, "Resolving a landing" and "The frame grid".
extension FFmpegEngine {
    // MARK: Entry points

    /// The lander decides at-or-after landings (`Lander.resolveAtOrAfter`).
    public var landsAtOrAfter: Bool { true }

    public func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        _ = try liveContext()
        clearStickyIOError()
        guard seekable else { throw EngineError(.unsupported) }
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        return try lander.resolve(request, self, shouldStop: shouldStop)
    }

    /// The landing when memory decides it (no I/O; see `Lander.resolveFromMemory`).
    public func resolveFromMemory(_ request: LandingRequest) -> Landing? {
        guard ctx != nil, !closed, seekable, !ioGuard.isInterrupted else { return nil }
        return lander.resolveFromMemory(request, self)
    }

    /// Moves `count` frames from `from` along the grid (`Lander.step`).
    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        _ = try liveContext()
        clearStickyIOError()
        guard seekable else { throw EngineError(.unsupported) }
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        guard let l = try lander.step(from: from, forward: forward, count: count, seekID: seekID, self,
                                      shouldStop: shouldStop) else { return .noFrame }
        return .landed(l)
    }

    /// Points the host's reads at the first packet, with no landing: fresh
    /// flags (no DECODE_ONLY threshold, no DISCONTINUITY) under `seekID`. The
    /// HLS engine calls it when reading enters a segment whose reader may have
    /// been used before (a rewind into an open segment).
    public func restartFromBeginning(seekID: UInt64, landing: Int64? = nil) throws {
        _ = try liveContext()
        clearStickyIOError()
        ioGuard.begin()
        defer { ioGuard.end() }
        try lander.restartFromBeginning(self, seekID: seekID, landing: landing)
    }

    /// HLS open GOP: reads start at this segment's last GOP, DECODE_ONLY before `pts`, a
    /// frame of the next segment (`Lander.preRoll`). Returns the packets read.
    public func preRoll(landing pts: Int64, seekID: UInt64, shouldStop: @escaping () -> Bool) throws -> UInt64 {
        _ = try liveContext()
        clearStickyIOError()
        guard seekable else { throw EngineError(.unsupported) }
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        return try lander.preRoll(landing: pts, seekID: seekID, self, shouldStop: shouldStop)
    }

    /// The first keyframe and the frames presenting before it (`Lander.head`), once the
    /// seekable range was measured.
    public var head: SegmentHead? { lander.head }
}

/// The engine as the landing policy's seam.
extension FFmpegEngine: LandingSeam {
    /// The policy's handle of one of the engine's packets (`PacketHandle`): the pointer's bits.
    static func handle(_ p: UnsafeMutablePointer<AVPacket>) -> PacketHandle { Int(bitPattern: p) }
    /// The packet a handle the engine gave names.
    static func packet(_ h: PacketHandle) -> UnsafeMutablePointer<AVPacket> {
        UnsafeMutablePointer<AVPacket>(bitPattern: h)!
    }

    public func seek(toTicks ticks: Int64) throws -> Bool {
        _ = try liveContext()
        return try seek(to: ticks) >= 0
    }

    public func seek(toByte offset: Int64) throws -> Bool {
        let c = try liveContext()
        guard offset >= 0 else { return false }
        ioGuard.extend()
        return ffmpeg_av_seek_frame(c, -1, offset, AVSEEK_FLAG_BYTE) >= 0
    }

    public func seek(toIndexTimestamp timestamp: Int64) throws -> Bool {
        if lazyFragments { return try seek(to: timestamp) >= 0 }
        let c = try liveContext()
        ioGuard.extend()
        return ffmpeg_av_seek_frame(c, referenceStream, demuxerTime(timestamp), fpx_avseek_flag_backward()) >= 0
    }

    public func read() throws -> (header: DemuxedPacket, packet: PacketHandle)? {
        guard let p = try readRaw() else { return nil }
        return (header(p), Self.handle(p))
    }

    public func release(_ packet: PacketHandle) { free(Self.packet(packet)) }

    /// The reference stream's index through libavformat's public index API, as it is.
    public func containerIndex() -> ContainerIndexFacts? {
        guard let c = ctx, let st = c.pointee.streams[Int(referenceStream)], let fmt = c.pointee.iformat else { return nil }
        let name = String(cString: fmt.pointee.name)
        let n = ffmpeg_avformat_index_get_entries_count(st)
        guard n > 0 else { return nil }
        var entries: [ContainerIndexFacts.Entry] = []
        entries.reserveCapacity(Int(n))
        for i in 0..<n {
            var ts: Int64 = 0
            var flags: Int32 = 0
            guard fpx_index_entry(st, i, &ts, &flags) == 0 else { return nil }
            entries.append(ContainerIndexFacts.Entry(timestamp: ts &+ (tsShift.isEmpty ? 0 : tsShift[Int(referenceStream)]), isKey: (flags & fpx_avindex_keyframe()) != 0,
                                                     isDiscard: (flags & fpx_avindex_discard_frame()) != 0))
        }
        let container: ContainerIndexFacts.Container = name.hasPrefix("mov,") ? .mov
            : name.hasPrefix("matroska") ? .matroska : .other
        var lavf = false
        if let e = ffmpeg_av_dict_get(c.pointee.metadata, "encoder", 0), let v = e.pointee.value {
            lavf = String(cString: v).hasPrefix("Lavf")
        }
        return ContainerIndexFacts(container: container, entries: entries, frameCount: st.pointee.nb_frames,
                                   writtenByLavf: lavf)
    }
}

/// Continuation: the engine only passes the host's side to its lander (the rule is the policy's).
extension FFmpegEngine: Continuable {
    public func setContinuation(_ on: Bool) { lander.continuation = on }
    public func reportDecoderOutput(_ pts: Int64) { lander.reportOutput(pts) }
    public func unreadPackets(_ count: Int) -> Bool {
        guard !closed else { return false }
        lander.unread(count)
        return !lander.positionLost
    }
}
