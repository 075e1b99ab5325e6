import XCTest
@testable import FastPixSeekPolicy

/// A fake audio rendition behind `RenditionSeam`: landings scripted by target (a frame, or
/// an error), every call logged.
final class FakeRendition: RenditionSeam {
    enum Call: Hashable { case land(Rational), forget, reading(Bool) }
    /// Audio frames 1024 ticks apart; a target lands on the frame covering it.
    var failures: [Rational: ErrorCode] = [:]
    private(set) var calls: [Call] = []

    func land(at target: Rational) throws -> Landing {
        calls.append(.land(target))
        if let c = failures[target] { throw EngineError(c) }
        let p = target.floor / 1024 * 1024
        return Landing(pts: Int64(p), isKeyframe: true, resolution: .coveringFrame, coversTarget: true, packetsRead: 1)
    }

    func forgetLandingSegments() { calls.append(.forget) }
    func setReading(_ on: Bool) { calls.append(.reading(on)) }
}

/// The separate audio rendition's landing sequence (`RenditionLander`) on a fake rendition.
final class RenditionLanderTests: XCTestCase {
    let target = Rational(5000)

    func testLandsThenPreRollsOneFrameEarlier() throws {
        let f = FakeRendition()
        try RenditionLander.land(at: target, f)
        XCTAssertEqual(f.calls, [.land(target), .reading(true), .land(Rational(4096 - 1))],
                       "the covering frame (4096), then the frame before it")
    }

    func testNoFrameBeforeLandsAtTheTargetAgain() throws {
        for code in [ErrorCode.invalidData, .noStream, .notFound, .eof, .io] {
            let f = FakeRendition()
            f.failures[Rational(4095)] = code
            try RenditionLander.land(at: target, f)
            XCTAssertEqual(f.calls, [.land(target), .reading(true), .land(Rational(4095)), .forget, .land(target)], "\(code)")
        }
    }

    func testACancelledPreRollFailsTheLanding() {
        for code in [ErrorCode.cancelled, .interrupted] {
            let f = FakeRendition()
            f.failures[Rational(4095)] = code
            XCTAssertThrowsError(try RenditionLander.land(at: target, f)) { XCTAssertEqual(($0 as? EngineError)?.code, code) }
            XCTAssertFalse(f.calls.contains(.forget))
        }
    }

    func testNoAudioAtTheTargetStopsReadingTheRendition() throws {
        for code in [ErrorCode.noStream, .eof, .notFound] {
            let f = FakeRendition()
            f.failures[target] = code
            try RenditionLander.land(at: target, f)
            XCTAssertEqual(f.calls, [.land(target), .reading(false)], "\(code)")
        }
    }

    func testOtherErrorsFailTheLanding() {
        let f = FakeRendition()
        f.failures[target] = .io
        XCTAssertThrowsError(try RenditionLander.land(at: target, f)) { XCTAssertEqual(($0 as? EngineError)?.code, .io) }
        XCTAssertEqual(f.calls, [.land(target)], "the reading state is left to the next landing")
    }
}
