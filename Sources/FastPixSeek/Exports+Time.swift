import CFastPixSeekABI
import FastPixSeekCore

extension MediaTime {
    init(_ t: fpx_time) { self.init(value: t.value, timescale: t.timescale, flags: Flags(rawValue: t.flags)) }
    var c: fpx_time { fpx_time(value: value, timescale: timescale, flags: flags.rawValue) }
}

@_cdecl("fpx_version")
public func fpxVersion() -> UInt32 {
    (UInt32(FPX_VERSION_MAJOR) << 16) | (UInt32(FPX_VERSION_MINOR) << 8) | UInt32(FPX_VERSION_PATCH)
}

@_cdecl("fpx_version_string")
public func fpxVersionString() -> UnsafePointer<CChar> { versionString }

/// "MAJOR.MINOR.PATCH" from the header's macros, allocated once, never freed.
// nonisolated(unsafe): written once by the global's (thread-safe) lazy initializer, then only read.
nonisolated(unsafe) private let versionString: UnsafePointer<CChar> = {
    let s = "\(FPX_VERSION_MAJOR).\(FPX_VERSION_MINOR).\(FPX_VERSION_PATCH)"
    let buf = UnsafeMutablePointer<CChar>.allocate(capacity: s.utf8.count + 1)
    s.withCString { buf.update(from: $0, count: s.utf8.count + 1) }
    return UnsafePointer(buf)
}()

// The strings of the name and error functions are the header's, from the generated
// ABITables.swift (tools/abi_gen.py).
@_cdecl("fpx_error_string")
public func fpxErrorString(_ code: Int32) -> UnsafePointer<CChar> { cString(ABITables.errorString(code)) }

@_cdecl("fpx_error_name")
public func fpxErrorName(_ code: Int32) -> UnsafePointer<CChar> { cString(ABITables.errorName(code)) }

@_cdecl("fpx_time_make")
public func fpxTimeMake(_ value: Int64, _ timescale: Int32) -> fpx_time { MediaTime(value: value, timescale: timescale).c }

@_cdecl("fpx_time_invalid")
public func fpxTimeInvalid() -> fpx_time { MediaTime.invalid.c }

@_cdecl("fpx_time_infinity")
public func fpxTimeInfinity(_ negative: Int32) -> fpx_time {
    (negative != 0 ? MediaTime.negativeInfinity : MediaTime.positiveInfinity).c
}

@_cdecl("fpx_time_from_seconds")
public func fpxTimeFromSeconds(_ seconds: Double, _ timescale: Int32) -> fpx_time {
    MediaTime(seconds: seconds, timescale: timescale).c
}

@_cdecl("fpx_time_to_seconds")
public func fpxTimeToSeconds(_ t: fpx_time) -> Double { MediaTime(t).seconds }

@_cdecl("fpx_time_is_valid")
public func fpxTimeIsValid(_ t: fpx_time) -> Int32 { MediaTime(t).isValid ? 1 : 0 }

@_cdecl("fpx_time_is_numeric")
public func fpxTimeIsNumeric(_ t: fpx_time) -> Int32 { MediaTime(t).isNumeric ? 1 : 0 }

@_cdecl("fpx_time_compare")
public func fpxTimeCompare(_ a: fpx_time, _ b: fpx_time) -> Int32 { Int32(MediaTime.compare(MediaTime(a), MediaTime(b))) }

@_cdecl("fpx_time_subtract")
public func fpxTimeSubtract(_ a: fpx_time, _ b: fpx_time) -> fpx_time { MediaTime.subtract(MediaTime(a), MediaTime(b)).c }

@_cdecl("fpx_precision_exact")
public func fpxPrecisionExact() -> fpx_precision {
    fpx_precision(kind: FPX_PRECISION_EXACT, tolerance: MediaTime(value: 0, timescale: 1).c)
}

@_cdecl("fpx_precision_nearest_keyframe")
public func fpxPrecisionNearestKeyframe(_ tolerance: fpx_time) -> fpx_precision {
    fpx_precision(kind: FPX_PRECISION_NEAREST_KEYFRAME, tolerance: tolerance)
}

@_cdecl("fpx_precision_default")
public func fpxPrecisionDefault() -> fpx_precision {
    fpx_precision(kind: FPX_PRECISION_NEAREST_KEYFRAME, tolerance: MediaTime(value: 1, timescale: 10).c)
}

@_cdecl("fpx_precision_at_or_after")
public func fpxPrecisionAtOrAfter() -> fpx_precision {
    fpx_precision(kind: FPX_PRECISION_AT_OR_AFTER, tolerance: MediaTime(value: 0, timescale: 1).c)
}

/// C precision to Swift, validating the kind and (unless the caller validates it with the
/// target, `SeekTarget`) the tolerance. AT_OR_AFTER is `.exact` with the convention
/// `.atOrAfter` (`seekConvention`).
func seekPrecision(from p: fpx_precision, validatingTolerance: Bool = true) throws -> SeekPrecision {
    switch p.kind.rawValue {
    case FPX_PRECISION_EXACT.rawValue, FPX_PRECISION_AT_OR_AFTER.rawValue: return .exact
    case FPX_PRECISION_DEFAULT.rawValue: return .default
    case FPX_PRECISION_NEAREST_KEYFRAME.rawValue:
        let t = MediaTime(p.tolerance)
        guard !validatingTolerance || SeekPrecision.validate(tolerance: t) else { throw ErrorCode.invalidArgument }
        return .nearestKeyframe(tolerance: t)
    default: throw ErrorCode.unknownEnum
    }
}

/// Which frame a C precision lands on: AT_OR_AFTER's, else the frame on screen.
func seekConvention(from p: fpx_precision) -> FrameConvention {
    p.kind.rawValue == FPX_PRECISION_AT_OR_AFTER.rawValue ? .atOrAfter : .onScreen
}

func cPrecision(_ p: SeekPrecision, _ convention: FrameConvention = .onScreen) -> fpx_precision {
    if convention == .atOrAfter { return fpxPrecisionAtOrAfter() }
    switch p {
    case .exact: return fpxPrecisionExact()
    case .nearestKeyframe(let t): return fpx_precision(kind: FPX_PRECISION_NEAREST_KEYFRAME, tolerance: t.c)
    }
}

@_cdecl("fpx_finish_reason_name")
public func fpxFinishReasonName(_ r: Int32) -> UnsafePointer<CChar> { cString(ABITables.finishReasonName(r)) }

@_cdecl("fpx_clamp_kind_name")
public func fpxClampKindName(_ k: Int32) -> UnsafePointer<CChar> { cString(ABITables.clampKindName(k)) }

@_cdecl("fpx_landing_resolution_name")
public func fpxLandingResolutionName(_ r: Int32) -> UnsafePointer<CChar> { cString(ABITables.landingResolutionName(r)) }

@_cdecl("fpx_item_status_name")
public func fpxItemStatusName(_ s: Int32) -> UnsafePointer<CChar> { cString(ABITables.itemStatusName(s)) }
