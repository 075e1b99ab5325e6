#if canImport(Glibc)
import Glibc
#endif
import CFFmpegCodec
import FastPixSeekCore

let spriteUsage = """
usage: fpx-seek sprite FILE|URL -o DIR [--interval SEC | --tiles N] [--width W] [--height H] [--columns N]
                       [--format jpeg|png] [--quality Q] [--precision keyframe[:TOL]|exact] [--max-rows R]
                       [--base-url URL] [--json] [--timeout MS] [--reference-stream N] [--variant N] [--audio N]

Seek preview thumbnails: writes into DIR (made if missing)
  sprite.jpg          the tiles, --columns N per row (default 10), no padding
  spritesheet.json    {"url", "tile_width", "tile_height", "duration", "tiles": [{"start", "x", "y"}]}:
                      a player shows for time t the last tile whose start is at or before t
  thumbnails.vtt      a WebVTT thumbnail track into the same image(s): sprite.jpg#xywh=x,y,w,h

Tiles are requested every --interval SEC (default: the seekable range / 100, at least 1 s;
--tiles N: N tiles over the range) from the first frame on. Each tile's start is the time
of the frame it shows (the LANDED time, not the requested one), so the tile shown for t is
a picture at or before t. Two requests landing on the same frame make one tile.

--precision keyframe[:TOL] (the default, TOL half the interval): each tile is the keyframe
nearest its time within TOL, from the container's index, and only that keyframe is decoded
(its packet, then the decoder is drained); a time with no keyframe within TOL gets no tile
of its own (nothing is decoded for it; the tile before it is its preview).
--precision exact: the frame on screen at each time, the times visited in order with one
decoder and continuation (as `frame`); for a file the reference stream's packets are read
once first (the library's full index, no decoding), so that a seek continues from the tile
before across a long GOP; the decoder runs a thread per core (libavcodec's frame threads,
the same pixels as one thread).

--width W (default 160) and --height H (default: in proportion) size a tile; --format png
writes PNG (exact pixels) instead of JPEG; --quality Q is JPEG's qscale (2 best ... 31,
default 3). Pictures are scaled by libswscale (bicubic) and written by libavcodec's mjpeg/png
encoders. An image is at most 16384 pixels wide (--columns x --width) and high; more tiles
than --max-rows R rows (default: as many as fit in 8192 pixels) go on more images: sprite.jpg, sprite-1.jpg, ...; spritesheet.json's "url" then names the first
and every tile has its own "url" too (readers that know only the one url read single-image
sheets; the VTT names each tile's image). --base-url URL is put before the image names in
the JSON and the VTT (default: none, names relative to DIR).

HLS: --variant N and --audio N as for `seek`; a tile time in a hole lands past it.
--reference-stream N: the tiles of video stream N (as ffprobe numbers streams).
Progress on standard error when it is a terminal. --json prints a summary object
(fpx-seek.schema.json, "sprite"). Exit code 0 when every requested time gave a tile (or
a duplicate); 1 when some failed (the others are written; the summary lists them) or
nothing could be written; 2 usage error.
"""

struct Tile {
    var start: MediaTime
    var pts: Int64
    var image: Int
    var x: Int32, y: Int32
    var keyframe: Bool
}

