/// The order of resolution of a landing: memory (the grid, the trusted index with known
/// pts), continuation, the container's index, the scan. The choices are `LandingRules`'s;
/// the reading loops Lander+Scan.swift's.
extension Lander {
    // MARK: Resolve

    /// The landing when memory decides it (the frame grid, or the trusted index
    /// with the presentation times known): no positioning, no reading. The host's
    /// reads are re-pointed inside the window when it holds the landing's
    /// keyframe, else the next host read positions (`positionLost`, lazily at the
    /// keyframe). The seam is crossed at most once per item (the index facts).
    public func resolveFromMemory(_ request: LandingRequest, _ s: Seam) -> Landing? {
        guard rangeKnown, facts.seekable else { return nil }
        if samplesAreFrames { return resolveSamplesFromMemory(request, s) }
        recordHostReads()
        if request.atOrAfter, samplesAreFrames { return resolveSamplesFromMemory(request.coveringAtCeil, s) }
        var known = request.atOrAfter ? LandingRules.fromGridAtOrAfter(request, grid: grid)
                                      : LandingRules.fromGrid(request, grid: grid)
        if known == nil, request.wantsKeyframe, request.keyframeWindow != nil, let index = keyframeIndex(s) {
            known = LandingRules.fromIndexInMemory(request, index: index, grid: grid)
        }
        guard let k = known else { return nil }
        let landing = Landing(pts: k.pts, isKeyframe: k.pts == k.key.pts, resolution: k.resolution,
                              coversTarget: k.covers, packetsRead: 0)
        let inWindow = window.indexOfKeyframe(presenting: k.key.pts)
        if continues(to: k.pts, key: k.key) {
            continueLanding(k.pts, seekID: request.seekID)
            return landing
        }
        // Continuing would need reading on past the window (its keyframe was delivered in
        // this run, the landing's packet not read yet): that is I/O, the worker's
        // (`continueForward`).
        if continuation, hostRun, window.contiguous, let ki = inWindow, ki < window.cursor,
           indexOfFrame(presenting: k.pts) == nil {
            return nil
        }
        land(k.pts, seekID: request.seekID)
        if let i = inWindow {
            window.point(at: i)
        } else {
            // The window is of another place: let it go, so that nothing (a step
            // extending it) mistakes it for the landing's; the next read refills it.
            clearWindow(s)
            lazyKey = (k.pts, k.key)
            positionLost = true
        }
        return landing
    }

    /// Resolves `request` in order: memory (unless the caller already asked it,
    /// `request.memoryChecked`), the trusted container index for nearest-keyframe
    /// seeks, then the scan. Leaves the packets from the landing's keyframe in the
    /// window and the host's reads pointed at it.
    public func resolve(_ request: LandingRequest, _ s: Seam, shouldStop: () -> Bool) throws -> Landing {
        guard facts.seekable else { throw EngineError(.unsupported) }
        let start = packetsRead
        if !request.memoryChecked, let l = resolveFromMemory(request, s) { return l }
        if request.atOrAfter { return try resolveAtOrAfter(request, s, start: start, shouldStop: shouldStop) }
        if samplesAreFrames { return try resolveSamples(request, s, shouldStop: shouldStop) }
        if let l = try continueForward(request, s, shouldStop: shouldStop) { return l }
        if request.wantsKeyframe, request.keyframeWindow != nil, var index = keyframeIndex(s) {
            let d = try resolveFromIndex(request, index: &index, s, predictedOffset: firstKeyframeOffset,
                                         shouldStop: shouldStop)
            keyIndex = index
            if let d = d {
                window.markContiguous()
                recordWindow()
                window.point(at: d.startIndex)
                land(d.pts, seekID: request.seekID)
                return Landing(pts: d.pts, isKeyframe: d.isKeyframe, resolution: d.resolution,
                               coversTarget: d.coversTarget, packetsRead: packetsRead &- start)
            }
        }
        let scan = try scanFrom(target: request.targetFloor, exactTarget: request.target, window: request.keyframeWindow,
                                wantsKeyframe: request.wantsKeyframe, s, shouldStop: shouldStop)
        let d = LandingRules.decide(request, scan: scan)
        window.point(at: d.startIndex)
        land(d.pts, seekID: request.seekID)
        return Landing(pts: d.pts, isKeyframe: d.isKeyframe, resolution: d.resolution, coversTarget: d.coversTarget,
                       packetsRead: packetsRead &- start)
    }

    /// The first frame at or after the target (`LandingRequest.atOrAfter`; memory was asked
    /// first): the exact landing at `targetCeil`, which is that frame when one starts there;
    /// else the frame after it, by a one-frame step along the grid (which reads on only when
    /// the scan did not already prove it). Either way the host's packets start at the
    /// keyframe the landed frame needs, stamped as an exact landing's (DECODE_ONLY before it).
    /// Raw PCM: the sample at `targetCeil`. A target past the last frame was clamped to it
    /// (the player clamps first), so a frame at or after it always exists.
    func resolveAtOrAfter(_ request: LandingRequest, _ s: Seam, start: UInt64,
                          shouldStop: () -> Bool) throws -> Landing {
        var exact = request.coveringAtCeil
        exact.memoryChecked = true
        if samplesAreFrames { return try resolveSamples(exact, s, shouldStop: shouldStop) }
        exact.memoryChecked = false
        var first = try resolve(exact, s, shouldStop: shouldStop)
        first.packetsRead = packetsRead &- start
        if first.pts >= request.targetCeil {
            first.coversTarget = Rational(first.pts) == request.target
            return first
        }
        guard let st = try step(from: first.pts, forward: true, count: 1, seekID: request.seekID, s,
                                shouldStop: shouldStop) else {
            // No frame after it: only when the range is unknown (nothing was clamped).
            first.coversTarget = false
            return first
        }
        let key = grid.keyframe(for: st.pts)
        return Landing(pts: st.pts, isKeyframe: key.map { $0.pts == st.pts && $0.landable } ?? false,
                       resolution: .coveringFrame, coversTarget: Rational(st.pts) == request.target,
                       packetsRead: packetsRead &- start)
    }

    /// The resolver's scan over the window; records what it proves.
    func scanFrom(target T: Int64, exactTarget: Rational? = nil, window kw: ClosedRange<Int64>?, wantsKeyframe: Bool,
                  _ s: Seam, shouldStop: () -> Bool) throws -> LandingScan {
        let rate = scanBytesPerTick()
        let gap = rate != nil ? grid.typicalKeyframeGap : nil
        let sc = try scan(target: T, exactTarget: exactTarget, window: kw, wantsKeyframe: wantsKeyframe,
                          firstFrame: range?.lowerBound ?? facts.originTicks, bytesPerTick: rate, keyframeGap: gap,
                          keyframeAnchor: gap != nil ? grid.nearestKnownKeyframe(to: T) : nil, s, shouldStop: shouldStop)
        window.markContiguous(atEOF: sc.reachedEnd)
        recordWindow()
        return sc
    }
}
