import Foundation
import XCTest
@testable import FastPixSeekPolicy

/// A scripted demuxer that stops or fails at a chosen seam crossing: every
/// positioning and every read is one crossing, numbered from when the fault is
/// armed. At the chosen one the stop flag goes up (as a new seek, a cancel or a
/// destroy sets it) and, for `.fail`, the crossing itself fails as an I/O guard
/// interrupting libavformat does: the read consumes its packet and throws, the
/// positioning moves somewhere else and throws.
final class FaultingSeam: LandingSeam {
    enum Fault: CaseIterable { case stop, fail }
    let packets: [DemuxedPacket]
    let offsets: [Int64]
    /// Timestamp seeks land on the last packet whose dts is at or before the aim,
    /// mid-GOP (MPEG-TS), instead of on a keyframe (mov).
    let midGOP: Bool
    var index: ContainerIndexFacts?
    private(set) var pos = 0
    private var nextToken = 0
    /// Packets handed out and not released: token -> index in demux order.
    private(set) var live: [Int: Int] = [:]
    private(set) var crossings = 0
    var faultAt: Int?
    var fault = Fault.stop
    private(set) var stopped = false
    /// Streams discarded in the demuxer (AVDISCARD_ALL): never read.
    var discard = Set<Int32>()

    init(_ p: [DemuxedPacket], midGOP: Bool) {
        var o: [Int64] = [], at: Int64 = 0
        for q in p { o.append(at); at += q.isKey && q.stream == 0 ? 4000 : 700 }
        offsets = o
        packets = p.enumerated().map { i, q in
            var r = q
            r.size = q.isKey && q.stream == 0 ? 4000 : 700
            r.pos = o[i]
            return r
        }
        self.midGOP = midGOP
    }

    func arm(at n: Int?, _ f: Fault) { crossings = 0; faultAt = n; fault = f; stopped = false }

    /// One crossing; true when it fails.
    private func cross() -> Bool {
        crossings += 1
        guard crossings == faultAt else { return false }
        stopped = true
        return fault == .fail
    }

    private func moved() throws -> Bool {
        // A failed positioning leaves the demuxer somewhere else.
        pos = (pos + 7) % max(1, packets.count)
        throw EngineError(.interrupted)
    }

    func seek(toTicks ticks: Int64) throws -> Bool {
        if cross() { return try moved() }
        if midGOP {
            pos = packets.lastIndex { $0.stream == 0 && ($0.dts ?? $0.pts!) <= ticks } ?? 0
        } else {
            pos = packets.lastIndex { $0.stream == 0 && $0.isKey && $0.pts! <= ticks } ?? 0
        }
        return true
    }
    func seek(toByte offset: Int64) throws -> Bool {
        if cross() { return try moved() }
        pos = offsets.firstIndex { $0 >= offset } ?? packets.count
        return true
    }
    func seek(toIndexTimestamp ts: Int64) throws -> Bool {
        if cross() { return try moved() }
        guard let k = packets.lastIndex(where: { $0.stream == 0 && $0.isKey && $0.dts! <= ts }) else { return false }
        pos = k
        return true
    }
    func rewind() throws {
        if cross() { _ = try moved() }
        pos = 0
    }
    func read() throws -> (header: DemuxedPacket, packet: Int)? {
        let failed = cross()
        while pos < packets.count && discard.contains(packets[pos].stream) { pos += 1 }
        guard pos < packets.count else { return nil }
        pos += 1
        // Interrupted mid-packet: the packet is consumed, nothing is handed out.
        if failed { throw EngineError(.interrupted) }
        nextToken += 1
        live[nextToken] = pos - 1
        return (packets[pos - 1], nextToken)
    }
    func release(_ packet: Int) {
        XCTAssertNotNil(live.removeValue(forKey: packet), "packet \(packet) released twice or never handed out")
    }
    func containerIndex() -> ContainerIndexFacts? { index }
    func indexInFile(_ token: Int) -> Int? { live[token] }
}

