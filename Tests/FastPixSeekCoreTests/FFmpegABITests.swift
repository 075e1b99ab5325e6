import XCTest
@testable import FastPixSeekCore
@testable import FastPixSeekPolicy

/// The compatibility rule behind FPX_ERROR_FFMPEG_MISMATCH: majors must match, minors may not.
final class FFmpegABITests: XCTestCase {
    private func v(_ major: UInt32, _ minor: UInt32, _ micro: UInt32) -> UInt32 {
        major << 16 | minor << 8 | micro
    }

    private func abi(format: (UInt32, UInt32), codec: (UInt32, UInt32), util: (UInt32, UInt32)) -> FFmpegABI {
        FFmpegABI(avformat: .init(build: format.0, runtime: format.1),
                  avcodec: .init(build: codec.0, runtime: codec.1),
                  avutil: .init(build: util.0, runtime: util.1))
    }

    func testSameVersionsAreCompatible() {
        let a = abi(format: (v(59, 27, 100), v(59, 27, 100)), codec: (v(59, 37, 100), v(59, 37, 100)),
                    util: (v(57, 28, 100), v(57, 28, 100)))
        XCTAssertTrue(a.isCompatible)
        XCTAssertNil(a.openRefusal)
        XCTAssertNil(a.mismatchDescription)
    }

    func testNewerMinorIsCompatible() {
        // A point release of FFmpeg 5 (same majors, newer minors and micros) keeps the ABI.
        let a = abi(format: (v(59, 16, 100), v(59, 27, 100)), codec: (v(59, 18, 100), v(59, 37, 100)),
                    util: (v(57, 17, 100), v(57, 28, 100)))
        XCTAssertTrue(a.isCompatible)
    }

    func testOtherAvformatMajorIsRefused() {
        let a = abi(format: (v(59, 27, 100), v(60, 3, 100)), codec: (v(59, 37, 100), v(59, 37, 100)),
                    util: (v(57, 28, 100), v(57, 28, 100)))
        XCTAssertFalse(a.isCompatible)
        XCTAssertEqual(a.openRefusal, .ffmpegMismatch)
        XCTAssertEqual(a.mismatchDescription, "libavformat 60.3.100 loaded, built against 59.27.100")
        XCTAssertEqual(ErrorCode.ffmpegMismatch.rawValue, -28)
        XCTAssertEqual("\(ErrorCode.ffmpegMismatch.name)", "FPX_ERROR_FFMPEG_MISMATCH")
    }

    func testOlderMajorAndOtherLibrariesAreRefused() {
        let older = abi(format: (v(59, 27, 100), v(58, 76, 100)), codec: (v(59, 37, 100), v(59, 37, 100)),
                        util: (v(57, 28, 100), v(57, 28, 100)))
        XCTAssertEqual(older.openRefusal, .ffmpegMismatch)
        let codec = abi(format: (v(59, 27, 100), v(59, 27, 100)), codec: (v(59, 37, 100), v(60, 3, 100)),
                        util: (v(57, 28, 100), v(57, 28, 100)))
        XCTAssertEqual(codec.openRefusal, .ffmpegMismatch)
        let util = abi(format: (v(59, 27, 100), v(59, 27, 100)), codec: (v(59, 37, 100), v(59, 37, 100)),
                       util: (v(57, 28, 100), v(58, 2, 100)))
        XCTAssertEqual(util.openRefusal, .ffmpegMismatch)
        XCTAssertEqual(util.mismatchDescription, "libavutil 58.2.100 loaded, built against 57.28.100")
    }

    func testVersionFields() {
        XCTAssertEqual(FFmpegABI.Library.major(v(59, 27, 100)), 59)
        XCTAssertEqual(FFmpegABI.Library.minor(v(59, 27, 100)), 27)
        XCTAssertEqual(FFmpegABI.Library.micro(v(59, 27, 100)), 100)
        XCTAssertEqual(FFmpegABI.Library.string(v(57, 28, 100)), "57.28.100")
    }
}
