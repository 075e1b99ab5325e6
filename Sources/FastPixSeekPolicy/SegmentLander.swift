/// The HLS landing sequence across segments, over a `SegmentSeam`: which segment a seek or
/// a step needs, which others it looks at and in which order, where the reads start. The
/// rules it applies are `SegmentLanding`'s and `HLSHoles`' (pure); inside a segment, the
/// segment's own reader (a file `Lander`, behind the seam) lands. Times are item ticks.
///
/// A seek (`resolve`):
/// 1. The covering segment (`SegmentLanding.coveringSegment`); in a hole, the first frame of
///    the next readable segment, else the last frame of the one before (`HLSHoles.landing`).
/// 2. Nearest keyframe with a window past the segment's last frame: the first keyframe of a
///    later segment on the same timeline, found before landing here (opening it cannot
///    evict the segment landed in).
/// 3. Nearest keyframe among the segment's leading frames (open GOP, cut mid-GOP): the
///    pre-roll segment's keyframe before, the first keyframe after, else the covering frame
///    (`SegmentLanding.keyframeAtLeading`).
/// 4. At or after a target among the leading frames: the next leading frame or the keyframe.
/// 5. Else the covering frame here; at or after a target past the segment's last frame, the
///    first frame of the next readable segment; a nearer keyframe from 2 wins over here.
///
/// Every landing then positions the reads (`startReads`): in its own segment, or from the
/// nearest earlier segment with a keyframe (`SegmentLanding.preRollStart`); none within the
/// budget: FPX_ERROR_INVALID_DATA.
///
/// A step (`step`) walks one frame at a time: at a segment's head by its head, inside it by
/// its reader, and off its end to the first (forward) or last (backward) frame of the next
/// readable segment that way, refusing at a live edge (`SegmentLanding.stepCrossing`,
/// `isPastHoldBack`).
///
/// See docs/ARCHITECTURE.md, "HLS".
public struct SegmentLander<Seam: SegmentSeam> {
    public let seam: Seam
    public init(_ seam: Seam) { self.seam = seam }

    // MARK: Seek

    public func resolve(_ request: LandingRequest) throws -> Landing {
        let sp = seam.spans
        guard let c = try SegmentLanding.coveringSegment(for: request.target, in: sp, frames: { try seam.frames($0) })
        else { throw EngineError(.noStream) }
        // A target in a hole lands on the first frame after it (seek.h, "Gaps").
        let i: Int
        switch try HLSHoles.landing(covering: c, count: sp.count, hole: { try seam.hole($0) }) {
        case nil: throw EngineError(.notFound)
        case .segment(let k): i = k
        case .firstFrameAfter(let k, let r): return try landPastHole(k, first: true, reason: r, seekID: request.seekID)
        case .lastFrameBefore(let k, let r): return try landPastHole(k, first: false, reason: r, seekID: request.seekID)
        }
        // A keyframe window past this segment's last frame: the next segment's first keyframe
        // may be nearer. Found before resolving here, so that opening it cannot evict this one.
        var nextFirst: (segment: Int, key: Int64)?
        if request.wantsKeyframe, let w = request.keyframeWindow,
           SegmentLanding.windowReachesNext(w, segment: i, in: sp, lastFrame: try seam.frames(i)?.upperBound) {
            // Its first keyframe (with an open GOP, its first frames are leading frames), or,
            // segments cut mid-GOP, a later one's, as far as the window reaches.
            nextFirst = try nextKeyframe(after: i, window: w).map { (segment: $0.0, key: $0.1) }
        }
        // A nearest-keyframe target among this segment's leading frames: the keyframe before
        // it is the previous segment's.
        if request.wantsKeyframe, let w = request.keyframeWindow, let h = try seam.head(i),
           case .segment(let j) = try preRollStart(landing: request.targetFloor, segment: i) {
            // The keyframe after it: the segment's own, else a later segment's (cut mid-GOP).
            let after: (segment: Int, key: Int64)?
            if let k = h.keyframe { after = (i, k) } else { after = try nextKeyframe(after: i, window: w) }
            return try resolveKeyframeAtLeading(request, window: w, segment: i, prev: j, after: after)
        }
        // At or after a target among this segment's leading frames: the next of them or the
        // keyframe (the segment's reader knows its frames from the keyframe on).
        if request.atOrAfter, let p = SegmentLanding.atOrAfterAtHead(target: request.target, head: try seam.head(i)) {
            var l = try finish(try landFrame(p, segment: i, resolution: .coveringFrame, seekID: request.seekID),
                               segment: i, seekID: request.seekID)
            l.coversTarget = Rational(p) == request.target
            return l
        }
        let here = try landCovering(request, segment: i)
        // The first frame at or after a target past this segment's last frame is the first
        // frame of the next readable segment (past any hole); with none, the landing here
        // stays (the end of the range).
        if request.atOrAfter, Rational(here.pts) < request.target,
           let after = try HLSHoles.landing(covering: i + 1, count: sp.count, hole: { try seam.hole($0) }) {
            switch after {
            case .segment(let k): return try landPastHole(k, first: true, reason: .none, seekID: request.seekID)
            case .firstFrameAfter(let k, let r): return try landPastHole(k, first: true, reason: r, seekID: request.seekID)
            case .lastFrameBefore: break
            }
        }
        if let w = request.keyframeWindow, let n = nextFirst,
           SegmentLanding.keyframeAcrossBoundary(target: request.target, window: w, here: here.pts,
                                                 hereIsKeyframe: here.resolution == .keyframe, nextFirstKey: n.key) == .next {
            var l = try finish(try seam.resolve(request.onKeyframe(n.key), segment: n.segment),
                               segment: n.segment, seekID: request.seekID)
            l.coversTarget = false
            return l
        }
        return try finish(here, segment: i, seekID: request.seekID)
    }

