import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// `Log.wants` is the lock-free filter FFmpeg's log callback calls for every
/// message (a trace line per sample while a large MP4 opens): it must agree
/// with the sink and its level at every change.
final class LogTests: XCTestCase {
    func testWantsFollowsTheSinkAndItsLevel() {
        defer { Log.setSink(level: Log.quiet, nil) }
        Log.setSink(level: Log.quiet, nil)
        for l in [Log.quiet, 0, Log.error, Log.trace] { XCTAssertFalse(Log.wants(l), "no sink: \(l)") }
        let got = Box()
        Log.setSink(level: Log.warning) { level, text in got.append(level, text) }
        XCTAssertTrue(Log.wants(Log.error))
        XCTAssertTrue(Log.wants(Log.warning))
        XCTAssertFalse(Log.wants(Log.info))
        XCTAssertFalse(Log.wants(Log.trace))
        Log.emit(Log.warning, "w")
        Log.emit(Log.trace, "t")
        XCTAssertEqual(got.lines, ["24 w"])
        Log.setSink(level: Log.trace) { level, text in got.append(level, text) }
        XCTAssertTrue(Log.wants(Log.trace))
        Log.setSink(level: Log.trace, nil)
        XCTAssertFalse(Log.wants(Log.error), "a nil sink silences every level")
    }

    final class Box: @unchecked Sendable {
        private let m = Monitor()
        private var l: [String] = []
        func append(_ level: Int32, _ text: String) { m.locked { l.append("\(level) \(text)") } }
        var lines: [String] { m.locked { l } }
    }
}
