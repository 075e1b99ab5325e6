#if canImport(Glibc)
// @preconcurrency: only for the `stdin`/`stderr` shadows below (libc's are mutable globals).
@preconcurrency import Glibc
#endif
import FastPixSeekCore
import FastPixSeekEngine

/// libc's `stdin` and `stderr`, shadowed for the whole tool: Glibc exposes them as mutable
/// globals, which Swift 6 refuses to read. nonisolated(unsafe): libc sets them before main
/// and nothing in the tool reassigns them; each FILE stream locks itself on every call.
nonisolated(unsafe) let stderr: UnsafeMutablePointer<FILE> = Glibc.stderr
nonisolated(unsafe) let stdin: UnsafeMutablePointer<FILE> = Glibc.stdin

/// Exit codes, documented in --help and docs/fpx-seek.1.
enum Exit {
    static let ok: Int32 = 0
    static let failure: Int32 = 1   // open, seek or I/O failure
    static let usage: Int32 = 2     // bad command line
    static let refused: Int32 = 3   // the request was refused with a typed reason (a step, a date seek)
}

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
    var digits = Substring(s)
    var negative = false
    if digits.hasPrefix("-") { negative = true; digits = digits.dropFirst() } else if digits.hasPrefix("+") { digits = digits.dropFirst() }
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, !digits.isEmpty else { return nil }
    let whole = parts[0].isEmpty ? "0" : String(parts[0])
    let frac = parts.count == 2 ? String(parts[1]) : ""
    guard frac.count <= 9, whole.allSatisfy({ $0.isASCII && $0.isNumber }), frac.allSatisfy({ $0.isASCII && $0.isNumber }),
          let w = Int64(whole), let f = Int64(frac.isEmpty ? "0" : frac) else { return nil }
    var scale: Int64 = 1
    for _ in 0..<frac.count { scale *= 10 }
    let (v, o) = w.multipliedReportingOverflow(by: scale)
    guard !o else { return nil }
    let total = v + f
    return MediaTime(value: negative ? -total : total, timescale: Int32(scale))
}

/// The precision names of the API (`exact`, `nearest_keyframe`, `default`) and the short
/// form `keyframe`: `nearest_keyframe:TOL` / `keyframe:TOL` with TOL in seconds (0.5) or a
/// rational (1/10); a bare `nearest_keyframe` / `keyframe` takes the nearest keyframe at any
/// distance (the largest tolerance the library accepts).
func parsePrecision(_ s: String) -> SeekPrecision? {
    switch s {
    case "exact": return .exact
    case "default": return .default
    case "nearest_keyframe", "keyframe":
        return .nearestKeyframe(tolerance: MediaTime(value: SeekPrecision.maxToleranceSeconds, timescale: 1))
    default:
        for prefix in ["nearest_keyframe:", "keyframe:"] where s.hasPrefix(prefix) {
            guard let t = parseTime(String(s.dropFirst(prefix.count))), SeekPrecision.validate(tolerance: t) else { return nil }
            return .nearestKeyframe(tolerance: t)
        }
        return nil
    }
}

