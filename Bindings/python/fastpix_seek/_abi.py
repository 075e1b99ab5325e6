# Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit.
"""The header's constants, enums and flags (Include/fastpix/seek.h), for the binding.

Values and documentation come from the header itself; see tools/abi_gen.py.
"""

from __future__ import annotations

import enum
from typing import Dict, Tuple

# ---- macros ----------------------------------------------------------------------

FPX_LOG_DEBUG = 48
FPX_LOG_ERROR = 16
FPX_LOG_INFO = 32
FPX_LOG_KEEP_FFMPEG_CALLBACK = 65536
FPX_LOG_QUIET = -8
FPX_LOG_TRACE = 56
FPX_LOG_VERBOSE = 40
FPX_LOG_WARNING = 24
FPX_NOPTS = -9223372036854775808
FPX_PACKET_FLAG_CORRUPT = 0x2
FPX_PACKET_FLAG_DECODE_ONLY = 0x100
FPX_PACKET_FLAG_DISCARD = 0x4
FPX_PACKET_FLAG_DISCONTINUITY = 0x200
FPX_PACKET_FLAG_DISPOSABLE = 0x400
FPX_PACKET_FLAG_KEY = 0x1
FPX_PREVIEW_MAX_IMAGE_SIDE = 16384
FPX_PREVIEW_MAX_SOURCE_BYTES = 1048576
FPX_PREVIEW_MAX_TILES = 100000
FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS = 100
FPX_TIME_FLAG_NEGATIVE_INFINITY = 0x4
FPX_TIME_FLAG_POSITIVE_INFINITY = 0x2
FPX_TIME_FLAG_VALID = 0x1
FPX_VERSION = 1024
FPX_VERSION_MAJOR = 0
FPX_VERSION_MINOR = 4
FPX_VERSION_PATCH = 0

# ---- flags -----------------------------------------------------------------------


class PacketFlag(enum.IntFlag):
    """The header's FPX_PACKET_FLAG_* bits."""
    KEY = 0x1
    CORRUPT = 0x2
    DISCARD = 0x4
    DECODE_ONLY = 0x100
    DISCONTINUITY = 0x200
    DISPOSABLE = 0x400


class TimeFlag(enum.IntFlag):
    """The header's FPX_TIME_FLAG_* bits."""
    VALID = 0x1
    POSITIVE_INFINITY = 0x2
    NEGATIVE_INFINITY = 0x4


# ---- enums -----------------------------------------------------------------------


class PrecisionKind(enum.IntEnum):
    """``fpx_precision_kind`` (seek.h)."""
    #: Zero tolerance. Lands on the frame whose presentation interval holds the target, and
    #: reports whether it does (frame_covers_target).
    EXACT = 0
    #: The keyframe nearest the target inside [target - tol, target + tol] (exact rationals: the
    #: tolerance is never rounded to stream ticks; ties go to the earlier keyframe). Found from
    #: the container's own keyframe index when it has a complete one (MP4 sample table,
    #: libavformat-written Matroska cues: a few packets, not a GOP), else from a keyframe scan.
    #: When no keyframe is inside the window, the seek falls back to the exact landing and says
    #: so (FPX_LANDING_FALLBACK_COVERING_FRAME).
    NEAREST_KEYFRAME = 1
    #: Exactly FPX_PRECISION_NEAREST_KEYFRAME with tolerance 1/10 s. Outcomes report it in that
    #: normalized form.
    DEFAULT = 2
    #: The first frame at or after the target (smallest pts >= target), what `ffmpeg -ss t` and
    #: decode-and-skip return ("Conventions" in section 2). Outcomes report this kind;
    #: resolution FPX_LANDING_COVERING_FRAME (a landing on the frame grid, as exact);
    #: frame_covers_target 1 when the frame starts exactly at the (clamped) target;
    #: tolerance_before 0 and tolerance_after +infinity, so within_requested_tolerance is landed
    #: >= requested. The tolerance member is ignored. Files and HLS items. Added in 0.4.0.
    AT_OR_AFTER = 3


