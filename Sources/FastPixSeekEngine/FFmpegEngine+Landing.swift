import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

/// Landing resolution, frame stepping and the packet window.
///
/// See docs/ARCHITECTURE.md, "Resolving a landing" and "The frame grid".
extension FFmpegEngine {
    // MARK: Window

    func appendToWindow(_ p: UnsafeMutablePointer<AVPacket>) {
        window.append(p)
        windowBytes &+= Int(max(0, p.pointee.size))
        if p.pointee.stream_index == referenceStream, let d = Self.dts(p) {
            windowMaxDTS = max(windowMaxDTS ?? d, d)
        }
    }

    /// Keeps the window under its cap: drops whole GOPs the host has read past,
    /// or gives up the window (host reads then go straight through).
    func trimWindow() {
        guard window.count > Self.maxWindowPackets || windowBytes > ioGuard.policy.maxBufferBytes else { return }
        var cut: Int?
        for i in stride(from: min(cursor, window.count) - 1, to: 0, by: -1) {
            let p = window[i]
            if p.pointee.stream_index == referenceStream && Self.isKey(p) { cut = i; break }
        }
        let n = cut ?? min(cursor, window.count)
        for i in 0..<n { windowBytes &-= Int(max(0, window[i].pointee.size)); free(window[i]) }
        window.removeFirst(n)
        cursor -= n
        if cut == nil { contiguous = false }
    }

    /// Records what the window proves about the frame grid.
    func recordWindow() {
        guard contiguous, let first = window.first, first.pointee.stream_index == referenceStream,
              let start = landPTS(first) else { return }
        let end: Int64
        if atEOF { end = Int64.max } else if let d = windowMaxDTS { end = d } else { return }
        var frames: [(pts: Int64, key: Bool, dts: Int64?)] = []
        var entries: [FrameGrid.Keyframe] = []
        var positions: [Int64: Int64] = [:]
        frames.reserveCapacity(window.count)
        for p in window where p.pointee.stream_index == referenceStream {
            guard let t = landPTS(p) ?? Self.dts(p) else { continue }
            let pos = p.pointee.pos >= 0 ? p.pointee.pos : nil
            if !notLandable(p) {
                frames.append((t, Self.isKey(p), Self.dts(p)))
                if Self.isKey(p), let b = pos { positions[t] = b }
            } else if Self.isKey(p) {
                entries.append(FrameGrid.Keyframe(pts: t, dts: Self.dts(p), pos: pos, landable: false))
            }
        }
        grid.record(start: start, end: max(start, end), frames: frames, entryPoints: entries, keyPositions: positions)
    }

    /// Points the host's reads at keyframe `k`: from the window when it holds
    /// it, else by seeking to it. Returns false when the keyframe could not be
    /// found where the grid said (the caller then scans).
    func position(at k: FrameGrid.Keyframe, shouldStop: () -> Bool) throws -> Bool {
        if contiguous, let i = window.firstIndex(where: {
            $0.pointee.stream_index == referenceStream && Self.isKey($0) && landPTS($0) == k.pts
        }) {
            cursor = i
            return true
        }
        // Demuxers that seek by pts (mov, matroska) land on K from its pts; the
        // others (MPEG-TS) seek near a dts, so aim at K's dts. mov shifts its
        // index by the edit list, so a seek can land a whole GOP early: the
        // engine learns that shift (`seekAimShift`) from the first miss.
        if try positionByByte(at: k, shouldStop: shouldStop) { return true }
        let byPTS = ((ctx?.pointee.iformat?.pointee.flags ?? 0) & AVFMT_SEEK_TO_PTS) != 0
        let base = byPTS ? k.pts : (k.dts ?? k.pts)
        var aim = base &+ seekAimShift
        var backoff: Int64 = 0
        for _ in 0..<6 {
            clearWindow()
            let anchor = aim &- backoff
            if seek(to: anchor) < 0 { return false }
            var found: UnsafeMutablePointer<AVPacket>?
            var passed = false
            var earlyBy: Int64?
            while let p = try readRaw() {
                if shouldStop() { free(p); throw EngineError(.cancelled) }
                if found != nil { appendToWindow(p); break }
                guard p.pointee.stream_index == referenceStream, Self.isKey(p), let t = landPTS(p) else {
                    let late = p.pointee.stream_index == referenceStream && (Self.dts(p) ?? Int64.min) > (k.dts ?? k.pts)
                    free(p)
                    if late { passed = true; break }
                    continue
                }
                if t == k.pts { found = p; contiguous = true; appendToWindow(p); continue }
                free(p)
                if t > k.pts { passed = true; break }
                if backoff == 0 && earlyBy == nil { earlyBy = k.pts &- t; break }
            }
            if found != nil {
                if backoff == 0 { seekAimShift = anchor &- base }
                // Any non-reference packets read after K stay in the window too.
                cursor = 0
                return true
            }
            if let e = earlyBy {
                aim = aim &+ e
                continue
            }
            if !passed { return false }
            backoff = max(ticksPerSecond, backoff &* 2)
        }
        return false
    }

