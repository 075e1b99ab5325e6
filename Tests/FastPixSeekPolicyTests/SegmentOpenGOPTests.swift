import XCTest
@testable import FastPixSeekPolicy

/// HLS open GOP across segment ends (issue 28.2) on fake segments, no FFmpeg: a stream of
/// open GOPs cut at a keyframe in decode order, as packagers cut it, so the frames that
/// present just before the keyframe (its leading frames) are in the second segment.
/// 25 fps in 1/90000 (3600 ticks a frame), a keyframe every 12 frames.
final class SegmentOpenGOPTests: XCTestCase {
    let frame: Int64 = 3600

    /// The two segments of a 48-frame stream cut at the keyframe presenting at frame 24.
    func segments(openGOP: Bool = true) -> (first: [DemuxedPacket], second: [DemuxedPacket]) {
        let p = Media.video(frames: 48, keyEvery: 12, openGOP: openGOP, audioEvery: 2)
        let cut = p.firstIndex { $0.stream == 0 && $0.isKey && $0.pts == 24 * frame }!
        return (Array(p[..<cut]), Array(p[cut...]))
    }

    func refPTS(_ p: [DemuxedPacket]) -> [Int64] { p.filter { $0.stream == 0 }.compactMap(\.pts) }

    func lander(_ p: [DemuxedPacket]) throws -> (ScriptedSeam, Lander<ScriptedSeam>) {
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        XCTAssertNotNil(try l.seekableRange(s))
        return (s, l)
    }

    /// The host's reads: (header, flags) of up to `n` packets.
    func hostReads(_ s: ScriptedSeam, _ l: Lander<ScriptedSeam>, _ n: Int = 200) throws -> [(DemuxedPacket, UInt32)] {
        var out: [(DemuxedPacket, UInt32)] = []
        for _ in 0..<n {
            guard let r = try l.nextForHost(s, { e, owned -> (DemuxedPacket, UInt32) in
                if owned { s.release(e.packet) }
                return (e.header, l.stamp.nextFlags(presents: e.presents ?? e.header.dts, timeBase: l.stamp.referenceTimeBase))
            }) else { break }
            out.append(r)
        }
        return out
    }

    // MARK: The segment's head (Lander)

    func testHeadListsTheLeadingFramesOfAnOpenGOP() throws {
        let (first, second) = segments()
        let leading = refPTS(second).filter { $0 < 24 * frame }.sorted()
        XCTAssertFalse(leading.isEmpty, "the fake stream has no leading frames")
        XCTAssertTrue(leading.allSatisfy { $0 > refPTS(first).max()! }, "leading frames present after the first segment")
        let (_, l) = try lander(second)
        XCTAssertEqual(l.head, SegmentHead(keyframe: 24 * frame, leading: leading))
        XCTAssertEqual(l.range?.lowerBound, leading.first, "the segment's first frame is its first leading frame")
    }

    func testClosedGOPHasNoLeadingFrames() throws {
        let (_, second) = segments(openGOP: false)
        let (_, l) = try lander(second)
        XCTAssertEqual(l.head, SegmentHead(keyframe: 24 * frame, leading: []))
        XCTAssertEqual(l.range?.lowerBound, 24 * frame)
    }

    // MARK: Pre-roll (Lander)

    func testPreRollStartsAtThePreviousSegmentsLastGOPAllDecodeOnly() throws {
        let (first, second) = segments()
        let target = refPTS(second).filter { $0 < 24 * frame }.min()!
        let (s, l) = try lander(first)
        let last = refPTS(first).max()!
        let lastKey = first.filter { $0.stream == 0 && $0.isKey }.compactMap(\.pts).filter { $0 <= last }.max()!
        XCTAssertEqual(lastKey, 12 * frame)
        _ = try l.preRoll(landing: target, seekID: 7, s, shouldStop: { false })
        XCTAssertEqual(l.stamp.landedPTS, target)
        XCTAssertEqual(l.stamp.seekID, 7)
        let reads = try hostReads(s, l)
        let (h0, f0) = try XCTUnwrap(reads.first)
        XCTAssertTrue(h0.stream == 0 && h0.isKey && h0.pts == lastKey, "reads start at the keyframe the last frame needs")
        XCTAssertNotEqual(f0 & PacketView.flagDiscontinuity, 0)
        XCTAssertTrue(reads.dropFirst().allSatisfy { $0.1 & PacketView.flagDiscontinuity == 0 })
        // Every frame of the segment presents before the landing: all of it is DECODE_ONLY.
        for (h, f) in reads where h.stream == 0 {
            XCTAssertNotEqual(f & PacketView.flagDecodeOnly, 0, "pts \(h.pts!)")
        }
        // Every frame from that keyframe on was delivered, through the end of the segment.
        let fromKey = first[first.firstIndex { $0.stream == 0 && $0.isKey && $0.pts == lastKey }!...]
        XCTAssertEqual(reads.map { "\($0.0.stream):\($0.0.pts!):\($0.0.dts!)" },
                       fromKey.map { "\($0.stream):\($0.pts!):\($0.dts!)" })
    }

