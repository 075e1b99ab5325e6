import CFFmpeg
import FastPixSeekCore

/// Opening the format context, and positioning in fragmented MP4 files whose fragments
/// libavformat parses lazily.
///
/// With a complete fragment index (a `sidx` reaching the end of the file, or an `mfra`),
/// libavformat's mov demuxer (5.1 and later) parses a `moof` only when reading or a seek
/// reaches it, and it gets the fragments a `sidx` entry does not name (an entry covering
/// several `moof`s: Shaka Packager's and GPAC's "onDemand" files with fragments shorter
/// than their segments) wrong: a seek into an entry whose first `moof` was parsed skips
/// the entry's other fragments, and reading a fragment a second time adds its samples to
/// the index again (every packet after it then carries another frame's timestamps). Only
/// the first pass over a fresh context reads right. So for such a file every positioning
/// starts from a fresh context: reopened when the current one has been read or positioned,
/// then either positioned by libavformat (when that seek parsed the fragment it landed in)
/// or left at the start (when the seek landed in fragments parsed at open), which is at or
/// before any target, as a backward seek must be.
extension FFmpegEngine {
    /// avformat_open_input and (`findStreamInfo`) avformat_find_stream_info under the engine's I/O guard
    /// (`guarded`: the caller's operation already began it), with the protocol gate, the
    /// interrupt callback, the timeouts and the allocation bounds.
    static func openContext(url: String, policy: IOPolicy, options: [String: String], memoryIO: MemoryIO?,
                            gate: ProtocolGate.Context, ioGuard g: IOGuard, guarded: Bool,
                            findStreamInfo: Bool = true, checked: Bool,
                            memoryEpoch: UInt) throws -> UnsafeMutablePointer<AVFormatContext> {
        // An option that cannot be set (no memory) fails the open: never an open without the
        // protocol whitelist, the I/O timeout or the allocation bounds.
        var opts: OpaquePointer?
        try OpenOptions.set(&opts, policy: policy)
        // Never libavformat's dash demuxer (DemuxerGate).
        try setOption(&opts, "format_whitelist", DemuxerGate.whitelist)
        for (k, v) in FFmpegEngine.allocationBounds { try setOption(&opts, k, v) }
        for (k, v) in options { try setOption(&opts, k, v) }
        guard let c = ffmpeg_avformat_alloc_context() else {
            ffmpeg_av_dict_free(&opts)
            throw EngineError(.noMemory)
        }
        if let io = memoryIO {
            c.pointee.pb = io.context
            c.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        c.pointee.interrupt_callback = AVIOInterruptCB(callback: ioInterruptCallback,
                                                       opaque: Unmanaged.passUnretained(g).toOpaque())
        // Bytes arriving through the context's pb re-arm the I/O deadline (IOGuard); the
        // watch ends before a context that fails here is freed.
        g.watch(format: c)
        ProtocolGate.install(on: c, gate)
        if guarded { g.extend() } else { g.begin() }
        defer { if !guarded { g.end() } }
        var cOpt: UnsafeMutablePointer<AVFormatContext>? = c
        var ret = ffmpeg_avformat_open_input(&cOpt, url, nil, &opts)
        ffmpeg_av_dict_free(&opts)
        // avformat_open_input frees the context on failure.
        guard ret >= 0, let opened = cOpt else {
            g.unwatch()
            throw openError(ret, guard: g, checked: checked, epoch: memoryEpoch)
        }
        ret = findStreamInfo ? ffmpeg_avformat_find_stream_info(opened, nil) : 0
        if ret < 0 {
            g.unwatch()
            var cc: UnsafeMutablePointer<AVFormatContext>? = opened
            ffmpeg_avformat_close_input(&cc)
            throw openError(ret, guard: g, checked: false, epoch: memoryEpoch)
        }
        return opened
    }

    /// Whether mov parses this file's fragments lazily: after the open, the reference
    /// stream's index ends more than a second before the stream's own end (its duration,
    /// which a sidx sets; a fragmented file without a complete fragment index has every
    /// `moof` parsed at open, an unfragmented one has its whole sample table). The
    /// container's duration is only the fallback: another stream may outlast this one.
    static func parsesFragmentsLazily(_ c: UnsafeMutablePointer<AVFormatContext>, stream st: UnsafeMutablePointer<AVStream>,
                                      durationEndTicks: Int64?, ticksPerSecond: Int64) -> Bool {
        guard let fmt = c.pointee.iformat, String(cString: fmt.pointee.name).hasPrefix("mov,") else { return false }
        let nopts = fpx_av_nopts_value()
        let start = st.pointee.start_time != nopts ? st.pointee.start_time : 0
        let own: Int64? = st.pointee.duration != nopts && st.pointee.duration > 0 ? start &+ st.pointee.duration : nil
        guard let end = own ?? durationEndTicks else { return false }
        let n = ffmpeg_avformat_index_get_entries_count(st)
        guard n > 0 else { return false }
        var ts: Int64 = 0
        var flags: Int32 = 0
        guard fpx_index_entry(st, n - 1, &ts, &flags) == 0 else { return false }
        return ts < end &- ticksPerSecond
    }

    /// Replaces the context by a fresh one of the same URL, options and streams enabled.
    func reopen() throws {
        dropStashed()
        // mov's header gives the streams' parameters (the first open probed them already).
        let c: UnsafeMutablePointer<AVFormatContext>
        do {
            c = try Self.openContext(url: openURL, policy: openPolicy, options: openOptions, memoryIO: nil, gate: gate,
                                     ioGuard: ioGuard, guarded: true, findStreamInfo: false,
                                     checked: true, memoryEpoch: MemoryReserve.epoch)
        } catch {
            // The old context stays the engine's: watched again (IOGuard).
            if let old = ctx { ioGuard.watch(format: old) }
            throw error
        }
        for i in lander.disabledStreams where i >= 0 && i < Int32(c.pointee.nb_streams) {
            c.pointee.streams[Int(i)]?.pointee.discard = AVDISCARD_ALL
        }
        if ctx != nil { ffmpeg_avformat_close_input(&ctx) }
        ctx = c
        contextUsed = false
    }

    /// A context no read or seek has touched yet (lazily parsed fragments only).
    func freshContext() throws {
        guard lazyFragments, contextUsed || !stashed.isEmpty, !closed else { return }
        try reopen()
    }

    /// Lets go of the packets a positioning read ahead.
    func dropStashed() {
        for p in stashed { free(p) }
        stashed.removeAll()
    }

    /// The largest sample timestamp of the reference stream's index.
    func lastIndexTimestamp() -> Int64? {
        guard let st = ctx?.pointee.streams[Int(referenceStream)] else { return nil }
        let n = ffmpeg_avformat_index_get_entries_count(st)
        var best: Int64?
        var ts: Int64 = 0
        var flags: Int32 = 0
        // Sorted by timestamp, except that mov may hold a fragment out of order: look at a few.
        for i in stride(from: n - 1, through: max(0, n - 64), by: -1) where fpx_index_entry(st, i, &ts, &flags) == 0 {
            best = max(best ?? ts, ts)
        }
        return best
    }

    /// Fresh contexts tried before a positioning reads from the start.
    static var fragmentSeekAttempts: Int { 16 }

    /// A backward timestamp seek in a file whose fragments are parsed lazily (see above):
    /// on a fresh context, right when the seek landed in the fragment it parsed (its first
    /// reference packet is past everything parsed at open; the packets read to see it are
    /// kept for the next reads). A seek that landed in what the open parsed (its target's
    /// fragment starts without a keyframe, or is one of those) is tried again a second
    /// further back, twice as far each time; then the fresh context reads from the start.
    func seekFragmented(to ticks: Int64) throws -> Int32 {
        var back: Int64 = 0
        for _ in 0..<Self.fragmentSeekAttempts {
            try freshContext()
            guard let c = ctx, let parsed = lastIndexTimestamp() else { return fpx_averror_exit() }
            let aim = ticks &- back
            if aim <= parsed { break }
            contextUsed = true
            ioGuard.extend()
            let ret = ffmpeg_av_seek_frame(c, referenceStream, aim, fpx_avseek_flag_backward())
            guard ret >= 0 else { return ret }
            while let p = try readDemuxer() {
                stashed.append(p)
                guard p.pointee.stream_index == referenceStream else { continue }
                if (Self.dts(p) ?? Self.pts(p) ?? Int64.min) > parsed { return ret }
                break
            }
            back = back == 0 ? ticksPerSecond : (back > Int64.max / 4 ? back : back &* 2)
        }
        try freshContext()
        return 0
    }
}
