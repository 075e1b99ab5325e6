#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let seekUsage = """
usage: fpx-seek seek FILE|URL TIME [--precision exact|nearest_keyframe[:TOL]|default] [--json] [--timeout MS] [--variant N] [--audio N]

Seeks once and prints the outcome: requested and landed time (exact rationals),
the signed delta, the result, how the landing was resolved, the clamp, and the
cost. The result of an exact seek is whether the landed frame covers the target
(a hit); for nearest_keyframe:TOL (short: keyframe:TOL) it is whether the landing is
within TOL of the target. A target outside the seekable range is moved into it first,
and the result says "clamped". exact gives the frame on screen at TIME; `ffmpeg -ss`
gives the first frame at or after TIME (see `fpx-seek --help`).
A negative TIME may follow `--` (`seek f -- -3`) or stand alone (`seek f -3`).
--json prints one object (fpx-seek.schema.json, "seek_outcome").
HLS: a TIME in a hole (an EXT-X-GAP segment, or one that failed twice) lands on the first
frame after it: the "hole" line (--json "landed_past_hole": gap or failed) says so.
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
    out += "\"within_requested_tolerance_note\":" + (toleranceNote(o).map(jsonString) ?? "null") + ","
    out += "\"clamped\":\(o.clamp.didClamp),"
    out += "\"tolerance\":\(jsonTime(a.toleranceBefore)),"
    out += "\"stream_index\":\(o.streamIndex),"
    out += "\"landed_stream_pts\":" + (o.landedStreamPTS.map { "\($0)" } ?? "null") + ","
    out += "\"landed_is_keyframe\":\(o.landedIsKeyframe),"
    out += "\"resolution\":\(jsonString(resolutionName(o.resolution))),"
    out += "\"clamp\":{\"kind\":\(jsonString(clampName(o.clamp))),\"did_clamp\":\(o.clamp.didClamp),\"clamped_to\":\(jsonTime(o.clamp.clampedTo)),"
    out += "\"explanation\":\(jsonString("\(o.clamp.explanation)"))},"
    out += "\"latency_ns\":\(o.latencyNanoseconds),\"packets_read\":\(o.packetsRead),"
    out += "\"landed_past_hole\":\(jsonString(holeReasonName(o.landedPastHole)))}"
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
        if o.clamp.didClamp && o.frameCoversTarget { return "hit: the landed frame covers the clamped target" }
        return o.frameCoversTarget ? "hit: the landed frame covers the target"
                                   : "miss: the landed frame does not cover the target"
    case .nearestKeyframe(let t):
        return a.withinRequestedTolerance ? "within the requested tolerance (+/- \(rationalText(t)) s)"
                                          : "outside the requested tolerance (+/- \(rationalText(t)) s)"
    }
}

/// Why an exact seek's zero-tolerance verdict reads as it does (nil for keyframe precisions,
/// whose verdict is the result itself).
func toleranceNote(_ o: SeekOutcome) -> String? {
    guard case .exact = o.precision, o.finished else { return nil }
    let a = o.accuracy
    if a.withinRequestedTolerance { return "the landed frame starts exactly at the target" }
    if o.clamp.didClamp {
        return "the target was clamped to \(fmt(o.clamp.clampedTo.seconds)) s and the delta is measured from the requested "
            + "time; frame_covers_target is the verdict on the clamped target"
    }
    if o.frameCoversTarget {
        return "expected for exact: it asks for zero tolerance, and the frame on screen at the target starts "
            + "\(fmt(-a.deltaSeconds)) s before it; frame_covers_target is the verdict"
    }
    return "the landed frame does not cover the target either: see frame_covers_target and clamp"
}

/// "clamped to 29.997 s (past the seekable end)", or nil when the target did not move.
func clampNote(_ o: SeekOutcome) -> String? {
    guard o.clamp.didClamp else { return nil }
    let where_: String
    switch o.clamp {
    case .toSeekableStart: where_ = "before the seekable start"
    case .toSeekableEnd: where_ = "past the seekable end"
    default: where_ = "outside the seekable range"
    }
    return "clamped to \(fmt(o.clamp.clampedTo.seconds)) s (\(where_))"
}

func printOutcome(_ o: SeekOutcome) {
    let a = o.accuracy
    print("requested   \(fmt(a.requestedMediaTime.seconds)) s  (\(rationalText(a.requestedMediaTime)))")
    print("precision   \(precisionText(o.precision))")
    if o.finished {
        print("result      " + (clampNote(o).map { "\($0), then " } ?? "") + resultLine(o))
        print("landed      \(fmt(a.landedMediaTime.seconds)) s  (\(rationalText(a.landedMediaTime)), stream pts \(o.landedStreamPTS ?? 0)\(o.landedIsKeyframe ? ", keyframe" : ""))")
        print("delta       \(fmt(a.deltaSeconds)) s  (\(rationalText(a.delta)))")
        if case .exact = o.precision {
            // The zero-tolerance verdict stays in --json (within_requested_tolerance), with
            // within_requested_tolerance_note next to it saying why it reads as it does.
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
        if let h = holeNote(o) { print("hole        \(h)") }
    } else {
        print("finished    no (\(finishReasonName(o.reason)), \(o.error.map { "\($0.message)" } ?? "-"))")
    }
    print("clamp       \(o.clamp.explanation)")
    print("cost        \(plural(o.packetsRead, "packet")), \(fmt(o.latency * 1000, 3)) ms")
}

func runSeek(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--timeout", "--variant", "--audio"], switches: [], usage: seekUsage)
    guard o.positional.count == 2 else { fail("seek needs FILE|URL and TIME (see --help)", code: Exit.usage) }
    guard let target = parseTime(o.positional[1]) else {
        fail("TIME must be seconds (92.5) or a rational (1001/30000)", code: Exit.usage)
    }
    let (player, engine) = openPlayer(o.positional[0], timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    if let w = truncationWarning(duration: engine.itemInfo.duration, range: (try? player.seekableRange()) ?? nil) {
        fputs("fpx-seek: \(o.positional[0]): \(w)\n", stderr)
    }
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
