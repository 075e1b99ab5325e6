/// Whether an H.264 or HEVC access unit can be referenced by a later frame, read from the first
/// bytes of its NAL units (seek.h, "Disposable packets"). Pure code on untrusted bytes: it never
/// reads outside the buffer it is given, looks at a bounded number of NAL units and bytes
/// (`NALReference.maxNALUnits`, `maxAnnexBBytes`), and answers `.unknown` whenever it is unsure.
///
/// Self-contained (the Swift standard library only), so the fuzz harness
/// (Tests/fuzz/fuzz_nal.swift) compiles this file on its own.
///
/// The rule, per access unit (one packet):
/// - H.264: disposable when every VCL NAL unit (types 1-4) has nal_ref_idc 0 and the other
///   NAL units are only SEI (6), access unit delimiters (9) or filler (12). An IDR slice (5)
///   or a slice with nal_ref_idc > 0 makes it referenced; so does a parameter set (7, 8, 13,
///   15: later frames need it).
/// - HEVC: disposable when every VCL NAL unit is a sub-layer non-reference type (TRAIL_N,
///   TSA_N, STSA_N, RADL_N, RASL_N, RSV_VCL_N10/12/14) of the highest sub-layer the stream
///   has (TemporalId == sps_max_sub_layers_minus1, from the codec extradata and any SPS seen
///   since: a sub-layer non-reference picture of a lower sub-layer may be referenced by a
///   higher one), nuh_layer_id 0, and the other NAL units are only AUD (35), filler (38) or
///   SEI (39, 40). A reference type, an IRAP or a parameter set makes it referenced.
/// - Anything else (another NAL type, a forbidden bit, a NAL unit that does not fit, more NAL
///   units or bytes than the bounds, no VCL NAL unit, an unknown length size or sub-layer
///   count) is `.unknown`.
public enum NALReference {
    /// At most this many NAL units of a packet are looked at; a packet with more is `.unknown`.
    public static let maxNALUnits = 64
    /// Annex B packets longer than this are not scanned for start codes (`.unknown`).
    /// Length-prefixed packets are walked by their length fields (at most `maxNALUnits` jumps),
    /// whatever their size.
    public static let maxAnnexBBytes = 262_144
    /// hvcC / Annex B extradata: at most this many NAL units are looked at for SPS.
    public static let maxExtradataNALUnits = 64

    public enum Codec: Hashable, Sendable { case h264, hevc }

    /// How NAL units are delimited in the packets of a stream.
    public enum Framing: Hashable, Sendable {
        /// avcC / hvcC: each NAL unit is preceded by its size in `n` big-endian bytes (1...4).
        case lengthPrefixed(Int)
        /// Annex B (MPEG-TS, raw streams): start codes 00 00 01 / 00 00 00 01.
        case annexB
    }

    /// What the bytes say about a packet.
    public enum Verdict: Hashable, Sendable {
        /// No later frame references it (the rule above).
        case disposable
        /// It is (or carries something) a later frame may need.
        case referenced
        /// The parser cannot tell: never treat as disposable on its account.
        case unknown
    }

    /// A stream's NAL format, read from its codec extradata.
    public struct Format: Hashable, Sendable {
        public var codec: Codec
        public var framing: Framing
        /// HEVC: the highest TemporalId of the stream (sps_max_sub_layers_minus1, the largest
        /// over the SPS in the extradata and hvcC's numTemporalLayers - 1); nil when unknown
        /// (then no HEVC packet is disposable). Unused for H.264.
        public var hevcMaxTemporalID: Int?

        public init(codec: Codec, framing: Framing, hevcMaxTemporalID: Int? = nil) {
            self.codec = codec; self.framing = framing; self.hevcMaxTemporalID = hevcMaxTemporalID
        }

