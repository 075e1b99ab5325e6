import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// The seek manager's transitions as a value, without threads or a player.
final class SeekManagerValueTests: XCTestCase {
    typealias M = SeekManager<String>

    /// The effects as comparable strings: "complete 1 superseded", "stop 2 cancelled", "interrupt", "run 3".
    private func show(_ effects: [M.Effect]) -> [String] {
        effects.map {
            switch $0 {
            case .complete(let id, let r, let p): return "complete \(id) \(r) \(p)"
            case .stop(let id, let r, let p): return "stop \(id) \(r) \(p)"
            case .interruptReads: return "interrupt"
            case .run(let id, let p): return "run \(id) \(p)"
            }
        }
    }

    private func issue(_ m: inout M, _ p: String) -> (UInt64, [String]) {
        let id = m.takeID()
        return (id, show(m.issue(id, p)))
    }

    func testIdsStartAtOneAndAreNeverReused() {
        var m = M()
        XCTAssertEqual((0..<5).map { _ in m.takeID() }, [1, 2, 3, 4, 5])
    }

    func testIssueQueuesInterruptsReadsAndRunsTheJob() {
        var m = M()
        let (id, fx) = issue(&m, "a")
        XCTAssertEqual(fx, ["interrupt", "run \(id) a"])
        XCTAssertEqual(m.entries.map(\.id), [id])
        XCTAssertFalse(m.isIdle)
        XCTAssertFalse(m.hasInFlight)
    }

    func testANewSeekSupersedesQueuedOnesInIssueOrderBeforeAnythingOfItsOwn() {
        var m = M()
        _ = issue(&m, "a")
        _ = issue(&m, "b")   // supersedes a
        let (c, fx) = issue(&m, "c")
        XCTAssertEqual(fx, ["complete 2 superseded b", "interrupt", "run \(c) c"])
        XCTAssertEqual(m.entries.map(\.id), [3])
    }

    func testTheInFlightSeekIsToldToStopOnceAndStaysPending() {
        var m = M()
        let (a, _) = issue(&m, "a")
        XCTAssertEqual(m.start(a), .proceed)
        XCTAssertTrue(m.hasInFlight)
        let (_, fx1) = issue(&m, "b")
        XCTAssertEqual(fx1.first, "stop 1 superseded a")
        let (_, fx2) = issue(&m, "c")
        // a is already stopping: not told again; b (queued) is superseded.
        XCTAssertEqual(fx2, ["complete 2 superseded b", "interrupt", "run 3 c"])
        XCTAssertEqual(m.stopReason(of: a), .superseded)
        XCTAssertEqual(m.entries.map(\.id), [1, 3])
        m.complete(a)
        XCTAssertEqual(m.entries.map(\.id), [3])
    }

    func testCancelCountsOnlyTheSeeksItDecides() {
        var m = M()
        let (a, _) = issue(&m, "a")
        _ = m.start(a)
        _ = issue(&m, "b")                      // a: stop superseded; b queued
        let (n, fx) = m.cancelAll(.cancelled)
        XCTAssertEqual(n, 1)                    // b only: a stays superseded
        XCTAssertEqual(show(fx), ["complete 2 cancelled b"])
        XCTAssertEqual(m.stopReason(of: a), .superseded)

        var m2 = M()
        let (x, _) = issue(&m2, "x")
        _ = m2.start(x)
        let (n2, fx2) = m2.cancelAll(.cancelled)
        XCTAssertEqual(n2, 1)
        XCTAssertEqual(show(fx2), ["stop 1 cancelled x"])
        XCTAssertEqual(m2.cancelAll(.cancelled).count, 0, "a second cancel decides nothing")
    }

    func testStartOfACompletedOrStoppedSeek() {
        var m = M()
        let (a, _) = issue(&m, "a")
        _ = issue(&m, "b")                      // a superseded while queued: completed
        XCTAssertEqual(m.start(a), .gone)
        XCTAssertEqual(m.start(2), .proceed)
        XCTAssertEqual(m.start(2), .gone, "already in flight")
    }

