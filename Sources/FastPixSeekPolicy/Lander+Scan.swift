/// The lander's three reading loops, over the seam and into the packet window: the
/// forward scan around a target, the nearest keyframe from the container's index, and
/// the backward byte scan into the GOP before a proven run. Each reads the window's
/// entries (`PacketWindow.Entry`: the demuxer's header, the pts after priming, whether
/// it can be a landing), keeps the packets from a keyframe (`window.append`) and lets
/// the others go (`Seam.release`). What they find is decided by `LandingRules`; every
/// bound is one of `Lander.Budget`'s.
extension Lander {
    // MARK: The forward scan

    /// Seeks back from `T` to a keyframe at or before it and reads in decode order until
    /// the landing is certain (never stop at the first pts > T). Leaves the packets from
    /// that keyframe in the window (the caller marks and records it, `scanFrom`).
    ///
    /// - `firstFrame`: the first frame's pts (a seek at or before it rewinds).
    /// - `bytesPerTick`: the media's bytes per tick, where the demuxer positions by byte
    ///   (`DemuxerFacts.positionsByByte`, MPEG-TS): when the timestamp seek lands past the
    ///   keyframe `T` needs (it resyncs near `T`'s dts, mid-GOP), the scan steps back by
    ///   bytes from the first reference packet it read, each retry reading only up to where
    ///   the previous one started, instead of backing off in time (each time retry reads on
    ///   to the next keyframe, past `T`). nil: time backoff only.
    /// - `keyframeGap`: the typical keyframe interval when known: the first byte step is a
    ///   quarter of it (else one second). With `keyframeAnchor` (a keyframe the grid knows)
    ///   too, the first step aims an eighth of the interval before the keyframe a fixed
    ///   interval from the anchor predicts (`predictedStep`).
    /// - The byte step doubles where each positioning costs a round trip
    ///   (`DemuxerFacts.costlySeeks`); else it grows by a quarter (doubling after
    ///   `Budget.gentleByteSteps`): a miss costs only the bytes it newly covers, and the hit
    ///   overshoots the keyframe by at most a quarter of the distance (measured on a GOP-250
    ///   H.264 TS: median 190 packets per cold exact seek, against 294 doubling).
    func scan(target T: Int64, exactTarget: Rational? = nil, window kw: ClosedRange<Int64>?, wantsKeyframe: Bool,
              firstFrame: Int64, bytesPerTick: Double? = nil, keyframeGap: Int64? = nil, keyframeAnchor: Int64? = nil,
              _ s: Seam, shouldStop: () -> Bool) throws -> LandingScan {
        let target = exactTarget ?? Rational(T)
        let ticksPerSecond = facts.ticksPerSecond
        var backoff: Int64 = 0
        // Byte stepping: usable rate, demuxer that positions by byte.
        let rate: Double? = bytesPerTick.flatMap { facts.positionsByByte && $0 > 0 && $0.isFinite ? $0 : nil }
        let firstStepTicks = max(1, keyframeGap.map { max(ticksPerSecond / 4, $0 / 4) } ?? ticksPerSecond)
        /// The byte offset the keyframe must start before (the first reference packet the
        /// timestamp seek landed on, then each retry's start).
        var byteLimit: Int64?
        var byteStep: Int64 = 0
        var attempt = 0
        while attempt < Budget.scanAttempts {
            defer { attempt += 1 }
            let fromStart = attempt >= Budget.scanAttemptsBeforeStart
            var byteAim: Int64?
            var atStart: Bool
            clearWindow(s)
            if let lim = byteLimit, let r = rate, !fromStart {
                let span = Double(byteStep) * r
                let aim = span.isFinite && span < Double(lim) ? lim &- max(Budget.minimumByteStep, Int64(span.rounded(.up))) : 0
                atStart = aim <= 0
                if atStart {
                    _ = try move(s, .start)
                } else {
                    guard try move(s, .byte(aim)) else {
                        // Byte seeks refused: back to time backoff.
                        byteLimit = nil
                        backoff = max(ticksPerSecond, backoff &* 2)
                        continue
                    }
                    byteAim = aim
                }
            } else {
                byteLimit = nil
                let seekTS = T &- backoff
                atStart = seekTS <= firstFrame || fromStart
                if atStart {
                    _ = try move(s, .start)
                } else if try !move(s, .ticks(seekTS)) {
                    backoff = max(ticksPerSecond, backoff &* 2)
                    continue
                }
            }
            var keyFound = false, needBackoff = false, eof = false
            var best: LandingMark?, lastKeyLE: LandingMark?, firstKeyAfter: LandingMark?, firstKey: LandingMark?
            var afterCount = 0
            var limit: Int64 = wantsKeyframe ? max(T, kw?.upperBound ?? T) : T
            // The first reference packet after a timestamp seek: where a byte step back starts from.
            var firstRefPos: Int64?, firstRefDTS: Int64?, sawRef = false
            var tooLate = false
            scan: while true {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let e = try read(s) else { eof = true; break }
                let h = e.header
                if h.stream != ref {
                    if keyFound { window.append(e) } else { s.release(e.packet) }
                    continue
                }
                let pts = e.presents
                if !keyFound {
                    if byteAim == nil && !atStart && !sawRef { sawRef = true; firstRefPos = h.pos; firstRefDTS = h.dts ?? pts }
                    // A retry by bytes: a reference packet at or past where the previous
                    // attempt started, with no keyframe before it.
                    if byteAim != nil, let p = h.pos, let lim = byteLimit, p >= lim {
                        s.release(e.packet); tooLate = true; break scan
                    }
                    guard h.isKey, let kp = pts else {
                        s.release(e.packet)
                        // Past the target with no keyframe: the keyframe is before this attempt's start.
                        if rate != nil, byteAim == nil, !atStart, firstRefPos != nil,
                           let t = h.dts ?? pts, t > T { tooLate = true; break scan }
                        continue
                    }
                    if kp > T && !atStart { s.release(e.packet); needBackoff = true; break scan }
                    keyFound = true
                    firstKey = LandingMark(pts: kp, index: 0, key: true)
                }
                let index = window.count
                window.append(e)
                if !e.notLandable, let t = pts {
                    if t <= T {
                        if best.map({ t > $0.pts }) ?? true { best = LandingMark(pts: t, index: index, key: h.isKey) }
                        if h.isKey && (lastKeyLE.map { t > $0.pts } ?? true) {
                            lastKeyLE = LandingMark(pts: t, index: index, key: true)
                        }
                    } else if h.isKey, wantsKeyframe, let w = kw, t <= w.upperBound {
                        if firstKeyAfter.map({ t < $0.pts }) ?? true {
                            firstKeyAfter = LandingMark(pts: t, index: index, key: true)
                        }
                    }
                }
                if wantsKeyframe, let w = kw {
                    // Keyframe pts only grow in decode order: the first one after the
                    // target is the nearest after it.
                    if firstKeyAfter != nil, h.dts.map({ $0 > T }) ?? true { break scan }
                    if let k = lastKeyLE, k.pts >= w.lowerBound {
                        // A later keyframe only wins if strictly nearer.
                        limit = max(T, min(limit, LandingRules.lastTickStrictlyNearer(than: k.pts, target: target)))
                    }
                }
                if let dt = h.dts {
                    if dt > limit { break scan }
                } else if let t = pts, t > limit {
                    afterCount += 1
                    if afterCount >= facts.settleCount { break scan }
                }
            }
            if tooLate || (needBackoff || (!keyFound && eof && !atStart)) {
                if rate != nil, let aim = byteAim {
                    // Nothing usable in [aim, limit): retry from further back, reading only up to `aim`.
                    byteLimit = aim
                    byteStep = byteStep > Budget.largestSpan ? Budget.farthestSpan
                        : (facts.costlySeeks || attempt >= Budget.gentleByteSteps ? byteStep &* 2
                           : max(byteStep &+ 1, byteStep &+ byteStep / 4))
                    continue
                }
                if rate != nil, byteAim == nil, !atStart, let p = firstRefPos, p > 0 {
                    // The timestamp seek landed past the keyframe: step back by bytes from
                    // the first reference packet read.
                    byteLimit = p
                    byteStep = Self.predictedStep(target: T, from: firstRefDTS, gap: keyframeGap, anchor: keyframeAnchor)
                        ?? firstStepTicks
                    continue
                }
                byteLimit = nil
                backoff = max(ticksPerSecond, backoff &* 2)
                continue
            }
            guard keyFound, let k0 = firstKey else { throw EngineError(.invalidData) }
            return LandingScan(firstKey: k0, best: best, lastKeyLE: lastKeyLE, firstKeyAfter: firstKeyAfter,
                               reachedEnd: eof)
        }
        throw EngineError(.invalidData)
    }

