import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// A fake engine over a synthetic frame grid (30000/1001 fps, a keyframe every
/// 10 frames). `gate` lets a test hold a resolve in flight. With `memoryFrames` > 0
/// it decides targets on its first `memoryFrames` frames from memory (as if the grid
/// knew them; `resolveFromMemory`) and sends the others to `resolve`.
// @unchecked Sendable: `held`, `resolving`, `resolves`, `memoryResolves` are guarded by `gate`;
// `closed` is written by `close()`, under the player's engine lock.
final class FakeEngine: MediaEngine, PacketSource, @unchecked Sendable {
    let memoryFrames: Int
    var memoryResolves = 0
    init(memoryFrames: Int = 0) { self.memoryFrames = memoryFrames }

    let timeline = Timeline(timeBaseNum: 1, timeBaseDen: 30000, originTicks: 0)
    let referenceStream: Int32 = 0
    let hasVideo = true
    let frames: [Int64] = (0..<300).map { Int64($0) * 1001 }
    let gate = Monitor()
    var held = false
    var resolving = 0
    var resolves = 0
    var closed = false

    func hold() { gate.locked { held = true } }
    func release() { gate.locked { held = false; gate.broadcast() } }
    func waitUntilResolving() {
        gate.locked { while resolving == 0 { gate.wait(until: monotonicNanoseconds() + 1_000_000) } }
    }

    func seekableRange() throws -> ClosedRange<Int64>? { frames.first!...frames.last! }

    func seekableRangeInMemory() -> (known: Bool, range: ClosedRange<Int64>?) {
        memoryFrames > 0 ? (true, frames.first!...frames.last!) : (false, nil)
    }

    func resolveFromMemory(_ r: LandingRequest) -> Landing? {
        guard r.targetFloor < Int64(memoryFrames) * 1001 else { return nil }
        gate.locked { memoryResolves += 1 }
        return landing(r, packets: 0)
    }

    func landing(_ r: LandingRequest, packets: UInt64) -> Landing {
        let covering = frames.last { $0 <= r.targetFloor } ?? frames[0]
        return Landing(pts: covering, isKeyframe: (covering / 1001) % 10 == 0, resolution: .coveringFrame,
                       coversTarget: true, packetsRead: packets)
    }

    func resolve(_ r: LandingRequest, shouldStop: @escaping () -> Bool) throws -> Landing {
        gate.locked { resolving += 1; resolves += 1 }
        defer { gate.locked { resolving -= 1 } }
        while gate.locked({ held }) {
            if shouldStop() { throw ErrorCode.cancelled }
            gate.locked { _ = gate.wait(until: monotonicNanoseconds() + 1_000_000) }
        }
        return landing(r, packets: 1)
    }

    func interrupt() {}
    func readPacket(shouldStop: @escaping () -> Bool) throws -> PacketView { throw ErrorCode.eof }
    var itemInfo: ItemInfo {
        ItemInfo(streamCount: 1, referenceStream: 0, hasVideo: true, duration: .invalid, timeline: timeline,
                 seekable: true, formatName: nil)
    }
    func streamInfo(_ index: Int32) -> StreamInfo? { nil }
    func close() { closed = true }
    var demuxCounters: (packets: UInt64, bytes: UInt64) { (0, 0) }
}

/// Collects completions thread-safely.
// @unchecked Sendable: `outcomes` is guarded by `m`.
final class Collector: @unchecked Sendable {
    let m = Monitor()
    var outcomes: [SeekOutcome] = []
    func add(_ o: SeekOutcome) { m.locked { outcomes.append(o); m.broadcast() } }
    func wait(count: Int, timeout: Double = 10) -> [SeekOutcome] {
        let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
        return m.locked {
            while outcomes.count < count && monotonicNanoseconds() < deadline { m.wait(until: deadline) }
            return outcomes
        }
    }
}

// @unchecked Sendable: `log` is guarded by `m`.
final class RecordingListener: PlayerListener, @unchecked Sendable {
    let m = Monitor()
    var log: [String] = []
    func onSeekAccuracy(_ outcome: SeekOutcome) { m.locked { log.append("accuracy \(outcome.seekID)") } }
    func onSeekClamped(_ clamp: SeekClamp, seekID: UInt64) { m.locked { log.append("clamped \(seekID)") } }
    func onItemStatus(_ status: ItemStatusInfo) { m.locked { log.append("status \(status.status)") } }
    func onRemoved() { m.locked { log.append("removed") } }
}

final class SeekManagerTests: XCTestCase {
    var engine: FakeEngine!

    func makePlayer(mode: EventQueue.Mode = .thread) throws -> Player {
        engine = FakeEngine()
        let e = engine!
        let p = try XCTUnwrap(Player(config: .init(delivery: mode), factory: { _, _ in e }))
        try p.open("fake://")
        XCTAssertEqual(p.waitItem(timeoutNanoseconds: 5_000_000_000).status, .ready)
        return p
    }

