#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg

// Every FFmpeg function the engine calls, each behind one thin function of the same name with
// the prefix `ffmpeg_` (swift-system's `system_read` pattern): the engine's files call these,
// never FFmpeg directly (Tests/python/test_ffmpeg_layer.py checks it). Each one only calls
// through, so the release library is what direct calls would be; in test builds
// (FPX_FAULTS: Package.swift defines it for the debug configuration only, so `swift test` has
// it and the shipped library has no trace of it) a test can make any call that can fail
// fail, or stall, on its Nth call (FFmpegFaults.swift).
//
// A call that can fail asks `FFmpegFaults.fault` first: a code it answers is returned as the
// call's result (an AVERROR), and a call that returns a pointer then returns NULL. Calls
// that cannot fail (frees, names, arithmetic, versions) have no hook. The macros and inline
// helpers of the shim (Sources/CFFmpeg/shim.h, `fpx_*`) are not FFmpeg calls of ours.

// MARK: libavformat: contexts, opening, reading, positioning

func ffmpeg_avformat_alloc_context() -> UnsafeMutablePointer<AVFormatContext>? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.avformat_alloc_context) != nil { return nil }
#endif
    return avformat_alloc_context()
}

/// The context `*ps` must have its interrupt callback set (the engine's always has).
func ffmpeg_avformat_open_input(_ ps: UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>, _ url: String,
                                _ fmt: UnsafePointer<AVInputFormat>?,
                                _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avformat_open_input, ps.pointee) {
        // As FFmpeg's own failure: the context is freed and *ps set to NULL.
        avformat_free_context(ps.pointee)
        ps.pointee = nil
        return e
    }
#endif
    return avformat_open_input(ps, url, fmt, options)
}

func ffmpeg_avformat_find_stream_info(_ ic: UnsafeMutablePointer<AVFormatContext>,
                                      _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avformat_find_stream_info, ic) { return e }
#endif
    return avformat_find_stream_info(ic, options)
}

func ffmpeg_avformat_close_input(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>) {
    avformat_close_input(s)
}

func ffmpeg_av_read_frame(_ s: UnsafeMutablePointer<AVFormatContext>, _ pkt: UnsafeMutablePointer<AVPacket>) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.av_read_frame, s) { return e }
#endif
    return av_read_frame(s, pkt)
}

func ffmpeg_av_seek_frame(_ s: UnsafeMutablePointer<AVFormatContext>, _ streamIndex: Int32, _ timestamp: Int64,
                          _ flags: Int32) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.av_seek_frame, s) { return e }
#endif
    return av_seek_frame(s, streamIndex, timestamp, flags)
}

func ffmpeg_avformat_seek_file(_ s: UnsafeMutablePointer<AVFormatContext>, _ streamIndex: Int32, _ minTS: Int64,
                               _ ts: Int64, _ maxTS: Int64, _ flags: Int32) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avformat_seek_file, s) { return e }
#endif
    return avformat_seek_file(s, streamIndex, minTS, ts, maxTS, flags)
}

/// No decoder is asked for (`decoder_ret` NULL).
func ffmpeg_av_find_best_stream(_ ic: UnsafeMutablePointer<AVFormatContext>, _ type: AVMediaType,
                                _ wanted: Int32, _ related: Int32, _ flags: Int32) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.av_find_best_stream) { return e }
#endif
    return av_find_best_stream(ic, type, wanted, related, nil, flags)
}

func ffmpeg_avformat_index_get_entries_count(_ st: UnsafePointer<AVStream>) -> Int32 {
    avformat_index_get_entries_count(st)
}

/// No decoded frame is given (`frame` NULL).
func ffmpeg_av_guess_sample_aspect_ratio(_ format: UnsafeMutablePointer<AVFormatContext>,
                                         _ stream: UnsafeMutablePointer<AVStream>) -> AVRational {
    av_guess_sample_aspect_ratio(format, stream, nil)
}

/// Splits a URL into its parts (FFmpeg's own URL reading, as its http protocol uses);
/// `port` is -1 when the URL names none. Cannot fail: too-long parts are truncated.
func ffmpeg_av_url_split(_ proto: UnsafeMutablePointer<CChar>, _ protoSize: Int32,
                         _ host: UnsafeMutablePointer<CChar>, _ hostSize: Int32, _ port: UnsafeMutablePointer<Int32>,
                         _ path: UnsafeMutablePointer<CChar>, _ pathSize: Int32, _ url: String) {
    av_url_split(proto, protoSize, nil, 0, host, hostSize, port, path, pathSize, url)
}

func ffmpeg_avformat_version() -> UInt32 { avformat_version() }

/// The next demuxer of the loaded libavformat (`opaque` starts NULL); NULL after the last.
func ffmpeg_av_demuxer_iterate(_ opaque: UnsafeMutablePointer<UnsafeMutableRawPointer?>)
    -> UnsafePointer<AVInputFormat>? {
    av_demuxer_iterate(opaque)
}

// MARK: libavformat: byte I/O

