import XCTest
@testable import FastPixSeekPolicy

/// Raw PCM behind the seam as libavformat demuxes it (WAV, AIFF, CAF): a seek puts the read
/// position at the sample aimed at (rounded down to `align` samples) and packets of `block`
/// samples are cut from wherever reading starts, the last one short.
final class PCMSeam: LandingSeam {
    let samples: Int64, block: Int64, align: Int64
    private var pos: Int64 = 0
    private(set) var live = Set<Int>()
    private var handed: [Int: Int64] = [:]
    private var next = 0
    init(samples: Int64, block: Int64, align: Int64 = 1) { self.samples = samples; self.block = block; self.align = align }

    func seek(toTicks ticks: Int64) throws -> Bool {
        pos = min(max(0, ticks / align * align), samples)
        return true
    }
    func seek(toByte offset: Int64) throws -> Bool { false }
    func seek(toIndexTimestamp timestamp: Int64) throws -> Bool { try seek(toTicks: timestamp) }
    func rewind() throws { pos = 0 }
    func read() throws -> (header: DemuxedPacket, packet: PacketHandle)? {
        guard pos < samples else { return nil }
        let d = min(block, samples - pos)
        next += 1
        live.insert(next)
        handed[next] = pos
        let h = DemuxedPacket(stream: 0, pts: pos, dts: pos, duration: d, isKey: true, size: Int(d) * 2)
        pos += d
        return (h, next)
    }
    func release(_ packet: PacketHandle) {
        XCTAssertTrue(live.remove(packet) != nil, "packet \(packet) released twice or never handed out")
    }
    func containerIndex() -> ContainerIndexFacts? { nil }
}

final class LanderSamplesTests: XCTestCase {
    static let rate: Int32 = 8000
    let samples: Int64 = 4 * 8000

    func lander(_ s: PCMSeam) -> Lander<PCMSeam> {
        let priming = Priming(referenceStream: 0, sampleRate: Self.rate, audioStart: 0, timeBaseNum: 1,
                              timeBaseDen: Self.rate, samplesAreFrames: true)
        return Lander<PCMSeam>(facts: DemuxerFacts(
            referenceStream: 0, ticksPerSecond: Int64(Self.rate), settleCount: 1, originTicks: 0,
            durationEndTicks: samples, seekable: true, positionsByByte: false, seeksByPTS: true, costlySeeks: false,
            fileSize: nil, maxWindowBytes: 64 << 20, hasVideo: false, priming: priming))
    }

    func request(_ t: Int64, id: UInt64) -> LandingRequest {
        LandingRequest(target: Rational(t), wantsKeyframe: false, keyframeWindow: nil, seekID: id)
    }

    /// The host's next packet after a landing: (pts, duration, trim) as the stamp describes it.
    func hostPacket(_ l: Lander<PCMSeam>, _ s: PCMSeam) throws -> (Int64, Int64, Int64)? {
        if l.positionLost { try l.restoreReadPosition(s, shouldStop: { false }) }
        return try l.nextForHost(s) { e, owned in
            var v = PacketView(data: nil, size: 0, streamIndex: 0, pts: e.header.pts, dts: e.header.dts,
                               duration: e.header.duration, position: -1, flags: 0, seekID: 0, avPacket: nil, owner: nil)
            l.stamp.describeLanding(&v, referenceStream: 0, streamTimeBase: .init(1, Self.rate), audioSampleRate: Self.rate)
            if owned { s.release(e.packet) }
            return (e.header.pts ?? -1, e.header.duration, v.trimSamples)
        }
    }

    func testRangeEndsAtTheLastSampleWhateverTheTailsGrid() throws {
        for align: Int64 in [1, 7, 100] {
            let s = PCMSeam(samples: samples, block: 1024, align: align)
            let l = lander(s)
            XCTAssertEqual(try l.seekableRange(s), 0...(samples - 1), "align \(align)")
        }
    }

    /// Every landing near the end is the target's sample, on a fresh lander and after reads
    /// that cut the packets on other grids; the host's first packet holds it, with the trim.
    func testLandingsDoNotDependOnWhatWasRead() throws {
        let targets: [Int64] = (0..<600).map { samples - 1 - $0 * 7 } + [0, 1, 1023, 1024]
        var id: UInt64 = 0
        for history: [Int64] in [[], [samples - 900], [31_000, 12_345, samples - 1], [5, 30_001]] {
            for fromMemory in [true, false] {
                let s = PCMSeam(samples: samples, block: 1024, align: 1)
                let l = lander(s)
                _ = try l.seekableRange(s)
                for h in history {
                    id += 1
                    _ = try l.resolve(request(h, id: id), s, shouldStop: { false })
                    for _ in 0..<3 { _ = try hostPacket(l, s) }
                }
                for t in targets {
                    id += 1
                    var r = request(t, id: id)
                    r.memoryChecked = !fromMemory
                    let landing = try l.resolve(r, s, shouldStop: { false })
                    XCTAssertEqual(landing.pts, t)
                    XCTAssertTrue(landing.coversTarget)
                    if fromMemory { XCTAssertEqual(landing.packetsRead, 0, "the target decides: no I/O") }
                    let (p, d, trim) = try XCTUnwrap(try hostPacket(l, s))
                    XCTAssertTrue(p <= t && t < p + d, "packet \(p)+\(d) does not hold \(t)")
                    XCTAssertEqual(trim, t - p)
                    XCTAssertEqual(s.live.count, l.window.count, "packets leaked")
                }
            }
        }
    }

    func testTargetsPastTheEndLandOnTheLastSample() throws {
        let s = PCMSeam(samples: samples, block: 1000)
        let l = lander(s)
        _ = try l.seekableRange(s)
        let landing = try l.resolve(request(samples + 500, id: 1), s, shouldStop: { false })
        XCTAssertEqual(landing.pts, samples - 1)
        XCTAssertFalse(landing.coversTarget)
        let (p, d, _) = try XCTUnwrap(try hostPacket(l, s))
        XCTAssertEqual(p + d, samples)
    }
}
