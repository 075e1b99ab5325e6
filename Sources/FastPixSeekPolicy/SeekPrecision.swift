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

/// Which frame a zero-tolerance (`.exact`) seek lands on: the convention of the tool or
/// API the target comes from. The C kind `FPX_PRECISION_AT_OR_AFTER` is `.exact` with
/// `.atOrAfter` (seek.h, "Conventions"); every other kind is `.onScreen`.
public enum FrameConvention: Hashable, Sendable {
    /// The frame on screen at t: the largest pts <= t (the seed's `exact`, AVFoundation, mpv).
    case onScreen
    /// The first frame at or after t: the smallest pts >= t (`ffmpeg -ss t` decoding, the
    /// PyAV decode-and-skip recipe, frame-index APIs). Past the last frame there is none:
    /// the target is clamped to the last frame first (`SeekClamp`), which is then the landing.
    case atOrAfter
}

/// A seek's target time and precision, validated once, where it enters (the C
/// layer, a scrub end, the Swift API): a seek that has one never fails for them later.
public struct SeekTarget: Hashable, Sendable {
    public let time: MediaTime
    public let precision: SeekPrecision
    /// Which frame an `.exact` seek lands on (`.onScreen` for keyframe precisions).
    public let convention: FrameConvention

    /// Throws `.invalidTime` for a time that is not numeric, then
    /// `.invalidArgument` for a tolerance `SeekPrecision.validate` refuses, or for
    /// `.atOrAfter` with a keyframe precision (the convention is of exact landings).
    public init(time: MediaTime, precision: SeekPrecision, convention: FrameConvention = .onScreen) throws {
        guard time.isNumeric else { throw ErrorCode.invalidTime }
        if case .nearestKeyframe(let tol) = precision {
            guard SeekPrecision.validate(tolerance: tol), convention == .onScreen else { throw ErrorCode.invalidArgument }
        }
        self.time = time
        self.precision = precision
        self.convention = convention
    }

    /// The same precision and convention (already validated) at another time; throws
    /// `.invalidTime` for a time that is not numeric.
    public func at(_ other: MediaTime) throws -> SeekTarget {
        try SeekTarget(time: other, precision: .exact).with(precision, convention)
    }

    private func with(_ p: SeekPrecision, _ c: FrameConvention) -> SeekTarget { SeekTarget(checked: time, p, c) }
    private init(checked time: MediaTime, _ precision: SeekPrecision, _ convention: FrameConvention) {
        self.time = time; self.precision = precision; self.convention = convention
    }
}
