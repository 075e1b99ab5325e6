#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let stepUsage = """
usage: fpx-seek step FILE|URL [--from TIME] [--count N] [--times K] [--backward] [--json]
                     [--precision exact|at_or_after] [--reference-stream N] [--timeline item|stream]

Lands exactly on --from (default: the first frame), then steps K times (default 1)
by N frames (default 1), forward or --backward, printing each landing or the typed
reason a step was refused. Stepping stops at the first refusal, and a refusal
exits with status 3 (after printing it). --json prints an array of step objects
(fpx-seek.schema.json, "step"). --precision at_or_after lands --from on the first frame
at or after it instead of the frame on screen. --reference-stream N steps the frames of
video stream N (as ffprobe numbers streams). --timeline stream: --from and the landings
in the reference stream's own pts seconds (ffprobe's pts_time; files only).
"""

func runStep(_ args: [String]) {
    let o = parseOptions(args, valued: ["--from", "--count", "--times", "--timeout", "--precision", "--reference-stream", "--timeline"],
                         switches: ["--backward"], usage: stepUsage, atOrAfter: true)
    if args.contains("--precision"), o.precision != .exact { fail("step --precision takes exact or at_or_after", code: Exit.usage) }
    guard o.positional.count == 1 else { fail("step needs exactly one FILE|URL (see --help)", code: Exit.usage) }
    let count = Int(o.flags["--count"] ?? "1") ?? 0
    let times = Int(o.flags["--times"] ?? "1") ?? 0
    guard count >= 1, times >= 1 else { fail("--count and --times need integers >= 1", code: Exit.usage) }
    var from: MediaTime?
    if let f = o.flags["--from"] {
        guard let t = parseTime(f) else { fail("--from needs a time", code: Exit.usage) }
        from = t
    }
    let (player, engine) = openPlayer(o.positional[0], timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    let clock = o.streamTimeline ? StreamClock(engine.itemInfo) : nil
    if let t = from {
        try? player.setupSeekManager()
        guard let out = try? seekAndWait(player, clock.map { $0.itemTime(t) } ?? t, .exact, o.convention), out.finished else { fail("cannot land on --from", code: Exit.failure) }
    }
    let direction: FrameStepDirection = o.switches.contains("--backward") ? .backward : .forward
    var lines: [String] = []
    var refused = false
    if !o.json, let now = try? player.currentTime() {
        let start = clock.map { $0.streamTime(now) } ?? now
        print("from        \(fmt(start.seconds)) s  (\(rationalText(start)))")
    }
    for _ in 0..<times {
        let r: FrameStepResult
        do { r = try player.stepFrame(direction, count: count) } catch let e as ErrorCode {
            fail("step failed: \(e.message) (\(e.name))", code: Exit.failure)
        } catch { fail("step failed", code: Exit.failure) }
        switch r {
        case .stepped(let d, let itemT, let pts, let n):
            let t = clock.map { $0.seconds(ofPTS: pts) } ?? itemT
            if o.json {
                lines.append("{\"did_step\":true,\"direction\":\(jsonString(d == .forward ? "forward" : "backward")),\"landed\":\(jsonTime(itemT)),\"landed_stream_time\":" + (clock == nil ? "null" : jsonTime(t)) + ",\"stream_pts\":\(pts),\"packets_read\":\(n)}")
            } else {
                print("\(d == .forward ? "forward " : "backward") -> \(fmt(t.seconds)) s  (\(rationalText(t)), stream pts \(pts), \(plural(n, "packet")))")
            }
        case .unavailable(let d, let reason, let n):
            if o.json {
                lines.append("{\"did_step\":false,\"direction\":\(jsonString(d == .forward ? "forward" : "backward")),\"reason\":\(jsonString(stepReasonName(reason))),\"explanation\":\(jsonString("\(reason.explanation)")),\"packets_read\":\(n)}")
            } else {
                print("refused     \(reason.explanation)")
            }
        }
        if !r.didStep { refused = true; break }
    }
    if o.json { print("[" + lines.joined(separator: ",") + "]") }
    if refused {
        player.destroy()
        exit(Exit.refused)
    }
}
