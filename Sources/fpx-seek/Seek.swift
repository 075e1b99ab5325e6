#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let seekUsage = """
usage: fpx-seek seek FILE|URL TIME [--precision exact|at_or_after|nearest_keyframe[:TOL]|default] [--json] [--timeout MS]
                     [--reference-stream N] [--timeline item|stream] [--variant N] [--audio N]

Seeks once and prints the outcome: requested and landed time (exact rationals),
the signed delta, the result, how the landing was resolved, the clamp, and the
cost. The result of an exact seek is whether the landed frame covers the target
(a hit); for nearest_keyframe:TOL (short: keyframe:TOL) it is whether the landing is
within TOL of the target. A target outside the seekable range is moved into it first,
and the result says "clamped". exact gives the frame on screen at TIME; at_or_after the
first frame at or after TIME, as `ffmpeg -ss TIME` and the PyAV recipe decode (its result
is whether the landed frame starts at or after TIME; past the last frame it is the last
frame, clamped). --reference-stream N: seek on video stream N (as ffprobe numbers streams)
instead of the automatic one. --timeline stream: TIME, requested and landed in the
reference stream's own pts seconds (ffprobe's pts_time, PyAV's frame.time) instead of the
item timeline, whose 0 is the container's start (see `fpx-seek --help`; files only).
A negative TIME may follow `--` (`seek f -- -3`) or stand alone (`seek f -3`).
--json prints one object (fpx-seek.schema.json, "seek_outcome").
HLS: a TIME in a hole (an EXT-X-GAP segment, or one that failed twice) lands on the first
frame after it: the "hole" line (--json "landed_past_hole": gap or failed) says so.
Exit code 1 when the seek did not land.
"""

/// `clock`: `--timeline stream` was given (timeline "stream", the stream times filled in).
func outcomeJSON(_ o: SeekOutcome, clock: StreamClock? = nil) -> String {
    let a = o.accuracy
    var out = "{\"seek_id\":\(o.seekID),\"precision\":\(precisionJSON(o.precision, o.convention)),"
    out += "\"timeline\":\(jsonString(clock == nil ? "item" : "stream")),"
    out += "\"requested_stream_time\":" + (clock.map { jsonTime($0.streamTime(a.requestedMediaTime)) } ?? "null") + ","
    out += "\"landed_stream_time\":" + (clock.flatMap { c in o.landedStreamPTS.map { jsonTime(c.seconds(ofPTS: $0)) } } ?? "null") + ","
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
    case .exact where o.convention == .atOrAfter:
        // at_or_after: nothing before the target counts (within_requested_tolerance is landed >= requested).
        if case .toSeekableEnd = o.clamp { return "the last frame (no frame starts at or after the target)" }
        return a.withinRequestedTolerance ? "hit: the landed frame starts at or after the target"
                                          : "miss: the landed frame starts before the target"
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
    if o.convention == .atOrAfter {
        return a.withinRequestedTolerance ? "at_or_after: the landed frame starts at or after the requested time"
            : (o.clamp.kind == ClampKindCode.toSeekableEnd.rawValue
                ? "at_or_after: no frame starts at or after the target; the last frame, clamped"
                : "at_or_after: the landed frame starts before the requested time")
    }
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

/// `clock`: `--timeline stream`: requested and landed in the stream's pts seconds.
func printOutcome(_ o: SeekOutcome, clock: StreamClock? = nil) {
    let a = o.accuracy
    if let c = clock {
        let r = c.streamTime(a.requestedMediaTime)
        print("requested   \(fmt(r.seconds)) s  (\(rationalText(r)), stream pts seconds; item time \(fmt(a.requestedMediaTime.seconds)) s)")
    } else {
        print("requested   \(fmt(a.requestedMediaTime.seconds)) s  (\(rationalText(a.requestedMediaTime)))")
    }
    print("precision   \(precisionText(o.precision, o.convention))")
    if o.finished {
        print("result      " + (clampNote(o).map { "\($0), then " } ?? "") + resultLine(o))
        if let c = clock, let pts = o.landedStreamPTS {
            let l = c.seconds(ofPTS: pts)
            print("landed      \(fmt(l.seconds)) s  (\(rationalText(l)), stream pts \(pts)\(o.landedIsKeyframe ? ", keyframe" : ""); item time \(fmt(a.landedMediaTime.seconds)) s)")
        } else {
            print("landed      \(fmt(a.landedMediaTime.seconds)) s  (\(rationalText(a.landedMediaTime)), stream pts \(o.landedStreamPTS ?? 0)\(o.landedIsKeyframe ? ", keyframe" : ""))")
        }
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
        case .coveringFrame:
            how = o.convention == .atOrAfter ? "the first frame at or after the target" : "the frame covering the target"
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
    let o = parseOptions(args, valued: ["--precision", "--timeout", "--variant", "--audio", "--reference-stream", "--timeline"],
                         switches: [], usage: seekUsage, atOrAfter: true)
    guard o.positional.count == 2 else { fail("seek needs FILE|URL and TIME (see --help)", code: Exit.usage) }
    guard let given = parseTime(o.positional[1]) else {
        fail("TIME must be seconds (92.5) or a rational (1001/30000)", code: Exit.usage)
    }
    let (player, engine) = openPlayer(o.positional[0], timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    let clock = o.streamTimeline ? StreamClock(engine.itemInfo) : nil
    let target = clock.map { $0.itemTime(given) } ?? given
    if let w = truncationWarning(duration: engine.itemInfo.duration, range: (try? player.seekableRange()) ?? nil,
                                endsAtCut: engine.seekableRangeEndsAtCut) {
        fputs("fpx-seek: \(o.positional[0]): \(w)\n", stderr)
    }
    do { try player.setupSeekManager() } catch { fail("cannot set up the seek manager", code: Exit.failure) }
    let outcome: SeekOutcome
    do { outcome = try seekAndWait(player, target, o.precision, o.convention) } catch let e as ErrorCode {
        fail("seek refused: \(e.message) (\(e.name))", code: Exit.usage)
    } catch { fail("seek refused", code: Exit.failure) }
    if o.json { print(outcomeJSON(outcome, clock: clock)) } else { printOutcome(outcome, clock: clock) }
    if !outcome.finished {
        player.destroy()
        exit(Exit.failure)
    }
}