    func testEnteringTheLandingsSegmentAfterPreRoll() throws {
        let (_, second) = segments()
        let leading = refPTS(second).filter { $0 < 24 * frame }.sorted()
        let target = leading[1]
        let (s, l) = try lander(second)
        try l.restartFromBeginning(s, seekID: 7, landing: target)
        let reads = try hostReads(s, l)
        XCTAssertTrue(reads.allSatisfy { $0.1 & PacketView.flagDiscontinuity == 0 }, "reading on: no DISCONTINUITY")
        XCTAssertTrue(reads.first!.0.isKey)
        var sawLanded = false
        for (h, f) in reads {
            guard let p = h.pts else { continue }
            XCTAssertEqual(f & PacketView.flagDecodeOnly != 0, p < target, "pts \(p)")
            if h.stream == 0 && p == target { sawLanded = true }
        }
        XCTAssertTrue(sawLanded)
        XCTAssertEqual(l.stamp.seekID, 7)
        // Without a landing: fresh flags.
        try l.restartFromBeginning(s, seekID: 8)
        XCTAssertTrue(try hostReads(s, l).allSatisfy { $0.1 == 0 })
    }

    // MARK: Where a landing's packets start (SegmentLanding)

    func spans(domains: [Int64] = [0, 0, 0]) -> [SegmentSpan] {
        domains.enumerated().map { SegmentSpan(sequence: Int64(10 + $0.offset), domain: $0.element,
                                               start: Rational(Int64($0.offset) * 90000)) }
    }

    /// Segment 1's head: keyframe at 90000 + 3600, leading frames 90000 - 3600 and 90000.
    let head = SegmentHead(keyframe: 93600, leading: [90000, 86400])

