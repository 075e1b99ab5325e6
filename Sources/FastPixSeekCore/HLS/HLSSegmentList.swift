#if canImport(Glibc)
import Glibc
#endif

/// A growable buffer of plain values in malloc'd memory whose every allocation can fail:
/// `append`/`reserve` throw `FallibleBuffer.OutOfMemory` instead of trapping (the Swift
/// runtime aborts the process when an Array cannot allocate). For sizes that come from
/// media and playlists (issue 18.3). `T` must be a trivial type (no references).
public final class FallibleBuffer<T>: @unchecked Sendable {
    public struct OutOfMemory: Error {}

    public private(set) var base: UnsafeMutablePointer<T>?
    public private(set) var count = 0
    public private(set) var capacity = 0

    public init() { precondition(_isPOD(T.self), "FallibleBuffer holds trivial types only") }

    /// An empty buffer with room for `capacity` elements.
    public convenience init(capacity: Int) throws {
        self.init()
        try reserve(capacity)
    }

    deinit { free(base) }

    /// Bytes allocated.
    public var allocatedBytes: Int { capacity &* MemoryLayout<T>.stride }

    /// Room for at least `n` elements; never shrinks.
    public func reserve(_ n: Int) throws {
        guard n > capacity else { return }
        let (bytes, o) = n.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !o, let p = realloc(base, max(bytes, 1)) else { throw OutOfMemory() }
        base = p.assumingMemoryBound(to: T.self)
        capacity = n
    }

    public func append(_ v: T) throws {
        if count == capacity { try reserve(capacity < 16 ? 16 : capacity &+ capacity / 2) }
        (base! + count).initialize(to: v)
        count += 1
    }

    /// Appends raw elements (grows by half again, or to fit).
    public func append(contentsOf p: UnsafeBufferPointer<T>) throws {
        guard let src = p.baseAddress, p.count > 0 else { return }
        let need = count &+ p.count
        if need > capacity { try reserve(max(need, capacity &+ capacity / 2)) }
        (base! + count).update(from: src, count: p.count)
        count = need
    }

    /// Room after the last element (`reserve` first); `commit` what was written there.
    public var tail: UnsafeMutablePointer<T>? { base.map { $0 + count } }

    /// Counts `n` more elements, written by the caller at `tail`.
    public func commit(_ n: Int) {
        precondition(n >= 0 && count &+ n <= capacity)
        count += n
    }

    public subscript(i: Int) -> T {
        precondition(i >= 0 && i < count)
        return base![i]
    }

    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<T>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    public func removeAll() { count = 0 }

    /// Drops the last `n` elements (at most all).
    public func removeLast(_ n: Int) { count -= min(max(n, 0), count) }
}

/// The segments of a media playlist in a compact form (issue 18.4): one 56-byte entry per
/// segment in a `FallibleBuffer`, URIs as written in one byte buffer, and side tables for
/// what few segments have (titles, byte ranges, init sections, date anchors, durations too
/// long for the compact field). `HLSSegment` values are made on demand; URIs are resolved
/// against the playlist URL when asked for. Immutable once built.
/// An AES-128 key (EXT-X-KEY METHOD=AES-128, KEYFORMAT identity): its URI (resolved against
/// the playlist URL when one was given) and its IV when the tag gives one (big-endian, as two
/// 64-bit halves); without one the IV is the segment's media sequence number.
public struct HLSKey: Hashable, Sendable {
    public var uri: String
    public var ivHi: UInt64?
    public var ivLo: UInt64?
    init(uri: String, iv: (UInt64, UInt64)?) { self.uri = uri; ivHi = iv?.0; ivLo = iv?.1 }

    /// The 16 IV bytes for a segment with media sequence number `sequence` (RFC 8216 5.2).
    public func iv(sequence: Int64) -> [UInt8] {
        let hi = ivHi ?? 0, lo = ivLo ?? UInt64(bitPattern: sequence)
        return (0..<8).map { UInt8(truncatingIfNeeded: hi >> (56 - 8 * $0)) } +
            (0..<8).map { UInt8(truncatingIfNeeded: lo >> (56 - 8 * $0)) }
    }
}

