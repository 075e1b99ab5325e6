import Glibc
import CFFmpeg
import FastPixSeekCore

/// The seekable range: measured on open (first and last frame), published for `liveWindow()`.
extension FFmpegEngine {
    // MARK: Seekable range


    public func liveWindow() -> LiveWindow? {
        let r = Self.publishLock.locked { publishedRange }
        let start = r.map { timeline.itemTime(ofTicks: $0.lowerBound) } ?? .zero
        let end = r.map { timeline.itemTime(ofTicks: $0.upperBound) } ?? durationTime
        guard end.isNumeric else { return nil }
        return LiveWindow(isLive: false, isDateAddressable: false, start: start, end: end, startDateMicroseconds: nil,
                          endDateMicroseconds: nil, firstSequence: 0, lastSequence: 0, targetDuration: .zero,
                          holdBack: .zero)
    }

    public func itemTime(forDateMicroseconds us: Int64) -> MediaTime? { nil }

    public func seekableRangeInMemory() -> (known: Bool, range: ClosedRange<Int64>?) {
        closed ? (false, nil) : (rangeKnown, range)
    }

    public func seekableRange() throws -> ClosedRange<Int64>? {
        if rangeKnown { return range }
        guard seekable else { rangeKnown = true; range = nil; return nil }
        ioGuard.begin()
        defer { ioGuard.end() }
        let first = try scanFirstFrame()
        let last = try scanLastFrame()
        rangeKnown = true
        if let f = first, let l = last, f <= l { range = f...l } else { range = nil }
        let published = range
        Self.publishLock.locked { publishedRange = published }
        // The scans moved the demuxer: start again from the beginning.
        try rewind()
        clearWindow()
        stamp.forgetLanding()
        positionLost = false
        return range
    }

    var settleCount: Int { videoDelay + 1 }

    func scanFirstFrame() throws -> Int64? {
        try rewind()
        var minPTS: Int64?
        var refPackets = 0
        var sawKey = false
        var after = 0
        while let p = try readRaw() {
            defer { free(p) }
            guard p.pointee.stream_index == referenceStream else { continue }
            refPackets += 1
            if Self.isKey(p) { sawKey = true }
            if !notLandable(p), let t = landPTS(p) ?? Self.dts(p) {
                if minPTS == nil || t < minPTS! { minPTS = t; after = 0 } else { after += 1 }
            }
            // Enough packets past the smallest pts that nothing earlier can follow.
            if sawKey && minPTS != nil && after > max(4, 2 * settleCount) { break }
            if refPackets > 512 { break }
        }
        return minPTS
    }

    func scanLastFrame() throws -> Int64? {
        guard let c = ctx else { return nil }
        let nopts = fpx_av_nopts_value()
        var endTicks: Int64 = Int64.max / 4
        if c.pointee.duration != nopts && c.pointee.duration > 0 {
            let tb = AVRational(num: timeline.timeBaseNum, den: timeline.timeBaseDen)
            endTicks = timeline.originTicks &+ av_rescale_q_rnd(c.pointee.duration, AVRational(num: 1, den: fpx_av_time_base()),
                                                               tb, AV_ROUND_UP)
        }
        var backoff = ticksPerSecond
        for _ in 0..<24 {
            let target = endTicks &- backoff
            let atStart = target <= timeline.originTicks
            if atStart { try rewind() } else if seek(to: target) < 0 { try rewind() }
            var maxPTS: Int64?
            var refPackets = 0
            while let p = try readRaw() {
                defer { free(p) }
                guard p.pointee.stream_index == referenceStream else { continue }
                refPackets += 1
                if !notLandable(p), let t = landPTS(p) ?? Self.dts(p) {
                    if maxPTS == nil || t > maxPTS! { maxPTS = t }
                }
            }
            if let m = maxPTS, refPackets > 2 * settleCount + 2 || atStart { return m }
            if atStart { return maxPTS }
            backoff = backoff > Int64.max / 4 ? backoff : backoff * 2
        }
        return nil
    }
}
