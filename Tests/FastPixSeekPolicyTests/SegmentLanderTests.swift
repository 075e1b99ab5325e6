import XCTest
@testable import FastPixSeekPolicy

/// Fake segments behind the HLS policy's seam: each one's listed span, its frames (item
/// ticks) and keyframes, whether it is a hole or was cut mid-GOP, and a reader that lands
/// as a file `Lander` does inside one segment. Every seam call is logged, so the tests
/// assert which segments a landing opens and in which order, as `LanderTests` count the
/// file seam's crossings.
final class FakeSegments: SegmentSeam {
    struct Segment {
        var span: SegmentSpan
        /// Presentation order, ascending.
        var frames: [Int64]
        var keyframes: Set<Int64>
        var hole: HoleReason = .none
        /// Cut mid-GOP: its frames before its first keyframe are read before it.
        var midGOP = false

        var head: SegmentHead {
            let k = keyframes.min()
            return SegmentHead(keyframe: k, leading: frames.filter { p in k.map { p < $0 } ?? true }, startsMidGOP: midGOP)
        }
        /// The frames the segment's own reader lands: all of them, but from the first
        /// keyframe on in a segment cut mid-GOP.
        var readerFrames: [Int64] { frames.filter { head.readerLands($0) } }
    }

    enum Call: Hashable {
        case hole(Int), frames(Int), head(Int), resolve(Int), step(Int)
        case position(Int, Int64)
        case preRoll(from: Int, into: Int, Int64)
    }

    var segments: [Segment]
    private(set) var calls: [Call] = []
    /// The host's pts of item tick t (the engine's anchors and wraps, here a constant shift).
    static let streamShift: Int64 = 7
    /// Packets a segment reader reports per landing or step, and a pre-roll.
    static let landingPackets: UInt64 = 1, preRollPackets: UInt64 = 10

    init(_ segments: [Segment]) { self.segments = segments }

    var spans: [SegmentSpan] { segments.map(\.span) }

    /// The segments touched, each at its first call, in that order.
    var opened: [Int] {
        var out: [Int] = []
        for c in calls {
            let i: Int
            switch c {
            case .hole(let k), .frames(let k), .head(let k), .resolve(let k), .step(let k), .position(let k, _): i = k
            case .preRoll(let j, _, _): i = j
            }
            if !out.contains(i) { out.append(i) }
        }
        return out
    }

    /// Whether any reads were started in an earlier segment, or positioned at all.
    var preRolled: Bool { calls.contains { if case .preRoll = $0 { return true } else { return false } } }
    var positioned: Bool { calls.contains { if case .position = $0 { return true } else { return false } } }

    /// The index of the first call equal to `c`.
    func first(_ c: Call) -> Int? { calls.firstIndex(of: c) }

    func hole(_ i: Int) throws -> HoleReason {
        calls.append(.hole(i))
        return segments[i].hole
    }

    func frames(_ i: Int) throws -> ClosedRange<Int64>? {
        calls.append(.frames(i))
        let s = segments[i]
        guard s.hole == .none, let f = s.frames.first, let l = s.frames.last else { return nil }
        return f...l
    }

    func head(_ i: Int) throws -> SegmentHead? {
        calls.append(.head(i))
        return segments[i].hole == .none ? segments[i].head : nil
    }

    func resolve(_ request: LandingRequest, segment i: Int) throws -> Landing {
        calls.append(.resolve(i))
        let s = segments[i]
        let r = s.readerFrames
        guard s.hole == .none, let first = r.first, let last = r.last else { throw EngineError(.notFound) }
        let covering = r.last { Rational($0) <= request.target } ?? first
        func landing(_ p: Int64, _ res: LandingResolution, covers: Bool) -> Landing {
            Landing(pts: p, isKeyframe: s.keyframes.contains(p), resolution: res, coversTarget: covers,
                    packetsRead: Self.landingPackets, streamPTS: p + Self.streamShift)
        }
        if request.wantsKeyframe {
            var best: Int64?
            for k in r where s.keyframes.contains(k) && request.keyframeWindow?.contains(k) == true {
                if best.map({ LandingRules.isBetterKeyframe(Rational(k), than: Rational($0), target: request.target) }) ?? true {
                    best = k
                }
            }
            if let k = best { return landing(k, .keyframe, covers: k == covering) }
            return landing(covering, .fallbackCoveringFrame, covers: true)
        }
        if request.atOrAfter {
            let p = r.first { Rational($0) >= request.target } ?? last
            return landing(p, .coveringFrame, covers: Rational(p) == request.target)
        }
        return landing(covering, .coveringFrame, covers: Rational(first) <= request.target)
    }

