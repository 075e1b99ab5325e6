/// A parsed playlist: RFC 8216 says a playlist is either a master (multivariant)
/// playlist or a media playlist, never both.
public enum HLSPlaylist: Hashable, Sendable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)

    /// Parses playlist text. `url` is the playlist's own URL, used to resolve
    /// relative URIs (RFC 3986); without it URIs are returned as written.
    /// Throws `HLSError`.
    public static func parse(_ text: String, url: String? = nil) throws -> HLSPlaylist {
        try parse(Array(text.utf8), url: url)
    }

    /// Parses playlist bytes, which must be UTF-8 (RFC 8216 4.1). Throws `HLSError`.
    public static func parse(_ bytes: [UInt8], url: String? = nil, limits: Limits = Limits()) throws -> HLSPlaylist {
        try bytes.withUnsafeBufferPointer { try parse($0, url: url, limits: limits) }
    }

    /// Parses playlist bytes in memory the caller owns (e.g. a `FallibleBuffer`).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, url: String? = nil,
                             limits: Limits = Limits()) throws -> HLSPlaylist {
        try HLSParser(bytes: bytes, url: url, limits: limits).run()
    }

    /// The parser's bounds: beyond them a playlist is `HLSError.tooLarge`.
    public struct Limits: Hashable, Sendable {
        /// The most segments a media playlist may list.
        public static let maxSegments = 1_000_000
        public var maxSegments: Int
        /// The most bytes the parsed segments may take (`HLSSegmentList.allocatedBytes`).
        public var maxBytes: Int
        public init(maxSegments: Int = Limits.maxSegments, maxBytes: Int = Int.max) {
            self.maxSegments = maxSegments
            self.maxBytes = maxBytes
        }
    }

    public var master: HLSMasterPlaylist? {
        if case .master(let m) = self { return m }
        return nil
    }

    public var media: HLSMediaPlaylist? {
        if case .media(let m) = self { return m }
        return nil
    }
}

// MARK: - Media playlists

/// A byte sub-range of a resource: `length` bytes from `offset`.
public struct HLSByteRange: Hashable, Sendable {
    public var length: Int64
    public var offset: Int64
    public init(length: Int64, offset: Int64) { self.length = length; self.offset = offset }
    /// One past the last byte; the parser guarantees it does not overflow.
    public var end: Int64 { offset &+ length }
}

/// A Media Initialization Section (`EXT-X-MAP`).
public struct HLSMap: Hashable, Sendable {
    /// Resolved against the playlist URL when one was given.
    public internal(set) var uri: String
    /// As written in the playlist.
    public internal(set) var rawURI: String
    public internal(set) var byteRange: HLSByteRange?
}

public struct HLSSegment: Hashable, Sendable {
    /// The Media Sequence Number.
    public internal(set) var sequence: Int64
    /// The EXTINF duration in seconds, exactly as written.
    public internal(set) var duration: Rational
    /// The EXTINF title, if any.
    public internal(set) var title: String?
    /// Resolved against the playlist URL when one was given.
    public internal(set) var uri: String
    /// As written in the playlist.
    public internal(set) var rawURI: String
    public internal(set) var byteRange: HLSByteRange?
    public internal(set) var map: HLSMap?
    /// The segment's own `EXT-X-PROGRAM-DATE-TIME`, Unix ms (rounded down).
    public internal(set) var programDateTime: Int64?
    /// The start date, Unix ms (rounded down): the explicit PDT, or the last
    /// PDT plus the EXTINF durations since, within one discontinuity. Nil when
    /// no PDT applies.
    public internal(set) var startDate: Int64?
    /// `startDate` exactly, in milliseconds (sub-millisecond parts kept).
    public internal(set) var startDateExact: Rational?
    /// Preceded by `EXT-X-DISCONTINUITY`.
    public internal(set) var discontinuity: Bool
    /// The Discontinuity Sequence Number of this segment.
    public internal(set) var discontinuitySequence: Int64
    /// The start on this playlist's timeline (seconds; 0 = first segment): the
    /// exact sum of the EXTINF durations before it.
    public internal(set) var startOffset: Rational
    /// Marked `EXT-X-GAP`: the resource must not be loaded.
    public internal(set) var gap: Bool

    /// `startOffset + duration`.
    public var endOffset: Rational { startOffset + duration }
}

public enum HLSPlaylistType: Hashable, Sendable {
    case none, event, vod
}

/// `EXT-X-SERVER-CONTROL`, values in seconds.
public struct HLSServerControl: Hashable, Sendable {
    public var holdBack: Rational?
    public var partHoldBack: Rational?
    public var canSkipUntil: Rational?
    public var canSkipDateRanges: Bool = false
    public var canBlockReload: Bool = false
    public init() {}
}

/// `EXT-X-START`.
public struct HLSStart: Hashable, Sendable {
    /// Seconds; negative values count from the end of the playlist.
    public internal(set) var timeOffset: Rational
    public internal(set) var precise: Bool
    public init(timeOffset: Rational, precise: Bool) { self.timeOffset = timeOffset; self.precise = precise }
}