    func testWithoutSeekManagerStillCallsBack() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        let c = Collector()
        _ = try p.seek(to: MediaTime(value: 5, timescale: 1), precision: .exact, completion: c.add)
        let o = try XCTUnwrap(c.wait(count: 1).first)
        XCTAssertFalse(o.finished)
        XCTAssertEqual(o.reason, .noSeekManager)
        XCTAssertEqual(o.clamp, .seekableRangeUnknown)
        XCTAssertFalse(o.clamp.didClamp)
        XCTAssertEqual(engine.resolves, 0)
    }

    func testCompleteReportsLandingAndVerdict() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        try p.setupSeekManager()
        let c = Collector()
        let id = try p.seek(to: MediaTime(value: 2002, timescale: 30000), precision: .exact, completion: c.add)
        let o = try XCTUnwrap(c.wait(count: 1).first)
        XCTAssertEqual(o.seekID, id)
        XCTAssertTrue(o.finished)
        XCTAssertEqual(o.landedStreamPTS, 2002)
        XCTAssertTrue(o.accuracy.withinRequestedTolerance)
        XCTAssertEqual(o.clamp, .none)
    }

    func testClampToStartReportsPositiveDelta() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        try p.setupSeekManager()
        let c = Collector()
        _ = try p.seek(to: MediaTime(value: -5, timescale: 1), precision: .exact, completion: c.add)
        let o = try XCTUnwrap(c.wait(count: 1).first)
        XCTAssertEqual(o.clamp.kind, 1)
        XCTAssertEqual(MediaTime.compare(o.accuracy.delta, MediaTime(value: 5, timescale: 1)), 0)
        XCTAssertEqual(o.accuracy.requestedMediaTime, MediaTime(value: -5, timescale: 1))
    }

    func testNewerSeekSupersedesQueuedAndInFlight() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        try p.setupSeekManager()
        let c = Collector()
        engine.hold()
        let first = try p.seek(to: MediaTime(value: 1, timescale: 1), precision: .exact, completion: c.add)
        engine.waitUntilResolving()
        let second = try p.seek(to: MediaTime(value: 2, timescale: 1), precision: .exact, completion: c.add)
        let third = try p.seek(to: MediaTime(value: 3, timescale: 1), precision: .exact, completion: c.add)
        engine.release()
        let all = c.wait(count: 3)
        XCTAssertEqual(all.count, 3)
        let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.seekID, $0) })
        XCTAssertEqual(byID[first]?.reason, .superseded, "in flight, then overtaken")
        XCTAssertEqual(byID[second]?.reason, .superseded, "queued, then overtaken")
        XCTAssertEqual(byID[third]?.reason, .completed)
        XCTAssertFalse(byID[first]!.finished)
        let s = p.statistics
        XCTAssertEqual(s.seeksIssued, 3)
        XCTAssertEqual(s.seeksSuperseded, 2)
        XCTAssertEqual(s.seeksCompleted, 1)
    }

    func testCancelIsNotSupersede() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        try p.setupSeekManager()
        let c = Collector()
        engine.hold()
        _ = try p.seek(to: MediaTime(value: 1, timescale: 1), precision: .exact, completion: c.add)
        engine.waitUntilResolving()
        XCTAssertEqual(try p.cancelPendingSeeks(), 1)
        engine.release()
        let o = try XCTUnwrap(c.wait(count: 1).first)
        XCTAssertEqual(o.reason, .cancelled)
        XCTAssertFalse(o.finished)
    }

    func testStormGivesExactlyOneCompletionEach() throws {
        for mode in [EventQueue.Mode.thread, .host] {
            let p = try makePlayer(mode: mode)
            try p.setupSeekManager()
            let c = Collector()
            var ids = Set<UInt64>()
            for i in 0..<1000 {
                ids.insert(try p.seek(to: MediaTime(value: Int64(i % 300) * 1001, timescale: 30000),
                                      precision: i % 2 == 0 ? .exact : .default, completion: c.add))
                if mode == .host && i % 100 == 0 { _ = p.events.dispatch() }
            }
            if mode == .host {
                let deadline = monotonicNanoseconds() + 10_000_000_000
                while c.m.locked({ c.outcomes.count }) < 1000 && monotonicNanoseconds() < deadline { _ = p.events.dispatch() }
            }
            let all = c.wait(count: 1000)
            XCTAssertEqual(all.count, 1000)
            XCTAssertEqual(Set(all.map(\.seekID)), ids)
            XCTAssertEqual(all.last?.reason, .completed, "the newest seek lands")
            p.destroy()
            XCTAssertEqual(c.m.locked { c.outcomes.count }, 1000, "nothing more after destroy")
        }
    }

    func testDestroyCancelsPendingBeforeReturning() throws {
        let p = try makePlayer()
        try p.setupSeekManager()
        let c = Collector()
        engine.hold()
        for i in 0..<50 { _ = try p.seek(to: MediaTime(value: Int64(i), timescale: 10), precision: .exact, completion: c.add) }
        engine.waitUntilResolving()
        p.destroy()
        let all = c.m.locked { c.outcomes }
        XCTAssertEqual(all.count, 50, "every seek completed before destroy returned")
        XCTAssertEqual(all.max { $0.seekID < $1.seekID }?.reason, .cancelled, "the newest seek was cancelled by destroy")
        XCTAssertEqual(all.filter { $0.reason == .completed }.count, 0)
        XCTAssertTrue(engine.closed)
    }

    func testListenerOrderClampedAccuracyCompletion() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        try p.setupSeekManager()
        let l = RecordingListener()
        let lid = try p.addListener(l)
        let c = Collector()
        let id = try p.seek(to: MediaTime(value: 100, timescale: 1), precision: .exact, completion: { o in
            l.m.locked { l.log.append("completion \(o.seekID)") }
            c.add(o)
        })
        _ = c.wait(count: 1)
        XCTAssertEqual(l.m.locked { l.log.suffix(3) }, ["clamped \(id)", "accuracy \(id)", "completion \(id)"])
        try p.removeListener(lid)
        XCTAssertThrowsError(try p.removeListener(lid))
    }

    func testSeekRejectsNonNumericTimesAndBadTolerance() throws {
        let p = try makePlayer()
        defer { p.destroy() }
        XCTAssertThrowsError(try p.seek(to: .invalid, precision: .exact, completion: nil)) {
            XCTAssertEqual($0 as? ErrorCode, .invalidTime)
        }
        XCTAssertThrowsError(try p.seek(to: .positiveInfinity, precision: .exact, completion: nil))
        XCTAssertThrowsError(try p.seek(to: .zero, precision: .nearestKeyframe(tolerance: MediaTime(value: -1, timescale: 1)),
                                        completion: nil)) { XCTAssertEqual($0 as? ErrorCode, .invalidArgument) }
    }
}

