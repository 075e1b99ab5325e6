import CFFmpeg
import FastPixSeekCore

/// Background indexing (`IndexMode`, docs/ARCHITECTURE.md "Background indexing").
extension FFmpegEngine: BackgroundIndexable {
    public func setIndexMode(_ mode: IndexMode) {
        if mode == .off {
            // No container index: a landing the grid does not know is scanned.
            lander.disableContainerIndex()
        }
    }

    public func indexerFactory() -> ((IOPolicy) throws -> FrameIndexer)? {
        guard let url = sourceURL else { return nil }
        // The indexer's own engine reads this item's reference stream, chosen or not (an
        // audio reference is always the automatic one, which the indexer's open finds again).
        let ref: Int32? = hasVideo ? referenceStream : nil
        return { policy in try FFmpegFrameIndexer(url: url, policy: policy, referenceStream: ref) }
    }

    public func absorb(_ batch: FrameIndexBatch) {
        lander.absorb(start: batch.start, end: batch.end, frames: batch.frames, entryPoints: batch.entryPoints,
                      keyPositions: batch.keyPositions)
    }
}

/// Reads an item's reference-stream packets from the start, on its own
/// `FFmpegEngine` (same protocol policy, timeouts and interrupt callback),
/// every other stream discarded in the demuxer, and cuts them into runs that
/// `FrameGrid.record` can take: each run starts at a reference keyframe and
/// is complete up to the largest dts read since (the scan's argument). A run
/// closes at the first keyframe after at least `minRun` frames and the next
/// one starts at the keyframe before it, so consecutive runs overlap by about
/// one GOP and merge into one segment; the last run, at the end of the file,
/// claims to the end.
final class FFmpegFrameIndexer: FrameIndexer {
    private let engine: FFmpegEngine
    static let minRun = 64
    static let maxRun = FrameGrid().maxFrames

    private var run: [(pts: Int64, key: Bool, dts: Int64?)] = []
    private var entries: [FrameGrid.Keyframe] = []
    /// The run's first keyframe, and where in `run`/`entries` the latest keyframe starts.
    private var runStart: Int64?
    private var lastKey: (pts: Int64, run: Int, entries: Int)?
    private var maxDTS: Int64?
    private var newFrames = 0
    private var done = false
    /// Byte offsets of the keyframes in `run` (and its entry points), by pts.
    private var keyPositions: [Int64: Int64] = [:]

    init(url: String, policy: IOPolicy, referenceStream: Int32?) throws {
        engine = try FFmpegEngine(url: url, policy: policy, referenceStream: referenceStream)
        guard let c = engine.ctx else { throw EngineError(.cancelled) }
        for i in 0..<Int(c.pointee.nb_streams) where Int32(i) != engine.referenceStream {
            c.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }
    }

    func interrupt() { engine.interrupt() }
    func close() { engine.close() }
    var demuxCounters: (packets: UInt64, bytes: UInt64) { engine.demuxCounters }

    func next() throws -> FrameIndexBatch? {
        if done { return nil }
        engine.ioGuard.begin()
        defer { engine.ioGuard.end() }
        while true {
            guard let p = try engine.readRaw() else {
                done = true
                guard let s = runStart else { return nil }
                var b = FrameIndexBatch(start: s, end: Int64.max, frames: run, entryPoints: entries, newFrames: newFrames)
                b.keyPositions = keyPositions
                return b
            }
            defer { engine.free(p) }
            guard p.pointee.stream_index == engine.referenceStream else { continue }
            let key = FFmpegEngine.isKey(p)
            let dts = FFmpegEngine.dts(p)
            guard let t = engine.landPTS(p) ?? dts else { continue }
            var out: FrameIndexBatch?
            if key {
                if let s = runStart, run.count >= Self.minRun, let k = lastKey, let e = maxDTS {
                    out = FrameIndexBatch(start: s, end: max(s, e), frames: run, entryPoints: entries, newFrames: newFrames)
                    out?.keyPositions = keyPositions
                    // Only the keyframes the next run keeps (from the one before this one).
                    keyPositions = keyPositions.filter { $0.key >= k.pts }
                    // The next run starts at the keyframe before this one.
                    run.removeFirst(k.run)
                    entries.removeFirst(k.entries)
                    runStart = k.pts
                    newFrames = 0
                }
                if runStart == nil { runStart = t }
                lastKey = (t, run.count, entries.count)
            }
            // Packets before the first keyframe prove nothing (not decodable).
            guard runStart != nil else { continue }
            if let d = dts { maxDTS = max(maxDTS ?? d, d) }
            let pos = p.pointee.pos >= 0 ? p.pointee.pos : nil
            if !engine.notLandable(p) {
                // A run without keyframes or dts past the grid's cap is refused.
                if run.count >= Self.maxRun { throw EngineError(.tooLarge) }
                run.append((t, key, dts))
                newFrames += 1
                if key, let b = pos { keyPositions[t] = b }
            } else if key {
                entries.append(FrameGrid.Keyframe(pts: t, dts: dts, pos: pos, landable: false))
            }
            if let b = out { return b }
        }
    }
}
