/// The header of one demuxed packet: what landing resolution looks at.
public struct PacketHeader: Hashable, Sendable {
    public var stream: Int32
    public var pts: Int64?
    public var dts: Int64?
    public var isKey: Bool
    /// Flagged discard by the demuxer (edit-list pre-roll, priming): decodable
    /// from, never a landing.
    public var isDiscard: Bool
    /// The packet's byte offset in the file, when the demuxer knows it.
    public var pos: Int64?
    public init(stream: Int32, pts: Int64?, dts: Int64?, isKey: Bool, isDiscard: Bool = false, pos: Int64? = nil) {
        self.stream = stream; self.pts = pts; self.dts = dts; self.isKey = isKey; self.isDiscard = isDiscard
        self.pos = pos
    }
}

/// What the landing resolver needs from a demuxer, and nothing more. The
/// FFmpeg engine implements it over libavformat (and the HLS engine through
/// its segments' engines); the core tests implement it with scripted packets.
///
/// The demuxer keeps a window of packets in decode order: the resolver reads
/// a packet (`next`), then either keeps it at the window's end or drops it.
public protocol LandingDemuxer: AnyObject {
    var referenceStream: Int32 { get }
    /// Positions before a keyframe at or before `ticks` of the reference
    /// stream, as a backward timestamp seek does. May land late, early or on a
    /// non-key packet: the resolver checks. False when the demuxer refused.
    func seek(toTicks ticks: Int64) throws -> Bool
    /// Back to the first packet.
    func rewind() throws
    /// Empties the window (before a new positioning).
    func resetWindow()
    /// Reads the next packet and returns its header; nil at the end.
    func next() throws -> PacketHeader?
    /// Keeps the packet just read at the window's end.
    func keep()
    /// Drops the packet just read.
    func drop()
    /// Positions so that the next reference-stream packet is the keyframe the
    /// container's index lists at `timestamp` (see KeyframeIndex). False when
    /// the demuxer refused.
    func seek(toIndexTimestamp timestamp: Int64) throws -> Bool
    /// Whether `seek(toByte:)` is the better positioning: timestamp seeks land
    /// imprecisely (MPEG-TS/PS resync near a dts, on a non-key packet) while a
    /// byte seek lands on the first packet that starts at or after the offset.
    var positionsByByte: Bool { get }
    /// Positions so that the next packets are those that start at or after
    /// byte `offset` of the file (packets cut by the offset are skipped).
    /// False when the demuxer refused or cannot seek by bytes.
    func seek(toByte offset: Int64) throws -> Bool
}

extension LandingDemuxer {
    public var positionsByByte: Bool { false }
    public func seek(toByte offset: Int64) throws -> Bool { false }
}

/// One packet of the reference stream the resolver noted: its pts and its
/// index in the demuxer's window.
public struct LandingMark: Hashable, Sendable {
    public var pts: Int64
    public var index: Int
    public var key: Bool
    public init(pts: Int64, index: Int, key: Bool) { self.pts = pts; self.index = index; self.key = key }
}

/// What a scan found around the target.
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

/// Decides every landing. Engines position and read; this decides.
///
/// See docs/ARCHITECTURE.md, "Resolving a landing".
public enum LandingResolver {
    /// The landing when the frame grid already knows the frames around the
    /// target: the frame to land on, and the keyframe it decodes from.
    public struct Known: Hashable, Sendable {
        public var pts: Int64
        public var key: FrameGrid.Keyframe
        public var resolution: LandingResolution
        public var covers: Bool
    }

    public static func fromGrid(_ request: LandingRequest, grid: FrameGrid) -> Known? {
        let T = request.targetFloor
        guard let f = grid.coveringFrame(T), let fk = grid.keyframe(for: f) else { return nil }
        guard request.wantsKeyframe else { return Known(pts: f, key: fk, resolution: .coveringFrame, covers: true) }
        guard let w = request.keyframeWindow else {
            return Known(pts: f, key: fk, resolution: .fallbackCoveringFrame, covers: true)
        }
        guard let (before, after) = grid.keyframes(in: w.lowerBound, w.upperBound, around: T) else { return nil }
        guard let pick = LandingPolicy.nearestKeyframe(target: request.target, before: before?.pts, after: after?.pts) else {
            return Known(pts: f, key: fk, resolution: .fallbackCoveringFrame, covers: true)
        }
        let k = pick == before?.pts ? before! : after!
        return Known(pts: k.pts, key: k, resolution: .keyframe, covers: k.pts == f)
    }

