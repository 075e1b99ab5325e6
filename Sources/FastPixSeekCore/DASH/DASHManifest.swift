/// An MPD (ISO/IEC 23009-1), static or dynamic (`live`: its clock), read into what the DASH
/// layer plays: each Period's audio and
/// video adaptation sets, their representations, each with its segment addressing
/// (SegmentTemplate, SegmentList, SegmentBase or a lone BaseURL) inherited across levels and
/// its BaseURL resolved through MPD, Period, AdaptationSet and Representation (RFC 3986, as
/// HLS URIs are: `HLSURL`). What the layer does not handle is refused, typed (`DASHError`):
/// xlink, dependent representations, ContentProtection
/// (FPX_ERROR_ENCRYPTION, naming the schemes). Several Periods are discontinuity domains of
/// one timeline, their representations matched by place. Pure; tested in DASHManifestTests.
public struct DASHManifest: Hashable, Sendable {
    public enum ContentType: String, Hashable, Sendable { case video, audio }

    public struct AdaptationSet: Hashable, Sendable {
        /// Its index among the Period's AdaptationSet elements (document order).
        public var index: Int
        public var id: String?
        public var contentType: ContentType
        public var lang: String?
        public var label: String?
        public var representations: [Representation]
    }

    public struct Representation: Hashable, Sendable {
        /// Its index among its AdaptationSet's Representation elements.
        public var index: Int
        public var id: String
        public var bandwidth: Int64
        public var width: Int64?
        public var height: Int64?
        public var codecs: String?
        public var frameRate: Rational?
        /// Its BaseURL, resolved against every level above and the MPD's URL.
        public var baseURL: String
        /// The effective segment addressing element (inherited attributes and children merged).
        var addressing: DASHXMLElement?
        /// Its Period's start and duration, seconds (duration nil when the MPD does not say).
        public var periodStart: Rational
        public var periodDuration: Rational?
        public var line: Int
    }

    /// What a dynamic MPD says of its clock: segment t (on its timescale, less the
    /// presentationTimeOffset) of a Period starting at S is at availabilityStartTime + S + t.
    public struct Live: Hashable, Sendable {
        /// @availabilityStartTime, Unix milliseconds, exactly.
        public var availabilityStartMS: Rational
        /// @suggestedPresentationDelay, seconds: the live edge's distance from the newest end.
        public var suggestedPresentationDelay: Rational?
        /// @timeShiftBufferDepth, seconds: a segment leaves the seekable window this long after
        /// its availability ends (nil: segments never leave it; the window is then bounded by
        /// the segment cap, the newest kept).
        public var timeShiftBufferDepth: Rational? = nil
        /// @minimumUpdatePeriod, seconds: the reload interval (nil or 0: the HLS rule, the
        /// target duration).
        public var minimumUpdatePeriod: Rational? = nil
        /// @publishTime, Unix milliseconds, exactly (informative: not used for timing).
        public var publishMS: Rational? = nil
        /// The UTCTiming elements in document order: the wall clock the MPD defines.
        public var utcTiming: [UTCTiming] = []
    }

    /// A UTCTiming element (ISO/IEC 23009-1 5.8.4.11): how to read the MPD's wall clock.
    public struct UTCTiming: Hashable, Sendable {
        public enum Scheme: String, Hashable, Sendable, CaseIterable {
            /// @value is the time itself (xs:dateTime).
            case direct = "urn:mpeg:dash:utc:direct:2014"
            /// @value is a URL whose body is an xs:dateTime.
            case httpXSDate = "urn:mpeg:dash:utc:http-xsdate:2014"
            /// @value is a URL whose body is an ISO 8601 date-time (the same reading here).
            case httpISO = "urn:mpeg:dash:utc:http-iso:2014"
            /// @value is a URL whose HTTP Date header (RFC 7231) is the time.
            case httpHead = "urn:mpeg:dash:utc:http-head:2014"
        }
        /// nil: a scheme this layer does not know (skipped).
        public var scheme: Scheme?
        public var schemeIdUri: String
        /// @value: for `direct` the time, else one or more URLs (space-separated).
        public var value: String
        /// `direct`: the time, Unix milliseconds, exactly.
        public var directMS: Rational?
    }

    /// A Period: a discontinuity domain of the item (its segments follow the previous
    /// Period's; DASHSegments marks the boundary).
    public struct Period: Hashable, Sendable {
        public var index: Int
        /// @start, seconds (a Period without one starts where the previous ends).
        public var start: Rational
        public var duration: Rational?
        public var adaptationSets: [AdaptationSet]
    }