    /// Points the host's reads at keyframe `k` by a byte seek to its packet's
    /// offset (MPEG-TS, where timestamp seeks land imprecisely). The first
    /// reference packet read must be `k`; false (nothing decided) otherwise.
    func positionByByte(at k: FrameGrid.Keyframe, shouldStop: () -> Bool) throws -> Bool {
        guard positionsByByte, let offset = k.pos else { return false }
        clearWindow()
        guard try seek(toByte: offset) else { return false }
        while let p = try readRaw() {
            if shouldStop() { free(p); throw EngineError(.cancelled) }
            guard p.pointee.stream_index == referenceStream else { free(p); continue }
            guard Self.isKey(p), landPTS(p) == k.pts else { free(p); return false }
            contiguous = true
            appendToWindow(p)
            cursor = 0
            return true
        }
        return false
    }

    /// The file's average bytes per tick of the reference stream, from its
    /// size and the seekable range: the first estimate of a GOP's bytes for a
    /// backward byte positioning, before the grid knows two keyframe offsets.
    func fileBytesPerTick(_ r: ClosedRange<Int64>) -> Double? {
        guard let pb = ctx?.pointee.pb else { return nil }
        let size = avio_size(pb)
        guard size > 0, r.upperBound > r.lowerBound else { return nil }
        return Double(size) / Double(r.upperBound &- r.lowerBound)
    }

    /// The bytes per tick a scan steps back by when a timestamp seek lands
    /// past the keyframe it needs (MPEG-TS): the grid's, from keyframe offsets
    /// it learned, else the file's average. nil where positioning is not by
    /// byte, or before the seekable range is known (no extra I/O here).
    func scanBytesPerTick() -> Double? {
        guard positionsByByte else { return nil }
        if let r = grid.bytesPerTick { return r }
        return range.flatMap { fileBytesPerTick($0) }
    }

    /// Points the host's reads at the first packet, with no landing: fresh
    /// flags (no DECODE_ONLY threshold, no DISCONTINUITY) under `seekID`. The
    /// HLS engine calls it when reading enters a segment whose reader may have
    /// been used before (a rewind into an open segment).
    public func restartFromBeginning(seekID: UInt64) throws {
        _ = try liveContext()
        clearStickyIOError()
        ioGuard.begin()
        defer { ioGuard.end() }
        dropPending()
        clearWindow()
        try rewind()
        // The position is known exactly (the start): clearWindow's mark does not apply.
        positionLost = false
        stamp.restart(seekID: seekID)
    }

    /// The landing the host's packets follow (see PacketStamp); `seekID` 0: a frame step.
    func land(_ pts: Int64, seekID: UInt64) {
        positionLost = false
        stamp.land(pts, seekID: seekID)
    }

    // MARK: The container's keyframe index