class FinishReason(enum.IntEnum):
    """``fpx_finish_reason`` (seek.h)."""
    #: landed; finished = 1
    COMPLETED = 0
    #: fpx_player_cancel_pending_seeks, close, replace or destroy
    CANCELLED = 1
    #: a newer seek on the same player overtook it
    SUPERSEDED = 2
    #: fpx_player_setup_seek_manager was not called
    NO_SEEK_MANAGER = 3
    #: I/O or media error: see fpx_seek_outcome.error
    FAILED = 4


class ClampKind(enum.IntEnum):
    """``fpx_clamp_kind`` (seek.h)."""
    #: the target was inside the range
    NONE = 0
    #: before the start: moved to the first frame
    TO_SEEKABLE_START = 1
    #: past the end: moved to the last frame
    TO_SEEKABLE_END = 2
    #: no range known; the target was not moved
    SEEKABLE_RANGE_UNKNOWN = 3


class LandingResolution(enum.IntEnum):
    """``fpx_landing_resolution`` (seek.h)."""
    #: the seek did not land
    NONE = 0
    #: exact: the frame covering the target
    COVERING_FRAME = 1
    #: keyframe inside the tolerance window
    KEYFRAME = 2
    #: no keyframe in the window: exact landing
    FALLBACK_COVERING_FRAME = 3


class HoleReason(enum.IntEnum):
    """``fpx_hole_reason``: HLS holes: segments that are never read. A hole is an EXT-X-GAP segment
    (never fetched) or a segment whose download failed twice in a row (HTTP 404 or 5xx, or a
    missing file; it is retried once at once). See "Gaps" in "Live and DVR HLS". Added in 0.4.0.
    """
    #: no hole
    NONE = 0
    #: EXT-X-GAP: the segment has no media and is not fetched
    GAP = 1
    #: the segment failed twice (404, 5xx, missing file)
    FAILED = 2


class ScrubState(enum.IntEnum):
    """``fpx_scrub_state`` (seek.h)."""
    #: no gesture in progress
    IDLE = 0
    #: receiving samples; no seek issued
    SCRUBBING = 1
    #: the one coalesced seek is in flight
    SETTLING = 2


class FrameStepDirection(enum.IntEnum):
    """``fpx_frame_step_direction`` (seek.h)."""
    FORWARD = 0
    BACKWARD = 1


class FrameStepUnavailableReason(enum.IntEnum):
    """``fpx_frame_step_unavailable_reason`` (seek.h)."""
    #: the step happened
    OK = 0
    NO_CURRENT_ITEM = 1
    ITEM_NOT_READY = 2
    #: permanent for this item
    NO_VIDEO_TRACK = 3
    AT_LIVE_EDGE = 4
    CANNOT_STEP_IN_DIRECTION = 5


class ItemStatus(enum.IntEnum):
    """``fpx_item_status`` (seek.h)."""
    #: nothing attached
    NONE = 0
    LOADING = 1
    READY = 2
    FAILED = 3


class MediaType(enum.IntEnum):
    """``fpx_media_type`` (seek.h)."""
    UNKNOWN = 0
    VIDEO = 1
    AUDIO = 2
    SUBTITLE = 3
    DATA = 4


class DeliveryMode(enum.IntEnum):
    """``fpx_delivery_mode`` (seek.h)."""
    #: a library thread per player runs callbacks
    THREAD = 0
    #: the host runs them with fpx_player_dispatch_events
    HOST = 1


class IndexMode(enum.IntEnum):
    """``fpx_index_mode``: How much of an item's frame grid the player learns besides what seeks
    read (fpx_player_config.index_mode). Landings are the same in every mode; only their cost
    differs.

    FPX_INDEX_OFF The container's keyframe index is never used: every landing the frame grid
    does not know yet is found by reading the packets around it (the scan), for nearest-keyframe
    seeks too. No extra I/O. FPX_INDEX_KEYFRAMES The default: nearest-keyframe seeks use the
    container's keyframe index when it is known to be complete (MP4 sample tables,
    libavformat-written Matroska cues). No extra I/O. FPX_INDEX_FULL As KEYFRAMES, and once the
    item is READY a second demux context of the same URL (same protocol policy and
    io_timeout_ms) on its own thread (named "fpx-index", at nice +10 so that it yields the CPU
    to the host and the player's worker) reads the reference stream's packets from start to end
    (other streams discarded in the demuxer) and adds them to the frame grid, so later seeks
    anywhere in the item resolve from memory instead of scanning (decided inside
    fpx_player_seek, packets_read 0; the demuxer is positioned at the landing's keyframe by the
    next read). It reads the whole file once: its packets count in packets_demuxed and
    bytes_read. Progress: fpx_player_stats.index_frames and index_complete; on_index_complete
    says when it is done. A seek never waits for it (the grid is updated in batches of whole
    GOPs, at least 64 frames, each under the player's engine lock only for the time of an
    insert, never during I/O); close_item, open and destroy stop it within 100 ms. Memory: 8
    bytes per frame plus 32 per keyframe in the grid, capped at 4194304 frames (32 MiB; past the
    cap the grid is cleared and seeks scan again). HLS items and an index that fails (an I/O
    error, a timeout) fall back to KEYFRAMES behaviour silently: seeks still land, by the scan
    where the grid has no answer, and index_complete stays 0.
    """
    OFF = 0
    KEYFRAMES = 1
    FULL = 2


