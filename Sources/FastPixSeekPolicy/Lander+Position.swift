/// Positioning the demuxer at a keyframe the grid knows, and the byte rates a scan
/// steps back by.
extension Lander {
    // MARK: Positioning at a known keyframe

    /// Points the host's reads at keyframe `k`: in the window when it holds it,
    /// else by its byte offset (where the demuxer positions by byte), else by a
    /// timestamp seek to its pts (demuxers that seek by pts) or dts, corrected
    /// by the learned aim shift and backed off when the seek lands past it. False
    /// when it could not be found where the grid said (the caller scans).
    public func position(at k: FrameGrid.Keyframe, _ s: Seam, shouldStop: () -> Bool) throws -> Bool {
        if let i = window.indexOfKeyframe(presenting: k.pts) {
            window.point(at: i)
            return true
        }
        if try positionByByte(at: k, s, shouldStop: shouldStop) { return true }
        let base = facts.seeksByPTS ? k.pts : (k.dts ?? k.pts)
        var aim = base &+ seekAimShift
        var backoff: Int64 = 0
        for _ in 0..<Budget.repositionAttempts {
            clearWindow(s)
            let anchor = aim &- backoff
            if try !move(s, .ticks(anchor)) { return false }
            var found = false, passed = false
            var earlyBy: Int64?
            while let e = try read(s) {
                if shouldStop() { s.release(e.packet); throw EngineError(.cancelled) }
                if found { window.append(e); break }
                guard e.header.stream == ref, e.header.isKey, let t = e.presents else {
                    let late = e.header.stream == ref && (e.header.dts ?? Int64.min) > (k.dts ?? k.pts)
                    s.release(e.packet)
                    if late { passed = true; break }
                    continue
                }
                if t == k.pts { found = true; window.markContiguous(); window.append(e); continue }
                s.release(e.packet)
                if t > k.pts { passed = true; break }
                if backoff == 0 && earlyBy == nil { earlyBy = k.pts &- t; break }
            }
            if found {
                if backoff == 0 { seekAimShift = anchor &- base }
                // Any non-reference packets read after K stay in the window too.
                window.point(at: 0)
                return true
            }
            if let e = earlyBy {
                aim = aim &+ e
                continue
            }
            if !passed { return false }
            backoff = max(facts.ticksPerSecond, backoff &* 2)
        }
        return false
    }

    /// By a byte seek to `k`'s offset (MPEG-TS): the first reference packet read must be `k`.
    func positionByByte(at k: FrameGrid.Keyframe, _ s: Seam, shouldStop: () -> Bool) throws -> Bool {
        guard facts.positionsByByte, let offset = k.pos, offset >= 0 else { return false }
        clearWindow(s)
        guard try move(s, .byte(offset)) else { return false }
        while let e = try read(s) {
            if shouldStop() { s.release(e.packet); throw EngineError(.cancelled) }
            guard e.header.stream == ref else { s.release(e.packet); continue }
            guard e.header.isKey, e.presents == k.pts else { s.release(e.packet); return false }
            window.markContiguous()
            window.append(e)
            window.point(at: 0)
            return true
        }
        return false
    }

    // MARK: Rates

    /// The file's average bytes per tick over the seekable range.
    func fileBytesPerTick(_ r: ClosedRange<Int64>) -> Double? {
        guard let size = facts.fileSize, size > 0, r.upperBound > r.lowerBound else { return nil }
        return Double(size) / Double(r.upperBound &- r.lowerBound)
    }

    /// The bytes per tick a scan steps back by where positioning is by byte:
    /// the grid's, else the file's average; nil elsewhere or before the range is known.
    func scanBytesPerTick() -> Double? {
        guard facts.positionsByByte else { return nil }
        if let r = grid.bytesPerTick { return r }
        return range.flatMap { fileBytesPerTick($0) }
    }
}
