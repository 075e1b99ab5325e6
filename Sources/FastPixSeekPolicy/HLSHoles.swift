/// HLS holes (seek.h, "Gaps"): segments that are never read, EXT-X-GAP ones and ones whose
/// download failed twice. Pure rules, tested on fake data (HLSHolesTests); the HLS engine
/// fetches and asks.

/// Why a segment download failed, as far as the hole rule cares.
public enum SegmentFailure: Hashable, Sendable {
    /// HTTP 404, or a missing local file.
    case notFound
    /// HTTP 5xx.
    case serverError
    /// Anything else (a timeout, a refused protocol, bad data, no memory, a cancel).
    case other
}

public enum HLSHoles {
    /// Whether a failed download is retried once and, failing again, makes a hole. Other
    /// failures stay errors (a timeout or a refused URL is not a hole in the stream).
    public static func makesHole(_ f: SegmentFailure) -> Bool { f != .other }

    /// Where a seek lands whose covering segment is `i`: `i` itself when it is no hole;
    /// else the first segment after it that is none (its first frame), else the last
    /// before it (its last frame). `hole(k)` says whether segment k is a hole (it may
    /// fetch to find out). Nil when every segment is a hole.
    public enum Choice: Hashable, Sendable {
        case segment(Int)
        /// The first frame of segment `index`, past the hole.
        case firstFrameAfter(index: Int, reason: HoleReason)
        /// The last frame of segment `index`: nothing readable after the hole.
        case lastFrameBefore(index: Int, reason: HoleReason)
    }

    public static func landing(covering i: Int, count: Int, hole: (Int) throws -> HoleReason) rethrows -> Choice? {
        guard i >= 0, i < count else { return nil }
        let r = try hole(i)
        if r == .none { return .segment(i) }
        var k = i + 1
        while k < count {
            if try hole(k) == .none { return .firstFrameAfter(index: k, reason: r) }
            k += 1
        }
        k = i - 1
        while k >= 0 {
            if try hole(k) == .none { return .lastFrameBefore(index: k, reason: r) }
            k -= 1
        }
        return nil
    }

    /// The segment an item starts in (seek.h, "Gaps" and "Start"): the start segment `i`
    /// (EXT-X-START's, the live edge's, or the first) when it is no hole; else the first
    /// after it that is none; else, when only holes follow (trailing holes: a live edge or
    /// an EXT-X-START among them), the last one before it. Nil when every segment is a
    /// hole. `hole(k)` is asked in that order and may fetch to find out.
    public static func startSegment(at i: Int, count: Int, hole: (Int) throws -> HoleReason) rethrows -> Int? {
        switch try landing(covering: min(max(i, 0), count - 1), count: count, hole: hole) {
        case .segment(let k)?, .firstFrameAfter(let k, _)?, .lastFrameBefore(let k, _)?: return k
        case nil: return nil
        }
    }

    /// The segment a step continues in after running off segment `from`: the next one
    /// (forward) or previous one that is no hole, skipping holes; nil when none is left
    /// in the window that way.
    public static func stepTarget(from i: Int, forward: Bool, count: Int, hole: (Int) throws -> HoleReason) rethrows -> Int? {
        var k = forward ? i + 1 : i - 1
        while k >= 0 && k < count {
            if try hole(k) == .none { return k }
            k += forward ? 1 : -1
        }
        return nil
    }
}

/// What the host is told about holes: each segment counted once, the latest named.
public struct HoleReport: Hashable, Sendable {
    public private(set) var count: UInt64 = 0
    public private(set) var lastSequence: Int64 = -1
    public private(set) var lastReason: HoleReason = .none
    private struct Key: Hashable { var playlist: Int; var sequence: Int64 }
    private var seen: Set<Key> = []

    public init() {}

    /// How many holes are remembered to be counted once (bounded by the windows: `forget`).
    public var remembered: Int { seen.count }

    /// Forgets the holes of `playlist` whose media sequence number is outside `window` (they
    /// left the playlist and cannot be met again; issue 28.8: a live item's state is bounded
    /// by its window). The count and the latest hole stay.
    public mutating func forget(playlist: Int = 0, outside window: ClosedRange<Int64>) {
        seen = seen.filter { $0.playlist != playlist || window.contains($0.sequence) }
    }

    /// Records a hole of `playlist` (0: the variant's, 1: a separate audio rendition's, whose
    /// media sequence numbers are its own); true when it is new (not counted before).
    @discardableResult
    public mutating func record(sequence: Int64, reason: HoleReason, playlist: Int = 0) -> Bool {
        guard reason != .none, seen.insert(Key(playlist: playlist, sequence: sequence)).inserted else { return false }
        count &+= 1
        lastSequence = sequence
        lastReason = reason
        return true
    }
}
