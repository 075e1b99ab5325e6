/// The landing rules: which frame a seek or a step lands on, decided from what is
/// known, in exact rational ticks. Pure: no seam, no window, no I/O. The lander's
/// loops (`Lander.resolve`, the scans in Lander+Scan.swift) gather what is known and
/// ask these (docs/ARCHITECTURE.md, "Resolving a landing").
///
/// The rules:
/// 1. **The keyframe window** (`keyframeWindow`): a nearest-keyframe seek considers the
///    whole ticks inside [target - tolerance, target + tolerance], both exact: nothing is
///    rounded before the comparison, so a keyframe exactly `tolerance` away is inside
///    whatever the time base. No whole tick inside (tolerance 0 between ticks): none.
/// 2. **The nearest keyframe** (`nearestKeyframe`): of the last landable keyframe at or
///    before the target and the first after it, both inside the window, the nearer wins;
///    a tie goes to the earlier. None inside: the covering frame (`fallbackCoveringFrame`).
///    A later keyframe can only win while strictly nearer (`lastTickStrictlyNearer`), which
///    bounds how far a scan or an index look-up reads.
/// 3. **The exact landing** (`decide`): the covering frame, the landable frame with the
///    largest pts at or before the target. It covers the target when one was found; a scan
///    that found none lands on its first keyframe, not covering. Decoding starts at the
///    keyframe the landed frame needs: itself when it is one, else the last keyframe at or
///    before it, else the scan's first keyframe.
/// 4. **From the grid** (`fromGrid`, `fromGridAtOrAfter`): when the frame grid knows the
///    frames around the target, rules 2-3 are answered from it with no reading. At or after:
///    the frame at ceil(target), else the one after the covering frame.
/// 5. **From the index** (`nearestIndexKeyframe`, `fromIndexInMemory`): the trusted
///    container index answers rule 2 by looking only at the entries around the target, and
///    at the next entry only when it could win. In memory it decides only when it knows
///    every pts it looks at and whether the chosen keyframe covers the target.
/// 6. **Impossible steps** (`stepIsImpossible`): frames have distinct whole-tick pts inside
///    the seekable range, and there are no more than the container's exact frame count: a
///    step past either is refused without reading.
public enum LandingRules {
    // MARK: 1. The keyframe window

    /// The whole ticks inside [target - tolerance, target + tolerance]; nil when none.
    public static func keyframeWindow(target: Rational, toleranceTicks tol: Rational) -> ClosedRange<Int64>? {
        let lo = Int64(clamping: (target - tol).ceil)
        let hi = Int64(clamping: (target + tol).floor)
        return lo <= hi ? lo...hi : nil
    }

    // MARK: 2. The nearest keyframe

    /// The keyframe a nearest-keyframe seek lands on, of `before` (at or before the
    /// target) and `after`, each already known to be inside the window, or nil.
    public static func nearestKeyframe(target: Rational, before: Int64?, after: Int64?) -> Int64? {
        switch (before, after) {
        case let (b?, a?): return target - Rational(b) <= Rational(a) - target ? b : a
        case let (b?, nil): return b
        case let (nil, a?): return a
        case (nil, nil): return nil
        }
    }

    /// Whether a keyframe at `candidate` beats one at `incumbent` (strictly nearer, or as
    /// near and earlier).
    public static func isBetterKeyframe(_ candidate: Rational, than incumbent: Rational, target: Rational) -> Bool {
        let dc = (candidate - target).magnitude, di = (incumbent - target).magnitude
        return dc < di || (dc == di && candidate < incumbent)
    }

    /// The largest tick strictly nearer `target` than a keyframe at `k` (at or before the
    /// target): a later keyframe past it cannot win.
    public static func lastTickStrictlyNearer(than k: Int64, target: Rational) -> Int64 {
        // a - target < target - k  <=>  a < 2 target - k
        let bound = Rational(2) * target - Rational(k)
        return Int64(clamping: bound.ceil - 1)
    }

    // MARK: 3. The exact landing

