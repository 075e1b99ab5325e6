/// The one seam between the landing policy and a demuxer. An engine implements
/// it and decides nothing: it positions where it is told (by time, by byte, at
/// an entry of the container's index, at the start), hands over the next packet
/// with its header, lets go of packets the policy drops, and reports the
/// container's own index as it is. Every choice (where to aim, what to keep,
/// when to stop, which index to trust, what a priming packet presents) is the
/// policy's (`Lander`).
///
/// The seam is crossed once per positioning and once per packet: a cold exact
/// seek crosses it once outside its per-packet loop (one timestamp or byte
/// positioning; a miss positions again), a seek decided from memory not at all.
public protocol LandingSeam: AnyObject {
    /// A backward timestamp seek on the reference stream: positions before a
    /// keyframe at or before `ticks` (it may land early, late or on a non-key
    /// packet: the policy checks). False when the demuxer refused.
    func seek(toTicks ticks: Int64) throws -> Bool
    /// Positions so that the next packets are those starting at or after byte
    /// `offset`. False when refused.
    func seek(toByte offset: Int64) throws -> Bool
    /// A backward seek for `timestamp` in the container's own index (the policy
    /// chooses the timestamp to aim at). False when refused.
    func seek(toIndexTimestamp timestamp: Int64) throws -> Bool
    /// Back to the first packet.
    func rewind() throws
    /// The next packet in decode order and its header; nil at the end. An error
    /// means the read position is lost (the policy marks it so).
    func read() throws -> (header: DemuxedPacket, packet: PacketHandle)?
    /// Lets go of a packet the policy does not keep.
    func release(_ packet: PacketHandle)
    /// The container's keyframe index as the container has it (asked once per
    /// item, after the seekable range is measured); nil when it has none.
    func containerIndex() -> ContainerIndexFacts?
}

/// An engine's packet as the policy holds it: a handle it never looks inside
/// (the FFmpeg engine's `AVPacket` pointer as bits; a number in tests). One
/// concrete type, not the seam's associated type: the lander's code is not
/// specialized for an engine in another module, and a generic packet made
/// every packet it handled cost runtime generic-metadata look-ups (issue 17).
public typealias PacketHandle = Int

/// A demuxed packet's header, as the demuxer gives it (no interpretation).
public struct DemuxedPacket: Hashable, Sendable {
    public var stream: Int32
    public var pts: Int64?
    public var dts: Int64?
    public var duration: Int64
    public var isKey: Bool
    /// Flagged discard by the demuxer (edit-list pre-roll, priming).
    public var isDiscard: Bool
    /// Samples the decoder skips at the start (FFmpeg's skip-samples side data), 0 if none.
    public var skipSamples: Int64
    /// The byte offset in the file, when known.
    public var pos: Int64?
    /// Payload bytes.
    public var size: Int
    /// Flagged corrupt by the demuxer (FFmpeg's AV_PKT_FLAG_CORRUPT: among others, a
    /// packet libavformat read short because the data ended).
    public var isCorrupt: Bool
    public init(stream: Int32, pts: Int64?, dts: Int64?, duration: Int64 = 0, isKey: Bool, isDiscard: Bool = false,
                skipSamples: Int64 = 0, pos: Int64? = nil, size: Int = 0, isCorrupt: Bool = false) {
        self.stream = stream; self.pts = pts; self.dts = dts; self.duration = duration; self.isKey = isKey
        self.isDiscard = isDiscard; self.skipSamples = skipSamples; self.pos = pos; self.size = size
        self.isCorrupt = isCorrupt
    }

    /// The packet's bytes are not all in the data: flagged corrupt, or its byte range
    /// ends past `fileSize` (the size of the data, when known). The policy's test of a
    /// file cut short (`Lander.scanLastFrame`).
    public func isCut(fileSize: Int64?) -> Bool {
        if isCorrupt { return true }
        guard let total = fileSize, let p = pos, p >= 0 else { return false }
        return p > total &- Int64(size)
    }
}

/// The container's keyframe index as the container reports it; `IndexTrust`
/// decides whether to use it.
public struct ContainerIndexFacts: Hashable, Sendable {
    public enum Container: Hashable, Sendable { case mov, matroska, other }
    public struct Entry: Hashable, Sendable {
        public var timestamp: Int64
        public var isKey: Bool
        public var isDiscard: Bool
        public init(timestamp: Int64, isKey: Bool, isDiscard: Bool) {
            self.timestamp = timestamp; self.isKey = isKey; self.isDiscard = isDiscard
        }
    }
    public var container: Container
    /// Every entry of the reference stream's index, in order (keyframes or not).
    public var entries: [Entry]
    /// The stream's frame count as the container states it (0: unknown).
    public var frameCount: Int64
    /// The file was written by libavformat (Matroska's "encoder" tag starts with "Lavf").
    public var writtenByLavf: Bool
    public init(container: Container, entries: [Entry], frameCount: Int64, writtenByLavf: Bool) {
        self.container = container; self.entries = entries; self.frameCount = frameCount
        self.writtenByLavf = writtenByLavf
    }
}

/// What the policy knows of an item's demuxer, fixed at open.
public struct DemuxerFacts: Hashable, Sendable {
    public var referenceStream: Int32
    /// Reference stream ticks per second (rounded up).
    public var ticksPerSecond: Int64
    /// The reference stream's reorder depth + 1: frames past a limit to read when
    /// packets carry no dts.
    public var settleCount: Int
    /// Item time 0 in reference ticks.
    public var originTicks: Int64
    /// The container's duration end in reference ticks (rounded up), nil when unknown.
    public var durationEndTicks: Int64?
    /// The container can seek at all.
    public var seekable: Bool
    /// Timestamp seeks resync near a dts on a non-key packet while byte seeks are
    /// allowed (MPEG-TS/PS): byte positioning is the better one.
    public var positionsByByte: Bool
    /// The demuxer's timestamp seeks are by pts (mov, Matroska), not dts.
    public var seeksByPTS: Bool
    /// Each positioning costs a round trip (a remote input).
    public var costlySeeks: Bool
    /// The file's size in bytes, when the protocol knows it without I/O (a local file, an
    /// HTTP Content-Length). Byte positioning and the test of a cut packet use it.
    public var fileSize: Int64?
    /// Cap on the packet window's payload bytes.
    public var maxWindowBytes: Int
    /// The reference stream's video (frame stepping) or audio.
    public var hasVideo: Bool
    public var priming: Priming
    public init(referenceStream: Int32, ticksPerSecond: Int64, settleCount: Int, originTicks: Int64,
                durationEndTicks: Int64?, seekable: Bool, positionsByByte: Bool, seeksByPTS: Bool,
                costlySeeks: Bool, fileSize: Int64?, maxWindowBytes: Int, hasVideo: Bool, priming: Priming) {
        self.referenceStream = referenceStream; self.ticksPerSecond = ticksPerSecond; self.settleCount = settleCount
        self.originTicks = originTicks; self.durationEndTicks = durationEndTicks; self.seekable = seekable
        self.positionsByByte = positionsByByte; self.seeksByPTS = seeksByPTS; self.costlySeeks = costlySeeks
        self.fileSize = fileSize; self.maxWindowBytes = maxWindowBytes; self.hasVideo = hasVideo
        self.priming = priming
    }
}
