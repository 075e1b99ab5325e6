import FastPixSeekCore

/// The engine of an HLS or DASH item: the one `MediaEngine` the factory opens for every HLS
/// playlist and DASH MPD (`openHLS`), with or without a master, with or without a separate
/// audio rendition. It keeps no I/O of its own: it plays the feeds of one variant
/// (`HLSVariantFeeds`: the variant's `HLSFeed`, and its audio rendition's merged in by
/// `HLSRenditionMerge`), forwards to them, and through a master switches variants
/// (`HLSVariantSwitch`, `fpx_player_hls_select_variant`).
///
/// The feed the item opened with (`owner`) places the item timeline for every variant: a
/// variant switched to is a feed placed by the owner's discontinuity domains and aligned on
/// its window (`HLSRenditionMerge.openFeed`, as an audio rendition is; RFC 8216 6.2.4:
/// matching content has matching timestamps), so an item time names the same instant on
/// every variant. The owner stays open after a switch away from it (its playlist, not its
/// segments), for the anchors of domains not read yet.
///
/// A switch is recorded (leaf lock `vm`) and made by the next seek (`resolve`), in the order
/// `FeedSwitch` (policy) says: the new variant's feed (and the audio rendition's, for an item
/// with separate audio) is opened and landed at the request; only a landing that succeeds
/// retires the old feeds. A feed that cannot be opened, a landing that fails, or facts the
/// item cannot change (stream count, reference stream, time base) fail the seek and leave
/// the old variant playing.
///
/// Threading: serial members under the player's engine lock (they use `playingFeeds`
/// directly; it changes only there, also under `vm`); the concurrent ones read the feeds
/// playing, the switch and the retired facts under `vm`, and call the feeds' concurrent
/// members with it released.
// @unchecked Sendable: `playingFeeds` is replaced under the engine lock and `vm`; the switch,
// the retired facts and counters under `vm`; `disabled` under the engine lock.
public final class HLSItemEngine: MediaEngine, PacketSource, HLSItemControls, @unchecked Sendable {
    private let owner: any HLSItemFeed
    public let hlsListing: HLSListing?
    private let policy: IOPolicy
    private let vm = Monitor()
    private var playingFeeds: HLSVariantFeeds
    /// The variant played now and the one asked for (nil without a master).
    private var variants: HLSVariantSwitch?
    /// Stream facts and counters of feeds switched away from.
    private var retiredFacts: [AnyObject] = []
    private var retiredCounters: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// Streams the host disabled (set again on a new variant's feeds). Engine lock.
    private var disabled: Set<Int32> = []

    private var feeds: HLSVariantFeeds { vm.locked { playingFeeds } }

    /// Plays `owner` (a media playlist, or the variant a master's choice opened) with the
    /// audio rendition `rendition` merged in, when there is one.
    init(owner: HLSFeed, rendition: HLSRenditionMerge?, policy: IOPolicy) {
        self.owner = owner
        self.policy = policy
        hlsListing = owner.listing
        playingFeeds = HLSVariantFeeds(video: owner, rendition: rendition)
        variants = owner.listing.map { HLSVariantSwitch(listing: $0) }
    }

    // MARK: HLSItemControls

    public var hlsVariantSelection: Int? { vm.locked { variants?.playing } }

    public func selectHLSVariant(_ index: Int) throws {
        guard let l = hlsListing else { throw ErrorCode.unsupported }
        guard index >= 0, index < l.variants.count, !l.variants[index].isIFrame else { throw ErrorCode.invalidArgument }
        vm.locked { variants?.ask(index) }
    }

    public var hlsAudioSelection: (index: Int, stream: Int32)? { feeds.rendition?.selection }

    public func selectHLSAudio(_ index: Int) throws {
        guard let r = feeds.rendition else { throw ErrorCode.unsupported }
        try r.select(index)
    }

    // MARK: Variant switch

    /// The feeds of variant `k`: its media playlist placed by the owner, with the audio
    /// rendition the item plays (or is about to) when it has separate audio.
    private func openVariant(_ k: Int, from old: HLSVariantFeeds) throws -> HLSVariantFeeds {
        guard let l = hlsListing, k >= 0, k < l.variants.count else { throw EngineError(.invalidArgument) }
        let v = try HLSRenditionMerge.openFeed(l.variants[k].uri, video: owner, policy: policy)
        var rendition: HLSRenditionMerge?
        if let r = old.rendition, let a = r.audioChoice {
            do {
                rendition = try HLSRenditionMerge(video: v, audioURI: a.uri, policy: policy, renditions: r.renditions,
                                                  audioIndex: a.index)
            } catch { v.close(); throw error }
        }
        let n = HLSVariantFeeds(video: v, rendition: rendition)
        let oi = old.itemInfo, ni = n.itemInfo
        guard ni.streamCount == oi.streamCount, v.referenceStream == old.video.referenceStream,
              v.hasVideo == old.video.hasVideo,
              v.timeline.timeBaseNum == owner.timeline.timeBaseNum, v.timeline.timeBaseDen == owner.timeline.timeBaseDen
        else {
            n.close()
            throw EngineError(.unsupported)
        }
        for s in disabled { try? n.setStreamEnabled(s, false) }
        return n
    }

