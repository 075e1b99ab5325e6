import CFastPixSeekABI
import FastPixSeekCore

@_cdecl("fpx_player_live_seek_window")
public func fpxPlayerLiveSeekWindow(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<fpx_live_seek_window>?) -> Int32 {
    withPlayer(.fpx_player_live_seek_window, h) { p in
        let slot = try OutputSlot(out)
        var c = fpx_live_seek_window()
        c.struct_size = MemoryLayout<fpx_live_seek_window>.size
        c.start = MediaTime.invalid.c
        c.end = MediaTime.invalid.c
        c.duration = MediaTime.invalid.c
        c.target_duration = MediaTime.invalid.c
        c.hold_back = MediaTime.invalid.c
        c.duration_seconds = .nan
        if let w = try p.liveSeekWindow() {
            c.is_available = 1
            c.is_live = w.isLive ? 1 : 0
            c.is_date_addressable = w.isDateAddressable ? 1 : 0
            c.start = w.start.c
            c.end = w.end.c
            c.duration = w.duration.c
            c.duration_seconds = w.duration.seconds
            c.start_date_us = w.isDateAddressable ? (w.startDateMicroseconds ?? 0) : 0
            c.end_date_us = w.isDateAddressable ? (w.endDateMicroseconds ?? 0) : 0
            c.first_sequence = w.firstSequence
            c.last_sequence = w.lastSequence
            c.target_duration = w.targetDuration.c
            c.hold_back = w.holdBack.c
        }
        slot.store(c)
    }
}

@_cdecl("fpx_player_seek_to_live_edge")
public func fpxPlayerSeekToLiveEdge(_ h: OpaquePointer?, _ callback: fpx_live_edge_callback?,
                                    _ userdata: UnsafeMutableRawPointer?, _ seekID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withPlayer(.fpx_player_seek_to_live_edge, h) { p in
        let deliver = HostCallback(unsafeBitCast(callback, to: UnsafeRawPointer?.self), userdata)?.completion {
            (r: (outcome: SeekOutcome?, error: ErrorCode?), host) in
            let cb = unsafeBitCast(host.function, to: fpx_live_edge_callback.self), ud = host.userdata
            if let o = r.outcome {
                var c = cOutcome(o)
                cb(&c, 0, ud)
            } else {
                cb(nil, r.error?.rawValue ?? ErrorCode.noItem.rawValue, ud)
            }
        }
        let id = try p.seekToLiveEdge { deliver?(($0, $1)) }
        seekID?.pointee = id
    }
}

@_cdecl("fpx_player_seek_to_date")
public func fpxPlayerSeekToDate(_ h: OpaquePointer?, _ unixUS: Int64, _ precision: fpx_precision,
                                _ callback: fpx_date_seek_callback?, _ userdata: UnsafeMutableRawPointer?,
                                _ seekID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withPlayer(.fpx_player_seek_to_date, h) { p in
        // The tolerance is validated once, by seekToDate.
        let prec = try seekPrecision(from: precision, validatingTolerance: false)
        let deliver = HostCallback(unsafeBitCast(callback, to: UnsafeRawPointer?.self), userdata)?.completion {
            (result: DateSeekResult, host) in
            let cb = unsafeBitCast(host.function, to: fpx_date_seek_callback.self), ud = host.userdata
            var r = fpx_date_seek_result()
            r.struct_size = MemoryLayout<fpx_date_seek_result>.size
            r.requested_date_us = unixUS
            switch result {
            case .seeked(let o):
                r.seeked = 1
                r.reason = FPX_DATE_SEEK_OK
                r.explanation = cString(DateSeekUnavailableReason.explanation(code: 0))
                withCOutcome(o) { ptr in
                    r.outcome = ptr
                    cb(&r, ud)
                }
            case .unavailable(_, let reason):
                r.seeked = 0
                r.outcome = nil
                r.reason = fpx_date_seek_unavailable_reason(rawValue: UInt32(reason.code))
                r.explanation = cString(DateSeekUnavailableReason.explanation(code: reason.code))
                if case .dateOutsideSeekableWindow(_, let s, let e) = reason {
                    r.window_start_date_us = s
                    r.window_end_date_us = e
                }
                cb(&r, ud)
            }
        }
        let id = try p.seekToDate(microseconds: unixUS, precision: prec,
                                  convention: seekConvention(from: precision)) { deliver?($0) }
        seekID?.pointee = id
    }
}

@_cdecl("fpx_date_seek_reason_explanation")
public func fpxDateSeekReasonExplanation(_ reason: Int32) -> UnsafePointer<CChar> {
    cString(DateSeekUnavailableReason.explanation(code: reason))
}

