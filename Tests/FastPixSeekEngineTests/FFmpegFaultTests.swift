import XCTest
@testable import FastPixSeekEngine
import FastPixSeekCore
import CFFmpeg

/// The error paths real media cannot reach, reached by making FFmpeg calls fail or stall
/// (FFmpegFaults.swift over FFmpegCalls.swift): each test checks what seek.h promises there,
/// and that the fault was hit (a fault never reached proves nothing).
///
/// The media is samples/sample.mp4 (in the repository: `swift test` runs before the media
/// fixtures are made): H.264 at 30000/1001 fps in 1/30000 ticks, 180 frames, a keyframe every
/// 48 frames (pts 0, 48048, 96096, 144144), and AAC.
final class FFmpegFaultTests: XCTestCase {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../samples/sample.mp4").standardized.path
    /// 2.9 s: frame 86 (pts 86086), 38 frames into the GOP of the keyframe at 48048.
    static let midGOP = MediaTime(value: 29, timescale: 10)
    static let midGOPFrame: Int64 = 86086
    static let midGOPKeyframe: Int64 = 48048
    static let nextKeyframe: Int64 = 96096
    static let eio = -Int32(EIO)
    static let enomem = -Int32(ENOMEM)
    static let second: UInt64 = 1_000_000_000

    func openPlayer() throws -> Player {
        let p = try XCTUnwrap(Player(config: .init(), factory: makeFFmpegEngine))
        try p.open(Self.sample)
        let s = p.waitItem(timeoutNanoseconds: 10 * Self.second)
        XCTAssertEqual(s.status, .ready, "open: \(String(describing: s.error))")
        try p.setupSeekManager()
        return p
    }

    /// The typed error `body` throws (nil: none).
    func thrown<T>(_ body: () throws -> T) -> ErrorCode? {
        do {
            _ = try body()
            return nil
        } catch let e as EngineError {
            return e.code
        } catch let e as ErrorCode {
            return e
        } catch {
            XCTFail("not a typed error: \(error)")
            return nil
        }
    }

    func seek(_ p: Player, _ t: MediaTime, _ precision: SeekPrecision = .exact) throws -> SeekOutcome {
        try XCTUnwrap(p.seekAndWait(to: t, precision: precision, timeoutNanoseconds: 20 * Self.second))
    }

    static func isSet(_ flag: UInt32, _ v: PacketView) -> Bool { (v.flags & flag) != 0 }

    // MARK: Read failure mid-GOP

    /// seek.h, fpx_seek_outcome and section 8: an exact seek whose packet read fails with an
    /// I/O error after 5 packets of the GOP fails with FPX_ERROR_IO (FPX_FINISH_FAILED); the
    /// next read starts again where the playhead needs (no landing yet: the first packet),
    /// flagged DISCONTINUITY; the same seek then lands on the covering frame.
    func testReadFailureMidGOPFailsTheExactSeekWithIO() throws {
        let p = try openPlayer()
        defer { p.destroy() }
        let o = try FFmpegFaults.with([FFmpegFault(.av_read_frame, after: 5, times: 1, .fail(Self.eio))]) {
            let o = try seek(p, Self.midGOP)
            XCTAssertEqual(FFmpegFaults.hits(.av_read_frame), 1, "the fault was reached")
            return o
        }
        XCTAssertEqual(o.reason, .failed)
        XCTAssertEqual(o.error, .io)
        XCTAssertNil(o.landedStreamPTS)
        let v = try p.readPacket()
        XCTAssertTrue(Self.isSet(PacketView.flagDiscontinuity, v), "flags \(v.flags)")
        XCTAssertTrue(Self.isSet(PacketView.flagKey, v))
        XCTAssertEqual(v.pts, 0)
        let again = try seek(p, Self.midGOP)
        XCTAssertEqual(again.reason, .completed)
        XCTAssertEqual(again.landedStreamPTS, Self.midGOPFrame)
    }

