/// The value types of MPD attributes, parsed exactly and bounded: xs:duration, byte ranges,
/// unsigned integers, frame rates. Pure; tested in DASHManifestTests.
public enum DASHValues {
    /// An unsigned integer (xs:unsignedInt / unsignedLong), at most Int64.max.
    public static func unsigned(_ s: String) -> Int64? {
        HLSNumber.decimalInteger(trim(s).utf8)
    }

    /// xs:duration as MPDs write it ("PT1M2.5S", "P0Y0M1DT0H0M0S"), in seconds exactly.
    /// Years and months (no fixed length) are refused unless zero; a sign is refused.
    public static func duration(_ raw: String) -> Rational? {
        let s = Array(trim(raw).utf8)
        guard s.first == 0x50 else { return nil }   // "P"
        var total = Rational(0)
        var i = 1
        var inTime = false
        var any = false
        // Each unit at most once, in order: Y M D, then T, H M S.
        var rank = -1
        while i < s.count {
            if s[i] == 0x54 {   // "T"
                guard !inTime else { return nil }
                inTime = true
                i += 1
                continue
            }
            let start = i
            while i < s.count, (s[i] >= 0x30 && s[i] <= 0x39) || s[i] == 0x2E { i += 1 }
            guard i < s.count, i > start, let v = HLSNumber.decimal(s[start..<i]) else { return nil }
            let unit = s[i]
            i += 1
            any = true
            let r: Int
            switch (unit, inTime) {
            case (0x59, false), (0x4D, false):   // Y, M (months)
                guard v == Rational(0) else { return nil }
                r = unit == 0x59 ? 0 : 1
            case (0x44, false): total = total + v * Rational(86_400); r = 2
            case (0x48, true): total = total + v * Rational(3_600); r = 3
            case (0x4D, true): total = total + v * Rational(60); r = 4
            case (0x53, true): total = total + v; r = 5
            default: return nil
            }
            guard r > rank else { return nil }
            rank = r
            guard HLSNumber.compare(total, Rational(HLSNumber.maxSeconds)) <= 0 else { return nil }
        }
        return any ? total : nil
    }

    /// "first-last", both inclusive, as a byte range.
    public static func byteRange(_ raw: String) -> HLSByteRange? {
        let parts = trim(raw).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = HLSNumber.decimalInteger(parts[0].utf8),
              let b = HLSNumber.decimalInteger(parts[1].utf8), b >= a, b < Int64.max else { return nil }
        return HLSByteRange(length: b - a + 1, offset: a)
    }

    /// @frameRate: "25", "30000/1001".
    public static func frameRate(_ raw: String) -> Rational? {
        let parts = trim(raw).split(separator: "/", omittingEmptySubsequences: false)
        guard let n = parts.first.flatMap({ HLSNumber.decimalInteger($0.utf8) }), n > 0 else { return nil }
        if parts.count == 1 { return Rational(n) }
        guard parts.count == 2, let d = HLSNumber.decimalInteger(parts[1].utf8), d > 0 else { return nil }
        return Rational(Int128(n), Int128(d))
    }

    public static func trim(_ s: String) -> String {
        String(HLSParser.trim(Substring(s)))
    }
}
