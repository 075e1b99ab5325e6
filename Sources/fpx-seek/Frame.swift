#if canImport(Glibc)
import Glibc
#endif
import CFFmpegCodec
import FastPixSeekCore

let frameUsage = """
usage: fpx-seek frame FILE|URL TIME [TIME...] -o OUT.png [--width W] [--columns N] [--precision P] [--json]
                      [--reference-stream N] [--timeline item|stream] [--timeout MS] [--variant N] [--audio N]

Seeks to each TIME (exact by default: the frame on screen at TIME; --precision at_or_after:
the first frame at or after TIME, the frame `ffmpeg -ss TIME -i FILE -frames:v 1` writes),
decodes the landed frame with libavcodec and writes it as PNG, so you can look at what landed. One TIME: the
frame at its own size (or --width W, height in proportion). Several: a contact sheet, the
frames in the order given, --columns N per row (default 4), each --width W wide (default
320). Prints one line per TIME, in the order given: the landed time, the frame's pts and
whether it covers the target, or why that TIME failed.

Many times run like Examples/c/frames_at.c: continuation on (a landing ahead of what the
decoder has continues the packets instead of restarting at its keyframe), times visited
in increasing order with one decoder kept across them (flushed only where the packets say
DISCONTINUITY), DISPOSABLE packets dropped, non-reference pre-roll frames skipped.

A TIME that fails (its seek does not land, its frame cannot be decoded) does not stop the
others: its line says why, its cell of the sheet stays blank (dark grey) and the sheet is
still written. HLS: --variant N and --audio N as for `seek`; a TIME in a hole (an
EXT-X-GAP or failed segment) lands on the first frame after it, and its line says so.
--reference-stream N: the frames of video stream N (as ffprobe numbers streams).
--timeline stream: TIMEs and landed times in the reference stream's own pts seconds
(ffprobe's pts_time, PyAV's frame.time) instead of the item timeline (files only).
--json prints one object instead of the lines (fpx-seek.schema.json, "frame").
Exit code 0 when every TIME was written; 1 when any TIME failed (the others are still
written) or nothing could be written; 2 usage error.
"""

/// "landed past a hole (EXT-X-GAP)" for a seek whose target fell in one, else nil.
func holeNote(_ o: SeekOutcome) -> String? {
    switch o.landedPastHole {
    case .none: return nil
    case .gap: return "the target is in a hole (an EXT-X-GAP segment): landed on the first frame after it"
    case .failed: return "the target is in a hole (a segment that failed twice): landed on the first frame after it"
    }
}

func holeReasonName(_ r: HoleReason) -> String {
    switch r {
    case .none: return "none"
    case .gap: return "gap"
    case .failed: return "failed"
    }
}

/// The item's holes so far (seek.h, "Gaps"), as JSON.
func holesJSON(_ h: HoleReport) -> String {
    "{\"segments_skipped\":\(h.count),\"last_skipped_sequence\":" + (h.count > 0 ? "\(h.lastSequence)" : "null")
        + ",\"last_skip_reason\":\(jsonString(holeReasonName(h.lastReason)))}"
}

