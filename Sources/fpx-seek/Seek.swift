#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let seekUsage = """
usage: fpx-seek seek FILE|URL TIME [--precision exact|default|keyframe:TOL] [--json] [--timeout MS]

Seeks once and prints the outcome: requested and landed time (exact rationals),
the signed delta, the result, how the landing was resolved, the clamp, and the
cost. The result of an exact seek is whether the landed frame covers the target
(a hit); for keyframe:TOL it is whether the landing is within TOL of the target.
A negative TIME may follow `--` (`seek f -- -3`) or stand alone (`seek f -3`).
--json prints one object (docs/fpx-seek.schema.json, "seek_outcome").
Exit code 1 when the seek did not land.
"""

func outcomeJSON(_ o: SeekOutcome) -> String {
    let a = o.accuracy
    var out = "{\"seek_id\":\(o.seekID),\"precision\":\(precisionJSON(o.precision)),"
    out += "\"finished\":\(o.finished),\"reason\":\(jsonString(finishReasonName(o.reason))),"
    out += "\"error\":" + (o.error.map { jsonString("\($0.name)") } ?? "null") + ","
    out += "\"frame_covers_target\":\(o.frameCoversTarget),"
    out += "\"requested\":\(jsonTime(a.requestedMediaTime)),\"landed\":\(jsonTime(a.landedMediaTime)),"
    out += "\"delta\":\(jsonTime(a.delta)),\"within_requested_tolerance\":\(a.withinRequestedTolerance),"
    out += "\"tolerance\":\(jsonTime(a.toleranceBefore)),"
    out += "\"stream_index\":\(o.streamIndex),"
    out += "\"landed_stream_pts\":" + (o.landedStreamPTS.map { "\($0)" } ?? "null") + ","
    out += "\"landed_is_keyframe\":\(o.landedIsKeyframe),"
    out += "\"resolution\":\(jsonString(resolutionName(o.resolution))),"
    out += "\"clamp\":{\"kind\":\(jsonString(clampName(o.clamp))),\"did_clamp\":\(o.clamp.didClamp),\"clamped_to\":\(jsonTime(o.clamp.clampedTo)),"
    out += "\"explanation\":\(jsonString("\(o.clamp.explanation)"))},"
    out += "\"latency_ns\":\(o.latencyNanoseconds),\"packets_read\":\(o.packetsRead)}"
    return out
}

/// The one-line judgement a reader should see first. For `exact` it is whether the landed
/// frame covers the target (an exact seek asks for zero tolerance, so its tolerance verdict
/// is "outside" whenever the frame starts before the target, which reads as a miss but
/// is not one); for keyframe precisions it is the tolerance verdict.
func resultLine(_ o: SeekOutcome) -> String {
    let a = o.accuracy
    switch o.precision {
    case .exact:
        return o.frameCoversTarget ? "hit: the landed frame covers the target"
                                   : "miss: the landed frame does not cover the target"
    case .nearestKeyframe(let t):
        return a.withinRequestedTolerance ? "within the requested tolerance (+/- \(rationalText(t)) s)"
                                          : "outside the requested tolerance (+/- \(rationalText(t)) s)"
    }
}

func printOutcome(_ o: SeekOutcome) {
    let a = o.accuracy
    print("requested   \(fmt(a.requestedMediaTime.seconds)) s  (\(rationalText(a.requestedMediaTime)))")
    print("precision   \(precisionText(o.precision))")
    if o.finished {
        print("result      \(resultLine(o))")
        print("landed      \(fmt(a.landedMediaTime.seconds)) s  (\(rationalText(a.landedMediaTime)), stream pts \(o.landedStreamPTS ?? 0)\(o.landedIsKeyframe ? ", keyframe" : ""))")
        print("delta       \(fmt(a.deltaSeconds)) s  (\(rationalText(a.delta)))")
        if case .exact = o.precision {
            // The zero-tolerance verdict stays in --json (within_requested_tolerance).
        } else {
            print("frame       \(o.frameCoversTarget ? "covers the target" : "does not cover the target")")
        }
        let how: String
        switch o.resolution {
        case .keyframe: how = "nearest keyframe inside the tolerance window"
        case .fallbackCoveringFrame: how = "no keyframe inside the window: fell back to the frame covering the target"
        case .coveringFrame: how = "the frame covering the target"
        case .none: how = "-"
        }
        print("resolved    \(how)")
    } else {
        print("finished    no (\(finishReasonName(o.reason)), \(o.error.map { "\($0.message)" } ?? "-"))")
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