/// Issue 26, item 1: every packet a host reads is the next packet of the demux
/// order, or follows a DISCONTINUITY, or is one `unread` gave back; under a stop
/// or an interrupted crossing at every seam crossing of every operation (seeks
/// from memory, by the index and by the scan, steps both ways, host reads that
/// restore the read position, unread, a stream enabled, continuation on and
/// off), and the window never claims to be contiguous where the demuxer is not.
final class PacketOrderTests: XCTestCase {
    enum Op: CustomStringConvertible {
        case seek(frame: Int, keyframe: Bool, memoryFirst: Bool)
        case step(forward: Bool, count: Int)
        case read(Int)
        case unread(Int)
        case enableStream
        case audio(Bool)
        case continuation(Bool)
        var description: String {
            switch self {
            case let .seek(f, k, m): return "seek(frame \(f)\(k ? ", keyframe" : "")\(m ? ", memory first" : ""))"
            case let .step(f, c): return "step(\(f ? "+" : "-")\(c))"
            case let .read(n): return "read(\(n))"
            case let .unread(n): return "unread(\(n))"
            case .enableStream: return "enableStream"
            case let .audio(on): return "audio(\(on ? "on" : "off"))"
            case let .continuation(on): return "continuation(\(on))"
            }
        }
    }

    /// The host: checks each packet against the demux order. Packets of the audio stream
    /// (1) may be missing from it when it was off at some time since the operation that
    /// filled the run's window (`excuse`): the demuxer discarded them, or the window held
    /// them and host reads pass over them.
    struct Host {
        let packets: [DemuxedPacket]
        var audioOff = false
        /// Audio was off at some time since the last operation that may have landed.
        var offSinceLanding = false
        /// ... since the run (the last DISCONTINUITY) began.
        var excuse = false
        var last = -1
        var history: [Int] = []
        var redeliver: [Int] = []
        var violation: String?
        var delivered = 0

        mutating func got(_ i: Int, flags: UInt32) {
            delivered += 1
            if flags & PacketView.flagDiscontinuity != 0 {
                let p = packets[i]
                if !(p.stream == 0 && p.isKey) && violation == nil {
                    violation = "DISCONTINUITY on packet #\(i), not a reference keyframe"
                }
                last = i; history = [i]; redeliver = []
                excuse = offSinceLanding || audioOff
                return
            }
            excuse = excuse || audioOff
            while excuse, let w = redeliver.first, w != i, packets[w].stream == 1 { redeliver.removeFirst() }
            if !redeliver.isEmpty {
                let want = redeliver.removeFirst()
                if i != want && violation == nil { violation = "packet #\(i) where unread gave back #\(want)" }
                history.append(i)
                return
            }
            let skippedAudio = i > last + 1 && excuse && (last + 1..<i).allSatisfy { packets[$0].stream == 1 }
            if i != last + 1 && !skippedAudio && violation == nil {
                violation = "packet #\(i) after #\(last) without DISCONTINUITY (#\(last + 1) lost or repeated)"
            }
            last = i
            history.append(i)
            if history.count > 8192 { history.removeFirst(4096) }
        }

        mutating func unread(_ n: Int) {
            // Given back before what an earlier unread gave back and is not delivered again yet.
            redeliver = Array(history.suffix(n)) + redeliver
            history.removeLast(n)
        }
    }

    struct Scenario {
        var packets: [DemuxedPacket]
        var byByte: Bool
        var continuation: Bool
        var ops: [Op]
    }

