/// Raw PCM as the reference stream (`Priming.samplesAreFrames`): every sample is a frame
/// and any packet starts decoding, while the demuxer cuts its packets wherever it started
/// reading (WAV, AIFF, CAF: after a seek, at the seek's sample), so the packets are no
/// frame grid. A landing is the target's own sample, whichever packet holds it: the host's
/// reads start at that packet (DECODE_ONLY, with trim_samples when the sample is inside
/// it); the range ends at the last sample (the tail's last packet's end). Each is a
/// function of the file and the target, never of what was read before
/// (docs/ARCHITECTURE.md, "Raw samples"). Frame steps need video (the player refuses them).
extension Lander {
    var samplesAreFrames: Bool { facts.priming.samplesAreFrames }

    /// The last sample of a reference packet presenting at `t` (raw samples), else `t`.
    func lastFrame(of e: Entry, presenting t: Int64) -> Int64 {
        guard samplesAreFrames, e.header.duration > 1 else { return t }
        return t &+ (e.header.duration &- 1)
    }

    /// The sample a request lands on: the one whose interval holds the target, in the range.
    func sampleLanding(_ request: LandingRequest) -> Int64 {
        var t = request.targetFloor
        if let r = range { t = min(max(t, r.lowerBound), r.upperBound) }
        return t
    }

    func sampleLanding(_ t: Int64, for request: LandingRequest, packetsRead n: UInt64) -> Landing {
        Landing(pts: t, isKeyframe: true, resolution: request.wantsKeyframe ? .keyframe : .coveringFrame,
                coversTarget: request.targetFloor == t, packetsRead: n)
    }

    /// Whether reference packet `e` holds sample `t`.
    func holds(_ e: Entry, sample t: Int64) -> Bool {
        guard e.header.stream == ref, !e.notLandable, let p = e.presents else { return false }
        return p <= t && t < p &+ max(1, e.header.duration)
    }

    /// The landing from memory: always (the target decides it); the host's reads are
    /// pointed at the packet holding it when the window has it, else the next read positions.
    func resolveSamplesFromMemory(_ request: LandingRequest, _ s: Seam) -> Landing {
        let t = sampleLanding(request)
        land(t, seekID: request.seekID)
        if window.contiguous, let i = window.entries.firstIndex(where: { holds($0, sample: t) }) {
            window.point(at: i)
        } else {
            clearWindow(s)
        }
        return sampleLanding(t, for: request, packetsRead: 0)
    }

    /// Resolves a request by positioning at the packet that holds its sample.
    func resolveSamples(_ request: LandingRequest, _ s: Seam, shouldStop: () -> Bool) throws -> Landing {
        let start = packetsRead
        let t = sampleLanding(request)
        guard try position(atSample: t, s, shouldStop: shouldStop) else { throw EngineError(.invalidData) }
        land(t, seekID: request.seekID)
        return sampleLanding(t, for: request, packetsRead: packetsRead &- start)
    }

    /// Points the host's reads at the packet holding sample `t`: in the window when it has
    /// it, else by a seek at or before `t` (a second further back, twice as far each time,
    /// when the demuxer lands past it) and reading on to it. False when no packet holds it.
    func position(atSample t: Int64, _ s: Seam, shouldStop: () -> Bool) throws -> Bool {
        if window.contiguous, let i = window.entries.firstIndex(where: { holds($0, sample: t) }) {
            window.point(at: i)
            return true
        }
        var back: Int64 = 0
        for _ in 0..<Budget.repositionAttempts {
            clearWindow(s)
            let aim = t &- back
            let sought = aim > facts.originTicks ? try s.seek(toTicks: aim) : false
            if !sought { try s.rewind() }
            var passed = false
            while let e = try read(s) {
                if shouldStop() { s.release(e.packet); throw EngineError(.cancelled) }
                if holds(e, sample: t) {
                    window.markContiguous()
                    window.append(e)
                    window.point(at: 0)
                    return true
                }
                let late = e.header.stream == ref && (e.presents ?? Int64.min) > t
                s.release(e.packet)
                if late { passed = true; break }
            }
            if !passed || aim <= facts.originTicks { return false }
            back = max(facts.ticksPerSecond, back > Int64.max / 4 ? back : back &* 2)
        }
        return false
    }
}
