import CFFmpeg
import FastPixSeekCore
import Synchronization

/// The state behind one format context's `AVIOInterruptCB`: a per-operation
/// deadline, a per-operation stop check (a new seek, cancel, close), a
/// permanent abort (close, destroy, the owner's policy), and the open
/// deadline the player sets for a whole open. Also the protocol gate of its
/// context (`ProtocolGate.swift`) records here why it refused an open.
///
/// What a read checks per packet (`extend`, `isInterrupted`, `wasCut`) is atomic, not
/// under the lock: three lock round trips per packet were a measurable part of a cold seek.
// @unchecked Sendable: every other mutable field is guarded by `m`; `policy` is immutable.
final class IOGuard: @unchecked Sendable {
    private let m = Monitor()
    let policy: IOPolicy
    /// The operation's deadline (0: none). Set by `begin`/`end`, re-armed by `extend`, all
    /// on the thread running the operation; read by `shouldInterrupt`, on that thread too.
    private let deadline = Atomic<UInt64>(0)
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

    /// Starts a bounded operation.
    func begin(stop: (() -> Bool)? = nil) {
        m.locked {
            deadline.store(policy.timeoutNanoseconds > 0 ? Deadline.after(policy.timeoutNanoseconds) : 0,
                           ordering: .relaxed)
            self.stop = stop
            lastCause = .none
            cut.store(false, ordering: .relaxed)
            refusal = nil
        }
    }

    /// Ends it: the deadline and stop check no longer apply.
    func end() { m.locked { deadline.store(0, ordering: .relaxed); stop = nil } }

    /// Re-arms the deadline between reads of one long operation. The open
    /// deadline, when set, still bounds it.
    func extend() {
        if deadline.load(ordering: .relaxed) != 0 {
            deadline.store(Deadline.after(policy.timeoutNanoseconds), ordering: .relaxed)
        }
    }

    func interrupt() { interrupted.store(true, ordering: .releasing) }

    var isInterrupted: Bool { interrupted.load(ordering: .acquiring) }

    /// Whether the current operation was cut short (deadline, stop, abort):
    /// whatever FFmpeg returned from it may be truncated.
    var wasCut: Bool { cut.load(ordering: .relaxed) }

    func refuse(_ e: EngineError) { m.locked { if refusal == nil { refusal = e } } }

    /// Called by FFmpeg, from inside blocking I/O: nonzero aborts it.
    func shouldInterrupt() -> Bool {
        let gone = isInterrupted
        let (d, s) = m.locked { (deadline.load(ordering: .relaxed), stop) }
        var cause = Cause.none
        if gone || policy.aborted() {
            cause = .aborted
        } else if let s = s, s() {
            cause = .stopped
        } else {
            let now = monotonicNanoseconds()
            let cap = policy.openDeadline()
            if (d != 0 && now > d) || (cap != 0 && now > cap) { cause = .timedOut }
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
    av_log_set_level(quiet ? AV_LOG_QUIET : AV_LOG_INFO)
}
