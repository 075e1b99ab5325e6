/// An RFC 8216 section 4.2 attribute list: `NAME=value,NAME="quoted, value",...`.
///
/// Values are kept raw (quoted strings without their quotes) and read with the
/// typed accessors, which return nil when the value has the wrong type.
public struct HLSAttributeList: Hashable, Sendable {
    public struct Attribute: Hashable, Sendable {
        public var name: String
        /// The value; for a quoted string, the text between the quotes.
        public var value: String
        public var isQuoted: Bool
    }

    public private(set) var attributes: [Attribute] = []

    /// Parses an attribute list. Spaces or tabs around the separating commas
    /// are tolerated; names must be `[A-Z0-9-]+`; quoted strings may contain
    /// commas and '=' but not '"'; duplicate names are refused (RFC 8216 4.2).
    /// Returns a reason on failure.
    public static func parse(_ text: Substring) -> Result<HLSAttributeList, HLSAttributeError> {
        let b = Array(text.utf8)
        var list = HLSAttributeList()
        var i = 0
        func skipBlanks() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        skipBlanks()
        if i == b.count { return .success(list) }
        while true {
            skipBlanks()
            let nameStart = i
            while i < b.count, HLSAttributeList.isNameByte(b[i]) { i += 1 }
            guard i > nameStart else { return .failure(.init("attribute name expected at column \(i + 1)")) }
            let name = String(decoding: b[nameStart..<i], as: UTF8.self)
            guard i < b.count, b[i] == UInt8(ascii: "=") else {
                return .failure(.init("'=' expected after \(name)"))
            }
            i += 1
            let value: String
            let quoted: Bool
            if i < b.count, b[i] == UInt8(ascii: "\"") {
                let s = i + 1
                var e = s
                while e < b.count, b[e] != UInt8(ascii: "\"") { e += 1 }
                guard e < b.count else { return .failure(.init("unterminated quoted string in \(name)")) }
                value = String(decoding: b[s..<e], as: UTF8.self)
                quoted = true
                i = e + 1
            } else {
                let s = i
                while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "\""),
                      b[i] != 0x20, b[i] != 0x09 { i += 1 }
                guard i > s else { return .failure(.init("empty value for \(name)")) }
                if i < b.count, b[i] == UInt8(ascii: "\"") {
                    return .failure(.init("stray quote in \(name)"))
                }
                value = String(decoding: b[s..<i], as: UTF8.self)
                quoted = false
            }
            if list.attributes.contains(where: { $0.name == name }) {
                return .failure(.init("duplicate attribute \(name)"))
            }
            list.attributes.append(Attribute(name: name, value: value, isQuoted: quoted))
            skipBlanks()
            if i == b.count { return .success(list) }
            guard b[i] == UInt8(ascii: ",") else {
                return .failure(.init("',' expected after \(name)"))
            }
            i += 1
            skipBlanks()
            if i == b.count { return .success(list) }   // a trailing comma is tolerated
        }
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-")
    }

    public func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }
    public func contains(_ name: String) -> Bool { attribute(name) != nil }

    /// A quoted-string value.
    public func quotedString(_ name: String) -> String? {
        guard let a = attribute(name), a.isQuoted else { return nil }
        return a.value
    }
    /// An enumerated-string (unquoted) value.
    public func enumerated(_ name: String) -> String? {
        guard let a = attribute(name), !a.isQuoted else { return nil }
        return a.value
    }
    /// A decimal-integer value.
    public func decimalInteger(_ name: String) -> Int64? {
        guard let a = attribute(name), !a.isQuoted else { return nil }
        return HLSNumber.decimalInteger(a.value)
    }
    /// A decimal-floating-point value, exactly.
    public func decimalFloat(_ name: String) -> Rational? {
        guard let a = attribute(name), !a.isQuoted else { return nil }
        return HLSNumber.decimal(a.value)
    }
    /// A signed-decimal-floating-point value, exactly.
    public func signedDecimalFloat(_ name: String) -> Rational? {
        guard let a = attribute(name), !a.isQuoted else { return nil }
        return HLSNumber.decimal(a.value, allowSign: true)
    }
    /// A hexadecimal-sequence (`0x` or `0X` then hex digits), as bytes
    /// (an odd digit count is read with an implicit leading zero).
    public func hexadecimal(_ name: String) -> [UInt8]? {
        guard let a = attribute(name), !a.isQuoted else { return nil }
        let b = Array(a.value.utf8)
        guard b.count > 2, b[0] == UInt8(ascii: "0"), b[1] | 0x20 == UInt8(ascii: "x") else { return nil }
        var nibbles: [UInt8] = []
        for c in b[2...] {
            switch c {
            case 0x30...0x39: nibbles.append(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        if nibbles.count % 2 == 1 { nibbles.insert(0, at: 0) }
        var out: [UInt8] = []
        var k = 0
        while k + 1 < nibbles.count { out.append(nibbles[k] << 4 | nibbles[k + 1]); k += 2 }
        return out
    }
    /// A decimal-resolution value `WIDTHxHEIGHT`.
    public func resolution(_ name: String) -> HLSResolution? {
        guard let a = attribute(name), !a.isQuoted else { return nil }
        let parts = a.value.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = HLSNumber.decimalInteger(parts[0].utf8),
              let h = HLSNumber.decimalInteger(parts[1].utf8) else { return nil }
        return HLSResolution(width: w, height: h)
    }
    /// A YES/NO enumerated value.
    public func bool(_ name: String) -> Bool? {
        switch enumerated(name) {
        case "YES": return true
        case "NO": return false
        default: return nil
        }
    }
}

public struct HLSAttributeError: Error, Hashable, Sendable {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}

public struct HLSResolution: Hashable, Sendable {
    public var width: Int64
    public var height: Int64
    public init(width: Int64, height: Int64) { self.width = width; self.height = height }
}