/// "1 packet", "2 packets".
func plural(_ n: some BinaryInteger, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

/// The precision as the command line spells it: exact, at_or_after, keyframe:1/10.
func precisionText(_ p: SeekPrecision, _ c: FrameConvention = .onScreen) -> String {
    switch p {
    case .exact: return c == .atOrAfter ? "at_or_after" : "exact"
    case .nearestKeyframe(let t):
        if MediaTime.compare(t, MediaTime(value: SeekPrecision.maxToleranceSeconds, timescale: 1)) == 0 { return "nearest_keyframe (any distance)" }
        return "keyframe:\(rationalText(t))"
    }
}

/// A numeric time as a reduced exact rational string ("1/10", "5/1", "-3/1"); "invalid" otherwise.
func rationalText(_ t: MediaTime) -> String {
    guard let r = t.rational else { return "\(t)" }
    return r.description
}

/// `{"kind":"exact"|"at_or_after"|"nearest_keyframe","tolerance":"1/10","tolerance_seconds":0.1}`
func precisionJSON(_ p: SeekPrecision, _ c: FrameConvention = .onScreen) -> String {
    let kind: String
    switch p {
    case .exact: kind = c == .atOrAfter ? "at_or_after" : "exact"
    case .nearestKeyframe: kind = "nearest_keyframe"
    }
    return "{\"kind\":\"\(kind)\",\"tolerance\":\(jsonString(rationalText(p.tolerance))),\"tolerance_seconds\":\(jsonDouble(p.tolerance.seconds))}"
}

/// JSON names of the library's enums (the C enum names, lower case, without the prefix).
func finishReasonName(_ r: FinishReason) -> String {
    switch r {
    case .completed: return "completed"
    case .cancelled: return "cancelled"
    case .superseded: return "superseded"
    case .noSeekManager: return "no_seek_manager"
    case .failed: return "failed"
    }
}

func resolutionName(_ r: LandingResolution) -> String {
    switch r {
    case .none: return "none"
    case .coveringFrame: return "covering_frame"
    case .keyframe: return "keyframe"
    case .fallbackCoveringFrame: return "fallback_covering_frame"
    }
}

func clampName(_ c: SeekClamp) -> String {
    switch c {
    case .none: return "none"
    case .toSeekableStart: return "to_seekable_start"
    case .toSeekableEnd: return "to_seekable_end"
    case .seekableRangeUnknown: return "seekable_range_unknown"
    }
}

func stepReasonName(_ r: FrameStepUnavailableReason) -> String {
    switch r {
    case .noCurrentItem: return "no_current_item"
    case .itemNotReady: return "item_not_ready"
    case .noVideoTrack: return "no_video_track"
    case .atLiveEdge: return "at_live_edge"
    case .cannotStepInDirection: return "cannot_step_in_direction"
    }
}

func dateReasonName(_ code: Int32) -> String {
    switch code {
    case 1: return "no_current_item"
    case 2: return "not_date_addressable"
    case 3: return "outside_window"
    default: return "unknown"
    }
}

extension String {
    func leftPad(_ n: Int, _ c: Character = "0") -> String { String(repeating: c, count: max(0, n - count)) + self }
    func rightPad(_ n: Int) -> String { self + String(repeating: " ", count: max(0, n - count)) }
}

func jsonTime(_ t: MediaTime) -> String {
    guard t.isNumeric else { return "null" }
    return "{\"value\":\(t.value),\"timescale\":\(t.timescale),\"rational\":\(jsonString(rationalText(t))),\"seconds\":\(jsonDouble(t.seconds))}"
}

func fmt(_ d: Double, _ places: Int = 6) -> String {
    guard d.isFinite else { return d.isNaN ? "n/a" : (d > 0 ? "+inf" : "-inf") }
    var p = 1.0
    for _ in 0..<places { p *= 10 }
    let r = (abs(d) * p).rounded()
    let whole = Int64(r / p), frac = Int64(r.truncatingRemainder(dividingBy: p))
    return (d < 0 && r != 0 ? "-" : "") + "\(whole)" + (places > 0 ? "." + String(frac).leftPad(places) : "")
}

/// Options shared by the subcommands.
struct Options {
    var json = false
    var precision = SeekPrecision.default
    /// `--precision at_or_after` is `.exact` with `.atOrAfter` (seek.h, "Conventions").
    var convention = FrameConvention.onScreen
    /// `--reference-stream N`: the stream index (as ffprobe counts) seeks resolve on; nil automatic.
    var referenceStream: Int32?
    /// `--timeline stream`: TIMEs given and printed in the reference stream's own pts seconds.
    var streamTimeline = false
    var timeoutMS: UInt64 = 10_000
    var positional: [String] = []
    var flags: [String: String] = [:]
    var switches: Set<String> = []
}

/// Parses `args` with the options a subcommand accepts: `valued` take a value.
/// `atOrAfter`: the subcommand takes `--precision at_or_after`.
func parseOptions(_ args: [String], valued: Set<String>, switches allowed: Set<String>, usage: String,
                  atOrAfter: Bool = false) -> Options {
    var o = Options()
    var i = 0
    while i < args.count {
        let a = args[i]
        if a == "-h" || a == "--help" { print(usage); exit(Exit.ok) }
        if a == "--json" { o.json = true; i += 1; continue }
        if a == "--" {
            // Accepted before a negative TIME (`seek f -- -3`); options still parse after it
            // (`seek f -- -3 --json`): no option is a negative number, so `-3` is positional anyway.
            i += 1
            continue
        }
        if a.hasPrefix("--") && a.count > 2 {
            if valued.contains(a) {
                i += 1
                guard i < args.count else { fail("\(a) needs a value (see --help)", code: Exit.usage) }
                let v = args[i]
                switch a {
                case "--precision":
                    if v == "at_or_after" {
                        guard atOrAfter else { fail("--precision at_or_after is not available here (see --help)", code: Exit.usage) }
                        o.precision = .exact
                        o.convention = .atOrAfter
                        break
                    }
                    guard let p = parsePrecision(v) else {
                        fail("--precision needs exact, \(atOrAfter ? "at_or_after, " : "")default, nearest_keyframe or nearest_keyframe:TOL (short: keyframe:TOL) with 0 <= TOL <= \(SeekPrecision.maxToleranceSeconds) s", code: Exit.usage)
                    }
                    o.precision = p
                    o.convention = .onScreen
                case "--reference-stream":
                    guard let n = Int32(v), n >= 0 else {
                        fail("--reference-stream needs a stream index (0, 1, ... as ffprobe and `probe` count them)", code: Exit.usage)
                    }
                    o.referenceStream = n
                case "--timeline":
                    guard v == "item" || v == "stream" else { fail("--timeline needs item or stream", code: Exit.usage) }
                    o.streamTimeline = v == "stream"
                case "--timeout":
                    guard let t = UInt64(v) else { fail("--timeout needs milliseconds", code: Exit.usage) }
                    o.timeoutMS = t
                default: o.flags[a] = v
                }
            } else if allowed.contains(a) {
                o.switches.insert(a)
            } else {
                fail("unknown option \(a) (see --help)", code: Exit.usage)
            }
        } else {
            o.positional.append(a)
        }
        i += 1
    }
    return o
}

/// A one-line reason a local path cannot be a media item, checked before opening so the
/// error names the real problem ("is a directory") rather than the demuxer's guess.
func localPathProblem(_ url: String) -> String? {
    if url.contains("://") { return nil }
    let path = url.hasPrefix("file:") ? String(url.dropFirst(5)) : url
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }  // the library names missing files itself
    switch st.st_mode & S_IFMT {
    case S_IFDIR: return "is a directory, not a media file"
    case S_IFREG: return nil
    default: return nil  // FIFOs and devices: the library refuses them with its own error
    }
}

