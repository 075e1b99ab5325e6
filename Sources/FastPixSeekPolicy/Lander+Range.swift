/// The seekable range (first and last frame, measured once) and the container's keyframe
/// index (read once, trusted or not: `IndexTrust`).
extension Lander {
    // MARK: The container's keyframe index

    /// The trusted container index, read once through the seam after the range is measured.
    func keyframeIndex(_ s: Seam) -> KeyframeIndex? {
        if indexRead { return keyIndex }
        guard let r = range else { return nil }
        indexRead = true
        guard let f = s.containerIndex() else { return nil }
        container = f.container
        containerFrameCount = f.frameCount
        keyIndex = IndexTrust.trusted(f, range: r, ticksPerSecond: facts.ticksPerSecond, hasVideo: facts.hasVideo)
        return keyIndex
    }

    /// index_mode OFF: no container index; a landing the grid does not know is scanned.
    public func disableContainerIndex() {
        indexRead = true
        keyIndex = nil
    }

    /// Where a seek for index entry `timestamp` aims: mov searches its index for
    /// `timestamp - (min_corrected_pts + dts_shift)`, a per-file constant of a
    /// few frames libavformat does not publish, so aim halfway to the next
    /// keyframe entry (the resolver checks where it landed).
    func indexAim(_ timestamp: Int64) -> Int64 {
        guard container == .mov, let e = keyIndex?.entries,
              let i = e.firstIndex(where: { $0.timestamp == timestamp }) else { return timestamp }
        let gap = i + 1 < e.count ? e[i + 1].timestamp &- timestamp : (i > 0 ? timestamp &- e[i - 1].timestamp : 0)
        return timestamp &+ max(0, gap / 2)
    }

    /// The reference stream's exact number of packets when a trusted mov index lists every sample.
    func exactFrameCount(_ s: Seam) -> Int64? {
        guard keyframeIndex(s) != nil, container == .mov, containerFrameCount > 0 else { return nil }
        return containerFrameCount
    }

    // MARK: Seekable range

    /// [first frame, last frame], measured once: the smallest landable pts of the
    /// opening packets, and the largest of the tail (positioned near the end,
    /// read to EOF, backing off when too few packets came) read whole: on a file
    /// cut short, the last frame before the cut (`scanLastFrame`). Leaves the reads
    /// at the start, with no landing.
    public func seekableRange(_ s: Seam) throws -> ClosedRange<Int64>? {
        if rangeKnown { return range }
        guard facts.seekable else { rangeKnown = true; range = nil; return nil }
        let first = try scanFirstFrame(s)
        let last = try scanLastFrame(s)
        rangeKnown = true
        if let f = first, let l = last, f <= l { range = f...l } else { range = nil }
        clearWindow(s)
        _ = try move(s, .start)
        stamp.forgetLanding()
        positionLost = false
        return range
    }

    func scanFirstFrame(_ s: Seam) throws -> Int64? {
        _ = try move(s, .start)
        var minPTS: Int64?
        var refPackets = 0, after = 0
        var sawKey = false
        var firstKey: Int64?, leading: [Int64] = [], beforeKey: [Int64] = []
        var midGOP = false
        while let e = try read(s) {
            s.release(e.packet)
            guard e.header.stream == ref else { continue }
            refPackets += 1
            if refPackets == 1 && !e.header.isKey { midGOP = true }
            if e.header.isKey {
                if !sawKey { firstKey = e.presents ?? e.header.dts }
                sawKey = true
                if firstKeyframeOffset == nil, let p = e.presents, let d = e.header.dts { firstKeyframeOffset = p &- d }
            }
            if !e.notLandable, let t = e.presents ?? e.header.dts {
                if minPTS == nil || t < minPTS! { minPTS = t; after = 0 } else { after += 1 }
                if sawKey, let k = firstKey, t < k { leading.append(t) }
                if !sawKey { beforeKey.append(t) }
            }
            // Enough packets past the smallest pts that nothing earlier can follow.
            if sawKey && minPTS != nil && after > Budget.firstFrameSettlePackets(settleCount: facts.settleCount) { break }
            if refPackets > Budget.firstFrameReferencePackets { break }
        }
        // Cut mid-GOP (HLS `split_by_time`): the frames read before the first keyframe present
        // before it too, and need an earlier segment's GOP; with no keyframe within the
        // budget, every frame read (SegmentLanding.preRollStart).
        if midGOP {
            head = SegmentHead(keyframe: firstKey, leading: beforeKey.filter { t in firstKey.map { t < $0 } ?? true } + leading,
                               startsMidGOP: true)
        } else {
            head = firstKey.map { SegmentHead(keyframe: $0, leading: leading) }
        }
        return minPTS
    }

