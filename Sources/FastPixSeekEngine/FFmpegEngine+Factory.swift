import Glibc
import CFFmpeg
import FastPixSeekCore

/// The engine factory for the player: HLS playlists go to `HLSEngine`, every
/// other file or http(s) URL to `FFmpegEngine`. A URL without the .m3u8
/// extension that libavformat recognises as HLS is reopened with `HLSEngine`.
public func makeFFmpegEngine(url: String, policy: IOPolicy) throws -> MediaEngine & PacketSource {
    if HLSEngine.looksLikePlaylist(url) { return try HLSEngine(url: url, policy: policy) }
    let e = try FFmpegEngine(url: url, policy: policy)
    if let name = e.itemInfo.formatName, String(cString: name) == "hls" {
        e.close()
        return try HLSEngine(url: url, policy: policy)
    }
    return e
}
