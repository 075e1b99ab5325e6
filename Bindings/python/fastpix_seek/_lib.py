"""Low layer: loading libfastpixseek.so.1 and the raw ctypes view of Include/fastpix/seek.h.

Everything here mirrors the C header one to one and holds no policy:

* ctypes ``Structure`` mirrors of every struct, with the header's field order and types;
* ``CFUNCTYPE`` types for every callback type;
* :data:`FUNCTIONS`, ONE declarative table binding every ``FPX_API`` function (name, argtypes,
  restype, errcheck). ``tests/test_binding_table.py`` fails when a function of the header
  (as clang parsed it: Tests/abi/seek-h.json) has no row here, a row names no function of the
  header, or a row's arity or argument sizes differ from the header's;
* :func:`check_error`, the errcheck turning negative ``int`` returns into
  :class:`~fastpix_seek.errors.FastPixSeekError` subclasses.

Library lookup order (see :func:`_candidates`), first that loads wins:

1. ``$FASTPIX_SEEK_LIBRARY``, a path to the shared object. When set, it must load.
2. A copy inside this package (``fastpix_seek/libfastpixseek.so.1``): wheels built with
   ``make wheel`` carry one, for machines with FFmpeg 5.1 but no system package.
3. The system loader: ``ctypes.CDLL("libfastpixseek.so.1")``, which searches
   ``LD_LIBRARY_PATH``, the ld cache (``ldconfig``: the Debian package's
   ``/usr/lib/<multiarch>``, and ``/usr/local/lib/<multiarch>`` after ``make install``
   and ``ldconfig``) and the default directories.
4. ``ctypes.util.find_library("fastpixseek")`` (the ld cache again, and the compiler's
   library path), when it names another file.
5. ``pkg-config --variable=libdir fastpixseek`` (honours ``PKG_CONFIG_PATH``): a prefix
   that ``make install`` wrote but the loader does not search.
6. The usual install directories: ``/usr/local/lib/<multiarch>``, ``/usr/local/lib``,
   ``/usr/lib/<multiarch>``, ``/usr/lib64``, ``/usr/lib`` (multiarch from
   ``sysconfig.get_config_var("MULTIARCH")``), for an install made before ``ldconfig`` ran.
7. The project's build folder: walking up from this package's directory, the first
   ``build/lib/libfastpixseek.so.1`` found (an in-tree or editable checkout after
   ``make lib``).

The library is loaded with ``ctypes.CDLL`` (never ``PyDLL``): every call releases the GIL, so
blocking calls (wait_item, read_packet, seekable_range, destroy) never stall other Python
threads, and the library's own threads can take the GIL to run callbacks meanwhile.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sysconfig
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_int32,
                    c_int64, c_size_t, c_uint, c_uint32, c_uint64, c_void_p)
from pathlib import Path
from typing import (Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple,
                    Type)

from . import _abi
from . import errors as _errors

__all__ = [
    "SONAME", "EXPECTED_VERSION", "ENV_LIBRARY", "lib", "library_path", "library_found_by",
    "library_version",
    "FUNCTIONS", "Binding", "check_error", "raise_for_code",
    "PlayerHandle", "ScrubSessionHandle", "missing_functions", "fpx_scrub_result",
    "fpx_scrub_callback", "FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS", "fpx_live_seek_window",
    "fpx_live_edge_callback", "fpx_date_seek_result", "fpx_date_seek_callback",
    "fpx_time", "fpx_precision", "fpx_clamp", "fpx_accuracy", "fpx_seek_outcome",
    "fpx_scrub_position", "fpx_frame_step_result", "fpx_item_status_info", "fpx_item_info",
    "fpx_stream_info", "fpx_packet", "fpx_listener", "fpx_player_config", "fpx_player_stats",
    "fpx_ffmpeg_version_info",
    "STRUCTS",
    "fpx_seek_callback", "fpx_on_seek_accuracy", "fpx_on_seek_clamped",
    "fpx_on_scrub_state_changed", "fpx_on_scrub_position_changed", "fpx_on_frame_step",
    "fpx_on_item_status", "fpx_destroy_notify", "fpx_on_index_complete", "fpx_wakeup",
    "fpx_log_callback",
    "FPX_INDEX_OFF", "FPX_INDEX_KEYFRAMES", "FPX_INDEX_FULL",
    "FPX_NOPTS", "FPX_TIME_FLAG_VALID", "FPX_TIME_FLAG_POSITIVE_INFINITY",
    "FPX_TIME_FLAG_NEGATIVE_INFINITY", "FPX_PACKET_FLAG_KEY", "FPX_PACKET_FLAG_CORRUPT",
    "FPX_PACKET_FLAG_DISCARD", "FPX_PACKET_FLAG_DECODE_ONLY",
    "FPX_PACKET_FLAG_DISCONTINUITY", "FPX_PACKET_FLAG_DISPOSABLE",
]

SONAME = "libfastpixseek.so.1"
ENV_LIBRARY = "FASTPIX_SEEK_LIBRARY"

#: (major, minor) of the header this binding mirrors (FPX_VERSION_MAJOR/MINOR). The loaded
#: library must have the same major version and at least this minor version (seek.h,
#: "Compatibility": the library must be at least as new as the header).
EXPECTED_VERSION: Tuple[int, int] = (_abi.FPX_VERSION_MAJOR, _abi.FPX_VERSION_MINOR)

# ----------------------------------------------------------------------------------------
# Constants (macros of the header), from the generated _abi (tools/abi_gen.py)
# ----------------------------------------------------------------------------------------

FPX_TIME_FLAG_VALID = _abi.FPX_TIME_FLAG_VALID
FPX_TIME_FLAG_POSITIVE_INFINITY = _abi.FPX_TIME_FLAG_POSITIVE_INFINITY
FPX_TIME_FLAG_NEGATIVE_INFINITY = _abi.FPX_TIME_FLAG_NEGATIVE_INFINITY
#: ((int64_t)UINT64_C(0x8000000000000000))
FPX_NOPTS = _abi.FPX_NOPTS

FPX_PACKET_FLAG_KEY = _abi.FPX_PACKET_FLAG_KEY
FPX_PACKET_FLAG_CORRUPT = _abi.FPX_PACKET_FLAG_CORRUPT
FPX_PACKET_FLAG_DISCARD = _abi.FPX_PACKET_FLAG_DISCARD
FPX_PACKET_FLAG_DECODE_ONLY = _abi.FPX_PACKET_FLAG_DECODE_ONLY
FPX_PACKET_FLAG_DISCONTINUITY = _abi.FPX_PACKET_FLAG_DISCONTINUITY
FPX_PACKET_FLAG_DISPOSABLE = _abi.FPX_PACKET_FLAG_DISPOSABLE

FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS = _abi.FPX_SCRUB_DEFAULT_POSITION_THROTTLE_MS

# C enums are `int` sized on every ABI this library supports (gcc/clang, Linux).
c_enum = c_int


class PlayerHandle(c_void_p):
    """An opaque ``fpx_player *``: a token the library validates on every call."""


class ScrubSessionHandle(c_void_p):
    """An opaque ``fpx_scrub_session *``, valid as long as its player."""


# ----------------------------------------------------------------------------------------
# Struct mirrors, field order and types exactly as in seek.h
# ----------------------------------------------------------------------------------------

class _OutputStruct(Structure):
    """A struct the library fills in our memory: struct_size is set to our sizeof at
    construction, so the library writes exactly the fields this mirror has (seek.h,
    section 7, the output-struct rule)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.struct_size = ctypes.sizeof(self)


