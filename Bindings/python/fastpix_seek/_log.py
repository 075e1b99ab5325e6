"""FastPixSeek's log (FFmpeg's messages and the library's own) routed to :mod:`logging`.

At import the binding installs a log callback (``fpx_set_log_callback``) that hands every
line at or below :data:`DEFAULT_LEVEL` to the ``"fastpix_seek"`` logger: FFmpeg's error
and fatal lines as ``logging.ERROR``, warnings as ``WARNING``, info as ``INFO``, more verbose
ones as ``DEBUG``. The logger has a ``NullHandler``, so nothing is printed unless the
application configures logging (the library itself prints nothing on stderr).

FFmpeg's logger is process-wide: see "Logging" in seek.h. :func:`set_log_level` changes which
levels cross into Python (each line costs a GIL round trip).
"""
from __future__ import annotations

import atexit
import logging
import re
import threading
from collections import deque
from typing import Optional, Tuple

from . import _lib
from ._abi import (FPX_LOG_DEBUG, FPX_LOG_ERROR, FPX_LOG_INFO, FPX_LOG_QUIET, FPX_LOG_TRACE,
                   FPX_LOG_VERBOSE, FPX_LOG_WARNING)

logger = logging.getLogger("fastpix_seek")
logger.addHandler(logging.NullHandler())

DEFAULT_LEVEL = FPX_LOG_INFO

_lock = threading.Lock()
_installed = False


def _python_level(level: int) -> int:
    if level <= FPX_LOG_ERROR:
        return logging.ERROR
    if level <= FPX_LOG_WARNING:
        return logging.WARNING
    if level <= FPX_LOG_INFO:
        return logging.INFO
    return logging.DEBUG


#: The library's latest refusals of a chosen reference stream ("reference_stream: stream
#: index N ..." at FPX_LOG_ERROR, logged on the thread that fails the open, before the item
#: turns FAILED), numbered, so that a Player whose open failed can say why
#: (:func:`reference_refusal`). The log is process-wide: a line names its index, not its player.
_refusals: "deque[Tuple[int, str]]" = deque(maxlen=32)
_refusal_seq = 0
_refusal_lock = threading.Lock()  # not _lock: set_log_level holds that while calling C


def _on_log(level: int, message: Optional[bytes], userdata: Optional[int]) -> None:
    global _refusal_seq
    try:
        text = message.decode("utf-8", "replace") if message else ""
        if level <= FPX_LOG_ERROR and text.startswith("reference_stream: stream index "):
            with _refusal_lock:
                _refusal_seq += 1
                _refusals.append((_refusal_seq, text.rstrip()))
        logger.log(_python_level(level), "%s", text)
    except Exception:  # never let an exception cross into C
        pass


def refusal_mark() -> int:
    """The number of the latest reference-stream refusal logged (see :func:`reference_refusal`)."""
    with _refusal_lock:
        return _refusal_seq


def reference_refusal(index: int, since: int) -> Optional[str]:
    """Why the library refused stream ``index`` (0-based) as the reference stream, in the words
    of its log line, logged after mark ``since``; None when none was (log off: FPX_LOG_QUIET)."""
    head = f"reference_stream: stream index {index} "
    with _refusal_lock:
        found = [t for n, t in _refusals if n > since and t.startswith(head)]
    if not found:
        return None
    # "reference_stream: stream index N (fpx_player_config.reference_stream N+1) ..." in the
    # binding's terms: Player(reference_stream=N).
    return re.sub(r"^reference_stream: stream index (\d+)"
                  r"(?: \(fpx_player_config\.reference_stream \d+\))?",
                  r"reference_stream=\1: stream \1", found[-1])


_callback = _lib.fpx_log_callback(_on_log)


def set_log_level(level: int) -> None:
    """Which library log lines reach the ``fastpix_seek`` logger: an FPX_LOG_* value
    (``FPX_LOG_QUIET`` for none). Process-wide."""
    global _installed
    with _lock:
        if level == FPX_LOG_QUIET:
            _lib.lib.fpx_set_log_callback(FPX_LOG_QUIET, _lib.fpx_log_callback(), None)
        else:
            _lib.lib.fpx_set_log_callback(int(level), _callback, None)
        _installed = True


def _uninstall() -> None:
    # Library threads must not call into Python while the interpreter finalizes.
    try:
        _lib.lib.fpx_set_log_callback(FPX_LOG_QUIET, _lib.fpx_log_callback(), None)
    except Exception:
        pass


set_log_level(DEFAULT_LEVEL)
atexit.register(_uninstall)