    /// The keyframe index, read once (after the seekable range is measured,
    /// whose seeks make Matroska load its cues). nil when the container has
    /// none that is known to be complete:
    /// - mov/MP4: the sample table lists every sample, so it is complete when
    ///   it holds as many entries as the stream has frames (not fragmented);
    /// - Matroska: the cues, when libavformat wrote the file (it cues every
    ///   video keyframe) and they cover the stream without holes;
    /// - everything else (MPEG-TS, fragmented MP4, ...): none.
    func keyframeIndex() -> KeyframeIndex? {
        if indexRead { return keyIndex }
        guard let r = range else { return nil }
        indexRead = true
        guard let c = ctx, let st = c.pointee.streams[Int(referenceStream)], let fmt = c.pointee.iformat else { return nil }
        let name = String(cString: fmt.pointee.name)
        let n = avformat_index_get_entries_count(st)
        guard n > 1 else { return nil }
        let isMov = name.hasPrefix("mov,"), isMKV = name.hasPrefix("matroska")
        var entries: [KeyframeIndex.Entry] = []
        var lastTimestamp = Int64.min
        for i in 0..<n {
            var ts: Int64 = 0
            var flags: Int32 = 0
            guard fpx_index_entry(st, i, &ts, &flags) == 0 else { return nil }
            lastTimestamp = max(lastTimestamp, ts)
            if (flags & fpx_avindex_keyframe()) != 0 {
                entries.append(KeyframeIndex.Entry(timestamp: ts, pts: nil,
                                                   landable: (flags & fpx_avindex_discard_frame()) == 0))
            }
        }
        guard !entries.isEmpty else { return nil }
        if isMov {
            // Every sample listed, and they reach the last frame measured from the
            // file's end (fragments parsed lazily would not be listed yet).
            guard st.pointee.nb_frames == Int64(n), lastTimestamp &+ ticksPerSecond >= r.upperBound else { return nil }
        } else if isMKV {
            guard hasVideo, let e = av_dict_get(c.pointee.metadata, "encoder", nil, 0), let v = e.pointee.value,
                  String(cString: v).hasPrefix("Lavf") else { return nil }
            // Cues loaded, not only the keyframes read so far (a file written
            // without cues has those at both ends, a hole between): they reach
            // both ends, with no gap over twice the typical (lower median) one.
            let ts = entries.map(\.timestamp)
            guard ts.count >= 3, ts.first! <= r.lowerBound else { return nil }
            var gaps = zip(ts.dropFirst(), ts).map { $0 &- $1 }
            gaps.sort()
            let typical = gaps[(gaps.count - 1) / 2]
            guard typical > 0, gaps.last! <= 2 &* typical, r.upperBound &- ts.last! <= 2 &* typical else { return nil }
        } else {
            return nil
        }
        keyIndex = KeyframeIndex(entries: entries, timestampIsPTS: isMKV)
        return keyIndex
    }

    // MARK: Resolve