class fpx_time(Structure):
    _fields_ = [
        ("value", c_int64),
        ("timescale", c_int32),
        ("flags", c_uint32),
    ]

    def __repr__(self) -> str:
        return f"fpx_time(value={self.value}, timescale={self.timescale}, flags={self.flags})"


class fpx_precision(Structure):
    _fields_ = [
        ("kind", c_enum),           # fpx_precision_kind
        ("tolerance", fpx_time),
    ]


class fpx_clamp(Structure):
    _fields_ = [
        ("kind", c_enum),           # fpx_clamp_kind
        ("did_clamp", c_int),
        ("requested", fpx_time),
        ("clamped_to", fpx_time),
        ("clamped_target", fpx_time),
        ("explanation", c_char_p),
    ]


class fpx_accuracy(Structure):
    _fields_ = [
        ("requested_media_time", fpx_time),
        ("landed_media_time", fpx_time),
        ("tolerance_before", fpx_time),
        ("tolerance_after", fpx_time),
        ("within_requested_tolerance", c_int),
        ("delta", fpx_time),
        ("delta_seconds", c_double),
        ("absolute_delta_seconds", c_double),
    ]


class fpx_seek_outcome(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("seek_id", c_uint64),
        ("precision", fpx_precision),
        ("finished", c_int),
        ("reason", c_enum),         # fpx_finish_reason
        ("error", c_int),
        ("requested_time", c_double),
        ("landed_time", c_double),
        ("latency", c_double),
        ("latency_ns", c_uint64),
        ("accuracy", fpx_accuracy),
        ("clamp", fpx_clamp),
        ("resolution", c_enum),     # fpx_landing_resolution
        ("frame_covers_target", c_int),
        ("landed_is_keyframe", c_int),
        ("stream_index", c_int),
        ("landed_stream_pts", c_int64),
        ("stream_time_base_num", c_int32),
        ("stream_time_base_den", c_int32),
        ("packets_read", c_uint64),
        ("landed_past_hole", c_enum),  # fpx_hole_reason (0.4.0)
    ]


