/// The FFmpeg libraries a build of FastPixSeek was compiled against, and the ones loaded at
/// run time, as FFmpeg packs them (`AV_VERSION_INT`: major << 16 | minor << 8 | micro).
///
/// `fpx_stream_info.codecpar` and `fpx_packet.av_packet` point at FFmpeg structs
/// (`AVCodecParameters`, `AVPacket`), and the library itself reads `AVFormatContext`,
/// `AVStream` and `AVPacket` fields: their layout is fixed only within one major version of
/// each library. A different major under the same SONAME (an FFmpeg built with the wrong
/// soname, or a host that links another FFmpeg statically and so interposes its symbols)
/// would silently change the ABI, so opening refuses it (`FPX_ERROR_FFMPEG_MISMATCH`).
/// The C function that reports the versions is `fpx_ffmpeg_versions`.
public struct FFmpegABI: Equatable, Sendable {
    public struct Library: Equatable, Sendable {
        /// `AV_VERSION_INT` of the headers the library was compiled against.
        public var build: UInt32
        /// What the loaded library's `*_version()` function reports; 0 when not linked.
        public var runtime: UInt32

        public init(build: UInt32, runtime: UInt32) {
            self.build = build
            self.runtime = runtime
        }

        public static func major(_ v: UInt32) -> UInt32 { v >> 16 }
        public static func minor(_ v: UInt32) -> UInt32 { (v >> 8) & 0xff }
        public static func micro(_ v: UInt32) -> UInt32 { v & 0xff }

        /// The loaded library has the major version the build expects (minor and micro may
        /// differ: FFmpeg keeps the ABI within a major).
        public var sameMajor: Bool { Library.major(build) == Library.major(runtime) }

        /// "59.27.100"
        public static func string(_ v: UInt32) -> String { "\(major(v)).\(minor(v)).\(micro(v))" }
    }

    public var avformat: Library
    public var avcodec: Library
    public var avutil: Library

    public init(avformat: Library, avcodec: Library, avutil: Library) {
        self.avformat = avformat
        self.avcodec = avcodec
        self.avutil = avutil
    }

    /// Every library's loaded major equals the one built against.
    public var isCompatible: Bool { avformat.sameMajor && avcodec.sameMajor && avutil.sameMajor }

    /// nil when compatible, else `.ffmpegMismatch`: what opening an item must return.
    public var openRefusal: ErrorCode? { isCompatible ? nil : .ffmpegMismatch }

    /// "libavformat 60.3.100 loaded, built against 59.27.100" for each mismatching library.
    public var mismatchDescription: String? {
        let parts = [("libavformat", avformat), ("libavcodec", avcodec), ("libavutil", avutil)]
            .filter { !$0.1.sameMajor }
            .map { "\($0.0) \(Library.string($0.1.runtime)) loaded, built against \(Library.string($0.1.build))" }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
