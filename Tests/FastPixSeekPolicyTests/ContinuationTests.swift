import Foundation
import XCTest
@testable import FastPixSeekPolicy

/// Continuation as a rule of the policy, on a scripted seam: when a landing
/// continues the host's packets (no DISCONTINUITY, the read position kept), and
/// when it must restart at its keyframe.
final class ContinuationTests: XCTestCase {
    struct Read { var h: DemuxedPacket; var flags: UInt32; var seekID: UInt64; var landed: Int64? }

    /// The host reads `n` packets (or until the landing's frame and `extra` more reference packets).
    @discardableResult
    func read(_ l: Lander<ScriptedSeam>, _ s: ScriptedSeam, _ n: Int) throws -> [Read] {
        var out: [Read] = []
        for _ in 0..<n {
            guard let r = try l.nextForHost(s, { e, owned -> Read in
                if owned { s.release(e.packet) }
                let f = l.stamp.nextFlags(presents: e.presents ?? e.header.dts, timeBase: l.stamp.referenceTimeBase)
                return Read(h: e.header, flags: f, seekID: l.stamp.seekID, landed: l.stamp.landedPTS)
            }) else { break }
            out.append(r)
        }
        return out
    }

    /// Reads until the reference packet presenting at `pts` and `after` more reference packets.
    @discardableResult
    func read(_ l: Lander<ScriptedSeam>, _ s: ScriptedSeam, through pts: Int64, after: Int = 0) throws -> [Read] {
        var out: [Read] = []
        var seen = false, more = 0
        while true {
            guard let r = try read(l, s, 1).first else { break }
            out.append(r)
            if r.h.stream == 0 {
                if seen { more += 1 }
                if r.h.pts == pts { seen = true }
                if seen && more >= after { break }
            }
        }
        return out
    }

    func setup(keyEvery: Int = 24, audioEvery: Int = 2, on: Bool = true) throws -> (ScriptedSeam, Lander<ScriptedSeam>, [Int64]) {
        let p = Media.video(keyEvery: keyEvery, audioEvery: audioEvery)
        let s = ScriptedSeam(p)
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        _ = try l.seekableRange(s)
        l.continuation = on
        return (s, l, p.filter { $0.stream == 0 }.compactMap(\.pts).sorted())
    }

    func exact(_ t: Int64, id: UInt64) -> LandingRequest {
        LandingRequest(target: Rational(t), wantsKeyframe: false, keyframeWindow: nil, seekID: id)
    }

    func testForwardStepsContinueAndCostAboutOnePacketEach() throws {
        let (s, l, f) = try setup(audioEvery: 0)
        _ = try l.resolve(exact(f[26], id: 1), s, shouldStop: { false })
        let first = try read(l, s, through: f[26])
        XCTAssertNotEqual(first[0].flags & PacketView.flagDiscontinuity, 0)
        XCTAssertTrue(l.hostRun)
        var at = f[26]
        var continued = 0, restarted = 0, delivered = 0
        for i in 27..<46 {
            // The next frame's packet: not read yet, or read already (B-pyramid order).
            let step = try XCTUnwrap(try l.step(from: at, forward: true, count: 1, seekID: 0, s, shouldStop: { false }))
            XCTAssertEqual(step.pts, f[i])
            at = step.pts
            let got = try read(l, s, through: f[i])
            delivered += got.filter { $0.h.stream == 0 }.count
            if got.first.map({ $0.flags & PacketView.flagDiscontinuity != 0 }) == true { restarted += 1 } else { continued += 1 }
            // Every packet before the new landing is DECODE_ONLY; the landing's is not; all carry it.
            for r in got {
                XCTAssertEqual(r.landed, f[i])
                if let p = r.h.pts { XCTAssertEqual(r.flags & PacketView.flagDecodeOnly != 0, p < f[i]) }
            }
        }
        XCTAssertGreaterThan(continued, 0)
        // Without a decoder report, a step whose frame's packet was read already restarts
        // (the decoder may have returned it): B-pyramids restart for some steps.
        XCTAssertEqual(continued + restarted, 19)
        XCTAssertEqual(l.continuedLandings, UInt64(continued))
        _ = delivered
    }

