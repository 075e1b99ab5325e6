/// The `report --svg` plot: three panels on one time axis (seconds), titled with the file name.
///
/// 1. keyframe intervals: each interval drawn over its own span (a step line), keyframes as dots,
///    so a constant GOP reads as a flat line and an irregular one as steps;
/// 2. the decode cost of an exact seek to every frame: packets from the keyframe it needs, in
///    decode order (the sawtooth an exact seek pays along the timeline);
/// 3. landing deltas (landed - requested) of the sampled seeks at default precision and at
///    keyframe:2, signed, around a zero line.
struct ReportPlot {
    var title: String
    var duration: Double
    var keys: [Double]                  // keyframe times, seconds, ascending
    var intervals: [Double]             // intervals[i] starts at keys[i]
    var costs: [(Double, Int)]          // (frame time, packets from its keyframe), ascending time
    var defaultDeltas: [(Double, Double)]
    var wideDeltas: [(Double, Double)]
    var frames: Int

    let width = 960.0
    let left = 84.0
    let right = 28.0
    let panelHeight = 140.0
    let tops = [76.0, 276.0, 476.0]

    var plotWidth: Double { width - left - right }
    func x(_ t: Double) -> Double { left + max(0, min(t, duration)) / max(duration, 1e-9) * plotWidth }

