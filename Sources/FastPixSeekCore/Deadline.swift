/// Monotonic deadlines that saturate instead of wrapping: a timeout of
/// INT64_MAX milliseconds is about 292 million years, not an instant.
public enum Deadline {
    /// Now plus `nanoseconds`, saturating at UInt64.max (never reached).
    public static func after(_ nanoseconds: UInt64) -> UInt64 {
        let (sum, overflow) = monotonicNanoseconds().addingReportingOverflow(nanoseconds)
        return overflow ? UInt64.max : sum
    }

    /// Milliseconds as nanoseconds, saturating; negative is 0.
    public static func nanoseconds(milliseconds ms: Int64) -> UInt64 {
        guard ms > 0 else { return 0 }
        let (v, overflow) = UInt64(ms).multipliedReportingOverflow(by: 1_000_000)
        return overflow ? UInt64.max : v
    }
}