class DateSeekUnavailableReason(enum.IntEnum):
    """``fpx_date_seek_unavailable_reason`` (seek.h)."""
    OK = 0
    NO_CURRENT_ITEM = 1
    #: No EXT-X-PROGRAM-DATE-TIME: the library never invents dates; seek by time instead.
    NOT_DATE_ADDRESSABLE = 2
    #: Reported, not clamped: the requested date and the window's dates are in the result.
    OUTSIDE_WINDOW = 3


class PreviewKind(enum.IntEnum):
    """``fpx_preview_kind``: Where a player's previews come from."""
    #: no preview source
    NONE = 0
    #: a spritesheet.json (file or URL)
    SPRITESHEET = 1
    #: a WebVTT thumbnail track (file or URL)
    WEBVTT = 2
    #: the item's keyframes, read by the preview's own demuxer
    KEYFRAME_INDEX = 3
    #: an HLS I-frame playlist (EXT-X-I-FRAMES-ONLY), read by the preview's own demuxer
    HLS_IFRAMES = 4


class PreviewField(enum.IntEnum):
    """``fpx_preview_field``: The field of a preview source that is malformed
    (FPX_ERROR_PREVIEW_MALFORMED), or whose URL the protocol policy refused.
    """
    #: no field: the source is fine, or the error is not about one
    NONE = 0
    #: not UTF-8 JSON whose top is an object (nested at most 32 deep); a WebVTT track without
    #: its WEBVTT line
    SYNTAX = 1
    #: "url" missing, not a non-empty string, or refused by the protocol policy
    URL = 2
    #: "tile_width" missing or not an integer in 1..16384
    TILE_WIDTH = 3
    #: "tile_height" missing or not an integer in 1..16384
    TILE_HEIGHT = 4
    #: "duration" missing or not a number in 0..1e9 seconds
    DURATION = 5
    #: "tiles" missing, not an array of objects, empty, or more than FPX_PREVIEW_MAX_TILES (a
    #: track: no cue, or more than that many)
    TILES = 6
    #: a tile's "start" missing or not a number in 0..1e9 seconds
    TILE_START = 7
    #: a tile's "x" missing, not an integer, negative, or x + tile_width past
    #: FPX_PREVIEW_MAX_IMAGE_SIDE
    TILE_X = 8
    #: a tile's "y" missing, not an integer, negative, or y + tile_height past
    #: FPX_PREVIEW_MAX_IMAGE_SIDE
    TILE_Y = 9
    #: a tile's "url" not a non-empty string, or refused by the protocol policy
    TILE_URL = 10
    #: a cue's timing line that does not parse ([hh:]mm:ss.ttt --> [hh:]mm:ss.ttt), or ends
    #: before it starts
    CUE_TIMING = 11
    #: a cue's payload not IMAGE#xywh=[pixel:]x,y,w,h with integers (w, h 1..16384, the
    #: rectangle within FPX_PREVIEW_MAX_IMAGE_SIDE), or its image refused by the protocol policy
    CUE_XYWH = 12


# ---- errors ----------------------------------------------------------------------

