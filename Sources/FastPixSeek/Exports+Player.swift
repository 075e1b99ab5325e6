#if canImport(Glibc)
import Glibc
#endif
import CFastPixSeekABI
import FastPixSeekCore
import FastPixSeekEngine

// MARK: Conversions to C

func cClamp(_ clamp: SeekClamp, requested: MediaTime) -> fpx_clamp {
    fpx_clamp(kind: fpx_clamp_kind(rawValue: UInt32(clamp.kind)), did_clamp: clamp.didClamp ? 1 : 0,
              requested: requested.c, clamped_to: clamp.clampedTo.c,
              clamped_target: clamp.clampedTarget(requested: requested).c,
              explanation: cString(clamp.explanation))
}

func cAccuracy(_ a: SeekAccuracy) -> fpx_accuracy {
    fpx_accuracy(requested_media_time: a.requestedMediaTime.c, landed_media_time: a.landedMediaTime.c,
                 tolerance_before: a.toleranceBefore.c, tolerance_after: a.toleranceAfter.c,
                 within_requested_tolerance: a.withinRequestedTolerance ? 1 : 0, delta: a.delta.c,
                 delta_seconds: a.deltaSeconds, absolute_delta_seconds: a.absoluteDeltaSeconds)
}

func cOutcome(_ o: SeekOutcome) -> fpx_seek_outcome {
    var c = fpx_seek_outcome()
    c.struct_size = MemoryLayout<fpx_seek_outcome>.size
    c.seek_id = o.seekID
    c.precision = cPrecision(o.precision, o.convention)
    c.finished = o.finished ? 1 : 0
    c.reason = fpx_finish_reason(rawValue: UInt32(o.reason.rawValue))
    c.error = o.error?.rawValue ?? 0
    c.requested_time = o.requestedTime
    c.landed_time = o.landedTime
    c.latency = o.latency
    c.latency_ns = o.latencyNanoseconds
    c.accuracy = cAccuracy(o.accuracy)
    c.clamp = cClamp(o.clamp, requested: o.accuracy.requestedMediaTime)
    c.resolution = fpx_landing_resolution(rawValue: UInt32(o.resolution.rawValue))
    c.frame_covers_target = o.frameCoversTarget ? 1 : 0
    c.landed_is_keyframe = o.landedIsKeyframe ? 1 : 0
    c.stream_index = o.streamIndex
    c.landed_stream_pts = o.landedStreamPTS ?? FPX_NOPTS
    c.stream_time_base_num = o.timeline?.timeBaseNum ?? 0
    c.stream_time_base_den = o.timeline?.timeBaseDen ?? 0
    c.packets_read = o.packetsRead
    c.landed_past_hole = fpx_hole_reason(rawValue: UInt32(o.landedPastHole.rawValue))
    return c
}

func cStatus(_ s: ItemStatusInfo) -> fpx_item_status_info {
    fpx_item_status_info(struct_size: MemoryLayout<fpx_item_status_info>.size, item_id: s.itemID,
                         status: fpx_item_status(rawValue: UInt32(s.status.rawValue)),
                         error: s.error?.rawValue ?? 0, av_error: s.avError,
                         segments_skipped: s.holes.count, last_skipped_sequence: s.holes.lastSequence,
                         last_skip_reason: fpx_hole_reason(rawValue: UInt32(s.holes.lastReason.rawValue)))
}

let FPX_NOPTS = ABIConstants.FPX_NOPTS  // the header's macro is a cast Swift cannot import

/// How many bytes of a host's input struct (fpx_listener, fpx_player_config)
/// to copy for its declared `size`: at most the library's struct, rounded
/// down to whole pointer-sized slots, so that no member (a function pointer
/// above all) is ever copied in part. Both structs are laid out in
/// pointer-sized slots (fpx_player_config's enum shares one with padding).
func wholeMembers<T>(_ declared: Int, of _: T.Type) -> Int {
    let slot = MemoryLayout<UnsafeRawPointer>.size
    let n = min(max(declared, 0), MemoryLayout<T>.size)
    return n / slot * slot
}

