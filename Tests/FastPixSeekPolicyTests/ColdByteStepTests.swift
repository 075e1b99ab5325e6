import XCTest
@testable import FastPixSeekPolicy

/// Cold scans on demuxers whose timestamp seeks land near the target's dts,
/// mid-GOP (MPEG-TS): the lander's scan steps back by bytes from where the seek
/// landed instead of backing off in time, so a cold seek reads about one GOP.
final class ColdByteStepTests: XCTestCase {
    // 25 fps in 1/90000, 100-frame GOPs (4 s), audio every 2nd video packet.
    static let frames = 1200
    static let gop = 100
    static let cfr: [Int64] = (0..<frames).map { Int64($0) * 3600 }

    struct Run { var reads: [Int]; var byteSeeks: Int; var timestampSeeks: Int }

    /// Cold scans (one fresh demuxer each) to `targets`; checks every landing
    /// against the script and that the window holds the packets from the
    /// keyframe in file order, each once.
    func run(_ targets: [Int64], bytesPerTick: (ScriptedSeam) -> Double?, wantsKeyframe: Bool = false,
             keyframeGap: Int64? = nil, anchor: Int64? = nil, costlySeeks: Bool = false) throws -> Run {
        let packets = Script.video(pts: Self.cfr, keyEvery: Self.gop, maxDuration: 3600, audioEvery: 2)
        let keys = Self.cfr.enumerated().filter { $0.offset % Self.gop == 0 }.map(\.element)
        var out = Run(reads: [], byteSeeks: 0, timestampSeeks: 0)
        for T in targets {
            let d = ScriptedSeam(packets, quirks: .init(seekByDTS: true, byteSeekable: true, landNearDTS: true))
            let l = Lander<ScriptedSeam>(facts: Media.facts(packets, byByte: true, byPTS: false, costlySeeks: costlySeeks))
            let window: ClosedRange<Int64>? = wantsKeyframe ? (T - 90000)...(T + 90000) : nil
            let s = try l.scan(target: T, window: window, wantsKeyframe: wantsKeyframe, firstFrame: 0,
                               bytesPerTick: bytesPerTick(d), keyframeGap: keyframeGap, keyframeAnchor: anchor, d,
                               shouldStop: { false })
            let covering = Self.cfr.last { $0 <= T }!
            XCTAssertEqual(s.best?.pts, covering, "target \(T)")
            let k = keys.last { $0 <= T }!
            XCTAssertEqual(s.lastKeyLE?.pts, k, "target \(T)")
            XCTAssertLessThanOrEqual(s.firstKey.pts, k)
            // The window: consecutive packets from the keyframe, none twice.
            let w = l.window.entries.compactMap(d.packetIndex)
            XCTAssertEqual(w.count, l.window.count, "every packet kept has its byte offset")
            XCTAssertEqual(packets[w[0]].pts, s.firstKey.pts)
            XCTAssertTrue(packets[w[0]].isKey)
            XCTAssertEqual(w, Array(w[0]..<(w[0] + w.count)), "target \(T)")
            if wantsKeyframe {
                let request = LandingRequest(target: Rational(T), wantsKeyframe: true, keyframeWindow: window, seekID: 1)
                let decision = LandingRules.decide(request, scan: s)
                // The nearest keyframe in the window (ties: the earlier), else the covering frame.
                let nearest = keys.filter { window!.contains($0) }.min { (abs($0 - T), $0) < (abs($1 - T), $1) }
                XCTAssertEqual(decision.pts, nearest ?? covering, "target \(T)")
            }
            out.reads.append(d.reads)
            out.byteSeeks += d.byteSeeks
            out.timestampSeeks += d.timestampSeeks
        }
        return out
    }

    static func median(_ a: [Int]) -> Int { a.sorted()[a.count / 2] }

    /// Targets spread over the file, away from its first GOP.
    static let targets: [Int64] = (0..<60).map { i in Int64(ColdByteStepTests.gop) * 3600 + Int64(i) * 62_311 * 3 % (Int64(ColdByteStepTests.frames - ColdByteStepTests.gop) * 3600) }

    static func fileRate(_ d: ScriptedSeam) -> Double { Double(d.offsets.last! + 700) / Double(cfr.last!) }

