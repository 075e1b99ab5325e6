#if canImport(Glibc)
import Glibc
#endif
import CFFmpegCodec
import FastPixSeekCore

/// The frames at many times of one item, the recipe of Examples/c/frames_at.c, shared by
/// `frame` (a PNG or contact sheet) and `sprite` (sprite sheets): continuation on, times
/// visited in increasing order with one decoder kept across them, flushed only where the
/// packets say DISCONTINUITY, DISPOSABLE packets dropped, non-reference pre-roll skipped,
/// and before each seek the largest pts the decoder returned is reported so that a landing
/// ahead continues the packets instead of restarting at its keyframe (seek.h, "Continuation").
/// A failure at one time (a seek that does not land, a frame that cannot be decoded) is
/// recorded for that time and the others go on.

/// One decoder for the reference stream, kept across landings.
final class FrameDecoder {
    let player: Player
    let stream: Int32
    let dec: UnsafeMutablePointer<AVCodecContext>
    let frame: UnsafeMutablePointer<AVFrame>
    /// Drained at the end of the packets, or by a keyframe landing: flush before the next packet.
    var drained = false
    /// The largest pts the decoder returned since its last flush (Int64.min: none).
    var maxOut = Int64.min
    /// The largest pts of a packet sent to the decoder since its last flush (Int64.min: none).
    var maxSent = Int64.min
    var decoded: UInt64 = 0, fed: UInt64 = 0, dropped: UInt64 = 0
    /// Packets sent past a wanted frame with non-reference frames skipped (`decode`'s `nextLimit`).
    var skippedPast: UInt64 = 0
    /// The reference stream's timeline, and whether packet pts are its ticks (a file; HLS and
    /// DASH packets carry segment pts).
    let timeline: Timeline
    let ptsAreTicks: Bool
    /// A landing failed: continuation stays off for the rest of the run (`reset`).
    var failed = false

    /// `threads`: the decoder's thread count (1: one thread; 0: one per core, frame threads).
    init?(player: Player, engine: PlayerEngine, threads: Int32 = 1) {
        let ref = engine.itemInfo.referenceStream
        guard let si = engine.streamInfo(ref), si.type == .video,
              let d = fpx_cli_decoder_open(si.codecParameters, si.timeBaseNum, si.timeBaseDen, threads),
              let f = fpx_cli_frame_alloc() else { return nil }
        self.player = player
        stream = ref
        dec = d
        frame = f
        timeline = engine.itemInfo.timeline
        let format = engine.itemInfo.formatName.map { String(cString: $0) } ?? ""
        ptsAreTicks = !format.hasPrefix("hls") && !format.hasPrefix("dash")
    }

    deinit {
        fpx_cli_frame_free(frame)
        fpx_cli_decoder_free(dec)
    }

    private func receive(_ want: Int64) -> Int32 { fpx_cli_receive(dec, want, frame, &maxOut, &decoded) }

    private func flush() {
        fpx_cli_decoder_flush(dec)
        drained = false
        maxOut = Int64.min
        maxSent = Int64.min
    }

    /// Decodes until the frame with pts `want` is in `frame`; false when it never comes.
    /// `drainAtKeyframe`: the landing is a keyframe and only it is wanted: the decoder is
    /// drained right after its packet (no later packet is decoded to push it out of the
    /// reorder buffer) and flushed before the next one.
    ///
    /// `nextLimit`: the largest pts the next visit's frame can be chosen by, in ticks (the
    /// next time's; `Int64.max` when there is none). Packets sent after the wanted frame's own,
    /// only to get it out of the decoder (its reorder and thread delay), are then sent with
    /// non-reference frames skipped when no visit can want them: a frame whose pts is below
    /// that of a packet already sent, itself at or below `nextLimit`, is neither on screen at
    /// the next time (a later frame is) nor the first at or after it; and a non-reference
    /// frame is needed by no other.
    func decode(to want: Int64, drainAtKeyframe: Bool = false, nextLimit: Int64? = nil) -> Bool {
        var want = want
        var sentWant = false
        while true {
            let p: PacketView
            do { p = try player.readPacket() } catch {
                // The end of the packets (the engine throws EngineError, the player ErrorCode):
                // drain, the last frames of a stream with B-frames come out only then.
                guard (error as? EngineError)?.code == .eof || (error as? ErrorCode) == .eof else { return false }
                _ = fpx_cli_send(dec, nil, 0)
                drained = true
                return receive(want) == 1
            }
            if p.flags & PacketView.flagDiscontinuity != 0 || drained {
                flush()  // a new run of packets: drop what the decoder holds
            } else {
                // The packets continued: frames the decoder already holds come out first.
                let r = receive(want)
                if r != 0 { return r == 1 }
            }
            guard p.streamIndex == stream else { continue }
            if p.flags & PacketView.flagDisposable != 0 { dropped += 1; continue }
            if let l = p.landedPTSInStream, l != want { want = l; sentWant = false }
            let decodeOnly = p.flags & PacketView.flagDecodeOnly != 0
            var skipNonRef = decodeOnly
            if !decodeOnly, sentWant, ptsAreTicks, let limit = nextLimit, let pts = p.pts, pts < maxSent,
               maxSent <= limit {
                skipNonRef = true
                skippedPast += 1
            }
            if fpx_cli_send(dec, p.avPacket, skipNonRef ? 1 : 0) < 0 { return false }
            fed += 1
            if let pts = p.pts {
                maxSent = max(maxSent, pts)
                if pts == want { sentWant = true }
            }
            let r = receive(want)
            if r != 0 { return r == 1 }
            if drainAtKeyframe && !decodeOnly && p.flags & PacketView.flagKey != 0 {
                _ = fpx_cli_send(dec, nil, 0)
                drained = true
                return receive(want) == 1
            }
        }
    }