    /// A decoder that returns frames in presentation order, at most one per packet fed
    /// (as libavcodec's reordering decoders do in steady state): frame k once it and
    /// every earlier frame were decoded. Flushed at DISCONTINUITY.
    struct Decoder {
        let frames: [Int64]
        var decoded = Set<Int64>()
        var next = 0
        mutating func feed(_ r: Read) {
            if r.flags & PacketView.flagDiscontinuity != 0 {
                decoded.removeAll()
                next = frames.firstIndex(of: r.h.pts ?? 0) ?? 0
            }
            guard r.h.stream == 0, let p = r.h.pts else { return }
            decoded.insert(p)
            if next < frames.count, decoded.contains(frames[next]) { next += 1 }
        }
        /// The largest pts returned, if any.
        var returned: Int64? { next > 0 ? frames[next - 1] : nil }
    }

    /// The host feeds packets until its decoder returns `pts`; returns the reference packets fed.
    func feed(_ l: Lander<ScriptedSeam>, _ s: ScriptedSeam, _ d: inout Decoder, until pts: Int64,
              report: Bool) throws -> (refs: Int, restarted: Bool) {
        var refs = 0, restarted = false, first = true
        while (d.returned ?? Int64.min) < pts {
            guard let r = try read(l, s, 1).first else { break }
            if first { restarted = r.flags & PacketView.flagDiscontinuity != 0; first = false }
            if r.h.stream == 0 { refs += 1 }
            d.feed(r)
        }
        if report, let out = d.returned { l.reportOutput(out) }
        return (refs, restarted)
    }

    func testWithTheDecodersReportEveryForwardStepContinuesAndCostsAboutOneFrame() throws {
        for report in [true, false] {
            let (s, l, f) = try setup(keyEvery: 48, audioEvery: 0)
            var d = Decoder(frames: f)
            _ = try l.resolve(exact(f[2], id: 1), s, shouldStop: { false })
            _ = try feed(l, s, &d, until: f[2], report: report)
            var at = f[2]
            var fed = 0, restarts = 0
            for i in 3..<44 {
                let step = try XCTUnwrap(try l.step(from: at, forward: true, count: 1, seekID: 0, s, shouldStop: { false }))
                XCTAssertEqual(step.pts, f[i])
                at = step.pts
                let (n, restarted) = try feed(l, s, &d, until: f[i], report: report)
                fed += n
                if restarted { restarts += 1 }
                XCTAssertEqual(d.returned, f[i], "the decoder returns the landed frame")
            }
            if report {
                XCTAssertEqual(restarts, 0, "with the report every step continues")
                XCTAssertEqual(l.continuedLandings, 41)
                XCTAssertLessThanOrEqual(fed, 41 + 4, "about one packet per step")
            } else {
                // Without it, a step whose frame's packet was fed already restarts.
                XCTAssertGreaterThan(l.continuedLandings, 0)
                NSLog("without a report: \(restarts) of 41 steps restarted, \(fed) packets fed")
            }
        }
    }

    func testBackwardAndAlreadyDecodedLandingsRestart() throws {
        let (s, l, f) = try setup()
        _ = try l.resolve(exact(f[10], id: 1), s, shouldStop: { false })
        try read(l, s, through: f[10], after: 3)
        l.reportOutput(f[10])
        // Backward: the decoder returned the frame already.
        let back = try XCTUnwrap(try l.step(from: f[10], forward: false, count: 1, seekID: 0, s, shouldStop: { false }))
        XCTAssertEqual(back.pts, f[9])
        let r = try read(l, s, 1)
        XCTAssertNotEqual(r[0].flags & PacketView.flagDiscontinuity, 0)
        XCTAssertTrue(r[0].h.isKey)
        XCTAssertEqual(l.continuedLandings, 0)
    }

    func testALandingWhoseKeyframeIsAheadRestarts() throws {
        let (s, l, f) = try setup(keyEvery: 12)
        _ = try l.resolve(exact(f[2], id: 1), s, shouldStop: { false })
        try read(l, s, through: f[2])
        // Frame 13: in the next GOP (keyframe 12 not read yet): restarting costs less.
        _ = try l.resolve(exact(f[13], id: 2), s, shouldStop: { false })
        let r = try read(l, s, 1)
        XCTAssertNotEqual(r[0].flags & PacketView.flagDiscontinuity, 0)
        XCTAssertEqual(r[0].seekID, 2)
        XCTAssertEqual(l.continuedLandings, 0)
    }

