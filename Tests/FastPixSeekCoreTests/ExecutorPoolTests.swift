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
}
