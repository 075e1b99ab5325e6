/// The seekable window of an HLS playlist and its dates (seek.h, "Live and DVR HLS"): pure
/// rules on item-timeline seconds; the HLS engine reads the playlist and asks.
///
/// 1. The window starts at the first listed segment's start. It ends, for a live playlist,
///    at the hold-back edge (the newest segment's end minus HOLD-BACK, or 3 x
///    TARGETDURATION); for an ended one at its last frame once the last segment has been
///    demuxed, else at that segment's listed end. It never ends before it starts.
/// 2. A date (microseconds since the epoch) names the item time inside the segment whose
///    EXT-X-PROGRAM-DATE-TIME span [date, date + EXTINF) holds it; the last segment's span
///    includes its end. The window's end date is the date of the segment the end lies in,
///    moved by the end's offset in it (floored to a microsecond).
public enum HLSWindow {
    /// The window's end (item seconds): `firstStart` the first segment's start, `lastEnd` the
    /// newest's listed end, `holdBack` the distance from it to a live edge, `lastFrame` the
    /// last frame of an ended playlist when known.
    public static func end(firstStart: Rational, lastEnd: Rational, holdBack: Rational, live: Bool,
                           lastFrame: Rational?) -> Rational {
        let end = live ? lastEnd - holdBack : lastFrame ?? lastEnd
        return end < firstStart ? firstStart : end
    }

    /// The date (microseconds) of item time `t` in a segment starting at item time `start`,
    /// dated `dateMS` (milliseconds).
    public static func date(of t: Rational, segmentStart start: Rational, dateMS: Int64) -> Int64 {
        dateMS &* 1000 &+ Int64(clamping: ((t - start) * Rational(1_000_000)).floor)
    }

    /// The item time (seconds) of date `us` (microseconds) in a segment starting at item time
    /// `start`, dated `dateMS`, `duration` long; nil when the date is outside its span
    /// (`isLast`: the span includes its end).
    public static func itemTime(ofDate us: Int64, segmentStart start: Rational, dateMS: Int64, duration: Rational,
                                isLast: Bool) -> Rational? {
        let startUS = dateMS &* 1000
        let endUS = startUS &+ Int64(clamping: (duration * Rational(1_000_000)).ceil)
        guard us >= startUS && us < endUS || (us == endUS && isLast) else { return nil }
        return start + Rational(Int128(us &- startUS), 1_000_000)
    }
}