    /// seek.h section 8: a host read that fails mid-GOP (the first one past the packets the
    /// landing read) returns FPX_ERROR_IO and no packet; the packet being read is not skipped:
    /// the next read starts again at the keyframe the landed frame needs, flagged
    /// DISCONTINUITY, with the seek's id.
    func testReadFailureMidGOPOfAHostReadRestartsAtThePlayheadKeyframe() throws {
        let p = try openPlayer()
        defer { p.destroy() }
        let o = try seek(p, Self.midGOP)
        XCTAssertEqual(o.landedStreamPTS, Self.midGOPFrame)
        let first = try p.readPacket()
        XCTAssertEqual(first.pts, Self.midGOPKeyframe)
        XCTAssertTrue(Self.isSet(PacketView.flagDiscontinuity, first))
        var lastVideo = first.pts
        let failure: ErrorCode? = FFmpegFaults.with([FFmpegFault(.av_read_frame, times: 1, .fail(Self.eio))]) {
            // The packets the landing read come from memory; the first read that demuxes fails.
            for _ in 0..<400 {
                do {
                    let v = try p.readPacket()
                    XCTAssertFalse(Self.isSet(PacketView.flagDiscontinuity, v))
                    if v.streamIndex == first.streamIndex { lastVideo = v.pts }
                } catch {
                    return thrown { throw error }
                }
            }
            return nil
        }
        XCTAssertEqual(failure, .io)
        XCTAssertEqual(FFmpegFaults.hits(.av_read_frame), 1)
        XCTAssertGreaterThanOrEqual(lastVideo ?? 0, Self.midGOPFrame, "read up to the landing")
        XCTAssertLessThan(lastVideo ?? .max, Self.nextKeyframe, "the failure is inside the GOP")
        let next = try p.readPacket()
        XCTAssertEqual(next.streamIndex, first.streamIndex)
        XCTAssertEqual(next.pts, Self.midGOPKeyframe)
        XCTAssertTrue(Self.isSet(PacketView.flagKey, next))
        XCTAssertTrue(Self.isSet(PacketView.flagDiscontinuity, next))
        XCTAssertEqual(next.seekID, o.seekID)
    }

    // MARK: Seek failure

    /// With `faults` armed, the exact seek to `target` fails with `want` (the first fault was
    /// reached); the same seek without them then lands on `frame`.
    func expectSeekFails(_ faults: [FFmpegFault], to target: MediaTime, _ want: ErrorCode, then frame: Int64) throws {
        let p = try openPlayer()
        defer { p.destroy() }
        let o = try FFmpegFaults.with(faults) {
            let o = try seek(p, target)
            XCTAssertGreaterThan(FFmpegFaults.hits(faults[0].call), 0, "the fault was reached")
            return o
        }
        XCTAssertEqual(o.reason, .failed)
        XCTAssertEqual(o.error, want)
        let again = try seek(p, target)
        XCTAssertEqual(again.reason, .completed)
        XCTAssertEqual(again.landedStreamPTS, frame)
    }

    /// Every positioning failing with an I/O error: the exact seek fails with FPX_ERROR_IO.
    func testSeekFailureFailsTheSeekWithIO() throws {
        // 4.5 s: frame 134 (pts 134134).
        try expectSeekFails([FFmpegFault(.av_seek_frame, .fail(Self.eio)), FFmpegFault(.avformat_seek_file, .fail(Self.eio))],
                            to: MediaTime(value: 45, timescale: 10), .io, then: 134_134)
    }