public struct HLSSegmentList: RandomAccessCollection, Hashable, Sendable {
    struct Entry: Hashable {
        var uriOffset: UInt32
        var uriLength: UInt32
        /// duration = durNum / 10^durExp; or `wide[durNum]` when `flagWide`.
        var durNum: Int64
        /// startOffset = (startHi << 64 | startLo) / 10^startExp.
        var startLo: UInt64
        var startHi: Int64
        var discDelta: UInt32
        var mapIndex: Int32
        var pdtIndex: Int32
        var rangeIndex: Int32
        var durExp: UInt8
        var startExp: UInt8
        var flags: UInt8
    }

    static let flagDiscontinuity: UInt8 = 1, flagGap: UInt8 = 2, flagExplicitPDT: UInt8 = 4, flagWide: UInt8 = 8

    struct PDTAnchor: Hashable { var ms: Rational; var offset: Rational }
    struct TitleRef { var index: Int32; var offset: UInt32; var length: UInt32 }
    /// An EXT-X-KEY in effect from segment `from` on (METHOD=AES-128; `uriLength` 0 with
    /// `none`: METHOD=NONE). Its URI as written (in `text`), its IV when the tag has one.
    struct KeyRef { var from: Int32; var none: Bool; var uriOffset: UInt32; var uriLength: UInt32
                    var hasIV: Bool; var ivHi: UInt64; var ivLo: UInt64 }
    /// An EXT-X-MAP: its URI as written (in `text`) and its byte range.
    struct MapRef { var uriOffset: UInt32; var uriLength: UInt32; var hasRange: Bool; var range: HLSByteRange }

    final class Storage: @unchecked Sendable {
        let entries = FallibleBuffer<Entry>()
        let text = FallibleBuffer<UInt8>()
        // Side tables: FallibleBuffers too (their sizes come from the playlist).
        let titles = FallibleBuffer<TitleRef>()
        let ranges = FallibleBuffer<HLSByteRange>()
        let maps = FallibleBuffer<MapRef>()
        let pdts = FallibleBuffer<PDTAnchor>()
        let wide = FallibleBuffer<Rational>()
        let keys = FallibleBuffer<KeyRef>()
        var datedCount = 0
        /// 0: durations and starts are decimals (n / 10^exp, EXTINF). Else every duration and
        /// start is a whole number of 1/timescale s (`Builder.append(ticks:)`: DASH, whose
        /// durations need not be decimal).
        var timescale: Int64 = 0

        func string(_ offset: UInt32, _ length: UInt32) -> String {
            text.withUnsafeBufferPointer { b in
                String(decoding: UnsafeBufferPointer(rebasing: b[Int(offset)..<Int(offset) + Int(length)]), as: UTF8.self)
            }
        }

