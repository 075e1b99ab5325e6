/// The landing rules, in one place. Engines find frames and keyframes; which
/// of them a seek lands on is decided here, in exact rational ticks.
///
/// See docs/ARCHITECTURE.md, "Resolving a landing".
public enum LandingPolicy {
    /// The whole ticks inside [target - tolerance, target + tolerance], both in
    /// exact (rational) ticks: nothing is rounded before the comparison, so a
    /// keyframe exactly `tolerance` away is inside whatever the time base.
    /// nil when no whole tick lies inside (tolerance 0 between two ticks).
    public static func keyframeWindow(target: Rational, toleranceTicks tol: Rational) -> ClosedRange<Int64>? {
        let lo = Int64(clamping: (target - tol).ceil)
        let hi = Int64(clamping: (target + tol).floor)
        return lo <= hi ? lo...hi : nil
    }

    /// The keyframe a nearest-keyframe seek lands on, given the nearest
    /// keyframe at or before the target (`before`) and the nearest one after it
    /// (`after`), each already known to be inside the window or nil. The nearer
    /// one wins; a tie goes to the earlier. nil: none, fall back to the
    /// covering frame.
    public static func nearestKeyframe(target: Rational, before: Int64?, after: Int64?) -> Int64? {
        switch (before, after) {
        case let (b?, a?): return target - Rational(b) <= Rational(a) - target ? b : a
        case let (b?, nil): return b
        case let (nil, a?): return a
        case (nil, nil): return nil
        }
    }

    /// Whether a keyframe at `candidate` would beat one at `incumbent` for
    /// `target` (strictly nearer, or as near and earlier).
    public static func isBetterKeyframe(_ candidate: Rational, than incumbent: Rational, target: Rational) -> Bool {
        let dc = (candidate - target).magnitude, di = (incumbent - target).magnitude
        return dc < di || (dc == di && candidate < incumbent)
    }
}

extension LandingPolicy {
    /// The largest tick strictly nearer `target` than a keyframe at `k` (k at
    /// or before the target): a later keyframe past it cannot win.
    public static func lastTickStrictlyNearer(than k: Int64, target: Rational) -> Int64 {
        // a - target < target - k  <=>  a < 2 target - k
        let bound = Rational(2) * target - Rational(k)
        return Int64(clamping: bound.ceil - 1)
    }
}
