/// A file whose seekable range ends well before the duration its container announces
/// is truncated or damaged (an interrupted download, a cut copy): its header still
/// describes the whole item, the frames past the range are missing. One rule for the
/// C ABI (fpx_item_info.seekable_range_truncated) and the CLI (`probe`'s warning).
public enum SeekableRangeCheck {
    /// The range end is more than 1 s and more than 10 % of the duration short of it.
    /// False when either is unknown or not numeric. A reporting threshold, not a landing
    /// decision: doubles are fine here.
    public static func isTruncated(duration: MediaTime, seekableEnd end: MediaTime) -> Bool {
        guard duration.isNumeric, end.isNumeric, duration.seconds > 0 else { return false }
        let short = duration.seconds - end.seconds
        return short > 1 && short > duration.seconds / 10
    }

    /// The rule of fpx_item_info.seekable_range_truncated: the range ends well before the
    /// duration (above), or the engine found the data ending in a packet cut short, the
    /// range then ending at the last frame read whole (`MediaEngine.seekableRangeEndsAtCut`,
    /// whatever the duration says).
    public static func isTruncated(duration: MediaTime, seekableEnd end: MediaTime, endsAtCut: Bool) -> Bool {
        endsAtCut || isTruncated(duration: duration, seekableEnd: end)
    }
}
