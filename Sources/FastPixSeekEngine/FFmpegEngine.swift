#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// The libavformat engine for files and http(s) URLs.
///
/// It decides nothing: the landing policy (`Lander`, FastPixSeekPolicy) runs the
/// whole algorithm of docs/ARCHITECTURE.md ("Resolving a landing") and keeps the
/// packet window; the engine is its `LandingSeam` (FFmpegEngine+Seam.swift:
/// positioning, packets and their headers, the container's index) and turns the
/// window's packets into the host's.
// @unchecked Sendable: its mutable state is used under the player's engine lock only, except
// `publishedRange` and `publishedEndsAtCut` (guarded by `publishLock`) and `ioGuard` (its own monitor), which the
// concurrent members (`interrupt()`, `liveWindow`) use; the facts are immutable (`ItemFacts`).
public final class FFmpegEngine: MediaEngine, PacketSource, @unchecked Sendable {
    var ctx: UnsafeMutablePointer<AVFormatContext>?
    let ioGuard: IOGuard
    public let referenceStream: Int32
    public let timeline: Timeline
    public let hasVideo: Bool
    let ticksPerSecond: Int64
    let durationTime: MediaTime
    /// The landing policy of this item: the window, the grid, the index, the stamp.
    let lander: Lander<FFmpegEngine>
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
    /// What the context was opened from and how, for a reopen (FFmpegEngine+Fragments.swift).
    let openURL: String
    let openPolicy: IOPolicy
    let openOptions: [String: String]
    /// mov parses this file's fragments lazily (a complete sidx or mfra): positioning
    /// starts from a fresh context (FFmpegEngine+Fragments.swift).
    let lazyFragments: Bool
    /// The context has been read or positioned since it was opened.
    var contextUsed = false
    /// Packets a positioning read ahead to check where it landed, for the next reads.
    var stashed: [UnsafeMutablePointer<AVPacket>] = []
    /// What the engine was opened from, for the background indexer's own open
    /// (`FFmpegEngine+Index.swift`); nil for an in-memory item.
    let sourceURL: String?
    /// Added to every timestamp the demuxer gives, per stream (empty: none): an HLS packed
    /// audio segment placed by its ID3 timestamp (`HLSPackedAudio`). Every time the engine
    /// and its lander see is shifted; positioning by time takes it off again.
    let tsShift: [Int64]

