import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

final class MemorySeekTests: XCTestCase {
    func makePlayer(_ e: FakeEngine, mode: EventQueue.Mode) throws -> Player {
        let p = try XCTUnwrap(Player(config: .init(delivery: mode), factory: { _, _ in e }))
        try p.open("fake://")
        XCTAssertEqual(p.waitItem(timeoutNanoseconds: 5_000_000_000).status, .ready)
        try p.setupSeekManager()
        return p
    }

    /// Host delivery: the completion is queued before `seek` returns, with no worker trip.
    func testMemorySeekCompletesInsideSeek() throws {
        let e = FakeEngine(memoryFrames: 100)
        let p = try makePlayer(e, mode: .host)
        defer { p.destroy() }
        _ = p.events.dispatch()
        let c = Collector()
        let id = try p.seek(to: MediaTime(value: 50 * 1001, timescale: 30000), precision: .exact, completion: c.add)
        XCTAssertEqual(p.events.dispatch(), 1, "queued inside seek()")
        let o = try XCTUnwrap(c.m.locked { c.outcomes.first })
        XCTAssertEqual(o.seekID, id)
        XCTAssertEqual(o.reason, .completed)
        XCTAssertEqual(o.packetsRead, 0)
        XCTAssertEqual(e.gate.locked { (e.resolves, e.memoryResolves) }.0, 0)
        XCTAssertEqual(e.gate.locked { e.memoryResolves }, 1)
        XCTAssertEqual(try p.currentTime(), MediaTime(value: 50 * 1001, timescale: 30000))
    }

    /// With a seek in flight, a seek memory could decide still goes behind it (in order):
    /// the in-flight one completes first, as superseded.
    func testMemorySeekDoesNotOvertakeInFlight() throws {
        let e = FakeEngine(memoryFrames: 100)
        let p = try makePlayer(e, mode: .thread)
        defer { p.destroy() }
        let c = Collector()
        e.hold()
        let first = try p.seek(to: MediaTime(value: 200 * 1001, timescale: 30000), precision: .exact, completion: c.add)
        e.waitUntilResolving()
        let second = try p.seek(to: MediaTime(value: 10 * 1001, timescale: 30000), precision: .exact, completion: c.add)
        e.release()
        let all = c.wait(count: 2)
        XCTAssertEqual(all.map(\.seekID), [first, second])
        XCTAssertEqual(all.map(\.reason), [.superseded, .completed])
    }

    /// Queued seeks are superseded first, then the memory seek completes: one completion each, in order.
    func testMemorySeekSupersedesQueued() throws {
        let e = FakeEngine(memoryFrames: 100)
        let p = try makePlayer(e, mode: .host)
        defer { p.destroy() }
        _ = p.events.dispatch()
        let c = Collector()
        var ids: [UInt64] = []
        for i in 0..<1000 {
            // Every third seek needs the worker; the others memory decides.
            let t = i % 3 == 0 ? Int64(150 + i % 100) * 1001 : Int64(i % 100) * 1001
            ids.append(try p.seek(to: MediaTime(value: t, timescale: 30000), precision: .exact, completion: c.add))
        }
        let deadline = monotonicNanoseconds() + 10_000_000_000
        while c.m.locked({ c.outcomes.count }) < 1000 && monotonicNanoseconds() < deadline {
            _ = p.events.dispatch()
            if c.m.locked({ c.outcomes.count }) < 1000 { _ = c.wait(count: 1000, timeout: 0.001) }
        }
        let all = c.m.locked { c.outcomes }
        XCTAssertEqual(all.count, 1000)
        XCTAssertEqual(Set(all.map(\.seekID)), Set(ids))
        // A landed seek comes after every seek issued before it.
        var seen = Set<UInt64>()
        for o in all {
            seen.insert(o.seekID)
            if o.reason == .completed { XCTAssertTrue(ids.prefix { $0 < o.seekID }.allSatisfy(seen.contains)) }
        }
        XCTAssertEqual(all.last?.seekID, ids.last)
    }
}

/// `LandingRules.fromIndexInMemory`: the index decides only what it knows.
final class IndexMemoryTests: XCTestCase {
    /// Matroska-like: keyframes every 100 ticks, pts known.
    let cues = KeyframeIndex(entries: (0..<10).map { KeyframeIndex.Entry(timestamp: Int64($0) * 100, pts: nil, landable: true) },
                             timestampIsPTS: true)

    func request(_ t: Int64, window: ClosedRange<Int64>) -> LandingRequest {
        LandingRequest(target: Rational(t), wantsKeyframe: true, keyframeWindow: window, seekID: 1)
    }

    func testKeyframeAtOrAfterTargetIsDecided() {
        let on = LandingRules.fromIndexInMemory(request(300, window: 250...350), index: cues, grid: FrameGrid())
        XCTAssertEqual(on?.pts, 300)
        XCTAssertEqual(on?.covers, true)
        let before = LandingRules.fromIndexInMemory(request(290, window: 240...340), index: cues, grid: FrameGrid())
        XCTAssertEqual(before?.pts, 300, "the next keyframe is nearer")
        XCTAssertEqual(before?.covers, false)
        XCTAssertEqual(before?.resolution, .keyframe)
    }

    func testKeyframeBeforeTargetNeedsTheGrid() {
        // 310: keyframe 300 is nearer; whether it covers 310 needs the frames between.
        XCTAssertNil(LandingRules.fromIndexInMemory(request(310, window: 260...360), index: cues, grid: FrameGrid()))
        var g = FrameGrid()
        g.record(start: 300, end: 399, frames: (0..<10).map { (Int64(300 + $0 * 10), $0 == 0, Int64?.none) }, entryPoints: [])
        let d = LandingRules.fromIndexInMemory(request(310, window: 260...360), index: cues, grid: g)
        XCTAssertEqual(d?.pts, 300)
        XCTAssertEqual(d?.covers, false, "frame 310 presents between")
        let d2 = LandingRules.fromIndexInMemory(request(305, window: 255...355), index: cues, grid: g)
        XCTAssertEqual(d2?.covers, true)
    }

    func testUnknownPtsAreNotGuessed() {
        // mov-like: timestamps are dts, pts unknown until learned.
        let mov = KeyframeIndex(entries: (0..<10).map { KeyframeIndex.Entry(timestamp: Int64($0) * 100 - 2, pts: nil, landable: true) },
                                timestampIsPTS: false)
        XCTAssertNil(LandingRules.fromIndexInMemory(request(290, window: 240...340), index: mov, grid: FrameGrid()))
    }

    func testNoKeyframeInWindowIsNotDecided() {
        XCTAssertNil(LandingRules.fromIndexInMemory(request(350, window: 340...360), index: cues, grid: FrameGrid()))
    }
}
