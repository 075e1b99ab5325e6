/// What the seek manager needs from media, and nothing more. The FFmpeg engines
/// implement it; core tests use a fake. What only an HLS item offers (its listing, its
/// switches) is `HLSItemControls`.
///
/// Threading contract (for `MediaEngine` and `PacketSource` together; the locks and
/// their order are written once, in Sync.swift):
///
/// - Serial members, called only with the player's `engineLock` held, so an
///   engine never runs two of them at once and needs no lock of its own for
///   the state they share: `seekableRange`, `resolve`, `step`, `readPacket`,
///   `close`, `demuxCounters`, `factsOwner`. They may block on I/O, except
///   `seekableRangeInMemory` and `resolveFromMemory`, which the player calls
///   on the thread that issues a seek (having only *tried* the engine lock)
///   and which must never block.
/// - Concurrent members, callable from any thread at any time, also while a
///   serial member runs and after `close()`: `interrupt`, `liveWindow`,
///   `itemTime(forDateMicroseconds:)`, `itemInfo`, `streamInfo`, and the
///   immutable `timeline`, `referenceStream`, `hasVideo`. They never block
///   on I/O, never take `engineLock`, and read only immutable state or state
///   under an engine-private lock of Sync.swift's last levels. `itemInfo`/`streamInfo`
///   read facts copied at open, never the
///   format context, so `close()` on another thread cannot free what they read.
/// - Memory handed out: a packet's bytes belong to `PacketView.owner` (the
///   player keeps it), stream facts to `factsOwner`: never to engine state
///   that a later serial call frees.
/// - Locks: the order and the rule for callbacks are in Sync.swift. Callbacks the
///   engine is given (`shouldStop`, `IOPolicy.aborted`) read atomic flags
///   (`CancelFlag`) and take no lock; still, call them with no engine-private lock
///   held (a test's engine may pass closures that lock).
/// Sendable: threads share an engine by the contract above (serial members under
/// `engineLock`, concurrent members from any thread); conformers guard their own state.
public protocol MediaEngine: AnyObject, Sendable {
    /// The reference stream's timeline.
    var timeline: Timeline { get }
    var referenceStream: Int32 { get }
    /// Whether the reference stream is video (frame stepping needs it).
    var hasVideo: Bool { get }

    /// [first frame, last frame] as absolute stream ticks, or nil when unknown.
    func seekableRange() throws -> ClosedRange<Int64>?

    /// Positions the engine for `request` and returns where it landed. Must
    /// check `shouldStop` between packets and return or throw `.cancelled`
    /// promptly when it says so.
    func resolve(_ request: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing

    /// Moves `count` frames forward or backward from the frame at `from` (nil:
    /// the first frame) along the presentation-order grid, and positions the
    /// packets at the keyframe the new frame needs. nil when there are not
    /// that many frames in that direction.
    func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
              shouldStop: @escaping () -> Bool) throws -> StepResultKind

    /// The seekable window as of now, without blocking on I/O; nil when the
    /// engine cannot say yet. Concurrent: callable without the engine lock.
    func liveWindow() -> LiveWindow?

    /// The published seekable range ends before a packet cut short by the end of the
    /// data (a truncated file: the range ends at the last frame read whole before it).
    /// False until the range is measured, and for engines that cannot tell. Concurrent.
    var seekableRangeEndsAtCut: Bool { get }

    /// The item time of a wall-clock date (Unix microseconds), when the item
    /// is date-addressable and the date is inside the window.
    func itemTime(forDateMicroseconds us: Int64) -> MediaTime?

    /// Interrupts any blocking I/O now in progress (close, destroy, supersede).
    func interrupt()

    /// The seekable range as far as it is known without I/O: `known` false when
    /// finding it would need I/O. Serial (engine lock held); never blocks.
    func seekableRangeInMemory() -> (known: Bool, range: ClosedRange<Int64>?)