    /// Opens `url`. Blocking, bounded by the policy's timeout. `options` are
    /// extra demuxer/protocol options (e.g. http `offset`/`end_offset`).
    /// With `memory`, the bytes are demuxed from memory and `url` only names them.
    /// `referenceStream`: the stream seeks resolve on, which must be a video stream
    /// (`.invalidArgument` otherwise, with a log line saying why); nil: the best video
    /// stream, else the best audio stream (`av_find_best_stream`).
    /// `packedAudioStart`: for an HLS packed audio segment (a raw ADTS AAC, AC-3, E-AC-3 or MP3
    /// elementary stream, whose demuxer starts its timestamps at zero), where its first
    /// sample sits on the domain's pts timeline, seconds (`HLSPackedAudio.segmentStart`);
    /// ignored for any other format.
    public init(url: String, policy: IOPolicy, options: [String: String] = [:], memory: FallibleBuffer<UInt8>? = nil,
                referenceStream chosen: Int32? = nil, packedAudioStart: Rational? = nil) throws {
        // Every engine (an item, an HLS segment) starts with the allocation reserve held.
        guard MemoryReserve.ensure() else { throw EngineError(.noMemory) }
        let memoryEpoch = MemoryReserve.epoch
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
        openURL = url
        openPolicy = policy
        openOptions = options
        let c = try Self.openContext(url: url, policy: policy, options: options, memoryIO: memoryIO, gate: gate,
                                     ioGuard: g, guarded: false, checked: memory == nil, memoryEpoch: memoryEpoch)
        var ref: Int32
        var video = true
        if let want = chosen {
            if let refusal = Self.referenceRefusal(c, want) {
                Log.emit(ABIConstants.FPX_LOG_ERROR, refusal)
                g.unwatch()
                var cc: UnsafeMutablePointer<AVFormatContext>? = c
                ffmpeg_avformat_close_input(&cc)
                throw EngineError(.invalidArgument)
            }
            ref = want
        } else {
            ref = ffmpeg_av_find_best_stream(c, AVMEDIA_TYPE_VIDEO, -1, -1, 0)
            if ref < 0 {
                ref = ffmpeg_av_find_best_stream(c, AVMEDIA_TYPE_AUDIO, -1, -1, 0)
                video = false
            }
        }
        guard ref >= 0, ref < Int32(c.pointee.nb_streams), let st = c.pointee.streams[Int(ref)] else {
            g.unwatch()
            var cc: UnsafeMutablePointer<AVFormatContext>? = c
            ffmpeg_avformat_close_input(&cc)
            throw EngineError(.noStream, avError: ref)
        }
        ctx = c
        referenceStream = ref
        hasVideo = video
        tsShift = Self.packedAudioShifts(c, start: packedAudioStart)
        let shift = tsShift.isEmpty ? 0 : tsShift[Int(ref)]
        let tb = st.pointee.time_base
        let num = tb.num > 0 ? tb.num : 1, den = tb.den > 0 ? tb.den : 1
        ticksPerSecond = max(1, Int64((Int128(den) + Int128(num) - 1) / Int128(num)))
        let videoDelay = Self.reorderDepth(st.pointee.codecpar)
        let primingRate = st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            ? max(0, st.pointee.codecpar.pointee.sample_rate) : 0
        let audioStart = primingRate > 0 && st.pointee.start_time != fpx_av_nopts_value() ? st.pointee.start_time &+ shift : nil
        // Item time 0 is the container's start, in this stream's ticks.
        let nopts = fpx_av_nopts_value()
        var origin: Int64 = 0
        let fmtStart = c.pointee.start_time
        let stStart = st.pointee.start_time
        if fmtStart != nopts {
            let q = AVRational(num: 1, den: fpx_av_time_base())
            origin = ffmpeg_av_rescale_q_rnd(fmtStart, q, AVRational(num: num, den: den), AV_ROUND_NEAR_INF)
            if stStart != nopts,
               ffmpeg_av_rescale_q_rnd(stStart, AVRational(num: num, den: den), q, AV_ROUND_NEAR_INF) == fmtStart {
                origin = stStart
            }
        } else if stStart != nopts {
            origin = stStart
        }
        origin &+= shift
        timeline = Timeline(timeBaseNum: num, timeBaseDen: den, originTicks: origin)
        guard let f = ItemFacts(c) else {
            g.unwatch()
            var cc: UnsafeMutablePointer<AVFormatContext>? = c
            ffmpeg_avformat_close_input(&cc)
            throw EngineError(.noMemory)
        }
        facts = f
        seekableAtOpen = ((c.pointee.ctx_flags & fpx_avfmtctx_unseekable()) == 0)
            && (c.pointee.pb.map { $0.pointee.seekable != 0 } ?? true)
        var durationEnd: Int64?
        if c.pointee.duration != nopts && c.pointee.duration > 0 {
            durationTime = MediaTime(value: c.pointee.duration, timescale: fpx_av_time_base())
            durationEnd = origin &+ ffmpeg_av_rescale_q_rnd(c.pointee.duration, AVRational(num: 1, den: fpx_av_time_base()),
                                                     AVRational(num: num, den: den), AV_ROUND_UP)
        } else {
            durationTime = .invalid
        }
        lazyFragments = memoryIO == nil && seekableAtOpen
            && Self.parsesFragmentsLazily(c, stream: st, durationEndTicks: durationEnd, ticksPerSecond: ticksPerSecond)
        let fmtFlags = c.pointee.iformat?.pointee.flags ?? 0
        let byByte = seekableAtOpen && c.pointee.pb != nil
            && (fmtFlags & AVFMT_TS_DISCONT) != 0 && (fmtFlags & AVFMT_NO_BYTE_SEEK) == 0
        // The file's size, for byte positioning and the policy's test of a packet cut short
        // by the end of the data (no I/O: the file and http protocols know it).
        let size = seekableAtOpen ? (c.pointee.pb.map { ffmpeg_avio_size($0) } ?? -1) : -1
        lander = Lander(facts: DemuxerFacts(
            referenceStream: ref, ticksPerSecond: ticksPerSecond, settleCount: videoDelay + 1, originTicks: origin,
            durationEndTicks: durationEnd, seekable: seekableAtOpen, positionsByByte: byByte,
            seeksByPTS: (fmtFlags & AVFMT_SEEK_TO_PTS) != 0, costlySeeks: remote,
            fileSize: size > 0 ? size : nil, maxWindowBytes: policy.maxBufferBytes, hasVideo: video,
            priming: Priming(referenceStream: ref, sampleRate: primingRate, audioStart: audioStart,
                             timeBaseNum: num, timeBaseDen: den,
                             samplesAreFrames: Self.isRawPCM(st.pointee.codecpar.pointee.codec_id))))
    }

