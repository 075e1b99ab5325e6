import XCTest
@testable import FastPixSeekCore

/// Which pool a player's jobs run on (issue 26.5), and the overall I/O bound's arithmetic
/// (issue 26.4): both saturate or classify without touching the network.
final class ExecutorPoolTests: XCTestCase {
    func testLocalFilesRunOnTheWorkPoolEverythingElseOnTheNetworkPool() {
        for url in ["/media/a.mp4", "a.mkv", "file:/media/a.mp4", "FILE:a.ts", "/odd/na:me.mp4", "./x:y/z.mp4"] {
            XCTAssertTrue(Executor.forMedia(url) === Executor.work, url)
        }
        for url in ["http://127.0.0.1/a.mp4", "HTTPS://h/a.m3u8", "tcp://h:1", "pipe:0", "concat:a|b",
                    "subfile,,start,0,end,10,,:/a.ts", "/media/live.m3u8", "file:/x/LIST.M3U", "rtmp://h/a"] {
            XCTAssertTrue(Executor.forMedia(url) === Executor.network, url)
        }
        XCTAssertFalse(Executor.work === Executor.network)
        XCTAssertEqual(Executor.network.name, "fpx-net")
    }

    func testTheOverallBoundSaturates() {
        XCTAssertEqual(Deadline.overall(0), 0)
        XCTAssertEqual(Deadline.overall(1_000), 16_000)
        XCTAssertEqual(Deadline.overall(UInt64.max / 2), UInt64.max)
        XCTAssertEqual(Deadline.extended(0, by: 5), 0)
        XCTAssertEqual(Deadline.extended(10, by: 5), 15)
        XCTAssertEqual(Deadline.extended(UInt64.max - 1, by: 5), UInt64.max)
        XCTAssertEqual(Deadline.after(UInt64.max, from: 1), UInt64.max)
    }

    /// A pool thread that exits idle is joined even when no other thread of its pool comes
    /// after it (ThreadSanitizer reported the last one as a leaked thread; its stack stayed
    /// mapped for the process's life): by the timer thread, right after it exits.
    func testTheLastThreadToExitIsJoined() {
        let pool = Executor(name: "fpx-test", background: false, maxThreads: 2)
        let ran = expectation(description: "ran")
        pool.run { ran.fulfill() }
        wait(for: [ran], timeout: 10)
        let deadline = monotonicNanoseconds() &+ Executor.idleNanoseconds &+ 5_000_000_000
        while (pool.threadCount > 0 || pool.unjoinedThreadCount > 0) && monotonicNanoseconds() < deadline {
            usleep(20_000)
        }
        XCTAssertEqual(pool.threadCount, 0, "the thread exits after \(Executor.idleNanoseconds) ns idle")
        XCTAssertEqual(pool.unjoinedThreadCount, 0, "and is joined")
        // The pool still starts a thread for new work.
        let again = expectation(description: "again")
        pool.run { again.fulfill() }
        wait(for: [again], timeout: 10)
    }
}