    /// The first keyframe of a segment after `i` on its timeline, with the segments between
    /// keyframe-less, as far as `window` reaches (a segment listed past it is not opened).
    private func nextKeyframe(after i: Int, window w: ClosedRange<Int64>) throws -> (segment: Int, key: Int64)? {
        let sp = seam.spans
        return try SegmentLanding.nextKeyframe(from: i + 1, in: sp, head: {
            Rational(w.upperBound) < sp[$0].start ? nil : try seam.head($0)
        }).map { (segment: $0.0, key: $0.1) }
    }

    /// Where the reads of a landing on frame `p` of segment `i` start (`SegmentLanding.preRollStart`).
    private func preRollStart(landing p: Int64, segment i: Int) throws -> SegmentLanding.PreRollStart {
        try SegmentLanding.preRollStart(landing: p, segment: i, in: seam.spans, head: { try seam.head($0) },
                                        readable: { try seam.hole($0) == .none })
    }

    /// A nearest-keyframe seek whose target is a leading frame of segment `i`: the pre-roll
    /// segment's (`prev`) keyframe before it, the first keyframe after it (`after`: `i`'s, or a
    /// later segment's when `i` has none), or with neither in the window the covering frame,
    /// with its pre-roll (`SegmentLanding.keyframeAtLeading`).
    private func resolveKeyframeAtLeading(_ request: LandingRequest, window w: ClosedRange<Int64>, segment i: Int,
                                          prev: Int, after: (segment: Int, key: Int64)?) throws -> Landing {
        let before = try seam.resolve(request, segment: prev)
        switch SegmentLanding.keyframeAtLeading(target: request.target, window: w,
                                                before: before.resolution == .keyframe ? before.pts : nil,
                                                firstKey: after?.key) {
        case .before:
            return try finish(before, segment: prev, seekID: request.seekID)
        case .firstKey:
            guard let a = after else { throw EngineError(.invalidData) }
            var l = try finish(try seam.resolve(request.onKeyframe(a.key), segment: a.segment),
                               segment: a.segment, seekID: request.seekID)
            l.coversTarget = false
            return l
        case .covering:
            return try finish(try landCovering(request, segment: i), segment: i, seekID: request.seekID)
        }
    }

    /// An exact landing on frame `p` of segment `i`: by the segment's reader, or, for a frame
    /// it cannot land (read before the first keyframe of a segment cut mid-GOP,
    /// `SegmentHead.readerLands`), on the frame its head lists; `startReads` then starts the
    /// packets in an earlier segment.
    private func landFrame(_ p: Int64, segment i: Int, resolution: LandingResolution, seekID: UInt64) throws -> Landing {
        if let h = try seam.head(i), !h.readerLands(p) {
            return Landing(pts: p, isKeyframe: false, resolution: resolution, coversTarget: true, packetsRead: 0)
        }
        return try seam.resolve(LandingRequest(target: Rational(p), wantsKeyframe: false, keyframeWindow: nil, seekID: seekID),
                                segment: i)
    }

    /// `request` resolved in segment `i`: by the segment's reader, or, for a target whose
    /// covering frame the reader cannot land (`SegmentLanding.coveringAtHead`), that frame.
    private func landCovering(_ request: LandingRequest, segment i: Int) throws -> Landing {
        if let p = SegmentLanding.coveringAtHead(target: request.target, head: try seam.head(i)) {
            var l = try landFrame(p, segment: i, resolution: request.wantsKeyframe ? .fallbackCoveringFrame : .coveringFrame,
                                  seekID: request.seekID)
            l.coversTarget = true
            return l
        }
        return try seam.resolve(request, segment: i)
    }

    /// An exact landing on the first (or last) frame of segment `k`, next to a hole (`reason`),
    /// or, with no hole (`.none`), the first frame of the segment after an at-or-after target.
    private func landPastHole(_ k: Int, first: Bool, reason: HoleReason, seekID: UInt64) throws -> Landing {
        guard let r = try seam.frames(k) else { throw EngineError(.noStream) }
        let p = first ? r.lowerBound : r.upperBound
        var out = try finish(try landFrame(p, segment: k, resolution: .coveringFrame, seekID: seekID),
                             segment: k, seekID: seekID)
        out.coversTarget = false
        out.pastHole = reason
        return out
    }

