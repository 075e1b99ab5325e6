import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// An oracle independent of the implementation: compares two fractions by
/// their continued-fraction expansion, with no multiplication at all.
func oracleCompare(_ a: (Int64, Int64), _ b: (Int64, Int64)) -> Int {
    // a.0/a.1 vs b.0/b.1, positive denominators; work on Int128 only for floor division.
    var (an, ad) = (Int128(a.0), Int128(a.1))
    var (bn, bd) = (Int128(b.0), Int128(b.1))
    var flip = 1
    while true {
        func floorDiv(_ n: Int128, _ d: Int128) -> (Int128, Int128) {
            var q = n / d, r = n % d
            if r < 0 { q -= 1; r += d }
            return (q, r)
        }
        let (qa, ra) = floorDiv(an, ad)
        let (qb, rb) = floorDiv(bn, bd)
        if qa != qb { return (qa < qb ? -1 : 1) * flip }
        if ra == 0 && rb == 0 { return 0 }
        if ra == 0 { return -1 * flip }   // a is the integer, b is larger
        if rb == 0 { return 1 * flip }
        // Compare ra/ad vs rb/bd  <=>  compare bd/rb vs ad/ra (reciprocals, order flips).
        (an, ad, bn, bd) = (ad, ra, bd, rb)
        flip = -flip
    }
}

final class MediaTimeTests: XCTestCase {
    func testCompareMatchesExactFractionsProperty() {
        var rng = SystemRandomNumberGenerator()
        let timescales: [Int32] = [1, 2, 10, 24, 25, 30, 1000, 1001, 30000, 60000, 90000, 48000, 44100, 1_000_000_000, Int32.max]
        for i in 0..<20_000 {
            let tsA = i % 3 == 0 ? Int32.random(in: 1...Int32.max, using: &rng) : timescales.randomElement(using: &rng)!
            let tsB = i % 5 == 0 ? Int32.random(in: 1...Int32.max, using: &rng) : timescales.randomElement(using: &rng)!
            let big = i % 4 == 0
            let va = big ? Int64.random(in: Int64.min...Int64.max, using: &rng) : Int64.random(in: -10_000_000...10_000_000, using: &rng)
            // Half the time make b a near neighbour of a to hit the boundaries.
            var vb: Int64
            if i % 2 == 0 {
                let scaled = Int128(va) * Int128(tsB) / Int128(tsA)
                vb = Int64(clamping: scaled + Int128(Int.random(in: -1...1, using: &rng)))
            } else {
                vb = big ? Int64.random(in: Int64.min...Int64.max, using: &rng) : Int64.random(in: -10_000_000...10_000_000, using: &rng)
            }
            let a = MediaTime(value: va, timescale: tsA), b = MediaTime(value: vb, timescale: tsB)
            let expected = oracleCompare((va, Int64(tsA)), (vb, Int64(tsB)))
            XCTAssertEqual(MediaTime.compare(a, b), expected, "\(a) vs \(b)")
            XCTAssertEqual(MediaTime.compare(b, a), -expected, "\(b) vs \(a)")
        }
    }

    func testNTSCBoundaries() {
        let frame = MediaTime(value: 1001, timescale: 30000)
        XCTAssertEqual(MediaTime.compare(frame, MediaTime(value: 2002, timescale: 60000)), 0)
        XCTAssertEqual(MediaTime.compare(frame, MediaTime(value: 1, timescale: 30)), 1)
        XCTAssertEqual(MediaTime.compare(MediaTime(value: 33366666, timescale: 1_000_000_000), frame), -1)
        XCTAssertEqual(MediaTime.compare(MediaTime(value: 33366667, timescale: 1_000_000_000), frame), 1)
        // Frame n of 29.97 fps vs the same instant written in 90 kHz ticks: equal, for every n.
        for n in Int64(0)..<100_000 {
            let a = MediaTime(value: n * 1001, timescale: 30000)
            let b = MediaTime(value: n * 3003, timescale: 90000)
            XCTAssertEqual(MediaTime.compare(a, b), 0)
        }
        // Seconds cannot represent it: "is frame n exactly one frame after n-1?"
        // flips in doubles for some n; in rational time it never does.
        var doubleFlips = 0
        for n in Int64(1)...30000 {
            let a = Double(n * 1001) / 30000.0, b = Double((n - 1) * 1001) / 30000.0
            if a - b > 1001.0 / 30000.0 || a - b < 1001.0 / 30000.0 { doubleFlips += 1 }
            let d = MediaTime.subtract(MediaTime(value: n * 1001, timescale: 30000), MediaTime(value: (n - 1) * 1001, timescale: 30000))
            XCTAssertEqual(MediaTime.compare(d, frame), 0)
        }
        XCTAssertGreaterThan(doubleFlips, 0, "doubles are expected to miss 1001/30000 boundaries")
    }

