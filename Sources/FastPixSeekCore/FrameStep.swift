// FrameStepDirection is generated from seek.h: ABIEnums.swift.

/// Why a step could not happen. The C type is `fpx_frame_step_unavailable_reason`.
public enum FrameStepUnavailableReason: Hashable, Sendable {
    case noCurrentItem
    case itemNotReady
    /// Permanent for this item: an audio-only item never becomes steppable.
    case noVideoTrack
    case atLiveEdge(LiveEdgeCause)
    case cannotStepInDirection(FrameStepDirection)

    public var code: Int32 {
        switch self {
        case .noCurrentItem: return FrameStepUnavailableReasonCode.noCurrentItem.rawValue
        case .itemNotReady: return FrameStepUnavailableReasonCode.itemNotReady.rawValue
        case .noVideoTrack: return FrameStepUnavailableReasonCode.noVideoTrack.rawValue
        case .atLiveEdge: return FrameStepUnavailableReasonCode.atLiveEdge.rawValue
        case .cannotStepInDirection: return FrameStepUnavailableReasonCode.cannotStepInDirection.rawValue
        }
    }

    /// The one table of explanations: a refusal's own, and `explanation(code:)`'s per code.
    public var explanation: StaticString {
        switch self {
        case .noCurrentItem: return "Nothing is attached to the player."
        case .itemNotReady: return "The item is not ready, so a step has no defined landing position."
        case .noVideoTrack: return "The item has no video track. This is permanent for this item: disable frame stepping for it rather than retrying."
        case .atLiveEdge(.notPublished): return "Forward stepping at the live edge: the next frame has not been published yet."
        case .atLiveEdge(.pastHoldBack): return "Forward stepping at the live edge: the next frame is published but lies past the hold-back edge, which the seekable range ends at."
        case .cannotStepInDirection(.forward): return "There is no frame that far forward: the playhead is at or near the last frame."
        case .cannotStepInDirection(.backward): return "There is no frame that far backward: the playhead is at or near the first frame."
        }
    }

    /// By code alone (fpx_frame_step_reason_explanation), where the cause of an
    /// AT_LIVE_EDGE refusal is unknown: a sentence true in either case.
    public static func explanation(code: Int32) -> StaticString {
        switch FrameStepUnavailableReasonCode(rawValue: code) {
        case .ok: return "The step happened."
        case .noCurrentItem: return FrameStepUnavailableReason.noCurrentItem.explanation
        case .itemNotReady: return FrameStepUnavailableReason.itemNotReady.explanation
        case .noVideoTrack: return FrameStepUnavailableReason.noVideoTrack.explanation
        case .atLiveEdge: return "Forward stepping at the live edge: the next frame has not been published yet, or lies past the hold-back edge."
        case .cannotStepInDirection: return "The player cannot step in that direction from here."
        case nil: return "Unknown frame step reason."
        }
    }
}

/// The result of a frame step. The C type is `fpx_frame_step_result`.
public enum FrameStepResult: Hashable, Sendable {
    case stepped(direction: FrameStepDirection, landedMediaTime: MediaTime, streamPTS: Int64, packetsRead: UInt64)
    /// `packetsRead`: what the engine demuxed before refusing (0 when the
    /// refusal needed no reading).
    case unavailable(direction: FrameStepDirection, reason: FrameStepUnavailableReason, packetsRead: UInt64 = 0)

    public var didStep: Bool { if case .stepped = self { return true }; return false }
    public var unavailableReason: FrameStepUnavailableReason? {
        if case .unavailable(_, let r, _) = self { return r }
        return nil
    }
    public var direction: FrameStepDirection {
        switch self {
        case .stepped(let d, _, _, _), .unavailable(let d, _, _): return d
        }
    }
}

extension Player {
    /// Steps `count` frames along the reference stream's presentation-order
    /// grid from the playhead (the last landing or step; the first frame
    /// before any). Blocking: it may demux. Every call, refused ones included,
    /// reaches the frame-step listeners. The C function is `fpx_player_step_frame`.
    public func stepFrame(_ direction: FrameStepDirection, count: Int) throws -> FrameStepResult {
        guard count > 0 else { throw ErrorCode.invalidArgument }
        let deadline = config.ioTimeoutNanoseconds > 0 ? monotonicNanoseconds() &+ config.ioTimeoutNanoseconds : nil
        var refusal: FrameStepUnavailableReason?
        var engine: PlayerEngine?
        var itemStop: CancelFlag?
        var from: Int64?
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item else { refusal = .noCurrentItem; return }
            guard it.status == .ready, let e = it.engine else { refusal = .itemNotReady; return }
            guard e.hasVideo else { refusal = .noVideoTrack; return }
            engine = try settledEngineLocked(deadline: deadline)
            itemStop = item?.stop  // the item settledEngineLocked returned the engine of
            from = playheadTicks
        }
        let result: FrameStepResult
        if let r = refusal {
            result = .unavailable(direction: direction, reason: r)
        } else if let e = engine {
            // The item's flag: set when it is closed or replaced or the player destroyed (no lock).
            let flag = itemStop
            let stop: () -> Bool = { flag?.isSet ?? true }
            // The packets a refusal demuxed: the engine's counter across the step.
            let (landing, demuxed) = try withEngine(e) {
                let before = e.demuxCounters.packets
                let k = try e.step(from: from, forward: direction == .forward, count: count, seekID: 0, shouldStop: stop)
                return (k, e.demuxCounters.packets &- before)
            }
            switch landing {
            case .landed(let l):
                m.locked { if item?.engine === e { playheadTicks = l.pts } }
                result = .stepped(direction: direction, landedMediaTime: e.timeline.itemTime(ofTicks: l.pts),
                                  streamPTS: l.streamPTS ?? l.pts, packetsRead: l.packetsRead)
            case .noFrame:
                result = .unavailable(direction: direction, reason: .cannotStepInDirection(direction), packetsRead: demuxed)
            case .atLiveEdge(let cause):
                result = .unavailable(direction: direction, reason: .atLiveEdge(cause), packetsRead: demuxed)
            }
        } else {
            throw ErrorCode.internal
        }
        postToListeners { $0.onFrameStep(result) }
        return result
    }

    /// The playhead on the item timeline: the last landing or step, or the
    /// first frame. The C function is `fpx_player_current_time`.
    public func currentTime() throws -> MediaTime {
        let (e, ph): (PlayerEngine, Int64?) = try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item else { throw ErrorCode.noItem }
            guard it.status == .ready, let e = it.engine else { throw ErrorCode.itemNotReady }
            return (e, playheadTicks)
        }
        if let p = ph { return e.timeline.itemTime(ofTicks: p) }
        if let s = e.startTicks { return e.timeline.itemTime(ofTicks: s) }
        return try seekableRange()?.start ?? .zero
    }
}