    public func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        _ = try liveContext()
        clearStickyIOError()
        guard seekable else { throw EngineError(.unsupported) }
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        let startPackets = demuxCounters.packets
        // Decided from memory (the grid, or the index with known pts): positioned lazily, by the next read.
        if let l = resolveFromMemory(request) { return l }
        if request.wantsKeyframe, request.keyframeWindow != nil, var index = keyframeIndex() {
            let d = try LandingResolver.resolveFromIndex(request, index: &index, demuxer: self, settleCount: settleCount,
                                                         shouldStop: shouldStop)
            keyIndex = index
            dropPending()
            if let d = d {
                contiguous = true
                recordWindow()
                cursor = d.startIndex
                land(d.pts, seekID: request.seekID)
                return Landing(pts: d.pts, isKeyframe: d.isKeyframe, resolution: d.resolution,
                               coversTarget: d.coversTarget, packetsRead: demuxCounters.packets &- startPackets)
            }
        }
        let scan = try scanFrom(target: request.targetFloor, exactTarget: request.target, window: request.keyframeWindow,
                                wantsKeyframe: request.wantsKeyframe, shouldStop: shouldStop)
        let d = LandingResolver.decide(request, scan: scan)
        cursor = d.startIndex
        land(d.pts, seekID: request.seekID)
        return Landing(pts: d.pts, isKeyframe: d.isKeyframe, resolution: d.resolution, coversTarget: d.coversTarget,
                       packetsRead: demuxCounters.packets &- startPackets)
    }

    /// The landing when memory decides it: the frame grid, or the container's
    /// keyframe index with the presentation times already known
    /// (`LandingResolver.fromIndexInMemory`). No I/O: the host's reads are
    /// re-pointed inside the window when it holds the landing's keyframe, else
    /// the window is emptied and the demuxer positioned by the next read (`positionLost` with
    /// `lazyKey`; `restoreReadPosition`), which reports any error of that
    /// positioning and, having failed, tries again at the read after. Flags and
    /// seek id are those of an eager landing (`land`). A run of such seeks
    /// positions the demuxer once, at the last landing.
    public func resolveFromMemory(_ request: LandingRequest) -> Landing? {
        guard ctx != nil, seekableRangeInMemory().known, seekable, !ioGuard.isInterrupted else { return nil }
        var known = LandingResolver.fromGrid(request, grid: grid)
        if known == nil, request.wantsKeyframe, request.keyframeWindow != nil, let index = keyframeIndex() {
            known = LandingResolver.fromIndexInMemory(request, index: index, grid: grid)
        }
        guard let k = known else { return nil }
        dropPending()
        // The window may hold the keyframe already (memory, no I/O), as position(at:) would find it.
        let inWindow = contiguous ? window.firstIndex(where: {
            $0.pointee.stream_index == referenceStream && Self.isKey($0) && landPTS($0) == k.key.pts
        }) : nil
        land(k.pts, seekID: request.seekID)
        if let i = inWindow {
            cursor = i
        } else {
            // The window is of another place: let it go (memory only), so that nothing (a step
            // extending it) mistakes it for the landing's; the next read positions and refills it.
            clearWindow()
            lazyKey = (k.pts, k.key)
            positionLost = true
        }
        return Landing(pts: k.pts, isKeyframe: k.pts == k.key.pts, resolution: k.resolution, coversTarget: k.covers,
                       packetsRead: 0)
    }

    /// The resolver's scan (LandingResolver.scan) over this engine's window;
    /// records what it proves about the frame grid.
    func scanFrom(target T: Int64, exactTarget: Rational? = nil, window kw: ClosedRange<Int64>?, wantsKeyframe: Bool,
                  shouldStop: () -> Bool) throws -> LandingScan {
        // Byte steps back (MPEG-TS), sized from what the grid learned.
        let rate = scanBytesPerTick()
        let gap = rate != nil ? grid.typicalKeyframeGap : nil
        let s = try LandingResolver.scan(self, target: T, exactTarget: exactTarget, window: kw,
                                         wantsKeyframe: wantsKeyframe,
                                         firstFrame: range?.lowerBound ?? timeline.originTicks,
                                         ticksPerSecond: ticksPerSecond, settleCount: settleCount,
                                         bytesPerTick: rate, keyframeGap: gap,
                                         keyframeAnchor: gap != nil ? grid.nearestKnownKeyframe(to: T) : nil,
                                         costlySeeks: gate.remoteOrigin,
                                         shouldStop: shouldStop)
        dropPending()
        contiguous = true
        atEOF = s.reachedEnd
        recordWindow()
        return s
    }

    // MARK: Frame stepping

    /// Moves `count` frames from `from` along the grid. Returns the new frame's
    /// pts, or nil when there are not that many frames in that direction.
    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        guard let l = try stepLanding(from: from, forward: forward, count: count, seekID: seekID, shouldStop: shouldStop) else {
            return .noFrame
        }
        return .landed(l)
    }

    func stepLanding(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepLanding? {
        _ = try liveContext()
        clearStickyIOError()
        guard seekable else { throw EngineError(.unsupported) }
        ioGuard.begin(stop: shouldStop)
        defer { ioGuard.end() }
        let startPackets = demuxCounters.packets
        guard let r = try seekableRange() else { throw EngineError(.unsupported) }
        let f0 = min(max(from ?? r.lowerBound, r.lowerBound), r.upperBound)
        // Refused without reading when the range (or the container's exact
        // frame count) proves there are not that many frames that way.
        if LandingResolver.stepIsImpossible(count: count, forward: forward, from: f0, range: r,
                                            frameCount: exactFrameCount()) {
            return nil
        }
        if grid.frame(from: f0, offset: 0) == nil {
            _ = try scanFrom(target: f0, window: nil, wantsKeyframe: false, shouldStop: shouldStop)
        }
        var target: Int64?
        for _ in 0..<1_000_000 {
            if let t = grid.frame(from: f0, offset: forward ? count : -count) { target = t; break }
            guard let cov = grid.coverage(around: f0) else { return nil }
            if forward {
                if cov.upperBound == Int64.max { return nil }
                // Read as many reference packets as frames are still missing
                // (at least one, at most a window's worth) before recording.
                let missing = count - (grid.framesKnown(after: f0) ?? 0)
                try extendRun(cov, packets: min(max(1, missing), Self.maxWindowPackets / 2), shouldStop: shouldStop)
            } else {
                if cov.lowerBound <= r.lowerBound { return nil }
                // Read only the GOP before the proven run, positioned by byte
                // offset where timestamp seeks land imprecisely (MPEG-TS); else
                // scan back from the frame before the run.
                var scanned = false
                if positionsByByte, let k = grid.keyframe(for: cov.lowerBound), k.pts == cov.lowerBound,
                   let back = LandingResolver.backwardByteSpan(before: k, grid: grid, ticksPerSecond: ticksPerSecond,
                                                               fallbackBytesPerTick: fileBytesPerTick(r)) {
                    let s = try LandingResolver.scanBackward(self, into: k, back: back, settleCount: settleCount,
                                                             shouldStop: shouldStop)
                    dropPending()
                    if let s = s {
                        contiguous = true
                        atEOF = s.reachedEnd
                        recordWindow()
                        scanned = true
                    }
                }
                if !scanned {
                    _ = try scanFrom(target: cov.lowerBound &- 1, window: nil, wantsKeyframe: false, shouldStop: shouldStop)
                }
                // Without dts (Matroska after a seek) the scan may stop short of
                // proving the frames up to the old segment: read on until it does.
                try extendWindow(untilDTS: cov.lowerBound &- 1, shouldStop: shouldStop)
                guard let now = grid.coverage(around: f0), now.lowerBound < cov.lowerBound else {
                    // The frames before the proven run cannot be connected to
                    // it: packets between them are missing or unreadable
                    // (corrupt media, or the file changed under us). That is
                    // the media's fault, not a bug: a typed error.
                    throw EngineError(.invalidData)
                }
            }
        }
        guard let t = target, let k = grid.keyframe(for: t) else { return nil }
        if try !position(at: k, shouldStop: shouldStop) {
            let s = try scanFrom(target: t, window: nil, wantsKeyframe: false, shouldStop: shouldStop)
            cursor = s.lastKeyLE?.index ?? s.firstKey.index
        }
        land(t, seekID: seekID)
        return StepLanding(pts: t, packetsRead: demuxCounters.packets &- startPackets)
    }

    /// The reference stream's exact number of packets, when the container's
    /// complete index lists every sample (mov/MP4, see keyframeIndex()): an
    /// upper bound of its frames. nil otherwise.
    func exactFrameCount() -> Int64? {
        guard keyframeIndex() != nil, let c = ctx, let fmt = c.pointee.iformat,
              String(cString: fmt.pointee.name).hasPrefix("mov,"),
              let st = c.pointee.streams[Int(referenceStream)], st.pointee.nb_frames > 0 else { return nil }
        return st.pointee.nb_frames
    }

    /// Reads on until the window's largest reference dts reaches `d` (or EOF).
    func extendWindow(untilDTS d: Int64, shouldStop: () -> Bool) throws {
        guard contiguous else { return }
        while !atEOF && (windowMaxDTS ?? Int64.min) < d {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let p = try readRaw() else { atEOF = true; break }
            appendToWindow(p)
        }
        recordWindow()
    }

    /// Extends the proven run `cov` forward: reads `n` more reference packets
    /// into the window when the window is contiguous and starts inside the run
    /// (so what it proves joins the run), else scans from the run's end. A
    /// window that outgrows its cap drops whole GOPs from its front (the run
    /// stays proven in the grid; the host's read position is then restored
    /// at the playhead, unless the step lands), so a long step never loses
    /// contiguity and never re-reads what it proved.
    func extendRun(_ cov: ClosedRange<Int64>, packets n: Int, shouldStop: () -> Bool) throws {
        let joins = contiguous && window.first.flatMap { landPTS($0) }.map { cov.contains($0) } == true
        if !joins {
            _ = try scanFrom(target: cov.upperBound, window: nil, wantsKeyframe: false, shouldStop: shouldStop)
            trimWindow()
            return
        }
        var refs = 0
        while refs < n {
            if shouldStop() { throw EngineError(.cancelled) }
            guard let p = try readRaw() else { atEOF = true; break }
            appendToWindow(p)
            if p.pointee.stream_index == referenceStream { refs += 1 }
            if window.count > Self.maxWindowPackets || windowBytes > ioGuard.policy.maxBufferBytes / 2 {
                recordWindow()
                dropLeadingGOPs()
            }
        }
        recordWindow()
    }

    /// Drops the window's packets before its last reference keyframe (the
    /// frames they proved are in the grid already). The host's cursor may
    /// point into them: its read position is then lost (restored at the
    /// playhead on the next read, unless a landing sets it first).
    func dropLeadingGOPs() {
        guard let cut = window.lastIndex(where: { $0.pointee.stream_index == referenceStream && Self.isKey($0) }),
              cut > 0 else { return }
        for i in 0..<cut { windowBytes &-= Int(max(0, window[i].pointee.size)); free(window[i]) }
        window.removeFirst(cut)
        if cursor < cut { positionLost = true; cursor = 0 } else { cursor -= cut }
        windowMaxDTS = nil
        for p in window where p.pointee.stream_index == referenceStream {
            if let d = Self.dts(p) { windowMaxDTS = max(windowMaxDTS ?? d, d) }
        }
    }
}

