/// A SegmentTemplate@media or @initialization string (ISO/IEC 23009-1 5.3.9.4.4): literal
/// text with `$RepresentationID$`, `$Number$`, `$Bandwidth$`, `$Time$` (the last three with
/// an optional `%0<width>d` format tag) and `$$` for a dollar sign. Parsed once, rendered per
/// segment. `$SubNumber$` is refused (typed), any other identifier is malformed.
public struct DASHTemplate: Hashable, Sendable {
    enum Part: Hashable, Sendable {
        case literal(String)
        case representationID
        case number(width: Int)
        case bandwidth(width: Int)
        case time(width: Int)
    }

    let parts: [Part]

    public var usesNumber: Bool { parts.contains { if case .number = $0 { return true }; return false } }
    public var usesTime: Bool { parts.contains { if case .time = $0 { return true }; return false } }

    /// The widest format tag accepted (the value is at most 19 digits anyway).
    static let maxWidth = 32

    /// Parses `text`; `what` names the attribute in errors.
    public init(_ text: String, what: String, line: Int) throws {
        func bad(_ why: String) -> DASHError { .malformed(element: "SegmentTemplate", line: line, reason: "\(what): \(why)") }
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let d = rest.firstIndex(of: "$") {
            literal += rest[..<d]
            let after = rest[rest.index(after: d)...]
            guard let e = after.firstIndex(of: "$") else { throw bad("an unclosed $ identifier") }
            let ident = after[..<e]
            rest = after[after.index(after: e)...]
            if ident.isEmpty { literal += "$"; continue }
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            var name = ident
            var width = 1
            if let p = ident.firstIndex(of: "%") {
                name = ident[..<p]
                let tag = ident[ident.index(after: p)...]
                guard tag.hasPrefix("0"), tag.hasSuffix("d"), tag.count >= 3,
                      let w = Int(tag.dropFirst().dropLast()), w >= 1, w <= DASHTemplate.maxWidth else {
                    throw bad("the format tag of $\(ident)$ is not %0<width>d")
                }
                width = w
            }
            switch name {
            case "RepresentationID":
                guard width == 1, !ident.contains("%") else { throw bad("$RepresentationID$ takes no format tag") }
                parts.append(.representationID)
            case "Number": parts.append(.number(width: width))
            case "Bandwidth": parts.append(.bandwidth(width: width))
            case "Time": parts.append(.time(width: width))
            case "SubNumber": throw DASHError.unsupported("SegmentTemplate $SubNumber$")
            default: throw bad("unknown identifier $\(name)$")
            }
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        guard !(parts.contains { if case .number = $0 { return true }; return false }
                && parts.contains { if case .time = $0 { return true }; return false }) else {
            throw bad("both $Number$ and $Time$")
        }
        self.parts = parts
    }

    /// The URL reference for one segment.
    public func render(representationID: String, bandwidth: Int64, number: Int64 = 0, time: Int64 = 0) -> String {
        func padded(_ v: Int64, _ w: Int) -> String {
            let s = String(v)
            return s.count >= w ? s : String(repeating: "0", count: w - s.count) + s
        }
        var out = ""
        for p in parts {
            switch p {
            case .literal(let s): out += s
            case .representationID: out += representationID
            case .number(let w): out += padded(number, w)
            case .bandwidth(let w): out += padded(bandwidth, w)
            case .time(let w): out += padded(time, w)
            }
        }
        return out
    }
}
