#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore
import Synchronization

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

    /// The calling thread's depth of `withoutFFmpegLines` (a thread-specific value: FFmpeg
    /// logs on the thread that called it, and its protocols never hand work to others). Nil
    /// when no key could be made (PTHREAD_KEYS_MAX reached by the process): then
    /// `quietAnywhere` counts the scopes of every thread, and FFmpeg's lines are dropped on
    /// all threads while any is in one (more is dropped, never a secret shown).
    private static let quietKey: pthread_key_t? = {
        var k = pthread_key_t()
        return pthread_key_create(&k, nil) == 0 ? k : nil
    }()
    private static let quietAnywhere = Atomic<Int>(0)

    /// Runs `body` with FFmpeg's own log lines of the calling thread dropped, whatever the
    /// log level: a fetch whose URL is a secret (an EXT-X-KEY URI and its query; seek.h,
    /// "Encryption"), where FFmpeg's http writes the request line (`GET /key?token=...`),
    /// its headers and a redirect's Location at DEBUG and TRACE. The library's own lines
    /// (`Log.emit`) are unaffected: they never name such a URL.
    static func withoutFFmpegLines<T>(_ body: () throws -> T) rethrows -> T {
        guard let k = quietKey else {
            quietAnywhere.add(1, ordering: .sequentiallyConsistent)
            defer { quietAnywhere.subtract(1, ordering: .sequentiallyConsistent) }
            return try body()
        }
        let depth = Int(bitPattern: pthread_getspecific(k))
        pthread_setspecific(k, UnsafeRawPointer(bitPattern: depth + 1))
        defer { pthread_setspecific(k, depth == 0 ? nil : UnsafeRawPointer(bitPattern: depth)) }
        return try body()
    }

    /// Whether FFmpeg's lines of the calling thread are dropped now.
    static var isQuietThread: Bool {
        guard let k = quietKey else { return quietAnywhere.load(ordering: .sequentiallyConsistent) > 0 }
        return pthread_getspecific(k) != nil
    }
}

/// FFmpeg's callback asks this first, for every message: the level (one atomic load), and
/// only for a wanted line whether the thread is in `withoutFFmpegLines`.
@_cdecl("fastpixseek_log_wants")
func fastpixseekLogWants(_ level: Int32) -> Int32 { Log.wants(level) && !FFmpegLog.isQuietThread ? 1 : 0 }

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