    /// The landing of `request` when memory alone decides it (the frame grid, a
    /// keyframe index whose presentation times are known), or nil: the seek then
    /// goes to the worker and `resolve`. Serial (engine lock held), but never
    /// blocks and does no I/O: the host's read position moves to the landing's
    /// keyframe lazily, on the next `readPacket`, which reports any error of
    /// that positioning (seek.h, fpx_player_read_packet). The landing reports
    /// `packetsRead` 0.
    func resolveFromMemory(_ request: LandingRequest) -> Landing?

    /// Holes met so far in a segmented item (seek.h, "Gaps"): HLS, and DASH, which opens
    /// through the same HLS engine; empty for files. Concurrent.
    var holeReport: HoleReport { get }

    /// Whether `resolve`/`resolveFromMemory` honour `LandingRequest.atOrAfter` (the first
    /// frame at or after the target). An engine that does not has its at-or-after seeks
    /// fail with `.unsupported` (seek.h, FPX_PRECISION_AT_OR_AFTER). Immutable.
    var landsAtOrAfter: Bool { get }

    /// Where reading starts with no seek made (item ticks), when not the first frame of
    /// the seekable range (HLS: EXT-X-START, a live edge). Immutable once open.
    var startTicks: Int64? { get }
}

public extension MediaEngine {
    func seekableRangeInMemory() -> (known: Bool, range: ClosedRange<Int64>?) { (false, nil) }
    var seekableRangeEndsAtCut: Bool { false }
    func resolveFromMemory(_ request: LandingRequest) -> Landing? { nil }
    var holeReport: HoleReport { HoleReport() }
    var landsAtOrAfter: Bool { false }
    var startTicks: Int64? { nil }
}

/// Read access to packets and stream facts, for engines that demux.
public protocol PacketSource: AnyObject {
    /// The next packet. Its memory belongs to `PacketView.owner`, not to the
    /// engine: it stays valid as long as the owner is retained.
    func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView
    var itemInfo: ItemInfo { get }
    func streamInfo(_ index: Int32) -> StreamInfo?
    /// Releases every media resource. Idempotent; later calls fail with `.cancelled`.
    func close()
    /// Demux counters: packets and payload bytes read.
    var demuxCounters: (packets: UInt64, bytes: UInt64) { get }
    /// What keeps the pointers of `itemInfo` and `streamInfo` alive, once any
    /// of them was handed out (nil before, or when they are static). The
    /// player keeps it after `close()` until it is destroyed.
    var factsOwner: AnyObject? { get }
    /// Discards a stream in the demuxer (never read, never returned) or enables it again.
    /// Throws `.invalidArgument` for a bad index, `.referenceStream` for the reference stream.
    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws
    /// What `DisposableMarker` needs of stream `index`: nil when it is no video stream.
    /// Never blocks, never marks the facts handed out.
    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat?
}

public extension PacketSource {
    var factsOwner: AnyObject? { nil }
    func videoPacketFormat(_ index: Int32) -> VideoPacketFormat? { nil }
    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws { throw ErrorCode.unsupported }
}

/// Facts of a ready item. The C type is `fpx_item_info`.
public struct ItemInfo {
    public var streamCount: Int32
    public var referenceStream: Int32
    public var hasVideo: Bool
    public var duration: MediaTime
    public var timeline: Timeline
    public var seekable: Bool
    /// Static C string owned by FFmpeg (the demuxer's name).
    public var formatName: UnsafePointer<CChar>?
    /// fpx_item_info.start_pts when it is not `timeline.originTicks` (HLS: the first
    /// domain's placement); nil: the timeline's origin.
    public var startPTS: Int64? = nil

    public init(streamCount: Int32, referenceStream: Int32, hasVideo: Bool, duration: MediaTime, timeline: Timeline,
                seekable: Bool, formatName: UnsafePointer<CChar>?) {
        self.streamCount = streamCount; self.referenceStream = referenceStream; self.hasVideo = hasVideo
        self.duration = duration; self.timeline = timeline; self.seekable = seekable; self.formatName = formatName
    }
}