    /// Runs `sc` with a fault at crossing `at` of operation `faultOp`; returns the crossings
    /// of each operation and the first violation, if any.
    func run(_ sc: Scenario, faultOp: Int? = nil, at: Int? = nil, _ fault: FaultingSeam.Fault = .stop)
        -> (crossings: [Int], violation: String?, delivered: Int) {
        let s = FaultingSeam(sc.packets, midGOP: sc.byByte)
        let l = Lander<FaultingSeam>(facts: Media.facts(sc.packets, byByte: sc.byByte, byPTS: !sc.byByte))
        let ref = sc.packets.filter { $0.stream == 0 }
        if !sc.byByte {
            s.index = ContainerIndexFacts(container: .mov, entries: ref.map {
                .init(timestamp: $0.dts!, isKey: $0.isKey, isDiscard: false)
            }, frameCount: Int64(ref.count), writtenByLavf: false)
        }
        let frames = ref.compactMap(\.pts).sorted()
        guard (try? l.seekableRange(s)) != nil else { return ([], "no range", 0) }
        l.continuation = sc.continuation
        var host = Host(packets: sc.packets)
        var crossings: [Int] = []
        var seekID: UInt64 = 0
        var trace: [String] = []
        let stop: () -> Bool = { s.stopped }
        func note(_ t: String) { trace.append(t); if trace.count > 16 { trace.removeFirst() } }
        func readOne() throws -> Bool {
            if l.positionLost { try l.restoreReadPosition(s, shouldStop: stop) }
            let got = try l.nextForHost(s) { e, owned -> (Int, UInt32)? in
                guard let i = s.indexInFile(e.packet) else { return nil }
                let f = l.stamp.nextFlags(presents: e.presents ?? e.header.dts, timeBase: l.stamp.referenceTimeBase)
                if owned { s.release(e.packet) }
                return (i, f)
            }
            guard let r = got else { return false }
            guard let (i, f) = r else { host.violation = host.violation ?? "a packet not from the demuxer"; return false }
            note("#\(i)\(f & PacketView.flagDiscontinuity != 0 ? " DISC" : "")")
            host.got(i, flags: f)
            return true
        }
        for (n, op) in sc.ops.enumerated() {
            s.arm(at: n == faultOp ? at : nil, fault)
            note("\(op)")
            switch op {
            case .seek, .step: host.offSinceLanding = host.audioOff
            case .read where l.positionLost: host.offSinceLanding = host.audioOff
            default: break
            }
            do {
                switch op {
                case let .seek(f, key, memoryFirst):
                    seekID += 1
                    let t = frames[min(f, frames.count - 1)]
                    var r = LandingRequest(target: Rational(t), wantsKeyframe: key,
                                           keyframeWindow: key ? LandingRules.keyframeWindow(target: Rational(t),
                                                                                               toleranceTicks: Rational(3600 * 8)) : nil,
                                           seekID: seekID)
                    if memoryFirst {
                        if l.resolveFromMemory(r, s) != nil { break }
                        r.memoryChecked = true
                    }
                    _ = try l.resolve(r, s, shouldStop: stop)
                case let .step(forward, count):
                    _ = try l.step(from: l.landedPTS, forward: forward, count: count, seekID: 0, s, shouldStop: stop)
                case let .read(k):
                    for _ in 0..<k { guard try readOne() else { break } }
                case let .unread(k):
                    let k = min(k, host.history.count)
                    if k > 0 { l.unread(k); host.unread(k) }
                case .enableStream:
                    l.windowMissesStream()
                case let .audio(on):
                    l.setStreamEnabled(1, on)
                    if on { s.discard.remove(1) } else { s.discard.insert(1) }
                    host.audioOff = !on
                    if !on { host.offSinceLanding = true; host.excuse = true }
                case let .continuation(on):
                    l.continuation = on
                }
            } catch {
                note("  -> \(error)")
            }
            crossings.append(s.crossings)
            // The window never claims packets the demuxer is already past.
            if l.window.contiguous, let last = l.window.entries.last, let i = s.indexInFile(last.packet),
               s.pos != i + 1, host.violation == nil {
                host.violation = "after \(op): the window ends at #\(i) and claims to be contiguous, the demuxer is at #\(s.pos)"
            }
            if s.live.count < l.window.count, host.violation == nil { host.violation = "the window holds released packets" }
            if let v = host.violation {
                return (crossings, v + "\n  trace: " + trace.joined(separator: "; "), host.delivered)
            }
        }
        l.close(s)
        if !s.live.isEmpty { return (crossings, "\(s.live.count) packets leaked", host.delivered) }
        return (crossings, nil, host.delivered)
    }

