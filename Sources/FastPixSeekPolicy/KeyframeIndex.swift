/// The keyframes a container lists in its own index (mov's sample table,
/// Matroska's cues), read at open through libavformat's public index API, with
/// the presentation times learned as seeks need them.
///
/// An entry's `timestamp` is what the container indexes: the decode time for
/// mov (shifted like every dts by the edit list, so never after the pts), the
/// presentation time for Matroska. Keyframe pts grow in decode order, which is
/// the entries' order. Only complete indexes are used (see FFmpegEngine), so a
/// keyframe missing from the index does not exist.
///
/// Memory: 24 bytes per keyframe.
public struct KeyframeIndex: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        /// The container's index timestamp (mov: dts; Matroska: pts).
        public var timestamp: Int64
        /// The presentation time, once known.
        public var pts: Int64?
        /// False for discard-flagged entries (edit-list pre-roll): decodable
        /// from, never landed on.
        public var landable: Bool
        public init(timestamp: Int64, pts: Int64?, landable: Bool) {
            self.timestamp = timestamp; self.pts = pts; self.landable = landable
        }
    }

    public private(set) var entries: [Entry]
    /// The container indexes pts (Matroska), not dts (mov).
    public let timestampIsPTS: Bool

    /// `entries` in decode order; `timestampIsPTS`: the container indexes pts.
    public init(entries: [Entry], timestampIsPTS: Bool) {
        var e = entries.sorted { $0.timestamp < $1.timestamp }
        if timestampIsPTS { for i in e.indices { e[i].pts = e[i].timestamp } }
        self.entries = e
        self.timestampIsPTS = timestampIsPTS
    }

    public var count: Int { entries.count }

    /// pts - timestamp of the entry whose pts was learned last (`resolveFromIndex`
    /// predicts the pts still unknown with it).
    public private(set) var learnedOffset: Int64?

    mutating func setPTS(_ pts: Int64, at i: Int) {
        entries[i].pts = pts
        learnedOffset = pts &- entries[i].timestamp
    }

    /// The last landable entry whose timestamp is at or before `t` (its pts
    /// may still be after `t`: a timestamp is a lower bound of the pts).
    func lastLandable(timestampAtMost t: Int64) -> Int? {
        var lo = 0, hi = entries.count - 1, found: Int?
        while lo <= hi {
            let mid = (lo + hi) / 2
            if entries[mid].timestamp <= t { found = mid; lo = mid + 1 } else { hi = mid - 1 }
        }
        guard var i = found else { return nil }
        while i >= 0 && !entries[i].landable { i -= 1 }
        return i >= 0 ? i : nil
    }

    func nextLandable(after i: Int) -> Int? {
        var j = i + 1
        while j < entries.count && !entries[j].landable { j += 1 }
        return j < entries.count ? j : nil
    }

    func previousLandable(before i: Int) -> Int? {
        var j = i - 1
        while j >= 0 && !entries[j].landable { j -= 1 }
        return j >= 0 ? j : nil
    }

    /// The entry of the keyframe whose packet has `pts` and `dts` (the index lists it by
    /// the one the container indexes), nil when the index does not list it.
    func entry(ofKeyframePTS pts: Int64?, dts: Int64?) -> Int? {
        guard let t = timestampIsPTS ? pts : dts else { return nil }
        var lo = 0, hi = entries.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if entries[mid].timestamp == t { return mid }
            if entries[mid].timestamp < t { lo = mid + 1 } else { hi = mid - 1 }
        }
        return nil
    }

    /// A lower bound of entry `i`'s presentation time: its pts once known, else its
    /// timestamp (mov's dts is never after the pts).
    func presentsAtLeast(_ i: Int) -> Int64 { entries[i].pts ?? entries[i].timestamp }
}
