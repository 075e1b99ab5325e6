/// A representation's segments as an ended HLS media playlist (`HLSMediaPlaylist`), the
/// model the segment path plays: each segment a URL (and byte range), its duration on the
/// representation's timescale, its initialization as the EXT-X-MAP. From a SegmentTemplate
/// ($Number$ or $Time$, with or without a SegmentTimeline), a SegmentList, a SegmentBase
/// (its sidx, fetched by the engine) or a lone BaseURL (one segment); over several Periods,
/// each a discontinuity domain. Bounded by the
/// playlist caps (`HLSPlaylist.Limits`). Pure; tested in DASHManifestTests.
public enum DASHSegments {
    /// What a representation needs from the network before its segments are known: the
    /// byte range of its sidx (SegmentBase), at its BaseURL.
    public static func indexRange(_ r: DASHManifest.Representation) throws -> HLSByteRange? {
        guard let a = r.addressing, a.name == "SegmentBase" else { return nil }
        guard let v = a[attribute: "indexRange"] else {
            throw DASHError.unsupported("SegmentBase without @indexRange (a self-indexed file)")
        }
        guard let range = DASHValues.byteRange(v) else { throw bad(a, "@indexRange is not first-last") }
        return range
    }

    /// The representation's media playlist (one Period; tests and single-Period callers).
    /// `sidx`: the bytes of its `indexRange` (SegmentBase).
    public static func playlist(_ r: DASHManifest.Representation, manifest m: DASHManifest,
                                sidx: UnsafeBufferPointer<UInt8>? = nil,
                                limits: HLSPlaylist.Limits = HLSPlaylist.Limits()) throws -> HLSMediaPlaylist {
        var index: DASHSidx.Index? = nil
        if let range = try indexRange(r) {
            guard let sidx else { throw bad(r.addressing!, "the index was not read") }
            index = try DASHSidx.parse(sidx, offset: range.offset, maxReferences: limits.maxSegments)
        }
        return try playlist([r], url: m.url, indexes: [index], limits: limits)
    }

