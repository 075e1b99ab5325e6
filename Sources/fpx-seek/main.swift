// fpx-seek: probe how a media item seeks, and seek it with a precision.
//
// Exit codes: 0 success; 1 the media could not be opened or the seek failed;
// 2 bad command-line usage.
#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore
import FastPixSeekEngine

let usage = """
usage: fpx-seek <command> [options]

commands:
  probe FILE|URL [--json]
      streams, duration, seekable range and keyframe count of the reference stream
  seek FILE|URL TIME [--precision exact|default|keyframe:TOL] [--json]
      seek once and print the outcome. TIME and TOL are seconds on the item
      timeline, as decimals (92.5) or exact rationals (1001/30000).

options:
  --timeout MS   I/O timeout in milliseconds (default 10000)
  -h, --help     this help
  --version      the library version

exit codes: 0 success, 1 open or seek failure, 2 usage error
"""

func fail(_ message: String, code: Int32) -> Never {
    fputs("fpx-seek: \(message)\n", stderr)
    exit(code)
}

/// Parses "92.5", "-3", "1001/30000" exactly.
func parseTime(_ s: String) -> MediaTime? {
    if let slash = s.firstIndex(of: "/") {
        guard let n = Int64(s[..<slash]), let d = Int32(s[s.index(after: slash)...]), d > 0 else { return nil }
        return MediaTime(value: n, timescale: d)
    }
    var digits = s
    var negative = false
    if digits.hasPrefix("-") { negative = true; digits.removeFirst() } else if digits.hasPrefix("+") { digits.removeFirst() }
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, !digits.isEmpty else { return nil }
    let whole = parts[0].isEmpty ? "0" : String(parts[0])
    let frac = parts.count == 2 ? String(parts[1]) : ""
    guard frac.count <= 9, whole.allSatisfy(\.isNumber), frac.allSatisfy(\.isNumber),
          let w = Int64(whole), let f = Int64(frac.isEmpty ? "0" : frac) else { return nil }
    var scale: Int64 = 1
    for _ in 0..<frac.count { scale *= 10 }
    let (v, o) = w.multipliedReportingOverflow(by: scale)
    guard !o else { return nil }
    let total = v + f
    return MediaTime(value: negative ? -total : total, timescale: Int32(scale))
}

func parsePrecision(_ s: String) -> SeekPrecision? {
    switch s {
    case "exact": return .exact
    case "default": return .default
    default:
        guard s.hasPrefix("keyframe:"), let t = parseTime(String(s.dropFirst(9))),
              SeekPrecision.validate(tolerance: t) else { return nil }
        return .nearestKeyframe(tolerance: t)
    }
}

func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 { out += "\\u" + String(u.value, radix: 16).leftPad(4) } else { out.unicodeScalars.append(u) }
        }
    }
    return out + "\""
}

