"""How the player calls blocking C functions, and the argument checks its concerns share.

:class:`_Runner` runs a blocking call (read_packet, step_frame, seek_wait) on one helper
thread per player while the caller waits in short slices, so Ctrl-C reaches the caller within
about 50 ms even when the call is blocked on I/O.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional

from . import errors as _errors
from .types import SeekPrecision

def _check_callable(fn: Any, what: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{what} must be callable or None, not {type(fn).__name__}")


def _check_precision(precision: Any) -> SeekPrecision:
    if precision is None:
        return SeekPrecision.default()
    if not isinstance(precision, SeekPrecision):
        raise TypeError(f"precision must be a SeekPrecision (SeekPrecision.exact(), "
                        f".at_or_after(), .nearest_keyframe(tol) or .default()), not "
                        f"{type(precision).__name__}")
    return precision

def _timeout_ms(timeout: Optional[float], what: str) -> int:
    if timeout is None:
        return -1
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"{what} must be a number of seconds or None, not "
                        f"{type(timeout).__name__}")
    if timeout != timeout:
        raise ValueError(f"{what} is NaN")
    if timeout == float("inf"):
        return -1
    return max(0, int(round(timeout * 1000)))

#: How long a blocked binding call waits between checks for Ctrl-C (seconds).
_SLICE = 0.05


class _Runner:
    """Runs blocking C calls (read_packet, step_frame, seek_wait) on one helper thread per
    player while the calling thread waits in short slices, so Ctrl-C (KeyboardInterrupt)
    reaches the caller within ~50 ms even when the C call is blocked on I/O. On an interrupt
    the caller runs ``on_interrupt`` (for reads: cancel_pending_seeks, which makes the
    library interrupt the blocked read) and re-raises at once; the helper finishes the call
    and drops its result."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: List[Any] = []
        self._cond = threading.Condition(self._lock)
        self._thread: Optional[threading.Thread] = None
        self._stopped = False

    def run(self, fn: Callable[[], Any], on_interrupt: Optional[Callable[[], Any]] = None) -> Any:
        done = threading.Event()
        box: List[Any] = [None, None]
        with self._cond:
            if self._stopped:
                raise _errors.InvalidHandleError(detail="the player is closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="fastpix_seek-call",
                                                daemon=True)
                self._thread.start()
            self._queue.append((fn, box, done))
            self._cond.notify()
        try:
            while not done.wait(_SLICE):
                pass
        except BaseException:
            if on_interrupt is not None:
                try:
                    on_interrupt()
                except Exception:
                    pass
            raise
        if box[1] is not None:
            raise box[1]
        return box[0]

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopped:
                    self._cond.wait()
                if not self._queue:
                    return
                fn, box, done = self._queue.pop(0)
            try:
                box[0] = fn()
            except BaseException as e:  # handed to the caller
                box[1] = e
            done.set()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
            t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(2.0)