    func svg() -> String {
        let height = tops[2] + panelHeight + 120
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
        s += "viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"11\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(left)\" y=\"26\" font-size=\"18\" font-weight=\"bold\">\(xmlEscape(title))</text>\n"
        let median = quantile(intervals, 0.5)
        s += "<text x=\"\(left)\" y=\"46\" fill=\"#444\">seekability report: \(frames) frames, \(keys.count) keyframes, "
        s += "\(fmt(duration, 3)) s; keyframe interval median \(fmt(median, 3)) s, max \(fmt(intervals.max() ?? .nan, 3)) s</text>\n"

        // Panel 1: keyframe intervals.
        let maxI = niceCeiling(intervals.max() ?? 1)
        s += frame(panel: 0, label: "keyframe interval (s)", yMin: 0, yMax: maxI, unit: "")
        let y0 = { (v: Double) in self.tops[0] + self.panelHeight - v / maxI * self.panelHeight }
        var path = ""
        for (i, k) in keys.enumerated() where i < intervals.count {
            let end = i + 1 < keys.count ? keys[i + 1] : k + intervals[i]
            path += (path.isEmpty ? "M" : " L") + "\(fmt(x(k), 1)) \(fmt(y0(intervals[i]), 1)) L\(fmt(x(end), 1)) \(fmt(y0(intervals[i]), 1))"
        }
        if !path.isEmpty { s += "<path d=\"\(path)\" fill=\"none\" stroke=\"#2f62b8\" stroke-width=\"1.5\"/>\n" }
        if keys.count <= 600 {
            for (i, k) in keys.enumerated() where i < intervals.count {
                s += "<circle cx=\"\(fmt(x(k), 1))\" cy=\"\(fmt(y0(intervals[i]), 1))\" r=\"2.5\" fill=\"#2f62b8\"/>\n"
            }
        }

        // Panel 2: decode cost of an exact seek, per frame (bucketed to the pixel grid when dense).
        let maxC = niceCeiling(Double(costs.map(\.1).max() ?? 1))
        s += frame(panel: 1, label: "exact-seek cost (packets)", yMin: 0, yMax: maxC, unit: "")
        let y1 = { (v: Double) in self.tops[1] + self.panelHeight - v / maxC * self.panelHeight }
        var points: [(Double, Double)] = []
        let columns = Int(plotWidth)
        if costs.count > columns * 2 {
            // Keep each pixel column's minimum then maximum, so the sawtooth keeps its shape.
            var col = -1, lo = 0, hi = 0
            for (t, c) in costs {
                let k = Int((x(t) - left).rounded(.down))
                if k != col {
                    if col >= 0 { points.append((left + Double(col), Double(lo))); points.append((left + Double(col) + 0.5, Double(hi))) }
                    col = k; lo = c; hi = c
                } else { lo = min(lo, c); hi = max(hi, c) }
            }
            if col >= 0 { points.append((left + Double(col), Double(lo))); points.append((left + Double(col) + 0.5, Double(hi))) }
        } else {
            points = costs.map { (x($0.0), Double($0.1)) }
        }
        if !points.isEmpty {
            var area = "M\(fmt(points[0].0, 1)) \(fmt(y1(0), 1))"
            var line = ""
            for (px, v) in points {
                area += " L\(fmt(px, 1)) \(fmt(y1(v), 1))"
                line += (line.isEmpty ? "M" : " L") + "\(fmt(px, 1)) \(fmt(y1(v), 1))"
            }
            area += " L\(fmt(points[points.count - 1].0, 1)) \(fmt(y1(0), 1)) Z"
            s += "<path d=\"\(area)\" fill=\"#f3c58a\" stroke=\"none\"/>\n"
            s += "<path d=\"\(line)\" fill=\"none\" stroke=\"#c77414\" stroke-width=\"1\"/>\n"
        }

        // Panel 3: signed landing deltas.
        let maxD = niceCeiling(max((defaultDeltas + wideDeltas).map { abs($0.1) }.max() ?? 0, 1e-3))
        s += frame(panel: 2, label: "landing delta (s)", yMin: -maxD, yMax: maxD, unit: "")
        let y2 = { (v: Double) in self.tops[2] + self.panelHeight / 2 - v / maxD * self.panelHeight / 2 }
        s += "<line x1=\"\(left)\" y1=\"\(fmt(y2(0), 1))\" x2=\"\(width - right)\" y2=\"\(fmt(y2(0), 1))\" stroke=\"#888\"/>\n"
        for (t, d) in wideDeltas {
            s += "<rect x=\"\(fmt(x(t) - 2.5, 1))\" y=\"\(fmt(y2(d) - 2.5, 1))\" width=\"5\" height=\"5\" fill=\"none\" stroke=\"#2b9348\" stroke-width=\"1.2\"/>\n"
        }
        for (t, d) in defaultDeltas {
            s += "<circle cx=\"\(fmt(x(t), 1))\" cy=\"\(fmt(y2(d), 1))\" r=\"2.5\" fill=\"#d0384a\"/>\n"
        }
        s += "<text x=\"\(fmt(left + plotWidth / 2, 1))\" y=\"\(Int(tops[2] + panelHeight + 38))\" text-anchor=\"middle\">time (s)</text>\n"

        // Legend.
        var ly = tops[2] + panelHeight + 66
        var lx = left
        func entry(_ mark: (Double, Double) -> String, _ text: String) -> String {
            let w = 18 + Double(text.count) * 6.2 + 28
            if lx + w > width - right && lx > left { lx = left; ly += 20 }
            defer { lx += w }
            return mark(lx, ly) + "<text x=\"\(fmt(lx + 18, 1))\" y=\"\(fmt(ly + 4, 1))\">\(xmlEscape(text))</text>\n"
        }
        s += entry({ lx, ly in "<line x1=\"\(fmt(lx, 1))\" y1=\"\(ly)\" x2=\"\(fmt(lx + 14, 1))\" y2=\"\(ly)\" stroke=\"#2f62b8\" stroke-width=\"2\"/><circle cx=\"\(fmt(lx + 7, 1))\" cy=\"\(ly)\" r=\"2.5\" fill=\"#2f62b8\"/>" },
                   "keyframe interval (dot: keyframe)")
        s += entry({ lx, ly in "<rect x=\"\(fmt(lx, 1))\" y=\"\(ly - 5)\" width=\"14\" height=\"10\" fill=\"#f3c58a\" stroke=\"#c77414\"/>" },
                   "exact seek: packets to decode from the keyframe")
        s += entry({ lx, ly in "<circle cx=\"\(fmt(lx + 7, 1))\" cy=\"\(ly)\" r=\"3\" fill=\"#d0384a\"/>" }, "delta, default precision")
        s += entry({ lx, ly in "<rect x=\"\(fmt(lx + 4, 1))\" y=\"\(ly - 3)\" width=\"6\" height=\"6\" fill=\"none\" stroke=\"#2b9348\" stroke-width=\"1.2\"/>" },
                   "delta, keyframe:2")
        s += "</svg>\n"
        return s
    }