// MARK: Listeners

/// A host's fpx_listener, copied. Members past the host's `size` are treated as NULL.
// @unchecked Sendable: `l` is an immutable copy of the host's function pointers and opaque
// userdata, called on the delivery thread as seek.h documents; nothing here mutates.
final class CListener: PlayerListener, @unchecked Sendable {
    let l: fpx_listener

    init(_ src: UnsafePointer<fpx_listener>) {
        var copy = fpx_listener()
        // Whole members only: a size that ends inside a function pointer must
        // not leave half of it behind (a call through it would jump anywhere).
        // Every member is pointer-sized and pointer-aligned.
        let n = wholeMembers(Int(src.pointee.size), of: fpx_listener.self)
        withUnsafeMutableBytes(of: &copy) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(src), count: n))
        }
        copy.size = MemoryLayout<fpx_listener>.size
        l = copy
    }

    func onSeekAccuracy(_ outcome: SeekOutcome) {
        guard let f = l.on_seek_accuracy else { return }
        var o = cOutcome(outcome)
        var a = o.accuracy
        f(&a, &o, l.userdata)
    }

    func onSeekClamped(_ clamp: SeekClamp, seekID: UInt64) {
        guard let f = l.on_seek_clamped else { return }
        var c = cClamp(clamp, requested: clamp.requestedTime)
        f(&c, seekID, l.userdata)
    }

    func onItemStatus(_ status: ItemStatusInfo) {
        guard let f = l.on_item_status else { return }
        var s = cStatus(status)
        f(&s, l.userdata)
    }

    func onScrubStateChanged(_ state: ScrubState) {
        l.on_scrub_state_changed?(fpx_scrub_state(rawValue: UInt32(state.rawValue)), l.userdata)
    }

    func onScrubPositionChanged(_ position: ScrubPosition) {
        guard let f = l.on_scrub_position_changed else { return }
        var p = fpx_scrub_position(time: position.time.c, sample_count: position.sampleCount)
        f(&p, l.userdata)
    }

    func onFrameStep(_ result: FrameStepResult) {
        guard let f = l.on_frame_step else { return }
        var r = cStepResult(result)
        f(&r, l.userdata)
    }

    func onIndexComplete(frames: UInt64) { l.on_index_complete?(frames, l.userdata) }

    func onRemoved() { l.destroy_notify?(l.userdata) }
}

extension SeekClamp {
    var requestedTime: MediaTime {
        switch self {
        case .toSeekableStart(let r, _), .toSeekableEnd(let r, _): return r
        default: return .invalid
        }
    }
}

// MARK: Players

@_cdecl("fpx_listener_init")
public func fpxListenerInit(_ l: UnsafeMutablePointer<fpx_listener>?) {
    guard let l = l else { return }
    l.pointee = fpx_listener()
    l.pointee.size = MemoryLayout<fpx_listener>.size
}

/// The defaults, as the library's own header defines the struct.
func defaultPlayerConfig() -> fpx_player_config {
    var c = fpx_player_config()
    storeDefaults(&c)
    return c
}

/// The defaults, stored member by member (padding bytes are left as they are).
private func storeDefaults(_ c: UnsafeMutablePointer<fpx_player_config>) {
    c.pointee.size = MemoryLayout<fpx_player_config>.size
    c.pointee.delivery = FPX_DELIVERY_THREAD
    c.pointee.io_timeout_ms = 10_000
    c.pointee.protocol_whitelist = nil
    c.pointee.max_buffer_bytes = Int64(IOPolicy.defaultMaxBufferBytes)
    c.pointee.index_mode = FPX_INDEX_KEYFRAMES
    c.pointee.tls_ca_file = nil
    c.pointee.tls_insecure = 0
}