class fpx_scrub_position(Structure):
    _fields_ = [
        ("time", fpx_time),
        ("sample_count", c_uint64),
    ]


class fpx_frame_step_result(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("did_step", c_int),
        ("direction", c_enum),      # fpx_frame_step_direction
        ("landed_media_time", fpx_time),
        ("reason", c_enum),         # fpx_frame_step_unavailable_reason
        ("explanation", c_char_p),
        ("landed_stream_pts", c_int64),
        ("packets_read", c_uint64),
    ]


class fpx_item_status_info(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("item_id", c_uint64),
        ("status", c_enum),         # fpx_item_status
        ("error", c_int),
        ("av_error", c_int),
        # 0.4.0: HLS holes (seek.h, "Gaps")
        ("segments_skipped", c_uint64),
        ("last_skipped_sequence", c_int64),
        ("last_skip_reason", c_enum),  # fpx_hole_reason
    ]


class fpx_item_info(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("stream_count", c_int),
        ("reference_stream", c_int),
        ("has_video", c_int),
        ("duration", fpx_time),
        ("start_pts", c_int64),
        ("time_base_num", c_int32),
        ("time_base_den", c_int32),
        ("seekable", c_int),
        ("format_name", c_char_p),
        ("seekable_range_truncated", c_int),  # 0.4.0
    ]


class fpx_stream_info(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("index", c_int),
        ("type", c_enum),           # fpx_media_type
        ("codec_id", c_int),
        ("codec_name", c_char_p),
        ("time_base_num", c_int32),
        ("time_base_den", c_int32),
        ("width", c_int),
        ("height", c_int),
        ("sample_rate", c_int),
        ("channels", c_int),
        ("video_delay", c_int),
        ("extradata", c_void_p),    # const uint8_t *
        ("extradata_size", c_size_t),
        ("codecpar", c_void_p),     # const void * (const AVCodecParameters *)
        # 0.3: stream facts
        ("profile", c_int),
        ("level", c_int),
        ("profile_name", c_char_p),
        ("pixel_format", c_char_p),
        ("bit_depth", c_int),
        ("sample_aspect_num", c_int32),
        ("sample_aspect_den", c_int32),
        ("frame_rate_num", c_int32),
        ("frame_rate_den", c_int32),
        ("real_frame_rate_num", c_int32),
        ("real_frame_rate_den", c_int32),
        ("color_range", c_int),
        ("color_primaries", c_int),
        ("color_transfer", c_int),
        ("color_space", c_int),
        ("color_range_name", c_char_p),
        ("color_primaries_name", c_char_p),
        ("color_transfer_name", c_char_p),
        ("color_space_name", c_char_p),
        ("chroma_location", c_int),
        ("chroma_location_name", c_char_p),
        ("field_order", c_int),
        ("has_display_matrix", c_int),
        ("rotation_degrees", ctypes.c_double),
        ("sample_format", c_char_p),
        ("channel_layout", c_char_p),
        ("channel_mask", c_uint64),
        ("frame_size", c_int),
        ("initial_padding", c_int),
        ("trailing_padding", c_int),
        ("codec_tag", c_uint32),
        ("bit_rate", c_int64),
        ("bits_per_coded_sample", c_int),
        ("bits_per_raw_sample", c_int),
        ("start_pts", c_int64),
        ("duration_ts", c_int64),
        ("frame_count", c_int64),
        ("disposition", c_int),
        ("language", c_char_p),
    ]


class fpx_packet(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("data", c_void_p),         # const uint8_t *
        ("size", c_size_t),
        ("stream_index", c_int),
        ("pts", c_int64),
        ("dts", c_int64),
        ("duration", c_int64),
        ("pos", c_int64),
        ("flags", c_uint32),
        ("seek_id", c_uint64),
        ("av_packet", c_void_p),    # const void * (const AVPacket *)
        # 0.3: the landing on the packet stream
        ("landed_pts", c_int64),
        ("landed_pts_in_stream", c_int64),
        ("trim_samples", c_int64),
        ("landed_stream_index", c_int),
        # 0.4.0: item time 0 on this packet's timeline, reference-stream ticks
        ("item_origin_pts", c_int64),
    ]


# ----------------------------------------------------------------------------------------
# Callback types. userdata is declared c_void_p: ctypes hands the trampoline an int (or
# None for NULL). This binding only ever passes small integer keys as userdata.
# ----------------------------------------------------------------------------------------

#: typedef void (*fpx_seek_callback)(const fpx_seek_outcome *outcome, void *userdata);
fpx_seek_callback = CFUNCTYPE(None, POINTER(fpx_seek_outcome), c_void_p)
fpx_on_seek_accuracy = CFUNCTYPE(None, POINTER(fpx_accuracy), POINTER(fpx_seek_outcome),
                                 c_void_p)
