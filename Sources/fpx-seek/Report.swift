#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let reportUsage = """
usage: fpx-seek report FILE|URL [--targets N] [--seed S] [--json] [--svg FILE] [--reference-stream N]

A seekability report of an encode:
  - keyframe interval statistics of the reference stream;
  - for each precision (exact, default, keyframe:0.5, keyframe:2), over N
    targets (default 100, uniform, reproducible with --seed): the hit rate
    (exact: the landed frame covers the target; keyframe:TOL: the landing is
    within TOL), the distribution of landing deltas, and the cost: packets to
    decode from the keyframe to the landed frame, and the same without the
    pre-roll packets a host may skip (FPX_PACKET_FLAG_DISPOSABLE; here read
    from the H.264/HEVC NAL headers only, not from the container);
  - the worst spots: the targets whose exact landing costs the most.
--svg FILE writes a plot along the timeline, titled with the file name: the
keyframe intervals, the decode cost of an exact seek to every frame (packets
from its keyframe), and the landing deltas, with axes in seconds and a legend.
--json follows fpx-seek.schema.json ("report"). A progress bar goes to
stderr when it is a terminal.
"""

struct DemuxedFrame {
    var pts: Int64; var dts: Int64?; var key: Bool; var decodeIndex: Int
    /// No later frame references it (NALReference: H.264/HEVC NAL headers).
    var disposable = false
}

struct PrecisionRow {
    var name: String
    var precision: SeekPrecision = .exact
    var deltas: [Double] = []      // seconds, signed
    var within = 0
    var covers = 0
    var landed = 0
    var costs: [Int] = []
    var costsSkipping: [Int] = []
}

func quantile(_ xs: [Double], _ q: Double) -> Double {
    guard !xs.isEmpty else { return .nan }
    let s = xs.sorted()
    let i = min(s.count - 1, max(0, Int((q * Double(s.count - 1)).rounded())))
    return s[i]
}

func runReport(_ args: [String]) {
    let o = parseOptions(args, valued: ["--targets", "--seed", "--svg", "--timeout", "--reference-stream"], switches: [], usage: reportUsage)
    guard o.positional.count == 1 else { fail("report needs exactly one FILE|URL (see --help)", code: Exit.usage) }
    guard let n = Int(o.flags["--targets"] ?? "100"), n >= 1, n <= 1_000_000 else {
        fail("--targets needs an integer in 1...1000000", code: Exit.usage)
    }
    guard let seed = UInt64(o.flags["--seed"] ?? "1") else { fail("--seed needs an unsigned integer", code: Exit.usage) }
    let url = o.positional[0]
    let (player, engine) = openPlayer(url, timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    let info = engine.itemInfo
    let tl = info.timeline
    let tb = Double(tl.timeBaseNum) / Double(tl.timeBaseDen)

    // 1. The frame grid from a full demux of the reference stream.
    var frames: [DemuxedFrame] = []
    var decodeIndex = 0
    let approxTotal = max(1, Int(info.duration.seconds.isFinite ? info.duration.seconds * 30 : 1000))
    let demuxBar = Progress(total: approxTotal, label: "demux")
    let nal = engine.videoPacketFormat(info.referenceStream)?.nal
    while let p = try? player.readPacket() {
        guard p.streamIndex == info.referenceStream else { continue }
        defer { decodeIndex += 1 }
        if decodeIndex % 256 == 0 { demuxBar.update(min(decodeIndex, approxTotal)) }
        guard p.flags & PacketView.flagDiscard == 0, let pts = p.pts ?? p.dts else { continue }
        var f = DemuxedFrame(pts: pts, dts: p.dts, key: p.flags & PacketView.flagKey != 0, decodeIndex: decodeIndex)
        if let n = nal, let d = p.data, p.pts != nil {
            f.disposable = NALReference.verdict(UnsafeRawBufferPointer(start: d, count: p.size), format: n) == .disposable
        }
        frames.append(f)
    }
    demuxBar.finish()
    guard !frames.isEmpty else { fail("\(url): no frames in the reference stream", code: Exit.failure) }
    let byPTS = frames.sorted { $0.pts < $1.pts }
    let keys = byPTS.filter(\.key)
    var intervals: [Double] = []
    for i in 1..<max(1, keys.count) { intervals.append(Double(keys[i].pts - keys[i - 1].pts) * tb) }
    let lastPTS = byPTS[byPTS.count - 1].pts
    if let k = keys.last { intervals.append(Double(lastPTS - k.pts) * tb) }
    let indexByPTS = Dictionary(byPTS.map { ($0.pts, $0) }, uniquingKeysWith: { a, _ in a })

    /// Packets to decode from the keyframe the frame needs, up to it (in decode order).
    func cost(of f: DemuxedFrame) -> Int? {
        // The last keyframe at or before the frame's pts (binary search), then back to one
        // that also precedes it in decode order.
        var lo = 0, hi = keys.count
        while lo < hi { let mid = (lo + hi) / 2; if keys[mid].pts <= f.pts { lo = mid + 1 } else { hi = mid } }
        var i = lo - 1
        while i >= 0 && keys[i].decodeIndex > f.decodeIndex { i -= 1 }
        guard i >= 0 else { return nil }
        return f.decodeIndex - keys[i].decodeIndex + 1
    }
    func cost(of pts: Int64) -> Int? { indexByPTS[pts].flatMap { cost(of: $0) } }
    /// The same, less the disposable packets among them: those between the keyframe and the
    /// frame (decode order) that present before it and no later frame references.
    func costSkipping(of f: DemuxedFrame) -> Int? {
        guard let c = cost(of: f) else { return nil }
        let first = f.decodeIndex - c + 1
        // `frames` is in decode order: the first at or after the keyframe, by binary search.
        var lo = 0, hi = frames.count
        while lo < hi { let mid = (lo + hi) / 2; if frames[mid].decodeIndex < first { lo = mid + 1 } else { hi = mid } }
        var skipped = 0
        var i = lo
        while i < frames.count && frames[i].decodeIndex < f.decodeIndex {
            if frames[i].disposable && frames[i].pts < f.pts { skipped += 1 }
            i += 1
        }
        return c - skipped
    }

    // 2. Seeks at N targets for each precision.
    try? player.setupSeekManager()
    let duration = Double(lastPTS - tl.originTicks) * tb
    var rng = SplitMix64(state: seed)
    let targets: [MediaTime] = (0..<n).map { _ in
        MediaTime(value: Int64(Double.random(in: 0...max(0, duration), using: &rng) * 1_000_000), timescale: 1_000_000)
    }
    let precisions: [(String, SeekPrecision)] = [
        ("exact", .exact), ("default", .default),
        ("keyframe:0.5", .nearestKeyframe(tolerance: MediaTime(value: 1, timescale: 2))),
        ("keyframe:2", .nearestKeyframe(tolerance: MediaTime(value: 2, timescale: 1))),
    ]
    var rows: [PrecisionRow] = []
    var worst: [(target: MediaTime, landed: MediaTime, cost: Int)] = []
    var defaultDeltas: [(Double, Double)] = []
    var wideDeltas: [(Double, Double)] = []
    let bar = Progress(total: n * precisions.count, label: "seeks")
    var done = 0
    for (name, prec) in precisions {
        var row = PrecisionRow(name: name, precision: prec)
        for t in targets {
            done += 1
            if done % 8 == 0 { bar.update(done) }
            guard let out = try? seekAndWait(player, t, prec), out.finished, let pts = out.landedStreamPTS else { continue }
            row.landed += 1
            row.deltas.append(out.accuracy.deltaSeconds)
            if out.accuracy.withinRequestedTolerance { row.within += 1 }
            if out.frameCoversTarget { row.covers += 1 }
            if let c = cost(of: pts) {
                row.costs.append(c)
                if let f = indexByPTS[pts], let s = costSkipping(of: f) { row.costsSkipping.append(s) }
                if name == "exact" { worst.append((t, out.accuracy.landedMediaTime, c)) }
            }
            if name == "default" { defaultDeltas.append((t.seconds, out.accuracy.deltaSeconds)) }
            if name == "keyframe:2" { wideDeltas.append((t.seconds, out.accuracy.deltaSeconds)) }
        }
        rows.append(row)
    }
    bar.finish()
    worst.sort { $0.cost > $1.cost }
    let worstFive = Array(worst.prefix(5))

    if let svg = o.flags["--svg"] {
        let costs: [(Double, Int)] = byPTS.compactMap { f in cost(of: f).map { (Double(f.pts - tl.originTicks) * tb, $0) } }
        let title = url.split(separator: "/").last.map(String.init) ?? url
        let plot = ReportPlot(title: title, duration: duration, keys: keys.map { Double($0.pts - tl.originTicks) * tb },
                              intervals: intervals, costs: costs, defaultDeltas: defaultDeltas, wideDeltas: wideDeltas,
                              frames: frames.count)
        guard let f = fopen(svg, "w") else { fail("cannot write \(svg)", code: Exit.failure) }
        fputs(plot.svg(), f)
        fclose(f)
    }

    if o.json {
        func stats(_ xs: [Double]) -> String {
            "{\"min\":\(jsonDouble(xs.min() ?? .nan)),\"median\":\(jsonDouble(quantile(xs, 0.5))),\"p95\":\(jsonDouble(quantile(xs, 0.95))),\"max\":\(jsonDouble(xs.max() ?? .nan))}"
        }
        var out = "{\"url\":\(jsonString(url)),\"frames\":\(frames.count),\"keyframes\":\(keys.count),"
        out += "\"duration_seconds\":\(jsonDouble(duration)),\"targets\":\(n),\"seed\":\(seed),"
        out += "\"keyframe_interval_seconds\":\(stats(intervals)),\"precisions\":["
        out += rows.map { r in
            "{\"label\":\(jsonString(r.name)),\"precision\":\(precisionJSON(r.precision)),\"landed\":\(r.landed),\"within_tolerance\":\(r.within),"
                + "\"frame_covers_target\":\(r.covers),\"hit_measure\":\(jsonString(r.name == "exact" ? "frame_covers_target" : "within_tolerance")),"
                + "\"hits\":\(r.name == "exact" ? r.covers : r.within),\"hit_rate\":\(jsonDouble(r.landed > 0 ? Double(r.name == "exact" ? r.covers : r.within) / Double(r.landed) : .nan)),"
                + "\"within_rate\":\(jsonDouble(r.landed > 0 ? Double(r.within) / Double(r.landed) : .nan)),"
                + "\"abs_delta_seconds\":\(stats(r.deltas.map { abs($0) })),"
                + "\"cost_packets\":\(stats(r.costs.map(Double.init))),"
                + "\"cost_packets_without_disposable\":\(stats(r.costsSkipping.map(Double.init)))}"
        }.joined(separator: ",")
        out += "],\"worst_spots\":["
        out += worstFive.map { "{\"target\":\(jsonTime($0.target)),\"landed\":\(jsonTime($0.landed)),\"cost_packets\":\($0.cost)}" }.joined(separator: ",")
        out += "]}"
        print(out)
        return
    }
    print("\(url)")
    print("  frames \(frames.count), keyframes \(keys.count), duration \(fmt(duration, 3)) s")
    print("  keyframe interval (s): min \(fmt(intervals.min() ?? .nan, 3))  median \(fmt(quantile(intervals, 0.5), 3))  p95 \(fmt(quantile(intervals, 0.95), 3))  max \(fmt(intervals.max() ?? .nan, 3))")
    print("")
    print("  " + "precision".rightPad(14) + "hits".rightPad(10) + "|delta| median".rightPad(16) + "|delta| p95".rightPad(14) + "|delta| max".rightPad(14) + "cost median".rightPad(13) + "cost p95")
    for r in rows {
        let abs = r.deltas.map { Swift.abs($0) }
        let hits = r.name == "exact" ? r.covers : r.within
        let rate = r.landed > 0 ? "\(fmt(100 * Double(hits) / Double(r.landed), 1))%" : "n/a"
        print("  " + r.name.rightPad(14) + rate.rightPad(10) + (fmt(quantile(abs, 0.5), 4) + " s").rightPad(16)
              + (fmt(quantile(abs, 0.95), 4) + " s").rightPad(14) + (fmt(abs.max() ?? .nan, 4) + " s").rightPad(14)
              + "\(Int(quantile(r.costs.map(Double.init), 0.5)))".rightPad(13) + "\(Int(quantile(r.costs.map(Double.init), 0.95)))")
    }
    if let e = rows.first(where: { $0.name == "exact" }) {
        let s = e.costsSkipping.map(Double.init)
        if !s.isEmpty {
            print("  exact, disposable packets skipped (NAL headers): cost median \(Int(quantile(s, 0.5))), p95 \(Int(quantile(s, 0.95)))")
        }
    }
    print("")
    print("  worst spots (exact landings that decode the most packets):")
    for w in worstFive {
        print("    target \(fmt(w.target.seconds, 3)) s -> frame \(fmt(w.landed.seconds, 3)) s: \(w.cost) packets from its keyframe")
    }
    print("")
    print("  `hits`: for exact, landings whose frame covers the target; for keyframe:TOL (default is")
    print("  keyframe:1/10), landings within TOL of the target. Both are judged in exact rational time.")
}

