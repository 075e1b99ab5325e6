/// What the engine knows of the reference stream's presentation-order frame
/// grid, learned from packet timestamps as they are read.
///
/// The grid is a set of segments. A segment starts at a keyframe K and claims
/// completeness up to `end`: every frame whose pts lies in [K.pts, end] is in
/// it. That holds for a scan that read in decode order from K until a dts past
/// `end`, because a frame's dts never exceeds its pts and no frame presenting
/// at or after K decodes before it.
///
/// Memory: 8 bytes per frame plus 32 bytes per keyframe (its pts, dts, byte
/// position and landability), in arrays per segment; the whole grid is capped at `maxFrames` (default 4,194,304 frames,
/// 32 MiB), past which it is cleared and rebuilt from later reads.
public struct FrameGrid {
    public struct Keyframe: Hashable, Sendable {
        public var pts: Int64
        // Stored without optionals (32 bytes, not 40): Int64.min is no dts,
        // a negative byte position is unknown.
        private var dtsStorage: Int64
        private var posStorage: Int64
        /// False for a keyframe flagged discard (edit-list pre-roll): decoding
        /// may start there, but it is never a landing.
        public var landable: Bool = true
        public var dts: Int64? {
            get { dtsStorage == Int64.min ? nil : dtsStorage }
            set { dtsStorage = newValue ?? Int64.min }
        }
        /// The byte offset of the keyframe's packet in the file (AVPacket.pos),
        /// when known: demuxers whose timestamp seeks land imprecisely (MPEG-TS)
        /// are positioned there by byte offset instead.
        public var pos: Int64? {
            get { posStorage < 0 ? nil : posStorage }
            set { posStorage = newValue.map { max(-1, $0) } ?? -1 }
        }
        public init(pts: Int64, dts: Int64?, pos: Int64? = nil, landable: Bool = true) {
            self.pts = pts; self.dtsStorage = dts ?? Int64.min; self.posStorage = pos.map { max(-1, $0) } ?? -1
            self.landable = landable
        }
    }

    struct Segment {
        var start: Int64
        var end: Int64
        var frames: [Int64]      // sorted, unique
        var keys: [Keyframe]     // sorted by pts
    }

    private(set) var segments: [Segment] = []
    public let maxFrames: Int
    public private(set) var frameCount = 0

    public init(maxFrames: Int = 4_194_304) { self.maxFrames = maxFrames }

    public static let bytesPerFrame = 8
    public static let bytesPerKeyframe = MemoryLayout<Keyframe>.stride

    /// Approximate bytes held.
    public var byteCount: Int {
        segments.reduce(0) { $0 + $1.frames.count * Self.bytesPerFrame + $1.keys.count * Self.bytesPerKeyframe }
    }

    public mutating func removeAll() { segments.removeAll(); frameCount = 0 }

    /// Records a scan: `frames` (pts, key, dts) read from keyframe `start`,
    /// complete up to `end`, and `entryPoints`: discard-flagged keyframes
    /// (decodable from, never landed on).
    /// `keyPositions` maps a keyframe's pts to its byte position, when known.
    public mutating func record(start: Int64, end: Int64, frames: [(pts: Int64, key: Bool, dts: Int64?)],
                                entryPoints: [Keyframe] = [], keyPositions: [Int64: Int64] = [:]) {
        guard end >= start else { return }
        var pts = frames.map(\.pts)
        pts.sort()
        var uniq: [Int64] = []
        uniq.reserveCapacity(pts.count)
        for p in pts where uniq.last != p { uniq.append(p) }
        var keys = frames.filter(\.key).map { Keyframe(pts: $0.pts, dts: $0.dts, pos: keyPositions[$0.pts]) }
        keys += entryPoints.map { Keyframe(pts: $0.pts, dts: $0.dts, pos: $0.pos, landable: false) }
        keys.sort { $0.pts < $1.pts }
        // Fast path (the background index, which records overlapping runs in
        // order): the run starts inside (or just after) one segment and does
        // not reach the next. Extend it in place: O(overlap + run), not
        // O(segment).
        if let i = segments.lastIndex(where: { $0.start <= start }), Int128(start) <= Int128(segments[i].end) + 1,
           i + 1 == segments.count || Int128(end) + 1 < Int128(segments[i + 1].start) {
            let before = segments[i].frames.count
            Self.mergeTail(&segments[i].frames, uniq)
            Self.mergeTailKeys(&segments[i].keys, keys)
            segments[i].end = max(segments[i].end, end)
            frameCount += segments[i].frames.count - before
            if frameCount > maxFrames { removeAll() }
            return
        }
        var new = Segment(start: start, end: end, frames: uniq, keys: keys)
        // Merge with every segment it touches: [a, b] and [c, d] merge when they
        // overlap or abut (no tick between them).
        var i = 0
        while i < segments.count {
            let s = segments[i]
            if Int128(s.start) <= Int128(new.end) + 1 && Int128(new.start) <= Int128(s.end) + 1 {
                frameCount -= s.frames.count
                new = Self.merge(new, s)
                segments.remove(at: i)
            } else {
                i += 1
            }
        }
        let at = segments.firstIndex { $0.start > new.start } ?? segments.count
        segments.insert(new, at: at)
        frameCount += new.frames.count
        if frameCount > maxFrames { removeAll() }
    }

