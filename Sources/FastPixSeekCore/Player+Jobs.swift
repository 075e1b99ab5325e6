/// The player's jobs (open, seek, close), run in order on its serial queue on `Executor.work`.
extension Player {
    // MARK: Worker

    /// Queues `job` (with `m` held): one run of `runNextJob` on the player's serial queue
    /// per job, so jobs run in order, one at a time, on the shared pool.
    func enqueueLocked(_ job: Job) {
        jobs.append(job)
        work.async { [self] in self.runNextJob() }
    }

    func runNextJob() {
        let job: Job? = m.locked { jobs.isEmpty ? nil : jobs.removeFirst() }
        switch job {
        case .open(let it): runOpen(it)
        case .seek(let req): runSeek(req)
        case .close(let it): runClose(it)
        case nil: break
        }
    }

    func runOpen(_ it: Item) {
        let skip = m.locked { it.cancelled || destroyed }
        if skip { return }
        // One pair of deadlines bounds the whole open: the engine's open and the range
        // measurement below (silence T, overall 16 T; seek.h, "Time bounds").
        it.openDeadline.start(timeout: config.ioTimeoutNanoseconds)
        let policy = config.ioPolicy(aborted: { [stop = it.stop] in stop.isSet }, openDeadline: it.openDeadline)
        var engine: PlayerEngine?
        var failure: ErrorCode?
        var avError: Int32 = 0
        do {
            engine = try factory(it.url, policy)
            // Measure the seekable range now, on the worker, so the first seek
            // costs what later ones do and range queries need no I/O. A failure
            // here only leaves the range unknown.
            if let e = engine {
                if let b = e as? BackgroundIndexable { withEngine(e) { b.setIndexMode(config.indexMode) } }
                if let c = e as? Continuable {
                    let on = m.locked { continuationEnabled }
                    withEngine(e) { c.setContinuation(on) }
                }
                _ = try? withEngine(e) { try e.seekableRange() }
            }
        } catch let e as EngineError {
            failure = e.code
            avError = e.avError
        } catch let e as ErrorCode {
            failure = e
        } catch {
            failure = .internal
        }
        var discard: PlayerEngine?
        it.openDeadline.finish()
        m.locked {
            if it.cancelled || destroyed {
                discard = engine
                return
            }
            if let e = engine {
                it.engine = e
                it.status = .ready
                if config.indexMode == .full { startIndexLocked(it, e) }
            } else {
                it.status = .failed
                it.error = failure ?? .internal
                it.avError = avError
                // Seeks queued behind a failed open complete as failed.
                for case .complete(_, _, let r) in seeks.completeAll(where: { $0.item === it }, .failed) {
                    completeLocked(r, pending: false, reason: .failed, clamp: nil, error: .itemFailed)
                }
            }
            postItemStatusLocked(it)
            m.broadcast()
        }
        if let d = discard { retire(d) }
    }

    func runClose(_ it: Item) {
        joinIndex(it)
        let e: PlayerEngine? = m.locked { let e = it.engine; it.engine = nil; return e }
        if let e = e { retire(e) }
    }

    func retire(_ e: PlayerEngine) {
        engineLock.locked {
            e.close()
            let c = e.demuxCounters
            let facts = e.factsOwner
            // Its counters move to retiredDemux: the snapshot must not count them twice.
            demuxSnapLock.locked { if demuxSnap?.engine == ObjectIdentifier(e) { demuxSnap = nil } }
            m.locked {
                retiredDemux.packets &+= c.packets; retiredDemux.bytes &+= c.bytes
                if let f = facts { retainedFacts.append(f) }
            }
        }
    }

    func runSeek(_ req: SeekRequest) {
        var engine: PlayerEngine?
        let proceed: Bool = m.locked {
            // The seek manager says whether it is still to run (it is the one record).
            switch seeks.start(req.id) {
            case .gone: return false
            case .finish(let stop): completeLocked(req, pending: false, reason: stop, clamp: nil); return false
            case .proceed: break
            }
            guard req.item === item, !req.item.cancelled, req.item.status == .ready, let e = req.item.engine else {
                let err: ErrorCode = req.item.status == .failed ? .itemFailed : .noItem
                completeLocked(req, pending: true, reason: req.item.cancelled ? .cancelled : .failed, clamp: nil,
                               error: err)
                return false
            }
            engine = e
            return true
        }
        guard proceed, let engine = engine else { return }
        // No lock per packet: stopReason (supersede, cancel, destroy) sets the request's flag.
        let cancel = req.cancel
        let run = withEngine(engine) { land(req, on: engine, shouldStop: { cancel.isSet }) }
        m.locked { completeLandingLocked(req, run, engine: engine) }
    }

    /// What one landing attempt found (`land`), for `completeLandingLocked`.
    struct LandingRun {
        let timeline: Timeline
        var clamp: SeekClamp = .seekableRangeUnknown
        var tolerance: MediaTime
        var landing: Landing?
        var failure: ErrorCode?
        init(timeline: Timeline) {
            self.timeline = timeline
            tolerance = MediaTime(value: 0, timescale: timeline.timeBaseDen)
        }
    }

    /// Lands `req` on `engine`: the seekable range, the clamp, the request in exact ticks,
    /// `engine.resolve`. With `engineLock` held and `m` not; on the worker (`runSeek`) or on
    /// the thread of a `fpx_player_seek_wait` that lands it itself (`landInline`).
    func land(_ req: SeekRequest, on engine: PlayerEngine, shouldStop: @escaping () -> Bool) -> LandingRun {
        var run = LandingRun(timeline: engine.timeline)
        let memoryEpoch = MemoryReserve.epoch
        do {
            // No seek starts without the allocation reserve (seek.h section 6).
            guard MemoryReserve.ensure() else { throw ErrorCode.noMemory }
            let range = try engine.seekableRange()
            // At-or-after on an engine that cannot land it (HLS): refused, typed.
            guard Self.engineLands(req, engine) else { throw ErrorCode.unsupported }
            var request = try Self.landingRequest(req, timeline: run.timeline, range: range, clamp: &run.clamp,
                                                  tolerance: &run.tolerance)
            request.memoryChecked = req.memoryDeclined
            run.landing = try engine.resolve(request, shouldStop: shouldStop)
        } catch let e as ErrorCode {
            run.failure = e
        } catch let e as EngineError {
            run.failure = e.code
        } catch {
            run.failure = .internal
        }
        // While the process is out of memory, what libavformat made of an allocation
        // failure is FPX_ERROR_NO_MEMORY (seek.h section 6).
        if let f = run.failure { run.failure = MemoryReserve.classify(f, since: memoryEpoch) }
        return run
    }

    /// Completes the in-flight `req` with what `land` found (with `m` held): its stop reason
    /// (supersede, cancel, destroy) first, else the landing, else the failure.
    func completeLandingLocked(_ req: SeekRequest, _ run: LandingRun, engine: PlayerEngine) {
        if let stop = req.stopReason ?? (destroyed ? .cancelled : nil) {
            completeLocked(req, pending: true, reason: stop, clamp: run.clamp, timeline: run.timeline,
                           tolerance: run.tolerance)
        } else if let l = run.landing {
            completeLocked(req, pending: true, reason: .completed, clamp: run.clamp, landing: l, timeline: run.timeline,
                           tolerance: run.tolerance, streamIndex: engine.referenceStream)
        } else {
            completeLocked(req, pending: true, reason: .failed, clamp: run.clamp, timeline: run.timeline,
                           tolerance: run.tolerance, error: run.failure ?? .internal)
        }
    }
}
