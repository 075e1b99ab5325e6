// Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit.
//
// The tables behind fpx_error_string, fpx_error_name and every fpx_*_name function,
// keyed by the header's own constants, and the callback-safety table that withPlayer
// consults (each function's "Callback-safe:" line in seek.h).
import CFastPixSeekABI

enum ABITables {
    /// fpx_error_string: the header's text of each code; "unknown error" for others.
    static func errorString(_ code: Int32) -> StaticString {
        switch code {
        case Int32(truncatingIfNeeded: FPX_OK.rawValue): return "success"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_HANDLE.rawValue): return "invalid handle: NULL, destroyed or foreign"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_ARGUMENT.rawValue): return "invalid argument: a NULL pointer or an out-of-range value"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_TIME.rawValue): return "invalid time: NaN, infinite, invalid, timescale <= 0"
        case Int32(truncatingIfNeeded: FPX_ERROR_UNKNOWN_ENUM.rawValue): return "an enum value this library does not know"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_MEMORY.rawValue): return "out of memory"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_ITEM.rawValue): return "nothing is attached to the player"
        case Int32(truncatingIfNeeded: FPX_ERROR_ITEM_NOT_READY.rawValue): return "the item is still loading"
        case Int32(truncatingIfNeeded: FPX_ERROR_ITEM_FAILED.rawValue): return "the item failed to load; see its status"
        case Int32(truncatingIfNeeded: FPX_ERROR_NOT_FOUND.rawValue): return "missing file, HTTP 404, unknown listener id"
        case Int32(truncatingIfNeeded: FPX_ERROR_IO.rawValue): return "I/O error: read error, connection reset"
        case Int32(truncatingIfNeeded: FPX_ERROR_TIMEOUT.rawValue): return "timed out: the player's I/O timeout, or the call's own time limit (timeout_ms), expired"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_DATA.rawValue): return "corrupt, truncated or unrecognised media"
        case Int32(truncatingIfNeeded: FPX_ERROR_UNSUPPORTED.rawValue): return "a protocol or feature this build cannot do, or a local path that is no regular file (a directory, FIFO, device, socket)"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_STREAM.rawValue): return "no audio or video stream to seek on"
        case Int32(truncatingIfNeeded: FPX_ERROR_EOF.rawValue): return "end of the item's packets"
        case Int32(truncatingIfNeeded: FPX_ERROR_CANCELLED.rawValue): return "cancelled: the item was closed or replaced, or the player destroyed"
        case Int32(truncatingIfNeeded: FPX_ERROR_IN_CALLBACK.rawValue): return "not callable from inside a callback"
        case Int32(truncatingIfNeeded: FPX_ERROR_WRONG_MODE.rawValue): return "not available in this delivery mode (e.g. dispatch on a FPX_DELIVERY_THREAD player)"
        case Int32(truncatingIfNeeded: FPX_ERROR_NETWORK.rawValue): return "connection refused, unreachable host"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_SEEK_MANAGER.rawValue): return "the operation needs fpx_player_setup_seek_manager"
        case Int32(truncatingIfNeeded: FPX_ERROR_INTERNAL.rawValue): return "internal error: a bug, please report it"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_STATE.rawValue): return "invalid state (e.g. fpx_scrub_update without fpx_scrub_begin)"
        case Int32(truncatingIfNeeded: FPX_ERROR_EXPIRED.rawValue): return "the live segment being read left the playlist window"
        case Int32(truncatingIfNeeded: FPX_ERROR_STALLED.rawValue): return "a live playlist stopped updating"
        case Int32(truncatingIfNeeded: FPX_ERROR_PROTOCOL_NOT_ALLOWED.rawValue): return "refused by the protocol policy (see \"Untrusted media\")"
        case Int32(truncatingIfNeeded: FPX_ERROR_INTERRUPTED.rawValue): return "a blocked read stopped by a seek, cancel, close or destroy"
        case Int32(truncatingIfNeeded: FPX_ERROR_TOO_LARGE.rawValue): return "media exceeds the player's buffer cap (max_buffer_bytes)"
        case Int32(truncatingIfNeeded: FPX_ERROR_FFMPEG_MISMATCH.rawValue): return "loaded FFmpeg majors differ from the build's; see \"FFmpeg ABI\""
        case Int32(truncatingIfNeeded: FPX_ERROR_REFERENCE_STREAM.rawValue): return "the reference stream cannot be disabled"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_FILE_DESCRIPTORS.rawValue): return "the process (EMFILE) or system (ENFILE) is out of file descriptors"
        case Int32(truncatingIfNeeded: FPX_ERROR_ENCRYPTION.rawValue): return "HLS encryption that cannot be applied: an EXT-X-KEY METHOD other than NONE or AES-128 (SAMPLE-AES...), a KEYFORMAT other than identity, a key that cannot be fetched or is not 16 bytes, or a segment that does not decrypt; a DASH MPD with ContentProtection (added in 0.4.0)"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_PREVIEW.rawValue): return "the player has no preview source: show a timestamp-only preview (added in 0.4.0)"
        case Int32(truncatingIfNeeded: FPX_ERROR_PREVIEW_MALFORMED.rawValue): return "a preview source (spritesheet.json, WebVTT track) with a field that does not parse; fpx_player_set_preview_source names the field (added in 0.4.0)"
        default: return "unknown error"
        }
    }

    /// fpx_error_name: the header's name of each code; "FPX_UNKNOWN" for others.
    static func errorName(_ code: Int32) -> StaticString {
        switch code {
        case Int32(truncatingIfNeeded: FPX_OK.rawValue): return "FPX_OK"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_HANDLE.rawValue): return "FPX_ERROR_INVALID_HANDLE"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_ARGUMENT.rawValue): return "FPX_ERROR_INVALID_ARGUMENT"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_TIME.rawValue): return "FPX_ERROR_INVALID_TIME"
        case Int32(truncatingIfNeeded: FPX_ERROR_UNKNOWN_ENUM.rawValue): return "FPX_ERROR_UNKNOWN_ENUM"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_MEMORY.rawValue): return "FPX_ERROR_NO_MEMORY"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_ITEM.rawValue): return "FPX_ERROR_NO_ITEM"
        case Int32(truncatingIfNeeded: FPX_ERROR_ITEM_NOT_READY.rawValue): return "FPX_ERROR_ITEM_NOT_READY"
        case Int32(truncatingIfNeeded: FPX_ERROR_ITEM_FAILED.rawValue): return "FPX_ERROR_ITEM_FAILED"
        case Int32(truncatingIfNeeded: FPX_ERROR_NOT_FOUND.rawValue): return "FPX_ERROR_NOT_FOUND"
        case Int32(truncatingIfNeeded: FPX_ERROR_IO.rawValue): return "FPX_ERROR_IO"
        case Int32(truncatingIfNeeded: FPX_ERROR_TIMEOUT.rawValue): return "FPX_ERROR_TIMEOUT"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_DATA.rawValue): return "FPX_ERROR_INVALID_DATA"
        case Int32(truncatingIfNeeded: FPX_ERROR_UNSUPPORTED.rawValue): return "FPX_ERROR_UNSUPPORTED"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_STREAM.rawValue): return "FPX_ERROR_NO_STREAM"
        case Int32(truncatingIfNeeded: FPX_ERROR_EOF.rawValue): return "FPX_ERROR_EOF"
        case Int32(truncatingIfNeeded: FPX_ERROR_CANCELLED.rawValue): return "FPX_ERROR_CANCELLED"
        case Int32(truncatingIfNeeded: FPX_ERROR_IN_CALLBACK.rawValue): return "FPX_ERROR_IN_CALLBACK"
        case Int32(truncatingIfNeeded: FPX_ERROR_WRONG_MODE.rawValue): return "FPX_ERROR_WRONG_MODE"
        case Int32(truncatingIfNeeded: FPX_ERROR_NETWORK.rawValue): return "FPX_ERROR_NETWORK"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_SEEK_MANAGER.rawValue): return "FPX_ERROR_NO_SEEK_MANAGER"
        case Int32(truncatingIfNeeded: FPX_ERROR_INTERNAL.rawValue): return "FPX_ERROR_INTERNAL"
        case Int32(truncatingIfNeeded: FPX_ERROR_INVALID_STATE.rawValue): return "FPX_ERROR_INVALID_STATE"
        case Int32(truncatingIfNeeded: FPX_ERROR_EXPIRED.rawValue): return "FPX_ERROR_EXPIRED"
        case Int32(truncatingIfNeeded: FPX_ERROR_STALLED.rawValue): return "FPX_ERROR_STALLED"
        case Int32(truncatingIfNeeded: FPX_ERROR_PROTOCOL_NOT_ALLOWED.rawValue): return "FPX_ERROR_PROTOCOL_NOT_ALLOWED"
        case Int32(truncatingIfNeeded: FPX_ERROR_INTERRUPTED.rawValue): return "FPX_ERROR_INTERRUPTED"
        case Int32(truncatingIfNeeded: FPX_ERROR_TOO_LARGE.rawValue): return "FPX_ERROR_TOO_LARGE"
        case Int32(truncatingIfNeeded: FPX_ERROR_FFMPEG_MISMATCH.rawValue): return "FPX_ERROR_FFMPEG_MISMATCH"
        case Int32(truncatingIfNeeded: FPX_ERROR_REFERENCE_STREAM.rawValue): return "FPX_ERROR_REFERENCE_STREAM"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_FILE_DESCRIPTORS.rawValue): return "FPX_ERROR_NO_FILE_DESCRIPTORS"
        case Int32(truncatingIfNeeded: FPX_ERROR_ENCRYPTION.rawValue): return "FPX_ERROR_ENCRYPTION"
        case Int32(truncatingIfNeeded: FPX_ERROR_NO_PREVIEW.rawValue): return "FPX_ERROR_NO_PREVIEW"
        case Int32(truncatingIfNeeded: FPX_ERROR_PREVIEW_MALFORMED.rawValue): return "FPX_ERROR_PREVIEW_MALFORMED"
        default: return "FPX_UNKNOWN"
        }
    }

    /// fpx_finish_reason_name: the header's names of fpx_finish_reason; "FPX_UNKNOWN" for others.
    static func finishReasonName(_ value: Int32) -> StaticString {
        switch value {
        case Int32(truncatingIfNeeded: FPX_FINISH_COMPLETED.rawValue): return "FPX_FINISH_COMPLETED"
        case Int32(truncatingIfNeeded: FPX_FINISH_CANCELLED.rawValue): return "FPX_FINISH_CANCELLED"
        case Int32(truncatingIfNeeded: FPX_FINISH_SUPERSEDED.rawValue): return "FPX_FINISH_SUPERSEDED"
        case Int32(truncatingIfNeeded: FPX_FINISH_NO_SEEK_MANAGER.rawValue): return "FPX_FINISH_NO_SEEK_MANAGER"
        case Int32(truncatingIfNeeded: FPX_FINISH_FAILED.rawValue): return "FPX_FINISH_FAILED"
        default: return "FPX_UNKNOWN"
        }
    }

    /// fpx_clamp_kind_name: the header's names of fpx_clamp_kind; "FPX_UNKNOWN" for others.
    static func clampKindName(_ value: Int32) -> StaticString {
        switch value {
        case Int32(truncatingIfNeeded: FPX_CLAMP_NONE.rawValue): return "FPX_CLAMP_NONE"
        case Int32(truncatingIfNeeded: FPX_CLAMP_TO_SEEKABLE_START.rawValue): return "FPX_CLAMP_TO_SEEKABLE_START"
        case Int32(truncatingIfNeeded: FPX_CLAMP_TO_SEEKABLE_END.rawValue): return "FPX_CLAMP_TO_SEEKABLE_END"
        case Int32(truncatingIfNeeded: FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN.rawValue): return "FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN"
        default: return "FPX_UNKNOWN"
        }
    }

    /// fpx_landing_resolution_name: the header's names of fpx_landing_resolution; "FPX_UNKNOWN" for others.
    static func landingResolutionName(_ value: Int32) -> StaticString {
        switch value {
        case Int32(truncatingIfNeeded: FPX_LANDING_NONE.rawValue): return "FPX_LANDING_NONE"
        case Int32(truncatingIfNeeded: FPX_LANDING_COVERING_FRAME.rawValue): return "FPX_LANDING_COVERING_FRAME"
        case Int32(truncatingIfNeeded: FPX_LANDING_KEYFRAME.rawValue): return "FPX_LANDING_KEYFRAME"
        case Int32(truncatingIfNeeded: FPX_LANDING_FALLBACK_COVERING_FRAME.rawValue): return "FPX_LANDING_FALLBACK_COVERING_FRAME"
        default: return "FPX_UNKNOWN"
        }
    }

    /// fpx_item_status_name: the header's names of fpx_item_status; "FPX_UNKNOWN" for others.
    static func itemStatusName(_ value: Int32) -> StaticString {
        switch value {
        case Int32(truncatingIfNeeded: FPX_ITEM_NONE.rawValue): return "FPX_ITEM_NONE"
        case Int32(truncatingIfNeeded: FPX_ITEM_LOADING.rawValue): return "FPX_ITEM_LOADING"
        case Int32(truncatingIfNeeded: FPX_ITEM_READY.rawValue): return "FPX_ITEM_READY"
        case Int32(truncatingIfNeeded: FPX_ITEM_FAILED.rawValue): return "FPX_ITEM_FAILED"
        default: return "FPX_UNKNOWN"
        }
    }
}