    func testSeeksAheadContinueFromMemoryAndByReadingOn() throws {
        let (s, l, f) = try setup(keyEvery: 48)
        _ = try l.resolve(exact(f[12], id: 1), s, shouldStop: { false })   // proves frames up to ~12
        _ = try XCTUnwrap(l.resolveFromMemory(exact(f[3], id: 1), s))
        try read(l, s, through: f[3])
        // Inside what the window proves, not read by the host: memory decides and continues.
        let m = try XCTUnwrap(l.resolveFromMemory(exact(f[5], id: 2), s))
        XCTAssertEqual(m.pts, f[5])
        var got = try read(l, s, through: f[5])
        XCTAssertTrue(got.allSatisfy { $0.flags & PacketView.flagDiscontinuity == 0 })
        XCTAssertTrue(got.allSatisfy { $0.seekID == 2 && $0.landed == f[5] })
        // Past what the window proves: memory leaves it to the worker, which reads on.
        let target = f[30]
        if let mem = l.resolveFromMemory(exact(target, id: 3), s) { XCTFail("memory decided \(mem)") }
        var r = exact(target, id: 3)
        r.memoryChecked = true
        let before = s.positionings
        let w = try l.resolve(r, s, shouldStop: { false })
        XCTAssertEqual(w.pts, target)
        XCTAssertEqual(s.positionings, before, "no positioning: read on from the host's position")
        got = try read(l, s, through: target)
        XCTAssertTrue(got.allSatisfy { $0.flags & PacketView.flagDiscontinuity == 0 })
        XCTAssertEqual(got.last?.seekID, 3)
        XCTAssertEqual(l.continuedLandings, 2)
    }

    func testALandingTheGridKnowsButNotReadYetContinuesByReadingOn() throws {
        let (s, l, f) = try setup(keyEvery: 48)
        _ = try l.resolve(exact(f[30], id: 1), s, shouldStop: { false })   // the grid proves ~0...30
        l.clearWindow(s)
        // Decided from memory, positioned lazily: the host's reads refill the window from K0.
        _ = try XCTUnwrap(l.resolveFromMemory(exact(f[3], id: 2), s))
        try l.restoreReadPosition(s, shouldStop: { false })
        try read(l, s, through: f[3])
        XCTAssertTrue(l.hostRun)
        // f[10]: known to the grid, its packet not read yet, its keyframe read in this run:
        // memory leaves it to the worker, which reads on and continues.
        XCTAssertNil(l.resolveFromMemory(exact(f[10], id: 3), s))
        var r = exact(f[10], id: 3)
        r.memoryChecked = true
        let before = s.positionings
        XCTAssertEqual(try l.resolve(r, s, shouldStop: { false }).pts, f[10])
        XCTAssertEqual(s.positionings, before)
        let got = try read(l, s, through: f[10])
        XCTAssertTrue(got.allSatisfy { $0.flags & PacketView.flagDiscontinuity == 0 })
        XCTAssertEqual(got.last?.landed, f[10])
        XCTAssertEqual(l.continuedLandings, 1)
    }

    func testAHostThatReadToTheEndStillContinues() throws {
        // A binding that reads ahead takes the window to the end of the stream, then gives
        // the packets it did not use back (unread): a landing ahead, past what the window
        // proved at the last seek, still continues (the window proves it to the end).
        let (s, l, f) = try setup(keyEvery: 24, audioEvery: 0)
        let n = f.count
        _ = try l.resolve(exact(f[n - 20], id: 1), s, shouldStop: { false })
        let got = try read(l, s, through: f[n - 20])
        let more = try read(l, s, 1000)                  // the read-ahead: to the end
        XCTAssertTrue(l.window.atEOF)
        l.unread(more.count)
        XCTAssertTrue(l.hostRun)
        var r = exact(f[n - 5], id: 2)
        r.memoryChecked = true
        let before = s.positionings
        XCTAssertEqual(try l.resolve(r, s, shouldStop: { false }).pts, f[n - 5])
        XCTAssertEqual(s.positionings, before, "no positioning: the host's run continues")
        let next = try read(l, s, through: f[n - 5])
        XCTAssertFalse(got.isEmpty)
        XCTAssertTrue(next.allSatisfy { $0.flags & PacketView.flagDiscontinuity == 0 })
        XCTAssertEqual(next.last?.landed, f[n - 5])
        XCTAssertEqual(l.continuedLandings, 1)
    }

    func testAHostThatReadToTheEndRestarts() throws {
        // A host whose read returned the end drained its decoder (seek.h): the next landing,
        // even on the frame it just presented, restarts with a DISCONTINUITY, whether or not
        // its report covers that frame.
        let (s, l, f) = try setup(keyEvery: 24, audioEvery: 0)
        let n = f.count
        _ = try l.resolve(exact(f[n - 1], id: 1), s, shouldStop: { false })
        _ = try read(l, s, 1000)
        XCTAssertTrue(l.window.atEOF)
        XCTAssertTrue(l.hostReachedEnd)
        l.reportOutput(f[n - 2])  // a stale report: the drain returned f[n - 1] too
        for (id, j) in [(UInt64(2), n - 1), (3, n - 3)] {
            var r = exact(f[j], id: id)
            r.memoryChecked = true
            XCTAssertEqual(try l.resolve(r, s, shouldStop: { false }).pts, f[j])
            let again = try read(l, s, through: f[j])
            XCTAssertNotEqual(again.first.map { $0.flags & PacketView.flagDiscontinuity } ?? 0, 0, "landing \(id)")
            XCTAssertEqual(again.last?.landed, f[j])
            _ = try read(l, s, 1000)
        }
        XCTAssertEqual(l.continuedLandings, 0)
    }