fpx_on_seek_clamped = CFUNCTYPE(None, POINTER(fpx_clamp), c_uint64, c_void_p)
fpx_on_scrub_state_changed = CFUNCTYPE(None, c_enum, c_void_p)
fpx_on_scrub_position_changed = CFUNCTYPE(None, POINTER(fpx_scrub_position), c_void_p)
fpx_on_frame_step = CFUNCTYPE(None, POINTER(fpx_frame_step_result), c_void_p)
fpx_on_item_status = CFUNCTYPE(None, POINTER(fpx_item_status_info), c_void_p)
fpx_destroy_notify = CFUNCTYPE(None, c_void_p)
#: fpx_listener.on_index_complete: (frames, userdata)
fpx_on_index_complete = CFUNCTYPE(None, c_uint64, c_void_p)
#: fpx_index_mode (fpx_player_config.index_mode)
FPX_INDEX_OFF, FPX_INDEX_KEYFRAMES, FPX_INDEX_FULL = _abi.FPX_INDEX_OFF, _abi.FPX_INDEX_KEYFRAMES, _abi.FPX_INDEX_FULL
#: fpx_player_config.wakeup
fpx_wakeup = CFUNCTYPE(None, c_void_p)
#: fpx_set_log_callback's callback: (level, message, userdata)
fpx_log_callback = CFUNCTYPE(None, c_int, c_char_p, c_void_p)


class fpx_scrub_result(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("outcome", POINTER(fpx_seek_outcome)),  # NULL when the settling seek was cancelled
        ("sample_count", c_uint64),
        ("was_cancelled", c_int),
    ]


#: typedef void (*fpx_scrub_callback)(const fpx_scrub_result *result, void *userdata);
fpx_scrub_callback = CFUNCTYPE(None, POINTER(fpx_scrub_result), c_void_p)


class fpx_hls_variant(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("is_iframe", c_int),
        ("selected", c_int),
        ("bandwidth", c_int64),
        ("average_bandwidth", c_int64),
        ("width", c_int),
        ("height", c_int),
        ("frame_rate_num", c_int32),
        ("frame_rate_den", c_int32),
        ("codecs", c_char_p),
        ("hdcp_level", c_char_p),
        ("audio_group", c_char_p),
    ]


class fpx_preview(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("kind", c_enum),
        ("clamp", c_enum),
        ("requested_time", fpx_time),
        ("time", fpx_time),
        ("start", fpx_time),
        ("end", fpx_time),
        ("image_url", c_char_p),
        ("x", c_int32),
        ("y", c_int32),
        ("width", c_int32),
        ("height", c_int32),
        ("stream_index", c_int32),
        ("flags", c_uint32),
        ("data", c_void_p),
        ("size", c_size_t),
        ("pts", c_int64),
        ("dts", c_int64),
        ("av_packet", c_void_p),
    ]


class fpx_hls_rendition(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("type", c_enum),           # fpx_media_type
        ("group_id", c_char_p),
        ("name", c_char_p),
        ("language", c_char_p),
        ("channels", c_char_p),
        ("is_default", c_int),
        ("autoselect", c_int),
        ("has_uri", c_int),
        ("in_selected_group", c_int),
        ("selected", c_int),
        ("stream_index", c_int),
    ]


class fpx_live_seek_window(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("is_available", c_int),
        ("is_live", c_int),
        ("is_date_addressable", c_int),
        ("start", fpx_time),
        ("end", fpx_time),
        ("duration", fpx_time),
        ("duration_seconds", c_double),
        ("start_date_us", c_int64),
        ("end_date_us", c_int64),
        ("first_sequence", c_int64),
        ("last_sequence", c_int64),
        ("target_duration", fpx_time),
        ("hold_back", fpx_time),
    ]


#: typedef void (*fpx_live_edge_callback)(const fpx_seek_outcome *outcome, int error,
#:                                        void *userdata);
fpx_live_edge_callback = CFUNCTYPE(None, POINTER(fpx_seek_outcome), c_int, c_void_p)


class fpx_date_seek_result(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("seeked", c_int),
        ("outcome", POINTER(fpx_seek_outcome)),  # NULL unless seeked
        ("reason", c_enum),                      # fpx_date_seek_unavailable_reason
        ("requested_date_us", c_int64),
        ("window_start_date_us", c_int64),
        ("window_end_date_us", c_int64),
        ("explanation", c_char_p),
    ]


#: typedef void (*fpx_date_seek_callback)(const fpx_date_seek_result *result, void *userdata);
fpx_date_seek_callback = CFUNCTYPE(None, POINTER(fpx_date_seek_result), c_void_p)


