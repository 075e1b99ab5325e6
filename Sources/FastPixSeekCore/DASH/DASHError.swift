/// Why an MPD could not be used. Reading an MPD never traps: every defect in the input, and
/// every feature the DASH layer does not handle, ends up here, typed like `HLSError`.
public enum DASHError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The document's root is not an `MPD` element (or there is no element).
    case notAManifest
    /// The bytes are not valid UTF-8.
    case invalidEncoding
    /// The XML is not well-formed (`line` is 1-based).
    case malformedXML(line: Int, reason: String)
    /// An MPD element or attribute is missing or malformed: the element, its line and why.
    case malformed(element: String, line: Int, reason: String)
    /// A feature the layer refuses rather than mis-handle, named (e.g. "dynamic MPD").
    /// FPX_ERROR_UNSUPPORTED.
    case unsupported(String)
    /// Content protection: the schemes named (e.g. "Widevine (urn:uuid:edef8ba9-...)").
    /// FPX_ERROR_ENCRYPTION.
    case encryption(String)
    /// Past a bound: the element, segment or byte caps. FPX_ERROR_TOO_LARGE.
    case tooLarge(String)
    /// An allocation for the segments failed. FPX_ERROR_NO_MEMORY.
    case outOfMemory

    public var errorCode: ErrorCode {
        switch self {
        case .notAManifest, .invalidEncoding, .malformedXML, .malformed: return .invalidData
        case .unsupported: return .unsupported
        case .encryption: return .encryption
        case .tooLarge: return .tooLarge
        case .outOfMemory: return .noMemory
        }
    }

    public var description: String {
        switch self {
        case .notAManifest: return "not a DASH manifest: the root element is not MPD"
        case .invalidEncoding: return "MPD is not valid UTF-8"
        case .malformedXML(let line, let reason): return "malformed MPD XML at line \(line): \(reason)"
        case .malformed(let element, let line, let reason): return "malformed MPD: <\(element)> at line \(line): \(reason)"
        case .unsupported(let what): return "unsupported DASH feature: \(what)"
        case .encryption(let what): return "DASH content protection not supported: \(what)"
        case .tooLarge(let why): return "MPD too large: \(why)"
        case .outOfMemory: return "out of memory for the MPD's segments"
        }
    }

    /// The same defect as a playlist error says it (the segment list builder's errors).
    init(_ e: HLSError) {
        switch e {
        case .tooLarge(let w): self = .tooLarge(w)
        case .outOfMemory: self = .outOfMemory
        case .unsupported(let w): self = .unsupported(w)
        case .encryption(let w): self = .encryption(w)
        default: self = .malformed(element: "MPD", line: 0, reason: e.description)
        }
    }
}
