import CFFmpeg

extension FFmpegEngine {
    /// Demuxer options that bound what libavformat allocates while opening
    /// untrusted media (see seek.h, "Untrusted media").
    static let allocationBounds: [(String, String)] = []
}