    /// Ticks from `dts` back to an eighth of `gap` before the last keyframe at or before
    /// `T` that keyframes every `gap` ticks from `anchor` predict. nil without a gap, an
    /// anchor or a dts, or when it does not fit.
    static func predictedStep(target T: Int64, from dts: Int64?, gap: Int64?, anchor: Int64?) -> Int64? {
        guard let d = dts, let g = gap, g > 0, let a = anchor else { return nil }
        let diff = Int128(T) - Int128(a)
        var n = diff / Int128(g)
        if diff < 0 && diff % Int128(g) != 0 { n -= 1 }
        let k = Int128(a) + n * Int128(g)
        let step = Int128(d) - k + Int128(g / 8)
        guard step > 0, step <= Int128(Budget.largestSpan) else { return nil }
        return Int64(step)
    }

    // MARK: From the container's keyframe index

    /// A nearest-keyframe landing from the container's index, reading O(1) packets: the
    /// pts of the keyframes around the target are learned (one positioning and a few
    /// packets each) and cached in `index`; then the demuxer is positioned at the chosen
    /// keyframe (`LandingRules.nearestIndexKeyframe`), and reads on only as far as the
    /// target to learn whether that keyframe covers it. Leaves the window starting at it.
    ///
    /// nil when the index does not decide (no keyframe inside the window) or the demuxer
    /// did not land where the index said: the caller scans.
    ///
    /// Each pts still unknown costs a positioning, and the demuxer must end at the chosen
    /// keyframe: learned in the wrong order, the choice costs one more. So the rule first
    /// runs on predicted pts (known ones, else the timestamp plus the pts - timestamp of
    /// the keyframe learned last, or before any, `predictedOffset`: constant in a regular
    /// stream): the entries it looks at are learned first and its pick last. The choice
    /// itself is made on learned pts only, so a wrong prediction costs a positioning,
    /// never a landing.
    func resolveFromIndex(_ request: LandingRequest, index: inout KeyframeIndex, _ s: Seam,
                          predictedOffset: Int64? = nil, shouldStop: () -> Bool) throws -> LandingDecision? {
        guard request.wantsKeyframe, request.keyframeWindow != nil, index.count > 0 else { return nil }
        let T = request.targetFloor
        var positioned: Int?
        /// Positions at entry i; leaves the window starting at its packet.
        func positionAt(entry i: Int) throws -> Int64? {
            positioned = nil
            clearWindow(s)
            guard try move(s, .indexTimestamp(indexAim(index.entries[i].timestamp))) else { return nil }
            for _ in 0..<Budget.indexPositionPackets {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let e = try read(s) else { return nil }
                guard e.header.stream == ref else { s.release(e.packet); continue }
                let x = index.entries[i]
                // The first reference packet must be the indexed keyframe.
                let p = e.presents, dts = e.header.dts
                let matches = x.pts != nil ? p == x.pts : (dts == nil || dts == x.timestamp)
                guard e.header.isKey, let pts = p, matches, pts >= x.timestamp else { s.release(e.packet); return nil }
                window.append(e)
                index.setPTS(pts, at: i)
                positioned = i
                return pts
            }
            return nil
        }
        if let offset = index.learnedOffset ?? predictedOffset {
            var looked: [Int] = []
            let guess = LandingRules.nearestIndexKeyframe(request, index: index) { i in
                if !looked.contains(i) { looked.append(i) }
                return index.entries[i].pts ?? index.entries[i].timestamp &+ offset
            }
            for i in looked where i != guess?.i && index.entries[i].pts == nil {
                guard try positionAt(entry: i) != nil else { return nil }
            }
            if let g = guess, index.entries[g.i].pts == nil {
                guard try positionAt(entry: g.i) != nil else { return nil }
            }
        }
        let learned = try LandingRules.nearestIndexKeyframe(request, index: index) { i in
            try index.entries[i].pts ?? positionAt(entry: i)
        }
        guard let chosen = learned else { return nil }
        if positioned != chosen.i {
            guard try positionAt(entry: chosen.i) == chosen.pts else { return nil }
        }
        // Does the keyframe cover the target? Only frames decoded before a dts past T can
        // present in (K, T].
        var covers = chosen.pts <= T
        if covers && Rational(chosen.pts) < request.target {
            var pastTarget = 0
            while true {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let e = try read(s) else { break }
                window.append(e)
                guard e.header.stream == ref else { continue }
                if !e.notLandable, let t = e.presents, t > chosen.pts, t <= T { covers = false; break }
                if let dt = e.header.dts {
                    if dt > T { break }
                } else if let t = e.presents, t > T {
                    pastTarget += 1
                    if pastTarget >= facts.settleCount { break }
                }
            }
        }
        return LandingDecision(pts: chosen.pts, isKeyframe: true, resolution: .keyframe, coversTarget: covers,
                               startIndex: 0)
    }