    /// After a failure the decoder's state is unknown: flush it at the next packet, and stop
    /// continuing (the library would otherwise continue packets into a decoder that lost them).
    func reset() {
        drained = true
        failed = true
        try? player.setContinuation(false)
    }
}

/// What happened at one time.
struct FrameVisit {
    let index: Int            // position on the command line
    let text: String          // the time as given
    let requested: MediaTime
    var outcome: SeekOutcome? = nil
    var pts: Int64? = nil     // the landed frame's stream pts, when decoded
    var error: String? = nil  // nil: the frame was decoded
    var skipped: String? = nil  // not a failure: `accept` declined the landing, nothing decoded
    var framesDecoded: UInt64 = 0
    var packetsFed: UInt64 = 0
}

/// Visits `times` in increasing order; `each` gets every visit, with the decoded frame in
/// `decoder.frame` when `visit.error` and `visit.skipped` are nil (unreferenced after `each`
/// returns). `accept` may decline a landing before anything is decoded (its reason). Returns
/// the visits in the order given.
func visitFrames(_ player: Player, _ decoder: FrameDecoder, _ times: [(text: String, time: MediaTime)],
                 precision: (MediaTime) -> SeekPrecision, convention: FrameConvention = .onScreen,
                 keyframeOnly: Bool = false,
                 accept: (SeekOutcome) -> String? = { _ in nil },
                 each: (inout FrameVisit) -> Void) -> [FrameVisit] {
    try? player.setupSeekManager()
    // Keyframe-only landings restart at their keyframe (one packet): nothing to continue.
    try? player.setContinuation(!keyframeOnly)
    let order = times.indices.sorted { a, b in
        let c = MediaTime.compare(times[a].time, times[b].time)
        return c != 0 ? c < 0 : a < b
    }
    var visits = times.enumerated().map { FrameVisit(index: $0.offset, text: $0.element.text, requested: $0.element.time) }
    var continuing = !keyframeOnly
    for (k, i) in order.enumerated() {
        // The largest pts the next visit can choose its frame by (its time, in ticks).
        let nextLimit: Int64
        if k + 1 < order.count {
            nextLimit = decoder.timeline.ticks(of: times[order[k + 1]].time).flatMap { Int64(exactly: $0.floor) } ?? Int64.min
        } else {
            nextLimit = Int64.max
        }
        let before = decoder.decoded, fedBefore = decoder.fed
        if decoder.maxOut != Int64.min && !decoder.drained { try? player.reportDecoded(pts: decoder.maxOut) }
        // A drained decoder (the end of the packets, a failure) holds nothing to continue: this
        // seek restarts at its keyframe. Continuing would read on from where the packets ended,
        // and a second landing on the last frames (of a B-frame stream: drained out at the end)
        // would find no packet left.
        if continuing && decoder.drained {
            try? player.setContinuation(false)
            continuing = false
        } else if !continuing && !keyframeOnly && !decoder.drained && !decoder.failed {
            try? player.setContinuation(true)
            continuing = true
        }
        do {
            let o = try seekAndWait(player, times[i].time, precision(times[i].time), convention)
            visits[i].outcome = o
            if !o.finished || o.landedStreamPTS == nil {
                visits[i].error = "the seek did not land (\(finishReasonName(o.reason))"
                    + (o.error.map { ", \($0.name)" } ?? "") + ")"
            } else if let why = accept(o) {
                visits[i].skipped = why
            } else if let pts = o.landedStreamPTS {
                if decoder.decode(to: pts, drainAtKeyframe: keyframeOnly && o.landedIsKeyframe, nextLimit: nextLimit) {
                    visits[i].pts = pts
                } else {
                    visits[i].error = "the landed frame (pts \(pts)) could not be decoded"
                    decoder.reset()
                }
            }
        } catch let e as ErrorCode {
            visits[i].error = "the seek was refused: \(e.message) (\(e.name))"
        } catch {
            visits[i].error = "the seek was refused"
        }
        visits[i].framesDecoded = decoder.decoded - before
        visits[i].packetsFed = decoder.fed - fedBefore
        each(&visits[i])
        av_frame_unref(decoder.frame)
    }
    return visits
}
