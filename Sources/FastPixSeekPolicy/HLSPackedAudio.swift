/// Packed audio segments (RFC 8216 section 3.4): ADTS AAC, AC-3, E-AC-3 or MP3 elementary
/// streams, whose own frames carry no timestamp. Each segment starts with an ID3v2 tag holding
/// a PRIV frame owned by `com.apple.streaming.transportStreamTimestamp`: 8 bytes, big-endian,
/// the low 33 bits the MPEG-2 TS timestamp (90 kHz) of the segment's first sample, on the same
/// clock as the TS (and fMP4) segments of the presentation.
///
/// Pure rules, tested on bytes (HLSPackedAudioTests): reading that timestamp, and where a
/// packed segment's first sample sits on its domain's pts timeline. Reads never go past the
/// bytes given nor past the tag's own size; a tag that is cut short or malformed is
/// `.malformed`, never a trap, and the caller then places the segment as one without the
/// frame (the playlist's time: `segmentStart`).
public enum HLSPackedAudio {
    /// The PRIV owner of the timestamp frame.
    public static let owner = "com.apple.streaming.transportStreamTimestamp"
    /// The timestamp's clock (MPEG-2 TS), ticks per second.
    public static let clock: Int64 = 90_000

    /// What a segment's leading ID3 tag says about its time.
    public enum Timestamp: Hashable, Sendable {
        /// The 33-bit 90 kHz timestamp of the segment's first sample.
        case ticks(Int64)
        /// No ID3v2 tag at the start, or a tag without the timestamp frame.
        case absent
        /// A tag cut short by the end of the bytes, or whose sizes or frames are malformed.
        case malformed(String)
    }

