/// What the packets after a landing carry: the per-seek state both engines
/// share (the landed frame, the one-shot DISCONTINUITY mark, the seek id) and
/// the rules that stamp packets from it. The file engine keeps one per
/// demuxer; the HLS engine keeps one per segment reader (inside its
/// FFmpegEngine) and one for the item, which stamps what a segment reader
/// cannot know (a later segment's landing fields, an EXT-X-DISCONTINUITY).
///
/// Rules (docs/ARCHITECTURE.md, "What packets carry"):
/// - After a landing, the first packet read is flagged DISCONTINUITY, once.
///   So is the first packet after the read position was put back (`restored`)
///   and the first packet of an HLS segment that follows EXT-X-DISCONTINUITY.
/// - A packet that presents before the landed frame (compared exactly, in
///   seconds, across time bases) is flagged DECODE_ONLY; with no landing,
///   none is.
/// - Every packet carries the id of the latest seek it follows (0 before
///   any). A frame step lands without being a seek: it keeps the id.
/// - Every packet after a landing carries it (`describeLanding`): the landed
///   pts, the landing in its own stream's ticks rounded up, and for audio that
///   straddles it the samples to trim (on the reference stream only when it is
///   raw samples, which lands inside its packets), all exact.
public struct PacketStamp: Hashable, Sendable {
    /// A time base as num/den seconds per tick (AVRational).
    public struct TimeBase: Hashable, Sendable {
        public var num: Int32
        public var den: Int32
        public init(_ num: Int32, _ den: Int32) { self.num = num; self.den = den }
        var isValid: Bool { num > 0 && den > 0 }
    }

    /// The reference stream's time base, which `landedPTS` is in.
    public let referenceTimeBase: TimeBase
    /// The landed frame's pts on the reference stream; nil before any landing
    /// (or after `restart`).
    public private(set) var landedPTS: Int64?
    /// HLS: the media sequence of the segment the landing is in (nil for files).
    public private(set) var landedSegment: Int64?
    /// HLS: reading has entered a segment after EXT-X-DISCONTINUITY (or a hole) since the
    /// landing: the segments read from then on may be on another pts timeline.
    public private(set) var crossedDiscontinuity = false
    /// The id of the latest seek; 0 before any.
    public private(set) var seekID: UInt64 = 0
    /// The next packet is flagged DISCONTINUITY.
    public private(set) var discontinuityPending = false

    /// The reference stream is raw samples (`Priming.samplesAreFrames`): a landing may fall
    /// inside one of its packets, which then carries the samples to trim too.
    public let referenceLandsInPackets: Bool

    public init(referenceTimeBase: TimeBase, referenceLandsInPackets: Bool = false) {
        self.referenceTimeBase = referenceTimeBase
        self.referenceLandsInPackets = referenceLandsInPackets
    }

    /// A landing on the reference frame at `pts` (in `segment`, for HLS), by
    /// seek `seekID`, or by a frame step (`seekID` 0: the latest seek's id stays).
    public mutating func land(_ pts: Int64, seekID: UInt64, segment: Int64? = nil) {
        landedPTS = pts
        landedSegment = segment
        crossedDiscontinuity = false
        discontinuityPending = true
        if seekID != 0 { self.seekID = seekID }
    }

    /// A landing on `pts` that continues the host's packets (Continuation): the
    /// DECODE_ONLY threshold and the landing fields move to it, the seek id to
    /// `seekID` (0: a frame step keeps the latest), and no DISCONTINUITY is marked.
    public mutating func continueLanding(_ pts: Int64, seekID: UInt64) {
        landedPTS = pts
        landedSegment = nil
        if seekID != 0 { self.seekID = seekID }
    }

    /// Reading starts again at the first packet with no landing of its own
    /// (an HLS segment entered by reading on): no DECODE_ONLY threshold, no
    /// DISCONTINUITY, the item's current seek id.
    public mutating func restart(seekID: UInt64) {
        landedPTS = nil
        landedSegment = nil
        discontinuityPending = false
        self.seekID = seekID
    }