    /// Retires the feeds of the variant switched away from: closed, their facts and
    /// counters kept; the owner's feed stays open (it places the timeline), its segment
    /// engines freed.
    private func retire(_ old: HLSVariantFeeds) {
        let usesOwner = old.video === owner
        if usesOwner { owner.releaseSegments() }
        if usesOwner && old.rendition == nil { return }
        let facts = old.factsOwner
        let c: (packets: UInt64, bytes: UInt64)
        if usesOwner, let r = old.rendition {
            c = r.audioDemuxCounters
            r.closeAudio()
        } else {
            c = old.demuxCounters
            old.close()
        }
        vm.locked {
            if let f = facts { retiredFacts.append(f) }
            retiredCounters.packets &+= c.packets
            retiredCounters.bytes &+= c.bytes
        }
    }

    /// The item as `FeedSwitch`'s seam for a variant switch: it opens, lands, swaps and closes
    /// feeds; when is the policy's. Without a master no switch is ever asked for. Engine lock held.
    private struct VariantSeam: FeedSwitchSeam {
        let item: HLSItemEngine
        let shouldStop: () -> Bool

        var asked: Int? { item.vm.locked { item.variants?.asked } }
        var playing: HLSVariantFeeds { item.playingFeeds }
        func open(_ k: Int, replacing old: HLSVariantFeeds) throws -> HLSVariantFeeds {
            try item.openVariant(k, from: old)
        }
        func land(_ request: LandingRequest, on feeds: HLSVariantFeeds) throws -> Landing {
            try feeds.resolve(request, shouldStop: shouldStop)
        }
        /// Feeds reading through the owner's feed keep it open (it places the timeline).
        func discard(_ feeds: HLSVariantFeeds) { if feeds.video !== item.owner { feeds.close() } }
        func forgetSwitch(to k: Int) { item.vm.locked { item.variants?.forget(k) } }
        func play(_ feeds: HLSVariantFeeds, variant k: Int) {
            item.vm.locked {
                item.playingFeeds = feeds
                item.variants?.played(k)
            }
        }
        func retire(_ feeds: HLSVariantFeeds) { item.retire(feeds) }
    }

    // MARK: MediaEngine

    public var timeline: Timeline { owner.timeline }
    public var referenceStream: Int32 { owner.referenceStream }
    public var hasVideo: Bool { owner.hasVideo }
    /// At-or-after landings: every feed lands them across segments (HLSFeed).
    public var landsAtOrAfter: Bool { owner.landsAtOrAfter }
    public var startTicks: Int64? { owner.startTicks }
    /// Every feed's holes are counted in the owner's report (HLSPlaylistFeed.holeSink).
    public var holeReport: HoleReport { owner.holeReport }

    public func seekableRange() throws -> ClosedRange<Int64>? { try playingFeeds.seekableRange() }
    public func liveWindow() -> LiveWindow? { feeds.liveWindow() }
    public func itemTime(forDateMicroseconds us: Int64) -> MediaTime? { feeds.video.itemTime(forDateMicroseconds: us) }

