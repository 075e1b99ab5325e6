#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore
import Synchronization

/// The state behind one format context's `AVIOInterruptCB`: per-operation
/// deadlines, a per-operation stop check (a new seek, cancel, close), a
/// permanent abort (close, destroy, the owner's policy), and the deadlines the
/// player sets for a whole open (`OpenDeadline`, re-armed here too). Also the
/// protocol gate of its context (`ProtocolGate.swift`) records here why it refused an open.
///
/// Two deadlines bound an operation (seek.h section 8, "Time bounds"; `Deadline.overall`):
/// silence, T after the step began or bytes last arrived, and the step's overall bound.
/// Arriving bytes are seen from the interrupt callback itself: FFmpeg polls it before every
/// read of the protocol below and every 100 ms while it waits, and a changed position of the
/// watched AVIOContext since the last poll means bytes arrived (whatever size the demuxer or
/// a download asked avio_read for: 0.4 re-armed only between reads, issue 26.4).
///
/// What a poll and a read check per packet is atomic, not under a lock: on the thread running
/// the operation (the owner, which alone writes `stop` and the deadlines) a poll takes no lock
/// at all; another thread polling (async:'s reader) reads `stop` under the lock and never the
/// watched context.
// @unchecked Sendable: `stop` is written under `m` by the owner thread only (read there
// without it, elsewhere under it); the other mutable fields are atomics; `policy` is immutable.
final class IOGuard: @unchecked Sendable {
    private let m = Monitor()
    let policy: IOPolicy
    /// Silence: T after `begin`/`extend` or the last poll that saw bytes arrive (0: none).
    private let deadline = Atomic<UInt64>(0)
    /// The step's overall bound (0: none): `Deadline.overall(T)` after `begin`/`extend`,
    /// later by T per `Deadline.creditBytes` a download received (`credit`).
    private let overall = Atomic<UInt64>(0)
    /// The thread running the operation (`begin` to `end`), as `threadBits`; 0: none.
    private let owner = Atomic<UInt>(0)
    /// Where arriving bytes show (pointer bits, 0: none): a download's AVIOContext
    /// (`watch(io:)`, until `end`), else the `pb` of the engine's format context (`watch(format:)`).
    private let ioBits = Atomic<UInt>(0)
    private let formatBits = Atomic<UInt>(0)
    /// The watched position at the owner's last poll.
    private let seen = Atomic<Int64>(Int64.min)
    private var stop: (() -> Bool)?
    private let interrupted = Atomic<Bool>(false)
    private(set) var lastCause: Cause = .none
    /// `lastCause != .none`, readable without the lock.
    private let cut = Atomic<Bool>(false)
    /// Set by the protocol gate when it refused a URL in this operation.
    private var refusal: EngineError?

    enum Cause { case none, aborted, stopped, timedOut }

    init(policy: IOPolicy) { self.policy = policy }

    var timeoutNanoseconds: UInt64? { policy.timeoutNanoseconds }

    private static var threadBits: UInt { UInt(pthread_self()) }

    /// Starts a bounded operation on the calling thread.
    func begin(stop: (() -> Bool)? = nil) {
        m.locked {
            arm(monotonicNanoseconds())
            owner.store(Self.threadBits, ordering: .relaxed)
            self.stop = stop
            lastCause = .none
            cut.store(false, ordering: .relaxed)
            refusal = nil
        }
    }

    /// Ends it: the deadlines, the stop check and a download's watched context no longer apply.
    func end() {
        m.locked {
            deadline.store(0, ordering: .relaxed)
            overall.store(0, ordering: .relaxed)
            ioBits.store(0, ordering: .relaxed)
            owner.store(0, ordering: .relaxed)
            stop = nil
        }
    }

    private func arm(_ now: UInt64) {
        let t = policy.timeoutNanoseconds
        deadline.store(t > 0 ? Deadline.after(t, from: now) : 0, ordering: .relaxed)
        overall.store(t > 0 ? Deadline.after(Deadline.overall(t), from: now) : 0, ordering: .relaxed)
    }

    /// A new step of one long operation (a packet read, a positioning): both deadlines are
    /// re-armed. The open deadline, when set, still bounds it.
    func extend() {
        if deadline.load(ordering: .relaxed) != 0 { arm(monotonicNanoseconds()) }
    }

    /// A download received `bytes`: its overall bound moves T per `Deadline.creditBytes`.
    func credit(bytes: Int) {
        let o = overall.load(ordering: .relaxed)
        guard o != 0, bytes > 0 else { return }
        let more = UInt128(policy.timeoutNanoseconds) * UInt128(bytes) / UInt128(Deadline.creditBytes)
        overall.store(Deadline.extended(o, by: UInt64(clamping: more)), ordering: .relaxed)
    }

    /// Watches a download's context until `end` (or `unwatch`).
    func watch(io: UnsafeMutablePointer<AVIOContext>) {
        seen.store(io.pointee.pos, ordering: .relaxed)
        ioBits.store(UInt(bitPattern: io), ordering: .relaxed)
    }

    /// Watches the `pb` of a format context, from its open until `unwatch` (before it is freed).
    func watch(format: UnsafeMutablePointer<AVFormatContext>) {
        formatBits.store(UInt(bitPattern: format), ordering: .relaxed)
    }

