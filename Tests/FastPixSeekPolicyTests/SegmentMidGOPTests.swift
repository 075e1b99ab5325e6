import XCTest
@testable import FastPixSeekPolicy

/// HLS segments cut mid-GOP (ffmpeg's hls muxer with `split_by_time`) on fake segments, no
/// FFmpeg: a segment's head lists the frames read before its first keyframe (all of them when
/// it has none), and a landing on one starts its packets in the nearest earlier segment with a
/// keyframe, within a budget, on one timeline. 25 fps in 1/90000 (3600 ticks a frame).
final class SegmentMidGOPTests: XCTestCase {
    let frame: Int64 = 3600

    func refPTS(_ p: [DemuxedPacket]) -> [Int64] { p.filter { $0.stream == 0 }.compactMap(\.pts) }

    /// A 48-frame closed-GOP stream with a keyframe every 24 frames, cut in decode order at the
    /// reference packet `at` (counted in decode order), as split_by_time cuts it.
    func cut(at n: Int) -> (first: [DemuxedPacket], second: [DemuxedPacket]) {
        let p = Media.video(frames: 48, keyEvery: 24, openGOP: false, audioEvery: 2)
        let refs = p.indices.filter { p[$0].stream == 0 }
        return (Array(p[..<refs[n]]), Array(p[refs[n]...]))
    }

    func head(of p: [DemuxedPacket]) throws -> SegmentHead? {
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        XCTAssertNotNil(try l.seekableRange(ScriptedSeam(p)))
        return l.head
    }

    // MARK: The segment's head (Lander)

    func testHeadOfASegmentWithoutAKeyframe() throws {
        let (_, second) = cut(at: 6)
        let part = Array(second.prefix { !($0.stream == 0 && $0.isKey) })
        XCTAssertFalse(refPTS(part).isEmpty)
        let h = try XCTUnwrap(try head(of: part))
        XCTAssertNil(h.keyframe)
        XCTAssertTrue(h.startsMidGOP)
        XCTAssertEqual(h.leading, refPTS(part).sorted(), "every frame is a leading frame")
        XCTAssertFalse(h.readerLands(h.leading[0]))
        XCTAssertTrue(h.isLeading(Int64.max))
    }

    func testHeadOfASegmentCutMidGOPWithAKeyframeLater() throws {
        let (_, second) = cut(at: 6)
        let h = try XCTUnwrap(try head(of: second))
        XCTAssertEqual(h.keyframe, 24 * frame)
        XCTAssertTrue(h.startsMidGOP)
        let before = refPTS(second).filter { $0 < 24 * frame }.sorted()
        XCTAssertEqual(h.leading, before)
        XCTAssertFalse(h.readerLands(before.last!))
        XCTAssertTrue(h.readerLands(24 * frame))
        XCTAssertTrue(h.readerLands(30 * frame))
    }

    func testASegmentThatOpensOnItsKeyframeDoesNotStartMidGOP() throws {
        let p = Media.video(frames: 48, keyEvery: 24, openGOP: false, audioEvery: 2)
        let h = try XCTUnwrap(try head(of: p))
        XCTAssertFalse(h.startsMidGOP)
        XCTAssertEqual(h, SegmentHead(keyframe: 0, leading: []))
        // An open GOP's leading frames are landed by the segment's reader.
        XCTAssertTrue(SegmentHead(keyframe: 7200, leading: [0, 3600]).readerLands(0))
    }

    // MARK: Where a landing's packets start

    /// Segments of 0.6 s (54000 ticks) on one timeline.
    func spans(_ n: Int, domains: [Int64]? = nil) -> [SegmentSpan] {
        (0..<n).map { SegmentSpan(sequence: Int64(100 + $0), domain: domains?[$0] ?? 0, start: Rational(Int64($0) * 54000)) }
    }
    let keyed = SegmentHead(keyframe: 0, leading: [])
    func none(_ first: Int64) -> SegmentHead { SegmentHead(keyframe: nil, leading: [first, first + 3600]) }