    /// The read position was put back after it was lost (the landing stays):
    /// the next packet is a DISCONTINUITY.
    public mutating func restored() { discontinuityPending = true }

    /// HLS: reading enters the next segment; it follows EXT-X-DISCONTINUITY
    /// when `discontinuous`, which the first packet read from it reports.
    public mutating func enterSegment(discontinuous: Bool) {
        if discontinuous { discontinuityPending = true; crossedDiscontinuity = true }
    }

    /// HLS: the landing that a segment entered by reading on after the landing's own is read
    /// against (its reader restarts with it: DECODE_ONLY for what presents before it, the
    /// landing fields, trim_samples, exactly as in the landing's segment), when that segment
    /// is on the landing's pts timeline (no EXT-X-DISCONTINUITY nor hole entered since): muxed
    /// audio at the start of the next segment may present before a landing near the end of
    /// the previous one. Nil otherwise. Call after `enterSegment`.
    public func landingCarried(into segment: Int64) -> Int64? {
        guard let l = landedPTS, let s = landedSegment, segment > s, !crossedDiscontinuity else { return nil }
        return l
    }

    /// The landing no longer describes the read position (the demuxer was
    /// moved to its start to measure the range, before any read).
    public mutating func forgetLanding() {
        landedPTS = nil
        landedSegment = nil
    }

    /// The DECODE_ONLY and DISCONTINUITY flags of the next packet (the
    /// DISCONTINUITY mark is spent). `presents`: when the packet presents (its
    /// pts, or dts without one) in `timeBase`; nil when unknown (never DECODE_ONLY).
    public mutating func nextFlags(presents: Int64?, timeBase: TimeBase) -> UInt32 {
        var flags: UInt32 = 0
        if discontinuityPending { flags |= PacketView.flagDiscontinuity; discontinuityPending = false }
        if let l = landedPTS, let t = presents,
           PacketStamp.presentsBefore(t, timeBase: timeBase, landed: l, referenceTimeBase: referenceTimeBase) {
            flags |= PacketView.flagDecodeOnly
        }
        return flags
    }

    /// Whether `t` (in `timeBase`) presents strictly before `landed` (in
    /// `referenceTimeBase`), exactly: t * tb < landed * refTB, in 128 bits. An
    /// invalid time base (num or den <= 0) never presents before.
    public static func presentsBefore(_ t: Int64, timeBase tb: TimeBase, landed: Int64,
                                      referenceTimeBase ref: TimeBase) -> Bool {
        if tb == ref { return t < landed }
        guard tb.isValid, ref.isValid else { return false }
        let l = Int128(t) * Int128(tb.num) * Int128(ref.den)
        let r = Int128(landed) * Int128(ref.num) * Int128(tb.den)
        return l < r
    }

    /// Fills a packet's landing fields (`PacketView.landedPTS` and the rest), exactly: the
    /// landing; in the packet's own stream ticks, rounded up (`streamTimeBase`; invalid:
    /// none); and for an audio packet (`audioSampleRate` > 0) that straddles the landing,
    /// the samples of its decoded frame that present before it, ceil((L - P) x rate).
    /// Nothing before any landing.
    public func describeLanding(_ v: inout PacketView, referenceStream: Int32, streamTimeBase tb: TimeBase,
                                audioSampleRate: Int32 = 0) {
        guard let landed = landedPTS else { return }
        v.landedPTS = landed
        v.landedStreamIndex = referenceStream
        if v.streamIndex == referenceStream {
            v.landedPTSInStream = landed
            // Only a reference stream of raw samples lands inside a packet.
            guard referenceLandsInPackets else { return }
        }
        let ref = referenceTimeBase
        guard tb.isValid, ref.isValid else { return }
        // L seconds = landed * rn / rd; in stream ticks: L / (tn / td) = landed * rn * td / (rd * tn).
        let num = Int128(landed) * Int128(ref.num) * Int128(tb.den)
        let den = Int128(ref.den) * Int128(tb.num)
        if v.streamIndex != referenceStream {
            let q = num / den, r = num % den
            let ceilTicks = r > 0 ? q + 1 : q
            if ceilTicks >= Int128(Int64.min) && ceilTicks <= Int128(Int64.max) { v.landedPTSInStream = Int64(ceilTicks) }
        }
        // Audio straddling the landing: P < L < P + duration, in this stream's ticks (exact: L = num/den).
        guard audioSampleRate > 0, let p = v.pts, v.duration > 0 else { return }
        let rate = Int128(audioSampleRate)
        let pNum = Int128(p) * den, endNum = (Int128(p) + Int128(v.duration)) * den
        guard pNum < num, num < endNum else { return }
        // (L - P) seconds * rate = (num - pNum) / den ticks * tn / td * rate.
        let tNum = (num - pNum) * Int128(tb.num) * rate
        let tDen = den * Int128(tb.den)
        let samples = tNum / tDen + (tNum % tDen > 0 ? 1 : 0)
        if samples > 0 && samples <= Int128(Int64.max) { v.trimSamples = Int64(samples) }
    }