    /// The media playlist of a representation over every Period (`parts`, in order, from
    /// `DASHManifest.representationInEveryPeriod`): each Period a discontinuity domain (its
    /// first segment marked EXT-X-DISCONTINUITY), the durations on one timescale (the least
    /// common multiple of the parts'). `indexes`: each part's sidx (SegmentBase), else nil.
    /// `live`: a dynamic MPD's clock (the playlist is then live: no end, each Period's first
    /// segment dated, the live edge `suggestedPresentationDelay` before the newest end, reloads
    /// every `minimumUpdatePeriod`); its representations use a SegmentTemplate or a
    /// SegmentList. `nowMS`: the MPD's wall clock (Unix ms) when the list is made: only the
    /// segments in the window (`DASHLive`: available, not older than timeShiftBufferDepth)
    /// are listed, and a number-based SegmentTemplate (@duration, no SegmentTimeline) lists
    /// the ones the clock makes available (it needs `nowMS`); without it every listed
    /// segment is kept.
    public static func playlist(_ parts: [DASHManifest.Representation], url: String?, indexes: [DASHSidx.Index?],
                                live: DASHManifest.Live? = nil, nowMS: Rational? = nil,
                                limits: HLSPlaylist.Limits = HLSPlaylist.Limits()) throws -> HLSMediaPlaylist {
        precondition(parts.count == indexes.count && !parts.isEmpty)
        // One timescale for the list.
        var scales: [Int64] = []
        for (r, x) in zip(parts, indexes) {
            switch r.addressing?.name {
            case "SegmentTemplate"?, "SegmentList"?:
                guard let t = try unsigned(r.addressing!, "timescale", 1), t > 0 else { throw bad(r.addressing!, "@timescale 0") }
                scales.append(t)
            case "SegmentBase"?:
                guard let x else { throw bad(r.addressing!, "the index was not read") }
                scales.append(x.timescale)
            default: scales.append(1000)
            }
        }
        var common: Int64 = 1
        for t in scales {
            let (m, o) = (common / gcd(common, t)).multipliedReportingOverflow(by: t)
            guard !o, m <= 1 << 40 else { throw DASHError.unsupported("Periods on timescales with no common multiple below 2^40") }
            common = m
        }
        var sink = Sink(b: HLSSegmentList.Builder(maxSegments: limits.maxSegments, maxBytes: limits.maxBytes), timescale: common)
        var firstNumber: Int64 = 0
        do {
            for (k, (r, x)) in zip(parts, indexes).enumerated() {
                sink.factor = common / scales[k]
                sink.discontinuity = k > 0 && sink.b.count > 0
                sink.domain = Int64(k)
                sink.window = nil
                sink.elapsed = nil
                if let live {
                    guard let e = r.addressing, e.name == "SegmentTemplate" || e.name == "SegmentList" else {
                        throw DASHError.unsupported("a dynamic MPD whose Representation has no SegmentTemplate or SegmentList")
                    }
                    if e.name == "SegmentTemplate" && e.child("SegmentTimeline") == nil && nowMS == nil {
                        throw DASHError.unsupported("a number-based live SegmentTemplate without the MPD's clock")
                    }
                    let pto = try unsigned(e, "presentationTimeOffset", 0)!
                    let scale = scales[k], start = r.periodStart
                    // Segment time t is at availabilityStartTime + Period start + (t - pto) / timescale.
                    sink.date = { t in live.availabilityStartMS + (start + Rational(Int128(t) - Int128(pto), Int128(scale)))
                                    * Rational(1000) }
                    if let nowMS {
                        let elapsed = DASHLive.elapsed(nowMS: nowMS, availabilityStartMS: live.availabilityStartMS,
                                                       periodStart: start)
                        let depth = live.timeShiftBufferDepth
                        sink.elapsed = elapsed
                        sink.depth = depth
                        sink.window = { t, d in
                            DASHLive.inWindow(end: Rational(Int128(t) + Int128(d) - Int128(pto), Int128(scale)),
                                              elapsed: elapsed, depth: depth)
                        }
                    }
                }
                let before = sink.b.count
                switch r.addressing?.name {
                case "SegmentTemplate"?:
                    let n = try template(r.addressing!, r, &sink)
                    if k == 0 { firstNumber = n }
                case "SegmentList"?:
                    let n = try list(r.addressing!, r, &sink)
                    if k == 0 { firstNumber = n }
                case "SegmentBase"?:
                    try base(r.addressing!, r, try indexRange(r)!, x!, &sink)
                default:
                    // A lone BaseURL: the whole resource is the one segment of the Period.
                    guard let d = r.periodDuration else {
                        throw DASHError.malformed(element: "Representation", line: r.line,
                                                  reason: "no segment information and no Period duration")
                    }
                    try sink.add(Substring(r.baseURL), Int64(clamping: (d * Rational(1000)).ceil), nil, nil)
                }
                if sink.b.count > before && sink.firstDomain == nil { sink.firstDomain = Int64(k) }
                guard sink.b.count > before || (live != nil && nowMS != nil) else {
                    throw DASHError.malformed(element: "Representation", line: r.line, reason: "no segments")
                }
            }
            if sink.b.count == 0 {
                throw DASHError.malformed(element: "MPD", line: 0, reason: "no segment is available by the MPD's clock")
            }
        } catch let e as HLSError {
            throw DASHError(e)
        }
        // A live window starts at its first kept segment's number (the MSN the reloads track).
        if live != nil && nowMS != nil, let n = sink.keptNumber { firstNumber = n }
        let list = sink.b.finish(mediaSequence: firstNumber, baseURL: nil)
        var longest = Rational(0)
        for i in 0..<list.count where list.duration(at: i) > longest { longest = list.duration(at: i) }
        var control: HLSServerControl? = nil
        if let d = live?.suggestedPresentationDelay {
            control = HLSServerControl()
            control?.holdBack = d
        }
        return HLSMediaPlaylist(url: url, version: nil, targetDuration: Int(clamping: max(1, longest.ceil)),
                                mediaSequence: firstNumber, discontinuitySequence: sink.firstDomain ?? 0, segments: list,
                                endList: live == nil, playlistType: live == nil ? .vod : .none, serverControl: control,
                                start: nil, independentSegments: true, iFramesOnly: false,
                                updatePeriod: live?.minimumUpdatePeriod.flatMap { Rational(0) < $0 ? $0 : nil })
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }

