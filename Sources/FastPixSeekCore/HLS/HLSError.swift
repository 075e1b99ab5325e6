/// Why a playlist could not be parsed. Parsing never traps: every defect in the
/// input ends up here.
public enum HLSError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The text does not start with `#EXTM3U` (or starts with a byte-order mark,
    /// which RFC 8216 section 4.1 forbids).
    case notAPlaylist
    /// The bytes are not valid UTF-8 (RFC 8216 section 4.1).
    case invalidEncoding
    /// A tag, attribute, number or URI line is malformed, or the playlist breaks
    /// a rule a client MUST enforce. `line` is 1-based (0: the playlist as a whole).
    case malformed(line: Int, reason: String)
    /// A feature this parser refuses rather than mis-handle: encryption
    /// (`EXT-X-KEY` with a METHOD other than NONE, `EXT-X-SESSION-KEY`), delta
    /// updates (`EXT-X-SKIP`) and variable substitution (`EXT-X-DEFINE`).
    case unsupported(tag: String)
    /// Encryption that cannot be applied: the tag and its METHOD (or KEYFORMAT), e.g.
    /// "EXT-X-KEY METHOD=SAMPLE-AES". FPX_ERROR_ENCRYPTION.
    case encryption(String)
    /// Past a bound of the parser: the segment count cap or the byte budget the caller
    /// gave (`HLSPlaylist.Limits`). FPX_ERROR_TOO_LARGE.
    case tooLarge(String)
    /// An allocation for the parsed segments failed. FPX_ERROR_NO_MEMORY.
    case outOfMemory

    /// The library error code: `.invalidData` for bad input, `.unsupported` for
    /// refused features.
    public var errorCode: ErrorCode {
        switch self {
        case .notAPlaylist, .invalidEncoding, .malformed: return .invalidData
        case .unsupported: return .unsupported
        case .encryption: return .encryption
        case .tooLarge: return .tooLarge
        case .outOfMemory: return .noMemory
        }
    }

    public var description: String {
        switch self {
        case .notAPlaylist: return "not an HLS playlist: missing #EXTM3U"
        case .invalidEncoding: return "playlist is not valid UTF-8"
        case .malformed(let line, let reason): return "malformed playlist at line \(line): \(reason)"
        case .unsupported(let tag): return "unsupported HLS feature: \(tag)"
        case .encryption(let what): return "HLS encryption not supported: \(what)"
        case .tooLarge(let why): return "playlist too large: \(why)"
        case .outOfMemory: return "out of memory for the playlist's segments"
        }
    }
}

extension ErrorCode {
    /// The code for an HLS parse error.
    public init(_ error: HLSError) { self = error.errorCode }
}
