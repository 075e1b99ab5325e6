"""Live and DVR HLS: the seekable window, seeks to the live edge and to a wall-clock date
(EXT-X-PROGRAM-DATE-TIME), as a mixin of :class:`~fastpix_seek.Player`."""

from __future__ import annotations

import ctypes
import datetime
from typing import Any, Callable, Optional, Union, cast

from . import _lib
from . import errors as _errors
from ._base import _PlayerBase
from ._calls import _check_callable, _check_precision
from ._delivery import _SeekEntry, _Waiter, _date_seek_trampoline, _live_edge_trampoline
from .types import (DateSeekResult, LiveEdgeResult, LiveSeekWindow, SeekOutcome,
                    SeekPrecision)

def _live_edge_outcome(r: LiveEdgeResult) -> SeekOutcome:
    if r.outcome is None:
        raise r.exception or _errors.InternalError(
            detail="live edge completion without an outcome or an error")
    return r.outcome


def _unix_us(when: Any) -> int:
    """Unix microseconds from an int or an aware datetime (exact)."""
    if isinstance(when, bool):
        raise TypeError("a date must be Unix microseconds (int) or an aware datetime, not bool")
    if isinstance(when, datetime.datetime):
        if when.tzinfo is None or when.utcoffset() is None:
            raise _errors.InvalidArgumentError(
                detail="a naive datetime is ambiguous; give it a tzinfo (e.g. timezone.utc)")
        delta = when - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    elif isinstance(when, int):
        us = int(when)
    else:
        raise TypeError(f"a date must be Unix microseconds (int) or an aware datetime, not "
                        f"{type(when).__name__}")
    if not -(2 ** 63) <= us < 2 ** 63:
        raise _errors.InvalidArgumentError(detail=f"date {us} us does not fit int64")
    return us


class _LiveMixin(_PlayerBase):
    """The live and DVR HLS methods of :class:`~fastpix_seek.Player`."""

    def live_seek_window(self) -> LiveSeekWindow:
        """The seekable window now (live HLS), or the seekable range (files).
        ``is_available`` is False when there is no ready item."""
        w = _lib.fpx_live_seek_window()
        _lib.lib.fpx_player_live_seek_window(self._hq(), ctypes.byref(w))
        return LiveSeekWindow._from_c(w)

    def _issue_live_edge(self, entry: _SeekEntry) -> int:
        h = self._h()
        key = self._core.register(entry)
        seek_id = ctypes.c_uint64()
        try:
            _lib.lib.fpx_player_seek_to_live_edge(h, _live_edge_trampoline, key,
                                                  ctypes.byref(seek_id))
        except BaseException:
            self._core.unregister(key)
            raise
        return int(seek_id.value)

    def seek_to_live_edge(self, on_complete: Optional[Callable[[LiveEdgeResult], Any]] = None
                          ) -> int:
        """Seeks (exact) to the live edge, or a file's last frame. ``on_complete`` gets a
        LiveEdgeResult (outcome None and error NO_ITEM when nothing was attached)."""
        _check_callable(on_complete, "on_complete")
        return self._issue_live_edge(_SeekEntry(on_complete=on_complete))

    def seek_to_live_edge_and_wait(self, timeout: Optional[float] = 10.0) -> SeekOutcome:
        """seek_to_live_edge() and wait; returns the outcome, raises the error (e.g.
        NoItemError) when there is none."""
        self._check_can_wait("seek_to_live_edge_and_wait", timeout)
        waiter = _Waiter()
        seek_id = self._issue_live_edge(_SeekEntry(waiter=waiter))
        r = cast(LiveEdgeResult, self._wait(waiter, seek_id, timeout,
                                            "seek_to_live_edge_and_wait"))
        return _live_edge_outcome(r)

    async def seek_to_live_edge_async(self) -> SeekOutcome:
        """Seeks to the live edge (a file's last frame) and awaits the outcome without blocking
        the event loop. NoItemError when nothing is attached."""
        return _live_edge_outcome(cast(LiveEdgeResult,
                                       await self._await_completion(self._issue_live_edge)))

    def _issue_date_seek(self, when: Any, precision: Any, entry: _SeekEntry) -> int:
        us = _unix_us(when)
        prec = _check_precision(precision)._to_c()
        h = self._h()
        key = self._core.register(entry)
        seek_id = ctypes.c_uint64()
        try:
            _lib.lib.fpx_player_seek_to_date(h, us, prec, _date_seek_trampoline, key,
                                             ctypes.byref(seek_id))
        except BaseException:
            self._core.unregister(key)
            raise
        return int(seek_id.value)

    def seek_to_date(self, when: Union[int, "datetime.datetime"],
                     precision: Optional[SeekPrecision] = None,
                     on_complete: Optional[Callable[[DateSeekResult], Any]] = None) -> int:
        """Seeks to a wall-clock date: ``when`` is Unix microseconds (int) or an aware
        datetime. ``on_complete(DateSeekResult)`` runs once: seeked with an outcome, or
        unavailable with a typed reason (not an exception)."""
        _check_callable(on_complete, "on_complete")
        return self._issue_date_seek(when, precision, _SeekEntry(on_complete=on_complete))

    def seek_to_date_and_wait(self, when: Union[int, "datetime.datetime"],
                              precision: Optional[SeekPrecision] = None,
                              timeout: Optional[float] = 10.0) -> DateSeekResult:
        """Seeks to a wall-clock date (Unix microseconds or an aware datetime) through
        EXT-X-PROGRAM-DATE-TIME and blocks until it is decided; returns the DateSeekResult (a
        refusal is returned, not raised)."""
        self._check_can_wait("seek_to_date_and_wait", timeout)
        waiter = _Waiter()
        seek_id = self._issue_date_seek(when, precision, _SeekEntry(waiter=waiter))
        return cast(DateSeekResult, self._wait(waiter, seek_id, timeout,
                                               "seek_to_date_and_wait"))

    async def seek_to_date_async(self, when: Union[int, "datetime.datetime"],
                                 precision: Optional[SeekPrecision] = None) -> DateSeekResult:
        """seek_to_date_and_wait() without blocking the event loop."""
        return cast(DateSeekResult, await self._await_completion(
            lambda entry: self._issue_date_seek(when, precision, entry)))