#: fpx_error value -> (name, the header's message).
ERRORS: Dict[int, Tuple[str, str]] = {
    0: ('FPX_OK', 'success'),
    -1: ('FPX_ERROR_INVALID_HANDLE', 'invalid handle: NULL, destroyed or foreign'),
    -2: ('FPX_ERROR_INVALID_ARGUMENT', 'invalid argument: a NULL pointer or an out-of-range value'),
    -3: ('FPX_ERROR_INVALID_TIME', 'invalid time: NaN, infinite, invalid, timescale <= 0'),
    -4: ('FPX_ERROR_UNKNOWN_ENUM', 'an enum value this library does not know'),
    -5: ('FPX_ERROR_NO_MEMORY', 'out of memory'),
    -6: ('FPX_ERROR_NO_ITEM', 'nothing is attached to the player'),
    -7: ('FPX_ERROR_ITEM_NOT_READY', 'the item is still loading'),
    -8: ('FPX_ERROR_ITEM_FAILED', 'the item failed to load; see its status'),
    -9: ('FPX_ERROR_NOT_FOUND', 'missing file, HTTP 404, unknown listener id'),
    -10: ('FPX_ERROR_IO', 'I/O error: read error, connection reset'),
    -11: ('FPX_ERROR_TIMEOUT', "timed out: the player's I/O timeout, or the call's own time limit (timeout_ms), expired"),
    -12: ('FPX_ERROR_INVALID_DATA', 'corrupt, truncated or unrecognised media'),
    -13: ('FPX_ERROR_UNSUPPORTED', 'a protocol or feature this build cannot do, or a local path that is no regular file (a directory, FIFO, device, socket)'),
    -14: ('FPX_ERROR_NO_STREAM', 'no audio or video stream to seek on'),
    -15: ('FPX_ERROR_EOF', "end of the item's packets"),
    -16: ('FPX_ERROR_CANCELLED', 'cancelled: the item was closed or replaced, or the player destroyed'),
    -17: ('FPX_ERROR_IN_CALLBACK', 'not callable from inside a callback'),
    -18: ('FPX_ERROR_WRONG_MODE', 'not available in this delivery mode (e.g. dispatch on a FPX_DELIVERY_THREAD player)'),
    -19: ('FPX_ERROR_NETWORK', 'connection refused, unreachable host'),
    -20: ('FPX_ERROR_NO_SEEK_MANAGER', 'the operation needs fpx_player_setup_seek_manager'),
    -21: ('FPX_ERROR_INTERNAL', 'internal error: a bug, please report it'),
    -22: ('FPX_ERROR_INVALID_STATE', 'invalid state (e.g. fpx_scrub_update without fpx_scrub_begin)'),
    -23: ('FPX_ERROR_EXPIRED', 'the live segment being read left the playlist window'),
    -24: ('FPX_ERROR_STALLED', 'a live playlist stopped updating'),
    -25: ('FPX_ERROR_PROTOCOL_NOT_ALLOWED', 'refused by the protocol policy (see "Untrusted media")'),
    -26: ('FPX_ERROR_INTERRUPTED', 'a blocked read stopped by a seek, cancel, close or destroy'),
    -27: ('FPX_ERROR_TOO_LARGE', "media exceeds the player's buffer cap (max_buffer_bytes)"),
    -28: ('FPX_ERROR_FFMPEG_MISMATCH', 'loaded FFmpeg majors differ from the build\'s; see "FFmpeg ABI"'),
    -29: ('FPX_ERROR_REFERENCE_STREAM', 'the reference stream cannot be disabled'),
    -30: ('FPX_ERROR_NO_FILE_DESCRIPTORS', 'the process (EMFILE) or system (ENFILE) is out of file descriptors'),
    -31: ('FPX_ERROR_ENCRYPTION', 'HLS encryption that cannot be applied: an EXT-X-KEY METHOD other than NONE or AES-128 (SAMPLE-AES...), a KEYFORMAT other than identity, a key that cannot be fetched or is not 16 bytes, or a segment that does not decrypt; a DASH MPD with ContentProtection (added in 0.4.0)'),
    -32: ('FPX_ERROR_NO_PREVIEW', 'the player has no preview source: show a timestamp-only preview (added in 0.4.0)'),
    -33: ('FPX_ERROR_PREVIEW_MALFORMED', 'a preview source (spritesheet.json, WebVTT track) with a field that does not parse; fpx_player_set_preview_source names the field (added in 0.4.0)'),
}

# ---- enumerators as module constants (the raw C names) ----------------------------

