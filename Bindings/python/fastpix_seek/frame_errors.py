"""The errors of the frame helpers (:mod:`fastpix_seek.frames`, :mod:`fastpix_seek.pyav`).

Both are :class:`~fastpix_seek.errors.FastPixSeekError` subclasses (so ``except
FastPixSeekError`` catches every error of the package) and subclasses of the built-in
exception a user would catch:

* :class:`FrameNotDecodedError` (a ``RuntimeError``, code ``FPX_ERROR_INVALID_DATA``): a seek
  did not land, or landed but the decoder never produced the landed frame (a damaged or
  truncated stream, a decoder that refuses the codec, no decoder for it). Whatever PyAV
  raised on the way (``av.error.InvalidDataError``, ``av.error.EOFError``...) is its
  ``__cause__``, never what the caller sees.
* :class:`FrameOutOfRangeError` (an ``IndexError``, code ``FPX_ERROR_INVALID_TIME``): a time
  outside the frames of the item (``FrameReader.frame_range``: before item time 0, after the
  last frame -- with ``which="at_or_after"``, after the last frame's time --, after the last
  complete frame of a cut file), unless the caller asked to clamp (``clamp=True``).

``outcome`` is the seek's :class:`~fastpix_seek.SeekOutcome` when there was one; ``url`` the
item's path or URL when known (it also opens the message).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional, Tuple

from .errors import FastPixSeekError
from .types import SeekOutcome

__all__ = ["FrameError", "FrameNotDecodedError", "FrameOutOfRangeError"]


class FrameError(FastPixSeekError):
    """Base class of the frame helpers' errors: ``message`` (without the code), ``outcome``
    (the seek's outcome or None) and ``url`` (the item's path or URL, or None)."""

    default_code = -12  # FPX_ERROR_INVALID_DATA

    outcome: Optional[SeekOutcome]
    url: Optional[str]

    def __init__(self, message: str, outcome: Optional[SeekOutcome] = None,
                 url: Optional[str] = None) -> None:
        self.outcome = outcome
        self.url = url
        super().__init__(None, message)

    def _text(self) -> str:
        return f"{self.url}: {self.message}" if self.url else self.message

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        return (type(self), (self.message, self.outcome, self.url))


class FrameNotDecodedError(FrameError, RuntimeError):
    """The seek did not land, or it landed but the decoder never produced the landed frame (a
    damaged or truncated stream, a decoder that refuses the codec). ``outcome`` is the seek's
    outcome (None when no seek ran); the decoder's own exception, if any, is ``__cause__``."""

    default_code = -12  # FPX_ERROR_INVALID_DATA


class FrameOutOfRangeError(FrameError, IndexError):
    """The time asked for is outside the frames of the item (see
    :class:`~fastpix_seek.frames.FrameRange`) and the caller did not ask to clamp:
    ``frame_at(t, clamp=True)`` answers with the nearest end's frame instead (the seek API
    itself always clamps, and reports it in ``outcome.clamp``). ``requested`` is the time
    asked for, on the item timeline (a ``timeline="stream"`` time converted, as in the
    message); ``range`` is (first frame's time, last frame's time) on the item timeline;
    ``truncated`` is True when the item's data ends before its container says (a cut file:
    ``range`` then ends at its last complete frame). ``outcome`` is None (no seek ran) unless
    the cut was found by the seek that landed past it."""

    default_code = -3  # FPX_ERROR_INVALID_TIME

    requested: Optional[Fraction]
    range: Optional[Tuple[Fraction, Fraction]]
    truncated: bool

    def __init__(self, message: str, outcome: Optional[SeekOutcome] = None,
                 url: Optional[str] = None, requested: Optional[Fraction] = None,
                 range: Optional[Tuple[Fraction, Fraction]] = None,
                 truncated: bool = False) -> None:
        self.requested = requested
        self.range = range
        self.truncated = truncated
        super().__init__(message, outcome, url)

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        return (type(self), (self.message, self.outcome, self.url, self.requested, self.range,
                             self.truncated))
