/// Continuation: a landing ahead of what the host's decoder already has, when
/// continuing is cheaper than restarting at its keyframe, continues the host's
/// packets from its read position, with no DISCONTINUITY, DECODE_ONLY up to the
/// new landing and the new landing's fields (docs/ARCHITECTURE.md, "Continuation";
/// seek.h, "Continuation").
///
/// The rule (`continues(to:key:)`), all of it required:
/// - continuation is on for the player (`continuation`);
/// - the host's reads are one run (`hostRun`): since the packet flagged
///   DISCONTINUITY, every packet came from the contiguous window in order, so
///   the window's cursor is exactly the host's read position, and its last
///   read did not return the end of the stream (`hostReachedEnd`: the host
///   drains its decoder there; packets it gives back, `unread`, say it did not);
/// - the host's decoder cannot have returned a frame at or after the landing:
///   the landing's packet has not been delivered in this run (it lies at or
///   after the cursor; a decoder returns frames in presentation order, so none
///   at or after a frame it has not decoded), or, when the host reported the
///   largest pts its decoder returned in this run (`reportOutput`), that pts is
///   before the landing;
/// - it is cheaper: the reference packets to decode from the read position to
///   the landing's packet are at most those from the landing's keyframe (when
///   the keyframe was delivered in this run, always; when it lies ahead, never).
///
/// How far a seek reads on from the host's read position to find out
/// (`continueForward`, `readsOn(to:past:)`), bounded by `Budget.continuationPackets`
/// and half the window's byte cap: to a target at most about a keyframe interval
/// past what the frame grid proves (the grid's typical interval, 1 s while it
/// knows no two keyframes), or farther when the container's trusted keyframe index
/// (`IndexTrust`) shows that the target's keyframe is the window's last one: the
/// index lists that keyframe and the next keyframe it lists presents after the
/// target. Reading on then passes no keyframe, and the landing decodes from the
/// keyframe the host's run read (continuing costs no more reference packets than
/// restarting there). When the index lists a keyframe in between, or there is no
/// trusted index, the landing restarts at its keyframe as before. Exact landings
/// only: a keyframe landing is found in the index for less.
extension Lander {
    /// Whether a seek reads on from the host's read position to `request`'s target,
    /// which lies past `proven`, the end of what the grid proves around the window
    /// (the rule above).
    func readsOn(to request: LandingRequest, past proven: Int64, _ s: Seam) -> Bool {
        let t = request.targetFloor
        guard t > proven else { return false }
        if t &- proven <= (grid.typicalKeyframeGap ?? facts.ticksPerSecond) { return true }
        return !request.wantsKeyframe && indexShowsNoKeyframe(afterWindowThrough: t, s)
    }

    /// The trusted container index lists the window's last reference keyframe, which
    /// presents at or before `t`, and the next keyframe it lists (if any) presents after `t`.
    func indexShowsNoKeyframe(afterWindowThrough t: Int64, _ s: Seam) -> Bool {
        guard let index = keyframeIndex(s),
              let k = window.entries.last(where: { $0.header.stream == ref && $0.header.isKey }),
              let kp = k.presents, kp <= t,
              let i = index.entry(ofKeyframePTS: k.header.pts, dts: k.header.dts) else { return false }
        return i + 1 >= index.count || index.presentsAtLeast(i + 1) > t
    }

    /// The reference packets in `window.entries[from...through]`.
    func referencePackets(from a: Int, through b: Int) -> Int {
        guard a <= b else { return 0 }
        var n = 0
        for i in max(0, a)...min(b, window.count - 1) where window.entries[i].header.stream == ref { n += 1 }
        return n
    }

    /// The window index of the reference packet presenting at `pts` (a landable one).
    func indexOfFrame(presenting pts: Int64) -> Int? {
        window.entries.firstIndex { $0.header.stream == ref && !$0.notLandable && $0.presents == pts }
    }

    /// What the window proves since the host's reads grew it (they append to it without
    /// recording; positioning at a keyframe refills it without recording): recorded into
    /// the grid before a landing that may continue is decided. Memory only, and only when
    /// the window changed.
    func recordHostReads() {
        guard continuation, hostRun, window.contiguous, window.count != recordedCount else { return }
        recordWindow()
        recordedCount = window.count
    }

    /// Whether a landing on `pts`, decoded from keyframe `key`, continues the host's run.
    public func continues(to pts: Int64, key: FrameGrid.Keyframe) -> Bool {
        guard continuation, hostRun, !hostReachedEnd, window.contiguous, !positionLost, !stamp.discontinuityPending,
              let li = indexOfFrame(presenting: pts) else { return false }
        let cursor = window.cursor
        if let out = reportedOutput {
            guard out < pts else { return false }
        } else {
            guard li >= cursor else { return false }
        }
        let cont = referencePackets(from: cursor, through: li)
        let restart = window.indexOfKeyframe(presenting: key.pts).map { referencePackets(from: $0, through: li) }
            ?? Int.max
        return cont <= restart
    }