    deinit { close() }

    /// The demuxers of packed audio segments (RFC 8216 section 3.4).
    static let packedAudioFormats: Set<String> = ["aac", "ac3", "eac3", "mp3"]

    /// `tsShift` for a context: each stream's first sample at `start` seconds when the
    /// context is a packed audio elementary stream and `start` is known, else none.
    static func packedAudioShifts(_ c: UnsafeMutablePointer<AVFormatContext>, start: Rational?) -> [Int64] {
        guard let start = start, let f = c.pointee.iformat, let name = f.pointee.name,
              packedAudioFormats.contains(String(cString: name)) else { return [] }
        // These demuxers count a segment's packets from zero: the first packet (the first
        // sample, as FFmpeg's hls demuxer takes it) is at pts 0, whatever start_time the
        // stream info guessed (AC-3's is one frame late on Shaka's segments).
        return (0..<Int(c.pointee.nb_streams)).map { i in
            guard let st = c.pointee.streams[i] else { return 0 }
            return HLSPackedAudio.shift(start: start, firstPTS: 0, timeBaseNum: st.pointee.time_base.num,
                                        timeBaseDen: st.pointee.time_base.den)
        }
    }

    /// A time of the engine (shifted) as the demuxer counts it, on the reference stream.
    func demuxerTime(_ t: Int64) -> Int64 { tsShift.isEmpty ? t : t &- tsShift[Int(referenceStream)] }

    /// Why stream `want` of `c` cannot be the chosen reference stream (the log line of the
    /// refusal), nil when it can: a video stream of the file (attached pictures, a cover's
    /// one frame, are no stream to seek on).
    static func referenceRefusal(_ c: UnsafeMutablePointer<AVFormatContext>, _ want: Int32) -> String? {
        let n = Int32(c.pointee.nb_streams)
        let choice = "reference_stream: stream index \(want) (fpx_player_config.reference_stream \(Int64(want) + 1))"
        guard want >= 0, want < n, let st = c.pointee.streams[Int(want)] else {
            return "\(choice) does not exist: the item has \(n) stream\(n == 1 ? "" : "s") (indices 0...\(max(0, n - 1)))"
        }
        let type = st.pointee.codecpar.pointee.codec_type
        guard type == AVMEDIA_TYPE_VIDEO else {
            let name = ffmpeg_av_get_media_type_string(type).map { String(cString: $0) } ?? "unknown"
            return "\(choice) is not a video stream but \(name): seeks resolve on a video stream's frames"
        }
        guard (st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) == 0 else {
            return "\(choice) is an attached picture (cover art), not a video stream to seek on"
        }
        return nil
    }