    /// seek.h, fpx_player_read_packet: after a seek decided from memory, the read positions the
    /// demuxer; that positioning failing is the read's FPX_ERROR_IO, no packet, the outcome
    /// stands, and the next read positions again: the landing's keyframe, DISCONTINUITY, the
    /// seek's id.
    func testPositioningFailureOfAReadAfterAMemorySeekIsTheReadsIOError() throws {
        let p = try openPlayer()
        defer { p.destroy() }
        XCTAssertEqual(try seek(p, Self.midGOP).reason, .completed)
        // Then elsewhere (the last GOP), so that the packets of the first GOP are let go.
        XCTAssertEqual(try seek(p, MediaTime(value: 55, timescale: 10)).reason, .completed)
        // 2.0 s (frame 59): a frame the first seek saw, of a GOP no longer in memory.
        let o = try seek(p, MediaTime(value: 2, timescale: 1))
        XCTAssertEqual(o.reason, .completed)
        XCTAssertEqual(o.packetsRead, 0, "decided from memory")
        // Every way to position fails (a seek to the time, by byte, a rewind).
        let failure = FFmpegFaults.with([FFmpegFault(.av_seek_frame, .fail(Self.eio)),
                                         FFmpegFault(.avformat_seek_file, .fail(Self.eio))]) {
            let e = thrown { try p.readPacket() }
            XCTAssertGreaterThan(FFmpegFaults.hits(.av_seek_frame), 0)
            return e
        }
        XCTAssertEqual(failure, .io)
        let v = try p.readPacket()
        XCTAssertEqual(v.streamIndex, 0)
        XCTAssertEqual(v.pts, Self.midGOPKeyframe)
        XCTAssertTrue(Self.isSet(PacketView.flagKey, v))
        XCTAssertTrue(Self.isSet(PacketView.flagDiscontinuity, v))
        XCTAssertEqual(v.seekID, o.seekID)
    }

    // MARK: Allocation failure

    /// No packet can be allocated: the seek fails with FPX_ERROR_NO_MEMORY (seek.h section 6).
    func testPacketAllocationFailureFailsTheSeekWithNoMemory() throws {
        try expectSeekFails([FFmpegFault(.av_packet_alloc, .fail(0))], to: Self.midGOP, .noMemory, then: Self.midGOPFrame)
    }

    /// The host's reference to a packet cannot be made: the read is FPX_ERROR_NO_MEMORY.
    func testPacketCloneFailureIsTheReadsNoMemory() throws {
        let p = try openPlayer()
        defer { p.destroy() }
        XCTAssertEqual(try seek(p, Self.midGOP).reason, .completed)
        let failure = FFmpegFaults.with([FFmpegFault(.av_packet_clone, times: 1, .fail(0))]) {
            let e = thrown { try p.readPacket() }
            XCTAssertEqual(FFmpegFaults.hits(.av_packet_clone), 1)
            return e
        }
        XCTAssertEqual(failure, .noMemory)
    }

    /// An open whose FFmpeg calls fail: the item fails with the typed error (seek.h,
    /// fpx_item_status: section 6 for memory), and the next open of the player succeeds.
    func testOpenFailuresAreTyped() throws {
        let cases: [(FFmpegFault, ErrorCode)] = [
            (FFmpegFault(.avformat_alloc_context, .fail(0)), .noMemory),
            (FFmpegFault(.av_dict_set, .fail(Self.enomem)), .noMemory),
            (FFmpegFault(.avformat_open_input, .fail(Self.enomem)), .noMemory),
            (FFmpegFault(.avformat_open_input, .fail(Self.eio)), .io),
            (FFmpegFault(.avformat_find_stream_info, .fail(Self.eio)), .io),
            (FFmpegFault(.av_find_best_stream, .fail(fpx_averror_stream_not_found())), .noStream),
            // the streams' parameters copied for the host (ItemFacts): never handed out as NULL
            (FFmpegFault(.avcodec_parameters_alloc, after: 1, .fail(0)), .noMemory),
            (FFmpegFault(.avcodec_parameters_copy, .fail(Self.enomem)), .noMemory),
        ]
        let p = try XCTUnwrap(Player(config: .init(), factory: makeFFmpegEngine))
        defer { p.destroy() }
        for (fault, want) in cases {
            let s = try FFmpegFaults.with([fault]) {
                try p.open(Self.sample)
                let s = p.waitItem(timeoutNanoseconds: 10 * Self.second)
                XCTAssertGreaterThan(FFmpegFaults.hits(fault.call), 0, "\(fault.call)")
                return s
            }
            XCTAssertEqual(s.status, .failed, "\(fault.call)")
            XCTAssertEqual(s.error, want, "\(fault.call)")
        }
        try p.open(Self.sample)
        XCTAssertEqual(p.waitItem(timeoutNanoseconds: 10 * Self.second).status, .ready)
    }