/// The engine as the landing resolver's demuxer: a backward timestamp seek on
/// the reference stream, and the packet window.
extension FFmpegEngine: LandingDemuxer {
    public func seek(toTicks ticks: Int64) throws -> Bool {
        _ = try liveContext()
        return seek(to: ticks) >= 0
    }

    public func resetWindow() {
        dropPending()
        clearWindow()
    }

    public func next() throws -> PacketHeader? {
        dropPending()
        guard let p = try readRaw() else { return nil }
        pending = p
        return PacketHeader(stream: p.pointee.stream_index, pts: landPTS(p), dts: Self.dts(p), isKey: Self.isKey(p),
                            isDiscard: notLandable(p), pos: p.pointee.pos >= 0 ? p.pointee.pos : nil)
    }

    public func keep() {
        guard let p = pending else { return }
        pending = nil
        appendToWindow(p)
    }

    public func drop() { dropPending() }

    /// MPEG-TS/PS (timestamps that may jump, byte seeks allowed): the
    /// demuxers whose timestamp seeks resync near a dts on a non-key packet.
    public var positionsByByte: Bool {
        guard let c = ctx, let fmt = c.pointee.iformat, c.pointee.pb != nil, seekable else { return false }
        let flags = fmt.pointee.flags
        return (flags & AVFMT_TS_DISCONT) != 0 && (flags & AVFMT_NO_BYTE_SEEK) == 0
    }

