/// The wall clock of a DASH UTCTiming `urn:mpeg:dash:utc:http-head:2014` source: the `Date`
/// field of the server's answer to a HEAD request (ISO/IEC 23009-1 5.8.5.7), read from the
/// bytes of that answer's head. Pure: the engine sends the request and hands the bytes here.
///
/// Rules, in order:
/// 1. The head ends at the first empty line (CRLF CRLF, or LF LF); at most `maxBytes`.
/// 2. The status line is `HTTP/1.0` or `HTTP/1.1`, a space, three digits, 2xx. A redirect is
///    not followed (the time source must answer itself).
/// 3. The first field named `Date` (any case; RFC 9110 5.1) holds the date; a field line
///    without a colon, or starting with white space (obsolete line folding), is malformed.
/// 4. The date is an IMF-fixdate (RFC 9110 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, a valid
///    day of a valid month, 00-23 hours, 00-59 minutes, 00-60 seconds (60, a leap second, is
///    the next second: Unix time has none). The obsolete RFC 850 and asctime forms are
///    refused: the time source is a server of this century.
/// The answer is Unix time in milliseconds, whole seconds (the field's resolution).
public enum HTTPHeadDate {
    /// The most bytes a HEAD answer's head may have.
    public static let maxBytes = 8192

    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// No empty line within `maxBytes` (or the connection ended first).
        case incomplete
        /// Not an HTTP/1.x status line, or a field line that is not `name: value`.
        case malformed
        /// A status other than 2xx.
        case status(Int)
        /// No Date field.
        case noDate
        /// A Date field that is not an IMF-fixdate.
        case badDate

        public var description: String {
            switch self {
            case .incomplete: return "the answer's head did not end within \(HTTPHeadDate.maxBytes) bytes"
            case .malformed: return "the answer is not an HTTP/1.x head"
            case .status(let s): return "the answer's status is \(s), not 2xx"
            case .noDate: return "the answer has no Date field"
            case .badDate: return "the answer's Date is not an IMF-fixdate"
            }
        }
    }

    /// Where the head ends in `bytes` (the index just past its empty line), or nil when it
    /// has not ended yet.
    public static func headEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A {
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { return i + 2 }
                if i + 2 < bytes.count && bytes[i + 1] == 0x0D && bytes[i + 2] == 0x0A { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// The Date of a complete head (`headEnd` found its end), Unix milliseconds.
    public static func unixMilliseconds(head bytes: UnsafeBufferPointer<UInt8>) throws -> Rational {
        guard let end = headEnd(bytes), end <= maxBytes else { throw Refusal.incomplete }
        // Lines split on the bytes (a Swift Character holds CR LF as one).
        var lines: [Substring] = []
        for raw in bytes[0..<end].split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = raw.last == 0x0D ? raw.dropLast() : raw[...]
            lines.append(Substring(String(decoding: line, as: UTF8.self)))
        }
        guard let status = lines.first, let code = statusCode(status) else { throw Refusal.malformed }
        guard (200...299).contains(code) else { throw Refusal.status(code) }
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else {
                throw Refusal.malformed
            }
            guard line[..<colon].lowercased() == "date" else { continue }
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
            var trimmed = value
            while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
            guard let ms = imfFixdate(trimmed) else { throw Refusal.badDate }
            return ms
        }
        throw Refusal.noDate
    }

    /// `HTTP/1.x NNN ...`: the status code.
    static func statusCode(_ line: Substring) -> Int? {
        let u = Array(line.utf8)
        guard u.count >= 12, Array(u[0..<7]) == Array("HTTP/1.".utf8), u[7] == 0x30 || u[7] == 0x31,
              u[8] == 0x20 else { return nil }
        var code = 0
        for k in 9..<12 {
            guard u[k] >= 0x30 && u[k] <= 0x39 else { return nil }
            code = code * 10 + Int(u[k] - 0x30)
        }
        guard u.count == 12 || u[12] == 0x20 else { return nil }
        return code
    }

    static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An IMF-fixdate as Unix milliseconds, or nil.
    public static func imfFixdate(_ text: Substring) -> Rational? {
        let u = Array(text.utf8)
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, separators at fixed places.
        guard u.count == 29, u[3] == 0x2C, u[4] == 0x20, u[7] == 0x20, u[11] == 0x20, u[16] == 0x20,
              u[19] == 0x3A, u[22] == 0x3A, u[25] == 0x20, String(decoding: u[26..<29], as: UTF8.self) == "GMT",
              dayNames.contains(String(decoding: u[0..<3], as: UTF8.self)),
              let month = monthNames.firstIndex(of: String(decoding: u[8..<11], as: UTF8.self))
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var n: Int64 = 0
            for k in from..<(from + count) {
                guard u[k] >= 0x30 && u[k] <= 0x39 else { return nil }
                n = n * 10 + Int64(u[k] - 0x30)
            }
            return n
        }
        guard let day = number(5, 2), let year = number(12, 4), let hour = number(17, 2),
              let minute = number(20, 2), let second = number(23, 2) else { return nil }
        let m = Int64(month + 1)
        guard day >= 1, day <= HLSDate.daysInMonth(year: year, month: m), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let days = HLSDate.daysFromCivil(year: Int32(year), month: Int32(m), day: Int32(day))
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Rational(Int128(seconds) * 1_000, 1)
    }
}
