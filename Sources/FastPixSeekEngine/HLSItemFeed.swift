import FastPixSeekCore

/// What the item engine (`HLSItemEngine`, and its rendition merge `HLSRenditionMerge`) needs
/// of one playlist's feed, and nothing more. `HLSFeed` implements it.
///
/// Threading: as the item's (`MediaEngine`): landing, reading, closing and the HLS members
/// marked so are serial (the player's engine lock held); `liveWindow`, `itemTime`,
/// `itemInfo`, `streamInfo`, `videoPacketFormat`, `factsOwner`, `holeReport` and
/// `interrupt` are concurrent and never block; `timeline`, `referenceStream`, `hasVideo`,
/// `landsAtOrAfter`, `startTicks` and `remote` are immutable.
protocol HLSItemFeed: AnyObject {
    /// The reference stream's timeline: the item's ticks, in the feed's time base.
    var timeline: Timeline { get }
    var referenceStream: Int32 { get }
    var hasVideo: Bool { get }
    /// At-or-after landings (the feed lands them across segments).
    var landsAtOrAfter: Bool { get }
    /// Where reading starts with no seek (item ticks), as `MediaEngine.startTicks`.
    var startTicks: Int64? { get }
    /// The holes met (a rendition feed's are counted in its reference feed's report).
    var holeReport: HoleReport { get }

    func seekableRange() throws -> ClosedRange<Int64>?
    func liveWindow() -> LiveWindow?
    func itemTime(forDateMicroseconds us: Int64) -> MediaTime?
    func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing
    func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
              shouldStop: @escaping () -> Bool) throws -> StepResultKind
    func interrupt()

    func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView
    var itemInfo: ItemInfo { get }
    func streamInfo(_ index: Int32) -> StreamInfo?
    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat?
    var factsOwner: AnyObject? { get }
    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws
    /// Closes the playlist's reloads and every segment engine. Idempotent.
    func close()
    var demuxCounters: (packets: UInt64, bytes: UInt64) { get }

    // What placing a second feed by this one, and merging the two, needs.

    /// The playlist came from the network (a feed placed by it is fetched as remote).
    var remote: Bool { get }
    /// The report a feed placed by this one counts its holes in.
    var holeFeed: HLSPlaylistFeed { get }
    /// Each stream's time base and sample rate (0 but for audio), from the facts.
    var streamTimeBases: [PacketStamp.TimeBase] { get }
    var streamSampleRates: [Int32] { get }
    /// The segment the reads are in and its discontinuity domain. Serial.
    var readingSegment: (sequence: Int64, domain: Int64)? { get }
    /// The item-timeline start of the window's first segment, seconds, with its media
    /// sequence number and date. Serial.
    var firstListed: (start: Rational, sequence: Int64, dateMS: Int64?)? { get }
    /// The item-timeline start of segment `q` when the window lists it, seconds. Serial.
    func itemStart(ofSequence q: Int64) -> Rational?
    /// Item time 0 on domain `d`'s pts timeline, seconds; nil when the window lists no
    /// segment of the domain. Serial.
    func originSeconds(ofDomain d: Int64) throws -> Rational?
    /// The discontinuity sequences of the window's segments. Serial.
    var windowDomains: ClosedRange<Int64>? { get }
    /// Frees the segment engines; the playlist stays. Serial.
    func releaseSegments()
}
