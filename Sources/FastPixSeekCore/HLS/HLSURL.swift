/// RFC 3986 URI references: splitting (Appendix B) and reference resolution
/// (section 5.2, strict). No percent-decoding or normalisation beyond dot
/// segments is done; the strings are treated as opaque otherwise.
public struct HLSURL: Hashable, CustomStringConvertible, Sendable {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?

    public init(scheme: String? = nil, authority: String? = nil, path: String = "",
                query: String? = nil, fragment: String? = nil) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Splits a URI reference into its five components, as the regular
    /// expression of RFC 3986 Appendix B does; a scheme must also match
    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (so "./a:b" is a path).
    public init(parsing text: String) {
        let b = Array(text.utf8)
        var i = 0
        func str(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }
        // Scheme: up to the first ':' that precedes any '/', '?' or '#'.
        var colon: Int? = nil
        for (k, c) in b.enumerated() {
            if c == UInt8(ascii: ":") { colon = k; break }
            if c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") { break }
        }
        if let colon, colon > 0, HLSURL.isScheme(b[0..<colon]) {
            scheme = str(0..<colon)
            i = colon + 1
        }
        if i + 1 < b.count, b[i] == UInt8(ascii: "/"), b[i + 1] == UInt8(ascii: "/") {
            var e = i + 2
            while e < b.count, b[e] != UInt8(ascii: "/"), b[e] != UInt8(ascii: "?"), b[e] != UInt8(ascii: "#") { e += 1 }
            authority = str((i + 2)..<e)
            i = e
        }
        var e = i
        while e < b.count, b[e] != UInt8(ascii: "?"), b[e] != UInt8(ascii: "#") { e += 1 }
        path = str(i..<e)
        i = e
        if i < b.count, b[i] == UInt8(ascii: "?") {
            e = i + 1
            while e < b.count, b[e] != UInt8(ascii: "#") { e += 1 }
            query = str((i + 1)..<e)
            i = e
        }
        if i < b.count, b[i] == UInt8(ascii: "#") {
            fragment = str((i + 1)..<b.count)
        }
    }

    private static func isScheme(_ s: ArraySlice<UInt8>) -> Bool {
        guard let f = s.first, (f | 0x20) >= UInt8(ascii: "a"), (f | 0x20) <= UInt8(ascii: "z") else { return false }
        for c in s {
            let l = c | 0x20
            let ok = (l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z")) || (c >= 0x30 && c <= 0x39)
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            if !ok { return false }
        }
        return true
    }

    /// Recomposition (RFC 3986 section 5.3).
    public var description: String {
        var out = ""
        if let scheme { out += scheme + ":" }
        if let authority { out += "//" + authority }
        out += path
        if let query { out += "?" + query }
        if let fragment { out += "#" + fragment }
        return out
    }

    /// The target URI of `reference` resolved against `base` (RFC 3986 5.2.2,
    /// strict: a reference with a scheme is taken as is, dot segments removed).
    public static func resolve(base: String, reference: String) -> String {
        resolve(base: HLSURL(parsing: base), reference: HLSURL(parsing: reference)).description
    }

    public static func resolve(base: HLSURL, reference r: HLSURL) -> HLSURL {
        var t = HLSURL()
        if r.scheme != nil {
            t.scheme = r.scheme
            t.authority = r.authority
            t.path = removeDotSegments(r.path)
            t.query = r.query
        } else {
            if r.authority != nil {
                t.authority = r.authority
                t.path = removeDotSegments(r.path)
                t.query = r.query
            } else {
                if r.path.isEmpty {
                    t.path = base.path
                    t.query = r.query ?? base.query
                } else {
                    if r.path.utf8.first == UInt8(ascii: "/") {
                        t.path = removeDotSegments(r.path)
                    } else {
                        t.path = removeDotSegments(merge(base: base, path: r.path))
                    }
                    t.query = r.query
                }
                t.authority = base.authority
            }
            t.scheme = base.scheme
        }
        t.fragment = r.fragment
        return t
    }

    /// RFC 3986 5.2.3.
    static func merge(base: HLSURL, path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        let b = Array(base.path.utf8)
        guard let slash = b.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(decoding: b[...slash], as: UTF8.self) + path
    }

    /// RFC 3986 5.2.4, on bytes.
    public static func removeDotSegments(_ path: String) -> String {
        var input = Array(path.utf8)[...]
        var output: [UInt8] = []
        let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
        func starts(_ p: [UInt8]) -> Bool { input.starts(with: p) }
        func removeLastSegment() {
            if let k = output.lastIndex(of: slash) { output.removeSubrange(k...) } else { output.removeAll() }
        }
        while !input.isEmpty {
            if starts([dot, dot, slash]) {                               // A: "../"
                input = input.dropFirst(3)
            } else if starts([dot, slash]) {                             // A: "./"
                input = input.dropFirst(2)
            } else if starts([slash, dot, slash]) {                      // B: "/./"
                input = input.dropFirst(2)
            } else if input.elementsEqual([slash, dot]) {                // B: "/." at end
                input = [slash][...]
            } else if starts([slash, dot, dot, slash]) {                 // C: "/../"
                input = input.dropFirst(3)
                removeLastSegment()
            } else if input.elementsEqual([slash, dot, dot]) {           // C: "/.." at end
                input = [slash][...]
                removeLastSegment()
            } else if input.elementsEqual([dot]) || input.elementsEqual([dot, dot]) {  // D
                input = [][...]
            } else {                                                     // E
                var end = input.startIndex
                if input[end] == slash { end += 1 }
                while end < input.endIndex, input[end] != slash { end += 1 }
                output.append(contentsOf: input[input.startIndex..<end])
                input = input[end...]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