/// Writes the first `n` bytes of the defaults (whole members) to `c` and sets its size to n.
/// The defaults are stored into zeroed bytes, which are copied: a Swift value's padding
/// bytes are unspecified (Swift 6.0.3 leaves stack bytes there) and the host would get them
/// (test_abi_structs compares every byte).
private func writeDefaultConfig(_ c: UnsafeMutablePointer<fpx_player_config>, bytes n: Int) {
    var defaults = fpx_player_config()
    withUnsafeMutablePointer(to: &defaults) { d in  // no copy of the value inside: padding stays 0
        memset(d, 0, MemoryLayout<fpx_player_config>.size)
        storeDefaults(d)
        d.pointee.size = n
        UnsafeMutableRawPointer(c).copyMemory(from: UnsafeRawPointer(d), byteCount: n)
    }
}

/// The 0.3 layout (through index_mode): what binaries built against the 0.3 and
/// older headers allocate when they call fpx_player_config_init (seek.h).
let playerConfigSize03 = MemoryLayout<fpx_player_config>.offset(of: \.hls_max_bandwidth)!

@_cdecl("fpx_player_config_init")
public func fpxPlayerConfigInit(_ c: UnsafeMutablePointer<fpx_player_config>?) {
    guard let c = c else { return }
    writeDefaultConfig(c, bytes: playerConfigSize03)
}

@_cdecl("fpx_player_config_init_size")
public func fpxPlayerConfigInitSize(_ c: UnsafeMutablePointer<fpx_player_config>?, _ size: Int) -> Int32 {
    guard let c = c, size >= MemoryLayout<fpx_player_config>.offset(of: \.wakeup)! else {
        return ErrorCode.invalidArgument.rawValue
    }
    writeDefaultConfig(c, bytes: wholeMembers(size, of: fpx_player_config.self))
    return 0
}

