#if canImport(Glibc)
import Glibc
#endif
import CFFmpegCodec
import FastPixSeekCore

let frameUsage = """
usage: fpx-seek frame FILE|URL TIME [TIME...] -o OUT.png [--width W] [--columns N] [--precision P] [--timeout MS]

Seeks to each TIME (exact by default: the frame on screen at TIME), decodes the landed
frame with libavcodec and writes it as PNG, so you can look at what landed. One TIME: the
frame at its own size (or --width W, height in proportion). Several: a contact sheet, the
frames in the order given, --columns N per row (default 4), each --width W wide (default
320). Prints one line per TIME: the landed time, the frame's pts and whether it covers the
target. Times are visited in increasing order with one decoder kept across seeks (flushed
only where the packets say DISCONTINUITY; DISPOSABLE packets are dropped, non-reference
pre-roll frames skipped), the recipe of Examples/c/frames_at.c.
Exit code 1 when a seek does not land or its frame cannot be decoded or written.
"""

/// One decoder for the reference stream, kept across landings (Examples/c/frames_at.c).
final class FrameDecoder {
    let player: Player
    let stream: Int32
    let dec: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    var drained = false

    init?(player: Player, engine: PlayerEngine) {
        let ref = engine.itemInfo.referenceStream
        guard let si = engine.streamInfo(ref), si.type == .video,
              let d = fpx_cli_decoder_open(si.codecParameters, si.timeBaseNum, si.timeBaseDen),
              let f = fpx_cli_frame_alloc() else { return nil }
        self.player = player
        stream = ref
        dec = d
        frame = f
    }

    deinit {
        fpx_cli_frame_free(frame)
        fpx_cli_decoder_free(dec)
    }

    /// Decodes until the frame with pts `want` is in `frame`; false when it never comes.
    func decode(to want: Int64) -> Bool {
        var want = want
        while true {
            let p: PacketView
            do { p = try player.readPacket() } catch {
                // The end of the packets (the engine throws EngineError, the player ErrorCode):
                // drain, the last frames of a stream with B-frames come out only then.
                guard (error as? EngineError)?.code == .eof || (error as? ErrorCode) == .eof else { return false }
                _ = fpx_cli_send(dec, nil, 0)
                drained = true
                return fpx_cli_receive(dec, want, frame) == 1
            }
            if p.flags & PacketView.flagDiscontinuity != 0 || drained {
                fpx_cli_decoder_flush(dec)  // a new run of packets: drop what the decoder holds
                drained = false
            } else {
                // The packets continued: frames the decoder already holds come out first.
                let r = fpx_cli_receive(dec, want, frame)
                if r != 0 { return r == 1 }
            }
            guard p.streamIndex == stream, p.flags & ABIConstants.FPX_PACKET_FLAG_DISPOSABLE == 0 else { continue }
            if let l = p.landedPTSInStream { want = l }
            if fpx_cli_send(dec, p.avPacket, p.flags & PacketView.flagDecodeOnly != 0 ? 1 : 0) < 0 { return false }
            let r = fpx_cli_receive(dec, want, frame)
            if r != 0 { return r == 1 }
        }
    }
}

func runFrame(_ args: [String]) {
    let o = parseOptions(args, valued: ["--precision", "--timeout", "-o", "--output", "--width", "--columns"],
                         switches: [], usage: frameUsage)
    // -o is a short option: parseOptions only takes --long ones, so look for it here.
    var positional = o.positional
    var out = o.flags["--output"]
    if let i = positional.firstIndex(of: "-o") {
        guard i + 1 < positional.count else { fail("-o needs a file name", code: Exit.usage) }
        out = positional[i + 1]
        positional.removeSubrange(i...(i + 1))
    }
    if o.json { fail("frame has no --json output (it writes a PNG; see --help)", code: Exit.usage) }
    guard let outPath = out else { fail("frame needs -o OUT.png (see --help)", code: Exit.usage) }
    guard positional.count >= 2 else { fail("frame needs FILE|URL and at least one TIME (see --help)", code: Exit.usage) }
    let url = positional[0]
    var times: [MediaTime] = []
    for s in positional.dropFirst() {
        guard let t = parseTime(s) else { fail("not a time: '\(s)'", code: Exit.usage) }
        times.append(t)
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

    let (player, engine) = openPlayer(url, timeoutMS: o.timeoutMS)
    defer { player.destroy() }
    guard engine.itemInfo.hasVideo, let decoder = FrameDecoder(player: player, engine: engine) else {
        fail("\(url) has no video stream this tool can decode", code: Exit.failure)
    }
    try? player.setupSeekManager()

    // Visit in increasing time (one decoder, forward), place in the order given.
    let order = times.indices.sorted { MediaTime.compare(times[$0], times[$1]) < 0 }
    var sheet: UnsafeMutablePointer<AVFrame>? = nil
    defer { if let s = sheet { fpx_cli_frame_free(s) } }
    var cellW: Int32 = 0, cellH: Int32 = 0
    var lines = [String](repeating: "", count: times.count)
    let single = times.count == 1
    let pad: Int32 = single ? 0 : 4
    for i in order {
        guard let outcome = try? seekAndWait(player, times[i], precision), outcome.finished,
              let pts = outcome.landedStreamPTS else {
            fail("the seek to \(positional[i + 1]) s did not land", code: Exit.failure)
        }
        guard decoder.decode(to: pts) else { fail("the landed frame (pts \(pts)) could not be decoded", code: Exit.failure) }
        let f = decoder.frame
        if sheet == nil {
            let fw = fpx_cli_frame_width(f), fh = fpx_cli_frame_height(f)
            cellW = width ?? (single ? fw : 320)
            cellH = max(2, Int32((Int64(fh) * Int64(cellW) + Int64(fw) / 2) / Int64(max(fw, 1))))
            let n = Int32(times.count), cols = min(columns, n), rows = (n + cols - 1) / cols
            sheet = fpx_cli_rgb_new(cols * cellW + (cols + 1) * pad, rows * cellH + (rows + 1) * pad)
            guard sheet != nil else { fail("out of memory for a \(cols)x\(rows) sheet", code: Exit.failure) }
        }
        let col = Int32(i) % columns, row = Int32(i) / columns
        guard fpx_cli_blit(sheet, f, pad + col * (cellW + pad), pad + row * (cellH + pad), cellW, cellH) == 0 else {
            fail("cannot scale the frame (pts \(pts))", code: Exit.failure)
        }
        av_frame_unref(f)
        let a = outcome.accuracy
        lines[i] = "\(positional[i + 1]) s -> \(fmt(a.landedMediaTime.seconds)) s  (\(rationalText(a.landedMediaTime)), "
            + "stream pts \(pts))  \(resultLine(outcome))"
    }
    let rc = outPath.withCString { fpx_cli_write_png(sheet, $0) }
    guard rc == 0 else { fail("cannot write \(outPath)", code: Exit.failure) }
    for l in lines { print(l) }
    print("wrote \(outPath)" + (single ? "" : " (\(times.count) frames, \(min(columns, Int32(times.count))) per row, \(cellW)x\(cellH) each)"))
}