    /// A seeded random sequence of operations of the kind a hostile host issues.
    func ops(seed: UInt64, count: Int, frames: Int) -> [Op] {
        var g = SplitMix(seed)
        var out: [Op] = []
        for _ in 0..<count {
            switch g.next() % 16 {
            case 0, 1, 2: out.append(.seek(frame: Int(g.next() % UInt64(frames)), keyframe: g.next() % 3 == 0,
                                           memoryFirst: g.next() % 4 != 0))
            case 3, 4: out.append(.step(forward: g.next() % 3 != 0, count: 1 + Int(g.next() % 3)))
            case 5, 6, 7, 8, 9: out.append(.read(1 + Int(g.next() % 30)))
            case 10, 11: out.append(.unread(1 + Int(g.next() % 6)))
            case 12: out.append(g.next() % 2 == 0 ? .enableStream : .audio(g.next() % 2 == 0))
            case 13: out.append(.continuation(g.next() % 2 == 0))
            default: out.append(.read(1 + Int(g.next() % 4)))
            }
        }
        return out
    }

    /// The reproduction of issue 26's trace: a seek memory decides, a read that positions
    /// and is stopped right after the keyframe, then reads: the packet after the keyframe
    /// must come, or the next packet must carry a DISCONTINUITY.
    func testAStopRightAfterTheKeyframeLosesNoPacket() {
        let p = Media.video(frames: 96, keyEvery: 12, audioEvery: 2)
        let sc = Scenario(packets: p, byByte: false, continuation: false,
                          ops: [.seek(frame: 40, keyframe: false, memoryFirst: true), .read(30),
                                .seek(frame: 70, keyframe: false, memoryFirst: true), .read(20),
                                .seek(frame: 40, keyframe: false, memoryFirst: true), .read(3), .read(40)])
        let base = run(sc)
        XCTAssertNil(base.violation)
        // The seek to frame 40 again is decided from memory; the read after it positions.
        for at in 1...max(1, base.crossings[5]) {
            for f in FaultingSeam.Fault.allCases {
                let r = run(sc, faultOp: 5, at: at, f)
                XCTAssertNil(r.violation, "\(f) at crossing \(at) of the read")
            }
        }
    }

    /// A lander landed on frame 30 of a file with an audio packet after each video packet,
    /// continuation on: its window holds audio.
    func landedWithAudioInTheWindow() throws -> (ScriptedSeam, Lander<ScriptedSeam>) {
        let p = Media.video(frames: 96, keyEvery: 12, audioEvery: 1)
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        _ = try l.seekableRange(s)
        l.continuation = true
        let f = p.filter { $0.stream == 0 }.compactMap(\.pts).sorted()
        _ = try l.resolve(LandingRequest(target: Rational(f[30]), wantsKeyframe: false, keyframeWindow: nil, seekID: 1),
                          s, shouldStop: { false })
        return (s, l)
    }

    /// Up to `n` host reads (stamped as the engine does); their headers.
    func hostRead(_ l: Lander<ScriptedSeam>, _ s: ScriptedSeam, _ n: Int) throws -> [DemuxedPacket] {
        var out: [DemuxedPacket] = []
        for _ in 0..<n {
            guard let h = try l.nextForHost(s, { e, owned -> DemuxedPacket in
                if owned { s.release(e.packet) }
                _ = l.stamp.nextFlags(presents: e.presents ?? e.header.dts, timeBase: l.stamp.referenceTimeBase)
                return e.header
            }) else { break }
            out.append(h)
        }
        return out
    }

    /// A stream switched off: host reads pass over its packets still in the window, and
    /// `unread` counts only the packets the host got (it moved the cursor back by window
    /// entries, so a packet of the stream switched off between them made it give back
    /// the wrong ones).
    func testUnreadCountsOnlyThePacketsTheHostGot() throws {
        let (s, l) = try landedWithAudioInTheWindow()
        func read(_ n: Int) throws -> [DemuxedPacket] { try hostRead(l, s, n) }
        XCTAssertTrue(l.window.entries.contains { $0.header.stream == 1 }, "the window holds audio")
        l.setStreamEnabled(1, false)
        let got = try read(8)
        XCTAssertEqual(got.count, 8)
        XCTAssertTrue(got.allSatisfy { $0.stream == 0 }, "no packet of the stream switched off")
        l.unread(3)
        XCTAssertFalse(l.positionLost)
        XCTAssertEqual(try read(3), Array(got.suffix(3)), "the last three again, in order")
        // Switched on again, the window lacks its packets: the run ends, unread cannot give back.
        l.setStreamEnabled(1, true)
        l.unread(1)
        XCTAssertTrue(l.positionLost)
        l.close(s)
        XCTAssertTrue(s.live.isEmpty)
    }

