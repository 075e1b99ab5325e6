// Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit.
//
// The header's enums as the core's Swift types (the core cannot import the header):
// the same values, the same order, the header's documentation; and its object-like
// macros as constants (flags UInt32, FPX_NOPTS Int64, the rest Int32).

/// The header's object-like macros, by their C names.
public enum ABIConstants {
    public static let FPX_LOG_DEBUG: Int32 = 48
    public static let FPX_LOG_ERROR: Int32 = 16
    public static let FPX_LOG_INFO: Int32 = 32
    public static let FPX_LOG_KEEP_FFMPEG_CALLBACK: Int32 = 65536
    public static let FPX_LOG_QUIET: Int32 = -8
    public static let FPX_LOG_TRACE: Int32 = 56
    public static let FPX_LOG_VERBOSE: Int32 = 40
    public static let FPX_LOG_WARNING: Int32 = 24
    public static let FPX_NOPTS: Int64 = Int64.min
    public static let FPX_PACKET_FLAG_CORRUPT: UInt32 = 0x2
    public static let FPX_PACKET_FLAG_DECODE_ONLY: UInt32 = 0x100
    public static let FPX_PACKET_FLAG_DISCARD: UInt32 = 0x4
    public static let FPX_PACKET_FLAG_DISCONTINUITY: UInt32 = 0x200
    public static let FPX_PACKET_FLAG_DISPOSABLE: UInt32 = 0x400
    public static let FPX_PACKET_FLAG_KEY: UInt32 = 0x1
    public static let FPX_PREVIEW_MAX_IMAGE_SIDE: Int32 = 16384
    public static let FPX_PREVIEW_MAX_SOURCE_BYTES: Int32 = 1048576
    public static let FPX_PREVIEW_MAX_TILES: Int32 = 100000
    public static let FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS: Int32 = 100
    public static let FPX_TIME_FLAG_NEGATIVE_INFINITY: UInt32 = 0x4
    public static let FPX_TIME_FLAG_POSITIVE_INFINITY: UInt32 = 0x2
    public static let FPX_TIME_FLAG_VALID: UInt32 = 0x1
    public static let FPX_VERSION: Int32 = 1024
    public static let FPX_VERSION_MAJOR: Int32 = 0
    public static let FPX_VERSION_MINOR: Int32 = 4
    public static let FPX_VERSION_PATCH: Int32 = 0
}

/// The C type is `fpx_finish_reason`.
public enum FinishReason: Int32, CaseIterable, Sendable {
    /// landed; finished = 1
    case completed = 0
    /// fpx_player_cancel_pending_seeks, close, replace or destroy
    case cancelled = 1
    /// a newer seek on the same player overtook it
    case superseded = 2
    /// fpx_player_setup_seek_manager was not called
    case noSeekManager = 3
    /// I/O or media error: see fpx_seek_outcome.error
    case failed = 4
}

/// The C type is `fpx_landing_resolution`.
public enum LandingResolution: Int32, CaseIterable, Sendable {
    /// the seek did not land
    case none = 0
    /// exact: the frame covering the target
    case coveringFrame = 1
    /// keyframe inside the tolerance window
    case keyframe = 2
    /// no keyframe in the window: exact landing
    case fallbackCoveringFrame = 3
}

/// The C type is `fpx_scrub_state`.
public enum ScrubState: Int32, CaseIterable, Sendable {
    /// no gesture in progress
    case idle = 0
    /// receiving samples; no seek issued
    case scrubbing = 1
    /// the one coalesced seek is in flight
    case settling = 2
}

/// The C type is `fpx_frame_step_direction`.
public enum FrameStepDirection: Int32, CaseIterable, Sendable {
    case forward = 0
    case backward = 1
}

/// The C type is `fpx_item_status`.
public enum ItemStatus: Int32, CaseIterable, Sendable {
    /// nothing attached
    case none = 0
    case loading = 1
    case ready = 2
    case failed = 3
}

/// The C type is `fpx_media_type`.
public enum MediaType: Int32, CaseIterable, Sendable {
    case unknown = 0
    case video = 1
    case audio = 2
    case subtitle = 3
    case data = 4
}

