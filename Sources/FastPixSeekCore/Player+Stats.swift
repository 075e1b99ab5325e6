/// Per-player counters (fpx_player_stats_get), never waiting for the engine lock.
extension Player {
    // MARK: Stats

    public var statistics: PlayerStats {
        var s = m.locked { stats }
        let engine = m.locked { item?.engine }
        var c = m.locked { retiredDemux }
        m.locked {
            s.indexFrames = item?.indexFrames ?? 0
            s.indexComplete = item?.indexComplete ?? false
            c.packets &+= indexDemux.packets
            c.bytes &+= indexDemux.bytes
        }
        if let e = engine {
            // Never waits for the engine lock (held across I/O, and by the thread a log
            // callback runs on): when it is busy, the counters as of the last engine call.
            var live: (packets: UInt64, bytes: UInt64) = (0, 0)
            if engineLock.tryLock() {
                live = e.demuxCounters
                demuxSnapLock.locked { demuxSnap = (ObjectIdentifier(e), live.packets, live.bytes) }
                engineLock.unlock()
            } else if let snap = demuxSnapLock.locked({ demuxSnap }), snap.engine == ObjectIdentifier(e) {
                live = (snap.packets, snap.bytes)
            }
            c.packets &+= live.packets
            c.bytes &+= live.bytes
        }
        s.packetsDemuxed = c.packets
        s.bytesRead = c.bytes
        s.eventsDelivered = events.deliveredCount
        s.segmentsSkipped = engine?.holeReport.count ?? 0
        return s
    }
}
