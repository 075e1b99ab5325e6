/// A Segment Index box (`sidx`, ISO/IEC 14496-12 8.16.3) read into byte-range subsegments:
/// what a SegmentBase representation's indexRange points at. Only media references are
/// taken; a hierarchical index (a reference to another sidx) is refused, typed. Pure and
/// bounded; tested in DASHManifestTests.
public enum DASHSidx {
    public struct Reference: Hashable, Sendable {
        public var range: HLSByteRange
        /// In `timescale` units.
        public var duration: Int64
    }

    public struct Index: Hashable, Sendable {
        public var timescale: Int64
        public var earliestPresentationTime: Int64
        public var references: [Reference]
    }

    /// Reads the first `sidx` box in `bytes`, which were fetched from byte `offset` of the
    /// resource (the indexRange): reference offsets count from the byte after the box.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, offset: Int64, maxReferences: Int) throws -> Index {
        func bad(_ why: String) -> DASHError { .malformed(element: "SegmentBase", line: 0, reason: "indexRange: \(why)") }
        var p = 0
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) << 32 | UInt64(u32(at + 4)) }
        // Find the sidx box among the boxes of the range (a styp may come first).
        while true {
            guard p + 8 <= bytes.count else { throw bad("no sidx box") }
            var size = UInt64(u32(p))
            var header = 8
            if size == 1 {
                guard p + 16 <= bytes.count else { throw bad("a truncated box header") }
                size = u64(p + 8)
                header = 16
            }
            guard size >= UInt64(header) else { throw bad("a box smaller than its header") }
            let type = u32(p + 4)
            if type == 0x73696478 {   // "sidx"
                guard UInt64(p) + size <= UInt64(bytes.count) else { throw bad("the sidx box is cut short by the range") }
                let end = p + Int(size)
                var q = p + header
                guard q + 12 <= end else { throw bad("a truncated sidx") }
                let version = bytes[q]
                q += 4          // version, flags
                q += 4          // reference_ID
                let timescale = Int64(u32(q)); q += 4
                guard timescale > 0 else { throw bad("sidx timescale 0") }
                var ept: UInt64, first: UInt64
                if version == 0 {
                    guard q + 8 <= end else { throw bad("a truncated sidx") }
                    ept = UInt64(u32(q)); first = UInt64(u32(q + 4)); q += 8
                } else {
                    guard q + 16 <= end else { throw bad("a truncated sidx") }
                    ept = u64(q); first = u64(q + 8); q += 16
                }
                guard q + 4 <= end else { throw bad("a truncated sidx") }
                let count = Int(UInt16(bytes[q + 2]) << 8 | UInt16(bytes[q + 3]))
                q += 4
                guard count <= maxReferences else { throw DASHError.tooLarge("more than \(maxReferences) sidx references") }
                guard q + 12 * count <= end else { throw bad("the sidx references are cut short") }
                guard ept <= UInt64(Int64.max), first <= UInt64(Int64.max) else { throw bad("sidx times overflow") }
                var at = Int128(offset) + Int128(end) + Int128(first)
                var refs: [Reference] = []
                refs.reserveCapacity(count)
                for k in 0..<count {
                    let word = u32(q + 12 * k)
                    if word & 0x8000_0000 != 0 { throw DASHError.unsupported("a hierarchical sidx (SegmentBase index of indexes)") }
                    let size = Int64(word & 0x7FFF_FFFF)
                    let dur = Int64(u32(q + 12 * k + 4))
                    guard size > 0, dur > 0 else { throw bad("an empty sidx reference") }
                    guard at + Int128(size) <= Int128(Int64.max) else { throw bad("sidx offsets overflow") }
                    refs.append(Reference(range: HLSByteRange(length: size, offset: Int64(at)), duration: dur))
                    at += Int128(size)
                }
                guard !refs.isEmpty else { throw bad("a sidx without references") }
                return Index(timescale: timescale, earliestPresentationTime: Int64(ept), references: refs)
            }
            guard UInt64(p) + size <= UInt64(bytes.count) else { throw bad("no sidx box") }
            p += Int(size)
        }
    }
}