    func step(from: Int64, segment i: Int, forward: Bool, seekID: UInt64) throws -> StepResultKind {
        calls.append(.step(i))
        let r = segments[i].readerFrames
        guard let p = forward ? r.first(where: { $0 > from }) : r.last(where: { $0 < from }) else { return .noFrame }
        return .landed(StepLanding(pts: p, packetsRead: Self.landingPackets))
    }

    func positionReads(at p: Int64, segment i: Int, seekID: UInt64) throws -> Int64 {
        calls.append(.position(i, p))
        return p + Self.streamShift
    }

    func preRoll(from j: Int, landing p: Int64, segment i: Int, seekID: UInt64) throws -> UInt64 {
        calls.append(.preRoll(from: j, into: i, p))
        return Self.preRollPackets
    }
}

/// The HLS cross-segment sequence (`SegmentLander`) on fake segments, no FFmpeg. Frames are
/// 100 ticks apart; a segment is listed 1000 ticks long.
final class SegmentLanderTests: XCTestCase {
    typealias Segment = FakeSegments.Segment

    /// Segment k: listed at k * 1000, frames k*1000 ... k*1000 + 900, keyframes at its
    /// start and middle (a closed GOP per half segment).
    func closed(_ n: Int = 3, holes: [Int: HoleReason] = [:]) -> FakeSegments {
        FakeSegments((0..<n).map { k in
            let s = Int64(k) * 1000
            return Segment(span: SegmentSpan(sequence: Int64(100 + k), domain: 0, start: Rational(s)),
                           frames: Array(stride(from: s, through: s + 900, by: 100)), keyframes: [s, s + 500],
                           hole: holes[k] ?? .none)
        })
    }

    /// An open GOP cut at its keyframe in decode order: segment k > 0 holds one leading frame
    /// (k*1000 - 100, presenting before its keyframe at k*1000) and is listed from it;
    /// segment 0 ends at 800. Keyframes at k*1000 and k*1000 + 500. `midGOP`: those
    /// segments cut mid-GOP instead (the leading frame read before the keyframe).
    func openGOP(_ n: Int = 3, midGOP: Bool = false, holes: [Int: HoleReason] = [:],
                 domains: [Int64]? = nil) -> FakeSegments {
        FakeSegments((0..<n).map { k in
            let s = Int64(k) * 1000
            let first = k == 0 ? s : s - 100
            let last = k == n - 1 ? s + 900 : s + 800
            return Segment(span: SegmentSpan(sequence: Int64(100 + k), domain: domains?[k] ?? 0, start: Rational(first)),
                           frames: Array(stride(from: first, through: last, by: 100)), keyframes: [s, s + 500],
                           hole: holes[k] ?? .none, midGOP: midGOP && k > 0)
        })
    }

    func exact(_ t: Int64, atOrAfter: Bool = false) -> LandingRequest {
        LandingRequest(target: Rational(t), wantsKeyframe: false, keyframeWindow: nil, seekID: 1, atOrAfter: atOrAfter)
    }

    func keyframe(_ t: Int64, _ w: ClosedRange<Int64>) -> LandingRequest {
        LandingRequest(target: Rational(t), wantsKeyframe: true, keyframeWindow: w, seekID: 1)
    }

    func resolve(_ f: FakeSegments, _ r: LandingRequest) throws -> Landing { try SegmentLander(f).resolve(r) }

    func step(_ f: FakeSegments, from: Int64, forward: Bool, count: Int = 1, live: Bool = false,
              edge: Int64? = nil) throws -> StepResultKind {
        try SegmentLander(f).step(from: from, forward: forward, count: count, seekID: 1, live: live, holdBackEdge: edge)
    }

    /// A landing on keyframe `k`, which is not the frame covering the target.
    func assertKeyframe(_ l: Landing, _ k: Int64, _ why: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(l.pts, k, why, file: file, line: line)
        XCTAssertEqual(l.resolution, .keyframe, file: file, line: line)
        XCTAssertFalse(l.coversTarget, file: file, line: line)
    }

