// Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit.
//
// The library's error codes: the C ABI's fpx_error, whose values are never renumbered
// or reused. `message` is the header's own text for the code (fpx_error_string).
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
    case encryption = -31
    case noPreview = -32
    case previewMalformed = -33

    /// The header's name of the code ("FPX_ERROR_TIMEOUT").
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
        case .encryption: return "FPX_ERROR_ENCRYPTION"
        case .noPreview: return "FPX_ERROR_NO_PREVIEW"
        case .previewMalformed: return "FPX_ERROR_PREVIEW_MALFORMED"
        }
    }

    /// The header's description of the code (its doc comment in seek.h).
    public var message: StaticString {
        switch self {
        case .invalidHandle: return "invalid handle: NULL, destroyed or foreign"
        case .invalidArgument: return "invalid argument: a NULL pointer or an out-of-range value"
        case .invalidTime: return "invalid time: NaN, infinite, invalid, timescale <= 0"
        case .unknownEnum: return "an enum value this library does not know"
        case .noMemory: return "out of memory"
        case .noItem: return "nothing is attached to the player"
        case .itemNotReady: return "the item is still loading"
        case .itemFailed: return "the item failed to load; see its status"
        case .notFound: return "missing file, HTTP 404, unknown listener id"
        case .io: return "I/O error: read error, connection reset"
        case .timeout: return "timed out: the player's I/O timeout, or the call's own time limit (timeout_ms), expired"
        case .invalidData: return "corrupt, truncated or unrecognised media"
        case .unsupported: return "a protocol or feature this build cannot do, or a local path that is no regular file (a directory, FIFO, device, socket)"
        case .noStream: return "no audio or video stream to seek on"
        case .eof: return "end of the item's packets"
        case .cancelled: return "cancelled: the item was closed or replaced, or the player destroyed"
        case .inCallback: return "not callable from inside a callback"
        case .wrongMode: return "not available in this delivery mode (e.g. dispatch on a FPX_DELIVERY_THREAD player)"
        case .network: return "connection refused, unreachable host"
        case .noSeekManager: return "the operation needs fpx_player_setup_seek_manager"
        case .internal: return "internal error: a bug, please report it"
        case .invalidState: return "invalid state (e.g. fpx_scrub_update without fpx_scrub_begin)"
        case .expired: return "the live segment being read left the playlist window"
        case .stalled: return "a live playlist stopped updating"
        case .protocolNotAllowed: return "refused by the protocol policy (see \"Untrusted media\")"
        case .interrupted: return "a blocked read stopped by a seek, cancel, close or destroy"
        case .tooLarge: return "media exceeds the player's buffer cap (max_buffer_bytes)"
        case .ffmpegMismatch: return "loaded FFmpeg majors differ from the build's; see \"FFmpeg ABI\""
        case .referenceStream: return "the reference stream cannot be disabled"
        case .noFileDescriptors: return "the process (EMFILE) or system (ENFILE) is out of file descriptors"
        case .encryption: return "HLS encryption that cannot be applied: an EXT-X-KEY METHOD other than NONE or AES-128 (SAMPLE-AES...), a KEYFORMAT other than identity, a key that cannot be fetched or is not 16 bytes, or a segment that does not decrypt; a DASH MPD with ContentProtection (added in 0.4.0)"
        case .noPreview: return "the player has no preview source: show a timestamp-only preview (added in 0.4.0)"
        case .previewMalformed: return "a preview source (spritesheet.json, WebVTT track) with a field that does not parse; fpx_player_set_preview_source names the field (added in 0.4.0)"
        }
    }
}
