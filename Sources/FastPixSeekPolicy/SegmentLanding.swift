/// One HLS segment as the resolver sees it: where the playlist puts it on the
/// item timeline, in the item's ticks (the segments' time base), and which
/// timeline its pts belong to.
public struct SegmentSpan: Hashable, Sendable {
    /// EXT-X-MEDIA-SEQUENCE number.
    public var sequence: Int64
    /// EXT-X-DISCONTINUITY-SEQUENCE: segments of one domain share a pts timeline.
    public var domain: Int64
    /// The playlist's start of the segment (sum of the EXTINFs before it), item ticks.
    public var start: Rational
    public init(sequence: Int64, domain: Int64, start: Rational) {
        self.sequence = sequence; self.domain = domain; self.start = start
    }
}

/// The opening of a segment's reference stream, learned when it is first demuxed: its
/// first keyframe (in decode order) and the frames that present before it:
/// - the leading pictures of an open GOP (H.264 `open-gop`, HEVC CRA with RASL pictures),
///   read after the keyframe, which reference the previous segment's last GOP;
/// - a segment cut mid-GOP (ffmpeg's `split_by_time`): the frames read before its first
///   keyframe, or all of its frames when it has none (`keyframe` nil), which need a
///   keyframe of an earlier segment (`startsMidGOP`).
/// The segment alone cannot produce them. Ticks of whatever timeline the caller uses (pts
/// of the segment, or item ticks).
public struct SegmentHead: Hashable, Sendable {
    /// The pts of the first keyframe in decode order; nil: the segment has none.
    public var keyframe: Int64?
    /// The pts of the landable frames that present before it (all of them with no
    /// keyframe), ascending.
    public var leading: [Int64]
    /// The segment's first reference packet in decode order is no keyframe: its reader
    /// cannot land its leading frames (nothing before them in the segment decodes them).
    public var startsMidGOP: Bool
    public init(keyframe: Int64?, leading: [Int64], startsMidGOP: Bool = false) {
        self.keyframe = keyframe
        self.leading = leading.sorted()
        self.startsMidGOP = startsMidGOP || keyframe == nil
    }
    /// Whether the frame at `pts` is one of the leading frames (presents before the keyframe).
    public func isLeading(_ pts: Int64) -> Bool { keyframe.map { pts < $0 } ?? true }
    /// Whether the segment's own reader can land `pts`: not a leading frame of a segment cut mid-GOP.
    public func readerLands(_ pts: Int64) -> Bool { !(startsMidGOP && isLeading(pts)) }
    /// The same head `by` ticks later (segment pts to item ticks).
    public func shifted(by d: Int64) -> SegmentHead {
        SegmentHead(keyframe: keyframe.map { $0 &+ d }, leading: leading.map { $0 &+ d }, startsMidGOP: startsMidGOP)
    }
}

/// Where an HLS landing is across segments. Pure: the HLS engine fetches and
/// demuxes segments and asks here which one a seek or a step lands in; inside
/// a segment, `LandingRules` decide as for a file.
///
/// Times are item ticks. A segment's frames are known only once it is
/// demuxed, so they are asked for (`frames(i)`: the segment's first and last
/// frame, nil when it has none) only when the decision needs them.
///
/// See docs/ARCHITECTURE.md, "HLS".
public enum SegmentLanding {
    /// Whether `b` directly follows `a` on one pts timeline (the next media
    /// sequence number, no EXT-X-DISCONTINUITY between), so a frame of `a`
    /// can cover a target in `b`'s listed span and the two can be compared.
    public static func continues(_ a: SegmentSpan, _ b: SegmentSpan) -> Bool {
        b.sequence == a.sequence &+ 1 && b.domain == a.domain
    }

