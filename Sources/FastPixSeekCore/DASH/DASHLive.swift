/// The seekable window of a dynamic MPD by its wall clock (ISO/IEC 23009-1 5.3.9.5, the
/// DASH-IF timing model): a segment is available once its end is on the clock
/// (availabilityStartTime + Period start + its end <= now) and leaves the window when that
/// end falls behind `now - timeShiftBufferDepth`. Times here are seconds since the Period's
/// start on the MPD's clock (`elapsed`). Pure; tested in DASHManifestTests.
public enum DASHLive {
    /// Seconds from the Period's start to `nowMS` (Unix ms) on the MPD's clock.
    public static func elapsed(nowMS: Rational, availabilityStartMS: Rational, periodStart: Rational) -> Rational {
        (nowMS - availabilityStartMS) * Rational(1, 1000) - periodStart
    }

    /// Whether a segment ending `end` seconds after its Period's start is in the window.
    public static func inWindow(end: Rational, elapsed: Rational, depth: Rational?) -> Bool {
        guard end <= elapsed else { return false }
        guard let depth else { return true }
        return elapsed - depth < end
    }

    /// The segments (indexes from 0, segment k spanning [k x duration, (k+1) x duration)
    /// seconds of the Period) of a number-based SegmentTemplate (@duration, no
    /// SegmentTimeline) in the window: the newest `max` when more (a window without
    /// timeShiftBufferDepth is bounded so), none after the Period's end.
    public static func numberRange(elapsed: Rational, duration: Rational, periodDuration: Rational?,
                                   depth: Rational?, max: Int) -> Range<Int64> {
        precondition(Rational(0) < duration && max >= 0)
        let inverse = Rational(duration.den, duration.num)
        func index(_ t: Rational) -> Int128 { (t * inverse).floor }
        // Available: (k + 1) x duration <= elapsed.
        var hi = index(elapsed)
        if let p = periodDuration { hi = Swift.min(hi, (p * inverse).ceil) }
        // In the window: (k + 1) x duration > elapsed - depth.
        var lo = depth.map { index(elapsed - $0) } ?? 0
        lo = Swift.max(lo, 0)
        hi = Swift.max(hi, lo)
        if hi - lo > Int128(max) { lo = hi - Int128(max) }
        guard let l = Int64(exactly: lo), let h = Int64(exactly: hi) else { return 0..<0 }
        return l..<h
    }
}