    /// A landing in segment `i` with its reads positioned (`startReads`).
    private func finish(_ l: Landing, segment i: Int, seekID: UInt64) throws -> Landing {
        var out = l
        let (stream, packets) = try startReads(at: l.pts, segment: i, seekID: seekID)
        out.streamPTS = stream
        out.packetsRead &+= packets
        return out
    }

    /// Points the item's reads at frame `p` of segment `i`, whose reader is positioned for
    /// it: from the segment's own keyframe, or, for a leading frame of an open GOP or a frame
    /// before the first keyframe of a segment cut mid-GOP, from the last GOP of the nearest
    /// earlier segment with a keyframe (`SegmentLanding.preRollStart`), DECODE_ONLY up to the
    /// frame; none within the budget on the frame's timeline: FPX_ERROR_INVALID_DATA.
    /// Returns `p` as the host sees it and the packets read.
    private func startReads(at p: Int64, segment i: Int, seekID: UInt64) throws -> (streamPTS: Int64, packets: UInt64) {
        let stream = try seam.positionReads(at: p, segment: i, seekID: seekID)
        switch try preRollStart(landing: p, segment: i) {
        case .own: return (stream, 0)
        case .unreachable: throw EngineError(.invalidData)
        case .segment(let j): return (stream, try seam.preRoll(from: j, landing: p, segment: i, seekID: seekID))
        }
    }

    // MARK: Step

    /// `count` frame steps from frame `from` (item ticks). `live`: a live playlist, whose
    /// forward steps stop at its newest segment (notPublished) and at `holdBackEdge`, the
    /// newest segment's end minus HOLD-BACK (pastHoldBack).
    public func step(from: Int64, forward: Bool, count: Int, seekID: UInt64, live: Bool,
                     holdBackEdge: Int64?) throws -> StepResultKind {
        let sp = seam.spans
        var fromTicks = from
        var remaining = count
        var result: StepLanding?
        var packets: UInt64 = 0
        while remaining > 0 {
            // The segment holding the playhead frame (its EXTINF span and its pts may disagree).
            guard let i = try SegmentLanding.coveringSegment(for: Rational(fromTicks), in: sp,
                                                             frames: { try seam.frames($0) }) else { return .noFrame }
            // At the segment's head (an open GOP's leading frames), the policy says where;
            // else step inside this segment as far as it goes, one frame at a time at its edges.
            let r: StepResultKind
            switch SegmentLanding.stepAtHead(from: fromTicks, forward: forward, head: try seam.head(i)) {
            case .frame(let p):
                let l = try landFrame(p, segment: i, resolution: .coveringFrame, seekID: seekID)
                r = .landed(StepLanding(pts: l.pts, packetsRead: l.packetsRead))
            case .crossing: r = .noFrame
            case .inSegment: r = try seam.step(from: fromTicks, segment: i, forward: forward, seekID: seekID)
            }
            let landedIn: Int, t: Int64
            switch r {
            case .landed(let l):
                packets &+= l.packetsRead
                if SegmentLanding.isPastHoldBack(l.pts, forward: forward, edge: holdBackEdge) {
                    return .atLiveEdge(.pastHoldBack)
                }
                landedIn = i
                t = l.pts
            case .noFrame, .atLiveEdge:
                var j: Int
                switch SegmentLanding.stepCrossing(from: i, forward: forward, count: sp.count, live: live) {
                case .segment(let k): j = k
                case .noFrame: return .noFrame
                case .notPublished: return .atLiveEdge(.notPublished)
                }
                // Holes are stepped over (seek.h, "Gaps").
                if try seam.hole(j) != .none {
                    guard let k = try HLSHoles.stepTarget(from: j, forward: forward, count: sp.count,
                                                          hole: { try seam.hole($0) }) else {
                        return forward && live ? .atLiveEdge(.notPublished) : .noFrame
                    }
                    j = k
                }
                guard let f = try seam.frames(j) else { return .noFrame }
                let p = forward ? f.lowerBound : f.upperBound
                if SegmentLanding.isPastHoldBack(p, forward: forward, edge: holdBackEdge) { return .atLiveEdge(.pastHoldBack) }
                // An exact landing on the boundary frame positions the packets too.
                packets &+= try landFrame(p, segment: j, resolution: .coveringFrame, seekID: seekID).packetsRead
                landedIn = j
                t = p
            }
            let (stream, n) = try startReads(at: t, segment: landedIn, seekID: seekID)
            packets &+= n
            result = StepLanding(pts: t, packetsRead: packets, streamPTS: stream)
            fromTicks = t
            remaining -= 1
        }
        guard let l = result else { return .noFrame }
        return .landed(l)
    }
}

extension LandingRequest {
    /// The same seek aimed exactly at keyframe `k` (item ticks): a landing on a keyframe
    /// another segment holds, found nearer than the segment's own.
    func onKeyframe(_ k: Int64) -> LandingRequest {
        var r = self
        r.target = Rational(k)
        r.keyframeWindow = k...k
        return r
    }
}