    /// The landing's frame and where the reads went.
    func landed(_ r: StepResultKind, file: StaticString = #filePath, line: UInt = #line) -> Int64? {
        guard case .landed(let l) = r else { XCTFail("no landing: \(r)", file: file, line: line); return nil }
        XCTAssertEqual(l.streamPTS, l.pts + FakeSegments.streamShift, "the host's pts comes from the seam",
                       file: file, line: line)
        return l.pts
    }

    // MARK: The covering segment

    func testExactSeekOpensOnlyTheCoveringSegment() throws {
        let f = closed()
        let l = try resolve(f, exact(1550))
        XCTAssertEqual(l.pts, 1500)
        XCTAssertTrue(l.coversTarget)
        XCTAssertEqual(l.resolution, .coveringFrame)
        XCTAssertEqual(l.streamPTS, 1500 + FakeSegments.streamShift)
        XCTAssertEqual(l.packetsRead, FakeSegments.landingPackets)
        XCTAssertEqual(f.opened, [1])
        XCTAssertEqual(f.calls, [.frames(1), .hole(1), .head(1), .resolve(1), .position(1, 1500), .head(1)],
                       "one reader landing, the reads positioned once, no pre-roll")
    }

    func testTargetBeforeItsListedSegmentsFirstFrameLandsInThePreviousSegment() throws {
        let f = closed()
        f.segments[1].frames = Array(stride(from: 1050, through: 1950, by: 100))   // EXTINF and pts disagree
        f.segments[1].keyframes = [1050]
        let l = try resolve(f, exact(1020))
        XCTAssertEqual(l.pts, 900)
        XCTAssertTrue(f.calls.contains(.position(0, 900)))
        XCTAssertFalse(f.calls.contains { if case .position(1, _) = $0 { return true } else { return false } })
    }

    func testTargetAfterTheListedSegmentsLastFrameLandsInTheNext() throws {
        let f = closed()
        f.segments[2].frames = Array(stride(from: 1950, through: 2900, by: 50))    // starts before its listed start
        f.segments[2].keyframes = [1950]
        XCTAssertEqual(try resolve(f, exact(1960)).pts, 1950)
        XCTAssertEqual(f.opened, [1, 2])
    }

    // MARK: Holes

    func testTargetInAHoleLandsOnTheFirstFrameAfterIt() throws {
        let f = closed(holes: [1: .gap])
        let l = try resolve(f, exact(1550))
        XCTAssertEqual(l.pts, 2000)
        XCTAssertEqual(l.pastHole, .gap)
        XCTAssertFalse(l.coversTarget)
        XCTAssertEqual(f.calls, [.frames(1), .hole(1), .hole(2), .frames(2), .head(2), .resolve(2), .position(2, 2000), .head(2)])
    }

    func testTrailingHolesLandOnTheLastFrameBefore() throws {
        let f = closed(holes: [1: .failed, 2: .gap])
        let l = try resolve(f, exact(2500))
        XCTAssertEqual(l.pts, 900)
        XCTAssertEqual(l.pastHole, .gap)
        XCTAssertFalse(l.coversTarget)
        XCTAssertEqual(f.opened, [2, 1, 0])
    }

    func testEveryHoleIsNotFound() {
        let f = closed(holes: [0: .gap, 1: .gap, 2: .failed])
        XCTAssertThrowsError(try resolve(f, exact(1500))) { XCTAssertEqual(($0 as? EngineError)?.code, .notFound) }
    }

    // MARK: Nearest keyframe across a segment end

    func testKeyframeWindowReachingTheNextSegmentsFirstKeyframe() throws {
        let f = closed()
        assertKeyframe(try resolve(f, keyframe(1950, 1450...2450)), 2000,
                       "the next segment's keyframe (50 away) beats this one's (450 away)")
        let next = try XCTUnwrap(f.first(.head(2))), here = try XCTUnwrap(f.first(.resolve(1)))
        XCTAssertLessThan(next, here, "the next segment is opened before landing here (it cannot evict the landing)")
        XCTAssertEqual(f.calls.last(where: { if case .position = $0 { return true } else { return false } }), .position(2, 2000))
    }

    func testKeyframeHereWinsWhenNearer() throws {
        let f = closed()
        let l = try resolve(f, keyframe(1600, 1100...2100))
        XCTAssertEqual(l.pts, 1500)
        XCTAssertNil(f.first(.resolve(2)))
        XCTAssertTrue(f.calls.contains(.position(1, 1500)))
    }

