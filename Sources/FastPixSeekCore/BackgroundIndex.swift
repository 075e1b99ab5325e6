// IndexMode (`fpx_player_config.index_mode`) is generated from seek.h: ABIEnums.swift.
//
// - `off`: the container's keyframe index is never used; every landing the
//   frame grid does not know is found by the scan.
// - `keyframes` (the default): the container's keyframe index, read once
//   after the seekable range is measured (no extra I/O).
// - `full`: as `keyframes`, plus a background reader of the whole item that
//   fills the frame grid (see `FrameIndexer`). File items only: an HLS item
//   behaves as `keyframes`.

/// A run of the reference stream read in decode order from a keyframe, with
/// what it proves about the frame grid (see `FrameGrid.record`).
public struct FrameIndexBatch {
    public var start: Int64
    public var end: Int64
    public var frames: [(pts: Int64, key: Bool, dts: Int64?)]
    public var entryPoints: [FrameGrid.Keyframe]
    /// Frames read for the first time in this batch (the progress count).
    public var newFrames: Int
    /// The byte offsets of the run's keyframes, by pts, when known.
    public var keyPositions: [Int64: Int64] = [:]
    public init(start: Int64, end: Int64, frames: [(pts: Int64, key: Bool, dts: Int64?)],
                entryPoints: [FrameGrid.Keyframe], newFrames: Int) {
        self.start = start; self.end = end; self.frames = frames
        self.entryPoints = entryPoints; self.newFrames = newFrames
    }
}

/// A second reader of an item, on its own demux context, that reads the
/// reference stream's packet headers from the start to the end. It runs on
/// the player's index thread with no player lock held; only `interrupt` may
/// be called from another thread.
public protocol FrameIndexer: AnyObject {
    /// The next batch (one or more GOPs); nil at the end of the item.
    func next() throws -> FrameIndexBatch?
    /// Makes a blocked or later `next` return promptly with `.cancelled`.
    func interrupt()
    func close()
    /// Packets and bytes this reader demuxed so far.
    var demuxCounters: (packets: UInt64, bytes: UInt64) { get }
}

/// The engine side of background indexing. Every member is serial (called
/// with the player's engineLock held) and quick: no I/O.
public protocol BackgroundIndexable: AnyObject {
    /// Applies the player's index mode before the first seek.
    func setIndexMode(_ mode: IndexMode)
    /// Opens a `FrameIndexer` of the same item (call it WITHOUT the engine
    /// lock: it opens the item, blocking, bounded by the policy). nil when the
    /// engine does not support full indexing (HLS, in-memory items).
    func indexerFactory() -> ((IOPolicy) throws -> FrameIndexer)?
    /// Adds a batch to the frame grid.
    func absorb(_ batch: FrameIndexBatch)
}