// MediaType (fpx_media_type) is generated from seek.h: ABIEnums.swift.

/// Facts of one stream. Pointers live as long as the item. The C type is `fpx_stream_info`.
public struct StreamInfo {
    public var index: Int32
    public var type: MediaType
    public var codecID: Int32
    public var codecName: UnsafePointer<CChar>?
    public var timeBaseNum: Int32
    public var timeBaseDen: Int32
    public var width: Int32, height: Int32
    public var sampleRate: Int32, channels: Int32
    public var videoDelay: Int32
    public var extradata: UnsafeRawPointer?
    public var extradataSize: Int
    public var codecParameters: UnsafeRawPointer?
    /// Profile, level, pixel and sample formats, colour, rotation, layout... (0.3).
    public var details = StreamDetails()

    public init(index: Int32, type: MediaType, codecID: Int32, codecName: UnsafePointer<CChar>?, timeBaseNum: Int32,
                timeBaseDen: Int32, width: Int32, height: Int32, sampleRate: Int32, channels: Int32, videoDelay: Int32,
                extradata: UnsafeRawPointer?, extradataSize: Int, codecParameters: UnsafeRawPointer?) {
        self.index = index; self.type = type; self.codecID = codecID; self.codecName = codecName
        self.timeBaseNum = timeBaseNum; self.timeBaseDen = timeBaseDen; self.width = width; self.height = height
        self.sampleRate = sampleRate; self.channels = channels; self.videoDelay = videoDelay
        self.extradata = extradata; self.extradataSize = extradataSize; self.codecParameters = codecParameters
    }
}

/// How an engine's blocking I/O is bounded and aborted.
public struct IOPolicy: Sendable {
    /// Bound on one blocking operation, nanoseconds; 0 = none.
    public var timeoutNanoseconds: UInt64
    /// True when the owner wants every operation aborted (close, destroy).
    public var aborted: @Sendable () -> Bool
    /// Which protocols may be opened (see `ProtocolPolicy`).
    public var protocols: ProtocolPolicy
    /// Cap on buffered media, bytes (HLS segments held, the packet window).
    public var maxBufferBytes: Int
    /// The deadlines of the whole open (engine open plus range measurement), which bound
    /// every operation while it runs (`OpenDeadline`); nil = none.
    public var openDeadline: OpenDeadline?
    /// HLS: which variant of a master playlist to play (fpx_player_config.hls_*).
    public var hlsVariant = HLSVariantChoice()
    /// HLS: which audio rendition plays as a second feed (fpx_player_config.hls_audio).
    public var hlsAudio = HLSRenditions.Choice()
    /// The item's reference stream by index (fpx_player_config.reference_stream); nil:
    /// automatic. Read by the engine factory for the item it opens, never by the engines
    /// of an HLS item's segments.
    public var referenceStream: Int32?
    /// How TLS servers are checked (fpx_player_config.tls_*).
    public var tls = TLSPolicy.default

    public static let defaultMaxBufferBytes = 64 << 20

    public init(timeoutNanoseconds: UInt64, aborted: @escaping @Sendable () -> Bool,
                protocols: ProtocolPolicy = .default, maxBufferBytes: Int = IOPolicy.defaultMaxBufferBytes,
                openDeadline: OpenDeadline? = nil) {
        self.timeoutNanoseconds = timeoutNanoseconds
        self.aborted = aborted
        self.protocols = protocols
        self.maxBufferBytes = maxBufferBytes
        self.openDeadline = openDeadline
    }
}

/// Opens an engine for a URL. Blocking; runs on the player's worker.
public typealias EngineFactory = (_ url: String, _ policy: IOPolicy) throws -> MediaEngine & PacketSource
