/// Number parsing for playlists: exact, bounded and trap-free.
///
/// Every value in seconds (EXTINF, TARGETDURATION, HOLD-BACK, TIME-OFFSET,
/// CAN-SKIP-UNTIL, FRAME-RATE) is limited to `maxSeconds` in magnitude and 18
/// significant fractional digits, so that sums over any playlist that fits in
/// memory stay far inside `Int128` (each value is at most 1e9 * 1e18 in units of
/// its denominator, a power of ten dividing 1e18).
public enum HLSNumber {
    /// The largest magnitude accepted for a value in seconds (about 31 years).
    public static let maxSeconds: Int64 = 1_000_000_000
    /// The most fractional digits kept after trailing zeros are dropped.
    public static let maxFractionDigits = 18
    /// The longest media timeline accepted (the sum of all EXTINF durations), in
    /// seconds: about 31.7 million years, far past any real playlist, and small
    /// enough that every derived value stays inside `Int128`.
    public static let maxTimelineSeconds: Int64 = 1_000_000_000_000_000

    /// RFC 8216 decimal-integer: digits only, 0 ... Int64.max (the RFC allows up
    /// to 2^64-1; larger values are refused rather than wrapped).
    public static func decimalInteger<S: Sequence>(_ s: S) -> Int64? where S.Element == UInt8 {
        var value: Int64 = 0
        var any = false
        for c in s {
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(c &- 0x30))
            if o1 || o2 { return nil }
            value = a
            any = true
        }
        return any ? value : nil
    }

    public static func decimalInteger(_ s: String) -> Int64? { decimalInteger(s.utf8) }

    /// RFC 8216 decimal-floating-point (and signed-decimal-floating-point when
    /// `allowSign`), parsed exactly: "2.002" is 2002/1000 (reduced: 1001/500),
    /// "6" is 6/1. Accepts "2." and ".5"; refuses exponents, several dots, empty
    /// digit strings, magnitudes above `maxSeconds` and more than
    /// `maxFractionDigits` significant fractional digits.
    public static func decimal<S: Sequence>(_ s: S, allowSign: Bool = false) -> Rational? where S.Element == UInt8 {
        var bytes = Array(s)
        var negative = false
        if allowSign, let f = bytes.first, f == UInt8(ascii: "-") || f == UInt8(ascii: "+") {
            negative = f == UInt8(ascii: "-")
            bytes.removeFirst()
        }
        var intDigits: [UInt8] = []
        var fracDigits: [UInt8] = []
        var seenDot = false
        for c in bytes {
            if c == UInt8(ascii: ".") {
                if seenDot { return nil }
                seenDot = true
            } else if c >= 0x30, c <= 0x39 {
                if seenDot { fracDigits.append(c &- 0x30) } else { intDigits.append(c &- 0x30) }
            } else {
                return nil
            }
        }
        guard !intDigits.isEmpty || !fracDigits.isEmpty else { return nil }
        while let l = fracDigits.last, l == 0 { fracDigits.removeLast() }
        guard fracDigits.count <= maxFractionDigits else { return nil }
        var intValue: Int128 = 0
        for d in intDigits {
            intValue = intValue * 10 + Int128(d)
            if intValue > Int128(maxSeconds) { return nil }
        }
        var fracValue: Int128 = 0
        var den: Int128 = 1
        for d in fracDigits {
            fracValue = fracValue * 10 + Int128(d)
            den *= 10
        }
        let num = intValue * den + fracValue
        if num > Int128(maxSeconds) * den { return nil }
        return Rational(negative ? -num : num, den)
    }

    public static func decimal(_ s: String, allowSign: Bool = false) -> Rational? {
        decimal(s.utf8, allowSign: allowSign)
    }

    /// Exact three-way comparison of any two rationals, by continued fractions:
    /// divisions only, so it cannot overflow whatever the magnitudes
    /// (`Rational.<` cross-multiplies and can overflow on extreme inputs).
    public static func compare(_ a: Rational, _ b: Rational) -> Int {
        var (an, ad, bn, bd) = (a.num, a.den, b.num, b.den)
        var flip = 1
        func floorDiv(_ n: Int128, _ d: Int128) -> (Int128, Int128) {
            var q = n / d, r = n % d
            if r < 0 { q -= 1; r += d }
            return (q, r)
        }
        while true {
            let (qa, ra) = floorDiv(an, ad)
            let (qb, rb) = floorDiv(bn, bd)
            if qa != qb { return (qa < qb ? -1 : 1) * flip }
            if ra == 0 && rb == 0 { return 0 }
            if ra == 0 { return -flip }
            if rb == 0 { return flip }
            (an, ad, bn, bd) = (ad, ra, bd, rb)
            flip = -flip
        }
    }

    /// a + b, or nil when an intermediate would overflow `Int128`.
    public static func add(_ a: Rational, _ b: Rational) -> Rational? { combine(a, b, subtract: false) }

    /// a - b, or nil when an intermediate would overflow `Int128`.
    public static func subtract(_ a: Rational, _ b: Rational) -> Rational? { combine(a, b, subtract: true) }

    private static func combine(_ a: Rational, _ b: Rational, subtract: Bool) -> Rational? {
        let g = Int128(Rational.gcd(a.den.magnitude, b.den.magnitude))
        guard g > 0 else { return nil }
        let (l, o1) = (a.den / g).multipliedReportingOverflow(by: b.den)
        guard !o1 else { return nil }
        let (x, o2) = a.num.multipliedReportingOverflow(by: l / a.den)
        let (y, o3) = b.num.multipliedReportingOverflow(by: l / b.den)
        guard !o2, !o3 else { return nil }
        let (n, o4) = subtract ? x.subtractingReportingOverflow(y) : x.addingReportingOverflow(y)
        guard !o4, n != Int128.min else { return nil }
        return Rational(n, l)
    }

    static func less(_ a: Rational, _ b: Rational) -> Bool { compare(a, b) < 0 }
    static func lessOrEqual(_ a: Rational, _ b: Rational) -> Bool { compare(a, b) <= 0 }
    static func max(_ a: Rational, _ b: Rational) -> Rational { compare(a, b) >= 0 ? a : b }
}