    public func seek(toByte offset: Int64) throws -> Bool {
        let c = try liveContext()
        guard offset >= 0 else { return false }
        ioGuard.extend()
        return av_seek_frame(c, -1, offset, AVSEEK_FLAG_BYTE) >= 0
    }

    public func seek(toIndexTimestamp timestamp: Int64) throws -> Bool {
        let c = try liveContext()
        ioGuard.extend()
        // mov searches its index for `timestamp - (min_corrected_pts +
        // dts_shift)`, a per-file constant of a few frames that libavformat
        // does not publish: aim halfway to the next keyframe entry, so that the
        // search finds this one whatever that constant (under half a GOP). The
        // resolver checks where the seek landed.
        var aim = timestamp
        if let e = keyIndex?.entries, let i = e.firstIndex(where: { $0.timestamp == timestamp }),
           (ctx?.pointee.iformat.map { String(cString: $0.pointee.name).hasPrefix("mov,") } ?? false) {
            let gap = i + 1 < e.count ? e[i + 1].timestamp &- timestamp : (i > 0 ? timestamp &- e[i - 1].timestamp : 0)
            aim = timestamp &+ max(0, gap / 2)
        }
        return av_seek_frame(c, referenceStream, aim, fpx_avseek_flag_backward()) >= 0
    }

    func dropPending() {
        guard let p = pending else { return }
        pending = nil
        free(p)
    }
}