func ffmpeg_avio_open2(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>, _ url: String, _ flags: Int32,
                       _ interrupt: UnsafePointer<AVIOInterruptCB>?,
                       _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avio_open2, interrupt: interrupt?.pointee) { return e }
#endif
    return avio_open2(s, url, flags, interrupt, options)
}

func ffmpeg_avio_closep(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) {
    avio_closep(s)
}

func ffmpeg_avio_read(_ s: UnsafeMutablePointer<AVIOContext>, _ buf: UnsafeMutablePointer<UInt8>?,
                      _ size: Int32) -> Int32 {
#if FPX_FAULTS
    switch FFmpegFaults.read(.avio_read, asked: size) {
    case .fail(let e): return e
    case .short(let n): return avio_read(s, buf, n)
    case .none: break
    }
#endif
    return avio_read(s, buf, size)
}

/// What is there now, at most `size` bytes, waiting only when nothing is (a read-write
/// context, as a socket's, reads straight from the protocol).
func ffmpeg_avio_read_partial(_ s: UnsafeMutablePointer<AVIOContext>, _ buf: UnsafeMutablePointer<UInt8>?,
                              _ size: Int32) -> Int32 {
#if FPX_FAULTS
    switch FFmpegFaults.read(.avio_read_partial, asked: size) {
    case .fail(let e): return e
    case .short(let n): return avio_read_partial(s, buf, n)
    case .none: break
    }
#endif
    return avio_read_partial(s, buf, size)
}

/// Buffers bytes to send; a failure shows in the context's `error` after `ffmpeg_avio_flush`.
func ffmpeg_avio_write(_ s: UnsafeMutablePointer<AVIOContext>, _ buf: UnsafePointer<UInt8>, _ size: Int32) {
    avio_write(s, buf, size)
}

func ffmpeg_avio_flush(_ s: UnsafeMutablePointer<AVIOContext>) { avio_flush(s) }

func ffmpeg_avio_seek(_ s: UnsafeMutablePointer<AVIOContext>, _ offset: Int64, _ whence: Int32) -> Int64 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avio_seek) { return Int64(e) }
#endif
    return avio_seek(s, offset, whence)
}

func ffmpeg_avio_size(_ s: UnsafeMutablePointer<AVIOContext>) -> Int64 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avio_size) { return Int64(e) }
#endif
    return avio_size(s)
}

/// A read-only context (no write callback: its type differs between FFmpeg 5/6 and 7).
func ffmpeg_avio_alloc_context(
    _ buffer: UnsafeMutablePointer<UInt8>, _ size: Int32, _ opaque: UnsafeMutableRawPointer?,
    _ read: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32)?,
    _ seek: (@convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64)?
) -> UnsafeMutablePointer<AVIOContext>? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.avio_alloc_context) != nil { return nil }
#endif
    return avio_alloc_context(buffer, size, 0, opaque, read, nil, seek)
}

func ffmpeg_avio_context_free(_ s: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) {
    avio_context_free(s)
}

/// NULL: no protocol matches, or libavformat's lookup failed to allocate (ProtocolGate).
func ffmpeg_avio_find_protocol_name(_ url: String) -> UnsafePointer<CChar>? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.avio_find_protocol_name) != nil { return nil }
#endif
    return avio_find_protocol_name(url)
}

// MARK: libavcodec: packets, codec parameters, codec names

func ffmpeg_av_packet_alloc() -> UnsafeMutablePointer<AVPacket>? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.av_packet_alloc) != nil { return nil }
#endif
    return av_packet_alloc()
}

func ffmpeg_av_packet_clone(_ src: UnsafePointer<AVPacket>) -> UnsafeMutablePointer<AVPacket>? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.av_packet_clone) != nil { return nil }
#endif
    return av_packet_clone(src)
}

func ffmpeg_av_packet_unref(_ pkt: UnsafeMutablePointer<AVPacket>) { av_packet_unref(pkt) }

func ffmpeg_av_packet_free(_ pkt: UnsafeMutablePointer<UnsafeMutablePointer<AVPacket>?>) { av_packet_free(pkt) }

func ffmpeg_avcodec_parameters_alloc() -> UnsafeMutablePointer<AVCodecParameters>? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.avcodec_parameters_alloc) != nil { return nil }
#endif
    return avcodec_parameters_alloc()
}

func ffmpeg_avcodec_parameters_copy(_ dst: UnsafeMutablePointer<AVCodecParameters>,
                                    _ src: UnsafePointer<AVCodecParameters>) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.avcodec_parameters_copy) { return e }
#endif
    return avcodec_parameters_copy(dst, src)
}

func ffmpeg_avcodec_parameters_free(_ par: UnsafeMutablePointer<UnsafeMutablePointer<AVCodecParameters>?>) {
    avcodec_parameters_free(par)
}

/// NULL when this FFmpeg has no decoder for `id` (a lookup, not a failure).
func ffmpeg_avcodec_find_decoder(_ id: AVCodecID) -> UnsafePointer<AVCodec>? { avcodec_find_decoder(id) }

