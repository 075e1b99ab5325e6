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