/// Opens a player on `url` and waits for it; exits with a clear line on failure.
func openPlayer(_ url: String, timeoutMS: UInt64, options o: Options? = nil,
                indexMode: IndexMode = .keyframes) -> (Player, PlayerEngine) {
    if let problem = localPathProblem(url) { fail("cannot open \(url): \(problem)", code: Exit.failure) }
    var config = Player.Config(delivery: .thread, ioTimeoutNanoseconds: timeoutMS * 1_000_000, indexMode: indexMode)
    if let v = o?.flags["--variant"] {
        // HLS: the variant to play, 0-based as `probe` lists them (fpx_player_config.hls_variant).
        guard let i = Int(v), i >= 0 else { fail("--variant needs a variant index (0, 1, ...; see probe)", code: Exit.usage) }
        config.hlsVariant.index = i
    }
    if let v = o?.flags["--audio"] {
        // HLS: the audio rendition, 0-based as `probe` lists them, -1 none (fpx_player_config.hls_audio).
        guard let i = Int(v), i >= -1 else { fail("--audio needs a rendition index (0, 1, ...; see probe) or -1", code: Exit.usage) }
        config.hlsAudio = HLSRenditions.Choice(index: i >= 0 ? i : nil, off: i == -1)
    }
    config.referenceStream = o?.referenceStream
    config.tls = tlsPolicy
    // The library says why a chosen reference stream is refused in its log (seek.h,
    // fpx_player_config.reference_stream): keep its error lines for our one-line error.
    let refusal = LogCapture()
    if config.referenceStream != nil && !verboseLog {
        Log.setSink(level: Log.error) { _, line in refusal.append(line) }
    }
    guard let player = Player(config: config, factory: makeFFmpegEngine) else {
        fail("cannot create a player", code: Exit.failure)
    }
    do { try player.open(url) } catch { fail("cannot open \(url)", code: Exit.failure) }
    let status = player.waitItem(timeoutNanoseconds: nil)
    if config.referenceStream != nil && !verboseLog { Log.setSink(level: Log.quiet, nil) }
    guard status.status == .ready, let engine = try? player.readyEngine() else {
        let e = status.error ?? .internal
        if let n = config.referenceStream, e == .invalidArgument || e == .unsupported {
            // A usage error: the option names no video stream of this item (or the item is HLS).
            // The log line names the C field too: "reference_stream: stream index 1 (fpx_player_config...) is ...".
            let why = refusal.lines.first { $0.contains("reference_stream") }.map { line -> String in
                var t = String(line.drop(while: { $0 != ":" }).dropFirst(2))
                if let open = t.firstRange(of: " (fpx_player_config"), let close = t[open.upperBound...].firstIndex(of: ")") {
                    t.removeSubrange(open.lowerBound...close)
                }
                return t
            }
            fail("--reference-stream \(n): " + (why ?? "not a video stream of \(url) (\(e.name))"), code: Exit.usage)
        }
        fail("cannot open \(url): \(e.message) (\(e.name))", code: Exit.failure)
    }
    let hls = engine.hlsControls?.hlsListing != nil || engine.itemInfo.startPTS != nil
        || engine.itemInfo.formatName.map({ String(cString: $0) == "hls" }) == true
    if o?.streamTimeline == true && hls {
        fail("--timeline stream is for files; an HLS item's times are on its item timeline", code: Exit.usage)
    }
    return (player, engine)
}

