#if canImport(Glibc)
import Glibc
#endif

/// The line-by-line RFC 8216 parser behind `HLSPlaylist.parse`.
struct HLSParser {
    /// Valid for the parse only (the caller's memory).
    let bytes: UnsafeBufferPointer<UInt8>
    let url: String?
    let limits: HLSPlaylist.Limits

    init(bytes: UnsafeBufferPointer<UInt8>, url: String?, limits: HLSPlaylist.Limits = HLSPlaylist.Limits()) {
        self.bytes = bytes
        self.url = url
        self.limits = limits
    }

    // MARK: Lines

    static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    static func trim(_ s: Substring) -> Substring {
        var u = s.utf8[...]
        while let f = u.first, isBlank(f) { u = u.dropFirst() }
        while let l = u.last, isBlank(l) { u = u.dropLast() }
        return Substring(u)
    }

    /// Parses line by line, straight from the bytes: no copy of the text and no array of
    /// lines (issue 18.4: a 15 MB playlist cost 439 MB at peak). Every line is validated as
    /// UTF-8; as before, invalid UTF-8 anywhere wins over any other error.
    func run() throws -> HLSPlaylist {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { throw HLSError.notAPlaylist }
        return try { (b: UnsafeBufferPointer<UInt8>) -> HLSPlaylist in
            let n = b.count
            // Line k (0-based) is b[start..<end]; the last one runs to the end of the bytes.
            func lineEnd(from a: Int) -> Int {
                var i = a
                while i < n && b[i] != 0x0A { i += 1 }
                return i
            }
            func text(_ a: Int, _ e: Int) -> String? {
                var end = e
                if end > a && b[end - 1] == 0x0D { end -= 1 }
                return String(validating: UnsafeBufferPointer(rebasing: b[a..<end]), as: UTF8.self)
            }
            /// Whether every line from `a` on is valid UTF-8.
            func validFrom(_ a: Int) -> Bool {
                var i = a
                while i <= n {
                    let e = lineEnd(from: i)
                    if text(i, e) == nil { return false }
                    i = e + 1
                }
                return true
            }
            // Segments: count EXTINF lines first, so the table is allocated once (and a
            // playlist past the caps is refused before it is).
            var extinf = 0
            var i = 0
            let tag = Array("#EXTINF:".utf8)
            while i < n {
                var j = i
                while j < n && HLSParser.isBlank(b[j]) { j += 1 }
                if n - j >= tag.count && b[j] == 0x23 && memcmp(b.baseAddress! + j, tag, tag.count) == 0 { extinf += 1 }
                i = lineEnd(from: i) + 1
            }
            var state = State(url: url, limits: limits, textBytes: n)
            var number = 0
            var a = 0
            do {
                try state.builder.reserve(extinf, textBytes: 0)
                while a <= n {
                    let e = lineEnd(from: a)
                    number += 1
                    guard let t = text(a, e) else { throw HLSError.invalidEncoding }
                    let line = HLSParser.trim(Substring(t))
                    if number == 1 {
                        guard line == "#EXTM3U" else { throw HLSError.notAPlaylist }
                    } else {
                        try state.line(line, number: number)
                    }
                    a = e + 1
                }
                return try state.finish(lineCount: number)
            } catch let err as HLSError {
                if case .invalidEncoding = err { throw err }
                if !validFrom(a <= n ? lineEnd(from: a) + 1 : n + 1) { throw HLSError.invalidEncoding }
                throw err
            }
        }(bytes)
    }

    // MARK: State

    struct PendingSegment {
        var duration: Rational? = nil
        var title: String? = nil
        var extinfLine = 0
        var discontinuity = false
        var programDateTime: Rational? = nil
        var byteRange: (length: Int64, offset: Int64?)? = nil
        var byteRangeLine = 0
        var gap = false
    }

