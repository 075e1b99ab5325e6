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

    public var seekableRangeEndsAtCut: Bool { Self.publishLock.locked { publishedEndsAtCut } }

    public func itemTime(forDateMicroseconds us: Int64) -> MediaTime? { nil }

    public func seekableRangeInMemory() -> (known: Bool, range: ClosedRange<Int64>?) {
        closed ? (false, nil) : (lander.rangeKnown, lander.range)
    }

    /// Measured once by the policy (`Lander.seekableRange`), then published for `liveWindow()`.
    public func seekableRange() throws -> ClosedRange<Int64>? {
        if lander.rangeKnown { return lander.range }
        guard seekable else { return try lander.seekableRange(self) }
        ioGuard.begin()
        defer {
            ioGuard.end()
            if lander.rangeKnown {
                let published = lander.range, cut = lander.rangeEndsAtCut
                Self.publishLock.locked {
                    publishedRange = published
                    publishedEndsAtCut = cut
                }
            }
        }
        return try lander.seekableRange(self)
    }
}