public struct HLSMediaPlaylist: Hashable, Sendable {
    /// The URL the playlist was parsed with, if any.
    public internal(set) var url: String?
    public internal(set) var version: Int64?
    /// `EXT-X-TARGETDURATION`, seconds.
    public internal(set) var targetDuration: Int
    /// `EXT-X-MEDIA-SEQUENCE`: the first segment's MSN (0 when absent).
    public internal(set) var mediaSequence: Int64
    /// `EXT-X-DISCONTINUITY-SEQUENCE` (0 when absent).
    public internal(set) var discontinuitySequence: Int64
    /// Compact (`HLSSegmentList`): `HLSSegment` values are made when read.
    public internal(set) var segments: HLSSegmentList
    public internal(set) var endList: Bool
    public internal(set) var playlistType: HLSPlaylistType
    public internal(set) var serverControl: HLSServerControl?
    public internal(set) var start: HLSStart?
    public internal(set) var independentSegments: Bool
    public internal(set) var iFramesOnly: Bool
    /// A DASH MPD's @minimumUpdatePeriod (when positive), seconds: the reload interval in
    /// place of the target duration. Nil for HLS.
    public internal(set) var updatePeriod: Rational? = nil

    /// `EXT-X-SERVER-CONTROL` HOLD-BACK, seconds.
    public var holdBack: Rational? { serverControl?.holdBack }
    /// `EXT-X-SERVER-CONTROL` PART-HOLD-BACK, seconds.
    public var partHoldBack: Rational? { serverControl?.partHoldBack }
    /// The server may still add segments: no ENDLIST and not a VOD playlist.
    public var isLive: Bool { !endList && playlistType != .vod }
    /// The sum of the EXTINF durations, exactly.
    public var duration: Rational { segments.isEmpty ? Rational(0) : segments.endOffset(at: segments.count - 1) }
    /// The MSN after the last segment (the parser guarantees it fits).
    public var nextSequence: Int64 { mediaSequence &+ Int64(segments.count) }
}

// MARK: - Master playlists

public struct HLSVariant: Hashable, Sendable {
    /// BANDWIDTH, bits per second (peak).
    public internal(set) var bandwidth: Int64
    /// AVERAGE-BANDWIDTH, bits per second.
    public internal(set) var averageBandwidth: Int64?
    public internal(set) var resolution: HLSResolution?
    /// CODECS as written.
    public internal(set) var codecs: String?
    /// FRAME-RATE, exactly.
    public internal(set) var frameRate: Rational?
    public internal(set) var audioGroup: String?
    public internal(set) var videoGroup: String?
    public internal(set) var subtitlesGroup: String?
    /// A group id, or "NONE".
    public internal(set) var closedCaptions: String?
    /// Resolved against the playlist URL when one was given.
    public internal(set) var uri: String
    public internal(set) var rawURI: String
    /// Every attribute of the `EXT-X-STREAM-INF` tag.
    public internal(set) var attributes: HLSAttributeList
    /// An `EXT-X-I-FRAME-STREAM-INF` variant: listed, never chosen for playback.
    public internal(set) var iFrame = false
    /// HDCP-LEVEL as written (TYPE-0, TYPE-1, NONE).
    public var hdcpLevel: String? { attributes.enumerated("HDCP-LEVEL") }

    /// CODECS split on commas, blanks trimmed.
    public var codecList: [String] {
        guard let codecs else { return [] }
        return codecs.split(separator: ",").map { HLSParser.trim(Substring($0)) }.filter { !$0.isEmpty }.map(String.init)
    }
}

/// An `EXT-X-MEDIA` rendition, recorded minimally.
public struct HLSRendition: Hashable, Sendable {
    /// AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS.
    public internal(set) var type: String
    public internal(set) var groupID: String
    public internal(set) var name: String
    public internal(set) var language: String?
    /// Resolved against the playlist URL when one was given.
    public internal(set) var uri: String?
    public internal(set) var rawURI: String?
    public internal(set) var isDefault: Bool
    public internal(set) var autoselect: Bool
    public internal(set) var attributes: HLSAttributeList
    /// CHANNELS as written (e.g. "2", "16/JOC").
    public var channels: String? { attributes.quotedString("CHANNELS") }
}

/// What the policy's variant choice reads (`HLSVariantChoice.select`).
extension HLSVariant: HLSVariantChoice.VariantFacts {
    public var height: Int64? { resolution?.height }
}

/// What the policy's rendition choice reads (`HLSRenditions.select`).
extension HLSRendition: HLSRenditions.RenditionFacts {
    public var hasURI: Bool { uri != nil }
}

public extension HLSRenditions {
    /// The audio rendition to play for `variant` of a parsed master (the choice's rules:
    /// `select(_:audioGroup:choice:)`).
    static func select(_ renditions: [HLSRendition], variant: HLSVariant?, choice: Choice) throws -> Selection {
        try select(renditions, audioGroup: variant?.audioGroup, choice: choice)
    }
}

public struct HLSMasterPlaylist: Hashable, Sendable {
    public internal(set) var url: String?
    public internal(set) var version: Int64?
    public internal(set) var variants: [HLSVariant]
    public internal(set) var renditions: [HLSRendition]
    public internal(set) var independentSegments: Bool
    public internal(set) var start: HLSStart?

    /// The renditions of one group (an `AUDIO`/`VIDEO`/`SUBTITLES` group id).
    public func renditions(inGroup groupID: String) -> [HLSRendition] {
        renditions.filter { $0.groupID == groupID }
    }
}
