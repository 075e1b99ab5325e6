/// A representation's segments as an ended HLS media playlist (`HLSMediaPlaylist`), the
/// model the segment path plays: each segment a URL (and byte range), its duration on the
/// representation's timescale, its initialization as the EXT-X-MAP. From a SegmentTemplate
/// ($Number$ or $Time$, with or without a SegmentTimeline), a SegmentList, a SegmentBase
/// (its sidx, fetched by the engine) or a lone BaseURL (one segment). Bounded by the
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

    /// The representation's media playlist. `sidx`: the bytes of its `indexRange` (SegmentBase).
    public static func playlist(_ r: DASHManifest.Representation, manifest m: DASHManifest,
                                sidx: UnsafeBufferPointer<UInt8>? = nil,
                                limits: HLSPlaylist.Limits = HLSPlaylist.Limits()) throws -> HLSMediaPlaylist {
        var b = HLSSegmentList.Builder(maxSegments: limits.maxSegments, maxBytes: limits.maxBytes)
        var firstNumber: Int64 = 0
        do {
            switch r.addressing?.name {
            case "SegmentTemplate"?: firstNumber = try template(r.addressing!, r, m, &b)
            case "SegmentList"?: firstNumber = try list(r.addressing!, r, m, &b)
            case "SegmentBase"?:
                guard let sidx, let range = try indexRange(r) else { throw bad(r.addressing!, "the index was not read") }
                try base(r.addressing!, r, range, sidx, limits, &b)
            default:
                // A lone BaseURL: the whole resource is the one segment of the Period.
                guard let d = m.periodDuration else {
                    throw DASHError.malformed(element: "Representation", line: r.line,
                                              reason: "no segment information and no Period duration")
                }
                try b.append(rawURI: Substring(r.baseURL), ticks: Int64(clamping: (d * Rational(1000)).ceil),
                             timescale: 1000, byteRange: nil, map: nil)
            }
        } catch let e as HLSError {
            throw DASHError(e)
        }
        guard b.count > 0 else {
            throw DASHError.malformed(element: "Representation", line: r.line, reason: "no segments")
        }
        let list = b.finish(mediaSequence: firstNumber, baseURL: nil)
        var longest = Rational(0)
        for i in 0..<list.count where list.duration(at: i) > longest { longest = list.duration(at: i) }
        return HLSMediaPlaylist(url: m.url, version: nil, targetDuration: Int(clamping: max(1, longest.ceil)),
                                mediaSequence: firstNumber, discontinuitySequence: 0, segments: list, endList: true,
                                playlistType: .vod, serverControl: nil, start: nil, independentSegments: true,
                                iFramesOnly: false)
    }

    static func bad(_ e: DASHXMLElement, _ why: String) -> DASHError { .malformed(element: e.name, line: e.line, reason: why) }

    static func unsigned(_ e: DASHXMLElement, _ name: String, _ fallback: Int64? = nil) throws -> Int64? {
        guard let v = e[attribute: name] else { return fallback }
        guard let n = DASHValues.unsigned(v) else { throw bad(e, "@\(name) is not an unsigned integer") }
        return n
    }

    /// The Period's end on the timescale (rounded up), when the Period has a duration.
    static func periodEnd(_ m: DASHManifest, timescale: Int64, offset: Int64) -> Int64? {
        guard let d = m.periodDuration else { return nil }
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
    static func template(_ e: DASHXMLElement, _ r: DASHManifest.Representation, _ m: DASHManifest,
                         _ b: inout HLSSegmentList.Builder) throws -> Int64 {
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
            try timeline(tl, end: periodEnd(m, timescale: timescale, offset: pto), max: b.maxSegments) { t, d in
                try b.append(rawURI: url(number, t), ticks: d, timescale: timescale, byteRange: nil, map: map)
                number &+= 1
            }
            return startNumber
        }
        guard let d = try unsigned(e, "duration"), d > 0 else { throw bad(e, "neither a SegmentTimeline nor a positive @duration") }
        guard let total = m.periodDuration else {
            throw DASHError.malformed(element: e.name, line: e.line, reason: "@duration without a Period duration (the segment count)")
        }
        let ticks = total * Rational(timescale)
        // Segment k (from 0) starts at presentationTimeOffset + k x @duration ($Time$).
        let count = (ticks * Rational(1, Int128(d))).ceil
        guard count <= Int128(b.maxSegments) else { throw DASHError.tooLarge("more than \(b.maxSegments) segments") }
        for k in 0..<Int64(count) {
            // The last segment ends with the Period.
            let left = (ticks - Rational(Int128(k) * Int128(d), 1)).ceil
            try b.append(rawURI: url(number, pto &+ k &* d), ticks: Int64(min(Int128(d), left)), timescale: timescale,
                         byteRange: nil, map: map)
            number &+= 1
        }
        return startNumber
    }

    static func list(_ e: DASHXMLElement, _ r: DASHManifest.Representation, _ m: DASHManifest,
                     _ b: inout HLSSegmentList.Builder) throws -> Int64 {
        let timescale = try unsigned(e, "timescale", 1)!
        guard timescale > 0 else { throw bad(e, "@timescale 0") }
        let pto = try unsigned(e, "presentationTimeOffset", 0)!
        let startNumber = try unsigned(e, "startNumber", 1)!
        let map = try initialization(e, r)
        let urls = e.children("SegmentURL")
        guard !urls.isEmpty else { throw bad(e, "no SegmentURL") }
        guard urls.count <= b.maxSegments else { throw DASHError.tooLarge("more than \(b.maxSegments) segments") }
        var durations: [Int64] = []
        if let tl = e.child("SegmentTimeline") {
            try timeline(tl, end: periodEnd(m, timescale: timescale, offset: pto), max: b.maxSegments) { _, d in
                if durations.count < urls.count { durations.append(d) }
            }
            guard durations.count == urls.count else { throw bad(e, "the SegmentTimeline lists fewer segments than SegmentURLs") }
        } else {
            guard let d = try unsigned(e, "duration"), d > 0 else {
                throw bad(e, "neither a SegmentTimeline nor a positive @duration")
            }
            durations = Array(repeating: d, count: urls.count)
            // The last segment ends with the Period, when it has a duration.
            if let total = m.periodDuration {
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
            try b.append(rawURI: Substring(uri), ticks: durations[k], timescale: timescale, byteRange: range, map: map)
        }
        return startNumber
    }

    static func base(_ e: DASHXMLElement, _ r: DASHManifest.Representation, _ index: HLSByteRange,
                     _ sidx: UnsafeBufferPointer<UInt8>, _ limits: HLSPlaylist.Limits, _ b: inout HLSSegmentList.Builder) throws {
        var map = try initialization(e, r)
        if map == nil && index.offset > 0 {
            // Without an Initialization, the bytes before the index (ftyp, moov) initialise.
            map = HLSMap(uri: r.baseURL, rawURI: r.baseURL, byteRange: HLSByteRange(length: index.offset, offset: 0))
        }
        let x = try DASHSidx.parse(sidx, offset: index.offset, maxReferences: limits.maxSegments)
        for ref in x.references {
            try b.append(rawURI: Substring(r.baseURL), ticks: ref.duration, timescale: x.timescale, byteRange: ref.range, map: map)
        }
    }
}