    func unwatch() {
        ioBits.store(0, ordering: .relaxed)
        formatBits.store(0, ordering: .relaxed)
    }

    /// Whether the watched position moved since the last poll (owner thread only).
    private func arrived() -> Bool {
        let pos: Int64
        if let io = UnsafeMutablePointer<AVIOContext>(bitPattern: ioBits.load(ordering: .relaxed)) {
            pos = io.pointee.pos
        } else if let f = UnsafeMutablePointer<AVFormatContext>(bitPattern: formatBits.load(ordering: .relaxed)),
                  let pb = f.pointee.pb {
            pos = pb.pointee.pos
        } else {
            return false
        }
        if pos == seen.load(ordering: .relaxed) { return false }
        seen.store(pos, ordering: .relaxed)
        return true
    }

    func interrupt() { interrupted.store(true, ordering: .releasing) }

    var isInterrupted: Bool { interrupted.load(ordering: .acquiring) }

    /// Whether the current operation was cut short (deadline, stop, abort):
    /// whatever FFmpeg returned from it may be truncated.
    var wasCut: Bool { cut.load(ordering: .relaxed) }

    func refuse(_ e: EngineError) { m.locked { if refusal == nil { refusal = e } } }

    /// Called by FFmpeg, from inside blocking I/O: nonzero aborts it. On the owner thread it
    /// takes no lock (issue 32.3).
    func shouldInterrupt() -> Bool {
        let onOwner = owner.load(ordering: .relaxed) == Self.threadBits
        var cause = Cause.none
        if isInterrupted || policy.aborted() {
            cause = .aborted
        } else if let s = onOwner ? stop : m.locked({ stop }), s() {
            cause = .stopped
        } else {
            var d = deadline.load(ordering: .relaxed)
            let o = overall.load(ordering: .relaxed)
            let open = policy.openDeadline
            if d != 0 || o != 0 || open != nil {
                let now = monotonicNanoseconds()
                if onOwner && arrived() {
                    if d != 0 {
                        d = Deadline.after(policy.timeoutNanoseconds, from: now)
                        deadline.store(d, ordering: .relaxed)
                    }
                    open?.arrived(at: now)
                }
                if (d != 0 && now > d) || (o != 0 && now > o) || (open?.expired(at: now) ?? false) { cause = .timedOut }
            }
        }
        if cause != .none {
            m.locked {
                if lastCause == .none { lastCause = cause }
                cut.store(true, ordering: .relaxed)
            }
        }
        return cause != .none
    }

    /// The error for an operation that failed with `ret`: a protocol refusal
    /// first, then why I/O was interrupted (a demuxer interrupted while
    /// reading a header may report INVALIDDATA: the cause wins), then
    /// FFmpeg's code.
    func error(for ret: Int32) -> EngineError {
        let (r, cause) = m.locked { (refusal, lastCause) }
        if let r = r { return EngineError(r.code, avError: ret) }
        switch cause {
        case .timedOut: return EngineError(.timeout, avError: ret)
        case .stopped: return EngineError(.interrupted, avError: ret)
        case .aborted: return EngineError(.cancelled, avError: ret)
        case .none: break
        }
        if ret == fpx_averror_exit() { return EngineError(.cancelled, avError: ret) }
        return EngineError(mapAVError(ret), avError: ret)
    }
}

/// FFmpeg's AVERROR codes as the library's codes.
func mapAVError(_ ret: Int32) -> ErrorCode {
    switch ret {
    case fpx_averror_eof(): return .eof
    case fpx_averror_enoent(), fpx_averror_http_not_found(): return .notFound
    case fpx_averror_etimedout(): return .timeout
    case fpx_averror_exit(): return .cancelled
    case fpx_averror_invaliddata(), fpx_averror_demuxer_not_found(): return .invalidData
    case fpx_averror_enomem(): return .noMemory
    case fpx_averror_econnrefused(): return .network
    case fpx_averror_protocol_not_found(): return .unsupported
    case fpx_averror_stream_not_found(): return .noStream
    case fpx_averror_econnreset(), fpx_averror_eio(): return .io
    default:
        // Other HTTP 4xx/5xx and network errnos.
        if ret == -Int32(ENETUNREACH) || ret == -Int32(EHOSTUNREACH) || ret == -Int32(EADDRNOTAVAIL) { return .network }
        if ret == -Int32(EACCES) || ret == -Int32(EISDIR) { return .notFound }
        if ret == -Int32(EMFILE) || ret == -Int32(ENFILE) { return .noFileDescriptors }
        return .io
    }
}

/// The C trampoline FFmpeg calls; `opaque` is an unretained IOGuard.
let ioInterruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque = opaque else { return 0 }
    return Unmanaged<IOGuard>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt() ? 1 : 0
}

/// Silences (or restores) FFmpeg's own log lines on stderr. Process-wide: for
/// tools that own the process, never called by the library itself.
public func setFFmpegLogQuiet(_ quiet: Bool) {
    ffmpeg_av_log_set_level(quiet ? AV_LOG_QUIET : AV_LOG_INFO)
}
