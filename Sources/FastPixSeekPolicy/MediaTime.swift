/// A rational media time, value/timescale seconds, like CMTime.
///
/// Comparisons and arithmetic are exact and overflow-safe: they work on
/// 128-bit cross products and never go through `Double`. The `seconds`
/// property is for display only. The C type is `fpx_time`.
public struct MediaTime: Hashable, CustomStringConvertible, Sendable {
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let valid = Flags(rawValue: ABIConstants.FPX_TIME_FLAG_VALID)
        public static let positiveInfinity = Flags(rawValue: ABIConstants.FPX_TIME_FLAG_POSITIVE_INFINITY)
        public static let negativeInfinity = Flags(rawValue: ABIConstants.FPX_TIME_FLAG_NEGATIVE_INFINITY)
    }

    public var value: Int64
    public var timescale: Int32
    public var flags: Flags

    /// The raw triple, unchecked: use `isValid` before trusting it.
    public init(value: Int64, timescale: Int32, flags: Flags) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
    }

    /// value/timescale; invalid when timescale <= 0. The C function is `fpx_time_make`.
    public init(value: Int64, timescale: Int32) {
        self.value = value
        self.timescale = timescale
        self.flags = timescale > 0 ? .valid : []
    }

    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [])
    public static let zero = MediaTime(value: 0, timescale: 1)
    public static let positiveInfinity = MediaTime(value: 0, timescale: 1, flags: [.valid, .positiveInfinity])
    public static let negativeInfinity = MediaTime(value: 0, timescale: 1, flags: [.valid, .negativeInfinity])

    /// Seconds rounded to the nearest tick. NaN and timescale <= 0 give
    /// `.invalid`; infinities give the infinities; out-of-range magnitudes give
    /// `.invalid`. The C function is `fpx_time_from_seconds`.
    public init(seconds: Double, timescale: Int32) {
        guard timescale > 0, !seconds.isNaN else { self = .invalid; return }
        if seconds.isInfinite { self = seconds > 0 ? .positiveInfinity : .negativeInfinity; return }
        let scaled = (seconds * Double(timescale)).rounded()
        // Int64 range check without trapping: 2^63 is exactly representable.
        guard scaled > -9.223372036854775808e18, scaled < 9.223372036854775808e18 else {
            self = .invalid; return
        }
        self.init(value: Int64(scaled), timescale: timescale)
    }

    /// Valid: numeric or infinite, with a positive timescale for numeric times.
    public var isValid: Bool {
        guard flags.contains(.valid) else { return false }
        if isInfinite { return true }
        return timescale > 0
    }

    public var isInfinite: Bool {
        flags.contains(.valid) && (flags.contains(.positiveInfinity) || flags.contains(.negativeInfinity))
    }

    /// Valid and finite.
    public var isNumeric: Bool { isValid && !isInfinite }

    /// For display only: never compare or feed back. The C function is `fpx_time_to_seconds`.
    public var seconds: Double {
        guard isValid else { return .nan }
        if flags.contains(.positiveInfinity) { return .infinity }
        if flags.contains(.negativeInfinity) { return -.infinity }
        return Double(value) / Double(timescale)
    }

    public var description: String {
        guard isValid else { return "invalid" }
        if flags.contains(.positiveInfinity) { return "+inf" }
        if flags.contains(.negativeInfinity) { return "-inf" }
        return "\(value)/\(timescale)"
    }

    /// The exact rational value of a numeric time.
    public var rational: Rational? {
        isNumeric ? Rational(Int128(value), Int128(timescale)) : nil
    }

    /// A rank for ordering: -inf < numeric < +inf < invalid.
    private var rank: Int {
        if !isValid { return 3 }
        if flags.contains(.negativeInfinity) { return 0 }
        if flags.contains(.positiveInfinity) { return 2 }
        return 1
    }

    /// Exact three-way comparison following CMTimeCompare: -1, 0 or 1.
    /// The C function is `fpx_time_compare`.
    public static func compare(_ a: MediaTime, _ b: MediaTime) -> Int {
        let ra = a.rank, rb = b.rank
        if ra != rb { return ra < rb ? -1 : 1 }
        guard ra == 1 else { return 0 }
        // a.v/a.ts vs b.v/b.ts with positive timescales: cross-multiply in 128 bits.
        let l = Int128(a.value) * Int128(b.timescale)
        let r = Int128(b.value) * Int128(a.timescale)
        return l < r ? -1 : (l == r ? 0 : 1)
    }

    /// Exact a - b when it fits in lcm(a.ts, b.ts); otherwise the nearest time in
    /// the larger timescale. The C function is `fpx_time_subtract`.
    public static func subtract(_ a: MediaTime, _ b: MediaTime) -> MediaTime {
        guard a.isValid, b.isValid else { return .invalid }
        let aPos = a.flags.contains(.positiveInfinity), aNeg = a.flags.contains(.negativeInfinity)
        let bPos = b.flags.contains(.positiveInfinity), bNeg = b.flags.contains(.negativeInfinity)
        if (aPos && bPos) || (aNeg && bNeg) { return .invalid }
        if aPos || bNeg { return .positiveInfinity }
        if aNeg || bPos { return .negativeInfinity }
        guard let ra = a.rational, let rb = b.rational else { return .invalid }
        return MediaTime(rational: ra - rb, preferredTimescales: [a.timescale, b.timescale])
    }

    /// `r` exactly: in the lcm of the preferred timescales when that fits, else
    /// in its own reduced denominator when that fits 32 bits; only when neither
    /// does, the nearest tick of the largest preferred timescale.
    public init(exactly r: Rational, preferredTimescales: [Int32]) {
        var lcm: Int128 = 1
        for ts in preferredTimescales where ts > 0 { lcm = Rational.lcm(lcm, Int128(ts)) }
        if lcm <= Int128(Int32.max), let v = r.scaledExactly(by: lcm), let v64 = Int64(exactly: v) {
            self.init(value: v64, timescale: Int32(lcm))
        } else if r.den <= Int128(Int32.max), let v64 = Int64(exactly: r.num) {
            self.init(value: v64, timescale: Int32(r.den))
        } else {
            self.init(rational: r, preferredTimescales: preferredTimescales)
        }
    }

    /// The time nearest `r`: exact in the lcm of the preferred timescales when it
    /// fits, else rounded to the nearest tick of the largest preferred timescale.
    public init(rational r: Rational, preferredTimescales: [Int32]) {
        var lcm: Int128 = 1
        for ts in preferredTimescales where ts > 0 { lcm = Rational.lcm(lcm, Int128(ts)) }
        if lcm <= Int128(Int32.max), let v = r.scaledExactly(by: lcm), let v64 = Int64(exactly: v) {
            self.init(value: v64, timescale: Int32(lcm))
            return
        }
        let ts = preferredTimescales.max() ?? 1
        let scale = Int128(max(ts, 1))
        guard let v64 = Int64(exactly: r.scaledRounded(by: scale)) else { self = .invalid; return }
        self.init(value: v64, timescale: Int32(scale))
    }
}

