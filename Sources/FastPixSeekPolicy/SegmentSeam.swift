/// The one seam between the HLS landing policy (`SegmentLander`) and the engine that
/// fetches and demuxes segments. It speaks item ticks only (the segments' time base, item
/// time 0 at 0) and segment indices of one snapshot of the playlist window, taken when the
/// seam was made: the placement of each segment's pts on the item timeline (the anchors,
/// the 33-bit wraps) stays behind it.
///
/// The engine decides nothing here: it says what a segment is (a hole, its first and last
/// frame, its head), has the segment's own reader (a file `Lander`) resolve or step inside
/// the segment, and points the item's reads where it is told. Which segment a landing
/// needs, which ones are opened and in which order, when reads start in an earlier
/// segment, and how landings in two segments compare are the lander's.
///
/// A segment's facts are learned by fetching and demuxing it, so each call may do I/O;
/// the lander asks only what its decision needs (the order is a tested property,
/// `SegmentLanderTests`).
public protocol SegmentSeam {
    associatedtype Spans: RandomAccessCollection where Spans.Element == SegmentSpan, Spans.Index == Int
    /// The window's segments (item ticks), fixed for the seam's life.
    var spans: Spans { get }
    /// Whether segment `i` is a hole (seek.h, "Gaps"), fetching it to find out when not known.
    func hole(_ i: Int) throws -> HoleReason
    /// Segment `i`'s first and last frame (item ticks), demuxing it if needed; nil for a
    /// hole or a segment without a frame.
    func frames(_ i: Int) throws -> ClosedRange<Int64>?
    /// Segment `i`'s head (item ticks), demuxing it if needed; nil for a hole, or when the
    /// reader has none.
    func head(_ i: Int) throws -> SegmentHead?
    /// `request` (item ticks) resolved by segment `i`'s own reader, which is left positioned
    /// at the landing; the landing's `pts` in item ticks, `streamPTS` as the host sees it.
    func resolve(_ request: LandingRequest, segment i: Int) throws -> Landing
    /// One frame step by segment `i`'s own reader from its frame `from` (item ticks); a
    /// landing's `pts` in item ticks.
    func step(from: Int64, segment i: Int, forward: Bool, seekID: UInt64) throws -> StepResultKind
    /// Points the item's reads at frame `p` (item ticks) of segment `i`, whose reader is
    /// positioned for it, for seek `seekID`. Returns `p` as the host sees it (the stream pts).
    func positionReads(at p: Int64, segment i: Int, seekID: UInt64) throws -> Int64
    /// Starts the reads in segment `j` (before `i`, on its pts timeline) instead: at the
    /// keyframe its last frame needs, every packet presenting before frame `p` of segment
    /// `i` DECODE_ONLY, reading on into `i`. Returns the packets read.
    func preRoll(from j: Int, landing p: Int64, segment i: Int, seekID: UInt64) throws -> UInt64
}
