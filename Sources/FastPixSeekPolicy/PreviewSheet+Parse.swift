/// Reading preview sources (seek.h, "Seek previews"): a spritesheet.json or a WebVTT
/// thumbnail track, untrusted, into a `PreviewSheet`. Every malformed field is a typed
/// `PreviewSourceError` (FPX_ERROR_PREVIEW_MALFORMED with the fpx_preview_field); nothing
/// here does I/O or checks URLs (the caller resolves and checks each tile's image).
extension PreviewSheet {
    static let maxTiles = Int(ABIConstants.FPX_PREVIEW_MAX_TILES)
    static let maxSide = Int64(ABIConstants.FPX_PREVIEW_MAX_IMAGE_SIDE)
    /// Starts, durations: at most 1e9 s.
    static let maxMicroseconds: Int64 = 1_000_000_000 * 1_000_000

    /// A spritesheet.json. Starts and the duration are read exactly from their decimal
    /// text and rounded down to the microsecond.
    public static func parseSpritesheet(_ bytes: [UInt8]) throws -> PreviewSheet {
        guard let root = PreviewJSON.parse(bytes), case .object = root else { throw PreviewSourceError.malformed(.syntax) }
        guard case .string(let url)? = root["url"], !url.isEmpty else { throw PreviewSourceError.malformed(.url) }
        guard let w = integer(root["tile_width"], 1...maxSide) else { throw PreviewSourceError.malformed(.tileWidth) }
        guard let h = integer(root["tile_height"], 1...maxSide) else { throw PreviewSourceError.malformed(.tileHeight) }
        guard let dur = microseconds(root["duration"]) else { throw PreviewSourceError.malformed(.duration) }
        guard case .array(let items)? = root["tiles"], !items.isEmpty, items.count <= maxTiles else {
            throw PreviewSourceError.malformed(.tiles)
        }
        var tiles: [PreviewTile] = []
        tiles.reserveCapacity(items.count)
        for item in items {
            guard case .object = item else { throw PreviewSourceError.malformed(.tiles) }
            guard let start = microseconds(item["start"]) else { throw PreviewSourceError.malformed(.tileStart) }
            guard let x = integer(item["x"], 0...(maxSide - w)) else { throw PreviewSourceError.malformed(.tileX) }
            guard let y = integer(item["y"], 0...(maxSide - h)) else { throw PreviewSourceError.malformed(.tileY) }
            var image = url
            if let u = item["url"] {
                guard case .string(let s) = u, !s.isEmpty else { throw PreviewSourceError.malformed(.tileUrl) }
                image = s
            }
            tiles.append(PreviewTile(start: MediaTime(value: start, timescale: 1_000_000), image: image,
                                     x: Int32(x), y: Int32(y), width: Int32(w), height: Int32(h)))
        }
        var sheet = PreviewSheet(tiles: tiles, end: MediaTime(value: dur, timescale: 1_000_000))
        sheet.defaultImage = url
        return sheet
    }

    /// A JSON integer (digits only, no fraction or exponent) within `range`.
    static func integer(_ v: PreviewJSON?, _ range: ClosedRange<Int64>) -> Int64? {
        guard case .number(let text)? = v, text.utf8.count <= 12, let n = Int64(text), range.contains(n) else { return nil }
        return n
    }

    /// A JSON number of seconds in 0...1e9, exactly, rounded down to the microsecond.
    static func microseconds(_ v: PreviewJSON?) -> Int64? {
        guard case .number(let text)? = v else { return nil }
        return decimalMicroseconds(text)
    }

