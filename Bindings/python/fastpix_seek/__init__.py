"""fastpix_seek: Python bindings for FastPixSeek (libfastpixseek.so.1), over ctypes.

    from fractions import Fraction
    from fastpix_seek import Player, SeekPrecision

    with Player("movie.mp4") as p:
        p.wait_item(timeout=5)
        out = p.seek_and_wait(Fraction(925, 10), SeekPrecision.exact())
        print(out.landed_time, out.delta, out.within_tolerance, out.clamp.kind)
        for pkt in p.packets():
            ...

Layers:

* :mod:`fastpix_seek._lib`: the raw ctypes view of Include/fastpix/seek.h (struct mirrors,
  callback types, one table binding every FPX_API function) and library loading
  (``$FASTPIX_SEEK_LIBRARY``, then the system loader, then the project's ``build/lib``).
* :mod:`fastpix_seek.types`: enums, exact-Fraction value types, time conversion rules.
* :mod:`fastpix_seek.player`: :class:`Player` (lifecycle, items, seeks, listeners, events),
  made of one module per concern: ``_delivery`` (callbacks, their threads and exceptions),
  ``_calls`` (blocking calls, Ctrl-C), ``_packets``, ``_asyncio``, ``_scrub`` (scrub
  sessions, frame steps), ``_live`` (live and DVR HLS); its module doc lists the floors.
* :mod:`fastpix_seek.frames` and :mod:`fastpix_seek.pyav`: decoded frames with PyAV, the top
  floor (they import no module of the player).
* :mod:`fastpix_seek.sprites`: seek-preview sprite sheets (``make_sprite_sheet``: what
  ``fpx-seek sprite`` writes), over both: it opens a :class:`Player` and decodes through the
  frame helpers; imported only by name (``import fastpix_seek.sprites``).
* :mod:`fastpix_seek.errors`: the exception hierarchy (one class per fpx_error code).
* :mod:`fastpix_seek.item_errors`: an item's error naming its path or URL, with the cause that
  fits and the built-in base a user would catch (FileNotFoundError, PermissionError...).
* :mod:`fastpix_seek.frame_errors`: the frame helpers' errors (FrameNotDecodedError, a
  RuntimeError; FrameOutOfRangeError, an IndexError).

Importing raises ImportError when the library cannot be found or is older than
:data:`EXPECTED_VERSION`.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Tuple

from . import errors
from ._abi import (FPX_LOG_DEBUG, FPX_LOG_ERROR, FPX_LOG_INFO, FPX_LOG_QUIET, FPX_LOG_TRACE,
                   FPX_LOG_VERBOSE, FPX_LOG_WARNING)
from ._log import set_log_level
from ._lib import EXPECTED_VERSION, library_path, library_version
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _errors_all
from .frame_errors import FrameError, FrameNotDecodedError, FrameOutOfRangeError
from .item_errors import (HTTPAccessError, MediaIsADirectoryError, MediaNotFoundError,
                          MediaPermissionError, StreamIndexError)
from .player import (MAX_CALLBACK_ERRORS, CallbackExceptionHandler, Player, ScrubSession,
                     SeekPrecisionListener, default_callback_exception_handler,
                     get_callback_exception_handler, set_callback_exception_handler)
from .types import (ClampKind, DateSeekResult, DateSeekUnavailableReason, LiveEdgeResult,
                    LiveSeekWindow, unix_us_to_datetime, DeliveryMode, IndexMode, FinishReason, FrameStepDirection,
                    FrameStepResult, FrameStepUnavailableReason, HLSRendition, HLSVariant, HoleReason,
                    ItemInfo, ItemStatus,
                    ItemStatusInfo, LandingResolution, MediaType, Packet, PlayerStats,
                    PrecisionKind, Preview, PreviewField, PreviewKind, ScrubPosition, ScrubResult, ScrubState, SeekAccuracy, SeekClamp,
                    SeekOutcome, SeekPrecision, StreamInfo, TimeLike, from_fpx_time,
                    to_fpx_time, to_fraction)

__version__ = "0.4.0"


def frame_step_reason_explanation(reason: int) -> str:
    """The library's static explanation of a FrameStepUnavailableReason."""
    from ._lib import lib
    return str(lib.fpx_frame_step_reason_explanation(int(reason)))


