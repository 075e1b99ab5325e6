/// Landings decided from memory alone: no positioning, no reading. The player
/// completes such a seek on the calling thread (docs/ARCHITECTURE.md, "The data
/// flow of one seek"); the engine positions the demuxer lazily, on the next read.
extension LandingResolver {
    /// The nearest-keyframe landing that the container's keyframe index decides
    /// with no reading, or nil. It needs the presentation times of every entry
    /// the decision looks at (Matroska cues are pts; mov entries are dts until a
    /// seek learned them: see `resolveFromIndex`), and whether the chosen
    /// keyframe covers the target: certain when it is at or after the target,
    /// else only when the frame grid knows the frames up to the target.
    ///
    /// The choice is `resolveFromIndex`'s (the same entries, the same rule),
    /// made without positioning. The keyframe returned carries no dts: it is
    /// positioned by its pts.
    public static func fromIndexInMemory(_ request: LandingRequest, index: KeyframeIndex, grid: FrameGrid) -> Known? {
        guard request.wantsKeyframe, let w = request.keyframeWindow, index.count > 0 else { return nil }
        let T = request.targetFloor
        let target = request.target
        // The nearest landable keyframes at or before, and after, the target.
        var before: (i: Int, pts: Int64)?, after: (i: Int, pts: Int64)?
        var j = index.lastLandable(timestampAtMost: T)
        while let i = j {
            guard let p = index.entries[i].pts else { return nil }
            if p <= T { before = (i, p); break }
            after = (i, p)
            j = index.previousLandable(before: i)
        }
        var next: Int?
        if after == nil {
            if let b = before { next = index.nextLandable(after: b.i) } else if j == nil { next = index.nextLandable(after: -1) }
        }
        if let k = next {
            // The next keyframe matters only when it could win: inside the window,
            // and strictly nearer than the one before.
            var bound = w.upperBound
            if let b = before, b.pts >= w.lowerBound {
                bound = min(bound, LandingPolicy.lastTickStrictlyNearer(than: b.pts, target: target))
            }
            if index.entries[k].timestamp <= bound {
                guard let p = index.entries[k].pts else { return nil }
                after = (k, p)
            }
        }
        let b = before.flatMap { $0.pts >= w.lowerBound ? $0 : nil }
        let a = after.flatMap { $0.pts <= w.upperBound ? $0 : nil }
        guard let pick = LandingPolicy.nearestKeyframe(target: target, before: b?.pts, after: a?.pts) else { return nil }
        guard let chosen = pick == b?.pts ? b : a else { return nil }
        // Does the keyframe cover the target (no frame presents in (K, target])? Pts are
        // whole ticks, so at or after floor(target) nothing lies between.
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
}
