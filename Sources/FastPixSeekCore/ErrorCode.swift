/// The library's error codes. The values are the C ABI's `fpx_error` and are
/// never renumbered or reused.
public enum ErrorCode: Int32, Error, CaseIterable, Sendable {
    case invalidHandle = -1
    case invalidArgument = -2
    case invalidTime = -3
    case unknownEnum = -4
    case noMemory = -5
    case noItem = -6
    case itemNotReady = -7
    case itemFailed = -8
    case notFound = -9
    case io = -10
    case timeout = -11
    case invalidData = -12
    case unsupported = -13
    case noStream = -14
    case eof = -15
    case cancelled = -16
    case inCallback = -17
    case wrongMode = -18
    case network = -19
    case noSeekManager = -20
    case `internal` = -21
    case invalidState = -22
    case expired = -23
    case stalled = -24
    case protocolNotAllowed = -25
    case interrupted = -26
    case tooLarge = -27
    case ffmpegMismatch = -28
    case referenceStream = -29
    case noFileDescriptors = -30

    public var name: StaticString {
        switch self {
        case .invalidHandle: return "FPX_ERROR_INVALID_HANDLE"
        case .invalidArgument: return "FPX_ERROR_INVALID_ARGUMENT"
        case .invalidTime: return "FPX_ERROR_INVALID_TIME"
        case .unknownEnum: return "FPX_ERROR_UNKNOWN_ENUM"
        case .noMemory: return "FPX_ERROR_NO_MEMORY"
        case .noItem: return "FPX_ERROR_NO_ITEM"
        case .itemNotReady: return "FPX_ERROR_ITEM_NOT_READY"
        case .itemFailed: return "FPX_ERROR_ITEM_FAILED"
        case .notFound: return "FPX_ERROR_NOT_FOUND"
        case .io: return "FPX_ERROR_IO"
        case .timeout: return "FPX_ERROR_TIMEOUT"
        case .invalidData: return "FPX_ERROR_INVALID_DATA"
        case .unsupported: return "FPX_ERROR_UNSUPPORTED"
        case .noStream: return "FPX_ERROR_NO_STREAM"
        case .eof: return "FPX_ERROR_EOF"
        case .cancelled: return "FPX_ERROR_CANCELLED"
        case .inCallback: return "FPX_ERROR_IN_CALLBACK"
        case .wrongMode: return "FPX_ERROR_WRONG_MODE"
        case .network: return "FPX_ERROR_NETWORK"
        case .noSeekManager: return "FPX_ERROR_NO_SEEK_MANAGER"
        case .internal: return "FPX_ERROR_INTERNAL"
        case .invalidState: return "FPX_ERROR_INVALID_STATE"
        case .expired: return "FPX_ERROR_EXPIRED"
        case .stalled: return "FPX_ERROR_STALLED"
        case .protocolNotAllowed: return "FPX_ERROR_PROTOCOL_NOT_ALLOWED"
        case .interrupted: return "FPX_ERROR_INTERRUPTED"
        case .tooLarge: return "FPX_ERROR_TOO_LARGE"
        case .ffmpegMismatch: return "FPX_ERROR_FFMPEG_MISMATCH"
        case .referenceStream: return "FPX_ERROR_REFERENCE_STREAM"
        case .noFileDescriptors: return "FPX_ERROR_NO_FILE_DESCRIPTORS"
        }
    }

    public var message: StaticString {
        switch self {
        case .invalidHandle: return "invalid handle: NULL, destroyed or not a player"
        case .invalidArgument: return "invalid argument: a NULL pointer or a value out of range"
        case .invalidTime: return "invalid time: NaN, infinite, invalid or timescale <= 0"
        case .unknownEnum: return "unknown enum value"
        case .noMemory: return "out of memory"
        case .noItem: return "no item is attached to the player"
        case .itemNotReady: return "the item is not ready yet"
        case .itemFailed: return "the item failed to load"
        case .notFound: return "not found: missing file, HTTP 404 or unknown id"
        case .io: return "I/O error"
        case .timeout: return "timed out: the I/O timeout, or the call's own time limit, expired"
        case .invalidData: return "invalid data: corrupt, truncated or unrecognised media"
        case .unsupported: return "unsupported protocol or feature"
        case .noStream: return "no audio or video stream to seek on"
        case .eof: return "end of file"
        case .cancelled: return "cancelled"
        case .inCallback: return "not callable from inside a callback"
        case .wrongMode: return "not available in this delivery mode"
        case .network: return "network error: connection refused or host unreachable"
        case .noSeekManager: return "the seek manager is not set up"
        case .internal: return "internal error"
        case .invalidState: return "invalid state: e.g. a scrub update or end without begin"
        case .expired: return "the live segment being read has left the playlist window"
        case .stalled: return "the live playlist stopped updating"
        case .protocolNotAllowed: return "protocol not allowed by the player's protocol policy"
        case .interrupted: return "interrupted: a new seek, cancel, close or destroy stopped the call"
        case .tooLarge: return "too large: the media exceeds the player's buffer cap"
        case .ffmpegMismatch: return "the loaded FFmpeg libraries have other major versions than the library was built against"
        case .referenceStream: return "the reference stream cannot be disabled: seeks resolve on it"
        case .noFileDescriptors: return "out of file descriptors: the process (EMFILE, see ulimit -n) or the system (ENFILE) has none left"
        }
    }
}
