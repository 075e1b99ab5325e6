import CFFmpeg

/// The libavformat demuxers an open may use: every one of the loaded build but `dash`.
/// An MPD is read by the project's own DASH layer (PlaylistLoad) or refused, never by
/// libavformat's dash demuxer (issue 31): with this `format_whitelist`, a body that probes
/// as an MPD fails avformat_open_input with EINVAL before the demuxer reads anything, and
/// the factory opens it as DASH (`makeFFmpegEngine`).
enum DemuxerGate {
    static let refused: Set<String> = ["dash"]

    /// FFmpeg's `format_whitelist` option: the demuxer names, comma-separated.
    static let whitelist: String = {
        var names: [String] = []
        var opaque: UnsafeMutableRawPointer?
        while let f = ffmpeg_av_demuxer_iterate(&opaque) {
            let name = String(cString: f.pointee.name)
            // A demuxer's name may list several ("mov,mp4,..."): each is matched alone.
            for n in name.split(separator: ",") where !refused.contains(String(n)) { names.append(String(n)) }
        }
        return names.joined(separator: ",")
    }()
}