    /// The timestamp in the ID3v2 tag at the start of `bytes` (ID3v2.3 and v2.4; v2.2 has no
    /// PRIV frame and is `.absent`).
    public static func timestamp(_ bytes: UnsafeRawBufferPointer) -> Timestamp {
        let n = bytes.count
        guard n >= 3, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return .absent }   // "ID3"
        guard n >= 10 else { return .malformed("ID3v2 header cut short") }
        let major = bytes[3], flags = bytes[5]
        guard major != 0xFF, bytes[4] != 0xFF else { return .malformed("ID3v2 version") }
        guard let size = syncsafe(bytes, at: 6) else { return .malformed("ID3v2 tag size is not syncsafe") }
        guard major == 3 || major == 4 else { return .absent }
        let end = 10 + size
        guard end <= n else { return .malformed("ID3v2 tag of \(size) bytes cut short at \(n - 10)") }
        // Unsynchronisation of the whole tag (v2.3; v2.4 sets it per frame too).
        let tagUnsync = (flags & 0x80) != 0
        var pos = 10
        if (flags & 0x40) != 0 {   // extended header
            guard pos + 4 <= end else { return .malformed("ID3v2 extended header cut short") }
            let ext: Int
            if major == 4 {
                guard let s = syncsafe(bytes, at: pos) else { return .malformed("ID3v2 extended header size") }
                ext = s   // counts itself
            } else {
                ext = 4 + be32(bytes, at: pos)
            }
            guard ext >= 4, ext <= end - pos else { return .malformed("ID3v2 extended header size") }
            pos += ext
        }
        while pos + 10 <= end {
            if bytes[pos] == 0 { break }   // padding
            let frameSize: Int
            if major == 4 {
                guard let s = syncsafe(bytes, at: pos + 4) else { return .malformed("ID3v2 frame size is not syncsafe") }
                frameSize = s
            } else {
                frameSize = be32(bytes, at: pos + 4)
            }
            let body = pos + 10
            guard frameSize <= end - body else { return .malformed("ID3v2 frame of \(frameSize) bytes past the tag") }
            let isPRIV = bytes[pos] == 0x50 && bytes[pos + 1] == 0x52 && bytes[pos + 2] == 0x49 && bytes[pos + 3] == 0x56
            if isPRIV {
                var data = Array(UnsafeRawBufferPointer(rebasing: bytes[body..<(body + frameSize)]))
                let format = bytes[pos + 9]
                if major == 4 {
                    if (format & 0x01) != 0 {   // data length indicator (4 syncsafe bytes)
                        guard data.count >= 4 else { return .malformed("ID3v2 PRIV frame cut short") }
                        data.removeFirst(4)
                    }
                    if (format & 0x02) != 0 || tagUnsync { data = resync(data) }
                    if (format & 0x0C) != 0 { return .malformed("ID3v2 PRIV frame compressed or encrypted") }
                } else {
                    if tagUnsync { data = resync(data) }
                    if (format & 0xC0) != 0 { return .malformed("ID3v2 PRIV frame compressed or encrypted") }
                }
                switch privTimestamp(data) {
                case .ticks(let t): return .ticks(t)
                case .malformed(let why): return .malformed(why)
                case .absent: break   // another owner's PRIV frame
                }
            }
            pos = body + frameSize
        }
        return .absent
    }

    /// The timestamp of a PRIV frame's data (owner, NUL, payload), `.absent` for another owner.
    static func privTimestamp(_ data: [UInt8]) -> Timestamp {
        guard let nul = data.firstIndex(of: 0) else { return .absent }
        guard data[..<nul].elementsEqual(owner.utf8) else { return .absent }
        let payload = data[(nul + 1)...]
        guard payload.count >= 8 else { return .malformed("transportStreamTimestamp of \(payload.count) bytes, not 8") }
        var v: UInt64 = 0
        for b in payload.prefix(8) { v = (v << 8) | UInt64(b) }
        return .ticks(Int64(v & ((1 << 33) - 1)))
    }

    /// Where a packed segment's first sample sits on its domain's pts timeline, in seconds:
    /// its ID3 timestamp (the TS clock, 33 bits, taken as it is, as a TS segment's first pts
    /// is), else, without one (RFC 8216 section 3.4 requires it; a segment without it, or
    /// with a malformed tag, is placed as the playlist lists it), at its listed start on the
    /// domain's timeline: `listedOnDomain` (item time 0 on the domain's pts timeline plus
    /// the EXTINF sum before the segment), nil when not known yet (the domain's anchor
    /// segment itself: its first sample then defines the domain at its listed start).
    ///
    /// Timestamp wrap (seek.h, "Timestamp wrap"): the 33-bit timestamp wraps every 2^33
    /// ticks (26.5 h); when the listed start is known, the timestamp is moved by whole wrap
    /// periods to be nearest it (`HLSPlacement.unwrapSeconds`), so a segment past a wrap
    /// inside its domain follows its predecessors instead of jumping back 26.5 h.
    public static func segmentStart(_ t: Timestamp, listedOnDomain: Rational?) -> Rational? {
        if case .ticks(let v) = t {
            let raw = Rational(Int128(v), Int128(clock))
            guard let listed = listedOnDomain else { return raw }
            return HLSPlacement.unwrapSeconds(raw, near: listed)
        }
        return listedOnDomain
    }

    /// The shift added to every timestamp a segment's demuxer gives (which start the
    /// segment's stream at `firstPTS`, its own zero), in the stream's time base
    /// `num/den`, rounded to the nearest tick: the first sample then sits at `start` seconds.
    public static func shift(start: Rational, firstPTS: Int64, timeBaseNum: Int32, timeBaseDen: Int32) -> Int64 {
        guard timeBaseNum > 0, timeBaseDen > 0 else { return 0 }
        let ticks = start * Rational(Int128(timeBaseDen), Int128(timeBaseNum))
        return Int64(clamping: (ticks + Rational(1, 2)).floor) &- firstPTS
    }

    /// The 28-bit value of 4 syncsafe bytes, nil when a byte has its top bit set.
    static func syncsafe(_ b: UnsafeRawBufferPointer, at i: Int) -> Int? {
        guard i + 4 <= b.count else { return nil }
        var v = 0
        for k in 0..<4 {
            let x = b[i + k]
            guard x < 0x80 else { return nil }
            v = (v << 7) | Int(x)
        }
        return v
    }

    static func be32(_ b: UnsafeRawBufferPointer, at i: Int) -> Int {
        (Int(b[i]) << 24) | (Int(b[i + 1]) << 16) | (Int(b[i + 2]) << 8) | Int(b[i + 3])
    }

    /// Undoes ID3 unsynchronisation: a 0x00 after 0xFF is dropped.
    static func resync(_ d: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(d.count)
        var prevFF = false
        for b in d {
            if prevFF && b == 0 { prevFF = false; continue }
            out.append(b)
            prevFF = b == 0xFF
        }
        return out
    }
}
