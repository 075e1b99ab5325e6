/// FPX_PACKET_FLAG_DISPOSABLE (seek.h, "Disposable packets"): the one place that decides it,
/// for every engine, as the player hands a packet out (`Player.readPacket`).
///
/// An engine reports what its container says (AV_PKT_FLAG_DISPOSABLE, e.g. from mov's `sdtp`)
/// as the DISPOSABLE bit of the packet it returns; `DisposableMarker.mark` replaces that with
/// the final flag:
/// - only a video packet flagged DECODE_ONLY, without DISCONTINUITY or CORRUPT, with a pts, can
///   carry it (DECODE_ONLY falls back to the dts without a pts, and a packet whose frame may
///   present at or after the landing must reach the decoder);
/// - H.264 and HEVC: the bitstream decides when `NALReference` can tell (disposable or
///   referenced); when it cannot, the container's word stands;
/// - other video codecs: the container's word.
/// A stream's facts come from the engine (`PacketSource.videoPacketFormat`); the HEVC
/// sub-layer count is raised (never lowered) by the SPS seen in keyframe and DECODE_ONLY packets.
public struct VideoPacketFormat: Hashable, Sendable {
    /// The NAL format of an H.264 or HEVC stream; nil for other codecs, or when the
    /// extradata does not say how NAL units are framed.
    public var nal: NALReference.Format?
    public init(nal: NALReference.Format?) { self.nal = nal }
}

public struct DisposableMarker: Sendable {
    /// The engine whose streams `raisedTemporalID` describes.
    private var engine: ObjectIdentifier?
    /// HEVC: the largest sps_max_sub_layers_minus1 seen in band, per stream.
    private var raisedTemporalID: [Int32: Int] = [:]
    /// Packets flagged so far (statistics for tests and tools).
    public private(set) var flagged: UInt64 = 0

    public init() {}

    public mutating func mark(_ v: inout PacketView, format: VideoPacketFormat?, engine e: ObjectIdentifier) {
        if engine != e { engine = e; raisedTemporalID = [:] }
        let container = v.flags & PacketView.flagDisposable != 0
        v.flags &= ~PacketView.flagDisposable
        guard let f = format else { return }
        let candidate = v.flags & PacketView.flagDecodeOnly != 0
            && v.flags & (PacketView.flagDiscontinuity | PacketView.flagCorrupt) == 0
            && v.trimSamples == 0 && v.pts != nil
        var verdict = NALReference.Verdict.unknown
        if var nal = f.nal, let d = v.data, v.size > 0,
           candidate || (nal.codec == .hevc && v.flags & PacketView.flagKey != 0) {
            if nal.codec == .hevc, let r = raisedTemporalID[v.streamIndex] {
                nal.hevcMaxTemporalID = max(nal.hevcMaxTemporalID ?? r, r)
            }
            let seen = NALReference.inspect(UnsafeRawBufferPointer(start: d, count: v.size), format: nal)
            if let t = seen.spsMaxTemporalID {
                raisedTemporalID[v.streamIndex] = max(raisedTemporalID[v.streamIndex] ?? t, t)
            }
            verdict = seen.verdict
        }
        guard candidate else { return }
        let disposable: Bool
        switch verdict {
        case .disposable: disposable = true
        case .referenced: disposable = false
        case .unknown: disposable = container
        }
        if disposable { v.flags |= PacketView.flagDisposable; flagged &+= 1 }
    }
}
