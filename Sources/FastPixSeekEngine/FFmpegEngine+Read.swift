import Glibc
import CFFmpeg
import FastPixSeekCore

/// Reading: packets for the host (PacketSource), stream enabling, restoring the read position.
extension FFmpegEngine {
    // MARK: PacketSource

    /// Disabled streams are discarded by the demuxer; packets of theirs read before the
    /// stream was disabled (the window) are passed over by the lander (`nextForHost`).
    public func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        try readAnyPacket(shouldStop: shouldStop)
    }

    /// Discards `index` in the demuxer (AVStream.discard = AVDISCARD_ALL) or enables it.
    public func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        let c = try liveContext()
        guard index >= 0, index < Int32(c.pointee.nb_streams), let st = c.pointee.streams[Int(index)] else {
            throw ErrorCode.invalidArgument
        }
        if index == referenceStream {
            if enabled { return }
            throw ErrorCode.referenceStream
        }
        st.pointee.discard = enabled ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        // The policy's record (the window was read without a stream enabled again: the next
        // seek must not replay it; host reads still drain it, then pass straight through).
        lander.setStreamEnabled(index, enabled)
    }

    func readAnyPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        _ = try liveContext()
        clearStickyIOError()
        if lander.positionLost { try restoreForRead(shouldStop: shouldStop) }
        // Packets still in the window need no I/O (and no guard).
        let reads = !lander.nextForHostIsBuffered
        if reads { ioGuard.begin(stop: shouldStop) }
        defer { if reads { ioGuard.end() } }
        let v = try lander.nextForHost(self) { e, owned -> PacketView in
            // The host gets its own reference: a later seek may free the window. A packet the
            // window does not keep is handed over as it is (it never returns to the pool).
            guard let ref = owned ? Self.packet(e.packet) : ffmpeg_av_packet_clone(Self.packet(e.packet)) else { throw EngineError(.noMemory) }
            return hostPacket(ref, presents: e.presents)
        }
        guard let view = v else { throw EngineError(.eof) }
        return view
    }

    /// The host's packet: flags, seek id and landing fields from the policy's stamp.
    func hostPacket(_ ref: UnsafeMutablePointer<AVPacket>, presents: Int64?) -> PacketView {
        // The host's packet belongs to whoever holds `owner` (the player), not
        // to this engine: closing the engine or evicting it cannot free it.
        let owner = OwnedPacket(ref)
        var flags: UInt32 = 0
        let f = ref.pointee.flags
        if (f & fpx_pkt_flag_key()) != 0 { flags |= PacketView.flagKey }
        if (f & fpx_pkt_flag_corrupt()) != 0 { flags |= PacketView.flagCorrupt }
        if (f & fpx_pkt_flag_discard()) != 0 { flags |= PacketView.flagDiscard }
        // What the container says (mov's sdtp); the player's DisposableMarker has the final say.
        if (f & fpx_pkt_flag_disposable()) != 0 { flags |= PacketView.flagDisposable }
        // A primed packet of the reference stream presents from its first real sample.
        flags |= lander.stamp.nextFlags(presents: presents ?? Self.dts(ref), timeBase: timeBase(of: ref.pointee.stream_index))
        var view = PacketView(data: UnsafeRawPointer(ref.pointee.data), size: Int(max(0, ref.pointee.size)),
                              streamIndex: ref.pointee.stream_index, pts: Self.pts(ref), dts: Self.dts(ref),
                              duration: ref.pointee.duration, position: ref.pointee.pos, flags: flags,
                              seekID: lander.stamp.seekID, avPacket: UnsafeRawPointer(ref), owner: owner)
        lander.stamp.describeLanding(&view, referenceStream: referenceStream, streamTimeBase: timeBase(of: view.streamIndex),
                                     audioSampleRate: audioSampleRate(of: view.streamIndex))
        return view
    }

    /// The sample rate of an audio stream (the landing's trim), else 0.
    func audioSampleRate(of stream: Int32) -> Int32 {
        guard let c = ctx, stream >= 0, stream < Int32(c.pointee.nb_streams), let st = c.pointee.streams[Int(stream)],
              st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { return 0 }
        return st.pointee.codecpar.pointee.sample_rate
    }

    /// `restoreReadPosition` for a host read (after a landing positioned lazily, or a lost read
    /// position), with its errors as the read reports them (seek.h, fpx_player_read_packet): a
    /// stop (a new seek, a cancel) is FPX_ERROR_INTERRUPTED, and a positioning that could not
    /// reach the media (its seeks failed, so the reads found nothing) reports the seek's I/O
    /// error rather than the missing keyframe. The landing stays; the next read tries again.
    func restoreForRead(shouldStop: @escaping () -> Bool) throws {
        positionFailure = 0
        // A new attempt: an I/O error an earlier one left in the context must not fail it.
        if let pb = ctx?.pointee.pb, pb.pointee.error < 0 {
            pb.pointee.error = 0
            pb.pointee.eof_reached = 0
        }
        do {
            try restoreReadPosition(shouldStop: shouldStop)
        } catch let e as EngineError {
            if e.code == .cancelled, !ioGuard.isInterrupted, shouldStop() {
                throw EngineError(.interrupted, avError: e.avError)
            }
            if e.code == .invalidData || e.code == .eof {
                if positionFailure < 0 { throw positioningError(positionFailure) }
                // Demuxers ignore a failed byte seek (an http reconnection refused) and then
                // read nothing, as at the end: ask the I/O layer itself.
                if let probe = probeIO(shouldStop: shouldStop) { throw probe }
            }
            throw e
        }
    }

    /// The I/O error a byte seek to the start gives now, if any (the positioning that called it
    /// failed anyway and is redone by the next read).
    func probeIO(shouldStop: @escaping () -> Bool) -> EngineError? {
        guard let pb = ctx?.pointee.pb, pb.pointee.seekable != 0 else { return nil }
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        let r = ffmpeg_avio_seek(pb, 0, SEEK_SET)
        guard r < 0 else { return nil }
        return ioGuard.error(for: Int32(clamping: r))
    }

    /// Puts the host's reads back where the policy says (`Lander.restoreReadPosition`).
    func restoreReadPosition(shouldStop: @escaping () -> Bool) throws {
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        try lander.restoreReadPosition(self, shouldStop: shouldStop)
    }

    /// A stream's time base for `PacketStamp` (invalid, 0/0, for an unknown stream: never DECODE_ONLY).
    func timeBase(of stream: Int32) -> PacketStamp.TimeBase {
        if stream == referenceStream { return lander.stamp.referenceTimeBase }
        guard let c = ctx, stream >= 0, stream < Int32(c.pointee.nb_streams), let st = c.pointee.streams[Int(stream)] else {
            return PacketStamp.TimeBase(0, 0)
        }
        return PacketStamp.TimeBase(st.pointee.time_base.num, st.pointee.time_base.den)
    }
}
