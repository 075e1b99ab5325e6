import XCTest
@testable import FastPixSeekPolicy

/// The HLS placement rule (seek.h, "Timeline" in "Live and DVR HLS") on fake data: each
/// domain's anchor is its first listed segment that is no hole, whichever segment is asked
/// about first; frames keep their pts distance from the anchor's first frame.
final class HLSPlacementTests: XCTestCase {
    /// Domains of 7 segments: [0 0 0 | 1 1 | 2 2].
    let domains: [Int64] = [5, 5, 5, 6, 6, 7, 7]
    func domain(_ k: Int) -> Int64 { domains[k] }

    func testAnchorIsTheDomainsFirstSegmentWhicheverIsAsked() {
        for i in 0..<7 {
            let a = HLSPlacement.anchorIndex(for: i, count: 7, domain: domain, hole: { _ in .none })
            XCTAssertEqual(a, [0, 0, 0, 3, 3, 5, 5][i], "segment \(i)")
        }
        XCTAssertNil(HLSPlacement.anchorIndex(for: 7, count: 7, domain: domain, hole: { _ in .none }))
    }

    func testAnchorSkipsHolesButNotIntoTheNextDomain() {
        let holes: Set<Int> = [0, 1, 3, 4]
        let hole: (Int) -> HoleReason = { holes.contains($0) ? .gap : .none }
        XCTAssertEqual(HLSPlacement.anchorIndex(for: 2, count: 7, domain: domain, hole: hole), 2)
        XCTAssertEqual(HLSPlacement.anchorIndex(for: 0, count: 7, domain: domain, hole: hole), 2)
        XCTAssertNil(HLSPlacement.anchorIndex(for: 4, count: 7, domain: domain, hole: hole))  // domain 6: all holes
    }

    func testPlacementKeepsPtsDistancesAndFloorsTheListedStart() {
        // An anchor listed at 8 s + 1/3 tick (EXTINF sums need not fall on ticks), first frame pts 9_133_200.
        let start = Rational(8) + Rational(1, 270_000)
        let a = HLSPlacement.Anchor(listedStart: start, ticksPerSecond: Rational(90000), firstFramePTS: 9_133_200)
        XCTAssertEqual(a.ticks, 720_000)
        XCTAssertEqual(a.ticks(ofPTS: 9_133_200), 720_000)
        XCTAssertEqual(a.ticks(ofPTS: 9_136_200), 723_000)
        XCTAssertEqual(a.pts(ofTicks: 723_000), 9_136_200)
        XCTAssertEqual(a.originPTS, 9_133_200 - 720_000)
        // item time = pts - origin for every pts of the domain
        for p in stride(from: Int64(9_000_000), to: 9_300_000, by: 3003) {
            XCTAssertEqual(a.ticks(ofPTS: p), p - a.originPTS)
        }
    }

    // MARK: 33-bit timestamp wrap (seek.h, "Timestamp wrap")

    let wrap: Int64 = 1 << 33

    func testWrapCountUnwrapsASegmentFarBelowWhereItIsExpected() {
        // The domain's anchor 4 s before the wrap; the next segment, 6 s on, starts 2 s past it.
        let expected = wrap - 4 * 90000 + 6 * 90000
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 2 * 90000, expectedPTS: expected, period: wrap), 1)
        XCTAssertEqual(2 * 90000 + 1 * wrap, expected)
        // No wrap: a segment near where it is expected (drift, holes, EXTINF rounding) stays.
        for d: Int64 in [0, 1, -1, 90000, -90000, 3600 * 90000, -3600 * 90000] {
            XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 1_000_000 + d, expectedPTS: 1_000_000, period: wrap), 0, "\(d)")
        }
        // FFmpeg's per-file rule within 60 s of the wrap gives negative pts: on the same line.
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: -30 * 90000, expectedPTS: wrap - 30 * 90000, period: wrap), 1)
        // An anchor read negative (its file within 60 s of the wrap), a later segment positive: 0.
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 90000, expectedPTS: 90000 + 5, period: wrap), 0)
        // The other way (a segment far above where expected): -1; and several periods.
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: wrap - 90000, expectedPTS: 90000, period: wrap), -1)
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 10, expectedPTS: 3 * wrap + 20, period: wrap), 3)
    }

    func testWrapCountHalfAPeriodIsTheEdge() {
        let half = wrap / 2
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 0, expectedPTS: half, period: wrap), 0)
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 0, expectedPTS: half + 1, period: wrap), 1)
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: half, expectedPTS: 0, period: wrap), 0)
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: half + 1, expectedPTS: 0, period: wrap), -1)
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: 5, expectedPTS: 7, period: 0), 0)
        // Extremes do not trap.
        XCTAssertEqual(HLSPlacement.wrapCount(firstPTS: .min, expectedPTS: .max, period: 1), .max)
    }

    func testWrapPeriodInStreamTimeBases() {
        XCTAssertEqual(HLSPlacement.wrapPeriod(timeBaseNum: 1, timeBaseDen: 90000), wrap)
        XCTAssertEqual(HLSPlacement.wrapPeriod(timeBaseNum: 1, timeBaseDen: 180000), 2 * wrap)
        XCTAssertEqual(HLSPlacement.wrapPeriod(timeBaseNum: 1, timeBaseDen: 1000), nil)   // 2^33/90 ms: no whole tick
        XCTAssertEqual(HLSPlacement.wrapPeriod(timeBaseNum: 0, timeBaseDen: 90000), nil)
        XCTAssertEqual(HLSPlacement.wrapPeriod(timeBaseNum: 1, timeBaseDen: -1), nil)
    }

    func testUnwrapSecondsMovesByWholePeriods() {
        let period = Rational(Int128(wrap), 90000)
        // A packed audio segment 2 s past the wrap, listed 6 s after an anchor 4 s before it.
        let listed = period - Rational(4) + Rational(6)
        XCTAssertEqual(HLSPlacement.unwrapSeconds(Rational(2), near: listed), Rational(2) + period)
        XCTAssertEqual(HLSPlacement.unwrapSeconds(Rational(7080, 90000), near: Rational(5)), Rational(7080, 90000))
        XCTAssertEqual(HLSPlacement.unwrapSeconds(period - Rational(1), near: Rational(1)), Rational(-1))
    }
}
