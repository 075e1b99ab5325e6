import FastPixSeekCore

/// The rendition merge of an HLS item made of two feeds: the variant (`video`, the reference
/// feed) and a separate audio rendition (`audio`, EXT-X-MEDIA TYPE=AUDIO with its own URI),
/// each an `HLSItemFeed` (an `HLSFeed`) with its own playlist, reloads, segment cache, keys
/// and holes. The rendition's domains are placed by the variant's (HLSFeed.domainOrigin), so
/// both feeds share one item timeline; its streams follow the variant's in the item. What is
/// decided -- which rendition, the merge order, the window -- is `HLSRenditions` (policy); the
/// rendition's landing sequence is `RenditionLander`, an audio switch's `FeedSwitch` and what
/// an audio packet says about the landing `PacketStamp.stampRenditionPacket` (policy); this
/// class only drives the feeds. It is no engine: a component of the item engine (`HLSItemEngine`,
/// through `HLSVariantFeeds`), which lands the variant and then has the rendition land there
/// (`land(afterVariantAt:)`).
///
/// Threading: serial members under the player's engine lock, as the item engine's; the
/// concurrent ones (`liveWindow`, `itemInfo`, `streamInfo`, `interrupt`, `selection`,
/// `select`...) read immutable state, or the current rendition feed and the switch under
/// the leaf lock `am`, and call the feeds' concurrent members.
// @unchecked Sendable: the merge state is used under the player's engine lock only; the
// rendition feed, the switch and the retired facts under `am`.
final class HLSRenditionMerge: @unchecked Sendable {
    let video: any HLSItemFeed
    private let policy: IOPolicy
    private let am = Monitor()
    /// The rendition feed (replaced by a switch, at a landing: engine lock and `am`).
    private var audioFeed: any HLSItemFeed
    private var audioIndex: Int
    /// The rendition a host asked for (`select`), played from the next landing.
    private var pendingSwitch: Int?
    /// The stream facts of rendition feeds switched away from (their pointers may be held).
    private var retiredFacts: [AnyObject] = []
    private var audio: any HLSItemFeed { am.locked { audioFeed } }
    /// The variant's stream count: the rendition's streams are numbered from it.
    private let first: Int32
    private let audioCount: Int32
    private let videoTimeBases: [PacketStamp.TimeBase]
    private var audioTimeBases: [PacketStamp.TimeBase]
    private var audioRates: [Int32]

    // Merge state (engine lock).
    private var pendingVideo: PacketView?
    private var pendingAudio: (packet: PacketView, segment: Int64?, domain: Int64?)?
    private var videoEnded = false
    /// The rendition feed is read (false: it ended, had no frame at the landing, or its
    /// stream is disabled; it comes back at the next landing).
    private var audioActive = true
    private var audioEnabled = true
    /// The video landing the rendition's packets describe (its pts in the reference time
    /// base), and the rendition segments the audio landing was made in (its frame's, and
    /// its pre-roll frame's).
    private var landedPTS: Int64?
    private var audioLandingSegments: Set<Int64> = []
    /// The feeds whose first packet after the latest landing is still to come: only the
    /// first packet out of the merge keeps its DISCONTINUITY.
    private var marksLeft: Set<HLSRenditions.Side> = []
    /// Item time 0 of each domain in reference ticks (the variant's placement).
    private var origins: [Int64: Int64] = [:]

    /// The master's renditions (an audio switch names one of them).
    let renditions: [HLSRendition]

    /// `renditions`, `audioIndex`: the master's, and the one `audioURI` is.
    init(video: any HLSItemFeed, audioURI: String, policy: IOPolicy, renditions: [HLSRendition], audioIndex: Int) throws {
        self.video = video
        self.policy = policy
        self.renditions = renditions
        let a = try Self.openFeed(audioURI, video: video, policy: policy)
        audioFeed = a
        self.audioIndex = audioIndex
        first = video.itemInfo.streamCount
        audioCount = a.itemInfo.streamCount
        videoTimeBases = video.streamTimeBases
        audioTimeBases = a.streamTimeBases
        audioRates = a.streamSampleRates
        // Reading with no seek starts at the variant's start segment (EXT-X-START, a live
        // edge): the rendition then starts at the audio frame that covers the variant's first
        // frame there (one frame earlier), with no landing of its own (no DISCONTINUITY, no
        // landing fields). From the playlist's first segment it reads from its own start.
        if let t = video.startTicks, let r = video.readingSegment, let f = video.firstListed, r.sequence != f.sequence {
            try landAudio(on: a, AudioTarget(ticks: t, landedPTS: 0, seekID: 0), shouldStop: { false })
            landedPTS = nil
            marksLeft = [.rendition]
        }
    }

