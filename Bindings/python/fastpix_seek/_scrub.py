"""Scrubbing and stepping: :class:`ScrubSession` (a drag gesture coalesced into one seek),
frame steps and the playhead, as a mixin of :class:`~fastpix_seek.Player`."""

from __future__ import annotations

import asyncio
import ctypes
from fractions import Fraction
from typing import Any, Callable, Optional, cast

from . import _lib
from . import errors as _errors
from ._base import _PlayerBase
from ._calls import _check_callable, _check_precision
from ._delivery import _SeekEntry, _Waiter, _scrub_trampoline
from .types import (DeliveryMode, FrameStepDirection, FrameStepResult, ScrubResult, ScrubState,
                    SeekPrecision, TimeLike, _enum, from_fpx_time, to_fpx_time)

__all__ = ["ScrubSession"]


class _ScrubMixin(_PlayerBase):
    """Scrub sessions, frame steps and the playhead of :class:`~fastpix_seek.Player`."""

    def scrub_session(self) -> "ScrubSession":
        """The player's scrub session (see :class:`ScrubSession`). NoSeekManagerError before
        setup_seek_manager()."""
        h = _lib.ScrubSessionHandle()
        _lib.lib.fpx_player_scrub_session(self._h(), ctypes.byref(h))
        return ScrubSession(self, h)

    def step_frame(self, direction: FrameStepDirection = FrameStepDirection.FORWARD,
                   count: int = 1) -> FrameStepResult:
        """Steps ``count`` (>= 1) frames from the playhead along the reference stream's frame
        grid. A refusal (``did_step`` False, with a ``reason``) is returned, not raised.
        Blocking; not callable from inside a callback."""
        if isinstance(direction, bool) or not isinstance(direction, int):
            raise TypeError(f"direction must be a FrameStepDirection, not "
                            f"{type(direction).__name__}")
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"count must be an int, not {type(count).__name__}")
        if not 1 <= count < 2 ** 31:
            raise _errors.InvalidArgumentError(detail=f"count {count} must be in [1, 2**31)")
        if not -(2 ** 31) <= int(direction) < 2 ** 31:
            raise _errors.UnknownEnumError(detail=f"direction {int(direction)}")
        h = self._h()

        def call() -> Any:
            r = _lib.fpx_frame_step_result()
            _lib.lib.fpx_player_step_frame(h, int(direction), count, ctypes.byref(r))
            return r
        return FrameStepResult._from_c(self._blocking(call))

    def current_time(self) -> Fraction:
        """The playhead on the item timeline: the frame of the last landed seek or step, or
        the first frame. Blocking the first time."""
        t = _lib.fpx_time()
        _lib.lib.fpx_player_current_time(self._hq(), ctypes.byref(t))
        f = from_fpx_time(t)
        if f is None:
            raise _errors.InternalError(detail=f"non-numeric playhead {t!r}")
        return f


class ScrubSession:
    """A player's scrub session: coalesces a drag gesture into exactly one seek.

        s = player.scrub_session()
        s.begin(now)              # gesture began
        s.update(t)               # at touch rate: issues no seek
        s.end(t, precision, on_complete=fn)   # the one seek; or end_and_wait / end_async
        s.cancel()                # gesture abandoned

    State changes reach listeners' on_scrub_state_changed, throttled positions
    on_scrub_position_changed. Valid as long as its player; methods raise InvalidHandleError
    once the player is closed. Times are converted like seek targets.
    """

    def __init__(self, player: _PlayerBase, handle: _lib.ScrubSessionHandle) -> None:
        self._player = player
        self._handle = handle

    def _s(self) -> _lib.ScrubSessionHandle:
        self._player._h()  # raises when the player is closed
        return self._handle

    @property
    def handle(self) -> _lib.ScrubSessionHandle:
        """The raw fpx_scrub_session handle."""
        return self._handle

    def begin(self, at: TimeLike) -> None:
        """Begins (or restarts) a gesture at ``at``."""
        _lib.lib.fpx_scrub_begin(self._s(), to_fpx_time(at, "scrub time"))

    def update(self, to: TimeLike) -> None:
        """Records a sample; issues no seek. InvalidStateError unless scrubbing."""
        _lib.lib.fpx_scrub_update(self._s(), to_fpx_time(to, "scrub time"))

    def _end(self, at: Any, precision: Any, entry: _SeekEntry) -> int:
        t = to_fpx_time(at, "scrub time")
        prec = _check_precision(precision)._to_c()
        h = self._s()
        core = self._player._core
        key = core.register(entry)
        seek_id = ctypes.c_uint64()
        try:
            _lib.lib.fpx_scrub_end(h, t, prec, _scrub_trampoline, key, ctypes.byref(seek_id))
        except BaseException:
            core.unregister(key)
            raise
        return int(seek_id.value)

    def end(self, at: TimeLike, precision: Optional[SeekPrecision] = None,
            on_complete: Optional[Callable[[ScrubResult], Any]] = None) -> int:
        """Ends the gesture with exactly one seek to ``at``; returns its seek id.
        ``on_complete(ScrubResult)`` runs once when that seek completes or is cancelled."""
        _check_callable(on_complete, "on_complete")
        return self._end(at, precision, _SeekEntry(on_complete=on_complete))

    def end_and_wait(self, at: TimeLike, precision: Optional[SeekPrecision] = None,
                     timeout: Optional[float] = 10.0) -> ScrubResult:
        """end() and block until its result (like Player.seek_and_wait)."""
        self._player._check_can_wait("end_and_wait", timeout)
        waiter = _Waiter()
        seek_id = self._end(at, precision, _SeekEntry(waiter=waiter))
        return cast(ScrubResult, self._player._wait(waiter, seek_id, timeout, "end_and_wait"))

    async def end_async(self, at: TimeLike,
                        precision: Optional[SeekPrecision] = None) -> ScrubResult:
        """end() and await its result without blocking the loop (like Player.seek_async)."""
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[ScrubResult]" = loop.create_future()
        if self._player.delivery == DeliveryMode.HOST:
            self._player.attach_event_loop(loop)
        self._end(at, precision, _SeekEntry(loop=loop, future=fut))
        return await fut

    def cancel(self) -> None:
        """Abandons the gesture: back to IDLE; a settling seek is cancelled."""
        _lib.lib.fpx_scrub_cancel(self._s())

    @property
    def state(self) -> ScrubState:
        """IDLE, SCRUBBING or SETTLING (between end() and its seek's completion)."""
        st = ctypes.c_int()
        _lib.lib.fpx_scrub_get_state(self._s(), ctypes.byref(st), None)
        return cast(ScrubState, _enum(ScrubState, st.value))

    @property
    def is_active(self) -> bool:
        """True while scrubbing or settling."""
        active = ctypes.c_int()
        _lib.lib.fpx_scrub_get_state(self._s(), None, ctypes.byref(active))
        return bool(active.value)

    @property
    def position_throttle(self) -> Fraction:
        """Minimum interval between position events, in seconds (0: every update)."""
        t = _lib.fpx_time()
        _lib.lib.fpx_scrub_get_position_throttle(self._s(), ctypes.byref(t))
        f = from_fpx_time(t)
        return f if f is not None else Fraction(0)

    @position_throttle.setter
    def position_throttle(self, seconds: TimeLike) -> None:
        _lib.lib.fpx_scrub_set_position_throttle(self._s(), to_fpx_time(seconds, "throttle"))

    def __repr__(self) -> str:
        return f"<fastpix_seek.ScrubSession of {self._player!r}>"