/// Every function of the header, for the calls that need to know which one they are
/// (withPlayer, withScrub). `isCallbackSafe` is the header's "Callback-safe:" line.
enum CFunction: String, CaseIterable, Sendable {
    case fpx_version
    case fpx_version_string
    case fpx_ffmpeg_versions
    case fpx_error_string
    case fpx_error_name
    case fpx_set_log_callback
    case fpx_time_make
    case fpx_time_invalid
    case fpx_time_infinity
    case fpx_time_from_seconds
    case fpx_time_to_seconds
    case fpx_time_is_valid
    case fpx_time_is_numeric
    case fpx_time_compare
    case fpx_time_subtract
    case fpx_precision_exact
    case fpx_precision_nearest_keyframe
    case fpx_precision_default
    case fpx_precision_at_or_after
    case fpx_listener_init
    case fpx_player_config_init
    case fpx_player_config_init_size
    case fpx_player_create
    case fpx_player_destroy
    case fpx_player_open
    case fpx_player_close_item
    case fpx_player_item_status
    case fpx_player_wait_item
    case fpx_player_item_info
    case fpx_player_stream_info
    case fpx_player_seekable_range
    case fpx_player_setup_seek_manager
    case fpx_player_seek
    case fpx_player_seek_wait
    case fpx_player_cancel_pending_seeks
    case fpx_player_add_listener
    case fpx_player_remove_listener
    case fpx_player_dispatch_events
    case fpx_player_event_fd
    case fpx_player_read_packet
    case fpx_player_stats_get
    case fpx_player_set_stream_enabled
    case fpx_player_set_continuation
    case fpx_player_report_decoded
    case fpx_player_unread_packets
    case fpx_player_scrub_session
    case fpx_scrub_begin
    case fpx_scrub_update
    case fpx_scrub_end
    case fpx_scrub_cancel
    case fpx_scrub_get_state
    case fpx_scrub_set_position_throttle
    case fpx_scrub_get_position_throttle
    case fpx_player_step_frame
    case fpx_frame_step_reason_explanation
    case fpx_player_current_time
    case fpx_player_live_seek_window
    case fpx_player_seek_to_live_edge
    case fpx_player_seek_to_date
    case fpx_date_seek_reason_explanation
    case fpx_player_hls_variant_count
    case fpx_player_hls_variant
    case fpx_player_hls_rendition_count
    case fpx_player_hls_rendition
    case fpx_player_hls_select_audio
    case fpx_player_hls_select_variant
    case fpx_player_set_preview_source
    case fpx_player_preview
    case fpx_finish_reason_name
    case fpx_clamp_kind_name
    case fpx_landing_resolution_name
    case fpx_item_status_name