    /// Chooses the landing from what a scan found (rules 2 and 3).
    public static func decide(_ request: LandingRequest, scan: LandingScan) -> LandingDecision {
        let exact = scan.best ?? scan.firstKey
        var landing = exact
        var resolution = LandingResolution.coveringFrame
        if request.wantsKeyframe {
            let before = scan.lastKeyLE.flatMap { k in request.keyframeWindow.map { k.pts >= $0.lowerBound } == true ? k : nil }
            let after = scan.firstKeyAfter
            if let p = nearestKeyframe(target: request.target, before: before?.pts, after: after?.pts),
               let pick = p == before?.pts ? before : after {
                landing = pick
                resolution = .keyframe
            } else {
                resolution = .fallbackCoveringFrame
            }
        }
        let covers = scan.best != nil && landing.pts == exact.pts
        let start: Int
        if landing.key {
            start = landing.index
        } else if let k = scan.lastKeyLE, k.pts <= landing.pts, k.index <= landing.index {
            start = k.index
        } else {
            start = scan.firstKey.index
        }
        return LandingDecision(pts: landing.pts, isKeyframe: landing.key, resolution: resolution, coversTarget: covers,
                               startIndex: start)
    }

    // MARK: 4. From the grid

    /// The landing when the frame grid knows the frames around the target, or nil.
    public static func fromGrid(_ request: LandingRequest, grid: FrameGrid) -> Known? {
        let T = request.targetFloor
        guard let f = grid.coveringFrame(T), let fk = grid.keyframe(for: f) else { return nil }
        guard request.wantsKeyframe else { return Known(pts: f, key: fk, resolution: .coveringFrame, covers: true) }
        guard let w = request.keyframeWindow else {
            return Known(pts: f, key: fk, resolution: .fallbackCoveringFrame, covers: true)
        }
        guard let (before, after) = grid.keyframes(in: w.lowerBound, w.upperBound, around: T) else { return nil }
        guard let p = nearestKeyframe(target: request.target, before: before?.pts, after: after?.pts),
              let k = p == before?.pts ? before : after else {
            return Known(pts: f, key: fk, resolution: .fallbackCoveringFrame, covers: true)
        }
        return Known(pts: k.pts, key: k, resolution: .keyframe, covers: k.pts == f)
    }

    /// The at-or-after landing (`LandingRequest.atOrAfter`) when the grid knows the frames
    /// around the target: the frame at `targetCeil`, else the frame after the one covering
    /// it (the grid's segments are complete, so no frame lies between). Its interval holds
    /// the target only when it starts exactly at the target.
    public static func fromGridAtOrAfter(_ request: LandingRequest, grid: FrameGrid) -> Known? {
        let T = request.targetCeil
        guard let f = grid.coveringFrame(T) else { return nil }
        let pick: Int64
        if f >= T {
            pick = f
        } else {
            guard let n = grid.frame(from: f, offset: 1) else { return nil }
            pick = n
        }
        guard let k = grid.keyframe(for: pick) else { return nil }
        return Known(pts: pick, key: k, resolution: .coveringFrame, covers: Rational(pick) == request.target)
    }

    // MARK: 5. From the index

    /// The index entry a nearest-keyframe request lands on, and its pts, or nil (no
    /// landable keyframe in the window, or `pts` could not give a time it needs). The one
    /// rule for both index paths (`Lander.resolveFromIndex`, which learns pts by
    /// positioning, and `fromIndexInMemory`, which only knows them): it asks `pts` for the
    /// entries around the target, and for the next entry only when it could win.
    static func nearestIndexKeyframe(_ request: LandingRequest, index: KeyframeIndex,
                                     pts: (Int) throws -> Int64?) rethrows -> (i: Int, pts: Int64)? {
        guard let w = request.keyframeWindow else { return nil }
        let T = request.targetFloor
        let target = request.target
        var before: (i: Int, pts: Int64)?, after: (i: Int, pts: Int64)?
        var j = index.lastLandable(timestampAtMost: T)
        while let i = j {
            guard let p = try pts(i) else { return nil }
            if p <= T { before = (i, p); break }
            after = (i, p)
            j = index.previousLandable(before: i)
        }
        var next: Int?
        if after == nil {
            if let b = before { next = index.nextLandable(after: b.i) } else if j == nil { next = index.nextLandable(after: -1) }
        }
        if let k = next {
            var bound = w.upperBound
            if let b = before, b.pts >= w.lowerBound {
                bound = min(bound, lastTickStrictlyNearer(than: b.pts, target: target))
            }
            if index.entries[k].timestamp <= bound {
                guard let p = try pts(k) else { return nil }
                after = (k, p)
            }
        }
        let b = before.flatMap { $0.pts >= w.lowerBound ? $0 : nil }
        let a = after.flatMap { $0.pts <= w.upperBound ? $0 : nil }
        guard let pick = nearestKeyframe(target: target, before: b?.pts, after: a?.pts) else { return nil }
        return pick == b?.pts ? b : a
    }

