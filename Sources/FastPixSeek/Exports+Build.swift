import CFastPixSeekABI
import FastPixSeekCore
import FastPixSeekEngine

// What this build of the library is made of: the FFmpeg versions it was compiled against
// and the ones loaded (seek.h, "FFmpeg ABI").

@_cdecl("fpx_ffmpeg_versions")
public func fpxFFmpegVersions(_ out: UnsafeMutablePointer<fpx_ffmpeg_version_info>?) -> Int32 {
    let slot: OutputSlot<fpx_ffmpeg_version_info>
    do { slot = try OutputSlot(out) } catch { return ErrorCode.invalidArgument.rawValue }
    let v = FFmpegVersions.current
    var c = fpx_ffmpeg_version_info()
    c.avformat_build = v.avformat.build
    c.avformat_runtime = v.avformat.runtime
    c.avcodec_build = v.avcodec.build
    c.avcodec_runtime = v.avcodec.runtime
    c.avutil_build = v.avutil.build
    c.avutil_runtime = v.avutil.runtime
    c.compatible = v.isCompatible ? 1 : 0
    slot.store(c)
    return 0
}

// The output-struct rule (OutputStruct.swift). The struct is new in this version, so a
// zero struct_size (the rule's "older host") gets all of it.
extension fpx_ffmpeg_version_info: OutputStruct {
    static var legacySize: Int { MemoryLayout<fpx_ffmpeg_version_info>.size }
}

/// fpx_player_open's first check: the FFmpeg the process loaded must have the majors this
/// library was built against.
func ffmpegOpenRefusal() -> ErrorCode? { FFmpegVersions.current.openRefusal }