@_cdecl("fpx_player_create")
public func fpxPlayerCreate(_ config: UnsafePointer<fpx_player_config>?,
                            _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out = out else { return ErrorCode.invalidArgument.rawValue }
    var cfg = defaultPlayerConfig()
    if let config = config {
        // Everything up to and including io_timeout_ms is required.
        guard config.pointee.size >= MemoryLayout<fpx_player_config>.offset(of: \.wakeup)! else {
            return ErrorCode.invalidArgument.rawValue
        }
        let n = wholeMembers(Int(config.pointee.size), of: fpx_player_config.self)
        withUnsafeMutableBytes(of: &cfg) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(config), count: n))
        }
        // index_mode (4 bytes) shares the last slot with padding: read it when
        // the size covers the member itself, else keep the default.
        let end = MemoryLayout<fpx_player_config>.offset(of: \.index_mode)! + MemoryLayout<fpx_index_mode>.size
        cfg.index_mode = Int(config.pointee.size) >= end ? config.pointee.index_mode : FPX_INDEX_KEYFRAMES
        // reference_stream (4 bytes) shares the last slot with hls_audio's padding: the same rule.
        let refEnd = MemoryLayout<fpx_player_config>.offset(of: \.reference_stream)! + MemoryLayout<Int32>.size
        cfg.reference_stream = Int(config.pointee.size) >= refEnd ? config.pointee.reference_stream : 0
        // tls_insecure (4 bytes) is followed by padding: the same rule. tls_ca_file starts
        // an 8-byte slot past the 0.4 layout's end, so wholeMembers covers it or not.
        let tlsEnd = MemoryLayout<fpx_player_config>.offset(of: \.tls_insecure)! + MemoryLayout<Int32>.size
        cfg.tls_insecure = Int(config.pointee.size) >= tlsEnd ? config.pointee.tls_insecure : 0
    }
    guard let indexMode = IndexMode(rawValue: Int32(bitPattern: cfg.index_mode.rawValue)) else {
        return ErrorCode.unknownEnum.rawValue
    }
    let mode: EventQueue.Mode
    switch cfg.delivery.rawValue {
    case FPX_DELIVERY_THREAD.rawValue: mode = .thread
    case FPX_DELIVERY_HOST.rawValue: mode = .host
    default: return ErrorCode.unknownEnum.rawValue
    }
    // Any non-negative timeout: huge ones saturate (INT64_MAX ms is never reached).
    guard cfg.io_timeout_ms >= 0 else { return ErrorCode.invalidArgument.rawValue }
    let wakeup = HostCallback(unsafeBitCast(cfg.wakeup, to: UnsafeRawPointer?.self), cfg.wakeup_userdata).map { w in
        { unsafeBitCast(w.function, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)(w.userdata) }
    }
    // Fields past the host's size stay at their defaults (NULL list, 0 cap).
    let protocols: ProtocolPolicy
    if let list = cfg.protocol_whitelist {
        guard let p = ProtocolPolicy.parse(String(cString: list)) else { return ErrorCode.invalidArgument.rawValue }
        protocols = p
    } else {
        protocols = .default
    }
    guard cfg.max_buffer_bytes >= 0 else { return ErrorCode.invalidArgument.rawValue }
    let cap = cfg.max_buffer_bytes == 0 ? IOPolicy.defaultMaxBufferBytes : Int(clamping: cfg.max_buffer_bytes)
    var config = Player.Config(delivery: mode, ioTimeoutNanoseconds: Deadline.nanoseconds(milliseconds: cfg.io_timeout_ms),
                               wakeup: wakeup, protocols: protocols, maxBufferBytes: cap,
                               indexMode: indexMode)
    // 0.4.0 HLS variant choice (fields past the host's size stay 0: automatic).
    guard cfg.hls_max_bandwidth >= 0, cfg.hls_variant >= 0, cfg.hls_max_height >= 0, cfg.hls_audio >= -1 else {
        return ErrorCode.invalidArgument.rawValue
    }
    config.hlsVariant = HLSVariantChoice(index: cfg.hls_variant > 0 ? Int(cfg.hls_variant) - 1 : nil,
                                         maxBandwidth: cfg.hls_max_bandwidth > 0 ? cfg.hls_max_bandwidth : nil,
                                         maxHeight: cfg.hls_max_height > 0 ? Int64(cfg.hls_max_height) : nil)
    config.hlsAudio = HLSRenditions.Choice(index: cfg.hls_audio > 0 ? Int(cfg.hls_audio) - 1 : nil, off: cfg.hls_audio == -1)
    // 0.4.0 reference stream: 0 automatic (also past the host's size), N > 0 stream N - 1.
    guard cfg.reference_stream >= 0 else { return ErrorCode.invalidArgument.rawValue }
    config.referenceStream = cfg.reference_stream > 0 ? cfg.reference_stream - 1 : nil
    // TLS checks (NULL and 0 past the host's size: verified against the default CAs).
    guard cfg.tls_insecure == 0 || cfg.tls_insecure == 1 else { return ErrorCode.invalidArgument.rawValue }
    var caFile: String?
    if let f = cfg.tls_ca_file {
        caFile = String(cString: f)
        guard caFile?.isEmpty == false else { return ErrorCode.invalidArgument.rawValue }
    }
    config.tls = TLSPolicy(verify: cfg.tls_insecure == 0, caFile: caFile)
    // FFmpeg's log goes through the library's (silent unless the host set a
    // log callback) from the first player on: see fpx_set_log_callback.
    FFmpegLog.installIfAllowed()
    EngineGlobals.warmUp(ffmpegUsable: ffmpegOpenRefusal() == nil)
    // The allocation reserve (seek.h section 6): none to take now is FPX_ERROR_NO_MEMORY.
    guard MemoryReserve.ensure() else { return ErrorCode.noMemory.rawValue }
    var failure = ErrorCode.noMemory
    guard let p = Player(config: config, factory: makeFFmpegEngine, failure: &failure) else { return failure.rawValue }
    out.pointee = Handles.register(p)
    return 0
}