    /// Merges sorted unique `b` into sorted unique `a` in place, touching only
    /// the part of `a` at or after b's first element.
    static func mergeTail(_ a: inout [Int64], _ b: [Int64]) {
        guard let first = b.first else { return }
        let cut = (indexLE(a, first &- 1) ?? -1) + 1
        if cut == a.count { a.append(contentsOf: b); return }
        let tail = Array(a[cut...])
        a.removeSubrange(cut...)
        var i = 0, j = 0
        while i < tail.count || j < b.count {
            let x: Int64
            if j >= b.count || (i < tail.count && tail[i] <= b[j]) { x = tail[i]; i += 1 } else { x = b[j]; j += 1 }
            if a.last != x { a.append(x) }
        }
    }

    static func mergeTailKeys(_ a: inout [Keyframe], _ b: [Keyframe]) {
        guard let first = b.first else { return }
        var cut = a.count
        while cut > 0 && a[cut - 1].pts >= first.pts { cut -= 1 }
        let tail = Array(a[cut...])
        a.removeSubrange(cut...)
        var i = 0, j = 0
        while i < tail.count || j < b.count {
            // On equal pts the existing entry wins (as in `merge`).
            let x: Keyframe
            if j >= b.count || (i < tail.count && tail[i].pts <= b[j].pts) { x = tail[i]; i += 1 } else { x = b[j]; j += 1 }
            if a.last?.pts != x.pts {
                a.append(x)
            } else if a[a.count - 1].pos == nil, let p = x.pos {
                a[a.count - 1].pos = p
            }
        }
    }

    private static func merge(_ a: Segment, _ b: Segment) -> Segment {
        var frames = a.frames + b.frames
        frames.sort()
        var uniq: [Int64] = []
        uniq.reserveCapacity(frames.count)
        for p in frames where uniq.last != p { uniq.append(p) }
        var keys = a.keys
        for k in b.keys {
            if let i = keys.firstIndex(where: { $0.pts == k.pts }) {
                if keys[i].pos == nil { keys[i].pos = k.pos }
            } else {
                keys.append(k)
            }
        }
        keys.sort { $0.pts < $1.pts }
        return Segment(start: min(a.start, b.start), end: max(a.end, b.end), frames: uniq, keys: keys)
    }

    private func segmentIndex(containing t: Int64) -> Int? {
        // Segments are disjoint and sorted by start.
        var lo = 0, hi = segments.count - 1, found: Int?
        while lo <= hi {
            let mid = (lo + hi) / 2
            if segments[mid].start <= t { found = mid; lo = mid + 1 } else { hi = mid - 1 }
        }
        guard let f = found, t <= segments[f].end else { return nil }
        return f
    }

    /// The frame covering t (largest pts <= t), when the grid knows it.
    public func coveringFrame(_ t: Int64) -> Int64? {
        guard let i = segmentIndex(containing: t) else { return nil }
        return Self.lastLE(segments[i].frames, t)
    }

    /// The keyframe a frame at `pts` decodes from (largest keyframe pts <= pts).
    public func keyframe(for pts: Int64) -> Keyframe? {
        guard let i = segmentIndex(containing: pts) else { return nil }
        return segments[i].keys.last { $0.pts <= pts }
    }