    /// HLS: stamps a packet a segment reader returned, from the item's state.
    /// The segment reader set DECODE_ONLY against its own landing (the landing
    /// segment's reader, the reader of the segment before it when the landing
    /// needs its last GOP: an open GOP's pre-roll, and the readers of the segments
    /// after it on its pts timeline: `landingCarried`); this adds the item's one-shot
    /// DISCONTINUITY (EXT-X-DISCONTINUITY), the seek id, and, for a packet of a
    /// segment past an EXT-X-DISCONTINUITY (or a hole) since the landing, the landing
    /// fields: everything there presents after the landing, and its pts need not
    /// share the landing segment's timeline, so no in-stream landing or trim is given.
    public mutating func stampSegmentPacket(_ v: inout PacketView, segment: Int64, referenceStream: Int32) {
        if discontinuityPending { v.flags |= PacketView.flagDiscontinuity; discontinuityPending = false }
        v.seekID = seekID
        if let l = landedPTS, let s = landedSegment, segment > s, crossedDiscontinuity {
            v.flags &= ~PacketView.flagDecodeOnly
            v.landedPTS = l
            v.landedStreamIndex = referenceStream
            v.landedPTSInStream = nil
            v.trimSamples = 0
        }
    }

    /// HLS, a separate audio rendition (HLSRenditionMerge): the landing fields and DECODE_ONLY
    /// of a rendition packet, from the reference landing, as for a stream muxed with the
    /// video: the landing is the video's (landed_pts, landed_stream_index); when the packet
    /// is of the rendition segment the audio landing was made in (`inLandingSegment`), its
    /// stream's rounded-up landing, trim_samples for the packet that straddles it and
    /// DECODE_ONLY for one that presents before it; in later segments only landed_pts (as for
    /// the video's later segments). `landed`: the video's
    /// landed pts (reference time base); nil before any landing (nothing is set).
    /// The pts timelines of the video and the rendition are the same in one discontinuity
    /// domain (RFC 8216 6.2.4: matching content has matching timestamps).
    public static func stampRenditionPacket(_ v: inout PacketView, landed: Int64?, referenceStream: Int32,
                                            referenceTimeBase ref: TimeBase, streamTimeBase tb: TimeBase,
                                            sampleRate: Int32, inLandingSegment: Bool) {
        v.landedPTSInStream = nil
        v.trimSamples = 0
        v.flags &= ~PacketView.flagDecodeOnly
        guard let l = landed else {
            v.landedPTS = nil
            v.landedStreamIndex = -1
            return
        }
        v.landedPTS = l
        v.landedStreamIndex = referenceStream
        guard inLandingSegment else { return }
        var s = PacketStamp(referenceTimeBase: ref)
        s.land(l, seekID: 0)
        // A packet that presents before the landing (the one straddling it too) is DECODE_ONLY.
        if let t = v.pts ?? v.dts, PacketStamp.presentsBefore(t, timeBase: tb, landed: l, referenceTimeBase: ref) {
            v.flags |= PacketView.flagDecodeOnly
        }
        s.describeLanding(&v, referenceStream: referenceStream, streamTimeBase: tb, audioSampleRate: sampleRate)
    }
}