@_cdecl("fpx_player_destroy")
public func fpxPlayerDestroy(_ h: OpaquePointer?) -> Int32 {
    guard h != nil else { return 0 }
    // From the log callback or the wakeup (this thread may be the player's own worker,
    // hold its engine lock, or be its wakeup thread), and from a callback of another
    // player (two callbacks destroying each other's players would wait for each other):
    // refused, the handle still valid (seek.h, section 5).
    if CallbackScope.isActive {
        guard let p = Handles.player(h) else { return ErrorCode.invalidHandle.rawValue }
        if CallbackScope.isInHostHook || !p.isInCallback { return ErrorCode.inCallback.rawValue }
    }
    guard let p = Handles.unregister(h) else { return ErrorCode.invalidHandle.rawValue }
    p.destroy()
    return 0
}

@_cdecl("fpx_player_open")
public func fpxPlayerOpen(_ h: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    withPlayer(.fpx_player_open, h) { p in
        guard let url = url, url.pointee != 0 else { throw ErrorCode.invalidArgument }
        if let refusal = ffmpegOpenRefusal() { throw refusal }  // Exports+Build.swift
        try p.open(String(cString: url))
    }
}

@_cdecl("fpx_player_close_item")
public func fpxPlayerCloseItem(_ h: OpaquePointer?) -> Int32 {
    withPlayer(.fpx_player_close_item, h) { p in try p.closeItem() }
}

@_cdecl("fpx_player_item_status")
public func fpxPlayerItemStatus(_ h: OpaquePointer?, _ info: UnsafeMutablePointer<fpx_item_status_info>?) -> Int32 {
    withPlayer(.fpx_player_item_status, h) { p in
        let slot = try OutputSlot(info)
        slot.store(cStatus(p.itemStatus))
    }
}

@_cdecl("fpx_player_wait_item")
public func fpxPlayerWaitItem(_ h: OpaquePointer?, _ timeoutMS: Int64,
                              _ info: UnsafeMutablePointer<fpx_item_status_info>?) -> Int32 {
    var result: Int32 = 0
    let rc = withPlayer(.fpx_player_wait_item, h) { p in
        let slot = try OutputSlot.optional(info)
        let ns: UInt64? = timeoutMS < 0 ? nil : Deadline.nanoseconds(milliseconds: timeoutMS)
        let s = p.waitItem(timeoutNanoseconds: ns)
        switch s.status {
        case .none: throw p.isDestroyed ? ErrorCode.cancelled : ErrorCode.noItem
        case .loading: throw p.isDestroyed ? ErrorCode.cancelled : ErrorCode.timeout
        case .failed: result = s.error?.rawValue ?? ErrorCode.itemFailed.rawValue
        case .ready: result = 0
        }
        slot?.store(cStatus(s))
    }
    return rc != 0 ? rc : result
}

@_cdecl("fpx_player_item_info")
public func fpxPlayerItemInfo(_ h: OpaquePointer?, _ info: UnsafeMutablePointer<fpx_item_info>?) -> Int32 {
    withPlayer(.fpx_player_item_info, h) { p in
        let slot = try OutputSlot(info)
        let i = try p.readyEngine().itemInfo
        var c = fpx_item_info()
        c.struct_size = MemoryLayout<fpx_item_info>.size
        c.stream_count = i.streamCount
        c.reference_stream = i.referenceStream
        c.has_video = i.hasVideo ? 1 : 0
        c.duration = i.duration.c
        c.start_pts = i.startPTS ?? i.timeline.originTicks
        c.time_base_num = i.timeline.timeBaseNum
        c.time_base_den = i.timeline.timeBaseDen
        c.seekable = i.seekable ? 1 : 0
        c.format_name = i.formatName
        // The range as the engine published it (no I/O, no engine lock: callback-safe).
        let e = try p.readyEngine()
        if let w = e.liveWindow(), !w.isLive {
            c.seekable_range_truncated = SeekableRangeCheck.isTruncated(duration: i.duration, seekableEnd: w.end,
                                                                        endsAtCut: e.seekableRangeEndsAtCut) ? 1 : 0
        }
        slot.store(c)
    }
}