    /// A rendition feed placed by `video`'s domains and aligned on its window.
    static func openFeed(_ uri: String, video: any HLSItemFeed, policy: IOPolicy) throws -> HLSFeed {
        let v = video
        return try HLSFeed(url: uri, policy: policy, fromRemote: video.remote,
                           domainOrigin: { [weak v] d in try v?.originSeconds(ofDomain: d) },
                           base: { media in HLSRenditionMerge.base(of: media, on: v) }, holeSink: video.holeFeed)
    }

    // MARK: Audio switch

    /// The rendition playing (an index of the master's renditions) and its stream.
    var selection: (index: Int, stream: Int32) { am.locked { (audioIndex, first) } }

    /// The rendition played from the next landing on (a switch asked for, else the one
    /// playing), for a variant switch that opens a new feed.
    var audioChoice: (index: Int, uri: String)? {
        let k = am.locked { pendingSwitch ?? audioIndex }
        guard k >= 0, k < renditions.count, let u = renditions[k].uri else { return nil }
        return (k, u)
    }

    /// Plays rendition `index` from the next landing (`HLSItemControls.selectHLSAudio`).
    func select(_ index: Int) throws {
        let r = renditions
        guard index >= 0, index < r.count, r[index].type == "AUDIO", r[index].uri != nil else {
            throw ErrorCode.invalidArgument
        }
        am.locked { pendingSwitch = index == audioIndex ? nil : index }
    }

    /// Where the rendition lands after a landing of the variant (`landAudio`).
    private struct AudioTarget {
        let ticks: Int64
        let landedPTS: Int64
        let seekID: UInt64
    }

    /// After a landing of the variant (a step that found no frame is none): the rendition
    /// lands there, on the rendition asked for when there is a switch (`FeedSwitch`: the new
    /// feed is opened and landed before the old one is retired; a switch that fails fails the
    /// landing with its error, and the old rendition, landed there too, plays on).
    private func landRendition(_ t: AudioTarget, shouldStop: @escaping () -> Bool) throws {
        try FeedSwitch.resolve(t, SwitchSeam(merge: self, shouldStop: shouldStop))
    }

    /// The merge as `FeedSwitch`'s seam for a rendition switch. Engine lock held.
    private struct SwitchSeam: FeedSwitchSeam {
        let merge: HLSRenditionMerge
        let shouldStop: () -> Bool

        var asked: Int? { merge.am.locked { merge.pendingSwitch } }
        var playing: any HLSItemFeed { merge.audio }

        /// The new rendition's feed; one whose stream count differs (the item's stream list
        /// is fixed) is refused.
        func open(_ k: Int, replacing old: any HLSItemFeed) throws -> any HLSItemFeed {
            guard let uri = merge.renditions[k].uri else { throw EngineError(.invalidArgument) }
            let n = try HLSRenditionMerge.openFeed(uri, video: merge.video, policy: merge.policy)
            guard n.itemInfo.streamCount == merge.audioCount else {
                n.close()
                throw EngineError(.unsupported)
            }
            return n
        }

        func land(_ t: AudioTarget, on feed: any HLSItemFeed) throws {
            try merge.landAudio(on: feed, t, shouldStop: shouldStop)
        }

        func discard(_ feed: any HLSItemFeed) { feed.close() }

        func forgetSwitch(to k: Int) {
            merge.am.locked { if merge.pendingSwitch == k { merge.pendingSwitch = nil } }
        }

        /// The stream's setting carries over; the old feed's facts stay alive (their pointers
        /// may be held).
        func play(_ feed: any HLSItemFeed, variant k: Int) {
            merge.am.locked {
                if let f = merge.audioFeed.factsOwner { merge.retiredFacts.append(f) }
                merge.audioFeed = feed
                merge.audioIndex = k
                if merge.pendingSwitch == k { merge.pendingSwitch = nil }
            }
            merge.audioTimeBases = feed.streamTimeBases
            merge.audioRates = feed.streamSampleRates
        }

        func retire(_ feed: any HLSItemFeed) { feed.close() }

        /// The variant has landed: the old rendition lands there too. When it cannot, it is
        /// not read until the next landing (the switch's error is the one reported).
        func keep(_ feed: any HLSItemFeed, after t: AudioTarget) {
            do { try merge.landAudio(on: feed, t, shouldStop: shouldStop) } catch { merge.audioActive = false }
        }
    }

    /// Where the rendition's first segment starts on the item timeline: by the two
    /// playlists' dates when both have one, else at the variant's segment of the same media
    /// sequence number, else at the variant's first segment.
    static func base(of media: HLSMediaPlaylist, on v: any HLSItemFeed) -> Rational {
        guard let f = v.firstListed else { return Rational(0) }
        let list = media.segments
        if let vd = f.dateMS, list.count > 0, let ad = list.startDate(at: 0) {
            return f.start + Rational(Int128(ad &- vd), 1000)
        }
        if let s = v.itemStart(ofSequence: list.mediaSequence) { return s }
        return f.start
    }