    func testPreRollStart() {
        let s = spans()
        let all: (Int) -> Bool = { _ in true }
        let closed = SegmentHead(keyframe: 0, leading: [])
        let heads: (Int) -> SegmentHead? = { $0 == 1 ? self.head : closed }
        XCTAssertEqual(head.leading, [86400, 90000], "sorted")
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 86400, segment: 1, in: s, head: heads, readable: all), .segment(0))
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 90000, segment: 1, in: s, head: heads, readable: all), .segment(0))
        // The keyframe and what follows decode from the segment itself.
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 93600, segment: 1, in: s, head: heads, readable: all), .own)
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 97200, segment: 1, in: s, head: heads, readable: all), .own)
        // No segment before (the window's start), a discontinuity, a hole, no head known: an open
        // GOP's leading frame is landed from its own segment, as before.
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 86400, segment: 0, in: s, head: { _ in self.head }, readable: all),
                       .own)
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 86400, segment: 1, in: spans(domains: [0, 1, 1]), head: heads,
                                                   readable: all), .own)
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 86400, segment: 1, in: s, head: heads, readable: { $0 != 0 }), .own)
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 86400, segment: 1, in: s, head: { _ in nil }, readable: all), .own)
        XCTAssertEqual(head.shifted(by: -86400), SegmentHead(keyframe: 7200, leading: [0, 3600]))
    }

    // MARK: Steps at a segment's head

    func testStepsWalkTheLeadingFramesOneAtATime() {
        // Forward: first leading -> second leading -> keyframe -> inside the segment.
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 86400, forward: true, head: head), .frame(90000))
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 90000, forward: true, head: head), .frame(93600))
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 93600, forward: true, head: head), .inSegment)
        // Backward: keyframe -> second leading -> first leading -> the previous segment's last frame.
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 93600, forward: false, head: head), .frame(90000))
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 90000, forward: false, head: head), .frame(86400))
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 86400, forward: false, head: head), .crossing)
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 97200, forward: false, head: head), .inSegment)
        // A closed GOP, or no head known: the segment's reader steps as before.
        let closed = SegmentHead(keyframe: 90000, leading: [])
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 90000, forward: false, head: closed), .inSegment)
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 90000, forward: true, head: nil), .inSegment)
    }

    func testAtOrAfterAmongLeadingFrames() {
        XCTAssertEqual(SegmentLanding.atOrAfterAtHead(target: Rational(80000), head: head), 86400)
        XCTAssertEqual(SegmentLanding.atOrAfterAtHead(target: Rational(86400), head: head), 86400)
        XCTAssertEqual(SegmentLanding.atOrAfterAtHead(target: Rational(86401), head: head), 90000)
        XCTAssertEqual(SegmentLanding.atOrAfterAtHead(target: Rational(91800), head: head), 93600)
        XCTAssertEqual(SegmentLanding.atOrAfterAtHead(target: Rational(93600), head: head), 93600)
        XCTAssertNil(SegmentLanding.atOrAfterAtHead(target: Rational(93601), head: head))
        XCTAssertNil(SegmentLanding.atOrAfterAtHead(target: Rational(80000), head: SegmentHead(keyframe: 90000, leading: [])))
    }

    // MARK: Nearest-keyframe seeks

    func testKeyframeSeekAmongLeadingFrames() {
        let t = Rational(90000)
        // The first keyframe (3600 after) beats the previous segment's keyframe 0.5 s before.
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: t, window: 0...180000, before: 45000, firstKey: 93600),
                       .firstKey)
        // The previous segment's keyframe, nearer.
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: t, window: 0...180000, before: 88200, firstKey: 93600),
                       .before)
        // A tie goes to the earlier.
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: t, window: 0...180000, before: 86400, firstKey: 93600),
                       .before)
        // Only what is inside the window counts; with nothing, the covering frame.
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: t, window: 88000...92000, before: 86400, firstKey: 93600),
                       .covering)
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: t, window: 88000...95000, before: nil, firstKey: 93600),
                       .firstKey)
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: t, window: 80000...92000, before: 86400, firstKey: 93600),
                       .before)
    }

    // MARK: The item's stamp keeps the pre-roll segment's flags

    func testPreRollSegmentPacketsKeepTheirReadersFlags() {
        var item = PacketStamp(referenceTimeBase: PacketStamp.TimeBase(1, 90000))
        item.land(90000, seekID: 3, segment: 11)
        let decodeOnly = PacketView.flagDecodeOnly
        // Segment 10, read before the landing's segment 11: its reader's DECODE_ONLY and landing stay.
        var p = PacketView(data: nil, size: 0, streamIndex: 0, pts: 50000, dts: 50000, duration: 3600, position: 0,
                           flags: decodeOnly, seekID: 3, avPacket: nil)
        p.landedPTS = 90000; p.landedPTSInStream = 90000
        item.stampSegmentPacket(&p, segment: 10, referenceStream: 0)
        XCTAssertEqual(p.flags, decodeOnly | PacketView.flagDiscontinuity)
        XCTAssertEqual(p.landedPTSInStream, 90000)
        // A segment after the landing's on its timeline: its reader carries the landing
        // (landingCarried), its flags stand.
        item.enterSegment(discontinuous: false)
        XCTAssertEqual(item.landingCarried(into: 12), 90000)
        p.flags = decodeOnly
        item.stampSegmentPacket(&p, segment: 12, referenceStream: 0)
        XCTAssertEqual(p.flags, decodeOnly)
        XCTAssertEqual(p.landedPTSInStream, 90000)
        // Past an EXT-X-DISCONTINUITY: everything there presents after it.
        item.enterSegment(discontinuous: true)
        p.flags = decodeOnly
        item.stampSegmentPacket(&p, segment: 13, referenceStream: 0)
        XCTAssertEqual(p.flags, PacketView.flagDiscontinuity)
        XCTAssertNil(p.landedPTSInStream)
    }
}