@_cdecl("fpx_player_stream_info")
public func fpxPlayerStreamInfo(_ h: OpaquePointer?, _ index: Int32,
                                _ info: UnsafeMutablePointer<fpx_stream_info>?) -> Int32 {
    withPlayer(.fpx_player_stream_info, h) { p in
        let slot = try OutputSlot(info)
        guard let s = try p.readyEngine().streamInfo(index) else { throw ErrorCode.invalidArgument }
        var c = fpx_stream_info()
        c.struct_size = MemoryLayout<fpx_stream_info>.size
        c.index = s.index
        c.type = fpx_media_type(rawValue: UInt32(s.type.rawValue))
        c.codec_id = s.codecID
        c.codec_name = s.codecName
        c.time_base_num = s.timeBaseNum
        c.time_base_den = s.timeBaseDen
        c.width = s.width
        c.height = s.height
        c.sample_rate = s.sampleRate
        c.channels = s.channels
        c.video_delay = s.videoDelay
        c.extradata = s.extradata?.assumingMemoryBound(to: UInt8.self)
        c.extradata_size = s.extradataSize
        c.codecpar = s.codecParameters
        let f = s.details
        c.profile = f.profile
        c.level = f.level
        c.profile_name = f.profileName
        c.pixel_format = f.pixelFormat
        c.bit_depth = f.bitDepth
        c.sample_aspect_num = f.sampleAspectNum
        c.sample_aspect_den = f.sampleAspectDen
        c.frame_rate_num = f.frameRateNum
        c.frame_rate_den = f.frameRateDen
        c.real_frame_rate_num = f.realFrameRateNum
        c.real_frame_rate_den = f.realFrameRateDen
        c.color_range = f.colorRange
        c.color_primaries = f.colorPrimaries
        c.color_transfer = f.colorTransfer
        c.color_space = f.colorSpace
        c.color_range_name = f.colorRangeName
        c.color_primaries_name = f.colorPrimariesName
        c.color_transfer_name = f.colorTransferName
        c.color_space_name = f.colorSpaceName
        c.chroma_location = f.chromaLocation
        c.chroma_location_name = f.chromaLocationName
        c.field_order = f.fieldOrder
        c.has_display_matrix = f.hasDisplayMatrix ? 1 : 0
        c.rotation_degrees = f.rotationDegrees
        c.sample_format = f.sampleFormat
        c.channel_layout = f.channelLayout
        c.channel_mask = f.channelMask
        c.frame_size = f.frameSize
        c.initial_padding = f.initialPadding
        c.trailing_padding = f.trailingPadding
        c.codec_tag = f.codecTag
        c.bit_rate = f.bitRate
        c.bits_per_coded_sample = f.bitsPerCodedSample
        c.bits_per_raw_sample = f.bitsPerRawSample
        c.start_pts = f.startPTS ?? FPX_NOPTS
        c.duration_ts = f.durationTicks ?? FPX_NOPTS
        c.frame_count = f.frameCount
        c.disposition = f.disposition
        c.language = f.language
        slot.store(c)
    }
}

@_cdecl("fpx_player_seekable_range")
public func fpxPlayerSeekableRange(_ h: OpaquePointer?, _ start: UnsafeMutablePointer<fpx_time>?,
                                   _ end: UnsafeMutablePointer<fpx_time>?) -> Int32 {
    withPlayer(.fpx_player_seekable_range, h) { p in
        guard let start = start, let end = end else { throw ErrorCode.invalidArgument }
        guard let r = try p.seekableRange() else { throw ErrorCode.unsupported }
        start.pointee = r.start.c
        end.pointee = r.end.c
    }
}