func runSprite(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--timeout", "-o", "--output", "--width", "--height", "--columns",
                                        "--interval", "--tiles", "--format", "--quality", "--max-rows", "--base-url",
                                        "--variant", "--audio", "--reference-stream"],
                         switches: [], usage: spriteUsage)
    var positional = o.positional
    var out = o.flags["--output"]
    if let i = positional.firstIndex(of: "-o") {
        guard i + 1 < positional.count else { fail("-o needs a directory", code: Exit.usage) }
        out = positional[i + 1]
        positional.removeSubrange(i...(i + 1))
    }
    guard let dir = out else { fail("sprite needs -o DIR (see --help)", code: Exit.usage) }
    guard positional.count == 1 else { fail("sprite needs exactly one FILE|URL (see --help)", code: Exit.usage) }
    let url = positional[0]
    func int(_ name: String, _ def: Int32, _ range: ClosedRange<Int32>) -> Int32 {
        guard let s = o.flags[name] else { return def }
        guard let v = Int32(s), range.contains(v) else {
            fail("\(name) needs \(range.lowerBound)...\(range.upperBound)", code: Exit.usage)
        }
        return v
    }
    let tileW = int("--width", 160, 16...4096)
    let fixedH: Int32? = o.flags["--height"] != nil ? int("--height", 90, 16...4096) : nil
    let columns = int("--columns", 10, 1...256)
    let maxRows: Int32? = o.flags["--max-rows"] != nil ? int("--max-rows", 1, 1...16384) : nil
    guard Int(columns) * Int(tileW) <= 16384 else { fail("--columns x --width must be at most 16384 pixels", code: Exit.usage) }
    let quality = int("--quality", 3, 2...31)
    let format = o.flags["--format"] ?? "jpeg"
    guard ["jpeg", "jpg", "png"].contains(format) else { fail("--format needs jpeg or png", code: Exit.usage) }
    let png = format == "png"
    let ext = png ? "png" : "jpg"
    if o.flags["--interval"] != nil && o.flags["--tiles"] != nil { fail("give --interval or --tiles, not both", code: Exit.usage) }
    var intervalUs: Int64? = nil
    if let s = o.flags["--interval"] {
        guard let t = parseTime(s), t.seconds >= 0.001, t.seconds <= 86400 else {
            fail("--interval needs seconds (0.001...86400)", code: Exit.usage)
        }
        intervalUs = Int64((t.seconds * 1e6).rounded())
    }
    let tileCount: Int32? = o.flags["--tiles"] != nil ? int("--tiles", 100, 1...10000) : nil
    var exact = false
    var tolerance: MediaTime? = nil
    if let i = args.firstIndex(of: "--precision"), i + 1 < args.count {
        // (parseOptions validated it into o.precision; a bare keyframe keeps the default tolerance)
        switch o.precision {
        case .exact: exact = true
        case .nearestKeyframe(let t): tolerance = args[i + 1].contains(":") ? t : nil
        }
    }
    let baseURL = o.flags["--base-url"] ?? ""

    // Exact mode reads the reference stream's packets once first (FPX_INDEX_FULL: no decoding),
    // so that the frame grid knows every keyframe and the seeks from one tile to the next
    // continue the packets wherever that is cheaper than restarting at a keyframe, however far
    // apart the tiles are. A file whose container index the library trusts (mp4, Matroska
    // written by libavformat) continues as far without it (same frames decoded, BENCHMARKS.md);
    // one without (MPEG-TS, fragmented mp4) continues only to about one keyframe interval past
    // what the library has read, 1 s while it knows no two keyframes (2.4x the frames on a
    // 10 s GOP MPEG-TS with tiles 2 s apart).
    let (player, engine) = openPlayer(url, timeoutMS: o.timeoutMS, options: o, indexMode: exact ? .full : .keyframes)
    defer { player.destroy() }
    // Exact mode decodes runs of frames (a tile's reference frames from its keyframe): with a
    // thread per core, as ffmpeg's own decoding does. Keyframe mode decodes one frame per tile
    // and drains: one thread (frame threads would only add start-up and flush cost there).
    guard engine.itemInfo.hasVideo, let decoder = FrameDecoder(player: player, engine: engine, threads: exact ? 0 : 1) else {
        fail("\(url) has no video stream this tool can decode", code: Exit.failure)
    }
    let container = engine.itemInfo.formatName.map { String(cString: $0) } ?? ""
    if exact && !container.hasPrefix("hls") && !container.hasPrefix("dash") { waitForIndex(player, timeoutMS: max(o.timeoutMS, 60_000)) }
    guard let range = (try? player.seekableRange()) ?? nil else { fail("\(url): the seekable range is unknown", code: Exit.failure) }
    let duration = engine.itemInfo.duration.isNumeric ? engine.itemInfo.duration : range.end
    // Requested times: the first frame's time rounded up to the microsecond, then every interval.
    let startUs = Int64((range.start.seconds * 1e6).rounded(.up))
    let spanUs = max(0, Int64((range.end.seconds * 1e6).rounded(.down)) - startUs)
    let durUs = max(spanUs, Int64((duration.seconds * 1e6).rounded()))
    let stepUs: Int64 = intervalUs ?? (tileCount.map { max(1, durUs / Int64($0)) } ?? max(1_000_000, durUs / 100))
    var times: [(text: String, time: MediaTime)] = []
    var k: Int64 = 0
    while k * stepUs <= spanUs && times.count < (tileCount.map { Int($0) } ?? 10000) {
        let t = MediaTime(value: startUs + k * stepUs, timescale: 1_000_000)
        times.append((fmt(t.seconds), t))
        k += 1
    }
    let interval = MediaTime(value: stepUs, timescale: 1_000_000)
    let halfStep = MediaTime(value: max(1, stepUs / 2), timescale: 1_000_000)
    let tol = tolerance ?? (SeekPrecision.validate(tolerance: halfStep) ? halfStep : MediaTime(value: 1, timescale: 1))
    let precision: SeekPrecision = exact ? .exact : .nearestKeyframe(tolerance: tol)

    if mkdir(dir, 0o755) != 0 && errno != EEXIST { fail("cannot make \(dir): \(String(cString: strerror(errno)))", code: Exit.failure) }
    func imageName(_ i: Int) -> String { i == 0 ? "sprite.\(ext)" : "sprite-\(i).\(ext)" }

    var tileH: Int32 = fixedH ?? 0
    var rowsPerImage: Int32 = 0
    var canvas: UnsafeMutablePointer<AVFrame>? = nil
    var canvasIndex = -1
    var tiles: [Tile] = []
    var seen = Set<Int64>()
    var writeError: String? = nil
    var duplicates = 0
    let progress = Progress(total: times.count, label: "sprite")
    var visited = 0
    let started = monotonicSeconds()

    func writeCanvas() {
        guard let c = canvas else { return }
        let used = tiles.count - canvasIndex * Int(columns * rowsPerImage)
        let rows = Int32((used + Int(columns) - 1) / Int(columns))
        fpx_cli_frame_crop_height(c, rows * tileH)
        let path = dir + "/" + imageName(canvasIndex)
        let rc = path.withCString { fpx_cli_write_image(c, $0, png ? 0 : quality) }
        if rc != 0 && writeError == nil { writeError = "cannot write \(path)" }
        fpx_cli_frame_free(c)
        canvas = nil
    }

    // Keyframe mode: a time with no keyframe within the tolerance gets no tile of its own (the
    // library would fall back to the frame on screen, decoded from its keyframe): the tile
    // before it stays the preview there, a picture at or before the time.
    let accept: (SeekOutcome) -> String? = { oc in
        exact || oc.landedIsKeyframe ? nil : "no keyframe within \(rationalText(tol)) s"
    }
    var noKeyframe = 0
    let visits = visitFrames(player, decoder, times, precision: { _ in precision }, keyframeOnly: !exact,
                             accept: accept) { v in
        visited += 1
        progress.update(visited)
        if v.skipped != nil { noKeyframe += 1; return }
        guard v.error == nil, let pts = v.pts, let oc = v.outcome else { return }
        guard seen.insert(pts).inserted else { duplicates += 1; return }
        let f = decoder.frame
        if tileH == 0 {
            let fw = fpx_cli_frame_width(f), fh = fpx_cli_frame_height(f)
            tileH = max(2, Int32((Int64(fh) * Int64(tileW) + Int64(fw) / 2) / Int64(max(fw, 1))))
        }
        if rowsPerImage == 0 {
            // An image is at most 16384 pixels high (8192 unless --max-rows asks for more).
            rowsPerImage = min(maxRows ?? max(1, 8192 / tileH), max(1, 16384 / tileH))
        }
        let perImage = Int(columns * rowsPerImage)
        let slot = tiles.count
        let image = slot / perImage
        if image != canvasIndex {
            writeCanvas()
            let remaining = times.count - visited + 1  // tiles this image may still get, at most
            let n = Int32(min(perImage, remaining)), cols = min(columns, n)
            canvas = fpx_cli_rgb_new(cols * tileW, ((n + columns - 1) / columns) * tileH)
            guard canvas != nil else { fail("out of memory for a sprite image", code: Exit.failure) }
            canvasIndex = image
        }
        let inImage = Int32(slot % perImage)
        let x = (inImage % columns) * tileW, y = (inImage / columns) * tileH
        if fpx_cli_blit(canvas, f, x, y, tileW, tileH) != 0 {
            v.error = "cannot scale the frame (pts \(pts))"
            seen.remove(pts)
            return
        }
        tiles.append(Tile(start: oc.accuracy.landedMediaTime, pts: pts, image: image, x: x, y: y, keyframe: oc.landedIsKeyframe))
    }
    writeCanvas()
    progress.finish()
    let elapsed = monotonicSeconds() - started
    let failures = visits.filter { $0.error != nil }
    let images = tiles.isEmpty ? 0 : tiles.last!.image + 1
    if tiles.isEmpty && writeError == nil { writeError = "nothing to write: no frame could be decoded" }

    // The SDK's spritesheet.json, and the WebVTT track, tiles in start order.
    let ordered = tiles.sorted { MediaTime.compare($0.start, $1.start) < 0 }
    if writeError == nil {
        let sheet = PreviewSheet(tiles: ordered.map {
            PreviewTile(start: $0.start, image: baseURL + imageName($0.image), x: $0.x, y: $0.y, width: tileW, height: tileH)
        }, end: duration)
        let j = sheet.spritesheetJSON(url: baseURL + imageName(0), tileWidth: tileW, tileHeight: tileH, duration: duration)
        let vtt = sheet.webVTT(duration: duration)
        for (name, text) in [("spritesheet.json", j), ("thumbnails.vtt", vtt)] {
            let path = dir + "/" + name
            guard let fp = fopen(path, "w") else { writeError = "cannot write \(path)"; break }
            let ok = fputs(text, fp) >= 0
            if fclose(fp) != 0 || !ok { writeError = "cannot write \(path)" }
        }
    }

    if o.json {
        var j = "{\"url\":\(jsonString(url)),\"output_dir\":\(jsonString(dir)),\"written\":\(writeError == nil),"
        j += "\"write_error\":" + (writeError.map(jsonString) ?? "null") + ","
        j += "\"images\":[" + (0..<images).map { jsonString(imageName($0)) }.joined(separator: ",") + "],"
        j += "\"spritesheet\":\"spritesheet.json\",\"vtt\":\"thumbnails.vtt\",\"format\":\(jsonString(png ? "png" : "jpeg")),"
        j += "\"precision\":\(precisionJSON(precision)),\"interval\":\(jsonTime(interval)),"
        j += "\"duration\":\(jsonTime(duration)),\"tile_width\":\(tileW),\"tile_height\":\(tileH),\"columns\":\(columns),"
        j += "\"requested\":\(times.count),\"tiles\":\(tiles.count),\"duplicates\":\(duplicates),\"no_keyframe\":\(noKeyframe),"
        j += "\"keyframe_tiles\":\(tiles.filter { $0.keyframe }.count),\"failed\":\(failures.count),"
        j += "\"failures\":[" + failures.map { v in
            "{\"time\":\(jsonTime(v.requested)),\"error\":\(jsonString(v.error ?? ""))}"
        }.joined(separator: ",") + "],"
        j += "\"frames_decoded\":\(decoder.decoded),\"packets_decoded\":\(decoder.fed),"
        j += "\"holes\":\(holesJSON(engine.holeReport)),\"seconds\":\(jsonDouble(elapsed)),"
        j += "\"tile_list\":[" + ordered.map { t in
            "{\"start\":\(jsonTime(t.start)),\"stream_pts\":\(t.pts),\"keyframe\":\(t.keyframe),\"image\":\(t.image),\"x\":\(t.x),\"y\":\(t.y)}"
        }.joined(separator: ",") + "]}"
        print(j)
    } else {
        for v in failures { print("\(v.text) s -> failed: \(v.error ?? "")") }
        if writeError == nil {
            print("wrote \(dir)/: \(plural(tiles.count, "tile")) of \(tileW)x\(tileH) on \(plural(images, "image")) ("
                  + (0..<images).map(imageName).joined(separator: ", ") + "), spritesheet.json, thumbnails.vtt")
            print("\(plural(times.count, "time")) every \(fmt(interval.seconds, 3)) s, \(precisionText(precision)): "
                  + "\(tiles.filter { $0.keyframe }.count) keyframe tiles, \(plural(duplicates, "duplicate landing")), "
                  + (exact ? "" : "\(noKeyframe) without a keyframe within \(rationalText(tol)) s, ")
                  + "\(plural(decoder.decoded, "frame")) decoded, \(fmt(elapsed, 2)) s")
        }
    }
    if let e = writeError { fail(e, code: Exit.failure) }
    if !failures.isEmpty {
        fputs("fpx-seek: \(failures.count) of \(plural(times.count, "time")) failed (no tile for them)\n", stderr)
        player.destroy()
        exit(Exit.failure)
    }
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