    // MARK: Backward, one GOP at a time

    /// Where a backward entry into the GOP before keyframe `k` starts reading: the byte
    /// offset `k.pos - back`, with `back` one typical GOP of bytes and a quarter more
    /// (`Budget.backwardSpanMargin`: a GOP's bytes vary), so that the first keyframe read
    /// is usually the one just before `k`. nil when the grid cannot estimate it (fewer
    /// than two keyframe positions known and no `fallbackBytesPerTick`).
    static func backwardByteSpan(before k: FrameGrid.Keyframe, grid: FrameGrid, ticksPerSecond: Int64,
                                 fallbackBytesPerTick: Double?) -> Int64? {
        guard k.pos != nil else { return nil }
        guard let rate = grid.bytesPerTick ?? fallbackBytesPerTick, rate > 0, rate.isFinite else { return nil }
        // The keyframe interval: the grid's typical one; before it knows two keyframes,
        // at least 1 s and at least the run known after k (all of k's GOP when the run
        // reaches the next keyframe or the end).
        let extent = grid.lastKnownFrame(around: k.pts).map { max(0, $0 &- k.pts) } ?? 0
        let gap = Double(grid.typicalKeyframeGap ?? max(ticksPerSecond, extent))
        let span = (gap * rate * Budget.backwardSpanMargin).rounded(.up)
        guard span.isFinite, span < Double(Budget.largestSpan) else { return nil }
        return max(Budget.minimumBackwardSpan, Int64(span))
    }