    /// The nearest-keyframe landing the trusted index decides with no reading, or nil: it
    /// needs the pts of every entry the choice looks at (Matroska cues are pts; mov entries
    /// are dts until a seek learned them), and whether the keyframe covers the target:
    /// certain when it is at or after floor(target), else only when the grid knows the
    /// frames up to the target. The keyframe carries no dts: it is positioned by its pts.
    public static func fromIndexInMemory(_ request: LandingRequest, index: KeyframeIndex, grid: FrameGrid) -> Known? {
        guard request.wantsKeyframe, request.keyframeWindow != nil, index.count > 0 else { return nil }
        let T = request.targetFloor
        guard let chosen = nearestIndexKeyframe(request, index: index, pts: { index.entries[$0].pts }) else { return nil }
        let covers: Bool
        if chosen.pts >= T {
            covers = chosen.pts == T
        } else if let f = grid.coveringFrame(T) {
            covers = f == chosen.pts
        } else {
            return nil
        }
        let key = FrameGrid.Keyframe(pts: chosen.pts, dts: nil, landable: true)
        return Known(pts: chosen.pts, key: key, resolution: .keyframe, covers: covers)
    }

    // MARK: 6. Impossible steps

    /// Whether a step of `count` frames from the frame at `from` provably has no landing:
    /// at most `range.upperBound - from` frames follow it and `from - range.lowerBound`
    /// precede it, and no more than `frameCount - 1` (the exact frame count, when known).
    public static func stepIsImpossible(count: Int, forward: Bool, from: Int64, range: ClosedRange<Int64>,
                                        frameCount: Int64? = nil) -> Bool {
        guard count > 0 else { return false }
        let ticks = forward ? Int128(range.upperBound) - Int128(from) : Int128(from) - Int128(range.lowerBound)
        if Int128(count) > max(0, ticks) { return true }
        if let n = frameCount, n > 0, Int128(count) > Int128(n) - 1 { return true }
        return false
    }
}

// MARK: What the rules are answered with

extension LandingRules {
    /// A landing memory decides: the frame to land on, and the keyframe it decodes from.
    public struct Known: Hashable, Sendable {
        public var pts: Int64
        public var key: FrameGrid.Keyframe
        public var resolution: LandingResolution
        public var covers: Bool
    }
}

/// One reference packet a scan noted: its pts and its index in the packet window.
public struct LandingMark: Hashable, Sendable {
    public var pts: Int64
    public var index: Int
    public var key: Bool
    public init(pts: Int64, index: Int, key: Bool) { self.pts = pts; self.index = index; self.key = key }
}

/// What a scan found around the target (the input of `LandingRules.decide`).
public struct LandingScan: Hashable, Sendable {
    /// The keyframe the window starts with.
    public var firstKey: LandingMark
    /// The covering frame: the largest landable pts <= the target.
    public var best: LandingMark?
    /// The last landable keyframe at or before the target.
    public var lastKeyLE: LandingMark?
    /// The first landable keyframe after the target, inside the keyframe window.
    public var firstKeyAfter: LandingMark?
    /// The scan read to the end of the stream.
    public var reachedEnd: Bool
}

/// The landing a request resolves to, and where decoding must start.
public struct LandingDecision: Hashable, Sendable {
    public var pts: Int64
    public var isKeyframe: Bool
    public var resolution: LandingResolution
    public var coversTarget: Bool
    /// The window index the host's reads start from (a keyframe).
    public var startIndex: Int
}
