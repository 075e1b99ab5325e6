import FastPixSeekCore

/// An HLS item opened through a master playlist, which can switch variants
/// (`fpx_player_hls_select_variant`). It plays `inner`: the variant alone (an `HLSEngine`) or
/// with its separate audio rendition (`HLSRenditionEngine`). The variant the item opened
/// with (`owner`) places the item timeline for every variant: a variant switched to is a
/// feed placed by the owner's discontinuity domains and aligned on its window
/// (`HLSRenditionEngine.openFeed`, as an audio rendition is; RFC 8216 6.2.4: matching
/// content has matching timestamps), so an item time names the same instant on every
/// variant. The owner stays open after a switch away from it (its playlist, not its
/// segments), for the anchors of domains not read yet.
///
/// A switch is recorded (leaf lock `vm`) and made by the next seek (`resolve`), in the order
/// `FeedSwitch` (policy) says: the new variant's feed (and the audio rendition's, for an item
/// with separate audio) is opened and landed at the request; only a landing that succeeds
/// retires the old feeds. A feed that
/// cannot be opened, a landing that fails, or facts the item cannot change (stream count,
/// reference stream, time base) fail the seek and leave the old variant playing.
///
/// Threading: serial members under the player's engine lock (they use `inner` directly; it
/// changes only there, also under `vm`); the concurrent ones read `inner`, the switch and
/// the retired facts under `vm`.
// @unchecked Sendable: `inner` is replaced under the engine lock and `vm`; the rest under `vm`.
public final class HLSVariantEngine: MediaEngine, PacketSource, HLSItemControls, @unchecked Sendable {
    typealias Inner = MediaEngine & PacketSource

    private let owner: HLSEngine
    private let listing: HLSListing
    private let policy: IOPolicy
    private let vm = Monitor()
    private var innerFeed: Inner
    /// The variant played now, and the one asked for (played from the next seek).
    private var variantIndex: Int
    private var pendingVariant: Int?
    /// Stream facts and counters of feeds switched away from.
    private var retiredFacts: [AnyObject] = []
    private var retiredCounters: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// Streams the host disabled (set again on a new variant's feeds). Engine lock.
    private var disabled: Set<Int32> = []

    private var inner: Inner { vm.locked { innerFeed } }

    init(owner: HLSEngine, listing: HLSListing, inner: Inner, policy: IOPolicy) {
        self.owner = owner
        self.listing = listing
        self.policy = policy
        innerFeed = inner
        variantIndex = listing.variants.firstIndex { $0.selected } ?? 0
    }

    // MARK: Variant switch

    public var hlsVariantSelection: Int? { vm.locked { variantIndex } }

    public func selectHLSVariant(_ index: Int) throws {
        guard index >= 0, index < listing.variants.count, !listing.variants[index].isIFrame else {
            throw ErrorCode.invalidArgument
        }
        vm.locked { pendingVariant = index == variantIndex ? nil : index }
    }

    /// The feeds of variant `k`: its media playlist placed by the owner, with the audio
    /// rendition the item plays (or is about to) when it has separate audio.
    private func openVariant(_ k: Int, from old: Inner) throws -> Inner {
        let v = try HLSRenditionEngine.openFeed(listing.variants[k].uri, video: owner, policy: policy)
        let n: Inner
        if let r = old as? HLSRenditionEngine, let a = r.audioChoice {
            do {
                n = try HLSRenditionEngine(video: v, audioURI: a.uri, policy: policy, renditions: r.renditions,
                                           audioIndex: a.index)
            } catch { v.close(); throw error }
        } else {
            n = v
        }
        let oi = old.itemInfo, ni = n.itemInfo
        guard ni.streamCount == oi.streamCount, n.referenceStream == old.referenceStream, n.hasVideo == old.hasVideo,
              n.timeline.timeBaseNum == owner.timeline.timeBaseNum, n.timeline.timeBaseDen == owner.timeline.timeBaseDen
        else {
            n.close()
            throw EngineError(.unsupported)
        }
        for s in disabled { try? n.setStreamEnabled(s, false) }
        return n
    }