    func testKeyframeWindowInsideTheSegmentOpensNoOther() throws {
        let f = closed()
        let l = try resolve(f, keyframe(1250, 1150...1350))
        XCTAssertEqual(l.pts, 1200, "no keyframe in the window: the covering frame")
        XCTAssertEqual(l.resolution, .fallbackCoveringFrame)
        XCTAssertEqual(f.opened, [1])
    }

    // MARK: Nearest keyframe among an open GOP's leading frames

    func testKeyframeAtLeadingFramePrefersTheNearerKeyframeAfter() throws {
        let f = openGOP()
        assertKeyframe(try resolve(f, keyframe(900, 400...1100)), 1000,
                       "segment 1's keyframe (100 away) beats segment 0's at 500 (400 away)")
        XCTAssertTrue(f.calls.contains(.resolve(0)), "the keyframe before is asked of the pre-roll segment")
        XCTAssertNil(f.first(.preRoll(from: 0, into: 1, 1000)), "a keyframe needs no pre-roll")
    }

    func testKeyframeAtLeadingFrameTakesTheKeyframeBeforeWhenOnlyItIsInTheWindow() throws {
        let f = openGOP()
        let l = try resolve(f, keyframe(900, 400...950))
        XCTAssertEqual(l.pts, 500)
        XCTAssertEqual(l.resolution, .keyframe)
        XCTAssertTrue(f.calls.contains(.position(0, 500)))
    }

    func testKeyframeAtLeadingFrameWithNeitherInTheWindowLandsItWithItsPreRoll() throws {
        let f = openGOP()
        let l = try resolve(f, keyframe(900, 850...950))
        XCTAssertEqual(l.pts, 900)
        XCTAssertEqual(l.resolution, .fallbackCoveringFrame)
        let pos = try XCTUnwrap(f.first(.position(1, 900))), pre = try XCTUnwrap(f.first(.preRoll(from: 0, into: 1, 900)))
        XCTAssertLessThan(pos, pre, "the reads are positioned at the landing, then started in the segment before")
        XCTAssertEqual(l.packetsRead, FakeSegments.landingPackets + FakeSegments.preRollPackets)
    }

    // MARK: Pre-roll

    func testExactLandingOnALeadingFramePreRollsFromTheSegmentBefore() throws {
        let f = openGOP()
        let l = try resolve(f, exact(920))
        XCTAssertEqual(l.pts, 900)
        XCTAssertTrue(l.coversTarget)
        XCTAssertEqual(f.calls.last, .preRoll(from: 0, into: 1, 900))
        XCTAssertEqual(f.opened, [1, 0])
    }

    func testExactLandingOnAKeyframeReadsItsOwnSegment() throws {
        let f = openGOP()
        XCTAssertEqual(try resolve(f, exact(1000)).pts, 1000)
        XCTAssertFalse(f.preRolled)
        XCTAssertEqual(f.opened, [1], "no segment before is opened for a keyframe")
    }

    func testLeadingFrameAfterADiscontinuityLandsWithoutPreRoll() throws {
        let f = openGOP(domains: [0, 1, 1])
        XCTAssertEqual(try resolve(f, exact(920)).pts, 900)
        XCTAssertFalse(f.preRolled)
        XCTAssertFalse(f.opened.contains(0), "a segment on another timeline is never read for a pre-roll")
    }

    func testSegmentCutMidGOPLandsItsHeadFromTheSegmentBefore() throws {
        let f = openGOP(midGOP: true)
        let l = try resolve(f, exact(950))
        XCTAssertEqual(l.pts, 900, "the frame before the keyframe, which the segment's reader cannot land")
        XCTAssertNil(f.first(.resolve(1)), "the head says the frame: the reader is not asked")
        XCTAssertEqual(f.calls.last, .preRoll(from: 0, into: 1, 900))
    }

    func testUnreachablePreRollIsInvalidData() {
        let f = openGOP(midGOP: true, holes: [0: .gap])
        XCTAssertThrowsError(try resolve(f, exact(950))) { XCTAssertEqual(($0 as? EngineError)?.code, .invalidData) }
        XCTAssertFalse(f.preRolled)
    }

    func testPreRollWalksBackOverKeyframelessSegments() throws {
        let f = openGOP(4, midGOP: true)
        f.segments[1].keyframes = []                     // segment 1: no keyframe at all
        f.segments[2].midGOP = true
        XCTAssertEqual(try resolve(f, exact(1950)).pts, 1900)
        XCTAssertEqual(f.calls.last, .preRoll(from: 0, into: 2, 1900))
    }