    public func close() {
        guard !closed else { return }
        closed = true
        lander.close(self)
        dropStashed()
        for p in packetPool {
            var pp: UnsafeMutablePointer<AVPacket>? = p
            ffmpeg_av_packet_free(&pp)
        }
        packetPool.removeAll()
        ioGuard.unwatch()
        if ctx != nil { ffmpeg_avformat_close_input(&ctx) }
    }

    public func interrupt() { ioGuard.interrupt() }

    /// Media bytes this engine holds: an in-memory item's bytes and the packet window.
    var bufferedBytes: Int { (memoryIO?.bytes.count ?? 0) &+ lander.window.bytes }

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

    /// The next packet: one a positioning read ahead (`stashed`), else from the demuxer; nil at EOF.
    func readRaw() throws -> UnsafeMutablePointer<AVPacket>? {
        if !stashed.isEmpty { return stashed.removeFirst() }
        return try readDemuxer()
    }

    /// One av_read_frame into a new packet; nil at EOF.
    func readDemuxer() throws -> UnsafeMutablePointer<AVPacket>? {
        let c = try liveContext()
        guard let p = packetPool.popLast() ?? ffmpeg_av_packet_alloc() else { throw EngineError(.noMemory) }
        ioGuard.extend()
        contextUsed = true
        let ret = ffmpeg_av_read_frame(c, p)
        if ret < 0 {
            free(p)
            // Demuxers report a broken connection as the end of the file: the context's
            // own error says which it was.
            let ioErr = c.pointee.pb?.pointee.error ?? 0
            let broken = ioErr < 0 && ioErr != fpx_averror_eof()
            if ret == fpx_averror_eof() && !ioGuard.wasCut && !broken { return nil }
            // An interrupted or failed read may have consumed part of a packet: the
            // lander marks the read position lost (the next host read restarts at
            // the playhead's keyframe, with DISCONTINUITY).
            throw ioGuard.error(for: ret == fpx_averror_eof() && broken ? ioErr : ret)
        }
        // A read cut short by the deadline, a stop or an abort, or by an I/O
        // error FFmpeg papered over, returns a truncated packet (flagged
        // corrupt, or not at all): never hand that out as media.
        let ioError = c.pointee.pb?.pointee.error ?? 0
        if ioGuard.wasCut || ((p.pointee.flags & fpx_pkt_flag_corrupt()) != 0 && ioError < 0 && ioError != fpx_averror_eof()) {
            free(p)
            // The demuxer has moved past the dropped packet (see above).
            throw ioGuard.error(for: ioError < 0 ? ioError : fpx_averror_exit())
        }
        counters.packets &+= 1
        counters.bytes &+= UInt64(max(0, p.pointee.size))
        let k = Int(p.pointee.stream_index)
        if k >= 0, k < tsShift.count {
            let nopts = fpx_av_nopts_value()
            if p.pointee.pts != nopts { p.pointee.pts &+= tsShift[k] }
            if p.pointee.dts != nopts { p.pointee.dts &+= tsShift[k] }
        }
        return p
    }

    /// Lets go of one of the engine's packets: its data reference is dropped now; the struct
    /// goes back to the pool (or is freed when the pool is full or the engine closed).
    func free(_ p: UnsafeMutablePointer<AVPacket>) {
        if !closed && packetPool.count < Self.maxPooledPackets {
            ffmpeg_av_packet_unref(p)
            packetPool.append(p)
        } else {
            var pp: UnsafeMutablePointer<AVPacket>? = p
            ffmpeg_av_packet_free(&pp)
        }
    }

    /// The most frames a video decoder may hold back (H.264's and HEVC's largest DPB).
    static let maxReorderDepth = 16