    func testOffNeverContinues() throws {
        let (s, l, f) = try setup(on: false)
        _ = try l.resolve(exact(f[3], id: 1), s, shouldStop: { false })
        try read(l, s, through: f[3])
        _ = try l.step(from: f[3], forward: true, count: 1, seekID: 0, s, shouldStop: { false })
        _ = try l.resolve(exact(f[20], id: 2), s, shouldStop: { false })
        XCTAssertEqual(l.continuedLandings, 0)
        XCTAssertNotEqual(try read(l, s, 1)[0].flags & PacketView.flagDiscontinuity, 0)
    }

    func testUnreadDeliversAgainWithTheNewStamp() throws {
        let (s, l, f) = try setup(keyEvery: 48)
        _ = try l.resolve(exact(f[12], id: 1), s, shouldStop: { false })
        _ = try XCTUnwrap(l.resolveFromMemory(exact(f[3], id: 1), s))
        let all = try read(l, s, 12)
        // A binding read ahead 4 packets it never handed out: they come again, stamped for seek 2.
        l.unread(4)
        _ = try XCTUnwrap(l.resolveFromMemory(exact(f[11], id: 2), s))
        let again = try read(l, s, 4)
        XCTAssertEqual(again.map(\.h), all.suffix(4).map(\.h))
        XCTAssertTrue(again.allSatisfy { $0.seekID == 2 && $0.flags & PacketView.flagDiscontinuity == 0 })
        // Unreading the whole run: its first packet is the DISCONTINUITY one again.
        l.unread(all.count)
        let restart = try read(l, s, 1)
        XCTAssertNotEqual(restart[0].flags & PacketView.flagDiscontinuity, 0)
        XCTAssertEqual(restart[0].h, all[0].h)
        // More than the window holds: the read position is lost (restored at the playhead).
        l.unread(100_000)
        XCTAssertTrue(l.positionLost)
    }

    func testAReportOfAnEndedRunIsIgnored() throws {
        let (s, l, f) = try setup()
        _ = try l.resolve(exact(f[3], id: 1), s, shouldStop: { false })
        try read(l, s, through: f[3])
        _ = try l.resolve(exact(f[100], id: 2), s, shouldStop: { false })
        l.reportOutput(f[200])   // of the old run: the new one has not started
        XCTAssertNil(l.reportedOutput)
        try read(l, s, 1)
        XCTAssertNil(l.reportedOutput, "a new run starts with no report")
    }

    // MARK: The horizon: how far a seek reads on (the container's keyframe index)

    enum Index { case none, mov, matroska }

    /// 30 s of 25 fps with 10 s GOPs (keyframes at 0, 10, 20 s), audio every other packet,
    /// and the container's index as mov (every sample, by dts) or Matroska (cues, by pts) has it.
    func longGOP(_ index: Index) throws -> (ScriptedSeam, Lander<ScriptedSeam>, [Int64]) {
        let p = Media.video(frames: 750, keyEvery: 250)
        let s = ScriptedSeam(p)
        let ref = p.filter { $0.stream == 0 }
        switch index {
        case .none: s.index = nil
        case .mov:
            s.index = ContainerIndexFacts(container: .mov, entries: ref.map {
                .init(timestamp: $0.dts!, isKey: $0.isKey, isDiscard: false)
            }, frameCount: Int64(ref.count), writtenByLavf: false)
        case .matroska:
            s.index = ContainerIndexFacts(container: .matroska, entries: ref.filter(\.isKey).map {
                .init(timestamp: $0.pts!, isKey: true, isDiscard: false)
            }, frameCount: 0, writtenByLavf: true)
        }
        let l = Lander<ScriptedSeam>(facts: Media.facts(p))
        _ = try l.seekableRange(s)
        l.continuation = true
        return (s, l, ref.compactMap(\.pts).sorted())
    }