    /// A panel's box, its y axis (label, ticks) and the shared time ticks under it.
    func frame(panel: Int, label: String, yMin: Double, yMax: Double, unit: String) -> String {
        let top = tops[panel], bottom = top + panelHeight
        var s = "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(fmt(plotWidth, 1))\" height=\"\(panelHeight)\" fill=\"#fafafa\" stroke=\"#333\"/>\n"
        s += "<text transform=\"translate(\(Int(left - 56)) \(fmt(top + panelHeight / 2, 1))) rotate(-90)\" text-anchor=\"middle\">\(xmlEscape(label))</text>\n"
        for v in niceTicks(yMin, yMax) {
            let y = bottom - (v - yMin) / (yMax - yMin) * panelHeight
            s += "<line x1=\"\(left - 4)\" y1=\"\(fmt(y, 1))\" x2=\"\(left)\" y2=\"\(fmt(y, 1))\" stroke=\"#333\"/>"
            s += "<line x1=\"\(left)\" y1=\"\(fmt(y, 1))\" x2=\"\(width - right)\" y2=\"\(fmt(y, 1))\" stroke=\"#e4e4e4\"/>"
            s += "<text x=\"\(left - 7)\" y=\"\(fmt(y + 4, 1))\" text-anchor=\"end\">\(tickText(v))\(unit)</text>\n"
        }
        for t in niceTicks(0, duration) {
            let px = x(t)
            s += "<line x1=\"\(fmt(px, 1))\" y1=\"\(bottom)\" x2=\"\(fmt(px, 1))\" y2=\"\(bottom + 4)\" stroke=\"#333\"/>"
            s += "<text x=\"\(fmt(px, 1))\" y=\"\(bottom + 16)\" text-anchor=\"middle\">\(tickText(t))</text>\n"
        }
        return s
    }
}

/// Ticks at 1, 2 or 5 x 10^k covering [lo, hi], about six of them.
func niceTicks(_ lo: Double, _ hi: Double) -> [Double] {
    guard hi > lo, lo.isFinite, hi.isFinite else { return [lo] }
    let step = niceStep((hi - lo) / 6)
    var out: [Double] = []
    var v = (lo / step).rounded(.up) * step
    while v <= hi + step * 1e-9 && out.count < 50 {
        out.append(abs(v) < step * 1e-9 ? 0 : v)
        v += step
    }
    return out
}

func niceStep(_ raw: Double) -> Double {
    guard raw > 0, raw.isFinite else { return 1 }
    var p = 1.0
    while p * 10 <= raw { p *= 10 }
    while p > raw { p /= 10 }
    for m in [1.0, 2.0, 5.0, 10.0] where m * p >= raw { return m * p }
    return 10 * p
}

/// The smallest "nice" value (1, 2 or 5 x 10^k, or a multiple of the tick step) at or above `v`.
func niceCeiling(_ v: Double) -> Double {
    guard v > 0, v.isFinite else { return 1 }
    let step = niceStep(v / 5)
    return max(step, (v / step).rounded(.up) * step)
}

func tickText(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e12 { return "\(Int64(v))" }
    var places = 1
    while places < 6 && abs(v * pow10(places) - (v * pow10(places)).rounded()) > 1e-6 { places += 1 }
    return fmt(v, places)
}

func pow10(_ n: Int) -> Double { var p = 1.0; for _ in 0..<n { p *= 10 }; return p }

func xmlEscape(_ s: String) -> String {
    var out = ""
    for c in s {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.append(c)
        }
    }
    return out
}