    /// The stream's reorder depth. `video_delay` is what avformat_find_stream_info learned
    /// from the codec's decoder; an FFmpeg without that decoder (the wheel's demux-only
    /// build has none) leaves it 0 even for a stream that reorders, so the depth is then
    /// unknown and the largest one a decoder may have is assumed (a few more packets read
    /// where packets carry no dts, instead of a landing on the wrong frame).
    static func reorderDepth(_ par: UnsafeMutablePointer<AVCodecParameters>) -> Int {
        let known = Int(max(0, par.pointee.video_delay))
        guard known == 0, par.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
              ffmpeg_avcodec_find_decoder(par.pointee.codec_id) == nil else { return known }
        return maxReorderDepth
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

    /// A packet's header for the policy (the skip-samples side data read only
    /// where the policy's priming rules look at it: an audio reference stream).
    func header(_ p: UnsafeMutablePointer<AVPacket>) -> DemuxedPacket {
        let onRef = p.pointee.stream_index == referenceStream && lander.facts.priming.sampleRate > 0
        return DemuxedPacket(stream: p.pointee.stream_index, pts: Self.pts(p), dts: Self.dts(p),
                             duration: p.pointee.duration, isKey: Self.isKey(p), isDiscard: Self.isDiscard(p),
                             skipSamples: onRef ? fpx_packet_skip_samples(p) : 0,
                             pos: p.pointee.pos >= 0 ? p.pointee.pos : nil, size: Int(max(0, p.pointee.size)),
                             isCorrupt: (p.pointee.flags & fpx_pkt_flag_corrupt()) != 0)
    }

    /// The presentation time a landing sees (the policy's priming rules).
    func landPTS(_ p: UnsafeMutablePointer<AVPacket>) -> Int64? { lander.facts.priming.presents(header(p)) }

    /// Never a landing (the policy's priming rules).
    func notLandable(_ p: UnsafeMutablePointer<AVPacket>) -> Bool { lander.facts.priming.notLandable(header(p)) }

    func seek(to ticks: Int64) throws -> Int32 {
        guard let c = ctx else { return fpx_averror_exit() }
        ioGuard.extend()
        let ret = lazyFragments ? try seekFragmented(to: ticks)
            : ffmpeg_av_seek_frame(c, referenceStream, demuxerTime(ticks), fpx_avseek_flag_backward())
        if ret < 0 && ret != fpx_averror_eof() { positionFailure = ret }
        return ret
    }

    /// Back to the first packet. Timestamp seeks to the start are unreliable for
    /// MPEG-TS/PS (they resync past the first keyframe), and byte seeks are wrong
    /// for MP4/Matroska, so the method depends on the demuxer.
    public func rewind() throws {
        if lazyFragments {
            // A fresh context reads from the start (a seek would skip fragments).
            try freshContext()
            _ = try liveContext()
            return
        }
        let c = try liveContext()
        contextUsed = true
        ioGuard.extend()
        let flags = c.pointee.iformat?.pointee.flags ?? 0
        var ret: Int32 = -1
        if (flags & AVFMT_TS_DISCONT) != 0 && (flags & AVFMT_NO_BYTE_SEEK) == 0 {
            ret = ffmpeg_av_seek_frame(c, -1, 0, AVSEEK_FLAG_BYTE)
        }
        let start = c.pointee.start_time == fpx_av_nopts_value() ? 0 : c.pointee.start_time
        if ret < 0 {
            ret = ffmpeg_avformat_seek_file(c, -1, Int64.min, start, Int64.max, 0)
        }
        if ret < 0 {
            // An fMP4 fragment cut mid-GOP (an HLS segment cut on time) holds no keyframe: the
            // mov demuxer finds none at or before its start and refuses even the start
            // (seek_frame_generic's -1, AVERROR(EPERM)). Its first sample in decode order, which
            // may present after the start (a B-frame's reference), is where a target before
            // every sample goes (mov_seek_stream: sample 0); ANY: no keyframe needed.
            ret = ffmpeg_av_seek_frame(c, referenceStream, Int64.min / 4, AVSEEK_FLAG_ANY | fpx_avseek_flag_backward())
        }
        if ret < 0 && (flags & AVFMT_NO_BYTE_SEEK) == 0 { ret = ffmpeg_av_seek_frame(c, -1, 0, AVSEEK_FLAG_BYTE) }
        if ret < 0 { throw positioningError(ret) }
    }

    /// The error of a failed positioning (a rewind, a read's repositioning): the guard's
    /// (a refusal, a timeout, a stop) first. libavformat's seeks answer -1 (AVERROR(EPERM))
    /// when the demuxer finds no position for the target (no keyframe at or before it): over
    /// in-memory bytes (an HLS segment) that cannot be I/O, whose reads and seeks there never
    /// fail, so it is FPX_ERROR_INVALID_DATA, not an I/O error ("connection reset"). Over a
    /// network the same -1 is also a refused reconnection (FFmpeg's http), so it stays I/O.
    func positioningError(_ ret: Int32) -> EngineError {
        let e = ioGuard.error(for: ret)
        if memoryIO != nil && ret == -Int32(EPERM) && e.code == .io { return EngineError(.invalidData, avError: ret) }
        return e
    }

    /// A copy of the range for `liveWindow()`, which runs without the engine lock.
    static let publishLock = Monitor()
    var publishedRange: ClosedRange<Int64>?
    /// `Lander.rangeEndsAtCut` as of the published range (guarded by `publishLock`).
    var publishedEndsAtCut = false

    public var itemInfo: ItemInfo {
        ItemInfo(streamCount: facts.streamCount, referenceStream: referenceStream, hasVideo: hasVideo,
                 duration: durationTime, timeline: timeline, seekable: seekableAtOpen, formatName: facts.formatName)
    }

    public func streamInfo(_ index: Int32) -> StreamInfo? { facts.info(index) }

    public func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { facts.videoPacketFormat(index) }

    public var factsOwner: AnyObject? { facts.ownerIfHandedOut }
}

extension FFmpegEngine {
    /// Interleaved raw PCM: any run of whole samples is a packet a decoder takes
    /// (not DVD/Blu-ray/SMPTE 302M PCM, whose packets carry headers, nor ADPCM).
    static func isRawPCM(_ id: AVCodecID) -> Bool {
        let raw: [AVCodecID] = [
            AV_CODEC_ID_PCM_S8, AV_CODEC_ID_PCM_U8, AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S16BE,
            AV_CODEC_ID_PCM_U16LE, AV_CODEC_ID_PCM_U16BE, AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S24BE,
            AV_CODEC_ID_PCM_U24LE, AV_CODEC_ID_PCM_U24BE, AV_CODEC_ID_PCM_S32LE, AV_CODEC_ID_PCM_S32BE,
            AV_CODEC_ID_PCM_U32LE, AV_CODEC_ID_PCM_U32BE, AV_CODEC_ID_PCM_S64LE, AV_CODEC_ID_PCM_S64BE,
            AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F32BE, AV_CODEC_ID_PCM_F64LE, AV_CODEC_ID_PCM_F64BE,
            AV_CODEC_ID_PCM_F16LE, AV_CODEC_ID_PCM_F24LE, AV_CODEC_ID_PCM_ALAW, AV_CODEC_ID_PCM_MULAW,
            AV_CODEC_ID_PCM_VIDC,
        ]
        return raw.contains(id)
    }
}

/// One packet reference (an `av_packet_clone`), freed when the last owner lets go.
final class OwnedPacket {
    private var packet: UnsafeMutablePointer<AVPacket>?
    init(_ p: UnsafeMutablePointer<AVPacket>) { packet = p }
    deinit { ffmpeg_av_packet_free(&packet) }
}
