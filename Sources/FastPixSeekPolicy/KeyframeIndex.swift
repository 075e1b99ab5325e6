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

    /// `entries` in decode order; `timestampIsPTS`: the container indexes pts.
    public init(entries: [Entry], timestampIsPTS: Bool) {
        var e = entries.sorted { $0.timestamp < $1.timestamp }
        if timestampIsPTS { for i in e.indices { e[i].pts = e[i].timestamp } }
        self.entries = e
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
}
