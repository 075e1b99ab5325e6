#if canImport(Glibc)
import Glibc
#endif

/// Seek previews (seek.h, "Seek previews"): a player's preview source and the preview of a
/// time. Policy: the tile rule is `PreviewSheet` (FastPixSeekPolicy), the clamp is a seek's
/// (`SeekClamp`), the keyframe is what a keyframe seek at or before the time lands on.
///
/// Threads: every call runs on the caller's thread. `busy` serialises preview calls of one
/// player (held while a source loads or a keyframe is read); nothing else of the player is
/// locked meanwhile except `Player.m`, briefly, to read the item. `leaf` guards the keyframe
/// reader's engine for `shutdown`'s interrupt (no other lock is taken while it is held).

/// The I/O a preview source needs, from the engine layer (FastPixSeekEngine.FFmpegPreviewIO).
public protocol PreviewIO: Sendable {
    /// The whole resource at `url` (checked against `policy.protocols` first), at most
    /// `limit` bytes (`.tooLarge` past it), bounded by `policy`'s timeout.
    func fetch(_ url: String, policy: IOPolicy, limit: Int) throws -> [UInt8]
    /// Throws `.protocolNotAllowed` (or `.unsupported`) for a URL the policy refuses.
    func check(_ url: String, policy: ProtocolPolicy, fromRemote: Bool) throws
    /// Whether `url` is read from the network (its names may then be http(s) only).
    func isRemote(_ url: String) -> Bool
}

/// A preview (the C type is `fpx_preview`).
public struct Preview {
    public var kind: PreviewKind
    public var clamp: SeekClamp
    public var requested: MediaTime
    public var time: MediaTime
    public var start: MediaTime
    public var end: MediaTime
    /// Sheets: the tile's image URL (a C string the source owns) and rectangle.
    public var imageURL: UnsafePointer<CChar>? = nil
    public var x: Int32 = 0, y: Int32 = 0, width: Int32 = 0, height: Int32 = 0
    /// Keyframes: the keyframe's packet (its owner is kept by the preview state).
    public var packet: PacketView? = nil
}

/// A loaded sheet or track, with its images as C strings resolved against the source's URL.
final class LoadedSheet: @unchecked Sendable {
    let kind: PreviewKind
    let sheet: PreviewSheet
    /// One C string per distinct image; `imageOf[i]` is tile i's.
    private var images: [UnsafeMutablePointer<CChar>] = []
    private var imageOf: [Int] = []

    init(kind: PreviewKind, sheet: PreviewSheet, resolve: (String) throws -> String) throws {
        self.kind = kind
        self.sheet = sheet
        var seen: [String: Int] = [:]
        for t in sheet.tiles {
            if let k = seen[t.image] { imageOf.append(k); continue }
            let url = try resolve(t.image)
            guard let c = url.withCString({ strdup($0) }) else { throw ErrorCode.noMemory }
            images.append(c)
            seen[t.image] = images.count - 1
            imageOf.append(images.count - 1)
        }
    }

    deinit { for c in images { free(c) } }

    func preview(at t: MediaTime) -> Preview {
        let clamp = SeekClamp.clamp(t, into: sheet.range)
        let time = clamp.clampedTarget(requested: t)
        let i = sheet.tileIndex(at: time) ?? 0
        let tile = sheet.tiles[i]
        var p = Preview(kind: kind, clamp: clamp, requested: t, time: time, start: tile.start, end: sheet.tileEnd(i))
        p.imageURL = UnsafePointer(images[imageOf[i]])
        p.x = tile.x; p.y = tile.y; p.width = tile.width; p.height = tile.height
        return p
    }
}

/// Keyframes read by the preview's own engine (never the player's): the item's, or an HLS
/// I-frame playlist's.
final class KeyframeReader: @unchecked Sendable {
    /// What it was opened for: the item (0 for an I-frame playlist the host named) and URL.
    let itemID: UInt64
    let url: String
    let engine: PlayerEngine
    let range: (start: Int64, end: Int64)?
    var nextID: UInt64 = 1
    init(itemID: UInt64, url: String, engine: PlayerEngine, range: ClosedRange<Int64>?) {
        self.itemID = itemID; self.url = url; self.engine = engine
        self.range = range.map { ($0.lowerBound, $0.upperBound) }
    }
}

/// A keyframe source: the item's keyframe index, or an HLS I-frame playlist (the host's URL,
/// or nil: the item's first I-frame variant), with the reader opened for it, if any.
final class KeyframeSource: @unchecked Sendable {
    let kind: PreviewKind
    let url: String?
    let io: PreviewIO
    var reader: KeyframeReader?
    init(kind: PreviewKind, url: String?, io: PreviewIO) { self.kind = kind; self.url = url; self.io = io }
}

/// A player's preview source and the memory its last preview handed out.
public final class PreviewState: @unchecked Sendable {
    enum Source {
        case none
        case sheet(LoadedSheet)
        case keyframes(KeyframeSource)
    }
    /// Serialises preview calls; guards `source` and `lastPacket`.
    let busy = Monitor()
    var source: Source = .none
    /// Keeps the last keyframe packet's memory alive (fpx_preview.data).
    var lastPacket: PacketView?
    /// Guards `reader` and `shut` (a leaf lock).
    let leaf = Monitor()
    var reader: PlayerEngine?
    var shut = false
    /// Set by `shutdown` (and while a source is replaced): aborts the keyframe reader's I/O.
    let stop = CancelFlag()

    public init() {}

    /// Destroy: interrupts a preview in progress, waits for it, and closes the reader.
    public func shutdown() {
        let e: PlayerEngine? = leaf.locked { shut = true; stop.set(); return reader }
        e?.interrupt()
        busy.locked {
            closeReaderHeld()
            source = .none
            lastPacket = nil
        }
    }

    /// With `busy` held: closes the keyframe reader, if any.
    func closeReaderHeld() {
        if case .keyframes(let k) = source, let r = k.reader {
            leaf.locked { reader = nil }
            r.engine.close()
            k.reader = nil
        }
    }

    var isShut: Bool { leaf.locked { shut } }
}
