import XCTest
@testable import FastPixSeekPolicy

/// The at-or-after convention (`LandingRequest.atOrAfter`, C FPX_PRECISION_AT_OR_AFTER) over the
/// scripted seam: cold scans, memory, open GOPs and B-pyramids, targets on, between and just
/// before frames, and the packets left for the host.
final class AtOrAfterTests: XCTestCase {
    func frames(_ p: [DemuxedPacket]) -> [Int64] {
        p.filter { $0.stream == 0 && !$0.isDiscard }.compactMap(\.pts).sorted()
    }

    func request(_ t: Rational, id: UInt64 = 1) -> LandingRequest {
        LandingRequest(target: t, wantsKeyframe: false, keyframeWindow: nil, seekID: id, atOrAfter: true)
    }

    func ready(_ p: [DemuxedPacket]) throws -> (ScriptedSeam, Lander<ScriptedSeam>) {
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        XCTAssertNotNil(try l.seekableRange(s))
        s.resetCounters()
        return (s, l)
    }

    /// The first frame whose pts >= t (the definition, over the script's own frame list).
    func expected(_ all: [Int64], _ t: Rational) -> Int64 { all.first { Rational($0) >= t }! }

    func testColdLandingsAreTheFirstFrameAtOrAfter() throws {
        for openGOP in [false, true] {
            let p = Media.video(openGOP: openGOP)
            let all = frames(p)
            // On frames, one tick before, a third of a tick before, midway.
            var targets: [Rational] = []
            for i in stride(from: 1, to: all.count, by: 11) {
                targets += [Rational(all[i]), Rational(all[i] - 1), Rational(Int128(3 * all[i] - 1), 3),
                            Rational(Int128(all[i - 1] + all[i]), 2)]
            }
            for t in targets {
                let (s, l) = try ready(p)
                let landing = try l.resolve(request(t), s, shouldStop: { false })
                let want = expected(all, t)
                XCTAssertEqual(landing.pts, want, "t=\(t) openGOP=\(openGOP)")
                XCTAssertEqual(landing.coversTarget, Rational(want) == t)
                XCTAssertEqual(landing.resolution, .coveringFrame)
                XCTAssertEqual(l.landedPTS, want, "the host's packets follow the landing")
                XCTAssertEqual(landing.packetsRead, UInt64(s.reads))
                // The host's next packet is a reference keyframe at or before the landing.
                let first = try XCTUnwrap(try l.nextForHost(s) { e, _ in e.header })
                XCTAssertTrue(first.isKey && first.stream == 0 && first.pts! <= want, "t=\(t)")
            }
        }
    }

    func testMemoryDecidesWhenTheGridKnowsTheNextFrame() throws {
        let p = Media.video()
        let all = frames(p)
        let (s, l) = try ready(p)
        _ = try l.resolve(request(Rational(all[100])), s, shouldStop: { false })
        s.resetCounters()
        // Inside frame 99: the next frame is known, no seam crossing.
        let t = Rational(all[99] + 5)
        let m = try XCTUnwrap(l.resolveFromMemory(request(t, id: 2), s))
        XCTAssertEqual(m.pts, all[100])
        XCTAssertFalse(m.coversTarget)
        XCTAssertEqual(s.positionings + s.reads, 0)
        // The pure decision, on the same grid.
        let k = try XCTUnwrap(LandingRules.fromGridAtOrAfter(request(t), grid: l.grid))
        XCTAssertEqual(k.pts, all[100])
        XCTAssertLessThanOrEqual(k.key.pts, k.pts)
        XCTAssertNil(LandingRules.fromGridAtOrAfter(request(Rational(all.last! - 1)), grid: FrameGrid()))
    }

    func testTheLastFrame() throws {
        let p = Media.video()
        let all = frames(p)
        let (s, l) = try ready(p)
        let landing = try l.resolve(request(Rational(all[all.count - 2] + 1)), s, shouldStop: { false })
        XCTAssertEqual(landing.pts, all.last!)
    }

    func testAtOrAfterNeverWithAKeyframeWindow() {
        let r = LandingRequest(target: Rational(5), wantsKeyframe: true, keyframeWindow: 0...10, seekID: 1, atOrAfter: true)
        XCTAssertFalse(r.atOrAfter)
        XCTAssertThrowsError(try SeekTarget(time: MediaTime(value: 1, timescale: 1), precision: .default,
                                            convention: .atOrAfter))
        let t = try? SeekTarget(time: MediaTime(value: 1, timescale: 1), precision: .exact, convention: .atOrAfter)
        XCTAssertEqual(try t?.at(MediaTime(value: 2, timescale: 1)).convention, .atOrAfter)
    }
}
