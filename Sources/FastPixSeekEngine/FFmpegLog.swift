import CFFmpeg
import FastPixSeekCore

/// Routes FFmpeg's log (`av_log_set_callback`, process-wide) into `Log`.
///
/// The library installs its callback once, at the first player create or
/// `fpx_set_log_callback`, unless the host asked it to keep FFmpeg's logger
/// as it is (`FPX_LOG_KEEP_FFMPEG_CALLBACK`). With no sink set, the callback
/// drops everything: by default the library prints nothing on stderr.
public enum FFmpegLog {
    static let m = Monitor()
    // Guarded by `m`: every read and write of these three holds it.
    nonisolated(unsafe) private static var installed = false
    nonisolated(unsafe) private static var keep = false
    nonisolated(unsafe) static var partial: [UInt8] = []

    /// Installs the library's av_log callback (once), unless the host keeps its own.
    public static func installIfAllowed() {
        m.locked {
            guard !installed, !keep else { return }
            installed = true
            fpx_av_log_install()
        }
    }

    /// The host keeps FFmpeg's logger: never install; if already installed,
    /// put FFmpeg's default callback back.
    public static func keepHostCallback() {
        m.locked {
            keep = true
            if installed {
                installed = false
                fpx_av_log_restore_default()
            }
        }
    }

    public static var isInstalled: Bool { m.locked { installed } }
}

@_cdecl("fastpixseek_log_wants")
func fastpixseekLogWants(_ level: Int32) -> Int32 { Log.wants(level) ? 1 : 0 }

/// A formatted piece of a line (FFmpeg sometimes writes one line in several
/// calls): assembled here and delivered one line per message.
@_cdecl("fastpixseek_log_line")
func fastpixseekLogLine(_ level: Int32, _ text: UnsafePointer<CChar>?) {
    guard let text = text else { return }
    var line: String?
    FFmpegLog.m.locked {
        var p = text
        while p.pointee != 0 { FFmpegLog.partial.append(UInt8(bitPattern: p.pointee)); p += 1 }
        if FFmpegLog.partial.last == 10 || FFmpegLog.partial.count > 4096 {
            if FFmpegLog.partial.last == 10 { FFmpegLog.partial.removeLast() }
            line = String(decoding: FFmpegLog.partial, as: UTF8.self)
            FFmpegLog.partial.removeAll(keepingCapacity: true)
        }
    }
    if let l = line { Log.emit(level, l) }
}
