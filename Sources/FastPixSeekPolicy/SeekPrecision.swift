/// How precisely a seek should land. The C type is `fpx_precision`.
public enum SeekPrecision: Hashable, Sendable {
    /// Zero tolerance: the frame whose presentation interval holds the target.
    case exact
    /// The keyframe nearest the target within +/- tolerance.
    case nearestKeyframe(tolerance: MediaTime)

    /// Exactly `.nearestKeyframe(tolerance: 1/10 s)`.
    public static let `default` = SeekPrecision.nearestKeyframe(tolerance: MediaTime(value: 1, timescale: 10))

    public var tolerance: MediaTime {
        switch self {
        case .exact: return .zero
        case .nearestKeyframe(let t): return t
        }
    }

    /// The largest tolerance accepted: 2^31 seconds (about 68 years). Any
    /// larger one could not be expressed in ticks of every stream time base,
    /// so it would fail only when the seek runs; it is refused up front.
    public static let maxToleranceSeconds: Int64 = 1 << 31

    /// Validates a tolerance up front, so that a seek accepted with it never
    /// fails for it later: numeric, not negative, at most
    /// `maxToleranceSeconds`, and no flag bits other than VALID.
    public static func validate(tolerance: MediaTime) -> Bool {
        tolerance.isNumeric && tolerance.flags == .valid && MediaTime.compare(tolerance, .zero) >= 0
            && MediaTime.compare(tolerance, MediaTime(value: maxToleranceSeconds, timescale: 1)) <= 0
    }
}

/// A seek's target time and precision, validated once, where it enters (the C
/// layer, a scrub end, the Swift API): a seek that has one never fails for them later.
public struct SeekTarget: Hashable, Sendable {
    public let time: MediaTime
    public let precision: SeekPrecision

    /// Throws `.invalidTime` for a time that is not numeric, then
    /// `.invalidArgument` for a tolerance `SeekPrecision.validate` refuses.
    public init(time: MediaTime, precision: SeekPrecision) throws {
        guard time.isNumeric else { throw ErrorCode.invalidTime }
        if case .nearestKeyframe(let tol) = precision, !SeekPrecision.validate(tolerance: tol) {
            throw ErrorCode.invalidArgument
        }
        self.time = time
        self.precision = precision
    }

    /// The same precision (already validated) at another time; throws
    /// `.invalidTime` for a time that is not numeric.
    public func at(_ other: MediaTime) throws -> SeekTarget {
        try SeekTarget(time: other, precision: .exact).with(precision)
    }

    private func with(_ p: SeekPrecision) -> SeekTarget { SeekTarget(checked: time, p) }
    private init(checked time: MediaTime, _ precision: SeekPrecision) { self.time = time; self.precision = precision }
}