    /// Retires the feeds of the variant switched away from: closed, their facts and
    /// counters kept; the owner's video feed stays open (it places the timeline), its
    /// segment engines freed.
    private func retire(_ old: Inner) {
        if usesOwner(old) { owner.releaseSegments() }
        if old === owner { return }
        let facts = old.factsOwner
        let c: (packets: UInt64, bytes: UInt64)
        if let r = old as? HLSRenditionEngine, r.video === owner {
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

    /// Whether `inner` reads through the owner's video feed.
    private func usesOwner(_ i: Inner) -> Bool {
        i === owner || (i as? HLSRenditionEngine)?.video === owner
    }

    // MARK: MediaEngine

    public var timeline: Timeline { owner.timeline }
    public var referenceStream: Int32 { owner.referenceStream }
    public var hasVideo: Bool { owner.hasVideo }
    /// At-or-after landings: those of the playing feed (HLSEngine lands them across segments).
    public var landsAtOrAfter: Bool { inner.landsAtOrAfter }
    public var startTicks: Int64? { owner.startTicks }
    public var hlsListing: HLSListing? { listing }
    /// Every feed's holes are counted in the owner's report (HLSPlaylistFeed.holeSink).
    public var holeReport: HoleReport { owner.holeReport }
    public var hlsAudioSelection: (index: Int, stream: Int32)? { (inner as? HLSItemControls)?.hlsAudioSelection }
    public func selectHLSAudio(_ index: Int) throws {
        guard let c = inner as? HLSItemControls else { throw ErrorCode.unsupported }
        try c.selectHLSAudio(index)
    }

    public func seekableRange() throws -> ClosedRange<Int64>? { try innerFeed.seekableRange() }
    public func seekableRangeInMemory() -> (known: Bool, range: ClosedRange<Int64>?) { innerFeed.seekableRangeInMemory() }

    public func resolveFromMemory(_ request: LandingRequest) -> Landing? {
        if vm.locked({ pendingVariant != nil }) { return nil }
        return innerFeed.resolveFromMemory(request)
    }

    public func liveWindow() -> LiveWindow? { inner.liveWindow() }
    public func itemTime(forDateMicroseconds us: Int64) -> MediaTime? { inner.itemTime(forDateMicroseconds: us) }

    /// A seek: on the variant asked for when there is a switch, landed before the old feed is
    /// retired (`FeedSwitch`), else on the variant playing.
    public func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        try FeedSwitch.resolve(request, SwitchSeam(engine: self, shouldStop: shouldStop))
    }

    /// The engine as `FeedSwitch`'s seam: it opens, lands, swaps and closes feeds; when is
    /// the policy's. Engine lock held.
    private struct SwitchSeam: FeedSwitchSeam {
        let engine: HLSVariantEngine
        let shouldStop: () -> Bool

        var asked: Int? { engine.vm.locked { engine.pendingVariant } }
        var playing: Inner { engine.innerFeed }
        func open(_ k: Int, replacing old: Inner) throws -> Inner { try engine.openVariant(k, from: old) }
        func land(_ request: LandingRequest, on feed: Inner) throws -> Landing {
            try feed.resolve(request, shouldStop: shouldStop)
        }
        /// A feed reading through the owner's video feed keeps it open (it places the timeline).
        func discard(_ feed: Inner) { if !engine.usesOwner(feed) { feed.close() } }
        func forgetSwitch(to k: Int) { engine.vm.locked { if engine.pendingVariant == k { engine.pendingVariant = nil } } }
        func play(_ feed: Inner, variant k: Int) {
            engine.vm.locked {
                engine.innerFeed = feed
                engine.variantIndex = k
                if engine.pendingVariant == k { engine.pendingVariant = nil }
            }
        }
        func retire(_ feed: Inner) { engine.retire(feed) }
    }

    public func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
                     shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        try innerFeed.step(from: from, forward: forward, count: count, seekID: seekID, shouldStop: shouldStop)
    }

    public func interrupt() {
        inner.interrupt()
        owner.interrupt()
    }

    // MARK: PacketSource

    public func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        try innerFeed.readPacket(shouldStop: shouldStop)
    }

    public var itemInfo: ItemInfo { inner.itemInfo }
    public func streamInfo(_ index: Int32) -> StreamInfo? { inner.streamInfo(index) }
    public func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { inner.videoPacketFormat(index) }

    public var factsOwner: AnyObject? {
        let i = inner
        var all = vm.locked { retiredFacts }
        if let f = i.factsOwner { all.append(f) }
        if !usesOwner(i), let f = owner.factsOwner { all.append(f) }
        return all.isEmpty ? nil : FactsOwners(all)
    }

    public func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        try innerFeed.setStreamEnabled(index, enabled)
        if enabled { disabled.remove(index) } else { disabled.insert(index) }
    }

    public func close() {
        innerFeed.close()
        owner.close()
    }

    public var demuxCounters: (packets: UInt64, bytes: UInt64) {
        let i = innerFeed
        var c = i.demuxCounters
        let r = vm.locked { retiredCounters }
        c.packets &+= r.packets; c.bytes &+= r.bytes
        if !usesOwner(i) {
            let o = owner.demuxCounters
            c.packets &+= o.packets; c.bytes &+= o.bytes
        }
        return c
    }
}
