import Synchronization

/// Monotonic deadlines that saturate instead of wrapping: a timeout of
/// INT64_MAX milliseconds is about 292 million years, not an instant.
public enum Deadline {
    /// Now plus `nanoseconds`, saturating at UInt64.max (never reached).
    public static func after(_ nanoseconds: UInt64) -> UInt64 {
        after(nanoseconds, from: monotonicNanoseconds())
    }

    /// `now` plus `nanoseconds`, saturating (one clock read for several deadlines).
    public static func after(_ nanoseconds: UInt64, from now: UInt64) -> UInt64 {
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds)
        return overflow ? UInt64.max : sum
    }

    /// `deadline` moved later by `nanoseconds`, saturating; 0 (none) stays 0.
    public static func extended(_ deadline: UInt64, by nanoseconds: UInt64) -> UInt64 {
        guard deadline != 0 else { return 0 }
        let (sum, overflow) = deadline.addingReportingOverflow(nanoseconds)
        return overflow ? UInt64.max : sum
    }

    /// Milliseconds as nanoseconds, saturating; negative is 0.
    public static func nanoseconds(milliseconds ms: Int64) -> UInt64 {
        guard ms > 0 else { return 0 }
        let (v, overflow) = UInt64(ms).multipliedReportingOverflow(by: 1_000_000)
        return overflow ? UInt64.max : v
    }

    // MARK: The overall bound (seek.h, section 8, "Time bounds")

    /// The I/O timeout T bounds silence: it is re-armed whenever bytes arrive. What bounds a
    /// transfer that drips forever is a second, overall deadline: one step of I/O (an open,
    /// one packet read, one positioning, one download) may last `overallFactor` x T however
    /// its bytes arrive, and a download T more for every `creditBytes` it has received (so
    /// one that averages at least 64 KiB per T, 6.5 KB/s at the default 10 s, never meets it;
    /// its size is bounded by max_buffer_bytes, so neither is its time).
    public static let overallFactor: UInt64 = 16
    public static let creditBytes = 64 << 10

    /// `overallFactor` x `timeout`, saturating; 0 (no timeout) is 0.
    public static func overall(_ timeout: UInt64) -> UInt64 {
        let (v, overflow) = timeout.multipliedReportingOverflow(by: overallFactor)
        return overflow ? UInt64.max : v
    }
}

/// The deadlines of one whole open (seek.h section 8, "Time bounds"): silence, T after the
/// open began or after bytes last arrived in any of its transfers, and the overall bound,
/// `Deadline.overall(T)` after it began. Every `IOGuard` of the open checks and re-arms the
/// same pair, so a stall anywhere ends the whole open within T (0.2.0 gave each phase its own
/// timeout), while a slow but steady server is given up to 16 T. Atomics: FFmpeg's interrupt
/// callback reads them on every poll, with no lock (issue 32.3).
public final class OpenDeadline: Sendable {
    private let timeout = Atomic<UInt64>(0)
    private let silence = Atomic<UInt64>(0)
    private let overall = Atomic<UInt64>(0)

    public init() {}

    /// Arms both for an open starting now (`timeout` 0: none).
    public func start(timeout t: UInt64) {
        let now = monotonicNanoseconds()
        timeout.store(t, ordering: .relaxed)
        silence.store(t > 0 ? Deadline.after(t, from: now) : 0, ordering: .relaxed)
        overall.store(t > 0 ? Deadline.after(Deadline.overall(t), from: now) : 0, ordering: .relaxed)
    }

    /// The open is over: nothing bounds later operations from here.
    public func finish() {
        silence.store(0, ordering: .relaxed)
        overall.store(0, ordering: .relaxed)
    }

    /// Bytes arrived at `now`: silence is re-armed.
    public func arrived(at now: UInt64) {
        if silence.load(ordering: .relaxed) != 0 {
            silence.store(Deadline.after(timeout.load(ordering: .relaxed), from: now), ordering: .relaxed)
        }
    }

    /// Whether either deadline has passed at `now`.
    public func expired(at now: UInt64) -> Bool {
        let s = silence.load(ordering: .relaxed), o = overall.load(ordering: .relaxed)
        return (s != 0 && now > s) || (o != 0 && now > o)
    }
}