    /// floor(value x 10^6) of a non-negative JSON number's text, exactly (the decimal digits
    /// shifted, never a Double); nil when negative or past 1e9 s.
    static func decimalMicroseconds(_ text: String) -> Int64? {
        var digits: [UInt8] = []
        var exponent = 0
        var afterPoint = false
        var s = Substring(text)
        let negative = s.hasPrefix("-")
        if negative { s = s.dropFirst() }
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let x = Int(s[s.index(after: e)...]), abs(x) <= 400 else { return nil }
            exponent = x
            s = s[..<e]
        }
        for c in s.utf8 {
            if c == 0x2E { afterPoint = true; continue }
            digits.append(c - 0x30)
            if afterPoint { exponent -= 1 }
        }
        // value = digits x 10^exponent; micro = digits x 10^(exponent + 6), floored.
        while let f = digits.first, f == 0, digits.count > 1 { digits.removeFirst() }
        if negative { return digits == [0] ? 0 : nil }  // -0 is 0; any other negative is refused
        let shift = exponent + 6
        if shift < 0 {
            let keep = digits.count + shift
            if keep <= 0 { return 0 }
            digits.removeLast(-shift)
        } else {
            if digits != [0] && digits.count + shift > 19 { return nil }
            digits.append(contentsOf: repeatElement(0, count: digits == [0] ? 0 : shift))
        }
        guard digits.count <= 19 else { return nil }
        var n: Int64 = 0
        for d in digits {
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            n = a
        }
        return n <= maxMicroseconds ? n : nil
    }

    /// A WebVTT thumbnail track: cues whose first payload line is IMAGE#xywh=[pixel:]x,y,w,h.
    /// NOTE, STYLE and REGION blocks are skipped. The range ends at the last cue's end.
    public static func parseWebVTT(_ bytes: [UInt8]) throws -> PreviewSheet {
        guard var text = String(validating: bytes, as: UTF8.self) else { throw PreviewSourceError.malformed(.syntax) }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { Substring($0) }
        guard let head = lines.first, head == "WEBVTT" || head.hasPrefix("WEBVTT ") || head.hasPrefix("WEBVTT\t") else {
            throw PreviewSourceError.malformed(.syntax)
        }
        var tiles: [PreviewTile] = []
        var end = MediaTime(value: 0, timescale: 1000)
        var i = 1
        while i < lines.count {
            // A block: the lines up to the next blank one.
            while i < lines.count && lines[i].isEmpty { i += 1 }
            if i >= lines.count { break }
            var block: [Substring] = []
            while i < lines.count && !lines[i].isEmpty { block.append(lines[i]); i += 1 }
            let first = block[0]
            if first.hasPrefix("NOTE") || first == "STYLE" || first == "REGION" { continue }
            // The timing line is the first or (after a cue identifier) the second line.
            guard let t = block.firstIndex(where: { $0.contains("-->") }), t <= 1 else {
                throw PreviewSourceError.malformed(.cueTiming)
            }
            let parts = block[t].split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 3, parts[1] == "-->", let s = vttMilliseconds(parts[0]), let e = vttMilliseconds(parts[2]), e >= s else {
                throw PreviewSourceError.malformed(.cueTiming)
            }
            guard t + 1 < block.count, let tile = xywhTile(block[t + 1], start: s) else {
                throw PreviewSourceError.malformed(.cueXywh)
            }
            tiles.append(tile)
            guard tiles.count <= maxTiles else { throw PreviewSourceError.malformed(.tiles) }
            let em = MediaTime(value: e, timescale: 1000)
            if MediaTime.compare(em, end) > 0 { end = em }
        }
        guard !tiles.isEmpty else { throw PreviewSourceError.malformed(.tiles) }
        return PreviewSheet(tiles: tiles, end: end)
    }

    /// [hh:]mm:ss.ttt in milliseconds (hours: at least two digits; minutes, seconds 00-59).
    static func vttMilliseconds(_ s: Substring) -> Int64? {
        let f = s.split(separator: ":", omittingEmptySubsequences: false)
        guard f.count == 2 || f.count == 3 else { return nil }
        func digits(_ x: Substring, _ n: ClosedRange<Int>) -> Int64? {
            guard n.contains(x.utf8.count), x.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(x)
        }
        let secParts = f[f.count - 1].split(separator: ".", omittingEmptySubsequences: false)
        guard secParts.count == 2, let sec = digits(secParts[0], 2...2), let ms = digits(secParts[1], 3...3), sec < 60,
              let min = digits(f[f.count - 2], 2...2), min < 60 else { return nil }
        var h: Int64 = 0
        if f.count == 3 { guard let x = digits(f[0], 2...7) else { return nil }; h = x }
        return ((h * 60 + min) * 60 + sec) * 1000 + ms
    }

    /// IMAGE#xywh=[pixel:]x,y,w,h as a tile (the rectangle within the image cap).
    static func xywhTile(_ line: Substring, start: Int64) -> PreviewTile? {
        let u = Array(line.utf8), key = Array("#xywh=".utf8)
        guard u.count > key.count,
              let at = (0...(u.count - key.count)).reversed().first(where: { Array(u[$0..<($0 + key.count)]) == key })
        else { return nil }
        let image = String(decoding: u[..<at], as: UTF8.self)
        var spec = Substring(String(decoding: u[(at + key.count)...], as: UTF8.self))
        if spec.hasPrefix("pixel:") { spec = spec.dropFirst(6) }
        let n = spec.split(separator: ",", omittingEmptySubsequences: false)
        guard !image.isEmpty, n.count == 4 else { return nil }
        var v: [Int64] = []
        for p in n {
            guard (1...6).contains(p.utf8.count), p.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let x = Int64(p) else { return nil }
            v.append(x)
        }
        guard v[2] >= 1, v[3] >= 1, v[0] + v[2] <= maxSide, v[1] + v[3] <= maxSide else { return nil }
        return PreviewTile(start: MediaTime(value: start, timescale: 1000), image: image,
                           x: Int32(v[0]), y: Int32(v[1]), width: Int32(v[2]), height: Int32(v[3]))
    }
}