@_cdecl("fpx_player_setup_seek_manager")
public func fpxPlayerSetupSeekManager(_ h: OpaquePointer?) -> Int32 {
    withPlayer(.fpx_player_setup_seek_manager, h) { p in try p.setupSeekManager() }
}

@_cdecl("fpx_player_seek")
public func fpxPlayerSeek(_ h: OpaquePointer?, _ target: fpx_time, _ precision: fpx_precision,
                          _ callback: fpx_seek_callback?, _ userdata: UnsafeMutableRawPointer?,
                          _ seekID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withPlayer(.fpx_player_seek, h) { p in
        // The kind here; time and tolerance once, by SeekTarget.
        let prec = try seekPrecision(from: precision, validatingTolerance: false)
        let st = try SeekTarget(time: MediaTime(target), precision: prec, convention: seekConvention(from: precision))
        let completion = HostCallback(unsafeBitCast(callback, to: UnsafeRawPointer?.self), userdata)?.completion {
            (outcome: SeekOutcome, host) in
            var c = cOutcome(outcome)
            unsafeBitCast(host.function, to: fpx_seek_callback.self)(&c, host.userdata)
        }
        let id = try p.seek(st, completion: completion)
        seekID?.pointee = id
    }
}

@_cdecl("fpx_player_seek_wait")
public func fpxPlayerSeekWait(_ h: OpaquePointer?, _ target: fpx_time, _ precision: fpx_precision,
                              _ timeoutMS: Int64, _ out: UnsafeMutablePointer<fpx_seek_outcome>?) -> Int32 {
    withPlayer(.fpx_player_seek_wait, h) { p in
        // The output-struct rule (OutputStruct.swift), checked before the seek is issued.
        let slot = try OutputSlot(out)
        let prec = try seekPrecision(from: precision, validatingTolerance: false)
        let st = try SeekTarget(time: MediaTime(target), precision: prec, convention: seekConvention(from: precision))
        let ns: UInt64? = timeoutMS < 0 ? nil : UInt64(min(timeoutMS, Int64.max / 1_000_000)) * 1_000_000
        guard let outcome = try p.seekAndWait(st, timeoutNanoseconds: ns) else {
            throw ErrorCode.timeout
        }
        slot.store(cOutcome(outcome))
    }
}

@_cdecl("fpx_player_cancel_pending_seeks")
public func fpxPlayerCancelPendingSeeks(_ h: OpaquePointer?, _ count: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withPlayer(.fpx_player_cancel_pending_seeks, h) { p in
        let n = try p.cancelPendingSeeks()
        count?.pointee = UInt64(n)
    }
}

@_cdecl("fpx_player_add_listener")
public func fpxPlayerAddListener(_ h: OpaquePointer?, _ l: UnsafePointer<fpx_listener>?,
                                 _ id: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withPlayer(.fpx_player_add_listener, h) { p in
        guard let l = l, l.pointee.size >= MemoryLayout<fpx_listener>.offset(of: \.on_seek_accuracy)! else {
            throw ErrorCode.invalidArgument
        }
        let lid = try p.addListener(CListener(l))
        id?.pointee = lid
    }
}

@_cdecl("fpx_player_remove_listener")
public func fpxPlayerRemoveListener(_ h: OpaquePointer?, _ id: UInt64) -> Int32 {
    withPlayer(.fpx_player_remove_listener, h) { p in try p.removeListener(id) }
}

@_cdecl("fpx_player_dispatch_events")
public func fpxPlayerDispatchEvents(_ h: OpaquePointer?, _ dispatched: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(.fpx_player_dispatch_events, h) { p in
        guard p.events.mode == .host else { throw ErrorCode.wrongMode }
        let n = p.events.dispatch()
        dispatched?.pointee = Int32(clamping: n)
    }
}