FPX_OK = 0
FPX_ERROR_INVALID_HANDLE = -1
FPX_ERROR_INVALID_ARGUMENT = -2
FPX_ERROR_INVALID_TIME = -3
FPX_ERROR_UNKNOWN_ENUM = -4
FPX_ERROR_NO_MEMORY = -5
FPX_ERROR_NO_ITEM = -6
FPX_ERROR_ITEM_NOT_READY = -7
FPX_ERROR_ITEM_FAILED = -8
FPX_ERROR_NOT_FOUND = -9
FPX_ERROR_IO = -10
FPX_ERROR_TIMEOUT = -11
FPX_ERROR_INVALID_DATA = -12
FPX_ERROR_UNSUPPORTED = -13
FPX_ERROR_NO_STREAM = -14
FPX_ERROR_EOF = -15
FPX_ERROR_CANCELLED = -16
FPX_ERROR_IN_CALLBACK = -17
FPX_ERROR_WRONG_MODE = -18
FPX_ERROR_NETWORK = -19
FPX_ERROR_NO_SEEK_MANAGER = -20
FPX_ERROR_INTERNAL = -21
FPX_ERROR_INVALID_STATE = -22
FPX_ERROR_EXPIRED = -23
FPX_ERROR_STALLED = -24
FPX_ERROR_PROTOCOL_NOT_ALLOWED = -25
FPX_ERROR_INTERRUPTED = -26
FPX_ERROR_TOO_LARGE = -27
FPX_ERROR_FFMPEG_MISMATCH = -28
FPX_ERROR_REFERENCE_STREAM = -29
FPX_ERROR_NO_FILE_DESCRIPTORS = -30
FPX_ERROR_ENCRYPTION = -31
FPX_ERROR_NO_PREVIEW = -32
FPX_ERROR_PREVIEW_MALFORMED = -33
FPX_PRECISION_EXACT = 0
FPX_PRECISION_NEAREST_KEYFRAME = 1
FPX_PRECISION_DEFAULT = 2
FPX_PRECISION_AT_OR_AFTER = 3
FPX_FINISH_COMPLETED = 0
FPX_FINISH_CANCELLED = 1
FPX_FINISH_SUPERSEDED = 2
FPX_FINISH_NO_SEEK_MANAGER = 3
FPX_FINISH_FAILED = 4
FPX_CLAMP_NONE = 0
FPX_CLAMP_TO_SEEKABLE_START = 1
FPX_CLAMP_TO_SEEKABLE_END = 2
FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN = 3
FPX_LANDING_NONE = 0
FPX_LANDING_COVERING_FRAME = 1
FPX_LANDING_KEYFRAME = 2
FPX_LANDING_FALLBACK_COVERING_FRAME = 3
FPX_HOLE_NONE = 0
FPX_HOLE_GAP = 1
FPX_HOLE_FAILED = 2
FPX_SCRUB_IDLE = 0
FPX_SCRUB_SCRUBBING = 1
FPX_SCRUB_SETTLING = 2
FPX_STEP_FORWARD = 0
FPX_STEP_BACKWARD = 1
FPX_STEP_OK = 0
FPX_STEP_NO_CURRENT_ITEM = 1
FPX_STEP_ITEM_NOT_READY = 2
FPX_STEP_NO_VIDEO_TRACK = 3
FPX_STEP_AT_LIVE_EDGE = 4
FPX_STEP_CANNOT_STEP_IN_DIRECTION = 5
FPX_ITEM_NONE = 0
FPX_ITEM_LOADING = 1
FPX_ITEM_READY = 2
FPX_ITEM_FAILED = 3
FPX_MEDIA_UNKNOWN = 0
FPX_MEDIA_VIDEO = 1
FPX_MEDIA_AUDIO = 2
FPX_MEDIA_SUBTITLE = 3
FPX_MEDIA_DATA = 4
FPX_DELIVERY_THREAD = 0
FPX_DELIVERY_HOST = 1
FPX_INDEX_OFF = 0
FPX_INDEX_KEYFRAMES = 1
FPX_INDEX_FULL = 2
FPX_DATE_SEEK_OK = 0
FPX_DATE_SEEK_NO_CURRENT_ITEM = 1
FPX_DATE_SEEK_NOT_DATE_ADDRESSABLE = 2
FPX_DATE_SEEK_OUTSIDE_WINDOW = 3
FPX_PREVIEW_NONE = 0
FPX_PREVIEW_SPRITESHEET = 1
FPX_PREVIEW_WEBVTT = 2
FPX_PREVIEW_KEYFRAME_INDEX = 3
FPX_PREVIEW_HLS_IFRAMES = 4
FPX_PREVIEW_FIELD_NONE = 0
FPX_PREVIEW_FIELD_SYNTAX = 1
FPX_PREVIEW_FIELD_URL = 2
FPX_PREVIEW_FIELD_TILE_WIDTH = 3
FPX_PREVIEW_FIELD_TILE_HEIGHT = 4
FPX_PREVIEW_FIELD_DURATION = 5
FPX_PREVIEW_FIELD_TILES = 6
FPX_PREVIEW_FIELD_TILE_START = 7
FPX_PREVIEW_FIELD_TILE_X = 8
FPX_PREVIEW_FIELD_TILE_Y = 9
FPX_PREVIEW_FIELD_TILE_URL = 10
FPX_PREVIEW_FIELD_CUE_TIMING = 11
FPX_PREVIEW_FIELD_CUE_XYWH = 12

