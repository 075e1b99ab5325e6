import FastPixSeekCore

/// The engine's lazily initialised process-wide values, touched once on the
/// thread that creates a player, before any of its jobs can run on the shared
/// pools (docs/ARCHITECTURE.md, "The shared executor").
///
/// Why: Swift initialises a global on first use under swift_once. Jobs of
/// different players now run on long-lived pool threads, so the first use can
/// happen on one pool thread and the next on another with no lock between them
/// that a race detector can see (the runtime's once is not instrumented).
/// Touched here, every later read is ordered after the initialisation by the
/// locks that schedule the job (the player's queue, the pool's FIFO).
public enum EngineGlobals {
    /// `ffmpegUsable`: the loaded FFmpeg majors are the build's. Otherwise nothing here
    /// may call into libavformat (seek.h, "FFmpeg ABI": a mismatched library is never used).
    public static func warmUp(ffmpegUsable: Bool) {
        _ = ProtocolPolicy.remoteSafe.count
        _ = ProtocolPolicy.default
        _ = FFmpegEngine.publishLock
        _ = FFmpegEngine.allocationBounds.count
        _ = FFmpegFrameIndexer.maxRun
        _ = fpxHLSFormatName
        _ = FFmpegVersions.current
        if ffmpegUsable { _ = DemuxerGate.whitelist.count }
        _ = FFmpegLog.isInstalled
    }
}