class fpx_listener(Structure):
    _fields_ = [
        ("size", c_size_t),
        ("userdata", c_void_p),
        ("on_seek_accuracy", fpx_on_seek_accuracy),
        ("on_seek_clamped", fpx_on_seek_clamped),
        ("on_scrub_state_changed", fpx_on_scrub_state_changed),
        ("on_scrub_position_changed", fpx_on_scrub_position_changed),
        ("on_frame_step", fpx_on_frame_step),
        ("on_item_status", fpx_on_item_status),
        ("destroy_notify", fpx_destroy_notify),
        ("on_index_complete", fpx_on_index_complete),
    ]


class fpx_player_config(Structure):
    _fields_ = [
        ("size", c_size_t),
        ("delivery", c_enum),       # fpx_delivery_mode
        ("io_timeout_ms", c_int64),
        ("wakeup", fpx_wakeup),
        ("wakeup_userdata", c_void_p),
        ("protocol_whitelist", c_char_p),
        ("max_buffer_bytes", c_int64),
        ("index_mode", c_enum),     # fpx_index_mode
        # 0.4.0: the HLS variant choice
        ("hls_max_bandwidth", c_int64),
        ("hls_variant", c_int32),
        ("hls_max_height", c_int32),
        ("hls_audio", c_int32),
        # 0.4.0: the reference stream's choice (0 automatic, N > 0 stream N - 1)
        ("reference_stream", c_int32),
        # 0.4.0: TLS checks (NULL: the default CAs; 1: no checks)
        ("tls_ca_file", c_char_p),
        ("tls_insecure", c_int32),
    ]


class fpx_player_stats(_OutputStruct):
    _fields_ = [
        ("struct_size", c_size_t),
        ("seeks_issued", c_uint64),
        ("seeks_completed", c_uint64),
        ("seeks_superseded", c_uint64),
        ("seeks_cancelled", c_uint64),
        ("seeks_failed", c_uint64),
        ("packets_demuxed", c_uint64),
        ("bytes_read", c_uint64),
        ("events_delivered", c_uint64),
        ("index_frames", c_uint64),
        ("index_complete", c_int),
        ("segments_skipped", c_uint64),  # 0.4.0
    ]


class fpx_ffmpeg_version_info(Structure):
    """AV_VERSION_INT values (major << 16 | minor << 8 | micro); see seek.h "FFmpeg ABI"."""
    _fields_ = [
        ("struct_size", c_size_t),
        ("avformat_build", c_uint),
        ("avformat_runtime", c_uint),
        ("avcodec_build", c_uint),
        ("avcodec_runtime", c_uint),
        ("avutil_build", c_uint),
        ("avutil_runtime", c_uint),
        ("compatible", c_int),
    ]


#: Every struct mirror by its C name (the struct-layout test iterates over this).
STRUCTS: Dict[str, Type[Structure]] = {
    cls.__name__: cls
    for cls in (fpx_time, fpx_precision, fpx_clamp, fpx_accuracy, fpx_seek_outcome,
                fpx_scrub_position, fpx_frame_step_result, fpx_item_status_info, fpx_item_info,
                fpx_stream_info, fpx_packet, fpx_listener, fpx_player_config, fpx_player_stats,
                fpx_scrub_result, fpx_live_seek_window, fpx_date_seek_result,
                fpx_ffmpeg_version_info, fpx_hls_variant, fpx_hls_rendition, fpx_preview)
}

# ----------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------

_bound = False


def error_message(code: int) -> str:
    """fpx_error_string(code): the library's static description of a code."""
    if not _bound:
        return _errors._fallback_message(code)
    return str(lib.fpx_error_string(int(code)))


def make_error(code: int, function: Optional[str] = None,
               detail: Optional[str] = None) -> _errors.FastPixSeekError:
    """The exception for a negative fpx_error code, with the library's message."""
    cls = _errors.error_class_for(code)
    return cls(int(code), error_message(code), function, detail)


def raise_for_code(code: int, function: Optional[str] = None, detail: Optional[str] = None) -> None:
    """Raises the exception for ``code`` when it is negative."""
    if code < 0:
        raise make_error(code, function, detail)


def check_error(result: int, func: Any, args: Tuple[Any, ...]) -> int:
    """errcheck for functions returning an fpx_error: negative values raise."""
    if result < 0:
        raise make_error(result, getattr(func, "__name__", None))
    return result


def _decode(result: Optional[bytes], func: Any, args: Tuple[Any, ...]) -> str:
    """errcheck for functions returning a static, never-NULL ``const char *``."""
    return "" if result is None else result.decode("utf-8", "replace")


# ----------------------------------------------------------------------------------------
# The one table binding every FPX_API function
# ----------------------------------------------------------------------------------------

class Binding(NamedTuple):
    name: str
    argtypes: Sequence[Any]
    restype: Any
    errcheck: Optional[Callable[..., Any]]


_P = PlayerHandle
_S = ScrubSessionHandle
_u64p = POINTER(c_uint64)