    func testPreRollStartsAtTheNearestEarlierSegmentWithAKeyframe() {
        // 0: keyframe; 1, 2: none; 3: cut mid-GOP with a keyframe later.
        let heads: [SegmentHead] = [keyed, none(54000), none(108000), SegmentHead(keyframe: 180000, leading: [162000, 165600],
                                                                                   startsMidGOP: true)]
        let s = spans(4)
        var asked: [Int] = []
        let all: (Int) -> Bool = { _ in true }
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 54000, segment: 1, in: s, head: { asked.append($0); return heads[$0] },
                                                   readable: all), .segment(0))
        XCTAssertEqual(asked, [1, 0])
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 111600, segment: 2, in: s, head: { heads[$0] }, readable: all),
                       .segment(0), "two segments back")
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 165600, segment: 3, in: s, head: { heads[$0] }, readable: all),
                       .segment(0), "three back")
        // From its keyframe on, segment 3 decodes alone.
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 180000, segment: 3, in: s, head: { heads[$0] }, readable: all), .own)
        // A segment with a keyframe nearer wins.
        let h2: [SegmentHead] = [keyed, SegmentHead(keyframe: 72000, leading: [54000], startsMidGOP: true), none(108000)]
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 108000, segment: 2, in: spans(3), head: { h2[$0] }, readable: all),
                       .segment(1))
    }

    func testPreRollIsRefusedWithoutAnEarlierKeyframeOnTheTimeline() {
        let heads: [SegmentHead] = [keyed, none(54000), none(108000)]
        let all: (Int) -> Bool = { _ in true }
        // The window's start.
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 54000, segment: 0, in: spans(3), head: { _ in self.none(54000) },
                                                   readable: all), .unreachable)
        // A discontinuity between.
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 108000, segment: 2, in: spans(3, domains: [0, 1, 1]),
                                                   head: { heads[$0] }, readable: all), .unreachable)
        // A hole between, or a head not known.
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 108000, segment: 2, in: spans(3), head: { heads[$0] },
                                                   readable: { $0 != 1 }), .unreachable)
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 108000, segment: 2, in: spans(3),
                                                   head: { $0 == 1 ? nil : heads[$0] }, readable: all), .unreachable)
        // Past the budget: no keyframe within preRollSegmentBudget segments back.
        let b = SegmentLanding.preRollSegmentBudget
        let long = spans(b + 2)
        var asked = 0
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 0, segment: b + 1, in: long,
                                                   head: { asked += 1; return $0 == 0 ? self.keyed : self.none(Int64($0) * 54000) },
                                                   readable: all), .unreachable)
        XCTAssertEqual(asked, b + 1, "the segment itself and the budget's segments, no more")
        XCTAssertEqual(SegmentLanding.preRollStart(landing: 0, segment: b, in: long,
                                                   head: { $0 == 0 ? self.keyed : self.none(Int64($0) * 54000) },
                                                   readable: all), .segment(0), "exactly the budget back")
    }

    // MARK: Landings and steps at the head

    func testCoveringFrameAtTheHead() {
        let h = SegmentHead(keyframe: 72000, leading: [54000, 57600, 61200], startsMidGOP: true)
        XCTAssertEqual(SegmentLanding.coveringAtHead(target: Rational(59000), head: h), 57600)
        XCTAssertEqual(SegmentLanding.coveringAtHead(target: Rational(61200), head: h), 61200)
        XCTAssertEqual(SegmentLanding.coveringAtHead(target: Rational(71999), head: h), 61200)
        XCTAssertNil(SegmentLanding.coveringAtHead(target: Rational(72000), head: h), "the keyframe: the reader lands it")
        XCTAssertNil(SegmentLanding.coveringAtHead(target: Rational(50000), head: h), "before the segment's frames")
        XCTAssertEqual(SegmentLanding.coveringAtHead(target: Rational(1_000_000), head: none(54000)), 57600)
        // An open GOP's leading frames: the reader lands them.
        XCTAssertNil(SegmentLanding.coveringAtHead(target: Rational(3600), head: SegmentHead(keyframe: 7200, leading: [0, 3600])))
        XCTAssertNil(SegmentLanding.coveringAtHead(target: Rational(3600), head: nil))
    }

    func testStepsThroughASegmentWithoutAKeyframe() {
        let h = none(54000)
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 54000, forward: true, head: h), .frame(57600))
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 57600, forward: true, head: h), .crossing, "on to the next segment")
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 57600, forward: false, head: h), .frame(54000))
        XCTAssertEqual(SegmentLanding.stepAtHead(from: 54000, forward: false, head: h), .crossing)
        XCTAssertEqual(SegmentLanding.atOrAfterAtHead(target: Rational(55000), head: h), 57600)
        XCTAssertNil(SegmentLanding.atOrAfterAtHead(target: Rational(58000), head: h), "the next segment's first frame")
    }

    func testNextKeyframeSkipsSegmentsWithoutOne() {
        let heads: [SegmentHead] = [keyed, none(54000), none(108000), SegmentHead(keyframe: 180000, leading: [162000],
                                                                                   startsMidGOP: true)]
        XCTAssertTrue(SegmentLanding.nextKeyframe(from: 1, in: spans(4), head: { heads[$0] }).map { $0 == (3, 180000) } ?? false)
        XCTAssertTrue(SegmentLanding.nextKeyframe(from: 0, in: spans(4), head: { heads[$0] }).map { $0 == (0, 0) } ?? false)
        XCTAssertNil(SegmentLanding.nextKeyframe(from: 1, in: spans(4, domains: [0, 0, 1, 1]), head: { heads[$0] }),
                     "not across a discontinuity")
        XCTAssertNil(SegmentLanding.nextKeyframe(from: 1, in: spans(3), head: { heads[$0] }))
        XCTAssertNil(SegmentLanding.nextKeyframe(from: 1, in: spans(4), head: { $0 == 2 ? nil : heads[$0] }), "a hole ends it")
        // Keyframe seeks among frames before the first keyframe: the one after may be a later segment's, or none.
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: Rational(108000), window: 0...200000, before: 0, firstKey: nil),
                       .before)
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: Rational(108000), window: 50000...200000, before: 0,
                                                        firstKey: nil), .covering)
        XCTAssertEqual(SegmentLanding.keyframeAtLeading(target: Rational(108000), window: 0...200000, before: 0,
                                                        firstKey: 180000), .firstKey)
    }
}