    public internal(set) var url: String?
    /// A dynamic MPD's (live) facts; nil for a static one.
    public internal(set) var live: Live?
    /// The Periods in order, each with its duration (its @duration, else up to the next
    /// Period's @start, else for the last the MPD's mediaPresentationDuration less its start).
    public internal(set) var periods: [Period]
    /// The first Period's video and audio adaptation sets (others, and those an
    /// EssentialProperty makes the client ignore, are left out): what the item lists.
    public var adaptationSets: [AdaptationSet] { periods[0].adaptationSets }

    /// Parses MPD bytes (`url`: the MPD's own URL, the root of every BaseURL). Throws `DASHError`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, url: String?,
                             limits: DASHXML.Limits = DASHXML.Limits()) throws -> DASHManifest {
        let root = try DASHXML.parse(bytes, limits: limits)
        return try DASHManifest(root: root, url: url)
    }

    public static func parse(_ text: String, url: String? = nil) throws -> DASHManifest {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { try parse($0, url: url) }
    }

    /// Whether bytes look like an XML document rather than a playlist (first non-blank byte '<').
    public static func looksLikeMPD(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        return i < bytes.count && bytes[i] == 0x3C
    }

    static let addressingNames = ["SegmentTemplate", "SegmentList", "SegmentBase"]

    init(root: DASHXMLElement, url: String?) throws {
        guard root.name == "MPD" else { throw DASHError.notAManifest }
        self.url = url
        func bad(_ e: DASHXMLElement, _ why: String) -> DASHError { .malformed(element: e.name, line: e.line, reason: why) }
        var live: Live? = nil
        if let t = root[attribute: "type"], DASHValues.trim(t) != "static" {
            guard DASHValues.trim(t) == "dynamic" else { throw bad(root, "@type is neither static nor dynamic") }
            guard let ast = root[attribute: "availabilityStartTime"] else { throw bad(root, "a dynamic MPD without @availabilityStartTime") }
            guard let ms = HLSDate.unixMillisecondsExact(DASHValues.trim(ast)) else {
                throw bad(root, "@availabilityStartTime is not an xs:dateTime")
            }
            live = Live(availabilityStartMS: ms, suggestedPresentationDelay: nil)
        }
        try DASHManifest.refuseProtection(root)
        let elements = root.children("Period")
        guard !elements.isEmpty else { throw bad(root, "no Period") }
        func seconds(_ e: DASHXMLElement, _ name: String) throws -> Rational? {
            guard let v = e[attribute: name] else { return nil }
            guard let d = DASHValues.duration(v) else { throw bad(e, "@\(name) is not an xs:duration") }
            return d
        }
        let total = try seconds(root, "mediaPresentationDuration")
        if live != nil {
            live?.suggestedPresentationDelay = try seconds(root, "suggestedPresentationDelay")
            live?.timeShiftBufferDepth = try seconds(root, "timeShiftBufferDepth")
            live?.minimumUpdatePeriod = try seconds(root, "minimumUpdatePeriod")
            if let p = root[attribute: "publishTime"] {
                guard let ms = HLSDate.unixMillisecondsExact(DASHValues.trim(p)) else {
                    throw bad(root, "@publishTime is not an xs:dateTime")
                }
                live?.publishMS = ms
            }
            live?.utcTiming = try DASHManifest.utcTiming(root)
        }
        self.live = live
        // Starts: @start, else the previous Period's end (ISO/IEC 23009-1 5.3.2.1), else 0.
        var starts: [Rational] = []
        var durations: [Rational?] = []
        for (k, period) in elements.enumerated() {
            if period[attribute: "xlink:href"] != nil { throw DASHError.unsupported("xlink (a remote Period)") }
            var start: Rational
            if let s = try seconds(period, "start") {
                start = s
            } else if k == 0 {
                start = Rational(0)
            } else if let prev = durations[k - 1] {
                start = starts[k - 1] + prev
            } else {
                throw bad(period, "no @start and the previous Period has no duration")
            }
            if k > 0 {
                // The previous Period ends where this one starts (5.3.2.1: PeriodStart).
                guard start > starts[k - 1] else { throw bad(period, "@start is not after the previous Period's") }
                durations[k - 1] = start - starts[k - 1]
            }
            starts.append(start)
            durations.append(try seconds(period, "duration"))
        }
        if durations[elements.count - 1] == nil, let t = total { durations[elements.count - 1] = t - starts[elements.count - 1] }
        for (k, d) in durations.enumerated() where d.map({ $0 <= Rational(0) }) ?? false {
            throw bad(elements[k], "the Period's duration is not positive")
        }
        var periods: [Period] = []
        for (k, period) in elements.enumerated() {
            var base = url
            for level in [root, period] { base = DASHManifest.baseURL(level, base) }
            let sets = try DASHManifest.adaptationSets(period, base: base, start: starts[k], duration: durations[k])
            guard !sets.isEmpty else { throw bad(period, "no audio or video Representation") }
            periods.append(Period(index: k, start: starts[k], duration: durations[k], adaptationSets: sets))
        }
        self.periods = periods
    }

    /// The MPD's UTCTiming elements; a known scheme without @value, or a `direct` one whose
    /// value is no xs:dateTime, is malformed.
    static func utcTiming(_ root: DASHXMLElement) throws -> [UTCTiming] {
        var out: [UTCTiming] = []
        for e in root.children("UTCTiming") {
            guard let uri = e[attribute: "schemeIdUri"].map(DASHValues.trim), !uri.isEmpty else {
                throw DASHError.malformed(element: e.name, line: e.line, reason: "no @schemeIdUri")
            }
            let scheme = UTCTiming.Scheme(rawValue: uri)
            let value = DASHValues.trim(e[attribute: "value"] ?? "")
            if scheme != nil && value.isEmpty { throw DASHError.malformed(element: e.name, line: e.line, reason: "no @value") }
            var direct: Rational? = nil
            if scheme == .direct {
                guard let ms = HLSDate.unixMillisecondsExact(value) else {
                    throw DASHError.malformed(element: e.name, line: e.line, reason: "@value is not an xs:dateTime")
                }
                direct = ms
            }
            out.append(UTCTiming(scheme: scheme, schemeIdUri: uri, value: value, directMS: direct))
        }
        return out
    }

    /// A Period's audio and video adaptation sets.
    static func adaptationSets(_ period: DASHXMLElement, base: String?, start: Rational,
                               duration: Rational?) throws -> [AdaptationSet] {
        func bad(_ e: DASHXMLElement, _ why: String) -> DASHError { .malformed(element: e.name, line: e.line, reason: why) }
        var sets: [AdaptationSet] = []
        for (k, a) in period.children("AdaptationSet").enumerated() {
            if a[attribute: "xlink:href"] != nil { throw DASHError.unsupported("xlink (a remote AdaptationSet)") }
            // ISO/IEC 23009-1 5.8.4.8: an EssentialProperty the client does not know makes it
            // ignore the element. This layer knows none.
            if a.child("EssentialProperty") != nil { continue }
            let aBase = DASHManifest.baseURL(a, base)
            var reps: [Representation] = []
            var kinds: Set<ContentType> = []
            for (j, r) in a.children("Representation").enumerated() {
                if r.child("EssentialProperty") != nil { continue }
                guard let kind = DASHManifest.contentType(a, r) else { continue }
                kinds.insert(kind)
                if r[attribute: "dependencyId"] != nil {
                    throw DASHError.unsupported("Representation@dependencyId (dependent representations)")
                }
                guard let id = r[attribute: "id"], !id.isEmpty else { throw bad(r, "no @id") }
                guard let bw = r[attribute: "bandwidth"].flatMap(DASHValues.unsigned) else { throw bad(r, "no unsigned @bandwidth") }
                func number(_ name: String) throws -> Int64? {
                    guard let v = r[attribute: name] ?? a[attribute: name] else { return nil }
                    guard let n = DASHValues.unsigned(v) else { throw bad(r, "@\(name) is not an unsigned integer") }
                    return n
                }
                var rate: Rational? = nil
                if let f = r[attribute: "frameRate"] ?? a[attribute: "frameRate"] {
                    guard let v = DASHValues.frameRate(f) else { throw bad(r, "@frameRate is malformed") }
                    rate = v
                }
                let addressing = try DASHManifest.addressing(period, a, r)
                reps.append(Representation(index: j, id: id, bandwidth: bw, width: try number("width"),
                                           height: try number("height"), codecs: r[attribute: "codecs"] ?? a[attribute: "codecs"],
                                           frameRate: rate, baseURL: DASHManifest.baseURL(r, aBase) ?? "",
                                           addressing: addressing, periodStart: start, periodDuration: duration,
                                           line: r.line))
            }
            guard !reps.isEmpty else { continue }
            guard kinds.count == 1, let kind = kinds.first else {
                throw DASHError.unsupported("an AdaptationSet with both audio and video Representations")
            }
            sets.append(AdaptationSet(index: k, id: a[attribute: "id"], contentType: kind, lang: a[attribute: "lang"],
                                      label: a.child("Label")?.text ?? a[attribute: "label"], representations: reps))
        }
        return sets
    }

    /// The representation in every Period, from the first Period's (set, representation)
    /// element indexes: a later Period's counterpart is at the same place among its audio and
    /// video adaptation sets and their representations. Periods laid out otherwise are
    /// refused (FPX_ERROR_UNSUPPORTED); nil when the first Period has no such representation.
    public func representationInEveryPeriod(set: Int, representation: Int) throws -> [Representation]? {
        let first = periods[0].adaptationSets
        guard let si = first.firstIndex(where: { $0.index == set }),
              let ri = first[si].representations.firstIndex(where: { $0.index == representation }) else { return nil }
        var out: [Representation] = []
        for p in periods {
            let sets = p.adaptationSets
            guard sets.count == first.count, sets[si].contentType == first[si].contentType,
                  sets[si].representations.count == first[si].representations.count else {
                throw DASHError.unsupported("Periods whose audio and video adaptation sets or representations differ")
            }
            out.append(sets[si].representations[ri])
        }
        return out
    }

    /// The BaseURL of `e` resolved against `base` (the first BaseURL: alternatives are not tried).
    static func baseURL(_ e: DASHXMLElement, _ base: String?) -> String? {
        guard let b = e.child("BaseURL") else { return base }
        let ref = DASHValues.trim(b.text)
        guard let base else { return ref }
        return HLSURL.resolve(base: base, reference: ref)
    }

    /// Video or audio, from @contentType, @mimeType (representation first) or the codecs;
    /// nil for anything else (text, images), which is left out.
    static func contentType(_ a: DASHXMLElement, _ r: DASHXMLElement) -> ContentType? {
        func of(_ s: String?) -> ContentType? {
            guard let s = s.map(DASHValues.trim) else { return nil }
            if s == "video" || s.hasPrefix("video/") { return .video }
            if s == "audio" || s.hasPrefix("audio/") { return .audio }
            return nil
        }
        if let t = a[attribute: "contentType"] ?? r[attribute: "contentType"] { return of(t) }
        if let m = r[attribute: "mimeType"] ?? a[attribute: "mimeType"] { return of(m) }
        if let c = (r[attribute: "codecs"] ?? a[attribute: "codecs"])?.lowercased() {
            for p in ["avc", "hev", "hvc", "vp0", "vp8", "vp9", "av01", "dvh", "mp4v"] where c.hasPrefix(p) { return .video }
            for p in ["mp4a", "opus", "ac-3", "ec-3", "flac", "vorbis", "ac-4", "mp3"] where c.hasPrefix(p) { return .audio }
        }
        return nil
    }

    /// The representation's segment addressing: the kind of the lowest level that names one
    /// (Representation, AdaptationSet, Period), its attributes and children inherited from
    /// the same kind above (the lower level wins), nil when no level names one.
    static func addressing(_ p: DASHXMLElement, _ a: DASHXMLElement, _ r: DASHXMLElement) throws -> DASHXMLElement? {
        var levels: [DASHXMLElement] = []
        for e in [r, a, p] {
            let found = e.children.filter { addressingNames.contains($0.name) }
            guard found.count <= 1 else {
                throw DASHError.malformed(element: e.name, line: e.line, reason: "more than one of SegmentBase, SegmentList, SegmentTemplate")
            }
            levels.append(contentsOf: found)
        }
        guard let lowest = levels.first else { return nil }
        var merged = lowest
        for upper in levels.dropFirst() where upper.name == lowest.name {
            for at in upper.attributeList where merged[attribute: at.name] == nil { merged.attributeList.append(at) }
            for c in upper.children where merged.child(c.name) == nil { merged.children.append(c) }
        }
        if merged[attribute: "xlink:href"] != nil { throw DASHError.unsupported("xlink (a remote \(merged.name))") }
        return merged
    }

    // MARK: Content protection

    /// Known protection systems by their schemeIdUri (lower case).
    static let protectionSchemes: [String: String] = [
        "urn:mpeg:dash:mp4protection:2011": "cenc",
        "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine",
        "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
        "urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay",
        "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e": "ClearKey",
        "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "W3C Common PSSH (ClearKey)",
        "urn:uuid:f239e769-efa3-4850-9c16-a903c6932efb": "Adobe Primetime",
        "urn:uuid:5e629af5-38da-4063-8977-97ffbd9902d4": "Marlin",
    ]

    /// Any ContentProtection in the MPD (the layer decrypts nothing): FPX_ERROR_ENCRYPTION
    /// naming every scheme, e.g. "cenc (urn:mpeg:dash:mp4protection:2011, value cenc),
    /// Widevine (urn:uuid:edef8ba9-...)".
    static func refuseProtection(_ root: DASHXMLElement) throws {
        var names: [String] = []
        var budget = 100_000
        func walk(_ e: DASHXMLElement) {
            budget -= 1
            guard budget > 0 else { return }
            if e.name == "ContentProtection" {
                let uri = DASHValues.trim(e[attribute: "schemeIdUri"] ?? "")
                let known = protectionSchemes[uri.lowercased()]
                var s = known.map { "\($0) (\(uri)" } ?? (uri.isEmpty ? "(no schemeIdUri" : "(\(uri)")
                if let v = e[attribute: "value"] { s += ", value \(v)" }
                s += ")"
                if !names.contains(s) { names.append(s) }
                return
            }
            for c in e.children { walk(c) }
        }
        walk(root)
        if !names.isEmpty { throw DASHError.encryption("ContentProtection " + names.joined(separator: ", ")) }
    }
}