FUNCTIONS: List[Binding] = [
    # Versions
    Binding("fpx_version", [], c_uint, None),
    Binding("fpx_version_string", [], c_char_p, _decode),
    Binding("fpx_ffmpeg_versions", [POINTER(fpx_ffmpeg_version_info)], c_int, check_error),
    # Errors
    Binding("fpx_error_string", [c_int], c_char_p, _decode),
    Binding("fpx_error_name", [c_int], c_char_p, _decode),
    # Logging
    Binding("fpx_set_log_callback", [c_int, fpx_log_callback, c_void_p], c_int, check_error),
    # Rational time
    Binding("fpx_time_make", [c_int64, c_int32], fpx_time, None),
    Binding("fpx_time_invalid", [], fpx_time, None),
    Binding("fpx_time_infinity", [c_int], fpx_time, None),
    Binding("fpx_time_from_seconds", [c_double, c_int32], fpx_time, None),
    Binding("fpx_time_to_seconds", [fpx_time], c_double, None),
    Binding("fpx_time_is_valid", [fpx_time], c_int, None),
    Binding("fpx_time_is_numeric", [fpx_time], c_int, None),
    Binding("fpx_time_compare", [fpx_time, fpx_time], c_int, None),
    Binding("fpx_time_subtract", [fpx_time, fpx_time], fpx_time, None),
    # Precision
    Binding("fpx_precision_exact", [], fpx_precision, None),
    Binding("fpx_precision_nearest_keyframe", [fpx_time], fpx_precision, None),
    Binding("fpx_precision_default", [], fpx_precision, None),
    Binding("fpx_precision_at_or_after", [], fpx_precision, None),
    # Listeners and players
    Binding("fpx_listener_init", [POINTER(fpx_listener)], None, None),
    Binding("fpx_player_config_init", [POINTER(fpx_player_config)], None, None),
    # (what seek.h's fpx_player_config_init macro calls: the struct as this mirror has it)
    Binding("fpx_player_config_init_size", [POINTER(fpx_player_config), c_size_t], c_int, check_error),
    Binding("fpx_player_create", [POINTER(fpx_player_config), POINTER(PlayerHandle)], c_int,
            check_error),
    Binding("fpx_player_destroy", [_P], c_int, check_error),
    Binding("fpx_player_open", [_P, c_char_p], c_int, check_error),
    Binding("fpx_player_close_item", [_P], c_int, check_error),
    Binding("fpx_player_item_status", [_P, POINTER(fpx_item_status_info)], c_int, check_error),
    Binding("fpx_player_wait_item", [_P, c_int64, POINTER(fpx_item_status_info)], c_int,
            check_error),
    Binding("fpx_player_item_info", [_P, POINTER(fpx_item_info)], c_int, check_error),
    Binding("fpx_player_stream_info", [_P, c_int, POINTER(fpx_stream_info)], c_int,
            check_error),
    Binding("fpx_player_hls_variant_count", [_P, POINTER(c_int)], c_int, check_error),
    Binding("fpx_player_hls_variant", [_P, c_int, POINTER(fpx_hls_variant)], c_int, check_error),
    Binding("fpx_player_set_preview_source", [_P, c_enum, c_char_p, POINTER(c_enum)], c_int, None),
    Binding("fpx_player_preview", [_P, fpx_time, POINTER(fpx_preview)], c_int, check_error),
    Binding("fpx_player_hls_rendition_count", [_P, POINTER(c_int)], c_int, check_error),
    Binding("fpx_player_hls_rendition", [_P, c_int, POINTER(fpx_hls_rendition)], c_int, check_error),
    Binding("fpx_player_hls_select_audio", [_P, c_int], c_int, check_error),
    Binding("fpx_player_hls_select_variant", [_P, c_int], c_int, check_error),
    Binding("fpx_player_seekable_range", [_P, POINTER(fpx_time), POINTER(fpx_time)], c_int,
            check_error),
    Binding("fpx_player_setup_seek_manager", [_P], c_int, check_error),
    Binding("fpx_player_seek", [_P, fpx_time, fpx_precision, fpx_seek_callback, c_void_p,
                                _u64p], c_int, check_error),
    Binding("fpx_player_seek_wait", [_P, fpx_time, fpx_precision, c_int64, POINTER(fpx_seek_outcome)],
            c_int, check_error),
    Binding("fpx_player_cancel_pending_seeks", [_P, _u64p], c_int, check_error),
    Binding("fpx_player_set_stream_enabled", [_P, c_int, c_int], c_int, check_error),
    Binding("fpx_player_set_continuation", [_P, c_int], c_int, check_error),
    Binding("fpx_player_report_decoded", [_P, c_int64], c_int, check_error),
    Binding("fpx_player_unread_packets", [_P, c_uint32], c_int, check_error),
    Binding("fpx_player_add_listener", [_P, POINTER(fpx_listener), _u64p], c_int, check_error),
    Binding("fpx_player_remove_listener", [_P, c_uint64], c_int, check_error),
    Binding("fpx_player_dispatch_events", [_P, POINTER(c_int)], c_int, check_error),
    Binding("fpx_player_event_fd", [_P, POINTER(c_int)], c_int, check_error),
    Binding("fpx_player_read_packet", [_P, POINTER(fpx_packet)], c_int, check_error),
    Binding("fpx_player_stats_get", [_P, POINTER(fpx_player_stats)], c_int, check_error),
    # Scrub sessions
    Binding("fpx_player_scrub_session", [_P, POINTER(ScrubSessionHandle)], c_int, check_error),
    Binding("fpx_scrub_begin", [_S, fpx_time], c_int, check_error),
    Binding("fpx_scrub_update", [_S, fpx_time], c_int, check_error),
    Binding("fpx_scrub_end", [_S, fpx_time, fpx_precision, fpx_scrub_callback, c_void_p, _u64p],
            c_int, check_error),
    Binding("fpx_scrub_cancel", [_S], c_int, check_error),
    Binding("fpx_scrub_get_state", [_S, POINTER(c_enum), POINTER(c_int)], c_int, check_error),
    Binding("fpx_scrub_set_position_throttle", [_S, fpx_time], c_int, check_error),
    Binding("fpx_scrub_get_position_throttle", [_S, POINTER(fpx_time)], c_int, check_error),
    # Frame stepping
    Binding("fpx_player_step_frame", [_P, c_enum, c_int, POINTER(fpx_frame_step_result)], c_int,
            check_error),
    Binding("fpx_frame_step_reason_explanation", [c_int], c_char_p, _decode),
    Binding("fpx_player_current_time", [_P, POINTER(fpx_time)], c_int, check_error),
    # Live and DVR HLS
    Binding("fpx_player_live_seek_window", [_P, POINTER(fpx_live_seek_window)], c_int,
            check_error),
    Binding("fpx_player_seek_to_live_edge", [_P, fpx_live_edge_callback, c_void_p, _u64p], c_int,
            check_error),
    Binding("fpx_player_seek_to_date", [_P, c_int64, fpx_precision, fpx_date_seek_callback,
                                        c_void_p, _u64p], c_int, check_error),
    Binding("fpx_date_seek_reason_explanation", [c_int], c_char_p, _decode),
    # Enum strings
    Binding("fpx_finish_reason_name", [c_int], c_char_p, _decode),
    Binding("fpx_clamp_kind_name", [c_int], c_char_p, _decode),
    Binding("fpx_landing_resolution_name", [c_int], c_char_p, _decode),
    Binding("fpx_item_status_name", [c_int], c_char_p, _decode),
]


