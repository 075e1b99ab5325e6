#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// The libavformat engine for files and http(s) URLs.
///
/// It resolves landings on the reference stream's presentation-order frame
/// grid with the algorithm in docs/ARCHITECTURE.md ("Resolving a landing"),
/// and keeps the packets it read while resolving in a replay buffer, so the
/// host's reads start at the keyframe the landing needs without a second seek.
// @unchecked Sendable: its mutable state is used under the player's engine lock only, except
// `publishedRange` (guarded by `publishLock`) and `ioGuard` (its own monitor), which the
// concurrent members (`interrupt()`, `liveWindow`) use; the facts are immutable (`ItemFacts`).
public final class FFmpegEngine: MediaEngine, PacketSource, @unchecked Sendable {
    var ctx: UnsafeMutablePointer<AVFormatContext>?
    let ioGuard: IOGuard
    public let referenceStream: Int32
    public let timeline: Timeline
    public let hasVideo: Bool
    let videoDelay: Int
    /// The reference stream's sample rate when it is audio (priming is in samples), else 0.
    let primingRate: Int32
    /// An audio reference stream's start time: its first real sample.
    let audioStart: Int64?
    let ticksPerSecond: Int64
    var range: ClosedRange<Int64>?
    var rangeKnown = false
    let durationTime: MediaTime

    // The packet window: packets in decode order from a reference keyframe
    // (window[0]), all streams. When `contiguous`, the demuxer is positioned
    // right after the last one, so host reads append to it and stepping can
    // extend it. The host reads from `cursor`.
    var window: [UnsafeMutablePointer<AVPacket>] = []
    var cursor = 0
    var contiguous = false
    var windowMaxDTS: Int64?
    /// Payload bytes of the packets in the window; bounded by the policy's
    /// maxBufferBytes (`readRaw` refuses to grow it past the cap).
    var windowBytes = 0
    var atEOF = false
    /// At most this many packets are kept; see `trimWindow`.
    static let maxWindowPackets = 4096
    /// What is known of the frame grid.
    var grid = FrameGrid()
    /// Learned by `position(at:)`: what to add to a keyframe's pts (or dts) so
    /// a backward seek lands exactly on it.
    var seekAimShift: Int64 = 0
    /// The per-seek state the host's packets are stamped from (PacketStamp).
    var stamp: PacketStamp
    /// The landed frame (the playhead), from `stamp`.
    var landedPTS: Int64? { stamp.landedPTS }
    /// The container's keyframe index (see keyframeIndex()).
    var keyIndex: KeyframeIndex?
    var indexRead = false
    /// The packet the landing resolver read last and has not kept or dropped.
    var pending: UnsafeMutablePointer<AVPacket>?
    /// The host's read position was moved (the window cleared, the demuxer
    /// sought) by an operation that did not land: a seek or step interrupted
    /// by a cancel or supersede, failed, or refused after scanning. The next
    /// read first puts it back at the keyframe the playhead frame needs, with
    /// DISCONTINUITY, so packets never continue from where a scan stopped.
    var positionLost = false
    /// Lazy positioning: the keyframe a landing decided from memory decodes from
    /// (`resolveFromMemory`), for the next read to position at (with
    /// `positionLost`), valid while `landing` is the landed frame.
    var lazyKey: (landing: Int64, key: FrameGrid.Keyframe)?
    /// The last failed av_seek_frame of a read's repositioning (0: none), so that
    /// a positioning that could not reach the media reports why (`restoreForRead`).
    var positionFailure: Int32 = 0
    var counters: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// Packet pool: AVPacket structs the window or the resolver let go, unreferenced (no
    /// data), for `readRaw` to reuse instead of allocating one per packet. Only the
    /// engine's own packets enter it; the host's are separate references
    /// (`OwnedPacket`) and never do. At most `maxPooledPackets`.
    var packetPool: [UnsafeMutablePointer<AVPacket>] = []
    static let maxPooledPackets = 256
    var closed = false
    /// Owns the custom I/O of an in-memory item; outlives the format context.
    let memoryIO: MemoryIO?
    /// The protocol gate of the context's nested opens; outlives the context.
    let gate: ProtocolGate.Context
    /// The streams' facts, copied at open: `itemInfo` and `streamInfo` read
    /// only these, never `ctx`, so they are safe against `close()` on another
    /// thread, and their pointers outlive the engine (see `factsOwner`).
    public let facts: ItemFacts
    /// Whether the container can seek, as found at open.
    let seekableAtOpen: Bool
    /// What the engine was opened from, for the background indexer's own open
    /// (`FFmpegEngine+Index.swift`); nil for an in-memory item.
    let sourceURL: String?