    // MARK: What the item engine asks

    /// The variant's timeline (the item's).
    var timeline: Timeline { video.timeline }

    func seekableRange() throws -> ClosedRange<Int64>? {
        guard let w = liveWindow(), w.isLive else { return try video.seekableRange() }
        guard let s = timeline.ticks(of: w.start), let e = timeline.ticks(of: w.end) else { return nil }
        let lo = Int64(clamping: s.ceil), hi = Int64(clamping: e.floor)
        return lo <= hi ? lo...hi : lo...lo
    }

    /// Live: the intersection of the two playlists' windows (HLSRenditions.intersect).
    func liveWindow() -> LiveWindow? {
        guard let v = video.liveWindow() else { return nil }
        guard v.isLive, let a = audio.liveWindow(), a.isLive else { return v }
        return HLSRenditions.intersect(v, a)
    }

    /// After a landing of the variant at item `ticks` (`landedPTS`: its pts as delivered): the
    /// rendition lands there. A switch asked for takes effect here, on a landing (never on a
    /// seek that fails, nor on a step that found no frame).
    func land(afterVariantAt ticks: Int64, landedPTS: Int64, seekID: UInt64, shouldStop: @escaping () -> Bool) throws {
        try landRendition(AudioTarget(ticks: ticks, landedPTS: landedPTS, seekID: seekID), shouldStop: shouldStop)
    }

    /// After a landing of the variant at item `t.ticks`: the merge starts again from both
    /// feeds' new positions, and the rendition feed `feed` lands at the same item time, one
    /// audio frame of pre-roll before it, as `RenditionLander` says (this converts the time only).
    private func landAudio(on feed: any HLSItemFeed, _ t: AudioTarget, shouldStop: @escaping () -> Bool) throws {
        let ticks = t.ticks
        pendingVideo = nil
        pendingAudio = nil
        videoEnded = false
        marksLeft = [.reference, .rendition]
        landedPTS = t.landedPTS
        audioLandingSegments = []
        guard audioEnabled else { audioActive = false; return }
        let vt = video.timeline, at = feed.timeline
        let atps = Rational(Int128(at.timeBaseDen), Int128(at.timeBaseNum))
        // Item ticks of the variant -> seconds -> item ticks of the rendition, exactly: the
        // rendition's anchor is the domain origin floored to its ticks, so the fraction the
        // floor dropped is added back (the target is then the exact pts of the landing).
        var target = Rational(Int128(ticks) * Int128(vt.timeBaseNum), Int128(vt.timeBaseDen)) * atps
        if let d = video.readingSegment?.domain, let o = try video.originSeconds(ofDomain: d) {
            let scaled = o * atps
            target = target + (scaled - Rational(scaled.floor, 1))
        }
        try RenditionLander.land(at: target, AudioSeam(merge: self, feed: feed, seekID: t.seekID, shouldStop: shouldStop))
    }

    /// A rendition feed as `RenditionLander`'s seam: each landing through the feed's own
    /// `SegmentLander`, the segments it is made in recorded for the merge's stamps. Engine lock.
    private struct AudioSeam: RenditionSeam {
        let merge: HLSRenditionMerge
        let feed: any HLSItemFeed
        let seekID: UInt64
        let shouldStop: () -> Bool

        func land(at target: Rational) throws -> Landing {
            let a = feed
            let l = try a.resolve(LandingRequest(target: target, wantsKeyframe: false, keyframeWindow: nil, seekID: seekID),
                                  shouldStop: shouldStop)
            if let q = a.readingSegment?.sequence { merge.audioLandingSegments.insert(q) }
            return l
        }

        func forgetLandingSegments() { merge.audioLandingSegments = [] }
        func setReading(_ on: Bool) { merge.audioActive = on }
    }

    func interrupt() {
        video.interrupt()
        audio.interrupt()
    }

    // MARK: Reading