    func testSeeksDecidedFromMemoryNeedNothingInFlight() {
        var m = M()
        let (a, _) = issue(&m, "a")
        _ = m.start(a)
        let d = m.takeID()
        XCTAssertNil(m.issueDecided(d), "one in flight: the seek goes to the worker")
        m.complete(a)
        let (q, _) = issue(&m, "q")             // queued
        let e = m.takeID()
        XCTAssertEqual(show(m.issueDecided(e) ?? []), ["complete \(q) superseded q", "interrupt"])
        XCTAssertTrue(m.isIdle, "the decided seek never enters the list")
    }

    /// A seek landed on the caller's thread (fpx_player_seek_wait, idle player): only with
    /// nothing pending; in flight from its issue, so a newer seek or a cancel tells it to stop
    /// as it tells a worker's seek; a timed-out one goes back to the queue, unless stopped.
    func testSeeksLandedInlineNeedNothingPendingAndHandOffToTheWorker() {
        var m = M()
        let (q, _) = issue(&m, "q")             // queued
        XCTAssertNil(m.issueInline(m.takeID(), "i"), "a seek queued: the seek goes to the worker")
        m.complete(q)
        let i = m.takeID()
        XCTAssertEqual(show(m.issueInline(i, "i") ?? []), ["interrupt"])
        XCTAssertTrue(m.hasInFlight, "in flight from its issue")
        XCTAssertNil(m.issueDecided(m.takeID()), "nothing is decided from memory past it")
        XCTAssertNil(m.issueInline(m.takeID(), "j"), "one inline landing at a time")
        // Timed out: handed to the worker, queued again; its job then runs it.
        XCTAssertEqual(m.handOff(i).map { show([$0]) }, ["run \(i) i"])
        XCTAssertEqual(m.start(i), .proceed)
        m.complete(i)
        // Superseded while it lands: told to stop, and never handed off.
        let k = m.takeID()
        _ = m.issueInline(k, "k")
        let (n, fx) = issue(&m, "n")
        XCTAssertEqual(fx, ["stop \(k) superseded k", "interrupt", "run \(n) n"])
        XCTAssertNil(m.handOff(k))
        XCTAssertEqual(m.stopReason(of: k), .superseded)
        XCTAssertTrue(m.complete(k))
        // Cancelled while it lands: counted once, and never handed off.
        m.complete(n)
        let c = m.takeID()
        _ = m.issueInline(c, "c")
        let (count, cfx) = m.cancelAll(.cancelled)
        XCTAssertEqual(count, 1)
        XCTAssertEqual(show(cfx), ["stop \(c) cancelled c"])
        XCTAssertNil(m.handOff(c))
        XCTAssertTrue(m.complete(c))
        XCTAssertNil(m.handOff(c), "not pending")
        XCTAssertTrue(m.isIdle)
    }

    func testCompleteAllMatchingPayloads() {
        var m = M()
        let (a, _) = issue(&m, "old")
        _ = m.start(a)
        let fx = m.completeAll(where: { $0 == "old" }, .failed)
        XCTAssertEqual(show(fx), ["complete 1 failed old"])
        XCTAssertTrue(m.isIdle)
    }

    /// The manager is the one record of what is still to complete: completing a seek
    /// twice, or one it already completed by an effect, reports false (the player then
    /// posts nothing), whatever path got there first.
    func testCompleteIsOnceAndTheManagerIsTheOneRecord() {
        var m = M()
        let (a, _) = issue(&m, "a")
        XCTAssertEqual(m.start(a), .proceed)
        XCTAssertTrue(m.complete(a), "in flight: its job completes it")
        XCTAssertFalse(m.complete(a), "a second completion is refused")
        // Completed by an effect (a failed open behind it), then by its job: the job's is refused.
        let (b, _) = issue(&m, "b")
        _ = m.start(b)
        XCTAssertEqual(show(m.completeAll(where: { $0 == "b" }, .failed)), ["complete \(b) failed b"])
        XCTAssertFalse(m.complete(b))
        // Superseded while queued: the effect completes it; its job then finds it gone.
        let (c, _) = issue(&m, "c")
        let (_, fx) = issue(&m, "d")
        XCTAssertEqual(fx.first, "complete \(c) superseded c")
        XCTAssertEqual(m.start(c), .gone)
        XCTAssertFalse(m.complete(c))
        // Never issued here (decided from memory): nothing to complete in the list.
        XCTAssertFalse(m.complete(m.takeID()))
    }
}