    /// Lands on `pts` by continuing the host's run (`continues(to:key:)` said so).
    func continueLanding(_ pts: Int64, seekID: UInt64) {
        positionLost = false
        stamp.continueLanding(pts, seekID: seekID)
        continuedLandings &+= 1
    }

    /// Reading forward from the host's read position to a target just past what the
    /// window holds, so that a seek there may continue (or restart inside the window
    /// without a new positioning): when the grid does not know the target yet and
    /// `readsOn(to:past:)` says so, or knows it but the landing's
    /// packet is not read yet while its keyframe is in the window. nil: not applicable,
    /// or the grid still does not decide (the caller resolves as usual).
    func continueForward(_ request: LandingRequest, _ s: Seam, shouldStop: () -> Bool) throws -> Landing? {
        // (The window may hold the stream to its end: a binding's read-ahead took it
        // there. It then proves every frame up to the end, and reading on does nothing.)
        recordHostReads()
        guard continuation, hostRun, window.contiguous, !stamp.discontinuityPending,
              let first = window.entries.first?.presents, let cov = grid.coverage(around: first) else { return nil }
        let T = request.targetFloor
        let start = packetsRead
        guard T >= first else { return nil }
        var k = LandingRules.fromGrid(request, grid: grid)
        if k == nil {
            // Only a target whose keyframe is likely (a keyframe interval past what is
            // proven) or known (the index) to be in the window: else it is ahead, and the
            // index or the scan finds it for less.
            guard readsOn(to: request, past: cov.upperBound, s) else { return nil }
            try readOn(past: T, s, shouldStop: shouldStop)
            k = LandingRules.fromGrid(request, grid: grid)
        } else if let known = k, indexOfFrame(presenting: known.pts) == nil,
                  window.indexOfKeyframe(presenting: known.key.pts) != nil {
            try readOn(past: known.pts, s, shouldStop: shouldStop)
        }
        guard hostRun, window.contiguous, let k = k else { return nil }
        let landing = Landing(pts: k.pts, isKeyframe: k.pts == k.key.pts, resolution: k.resolution,
                              coversTarget: k.covers, packetsRead: packetsRead &- start)
        if continues(to: k.pts, key: k.key) {
            continueLanding(k.pts, seekID: request.seekID)
            return landing
        }
        guard let i = window.indexOfKeyframe(presenting: k.key.pts) else { return nil }
        window.point(at: i)
        land(k.pts, seekID: request.seekID)
        return landing
    }

    /// Reads on into the window until a reference dts passes `t` (every frame up to
    /// `t` is then read), or, without dts, settleCount frames past it; bounded by
    /// `Budget.continuationPackets` and half the window's byte cap. Records the window.
    func readOn(past t: Int64, _ s: Seam, shouldStop: () -> Bool) throws {
        var budget = Budget.continuationPackets, past = 0
        while budget > 0, !window.atEOF, (window.maxReferenceDTS ?? Int64.min) <= t, past < facts.settleCount,
              !window.isOver(maxBytes: facts.maxWindowBytes / 2) {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let e = try read(s) else { window.reachedEOF(); break }
            if e.header.stream == ref, e.header.dts == nil, let p = e.presents, p > t { past += 1 }
            window.append(e)
            budget -= 1
        }
        recordWindow()
        recordedCount = window.count
    }

    // MARK: The host's side

    /// The host's decoder of the reference stream returned (or the host dropped)
    /// frames up to `pts` in the current run. Ignored when no run is current (the
    /// report is of a run a landing ended, or of none).
    public func reportOutput(_ pts: Int64) {
        guard hostRun, !stamp.discontinuityPending else { return }
        reportedOutput = max(reportedOutput ?? pts, pts)
    }

    /// The host did not use the last `count` packets it read (a binding's read-ahead):
    /// they are delivered again, stamped for the landing current then. Packets no
    /// longer in the window cannot be: the read position is then lost (the next read
    /// restarts at the playhead's keyframe, with DISCONTINUITY).
    /// Packets of streams switched off that host reads passed over are passed over again
    /// (switching one off ends the run, so the ones in it were passed over, never delivered).
    public func unread(_ count: Int) {
        guard count > 0 else { return }
        var at = window.cursor, left = count
        while left > 0, at > 0 {
            at -= 1
            if !hiddenFromHost(window.entries[at]) { left -= 1 }
        }
        guard hostRun, window.contiguous, left == 0, count <= runDelivered else {
            positionLost = true
            hostRun = false
            return
        }
        window.point(at: at)
        hostReachedEnd = false
        runDelivered -= count
        if runDelivered == 0 {
            // The run's first packet goes back: it is the DISCONTINUITY one again.
            stamp.restored()
            hostRun = false
        }
    }
}
