/// RFC 3339 / ISO 8601 date-times for `EXT-X-PROGRAM-DATE-TIME`, converted to
/// Unix time without Foundation.
///
/// Accepted: `YYYY-MM-DD(T|t| )hh:mm:ss[.f+](Z|z|+hh:mm|-hh:mm|+hhmm|-hhmm|+hh|-hh)`.
/// Leap second 60 is accepted and lands on the next second (Unix time has no
/// leap seconds). A missing zone is refused: the instant would be ambiguous.
public enum HLSDate {
    /// Fractional digits kept exactly; further digits are truncated (below a nanosecond).
    public static let maxFractionDigits = 9

    /// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's
    /// days_from_civil). Exact for every Int32 input (month and day are not
    /// range-checked here; out-of-range values roll over arithmetically).
    public static func daysFromCivil(year: Int32, month: Int32, day: Int32) -> Int64 {
        let (year, month, day) = (Int64(year), Int64(month), Int64(day))
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400                                   // [0, 399]
        let mp = month > 2 ? month - 3 : month + 9                // March = 0
        let doy = (153 * mp + 2) / 5 + day - 1                    // [0, 365]
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy           // [0, 146096]
        return era * 146097 + doe - 719468
    }

    public static func isLeapYear(_ y: Int64) -> Bool {
        (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
    }

    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Unix time in milliseconds, rounded down to the millisecond (toward
    /// negative infinity), or nil when the text is not a valid date-time.
    public static func unixMilliseconds(_ text: String) -> Int64? {
        guard let exact = unixMillisecondsExact(text) else { return nil }
        return Int64(exactly: exact.floor)
    }

    /// Unix time in milliseconds as an exact rational (sub-millisecond
    /// fractions kept down to `maxFractionDigits` digits of a second).
    public static func unixMillisecondsExact(_ text: String) -> Rational? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                let c = b[k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, let a = c.asciiValue, b[i] == a else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"),
              let day = digits(2) else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
              let second = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var fracNum: Int128 = 0
        var fracDen: Int128 = 1
        if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if count < maxFractionDigits {
                    fracNum = fracNum * 10 + Int128(b[i] - 0x30)
                    fracDen *= 10
                }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
        }
        guard i < b.count else { return nil }   // the zone is required
        var offsetSeconds: Int64 = 0
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = digits(2), oh <= 23 else { return nil }
            var om: Int64 = 0
            if i < b.count {
                _ = expect(":")
                guard let m = digits(2), m <= 59 else { return nil }
                om = m
            }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: Int32(year), month: Int32(month), day: Int32(day))   // 4 and 2 digits: in range
        let local = days * 86400 + hour * 3600 + minute * 60 + second
        let utcSeconds = Int128(local - offsetSeconds)
        // ms = utcSeconds * 1000 + frac * 1000, exactly.
        return Rational(utcSeconds * 1000 * fracDen + fracNum * 1000, fracDen)
    }
}
