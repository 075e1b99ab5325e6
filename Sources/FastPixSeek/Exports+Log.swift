import CFastPixSeekABI
import FastPixSeekCore
import FastPixSeekEngine

/// The host's log callback, called with one line at a time.
@_cdecl("fpx_set_log_callback")
public func fpxSetLogCallback(_ level: Int32, _ callback: fpx_log_callback?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
    // The flag combines with the levels >= 0 (FPX_LOG_QUIET is negative).
    let keep = level >= 0 && (level & Int32(FPX_LOG_KEEP_FFMPEG_CALLBACK)) != 0
    let lv = keep ? level & ~Int32(FPX_LOG_KEEP_FFMPEG_CALLBACK) : level
    guard lv >= Log.quiet, lv <= Log.trace else { return ErrorCode.invalidArgument.rawValue }
    if keep { FFmpegLog.keepHostCallback() } else { FFmpegLog.installIfAllowed() }
    if let cb = callback {
        // nonisolated(unsafe): the host's opaque pointer, handed back to its callback on any
        // thread, as fpx_log_callback documents; the library never dereferences it.
        nonisolated(unsafe) let userdata = userdata
        Log.setSink(level: lv) { l, message in message.withCString { cb(l, $0, userdata) } }
    } else {
        Log.setSink(level: Log.quiet, nil)
    }
    return 0
}
