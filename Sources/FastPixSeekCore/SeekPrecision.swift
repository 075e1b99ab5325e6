/// How precisely a seek should land. The C type is `fpx_precision`.
public enum SeekPrecision: Hashable {
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

    /// Validates a tolerance: numeric and not negative.
    public static func validate(tolerance: MediaTime) -> Bool {
        tolerance.isNumeric && MediaTime.compare(tolerance, .zero) >= 0
    }
}