    func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView {
        if pendingVideo == nil && !videoEnded {
            do { pendingVideo = try video.readPacket(shouldStop: shouldStop) }
            catch let e as EngineError where e.code == .eof { videoEnded = true }
        }
        if pendingAudio == nil && audioActive && audioEnabled {
            do {
                let p = try audio.readPacket(shouldStop: shouldStop)
                let s = audio.readingSegment
                pendingAudio = (p, s?.sequence, s?.domain)
            } catch let e as EngineError where e.code == .eof {
                audioActive = false
            }
        }
        let ref = referenceTimeBase
        let vKey: Rational?? = pendingVideo.map { p in
            HLSRenditions.itemDecodeTime(dts: p.dts, pts: p.pts, timeBase: Self.tb(videoTimeBases, p.streamIndex),
                                         origin: p.itemOriginPTS, referenceTimeBase: ref)
        }
        let aKey: Rational?? = try pendingAudio.map { a in
            HLSRenditions.itemDecodeTime(dts: a.packet.dts, pts: a.packet.pts,
                                         timeBase: Self.tb(audioTimeBases, a.packet.streamIndex),
                                         origin: try a.domain.flatMap { try origin(ofDomain: $0) }, referenceTimeBase: ref)
        }
        guard let side = HLSRenditions.next(reference: vKey, rendition: aKey) else { throw EngineError(.eof) }
        var out: PacketView
        switch side {
        case .reference:
            out = pendingVideo!
            pendingVideo = nil
        case .rendition:
            let a = pendingAudio!
            pendingAudio = nil
            out = a.packet
            let k = a.packet.streamIndex
            out.streamIndex = k &+ first
            out.itemOriginPTS = try a.domain.flatMap { try origin(ofDomain: $0) }
            PacketStamp.stampRenditionPacket(&out, landed: landedPTS, referenceStream: video.referenceStream,
                                             referenceTimeBase: ref, streamTimeBase: Self.tb(audioTimeBases, k),
                                             sampleRate: k >= 0 && Int(k) < audioRates.count ? audioRates[Int(k)] : 0,
                                             inLandingSegment: a.segment.map { audioLandingSegments.contains($0) } ?? false)
        }
        if marksLeft.contains(side) {
            if marksLeft.count < 2 { out.flags &= ~PacketView.flagDiscontinuity }
            marksLeft.remove(side)
        }
        return out
    }

    private var referenceTimeBase: PacketStamp.TimeBase {
        PacketStamp.TimeBase(timeline.timeBaseNum, timeline.timeBaseDen)
    }

    private static func tb(_ t: [PacketStamp.TimeBase], _ i: Int32) -> PacketStamp.TimeBase {
        i >= 0 && Int(i) < t.count ? t[Int(i)] : PacketStamp.TimeBase(0, 0)
    }

    /// Item time 0 of domain `d` in reference ticks (the variant's anchor, read if needed).
    private func origin(ofDomain d: Int64) throws -> Int64? {
        if let o = origins[d] { return o }
        guard let s = try video.originSeconds(ofDomain: d) else { return nil }
        let t = timeline
        let o = Int64(clamping: (s * Rational(Int128(t.timeBaseDen), Int128(t.timeBaseNum))).floor)
        // Bounded by the windows (issue 28.8): domains that left both the variant's and the
        // rendition's are forgotten.
        let v = video.windowDomains, a = audio.windowDomains
        if v != nil || a != nil {
            origins = origins.filter { v?.contains($0.key) == true || a?.contains($0.key) == true }
        }
        origins[d] = o
        return o
    }

    var itemInfo: ItemInfo {
        var i = video.itemInfo
        i.streamCount = first &+ audioCount
        return i
    }

    func streamInfo(_ index: Int32) -> StreamInfo? {
        if index < first { return video.streamInfo(index) }
        guard var s = audio.streamInfo(index &- first) else { return nil }
        s.index = index
        return s
    }

    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? {
        index < first ? video.videoPacketFormat(index) : audio.videoPacketFormat(index &- first)
    }

    var factsOwner: AnyObject? {
        let a = video.factsOwner, b = audio.factsOwner
        let old = am.locked { retiredFacts }
        if a == nil && b == nil && old.isEmpty { return nil }
        return FactsOwners([a, b].compactMap { $0 } + old)
    }

    /// The rendition's own stream (its reference) is turned off and on here: off, its feed
    /// is no longer read; on again, it is read from the next landing. Its other streams, and
    /// the variant's, as for any HLS item.
    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        guard index >= 0, index < first &+ audioCount else { throw ErrorCode.invalidArgument }
        if index < first { return try video.setStreamEnabled(index, enabled) }
        let k = index &- first
        if k == audio.referenceStream {
            audioEnabled = enabled
            if !enabled { pendingAudio = nil; audioActive = false }
            return
        }
        try audio.setStreamEnabled(k, enabled)
    }

    func close() {
        video.close()
        closeAudio()
    }

    /// Closes the rendition feed only (a variant switch away from `video`, which stays open
    /// as the item's placement: HLSItemEngine).
    func closeAudio() {
        audio.close()
        pendingVideo = nil
        pendingAudio = nil
    }

    /// The rendition feed's counters alone.
    var audioDemuxCounters: (packets: UInt64, bytes: UInt64) { audio.demuxCounters }

    var demuxCounters: (packets: UInt64, bytes: UInt64) {
        let a = video.demuxCounters, b = audio.demuxCounters
        return (a.packets &+ b.packets, a.bytes &+ b.bytes)
    }
}

/// Keeps the feeds' stream facts alive for the player (factsOwner).
final class FactsOwners {
    let owners: [AnyObject]
    init(_ owners: [AnyObject]) { self.owners = owners }
}
