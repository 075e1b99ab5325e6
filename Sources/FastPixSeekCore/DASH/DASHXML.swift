/// A small strict XML reader for the subset MPDs use (ISO/IEC 23009-1 manifests): elements,
/// attributes, text, the five predefined entities and character references, comments,
/// CDATA sections; processing instructions (the XML declaration included) and a DOCTYPE
/// without an internal subset are skipped. No DTD, no external entities, no namespaces
/// beyond splitting a prefix off element names: nothing in the input can make the reader
/// fetch, expand or recurse. Bounded: the element count, the nesting depth and the
/// attributes per element are capped; every defect is a `DASHError`, never a trap.
/// Pure; tested on fake data (DASHXMLTests).
public struct DASHXMLElement: Hashable, Sendable {
    /// The element name without its namespace prefix ("MPD" for "mpd:MPD").
    public var name: String
    /// Attributes as written (a prefixed one keeps its prefix, e.g. "cenc:default_KID").
    public var attributes: [(name: String, value: String)] {
        get { attributeList.map { ($0.name, $0.value) } }
        set { attributeList = newValue.map { Attribute(name: $0.name, value: $0.value) } }
    }
    public var children: [DASHXMLElement] = []
    /// The element's own text (character data and CDATA), entities decoded.
    public var text: String = ""
    /// The 1-based line the element starts on (error messages).
    public var line: Int = 0

    struct Attribute: Hashable, Sendable { var name: String; var value: String }
    var attributeList: [Attribute] = []

    public init(name: String) { self.name = name }

    public subscript(attribute name: String) -> String? {
        attributeList.first { $0.name == name }?.value
    }

    /// The child elements named `name`, in document order.
    public func children(_ name: String) -> [DASHXMLElement] { children.filter { $0.name == name } }

    /// The first child named `name`.
    public func child(_ name: String) -> DASHXMLElement? { children.first { $0.name == name } }
}

public enum DASHXML {
    /// The reader's bounds.
    public struct Limits: Hashable, Sendable {
        public var maxElements = 1_000_000
        public var maxDepth = 32
        public var maxAttributes = 256
        public init() {}
        /// The bounds for a byte budget (fpx_player_config.max_buffer_bytes): an element
        /// with its attributes is held in a few hundred bytes, so at most budget / 256
        /// elements (1,000 to 1,000,000).
        public init(budget: Int) {
            maxElements = min(1_000_000, max(1_000, budget / 256))
        }
    }

