import XCTest
@testable import FastPixSeekPolicy

/// Fake feeds behind `FeedSwitchSeam`: feeds are numbers (the variant they play), opens and
/// landings scripted to fail, every call logged.
final class FakeFeeds: FeedSwitchSeam {
    enum Call: Hashable { case open(Int), land(on: Int), discard(Int), forget(Int), play(Int), retire(Int), keep(Int) }
    var asked: Int?
    var playing: Int
    var openFails: ErrorCode?
    var landFails: [Int: ErrorCode] = [:]
    private(set) var calls: [Call] = []

    init(playing: Int, asked: Int?) { self.playing = playing; self.asked = asked }

    func open(_ k: Int, replacing old: Int) throws -> Int {
        calls.append(.open(k))
        if let c = openFails { throw EngineError(c) }
        return k
    }

    func land(_ request: LandingRequest, on feed: Int) throws -> Landing {
        calls.append(.land(on: feed))
        if let c = landFails[feed] { throw c }      // a bare ErrorCode, as the engines throw some
        return Landing(pts: 100, isKeyframe: true, resolution: .coveringFrame, coversTarget: true, packetsRead: 1)
    }

    func discard(_ feed: Int) { calls.append(.discard(feed)) }
    func forgetSwitch(to k: Int) { calls.append(.forget(k)); if asked == k { asked = nil } }
    func play(_ feed: Int, variant k: Int) { calls.append(.play(k)); playing = feed; if asked == k { asked = nil } }
    func retire(_ feed: Int) { calls.append(.retire(feed)) }
    func keep(_ feed: Int, after request: LandingRequest) { calls.append(.keep(feed)) }
}

/// A feed without `keep` (a variant's: the old feed did not move).
struct StillFeeds: FeedSwitchSeam {
    var asked: Int? { 2 }
    var playing: Int { 0 }
    func open(_ k: Int, replacing old: Int) throws -> Int { throw EngineError(.notFound) }
    func land(_ request: Int, on feed: Int) throws -> Int { request }
    func discard(_ feed: Int) {}
    func forgetSwitch(to k: Int) {}
    func play(_ feed: Int, variant k: Int) {}
    func retire(_ feed: Int) {}
}

/// The variant switch's sequence (`FeedSwitch`): land the new feed, then retire the old one.
final class FeedSwitchTests: XCTestCase {
    let request = LandingRequest(target: Rational(100), wantsKeyframe: false, keyframeWindow: nil, seekID: 1)

    func testNoSwitchLandsOnTheFeedPlaying() throws {
        let f = FakeFeeds(playing: 0, asked: nil)
        _ = try FeedSwitch.resolve(request, f)
        XCTAssertEqual(f.calls, [.land(on: 0)])
    }

    func testASwitchLandsTheNewFeedThenRetiresTheOld() throws {
        let f = FakeFeeds(playing: 0, asked: 2)
        _ = try FeedSwitch.resolve(request, f)
        XCTAssertEqual(f.calls, [.open(2), .land(on: 2), .play(2), .retire(0)])
        XCTAssertEqual(f.playing, 2)
        XCTAssertNil(f.asked)
    }

    func testAFeedThatCannotOpenLeavesTheOldPlayingAndForgetsTheSwitch() {
        let f = FakeFeeds(playing: 0, asked: 2)
        f.openFails = .unsupported
        XCTAssertThrowsError(try FeedSwitch.resolve(request, f))
        XCTAssertEqual(f.calls, [.open(2), .forget(2), .keep(0)])
        XCTAssertEqual(f.playing, 0)
    }

    func testALandingThatFailsDiscardsTheNewFeed() {
        let f = FakeFeeds(playing: 0, asked: 2)
        f.landFails[2] = .notFound
        XCTAssertThrowsError(try FeedSwitch.resolve(request, f))
        XCTAssertEqual(f.calls, [.open(2), .land(on: 2), .discard(2), .forget(2), .keep(0)])
        XCTAssertEqual(f.playing, 0)
    }

    func testACancelLeavesTheSwitchAskedFor() {
        for code in [ErrorCode.cancelled, .interrupted] {
            let f = FakeFeeds(playing: 0, asked: 2)
            f.landFails[2] = code
            XCTAssertThrowsError(try FeedSwitch.resolve(request, f))
            XCTAssertEqual(f.calls, [.open(2), .land(on: 2), .discard(2), .keep(0)], "\(code)")
            XCTAssertEqual(f.asked, 2)
            let g = FakeFeeds(playing: 0, asked: 2)
            g.openFails = code
            XCTAssertThrowsError(try FeedSwitch.resolve(request, g))
            XCTAssertEqual(g.calls, [.open(2), .keep(0)], "\(code)")
        }
    }

    /// A rendition switch (`HLSRenditionMerge`): the old feed is kept (landed where the
    /// variant landed) before the error is reported, never retired.
    func testTheOldFeedIsKeptBeforeTheErrorIsReported() {
        let f = FakeFeeds(playing: 1, asked: 3)
        f.landFails[3] = .invalidData
        XCTAssertThrowsError(try FeedSwitch.resolve(request, f)) { XCTAssertEqual($0 as? ErrorCode, .invalidData) }
        XCTAssertEqual(f.calls.last, .keep(1))
        XCTAssertFalse(f.calls.contains(.retire(1)))
        XCTAssertEqual(f.playing, 1)
    }

    /// Any request and outcome: a seam without `keep` keeps nothing and reports the error.
    func testASeamWithoutKeep() {
        XCTAssertThrowsError(try FeedSwitch.resolve(7, StillFeeds())) {
            XCTAssertEqual(($0 as? EngineError)?.code, .notFound)
        }
    }
}
