/// Frame steps, both ways: along the grid, extending the proven run forward or proving
/// the GOP before it (by byte offset where the demuxer positions by byte).
extension Lander {
    // MARK: Frame stepping

    /// Moves `count` frames from `from` (nil: the first frame) along the grid and
    /// points the host's reads at the keyframe the new frame needs. nil when
    /// there are not that many frames that way.
    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64, _ s: Seam,
                     shouldStop: () -> Bool) throws -> StepLanding? {
        guard facts.seekable else { throw EngineError(.unsupported) }
        let start = packetsRead
        guard let r = try seekableRange(s) else { throw EngineError(.unsupported) }
        let f0 = min(max(from ?? r.lowerBound, r.lowerBound), r.upperBound)
        // Refused without reading when the range (or the exact frame count) proves it impossible.
        if LandingRules.stepIsImpossible(count: count, forward: forward, from: f0, range: r,
                                            frameCount: exactFrameCount(s)) {
            return nil
        }
        if grid.frame(from: f0, offset: 0) == nil {
            _ = try scanFrom(target: f0, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
        }
        var target: Int64?
        for _ in 0..<Budget.stepRounds {
            if let t = grid.frame(from: f0, offset: forward ? count : -count) { target = t; break }
            guard let cov = grid.coverage(around: f0) else { return nil }
            if forward {
                if cov.upperBound == Int64.max { return nil }
                // As many reference packets as frames are still missing (at least one).
                let missing = count - (grid.framesKnown(after: f0) ?? 0)
                try extendRun(cov, packets: min(max(1, missing), Budget.stepPacketsPerRound), s, shouldStop: shouldStop)
            } else {
                if cov.lowerBound <= r.lowerBound { return nil }
                try scanGOPBefore(cov, range: r, s, shouldStop: shouldStop)
                guard let now = grid.coverage(around: f0), now.lowerBound < cov.lowerBound else {
                    // The frames before the proven run cannot be connected to it:
                    // packets between are missing or unreadable (the media's fault).
                    throw EngineError(.invalidData)
                }
            }
        }
        guard let t = target, let k = grid.keyframe(for: t) else { return nil }
        if continues(to: t, key: k) {
            continueLanding(t, seekID: seekID)
            return StepLanding(pts: t, packetsRead: packetsRead &- start)
        }
        if try !position(at: k, s, shouldStop: shouldStop) {
            let sc = try scanFrom(target: t, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
            window.point(at: sc.lastKeyLE?.index ?? sc.firstKey.index)
        }
        land(t, seekID: seekID)
        return StepLanding(pts: t, packetsRead: packetsRead &- start)
    }

    /// Proves the GOP before the run `cov`: by byte offset where timestamp seeks
    /// land imprecisely (MPEG-TS), else a scan back from the frame before it;
    /// then reads on until the frames up to the run are proven (Matroska has no
    /// dts after a seek, so the scan may stop short).
    func scanGOPBefore(_ cov: ClosedRange<Int64>, range r: ClosedRange<Int64>, _ s: Seam,
                       shouldStop: () -> Bool) throws {
        var scanned = false
        if facts.positionsByByte, let k = grid.keyframe(for: cov.lowerBound), k.pts == cov.lowerBound,
           let back = Self.backwardByteSpan(before: k, grid: grid, ticksPerSecond: facts.ticksPerSecond,
                                            fallbackBytesPerTick: fileBytesPerTick(r)) {
            let sc = try scanBackward(into: k, back: back, s, shouldStop: shouldStop)
            if let sc = sc {
                window.markContiguous(atEOF: sc.reachedEnd)
                recordWindow()
                scanned = true
            }
        }
        if !scanned {
            _ = try scanFrom(target: cov.lowerBound &- 1, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
        }
        try extendWindow(untilDTS: cov.lowerBound &- 1, s, shouldStop: shouldStop)
    }

    /// Reads on until the window's largest reference dts reaches `d` (or EOF).
    func extendWindow(untilDTS d: Int64, _ s: Seam, shouldStop: () -> Bool) throws {
        guard window.contiguous else { return }
        while !window.atEOF && (window.maxReferenceDTS ?? Int64.min) < d {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let e = try read(s) else { window.reachedEOF(); break }
            window.append(e)
        }
        recordWindow()
    }

    /// Extends the proven run `cov` forward: `n` more reference packets into the
    /// window when it is contiguous and starts inside the run, else a scan from
    /// the run's end. A window that outgrows its cap drops whole GOPs from its
    /// front (the run stays proven in the grid), so a long step never re-reads.
    func extendRun(_ cov: ClosedRange<Int64>, packets n: Int, _ s: Seam, shouldStop: () -> Bool) throws {
        let joins = window.contiguous && window.entries.first.flatMap { $0.presents }.map { cov.contains($0) } == true
        if !joins {
            _ = try scanFrom(target: cov.upperBound, window: nil, wantsKeyframe: false, s, shouldStop: shouldStop)
            trimWindow(s)
            return
        }
        var refs = 0
        while refs < n {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let e = try read(s) else { window.reachedEOF(); break }
            if e.header.stream == ref { refs += 1 }
            window.append(e)
            if window.count > PacketWindow<PacketHandle>.maxPackets || window.bytes > facts.maxWindowBytes / 2 {
                recordWindow()
                dropLeadingGOPs(s)
            }
        }
        recordWindow()
    }
}
