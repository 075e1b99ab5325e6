/// The landing of a separate audio rendition after the variant's (HLS, EXT-X-MEDIA
/// TYPE=AUDIO with its own URI; `HLSRenditionMerge`): the rendition lands on its own frame
/// grid at the item time the variant landed on, its packets starting one audio frame
/// earlier (the pre-roll an audio decoder needs; muxed audio has the packets from the video
/// keyframe on).
///
/// 1. Land exactly at `target` (the rendition's item ticks): the audio frame that covers the
///    video's landing. The rendition is read again from there.
/// 2. Land on the frame before it (one tick before the covering frame: in the previous
///    segment when that frame is the first of its own), which starts the packets one frame
///    earlier.
/// 3. When that fails (no frame before it in the window, a hole; anything but a cancel or an
///    interrupt), the segments recorded so far are forgotten and the rendition lands at
///    `target` again.
/// 4. No audio frame at the target (FPX_ERROR_NO_STREAM, EOF, NOT_FOUND: past the
///    rendition's end, a window of holes): the rendition is not read until the next landing.
///    Any other error fails the landing.
///
/// Each landing goes through the same rendition feed's `SegmentLander` (behind the seam).
public protocol RenditionSeam {
    /// An exact landing of the rendition at `target` (its item ticks); the segment it is
    /// made in is recorded as a landing segment (its packets get the landing fields).
    func land(at target: Rational) throws -> Landing
    /// Forgets the landing segments recorded so far.
    func forgetLandingSegments()
    /// The rendition is read (true) or not (false) until the next landing.
    func setReading(_ on: Bool)
}

public enum RenditionLander {
    /// Lands the rendition at `target` as the rules above say.
    public static func land<Seam: RenditionSeam>(at target: Rational, _ seam: Seam) throws {
        do {
            let covering = try seam.land(at: target)
            seam.setReading(true)
            do {
                _ = try seam.land(at: Rational(covering.pts &- 1))
            } catch let e as EngineError where e.code != .cancelled && e.code != .interrupted {
                seam.forgetLandingSegments()
                _ = try seam.land(at: target)
            }
        } catch let e as EngineError where e.code == .noStream || e.code == .eof || e.code == .notFound {
            seam.setReading(false)
        }
    }
}