def date_seek_reason_explanation(reason: int) -> str:
    """The library's static explanation of a DateSeekUnavailableReason."""
    from ._lib import lib
    return str(lib.fpx_date_seek_reason_explanation(int(reason)))


@dataclass(frozen=True)
class FFmpegVersions:
    """The FFmpeg libraries the C library was built against and the ones loaded, as
    (major, minor, micro) tuples (fpx_ffmpeg_versions; seek.h "FFmpeg ABI")."""
    avformat_build: Tuple[int, int, int]
    avformat_runtime: Tuple[int, int, int]
    avcodec_build: Tuple[int, int, int]
    avcodec_runtime: Tuple[int, int, int]
    avutil_build: Tuple[int, int, int]
    avutil_runtime: Tuple[int, int, int]
    #: Every loaded major equals the build's; when False, opening raises FFmpegMismatchError.
    compatible: bool


def ffmpeg_versions() -> FFmpegVersions:
    """The FFmpeg versions built against and loaded (fpx_ffmpeg_versions)."""
    from ._lib import fpx_ffmpeg_version_info, lib
    info = fpx_ffmpeg_version_info()
    info.struct_size = ctypes.sizeof(info)
    lib.fpx_ffmpeg_versions(ctypes.byref(info))

    def t(v: int) -> Tuple[int, int, int]:
        return (v >> 16, (v >> 8) & 0xFF, v & 0xFF)
    return FFmpegVersions(t(info.avformat_build), t(info.avformat_runtime),
                          t(info.avcodec_build), t(info.avcodec_runtime),
                          t(info.avutil_build), t(info.avutil_runtime), bool(info.compatible))


def version() -> str:
    """The loaded library's version string (fpx_version_string)."""
    from ._lib import lib
    return str(lib.fpx_version_string())


__all__ = [
    "set_log_level", "FPX_LOG_QUIET", "FPX_LOG_ERROR", "FPX_LOG_WARNING", "FPX_LOG_INFO",
    "FPX_LOG_VERBOSE", "FPX_LOG_DEBUG", "FPX_LOG_TRACE",
    "Player", "ScrubSession", "ScrubResult", "frame_step_reason_explanation",
    "LiveSeekWindow", "LiveEdgeResult", "DateSeekResult", "DateSeekUnavailableReason",
    "date_seek_reason_explanation", "unix_us_to_datetime",
    "SeekPrecisionListener", "SeekPrecision", "SeekOutcome", "SeekAccuracy",
    "SeekClamp", "ScrubPosition", "FrameStepResult", "ItemStatusInfo", "ItemInfo",
    "StreamInfo", "Packet", "PlayerStats", "PrecisionKind", "FinishReason", "ClampKind",
    "LandingResolution", "HoleReason", "Preview", "PreviewKind", "PreviewField", "HLSVariant", "HLSRendition", "ScrubState", "FrameStepDirection", "FrameStepUnavailableReason",
    "ItemStatus", "MediaType", "DeliveryMode", "IndexMode", "TimeLike", "to_fraction", "to_fpx_time",
    "from_fpx_time", "set_callback_exception_handler", "get_callback_exception_handler",
    "default_callback_exception_handler", "CallbackExceptionHandler", "MAX_CALLBACK_ERRORS",
    "EXPECTED_VERSION", "library_path", "library_version", "version", "errors",
    "ffmpeg_versions", "FFmpegVersions",
    "FrameError", "FrameNotDecodedError", "FrameOutOfRangeError", "MediaNotFoundError",
    "MediaPermissionError", "MediaIsADirectoryError", "HTTPAccessError", "StreamIndexError",
    "__version__", *_errors_all,
]