func runFrame(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--timeout", "-o", "--output", "--width", "--columns", "--variant", "--audio",
                                        "--reference-stream", "--timeline"],
                         switches: [], usage: frameUsage, atOrAfter: true)
    // -o is a short option: parseOptions only takes --long ones, so look for it here.
    var positional = o.positional
    var out = o.flags["--output"]
    if let i = positional.firstIndex(of: "-o") {
        guard i + 1 < positional.count else { fail("-o needs a file name", code: Exit.usage) }
        out = positional[i + 1]
        positional.removeSubrange(i...(i + 1))
    }
    guard let outPath = out else { fail("frame needs -o OUT.png (see --help)", code: Exit.usage) }
    guard positional.count >= 2 else { fail("frame needs FILE|URL and at least one TIME (see --help)", code: Exit.usage) }
    let url = positional[0]
    var times: [(text: String, time: MediaTime)] = []
    for s in positional.dropFirst() {
        guard let t = parseTime(s) else { fail("not a time: '\(s)'", code: Exit.usage) }
        times.append((s, t))
    }
    guard times.count <= 1000 else { fail("at most 1000 times in one sheet", code: Exit.usage) }
    var width: Int32? = nil
    if let w = o.flags["--width"] {
        guard let v = Int32(w), v >= 16, v <= 8192 else { fail("--width needs 16...8192 pixels", code: Exit.usage) }
        width = v
    }
    let columns = Int32(o.flags["--columns"] ?? "4") ?? 0
    guard columns >= 1, columns <= 64 else { fail("--columns needs 1...64", code: Exit.usage) }
    let precision = args.contains("--precision") ? o.precision : SeekPrecision.exact

    let (player, engine) = openPlayer(url, timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    let clock = o.streamTimeline ? StreamClock(engine.itemInfo) : nil
    if let c = clock { times = times.map { ($0.text, c.itemTime($0.time)) } }
    guard engine.itemInfo.hasVideo, let decoder = FrameDecoder(player: player, engine: engine) else {
        fail("\(url) has no video stream this tool can decode", code: Exit.failure)
    }

    // Visit in increasing time (one decoder, forward), place in the order given.
    var sheet: UnsafeMutablePointer<AVFrame>? = nil
    defer { if let s = sheet { fpx_cli_frame_free(s) } }
    var cellW: Int32 = 0, cellH: Int32 = 0
    let single = times.count == 1
    let pad: Int32 = single ? 0 : 4
    let visits = visitFrames(player, decoder, times, precision: { _ in precision }, convention: o.convention) { v in
        guard v.error == nil, let pts = v.pts else { return }
        let f = decoder.frame
        if sheet == nil {
            let fw = fpx_cli_frame_width(f), fh = fpx_cli_frame_height(f)
            cellW = width ?? (single ? fw : 320)
            cellH = max(2, Int32((Int64(fh) * Int64(cellW) + Int64(fw) / 2) / Int64(max(fw, 1))))
            let n = Int32(times.count), cols = min(columns, n), rows = (n + cols - 1) / cols
            sheet = fpx_cli_rgb_new(cols * cellW + (cols + 1) * pad, rows * cellH + (rows + 1) * pad)
            guard sheet != nil else { fail("out of memory for a \(cols)x\(rows) sheet", code: Exit.failure) }
        }
        let col = Int32(v.index) % columns, row = Int32(v.index) / columns
        if fpx_cli_blit(sheet, f, pad + col * (cellW + pad), pad + row * (cellH + pad), cellW, cellH) != 0 {
            v.error = "cannot scale the frame (pts \(pts))"
        }
    }
    var writeError: String? = nil
    if let s = sheet {
        let rc = outPath.withCString { fpx_cli_write_png(s, $0) }
        if rc != 0 { writeError = "cannot write \(outPath)" }
    } else {
        writeError = "nothing to write: no frame could be decoded"
    }
    let failed = visits.filter { $0.error != nil }.count
    if o.json {
        var j = "{\"url\":\(jsonString(url)),\"output\":\(jsonString(outPath)),\"written\":\(writeError == nil),"
        j += "\"write_error\":" + (writeError.map(jsonString) ?? "null") + ","
        j += "\"precision\":\(precisionJSON(precision, o.convention)),\"timeline\":\(jsonString(clock == nil ? "item" : "stream")),"
        j += "\"reference_stream\":\(engine.itemInfo.referenceStream),\"columns\":\(min(columns, Int32(times.count))),"
        j += "\"cell\":" + (sheet != nil ? "{\"width\":\(cellW),\"height\":\(cellH)}" : "null") + ","
        j += "\"failed\":\(failed),\"frames_decoded\":\(decoder.decoded),\"packets_decoded\":\(decoder.fed),"
        j += "\"disposable_dropped\":\(decoder.dropped),\"holes\":\(holesJSON(engine.holeReport)),"
        if let l = engine.hlsControls?.hlsListing { j += hlsListingJSON(l) + "," }
        j += "\"times\":["
        j += visits.map { v in
            "{\"index\":\(v.index),\"time\":\(jsonString(v.text)),\"requested\":\(jsonTime(v.requested)),"
                + "\"ok\":\(v.error == nil),\"error\":" + (v.error.map(jsonString) ?? "null") + ","
                + "\"landed\":" + (v.error == nil ? jsonTime(v.outcome!.accuracy.landedMediaTime) : "null") + ","
                + "\"landed_stream_pts\":" + (v.pts.map { "\($0)" } ?? "null") + ","
                + "\"landed_stream_time\":" + (clock.flatMap { c in v.pts.map { jsonTime(c.seconds(ofPTS: $0)) } } ?? "null") + ","
                + "\"frames_decoded\":\(v.framesDecoded),\"packets_decoded\":\(v.packetsFed),"
                + "\"outcome\":" + (v.outcome.map { outcomeJSON($0, clock: clock) } ?? "null") + "}"
        }.joined(separator: ",")
        j += "]}"
        print(j)
    } else {
        if let l = engine.hlsControls?.hlsListing { printHLSListing(l) }
        for v in visits {
            if let e = v.error {
                print("\(v.text) s -> failed: \(e)")
            } else if let oc = v.outcome, let pts = v.pts {
                // --timeline stream: the landed frame's pts seconds (ffprobe's pts_time).
                let l = clock.map { $0.seconds(ofPTS: pts) } ?? oc.accuracy.landedMediaTime
                print("\(v.text) s -> \(fmt(l.seconds)) s  (\(rationalText(l)), "
                      + "stream pts \(pts))  \(resultLine(oc))" + (holeNote(oc).map { "; \($0)" } ?? ""))
            }
        }
        let h = engine.holeReport
        if h.count > 0 {
            print("holes: \(plural(h.count, "segment")) skipped (the latest: segment \(h.lastSequence), \(holeReasonName(h.lastReason)))")
        }
        if writeError == nil {
            print("wrote \(outPath)" + (single ? "" : " (\(times.count) frames, \(min(columns, Int32(times.count))) per row, \(cellW)x\(cellH) each)"))
        }
    }
    if let e = writeError { fail(e, code: Exit.failure) }
    if failed > 0 {
        fputs("fpx-seek: \(failed) of \(plural(times.count, "time")) failed" + (single ? "" : " (their cells are blank)") + "\n", stderr)
        player.destroy()
        exit(Exit.failure)
    }
}
