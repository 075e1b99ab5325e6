/// An HLS feed switch: a variant's (`fpx_player_hls_select_variant`; `HLSItemEngine`) or
/// a separate audio rendition's (`fpx_player_hls_select_audio`; `HLSRenditionMerge`). The
/// switch a host asks for is made by the next landing, which lands the new feed before it
/// retires the old one, so a switch that fails leaves the old feed playing.
///
/// 1. No switch asked for: the seek lands on the feed playing.
/// 2. The feed of the variant asked for is opened (placed by the item's timeline). When it
///    cannot be (or its facts differ from the item's), the seek fails.
/// 3. The seek lands on the new feed. When it cannot, the new feed is discarded and the seek
///    fails.
/// 4. A failure in 2 or 3 forgets the switch, but a cancel or an interrupt, which leaves it
///    asked for (the next seek tries again).
/// 5. After a failure in 2 or 3 the old feed plays on: it is kept (`keep`; an engine whose
///    other feed has already landed lands the old one there too), then the error is reported.
/// 6. Landed: the new feed plays (the switch is done), then the old feed is retired.
public protocol FeedSwitchSeam {
    associatedtype Feed
    /// What a landing is asked (a variant's `LandingRequest`; a rendition's landing time).
    associatedtype Request
    /// What a landing gives.
    associatedtype Outcome
    /// The variant asked for and not played yet; nil: none.
    var asked: Int? { get }
    /// The feed playing.
    var playing: Feed { get }
    /// Opens the feed of variant `k`, to replace `old`.
    func open(_ k: Int, replacing old: Feed) throws -> Feed
    /// Lands `request` on `feed`.
    func land(_ request: Request, on feed: Feed) throws -> Outcome
    /// Lets go of a feed opened and never played.
    func discard(_ feed: Feed)
    /// Forgets the switch to `k` (not a later one asked for meanwhile).
    func forgetSwitch(to k: Int)
    /// `feed` plays variant `k` from now on: the switch to `k` is done.
    func play(_ feed: Feed, variant k: Int)
    /// Retires a feed switched away from.
    func retire(_ feed: Feed)
    /// The switch failed: `feed`, the old one, plays on after `request`.
    func keep(_ feed: Feed, after request: Request)
}

extension FeedSwitchSeam {
    /// A feed that did not move while the new one was tried (a variant) needs nothing.
    public func keep(_ feed: Feed, after request: Request) {}
}

public enum FeedSwitch {
    /// Lands `request` as the rules above say.
    public static func resolve<Seam: FeedSwitchSeam>(_ request: Seam.Request, _ seam: Seam) throws -> Seam.Outcome {
        guard let k = seam.asked else { return try seam.land(request, on: seam.playing) }
        let old = seam.playing
        let new: Seam.Feed
        do { new = try seam.open(k, replacing: old) } catch {
            if !keepsSwitch(after: error) { seam.forgetSwitch(to: k) }
            seam.keep(old, after: request)
            throw error
        }
        let l: Seam.Outcome
        do { l = try seam.land(request, on: new) } catch {
            seam.discard(new)
            if !keepsSwitch(after: error) { seam.forgetSwitch(to: k) }
            seam.keep(old, after: request)
            throw error
        }
        seam.play(new, variant: k)
        seam.retire(old)
        return l
    }

    /// A cancelled or interrupted seek leaves the switch asked for.
    static func keepsSwitch(after error: Error) -> Bool {
        let code = (error as? EngineError)?.code ?? (error as? ErrorCode)
        return code == .cancelled || code == .interrupted
    }
}
