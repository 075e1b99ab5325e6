import XCTest
@testable import FastPixSeekCore

/// NALReference (the H.264 / HEVC reference test on packet bytes) and DisposableMarker (the
/// flag's rule), on hand-made byte strings.
final class NALReferenceTests: XCTestCase {
    typealias V = NALReference.Verdict
    let avc4 = NALReference.Format(codec: .h264, framing: .lengthPrefixed(4))
    let avcB = NALReference.Format(codec: .h264, framing: .annexB)
    let hevc4 = NALReference.Format(codec: .hevc, framing: .lengthPrefixed(4), hevcMaxTemporalID: 0)
    let hevcB = NALReference.Format(codec: .hevc, framing: .annexB, hevcMaxTemporalID: 0)

    func verdict(_ bytes: [UInt8], _ f: NALReference.Format) -> V {
        bytes.withUnsafeBytes { NALReference.verdict($0, format: f) }
    }
    /// Length-prefixed NAL units (`n`-byte sizes).
    func lp(_ nals: [[UInt8]], _ n: Int = 4) -> [UInt8] {
        var out: [UInt8] = []
        for u in nals {
            for i in (0..<n).reversed() { out.append(UInt8((u.count >> (8 * i)) & 0xff)) }
            out += u
        }
        return out
    }
    /// Annex B: 4-byte start code before the first, 3-byte before the others.
    func annexB(_ nals: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, u) in nals.enumerated() { out += (i == 0 ? [0, 0, 0, 1] : [0, 0, 1]) + u }
        return out
    }
    // H.264 NAL headers: nal_ref_idc << 5 | type.
    func h264(_ refIdc: UInt8, _ type: UInt8, _ payload: [UInt8] = [0x88, 0x84, 0x21]) -> [UInt8] {
        [refIdc << 5 | type] + payload
    }
    // HEVC NAL header: type << 1, layer 0, TemporalId + 1.
    func hevc(_ type: UInt8, tid: UInt8 = 0, _ payload: [UInt8] = [0xaf, 0x12, 0x34]) -> [UInt8] {
        [type << 1, tid + 1] + payload
    }

    func testH264NonReferenceSlicesAreDisposable() {
        let b = h264(0, 1)
        XCTAssertEqual(verdict(lp([b]), avc4), .disposable)
        XCTAssertEqual(verdict(lp([h264(0, 9, [0x30]), h264(0, 6, [5, 1, 0x80]), b, b]), avc4), .disposable)
        XCTAssertEqual(verdict(annexB([h264(0, 9, [0x30]), b]), avcB), .disposable)
        XCTAssertEqual(verdict(lp([b], 1), NALReference.Format(codec: .h264, framing: .lengthPrefixed(1))), .disposable)
        XCTAssertEqual(verdict(lp([b], 2), NALReference.Format(codec: .h264, framing: .lengthPrefixed(2))), .disposable)
    }

    func testH264ReferenceSlicesIDRAndParameterSets() {
        XCTAssertEqual(verdict(lp([h264(2, 1)]), avc4), .referenced)                 // a reference P/B
        XCTAssertEqual(verdict(lp([h264(3, 5)]), avc4), .referenced)                 // IDR
        XCTAssertEqual(verdict(lp([h264(0, 1), h264(2, 1)]), avc4), .referenced)     // mixed fields
        XCTAssertEqual(verdict(lp([h264(2, 1), h264(0, 1)]), avc4), .referenced)
        XCTAssertEqual(verdict(lp([h264(3, 7), h264(0, 1)]), avc4), .referenced)     // an SPS in the packet
        XCTAssertEqual(verdict(lp([h264(3, 8), h264(0, 1)]), avc4), .referenced)     // a PPS
        XCTAssertEqual(verdict(annexB([h264(3, 7), h264(3, 8), h264(3, 5)]), avcB), .referenced)
        XCTAssertEqual(verdict(lp([h264(0, 2), h264(0, 3)]), avc4), .disposable)     // data partitions
    }

    func testH264UnsureIsUnknown() {
        XCTAssertEqual(verdict(lp([h264(0, 6)]), avc4), .unknown)                    // no VCL at all
        XCTAssertEqual(verdict(lp([h264(0, 14), h264(0, 1)]), avc4), .unknown)       // SVC prefix
        XCTAssertEqual(verdict(lp([h264(0, 20)]), avc4), .unknown)                   // MVC
        XCTAssertEqual(verdict(lp([h264(0, 10), h264(0, 1)]), avc4), .unknown)       // end of sequence
        XCTAssertEqual(verdict(lp([[0x81, 1, 2]]), avc4), .unknown)                  // forbidden bit
        XCTAssertEqual(verdict([], avc4), .unknown)
        // Truncated / not tiling / zero-length NAL / bad length size.
        let good = lp([h264(0, 1)])
        XCTAssertEqual(verdict(Array(good.dropLast()), avc4), .unknown)
        XCTAssertEqual(verdict(good + [0], avc4), .unknown)
        XCTAssertEqual(verdict(good + [0, 0, 0, 0], avc4), .unknown)
        XCTAssertEqual(verdict([0, 0, 0], avc4), .unknown)
        XCTAssertEqual(verdict([0xff, 0xff, 0xff, 0xff, 0x01], avc4), .unknown)
        XCTAssertEqual(verdict(good, NALReference.Format(codec: .h264, framing: .lengthPrefixed(0))), .unknown)
        XCTAssertEqual(verdict(good, NALReference.Format(codec: .h264, framing: .lengthPrefixed(5))), .unknown)
        // A 2-byte length size read as 4: does not tile.
        XCTAssertEqual(verdict(lp([h264(0, 1)], 2), avc4), .unknown)
        // Malformed framing wins over a referenced NAL unit seen before it: nothing is trusted.
        XCTAssertEqual(verdict(lp([h264(2, 1)]) + [9], avc4), .unknown)
    }

    func testBoundOnNALUnits() {
        let b = h264(0, 1)
        XCTAssertEqual(verdict(lp(Array(repeating: b, count: NALReference.maxNALUnits)), avc4), .disposable)
        XCTAssertEqual(verdict(lp(Array(repeating: b, count: NALReference.maxNALUnits + 1)), avc4), .unknown)
        XCTAssertEqual(verdict(annexB(Array(repeating: b, count: NALReference.maxNALUnits)), avcB), .disposable)
        XCTAssertEqual(verdict(annexB(Array(repeating: b, count: NALReference.maxNALUnits + 1)), avcB), .unknown)
        // Annex B: a packet longer than the scan bound is not looked at.
        let big = annexB([h264(0, 1, Array(repeating: 0x55, count: NALReference.maxAnnexBBytes))])
        XCTAssertEqual(verdict(big, avcB), .unknown)
        let fits = annexB([h264(0, 1, Array(repeating: 0x55, count: NALReference.maxAnnexBBytes - 8))])
        XCTAssertEqual(verdict(fits, avcB), .disposable)
        // Length-prefixed: any size, the lengths are jumped over.
        XCTAssertEqual(verdict(lp([h264(0, 1, Array(repeating: 0, count: 1 << 20))]), avc4), .disposable)
    }

    func testAnnexBFraming() {
        let b = h264(0, 1)
        XCTAssertEqual(verdict([0, 0, 1] + b, avcB), .disposable)                     // 3-byte start code
        XCTAssertEqual(verdict([0, 0, 0, 0, 1] + b + [0, 0], avcB), .disposable)      // extra zeros
        XCTAssertEqual(verdict(b, avcB), .unknown)                                    // no start code
        XCTAssertEqual(verdict([0, 0, 1], avcB), .unknown)                            // nothing after it
        XCTAssertEqual(verdict([0, 0, 1] + b + [0, 0, 1], avcB), .unknown)            // start code at the end
        XCTAssertEqual(verdict([0, 0, 1, 0, 0, 1] + b, avcB), .unknown)               // empty NAL unit
        XCTAssertEqual(verdict([0, 0, 2] + b, avcB), .unknown)
        XCTAssertEqual(verdict([7, 0, 0, 1] + b, avcB), .unknown)                     // junk before it
        // A reference slice after an emulation-prevented payload is found.
        XCTAssertEqual(verdict(annexB([h264(0, 1, [0, 0, 3, 1, 0, 0, 3, 0]), h264(1, 1)]), avcB), .referenced)
    }

    func testHEVCSubLayerNonReference() {
        for t: UInt8 in [0, 2, 4, 6, 8, 10, 12, 14] {
            XCTAssertEqual(verdict(lp([hevc(t)]), hevc4), .disposable, "type \(t)")
            XCTAssertEqual(verdict(annexB([hevc(35, [0x50]), hevc(t)]), hevcB), .disposable, "type \(t)")
        }
        for t: UInt8 in [1, 3, 5, 7, 9, 11, 13, 15, 16, 19, 20, 21, 22, 23, 32, 33, 34] {
            XCTAssertEqual(verdict(lp([hevc(t)]), hevc4), .referenced, "type \(t)")
        }
        // SEI prefix/suffix, AUD and filler go with it; EOS, EOB, reserved and unspecified do not.
        XCTAssertEqual(verdict(lp([hevc(35), hevc(39), hevc(0), hevc(40), hevc(38)]), hevc4), .disposable)
        for t: UInt8 in [36, 37, 41, 47, 48, 63, 24, 31] {
            XCTAssertEqual(verdict(lp([hevc(t), hevc(0)]), hevc4), .unknown, "type \(t)")
        }
        XCTAssertEqual(verdict(lp([hevc(0), hevc(1)]), hevc4), .referenced)          // mixed
        XCTAssertEqual(verdict(lp([hevc(39)]), hevc4), .unknown)                      // no VCL
        XCTAssertEqual(verdict(lp([[0x00, 0x00, 1]]), hevc4), .unknown)               // TemporalId + 1 == 0
        XCTAssertEqual(verdict(lp([[0x01, 0x01, 1]]), hevc4), .unknown)               // nuh_layer_id 8
        XCTAssertEqual(verdict(lp([[0x80, 0x01, 1]]), hevc4), .unknown)               // forbidden bit
        XCTAssertEqual(verdict(lp([[0x00]]), hevc4), .unknown)                        // 1-byte header
    }

    func testHEVCTemporalSubLayers() {
        // Three sub-layers (max TemporalId 2): a TRAIL_N of sub-layer 0 or 1 may be referenced
        // by a higher one; only the top sub-layer's is disposable.
        let f = NALReference.Format(codec: .hevc, framing: .lengthPrefixed(4), hevcMaxTemporalID: 2)
        XCTAssertEqual(verdict(lp([hevc(0, tid: 0)]), f), .referenced)
        XCTAssertEqual(verdict(lp([hevc(0, tid: 1)]), f), .referenced)
        XCTAssertEqual(verdict(lp([hevc(0, tid: 2)]), f), .disposable)
        XCTAssertEqual(verdict(lp([hevc(0, tid: 3)]), f), .unknown)                   // above the SPS
        // Unknown sub-layer count: nothing is disposable.
        let unknown = NALReference.Format(codec: .hevc, framing: .lengthPrefixed(4), hevcMaxTemporalID: nil)
        XCTAssertEqual(verdict(lp([hevc(0)]), unknown), .unknown)
        XCTAssertEqual(verdict(lp([hevc(1)]), unknown), .referenced)
        // An SPS in the packet reports its sps_max_sub_layers_minus1 (byte 2, bits 3..1).
        let sps = hevc(33, [0x01 | (3 << 1), 0x01, 0x60])
        let seen = lp([sps, hevc(19)]).withUnsafeBytes { NALReference.inspect($0, format: hevc4) }
        XCTAssertEqual(seen, NALReference.Inspection(verdict: .referenced, spsMaxTemporalID: 3))
    }

    func hvcC(lengthSizeMinusOne: UInt8, temporalLayers: UInt8, sps: [[UInt8]]) -> [UInt8] {
        var e = [UInt8](repeating: 0, count: 23)
        e[0] = 1
        e[21] = (temporalLayers << 3) | lengthSizeMinusOne
        e[22] = sps.isEmpty ? 0 : 1
        if !sps.isEmpty {
            e += [UInt8(0x80 | 33), 0, UInt8(sps.count)]  // typed for Swift 6.0.3 ([Any] otherwise)
            for s in sps { e += [UInt8(s.count >> 8), UInt8(s.count & 0xff)] + s }
        }
        return e
    }

    func format(_ codec: NALReference.Codec, _ e: [UInt8]) -> NALReference.Format? {
        e.withUnsafeBytes { NALReference.Format(codec: codec, extradata: $0) }
    }

    func testFormatFromExtradata() {
        // avcC: lengthSizeMinusOne in byte 4.
        XCTAssertEqual(format(.h264, [1, 0x64, 0, 0x1e, 0xff, 0xe1, 0])?.framing, .lengthPrefixed(4))
        XCTAssertEqual(format(.h264, [1, 0x64, 0, 0x1e, 0xfd, 0xe1, 0])?.framing, .lengthPrefixed(2))
        XCTAssertNil(format(.h264, [1, 0x64, 0, 0x1e]))                                 // truncated avcC
        XCTAssertEqual(format(.h264, [])?.framing, .annexB)
        XCTAssertEqual(format(.h264, [0, 0, 0, 1, 0x67, 0x64])?.framing, .annexB)
        XCTAssertEqual(format(.h264, [0, 0, 1, 0x67, 0x64])?.framing, .annexB)
        XCTAssertNil(format(.h264, [2, 0, 0, 0, 0, 0, 0]))                               // neither
        // hvcC: lengthSizeMinusOne and numTemporalLayers in byte 21; the SPS arrays.
        let sps0 = hevc(33, [0x01, 0x01, 0x60])                                        // max_sub_layers_minus1 0
        let sps2 = hevc(33, [0x01 | (2 << 1), 0x01, 0x60])                             // 2
        var f = format(.hevc, hvcC(lengthSizeMinusOne: 3, temporalLayers: 1, sps: [sps0]))
        XCTAssertEqual(f?.framing, .lengthPrefixed(4))
        XCTAssertEqual(f?.hevcMaxTemporalID, 0)
        f = format(.hevc, hvcC(lengthSizeMinusOne: 1, temporalLayers: 0, sps: [sps0, sps2]))
        XCTAssertEqual(f?.framing, .lengthPrefixed(2))
        XCTAssertEqual(f?.hevcMaxTemporalID, 2)                                        // the largest
        f = format(.hevc, hvcC(lengthSizeMinusOne: 3, temporalLayers: 3, sps: [sps0]))
        XCTAssertEqual(f?.hevcMaxTemporalID, 2)                                        // numTemporalLayers 3
        f = format(.hevc, hvcC(lengthSizeMinusOne: 3, temporalLayers: 0, sps: []))
        XCTAssertNotNil(f)
        XCTAssertNil(f?.hevcMaxTemporalID)                                             // unknown
        // A truncated SPS array is read as far as it goes, never past the end.
        var cut = hvcC(lengthSizeMinusOne: 3, temporalLayers: 0, sps: [sps2])
        cut.removeLast(4)
        XCTAssertNil(format(.hevc, cut)?.hevcMaxTemporalID)
        XCTAssertNil(format(.hevc, Array(repeating: 1, count: 22)))
        // Annex B extradata: VPS, SPS, PPS.
        f = format(.hevc, annexB([hevc(32, [0x0c, 0x01]), sps2, hevc(34, [0xc1])]))
        XCTAssertEqual(f?.framing, .annexB)
        XCTAssertEqual(f?.hevcMaxTemporalID, 2)
        XCTAssertNil(format(.hevc, [])?.hevcMaxTemporalID)
    }

    // MARK: DisposableMarker

    func packet(_ bytes: [UInt8], flags: UInt32, stream: Int32 = 0) -> (PacketView, [UInt8]) {
        (PacketView(data: nil, size: bytes.count, streamIndex: stream, pts: 0, dts: 0, duration: 1, position: -1,
                    flags: flags, seekID: 1, avPacket: nil), bytes)
    }

    func mark(_ bytes: [UInt8], flags: UInt32, format: VideoPacketFormat?, marker: inout DisposableMarker,
              trim: Int64 = 0, pts: Int64? = 0) -> Bool {
        var (v, b) = packet(bytes, flags: flags)
        v.trimSamples = trim
        v.pts = pts
        let id = ObjectIdentifier(self)
        b.withUnsafeBytes { raw in
            v.data = raw.baseAddress
            marker.mark(&v, format: format, engine: id)
        }
        return v.flags & PacketView.flagDisposable != 0
    }

    func testMarkerRule() {
        let decodeOnly = PacketView.flagDecodeOnly, disposable = PacketView.flagDisposable
        let avc = VideoPacketFormat(nal: avc4)
        let other = VideoPacketFormat(nal: nil)
        let nonRef = lp([h264(0, 1)]), ref = lp([h264(2, 1)]), junk: [UInt8] = [1, 2, 3]
        var m = DisposableMarker()
        XCTAssertTrue(mark(nonRef, flags: decodeOnly, format: avc, marker: &m))
        XCTAssertFalse(mark(nonRef, flags: 0, format: avc, marker: &m))                 // presented
        XCTAssertFalse(mark(nonRef, flags: disposable, format: avc, marker: &m))        // presented, container says so
        XCTAssertFalse(mark(nonRef, flags: decodeOnly | PacketView.flagDiscontinuity, format: avc, marker: &m))
        XCTAssertFalse(mark(nonRef, flags: decodeOnly | PacketView.flagCorrupt, format: avc, marker: &m))
        XCTAssertFalse(mark(nonRef, flags: decodeOnly, format: nil, marker: &m))        // not video
        XCTAssertFalse(mark(nonRef, flags: decodeOnly | disposable, format: nil, marker: &m))
        XCTAssertFalse(mark(nonRef, flags: decodeOnly | disposable, format: avc, marker: &m, trim: 5))
        XCTAssertFalse(mark(nonRef, flags: decodeOnly | disposable, format: avc, marker: &m, pts: nil)) // dts only
        // The bitstream overrides the container when it can tell; else the container stands.
        XCTAssertFalse(mark(ref, flags: decodeOnly | disposable, format: avc, marker: &m))
        XCTAssertTrue(mark(junk, flags: decodeOnly | disposable, format: avc, marker: &m))
        XCTAssertFalse(mark(junk, flags: decodeOnly, format: avc, marker: &m))
        // Other codecs: the container only.
        XCTAssertTrue(mark(junk, flags: decodeOnly | disposable, format: other, marker: &m))
        XCTAssertFalse(mark(nonRef, flags: decodeOnly, format: other, marker: &m))
        XCTAssertEqual(m.flagged, 3)
    }

    func testMarkerRaisesTheHEVCSubLayerCountFromInBandSPS() {
        let decodeOnly = PacketView.flagDecodeOnly
        let f = VideoPacketFormat(nal: hevc4)                                     // extradata: 1 sub-layer
        var m = DisposableMarker()
        let top0 = lp([hevc(0, tid: 0)])
        XCTAssertTrue(mark(top0, flags: decodeOnly, format: f, marker: &m))
        // A keyframe whose SPS declares 2 sub-layers: TemporalId 0's TRAIL_N is no longer the top.
        let sps1 = hevc(33, [0x01 | (1 << 1), 0x01, 0x60])
        XCTAssertFalse(mark(lp([sps1, hevc(19)]), flags: PacketView.flagKey, format: f, marker: &m))
        XCTAssertFalse(mark(top0, flags: decodeOnly, format: f, marker: &m))
        XCTAssertTrue(mark(lp([hevc(0, tid: 1)]), flags: decodeOnly, format: f, marker: &m))
        // Never lowered by a later SPS with fewer.
        let sps0 = hevc(33, [0x01, 0x01, 0x60])
        _ = mark(lp([sps0, hevc(19)]), flags: PacketView.flagKey, format: f, marker: &m)
        XCTAssertFalse(mark(top0, flags: decodeOnly, format: f, marker: &m))
    }
}
