import Foundation
import XCTest
@testable import FastPixSeekEngine
import FastPixSeekCore
import CFFmpeg

/// HLSFetch's error paths that real streams cannot reach (FFmpegFaults over FFmpegCalls.swift):
/// an AES context that cannot be made or keyed, segment bodies that arrive in short reads, and
/// transfers that end early. seek.h ("Encryption" under HLS, fpx_error): a segment that does
/// not decrypt is FPX_ERROR_ENCRYPTION in the item status or in the seek that needed it, an
/// allocation failure FPX_ERROR_NO_MEMORY; a body delivered in pieces is the same body.
///
/// The stream: samples/sample.mp4 (6 s of H.264 and AAC) cut into 2 s MPEG-TS segments by
/// ffmpeg's hls muxer with AES-128 (-hls_key_info_file), read as local files.
final class HLSFetchFaultTests: XCTestCase {
    nonisolated(unsafe) static var dir: URL?
    static let second: UInt64 = 1_000_000_000
    /// 2.9 s: the frame covering it is sample.mp4's frame 86 (86086/30000 s).
    static let target = MediaTime(value: 29, timescale: 10)
    static let landed = 86086.0 / 30000.0

    override class func setUp() {
        super.setUp()
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../samples/sample.mp4").standardized.path
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("fpx-hlsfetch-\(getpid())")
        try? FileManager.default.removeItem(at: d)
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        let key = Data((0..<16).map { UInt8($0 * 7 + 3) })
        try? key.write(to: d.appendingPathComponent("k.key"))
        try? "k.key\n\(d.path)/k.key\n".write(to: d.appendingPathComponent("k.keyinfo"), atomically: true,
                                                 encoding: .utf8)
        let ff = Process()
        ff.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ff.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", sample, "-c", "copy", "-f", "hls",
                        "-hls_time", "2", "-hls_playlist_type", "vod",
                        "-hls_key_info_file", d.appendingPathComponent("k.keyinfo").path,
                        "-hls_segment_filename", d.appendingPathComponent("s%d.ts").path,
                        d.appendingPathComponent("index.m3u8").path]
        if (try? ff.run()) != nil {
            ff.waitUntilExit()
            if ff.terminationStatus == 0 { dir = d }
        }
    }

    override class func tearDown() {
        if let d = dir { try? FileManager.default.removeItem(at: d) }
        super.tearDown()
    }

    func playlist() throws -> String {
        let d = try XCTUnwrap(Self.dir, "ffmpeg could not make the AES-128 HLS stream")
        return d.appendingPathComponent("index.m3u8").path
    }

    /// Opens the stream (inside the caller's fault scope, if any): the item's status, and the
    /// player (nil when the open failed).
    func open() throws -> (ItemStatusInfo, Player) {
        let p = try XCTUnwrap(Player(config: .init(), factory: makeFFmpegEngine))
        try p.open(try playlist())
        let s = p.waitItem(timeoutNanoseconds: 20 * Self.second)
        if s.status == .ready { try p.setupSeekManager() }
        return (s, p)
    }

    func seek(_ p: Player) throws -> SeekOutcome {
        try XCTUnwrap(p.seekAndWait(to: Self.target, precision: .exact, timeoutNanoseconds: 20 * Self.second))
    }

    /// Without faults: the item opens and the exact seek lands on the frame covering 2.9 s
    /// (what the faulted runs are compared with).
    func testTheStreamOpensAndLands() throws {
        try expectOpensAndLands()
    }

    /// The item opens and the exact seek lands on the frame covering 2.9 s.
    func expectOpensAndLands() throws {
        let (s, p) = try open()
        defer { p.destroy() }
        XCTAssertEqual(s.status, .ready, "\(String(describing: s.error))")
        let o = try seek(p)
        XCTAssertEqual(o.reason, .completed)
        XCTAssertEqual(o.landedTime, Self.landed, accuracy: 1e-9)
    }

    /// With `fault` armed the stream fails with `want`, in the item status (the open needs the
    /// first segment) or in the seek that needed a segment; never a landing; the fault was hit.
    func expectFailure(_ fault: FFmpegFault, _ want: ErrorCode) throws {
        try FFmpegFaults.with([fault]) {
            let (s, p) = try open()
            defer { p.destroy() }
            if s.status == .ready {
                let o = try seek(p)
                XCTAssertEqual(o.reason, .failed)
                XCTAssertEqual(o.error, want)
            } else {
                XCTAssertEqual(s.status, .failed)
                XCTAssertEqual(s.error, want)
            }
            XCTAssertGreaterThan(FFmpegFaults.hits(fault.call), 0, "the fault was reached")
        }
    }

    /// A key that libavutil's AES cannot take: FPX_ERROR_ENCRYPTION.
    func testAESKeyFailureIsEncryption() throws {
        try expectFailure(FFmpegFault(.av_aes_init, .fail(-1)), .encryption)
    }

    /// No memory for the AES context: FPX_ERROR_NO_MEMORY.
    func testAESAllocationFailureIsNoMemory() throws {
        try expectFailure(FFmpegFault(.av_aes_alloc, .fail(-Int32(ENOMEM))), .noMemory)
    }

    /// Every read of every download (playlist, key, segments) returns at most 100 bytes: the
    /// same item, the same landing.
    func testShortReadsGiveTheSameBodies() throws {
        try FFmpegFaults.with([FFmpegFault(.avio_read, .short(100))]) {
            try expectOpensAndLands()
            XCTAssertGreaterThan(FFmpegFaults.hits(.avio_read), 100, "the reads were shortened")
        }
    }

    /// A transfer that ends after its first k reads (AVERROR_EOF from then on), for every k
    /// until the whole open and seek read no more: a body cut short never passes for the
    /// resource. Each run either never met the cut where it mattered (the same landing), or
    /// fails typed: FPX_ERROR_ENCRYPTION (the cut segment does not decrypt) or
    /// FPX_ERROR_INVALID_DATA (a cut playlist); and some run does fail.
    func testTransfersCutShortAreTypedErrors() throws {
        var failures = 0
        for k in 0..<64 {
            let reads = try FFmpegFaults.with([FFmpegFault(.avio_read, after: k, .fail(fpx_averror_eof()))]) {
                () throws -> Int in
                let (s, p) = try open()
                defer { p.destroy() }
                if s.status == .ready {
                    let o = try seek(p)
                    if o.reason == .completed {
                        XCTAssertEqual(o.landedTime, Self.landed, accuracy: 1e-9, "cut after \(k) reads")
                    } else {
                        failures += 1
                        XCTAssertTrue([.encryption, .invalidData].contains(o.error), "cut after \(k): \(o)")
                    }
                } else {
                    failures += 1
                    XCTAssertEqual(s.status, .failed, "cut after \(k)")
                    XCTAssertTrue([.encryption, .invalidData].contains(s.error), "cut after \(k): \(s)")
                }
                return FFmpegFaults.calls(.avio_read)
            }
            if reads <= k { break }  // the cut came after the last read: every k is covered
        }
        XCTAssertGreaterThan(failures, 0, "no cut made a download fail")
    }
}
