/// A small, bounded JSON reader for preview sources (spritesheet.json): RFC 8259 values,
/// UTF-8 only, nesting at most `maxDepth` deep, numbers kept as their text (so a number is
/// read exactly, never through a Double). Untrusted input: any error is `nil`, never a trap.
public enum PreviewJSON: Sendable {
    case object([(String, PreviewJSON)])
    case array([PreviewJSON])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    public static let maxDepth = 32

    /// The value of `bytes`, or nil when they are not one JSON value (whitespace around it).
    public static func parse(_ bytes: [UInt8]) -> PreviewJSON? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var r = Reader(b: bytes)
        guard let v = r.value(depth: 0) else { return nil }
        r.skipSpace()
        return r.i == bytes.count ? v : nil
    }

    /// The member `key` of an object (the last one when a key repeats, as JavaScript's
    /// JSON.parse does), or nil.
    public subscript(key: String) -> PreviewJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    private struct Reader {
        let b: [UInt8]
        var i = 0

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }

        mutating func literal(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard i + u.count <= b.count, Array(b[i..<(i + u.count)]) == u else { return false }
            i += u.count
            return true
        }

        mutating func value(depth: Int) -> PreviewJSON? {
            guard depth < PreviewJSON.maxDepth else { return nil }
            skipSpace()
            guard i < b.count else { return nil }
            switch b[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members: [(String, PreviewJSON)] = []
                skipSpace()
                if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let k = string() else { return nil }
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                    i += 1
                    guard let v = value(depth: depth + 1) else { return nil }
                    members.append((k, v))
                    skipSpace()
                    guard i < b.count else { return nil }
                    if b[i] == UInt8(ascii: ",") { i += 1; continue }
                    if b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                    return nil
                }
            case UInt8(ascii: "["):
                i += 1
                var items: [PreviewJSON] = []
                skipSpace()
                if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                while true {
                    guard let v = value(depth: depth + 1) else { return nil }
                    items.append(v)
                    skipSpace()
                    guard i < b.count else { return nil }
                    if b[i] == UInt8(ascii: ",") { i += 1; continue }
                    if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                    return nil
                }
            case UInt8(ascii: "\""):
                return string().map { .string($0) }
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default:
                return number().map { .number($0) }
            }
        }

        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

        mutating func number() -> String? {
            let start = i
            if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, isDigit(b[i]) else { return nil }
            if b[i] == 0x30 { i += 1 } else { while i < b.count, isDigit(b[i]) { i += 1 } }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                guard i < b.count, isDigit(b[i]) else { return nil }
                while i < b.count, isDigit(b[i]) { i += 1 }
            }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard i < b.count, isDigit(b[i]) else { return nil }
                while i < b.count, isDigit(b[i]) { i += 1 }
            }
            return String(decoding: b[start..<i], as: UTF8.self)
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = b[i]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: return nil
                }
                v = v * 16 + d
                i += 1
            }
            return v
        }

        mutating func string() -> String? {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
                if c < 0x20 { return nil }
                if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
                i += 1
                guard i < b.count else { return nil }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard var u = hex4() else { return nil }
                    if u >= 0xD800 && u < 0xDC00 {
                        guard i + 2 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { return nil }
                        i += 2
                        guard let lo = hex4(), lo >= 0xDC00 && lo < 0xE000 else { return nil }
                        u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                    } else if u >= 0xDC00 && u < 0xE000 {
                        return nil
                    }
                    guard let s = Unicode.Scalar(u) else { return nil }
                    out.append(contentsOf: Array(String(Character(s)).utf8))
                default: return nil
                }
            }
            return nil
        }
    }
}

/// A JSON string literal of `s` (quotes, backslashes and control characters escaped).
public func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 {
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

/// A JSON number of `d` (the shortest text that reads back as `d`), null when not finite.
public func jsonDouble(_ d: Double) -> String { d.isFinite ? "\(d)" : "null" }