__all__ = [
    'FPX_LOG_DEBUG',
    'FPX_LOG_ERROR',
    'FPX_LOG_INFO',
    'FPX_LOG_KEEP_FFMPEG_CALLBACK',
    'FPX_LOG_QUIET',
    'FPX_LOG_TRACE',
    'FPX_LOG_VERBOSE',
    'FPX_LOG_WARNING',
    'FPX_NOPTS',
    'FPX_PACKET_FLAG_CORRUPT',
    'FPX_PACKET_FLAG_DECODE_ONLY',
    'FPX_PACKET_FLAG_DISCARD',
    'FPX_PACKET_FLAG_DISCONTINUITY',
    'FPX_PACKET_FLAG_DISPOSABLE',
    'FPX_PACKET_FLAG_KEY',
    'FPX_PREVIEW_MAX_IMAGE_SIDE',
    'FPX_PREVIEW_MAX_SOURCE_BYTES',
    'FPX_PREVIEW_MAX_TILES',
    'FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS',
    'FPX_TIME_FLAG_NEGATIVE_INFINITY',
    'FPX_TIME_FLAG_POSITIVE_INFINITY',
    'FPX_TIME_FLAG_VALID',
    'FPX_VERSION',
    'FPX_VERSION_MAJOR',
    'FPX_VERSION_MINOR',
    'FPX_VERSION_PATCH',
    'PacketFlag',
    'TimeFlag',
    'PrecisionKind',
    'FinishReason',
    'ClampKind',
    'LandingResolution',
    'HoleReason',
    'ScrubState',
    'FrameStepDirection',
    'FrameStepUnavailableReason',
    'ItemStatus',
    'MediaType',
    'DeliveryMode',
    'IndexMode',
    'DateSeekUnavailableReason',
    'PreviewKind',
    'PreviewField',
    'ERRORS',
    'FPX_OK',
    'FPX_ERROR_INVALID_HANDLE',
    'FPX_ERROR_INVALID_ARGUMENT',
    'FPX_ERROR_INVALID_TIME',
    'FPX_ERROR_UNKNOWN_ENUM',
    'FPX_ERROR_NO_MEMORY',
    'FPX_ERROR_NO_ITEM',
    'FPX_ERROR_ITEM_NOT_READY',
    'FPX_ERROR_ITEM_FAILED',
    'FPX_ERROR_NOT_FOUND',
    'FPX_ERROR_IO',
    'FPX_ERROR_TIMEOUT',
    'FPX_ERROR_INVALID_DATA',
    'FPX_ERROR_UNSUPPORTED',
    'FPX_ERROR_NO_STREAM',
    'FPX_ERROR_EOF',
    'FPX_ERROR_CANCELLED',
    'FPX_ERROR_IN_CALLBACK',
    'FPX_ERROR_WRONG_MODE',
    'FPX_ERROR_NETWORK',
    'FPX_ERROR_NO_SEEK_MANAGER',
    'FPX_ERROR_INTERNAL',
    'FPX_ERROR_INVALID_STATE',
    'FPX_ERROR_EXPIRED',
    'FPX_ERROR_STALLED',
    'FPX_ERROR_PROTOCOL_NOT_ALLOWED',
    'FPX_ERROR_INTERRUPTED',
    'FPX_ERROR_TOO_LARGE',
    'FPX_ERROR_FFMPEG_MISMATCH',
    'FPX_ERROR_REFERENCE_STREAM',
    'FPX_ERROR_NO_FILE_DESCRIPTORS',
    'FPX_ERROR_ENCRYPTION',
    'FPX_ERROR_NO_PREVIEW',
    'FPX_ERROR_PREVIEW_MALFORMED',
    'FPX_PRECISION_EXACT',
    'FPX_PRECISION_NEAREST_KEYFRAME',
    'FPX_PRECISION_DEFAULT',
    'FPX_PRECISION_AT_OR_AFTER',
    'FPX_FINISH_COMPLETED',
    'FPX_FINISH_CANCELLED',
    'FPX_FINISH_SUPERSEDED',
    'FPX_FINISH_NO_SEEK_MANAGER',
    'FPX_FINISH_FAILED',
    'FPX_CLAMP_NONE',
    'FPX_CLAMP_TO_SEEKABLE_START',
    'FPX_CLAMP_TO_SEEKABLE_END',
    'FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN',
    'FPX_LANDING_NONE',
    'FPX_LANDING_COVERING_FRAME',
    'FPX_LANDING_KEYFRAME',
    'FPX_LANDING_FALLBACK_COVERING_FRAME',
    'FPX_HOLE_NONE',
    'FPX_HOLE_GAP',
    'FPX_HOLE_FAILED',
    'FPX_SCRUB_IDLE',
    'FPX_SCRUB_SCRUBBING',
    'FPX_SCRUB_SETTLING',
    'FPX_STEP_FORWARD',
    'FPX_STEP_BACKWARD',
    'FPX_STEP_OK',
    'FPX_STEP_NO_CURRENT_ITEM',
    'FPX_STEP_ITEM_NOT_READY',
    'FPX_STEP_NO_VIDEO_TRACK',
    'FPX_STEP_AT_LIVE_EDGE',
    'FPX_STEP_CANNOT_STEP_IN_DIRECTION',
    'FPX_ITEM_NONE',
    'FPX_ITEM_LOADING',
    'FPX_ITEM_READY',
    'FPX_ITEM_FAILED',
    'FPX_MEDIA_UNKNOWN',
    'FPX_MEDIA_VIDEO',
    'FPX_MEDIA_AUDIO',
    'FPX_MEDIA_SUBTITLE',
    'FPX_MEDIA_DATA',
    'FPX_DELIVERY_THREAD',
    'FPX_DELIVERY_HOST',
    'FPX_INDEX_OFF',
    'FPX_INDEX_KEYFRAMES',
    'FPX_INDEX_FULL',
    'FPX_DATE_SEEK_OK',
    'FPX_DATE_SEEK_NO_CURRENT_ITEM',
    'FPX_DATE_SEEK_NOT_DATE_ADDRESSABLE',
    'FPX_DATE_SEEK_OUTSIDE_WINDOW',
    'FPX_PREVIEW_NONE',
    'FPX_PREVIEW_SPRITESHEET',
    'FPX_PREVIEW_WEBVTT',
    'FPX_PREVIEW_KEYFRAME_INDEX',
    'FPX_PREVIEW_HLS_IFRAMES',
    'FPX_PREVIEW_FIELD_NONE',
    'FPX_PREVIEW_FIELD_SYNTAX',
    'FPX_PREVIEW_FIELD_URL',
    'FPX_PREVIEW_FIELD_TILE_WIDTH',
    'FPX_PREVIEW_FIELD_TILE_HEIGHT',
    'FPX_PREVIEW_FIELD_DURATION',
    'FPX_PREVIEW_FIELD_TILES',
    'FPX_PREVIEW_FIELD_TILE_START',
    'FPX_PREVIEW_FIELD_TILE_X',
    'FPX_PREVIEW_FIELD_TILE_Y',
    'FPX_PREVIEW_FIELD_TILE_URL',
    'FPX_PREVIEW_FIELD_CUE_TIMING',
    'FPX_PREVIEW_FIELD_CUE_XYWH',
]