    var isCallbackSafe: Bool {
        switch self {
        case .fpx_version,
             .fpx_version_string,
             .fpx_ffmpeg_versions,
             .fpx_error_string,
             .fpx_error_name,
             .fpx_set_log_callback,
             .fpx_time_make,
             .fpx_time_invalid,
             .fpx_time_infinity,
             .fpx_time_from_seconds,
             .fpx_time_to_seconds,
             .fpx_time_is_valid,
             .fpx_time_is_numeric,
             .fpx_time_compare,
             .fpx_time_subtract,
             .fpx_precision_exact,
             .fpx_precision_nearest_keyframe,
             .fpx_precision_default,
             .fpx_precision_at_or_after,
             .fpx_listener_init,
             .fpx_player_config_init,
             .fpx_player_config_init_size,
             .fpx_player_create,
             .fpx_player_destroy,
             .fpx_player_open,
             .fpx_player_close_item,
             .fpx_player_item_status,
             .fpx_player_item_info,
             .fpx_player_stream_info,
             .fpx_player_setup_seek_manager,
             .fpx_player_seek,
             .fpx_player_cancel_pending_seeks,
             .fpx_player_add_listener,
             .fpx_player_remove_listener,
             .fpx_player_event_fd,
             .fpx_player_stats_get,
             .fpx_player_scrub_session,
             .fpx_scrub_begin,
             .fpx_scrub_update,
             .fpx_scrub_end,
             .fpx_scrub_cancel,
             .fpx_scrub_get_state,
             .fpx_scrub_set_position_throttle,
             .fpx_scrub_get_position_throttle,
             .fpx_frame_step_reason_explanation,
             .fpx_player_live_seek_window,
             .fpx_player_seek_to_live_edge,
             .fpx_player_seek_to_date,
             .fpx_date_seek_reason_explanation,
             .fpx_player_hls_variant_count,
             .fpx_player_hls_variant,
             .fpx_player_hls_rendition_count,
             .fpx_player_hls_rendition,
             .fpx_player_hls_select_audio,
             .fpx_player_hls_select_variant,
             .fpx_finish_reason_name,
             .fpx_clamp_kind_name,
             .fpx_landing_resolution_name,
             .fpx_item_status_name:
            return true
        case .fpx_player_wait_item,
             .fpx_player_seekable_range,
             .fpx_player_seek_wait,
             .fpx_player_dispatch_events,
             .fpx_player_read_packet,
             .fpx_player_set_stream_enabled,
             .fpx_player_set_continuation,
             .fpx_player_report_decoded,
             .fpx_player_unread_packets,
             .fpx_player_step_frame,
             .fpx_player_current_time,
             .fpx_player_set_preview_source,
             .fpx_player_preview:
            return false
        }
    }
}