@_cdecl("fpx_player_event_fd")
public func fpxPlayerEventFD(_ h: OpaquePointer?, _ fd: UnsafeMutablePointer<Int32>?) -> Int32 {
    withPlayer(.fpx_player_event_fd, h) { p in
        guard let fd = fd else { throw ErrorCode.invalidArgument }
        guard p.events.mode == .host else { throw ErrorCode.wrongMode }
        fd.pointee = p.events.eventFD
    }
}

@_cdecl("fpx_player_read_packet")
public func fpxPlayerReadPacket(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<fpx_packet>?) -> Int32 {
    withPlayer(.fpx_player_read_packet, h) { p in
        let slot = try OutputSlot(out)
        let v = try p.readPacket()
        var c = fpx_packet()
        c.struct_size = MemoryLayout<fpx_packet>.size
        c.data = v.data?.assumingMemoryBound(to: UInt8.self)
        c.size = v.size
        c.stream_index = v.streamIndex
        c.pts = v.pts ?? FPX_NOPTS
        c.dts = v.dts ?? FPX_NOPTS
        c.duration = v.duration
        c.pos = v.position
        c.flags = v.flags
        c.seek_id = v.seekID
        c.av_packet = v.avPacket
        c.landed_pts = v.landedPTS ?? FPX_NOPTS
        c.landed_pts_in_stream = v.landedPTSInStream ?? FPX_NOPTS
        c.trim_samples = v.trimSamples
        c.landed_stream_index = v.landedPTS == nil ? -1 : v.landedStreamIndex
        c.item_origin_pts = v.itemOriginPTS ?? FPX_NOPTS
        slot.store(c)
    }
}

@_cdecl("fpx_player_set_stream_enabled")
public func fpxPlayerSetStreamEnabled(_ h: OpaquePointer?, _ index: Int32, _ enabled: Int32) -> Int32 {
    withPlayer(.fpx_player_set_stream_enabled, h) { p in try p.setStreamEnabled(index, enabled: enabled != 0) }
}

@_cdecl("fpx_player_stats_get")
public func fpxPlayerStatsGet(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<fpx_player_stats>?) -> Int32 {
    withPlayer(.fpx_player_stats_get, h) { p in
        let slot = try OutputSlot(out)
        let s = p.statistics
        slot.store(fpx_player_stats(struct_size: MemoryLayout<fpx_player_stats>.size,
                                       seeks_issued: s.seeksIssued, seeks_completed: s.seeksCompleted,
                                       seeks_superseded: s.seeksSuperseded, seeks_cancelled: s.seeksCancelled,
                                       seeks_failed: s.seeksFailed, packets_demuxed: s.packetsDemuxed,
                                       bytes_read: s.bytesRead, events_delivered: s.eventsDelivered,
                                       index_frames: s.indexFrames, index_complete: s.indexComplete ? 1 : 0,
                                       segments_skipped: s.segmentsSkipped))
    }
}

@_cdecl("fpx_player_set_continuation")
public func fpxPlayerSetContinuation(_ h: OpaquePointer?, _ enabled: Int32) -> Int32 {
    withPlayer(.fpx_player_set_continuation, h) { p in try p.setContinuation(enabled != 0) }
}

@_cdecl("fpx_player_report_decoded")
public func fpxPlayerReportDecoded(_ h: OpaquePointer?, _ pts: Int64) -> Int32 {
    withPlayer(.fpx_player_report_decoded, h) { p in try p.reportDecoded(pts: pts) }
}

@_cdecl("fpx_player_unread_packets")
public func fpxPlayerUnreadPackets(_ h: OpaquePointer?, _ count: UInt32) -> Int32 {
    withPlayer(.fpx_player_unread_packets, h) { p in try p.unreadPackets(Int(count)) }
}