extension FakeEngine {
    func step(from: Int64?, forward: Bool, count: Int, seekID: UInt64,
              shouldStop: @escaping () -> Bool) throws -> StepResultKind {
        let f = from ?? frames[0]
        guard let i = frames.firstIndex(of: f) else { return .noFrame }
        let j = forward ? i + count : i - count
        guard j >= 0, j < frames.count else { return .noFrame }
        return .landed(StepLanding(pts: frames[j], packetsRead: 0))
    }
    func liveWindow() -> LiveWindow? { nil }
    func itemTime(forDateMicroseconds us: Int64) -> MediaTime? { nil }
}

final class ScrubSessionTests: XCTestCase {
    func testUpdatesIssueNoSeekAndEndIssuesOne() throws {
        let e = FakeEngine()
        let p = try XCTUnwrap(Player(config: .init(), factory: { _, _ in e }))
        defer { p.destroy() }
        try p.open("fake://")
        _ = p.waitItem(timeoutNanoseconds: 5_000_000_000)
        try p.setupSeekManager()
        let s = try XCTUnwrap(p.scrubSession)
        try s.begin(at: .zero)
        for i in 1...10_000 { try s.update(to: MediaTime(value: Int64(i), timescale: 1000)) }
        XCTAssertEqual(p.statistics.seeksIssued, 0)
        XCTAssertEqual(e.resolves, 0)
        let done = Monitor()
        // Guarded by `done`.
        nonisolated(unsafe) var result: ScrubResult?
        _ = try s.end(at: MediaTime(value: 5, timescale: 1), precision: .exact) { r in done.locked { result = r; done.broadcast() } }
        let r: ScrubResult? = done.locked {
            let deadline = monotonicNanoseconds() + 5_000_000_000
            while result == nil && monotonicNanoseconds() < deadline { done.wait(until: deadline) }
            return result
        }
        XCTAssertEqual(r?.sampleCount, 10_000)
        XCTAssertEqual(r?.wasCancelled, false)
        XCTAssertEqual(p.statistics.seeksIssued, 1)
        XCTAssertEqual(s.currentState, .idle)
    }

    func testMisuseIsTyped() throws {
        let e = FakeEngine()
        let p = try XCTUnwrap(Player(config: .init(), factory: { _, _ in e }))
        defer { p.destroy() }
        try p.open("fake://")
        try p.setupSeekManager()
        let s = try XCTUnwrap(p.scrubSession)
        XCTAssertThrowsError(try s.update(to: .zero)) { XCTAssertEqual($0 as? ErrorCode, .invalidState) }
        XCTAssertThrowsError(try s.end(at: .zero, precision: .exact, completion: nil)) { XCTAssertEqual($0 as? ErrorCode, .invalidState) }
        XCTAssertThrowsError(try s.begin(at: .invalid)) { XCTAssertEqual($0 as? ErrorCode, .invalidTime) }
        try s.cancel()
    }
}