    /// Appends segments on the list's one timescale, marking a Period's first segment.
    struct Sink {
        var b: HLSSegmentList.Builder
        let timescale: Int64
        /// The list's timescale over the part's.
        var factor: Int64 = 1
        /// The next segment starts a Period after the first.
        var discontinuity = false
        /// The Period's index: its discontinuity sequence number.
        var domain: Int64 = 0
        /// A dynamic MPD: the date (Unix ms) of a segment time on the part's timescale; the
        /// Period's first segment is dated (the later ones follow by duration).
        var date: ((Int64) -> Rational)? = nil
        /// A dynamic MPD read at a clock: whether a segment (time, duration on the part's
        /// timescale) is in the window; segments outside are not listed.
        var window: ((Int64, Int64) -> Bool)? = nil
        /// A dynamic MPD read at a clock: seconds since the Period's start, and the depth.
        var elapsed: Rational? = nil
        var depth: Rational? = nil
        /// The number of the first segment listed (`number` given to `add`).
        var keptNumber: Int64? = nil
        /// The Period (domain) of the first segment listed.
        var firstDomain: Int64? = nil

        /// `time`: the segment's time on the part's timescale (a SegmentTimeline's t);
        /// `number`: its $Number$.
        mutating func add(_ uri: Substring, _ ticks: Int64, _ range: HLSByteRange?, _ map: HLSMap?,
                          time: Int64? = nil, number: Int64? = nil) throws {
            if let w = window, !w(time ?? 0, ticks) { return }
            if keptNumber == nil { keptNumber = number }
            let (t, o) = ticks.multipliedReportingOverflow(by: factor)
            guard !o else { throw DASHError.tooLarge("a segment duration past 2^63 ticks") }
            var dateMS: Rational? = nil
            if let d = date {
                dateMS = d(time ?? 0)
                date = nil
            }
            try b.append(rawURI: uri, ticks: t, timescale: timescale, byteRange: range, map: map,
                         discontinuity: discontinuity, discontinuitySequence: domain, dateMS: dateMS)
            discontinuity = false
        }
    }

    static func bad(_ e: DASHXMLElement, _ why: String) -> DASHError { .malformed(element: e.name, line: e.line, reason: why) }

    static func unsigned(_ e: DASHXMLElement, _ name: String, _ fallback: Int64? = nil) throws -> Int64? {
        guard let v = e[attribute: name] else { return fallback }
        guard let n = DASHValues.unsigned(v) else { throw bad(e, "@\(name) is not an unsigned integer") }
        return n
    }

    /// The Period's end on the timescale (rounded up), when the Period has a duration.
    static func periodEnd(_ r: DASHManifest.Representation, timescale: Int64, offset: Int64) -> Int64? {
        guard let d = r.periodDuration else { return nil }
        let t = (d * Rational(timescale)).ceil + Int128(offset)
        return Int64(exactly: t)
    }

    /// The initialization section: `sourceURL`/`range` of an Initialization child, or a
    /// template's @initialization; relative to the representation's BaseURL.
    static func initialization(_ e: DASHXMLElement, _ r: DASHManifest.Representation) throws -> HLSMap? {
        if let t = e[attribute: "initialization"], e.name == "SegmentTemplate" {
            let tpl = try DASHTemplate(t, what: "@initialization", line: e.line)
            guard !tpl.usesNumber, !tpl.usesTime else { throw bad(e, "@initialization uses $Number$ or $Time$") }
            let uri = HLSURL.resolve(base: r.baseURL, reference: tpl.render(representationID: r.id, bandwidth: r.bandwidth))
            return HLSMap(uri: uri, rawURI: uri, byteRange: nil)
        }
        guard let i = e.child("Initialization") else { return nil }
        var range: HLSByteRange? = nil
        if let v = i[attribute: "range"] {
            guard let x = DASHValues.byteRange(v) else { throw bad(i, "@range is not first-last") }
            range = x
        }
        let uri = i[attribute: "sourceURL"].map { HLSURL.resolve(base: r.baseURL, reference: DASHValues.trim($0)) } ?? r.baseURL
        return HLSMap(uri: uri, rawURI: uri, byteRange: range)
    }

