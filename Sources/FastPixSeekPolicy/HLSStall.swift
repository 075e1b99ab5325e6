/// When a live HLS playlist has stalled (seek.h, FPX_ERROR_STALLED): the stall rule, pure;
/// the playlist feed (`HLSPlaylistFeed`) keeps the clock and asks.
///
/// 1. A live playlist that has not changed for more than `targetDurations` target durations
///    (at least 1 s each) has stalled; so has one whose reloads have failed that long.
/// 2. A reader waiting for a segment to be published waits that long at least, or the I/O
///    timeout when it is longer; with no I/O timeout, as long as it takes (the stall, a
///    close or the host's stop ends the wait).
public enum HLSStall {
    /// Target durations without a change before a live playlist has stalled (RFC 8216 6.3.4:
    /// a client reloads at least once a target duration; three misses is no hiccup).
    public static let targetDurations: UInt64 = 3

    /// The time without a change after which a live playlist has stalled, nanoseconds.
    public static func limitNanoseconds(targetDuration: Int) -> UInt64 {
        let (seconds, o1) = targetDurations.multipliedReportingOverflow(by: UInt64(max(targetDuration, 1)))
        let (ns, o2) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return o1 || o2 ? UInt64.max : ns
    }

    /// Whether a live playlist unchanged (or failing to reload) for `elapsed` nanoseconds has stalled.
    public static func hasStalled(unchangedFor elapsed: UInt64, targetDuration: Int) -> Bool {
        elapsed > limitNanoseconds(targetDuration: targetDuration)
    }

    /// How long a reader waits for a segment to be published, nanoseconds; nil: no bound
    /// (`timeoutNanoseconds` 0, no I/O timeout).
    public static func publishWait(timeoutNanoseconds: UInt64, targetDuration: Int) -> UInt64? {
        timeoutNanoseconds > 0 ? max(timeoutNanoseconds, limitNanoseconds(targetDuration: targetDuration)) : nil
    }
}
