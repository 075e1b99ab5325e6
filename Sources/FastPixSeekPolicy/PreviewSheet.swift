/// Seek-preview tiles (seek.h, "Seek previews"): the SDK's spritesheet.json and WebVTT
/// thumbnail tracks, read (`PreviewSheet+Parse.swift`) and written (`PreviewSheet+Write.swift`,
/// what `fpx-seek sprite` writes), and the rule that picks a tile for a time: the last tile
/// whose start is at or before it.

/// One tile: its start on the item timeline, its image (as the source names it) and its
/// rectangle in that image.
public struct PreviewTile: Hashable, Sendable {
    public var start: MediaTime
    /// The image as written in the source (relative to the source's URL, or absolute).
    public var image: String
    public var x: Int32, y: Int32, width: Int32, height: Int32

    public init(start: MediaTime, image: String, x: Int32, y: Int32, width: Int32, height: Int32) {
        self.start = start; self.image = image; self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A parsed preview source: tiles in start order (a stable sort: of equal starts, the last
/// written comes last) and the end of its range.
public struct PreviewSheet: Sendable {
    public let tiles: [PreviewTile]
    /// The later of the source's own end (spritesheet.json's "duration", the last cue's end)
    /// and the last tile's start.
    public let end: MediaTime
    /// spritesheet.json's "url": the image of the tiles that name none (nil for a track).
    public var defaultImage: String? = nil

    public init(tiles: [PreviewTile], end: MediaTime) {
        let sorted = tiles.enumerated().sorted { a, b in
            let c = MediaTime.compare(a.element.start, b.element.start)
            return c != 0 ? c < 0 : a.offset < b.offset
        }.map { $0.element }
        self.tiles = sorted
        if let last = sorted.last, MediaTime.compare(last.start, end) > 0 { self.end = last.start } else { self.end = end }
    }

    /// [first tile's start, end]; nil for no tiles.
    public var range: (start: MediaTime, end: MediaTime)? {
        guard let first = tiles.first else { return nil }
        return (first.start, end)
    }

    /// The index of the last tile whose start is at or before `t` (the SDK's rule); nil when
    /// `t` is before every tile. `t` is compared exactly.
    public func tileIndex(at t: MediaTime) -> Int? {
        var lo = 0, hi = tiles.count  // first index whose start is after t
        while lo < hi {
            let mid = (lo + hi) / 2
            if MediaTime.compare(tiles[mid].start, t) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    /// Where tile `i`'s preview ends: the next tile's start, or the range's end.
    public func tileEnd(_ i: Int) -> MediaTime {
        i + 1 < tiles.count ? tiles[i + 1].start : end
    }
}

/// Why a preview source was refused: the error code and the field to blame.
public struct PreviewSourceError: Error, Sendable {
    public var code: ErrorCode
    public var field: PreviewField
    public init(_ code: ErrorCode, _ field: PreviewField) { self.code = code; self.field = field }
    static func malformed(_ field: PreviewField) -> PreviewSourceError { PreviewSourceError(.previewMalformed, field) }
}
