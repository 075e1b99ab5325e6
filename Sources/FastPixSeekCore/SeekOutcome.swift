// FinishReason (why a seek's completion was delivered) and LandingResolution (how the
// landing was chosen) are generated from seek.h: ABIEnums.swift.

/// Whether the target was moved into the seekable range first. The C type is `fpx_clamp`.
public enum SeekClamp: Hashable, Sendable {
    case none
    case toSeekableStart(requested: MediaTime, clampedTo: MediaTime)
    case toSeekableEnd(requested: MediaTime, clampedTo: MediaTime)
    case seekableRangeUnknown

    public var kind: Int32 {
        switch self {
        case .none: return ClampKindCode.none.rawValue
        case .toSeekableStart: return ClampKindCode.toSeekableStart.rawValue
        case .toSeekableEnd: return ClampKindCode.toSeekableEnd.rawValue
        case .seekableRangeUnknown: return ClampKindCode.seekableRangeUnknown.rawValue
        }
    }

    /// False for `.none` and `.seekableRangeUnknown`: an unknown range is an
    /// absence of information, not a move.
    public var didClamp: Bool {
        switch self {
        case .toSeekableStart, .toSeekableEnd: return true
        case .none, .seekableRangeUnknown: return false
        }
    }

    public var clampedTo: MediaTime {
        switch self {
        case .toSeekableStart(_, let c), .toSeekableEnd(_, let c): return c
        case .none, .seekableRangeUnknown: return .invalid
        }
    }

    /// The target actually used.
    public func clampedTarget(requested: MediaTime) -> MediaTime {
        didClamp ? clampedTo : requested
    }

    public var explanation: StaticString {
        switch self {
        case .none: return "The target was inside the seekable range; nothing was moved."
        case .toSeekableStart: return "The target was before the start of the seekable range and was moved to its first frame."
        case .toSeekableEnd: return "The target was past the end of the seekable range and was moved to its end: the last frame, or the live edge of a live stream."
        case .seekableRangeUnknown: return "No seekable range was known, so the target was not range-checked; the seek proceeded unmodified."
        }
    }

    /// Clamps `target` into [start, end]; `nil` range gives `.seekableRangeUnknown`.
    public static func clamp(_ target: MediaTime, into range: (start: MediaTime, end: MediaTime)?) -> SeekClamp {
        guard let range = range else { return .seekableRangeUnknown }
        if MediaTime.compare(target, range.start) < 0 { return .toSeekableStart(requested: target, clampedTo: range.start) }
        if MediaTime.compare(target, range.end) > 0 { return .toSeekableEnd(requested: target, clampedTo: range.end) }
        return .none
    }
}

/// The media-time verdict. The C type is `fpx_accuracy`.
public struct SeekAccuracy: Hashable, Sendable {
    public var requestedMediaTime: MediaTime
    public var landedMediaTime: MediaTime
    public var toleranceBefore: MediaTime
    public var toleranceAfter: MediaTime
    public var withinRequestedTolerance: Bool
    /// landed - requested, exact; invalid when not landed.
    public var delta: MediaTime

    public var deltaSeconds: Double { delta.seconds }
    public var absoluteDeltaSeconds: Double { abs(delta.seconds) }

    /// The verdict, computed in exact rational time.
    public init(requested: MediaTime, landed: MediaTime, toleranceBefore: MediaTime, toleranceAfter: MediaTime) {
        self.requestedMediaTime = requested
        self.landedMediaTime = landed
        self.toleranceBefore = toleranceBefore
        self.toleranceAfter = toleranceAfter
        // A tolerance of +infinity bounds nothing on its side (at-or-after seeks: after).
        let unboundedAfter = toleranceAfter.isNumeric ? false : toleranceAfter.flags.contains(.positiveInfinity)
        if let r = requested.rational, let l = landed.rational,
           let b = toleranceBefore.rational, let a = unboundedAfter ? Rational(0) : toleranceAfter.rational {
            self.withinRequestedTolerance = !(l < r - b) && (unboundedAfter || !(r + a < l))
            self.delta = MediaTime(exactly: l - r, preferredTimescales: [requested.timescale, landed.timescale])
        } else {
            self.withinRequestedTolerance = false
            self.delta = landed.isNumeric && requested.isNumeric ? MediaTime.subtract(landed, requested) : .invalid
        }
    }
}

/// Everything known about one finished seek. The C type is `fpx_seek_outcome`.
public struct SeekOutcome: Sendable {
    public var seekID: UInt64
    public var precision: SeekPrecision
    /// Which frame the seek was to land on (`.atOrAfter`: C kind FPX_PRECISION_AT_OR_AFTER).
    public var convention: FrameConvention = .onScreen
    public var reason: FinishReason
    public var error: ErrorCode?
    public var latencyNanoseconds: UInt64
    public var accuracy: SeekAccuracy
    public var clamp: SeekClamp
    public var resolution: LandingResolution
    public var frameCoversTarget: Bool
    public var landedIsKeyframe: Bool
    public var streamIndex: Int32
    public var landedStreamPTS: Int64?
    public var timeline: Timeline?
    public var packetsRead: UInt64
    /// HLS: the target was in a hole (seek.h, "Gaps").
    public var landedPastHole: HoleReason = .none

    public var finished: Bool { reason == .completed }
    public var requestedTime: Double { accuracy.requestedMediaTime.seconds }
    public var landedTime: Double { accuracy.landedMediaTime.seconds }
    public var latency: Double { Double(latencyNanoseconds) / 1e9 }
}
