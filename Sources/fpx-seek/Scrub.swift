#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let scrubUsage = """
usage: fpx-seek scrub FILE|URL SAMPLES [--precision P] [--throttle MS] [--json]
                      [--reference-stream N] [--timeline item|stream]

Replays a scrub gesture. SAMPLES is a file (or - for stdin) with one sample a
line: `TIME`, or `MS TIME` where MS is the sample's offset in milliseconds from
the start of the gesture (samples are then replayed in real time). The first
sample begins the gesture, every sample is an update, and the last one ends it
with the single coalesced seek. Prints the throttled positions the listeners
saw, the state changes, the one seek's outcome and the player's counters.
--precision at_or_after ends the gesture on the first frame at or after the last sample.
--reference-stream N scrubs on video stream N (as ffprobe numbers streams). --timeline
stream: sample TIMEs and printed times in the reference stream's own pts seconds.
"""

// @unchecked Sendable: `positions` and `states` are guarded by `m`.
final class ScrubRecorder: PlayerListener, @unchecked Sendable {
    let m = Monitor()
    var positions: [ScrubPosition] = []
    var states: [ScrubState] = []
    func onScrubPositionChanged(_ position: ScrubPosition) { m.locked { positions.append(position) } }
    func onScrubStateChanged(_ state: ScrubState) { m.locked { states.append(state) } }
}

func readLines(_ path: String) -> [String]? {
    let f: UnsafeMutablePointer<FILE>? = path == "-" ? stdin : fopen(path, "r")
    guard let file = f else { return nil }
    defer { if path != "-" { fclose(file) } }
    var lines: [String] = []
    var buf = [CChar](repeating: 0, count: 4096)
    while fgets(&buf, Int32(buf.count), file) != nil {
        let s = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.trimmingWhitespace()
        if !s.isEmpty && !s.hasPrefix("#") { lines.append(s) }
    }
    return lines
}

extension String {
    /// Trims spaces, tabs and line ends ("\r\n" is one Character in Swift).
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}

func runScrub(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--throttle", "--timeout", "--reference-stream", "--timeline"], switches: [],
                         usage: scrubUsage, atOrAfter: true)
    guard o.positional.count == 2 else { fail("scrub needs FILE|URL and SAMPLES (see --help)", code: Exit.usage) }
    guard let lines = readLines(o.positional[1]) else { fail("cannot read \(o.positional[1])", code: Exit.usage) }
    var samples: [(ms: Double?, t: MediaTime)] = []
    for (n, line) in lines.enumerated() {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if parts.count == 1, let t = parseTime(parts[0]) {
            samples.append((nil, t))
        } else if parts.count == 2, let ms = Double(parts[0]), ms >= 0, let t = parseTime(parts[1]) {
            samples.append((ms, t))
        } else {
            fail("\(o.positional[1]):\(n + 1): expected `TIME` or `MS TIME`", code: Exit.usage)
        }
    }
    guard samples.count >= 1 else { fail("SAMPLES has no sample", code: Exit.usage) }
    let (player, engine) = openPlayer(o.positional[0], timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    let clock = o.streamTimeline ? StreamClock(engine.itemInfo) : nil
    if let c = clock { samples = samples.map { ($0.ms, c.itemTime($0.t)) } }
    let shownTime: (MediaTime) -> MediaTime = { t in clock.map { $0.streamTime(t) } ?? t }
    try? player.setupSeekManager()
    guard let session = player.scrubSession else { fail("no scrub session", code: Exit.failure) }
    if let t = o.flags["--throttle"] {
        guard let ms = UInt64(t) else { fail("--throttle needs milliseconds", code: Exit.usage) }
        session.positionThrottleNanoseconds = ms * 1_000_000
    }
    let rec = ScrubRecorder()
    _ = try? player.addListener(rec)
    let before = player.statistics
    let start = monotonicNanoseconds()
    func waitUntil(_ ms: Double?) {
        guard let ms = ms else { return }
        let due = start &+ UInt64(ms * 1e6)
        while monotonicNanoseconds() < due { usleep(200) }
    }
    do {
        try session.begin(at: samples[0].t)
        for s in samples { waitUntil(s.ms); try session.update(to: s.t) }
    } catch let e as ErrorCode { fail("scrub refused: \(e.message) (\(e.name))", code: Exit.usage) } catch {}
    let done = Monitor()
    // Guarded by `done`: written by the callback, read by this thread, both holding it.
    nonisolated(unsafe) var result: ScrubResult?
    do {
        _ = try session.end(at: samples[samples.count - 1].t, precision: o.precision, convention: o.convention) { r in done.locked { result = r; done.broadcast() } }
    } catch let e as ErrorCode { fail("scrub end refused: \(e.message) (\(e.name))", code: Exit.failure) } catch {}
    let r: ScrubResult = done.locked { while result == nil { done.wait() }; return result! }
    usleep(20_000)
    let after = player.statistics
    let (positions, states) = rec.m.locked { (rec.positions, rec.states) }
    let issued = after.seeksIssued - before.seeksIssued
    if o.json {
        var out = "{\"samples\":\(r.sampleCount),\"seeks_issued\":\(issued),\"was_cancelled\":\(r.wasCancelled),"
        out += "\"states\":[" + states.map { jsonString(["idle", "scrubbing", "settling"][Int($0.rawValue)]) }.joined(separator: ",") + "],"
        out += "\"positions\":[" + positions.map { "{\"time\":\(jsonTime(shownTime($0.time))),\"sample_count\":\($0.sampleCount)}" }.joined(separator: ",") + "],"
        out += "\"outcome\":" + (r.outcome.map { outcomeJSON($0, clock: clock) } ?? "null") + "}"
        print(out)
    } else {
        print("samples     \(plural(r.sampleCount, "update")), \(plural(positions.count, "throttled position event")), \(plural(issued, "seek")) issued")
        print("states      " + states.map { ["idle", "scrubbing", "settling"][Int($0.rawValue)] }.joined(separator: " -> "))
        // Every position up to 10; beyond that the first 3 and the last 5, saying how many are elided.
        let shown: [ScrubPosition?] = positions.count <= 10 ? positions : Array(positions.prefix(3)) + [nil] + Array(positions.suffix(5))
        for p in shown {
            guard let p = p else { print("position    ... \(positions.count - 8) more not shown (--json lists every position)"); continue }
            print("position    \(fmt(shownTime(p.time).seconds)) s after \(plural(p.sampleCount, "sample"))")
        }
        print("-- the coalesced seek --")
        if let out = r.outcome { printOutcome(out, clock: clock) } else { print("cancelled") }
    }
}