/// The C type is `fpx_index_mode`.
public enum IndexMode: Int32, CaseIterable, Sendable {
    case off = 0
    case keyframes = 1
    case full = 2
}

/// The C type is `fpx_clamp_kind` (its values).
public enum ClampKindCode: Int32, CaseIterable, Sendable {
    /// the target was inside the range
    case none = 0
    /// before the start: moved to the first frame
    case toSeekableStart = 1
    /// past the end: moved to the last frame
    case toSeekableEnd = 2
    /// no range known; the target was not moved
    case seekableRangeUnknown = 3
}

/// The C type is `fpx_frame_step_unavailable_reason` (its values).
public enum FrameStepUnavailableReasonCode: Int32, CaseIterable, Sendable {
    /// the step happened
    case ok = 0
    case noCurrentItem = 1
    case itemNotReady = 2
    /// permanent for this item
    case noVideoTrack = 3
    case atLiveEdge = 4
    case cannotStepInDirection = 5
}

/// The C type is `fpx_date_seek_unavailable_reason` (its values).
public enum DateSeekUnavailableReasonCode: Int32, CaseIterable, Sendable {
    case ok = 0
    case noCurrentItem = 1
    /// No EXT-X-PROGRAM-DATE-TIME: the library never invents dates; seek by time instead.
    case notDateAddressable = 2
    /// Reported, not clamped: the requested date and the window's dates are in the result.
    case outsideWindow = 3
}

/// The C type is `fpx_hole_reason`.
public enum HoleReason: Int32, CaseIterable, Sendable {
    /// no hole
    case none = 0
    /// EXT-X-GAP: the segment has no media and is not fetched
    case gap = 1
    /// the segment failed twice (404, 5xx, missing file)
    case failed = 2
}

/// The C type is `fpx_preview_kind`.
public enum PreviewKind: Int32, CaseIterable, Sendable {
    /// no preview source
    case none = 0
    /// a spritesheet.json (file or URL)
    case spritesheet = 1
    /// a WebVTT thumbnail track (file or URL)
    case webvtt = 2
    /// the item's keyframes, read by the preview's own demuxer
    case keyframeIndex = 3
    /// an HLS I-frame playlist (EXT-X-I-FRAMES-ONLY), read by the preview's own demuxer
    case hlsIframes = 4
}

/// The C type is `fpx_preview_field`.
public enum PreviewField: Int32, CaseIterable, Sendable {
    /// no field: the source is fine, or the error is not about one
    case none = 0
    /// not UTF-8 JSON whose top is an object (nested at most 32 deep); a WebVTT track without its
    /// WEBVTT line
    case syntax = 1
    /// "url" missing, not a non-empty string, or refused by the protocol policy
    case url = 2
    /// "tile_width" missing or not an integer in 1..16384
    case tileWidth = 3
    /// "tile_height" missing or not an integer in 1..16384
    case tileHeight = 4
    /// "duration" missing or not a number in 0..1e9 seconds
    case duration = 5
    /// "tiles" missing, not an array of objects, empty, or more than FPX_PREVIEW_MAX_TILES (a
    /// track: no cue, or more than that many)
    case tiles = 6
    /// a tile's "start" missing or not a number in 0..1e9 seconds
    case tileStart = 7
    /// a tile's "x" missing, not an integer, negative, or x + tile_width past
    /// FPX_PREVIEW_MAX_IMAGE_SIDE
    case tileX = 8
    /// a tile's "y" missing, not an integer, negative, or y + tile_height past
    /// FPX_PREVIEW_MAX_IMAGE_SIDE
    case tileY = 9
    /// a tile's "url" not a non-empty string, or refused by the protocol policy
    case tileUrl = 10
    /// a cue's timing line that does not parse ([hh:]mm:ss.ttt --> [hh:]mm:ss.ttt), or ends before
    /// it starts
    case cueTiming = 11
    /// a cue's payload not IMAGE#xywh=[pixel:]x,y,w,h with integers (w, h 1..16384, the rectangle
    /// within FPX_PREVIEW_MAX_IMAGE_SIDE), or its image refused by the protocol policy
    case cueXywh = 12
}