/// Set by main for --verbose (the library's log lines then go to stderr).
nonisolated(unsafe) var verboseLog = false
/// Set by main for --tls-ca-file and --tls-insecure (fpx_player_config.tls_*).
nonisolated(unsafe) var tlsPolicy = TLSPolicy.default

// @unchecked Sendable: `lines` is guarded by `m`.
final class LogCapture: @unchecked Sendable {
    private let m = Monitor()
    private var kept: [String] = []
    func append(_ s: String) { m.locked { kept.append(s) } }
    var lines: [String] { m.locked { kept } }
}

/// The reference stream's own clock (`--timeline stream`): its pts in seconds, as ffprobe's
/// pts_time, PyAV's frame.time and frame-index APIs count, against the item timeline
/// (0 = the container's start). seek.h, "Conventions": item time = s - start_pts x tb.
struct StreamClock {
    let num: Int32, den: Int32, origin: Int64

    init(_ info: ItemInfo) {
        num = info.timeline.timeBaseNum; den = info.timeline.timeBaseDen
        origin = info.startPTS ?? info.timeline.originTicks
    }

    private var originTime: MediaTime {
        MediaTime(exactly: Rational(Int128(origin) * Int128(num), Int128(den)), preferredTimescales: [den])
    }
    /// A time in stream pts seconds as item time (exact).
    func itemTime(_ s: MediaTime) -> MediaTime { MediaTime.subtract(s, originTime) }
    /// An item time in stream pts seconds (exact).
    func streamTime(_ t: MediaTime) -> MediaTime {
        guard t.isNumeric else { return t }
        return MediaTime.subtract(t, MediaTime.subtract(.zero, originTime))
    }
    /// A stream pts in seconds (exact): ffprobe's pts_time.
    func seconds(ofPTS pts: Int64) -> MediaTime {
        MediaTime(exactly: Rational(Int128(pts) * Int128(num), Int128(den)), preferredTimescales: [den])
    }
}

/// Waits for the background index of IndexMode.full (seek.h, FPX_INDEX_FULL) to complete,
/// at most `timeoutMS`; returns at once when it does not start (HLS items, a failed index:
/// no frame indexed within 500 ms). True when it completed.
@discardableResult
func waitForIndex(_ player: Player, timeoutMS: UInt64) -> Bool {
    let start = monotonicSeconds()
    while true {
        let s = player.statistics
        if s.indexComplete { return true }
        let waited = monotonicSeconds() - start
        if waited * 1000 > Double(timeoutMS) || (s.indexFrames == 0 && waited > 0.5) { return false }
        usleep(2000)
    }
}

/// A seekable range ending well before the container's duration (SeekableRangeCheck, the
/// rule of fpx_item_info.seekable_range_truncated): the file is truncated or damaged.
/// Returns the one-line warning, or nil.
func truncationWarning(duration: MediaTime, range: (start: MediaTime, end: MediaTime)?, endsAtCut: Bool) -> String? {
    guard let r = range,
          SeekableRangeCheck.isTruncated(duration: duration, seekableEnd: r.end, endsAtCut: endsAtCut) else { return nil }
    if endsAtCut {
        return "warning: the file's data ends inside a packet: the seekable range ends at \(fmt(r.end.seconds, 3)) s, "
            + "its last frame read whole (container duration \(fmt(duration.seconds, 3)) s): the file is truncated or damaged"
    }
    let short = duration.seconds - r.end.seconds
    return "warning: the seekable range ends at \(fmt(r.end.seconds, 3)) s, \(fmt(short, 3)) s before the container's "
        + "duration (\(fmt(duration.seconds, 3)) s): the file is truncated or damaged"
}

/// Seeks and waits for the outcome.
func seekAndWait(_ player: Player, _ target: MediaTime, _ precision: SeekPrecision,
                 _ convention: FrameConvention = .onScreen) throws -> SeekOutcome {
    let done = Monitor()
    // Guarded by `done`: written by the callback, read by this thread, both holding it.
    nonisolated(unsafe) var result: SeekOutcome?
    let st = try SeekTarget(time: target, precision: precision, convention: convention)
    _ = try player.seek(st) { o in done.locked { result = o; done.broadcast() } }
    return done.locked {
        while result == nil { done.wait() }
        return result!
    }
}

/// A progress bar on stderr, only when stderr is a terminal.
struct Progress {
    let total: Int
    let label: String
    let enabled = isatty(2) != 0
    func update(_ n: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = min(width, n * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        fputs("\r\(label) [\(bar)] \(n)/\(total)", stderr)
    }
    func finish() { if enabled { fputs("\r" + String(repeating: " ", count: label.count + 50) + "\r", stderr) } }
}
