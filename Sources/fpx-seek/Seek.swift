#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let seekUsage = """
usage: fpx-seek seek FILE|URL TIME [--precision exact|default|keyframe:TOL] [--json] [--timeout MS]

Seeks once and prints the outcome: requested and landed time (exact rationals),
the signed delta, the verdict against the requested tolerance, how the landing
was resolved, the clamp, and the cost. Exit code 1 when the seek did not land.
"""

func outcomeJSON(_ o: SeekOutcome) -> String {
    let a = o.accuracy
    var out = "{\"seek_id\":\(o.seekID),\"precision\":\(jsonString(precisionText(o.precision))),"
    out += "\"finished\":\(o.finished),\"reason\":\(o.reason.rawValue),"
    out += "\"error\":" + (o.error.map { jsonString("\($0.name)") } ?? "null") + ","
    out += "\"requested\":\(jsonTime(a.requestedMediaTime)),\"landed\":\(jsonTime(a.landedMediaTime)),"
    out += "\"delta\":\(jsonTime(a.delta)),\"within_requested_tolerance\":\(a.withinRequestedTolerance),"
    out += "\"tolerance\":\(jsonTime(a.toleranceBefore)),"
    out += "\"landed_stream_pts\":" + (o.landedStreamPTS.map { "\($0)" } ?? "null") + ","
    out += "\"landed_is_keyframe\":\(o.landedIsKeyframe),\"frame_covers_target\":\(o.frameCoversTarget),"
    out += "\"resolution\":\(o.resolution.rawValue),"
    out += "\"clamp\":{\"kind\":\(o.clamp.kind),\"did_clamp\":\(o.clamp.didClamp),\"clamped_to\":\(jsonTime(o.clamp.clampedTo)),"
    out += "\"explanation\":\(jsonString("\(o.clamp.explanation)"))},"
    out += "\"latency_ns\":\(o.latencyNanoseconds),\"packets_read\":\(o.packetsRead)}"
    return out
}

func printOutcome(_ o: SeekOutcome) {
    let a = o.accuracy
    print("requested   \(fmt(a.requestedMediaTime.seconds)) s  (\(a.requestedMediaTime))")
    print("precision   \(precisionText(o.precision))")
    if o.finished {
        print("landed      \(fmt(a.landedMediaTime.seconds)) s  (\(a.landedMediaTime), stream pts \(o.landedStreamPTS ?? 0)\(o.landedIsKeyframe ? ", keyframe" : ""))")
        print("delta       \(fmt(a.deltaSeconds)) s  (\(a.delta))")
        print("verdict     \(a.withinRequestedTolerance ? "within" : "outside") the requested tolerance (\(a.toleranceBefore))")
        print("frame       \(o.frameCoversTarget ? "covers the target" : "does not cover the target")")
        let how: String
        switch o.resolution {
        case .keyframe: how = "nearest keyframe inside the tolerance window"
        case .fallbackCoveringFrame: how = "no keyframe inside the window: fell back to the frame covering the target"
        case .coveringFrame: how = "the frame covering the target"
        case .none: how = "-"
        }
        print("resolved    \(how)")
    } else {
        print("finished    no (\(o.reason), \(o.error.map { "\($0.message)" } ?? "-"))")
    }
    print("clamp       \(o.clamp.explanation)")
    print("cost        \(o.packetsRead) packets, \(fmt(o.latency * 1000, 3)) ms")
}

func runSeek(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--timeout"], switches: [], usage: seekUsage)
    guard o.positional.count == 2 else { fail("seek needs FILE|URL and TIME (see --help)", code: Exit.usage) }
    guard let target = parseTime(o.positional[1]) else {
        fail("TIME must be seconds (92.5) or a rational (1001/30000)", code: Exit.usage)
    }
    let (player, _) = openPlayer(o.positional[0], timeoutMS: o.timeoutMS)
    defer { player.destroy() }
    do { try player.setupSeekManager() } catch { fail("cannot set up the seek manager", code: Exit.failure) }
    let outcome: SeekOutcome
    do { outcome = try seekAndWait(player, target, o.precision) } catch let e as ErrorCode {
        fail("seek refused: \(e.message) (\(e.name))", code: Exit.usage)
    } catch { fail("seek refused", code: Exit.failure) }
    if o.json { print(outcomeJSON(outcome)) } else { printOutcome(outcome) }
    if !outcome.finished {
        player.destroy()
        exit(Exit.failure)
    }
}
