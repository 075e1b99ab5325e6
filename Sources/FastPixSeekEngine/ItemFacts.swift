import CFFmpeg
import FastPixSeekCore

/// The facts of an item's streams, copied out of the format context when the
/// engine opens, so that reading them never touches the context (which
/// `close()` frees, possibly on another thread) and the pointers they hold
/// (extradata, codec parameters) belong to this object alone.
///
/// Immutable after init, so any thread may read it without a lock. The
/// engine hands it to the player (`factsOwner`) once a host has seen its
/// pointers, and the player keeps it until it is destroyed (seek.h, section 5).
// @unchecked Sendable: immutable after init (see above), except `handedOut`, guarded by
// `handedOutLock`.
public final class ItemFacts: @unchecked Sendable {
    let infos: [StreamInfo]
    /// Per stream: what `DisposableMarker` needs (nil: no video stream). Read from the
    /// codec parameters at init; reading it does not mark the facts handed out.
    let videoFormats: [VideoPacketFormat?]
    public let formatName: UnsafePointer<CChar>?
    private var parameters: [UnsafeMutablePointer<AVCodecParameters>] = []
    /// The strings of the streams' details (channel layouts, language tags).
    private let strings = EngineStrings()
    private let handedOutLock = Monitor()
    private var handedOut = false

    /// nil: no memory for a copy of a stream's parameters (what was copied is freed).
    init?(_ c: UnsafeMutablePointer<AVFormatContext>) {
        // AVInputFormat names are static strings of libavformat.
        formatName = c.pointee.iformat?.pointee.name
        var out: [StreamInfo] = []
        var formats: [VideoPacketFormat?] = []
        let n = Int(c.pointee.nb_streams)
        for i in 0..<n {
            formats.append(c.pointee.streams[i]?.pointee.codecpar.flatMap { Self.videoFormat($0) })
            guard let st = c.pointee.streams[i], let src = st.pointee.codecpar else {
                out.append(StreamInfo(index: Int32(i), type: .unknown, codecID: 0, codecName: nil, timeBaseNum: 0,
                                      timeBaseDen: 0, width: 0, height: 0, sampleRate: 0, channels: 0, videoDelay: 0,
                                      extradata: nil, extradataSize: 0, codecParameters: nil))
                continue
            }
            // Every stream FFmpeg describes gets its parameters: no memory for the copy fails
            // the open (nil; the copies made so far are freed) rather than hand out NULL.
            guard let par = ffmpeg_avcodec_parameters_alloc() else { Self.free(parameters); return nil }
            parameters.append(par)
            if ffmpeg_avcodec_parameters_copy(par, src) < 0 { Self.free(parameters); return nil }
            let type: MediaType
            switch src.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO: type = .video
            case AVMEDIA_TYPE_AUDIO: type = .audio
            case AVMEDIA_TYPE_SUBTITLE: type = .subtitle
            case AVMEDIA_TYPE_DATA: type = .data
            default: type = .unknown
            }
            let extradata = par.pointee.extradata
            out.append(StreamInfo(index: Int32(i), type: type,
                                  codecID: Int32(bitPattern: src.pointee.codec_id.rawValue),
                                  codecName: ffmpeg_avcodec_get_name(src.pointee.codec_id),
                                  timeBaseNum: st.pointee.time_base.num, timeBaseDen: st.pointee.time_base.den,
                                  width: src.pointee.width, height: src.pointee.height,
                                  sampleRate: src.pointee.sample_rate, channels: src.pointee.ch_layout.nb_channels,
                                  videoDelay: src.pointee.video_delay,
                                  extradata: extradata.map { UnsafeRawPointer($0) },
                                  extradataSize: extradata == nil ? 0 : Int(max(0, par.pointee.extradata_size)),
                                  codecParameters: UnsafeRawPointer(par)))
            out[out.count - 1].details = streamDetails(of: st, in: c, strings: strings)
        }
        infos = out
        videoFormats = formats
    }

    /// The stream's NAL format for the disposable flag, from its codec id and extradata.
    static func videoFormat(_ par: UnsafeMutablePointer<AVCodecParameters>) -> VideoPacketFormat? {
        guard par.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { return nil }
        let codec: NALReference.Codec
        switch par.pointee.codec_id {
        case AV_CODEC_ID_H264: codec = .h264
        case AV_CODEC_ID_HEVC: codec = .hevc
        default: return VideoPacketFormat(nal: nil)
        }
        let data = par.pointee.extradata
        let size = data == nil ? 0 : Int(max(0, par.pointee.extradata_size))
        let bytes = UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size)
        return VideoPacketFormat(nal: NALReference.Format(codec: codec, extradata: bytes))
    }

    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? {
        guard index >= 0, Int(index) < videoFormats.count else { return nil }
        return videoFormats[Int(index)]
    }

    deinit { Self.free(parameters) }

    private static func free(_ list: [UnsafeMutablePointer<AVCodecParameters>]) {
        for p in list {
            var pp: UnsafeMutablePointer<AVCodecParameters>? = p
            ffmpeg_avcodec_parameters_free(&pp)
        }
    }

    var streamCount: Int32 { Int32(infos.count) }

    /// The facts of stream `index`, marking them handed out.
    func info(_ index: Int32) -> StreamInfo? {
        guard index >= 0, Int(index) < infos.count else { return nil }
        handedOutLock.locked { handedOut = true }
        return infos[Int(index)]
    }

    /// This object once a host has seen its pointers, else nil.
    var ownerIfHandedOut: AnyObject? { handedOutLock.locked { handedOut ? self : nil } }
}