    /// A seek: on the variant asked for when there is a switch, landed before the old feed is
    /// retired (`FeedSwitch`), else on the variant playing.
    public func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        try FeedSwitch.resolve(request, VariantSeam(item: self, shouldStop: shouldStop))
    }

    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        try playingFeeds.step(from: from, forward: forward, count: count, seekID: seekID, shouldStop: shouldStop)
    }

    /// Every feed: those playing and the owner, which stays open after a switch away from it.
    public func interrupt() {
        let f = feeds
        f.interrupt()
        if f.video !== owner { owner.interrupt() }
    }

    // MARK: PacketSource

    public func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        try playingFeeds.readPacket(shouldStop: shouldStop)
    }

    public var itemInfo: ItemInfo { feeds.itemInfo }
    public func streamInfo(_ index: Int32) -> StreamInfo? { feeds.streamInfo(index) }
    public func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { feeds.videoPacketFormat(index) }

    public var factsOwner: AnyObject? {
        let f = feeds
        var all = vm.locked { retiredFacts }
        if let o = f.factsOwner { all.append(o) }
        if f.video !== owner, let o = owner.factsOwner { all.append(o) }
        if all.count == 1 { return all[0] }
        return all.isEmpty ? nil : FactsOwners(all)
    }

    public func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        try playingFeeds.setStreamEnabled(index, enabled)
        if enabled { disabled.remove(index) } else { disabled.insert(index) }
    }

    public func close() {
        playingFeeds.close()
        owner.close()
    }

    public var demuxCounters: (packets: UInt64, bytes: UInt64) {
        let f = playingFeeds
        var c = f.demuxCounters
        let r = vm.locked { retiredCounters }
        c.packets &+= r.packets; c.bytes &+= r.bytes
        if f.video !== owner {
            let o = owner.demuxCounters
            c.packets &+= o.packets; c.bytes &+= o.bytes
        }
        return c
    }
}

/// The variant switch of an item opened through a master (`fpx_player_hls_select_variant`):
/// the variant played now and the one asked for, played from the next seek (`FeedSwitch`
/// makes it). The item engine keeps it under its leaf lock `vm`.
struct HLSVariantSwitch {
    /// The variant played now (an index of the listing's variants).
    private(set) var playing: Int
    /// The variant asked for and not played yet.
    private(set) var asked: Int?

    init(listing: HLSListing) {
        playing = listing.variants.firstIndex { $0.selected } ?? 0
    }

    /// Variant `k` is asked for (asking for the one playing takes back a switch asked for).
    mutating func ask(_ k: Int) { asked = k == playing ? nil : k }
    /// Forgets the switch to `k` (not a later one asked for meanwhile).
    mutating func forget(_ k: Int) { if asked == k { asked = nil } }
    /// Variant `k` plays from now on.
    mutating func played(_ k: Int) {
        playing = k
        forget(k)
    }
}

/// The feeds one variant plays: its media playlist's (`video`) and, with separate audio, the
/// rendition merged in (`rendition`). Each member goes to the merge when there is one, else
/// to the video feed; the item engine forwards to these, and a variant switch swaps them as
/// a whole. Threading: as the item engine's members of the same names.
struct HLSVariantFeeds {
    let video: any HLSItemFeed
    let rendition: HLSRenditionMerge?

    func seekableRange() throws -> ClosedRange<Int64>? {
        if let r = rendition { return try r.seekableRange() }
        return try video.seekableRange()
    }

    /// Live with separate audio: the intersection of the two playlists' windows.
    func liveWindow() -> LiveWindow? {
        if let r = rendition { return r.liveWindow() }
        return video.liveWindow()
    }

    /// Lands the variant, then the rendition there.
    func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        let l = try video.resolve(request, shouldStop: shouldStop)
        try rendition?.land(afterVariantAt: l.pts, landedPTS: l.streamPTS ?? l.pts, seekID: request.seekID,
                            shouldStop: shouldStop)
        return l
    }

    /// Steps the variant; when it lands, the rendition lands there.
    func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
              shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        let r = try video.step(from: from, forward: forward, count: count, seekID: seekID, shouldStop: shouldStop)
        if case .landed(let l) = r {
            try rendition?.land(afterVariantAt: l.pts, landedPTS: l.streamPTS ?? l.pts, seekID: seekID,
                                shouldStop: shouldStop)
        }
        return r
    }

    func interrupt() {
        if let r = rendition { r.interrupt() } else { video.interrupt() }
    }

    func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        if let r = rendition { return try r.readPacket(shouldStop: shouldStop) }
        return try video.readPacket(shouldStop: shouldStop)
    }

    var itemInfo: ItemInfo { rendition?.itemInfo ?? video.itemInfo }
    func streamInfo(_ index: Int32) -> StreamInfo? {
        if let r = rendition { return r.streamInfo(index) }
        return video.streamInfo(index)
    }
    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? {
        if let r = rendition { return r.videoPacketFormat(index) }
        return video.videoPacketFormat(index)
    }
    var factsOwner: AnyObject? {
        if let r = rendition { return r.factsOwner }
        return video.factsOwner
    }

    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        if let r = rendition { return try r.setStreamEnabled(index, enabled) }
        try video.setStreamEnabled(index, enabled)
    }

    func close() {
        if let r = rendition { r.close() } else { video.close() }
    }

    var demuxCounters: (packets: UInt64, bytes: UInt64) { rendition?.demuxCounters ?? video.demuxCounters }
}