    struct State {
        let url: String?
        // Shared.
        var version: Int64? = nil
        var independentSegments = false
        var start: HLSStart? = nil
        var firstMasterLine: Int? = nil
        var firstMediaLine: Int? = nil
        // Media.
        var targetDuration: Int? = nil
        var mediaSequence: Int64? = nil
        var discontinuitySequence: Int64? = nil
        var playlistType: HLSPlaylistType? = nil
        var endList = false
        var iFramesOnly = false
        var serverControl: HLSServerControl? = nil
        var builder: HLSSegmentList.Builder
        /// The previous segment's byte range end and URI as written, for EXT-X-BYTERANGE without an offset.
        var lastRange: (end: Int64, raw: String)? = nil
        var segmentCount: Int { builder.count }
        var pending = PendingSegment()
        var map: HLSMap? = nil
        var offset = Rational(0)
        var currentDiscontinuitySequence: Int64 = 0
        var pdtAnchor: (ms: Rational, offset: Rational)? = nil
        // Master.
        var variants: [HLSVariant] = []
        var renditions: [HLSRendition] = []
        var pendingStreamInf: (attributes: HLSAttributeList, line: Int)? = nil

        init(url: String?, limits: HLSPlaylist.Limits, textBytes: Int) {
            self.url = url
            // The playlist's text is held while its segments are parsed: both count.
            builder = HLSSegmentList.Builder(maxSegments: limits.maxSegments,
                                             maxBytes: limits.maxBytes == Int.max ? Int.max : max(0, limits.maxBytes - textBytes))
        }

        func resolve(_ raw: String) -> String {
            guard let url else { return raw }
            return HLSURL.resolve(base: url, reference: raw)
        }

        mutating func markMaster(_ n: Int) throws {
            if firstMasterLine == nil { firstMasterLine = n }
            if firstMediaLine != nil {
                throw HLSError.malformed(line: n, reason: "master playlist tag in a media playlist")
            }
        }

        mutating func markMedia(_ n: Int) throws {
            if firstMediaLine == nil { firstMediaLine = n }
            if firstMasterLine != nil {
                throw HLSError.malformed(line: n, reason: "media playlist tag in a master playlist")
            }
        }

        func attributes(_ value: Substring?, _ tag: String, _ n: Int) throws -> HLSAttributeList {
            guard let value else { throw HLSError.malformed(line: n, reason: "\(tag) needs an attribute list") }
            switch HLSAttributeList.parse(value) {
            case .success(let list): return list
            case .failure(let e): throw HLSError.malformed(line: n, reason: "\(tag): \(e.reason)")
            }
        }

        func requireValue(_ value: Substring?, _ tag: String, _ n: Int) throws -> Substring {
            guard let value, !value.isEmpty else { throw HLSError.malformed(line: n, reason: "\(tag) needs a value") }
            return value
        }

        mutating func line(_ line: Substring, number n: Int) throws {
            if line.isEmpty { return }
            if line.utf8.first == UInt8(ascii: "#") {
                guard line.hasPrefix("#EXT") else { return }      // a comment
                let body = line.dropFirst()
                let name: Substring
                let value: Substring?
                if let colon = body.firstIndex(of: ":") {
                    name = body[..<colon]
                    value = body[body.index(after: colon)...]
                } else {
                    name = body
                    value = nil
                }
                try tag(String(name), value, n)
            } else {
                try uri(String(line), n)
            }
        }

        // MARK: Tags

        mutating func tag(_ name: String, _ value: Substring?, _ n: Int) throws {
            switch name {
            case "EXTM3U":
                throw HLSError.malformed(line: n, reason: "EXTM3U must appear only on the first line")
            case "EXT-X-VERSION":
                guard version == nil else { throw HLSError.malformed(line: n, reason: "more than one EXT-X-VERSION") }
                guard let v = HLSNumber.decimalInteger(try requireValue(value, name, n).utf8) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-VERSION is not a decimal-integer")
                }
                version = v
            case "EXT-X-INDEPENDENT-SEGMENTS":
                independentSegments = true
            case "EXT-X-START":
                let a = try attributes(value, name, n)
                guard let t = a.signedDecimalFloat("TIME-OFFSET") else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-START needs a numeric TIME-OFFSET")
                }
                var precise = false
                if a.contains("PRECISE") {
                    guard let p = a.bool("PRECISE") else {
                        throw HLSError.malformed(line: n, reason: "EXT-X-START PRECISE must be YES or NO")
                    }
                    precise = p
                }
                start = HLSStart(timeOffset: t, precise: precise)
            case "EXT-X-DEFINE":
                throw HLSError.unsupported(tag: name)

