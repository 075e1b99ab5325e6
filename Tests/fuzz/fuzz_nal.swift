// Tests/fuzz/fuzz_nal.swift -- libFuzzer harness of NALReference (FPX_PACKET_FLAG_DISPOSABLE's
// bitstream test, Sources/FastPixSeekCore/NALReference.swift), compiled together with that one
// file (it is self-contained):
//   - `make fuzz`: swiftc -sanitize=fuzzer,address -Onone (bounds checks stay on);
//   - Tests/fuzz/replay.sh: swiftc -D FPX_FUZZ_REPLAY -Onone, a main() that runs every file of
//     Tests/fuzz/corpus/nal once.
//
// Input: byte 0 picks the codec (bit 0: HEVC), the framing (bits 1-2: Annex B, 1-, 2- or
// 4-byte lengths), the HEVC top TemporalId (bits 3-5; 7 = unknown) and whether the format is
// read from extradata instead (bit 6: bytes 1-2 are its length, big-endian, then the extradata). The rest is
// the packet.
//
// Invariants (a violation traps, so libFuzzer saves the input): no out-of-bounds read (Swift's
// checks at -Onone, ASan); the format read from any extradata has a length size 1...4 and a
// TemporalId 0...7; the verdict equals an independent, naive re-implementation of the rule
// (below, written without the parser's shortcuts) whenever the packet is within the bounds,
// and is `.unknown` beyond them.

typealias NR = NALReference

/// The rule of seek.h "Disposable packets", the slow obvious way.
func oracle(_ p: [UInt8], _ f: NR.Format) -> (NR.Verdict, Int?, Bool) {
    // Split into NAL units; nil when the framing is malformed.
    var units: [[UInt8]] = []
    switch f.framing {
    case .lengthPrefixed(let n):
        guard (1...4).contains(n), !p.isEmpty else { return (.unknown, nil, true) }
        var i = 0
        while i < p.count {
            guard i + n <= p.count else { return (.unknown, nil, true) }
            let len = p[i..<i + n].reduce(0) { $0 * 256 + Int($1) }
            i += n
            guard len > 0, i + len <= p.count else { return (.unknown, nil, true) }
            units.append(Array(p[i..<i + len]))
            i += len
        }
    case .annexB:
        var starts: [Int] = []   // positions of 00 00 01
        var i = 0
        while i + 3 <= p.count {
            if p[i] == 0 && p[i + 1] == 0 && p[i + 2] == 1 { starts.append(i); i += 3 } else { i += 1 }
        }
        guard let first = starts.first, first >= 0, p[0..<first].allSatisfy({ $0 == 0 }) else {
            return (.unknown, nil, true)
        }
        // The parser requires at least two zero bytes before the first 01 (00 00 01).
        for (k, s) in starts.enumerated() {
            let begin = s + 3
            var end = k + 1 < starts.count ? starts[k + 1] : p.count
            if k + 1 < starts.count { while end > begin && p[end - 1] == 0 { end -= 1 } }
            guard begin < p.count, end > begin else { return (.unknown, nil, true) }
            units.append(Array(p[begin..<end]))
        }
    }
    let withinBounds = units.count <= NR.maxNALUnits && (f.framing != .annexB || p.count <= NR.maxAnnexBBytes)
    var vcl = 0, referenced = false, unknown = false
    var sps: Int? = nil
    for u in units {
        switch f.codec {
        case .h264:
            let b = u[0], ref = (b >> 5) & 3, t = b & 31
            if b & 0x80 != 0 { unknown = true }
            else if [1, 2, 3, 4].contains(t) { if ref == 0 { vcl += 1 } else { referenced = true } }
            else if [5, 7, 8, 13, 15].contains(t) { referenced = true }
            else if ![6, 9, 12].contains(t) { unknown = true }
        case .hevc:
            if u.count >= 3 && (u[0] >> 1) & 63 == 33 { sps = max(sps ?? 0, Int((u[2] >> 1) & 7)) }
            guard u.count >= 2 else { unknown = true; continue }
            let t = Int((u[0] >> 1) & 63), layer = Int(u[0] & 1) * 32 + Int(u[1] >> 3), tid1 = Int(u[1] & 7)
            if u[0] & 0x80 != 0 || layer != 0 || tid1 == 0 { unknown = true; continue }
            if t < 16 && t % 2 == 0 {
                if let m = f.hevcMaxTemporalID {
                    if tid1 - 1 < m { referenced = true } else if tid1 - 1 == m { vcl += 1 } else { unknown = true }
                } else { unknown = true }
            } else if t < 24 || (32...34).contains(t) { referenced = true }
            else if ![35, 38, 39, 40].contains(t) { unknown = true }
        }
    }
    let v: NR.Verdict = referenced ? .referenced : (unknown || vcl == 0 ? .unknown : .disposable)
    return (v, sps, withinBounds)
}

func check(_ cond: Bool, _ what: @autoclosure () -> String) {
    if !cond { fatalError("fuzz invariant violated: \(what())") }
}

@discardableResult
func fuzzOne(_ input: [UInt8]) -> NR.Verdict? {
    guard let mode = input.first else { return nil }
    var rest = Array(input.dropFirst())
    let codec: NR.Codec = mode & 1 != 0 ? .hevc : .h264
    let framing: NR.Framing = [.annexB, .lengthPrefixed(1), .lengthPrefixed(2), .lengthPrefixed(4)][Int((mode >> 1) & 3)]
    let tid = Int((mode >> 3) & 7)
    var format = NR.Format(codec: codec, framing: framing, hevcMaxTemporalID: tid == 7 ? nil : tid)
    if mode & 0x40 != 0, rest.count >= 2 {
        let e = Array(rest.dropFirst(2).prefix(Int(rest[0]) << 8 | Int(rest[1])))
        rest = Array(rest.dropFirst(2 + e.count))
        if let f = e.withUnsafeBytes({ NR.Format(codec: codec, extradata: $0) }) {
            if case .lengthPrefixed(let n) = f.framing { check((1...4).contains(n), "length size \(n)") }
            check(f.hevcMaxTemporalID.map { (0...7).contains($0) } ?? true, "TemporalId")
            check(f.codec == codec, "codec")
            format = f
        }
    }
    let got = rest.withUnsafeBytes { NR.inspect($0, format: format) }
    let (want, sps, within) = oracle(rest, format)
    if within {
        check(got.verdict == want, "verdict \(got.verdict) != oracle \(want) for \(rest.prefix(64)) \(format)")
        check(got.spsMaxTemporalID == sps, "sps \(String(describing: got.spsMaxTemporalID)) != oracle \(String(describing: sps))")
    } else {
        check(got.verdict == .unknown, "beyond the bounds: \(got.verdict)")
    }
    check(got.spsMaxTemporalID.map { (0...7).contains($0) } ?? true, "sps range")
    return got.verdict
}

#if FPX_FUZZ_REPLAY
import Glibc

@main
struct Replay {
    static func main() {
        var n = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let f = fopen(path, "rb") else { fatalError("cannot open \(path)") }
            var bytes: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let r = fread(&buf, 1, buf.count, f)
                if r <= 0 { break }
                bytes += buf[0..<r]
            }
            fclose(f)
            let v = fuzzOne(bytes)
            if getenv("FPX_FUZZ_VERBOSE") != nil { print(path, v.map { "\($0)" } ?? "-") }
            n += 1
        }
        print("\(n) inputs")
    }
}
#else
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let d = data else { return 0 }
    fuzzOne(Array(UnsafeBufferPointer(start: d, count: size)))
    return 0
}
#endif
