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
}
