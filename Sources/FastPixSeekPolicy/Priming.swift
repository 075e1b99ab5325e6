/// The priming rules: packets that only prime the decoder are never landings,
/// and a packet that starts with priming presents from its first real sample
/// (docs/ARCHITECTURE.md, "Priming").
public struct Priming: Hashable, Sendable {
    public var referenceStream: Int32
    /// The reference stream's sample rate when it is audio (priming is in samples), else 0.
    public var sampleRate: Int32
    /// An audio reference stream's start time: its first real sample.
    public var audioStart: Int64?
    /// The reference stream's time base.
    public var timeBaseNum: Int32
    public var timeBaseDen: Int32
    /// The reference stream is raw PCM timed in samples (time base 1/sampleRate): every
    /// sample is a frame and any packet starts decoding, so the demuxer's packets are cut
    /// wherever it started reading (Lander+Samples.swift).
    public var samplesAreFrames: Bool

    public init(referenceStream: Int32, sampleRate: Int32, audioStart: Int64?, timeBaseNum: Int32, timeBaseDen: Int32,
                samplesAreFrames: Bool = false) {
        self.referenceStream = referenceStream; self.sampleRate = sampleRate; self.audioStart = audioStart
        self.timeBaseNum = timeBaseNum; self.timeBaseDen = timeBaseDen
        self.samplesAreFrames = samplesAreFrames && sampleRate > 0 && timeBaseNum == 1 && timeBaseDen == sampleRate
    }

    /// No priming (a video reference stream) on time base num/den.
    public static func none(referenceStream: Int32, timeBaseNum: Int32, timeBaseDen: Int32) -> Priming {
        Priming(referenceStream: referenceStream, sampleRate: 0, audioStart: nil, timeBaseNum: timeBaseNum,
                timeBaseDen: timeBaseDen)
    }

    /// The presentation time a landing sees: the pts, moved past the samples
    /// the decoder skips (MP3 and Opus priming, which FFmpeg 5.1 does not flag
    /// discard), and up to the stream's start time when the packet straddles it
    /// (Ogg drops the skip side data after a seek; libavformat puts the start
    /// at the first real sample).
    public func presents(_ p: DemuxedPacket) -> Int64? {
        guard var t = p.pts else { return nil }
        guard p.stream == referenceStream, sampleRate > 0 else { return t }
        if p.skipSamples > 0 { t = t &+ Self.samplesToTicks(p.skipSamples, rate: sampleRate, num: timeBaseNum, den: timeBaseDen) }
        if let s = audioStart, t < s, t &+ max(0, p.duration) > s { t = s }
        return t
    }

    /// Never a landing: flagged discard, or a reference packet whose samples are all priming.
    public func notLandable(_ p: DemuxedPacket) -> Bool {
        if p.isDiscard { return true }
        guard p.stream == referenceStream, sampleRate > 0, p.duration > 0, let t = p.pts, let l = presents(p) else {
            return false
        }
        if let s = audioStart, t &+ p.duration <= s { return true }
        return l &- t >= p.duration
    }

    /// `samples / rate` seconds in ticks of num/den, rounded to nearest, halves
    /// away from zero (av_rescale_q's rounding).
    static func samplesToTicks(_ samples: Int64, rate: Int32, num: Int32, den: Int32) -> Int64 {
        let n = Int128(samples) * Int128(den)
        let d = Int128(rate) * Int128(max(1, num))
        guard d > 0 else { return 0 }
        let q = (n.magnitude + d.magnitude / 2) / d.magnitude
        let v = n < 0 ? -Int128(q) : Int128(q)
        return Int64(clamping: v)
    }
}