    /// A stream switched on again: its packets already buffered stay passed over (seek.h:
    /// "packets already buffered stay without it"), also those `unread` moved back over
    /// while it was off (they were delivered in between, though the host never had them).
    func testAStreamOnAgainLeavesItsBufferedPacketsOut() throws {
        let (s, l) = try landedWithAudioInTheWindow()
        func read(_ n: Int) throws -> [DemuxedPacket] { try hostRead(l, s, n) }
        l.setStreamEnabled(1, false)
        let got = try read(6)
        l.unread(2)
        XCTAssertFalse(l.positionLost)
        l.setStreamEnabled(1, true)
        XCTAssertEqual(try read(2), Array(got.suffix(2)), "what unread gave back, and no audio buffered meanwhile")
        let more = try read(40)
        XCTAssertTrue(more.contains { $0.stream == 1 }, "audio demuxed after it was switched on again comes")
        let firstAudio = try XCTUnwrap(more.firstIndex { $0.stream == 1 })
        XCTAssertTrue(more[..<firstAudio].allSatisfy { $0.stream == 0 })
        l.close(s)
        XCTAssertTrue(s.live.isEmpty)
    }

    /// Scenarios per kind of media and continuation setting (FPX_PACKET_ORDER_SEEDS for more).
    static var seeds: UInt64 {
        ProcessInfo.processInfo.environment["FPX_PACKET_ORDER_SEEDS"].flatMap { UInt64($0) } ?? 4
    }

    /// Every operation of every scenario, with a stop (and, separately, a failed crossing)
    /// at each of its seam crossings in turn; then the rest of the scenario, checked.
    func testAStopAtEverySeamCrossingKeepsTheDemuxOrder() {
        var replays = 0, delivered = 0
        let media: [(String, [DemuxedPacket], Bool)] = [
            ("mov-like B-pyramid with an index", Media.video(frames: 72, keyEvery: 12, audioEvery: 2), false),
            ("MPEG-TS-like, byte positioning", Media.video(frames: 72, keyEvery: 12, audioEvery: 3), true),
        ]
        for (name, p, byByte) in media {
            for continuation in [false, true] {
                for seed in UInt64(1)...Self.seeds {
                    let mix = seed &* 7919 &+ (byByte ? 1 : 0) &+ (continuation ? 104_729 : 0)
                    let sc = Scenario(packets: p, byByte: byByte, continuation: continuation,
                                      ops: ops(seed: mix, count: 24, frames: 72))
                    let base = run(sc)
                    XCTAssertNil(base.violation, "\(name), continuation \(continuation), seed \(seed), no fault")
                    for (i, n) in base.crossings.enumerated() where n > 0 {
                        for at in 1...n {
                            for f in FaultingSeam.Fault.allCases {
                                let r = run(sc, faultOp: i, at: at, f)
                                replays += 1
                                delivered += r.delivered
                                if let v = r.violation {
                                    XCTFail("\(name), continuation \(continuation), seed \(seed): \(f) at crossing \(at) of op \(i) (\(sc.ops[i])): \(v)\n  ops: \(sc.ops)")
                                    return
                                }
                            }
                        }
                    }
                }
            }
        }
        print("PacketOrderTests: \(replays) replays, \(delivered) packets checked")
        XCTAssertGreaterThan(replays, 1000)
        XCTAssertGreaterThan(delivered, 10000)
    }
}

/// A small deterministic generator (SplitMix64; the policy tests cannot import the CLI's or
/// the core tests' copy).
struct SplitMix {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