    /// Opens `url`. Blocking, bounded by the policy's timeout. `options` are
    /// extra demuxer/protocol options (e.g. http `offset`/`end_offset`).
    /// With `memory`, the bytes are demuxed from memory and `url` only names them.
    public init(url: String, policy: IOPolicy, options: [String: String] = [:], memory: FallibleBuffer<UInt8>? = nil) throws {
        let g = IOGuard(policy: policy)
        ioGuard = g
        sourceURL = memory == nil && options.isEmpty ? url : nil
        // The protocol policy, and no FIFO or device (which would block open(2)
        // in the kernel, beyond any interrupt callback or timeout) whatever the
        // URL form: see ProtocolGate.
        var remote = false
        if memory == nil {
            try ProtocolGate.check(url, policy: policy.protocols, fromRemote: false)
            remote = ProtocolGate.protocolName(url).map(ProtocolPolicy.isRemote) ?? false
        }
        gate = ProtocolGate.Context(policy: policy.protocols, remoteOrigin: remote, refuseAll: memory != nil, ioGuard: g)
        if let m = memory {
            guard let io = MemoryIO(m) else { throw EngineError(.noMemory) }
            memoryIO = io
        } else {
            memoryIO = nil
        }
        guard var c = avformat_alloc_context() else { throw EngineError(.noMemory) }
        if let io = memoryIO {
            c.pointee.pb = io.context
            c.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        c.pointee.interrupt_callback = AVIOInterruptCB(callback: ioInterruptCallback,
                                                       opaque: Unmanaged.passUnretained(g).toOpaque())
        ProtocolGate.install(on: c, gate)
        var opts: OpaquePointer?
        if policy.timeoutNanoseconds > 0 {
            av_dict_set(&opts, "rw_timeout", String(min(policy.timeoutNanoseconds / 1000, UInt64(Int64.max))), 0)
        }
        av_dict_set(&opts, "protocol_whitelist", ProtocolGate.whitelist(policy.protocols), 0)
        for (k, v) in FFmpegEngine.allocationBounds { av_dict_set(&opts, k, v, 0) }
        for (k, v) in options { av_dict_set(&opts, k, v, 0) }
        g.begin()
        var cOpt: UnsafeMutablePointer<AVFormatContext>? = c
        var ret = avformat_open_input(&cOpt, url, nil, &opts)
        av_dict_free(&opts)
        guard ret >= 0, let opened = cOpt else {
            g.end()
            // avformat_open_input frees the context on failure.
            throw g.error(for: ret)
        }
        c = opened
        ret = avformat_find_stream_info(c, nil)
        g.end()
        if ret < 0 {
            var cc: UnsafeMutablePointer<AVFormatContext>? = c
            avformat_close_input(&cc)
            throw g.error(for: ret)
        }
        var ref = av_find_best_stream(c, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        var video = true
        if ref < 0 {
            ref = av_find_best_stream(c, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
            video = false
        }
        guard ref >= 0, ref < Int32(c.pointee.nb_streams), let st = c.pointee.streams[Int(ref)] else {
            var cc: UnsafeMutablePointer<AVFormatContext>? = c
            avformat_close_input(&cc)
            throw EngineError(.noStream, avError: ref)
        }
        ctx = c
        referenceStream = ref
        hasVideo = video
        let tb = st.pointee.time_base
        let num = tb.num > 0 ? tb.num : 1, den = tb.den > 0 ? tb.den : 1
        ticksPerSecond = max(1, Int64((Int128(den) + Int128(num) - 1) / Int128(num)))
        videoDelay = Int(max(0, st.pointee.codecpar.pointee.video_delay))
        primingRate = st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            ? max(0, st.pointee.codecpar.pointee.sample_rate) : 0
        audioStart = primingRate > 0 && st.pointee.start_time != fpx_av_nopts_value() ? st.pointee.start_time : nil
        // Item time 0 is the container's start, in this stream's ticks.
        let nopts = fpx_av_nopts_value()
        var origin: Int64 = 0
        let fmtStart = c.pointee.start_time
        let stStart = st.pointee.start_time
        if fmtStart != nopts {
            let q = AVRational(num: 1, den: fpx_av_time_base())
            origin = av_rescale_q_rnd(fmtStart, q, AVRational(num: num, den: den), AV_ROUND_NEAR_INF)
            if stStart != nopts,
               av_rescale_q_rnd(stStart, AVRational(num: num, den: den), q, AV_ROUND_NEAR_INF) == fmtStart {
                origin = stStart
            }
        } else if stStart != nopts {
            origin = stStart
        }
        timeline = Timeline(timeBaseNum: num, timeBaseDen: den, originTicks: origin)
        stamp = PacketStamp(referenceTimeBase: PacketStamp.TimeBase(num, den))
        facts = ItemFacts(c)
        seekableAtOpen = ((c.pointee.ctx_flags & fpx_avfmtctx_unseekable()) == 0)
            && (c.pointee.pb.map { $0.pointee.seekable != 0 } ?? true)
        if c.pointee.duration != nopts && c.pointee.duration > 0 {
            durationTime = MediaTime(value: c.pointee.duration, timescale: fpx_av_time_base())
        } else {
            durationTime = .invalid
        }
    }

    deinit { close() }

    /// Streams the host disabled (fpx_player_set_stream_enabled).
    var disabledStreams: Set<Int32> = []

    public func close() {
        guard !closed else { return }
        closed = true
        dropPending()
        clearWindow()
        for p in packetPool {
            var pp: UnsafeMutablePointer<AVPacket>? = p
            av_packet_free(&pp)
        }
        packetPool.removeAll()
        if ctx != nil { avformat_close_input(&ctx) }
    }

    public func interrupt() { ioGuard.interrupt() }

    /// Media bytes this engine holds: an in-memory item's bytes and the packet window.
    var bufferedBytes: Int { (memoryIO?.bytes.count ?? 0) &+ windowBytes }

    public var demuxCounters: (packets: UInt64, bytes: UInt64) { counters }

    var seekable: Bool {
        guard let c = ctx else { return false }
        if (c.pointee.ctx_flags & fpx_avfmtctx_unseekable()) != 0 { return false }
        if let pb = c.pointee.pb, pb.pointee.seekable == 0 { return false }
        return true
    }

    // MARK: Packets, low level

    func liveContext() throws -> UnsafeMutablePointer<AVFormatContext> {
        guard !closed, let c = ctx else { throw EngineError(.cancelled) }
        if ioGuard.isInterrupted { throw EngineError(.cancelled) }
        return c
    }

    /// Clears the sticky error an interrupted operation leaves in the
    /// AVIOContext (a superseded seek interrupted inside av_seek_frame), so it
    /// does not fail the next operation. Called before each new operation.
    func clearStickyIOError() {
        guard let pb = ctx?.pointee.pb else { return }
        if pb.pointee.error == fpx_averror_exit() {
            pb.pointee.error = 0
            pb.pointee.eof_reached = 0
        }
    }

    /// One av_read_frame into a new packet; nil at EOF.
    func readRaw() throws -> UnsafeMutablePointer<AVPacket>? {
        let c = try liveContext()
        // The packet window may not grow past the buffer cap (a hostile stream
        // whose GOP never ends would otherwise grow it without bound).
        if windowBytes > ioGuard.policy.maxBufferBytes { throw EngineError(.tooLarge) }
        guard let p = packetPool.popLast() ?? av_packet_alloc() else { throw EngineError(.noMemory) }
        ioGuard.extend()
        let ret = av_read_frame(c, p)
        if ret < 0 {
            free(p)
            // Demuxers report a broken connection as the end of the file: the context's
            // own error says which it was.
            let ioErr = c.pointee.pb?.pointee.error ?? 0
            let broken = ioErr < 0 && ioErr != fpx_averror_eof()
            if ret == fpx_averror_eof() && !ioGuard.wasCut && !broken { return nil }
            // An interrupted or failed read may have consumed part of a packet:
            // the window no longer proves what follows its last packet, and the
            // demuxer may have skipped it: the next host read restarts at the
            // playhead's keyframe, with DISCONTINUITY.
            contiguous = false
            positionLost = true
            throw ioGuard.error(for: ret == fpx_averror_eof() && broken ? ioErr : ret)
        }
        // A read cut short by the deadline, a stop or an abort, or by an I/O
        // error FFmpeg papered over, returns a truncated packet (flagged
        // corrupt, or not at all): never hand that out as media.
        let ioError = c.pointee.pb?.pointee.error ?? 0
        if ioGuard.wasCut || ((p.pointee.flags & fpx_pkt_flag_corrupt()) != 0 && ioError < 0 && ioError != fpx_averror_eof()) {
            free(p)
            // The demuxer has moved past the dropped packet (see above).
            contiguous = false
            positionLost = true
            throw ioGuard.error(for: ioError < 0 ? ioError : fpx_averror_exit())
        }
        counters.packets &+= 1
        counters.bytes &+= UInt64(max(0, p.pointee.size))
        return p
    }

    func clearWindow() {
        positionLost = true
        for p in window { free(p) }
        window.removeAll(keepingCapacity: true)
        windowBytes = 0
        cursor = 0
        contiguous = false
        windowMaxDTS = nil
        atEOF = false
    }

    /// Lets go of one of the engine's packets: its data reference is dropped now; the struct
    /// goes back to the pool (or is freed when the pool is full or the engine closed).
    func free(_ p: UnsafeMutablePointer<AVPacket>) {
        if !closed && packetPool.count < Self.maxPooledPackets {
            av_packet_unref(p)
            packetPool.append(p)
        } else {
            var pp: UnsafeMutablePointer<AVPacket>? = p
            av_packet_free(&pp)
        }
    }

    static func pts(_ p: UnsafeMutablePointer<AVPacket>) -> Int64? {
        let v = p.pointee.pts
        return v == fpx_av_nopts_value() ? nil : v
    }

    static func dts(_ p: UnsafeMutablePointer<AVPacket>) -> Int64? {
        let v = p.pointee.dts
        return v == fpx_av_nopts_value() ? nil : v
    }

    static func isKey(_ p: UnsafeMutablePointer<AVPacket>) -> Bool {
        (p.pointee.flags & fpx_pkt_flag_key()) != 0
    }

    static func isDiscard(_ p: UnsafeMutablePointer<AVPacket>) -> Bool {
        (p.pointee.flags & fpx_pkt_flag_discard()) != 0
    }

    /// The presentation time a landing sees for a reference-stream packet: its
    /// pts, moved past the samples the decoder skips (AV_PKT_DATA_SKIP_SAMPLES:
    /// MP3 and Opus priming, which FFmpeg 5.1 does not flag discard), so that a
    /// landing on it lands on its first real sample, where ffprobe's decoded
    /// frame starts.
    ///
    /// The side data is attached only when reading from the start (Ogg drops it
    /// after a seek), so the stream's start time counts too: libavformat puts
    /// it at the first real sample (MP3: after the LAME priming; Opus: pre-skip
    /// past a negative first pts).
    func landPTS(_ p: UnsafeMutablePointer<AVPacket>) -> Int64? {
        guard var t = Self.pts(p) else { return nil }
        guard p.pointee.stream_index == referenceStream, primingRate > 0 else { return t }
        let skip = fpx_packet_skip_samples(p)
        if skip > 0 {
            t = t &+ av_rescale_q(skip, AVRational(num: 1, den: primingRate),
                                  AVRational(num: timeline.timeBaseNum, den: timeline.timeBaseDen))
        }
        if let s = audioStart, t < s, t &+ max(0, p.pointee.duration) > s { t = s }
        return t
    }

    /// Never a landing: flagged discard, or a reference-stream packet whose
    /// samples are all priming (skipped by the decoder).
    func notLandable(_ p: UnsafeMutablePointer<AVPacket>) -> Bool {
        if Self.isDiscard(p) { return true }
        guard p.pointee.stream_index == referenceStream, primingRate > 0, p.pointee.duration > 0,
              let t = Self.pts(p), let l = landPTS(p) else { return false }
        if let s = audioStart, t &+ p.pointee.duration <= s { return true }
        return l &- t >= p.pointee.duration
    }

    func seek(to ticks: Int64) -> Int32 {
        guard let c = ctx else { return fpx_averror_exit() }
        ioGuard.extend()
        let ret = av_seek_frame(c, referenceStream, ticks, fpx_avseek_flag_backward())
        if ret < 0 && ret != fpx_averror_eof() { positionFailure = ret }
        return ret
    }

    /// Back to the first packet. Timestamp seeks to the start are unreliable for
    /// MPEG-TS/PS (they resync past the first keyframe), and byte seeks are wrong
    /// for MP4/Matroska, so the method depends on the demuxer.
    public func rewind() throws {
        let c = try liveContext()
        ioGuard.extend()
        let flags = c.pointee.iformat?.pointee.flags ?? 0
        var ret: Int32 = -1
        if (flags & AVFMT_TS_DISCONT) != 0 && (flags & AVFMT_NO_BYTE_SEEK) == 0 {
            ret = av_seek_frame(c, -1, 0, AVSEEK_FLAG_BYTE)
        }
        if ret < 0 {
            let start = c.pointee.start_time == fpx_av_nopts_value() ? 0 : c.pointee.start_time
            ret = avformat_seek_file(c, -1, Int64.min, start, Int64.max, 0)
        }
        if ret < 0 && (flags & AVFMT_NO_BYTE_SEEK) == 0 { ret = av_seek_frame(c, -1, 0, AVSEEK_FLAG_BYTE) }
        if ret < 0 { throw ioGuard.error(for: ret) }
    }

    /// A copy of the range for `liveWindow()`, which runs without the engine lock.
    static let publishLock = Monitor()
    var publishedRange: ClosedRange<Int64>?

    public var itemInfo: ItemInfo {
        ItemInfo(streamCount: facts.streamCount, referenceStream: referenceStream, hasVideo: hasVideo,
                 duration: durationTime, timeline: timeline, seekable: seekableAtOpen, formatName: facts.formatName)
    }

    public func streamInfo(_ index: Int32) -> StreamInfo? { facts.info(index) }

    public func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { facts.videoPacketFormat(index) }

    public var factsOwner: AnyObject? { facts.ownerIfHandedOut }
}

/// One packet reference (an `av_packet_clone`), freed when the last owner lets go.
final class OwnedPacket {
    private var packet: UnsafeMutablePointer<AVPacket>?
    init(_ p: UnsafeMutablePointer<AVPacket>) { packet = p }
    deinit { av_packet_free(&packet) }
}
