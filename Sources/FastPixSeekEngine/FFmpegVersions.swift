import CFFmpeg
import FastPixSeekCore

/// The FFmpeg libraries this build was compiled against and the ones the dynamic linker
/// actually bound (their `*_version()` functions answer for the code that is loaded).
/// Read once per process: the loaded libraries cannot change while it runs.
public enum FFmpegVersions {
    public static let current: FFmpegABI = FFmpegABI(
        avformat: .init(build: fpx_libavformat_build_version(), runtime: ffmpeg_avformat_version()),
        avcodec: .init(build: fpx_libavcodec_build_version(), runtime: ffmpeg_avcodec_version()),
        avutil: .init(build: fpx_libavutil_build_version(), runtime: ffmpeg_avutil_version()))
}