// MARK: HLS variants and renditions (seek.h, 0.4.0)

private func hlsListing(_ p: Player) throws -> HLSListing? { try p.readyEngine().hlsControls?.hlsListing }

/// The item's HLS controls; `.unsupported` for an item without them (a file).
private func hlsControls(_ p: Player) throws -> HLSItemControls {
    guard let c = try p.readyEngine().hlsControls else { throw ErrorCode.unsupported }
    return c
}

@_cdecl("fpx_player_hls_variant_count")
public func fpxPlayerHLSVariantCount(_ h: OpaquePointer?, _ count: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(.fpx_player_hls_variant_count, h) { p in
        guard let count else { throw ErrorCode.invalidArgument }
        count.pointee = Int32(clamping: try hlsListing(p)?.variants.count ?? 0)
    }
}

@_cdecl("fpx_player_hls_variant")
public func fpxPlayerHLSVariant(_ h: OpaquePointer?, _ index: Int32, _ out: UnsafeMutablePointer<fpx_hls_variant>?) -> Int32 {
    withPlayer(.fpx_player_hls_variant, h) { p in
        let slot = try OutputSlot(out)
        guard let l = try hlsListing(p), index >= 0, Int(index) < l.variants.count else { throw ErrorCode.invalidArgument }
        let v = l.variants[Int(index)]
        var c = fpx_hls_variant()
        c.struct_size = MemoryLayout<fpx_hls_variant>.size
        c.is_iframe = v.isIFrame ? 1 : 0
        // The variant played now (a switch moves it at a seek), else the open's choice.
        if let sel = try p.readyEngine().hlsControls?.hlsVariantSelection { c.selected = sel == Int(index) ? 1 : 0 }
        else { c.selected = v.selected ? 1 : 0 }
        c.bandwidth = v.bandwidth
        c.average_bandwidth = v.averageBandwidth
        c.width = v.width
        c.height = v.height
        c.frame_rate_num = v.frameRateNum
        c.frame_rate_den = v.frameRateDen
        c.codecs = v.codecs
        c.hdcp_level = v.hdcpLevel
        c.audio_group = v.audioGroup
        slot.store(c)
    }
}

@_cdecl("fpx_player_hls_rendition_count")
public func fpxPlayerHLSRenditionCount(_ h: OpaquePointer?, _ count: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(.fpx_player_hls_rendition_count, h) { p in
        guard let count else { throw ErrorCode.invalidArgument }
        count.pointee = Int32(clamping: try hlsListing(p)?.renditions.count ?? 0)
    }
}

@_cdecl("fpx_player_hls_rendition")
public func fpxPlayerHLSRendition(_ h: OpaquePointer?, _ index: Int32,
                                  _ out: UnsafeMutablePointer<fpx_hls_rendition>?) -> Int32 {
    withPlayer(.fpx_player_hls_rendition, h) { p in
        let slot = try OutputSlot(out)
        guard let l = try hlsListing(p), index >= 0, Int(index) < l.renditions.count else { throw ErrorCode.invalidArgument }
        let r = l.renditions[Int(index)]
        var c = fpx_hls_rendition()
        c.struct_size = MemoryLayout<fpx_hls_rendition>.size
        c.type = fpx_media_type(rawValue: UInt32(r.type.rawValue))
        c.group_id = r.groupID
        c.name = r.name
        c.language = r.language
        c.channels = r.channels
        c.is_default = r.isDefault ? 1 : 0
        c.autoselect = r.autoselect ? 1 : 0
        c.has_uri = r.hasURI ? 1 : 0
        c.in_selected_group = r.inSelectedGroup ? 1 : 0
        // The rendition played now (a switch moves it at a landing), else the open's choice.
        if let sel = try p.readyEngine().hlsControls?.hlsAudioSelection {
            c.selected = sel.index == Int(index) ? 1 : 0
            c.stream_index = sel.index == Int(index) ? sel.stream : -1
        } else {
            c.selected = r.selected ? 1 : 0
            c.stream_index = r.streamIndex
        }
        slot.store(c)
    }
}

@_cdecl("fpx_player_hls_select_audio")
public func fpxPlayerHLSSelectAudio(_ h: OpaquePointer?, _ index: Int32) -> Int32 {
    withPlayer(.fpx_player_hls_select_audio, h) { p in
        try hlsControls(p).selectHLSAudio(Int(index))
    }
}

@_cdecl("fpx_player_hls_select_variant")
public func fpxPlayerHLSSelectVariant(_ h: OpaquePointer?, _ index: Int32) -> Int32 {
    withPlayer(.fpx_player_hls_select_variant, h) { p in
        try hlsControls(p).selectHLSVariant(Int(index))
    }
}
