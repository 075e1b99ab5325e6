/// The mapping between the item timeline (0 = the item's start) and the
/// reference stream's timestamps (ticks of `num/den` seconds).
public struct Timeline: Hashable, Sendable {
    public var timeBaseNum: Int32
    public var timeBaseDen: Int32
    /// The stream pts of item time 0.
    public var originTicks: Int64

    public init(timeBaseNum: Int32, timeBaseDen: Int32, originTicks: Int64) {
        self.timeBaseNum = timeBaseNum > 0 ? timeBaseNum : 1
        self.timeBaseDen = timeBaseDen > 0 ? timeBaseDen : 1
        self.originTicks = originTicks
    }

    /// Ticks per second as a rational: den/num.
    var ticksPerSecond: Rational { Rational(Int128(timeBaseDen), Int128(timeBaseNum)) }

    /// The item time of a stream pts, exactly (value in units of 1/den).
    public func itemTime(ofTicks pts: Int64) -> MediaTime {
        let rel = Rational(Int128(pts) - Int128(originTicks), 1) * Rational(Int128(timeBaseNum), Int128(timeBaseDen))
        return MediaTime(rational: rel, preferredTimescales: [timeBaseDen])
    }

    /// A duration of `ticks` stream ticks as a time.
    public func duration(ofTicks ticks: Int64) -> MediaTime {
        let r = Rational(Int128(ticks) * Int128(timeBaseNum), Int128(timeBaseDen))
        return MediaTime(rational: r, preferredTimescales: [timeBaseDen])
    }

    /// The item time as a rational number of stream ticks (absolute pts).
    public func ticks(of t: MediaTime) -> Rational? {
        guard let r = t.rational else { return nil }
        return r * ticksPerSecond + Rational(Int128(originTicks), 1)
    }

    /// A duration as an exact rational number of ticks.
    public func ticks(ofDuration t: MediaTime) -> Rational? {
        guard let r = t.rational else { return nil }
        return r * ticksPerSecond
    }

    /// A duration in whole ticks, rounded down (never widens a tolerance).
    public func wholeTicks(ofDuration t: MediaTime) -> Int64? {
        guard let r = t.rational else { return nil }
        return Int64(exactly: (r * ticksPerSecond).floor)
    }
}