    /// Parses a document whose root element is returned. Throws `DASHError`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: Limits = Limits()) throws -> DASHXMLElement {
        var r = Reader(b: bytes, limits: limits)
        return try r.document()
    }

    public static func parse(_ text: String, limits: Limits = Limits()) throws -> DASHXMLElement {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { try parse($0, limits: limits) }
    }

    struct Reader {
        let b: UnsafeBufferPointer<UInt8>
        let limits: Limits
        var i = 0
        var line = 1
        var elements = 0

        init(b: UnsafeBufferPointer<UInt8>, limits: Limits) { self.b = b; self.limits = limits }

        func fail(_ reason: String) -> DASHError { .malformedXML(line: line, reason: reason) }

        func at(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard i + n <= b.count else { return false }
            let p = s.utf8Start
            for k in 0..<n where b[i + k] != p[k] { return false }
            return true
        }

        mutating func advance(_ n: Int = 1) {
            for _ in 0..<n {
                if b[i] == 0x0A { line += 1 }
                i += 1
            }
        }

        static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        static func isNameStart(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A || c >= 0x80
        }
        static func isName(_ c: UInt8) -> Bool {
            isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E
        }

        mutating func skipSpace() { while i < b.count && Reader.isSpace(b[i]) { advance() } }

        /// Skips past `end`; false when the input ends first.
        mutating func skip(past end: StaticString) -> Bool {
            while i < b.count {
                if at(end) { advance(end.utf8CodeUnitCount); return true }
                advance()
            }
            return false
        }

        mutating func document() throws -> DASHXMLElement {
            try validateUTF8()
            if at("\u{FEFF}") { i += 3 }
            var root: DASHXMLElement?
            while true {
                skipSpace()
                if i >= b.count { break }
                if try misc() { continue }
                guard b[i] == 0x3C, root == nil else { throw fail("content outside the root element") }
                root = try element(depth: 1)
            }
            guard let root else { throw DASHError.notAManifest }
            return root
        }

        /// A comment, a processing instruction or a DOCTYPE: skipped (true).
        mutating func misc() throws -> Bool {
            if at("<!--") {
                guard skip(past: "-->") else { throw fail("unterminated comment") }
                return true
            }
            if at("<?") {
                guard skip(past: "?>") else { throw fail("unterminated processing instruction") }
                return true
            }
            if at("<!DOCTYPE") {
                // An internal subset could declare entities: refused, never expanded.
                while i < b.count && b[i] != 0x3E {
                    if b[i] == 0x5B { throw DASHError.unsupported("a DOCTYPE with an internal subset") }
                    advance()
                }
                guard i < b.count else { throw fail("unterminated DOCTYPE") }
                advance()
                return true
            }
            return false
        }

        mutating func name() throws -> String {
            let s = i
            guard i < b.count, Reader.isNameStart(b[i]) else { throw fail("a name expected") }
            while i < b.count && Reader.isName(b[i]) { i += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: b[s..<i]), as: UTF8.self)
        }

        mutating func element(depth: Int) throws -> DASHXMLElement {
            guard depth <= limits.maxDepth else { throw DASHError.tooLarge("elements nested deeper than \(limits.maxDepth)") }
            elements += 1
            guard elements <= limits.maxElements else { throw DASHError.tooLarge("more than \(limits.maxElements) elements") }
            let startLine = line
            advance()   // "<"
            let qname = try name()
            var e = DASHXMLElement(name: qname.split(separator: ":").last.map(String.init) ?? qname)
            e.line = startLine
            // Attributes.
            while true {
                let hadSpace = i < b.count && Reader.isSpace(b[i])
                skipSpace()
                guard i < b.count else { throw fail("unterminated start tag <\(qname)>") }
                if b[i] == 0x3E { advance(); break }
                if at("/>") { advance(2); return e }
                guard hadSpace else { throw fail("a space expected before an attribute of <\(qname)>") }
                let an = try name()
                skipSpace()
                guard i < b.count, b[i] == 0x3D else { throw fail("'=' expected after attribute \(an)") }
                advance()
                skipSpace()
                guard i < b.count, b[i] == 0x22 || b[i] == 0x27 else { throw fail("a quoted value expected for \(an)") }
                let q = b[i]
                advance()
                let s = i
                while i < b.count && b[i] != q {
                    if b[i] == 0x3C { throw fail("'<' in the value of \(an)") }
                    advance()
                }
                guard i < b.count else { throw fail("unterminated value of \(an)") }
                let value = try decode(s..<i, attribute: true)
                advance()
                guard !e.attributeList.contains(where: { $0.name == an }) else { throw fail("duplicate attribute \(an) on <\(qname)>") }
                guard e.attributeList.count < limits.maxAttributes else {
                    throw DASHError.tooLarge("more than \(limits.maxAttributes) attributes on <\(qname)>")
                }
                e.attributeList.append(DASHXMLElement.Attribute(name: an, value: value))
            }
            // Content.
            var text = ""
            while true {
                guard i < b.count else { throw fail("<\(qname)> is not closed") }
                if at("</") {
                    advance(2)
                    let close = try name()
                    guard close == qname else { throw fail("</\(close)> closes <\(qname)>") }
                    skipSpace()
                    guard i < b.count, b[i] == 0x3E else { throw fail("'>' expected after </\(close)") }
                    advance()
                    e.text = text
                    return e
                }
                if at("<![CDATA[") {
                    advance(9)
                    let s = i
                    guard skip(past: "]]>") else { throw fail("unterminated CDATA section") }
                    text += String(decoding: UnsafeBufferPointer(rebasing: b[s..<(i - 3)]), as: UTF8.self)
                    continue
                }
                if try misc() { continue }
                if b[i] == 0x3C {
                    e.children.append(try element(depth: depth + 1))
                    continue
                }
                let s = i
                while i < b.count && b[i] != 0x3C { advance() }
                text += try decode(s..<i, attribute: false)
            }
        }

        /// Character data with its references decoded. Attribute values have their
        /// whitespace normalised to spaces (XML 1.0 3.3.3).
        func decode(_ r: Range<Int>, attribute: Bool) throws -> String {
            var out: [UInt8] = []
            out.reserveCapacity(r.count)
            var k = r.lowerBound
            while k < r.upperBound {
                let c = b[k]
                if c == 0x26 {   // '&'
                    var e = k + 1
                    while e < r.upperBound && b[e] != 0x3B && e - k < 12 { e += 1 }
                    guard e < r.upperBound, b[e] == 0x3B else { throw fail("an unterminated entity reference") }
                    let ref = String(decoding: UnsafeBufferPointer(rebasing: b[(k + 1)..<e]), as: UTF8.self)
                    switch ref {
                    case "lt": out.append(0x3C)
                    case "gt": out.append(0x3E)
                    case "amp": out.append(0x26)
                    case "quot": out.append(0x22)
                    case "apos": out.append(0x27)
                    default:
                        guard ref.hasPrefix("#"), let v = Reader.charRef(ref.dropFirst()), let u = Unicode.Scalar(v), v != 0 else {
                            throw fail("unknown entity &\(ref);")
                        }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    }
                    k = e + 1
                    continue
                }
                if attribute && (c == 0x09 || c == 0x0A || c == 0x0D) { out.append(0x20) } else { out.append(c) }
                k += 1
            }
            return String(decoding: out, as: UTF8.self)
        }

        static func charRef(_ s: Substring) -> UInt32? {
            if s.hasPrefix("x") { return s.count > 1 && s.count <= 7 ? UInt32(s.dropFirst(), radix: 16) : nil }
            return !s.isEmpty && s.count <= 8 ? UInt32(s, radix: 10) : nil
        }

        /// The document must be UTF-8 (the only encoding this reader takes).
        func validateUTF8() throws {
            var it = b.makeIterator()
            var d = UTF8()
            while true {
                switch d.decode(&it) {
                case .scalarValue: continue
                case .emptyInput: return
                case .error: throw DASHError.invalidEncoding
                }
            }
        }
    }
}