        /// The format of an H.264 or HEVC stream from its extradata: avcC / hvcC (first byte 1)
        /// give the length size; empty extradata or extradata starting with a start code mean
        /// Annex B. nil when the extradata is neither (or the length size is invalid).
        public init?(codec: Codec, extradata: UnsafeRawBufferPointer) {
            let e = extradata
            self.codec = codec
            self.hevcMaxTemporalID = nil
            if e.count > 0 && e[0] == 1 {
                switch codec {
                case .h264:
                    // avcC: version, profile, compat, level, 6 bits reserved + lengthSizeMinusOne.
                    guard e.count >= 7 else { return nil }
                    framing = .lengthPrefixed(Int(e[4] & 3) + 1)
                case .hevc:
                    // hvcC: 22 bytes of header; byte 21 = constantFrameRate(2) numTemporalLayers(3)
                    // temporalIdNested(1) lengthSizeMinusOne(2); then the NAL arrays.
                    guard e.count >= 23 else { return nil }
                    framing = .lengthPrefixed(Int(e[21] & 3) + 1)
                    var maxTID: Int? = nil
                    let layers = Int((e[21] >> 3) & 7)
                    if layers >= 1 { maxTID = layers - 1 }
                    NALReference.hvcCSPSMaxTemporalID(e).map { maxTID = max(maxTID ?? 0, $0) }
                    hevcMaxTemporalID = maxTID
                }
                return
            }
            guard e.count == 0 || NALReference.startCodeLength(e, at: 0) != nil
                    || (e.count >= 4 && e[0] == 0 && e[1] == 0 && e[2] == 0 && e[3] == 1) else { return nil }
            framing = .annexB
            if codec == .hevc, e.count > 0 {
                var maxTID: Int? = nil
                _ = NALReference.walkAnnexB(e, limit: NALReference.maxExtradataNALUnits) { start, end in
                    if let t = NALReference.spsMaxTemporalID(e, start, end) { maxTID = max(maxTID ?? 0, t) }
                    return true
                }
                hevcMaxTemporalID = maxTID
            }
        }
    }

    /// The verdict on one packet, and (HEVC) the largest sps_max_sub_layers_minus1 of the SPS
    /// the packet carries (a caller raises the stream's `hevcMaxTemporalID` with it, never lowers it).
    public struct Inspection: Hashable, Sendable {
        public var verdict: Verdict
        public var spsMaxTemporalID: Int?
    }

    public static func verdict(_ packet: UnsafeRawBufferPointer, format: Format) -> Verdict {
        inspect(packet, format: format).verdict
    }

    public static func inspect(_ packet: UnsafeRawBufferPointer, format: Format) -> Inspection {
        var acc = Accumulator(format: format)
        let ok: Bool
        switch format.framing {
        case .lengthPrefixed(let n):
            ok = walkLengthPrefixed(packet, lengthSize: n) { start, end in acc.add(packet, start, end) }
        case .annexB:
            ok = packet.count <= maxAnnexBBytes
                && walkAnnexB(packet, limit: maxNALUnits) { start, end in acc.add(packet, start, end) }
        }
        // A framing that does not parse says nothing, not even "referenced".
        guard ok else { return Inspection(verdict: .unknown, spsMaxTemporalID: nil) }
        return Inspection(verdict: acc.verdict, spsMaxTemporalID: acc.spsMaxTemporalID)
    }

    // MARK: Classification

    enum Kind { case nonReferenceVCL, referenced, ignorable, unknown }

    struct Accumulator {
        let format: Format
        var vcl = 0
        var referenced = false
        var unknown = false
        var spsMaxTemporalID: Int?
        init(format: Format) { self.format = format }

        /// Adds the NAL unit at [start, end); false stops the walk (nothing more to learn).
        mutating func add(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
            let k: Kind
            switch format.codec {
            case .h264: k = NALReference.h264Kind(p, start, end)
            case .hevc:
                if let t = NALReference.spsMaxTemporalID(p, start, end) { spsMaxTemporalID = max(spsMaxTemporalID ?? 0, t) }
                k = NALReference.hevcKind(p, start, end, maxTemporalID: format.hevcMaxTemporalID)
            }
            switch k {
            case .nonReferenceVCL: vcl += 1
            case .referenced: referenced = true
            case .ignorable: break
            case .unknown: unknown = true
            }
            return true
        }

        var verdict: Verdict {
            if referenced { return .referenced }
            if unknown || vcl == 0 { return .unknown }
            return .disposable
        }
    }

