/// The background index (`IndexMode.full`), a job on `Executor.background`.
extension Player {
    // MARK: Background index

    /// Starts the item's index thread (`IndexMode.full`), if the engine can.
    func startIndexLocked(_ it: Item, _ e: PlayerEngine) {
        guard e is BackgroundIndexable else { return }
        it.indexRunning = true
        Executor.background.run { [self] in
            self.runIndex(it, e)
            self.m.locked { it.indexRunning = false; self.m.broadcast() }
        }
    }

    /// Stops (the caller already interrupted it) and joins the item's index thread.
    func joinIndex(_ it: Item) {
        m.locked { while it.indexRunning { m.wait() } }
    }

    /// The index thread: opens a second reader of the item and feeds the
    /// engine's frame grid batch by batch, each under the engine lock for the
    /// time of one `FrameGrid.record` (no I/O under it), so a seek waits at
    /// most that long. Stops at the item's close or the player's destroy
    /// (their interrupt makes the reader's I/O return at once).
    func runIndex(_ it: Item, _ e: PlayerEngine) {
        guard let b = e as? BackgroundIndexable else { return }
        let gone: @Sendable () -> Bool = { [stop = it.stop] in stop.isSet }
        guard let make = engineLock.locked({ gone() ? nil : b.indexerFactory() }) else { return }
        let policy = config.ioPolicy(aborted: gone)
        guard let ix = try? make(policy) else { return }
        let stopped: Bool = m.locked {
            if it.cancelled || destroyed { return true }
            it.indexer = ix
            return false
        }
        var counted: (packets: UInt64, bytes: UInt64) = (0, 0)
        func account() {
            let c = ix.demuxCounters
            m.locked {
                indexDemux.packets &+= c.packets &- counted.packets
                indexDemux.bytes &+= c.bytes &- counted.bytes
            }
            counted = c
        }
        var complete = false
        if !stopped {
            while !gone() {
                let batch: FrameIndexBatch?
                do { batch = try ix.next() } catch { break }
                account()
                guard let bt = batch else { complete = true; break }
                engineLock.locked { if !gone() { b.absorb(bt) } }
                m.locked { it.indexFrames &+= UInt64(bt.newFrames) }
            }
        }
        account()
        m.locked { it.indexer = nil }
        ix.close()
        m.locked {
            guard complete, !it.cancelled, !destroyed else { return }
            it.indexComplete = true
            let frames = it.indexFrames
            postToListeners { $0.onIndexComplete(frames: frames) }
        }
    }
}
