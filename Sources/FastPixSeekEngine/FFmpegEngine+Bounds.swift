import CFFmpeg

extension FFmpegEngine {
    /// The bounds on libavformat's own parsing that seek.h section 8 names,
    /// set explicitly so they hold whatever a given FFmpeg build defaults to:
    /// at most 5 MB and 2500 packets read to find the streams, 1 MiB to
    /// recognise the format. (FFmpeg 5.1's defaults are the same.)
    static let allocationBounds: [(String, String)] = [
        ("probesize", "5000000"),
        ("max_probe_packets", "2500"),
        ("formatprobesize", "1048576"),
    ]
}