    /// A seek to `f[i]` as a player makes it (memory first, then the worker); the host then
    /// reads to the landed frame. Returns the positionings it made and the packets read.
    func seekAndRead(_ l: Lander<ScriptedSeam>, _ s: ScriptedSeam, _ pts: Int64, id: UInt64) throws -> (positionings: Int, got: [Read]) {
        let before = s.positionings
        if l.resolveFromMemory(exact(pts, id: id), s) == nil {
            var r = exact(pts, id: id)
            r.memoryChecked = true
            XCTAssertEqual(try l.resolve(r, s, shouldStop: { false }).pts, pts)
        }
        let n = s.positionings - before
        let got = try read(l, s, through: pts)
        XCTAssertEqual(got.last?.landed, pts)
        XCTAssertEqual(got.last?.seekID, id)
        return (n, got)
    }

    func testInALongGOPTargetsTwoSecondsApartContinueWhenTheIndexShowsNoKeyframeBetween() throws {
        for index in [Index.mov, .matroska] {
            let (s, l, f) = try longGOP(index)
            let first = try seekAndRead(l, s, f[0], id: 1)
            XCTAssertNotEqual(first.got[0].flags & PacketView.flagDiscontinuity, 0)
            // 2, 4, 6, 8 s: 50 frames (2 s) past what the grid proves, farther than the 1 s
            // horizon; the index lists no keyframe before 10 s: each reads on and continues.
            var delivered = first.got.filter { $0.h.stream == 0 }.count
            for (n, i) in [50, 100, 150, 200].enumerated() {
                let (positionings, got) = try seekAndRead(l, s, f[i], id: UInt64(n + 2))
                XCTAssertEqual(positionings, 0, "\(index) \(i): read on from the host's position")
                XCTAssertTrue(got.allSatisfy { $0.flags & PacketView.flagDiscontinuity == 0 }, "\(index) \(i)")
                XCTAssertEqual(l.continuedLandings, UInt64(n + 1), "\(index) \(i)")
                delivered += got.filter { $0.h.stream == 0 }.count
            }
            // Each reference packet to 8 s once (B-pyramid order: a few past it), not the
            // 50 + 100 + 150 + 200 of restarting at the keyframe each time.
            XCTAssertLessThanOrEqual(delivered, 201 + 4, "\(index)")
        }
    }

    func testAKeyframeTheIndexListsBetweenRestartsThere() throws {
        for index in [Index.mov, .matroska] {
            let (s, l, f) = try longGOP(index)
            _ = try seekAndRead(l, s, f[0], id: 1)
            _ = try seekAndRead(l, s, f[200], id: 2)
            XCTAssertEqual(l.continuedLandings, 1)
            // 10.4 s: the keyframe at 10 s lies between: the seek restarts there.
            let (positionings, got) = try seekAndRead(l, s, f[260], id: 3)
            XCTAssertGreaterThan(positionings, 0, "\(index)")
            let firstRef = try XCTUnwrap(got.first { $0.h.stream == 0 })
            XCTAssertNotEqual(got[0].flags & PacketView.flagDiscontinuity, 0, "\(index)")
            XCTAssertTrue(firstRef.h.isKey)
            XCTAssertEqual(firstRef.h.pts, f[250])
            XCTAssertEqual(l.continuedLandings, 1, "\(index)")
        }
    }

    func testWithoutAnIndexTheHorizonIsAKeyframeIntervalAsBefore() throws {
        let (s, l, f) = try longGOP(.none)
        _ = try seekAndRead(l, s, f[0], id: 1)
        // 2 s ahead, past the 1 s horizon, and no index: restart at the keyframe.
        let far = try seekAndRead(l, s, f[50], id: 2)
        XCTAssertGreaterThan(far.positionings, 0)
        XCTAssertNotEqual(far.got[0].flags & PacketView.flagDiscontinuity, 0)
        XCTAssertEqual(l.continuedLandings, 0)
        // 0.6 s ahead, inside it: read on and continue.
        let near = try seekAndRead(l, s, f[65], id: 3)
        XCTAssertEqual(near.positionings, 0)
        XCTAssertTrue(near.got.allSatisfy { $0.flags & PacketView.flagDiscontinuity == 0 })
        XCTAssertEqual(l.continuedLandings, 1)
        // index_mode OFF drops a trusted index: the same.
        let (s2, l2, _) = try longGOP(.mov)
        l2.disableContainerIndex()
        _ = try seekAndRead(l2, s2, f[0], id: 1)
        XCTAssertGreaterThan(try seekAndRead(l2, s2, f[50], id: 2).positionings, 0)
        XCTAssertEqual(l2.continuedLandings, 0)
    }
}