extension String {
    func leftPad(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

func jsonTime(_ t: MediaTime) -> String {
    guard t.isNumeric else { return "null" }
    return "{\"value\":\(t.value),\"timescale\":\(t.timescale),\"seconds\":\(t.seconds)}"
}

func fmt(_ d: Double, _ places: Int = 6) -> String {
    guard d.isFinite else { return d.isNaN ? "n/a" : (d > 0 ? "+inf" : "-inf") }
    var p = 1.0
    for _ in 0..<places { p *= 10 }
    let r = (abs(d) * p).rounded()
    let whole = Int64(r / p), frac = Int64(r.truncatingRemainder(dividingBy: p))
    return (d < 0 && r != 0 ? "-" : "") + "\(whole)." + String(frac).leftPad(places)
}

func precisionText(_ p: SeekPrecision) -> String {
    switch p {
    case .exact: return "exact"
    case .nearestKeyframe(let t): return "nearestKeyframe(\(t))"
    }
}

// MARK: Arguments

var args = Array(CommandLine.arguments.dropFirst())
if args.isEmpty { fputs(usage + "\n", stderr); exit(2) }
if args.contains("-h") || args.contains("--help") { print(usage); exit(0) }
if args.contains("--version") { print("fpx-seek 0.1.0"); exit(0) }

var json = false
var precision = SeekPrecision.default
var timeoutMS: UInt64 = 10_000
var positional: [String] = []
var i = 0
while i < args.count {
    let a = args[i]
    switch a {
    case "--json": json = true
    case "--precision":
        i += 1
        guard i < args.count, let p = parsePrecision(args[i]) else {
            fail("--precision needs exact, default or keyframe:TOL with TOL >= 0", code: 2)
        }
        precision = p
    case "--timeout":
        i += 1
        guard i < args.count, let t = UInt64(args[i]) else { fail("--timeout needs milliseconds", code: 2) }
        timeoutMS = t
    default:
        if a.hasPrefix("--") { fail("unknown option \(a)", code: 2) }
        positional.append(a)
    }
    i += 1
}

let command = positional.first ?? ""
guard ["probe", "seek"].contains(command) else { fail("unknown command '\(command)' (try --help)", code: 2) }
guard positional.count >= 2 else { fail("\(command) needs FILE|URL", code: 2) }
let url = positional[1]

// MARK: Player

guard let player = Player(config: .init(delivery: .thread, ioTimeoutNanoseconds: timeoutMS * 1_000_000),
                          factory: makeFFmpegEngine) else { fail("cannot create a player", code: 1) }
do { try player.open(url) } catch { fail("cannot open \(url)", code: 1) }
let status = player.waitItem(timeoutNanoseconds: nil)
guard status.status == .ready, let engine = try? player.readyEngine() else {
    let e = status.error ?? .internal
    fail("cannot open \(url): \(e.message) (\(e.name))", code: 1)
}

switch command {
case "probe":
    let info = engine.itemInfo
    let range = try? player.seekableRange()
    // Keyframe count: a full demux of the reference stream.
    var keyframes = 0, frames = 0
    while let p = try? player.readPacket() {
        guard p.streamIndex == info.referenceStream, p.flags & PacketView.flagDiscard == 0 else { continue }
        frames += 1
        if p.flags & PacketView.flagKey != 0 { keyframes += 1 }
    }
    var streams: [StreamInfo] = []
    for s in 0..<info.streamCount { if let si = engine.streamInfo(s) { streams.append(si) } }
    let format = info.formatName.map { String(cString: $0) } ?? "unknown"
    if json {
        var out = "{\"url\":\(jsonString(url)),\"format\":\(jsonString(format)),\"duration\":\(jsonTime(info.duration)),"
        out += "\"reference_stream\":\(info.referenceStream),\"seekable\":\(info.seekable),"
        out += "\"time_base\":{\"num\":\(info.timeline.timeBaseNum),\"den\":\(info.timeline.timeBaseDen)},"
        out += "\"start_pts\":\(info.timeline.originTicks),"
        out += "\"seekable_range\":" + (range.flatMap { $0 }.map { "{\"start\":\(jsonTime($0.start)),\"end\":\(jsonTime($0.end))}" } ?? "null") + ","
        out += "\"frames\":\(frames),\"keyframes\":\(keyframes),\"streams\":["
        out += streams.map { s in
            let name = s.codecName.map { String(cString: $0) } ?? "unknown"
            return "{\"index\":\(s.index),\"type\":\(s.type.rawValue),\"codec\":\(jsonString(name)),"
                + "\"time_base\":{\"num\":\(s.timeBaseNum),\"den\":\(s.timeBaseDen)},"
                + "\"width\":\(s.width),\"height\":\(s.height),\"sample_rate\":\(s.sampleRate),\"channels\":\(s.channels)}"
        }.joined(separator: ",")
        out += "]}"
        print(out)
    } else {
        print("\(url)")
        print("  format           \(format)")
        print("  duration         \(fmt(info.duration.seconds)) s")
        if let r = range.flatMap({ $0 }) {
            print("  seekable range   \(fmt(r.start.seconds)) .. \(fmt(r.end.seconds)) s (first to last frame)")
        } else {
            print("  seekable range   unknown")
        }
        print("  reference stream #\(info.referenceStream), time base \(info.timeline.timeBaseNum)/\(info.timeline.timeBaseDen), item start at pts \(info.timeline.originTicks)")
        print("  frames           \(frames), keyframes \(keyframes)" + (keyframes > 0 ? ", mean GOP \(fmt(Double(frames) / Double(keyframes), 1)) frames" : ""))
        for s in streams {
            let name = s.codecName.map { String(cString: $0) } ?? "unknown"
            let kind = s.type == .video ? "video \(s.width)x\(s.height)" : s.type == .audio ? "audio \(s.sampleRate) Hz, \(s.channels) ch" : "other"
            print("  stream #\(s.index)        \(name), \(kind), time base \(s.timeBaseNum)/\(s.timeBaseDen)")
        }
    }
    exit(0)

case "seek":
    guard positional.count >= 3, let target = parseTime(positional[2]) else {
        fail("seek needs TIME in seconds (92.5) or as a rational (1001/30000)", code: 2)
    }
    do { try player.setupSeekManager() } catch { fail("cannot set up the seek manager", code: 1) }
    let done = Monitor()
    var result: SeekOutcome?
    do {
        _ = try player.seek(to: target, precision: precision) { o in done.locked { result = o; done.broadcast() } }
    } catch let e as ErrorCode {
        fail("seek refused: \(e.message) (\(e.name))", code: 2)
    }
    let o: SeekOutcome = done.locked {
        while result == nil { done.wait() }
        return result!
    }
    player.destroy()
    let a = o.accuracy
    if json {
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
        print(out)
    } else {
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
    exit(o.finished ? 0 : 1)

default:
    fail("unknown command", code: 2)
}