    /// A SegmentTimeline expanded: each segment's start and duration on the timescale.
    /// `r=-1` repeats up to the next S@t, else to the Period's end. Gaps and overlaps
    /// between S elements are refused (the segment path lists segments back to back).
    static func timeline(_ tl: DASHXMLElement, end: Int64?, max: Int, visit: (Int64, Int64) throws -> Void) throws {
        let ss = tl.children("S")
        guard !ss.isEmpty else { throw bad(tl, "no S element") }
        var now: Int64? = nil
        var made = 0
        for (k, s) in ss.enumerated() {
            guard let d = try unsigned(s, "d"), d > 0 else { throw bad(s, "no positive @d") }
            if let t = try unsigned(s, "t") {
                if let n = now, n != t { throw DASHError.unsupported("a SegmentTimeline with a gap or an overlap (S@t)") }
                now = t
            }
            var t = now ?? 0
            var repeats: Int64
            if let rv = s[attribute: "r"] {
                if DASHValues.trim(rv) == "-1" {
                    let next = k + 1 < ss.count ? try unsigned(ss[k + 1], "t") : end
                    guard let until = next else {
                        throw DASHError.unsupported("SegmentTimeline S@r=-1 with no later S@t and no Period duration")
                    }
                    guard until > t else { throw bad(s, "S@r=-1 reaches no later time") }
                    repeats = (until - t + d - 1) / d - 1
                } else {
                    guard let v = DASHValues.unsigned(rv) else { throw bad(s, "@r is not an integer") }
                    repeats = v
                }
            } else {
                repeats = 0
            }
            guard repeats < Int64(max) else { throw DASHError.tooLarge("more than \(max) segments") }
            for _ in 0...repeats {
                made += 1
                guard made <= max else { throw DASHError.tooLarge("more than \(max) segments") }
                try visit(t, d)
                let (n, o) = t.addingReportingOverflow(d)
                guard !o else { throw bad(s, "times overflow") }
                t = n
            }
            now = t
        }
    }

    /// Returns the first segment's number.
    static func template(_ e: DASHXMLElement, _ r: DASHManifest.Representation, _ b: inout Sink) throws -> Int64 {
        guard let media = e[attribute: "media"] else { throw bad(e, "no @media") }
        let tpl = try DASHTemplate(media, what: "@media", line: e.line)
        let timescale = try unsigned(e, "timescale", 1)!
        guard timescale > 0 else { throw bad(e, "@timescale 0") }
        let pto = try unsigned(e, "presentationTimeOffset", 0)!
        let startNumber = try unsigned(e, "startNumber", 1)!
        let map = try initialization(e, r)
        func url(_ number: Int64, _ time: Int64) -> Substring {
            Substring(HLSURL.resolve(base: r.baseURL, reference: tpl.render(representationID: r.id, bandwidth: r.bandwidth,
                                                                              number: number, time: time)))
        }
        var number = startNumber
        if let tl = e.child("SegmentTimeline") {
            try timeline(tl, end: periodEnd(r, timescale: timescale, offset: pto), max: b.b.maxSegments) { t, d in
                try b.add(url(number, t), d, nil, map, time: t, number: number)
                number &+= 1
            }
            return startNumber
        }
        guard let d = try unsigned(e, "duration"), d > 0 else { throw bad(e, "neither a SegmentTimeline nor a positive @duration") }
        if let elapsed = b.elapsed {
            // Number-based live: the segments the clock makes available, within the depth.
            let range = DASHLive.numberRange(elapsed: elapsed, duration: Rational(Int128(d), Int128(timescale)),
                                             periodDuration: r.periodDuration, depth: b.depth,
                                             max: Swift.max(0, b.b.maxSegments - b.b.count))
            let ticks = r.periodDuration.map { $0 * Rational(timescale) }
            for k in range {
                let (n, o1) = startNumber.addingReportingOverflow(k)
                let (start, o2) = k.multipliedReportingOverflow(by: d)
                let (time, o3) = pto.addingReportingOverflow(start)
                guard !o1, !o2, !o3 else { throw bad(e, "segment numbers or times overflow") }
                // The last segment ends with the Period.
                let length = ticks.map { Int64(clamping: Swift.min(Int128(d), ($0 - Rational(Int128(start), 1)).ceil)) } ?? d
                guard length > 0 else { break }
                try b.add(url(n, time), length, nil, map, time: time, number: n)
            }
            return startNumber
        }
        guard let total = r.periodDuration else {
            throw DASHError.malformed(element: e.name, line: e.line, reason: "@duration without a Period duration (the segment count)")
        }
        let ticks = total * Rational(timescale)
        // Segment k (from 0) starts at presentationTimeOffset + k x @duration ($Time$).
        let count = (ticks * Rational(1, Int128(d))).ceil
        guard count <= Int128(b.b.maxSegments) else { throw DASHError.tooLarge("more than \(b.b.maxSegments) segments") }
        for k in 0..<Int64(count) {
            // The last segment ends with the Period.
            let left = (ticks - Rational(Int128(k) * Int128(d), 1)).ceil
            try b.add(url(number, pto &+ k &* d), Int64(min(Int128(d), left)), nil, map)
            number &+= 1
        }
        return startNumber
    }