        /// The title of segment `i` (titles are appended in segment order: a binary search).
        func title(_ i: Int32) -> String? {
            var lo = 0, hi = titles.count
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if titles[mid].index < i { lo = mid + 1 } else { hi = mid }
            }
            guard lo < titles.count, titles[lo].index == i else { return nil }
            return string(titles[lo].offset, titles[lo].length)
        }
    }

    let storage: Storage
    /// The first segment's MSN and discontinuity sequence number.
    public let mediaSequence: Int64
    let discontinuityBase: Int64
    /// Segment URIs are resolved against it (nil: as written).
    let baseURL: String?

    init(storage: Storage, mediaSequence: Int64, discontinuityBase: Int64, baseURL: String?) {
        self.storage = storage
        self.mediaSequence = mediaSequence
        self.discontinuityBase = discontinuityBase
        self.baseURL = baseURL
    }

    public init() { self.init(storage: Storage(), mediaSequence: 0, discontinuityBase: 0, baseURL: nil) }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.entries.count }
    public subscript(i: Int) -> HLSSegment {
        HLSSegment(sequence: sequence(at: i), duration: duration(at: i), title: storage.title(Int32(i)),
                   uri: uri(at: i), rawURI: rawURI(at: i), byteRange: byteRange(at: i), map: map(at: i),
                   programDateTime: programDateTime(at: i), startDate: startDate(at: i),
                   startDateExact: startDateExact(at: i), discontinuity: discontinuity(at: i),
                   discontinuitySequence: discontinuitySequence(at: i), startOffset: startOffset(at: i),
                   gap: storage.entries[i].flags & HLSSegmentList.flagGap != 0)
    }

    /// Bytes this list holds (entries, URIs, side tables), for the memory cap.
    public var allocatedBytes: Int {
        let s = storage
        return s.entries.allocatedBytes &+ s.text.allocatedBytes &+ s.ranges.allocatedBytes &+ s.maps.allocatedBytes
            &+ s.pdts.allocatedBytes &+ s.wide.allocatedBytes &+ s.titles.allocatedBytes &+ s.keys.allocatedBytes
    }

    // MARK: Fields without making an HLSSegment

    static func pow10(_ e: UInt8) -> Int128 {
        var p: Int128 = 1
        for _ in 0..<e { p *= 10 }
        return p
    }

    public func sequence(at i: Int) -> Int64 { mediaSequence &+ Int64(i) }

    public func duration(at i: Int) -> Rational {
        let e = storage.entries[i]
        if e.flags & HLSSegmentList.flagWide != 0 { return storage.wide[Int(e.durNum)] }
        if storage.timescale > 0 { return Rational(Int128(e.durNum), Int128(storage.timescale)) }
        return Rational(Int128(e.durNum), HLSSegmentList.pow10(e.durExp))
    }

    public func startOffset(at i: Int) -> Rational {
        let e = storage.entries[i]
        let n = Int128(e.startHi) << 64 | Int128(e.startLo)
        if storage.timescale > 0 { return Rational(n, Int128(storage.timescale)) }
        return Rational(n, HLSSegmentList.pow10(e.startExp))
    }

    public func endOffset(at i: Int) -> Rational { startOffset(at: i) + duration(at: i) }

    public func rawURI(at i: Int) -> String {
        let e = storage.entries[i]
        return storage.string(e.uriOffset, e.uriLength)
    }

    public func uri(at i: Int) -> String {
        let raw = rawURI(at: i)
        guard let baseURL else { return raw }
        return HLSURL.resolve(base: baseURL, reference: raw)
    }

    /// Whether two segments' URIs are the same bytes as written.
    func sameRawURI(_ i: Int, _ other: HLSSegmentList, _ j: Int) -> Bool {
        let a = storage.entries[i], b = other.storage.entries[j]
        guard a.uriLength == b.uriLength else { return false }
        return storage.text.withUnsafeBufferPointer { x in
            other.storage.text.withUnsafeBufferPointer { y in
                memcmp(x.baseAddress! + Int(a.uriOffset), y.baseAddress! + Int(b.uriOffset), Int(a.uriLength)) == 0
            }
        }
    }

    public func byteRange(at i: Int) -> HLSByteRange? {
        let r = storage.entries[i].rangeIndex
        return r < 0 ? nil : storage.ranges[Int(r)]
    }

    public func map(at i: Int) -> HLSMap? {
        let m = storage.entries[i].mapIndex
        guard m >= 0 else { return nil }
        let r = storage.maps[Int(m)]
        let raw = storage.string(r.uriOffset, r.uriLength)
        return HLSMap(uri: baseURL.map { HLSURL.resolve(base: $0, reference: raw) } ?? raw, rawURI: raw,
                      byteRange: r.hasRange ? r.range : nil)
    }

    /// The AES-128 key segment `i` is encrypted with (EXT-X-KEY), nil when clear.
    public func key(at i: Int) -> HLSKey? {
        let ks = storage.keys
        var lo = 0, hi = ks.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if Int(ks[mid].from) <= i { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        let k = ks[lo - 1]
        if k.none { return nil }
        let raw = storage.string(k.uriOffset, k.uriLength)
        return HLSKey(uri: baseURL.map { HLSURL.resolve(base: $0, reference: raw) } ?? raw,
                      iv: k.hasIV ? (k.ivHi, k.ivLo) : nil)
    }

    /// The URIs (resolved) of every AES-128 key some segment of the list is encrypted with:
    /// what a key cache must keep for this window (issue 28.8). One pass over the key side
    /// table, not over the segments.
    public var keyURIs: Set<String> {
        var out: Set<String> = []
        let ks = storage.keys
        for j in 0..<ks.count {
            let k = ks[j]
            guard !k.none, Int(k.from) < count else { continue }
            let raw = storage.string(k.uriOffset, k.uriLength)
            out.insert(baseURL.map { HLSURL.resolve(base: $0, reference: raw) } ?? raw)
        }
        return out
    }

    /// Marked EXT-X-GAP: never fetched.
    public func gap(at i: Int) -> Bool { storage.entries[i].flags & HLSSegmentList.flagGap != 0 }

    public func discontinuity(at i: Int) -> Bool { storage.entries[i].flags & HLSSegmentList.flagDiscontinuity != 0 }

    public func discontinuitySequence(at i: Int) -> Int64 { discontinuityBase &+ Int64(storage.entries[i].discDelta) }

    public func startDateExact(at i: Int) -> Rational? {
        let p = storage.entries[i].pdtIndex
        guard p >= 0 else { return nil }
        let a = storage.pdts[Int(p)]
        return a.ms + (startOffset(at: i) - a.offset) * Rational(1000)
    }

    public func startDate(at i: Int) -> Int64? { startDateExact(at: i).flatMap { Int64(exactly: $0.floor) } }

    public func programDateTime(at i: Int) -> Int64? {
        let e = storage.entries[i]
        guard e.flags & HLSSegmentList.flagExplicitPDT != 0 else { return nil }
        return Int64(exactly: storage.pdts[Int(e.pdtIndex)].ms.floor)
    }

    /// Every segment has a start date.
    public var allDated: Bool { storage.datedCount == count }

    /// The last index whose start is at or before `offset` (starts never decrease), or nil.
    public func lastIndex(startingAtOrBefore offset: Rational) -> Int? {
        var lo = 0, hi = count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if HLSNumber.lessOrEqual(startOffset(at: mid), offset) { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 ? lo - 1 : nil
    }

    // MARK: Equality

    public static func == (a: HLSSegmentList, b: HLSSegmentList) -> Bool {
        guard a.count == b.count, a.mediaSequence == b.mediaSequence, a.discontinuityBase == b.discontinuityBase else {
            return false
        }
        if a.storage === b.storage && a.baseURL == b.baseURL { return true }
        for i in 0..<a.count {
            let x = a.storage.entries[i], y = b.storage.entries[i]
            guard x.flags == y.flags, x.discDelta == y.discDelta, a.duration(at: i) == b.duration(at: i),
                  a.startOffset(at: i) == b.startOffset(at: i), a.byteRange(at: i) == b.byteRange(at: i),
                  a.map(at: i) == b.map(at: i), a.startDateExact(at: i) == b.startDateExact(at: i),
                  a.storage.title(Int32(i)) == b.storage.title(Int32(i)) else { return false }
            if !(a.baseURL == b.baseURL && a.sameRawURI(i, b, i)) && a.uri(at: i) != b.uri(at: i) { return false }
        }
        return true
    }

    public func hash(into h: inout Hasher) {
        h.combine(count)
        h.combine(mediaSequence)
        if let l = last { h.combine(l.uri); h.combine(l.duration) }
    }

    // MARK: Building

    /// Appends segments while parsing; enforces the caps.
    struct Builder {
        let storage = Storage()
        let maxSegments: Int
        let maxBytes: Int
        var startNum: Int128 = 0
        var startExp: UInt8 = 0
        var lastMap: HLSMap?
        var discontinuityBase: Int64 = 0

        init(maxSegments: Int, maxBytes: Int) {
            self.maxSegments = maxSegments
            self.maxBytes = maxBytes
        }

        /// Reserves room for `n` segments (a count from a pre-scan), refusing past the caps.
        func reserve(_ n: Int, textBytes: Int) throws {
            guard n <= maxSegments else { throw HLSError.tooLarge("more than \(maxSegments) segments") }
            let need = n &* MemoryLayout<Entry>.stride &+ textBytes
            guard need <= maxBytes else { throw HLSError.tooLarge("the parsed segments need more than \(maxBytes) bytes") }
            do {
                try storage.entries.reserve(n)
                try storage.text.reserve(textBytes)
            } catch { throw HLSError.outOfMemory }
        }

        var count: Int { storage.entries.count }

        var allocatedBytes: Int {
            HLSSegmentList(storage: storage, mediaSequence: 0, discontinuityBase: 0, baseURL: nil).allocatedBytes
        }

        /// The duration as n / 10^e with the smallest e (decimal EXTINF values divide 10^18).
        static func decimal(_ r: Rational) -> (Int128, UInt8)? {
            var p: Int128 = 1
            for e in 0...36 {
                if p % r.den == 0 { return (r.num * (p / r.den), UInt8(e)) }
                let (q, o) = p.multipliedReportingOverflow(by: 10)
                if o { return nil }
                p = q
            }
            return nil
        }

        mutating func append(rawURI: Substring, duration: Rational, title: String?, byteRange: HLSByteRange?,
                             map: HLSMap?, pdt: (ms: Rational, offset: Rational)?, explicitPDT: Bool,
                             discontinuity: Bool, discontinuitySequence: Int64, gap: Bool) throws {
            let s = storage
            guard s.entries.count < maxSegments else { throw HLSError.tooLarge("more than \(maxSegments) segments") }
            if s.entries.count == 0 { discontinuityBase = discontinuitySequence }
            guard let (dn, de) = HLSSegmentList.Builder.decimal(duration) else {
                throw HLSError.malformed(line: 0, reason: "EXTINF duration is not decimal")
            }
            var flags: UInt8 = 0
            if discontinuity { flags |= HLSSegmentList.flagDiscontinuity }
            if gap { flags |= HLSSegmentList.flagGap }
            if explicitPDT { flags |= HLSSegmentList.flagExplicitPDT }
            var durNum: Int64
            if let n = Int64(exactly: dn) {
                durNum = n
            } else {
                flags |= HLSSegmentList.flagWide
                durNum = Int64(s.wide.count)
                try fallible { try s.wide.append(duration) }
            }
            let (offset, length) = try text(rawURI)
            let (mapIndex, rangeIndex) = try tables(map: map, byteRange: byteRange)
            var pdtIndex: Int32 = -1
            if let p = pdt {
                if explicitPDT || s.pdts.count == 0 { try fallible { try s.pdts.append(PDTAnchor(ms: p.ms, offset: p.offset)) } }
                pdtIndex = Int32(s.pdts.count - 1)
                s.datedCount += 1
            }
            if let t = title {
                let (o, l) = try text(Substring(t))
                try fallible { try s.titles.append(TitleRef(index: Int32(s.entries.count), offset: o, length: l)) }
            }
            let (delta, o) = discontinuitySequence.subtractingReportingOverflow(discontinuityBase)
            guard !o, let dd = UInt32(exactly: delta) else { throw HLSError.tooLarge("discontinuity sequence range") }
            let e = Entry(uriOffset: offset, uriLength: length, durNum: durNum,
                          startLo: UInt64(truncatingIfNeeded: startNum), startHi: Int64(truncatingIfNeeded: startNum >> 64),
                          discDelta: dd, mapIndex: mapIndex, pdtIndex: pdtIndex, rangeIndex: rangeIndex,
                          durExp: de, startExp: startExp, flags: flags)
            try fallible { try s.entries.append(e) }
            // The next start: this one plus the duration, on the finer of the two scales.
            var (sn, se) = (startNum, startExp)
            var dnum = dn
            while se < de { sn *= 10; se += 1 }
            var de2 = de
            while de2 < se { dnum *= 10; de2 += 1 }
            startNum = sn + dnum
            startExp = se
            if allocatedBytes > maxBytes { throw HLSError.tooLarge("the parsed segments need more than \(maxBytes) bytes") }
        }

        /// The indexes of a segment's init section (-1: none; a new one is stored when it
        /// differs from the last) and byte range (-1: none) in the list's tables.
        private mutating func tables(map: HLSMap?, byteRange: HLSByteRange?) throws -> (map: Int32, range: Int32) {
            let s = storage
            var mapIndex: Int32 = -1
            if let m = map {
                if m != lastMap || s.maps.count == 0 {
                    let (o, l) = try text(Substring(m.rawURI))
                    try fallible { try s.maps.append(MapRef(uriOffset: o, uriLength: l, hasRange: m.byteRange != nil,
                                                            range: m.byteRange ?? HLSByteRange(length: 0, offset: 0))) }
                    lastMap = m
                }
                mapIndex = Int32(s.maps.count - 1)
            }
            var rangeIndex: Int32 = -1
            if let r = byteRange { rangeIndex = Int32(s.ranges.count); try fallible { try s.ranges.append(r) } }
            return (mapIndex, rangeIndex)
        }

        /// Appends a segment whose duration is `ticks` / `timescale` s (DASH: a SegmentTimeline
        /// S@d, a SegmentTemplate@duration, a sidx reference). Every segment of a list is
        /// appended this way, with one timescale, or none is.
        mutating func append(rawURI: Substring, ticks: Int64, timescale: Int64, byteRange: HLSByteRange?,
                             map: HLSMap?, discontinuity: Bool = false, discontinuitySequence: Int64 = 0,
                             dateMS: Rational? = nil) throws {
            let s = storage
            guard timescale > 0, ticks > 0 else { throw HLSError.malformed(line: 0, reason: "a segment duration is not positive") }
            if s.entries.count == 0 { s.timescale = timescale; discontinuityBase = discontinuitySequence }
            let (delta, over) = discontinuitySequence.subtractingReportingOverflow(discontinuityBase)
            guard !over, let dd = UInt32(exactly: delta) else { throw HLSError.tooLarge("discontinuity sequence range") }
            guard s.timescale == timescale else { throw HLSError.malformed(line: 0, reason: "segments on two timescales") }
            guard s.entries.count < maxSegments else { throw HLSError.tooLarge("more than \(maxSegments) segments") }
            let (offset, length) = try text(rawURI)
            let (mapIndex, rangeIndex) = try tables(map: map, byteRange: byteRange)
            // A date (a dynamic MPD's clock) anchors this segment and the ones after it.
            var flags: UInt8 = discontinuity ? HLSSegmentList.flagDiscontinuity : 0
            if let ms = dateMS {
                try fallible { try s.pdts.append(PDTAnchor(ms: ms, offset: Rational(startNum, Int128(timescale)))) }
                flags |= HLSSegmentList.flagExplicitPDT
            }
            var pdtIndex: Int32 = -1
            if s.pdts.count > 0 { pdtIndex = Int32(s.pdts.count - 1); s.datedCount += 1 }
            let e = Entry(uriOffset: offset, uriLength: length, durNum: ticks,
                          startLo: UInt64(truncatingIfNeeded: startNum), startHi: Int64(truncatingIfNeeded: startNum >> 64),
                          discDelta: dd, mapIndex: mapIndex, pdtIndex: pdtIndex, rangeIndex: rangeIndex,
                          durExp: 0, startExp: 0, flags: flags)
            try fallible { try s.entries.append(e) }
            startNum += Int128(ticks)
            if allocatedBytes > maxBytes { throw HLSError.tooLarge("the parsed segments need more than \(maxBytes) bytes") }
        }

        /// EXT-X-KEY: from the next segment on, encrypted with this AES-128 key (nil: METHOD=NONE).
        func setKey(rawURI: String?, iv: (UInt64, UInt64)?) throws {
            let s = storage
            var k = KeyRef(from: Int32(clamping: s.entries.count), none: rawURI == nil, uriOffset: 0, uriLength: 0,
                           hasIV: iv != nil, ivHi: iv?.0 ?? 0, ivLo: iv?.1 ?? 0)
            if let r = rawURI { (k.uriOffset, k.uriLength) = try text(Substring(r)) }
            if s.keys.count > 0, s.keys[s.keys.count - 1].from == k.from {
                // A second key tag before the same segment: it wins (the table only grows).
                try fallible { try s.keys.append(k) }
            } else {
                try fallible { try s.keys.append(k) }
            }
        }

        func fallible(_ body: () throws -> Void) throws {
            do { try body() } catch { throw HLSError.outOfMemory }
        }

        /// Appends bytes to the text buffer: their offset and length.
        func text(_ t: Substring) throws -> (UInt32, UInt32) {
            let s = storage
            let n = t.utf8.count
            guard s.text.count &+ n <= Int(UInt32.max) else { throw HLSError.tooLarge("URIs and titles over 4 GiB") }
            let offset = UInt32(s.text.count)
            var copy = t
            try copy.withUTF8 { u in try fallible { try s.text.append(contentsOf: u) } }
            return (offset, UInt32(n))
        }

        func finish(mediaSequence: Int64, baseURL: String?) -> HLSSegmentList {
            HLSSegmentList(storage: storage, mediaSequence: mediaSequence, discontinuityBase: discontinuityBase,
                           baseURL: baseURL)
        }
    }
}
