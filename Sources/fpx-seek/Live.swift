#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore
import FastPixSeekEngine

let liveUsage = """
usage: fpx-seek live URL [window|edge|date UNIX_SECONDS] [--precision P] [--json] [--timeout MS]

For an HLS URL (live, EVENT or VOD) or a DASH MPD (dynamic or static):
  window              the seekable window: start, live edge, sequences, dates (default)
  edge                seek to the live edge and print the outcome
  date UNIX_SECONDS   seek to a wall-clock date (decimal Unix seconds, e.g.
                      1764437000.250) through EXT-X-PROGRAM-DATE-TIME (DASH: the
                      MPD's availabilityStartTime); a date
                      outside the window is refused, not clamped (exit status 3)
A non-HLS item is an error (exit status 1). --json output follows
fpx-seek.schema.json ("live_window", "seek_outcome", "date_seek").
"""

func windowJSON(_ w: LiveWindow) -> String {
    "{\"is_live\":\(w.isLive),\"is_date_addressable\":\(w.isDateAddressable),\"start\":\(jsonTime(w.start)),\"end\":\(jsonTime(w.end)),"
        + "\"duration\":\(jsonTime(w.duration)),\"first_sequence\":\(w.firstSequence),\"last_sequence\":\(w.lastSequence),"
        + "\"start_date_us\":" + (w.startDateMicroseconds.map { "\($0)" } ?? "null")
        + ",\"end_date_us\":" + (w.endDateMicroseconds.map { "\($0)" } ?? "null")
        + ",\"target_duration\":\(jsonTime(w.targetDuration)),\"hold_back\":\(jsonTime(w.holdBack))}"
}

func runLive(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--timeout"], switches: [], usage: liveUsage)
    guard o.positional.count >= 1 else { fail("live needs a URL (see --help)", code: Exit.usage) }
    let action = o.positional.count >= 2 ? o.positional[1] : "window"
    var dateUS: Int64?
    switch action {
    case "window", "edge": guard o.positional.count <= 2 else { fail("too many arguments (see --help)", code: Exit.usage) }
    case "date":
        guard o.positional.count == 3, let t = parseTime(o.positional[2]), let r = t.rational else {
            fail("date needs UNIX_SECONDS, e.g. 1764437000.250", code: Exit.usage)
        }
        dateUS = Int64(clamping: (r * Rational(1_000_000)).floor)
    default: fail("unknown live action '\(action)' (window, edge or date)", code: Exit.usage)
    }
    let (player, engine) = openPlayer(o.positional[0], timeoutMS: o.timeoutMS)
    defer { player.destroy() }
    guard engine is HLSItemEngine else {
        player.destroy()
        fail("\(o.positional[0]) is not an HLS item: live needs an HLS playlist (.m3u8)", code: Exit.failure)
    }
    try? player.setupSeekManager()
    guard let w = (try? player.liveSeekWindow()) ?? nil else { fail("no seekable window", code: Exit.failure) }
    switch action {
    case "window":
        if o.json { print(windowJSON(w)); return }
        print("live        \(w.isLive ? "yes" : "no (VOD or ended)")")
        print("window      \(fmt(w.start.seconds)) .. \(fmt(w.end.seconds)) s, segments \(w.firstSequence)...\(w.lastSequence)")
        print("live edge   newest segment end - \(fmt(w.holdBack.seconds, 3)) s (HOLD-BACK, or 3 x TARGETDURATION)")
        if let s = w.startDateMicroseconds, let e = w.endDateMicroseconds, w.isDateAddressable {
            print("dates       \(fmt(Double(s) / 1e6, 3)) .. \(fmt(Double(e) / 1e6, 3)) (Unix seconds)")
        } else {
            print("dates       none: the playlist publishes no EXT-X-PROGRAM-DATE-TIME")
        }
    case "edge":
        let done = Monitor()
        // Guarded by `done`: written by the callback, read by this thread, both holding it.
        nonisolated(unsafe) var result: SeekOutcome??
        do {
            _ = try player.seekToLiveEdge { out, _ in done.locked { result = .some(out); done.broadcast() } }
        } catch { fail("seek to live edge refused", code: Exit.failure) }
        let out: SeekOutcome? = done.locked { while result == nil { done.wait() }; return result! }
        guard let outcome = out else { fail("no item", code: Exit.failure) }
        if o.json { print(outcomeJSON(outcome)) } else { printOutcome(outcome) }
        if !outcome.finished { player.destroy(); exit(Exit.failure) }
    default:
        let done = Monitor()
        // Guarded by `done`: written by the callback, read by this thread, both holding it.
        nonisolated(unsafe) var result: DateSeekResult?
        do {
            _ = try player.seekToDate(microseconds: dateUS ?? 0, precision: o.precision) { r in
                done.locked { result = r; done.broadcast() }
            }
        } catch { fail("date seek refused", code: Exit.usage) }
        let r: DateSeekResult = done.locked { while result == nil { done.wait() }; return result! }
        switch r {
        case .seeked(let outcome):
            if o.json { print("{\"seeked\":true,\"outcome\":\(outcomeJSON(outcome))}") } else { printOutcome(outcome) }
            if !outcome.finished { player.destroy(); exit(Exit.failure) }
        case .unavailable(let req, let reason):
            var extra = ""
            if case .dateOutsideSeekableWindow(_, let s, let e) = reason { extra = ",\"window_start_date_us\":\(s),\"window_end_date_us\":\(e)" }
            if o.json {
                print("{\"seeked\":false,\"reason\":\(jsonString(dateReasonName(reason.code))),\"requested_date_us\":\(req)\(extra),\"explanation\":\(jsonString("\(DateSeekUnavailableReason.explanation(code: reason.code))"))}")
            } else {
                print("unavailable \(DateSeekUnavailableReason.explanation(code: reason.code))")
            }
            player.destroy()
            exit(Exit.refused)
        }
    }
}
