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
