#if canImport(Glibc)
import Glibc
#endif

/// What an HLS item lists from its master playlist (fpx_player_hls_variant,
/// fpx_player_hls_rendition): every variant (I-frame ones included) and every rendition,
/// with C copies of their strings, made once at open and freed with the listing.
// @unchecked Sendable: immutable after init.
public final class HLSListing: @unchecked Sendable {
    // @unchecked Sendable: the C strings are the listing's immutable copies.
    public struct Variant: @unchecked Sendable {
        public var isIFrame: Bool
        public var selected: Bool
        public var bandwidth: Int64
        public var averageBandwidth: Int64
        public var width: Int32, height: Int32
        public var frameRateNum: Int32, frameRateDen: Int32
        public var codecs: UnsafePointer<CChar>?
        public var hdcpLevel: UnsafePointer<CChar>?
        public var audioGroup: UnsafePointer<CChar>?
        public var uri: String
    }

    public struct Rendition: @unchecked Sendable {
        public var type: MediaType
        public var groupID: UnsafePointer<CChar>?
        public var name: UnsafePointer<CChar>?
        public var language: UnsafePointer<CChar>?
        public var channels: UnsafePointer<CChar>?
        public var isDefault: Bool
        public var autoselect: Bool
        public var hasURI: Bool
        /// In the selected variant's AUDIO (VIDEO, SUBTITLES) group.
        public var inSelectedGroup: Bool
        /// The rendition the item plays as a stream of its own (a second feed).
        public var selected: Bool = false
        /// Its stream index in the item when selected, else -1.
        public var streamIndex: Int32 = -1
    }

    public let variants: [Variant]
    public let renditions: [Rendition]
    private var owned: [UnsafeMutablePointer<CChar>] = []

    /// `audio`: the rendition played as a second feed (HLSRenditions.select), whose stream is
    /// `audioStream` of the item.
    public init(master: HLSMasterPlaylist, selectedURI: String, audio: Int? = nil, audioStream: Int32 = -1) {
        var owned: [UnsafeMutablePointer<CChar>] = []
        func c(_ s: String?) -> UnsafePointer<CChar>? {
            guard let s, let p = strdup(s) else { return nil }
            owned.append(p)
            return UnsafePointer(p)
        }
        let selected = master.variants.first { !$0.iFrame && $0.uri == selectedURI }
        var vs: [Variant] = []
        for v in master.variants {
            var num: Int32 = 0, den: Int32 = 0
            if let r = v.frameRate, let n = Int32(exactly: r.num), let d = Int32(exactly: r.den) { num = n; den = d }
            vs.append(Variant(isIFrame: v.iFrame, selected: !v.iFrame && v.uri == selectedURI,
                              bandwidth: v.bandwidth, averageBandwidth: v.averageBandwidth ?? 0,
                              width: Int32(clamping: v.resolution?.width ?? 0), height: Int32(clamping: v.resolution?.height ?? 0),
                              frameRateNum: num, frameRateDen: den,
                              codecs: c(v.codecs), hdcpLevel: c(v.hdcpLevel), audioGroup: c(v.audioGroup), uri: v.uri))
        }
        var rs: [Rendition] = []
        for (k, r) in master.renditions.enumerated() {
            let type: MediaType
            let group: String?
            switch r.type {
            case "AUDIO": type = .audio; group = selected?.audioGroup
            case "VIDEO": type = .video; group = selected?.videoGroup
            case "SUBTITLES": type = .subtitle; group = selected?.subtitlesGroup
            default: type = .data; group = selected?.closedCaptions   // CLOSED-CAPTIONS
            }
            rs.append(Rendition(type: type, groupID: c(r.groupID), name: c(r.name), language: c(r.language),
                                channels: c(r.channels), isDefault: r.isDefault, autoselect: r.autoselect,
                                hasURI: r.uri != nil, inSelectedGroup: group == r.groupID,
                                selected: k == audio, streamIndex: k == audio ? audioStream : -1))
        }
        variants = vs
        renditions = rs
        self.owned = owned
    }

    deinit { for p in owned { free(p) } }
}