    /// The at-or-after landing (`LandingRequest.atOrAfter`) when the grid knows the frames
    /// around the target: the frame at `targetCeil` when there is one, else the frame after
    /// the one covering it (the grid's segments are complete, so no frame lies between).
    /// Its interval holds the target only when it starts exactly at the target.
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

    /// Chooses the landing from a scan.
    public static func decide(_ request: LandingRequest, scan: LandingScan) -> LandingDecision {
        let exact = scan.best ?? scan.firstKey
        var landing = exact
        var resolution = LandingResolution.coveringFrame
        if request.wantsKeyframe {
            let before = scan.lastKeyLE.flatMap { k in request.keyframeWindow.map { k.pts >= $0.lowerBound } == true ? k : nil }
            if let p = LandingPolicy.nearestKeyframe(target: request.target, before: before?.pts, after: scan.firstKeyAfter?.pts) {
                landing = p == before?.pts ? before! : scan.firstKeyAfter!
                resolution = .keyframe
            } else {
                resolution = .fallbackCoveringFrame
            }
        }
        let covers = scan.best != nil && landing.pts == exact.pts
        // Decoding starts at the keyframe the landed frame needs.
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

    /// Seeks back from `T` to a keyframe at or before it and reads in decode
    /// order until the landing is certain (engineering notes: never stop at the
    /// first pts > T). Leaves the packets from that keyframe in the window.
    ///
    /// - `firstFrame`: the first frame's pts (a seek at or before it rewinds).
    /// - `settleCount`: frames past the target to read when packets carry no
    ///   dts (the reorder depth + 1).
    /// - `bytesPerTick`: the media's bytes per tick (from the frame grid or the
    ///   file's size and duration), for demuxers that position by byte
    ///   (`positionsByByte`, MPEG-TS): when the timestamp seek lands past the
    ///   keyframe `T` needs (it resyncs near `T`'s dts, mid-GOP), the scan
    ///   steps back by bytes from the first reference packet it read, each
    ///   retry reading only up to where the previous one started, instead of
    ///   backing off in time (each time retry reads on to the next keyframe,
    ///   past `T`). nil: time backoff only.
    /// - `keyframeGap`: the typical keyframe interval when known: the first
    ///   byte step is a quarter of it (else one second), growing (see `costlySeeks`). With
    ///   `keyframeAnchor` (a keyframe's pts the grid knows) too, the first step
    ///   aims an eighth of the interval before the keyframe that a fixed
    ///   interval from the anchor predicts, counted from the dts of the first
    ///   reference packet read.
    /// - `costlySeeks`: each positioning costs a round trip (a remote input):
    ///   the byte step doubles. Else it grows by a quarter (doubling after a
    ///   dozen attempts, when the rate is far off): a miss costs only
    ///   the bytes it newly covers, and the hit overshoots the keyframe by at
    ///   most a quarter of the distance (measured on a GOP-250 H.264 TS: median
    ///   190 packets per cold exact seek, against 294 doubling).
    public static func scan(_ d: LandingDemuxer, target T: Int64, exactTarget: Rational? = nil,
                            window kw: ClosedRange<Int64>?, wantsKeyframe: Bool, firstFrame: Int64,
                            ticksPerSecond: Int64, settleCount: Int, bytesPerTick: Double? = nil,
                            keyframeGap: Int64? = nil, keyframeAnchor: Int64? = nil, costlySeeks: Bool = false,
                            shouldStop: () -> Bool) throws -> LandingScan {
        let target = exactTarget ?? Rational(T)
        let ref = d.referenceStream
        var backoff: Int64 = 0
        // Byte stepping: usable rate, demuxer that positions by byte.
        let rate: Double? = bytesPerTick.flatMap { d.positionsByByte && $0 > 0 && $0.isFinite ? $0 : nil }
        let firstStepTicks = max(1, keyframeGap.map { max(ticksPerSecond / 4, $0 / 4) } ?? ticksPerSecond)
        /// The byte offset the keyframe must start before (the first reference
        /// packet the timestamp seek landed on, then each retry's start).
        var byteLimit: Int64?
        var byteStep: Int64 = 0
        var attempt = 0
        while attempt < 40 {
            defer { attempt += 1 }
            var byteAim: Int64?
            var atStart: Bool
            d.resetWindow()
            if let lim = byteLimit, let r = rate, attempt < 30 {
                let span = Double(byteStep) * r
                let aim = span.isFinite && span < Double(lim) ? lim &- max(188, Int64(span.rounded(.up))) : 0
                atStart = aim <= 0
                if atStart {
                    try d.rewind()
                } else {
                    guard try d.seek(toByte: aim) else {
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
                atStart = seekTS <= firstFrame || attempt >= 30
                if atStart {
                    try d.rewind()
                } else if try !d.seek(toTicks: seekTS) {
                    backoff = max(ticksPerSecond, backoff &* 2)
                    continue
                }
            }
            var keyFound = false, needBackoff = false, eof = false
            var best: LandingMark?, lastKeyLE: LandingMark?, firstKeyAfter: LandingMark?, firstKey: LandingMark?
            var afterCount = 0, kept = 0
            var limit: Int64 = wantsKeyframe ? max(T, kw?.upperBound ?? T) : T
            // The first reference packet after a timestamp seek: where a byte
            // step back starts from.
            var firstRefPos: Int64?, firstRefDTS: Int64?, sawRef = false
            var tooLate = false
            scan: while true {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let h = try d.next() else { eof = true; break }
                if h.stream != ref {
                    if keyFound { d.keep(); kept += 1 } else { d.drop() }
                    continue
                }
                let pts = h.pts ?? h.dts
                if !keyFound {
                    if byteAim == nil && !atStart && !sawRef { sawRef = true; firstRefPos = h.pos; firstRefDTS = h.dts ?? pts }
                    // A retry by bytes: a reference packet at or past where the
                    // previous attempt started, with no keyframe before it.
                    if byteAim != nil, let p = h.pos, let lim = byteLimit, p >= lim { d.drop(); tooLate = true; break scan }
                    guard h.isKey, let kp = pts else {
                        d.drop()
                        // Past the target with no keyframe: the keyframe is
                        // before this attempt's start.
                        if rate != nil, byteAim == nil, !atStart, firstRefPos != nil,
                           let t = h.dts ?? pts, t > T { tooLate = true; break scan }
                        continue
                    }
                    if kp > T && !atStart { d.drop(); needBackoff = true; break scan }
                    keyFound = true
                    firstKey = LandingMark(pts: kp, index: 0, key: true)
                }
                let index = kept
                d.keep(); kept += 1
                if !h.isDiscard, let t = pts {
                    if t <= T {
                        if best == nil || t > best!.pts { best = LandingMark(pts: t, index: index, key: h.isKey) }
                        if h.isKey && (lastKeyLE == nil || t > lastKeyLE!.pts) {
                            lastKeyLE = LandingMark(pts: t, index: index, key: true)
                        }
                    } else if h.isKey, wantsKeyframe, let w = kw, t <= w.upperBound {
                        if firstKeyAfter == nil || t < firstKeyAfter!.pts {
                            firstKeyAfter = LandingMark(pts: t, index: index, key: true)
                        }
                    }
                }
                if wantsKeyframe, let w = kw {
                    // Keyframe pts only grow in decode order: the first one after
                    // the target is the nearest after it.
                    if firstKeyAfter != nil, h.dts.map({ $0 > T }) ?? true { break scan }
                    if let k = lastKeyLE, k.pts >= w.lowerBound {
                        // A later keyframe only wins if strictly nearer.
                        limit = max(T, min(limit, LandingPolicy.lastTickStrictlyNearer(than: k.pts, target: target)))
                    }
                }
                if let dt = h.dts {
                    if dt > limit { break scan }
                } else if let t = pts, t > limit {
                    afterCount += 1
                    if afterCount >= settleCount { break scan }
                }
            }
            if tooLate || (needBackoff || (!keyFound && eof && !atStart)) {
                if rate != nil, let aim = byteAim {
                    // Nothing usable in [aim, limit): retry from further back,
                    // reading only up to `aim`.
                    byteLimit = aim
                    byteStep = byteStep > Int64.max / 4 ? Int64.max / 2
                        : (costlySeeks || attempt >= 12 ? byteStep &* 2 : max(byteStep &+ 1, byteStep &+ byteStep / 4))
                    continue
                }
                if rate != nil, byteAim == nil, !atStart, let p = firstRefPos, p > 0 {
                    // The timestamp seek landed past the keyframe: step back
                    // by bytes from the first reference packet read.
                    byteLimit = p
                    byteStep = predictedStep(target: T, from: firstRefDTS, gap: keyframeGap, anchor: keyframeAnchor)
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

    /// Ticks from `dts` back to an eighth of `gap` before the last keyframe at
    /// or before `T` that keyframes every `gap` ticks from `anchor` predict.
    /// nil without a gap, an anchor or a dts, or when it does not fit.
    static func predictedStep(target T: Int64, from dts: Int64?, gap: Int64?, anchor: Int64?) -> Int64? {
        guard let d = dts, let g = gap, g > 0, let a = anchor else { return nil }
        let diff = Int128(T) - Int128(a)
        var n = diff / Int128(g)
        if diff < 0 && diff % Int128(g) != 0 { n -= 1 }
        let k = Int128(a) + n * Int128(g)
        let step = Int128(d) - k + Int128(g / 8)
        guard step > 0, step <= Int128(Int64.max / 4) else { return nil }
        return Int64(step)
    }

    // MARK: From the container's keyframe index

    /// A nearest-keyframe landing from the container's index, reading O(1)
    /// packets: the presentation times of the keyframes around the target are
    /// learned (one positioning and a few packets each) and cached in `index`;
    /// then the demuxer is positioned at the chosen keyframe, and reads on only
    /// as far as the target to learn whether that keyframe covers it.
    ///
    /// nil when the index does not decide (no keyframe inside the window: the
    /// caller resolves the covering frame by a scan) or the demuxer did not
    /// land where the index said (the caller scans).
    /// The index entry a nearest-keyframe request lands on, and its pts, or nil
    /// (no landable keyframe in the window, or `pts` could not give a time it
    /// needs). The one rule for both index paths (`resolveFromIndex`, which learns
    /// pts by positioning, and `fromIndexInMemory`, which only knows them): it asks
    /// `pts` for the entries around the target, and for the next entry only when
    /// it could win (inside the window, strictly nearer than the one before).
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
                bound = min(bound, LandingPolicy.lastTickStrictlyNearer(than: b.pts, target: target))
            }
            if index.entries[k].timestamp <= bound {
                guard let p = try pts(k) else { return nil }
                after = (k, p)
            }
        }
        let b = before.flatMap { $0.pts >= w.lowerBound ? $0 : nil }
        let a = after.flatMap { $0.pts <= w.upperBound ? $0 : nil }
        guard let pick = LandingPolicy.nearestKeyframe(target: target, before: b?.pts, after: a?.pts) else { return nil }
        return pick == b?.pts ? b : a
    }

    ///
    /// Each pts still unknown costs a positioning, and the demuxer must end at the chosen
    /// keyframe: learned in the wrong order, the choice costs one more (the 3rd, when the
    /// keyframe learned first wins). So the rule first runs on predicted pts (known ones,
    /// else the timestamp plus the pts - timestamp of the keyframe learned last, or before
    /// any, `predictedOffset`: constant in a regular stream): the entries it looks at are learned
    /// first and its pick last. The choice itself is made on learned pts only, so a wrong
    /// prediction costs a positioning, never a landing.
    public static func resolveFromIndex(_ request: LandingRequest, index: inout KeyframeIndex, demuxer d: LandingDemuxer,
                                        settleCount: Int, predictedOffset: Int64? = nil,
                                        shouldStop: () -> Bool) throws -> LandingDecision? {
        guard request.wantsKeyframe, request.keyframeWindow != nil, index.count > 0 else { return nil }
        let T = request.targetFloor
        let target = request.target
        var positioned: Int?
        /// Positions at entry i; leaves the window starting at its packet.
        func position(_ i: Int) throws -> Int64? {
            positioned = nil
            d.resetWindow()
            guard try d.seek(toIndexTimestamp: index.entries[i].timestamp) else { return nil }
            for _ in 0..<4096 {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let h = try d.next() else { return nil }
                guard h.stream == d.referenceStream else { d.drop(); continue }
                let e = index.entries[i]
                // The first reference packet must be the indexed keyframe.
                let p = h.pts ?? h.dts
                let matches = e.pts != nil ? p == e.pts : (h.dts == nil || h.dts == e.timestamp)
                guard h.isKey, let pts = p, matches, pts >= e.timestamp else { d.drop(); return nil }
                d.keep()
                index.setPTS(pts, at: i)
                positioned = i
                return pts
            }
            return nil
        }
        func pts(_ i: Int) throws -> Int64? {
            if let p = index.entries[i].pts { return p }
            return try position(i)
        }
        if let offset = index.learnedOffset ?? predictedOffset {
            var looked: [Int] = []
            let guess = nearestIndexKeyframe(request, index: index) { i in
                if !looked.contains(i) { looked.append(i) }
                return index.entries[i].pts ?? index.entries[i].timestamp &+ offset
            }
            for i in looked where i != guess?.i && index.entries[i].pts == nil {
                guard try position(i) != nil else { return nil }
            }
            if let g = guess, index.entries[g.i].pts == nil {
                guard try position(g.i) != nil else { return nil }
            }
        }
        guard let chosen = try nearestIndexKeyframe(request, index: index, pts: pts) else { return nil }
        if positioned != chosen.i {
            guard try position(chosen.i) == chosen.pts else { return nil }
        }
        // Does the keyframe cover the target? Only frames decoded before a
        // dts past T can present in (K, T].
        var covers = chosen.pts <= T
        if covers && Rational(chosen.pts) < target {
            var pastTarget = 0
            while true {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let h = try d.next() else { break }
                d.keep()
                guard h.stream == d.referenceStream else { continue }
                if !h.isDiscard, let t = h.pts ?? h.dts, t > chosen.pts, t <= T { covers = false; break }
                if let dt = h.dts {
                    if dt > T { break }
                } else if let t = h.pts, t > T {
                    pastTarget += 1
                    if pastTarget >= settleCount { break }
                }
            }
        }
        return LandingDecision(pts: chosen.pts, isKeyframe: true, resolution: .keyframe, coversTarget: covers,
                               startIndex: 0)
    }

    // MARK: Backward, one GOP at a time

    /// Where a backward entry into the GOP before keyframe `k` starts reading:
    /// the byte offset `k.pos - back`, with `back` one typical GOP of bytes and
    /// a quarter more (a GOP's bytes vary), so that the first keyframe read is
    /// usually the one just before `k`. nil when the grid cannot estimate it
    /// (fewer than two keyframe positions known and no `fallbackBytesPerTick`).
    public static func backwardByteSpan(before k: FrameGrid.Keyframe, grid: FrameGrid, ticksPerSecond: Int64,
                                        fallbackBytesPerTick: Double?) -> Int64? {
        guard k.pos != nil else { return nil }
        guard let rate = grid.bytesPerTick ?? fallbackBytesPerTick, rate > 0, rate.isFinite else { return nil }
        // The keyframe interval: the grid's typical one; before it knows two
        // keyframes, at least 1 s and at least the run known after k (all of
        // k's GOP when the run reaches the next keyframe or the end).
        let extent = grid.lastKnownFrame(around: k.pts).map { max(0, $0 &- k.pts) } ?? 0
        let gap = Double(grid.typicalKeyframeGap ?? max(ticksPerSecond, extent))
        let span = (gap * rate * 1.25).rounded(.up)
        guard span.isFinite, span < 1e15 else { return nil }
        // At least a few transport packets (188 bytes) back.
        return max(4096, Int64(span))
    }

    /// Reads the GOP that ends at keyframe `k` (the start of a run the grid
    /// already proves) without re-reading the run: positions by byte offset
    /// `back` bytes before `k`, skips to the first reference keyframe K', and
    /// reads in decode order from K' until a dts at or past `k.pts` (the frames
    /// presenting before `k` are then all read). When the first keyframe found
    /// is `k` itself or later (the offset was not far enough back), it doubles
    /// `back` and tries again, reading only up to where the previous attempt
    /// started; a K' more than one GOP back is fine (the scan then proves
    /// more). Leaves the packets from K' in the demuxer's window.
    ///
    /// nil when the demuxer cannot position by bytes, `k` has no byte
    /// position, or no earlier keyframe was found: the caller scans by
    /// timestamp instead.
    public static func scanBackward(_ d: LandingDemuxer, into k: FrameGrid.Keyframe, back firstBack: Int64,
                                    settleCount: Int, shouldStop: () -> Bool) throws -> LandingScan? {
        guard d.positionsByByte, let kpos = k.pos, kpos > 0, firstBack > 0 else { return nil }
        let ref = d.referenceStream
        let T = k.pts &- 1
        var back = firstBack
        // Reference packets start in file order: once an attempt from `aim`
        // met no keyframe before a reference packet at or past `limit`, none
        // starts in [aim, limit), so the next attempt stops at `aim`.
        var limit = kpos
        for _ in 0..<24 {
            let aim = max(0, kpos &- back)
            d.resetWindow()
            guard try d.seek(toByte: aim) else { return nil }
            var firstKey: LandingMark?, best: LandingMark?, lastKeyLE: LandingMark?
            var kept = 0, afterCount = 0, eof = false, tooLate = false
            while true {
                if shouldStop() { throw EngineError(.cancelled) }
                guard let h = try d.next() else { eof = true; break }
                if h.stream != ref {
                    if firstKey != nil { d.keep(); kept += 1 } else { d.drop() }
                    // Past k's offset with no keyframe yet: this offset is too late.
                    if firstKey == nil, let p = h.pos, p >= kpos { tooLate = true; break }
                    continue
                }
                let pts = h.pts ?? h.dts
                if firstKey == nil {
                    if let p = h.pos, p >= limit { d.drop(); tooLate = true; break }
                    guard h.isKey, let kp = pts else { d.drop(); continue }
                    if kp >= k.pts { d.drop(); tooLate = true; break }
                    firstKey = LandingMark(pts: kp, index: 0, key: true)
                }
                let index = kept
                d.keep(); kept += 1
                if !h.isDiscard, let t = pts, t <= T {
                    if best == nil || t > best!.pts { best = LandingMark(pts: t, index: index, key: h.isKey) }
                    if h.isKey && (lastKeyLE == nil || t > lastKeyLE!.pts) {
                        lastKeyLE = LandingMark(pts: t, index: index, key: true)
                    }
                }
                if let dt = h.dts {
                    if dt > T { break }
                } else if let t = pts, t > T {
                    afterCount += 1
                    if afterCount >= settleCount { break }
                }
            }
            if let k0 = firstKey {
                return LandingScan(firstKey: k0, best: best, lastKeyLE: lastKeyLE, firstKeyAfter: nil, reachedEnd: eof)
            }
            // Nothing before k from the start of the file: k is the first keyframe.
            if aim == 0 { return nil }
            if !tooLate && !eof { return nil }
            limit = aim
            back = back > Int64.max / 4 ? Int64.max / 2 : back &* 2
        }
        return nil
    }

    // MARK: Steps that cannot happen

    /// Whether a step of `count` frames from the frame at `from` provably has
    /// no landing, without reading: frames have distinct pts inside the
    /// seekable range `range`, so at most `range.upperBound - from` follow it
    /// and `from - range.lowerBound` precede it; and no more than
    /// `frameCount - 1` (the container's exact frame count, when known).
    public static func stepIsImpossible(count: Int, forward: Bool, from: Int64, range: ClosedRange<Int64>,
                                        frameCount: Int64? = nil) -> Bool {
        guard count > 0 else { return false }
        let ticks = forward ? Int128(range.upperBound) - Int128(from) : Int128(from) - Int128(range.lowerBound)
        if Int128(count) > max(0, ticks) { return true }
        if let n = frameCount, n > 0, Int128(count) > Int128(n) - 1 { return true }
        return false
    }
}
