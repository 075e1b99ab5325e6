/// The values a landing or a step is asked for and answered with, the failure type of
/// the policy and the engines, and the packet view the host reads. Pure.

/// An engine failure with FFmpeg's original code.
public struct EngineError: Error, Sendable {
    public var code: ErrorCode
    public var avError: Int32
    public init(_ code: ErrorCode, avError: Int32 = 0) { self.code = code; self.avError = avError }
}

/// Where a frame step landed.
public struct StepLanding: Hashable, Sendable {
    public var pts: Int64
    public var packetsRead: UInt64
    public var streamPTS: Int64?
    public init(pts: Int64, packetsRead: UInt64, streamPTS: Int64? = nil) {
        self.pts = pts; self.packetsRead = packetsRead; self.streamPTS = streamPTS
    }
}

/// What a step engine call found.
public enum StepResultKind: Hashable, Sendable {
    case landed(StepLanding)
    /// Fewer than `count` frames that way.
    case noFrame
    /// Forward, at the live edge: the next frame is not published yet, or is
    /// published but lies past the hold-back edge (`LiveEdgeCause`).
    case atLiveEdge(LiveEdgeCause)
}

/// Why a forward step at the live edge was refused; both are FPX_STEP_AT_LIVE_EDGE.
public enum LiveEdgeCause: Hashable, Sendable {
    /// The live playlist has not published the next frame's segment yet.
    case notPublished
    /// The next frame is published, but lies past the hold-back edge (the
    /// newest segment's end minus HOLD-BACK), which the seekable range ends at.
    case pastHoldBack
}

/// A landing to resolve, in absolute stream ticks.
public struct LandingRequest: Hashable, Sendable {
    /// The target as an exact rational number of ticks.
    public var target: Rational
    /// True for `.nearestKeyframe`.
    public var wantsKeyframe: Bool
    /// For `.nearestKeyframe`: the window [lo, hi] in whole ticks; nil when no
    /// whole tick lies inside it (tolerance 0 and a target between ticks).
    public var keyframeWindow: ClosedRange<Int64>?
    public var seekID: UInt64
    /// The caller already asked memory (`resolveFromMemory`) and it did not
    /// decide: `resolve` goes straight to the index or the scan, so memory is
    /// checked once per seek.
    public var memoryChecked = false
    /// Lands on the first frame at or after the target instead of the one covering it
    /// (`FrameConvention.atOrAfter`; never with `wantsKeyframe`). Decided by `Lander`.
    public var atOrAfter = false

    public init(target: Rational, wantsKeyframe: Bool, keyframeWindow: ClosedRange<Int64>?, seekID: UInt64,
                atOrAfter: Bool = false) {
        self.target = target
        self.wantsKeyframe = wantsKeyframe
        self.keyframeWindow = wantsKeyframe ? keyframeWindow : nil
        self.seekID = seekID
        self.atOrAfter = atOrAfter && !wantsKeyframe
    }

    /// floor(target): the largest tick at or before the target.
    public var targetFloor: Int64 { Int64(clamping: target.floor) }
    /// ceil(target): the smallest tick at or after the target. Frames sit on whole ticks, so
    /// the first frame at or after the target is the first at or after this tick.
    public var targetCeil: Int64 { Int64(clamping: target.ceil) }

    /// The exact (covering-frame) request at `targetCeil`: its landing is the first frame at
    /// or after the target when that frame starts exactly at `targetCeil`, else the frame
    /// just before it (`Lander.resolveAtOrAfter` then steps one frame on).
    public var coveringAtCeil: LandingRequest {
        var r = LandingRequest(target: Rational(targetCeil), wantsKeyframe: false, keyframeWindow: nil, seekID: seekID)
        r.memoryChecked = memoryChecked
        return r
    }
}

/// Where a seek landed, as the engine found it.
public struct Landing: Hashable, Sendable {
    public var pts: Int64
    public var isKeyframe: Bool
    public var resolution: LandingResolution
    public var coversTarget: Bool
    public var packetsRead: UInt64
    /// The pts in the demuxed stream's own time base when it differs from
    /// `pts` (HLS: `pts` is on the engine's continuous timeline).
    public var streamPTS: Int64?
    /// HLS: the target was in a hole and this is the first frame after it (seek.h, "Gaps").
    public var pastHole: HoleReason = .none

    public init(pts: Int64, isKeyframe: Bool, resolution: LandingResolution, coversTarget: Bool, packetsRead: UInt64,
                streamPTS: Int64? = nil) {
        self.streamPTS = streamPTS
        self.pts = pts
        self.isKeyframe = isKeyframe
        self.resolution = resolution
        self.coversTarget = coversTarget
        self.packetsRead = packetsRead
    }
}

/// A borrowed view of one demuxed packet. The C type is `fpx_packet`.
public struct PacketView {
    public var data: UnsafeRawPointer?
    public var size: Int
    public var streamIndex: Int32
    public var pts: Int64?
    public var dts: Int64?
    public var duration: Int64
    public var position: Int64
    public var flags: UInt32
    public var seekID: UInt64
    public var avPacket: UnsafeRawPointer?
    /// The landing of the seek this packet follows (reference stream pts), nil before any
    /// landed seek. The C fields are `fpx_packet.landed_pts` and `landed_stream_index`.
    public var landedPTS: Int64? = nil
    public var landedStreamIndex: Int32 = -1
    /// The landing in this packet's own stream time base, rounded up: a decoded frame of this
    /// stream presents at or after the landing exactly when its pts >= this.
    public var landedPTSInStream: Int64? = nil
    /// Audio: samples at the start of this packet's decoded frame that present before the
    /// landing (0 unless the packet straddles it).
    public var trimSamples: Int64 = 0
    /// Item time 0 on this packet's pts timeline, in reference-stream ticks
    /// (`fpx_packet.item_origin_pts`): the timeline's origin for files, the packet's
    /// discontinuity domain placement for HLS (HLSPlacement). Nil: the player fills in
    /// the timeline's origin.
    public var itemOriginPTS: Int64? = nil
    /// What keeps `data` and `avPacket` alive: the packet's own reference,
    /// freed when the last owner lets go. The engine keeps none of it; the
    /// player holds it for the host (see `Player.readPacket`), so no engine
    /// event (a seek, a segment evicted, the engine closed) can free it.
    public var owner: AnyObject?

    public init(data: UnsafeRawPointer?, size: Int, streamIndex: Int32, pts: Int64?, dts: Int64?, duration: Int64,
                position: Int64, flags: UInt32, seekID: UInt64, avPacket: UnsafeRawPointer?, owner: AnyObject? = nil) {
        self.data = data; self.size = size; self.streamIndex = streamIndex; self.pts = pts; self.dts = dts
        self.duration = duration; self.position = position; self.flags = flags; self.seekID = seekID
        self.avPacket = avPacket; self.owner = owner
    }

    public static let flagKey = ABIConstants.FPX_PACKET_FLAG_KEY
    public static let flagCorrupt = ABIConstants.FPX_PACKET_FLAG_CORRUPT
    public static let flagDiscard = ABIConstants.FPX_PACKET_FLAG_DISCARD
    public static let flagDecodeOnly = ABIConstants.FPX_PACKET_FLAG_DECODE_ONLY
    public static let flagDiscontinuity = ABIConstants.FPX_PACKET_FLAG_DISCONTINUITY
    public static let flagDisposable = ABIConstants.FPX_PACKET_FLAG_DISPOSABLE
}

