import CFastPixSeekABI
import FastPixSeekCore

func cStepResult(_ r: FrameStepResult) -> fpx_frame_step_result {
    var c = fpx_frame_step_result()
    c.struct_size = MemoryLayout<fpx_frame_step_result>.size
    c.direction = fpx_frame_step_direction(rawValue: UInt32(r.direction.rawValue))
    c.landed_stream_pts = FPX_NOPTS
    switch r {
    case .stepped(_, let t, let pts, let n):
        c.did_step = 1
        c.landed_media_time = t.c
        c.reason = FPX_STEP_OK
        c.explanation = cString(FrameStepUnavailableReason.explanation(code: 0))
        c.landed_stream_pts = pts
        c.packets_read = n
    case .unavailable(_, let reason, let n):
        c.did_step = 0
        c.packets_read = n
        c.landed_media_time = MediaTime.invalid.c
        c.reason = fpx_frame_step_unavailable_reason(rawValue: UInt32(reason.code))
        c.explanation = cString(reason.explanation)
    }
    return c
}

/// Runs `body` with the scrub session behind `handle`.
func withScrub(_ function: CFunction, _ handle: OpaquePointer?, _ body: (ScrubSession) throws -> Void) -> Int32 {
    guard let p = Handles.playerOfScrub(handle) else { return ErrorCode.invalidHandle.rawValue }
    if !function.isCallbackSafe && (CallbackScope.isActive || p.isInCallback) { return ErrorCode.inCallback.rawValue }
    guard let s = p.scrubSession else { return ErrorCode.noSeekManager.rawValue }
    do {
        try body(s)
        return 0
    } catch let e as ErrorCode {
        return e.rawValue
    } catch {
        return ErrorCode.internal.rawValue
    }
}

@_cdecl("fpx_player_scrub_session")
public func fpxPlayerScrubSession(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    withPlayer(.fpx_player_scrub_session, h) { p in
        guard let out = out else { throw ErrorCode.invalidArgument }
        guard p.scrubSession != nil else { throw ErrorCode.noSeekManager }
        out.pointee = Handles.scrubHandle(of: h)
    }
}

@_cdecl("fpx_scrub_begin")
public func fpxScrubBegin(_ h: OpaquePointer?, _ at: fpx_time) -> Int32 {
    withScrub(.fpx_scrub_begin, h) { s in try s.begin(at: MediaTime(at)) }
}

@_cdecl("fpx_scrub_update")
public func fpxScrubUpdate(_ h: OpaquePointer?, _ to: fpx_time) -> Int32 {
    withScrub(.fpx_scrub_update, h) { s in try s.update(to: MediaTime(to)) }
}

@_cdecl("fpx_scrub_end")
public func fpxScrubEnd(_ h: OpaquePointer?, _ at: fpx_time, _ precision: fpx_precision,
                        _ callback: fpx_scrub_callback?, _ userdata: UnsafeMutableRawPointer?,
                        _ seekID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withScrub(.fpx_scrub_end, h) { s in
        // The time and tolerance are validated once, by ScrubSession.end.
        let prec = try seekPrecision(from: precision, validatingTolerance: false)
        let completion = HostCallback(unsafeBitCast(callback, to: UnsafeRawPointer?.self), userdata)?.completion {
            (result: ScrubResult, host) in
            let cb = unsafeBitCast(host.function, to: fpx_scrub_callback.self), ud = host.userdata
            var r = fpx_scrub_result()
            r.struct_size = MemoryLayout<fpx_scrub_result>.size
            r.sample_count = result.sampleCount
            r.was_cancelled = result.wasCancelled ? 1 : 0
            withCOutcome(result.outcome) { ptr in
                r.outcome = ptr
                cb(&r, ud)
            }
        }
        let id = try s.end(at: MediaTime(at), precision: prec, convention: seekConvention(from: precision),
                           completion: completion)
        seekID?.pointee = id
    }
}

@_cdecl("fpx_scrub_cancel")
public func fpxScrubCancel(_ h: OpaquePointer?) -> Int32 {
    withScrub(.fpx_scrub_cancel, h) { s in try s.cancel() }
}

@_cdecl("fpx_scrub_get_state")
public func fpxScrubGetState(_ h: OpaquePointer?, _ state: UnsafeMutablePointer<fpx_scrub_state>?,
                             _ active: UnsafeMutablePointer<Int32>?) -> Int32 {
    withScrub(.fpx_scrub_get_state, h) { s in
        let st = s.currentState
        state?.pointee = fpx_scrub_state(rawValue: UInt32(st.rawValue))
        active?.pointee = st.isActive ? 1 : 0
    }
}

@_cdecl("fpx_scrub_set_position_throttle")
public func fpxScrubSetPositionThrottle(_ h: OpaquePointer?, _ t: fpx_time) -> Int32 {
    withScrub(.fpx_scrub_set_position_throttle, h) { s in
        let time = MediaTime(t)
        guard time.isNumeric, MediaTime.compare(time, .zero) >= 0 else { throw ErrorCode.invalidTime }
        guard let r = time.rational else { throw ErrorCode.invalidTime }
        let ns = (r * Rational(1_000_000_000)).floor
        s.positionThrottleNanoseconds = UInt64(clamping: ns)
    }
}

@_cdecl("fpx_scrub_get_position_throttle")
public func fpxScrubGetPositionThrottle(_ h: OpaquePointer?, _ t: UnsafeMutablePointer<fpx_time>?) -> Int32 {
    withScrub(.fpx_scrub_get_position_throttle, h) { s in
        guard let t = t else { throw ErrorCode.invalidArgument }
        t.pointee = MediaTime(value: Int64(clamping: s.positionThrottleNanoseconds), timescale: 1_000_000_000).c
    }
}

@_cdecl("fpx_player_step_frame")
public func fpxPlayerStepFrame(_ h: OpaquePointer?, _ direction: fpx_frame_step_direction, _ count: Int32,
                               _ result: UnsafeMutablePointer<fpx_frame_step_result>?) -> Int32 {
    withPlayer(.fpx_player_step_frame, h) { p in
        let slot = try OutputSlot(result)
        guard count >= 1 else { throw ErrorCode.invalidArgument }
        guard let d = FrameStepDirection(rawValue: Int32(bitPattern: direction.rawValue)) else {
            throw ErrorCode.unknownEnum
        }
        slot.store(cStepResult(try p.stepFrame(d, count: Int(count))))
    }
}

@_cdecl("fpx_frame_step_reason_explanation")
public func fpxFrameStepReasonExplanation(_ reason: Int32) -> UnsafePointer<CChar> {
    cString(FrameStepUnavailableReason.explanation(code: reason))
}

@_cdecl("fpx_player_current_time")
public func fpxPlayerCurrentTime(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<fpx_time>?) -> Int32 {
    withPlayer(.fpx_player_current_time, h) { p in
        guard let out = out else { throw ErrorCode.invalidArgument }
        out.pointee = try p.currentTime().c
    }
}