    /// Keyframes in [lo, hi], when the grid covers that whole range and the
    /// keyframe at or before `lo`'s segment start.
    public func keyframes(in lo: Int64, _ hi: Int64, around t: Int64) -> (before: Keyframe?, after: Keyframe?)? {
        guard let i = segmentIndex(containing: t), segments[i].end >= hi else { return nil }
        let s = segments[i]
        let before = s.keys.last { $0.landable && $0.pts <= t }
        let after = s.keys.first { $0.landable && $0.pts > t && $0.pts <= hi }
        return (before.flatMap { $0.pts >= lo ? $0 : nil }, after)
    }

    /// The n-th frame after (n > 0) or before (n < 0) the frame at `pts`, when
    /// known. `.some(nil)` means known not to exist only when `isEnd`/`isStart`
    /// say the grid reaches the item's end or start; nil means unknown.
    public func frame(from pts: Int64, offset n: Int) -> Int64? {
        guard let i = segmentIndex(containing: pts) else { return nil }
        let s = segments[i]
        guard let at = Self.indexLE(s.frames, pts), s.frames[at] == pts else { return nil }
        let j = at + n
        guard j >= 0, j < s.frames.count else { return nil }
        let f = s.frames[j]
        return f >= s.start && f <= s.end ? f : nil
    }

    /// The segment's claimed range around `pts`, if any.
    public func coverage(around pts: Int64) -> ClosedRange<Int64>? {
        segmentIndex(containing: pts).map { segments[$0].start...segments[$0].end }
    }

    static func indexLE(_ a: [Int64], _ t: Int64) -> Int? {
        var lo = 0, hi = a.count - 1, found: Int?
        while lo <= hi {
            let mid = (lo + hi) / 2
            if a[mid] <= t { found = mid; lo = mid + 1 } else { hi = mid - 1 }
        }
        return found
    }

    static func lastLE(_ a: [Int64], _ t: Int64) -> Int64? { indexLE(a, t).map { a[$0] } }
}

extension FrameGrid {
    /// The typical keyframe interval in ticks: the median gap between
    /// consecutive keyframes the grid knows, nil when it knows no two.
    public var typicalKeyframeGap: Int64? {
        var gaps: [Int64] = []
        for s in segments where s.keys.count >= 2 {
            for i in 1..<s.keys.count where s.keys[i].pts > s.keys[i - 1].pts {
                gaps.append(s.keys[i].pts &- s.keys[i - 1].pts)
            }
        }
        guard !gaps.isEmpty else { return nil }
        gaps.sort()
        return gaps[gaps.count / 2]
    }

    /// The media's bytes per tick between the first and the last keyframe
    /// with a known byte position, nil when fewer than two are known.
    public var bytesPerTick: Double? {
        var first: Keyframe?, last: Keyframe?
        for s in segments {
            for k in s.keys where k.pos != nil {
                if first == nil { first = k }
                last = k
            }
        }
        guard let a = first, let b = last, let pa = a.pos, let pb = b.pos, b.pts > a.pts, pb > pa else { return nil }
        return Double(pb - pa) / Double(b.pts &- a.pts)
    }

    /// The pts of the known keyframe nearest to `t` (any segment): the anchor
    /// from which a fixed keyframe interval predicts where the keyframes
    /// around `t` are. nil when the grid knows no keyframe.
    public func nearestKnownKeyframe(to t: Int64) -> Int64? {
        var best: Int64?
        for s in segments {
            for k in s.keys where best.map({ abs(Int128(k.pts) - Int128(t)) < abs(Int128($0) - Int128(t)) }) ?? true {
                best = k.pts
            }
        }
        return best
    }

    /// How many frames the grid knows after `pts` in the segment around it.
    public func framesKnown(after pts: Int64) -> Int? {
        guard let i = segmentIndex(containing: pts) else { return nil }
        let f = segments[i].frames
        return f.count - 1 - (Self.indexLE(f, pts) ?? -1)
    }

    /// The last frame the grid knows in the segment around `pts`.
    public func lastKnownFrame(around pts: Int64) -> Int64? {
        segmentIndex(containing: pts).flatMap { segments[$0].frames.last }
    }
}
