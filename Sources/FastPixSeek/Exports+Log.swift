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
    if let host = HostCallback(unsafeBitCast(callback, to: UnsafeRawPointer?.self), userdata) {
        Log.setSink(level: lv) { l, message in
            message.withCString { unsafeBitCast(host.function, to: fpx_log_callback.self)(l, $0, host.userdata) }
        }
    } else {
        Log.setSink(level: Log.quiet, nil)
    }
    return 0
}

