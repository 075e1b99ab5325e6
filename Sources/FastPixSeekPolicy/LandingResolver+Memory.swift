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
    /// The choice is `nearestIndexKeyframe`'s, as for `resolveFromIndex`, made
    /// without positioning. The keyframe returned carries no dts: it is
    /// positioned by its pts.
    public static func fromIndexInMemory(_ request: LandingRequest, index: KeyframeIndex, grid: FrameGrid) -> Known? {
        guard request.wantsKeyframe, request.keyframeWindow != nil, index.count > 0 else { return nil }
        let T = request.targetFloor
        guard let chosen = nearestIndexKeyframe(request, index: index, pts: { index.entries[$0].pts }) else { return nil }
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
