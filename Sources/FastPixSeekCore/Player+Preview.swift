/// Seek previews of a player (seek.h, "Seek previews"): the C functions are
/// `fpx_player_set_preview_source` and `fpx_player_preview`. Both run on the caller's thread
/// (see `PreviewState` for the locks), never on the player's worker.
extension Player {
    /// The policy the preview's own I/O runs under: the player's, aborted by `stop`.
    func previewPolicy(stop: CancelFlag) -> IOPolicy {
        config.ioPolicy(aborted: { stop.isSet })
    }

    /// Replaces the preview source. On any error the player has none.
    public func setPreviewSource(kind: PreviewKind, url: String?, io: PreviewIO) throws {
        let ps = previewState
        try ps.busy.locked {
            ps.closeReaderHeld()
            ps.source = .none
            ps.lastPacket = nil
            if ps.isShut || m.locked({ destroyed }) { throw ErrorCode.cancelled }
            switch kind {
            case .none, .keyframeIndex:
                guard url == nil else { throw ErrorCode.invalidArgument }
                if kind == .keyframeIndex { ps.source = .keyframes(KeyframeSource(kind: kind, url: nil, io: io)) }
            case .hlsIframes:
                if let url = url { try io.check(url, policy: config.protocols, fromRemote: false) }
                ps.source = .keyframes(KeyframeSource(kind: kind, url: url, io: io))
            case .spritesheet, .webvtt:
                guard let url = url else { throw ErrorCode.invalidArgument }
                let policy = previewPolicy(stop: ps.stop)
                let limit = min(Int(ABIConstants.FPX_PREVIEW_MAX_SOURCE_BYTES), max(1, config.maxBufferBytes))
                let bytes = try io.fetch(url, policy: policy, limit: limit)
                let sheet = kind == .spritesheet ? try PreviewSheet.parseSpritesheet(bytes) : try PreviewSheet.parseWebVTT(bytes)
                let remote = io.isRemote(url)
                let loaded = try LoadedSheet(kind: kind, sheet: sheet) { image in
                    let resolved = HLSURL.resolve(base: url, reference: image)
                    do {
                        try io.check(resolved, policy: config.protocols, fromRemote: remote)
                    } catch {
                        // The field the refused image URL came from.
                        let f: PreviewField = kind == .webvtt ? .cueXywh : image == sheet.defaultImage ? .url : .tileUrl
                        throw PreviewSourceError(code(of: error), f)
                    }
                    return resolved
                }
                ps.source = .sheet(loaded)
            }
        }
    }

    /// The preview of `t`. Sheets: no I/O. Keyframes: blocking, on the caller's thread.
    public func preview(at t: MediaTime) throws -> Preview {
        guard t.isNumeric, t.timescale > 0 else { throw ErrorCode.invalidTime }
        let ps = previewState
        return try ps.busy.locked {
            switch ps.source {
            case .none:
                throw ErrorCode.noPreview
            case .sheet(let s):
                return s.preview(at: t)
            case .keyframes(let k):
                return try keyframePreview(t, ps, k)
            }
        }
    }

    /// What a keyframe source reads now: (item id, URL) -- the item's URL, the host's I-frame
    /// playlist, or the item's first I-frame variant (checked as content of its master).
    private func keyframeTarget(_ k: KeyframeSource) throws -> (UInt64, String) {
        if k.kind == .hlsIframes, let url = k.url { return (0, url) }
        let (itemID, itemURL, engine): (UInt64, String, PlayerEngine?) = try m.locked {
            guard !destroyed else { throw ErrorCode.cancelled }
            guard let it = item else { throw ErrorCode.noItem }
            switch it.status {
            case .ready: return (it.id, it.url, it.engine)
            case .failed: throw ErrorCode.itemFailed
            default: throw ErrorCode.itemNotReady
            }
        }
        guard k.kind == .hlsIframes else { return (itemID, itemURL) }
        // hlsListing is immutable once open (a concurrent member): no engine lock.
        guard let uri = engine?.hlsControls?.hlsListing?.variants.first(where: { $0.isIFrame })?.uri else { throw ErrorCode.noPreview }
        try k.io.check(uri, policy: config.protocols, fromRemote: k.io.isRemote(itemURL))
        return (itemID, uri)
    }

    /// With `ps.busy` held: the keyframe at or before `t`, from the preview's own engine
    /// (opened for the current item or I-frame playlist, reopened when that changed).
    private func keyframePreview(_ t: MediaTime, _ ps: PreviewState, _ k: KeyframeSource) throws -> Preview {
        let (itemID, url) = try keyframeTarget(k)
        var reader = k.reader
        if let r = reader, r.itemID != itemID || r.url != url {
            ps.closeReaderHeld()
            reader = nil
        }
        if reader == nil {
            let deadline = OpenDeadline()
            deadline.start(timeout: config.ioTimeoutNanoseconds)
            var policy = previewPolicy(stop: ps.stop)
            policy.openDeadline = deadline
            let engine: PlayerEngine
            do { engine = try factory(url, policy) } catch { deadline.finish(); throw error }
            let installed: Bool = ps.leaf.locked { if ps.shut { return false }; ps.reader = engine; return true }
            guard installed else { deadline.finish(); engine.close(); throw ErrorCode.cancelled }
            let range = try? engine.seekableRange()
            deadline.finish()
            let r = KeyframeReader(itemID: itemID, url: url, engine: engine, range: range ?? nil)
            k.reader = r
            reader = r
        }
        guard let r = reader else { throw ErrorCode.internal }
        let tl = r.engine.timeline
        let itemRange = r.range.map { (tl.itemTime(ofTicks: $0.start), tl.itemTime(ofTicks: $0.end)) }
        let clamp = SeekClamp.clamp(t, into: itemRange)
        let time = clamp.clampedTarget(requested: t)
        guard let ticks = tl.ticks(of: time) else { throw ErrorCode.invalidTime }
        let target = Int64(clamping: ticks.floor)
        let lo = min(r.range?.start ?? Int64.min / 2, target)
        r.nextID += 1
        let stop = ps.stop
        let request = LandingRequest(target: Rational(target), wantsKeyframe: true, keyframeWindow: lo...target,
                                     seekID: r.nextID)
        let landing = try r.engine.resolve(request, shouldStop: { stop.isSet })
        // The keyframe's packet: the first of the reference stream from the landing on.
        let ref = r.engine.referenceStream
        var packet: PacketView? = nil
        for _ in 0..<100_000 {
            if stop.isSet { throw ErrorCode.cancelled }
            let p = try r.engine.readPacket(shouldStop: { stop.isSet })
            guard p.streamIndex == ref else { continue }
            if p.flags & PacketView.flagKey != 0 { packet = p; break }
        }
        guard let kf = packet else { throw ErrorCode.invalidData }
        ps.lastPacket = kf
        // The keyframe's item time: the packet's pts from item time 0 on its own timeline
        // (HLS: its discontinuity domain's placement), else the landing's.
        let start: MediaTime
        if let pts = kf.pts, let origin = kf.itemOriginPTS {
            start = tl.duration(ofTicks: pts - origin)
        } else {
            start = tl.itemTime(ofTicks: kf.pts ?? landing.pts)
        }
        var out = Preview(kind: k.kind, clamp: clamp, requested: t, time: time, start: start, end: .invalid)
        out.packet = kf
        return out
    }
}

/// The error code of a thrown error (ErrorCode, EngineError; anything else is internal).
func code(of error: Error) -> ErrorCode {
    if let e = error as? ErrorCode { return e }
    if let e = error as? EngineError { return e.code }
    if let e = error as? PreviewSourceError { return e.code }
    return .internal
}
