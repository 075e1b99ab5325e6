import CFastPixSeekABI
import FastPixSeekCore
import FastPixSeekEngine

// What this build of the library is made of: the FFmpeg versions it was compiled against
// and the ones loaded (seek.h, "FFmpeg ABI").

@_cdecl("fpx_ffmpeg_versions")
public func fpxFFmpegVersions(_ out: UnsafeMutablePointer<fpx_ffmpeg_version_info>?) -> Int32 {
    guard let out = out else { return ErrorCode.invalidArgument.rawValue }
    // The caller's struct_size says how much it can take (a host built against an older
    // header has a shorter struct): fill a byte prefix of that length, never more.
    let declared = UnsafeRawPointer(out).load(as: Int.self)
    guard declared >= MemoryLayout<Int>.size else { return ErrorCode.invalidArgument.rawValue }
    let size = min(declared, MemoryLayout<fpx_ffmpeg_version_info>.size)
    let v = FFmpegVersions.current
    var c = fpx_ffmpeg_version_info()
    c.struct_size = size
    c.avformat_build = v.avformat.build
    c.avformat_runtime = v.avformat.runtime
    c.avcodec_build = v.avcodec.build
    c.avcodec_runtime = v.avcodec.runtime
    c.avutil_build = v.avutil.build
    c.avutil_runtime = v.avutil.runtime
    c.compatible = v.isCompatible ? 1 : 0
    withUnsafeBytes(of: &c) { src in
        guard let base = src.baseAddress else { return }
        UnsafeMutableRawPointer(out).copyMemory(from: base, byteCount: size)
    }
    return 0
}

/// fpx_player_open's first check: the FFmpeg the process loaded must have the majors this
/// library was built against.
func ffmpegOpenRefusal() -> ErrorCode? { FFmpegVersions.current.openRefusal }