    // MARK: At or after

    func testAtOrAfterPastASegmentsLastFrameLandsOnTheNextsFirst() throws {
        let f = openGOP()
        let l = try resolve(f, exact(870, atOrAfter: true))
        XCTAssertEqual(l.pts, 900)
        XCTAssertFalse(l.coversTarget)
        XCTAssertEqual(l.pastHole, HoleReason.none)
        XCTAssertEqual(f.calls.last, .preRoll(from: 0, into: 1, 900), "a leading frame: read from the segment before")
    }

    func testAtOrAfterPastASegmentsLastFrameSkipsAHole() throws {
        let f = closed(4, holes: [1: .failed])
        f.segments[0].frames.removeLast()                // segment 0 ends at 800
        let l = try resolve(f, exact(850, atOrAfter: true))
        XCTAssertEqual(l.pts, 2000)
        XCTAssertEqual(l.pastHole, .failed)
    }

    func testAtOrAfterAmongLeadingFramesLandsOnTheKeyframe() throws {
        let f = openGOP()
        let l = try resolve(f, exact(950, atOrAfter: true))
        XCTAssertEqual(l.pts, 1000)
        XCTAssertFalse(l.coversTarget)
        XCTAssertTrue(try resolve(f, exact(900, atOrAfter: true)).coversTarget)
    }

    // MARK: Steps

    func testStepsForwardAndBackAcrossASegmentEnd() throws {
        let f = closed()
        XCTAssertEqual(landed(try step(f, from: 900, forward: true)), 1000)
        XCTAssertEqual(f.calls, [.frames(0), .head(0), .step(0), .hole(1), .frames(1), .head(1), .resolve(1),
                                 .position(1, 1000), .head(1)])
        XCTAssertEqual(landed(try step(f, from: 1000, forward: false)), 900)
        XCTAssertEqual(landed(try step(f, from: 700, forward: true, count: 4)), 1100)
    }

    func testStepsWalkAnOpenGOPsLeadingFrames() throws {
        let f = openGOP()
        XCTAssertEqual(landed(try step(f, from: 800, forward: true)), 900)
        XCTAssertEqual(f.calls.last, .preRoll(from: 0, into: 1, 900))
        XCTAssertEqual(landed(try step(f, from: 900, forward: true)), 1000)
        XCTAssertEqual(landed(try step(f, from: 1000, forward: false)), 900)
        XCTAssertEqual(landed(try step(f, from: 900, forward: false)), 800)
        XCTAssertEqual(landed(try step(f, from: 700, forward: true, count: 4)), 1100)
        XCTAssertEqual(landed(try step(f, from: 1100, forward: false, count: 4)), 700)
    }

    func testStepsOverHoles() throws {
        let f = closed(4, holes: [1: .gap, 2: .failed])
        XCTAssertEqual(landed(try step(f, from: 900, forward: true)), 3000)
        XCTAssertEqual(landed(try step(f, from: 3000, forward: false)), 900)
    }

    func testStepsAtTheEnds() throws {
        let f = closed()
        XCTAssertEqual(try step(f, from: 0, forward: false), .noFrame)
        XCTAssertEqual(try step(f, from: 2900, forward: true), .noFrame, "a VOD's last frame")
        XCTAssertEqual(try step(f, from: 2900, forward: true, live: true), .atLiveEdge(.notPublished))
        XCTAssertEqual(try step(closed(holes: [2: .gap]), from: 1900, forward: true, live: true), .atLiveEdge(.notPublished),
                       "only holes after: not published yet")
        XCTAssertEqual(try step(closed(holes: [2: .gap]), from: 1900, forward: true), .noFrame)
    }

    func testStepPastTheHoldBackEdge() throws {
        let f = closed()
        XCTAssertEqual(try step(f, from: 1900, forward: true, live: true, edge: 1950), .atLiveEdge(.pastHoldBack),
                       "across a segment end")
        XCTAssertEqual(try step(f, from: 1700, forward: true, live: true, edge: 1750), .atLiveEdge(.pastHoldBack),
                       "inside a segment")
        XCTAssertFalse(f.positioned,
                       "a refused step positions no reads")
        XCTAssertEqual(landed(try step(f, from: 1900, forward: false, live: true, edge: 1000)), 1800, "backward: no edge")
    }
}
