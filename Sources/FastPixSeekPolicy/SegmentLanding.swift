/// One HLS segment as the resolver sees it: where the playlist puts it on the
/// item timeline, in the item's ticks (the segments' time base), and which
/// timeline its pts belong to.
public struct SegmentSpan: Hashable, Sendable {
    /// EXT-X-MEDIA-SEQUENCE number.
    public var sequence: Int64
    /// EXT-X-DISCONTINUITY-SEQUENCE: segments of one domain share a pts timeline.
    public var domain: Int64
    /// The playlist's start of the segment (sum of the EXTINFs before it), item ticks.
    public var start: Rational
    public init(sequence: Int64, domain: Int64, start: Rational) {
        self.sequence = sequence; self.domain = domain; self.start = start
    }
}

/// Where an HLS landing is across segments. Pure: the HLS engine fetches and
/// demuxes segments and asks here which one a seek or a step lands in; inside
/// a segment, `LandingResolver` decides as for a file.
///
/// Times are item ticks. A segment's frames are known only once it is
/// demuxed, so they are asked for (`frames(i)`: the segment's first and last
/// frame, nil when it has none) only when the decision needs them.
///
/// See docs/ARCHITECTURE.md, "HLS".
public enum SegmentLanding {
    /// Whether `b` directly follows `a` on one pts timeline (the next media
    /// sequence number, no EXT-X-DISCONTINUITY between), so a frame of `a`
    /// can cover a target in `b`'s listed span and the two can be compared.
    public static func continues(_ a: SegmentSpan, _ b: SegmentSpan) -> Bool {
        b.sequence == a.sequence &+ 1 && b.domain == a.domain
    }

    /// The segment the playlist's times put `target` in: the last one that
    /// starts at or before it; the first when the target is before them all.
    /// Starts never decrease (EXTINF durations are not negative): a binary search, so a
    /// seek in a playlist of many segments reads a few of them (issue 18.4).
    public static func listedSegment<C: RandomAccessCollection>(for target: Rational, in segs: C) -> Int?
    where C.Element == SegmentSpan, C.Index == Int {
        guard !segs.isEmpty else { return nil }
        var lo = segs.startIndex, hi = segs.endIndex      // the first index whose start > target
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if segs[mid].start <= target { lo = mid + 1 } else { hi = mid }
        }
        return lo > segs.startIndex ? lo - 1 : 0
    }

    /// The segment whose frames hold the covering frame of `target` (the last
    /// frame at or before it), which an exact seek lands on and a keyframe
    /// seek searches around:
    /// - before the listed segment's first frame (the EXTINFs and the pts
    ///   disagree, or a gap): the previous segment, when it continues into
    ///   this one; else this segment (its first frame: nothing earlier exists
    ///   on this timeline, e.g. at the window start or after a discontinuity);
    /// - after the listed segment's last frame, with the next segment's first
    ///   frame at or before the target: the next one, when it continues.
    public static func coveringSegment<C: RandomAccessCollection>(for target: Rational, in segs: C,
                                                               frames: (Int) throws -> ClosedRange<Int64>?) rethrows -> Int?
    where C.Element == SegmentSpan, C.Index == Int {
        guard let i = listedSegment(for: target, in: segs) else { return nil }
        guard let f = try frames(i) else { return i }
        if target < Rational(f.lowerBound) {
            if i > 0 && continues(segs[i - 1], segs[i]) { return i - 1 }
            return i
        }
        if target > Rational(f.upperBound), i + 1 < segs.count, continues(segs[i], segs[i + 1]),
           let n = try frames(i + 1), Rational(n.lowerBound) <= target {
            return i + 1
        }
        return i
    }

    /// Whether a nearest-keyframe seek resolved in segment `i` must look at
    /// the next segment: it continues this one and the keyframe window reaches
    /// past this segment's last frame (`lastFrame`; nil: unknown, look).
    public static func windowReachesNext<C: RandomAccessCollection>(_ window: ClosedRange<Int64>, segment i: Int, in segs: C,
                                                                  lastFrame: Int64?) -> Bool
    where C.Element == SegmentSpan, C.Index == Int {
        guard i + 1 < segs.count, continues(segs[i], segs[i + 1]) else { return false }
        guard let l = lastFrame else { return true }
        return window.upperBound > l
    }

    /// A nearest-keyframe seek whose window spans a segment boundary: land
    /// where resolving inside the segment did (`here`), or on the next
    /// segment's first frame (`nextFirstKey`, a keyframe: segments start with
    /// one). The next segment's keyframe wins only inside the window and when
    /// `here` is no keyframe (the covering-frame fallback) or is strictly
    /// farther from the target; a tie goes to the earlier, `here`.
    public enum BoundaryChoice: Hashable, Sendable { case here, next }

    public static func keyframeAcrossBoundary(target: Rational, window: ClosedRange<Int64>,
                                              here: Int64, hereIsKeyframe: Bool,
                                              nextFirstKey: Int64?) -> BoundaryChoice {
        guard let n = nextFirstKey, window.contains(n) else { return .here }
        if hereIsKeyframe && LandingPolicy.isBetterKeyframe(Rational(here), than: Rational(n), target: target) {
            return .here
        }
        return .next
    }

    /// A frame step that ran off its segment's end (forward) or start
    /// (backward): which segment it continues in, or why it cannot.
    public enum StepCrossing: Hashable, Sendable {
        /// Land on the first (forward) or last (backward) frame of segment `i`.
        case segment(Int)
        /// No frame that way: the first frame of the window, or the last of a VOD/ended playlist.
        case noFrame
        /// Forward past the newest published segment of a live playlist.
        case notPublished
    }

    public static func stepCrossing(from i: Int, forward: Bool, count: Int, live: Bool) -> StepCrossing {
        let j = forward ? i + 1 : i - 1
        if j >= 0 && j < count { return .segment(j) }
        return forward && live ? .notPublished : .noFrame
    }

    /// A forward step landing on `frame` (item ticks) of a live playlist whose
    /// hold-back edge is `edge`: refused when the frame lies past the edge
    /// (published, but not yet presentable by the playlist's rules).
    public static func isPastHoldBack(_ frame: Int64, forward: Bool, edge: Int64?) -> Bool {
        guard forward, let e = edge else { return false }
        return frame > e
    }
}
