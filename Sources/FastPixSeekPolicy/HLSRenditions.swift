/// The rules of an HLS item made of a video variant and a separate audio rendition (seek.h,
/// "HLS variants and renditions"): which rendition plays, how the two feeds' packets merge
/// into one read, and the window of the pair. What an audio packet says about the video's
/// landing is `PacketStamp.stampRenditionPacket` (with every other DECODE_ONLY rule). Pure;
/// tested on fake data (HLSRenditionsTests). The engine only demuxes.
public enum HLSRenditions {
    /// What the choice reads of an EXT-X-MEDIA rendition (the playlist model's
    /// `HLSRendition` conforms).
    public protocol RenditionFacts {
        /// AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS.
        var type: String { get }
        var groupID: String { get }
        var isDefault: Bool { get }
        var autoselect: Bool { get }
        /// Whether it names its own playlist (URI); without one its media is in the variant.
        var hasURI: Bool { get }
    }

    /// The host's audio choice (fpx_player_config.hls_audio): `index` nil automatic, else an
    /// index of the master's renditions in playlist order; `off`: no separate audio feed.
    public struct Choice: Hashable, Sendable {
        public var index: Int?
        public var off: Bool
        public init(index: Int? = nil, off: Bool = false) { self.index = index; self.off = off }
    }

    /// What the item plays as audio.
    public enum Selection: Hashable, Sendable {
        /// No separate audio feed: the variant's own (muxed) streams only.
        case none
        /// Rendition `index` of the master (TYPE=AUDIO with a URI): a second feed.
        case rendition(Int)
    }

    public enum ChoiceError: Error, Hashable, Sendable {
        /// The host's index names no AUDIO rendition.
        case notAudio
    }

    /// The audio rendition to play for a variant whose AUDIO group is `audioGroup` (nil: it
    /// names none). `off`: `.none`. With a host index: that rendition, which must be
    /// TYPE=AUDIO (any group); without a URI its audio is in the variant: `.none`. Automatic:
    /// among the AUDIO renditions of the variant's AUDIO group, the first with DEFAULT=YES,
    /// else the first with AUTOSELECT=YES, else the first; `.none` when the group has none or
    /// the chosen one has no URI (RFC 8216 4.3.4.2.1: its media is in the variant).
    public static func select<R: RenditionFacts>(_ renditions: [R], audioGroup: String?,
                                                 choice: Choice) throws -> Selection {
        func feed(_ i: Int) -> Selection { renditions[i].hasURI ? .rendition(i) : .none }
        if choice.off { return .none }
        if let i = choice.index {
            guard i >= 0, i < renditions.count, renditions[i].type == "AUDIO" else { throw ChoiceError.notAudio }
            return feed(i)
        }
        guard let group = audioGroup else { return .none }
        let members = renditions.indices.filter { renditions[$0].type == "AUDIO" && renditions[$0].groupID == group }
        guard let pick = members.first(where: { renditions[$0].isDefault })
                ?? members.first(where: { renditions[$0].autoselect }) ?? members.first else { return .none }
        return feed(pick)
    }

    /// A packet waiting in the merge, as the merge compares it: its decode time on the item
    /// timeline, seconds (dts, else pts, x its time base - its origin x the reference time
    /// base); nil when it has neither (it goes out first).
    public static func itemDecodeTime(dts: Int64?, pts: Int64?, timeBase: PacketStamp.TimeBase,
                                      origin: Int64?, referenceTimeBase ref: PacketStamp.TimeBase) -> Rational? {
        guard let t = dts ?? pts, timeBase.num > 0, timeBase.den > 0 else { return nil }
        var r = Rational(Int128(t) * Int128(timeBase.num), Int128(timeBase.den))
        if let o = origin, ref.num > 0, ref.den > 0 { r = r - Rational(Int128(o) * Int128(ref.num), Int128(ref.den)) }
        return r
    }

    /// Which feed's waiting packet goes out next: the one that decodes first on the item
    /// timeline; a packet without a time first; ties to the reference (video) feed. A feed
    /// with nothing waiting (ended) never wins over one that has something.
    public enum Side: Hashable, Sendable { case reference, rendition }
    public static func next(reference: Rational??, rendition: Rational??) -> Side? {
        switch (reference, rendition) {
        case (nil, nil): return nil
        case (.some, nil): return .reference
        case (nil, .some): return .rendition
        case (.some(let a), .some(let b)):
            guard let a else { return .reference }
            guard let b else { return .rendition }
            return b < a ? .rendition : .reference
        }
    }

    /// The seekable window of the pair: the intersection of the two playlists' windows (both
    /// on the item timeline). The dates and the rest are the reference's, the start date moved
    /// with the start and the end date with the end. An empty intersection is the
    /// later start alone (end = start).
    public static func intersect(_ a: LiveWindow, _ b: LiveWindow) -> LiveWindow {
        var w = a
        if MediaTime.compare(b.start, w.start) > 0 {
            if let d = w.startDateMicroseconds, let shift = microseconds(MediaTime.subtract(b.start, w.start)) {
                w.startDateMicroseconds = d &+ shift
            }
            w.start = b.start
        }
        if MediaTime.compare(b.end, w.end) < 0 {
            if let d = w.endDateMicroseconds, let shift = microseconds(MediaTime.subtract(w.end, b.end)) {
                w.endDateMicroseconds = d &- shift
            }
            w.end = b.end
        }
        if MediaTime.compare(w.end, w.start) < 0 {
            w.end = w.start
            w.endDateMicroseconds = w.startDateMicroseconds
        }
        return w
    }

    static func microseconds(_ t: MediaTime) -> Int64? {
        guard let r = t.rational else { return nil }
        return Int64(exactly: (r * Rational(1_000_000)).floor)
    }
}