    /// The segment the playlist's times put `target` in: the last one that
    /// starts at or before it; the first when the target is before them all.
    /// Starts never decrease (EXTINF durations are not negative): a binary search, so a
    /// seek in a playlist of many segments reads a few of them (issue 18.4).
    public static func listedSegment<C: RandomAccessCollection>(for target: Rational, in segs: C) -> Int?
    where C.Element == SegmentSpan, C.Index == Int {
        guard !segs.isEmpty else { return nil }
        var lo = segs.startIndex, hi = segs.endIndex      // the first index whose start > target
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if segs[mid].start <= target { lo = mid + 1 } else { hi = mid }
        }
        return lo > segs.startIndex ? lo - 1 : 0
    }

    /// The segment whose frames hold the covering frame of `target` (the last
    /// frame at or before it), which an exact seek lands on and a keyframe
    /// seek searches around:
    /// - before the listed segment's first frame (the EXTINFs and the pts
    ///   disagree, or a gap): the previous segment, when it continues into
    ///   this one; else this segment (its first frame: nothing earlier exists
    ///   on this timeline, e.g. at the window start or after a discontinuity);
    /// - after the listed segment's last frame, with the next segment's first
    ///   frame at or before the target: the next one, when it continues.
    public static func coveringSegment<C: RandomAccessCollection>(for target: Rational, in segs: C,
                                                               frames: (Int) throws -> ClosedRange<Int64>?) rethrows -> Int?
    where C.Element == SegmentSpan, C.Index == Int {
        guard let i = listedSegment(for: target, in: segs) else { return nil }
        guard let f = try frames(i) else { return i }
        if target < Rational(f.lowerBound) {
            if i > 0 && continues(segs[i - 1], segs[i]) { return i - 1 }
            return i
        }
        if target > Rational(f.upperBound), i + 1 < segs.count, continues(segs[i], segs[i + 1]),
           let n = try frames(i + 1), Rational(n.lowerBound) <= target {
            return i + 1
        }
        return i
    }

    /// Whether a nearest-keyframe seek resolved in segment `i` must look at
    /// the next segment: it continues this one and the keyframe window reaches
    /// past this segment's last frame (`lastFrame`; nil: unknown, look).
    public static func windowReachesNext<C: RandomAccessCollection>(_ window: ClosedRange<Int64>, segment i: Int, in segs: C,
                                                                  lastFrame: Int64?) -> Bool
    where C.Element == SegmentSpan, C.Index == Int {
        guard i + 1 < segs.count, continues(segs[i], segs[i + 1]) else { return false }
        guard let l = lastFrame else { return true }
        return window.upperBound > l
    }

    /// A nearest-keyframe seek whose window spans a segment boundary: land
    /// where resolving inside the segment did (`here`), or on the next
    /// segment's first keyframe (`nextFirstKey`: in decode order, which is its
    /// first frame but for an open GOP, whose leading frames present before it). The next segment's keyframe wins only inside the window and when
    /// `here` is no keyframe (the covering-frame fallback) or is strictly
    /// farther from the target; a tie goes to the earlier, `here`.
    public enum BoundaryChoice: Hashable, Sendable { case here, next }

    public static func keyframeAcrossBoundary(target: Rational, window: ClosedRange<Int64>,
                                              here: Int64, hereIsKeyframe: Bool,
                                              nextFirstKey: Int64?) -> BoundaryChoice {
        guard let n = nextFirstKey, window.contains(n) else { return .here }
        if hereIsKeyframe && LandingRules.isBetterKeyframe(Rational(here), than: Rational(n), target: target) {
            return .here
        }
        return .next
    }

    /// A frame step that ran off its segment's end (forward) or start
    /// (backward): which segment it continues in, or why it cannot.
    public enum StepCrossing: Hashable, Sendable {
        /// Land on the first (forward) or last (backward) frame of segment `i`.
        case segment(Int)
        /// No frame that way: the first frame of the window, or the last of a VOD/ended playlist.
        case noFrame
        /// Forward past the newest published segment of a live playlist.
        case notPublished
    }

    public static func stepCrossing(from i: Int, forward: Bool, count: Int, live: Bool) -> StepCrossing {
        let j = forward ? i + 1 : i - 1
        if j >= 0 && j < count { return .segment(j) }
        return forward && live ? .notPublished : .noFrame
    }

    /// A forward step landing on `frame` (item ticks) of a live playlist whose
    /// hold-back edge is `edge`: refused when the frame lies past the edge
    /// (published, but not yet presentable by the playlist's rules).
    public static func isPastHoldBack(_ frame: Int64, forward: Bool, edge: Int64?) -> Bool {
        guard forward, let e = edge else { return false }
        return frame > e
    }

    // MARK: Open GOP across segment ends

    /// How many segments back from a landing's segment `preRollStart` looks for a keyframe.
    /// A segment cut mid-GOP with no keyframe needs the GOP of an earlier one: with a GOP
    /// of N segment durations, up to N segments back. Past this, the landing is refused.
    public static let preRollSegmentBudget = 8

    /// Where the packets of a landing on `frame` in segment `i` start.
    public enum PreRollStart: Hashable, Sendable {
        /// In segment `i`: its own first keyframe decodes the frame (or, for an open GOP's
        /// leading frame with no segment before it on its timeline, lands it as before).
        case own
        /// At the keyframe the last frame of segment `j` (< i) needs; every packet presenting
        /// before `frame` DECODE_ONLY, reading on through the segments after it into `i`.
        case segment(Int)
        /// `frame` is read before any keyframe of its segment (cut mid-GOP) and no segment
        /// with a keyframe precedes it on its timeline within `preRollSegmentBudget`
        /// (the window's start, a discontinuity, a hole): no packets produce it.
        case unreachable
    }

    /// A landing on `frame` of segment `i` whose head (`head(i)`) says it presents before the
    /// segment's first keyframe (a leading frame of an open GOP, or a frame of a segment cut
    /// mid-GOP) needs the nearest earlier segment that has a keyframe: walking back over
    /// segments that continue one another (one pts timeline) and are readable, at most
    /// `preRollSegmentBudget` of them. `head(j)` is asked for those segments only (each
    /// one demuxed on demand); nil: a hole or unknown, which ends the walk.
    public static func preRollStart<C: RandomAccessCollection>(landing frame: Int64, segment i: Int,
                                                               in segs: C, head: (Int) throws -> SegmentHead?,
                                                               readable: (Int) throws -> Bool) rethrows -> PreRollStart
    where C.Element == SegmentSpan, C.Index == Int {
        guard i >= 0, i < segs.count, let h = try head(i), h.isLeading(frame) else { return .own }
        var j = i - 1
        while j >= 0, i - j <= preRollSegmentBudget, continues(segs[j], segs[j + 1]), try readable(j) {
            guard let hj = try head(j) else { break }
            if hj.keyframe != nil { return .segment(j) }
            j -= 1
        }
        return h.startsMidGOP ? .unreachable : .own
    }

    /// The frame an exact landing on `target` (segment i's covering frame) lands on when the
    /// segment's reader cannot land it (`SegmentHead.readerLands`): the last leading frame at
    /// or before `target`. nil when the reader lands it, or no leading frame is at or before it.
    public static func coveringAtHead(target: Rational, head: SegmentHead?) -> Int64? {
        guard let h = head, h.startsMidGOP, h.keyframe.map({ target < Rational($0) }) ?? true else { return nil }
        return h.leading.last { Rational($0) <= target }
    }

    /// The first keyframe at or after the start of segment `i`: in `i` or in a later segment
    /// that continues it, with every segment between keyframe-less, at most
    /// `preRollSegmentBudget` segments on. (segment index, keyframe) or nil.
    public static func nextKeyframe<C: RandomAccessCollection>(from i: Int, in segs: C,
                                                               head: (Int) throws -> SegmentHead?) rethrows -> (Int, Int64)?
    where C.Element == SegmentSpan, C.Index == Int {
        var j = i
        while j < segs.count, j - i <= preRollSegmentBudget {
            if j > i && !continues(segs[j - 1], segs[j]) { return nil }
            guard let h = try head(j) else { return nil }
            if let k = h.keyframe { return (j, k) }
            j += 1
        }
        return nil
    }

    /// A frame step from `from`, a frame of segment `i`, at the segment's head, which the
    /// segment's reader alone cannot take (its leading frames decode from the previous
    /// segment, so its own frame grid starts at its first keyframe).
    public enum HeadStep: Hashable, Sendable {
        /// Land on this frame of segment `i` (exactly, with the pre-roll it needs).
        case frame(Int64)
        /// Not at the head: step inside segment `i` as usual.
        case inSegment
        /// Off the segment: backward from its first frame, on to the previous segment's last
        /// frame; forward from the last frame of a segment without a keyframe, to the next's first.
        case crossing
    }

    /// Forward from a leading frame: the next leading frame, else the first keyframe, else
    /// (a segment without a keyframe, from its last frame) the crossing to the next segment.
    /// Backward from the first keyframe or a leading frame: the previous leading frame,
    /// else (the first frame of the segment) the crossing to the previous segment.
    /// Anything else, or a segment without leading frames: `.inSegment`.
    public static func stepAtHead(from: Int64, forward: Bool, head: SegmentHead?) -> HeadStep {
        guard let h = head, !h.leading.isEmpty else { return .inSegment }
        if forward {
            guard h.isLeading(from) else { return .inSegment }
            if let n = h.leading.first(where: { $0 > from }) ?? h.keyframe { return .frame(n) }
            return .crossing
        }
        guard h.keyframe.map({ from <= $0 }) ?? true else { return .inSegment }
        if let p = h.leading.last(where: { $0 < from }) { return .frame(p) }
        return .crossing
    }

    /// An at-or-after landing whose target lies among a segment's leading frames (at or
    /// before its first keyframe): the first of the leading frames and the keyframe at or
    /// after it, which the segment's reader alone cannot step to. nil when the target is
    /// past the keyframe or the segment has no leading frames (its reader lands it), or past
    /// the last frame of a segment without a keyframe (the next segment's first frame).
    public static func atOrAfterAtHead(target: Rational, head: SegmentHead?) -> Int64? {
        guard let h = head, !h.leading.isEmpty, h.keyframe.map({ target <= Rational($0) }) ?? true else { return nil }
        return h.leading.first { Rational($0) >= target } ?? h.keyframe
    }

    /// A nearest-keyframe seek whose target lies among the leading frames of a segment
    /// (before its first keyframe, `firstKey`; with none, the first keyframe of a later
    /// segment, `nextKeyframe`; nil: none): the keyframes around it are the last one of the
    /// pre-roll segment (`preRollStart`) at or before the target (`before`, nil when none is
    /// in the window) and `firstKey` after it. The nearer one inside `window` wins, a tie going to
    /// the earlier; with neither, the covering frame (a leading frame, landed with its pre-roll).
    public enum LeadingKeyframeChoice: Hashable, Sendable { case before, firstKey, covering }

    public static func keyframeAtLeading(target: Rational, window: ClosedRange<Int64>, before: Int64?,
                                         firstKey: Int64?) -> LeadingKeyframeChoice {
        let b = before.flatMap { window.contains($0) ? $0 : nil }
        let a = firstKey.flatMap { window.contains($0) ? $0 : nil }
        switch (b, a) {
        case (nil, nil): return .covering
        case (.some, nil): return .before
        case (nil, .some): return .firstKey
        case (.some(let b), .some(let a)):
            return LandingRules.isBetterKeyframe(Rational(a), than: Rational(b), target: target) ? .firstKey : .before
        }
    }
}
