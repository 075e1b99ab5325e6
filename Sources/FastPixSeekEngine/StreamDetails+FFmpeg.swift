#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// C strings the stream details hand out that FFmpeg does not keep for us (channel layout
/// descriptions, the language tag). Each distinct string is allocated once and freed with
/// its owner (the item's `ItemFacts`, which the player keeps until it is destroyed).
final class EngineStrings {
    private let m = Monitor()
    private var strings: [String: UnsafeMutablePointer<CChar>] = [:]

    func intern(_ s: String) -> UnsafePointer<CChar>? {
        m.locked {
            if let p = strings[s] { return UnsafePointer(p) }
            guard let p = strdup(s) else { return nil }
            strings[s] = p
            return UnsafePointer(p)
        }
    }

    deinit { for p in strings.values { free(p) } }
}

/// The details of `st`, read from its codec parameters, its own fields and its side data, as
/// `ffprobe -show_streams` reads them. Strings that are not FFmpeg's static names are copied
/// into `strings`.
func streamDetails(of st: UnsafeMutablePointer<AVStream>, in ctx: UnsafeMutablePointer<AVFormatContext>,
                   strings: EngineStrings) -> StreamDetails {
    var f = StreamDetails()
    guard let par = st.pointee.codecpar else { return f }
    let p = par.pointee
    f.profile = p.profile
    f.level = p.level
    f.profileName = p.profile != -99 ? ffmpeg_avcodec_profile_name(p.codec_id, p.profile) : nil
    f.codecTag = p.codec_tag
    f.bitRate = p.bit_rate
    f.bitsPerCodedSample = p.bits_per_coded_sample
    f.bitsPerRawSample = p.bits_per_raw_sample
    f.startPTS = st.pointee.start_time == fpx_av_nopts_value() ? nil : st.pointee.start_time
    f.durationTicks = st.pointee.duration == fpx_av_nopts_value() ? nil : st.pointee.duration
    f.frameCount = st.pointee.nb_frames
    f.disposition = st.pointee.disposition
    if let e = ffmpeg_av_dict_get(st.pointee.metadata, "language", 0), let v = e.pointee.value {
        f.language = strings.intern(String(cString: v))
    }
    switch p.codec_type {
    case AVMEDIA_TYPE_VIDEO:
        if p.format >= 0 {
            let fmt = AVPixelFormat(rawValue: p.format)
            f.pixelFormat = ffmpeg_av_get_pix_fmt_name(fmt)
            if let d = ffmpeg_av_pix_fmt_desc_get(fmt), d.pointee.nb_components > 0 { f.bitDepth = d.pointee.comp.0.depth }
        }
        let sar = ffmpeg_av_guess_sample_aspect_ratio(ctx, st)
        if sar.num > 0 && sar.den > 0 { f.sampleAspectNum = sar.num; f.sampleAspectDen = sar.den }
        f.frameRateNum = st.pointee.avg_frame_rate.num
        f.frameRateDen = st.pointee.avg_frame_rate.den
        f.realFrameRateNum = st.pointee.r_frame_rate.num
        f.realFrameRateDen = st.pointee.r_frame_rate.den
        f.colorRange = Int32(bitPattern: p.color_range.rawValue)
        f.colorPrimaries = Int32(bitPattern: p.color_primaries.rawValue)
        f.colorTransfer = Int32(bitPattern: p.color_trc.rawValue)
        f.colorSpace = Int32(bitPattern: p.color_space.rawValue)
        f.colorRangeName = ffmpeg_av_color_range_name(p.color_range)
        f.colorPrimariesName = ffmpeg_av_color_primaries_name(p.color_primaries)
        f.colorTransferName = ffmpeg_av_color_transfer_name(p.color_trc)
        f.colorSpaceName = ffmpeg_av_color_space_name(p.color_space)
        f.chromaLocation = Int32(bitPattern: p.chroma_location.rawValue)
        f.chromaLocationName = ffmpeg_av_chroma_location_name(p.chroma_location)
        f.fieldOrder = Int32(bitPattern: p.field_order.rawValue)
        if let matrix = fpx_stream_display_matrix(st) {
            let r = ffmpeg_av_display_rotation_get(matrix)
            if r.isFinite {
                f.hasDisplayMatrix = true
                f.rotationDegrees = r == 0 ? 0 : r  // no -0
            }
        }
    case AVMEDIA_TYPE_AUDIO:
        if p.format >= 0 {
            let fmt = AVSampleFormat(rawValue: p.format)
            f.sampleFormat = ffmpeg_av_get_sample_fmt_name(fmt)
            f.bitDepth = p.bits_per_raw_sample > 0 ? p.bits_per_raw_sample : ffmpeg_av_get_bytes_per_sample(fmt) * 8
        }
        var layout = p.ch_layout
        if layout.order != AV_CHANNEL_ORDER_UNSPEC {
            var buf = [CChar](repeating: 0, count: 128)
            if ffmpeg_av_channel_layout_describe(&layout, &buf, buf.count) > 0 {
                f.channelLayout = strings.intern(buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
            if layout.order == AV_CHANNEL_ORDER_NATIVE { f.channelMask = layout.u.mask }
        }
        f.frameSize = p.frame_size
        f.initialPadding = p.initial_padding
        f.trailingPadding = p.trailing_padding
    default:
        break
    }
    return f
}