# ----------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------

def _pkg_config_libdir() -> Optional[str]:
    """``pkg-config --variable=libdir fastpixseek``, or None (no pkg-config, no .pc file)."""
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        r = subprocess.run([exe, "--variable=libdir", "fastpixseek"], capture_output=True,
                           text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    out = r.stdout.strip()
    return out if r.returncode == 0 and out else None


#: Where the lookup looked and found no file, one line a step (for the ImportError).
_looked: List[str] = []


def _candidates() -> Iterator[Tuple[str, str]]:
    """(how, what to pass to CDLL) in lookup order; the env entry is handled separately.
    Steps that find no file are noted in _looked.

    A generator: the slower probes (find_library, pkg-config) only run when the earlier
    candidates failed to load."""
    here = Path(__file__).resolve().parent
    bundled = here / SONAME
    if bundled.is_file():
        yield "bundled in the package", str(bundled)
    else:
        _looked.append(f"bundled in the package: no {bundled}")
    yield "system loader", SONAME
    found = ctypes.util.find_library("fastpixseek")
    if found and found != SONAME:
        yield "ctypes.util.find_library", found
    else:
        _looked.append("ctypes.util.find_library('fastpixseek'): "
                       + ("nothing (not in the ld cache)" if not found else "the same name"))
    libdir = _pkg_config_libdir()
    if libdir and (Path(libdir) / SONAME).is_file():
        yield "pkg-config libdir", str(Path(libdir) / SONAME)
    elif libdir:
        _looked.append(f"pkg-config libdir: no {Path(libdir) / SONAME}")
    else:
        _looked.append("pkg-config --variable=libdir fastpixseek: "
                       + ("no pkg-config" if not shutil.which("pkg-config") else
                          "no fastpixseek.pc (PKG_CONFIG_PATH="
                          + repr(os.environ.get("PKG_CONFIG_PATH", "")) + ")"))
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = ["/usr/local/lib/" + multiarch if multiarch else "", "/usr/local/lib",
            "/usr/lib/" + multiarch if multiarch else "", "/usr/lib64", "/usr/lib"]
    for d in dirs:
        if d and (Path(d) / SONAME).is_file():
            yield "install directory", str(Path(d) / SONAME)
        elif d:
            _looked.append(f"install directory: no {Path(d) / SONAME}")
    for parent in (here, *here.parents):
        p = parent / "build" / "lib" / SONAME
        if p.is_file():
            yield "project build folder", str(p)
            break
    else:
        _looked.append(f"project build folder: no build/lib/{SONAME} above {here}")


def _load() -> Tuple[ctypes.CDLL, str, str]:
    """(library, its path, how it was found)."""
    env = os.environ.get(ENV_LIBRARY)
    if env:
        try:
            return ctypes.CDLL(env), env, "$" + ENV_LIBRARY
        except OSError as e:
            raise ImportError(f"fastpix_seek: ${ENV_LIBRARY}={env!r} could not be loaded: {e}"
                              ) from e
    tried: List[str] = [f"${ENV_LIBRARY}: not set"]
    for how, what in _candidates():
        try:
            dll = ctypes.CDLL(what)
        except OSError as e:
            tried.append(f"{how} ({what}): {e}")
            continue
        return dll, what if os.sep in what else (_loaded_path(dll) or what), how
    raise ImportError(
        f"fastpix_seek: cannot find {SONAME}. Set ${ENV_LIBRARY} to its path, install it where "
        f"the system loader finds it (after `make install PREFIX=P`: LD_LIBRARY_PATH=P/lib/..., "
        f"or PKG_CONFIG_PATH), or build it in this checkout with `make lib`. Looked in:\n  "
        + "\n  ".join(tried + _looked))


def _loaded_path(dll: ctypes.CDLL) -> Optional[str]:
    """The file the system loader picked, from /proc/self/maps (Linux), else None."""
    try:
        addr = ctypes.cast(dll.fpx_version, c_void_p).value or 0
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split()
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if lo <= addr < hi and len(parts) >= 6:
                    return parts[5]
    except (OSError, ValueError, AttributeError):
        pass
    return None


#: Functions of the table the loaded library does not export (a library built from older
#: sources of the same version). Calling one raises UnsupportedError.
missing_functions: List[str] = []

#: Functions the binding cannot work without: missing ones fail the import.
_OPTIONAL_PREFIXES = ("fpx_scrub_", "fpx_player_scrub_session", "fpx_player_step_frame",
                      "fpx_frame_step_reason_explanation", "fpx_player_current_time",
                      "fpx_player_live_seek_window", "fpx_player_seek_to_live_edge",
                      "fpx_player_seek_to_date", "fpx_date_seek_reason_explanation",
                      "fpx_player_seek_wait", "fpx_player_set_stream_enabled",
                      "fpx_ffmpeg_versions", "fpx_player_set_continuation",
                      "fpx_player_report_decoded", "fpx_player_unread_packets",
                      "fpx_player_hls_")
_REQUIRED = {b.name for b in FUNCTIONS if not b.name.startswith(_OPTIONAL_PREFIXES)}


class _Missing:
    """Stands in for a function the loaded library does not export."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: Any) -> Any:
        raise _errors.UnsupportedError(
            _errors.UnsupportedError.default_code, error_message(-13), self.__name__,
            f"{library_path} does not export {self.__name__}: the library is older than "
            f"this binding")


def _bind(dll: ctypes.CDLL) -> None:
    for b in FUNCTIONS:
        try:
            fn = getattr(dll, b.name)
        except AttributeError:
            missing_functions.append(b.name)
            continue
        fn.argtypes = list(b.argtypes)
        fn.restype = b.restype
        if b.errcheck is not None:
            fn.errcheck = b.errcheck
    required = [n for n in missing_functions if n in _REQUIRED]
    if required:
        raise ImportError(f"fastpix_seek: {library_path} lacks {', '.join(required)}; the "
                          f"library is older than the binding expects")
    for n in missing_functions:
        setattr(dll, n, _Missing(n))


def _check_version(dll: ctypes.CDLL) -> Tuple[int, int, int]:
    v = int(dll.fpx_version())
    got = ((v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF)
    want_major, want_minor = EXPECTED_VERSION
    if got[0] != want_major or got[1] < want_minor:
        raise ImportError(
            f"fastpix_seek: {library_path} is version {got[0]}.{got[1]}.{got[2]}, but this "
            f"binding needs {want_major}.{want_minor}.x or newer within major version "
            f"{want_major}; install a matching libfastpixseek or point ${ENV_LIBRARY} at one")
    return got


#: The loaded library, its path, and which lookup step found it (see the module docstring).
lib, library_path, library_found_by = _load()
lib.fpx_version.argtypes = []
lib.fpx_version.restype = c_uint
#: The loaded library's version as (major, minor, patch).
library_version: Tuple[int, int, int] = _check_version(lib)
_bind(lib)
_bound = True
_errors._message_source = error_message