    /// The largest landable pts of the tail. A file cut short (an interrupted
    /// download, `head -c`) ends in a packet whose bytes are not all there
    /// (`DemuxedPacket.isCut`: flagged corrupt, or past the file's size): that
    /// packet and every reference packet after it in decode order are no frames
    /// of the range, which ends at the last frame read whole before it, and
    /// `rangeEndsAtCut` says so. A cut packet followed by a whole reference
    /// packet is damage inside the data, not its end: the tail counts as before.
    /// No I/O beyond the tail's reads.
    func scanLastFrame(_ s: Seam) throws -> Int64? {
        let endTicks = facts.durationEndTicks ?? Budget.largestSpan
        var backoff = facts.ticksPerSecond
        rangeEndsAtCut = false
        for _ in 0..<Budget.lastFrameAttempts {
            let target = endTicks &- backoff
            let atStart = target <= facts.originTicks
            if atStart { _ = try move(s, .start) } else if try !move(s, .ticks(target)) { _ = try move(s, .start) }
            var tail = TailScan()
            while let e = try read(s) {
                s.release(e.packet)
                let cut = e.header.isCut(fileSize: facts.fileSize)
                let onRef = e.header.stream == ref
                var last: Int64?
                if onRef, !e.notLandable, let t = e.presents ?? e.header.dts { last = lastFrame(of: e, presenting: t) }
                tail.add(onRef: onRef, cut: cut, lastFrame: last)
            }
            let (m, whole) = tail.result
            if m != nil && whole > Budget.lastFrameTailPackets(settleCount: facts.settleCount) || atStart {
                rangeEndsAtCut = tail.endsAtCut && m != nil
                return m
            }
            backoff = backoff > Budget.largestSpan ? backoff : backoff * 2
        }
        return nil
    }
}

/// Which container index to trust: only one known to be complete, because a
/// keyframe missing from the index must not exist (docs/ARCHITECTURE.md, "The
/// container's keyframe index").
public enum IndexTrust {
    /// - mov/MP4: the sample table lists every sample: complete when it has as
    ///   many entries as the stream has frames (not fragmented) and they reach
    ///   the last frame measured from the file's end;
    /// - Matroska: libavformat's cues (it cues every video keyframe), at least
    ///   three, reaching both ends with no gap over twice the typical (lower median) one;
    /// - everything else: none.
    public static func trusted(_ f: ContainerIndexFacts, range r: ClosedRange<Int64>, ticksPerSecond: Int64,
                               hasVideo: Bool) -> KeyframeIndex? {
        guard f.entries.count > 1 else { return nil }
        let keys = f.entries.filter(\.isKey).map {
            KeyframeIndex.Entry(timestamp: $0.timestamp, pts: nil, landable: !$0.isDiscard)
        }
        guard !keys.isEmpty else { return nil }
        let lastTimestamp = f.entries.map(\.timestamp).max() ?? Int64.min
        switch f.container {
        case .mov:
            guard f.frameCount == Int64(f.entries.count), lastTimestamp &+ ticksPerSecond >= r.upperBound else { return nil }
        case .matroska:
            guard hasVideo, f.writtenByLavf else { return nil }
            let ts = keys.map(\.timestamp)
            guard ts.count >= 3, ts.first! <= r.lowerBound else { return nil }
            var gaps = zip(ts.dropFirst(), ts).map { $0 &- $1 }
            gaps.sort()
            let typical = gaps[(gaps.count - 1) / 2]
            guard typical > 0, gaps.last! <= 2 &* typical, r.upperBound &- ts.last! <= 2 &* typical else { return nil }
        case .other:
            return nil
        }
        return KeyframeIndex(entries: keys, timestampIsPTS: f.container == .matroska)
    }
}