            // Master playlist tags.
            case "EXT-X-STREAM-INF":
                try markMaster(n)
                if pendingStreamInf != nil {
                    throw HLSError.malformed(line: n, reason: "EXT-X-STREAM-INF without a URI line")
                }
                let a = try attributes(value, name, n)
                pendingStreamInf = (a, n)
            case "EXT-X-MEDIA":
                try markMaster(n)
                try media(try attributes(value, name, n), n)
            case "EXT-X-SESSION-KEY":
                try markMaster(n)
                throw HLSError.unsupported(tag: name)
            case "EXT-X-I-FRAME-STREAM-INF":
                // Listed (HLSVariant.iFrame), never chosen for playback.
                try markMaster(n)
                let a = try attributes(value, name, n)
                guard let raw = a.quotedString("URI"), !raw.isEmpty else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-I-FRAME-STREAM-INF needs a quoted URI")
                }
                try variant(a, raw, n)
                variants[variants.count - 1].iFrame = true
            case "EXT-X-SESSION-DATA", "EXT-X-CONTENT-STEERING":
                try markMaster(n)

            // Media playlist tags.
            case "EXTINF":
                try markMedia(n)
                if pending.duration != nil {
                    throw HLSError.malformed(line: n, reason: "EXTINF without a URI line")
                }
                let v = try requireValue(value, name, n)
                let durationText: Substring
                var title: String? = nil
                if let comma = v.firstIndex(of: ",") {
                    durationText = HLSParser.trim(v[..<comma])
                    let t = v[v.index(after: comma)...]
                    if !t.isEmpty { title = String(t) }
                } else {
                    durationText = v
                }
                guard let d = HLSNumber.decimal(durationText.utf8) else {
                    throw HLSError.malformed(line: n, reason: "EXTINF duration '\(durationText)' is not a decimal number")
                }
                pending.duration = d
                pending.title = title
                pending.extinfLine = n
            case "EXT-X-TARGETDURATION":
                try markMedia(n)
                guard targetDuration == nil else { throw HLSError.malformed(line: n, reason: "more than one EXT-X-TARGETDURATION") }
                guard let v = HLSNumber.decimalInteger(try requireValue(value, name, n).utf8), v <= HLSNumber.maxSeconds,
                      let i = Int(exactly: v) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-TARGETDURATION is not a decimal-integer in range")
                }
                targetDuration = i
            case "EXT-X-MEDIA-SEQUENCE":
                try markMedia(n)
                guard mediaSequence == nil else { throw HLSError.malformed(line: n, reason: "more than one EXT-X-MEDIA-SEQUENCE") }
                guard segmentCount == 0, pending.duration == nil else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-MEDIA-SEQUENCE after the first segment")
                }
                guard let v = HLSNumber.decimalInteger(try requireValue(value, name, n).utf8) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-MEDIA-SEQUENCE is not a decimal-integer")
                }
                mediaSequence = v
            case "EXT-X-DISCONTINUITY-SEQUENCE":
                try markMedia(n)
                guard discontinuitySequence == nil else {
                    throw HLSError.malformed(line: n, reason: "more than one EXT-X-DISCONTINUITY-SEQUENCE")
                }
                guard segmentCount == 0, pending.duration == nil, !pending.discontinuity else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-DISCONTINUITY-SEQUENCE after the first segment")
                }
                guard let v = HLSNumber.decimalInteger(try requireValue(value, name, n).utf8) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-DISCONTINUITY-SEQUENCE is not a decimal-integer")
                }
                discontinuitySequence = v
                currentDiscontinuitySequence = v
            case "EXT-X-PLAYLIST-TYPE":
                try markMedia(n)
                guard playlistType == nil else { throw HLSError.malformed(line: n, reason: "more than one EXT-X-PLAYLIST-TYPE") }
                switch value {
                case "EVENT": playlistType = .event
                case "VOD": playlistType = .vod
                default: throw HLSError.malformed(line: n, reason: "EXT-X-PLAYLIST-TYPE must be EVENT or VOD")
                }
            case "EXT-X-ENDLIST":
                try markMedia(n)
                endList = true
            case "EXT-X-I-FRAMES-ONLY":
                try markMedia(n)
                iFramesOnly = true
            case "EXT-X-DISCONTINUITY":
                try markMedia(n)
                pending.discontinuity = true
            case "EXT-X-GAP":
                try markMedia(n)
                pending.gap = true
            case "EXT-X-PROGRAM-DATE-TIME":
                try markMedia(n)
                let v = try requireValue(value, name, n)
                guard let ms = HLSDate.unixMillisecondsExact(String(v)) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-PROGRAM-DATE-TIME '\(v)' is not an RFC 3339 date-time")
                }
                pending.programDateTime = ms
            case "EXT-X-BYTERANGE":
                try markMedia(n)
                guard let r = HLSParser.byteRange(try requireValue(value, name, n)) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-BYTERANGE must be n[@o]")
                }
                pending.byteRange = r
                pending.byteRangeLine = n
            case "EXT-X-MAP":
                try markMedia(n)
                let a = try attributes(value, name, n)
                guard let raw = a.quotedString("URI"), !raw.isEmpty else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-MAP needs a quoted URI")
                }
                var range: HLSByteRange? = nil
                if a.contains("BYTERANGE") {
                    guard let text = a.quotedString("BYTERANGE"), let r = HLSParser.byteRange(Substring(text)) else {
                        throw HLSError.malformed(line: n, reason: "EXT-X-MAP BYTERANGE must be a quoted n[@o]")
                    }
                    let o = r.offset ?? 0
                    guard !o.addingReportingOverflow(r.length).overflow else {
                        throw HLSError.malformed(line: n, reason: "EXT-X-MAP BYTERANGE overflows")
                    }
                    range = HLSByteRange(length: r.length, offset: o)
                }
                map = HLSMap(uri: resolve(raw), rawURI: raw, byteRange: range)
            case "EXT-X-KEY":
                try markMedia(n)
                let a = try attributes(value, name, n)
                guard let method = a.enumerated("METHOD") else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-KEY needs a METHOD")
                }
                switch method {
                case "NONE":
                    try builder.setKey(rawURI: nil, iv: nil)
                case "AES-128":
                    guard let raw = a.quotedString("URI"), !raw.isEmpty else {
                        throw HLSError.malformed(line: n, reason: "EXT-X-KEY METHOD=AES-128 needs a quoted URI")
                    }
                    if let kf = a.quotedString("KEYFORMAT"), kf != "identity" {
                        throw HLSError.encryption("EXT-X-KEY METHOD=AES-128 KEYFORMAT=\(kf)")
                    }
                    var iv: (UInt64, UInt64)? = nil
                    if a.contains("IV") {
                        // A 128-bit number: right-aligned (RFC 8216 4.3.2.4), at most 16 bytes.
                        guard let b = a.hexadecimal("IV"), b.count <= 16 else {
                            throw HLSError.malformed(line: n, reason: "EXT-X-KEY IV must be a hexadecimal 128-bit number")
                        }
                        let full = [UInt8](repeating: 0, count: 16 - b.count) + b
                        var hi: UInt64 = 0, lo: UInt64 = 0
                        for k in 0..<8 { hi = hi << 8 | UInt64(full[k]); lo = lo << 8 | UInt64(full[8 + k]) }
                        iv = (hi, lo)
                    }
                    try builder.setKey(rawURI: raw, iv: iv)
                default:
                    // SAMPLE-AES, SAMPLE-AES-CTR, ...: named in the error (and the log).
                    throw HLSError.encryption("EXT-X-KEY METHOD=\(method)")
                }
            case "EXT-X-SERVER-CONTROL":
                try markMedia(n)
                let a = try attributes(value, name, n)
                var sc = HLSServerControl()
                func float(_ key: String) throws -> Rational? {
                    guard a.contains(key) else { return nil }
                    guard let v = a.decimalFloat(key) else {
                        throw HLSError.malformed(line: n, reason: "EXT-X-SERVER-CONTROL \(key) is not a decimal number")
                    }
                    return v
                }
                func flag(_ key: String) throws -> Bool {
                    guard a.contains(key) else { return false }
                    guard let v = a.bool(key) else {
                        throw HLSError.malformed(line: n, reason: "EXT-X-SERVER-CONTROL \(key) must be YES or NO")
                    }
                    return v
                }
                sc.holdBack = try float("HOLD-BACK")
                sc.partHoldBack = try float("PART-HOLD-BACK")
                sc.canSkipUntil = try float("CAN-SKIP-UNTIL")
                sc.canSkipDateRanges = try flag("CAN-SKIP-DATERANGES")
                sc.canBlockReload = try flag("CAN-BLOCK-RELOAD")
                serverControl = sc
            case "EXT-X-SKIP":
                try markMedia(n)
                throw HLSError.unsupported(tag: name)
            case "EXT-X-PART", "EXT-X-PART-INF", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT",
                 "EXT-X-DATERANGE", "EXT-X-BITRATE":
                // Media playlist tags this parser does not model; LL-HLS parts are ignored.
                try markMedia(n)
            default:
                break   // RFC 8216 6.3.1: unknown tags are ignored.
            }
        }

        mutating func media(_ a: HLSAttributeList, _ n: Int) throws {
            guard let type = a.enumerated("TYPE"), let group = a.quotedString("GROUP-ID"),
                  let name = a.quotedString("NAME") else {
                throw HLSError.malformed(line: n, reason: "EXT-X-MEDIA needs TYPE, GROUP-ID and NAME")
            }
            var raw: String? = nil
            if a.contains("URI") {
                guard let u = a.quotedString("URI") else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-MEDIA URI must be a quoted string")
                }
                raw = u
            }
            renditions.append(HLSRendition(
                type: type, groupID: group, name: name, language: a.quotedString("LANGUAGE"),
                uri: raw.map(resolve), rawURI: raw,
                isDefault: a.bool("DEFAULT") ?? false, autoselect: a.bool("AUTOSELECT") ?? false,
                attributes: a))
        }

        // MARK: URI lines

        mutating func uri(_ raw: String, _ n: Int) throws {
            if let (a, tagLine) = pendingStreamInf {
                pendingStreamInf = nil
                try variant(a, raw, tagLine)
                return
            }
            guard let duration = pending.duration else {
                throw HLSError.malformed(line: n, reason: "URI line without a preceding EXTINF or EXT-X-STREAM-INF")
            }
            let mediaSeq = mediaSequence ?? 0
            let (msn, o1) = mediaSeq.addingReportingOverflow(Int64(segmentCount))
            let (_, o2) = msn.addingReportingOverflow(1)
            guard !o1, !o2 else { throw HLSError.malformed(line: n, reason: "media sequence number overflows") }

            if pending.discontinuity {
                let (d, o) = currentDiscontinuitySequence.addingReportingOverflow(1)
                guard !o else { throw HLSError.malformed(line: n, reason: "discontinuity sequence number overflows") }
                currentDiscontinuitySequence = d
                pdtAnchor = nil
            }

            var range: HLSByteRange? = nil
            if let r = pending.byteRange {
                let offset: Int64
                if let o = r.offset {
                    offset = o
                } else {
                    // RFC 8216 4.3.2.2: the sub-range follows the previous segment's,
                    // which must be a sub-range of the same resource.
                    guard let prev = lastRange, prev.raw == raw || resolve(prev.raw) == resolve(raw) else {
                        throw HLSError.malformed(line: pending.byteRangeLine,
                                                 reason: "EXT-X-BYTERANGE without an offset must follow a sub-range of the same resource")
                    }
                    offset = prev.end
                }
                guard !offset.addingReportingOverflow(r.length).overflow else {
                    throw HLSError.malformed(line: pending.byteRangeLine, reason: "EXT-X-BYTERANGE overflows")
                }
                range = HLSByteRange(length: r.length, offset: offset)
            }

            if let pdt = pending.programDateTime {
                pdtAnchor = (pdt, offset)
            }
            try builder.append(rawURI: Substring(raw), duration: duration, title: pending.title, byteRange: range,
                               map: map, pdt: pdtAnchor, explicitPDT: pending.programDateTime != nil,
                               discontinuity: pending.discontinuity, discontinuitySequence: currentDiscontinuitySequence,
                               gap: pending.gap)
            lastRange = range.map { ($0.end, raw) }
            offset = offset + duration
            guard HLSNumber.compare(offset, Rational(HLSNumber.maxTimelineSeconds)) <= 0 else {
                throw HLSError.malformed(line: n, reason: "the playlist is longer than \(HLSNumber.maxTimelineSeconds) s")
            }
            pending = PendingSegment()
        }

        mutating func variant(_ a: HLSAttributeList, _ raw: String, _ n: Int) throws {
            guard let bandwidth = a.decimalInteger("BANDWIDTH") else {
                throw HLSError.malformed(line: n, reason: "EXT-X-STREAM-INF needs a decimal-integer BANDWIDTH")
            }
            func check<T>(_ key: String, _ read: (String) -> T?) throws -> T? {
                guard a.contains(key) else { return nil }
                guard let v = read(key) else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-STREAM-INF \(key) has the wrong type")
                }
                return v
            }
            let closedCaptions: String?
            if let cc = a.attribute("CLOSED-CAPTIONS") {
                guard cc.isQuoted || cc.value == "NONE" else {
                    throw HLSError.malformed(line: n, reason: "EXT-X-STREAM-INF CLOSED-CAPTIONS must be quoted or NONE")
                }
                closedCaptions = cc.value
            } else {
                closedCaptions = nil
            }
            variants.append(HLSVariant(
                bandwidth: bandwidth,
                averageBandwidth: try check("AVERAGE-BANDWIDTH", a.decimalInteger),
                resolution: try check("RESOLUTION", a.resolution),
                codecs: try check("CODECS", a.quotedString),
                frameRate: try check("FRAME-RATE", a.decimalFloat),
                audioGroup: try check("AUDIO", a.quotedString),
                videoGroup: try check("VIDEO", a.quotedString),
                subtitlesGroup: try check("SUBTITLES", a.quotedString),
                closedCaptions: closedCaptions,
                uri: resolve(raw), rawURI: raw, attributes: a))
        }

        // MARK: End

        func finish(lineCount: Int) throws -> HLSPlaylist {
            if firstMasterLine != nil {
                if let p = pendingStreamInf {
                    throw HLSError.malformed(line: p.line, reason: "EXT-X-STREAM-INF without a URI line")
                }
                return .master(HLSMasterPlaylist(
                    url: url, version: version, variants: variants, renditions: renditions,
                    independentSegments: independentSegments, start: start))
            }
            if pending.duration != nil {
                throw HLSError.malformed(line: pending.extinfLine, reason: "EXTINF without a URI line")
            }
            guard let targetDuration else {
                throw HLSError.malformed(line: 0, reason: "missing EXT-X-TARGETDURATION")
            }
            return .media(HLSMediaPlaylist(
                url: url, version: version, targetDuration: targetDuration,
                mediaSequence: mediaSequence ?? 0,
                discontinuitySequence: discontinuitySequence ?? 0,
                segments: builder.finish(mediaSequence: mediaSequence ?? 0, baseURL: url), endList: endList, playlistType: playlistType ?? HLSPlaylistType.none,
                serverControl: serverControl, start: start,
                independentSegments: independentSegments, iFramesOnly: iFramesOnly))
        }
    }

    /// `n[@o]`, both decimal-integers.
    static func byteRange(_ s: Substring) -> (length: Int64, offset: Int64?)? {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let n = HLSNumber.decimalInteger(parts[0].utf8) else { return nil }
        if parts.count == 2 {
            guard let o = HLSNumber.decimalInteger(parts[1].utf8) else { return nil }
            return (n, o)
        }
        return (n, nil)
    }
}