func ffmpeg_avcodec_get_name(_ id: AVCodecID) -> UnsafePointer<CChar>? { avcodec_get_name(id) }

func ffmpeg_avcodec_profile_name(_ id: AVCodecID, _ profile: Int32) -> UnsafePointer<CChar>? {
    avcodec_profile_name(id, profile)
}

func ffmpeg_avcodec_version() -> UInt32 { avcodec_version() }

// MARK: libavutil: memory, dictionaries, AES

func ffmpeg_av_malloc(_ size: Int) -> UnsafeMutableRawPointer? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.av_malloc) != nil { return nil }
#endif
    return av_malloc(size)
}

func ffmpeg_av_free(_ ptr: UnsafeMutableRawPointer?) { av_free(ptr) }

func ffmpeg_av_dict_set(_ pm: UnsafeMutablePointer<OpaquePointer?>, _ key: String, _ value: String,
                        _ flags: Int32) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.av_dict_set) { return e }
#endif
    return av_dict_set(pm, key, value, flags)
}

/// The first entry for `key` (no previous entry given); NULL when there is none.
func ffmpeg_av_dict_get(_ m: OpaquePointer?, _ key: String,
                        _ flags: Int32) -> UnsafeMutablePointer<AVDictionaryEntry>? {
    av_dict_get(m, key, nil, flags)
}

func ffmpeg_av_dict_free(_ pm: UnsafeMutablePointer<OpaquePointer?>) { av_dict_free(pm) }

/// Freed with `ffmpeg_av_free`.
func ffmpeg_av_aes_alloc() -> OpaquePointer? {
#if FPX_FAULTS
    if FFmpegFaults.fault(.av_aes_alloc) != nil { return nil }
#endif
    return av_aes_alloc()
}

func ffmpeg_av_aes_init(_ a: OpaquePointer, _ key: UnsafePointer<UInt8>?, _ keyBits: Int32, _ decrypt: Int32) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.av_aes_init) { return e }
#endif
    return av_aes_init(a, key, keyBits, decrypt)
}

func ffmpeg_av_aes_crypt(_ a: OpaquePointer, _ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>,
                         _ count: Int32, _ iv: UnsafeMutablePointer<UInt8>?, _ decrypt: Int32) {
    av_aes_crypt(a, dst, src, count, iv, decrypt)
}

// MARK: libavutil: arithmetic, names, descriptions, logging, version

func ffmpeg_av_rescale_q_rnd(_ a: Int64, _ bq: AVRational, _ cq: AVRational, _ rnd: AVRounding) -> Int64 {
    av_rescale_q_rnd(a, bq, cq, rnd)
}

func ffmpeg_av_get_media_type_string(_ type: AVMediaType) -> UnsafePointer<CChar>? { av_get_media_type_string(type) }

func ffmpeg_av_get_pix_fmt_name(_ fmt: AVPixelFormat) -> UnsafePointer<CChar>? { av_get_pix_fmt_name(fmt) }

func ffmpeg_av_pix_fmt_desc_get(_ fmt: AVPixelFormat) -> UnsafePointer<AVPixFmtDescriptor>? { av_pix_fmt_desc_get(fmt) }

func ffmpeg_av_color_range_name(_ v: AVColorRange) -> UnsafePointer<CChar>? { av_color_range_name(v) }

func ffmpeg_av_color_primaries_name(_ v: AVColorPrimaries) -> UnsafePointer<CChar>? { av_color_primaries_name(v) }

func ffmpeg_av_color_transfer_name(_ v: AVColorTransferCharacteristic) -> UnsafePointer<CChar>? {
    av_color_transfer_name(v)
}

func ffmpeg_av_color_space_name(_ v: AVColorSpace) -> UnsafePointer<CChar>? { av_color_space_name(v) }

func ffmpeg_av_chroma_location_name(_ v: AVChromaLocation) -> UnsafePointer<CChar>? { av_chroma_location_name(v) }

func ffmpeg_av_display_rotation_get(_ matrix: UnsafePointer<Int32>) -> Double { av_display_rotation_get(matrix) }

func ffmpeg_av_get_sample_fmt_name(_ fmt: AVSampleFormat) -> UnsafePointer<CChar>? { av_get_sample_fmt_name(fmt) }

func ffmpeg_av_get_bytes_per_sample(_ fmt: AVSampleFormat) -> Int32 { av_get_bytes_per_sample(fmt) }

func ffmpeg_av_channel_layout_describe(_ layout: UnsafePointer<AVChannelLayout>, _ buf: UnsafeMutablePointer<CChar>,
                                      _ size: Int) -> Int32 {
#if FPX_FAULTS
    if let e = FFmpegFaults.fault(.av_channel_layout_describe) { return e }
#endif
    return av_channel_layout_describe(layout, buf, size)
}

func ffmpeg_av_log_set_level(_ level: Int32) { av_log_set_level(level) }

func ffmpeg_avutil_version() -> UInt32 { avutil_version() }
