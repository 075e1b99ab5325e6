import XCTest
@testable import FastPixSeekCore

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
}