    // MARK: Stalls

    /// Runs `body` on its own thread; its typed error (nil: it returned) once it has returned.
    final class Background: @unchecked Sendable {
        let m = Monitor()
        var result: ErrorCode??
        var finishedAt: UInt64 = 0
        init(_ body: @escaping @Sendable () throws -> Void) {
            Thread.detachNewThread { [self] in
                var r: ErrorCode?
                do { try body() } catch let e as EngineError { r = e.code } catch let e as ErrorCode { r = e } catch {
                    r = .internal
                }
                m.locked { result = .some(r); finishedAt = monotonicNanoseconds(); m.broadcast() }
            }
        }
        func wait(_ ns: UInt64) -> (ErrorCode??, UInt64) {
            let d = monotonicNanoseconds() &+ ns
            return m.locked {
                while result == nil && monotonicNanoseconds() < d { m.wait(until: d) }
                return (result, finishedAt)
            }
        }
    }

    func waitUntilStalled() {
        let d = monotonicNanoseconds() &+ 10 * Self.second
        while FFmpegFaults.stalledCalls == 0 && monotonicNanoseconds() < d { usleep(1000) }
        XCTAssertEqual(FFmpegFaults.stalledCalls, 1, "a call stalled")
    }

    /// seek.h section 8: a packet read blocked in I/O returns FPX_ERROR_INTERRUPTED when
    /// fpx_player_cancel_pending_seeks is called, within about 100 ms (the tests allow 1 s).
    func testStalledReadIsInterruptedByCancel() throws {
        let p = try openPlayer()
        defer { p.destroy() }
        let stall = FFmpegFault(.av_read_frame, .stall(nanoseconds: nil))
        let (result, took): (ErrorCode??, UInt64) = try FFmpegFaults.with([stall]) {
            let read = Background { _ = try p.readPacket() }
            waitUntilStalled()
            let t0 = monotonicNanoseconds()
            try p.cancelPendingSeeks()
            let (r, at) = read.wait(5 * Self.second)
            return (r, at &- t0)
        }
        XCTAssertEqual(result, .some(.interrupted))
        XCTAssertLessThan(took, Self.second)
    }

    /// seek.h section 8: fpx_player_destroy interrupts a seek stalled in I/O and returns
    /// within about 100 ms (the tests allow 1 s); the seek is cancelled.
    func testDestroyEndsAStalledSeek() throws {
        let p = try openPlayer()
        let outcome = Background.Box()
        let took: UInt64? = try FFmpegFaults.with([FFmpegFault(.av_read_frame, .stall(nanoseconds: nil))]) {
            _ = try p.seek(to: Self.midGOP, precision: .exact, completion: { o in outcome.set(o) })
            waitUntilStalled()
            let t0 = monotonicNanoseconds()
            let destroy = Background { p.destroy() }
            let (done, at) = destroy.wait(5 * Self.second)
            guard done != nil else {
                // destroy did not end the stall: let the call go, so that the test ends (failed).
                FFmpegFaults.release()
                _ = destroy.wait(60 * Self.second)
                return nil
            }
            return at &- t0
        }
        XCTAssertNotNil(took, "destroy returned while the seek was stalled")
        XCTAssertLessThan(took ?? .max, Self.second)
        XCTAssertEqual(outcome.get(5 * Self.second)?.reason, .cancelled)
    }
}

extension FFmpegFaultTests.Background {
    final class Box: @unchecked Sendable {
        let m = Monitor()
        var outcome: SeekOutcome?
        func set(_ o: SeekOutcome) { m.locked { outcome = o; m.broadcast() } }
        func get(_ ns: UInt64) -> SeekOutcome? {
            let d = monotonicNanoseconds() &+ ns
            return m.locked {
                while outcome == nil && monotonicNanoseconds() < d { m.wait(until: d) }
                return outcome
            }
        }
    }
}
