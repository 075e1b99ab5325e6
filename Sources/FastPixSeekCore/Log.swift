import Synchronization

/// The library's log: FFmpeg's messages (routed by `FFmpegLog` in the engine)
/// and the library's own, delivered to one process-wide sink. With no sink,
/// nothing is printed anywhere. The C function is `fpx_set_log_callback`.
public enum Log {
    /// Levels are FFmpeg's (AV_LOG_*), so both kinds of message share one scale.
    public static let quiet = ABIConstants.FPX_LOG_QUIET
    public static let error = ABIConstants.FPX_LOG_ERROR
    public static let warning = ABIConstants.FPX_LOG_WARNING
    public static let info = ABIConstants.FPX_LOG_INFO
    public static let verbose = ABIConstants.FPX_LOG_VERBOSE
    public static let debug = ABIConstants.FPX_LOG_DEBUG
    public static let trace = ABIConstants.FPX_LOG_TRACE

    /// A sink is called on whichever thread logs, so it is `@Sendable`.
    public typealias Sink = @Sendable (Int32, String) -> Void

    private static let m = Monitor()
    // Guarded by `m`: every read and write of `sink` and `maxLevel` holds it.
    nonisolated(unsafe) private static var sink: Sink?
    nonisolated(unsafe) private static var maxLevel: Int32 = quiet
    /// The most verbose level that reaches a sink (Int32.min with none), read
    /// without the lock by `wants`: FFmpeg's log callback asks for every
    /// message, and the mov demuxer logs a trace line per sample while opening
    /// (215,784 for a 2-hour MP4: a locked check cost a third of the open).
    private static let wantedLevel = Atomic<Int32>(Int32.min)

    /// Sets the sink and the most verbose level it receives; nil silences.
    public static func setSink(level: Int32, _ s: Sink?) {
        m.locked {
            sink = s
            maxLevel = s == nil ? quiet : level
            wantedLevel.store(s == nil ? Int32.min : level, ordering: .relaxed)
        }
    }

    /// Whether a message at `level` would reach the sink (cheap: check first).
    public static func wants(_ level: Int32) -> Bool {
        level <= wantedLevel.load(ordering: .relaxed)
    }

    /// Delivers one line (no trailing newline) on the calling thread, outside
    /// the log's lock, so a sink may itself log or change the sink.
    public static func emit(_ level: Int32, _ message: @autoclosure () -> String) {
        guard let s: Sink = m.locked({ level <= maxLevel ? sink : nil }) else { return }
        let text = message()
        // Marked as a callback on this thread: the API refuses, from here, every call
        // that could wait for what this thread holds (seek.h, "Logging").
        CallbackScope.run(.log) { s(level, text) }
    }
}
