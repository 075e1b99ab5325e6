import XCTest
@testable import FastPixSeekPolicy

/// `LandingRules`, the pure choices (Lander+Rules.swift).
final class LandingRulesTests: XCTestCase {
    func testWindowIsExactOnA12288TimeBase() {
        // 1/10 s = 1228.8 ticks of 1/12288 s. A keyframe at 12288 (1 s) is exactly
        // 1/10 s before a target of 1.1 s = 13516.8 ticks: it must be inside.
        let tb = Timeline(timeBaseNum: 1, timeBaseDen: 12288, originTicks: 0)
        let tol = tb.ticks(ofDuration: MediaTime(value: 1, timescale: 10))!
        XCTAssertEqual(tol, Rational(6144, 5))
        let target = tb.ticks(of: MediaTime(value: 11, timescale: 10))!
        let w = LandingRules.keyframeWindow(target: target, toleranceTicks: tol)
        XCTAssertEqual(w, 12288...14745)
        // Rounding the tolerance to 1228 ticks first (the old code) loses it.
        XCTAssertFalse((Int64(target.ceil) - 1228...Int64(target.floor) + 1228).contains(12288))
        // Tolerance 0 between ticks: no whole tick inside.
        XCTAssertNil(LandingRules.keyframeWindow(target: Rational(1, 2), toleranceTicks: Rational(0)))
        XCTAssertEqual(LandingRules.keyframeWindow(target: Rational(5), toleranceTicks: Rational(0)), 5...5)
    }

    func testNearestKeyframeTiesGoEarlier() {
        XCTAssertEqual(LandingRules.nearestKeyframe(target: Rational(10), before: 8, after: 12), 8)
        XCTAssertEqual(LandingRules.nearestKeyframe(target: Rational(21, 2), before: 8, after: 12), 12)
        XCTAssertEqual(LandingRules.nearestKeyframe(target: Rational(10), before: nil, after: 12), 12)
        XCTAssertNil(LandingRules.nearestKeyframe(target: Rational(10), before: nil, after: nil))
        XCTAssertTrue(LandingRules.isBetterKeyframe(Rational(8), than: Rational(12), target: Rational(10)))
        XCTAssertFalse(LandingRules.isBetterKeyframe(Rational(12), than: Rational(8), target: Rational(10)))
        // Between ticks: 2 * 10.5 - 8 = 13, so 12 is the last tick strictly nearer than 8.
        XCTAssertEqual(LandingRules.lastTickStrictlyNearer(than: 8, target: Rational(21, 2)), 12)
        XCTAssertEqual(LandingRules.lastTickStrictlyNearer(than: 8, target: Rational(10)), 11)
    }

    func testFromGridAgreesWithPolicy() {
        var g = FrameGrid()
        var frames: [(pts: Int64, key: Bool, dts: Int64?)] = []
        for i in 0..<48 {
            let t = Int64(i) * 512
            frames.append((pts: t, key: i % 24 == 0, dts: t))
        }
        g.record(start: 0, end: Int64.max, frames: frames)
        let tol = Rational(6144, 5)
        // Exactly 1/10 s past the keyframe at 12288: the keyframe.
        let t = Rational(12288) + tol
        let req = LandingRequest(target: t, wantsKeyframe: true,
                                 keyframeWindow: LandingRules.keyframeWindow(target: t, toleranceTicks: tol), seekID: 1)
        let k = LandingRules.fromGrid(req, grid: g)
        XCTAssertEqual(k?.pts, 12288)
        XCTAssertEqual(k?.resolution, .keyframe)
        XCTAssertEqual(k?.covers, false)
        // A hair further: fallback to the covering frame.
        let t2 = t + Rational(1, 1000)
        let req2 = LandingRequest(target: t2, wantsKeyframe: true,
                                  keyframeWindow: LandingRules.keyframeWindow(target: t2, toleranceTicks: tol), seekID: 1)
        XCTAssertEqual(LandingRules.fromGrid(req2, grid: g)?.resolution, .fallbackCoveringFrame)
        XCTAssertEqual(LandingRules.fromGrid(req2, grid: g)?.pts, 13312)
    }


    func testImpossibleStepsAreProvenFromTheRange() {
        let r: ClosedRange<Int64> = 1000...2000
        XCTAssertTrue(LandingRules.stepIsImpossible(count: Int(Int32.max), forward: true, from: 1000, range: r))
        XCTAssertTrue(LandingRules.stepIsImpossible(count: Int(Int32.max), forward: false, from: 2000, range: r))
        XCTAssertTrue(LandingRules.stepIsImpossible(count: 1, forward: true, from: 2000, range: r))
        XCTAssertTrue(LandingRules.stepIsImpossible(count: 1, forward: false, from: 1000, range: r))
        XCTAssertFalse(LandingRules.stepIsImpossible(count: 1000, forward: true, from: 1000, range: r))
        XCTAssertTrue(LandingRules.stepIsImpossible(count: 1001, forward: true, from: 1000, range: r))
        XCTAssertFalse(LandingRules.stepIsImpossible(count: 5, forward: false, from: 2000, range: r, frameCount: 6))
        XCTAssertTrue(LandingRules.stepIsImpossible(count: 6, forward: false, from: 2000, range: r, frameCount: 6))
    }
}