/// An exact rational with a positive denominator, on 128-bit integers. Internal
/// arithmetic for verdicts; the magnitudes used by media times (64-bit values,
/// 32-bit timescales) keep every intermediate here far from overflow.
public struct Rational: Hashable, Comparable, CustomStringConvertible, Sendable {
    public let num: Int128
    public let den: Int128

    public init(_ num: Int128, _ den: Int128) {
        precondition(den != 0, "Rational with zero denominator")
        let sign: Int128 = den < 0 ? -1 : 1
        let g = Rational.gcd(num.magnitude, den.magnitude)
        let gi = g == 0 ? 1 : Int128(g)
        self.num = sign * num / gi
        self.den = sign * den / gi
    }

    public init(_ integer: Int64) { self.num = Int128(integer); self.den = 1 }

    public var description: String { "\(num)/\(den)" }

    public static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var a = a, b = b
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    static func lcm(_ a: Int128, _ b: Int128) -> Int128 {
        let g = Int128(gcd(a.magnitude, b.magnitude))
        return g == 0 ? 0 : a / g * b
    }

    public static func < (l: Rational, r: Rational) -> Bool { l.num * r.den < r.num * l.den }
    public static func + (l: Rational, r: Rational) -> Rational {
        let g = lcm(l.den, r.den)
        return Rational(l.num * (g / l.den) + r.num * (g / r.den), g)
    }
    public static func - (l: Rational, r: Rational) -> Rational { l + Rational(-r.num, r.den) }
    public static func * (l: Rational, r: Rational) -> Rational {
        // Cross-reduce first to keep products small.
        let g1 = Int128(gcd(l.num.magnitude, r.den.magnitude)), g2 = Int128(gcd(r.num.magnitude, l.den.magnitude))
        let a = l.num / max(g1, 1), d = r.den / max(g1, 1)
        let c = r.num / max(g2, 1), b = l.den / max(g2, 1)
        return Rational(a * c, b * d)
    }
    public var magnitude: Rational { Rational(num < 0 ? -num : num, den) }

    /// floor(self)
    public var floor: Int128 {
        let q = num / den
        return (num % den != 0 && num < 0) ? q - 1 : q
    }
    /// ceil(self)
    public var ceil: Int128 {
        let q = num / den
        return (num % den != 0 && num > 0) ? q + 1 : q
    }

    /// self * scale when that is an integer.
    func scaledExactly(by scale: Int128) -> Int128? {
        let p = num * scale
        return p % den == 0 ? p / den : nil
    }
    /// self * scale rounded to nearest, halves away from zero.
    func scaledRounded(by scale: Int128) -> Int128 {
        let p = num * scale
        let twice = 2 * p
        let q = twice >= 0 ? (twice + den) / (2 * den) : -((-twice + den) / (2 * den))
        return q
    }
}