    static func list(_ e: DASHXMLElement, _ r: DASHManifest.Representation, _ b: inout Sink) throws -> Int64 {
        let timescale = try unsigned(e, "timescale", 1)!
        guard timescale > 0 else { throw bad(e, "@timescale 0") }
        let pto = try unsigned(e, "presentationTimeOffset", 0)!
        let startNumber = try unsigned(e, "startNumber", 1)!
        let map = try initialization(e, r)
        let urls = e.children("SegmentURL")
        guard !urls.isEmpty else { throw bad(e, "no SegmentURL") }
        guard urls.count <= b.b.maxSegments else { throw DASHError.tooLarge("more than \(b.b.maxSegments) segments") }
        var durations: [Int64] = []
        var times: [Int64] = []
        if let tl = e.child("SegmentTimeline") {
            try timeline(tl, end: periodEnd(r, timescale: timescale, offset: pto), max: b.b.maxSegments) { t, d in
                if durations.count < urls.count { durations.append(d); times.append(t) }
            }
            guard durations.count == urls.count else { throw bad(e, "the SegmentTimeline lists fewer segments than SegmentURLs") }
        } else {
            guard let d = try unsigned(e, "duration"), d > 0 else {
                throw bad(e, "neither a SegmentTimeline nor a positive @duration")
            }
            durations = Array(repeating: d, count: urls.count)
            // The last segment ends with the Period, when it has a duration.
            if let total = r.periodDuration {
                let left = (total * Rational(timescale) - Rational(Int128(d) * Int128(urls.count - 1), 1)).ceil
                if left > 0 && left < Int128(d) { durations[urls.count - 1] = Int64(left) }
            }
        }
        for (k, u) in urls.enumerated() {
            var range: HLSByteRange? = nil
            if let v = u[attribute: "mediaRange"] {
                guard let x = DASHValues.byteRange(v) else { throw bad(u, "@mediaRange is not first-last") }
                range = x
            }
            let uri = u[attribute: "media"].map { HLSURL.resolve(base: r.baseURL, reference: DASHValues.trim($0)) } ?? r.baseURL
            // Without a timeline, segment k is at pto + k x @duration.
            try b.add(Substring(uri), durations[k], range, map,
                      time: k < times.count ? times[k] : pto &+ Int64(k) &* durations[0], number: startNumber &+ Int64(k))
        }
        return startNumber
    }

    static func base(_ e: DASHXMLElement, _ r: DASHManifest.Representation, _ index: HLSByteRange,
                     _ x: DASHSidx.Index, _ b: inout Sink) throws {
        var map = try initialization(e, r)
        if map == nil && index.offset > 0 {
            // Without an Initialization, the bytes before the index (ftyp, moov) initialise.
            map = HLSMap(uri: r.baseURL, rawURI: r.baseURL, byteRange: HLSByteRange(length: index.offset, offset: 0))
        }
        for ref in x.references {
            try b.add(Substring(r.baseURL), ref.duration, ref.range, map)
        }
    }
}