    static func h264Kind(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Kind {
        guard end - start >= 1 else { return .unknown }
        let b = p[start]
        if b & 0x80 != 0 { return .unknown }                  // forbidden_zero_bit
        let refIdc = (b >> 5) & 3, type = b & 0x1f
        switch type {
        case 1...4: return refIdc == 0 ? .nonReferenceVCL : .referenced
        case 5: return .referenced                              // IDR
        case 7, 8, 13, 15: return .referenced                   // SPS, PPS, SPS extension, subset SPS
        case 6, 9, 12: return .ignorable                        // SEI, AUD, filler
        default: return .unknown
        }
    }

    static func hevcKind(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int, maxTemporalID: Int?) -> Kind {
        guard end - start >= 2 else { return .unknown }
        let b0 = p[start], b1 = p[start + 1]
        if b0 & 0x80 != 0 { return .unknown }                 // forbidden_zero_bit
        let type = Int((b0 >> 1) & 0x3f)
        let layer = Int((b0 & 1) << 5) | Int(b1 >> 3)
        let tidPlus1 = Int(b1 & 7)
        guard tidPlus1 > 0, layer == 0 else { return .unknown }
        let tid = tidPlus1 - 1
        switch type {
        case 0, 2, 4, 6, 8, 10, 12, 14:                         // sub-layer non-reference
            guard let m = maxTemporalID else { return .unknown }
            if tid < m { return .referenced }                  // a higher sub-layer may use it
            return tid == m ? .nonReferenceVCL : .unknown
        case 1, 3, 5, 7, 9, 11, 13, 15: return .referenced      // sub-layer reference
        case 16...23: return .referenced                        // IRAP (and reserved IRAP)
        case 32, 33, 34: return .referenced                     // VPS, SPS, PPS
        case 35, 38, 39, 40: return .ignorable                  // AUD, filler, SEI prefix/suffix
        default: return .unknown
        }
    }

    /// HEVC: sps_max_sub_layers_minus1 of the SPS NAL unit at [start, end) (2-byte header, then
    /// sps_video_parameter_set_id(4) sps_max_sub_layers_minus1(3) ...); nil when it is no SPS.
    static func spsMaxTemporalID(_ p: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int? {
        guard end - start >= 3, (p[start] >> 1) & 0x3f == 33 else { return nil }
        return Int((p[start + 2] >> 1) & 7)
    }

    /// hvcC's arrays: the largest sps_max_sub_layers_minus1 of its SPS, bounded.
    static func hvcCSPSMaxTemporalID(_ e: UnsafeRawBufferPointer) -> Int? {
        var off = 22
        guard off < e.count else { return nil }
        let arrays = Int(e[off]); off += 1
        var seen = 0
        var result: Int? = nil
        for _ in 0..<arrays {
            guard e.count - off >= 3 else { return result }
            let type = e[off] & 0x3f
            let n = Int(e[off + 1]) << 8 | Int(e[off + 2])
            off += 3
            for _ in 0..<n {
                seen += 1
                guard seen <= maxExtradataNALUnits, e.count - off >= 2 else { return result }
                let len = Int(e[off]) << 8 | Int(e[off + 1])
                off += 2
                guard len <= e.count - off else { return result }
                if type == 33, let t = spsMaxTemporalID(e, off, off + len) { result = max(result ?? 0, t) }
                off += len
            }
        }
        return result
    }

    // MARK: Framing

    /// Calls `body(start, end)` for each NAL unit of a length-prefixed packet. False when the
    /// lengths do not tile the packet exactly, a NAL unit is empty, the length size is not
    /// 1...4, or there are more than `maxNALUnits`.
    static func walkLengthPrefixed(_ p: UnsafeRawBufferPointer, lengthSize n: Int,
                                   _ body: (Int, Int) -> Bool) -> Bool {
        guard (1...4).contains(n), p.count > 0 else { return false }
        var off = 0, count = 0
        while off < p.count {
            count += 1
            guard count <= maxNALUnits, p.count - off >= n else { return false }
            var len = 0
            for i in 0..<n { len = len << 8 | Int(p[off + i]) }
            off += n
            guard len > 0, len <= p.count - off else { return false }
            guard body(off, off + len) else { return true }
            off += len
        }
        return true
    }

    /// The length of the start code (3: 00 00 01) at `i`, else nil.
    static func startCodeLength(_ p: UnsafeRawBufferPointer, at i: Int) -> Int? {
        guard i >= 0, p.count - i >= 3, p[i] == 0, p[i + 1] == 0, p[i + 2] == 1 else { return nil }
        return 3
    }

    /// Calls `body(start, end)` for each NAL unit of an Annex B buffer (the bytes between start
    /// codes, trailing zero bytes included in `end`). False when it does not begin with zero
    /// bytes and a start code, a NAL unit is empty, or there are more than `limit`.
    static func walkAnnexB(_ p: UnsafeRawBufferPointer, limit: Int, _ body: (Int, Int) -> Bool) -> Bool {
        let n = p.count
        // Leading zero bytes, then the first start code.
        var i = 0
        while i < n && p[i] == 0 { i += 1 }
        guard i >= 2, i < n, p[i] == 1 else { return false }
        var start = i + 1
        var count = 0
        while true {
            // Find the next 00 00 01 at or after `start`.
            var j = start
            var next = -1
            while j + 2 < n {
                let c = p[j + 2]
                if c > 1 { j += 3; continue }
                if c == 1 && p[j] == 0 && p[j + 1] == 0 { next = j; break }
                j += 1
            }
            var end = next < 0 ? n : next
            // Zero bytes before a start code belong to neither NAL unit (trailing_zero_8bits,
            // or the 4-byte form's leading zero).
            while end > start && p[end - 1] == 0 && next >= 0 { end -= 1 }
            count += 1
            guard count <= limit, end > start else { return false }
            guard body(start, end) else { return true }
            if next < 0 { return true }
            start = next + 3
            if start >= n { return false }                    // a start code at the very end
        }
    }
}
