/// Where an HLS segment's frames sit on the item timeline (seek.h, "Timeline" in "Live and
/// DVR HLS"): a function of the playlist and the media, never of what was read before.
///
/// Each discontinuity domain (the segments sharing an EXT-X-DISCONTINUITY-SEQUENCE) has one
/// anchor segment: the first segment of the domain that the window lists and that is no
/// hole. The anchor's first frame (its lowest pts on the reference stream) sits at the
/// anchor's listed start (the sum of the EXTINF durations before it, floored to the
/// reference stream's ticks); every frame of the domain sits at that start plus its pts
/// distance from the anchor's first frame. The anchor is read when the domain is first
/// needed and kept for the life of the item. Pure; tested on fake data (HLSPlacementTests).
public enum HLSPlacement {
    /// The index of the anchor segment of segment `i`'s domain: back to the first segment
    /// of the run of `i`'s domain (domains are contiguous in a playlist), then forward past
    /// holes. `domain(k)`: segment k's discontinuity sequence; `hole(k)`: whether it is a
    /// hole (it may fetch to find out). Nil when the whole run is holes.
    public static func anchorIndex(for i: Int, count: Int, domain: (Int) -> Int64,
                                   hole: (Int) throws -> HoleReason) rethrows -> Int? {
        guard i >= 0, i < count else { return nil }
        let d = domain(i)
        var k = i
        while k > 0 && domain(k - 1) == d { k -= 1 }
        while k < count && domain(k) == d {
            if try hole(k) == .none { return k }
            k += 1
        }
        return nil
    }

    /// The anchor: the listed start of the anchor segment in item ticks (floored) and the
    /// pts of its first frame.
    public struct Anchor: Hashable, Sendable {
        public var ticks: Int64
        public var pts: Int64
        public init(listedStart: Rational, ticksPerSecond: Rational, firstFramePTS: Int64) {
            ticks = Int64(clamping: (listedStart * ticksPerSecond).floor)
            pts = firstFramePTS
        }
        public init(ticks: Int64, pts: Int64) { self.ticks = ticks; self.pts = pts }

        /// Item ticks of a pts of the domain.
        public func ticks(ofPTS p: Int64) -> Int64 { ticks &+ (p &- pts) }
        /// The pts of item ticks, on the domain's timeline.
        public func pts(ofTicks t: Int64) -> Int64 { pts &+ (t &- ticks) }
        /// The pts of item time 0 on the domain's timeline (fpx_packet.item_origin_pts):
        /// item time = pts - origin, in reference ticks.
        public var originPTS: Int64 { pts &- ticks }
    }

    /// MPEG-2 TS timestamps (and packed audio's ID3 transportStreamTimestamp) are 33 bits
    /// of a 90 kHz clock: they wrap every 2^33 ticks (about 26.5 h).
    public static let wrapTicks90k: Int64 = 1 << 33

    /// The 33-bit wrap period in a stream time base `num/den` (ticks), nil when it is no
    /// whole number of ticks (that stream's timestamps are then never unwrapped).
    public static func wrapPeriod(timeBaseNum: Int32, timeBaseDen: Int32) -> Int64? {
        guard timeBaseNum > 0, timeBaseDen > 0 else { return nil }
        let n = Int128(wrapTicks90k) * Int128(timeBaseDen), d = Int128(90_000) * Int128(timeBaseNum)
        guard n % d == 0, let p = Int64(exactly: n / d), p > 0 else { return nil }
        return p
    }

    /// The wrap count of a segment of a domain (seek.h, "Timestamp wrap"): the whole number
    /// `k` of wrap periods that puts the segment's first pts (as its demuxer gives it,
    /// `firstPTS`) nearest where the domain's placement expects it, `expectedPTS` (the
    /// anchor's pts plus the segment's listed distance from the anchor: the predecessor's
    /// placement carried on by EXTINF). A segment less than half a period from where it is
    /// expected is 0; one more than half a period below is unwrapped by +1 (a wrap inside
    /// the domain), and so on. Unwrapped pts = firstPTS + k * period. Pure, no history.
    public static func wrapCount(firstPTS: Int64, expectedPTS: Int64, period: Int64) -> Int64 {
        guard period > 0 else { return 0 }
        let d = Int128(expectedPTS) - Int128(firstPTS)
        let p = Int128(period)
        // Nearest multiple, ties (exactly half a period) not unwrapped.
        var k = d / p
        var r = d - k * p
        if r > p / 2 { k += 1; r -= p } else if r < -(p / 2) { k -= 1; r += p }
        return Int64(clamping: k)
    }

    /// The same rule in seconds (packed audio's ID3 timestamps, `HLSPackedAudio.segmentStart`):
    /// `start` moved by whole 2^33/90000 s periods to be nearest `expected`.
    public static func unwrapSeconds(_ start: Rational, near expected: Rational) -> Rational {
        let period = Rational(Int128(wrapTicks90k), 90_000)
        let ticks = (start * Rational(90_000)).floor, want = (expected * Rational(90_000)).floor
        let k = wrapCount(firstPTS: Int64(clamping: ticks), expectedPTS: Int64(clamping: want), period: wrapTicks90k)
        return start + Rational(k) * period
    }
}