    /// Reads the GOP that ends at keyframe `k` (the start of a run the grid already proves)
    /// without re-reading the run: positions by byte offset `back` bytes before `k`, skips
    /// to the first reference keyframe K', and reads in decode order from K' until a dts at
    /// or past `k.pts` (the frames presenting before `k` are then all read). When the first
    /// keyframe found is `k` itself or later (the offset was not far enough back), it
    /// doubles `back` and tries again, reading only up to where the previous attempt
    /// started; a K' more than one GOP back is fine (the scan then proves more). Leaves the
    /// packets from K' in the window (the caller marks and records it).
    ///
    /// nil when the demuxer cannot position by bytes, `k` has no byte position, or no
    /// earlier keyframe was found within `Budget.backwardAttempts`: the caller scans by
    /// timestamp instead.
    func scanBackward(into k: FrameGrid.Keyframe, back firstBack: Int64, _ s: Seam,
                      shouldStop: () -> Bool) throws -> LandingScan? {
        guard facts.positionsByByte, let kpos = k.pos, kpos > 0, firstBack > 0 else { return nil }
        let T = k.pts &- 1
        var back = firstBack
        // Reference packets start in file order: once an attempt from `aim` met no
        // keyframe before a reference packet at or past `limit`, none starts in
        // [aim, limit), so the next attempt stops at `aim`.
        var limit = kpos
        for _ in 0..<Budget.backwardAttempts {
            let aim = max(0, kpos &- back)
            clearWindow(s)
            guard try move(s, .byte(aim)) else { return nil }
            var firstKey: LandingMark?, best: LandingMark?, lastKeyLE: LandingMark?
            var afterCount = 0, eof = false, tooLate = false
            while true {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let e = try read(s) else { eof = true; break }
                let h = e.header
                if h.stream != ref {
                    if firstKey != nil { window.append(e) } else { s.release(e.packet) }
                    // Past k's offset with no keyframe yet: this offset is too late.
                    if firstKey == nil, let p = h.pos, p >= kpos { tooLate = true; break }
                    continue
                }
                let pts = e.presents
                if firstKey == nil {
                    if let p = h.pos, p >= limit { s.release(e.packet); tooLate = true; break }
                    guard h.isKey, let kp = pts else { s.release(e.packet); continue }
                    if kp >= k.pts { s.release(e.packet); tooLate = true; break }
                    firstKey = LandingMark(pts: kp, index: 0, key: true)
                }
                let index = window.count
                window.append(e)
                if !e.notLandable, let t = pts, t <= T {
                    if best.map({ t > $0.pts }) ?? true { best = LandingMark(pts: t, index: index, key: h.isKey) }
                    if h.isKey && (lastKeyLE.map { t > $0.pts } ?? true) {
                        lastKeyLE = LandingMark(pts: t, index: index, key: true)
                    }
                }
                if let dt = h.dts {
                    if dt > T { break }
                } else if let t = pts, t > T {
                    afterCount += 1
                    if afterCount >= facts.settleCount { break }
                }
            }
            if let k0 = firstKey {
                return LandingScan(firstKey: k0, best: best, lastKeyLE: lastKeyLE, firstKeyAfter: nil, reachedEnd: eof)
            }
            // Nothing before k from the start of the file: k is the first keyframe.
            if aim == 0 { return nil }
            if !tooLate && !eof { return nil }
            limit = aim
            back = back > Budget.largestSpan ? Budget.farthestSpan : back &* 2
        }
        return nil
    }
}