    func testColdExactScanReadsAboutOneGOP() throws {
        let gopPackets = Self.gop + Self.gop / 2  // video + audio
        let bytes = try run(Self.targets, bytesPerTick: Self.fileRate)
        let time = try run(Self.targets, bytesPerTick: { _ in nil })
        XCTAssertGreaterThan(bytes.byteSeeks, 0)
        XCTAssertLessThanOrEqual(Double(Self.median(bytes.reads)), 1.5 * Double(gopPackets),
                                 "reads: \(bytes.reads)")
        // Time backoff (the old behaviour, and what a demuxer without byte
        // positioning still gets) reads on to the next keyframe on every miss.
        XCTAssertGreaterThan(Double(Self.median(time.reads)), 1.5 * Double(gopPackets), "reads: \(time.reads)")
        XCTAssertLessThan(bytes.reads.reduce(0, +), time.reads.reduce(0, +))
        // One timestamp seek per scan: the retries are byte seeks.
        XCTAssertEqual(bytes.timestampSeeks, Self.targets.count)
    }

    func testCostlySeeksDoubleTheStep() throws {
        // A remote input: fewer positionings (each a round trip), more bytes.
        let gopPackets = Self.gop + Self.gop / 2
        let local = try run(Self.targets, bytesPerTick: Self.fileRate)
        let remote = try run(Self.targets, bytesPerTick: Self.fileRate, costlySeeks: true)
        XCTAssertLessThan(remote.byteSeeks, local.byteSeeks)
        XCTAssertLessThanOrEqual(Double(Self.median(remote.reads)), 1.5 * Double(gopPackets), "reads: \(remote.reads)")
        XCTAssertLessThanOrEqual(local.reads.reduce(0, +), remote.reads.reduce(0, +))
    }

    func testKnownGOPStartsWithAQuarterGOPStep() throws {
        let gopPackets = Self.gop + Self.gop / 2
        let r = try run(Self.targets, bytesPerTick: Self.fileRate, keyframeGap: Int64(Self.gop) * 3600)
        XCTAssertLessThanOrEqual(Double(Self.median(r.reads)), 1.5 * Double(gopPackets), "reads: \(r.reads)")
    }

    func testAKnownFixedGOPPredictsTheKeyframe() throws {
        // The grid knows the interval and a keyframe (here the last one): the
        // first step lands just before the predicted keyframe.
        let gopPackets = Self.gop + Self.gop / 2
        let gap = Int64(Self.gop) * 3600
        let blind = try run(Self.targets, bytesPerTick: Self.fileRate, keyframeGap: gap)
        let r = try run(Self.targets, bytesPerTick: Self.fileRate, keyframeGap: gap, anchor: 11 * gap)
        XCTAssertLessThanOrEqual(Double(Self.median(r.reads)), 0.85 * Double(gopPackets), "reads: \(r.reads)")
        XCTAssertLessThan(r.reads.reduce(0, +), blind.reads.reduce(0, +))
        XCTAssertEqual(r.byteSeeks, Self.targets.count, "one byte step per scan")
    }

    func testAWrongPredictionStillLandsRight() throws {
        // An anchor off the real keyframes (irregular GOPs): a quarter GOP late
        // and half a GOP early.
        let gap = Int64(Self.gop) * 3600
        _ = try run(Self.targets, bytesPerTick: Self.fileRate, keyframeGap: gap, anchor: 5 * gap + gap / 4)
        _ = try run(Self.targets, bytesPerTick: Self.fileRate, keyframeGap: gap, anchor: 5 * gap - gap / 2)
        _ = try run(Self.targets, bytesPerTick: Self.fileRate, keyframeGap: gap / 3, anchor: 7)
    }

    func testColdKeyframeScan() throws {
        let gopPackets = Self.gop + Self.gop / 2
        let r = try run(Self.targets, bytesPerTick: Self.fileRate, wantsKeyframe: true)
        XCTAssertLessThanOrEqual(Double(Self.median(r.reads)), 2 * Double(gopPackets), "reads: \(r.reads)")
    }

    func testAWildlyWrongRateStillLandsRight() throws {
        // Far too small (many retries, each reading only up to the previous
        // start) and far too large (back to the start of the file).
        _ = try run(Array(Self.targets.prefix(15)), bytesPerTick: { Self.fileRate($0) / 500 })
        _ = try run(Array(Self.targets.prefix(15)), bytesPerTick: { Self.fileRate($0) * 500 })
    }

    func testTargetsInTheFirstGOP() throws {
        // Typed: Swift 6.0.3 (Debian 13) infers the products as Int here and fails.
        let targets: [Int64] = [0, 3600, 50 * 3600, 99 * 3600, 100 * 3600, 101 * 3600]
        _ = try run(targets, bytesPerTick: Self.fileRate)
    }
}