    func testInvalidAndInfinities() {
        XCTAssertFalse(MediaTime(value: 1, timescale: 0).isValid)
        XCTAssertFalse(MediaTime(value: 1, timescale: -5).isValid)
        XCTAssertFalse(MediaTime(seconds: .nan, timescale: 600).isValid)
        XCTAssertEqual(MediaTime(seconds: .infinity, timescale: 600), .positiveInfinity)
        XCTAssertEqual(MediaTime.compare(.negativeInfinity, MediaTime(value: Int64.min, timescale: 1)), -1)
        XCTAssertEqual(MediaTime.compare(.positiveInfinity, MediaTime(value: Int64.max, timescale: 1)), 1)
        XCTAssertEqual(MediaTime.compare(.invalid, .positiveInfinity), 1)
        XCTAssertEqual(MediaTime.compare(.invalid, .invalid), 0)
        XCTAssertFalse(MediaTime(seconds: 1e300, timescale: 90000).isValid)
    }

    func testSubtractExactAndOverflowSafe() {
        let d = MediaTime.subtract(MediaTime(value: 1001, timescale: 30000), MediaTime(value: 1, timescale: 30))
        XCTAssertEqual(MediaTime.compare(d, MediaTime(value: 1, timescale: 30000)), 0)
        let huge = MediaTime.subtract(MediaTime(value: Int64.max, timescale: 1), MediaTime(value: Int64.min, timescale: 1))
        XCTAssertFalse(huge.isValid, "a difference that does not fit is invalid, not a trap")
        XCTAssertEqual(MediaTime.subtract(.positiveInfinity, MediaTime(value: 5, timescale: 1)), .positiveInfinity)
        XCTAssertFalse(MediaTime.subtract(.positiveInfinity, .positiveInfinity).isValid)
    }

    func testAccuracyVerdictAtBoundary() {
        let requested = MediaTime(value: 1001, timescale: 30000)
        let tol = MediaTime(value: 1001, timescale: 30000)
        let landedEdge = MediaTime(value: 2002, timescale: 30000)
        XCTAssertTrue(SeekAccuracy(requested: requested, landed: landedEdge, toleranceBefore: tol, toleranceAfter: tol).withinRequestedTolerance)
        let landedPast = MediaTime(value: 2002 * 3 + 1, timescale: 90000)
        XCTAssertFalse(SeekAccuracy(requested: requested, landed: landedPast, toleranceBefore: tol, toleranceAfter: tol).withinRequestedTolerance)
        let a = SeekAccuracy(requested: MediaTime(value: -5, timescale: 1), landed: .zero, toleranceBefore: .zero, toleranceAfter: .zero)
        XCTAssertEqual(MediaTime.compare(a.delta, MediaTime(value: 5, timescale: 1)), 0)
        XCTAssertFalse(a.withinRequestedTolerance)
    }

    func testClampKinds() {
        let range = (start: MediaTime(value: 0, timescale: 1), end: MediaTime(value: 359359, timescale: 30000))
        let before = SeekClamp.clamp(MediaTime(value: -5, timescale: 1), into: range)
        XCTAssertEqual(before.kind, 1)
        XCTAssertTrue(before.didClamp)
        XCTAssertEqual(before.clampedTo, range.start)
        let after = SeekClamp.clamp(MediaTime(value: 359360, timescale: 30000), into: range)
        XCTAssertEqual(after.kind, 2)
        XCTAssertTrue(after.didClamp)
        let edge = SeekClamp.clamp(MediaTime(value: 1078077, timescale: 90000), into: range) // == end exactly
        XCTAssertEqual(edge, .none)
        XCTAssertFalse(edge.didClamp)
        let unknown = SeekClamp.clamp(MediaTime(value: 5, timescale: 1), into: nil)
        XCTAssertEqual(unknown, .seekableRangeUnknown)
        XCTAssertFalse(unknown.didClamp, "an unknown range is not a clamp")
        XCTAssertEqual(unknown.clampedTarget(requested: MediaTime(value: 5, timescale: 1)), MediaTime(value: 5, timescale: 1))
    }

    func testDefaultPrecisionIsNearestKeyframeOneTenth() {
        XCTAssertEqual(SeekPrecision.default, .nearestKeyframe(tolerance: MediaTime(value: 1, timescale: 10)))
        XCTAssertFalse(SeekPrecision.validate(tolerance: MediaTime(value: -1, timescale: 10)))
        XCTAssertFalse(SeekPrecision.validate(tolerance: .positiveInfinity))
    }

    func testOutcomeToleranceIsNeverRoundedToTicks() {
        // Clamped target exactly 1/10 s from the landing on a 1/12288 time base.
        let a = SeekAccuracy(requested: MediaTime(value: -1, timescale: 10), landed: MediaTime(value: 0, timescale: 12288),
                             toleranceBefore: MediaTime(value: 1, timescale: 10), toleranceAfter: MediaTime(value: 1, timescale: 10))
        XCTAssertTrue(a.withinRequestedTolerance)
        // The delta is exact even when lcm(timescales) does not fit 32 bits.
        let d = SeekAccuracy(requested: MediaTime(value: 1127251, timescale: 3753750),
                             landed: MediaTime(value: 3584, timescale: 12288), toleranceBefore: .zero, toleranceAfter: .zero).delta
        XCTAssertEqual(d.rational, Rational(3584, 12288) - Rational(1127251, 3753750))
    }
}
