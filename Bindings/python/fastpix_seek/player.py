"""The Pythonic layer: :class:`Player`, listeners and callback delivery.

Callbacks and threads
---------------------
By default (``DeliveryMode.THREAD``) the library runs every callback on one library thread per
player. ctypes ``CFUNCTYPE`` trampolines take the GIL for the duration of each callback, so
callbacks are ordinary Python code running on a foreign thread; they must return quickly and
must not block on the player (``seek_and_wait`` from inside a callback raises
:class:`~fastpix_seek.errors.InCallbackError` instead of deadlocking).

With ``Player(delivery=DeliveryMode.HOST)`` nothing runs until the host calls
:meth:`Player.dispatch_events` (poll :meth:`Player.event_fd`, or pass ``wakeup=``);
:meth:`Player.seek_and_wait` pumps events itself and :meth:`Player.seek_async` attaches the
event fd to the running asyncio loop.

How callbacks find Python objects
---------------------------------
There is exactly ONE ``CFUNCTYPE`` object per C callback type, created at import and kept
alive for the life of the process (module globals below). The ``userdata`` the library echoes
is a plain integer key, never a Python object pointer. Each player has a registry dict
(``key -> entry``); a module-level dict maps each key to its player's registry. A callback
whose key is no longer registered (its player was collected, or a stale event) is ignored.

Lifetimes: a registered listener object and an ``on_complete`` callable are held *strongly*
by the registry until the library says it is done with them: a seek entry until its one
completion, a listener until the library's ``destroy_notify`` (after ``remove_listener`` or
close). The user may drop every reference of their own at any time, even while events are in
flight. (Holding Python objects only weakly, or letting a ``CFUNCTYPE`` object be garbage
collected while C still has its address, is how ctypes bindings crash the interpreter: C
would call freed memory. Neither can happen here.)

Because of these strong references, a listener or callback that refers back to its Player
keeps that Player alive until it is closed: use ``with Player(...)`` or call ``close()``
(players still open at interpreter exit are closed by an ``atexit`` hook, so no library
thread ever calls into a finalizing interpreter).

Exceptions raised inside user callbacks cannot propagate through C. They are never lost:

* An exception raised by a listener for a seek's own events (``on_seek_clamped``,
  ``on_seek_accuracy``) travels with that seek to its completion. If a call waits for that
  seek (:meth:`Player.seek_and_wait`, :meth:`Player.seek_async` and the other ``*_and_wait``
  and ``*_async`` methods), the waiting call re-raises it after the seek completed.
* Every other exception (``on_complete`` callbacks, item-status and scrub/step listener
  events, a seek nobody waits for, a second exception of a waited seek) is appended to
  :attr:`Player.callback_errors` (the last 1000 are kept) and passed to the handler set
  with :func:`set_callback_exception_handler` (default: a ``sys.unraisablehook``-style
  report to stderr).

Deadlock rule: never call into the library while holding a lock a trampoline may need. The
trampolines take no lock that is ever held across a library call (only GIL-atomic dict
operations and a waiter's private lock held for a few stores), because the library may run a
callback (the HOST-mode ``wakeup``) on a thread that holds one of its own locks.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import datetime
import itertools
import os
import select
import struct
import sys
import threading
import time
import traceback
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import (TYPE_CHECKING, Any, AsyncIterator, Callable, Dict, Generator, Iterable, Iterator, List, Optional, Protocol, Tuple, Union,
                    cast)

from . import _lib
from . import errors as _errors
from .item_errors import StreamIndexError, item_error

_INT64_MAX = 2**63 - 1
from .types import _SET_R, _SET_TB, _SET_ORIGIN
from .types import (DateSeekResult, DeliveryMode, IndexMode, FrameStepResult, LiveEdgeResult,
                    LiveSeekWindow, ItemInfo, ItemStatus, ItemStatusInfo, Packet, HLSVariant, HLSRendition,
                    PlayerStats, ScrubPosition, ScrubResult, ScrubState, SeekAccuracy, SeekClamp,
                    SeekOutcome, SeekPrecision, StreamInfo, TimeLike, _enum, from_fpx_time,
                    to_fpx_time, FrameStepDirection)

if TYPE_CHECKING:
    from .frames import FrameAt, FrameRange, FrameReader

__all__ = [
    "Player", "ScrubSession", "SeekPrecisionListener", "set_callback_exception_handler",
    "get_callback_exception_handler", "default_callback_exception_handler",
    "CallbackExceptionHandler", "MAX_CALLBACK_ERRORS",
]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
SeekCallback = Callable[[SeekOutcome], Any]

#: How many exceptions Player.callback_errors keeps (oldest dropped first).
MAX_CALLBACK_ERRORS = 1000

# ----------------------------------------------------------------------------------------
# Listener base class
# ----------------------------------------------------------------------------------------


class SeekPrecisionListener:
    """Base class for listeners: every method is a no-op; override what you need.

    Any object with some of these methods works with :meth:`Player.add_listener`; missing
    methods are treated as no-ops. Methods run on the delivery thread (see the module doc).
    """

    def on_seek_accuracy(self, accuracy: SeekAccuracy, outcome: SeekOutcome) -> None:
        """A seek finished (really landed). Before its completion callback."""

    def on_seek_clamped(self, clamp: SeekClamp, seek_id: int) -> None:
        """A seek's target was moved into the seekable range. First event of that seek."""

    def on_scrub_state_changed(self, state: ScrubState) -> None:
        """Scrub gesture state."""

    def on_scrub_position_changed(self, position: ScrubPosition) -> None:
        """Throttled positions during a drag."""

    def on_frame_step(self, result: FrameStepResult) -> None:
        """A frame step happened or could not."""

    def on_item_status(self, status: ItemStatusInfo) -> None:
        """Item status changes (LOADING, then READY or FAILED), in order."""

    def on_index_complete(self, frames: int) -> None:
        """``IndexMode.FULL``: the current item's background index reached its end;
        ``frames`` reference-stream frames are indexed. At most once per item."""


# ----------------------------------------------------------------------------------------
# Exception handling
# ----------------------------------------------------------------------------------------

class CallbackExceptionHandler(Protocol):
    def __call__(self, exc: BaseException, player: Optional["Player"], where: str) -> Any: ...


def default_callback_exception_handler(exc: BaseException, player: Optional["Player"],
                                       where: str) -> None:
    """Reports like ``sys.unraisablehook``: 'Exception ignored in ...' and the traceback.

    (The exception has already been appended to ``player.callback_errors``.)
    """
    try:
        stream = sys.stderr
        if stream is None:
            return
        stream.write(f"Exception ignored in fastpix_seek {where}"
                     + (f" of {player!r}" if player is not None else "") + ":\n")
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=stream)
        stream.flush()
    except Exception:  # never let reporting fail a callback
        pass


_handler: CallbackExceptionHandler = default_callback_exception_handler


def set_callback_exception_handler(
        fn: Optional[CallbackExceptionHandler]) -> CallbackExceptionHandler:
    """Sets the handler ``fn(exc, player, where)`` for exceptions raised in callbacks.

    It runs on the thread that ran the callback, after the exception was appended to
    ``player.callback_errors``; ``player`` may be None if the Player was already collected.
    Exceptions re-raised by ``seek_and_wait``/``seek_async`` do not reach it. ``None``
    restores :func:`default_callback_exception_handler`. Returns the previous handler.
    """
    global _handler
    if fn is not None and not callable(fn):
        raise TypeError("the callback exception handler must be callable or None")
    prev = _handler
    _handler = fn if fn is not None else default_callback_exception_handler
    return prev


def get_callback_exception_handler() -> CallbackExceptionHandler:
    """The handler that receives exceptions raised in callbacks and not re-raised by a waiting
    call."""
    return _handler


# ----------------------------------------------------------------------------------------
# Registry
# ----------------------------------------------------------------------------------------

_next_key = itertools.count(1).__next__  # GIL-atomic; keys are never reused
#: key -> the registry (_Core) of the player that owns the key.
_owners: Dict[int, "_Core"] = {}


class _Waiter:
    """A thread blocked in seek_and_wait."""

    __slots__ = ("lock", "event", "outcome", "errors", "abandoned")

    def __init__(self) -> None:
        # Held only for a few attribute stores, never across a library call.
        self.lock = threading.Lock()
        self.event = threading.Event()
        self.outcome: Any = None
        self.errors: List[BaseException] = []
        self.abandoned = False


class _SeekEntry:
    __slots__ = ("on_complete", "waiter", "loop", "future")

    def __init__(self, on_complete: Optional[Callable[[Any], Any]] = None,
                 waiter: Optional[_Waiter] = None,
                 loop: Optional[asyncio.AbstractEventLoop] = None,
                 future: "Optional[asyncio.Future[Any]]" = None) -> None:
        self.on_complete = on_complete
        self.waiter = waiter
        self.loop = loop
        self.future = future


class _ListenerEntry:
    __slots__ = ("obj", "listener_id")

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.listener_id: Optional[int] = None


class _WakeupEntry:
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn


_Entry = Union[_SeekEntry, _ListenerEntry, _WakeupEntry]


class _Core:
    """A player's registry and callback state. Entries reference this, never the Player, so
    an unreferenced Player can be collected (and closes itself)."""

    def __init__(self) -> None:
        self.registry: Dict[int, _Entry] = {}
        self.errors: List[BaseException] = []
        #: seek_id -> exceptions of listener callbacks, handed to that seek's completion.
        self.deferred: Dict[int, List[BaseException]] = {}
        #: thread ident -> depth, while that thread runs one of this player's callbacks.
        self.delivering: Dict[int, int] = {}
        self.player_ref: Optional["weakref.ReferenceType[Player]"] = None

    # -- registry ----------------------------------------------------------------------
    def register(self, entry: _Entry) -> int:
        key = _next_key()
        self.registry[key] = entry
        _owners[key] = self
        return key

    def unregister(self, key: int) -> Optional[_Entry]:
        _owners.pop(key, None)
        return self.registry.pop(key, None)

    def in_callback(self) -> bool:
        return self.delivering.get(threading.get_ident(), 0) > 0

    # -- errors -------------------------------------------------------------------------
    def report(self, exc: BaseException, where: str) -> None:
        self.errors.append(exc)
        if len(self.errors) > MAX_CALLBACK_ERRORS:
            del self.errors[: len(self.errors) - MAX_CALLBACK_ERRORS]
        player = self.player_ref() if self.player_ref is not None else None
        try:
            _handler(exc, player, where)
        except BaseException as e:  # a failing handler must not escape into C
            default_callback_exception_handler(e, player, "callback exception handler")


def _enter(core: _Core) -> int:
    ident = threading.get_ident()
    core.delivering[ident] = core.delivering.get(ident, 0) + 1
    return ident


def _leave(core: _Core, ident: int) -> None:
    n = core.delivering.get(ident, 1) - 1
    if n <= 0:
        core.delivering.pop(ident, None)
    else:
        core.delivering[ident] = n


def _lookup(userdata: Optional[int]) -> Tuple[Optional[_Core], Optional[_Entry]]:
    key = userdata or 0
    core = _owners.get(key)
    if core is None:
        return None, None
    return core, core.registry.get(key)


def _last_resort(exc: BaseException, where: str) -> None:
    try:
        default_callback_exception_handler(exc, None, where)
    except BaseException:
        pass


# ----------------------------------------------------------------------------------------
# Trampolines: one CFUNCTYPE object per callback type, alive for the life of the process.
# Every body catches BaseException: nothing may unwind into C.
# ----------------------------------------------------------------------------------------

def _deliver(core: _Core, entry: _SeekEntry, result: Any, seek_id: int,
             errors: List[BaseException]) -> None:
    """Hands a completion (a SeekOutcome, or a ScrubResult) to whoever waits for it."""
    if entry.waiter is not None:
        w = entry.waiter
        with w.lock:
            if not w.abandoned:
                w.outcome = result
                w.errors = errors
                w.event.set()
                return
        for e in errors:  # nobody waits any more
            core.report(e, f"listener callback of seek {seek_id}")
        return
    if entry.future is not None and entry.loop is not None:
        fut, loop = entry.future, entry.loop
        try:
            loop.call_soon_threadsafe(_resolve_future, core, fut, result, seek_id, errors)
        except RuntimeError:  # the loop is closed: nobody awaits any more
            for e in errors:
                core.report(e, f"listener callback of seek {seek_id}")
        return
    for e in errors:
        core.report(e, f"listener callback of seek {seek_id}")
    if entry.on_complete is not None:
        try:
            entry.on_complete(result)
        except BaseException as e:
            core.report(e, f"on_complete callback of seek {seek_id}")


def _resolve_future(core: _Core, fut: "asyncio.Future[Any]", result: Any, seek_id: int,
                    errors: List[BaseException]) -> None:
    if fut.done():  # cancelled by the awaiting task
        for e in errors:
            core.report(e, f"listener callback of seek {seek_id}")
        return
    if errors:
        for e in errors[1:]:
            core.report(e, f"listener callback of seek {seek_id}")
        _note(errors[0], seek_id, "seek_async")
        fut.set_exception(errors[0])
    else:
        fut.set_result(result)


def _fail_future(fut: "asyncio.Future[Any]", exc: BaseException) -> None:
    if not fut.done():
        fut.set_exception(exc)


def _note(exc: BaseException, seek_id: int, where: str) -> None:
    if hasattr(exc, "add_note"):
        exc.add_note(f"(raised in a fastpix_seek listener callback of seek {seek_id}, "
                     f"re-raised by {where})")


def _complete(userdata: Optional[int], build: Callable[[], Tuple[Any, int]],
              where: str) -> None:
    """Shared body of the one-shot completion trampolines: pops the entry (exactly one
    completion per key), builds the Python result, hands it over."""
    try:
        key = userdata or 0
        core = _owners.pop(key, None)
        if core is None:
            return
        entry = core.registry.pop(key, None)
        if not isinstance(entry, _SeekEntry):
            return
        ident = _enter(core)
        try:
            result, seek_id = build()
            errors = core.deferred.pop(seek_id, []) if seek_id else []
            _deliver(core, entry, result, seek_id, errors)
        except BaseException as e:
            core.report(e, where)
        finally:
            _leave(core, ident)
    except BaseException as e:
        _last_resort(e, f"{where} trampoline")


def _seek_trampoline_py(outcome_p: Any, userdata: Optional[int]) -> None:
    def build() -> Tuple[Any, int]:
        o = SeekOutcome._from_c(outcome_p.contents)
        return o, o.seek_id
    _complete(userdata, build, "seek completion")


def _scrub_trampoline_py(result_p: Any, userdata: Optional[int]) -> None:
    def build() -> Tuple[Any, int]:
        r = ScrubResult._from_c(result_p.contents)
        return r, (r.outcome.seek_id if r.outcome is not None else 0)
    _complete(userdata, build, "scrub end callback")


def _live_edge_trampoline_py(outcome_p: Any, error: int, userdata: Optional[int]) -> None:
    def build() -> Tuple[Any, int]:
        o = SeekOutcome._from_c(outcome_p.contents) if outcome_p else None
        return LiveEdgeResult(o, int(error)), (o.seek_id if o is not None else 0)
    _complete(userdata, build, "live edge completion")


def _date_seek_trampoline_py(result_p: Any, userdata: Optional[int]) -> None:
    def build() -> Tuple[Any, int]:
        r = DateSeekResult._from_c(result_p.contents)
        return r, (r.outcome.seek_id if r.outcome is not None else 0)
    _complete(userdata, build, "date seek completion")


def _listener_call(userdata: Optional[int], method: str, build: Callable[[], Tuple[Any, ...]],
                   seek_id: Optional[int] = None) -> None:
    try:
        core, entry = _lookup(userdata)
        if core is None or not isinstance(entry, _ListenerEntry):
            return
        fn = getattr(entry.obj, method, None)
        if fn is None:
            return
        ident = _enter(core)
        try:
            fn(*build())
        except BaseException as e:
            if seek_id is not None:
                # Travels with the seek to its completion (always delivered after this).
                core.deferred.setdefault(seek_id, []).append(e)
            else:
                core.report(e, f"listener {method}")
        finally:
            _leave(core, ident)
    except BaseException as e:
        _last_resort(e, f"listener trampoline {method}")


def _on_seek_accuracy_py(accuracy_p: Any, outcome_p: Any, userdata: Optional[int]) -> None:
    try:
        oc = outcome_p.contents
        acc = SeekAccuracy._from_c(accuracy_p.contents)
        outcome = SeekOutcome._from_c(oc)
        _listener_call(userdata, "on_seek_accuracy", lambda: (acc, outcome), int(oc.seek_id))
    except BaseException as e:
        _last_resort(e, "on_seek_accuracy trampoline")


def _on_seek_clamped_py(clamp_p: Any, seek_id: int, userdata: Optional[int]) -> None:
    try:
        clamp = SeekClamp._from_c(clamp_p.contents)
        _listener_call(userdata, "on_seek_clamped", lambda: (clamp, int(seek_id)), int(seek_id))
    except BaseException as e:
        _last_resort(e, "on_seek_clamped trampoline")


def _on_scrub_state_changed_py(state: int, userdata: Optional[int]) -> None:
    _listener_call(userdata, "on_scrub_state_changed",
                   lambda: (_enum(ScrubState, state),))


def _on_scrub_position_changed_py(position_p: Any, userdata: Optional[int]) -> None:
    _listener_call(userdata, "on_scrub_position_changed",
                   lambda: (ScrubPosition._from_c(position_p.contents),))


def _on_frame_step_py(result_p: Any, userdata: Optional[int]) -> None:
    _listener_call(userdata, "on_frame_step",
                   lambda: (FrameStepResult._from_c(result_p.contents),))


def _on_item_status_py(status_p: Any, userdata: Optional[int]) -> None:
    _listener_call(userdata, "on_item_status",
                   lambda: (ItemStatusInfo._from_c(status_p.contents),))


def _on_index_complete_py(frames: int, userdata: Optional[int]) -> None:
    _listener_call(userdata, "on_index_complete", lambda: (int(frames),))


def _destroy_notify_py(userdata: Optional[int]) -> None:
    # The library dropped the listener: release our strong reference.
    try:
        key = userdata or 0
        core = _owners.get(key)
        if core is not None:
            core.unregister(key)
    except BaseException as e:
        _last_resort(e, "destroy_notify trampoline")


def _wakeup_py(userdata: Optional[int]) -> None:
    try:
        core, entry = _lookup(userdata)
        if core is None or not isinstance(entry, _WakeupEntry):
            return
        try:
            entry.fn()
        except BaseException as e:
            core.report(e, "wakeup callback")
    except BaseException as e:
        _last_resort(e, "wakeup trampoline")


# The ONE CFUNCTYPE object per callback type. Module globals, never collected: C keeps their
# addresses for the life of the process (a collected trampoline called from C would crash).
_seek_trampoline = _lib.fpx_seek_callback(_seek_trampoline_py)
_scrub_trampoline = _lib.fpx_scrub_callback(_scrub_trampoline_py)
_live_edge_trampoline = _lib.fpx_live_edge_callback(_live_edge_trampoline_py)
_date_seek_trampoline = _lib.fpx_date_seek_callback(_date_seek_trampoline_py)
_on_seek_accuracy = _lib.fpx_on_seek_accuracy(_on_seek_accuracy_py)
_on_seek_clamped = _lib.fpx_on_seek_clamped(_on_seek_clamped_py)
_on_scrub_state_changed = _lib.fpx_on_scrub_state_changed(_on_scrub_state_changed_py)
_on_scrub_position_changed = _lib.fpx_on_scrub_position_changed(_on_scrub_position_changed_py)
_on_frame_step = _lib.fpx_on_frame_step(_on_frame_step_py)
_on_item_status = _lib.fpx_on_item_status(_on_item_status_py)
_destroy_notify = _lib.fpx_destroy_notify(_destroy_notify_py)
_on_index_complete = _lib.fpx_on_index_complete(_on_index_complete_py)
_wakeup = _lib.fpx_wakeup(_wakeup_py)


# ----------------------------------------------------------------------------------------
# Players
# ----------------------------------------------------------------------------------------

_live_players: "weakref.WeakSet[Player]" = weakref.WeakSet()


@atexit.register
def _close_all_at_exit() -> None:
    # No library thread may call into a finalizing interpreter.
    for p in list(_live_players):
        try:
            p.close()
        except BaseException:
            pass


def _check_callable(fn: Any, what: str) -> None:
    if fn is not None and not callable(fn):
        raise TypeError(f"{what} must be callable or None, not {type(fn).__name__}")


def _check_precision(precision: Any) -> SeekPrecision:
    if precision is None:
        return SeekPrecision.default()
    if not isinstance(precision, SeekPrecision):
        raise TypeError(f"precision must be a SeekPrecision (SeekPrecision.exact(), "
                        f".nearest_keyframe(tol) or .default()), not {type(precision).__name__}")
    return precision


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


class _LoopReader:
    """A duplicate of a HOST player's event fd, watched by an asyncio loop. detach() runs on
    the loop's thread only, and only once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self.loop = loop
        self.fd = fd
        self.done = False

    def detach(self) -> None:
        if self.done:
            return
        self.done = True
        try:
            self.loop.remove_reader(self.fd)
        finally:
            os.close(self.fd)

    def close_fd(self) -> None:
        if not self.done:
            self.done = True
            os.close(self.fd)


_MISSING: Any = object()
_new_packet = object.__new__
_SET_PACKET = (_SET_R, _SET_TB, _SET_ORIGIN)
_RAW_READ: Any = None


def _raw_read_packet() -> Any:
    """fpx_player_read_packet as a second ctypes function object taking two c_void_p (the
    handle's value, the struct's address) and returning the fpx_error unchecked: the
    packet readers' inner loop, where argument conversion and errcheck cost more than the
    C call."""
    global _RAW_READ
    fn = _RAW_READ
    if fn is None:
        fn = type(_lib.lib.fpx_player_read_packet)(("fpx_player_read_packet", _lib.lib))
        fn.argtypes = None  # type: ignore[assignment]  # called with two ctypes.c_void_p objects only
        fn.restype = ctypes.c_int
        _RAW_READ = fn
    return fn

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


class Player:
    """A FastPixSeek player: one media item, precision seeks, packets.

    ``Player(url=None, *, delivery=DeliveryMode.THREAD, io_timeout=10.0, wakeup=None,
    seek_manager=True, protocols=None, max_buffer_bytes=None, index_mode=IndexMode.KEYFRAMES)``

    * ``url``: opened at once when given (see :meth:`open`); wait with :meth:`wait_item`.
    * ``delivery``: where callbacks run (see the module doc).
    * ``io_timeout``: bound on any one blocking I/O operation, in seconds (0: no bound).
    * ``wakeup``: HOST mode only, a callable run on a library thread when events become
      pending. It must not call into the player; schedule a dispatch instead.
    * ``seek_manager``: call :meth:`setup_seek_manager` right away (the C default is off:
      without it every seek completes with ``FinishReason.NO_SEEK_MANAGER``).
    * ``protocols``: the protocols the player may open (``fpx_player_config.protocol_whitelist``),
      e.g. ``("https",)``; None for the library's default ``file, http, https``. Content from
      the network may name only http/https whatever this says. A refused URL raises
      :class:`~fastpix_seek.errors.ProtocolNotAllowedError` (as the item's error).
    * ``max_buffer_bytes``: cap on buffered media (``fpx_player_config.max_buffer_bytes``);
      None or 0 for the library's default (64 MiB). Exceeding it is
      :class:`~fastpix_seek.errors.TooLargeError`.
    * ``index_mode``: :class:`~fastpix_seek.IndexMode` (``fpx_player_config.index_mode``):
      ``FULL`` indexes the whole file in the background so later seeks resolve from memory.
    * ``hls_variant``, ``hls_max_bandwidth``, ``hls_max_height``: which variant of an HLS master
      playlist plays (``fpx_player_config.hls_*``): ``hls_variant`` an index of
      :meth:`hls_variants` (0-based; an I-frame one fails the open), else the highest
      bandwidth within the caps; None: no choice, no cap.
    * ``hls_audio``: which audio rendition plays (``fpx_player_config.hls_audio``): an index
      of :meth:`hls_renditions` (0-based; it must be an AUDIO one), -1 for no separate audio,
      None for the automatic choice (the variant's AUDIO group: DEFAULT, else AUTOSELECT,
      else the first). A rendition with its own URI is a stream of the item.

    ``io_timeout`` values that int64 milliseconds cannot hold raise
    :class:`~fastpix_seek.errors.InvalidArgumentError` (never a silent wrap to "no bound").

    A context manager; :meth:`close` is idempotent and also runs when the Player is garbage
    collected and at interpreter exit. Methods are thread-safe like the C API. Calling any
    method but ``close`` on a closed player raises
    :class:`~fastpix_seek.errors.InvalidHandleError`.
    """

    def __init__(self, url: Optional[PathLike] = None, *,
                 delivery: DeliveryMode = DeliveryMode.THREAD,
                 io_timeout: Optional[float] = 10.0,
                 wakeup: Optional[Callable[[], Any]] = None,
                 seek_manager: bool = True,
                 protocols: Optional[Iterable[str]] = None,
                 max_buffer_bytes: Optional[int] = None,
                 index_mode: IndexMode = IndexMode.KEYFRAMES,
                 hls_variant: Optional[int] = None,
                 hls_max_bandwidth: Optional[int] = None,
                 hls_max_height: Optional[int] = None,
                 hls_audio: Optional[int] = None) -> None:
        self._handle: Optional[_lib.PlayerHandle] = None
        self._core = _Core()
        self._close_lock = threading.Lock()
        # Serialises fpx_player_read_packet with the copy of its payload: a packet's
        # bytes are valid only until the next read on the player (seek.h, section 5),
        # so another thread's read must not run between our read and our copy.
        self._read_lock = threading.Lock()
        self._runner = _Runner()
        # packets() reads ahead in batches (one helper-thread hop per batch); what it read
        # but has not handed out waits here, for it, the next packets() or read_packet().
        # _gen counts the calls that may move the packet stream (every method that takes
        # the handle with _h()); _pre_gen is its value when _pre was read (see _take()).
        self._gen = 0
        self._pre: "deque[Tuple[Optional[bytes], Any]]" = deque()
        self._pre_gen = 0
        self._continuation = False  # set_continuation(): read-ahead goes back before moves
        self._live: Optional[bool] = None  # the current item is live HLS (read one by one)
        # The one fpx_packet the readers fill (under _read_lock), unpacked in one call.
        self._pkt = _lib.fpx_packet()
        self._pkt.struct_size = ctypes.sizeof(self._pkt)
        self._pkt_ref = ctypes.byref(self._pkt)
        self._listener_keys: Dict[int, int] = {}
        self._tb_cache: Dict[int, Optional[Fraction]] = {}
        self._origin: Optional[Fraction] = None
        self._origin_known = False
        self._origins: Dict[int, Fraction] = {}
        self._ref_tb: Optional[Fraction] = None
        self._loop_reader: Optional[_LoopReader] = None
        #: One thread for this player's blocking calls made from asyncio (created lazily), so
        #: they run in the order they were awaited and never on the event loop.
        self._async_executor: Optional[ThreadPoolExecutor] = None
        self._async_lock = threading.Lock()

        if isinstance(delivery, bool) or not isinstance(delivery, int):
            raise TypeError(f"delivery must be a DeliveryMode, not {type(delivery).__name__}")
        _check_callable(wakeup, "wakeup")
        cfg = _lib.fpx_player_config()
        _lib.lib.fpx_player_config_init_size(ctypes.byref(cfg), ctypes.sizeof(cfg))
        cfg.delivery = int(delivery)
        if io_timeout is not None:
            if isinstance(io_timeout, bool) or not isinstance(io_timeout, (int, float)):
                raise TypeError(f"io_timeout must be seconds (a number) or None, not "
                                f"{type(io_timeout).__name__}")
            if io_timeout != io_timeout or io_timeout in (float("inf"), float("-inf")):
                raise _errors.InvalidArgumentError(detail=f"io_timeout is {io_timeout!r}")
            ms = round(io_timeout * 1000)
            # Refuse what int64 milliseconds cannot hold (ctypes would wrap it silently);
            # negative values go to the library, which refuses them.
            if not -_INT64_MAX - 1 <= ms <= _INT64_MAX:
                raise _errors.InvalidArgumentError(
                    detail=f"io_timeout is {io_timeout!r}: must be 0 <= seconds <= {_INT64_MAX // 1000}")
            cfg.io_timeout_ms = int(ms)
        else:
            cfg.io_timeout_ms = 0
        if protocols is not None:
            if isinstance(protocols, (str, bytes)):
                raise TypeError("protocols must be an iterable of protocol names, e.g. ('file', 'https')")
            names = [str(n) for n in protocols]
            self._protocols = ",".join(names).encode("ascii", "replace")
            cfg.protocol_whitelist = self._protocols
        if max_buffer_bytes is not None:
            if isinstance(max_buffer_bytes, bool) or not isinstance(max_buffer_bytes, int):
                raise TypeError("max_buffer_bytes must be an int (bytes)")
            if not 0 <= max_buffer_bytes <= _INT64_MAX:
                raise _errors.InvalidArgumentError(detail=f"max_buffer_bytes is {max_buffer_bytes!r}")
            cfg.max_buffer_bytes = max_buffer_bytes
        if isinstance(index_mode, bool) or not isinstance(index_mode, int):
            raise TypeError(f"index_mode must be an IndexMode, not {type(index_mode).__name__}")
        if not -2 ** 31 <= int(index_mode) < 2 ** 31:
            raise _errors.UnknownEnumError(detail=f"index_mode is {index_mode!r}")
        cfg.index_mode = int(index_mode)
        # HLS variant choice (fpx_player_config.hls_*): hls_variant is 0-based here, as
        # HLSVariant.index; the C field counts from 1 (0: choose by the caps).
        for name, value, cap in (("hls_variant", hls_variant, 2 ** 31 - 2),
                                 ("hls_max_bandwidth", hls_max_bandwidth, _INT64_MAX),
                                 ("hls_max_height", hls_max_height, 2 ** 31 - 1)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int or None, not {type(value).__name__}")
            if not 0 <= value <= cap:
                raise _errors.InvalidArgumentError(detail=f"{name} is {value!r}")
        if hls_variant is not None:
            cfg.hls_variant = hls_variant + 1
        if hls_max_bandwidth is not None:
            cfg.hls_max_bandwidth = hls_max_bandwidth
        if hls_max_height is not None:
            cfg.hls_max_height = hls_max_height
        if hls_audio is not None:
            if isinstance(hls_audio, bool) or not isinstance(hls_audio, int):
                raise TypeError(f"hls_audio must be an int or None, not {type(hls_audio).__name__}")
            if not -1 <= hls_audio <= 2 ** 31 - 2:
                raise _errors.InvalidArgumentError(detail=f"hls_audio is {hls_audio!r}")
            cfg.hls_audio = -1 if hls_audio == -1 else hls_audio + 1
        if wakeup is not None:
            cfg.wakeup = _wakeup
            cfg.wakeup_userdata = self._core.register(_WakeupEntry(wakeup))
        handle = _lib.PlayerHandle()
        try:
            _lib.lib.fpx_player_create(ctypes.byref(cfg), ctypes.byref(handle))
        except BaseException:
            self._release_core()
            raise
        self._handle = handle
        self._delivery = _enum(DeliveryMode, int(delivery))
        self._core.player_ref = weakref.ref(self)
        _live_players.add(self)
        try:
            if seek_manager:
                self.setup_seek_manager()
            if url is not None:
                self.open(url)
        except BaseException:
            self.close()
            raise

    # -- lifecycle -----------------------------------------------------------------------
    def _h(self) -> _lib.PlayerHandle:
        # Every call that takes the handle this way may move the packet stream (a seek, a
        # step, a scrub end...): packets read ahead before it are checked before use. With
        # continuation on, they are first given back to the library (_give_back_read_ahead).
        self._gen += 1
        h = self._hq()
        if self._continuation and self._pre:
            self._give_back_read_ahead(h)
        return h

    def _give_back_read_ahead(self, h: _lib.PlayerHandle) -> None:
        """With continuation on, a seek, step or scrub end may continue the packet stream
        from where the library thinks the host is: packets() read ahead of the user, so the
        library would count packets the user never saw as delivered, and a continued
        landing would skip them (corrupting the user's decoder). Before any call that may
        move the stream, the read-ahead packets go back (fpx_player_unread_packets): the
        library delivers them again, stamped for the landing current then, and they leave
        the read-ahead. Where it cannot (HLS items, which never continue; inside a
        callback; while another thread's read is in progress, which the move must not wait
        for) they stay, under the rule of _take(): the stream then goes on right after
        them, so none is lost, and they keep the stamps they were read with."""
        if self._core.in_callback():
            return
        if not self._read_lock.acquire(blocking=False):
            return
        try:
            n = sum(1 for e in self._pre if e[0] is not None)
            if n == 0:
                return
            try:
                _lib.lib.fpx_player_unread_packets(h, n)
            except _errors.FastPixSeekError:
                return
            self._drop_read_ahead()
            self._pre_gen = self._gen
        finally:
            self._read_lock.release()

    def _hq(self) -> _lib.PlayerHandle:
        """The handle, for calls that never move the packet stream (getters)."""
        h = self._handle
        if h is None:
            raise _errors.InvalidHandleError(detail="the Player is closed")
        return h

    @property
    def closed(self) -> bool:
        """True once close() ran (the handle is gone)."""
        return self._handle is None

    @property
    def handle(self) -> Optional[_lib.PlayerHandle]:
        """The raw fpx_player handle (None once closed)."""
        return self._handle

    @property
    def delivery(self) -> DeliveryMode:
        """Where callbacks run: DeliveryMode.THREAD (a library thread) or HOST
        (dispatch_events)."""
        return cast(DeliveryMode, self._delivery)

    @property
    def callback_errors(self) -> List[BaseException]:
        """Exceptions raised in this player's callbacks and not re-raised by a waiting call.

        The list itself (clear it if you like); the last MAX_CALLBACK_ERRORS are kept.
        """
        return self._core.errors

    def close(self) -> None:
        """Destroys the player. Idempotent; safe from any thread and from inside one of its
        own callbacks. From inside another player's callback it raises InCallbackError and
        the player stays open (the library refuses that destroy).

        Pending seeks complete as CANCELLED (their callbacks run, waiting calls return);
        listeners get their destroy_notify. Outside a callback, when close() returns no
        callback of this player runs any more and no library thread of it remains. From
        inside one of its callbacks it returns at once and the library delivers the rest on
        the same thread after the callback returns (seek.h, "Ownership and lifetimes").
        """
        with self._close_lock:
            h = self._handle
            if h is None:
                return
            self._handle = None
        _live_players.discard(self)
        in_callback = self._core.in_callback()
        # Destroy frees the last packet read: not while another thread copies it.
        # A read still blocked on I/O after a second is not copying; destroy
        # interrupts it (and it then raises instead of returning a packet).
        got = self._read_lock.acquire(timeout=1.0)
        try:
            _lib.lib.fpx_player_destroy(h)
        except _errors.InvalidHandleError:
            pass
        except _errors.InCallbackError:
            # Inside another player's callback the library refuses (seek.h, section 4):
            # this player stays open and whole; close it outside the callback.
            with self._close_lock:
                self._handle = h
            _live_players.add(self)
            raise
        finally:
            if got:
                self._read_lock.release()
        # The helper thread's call has returned or will (destroy interrupted it).
        self._runner.stop()
        self._detach_loop_reader()
        ex, self._async_executor = self._async_executor, None
        if ex is not None:
            ex.shutdown(wait=False)  # its calls return now: destroy aborted their I/O
        if not in_callback:
            self._release_core()

    def _release_core(self) -> None:
        """After destroy returned (outside a callback): nothing more will be delivered."""
        core = self._core
        for key in list(core.registry):
            entry = core.unregister(key)
            if isinstance(entry, _SeekEntry):
                # Cannot happen if the library keeps "every seek gets exactly one completion".
                err = _errors.FastPixCancelledError(
                    detail="the player was closed and the library never completed this seek")
                if entry.waiter is not None:
                    with entry.waiter.lock:
                        entry.waiter.event.set()
                if entry.future is not None and entry.loop is not None:
                    try:
                        entry.loop.call_soon_threadsafe(_fail_future, entry.future, err)
                    except RuntimeError:
                        pass
        for errs in list(core.deferred.values()):
            for e in errs:
                core.report(e, "listener callback")
        core.deferred.clear()

    def __enter__(self) -> "Player":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_handle", None) is not None:
                self.close()
        except BaseException:
            pass

    def __repr__(self) -> str:
        h = self._handle
        state = f"handle={h.value:#x}" if h is not None else "closed"
        return f"<fastpix_seek.Player {state} delivery={getattr(self, '_delivery', '?')!r}>"

    # -- items -------------------------------------------------------------------------
    def open(self, url: PathLike) -> None:
        """Attaches a new item (file path or http(s) URL), replacing the current one.

        Returns at once; status events reach listeners' on_item_status. Raises
        InvalidArgumentError for an empty url, TypeError for non-path types.
        """
        if isinstance(url, bytes):
            raw = url
        elif isinstance(url, (str, os.PathLike)):
            raw = os.fsencode(url)
        else:
            raise TypeError(f"url must be str, bytes or os.PathLike, not {type(url).__name__}")
        if b"\0" in raw:
            raise _errors.InvalidArgumentError(detail="url contains a NUL character")
        h = self._h()
        self._invalidate_item_cache()
        self._opened = raw
        _lib.lib.fpx_player_open(h, raw)

    def _local_path_problem(self) -> Optional[str]:
        """For an item refused as UNSUPPORTED: "... is a directory, not a media file" when
        the opened url is a local directory (the library's message says only "unsupported
        protocol or feature"), else None."""
        raw = getattr(self, "_opened", None)
        if raw is None or b"://" in raw:
            return None
        path = raw[5:] if raw.startswith(b"file:") else raw
        if os.path.isdir(path):
            return f"{os.fsdecode(path)} is a directory, not a media file"
        return None

    def close_item(self) -> None:
        """Detaches the current item; its pending seeks complete as cancelled."""
        h = self._h()
        self._invalidate_item_cache()
        _lib.lib.fpx_player_close_item(h)

    def item_status(self) -> ItemStatusInfo:
        """The current item's status (NONE, LOADING, READY or FAILED, with its error).
        Callback-safe; never blocks. The C function is ``fpx_player_item_status``."""
        info = _lib.fpx_item_status_info()
        _lib.lib.fpx_player_item_status(self._hq(), ctypes.byref(info))
        return ItemStatusInfo._from_c(info)

    def wait_item(self, timeout: Optional[float] = None) -> ItemStatusInfo:
        """Blocks until the current item is READY (returns its status) or FAILED (raises the
        item's error, e.g. NotFoundError or InvalidDataError).

        ``timeout`` in seconds (None: no limit) raises FastPixTimeoutError. NoItemError
        when nothing is attached. Not callable from inside a callback (InCallbackError).
        Waits in 50 ms slices, so Ctrl-C raises KeyboardInterrupt within about 100 ms.
        """
        ms = _timeout_ms(timeout, "timeout")
        info = _lib.fpx_item_status_info()
        # In slices, so Ctrl-C is seen between them (the C call cannot be interrupted).
        deadline = None if ms < 0 else time.monotonic() + ms / 1000.0
        while True:
            slice_ms = int(_SLICE * 1000)
            if deadline is not None:
                slice_ms = max(0, min(slice_ms, int((deadline - time.monotonic()) * 1000)))
            try:
                _lib.lib.fpx_player_wait_item(self._hq(), slice_ms, ctypes.byref(info))
                return ItemStatusInfo._from_c(info)
            except _errors.FastPixTimeoutError as e:
                if self.item_status().status == ItemStatus.FAILED:
                    raise self._item_error(e) from None  # the item's own I/O timed out
                if deadline is not None and time.monotonic() >= deadline:
                    raw = getattr(self, "_opened", None)
                    if raw is not None:
                        e.url = os.fsdecode(raw)
                    raise
            except (_errors.NoItemError, _errors.InvalidHandleError, _errors.InCallbackError):
                raise
            except _errors.FastPixSeekError as e:
                raise self._item_error(e) from None

    def _item_error(self, e: _errors.FastPixSeekError) -> _errors.FastPixSeekError:
        """The item's error naming its path or URL, with the cause that fits and the
        built-in base a user would catch (fastpix_seek.item_errors)."""
        raw = getattr(self, "_opened", None)
        if raw is None:
            return e
        if isinstance(e, _errors.UnsupportedError) and not e.detail:
            why = self._local_path_problem()
            if why is not None:
                e = type(e)(e.code, e.message, e.function, why)
        try:
            av_error = self.item_status().av_error
        except _errors.FastPixSeekError:
            av_error = 0
        return item_error(e, os.fsdecode(raw), av_error)

    def item_info(self) -> ItemInfo:
        """Facts of the READY item: stream count, reference stream, duration, start pts, time
        base, format. ItemNotReadyError before READY. The C function is
        ``fpx_player_item_info``."""
        info = _lib.fpx_item_info()
        _lib.lib.fpx_player_item_info(self._hq(), ctypes.byref(info))
        return ItemInfo._from_c(info)

    def stream_info(self, index: int) -> StreamInfo:
        """Facts of one stream of the READY item (codec, time base, size or rate, profile,
        formats, colour, rotation, layout...; see StreamInfo). An index the item does not
        have raises StreamIndexError (an InvalidArgumentError and an IndexError). The C function is ``fpx_player_stream_info``."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"stream index must be an int, not {type(index).__name__}")
        if not -(2 ** 31) <= index < 2 ** 31:
            raise _errors.InvalidArgumentError(detail=f"stream index {index} out of range")
        info = _lib.fpx_stream_info()
        try:
            _lib.lib.fpx_player_stream_info(self._hq(), index, ctypes.byref(info))
        except _errors.InvalidArgumentError as e:
            raise self._index_error(e, "stream", index, self._stream_count()) from None
        return StreamInfo._from_c(info)

    def _stream_count(self) -> Optional[int]:
        try:
            return self.item_info().stream_count
        except _errors.FastPixSeekError:
            return None

    @staticmethod
    def _index_error(e: _errors.FastPixSeekError, what: str, index: int,
                     count: Optional[int]) -> _errors.FastPixSeekError:
        """An index the item does not have as StreamIndexError (an IndexError too), naming
        the index and how many there are; ``e`` itself for any other invalid argument."""
        if count is None or 0 <= index < count:
            return e
        return StreamIndexError(e.code, f"no {what} {index}: the item has {count} "
                                f"({what} indexes 0 to {count - 1})" if count else
                                f"no {what} {index}: the item has none", e.function, e.detail)

    def set_continuation(self, enabled: bool) -> None:
        """Turns continuation on or off (default off; seek.h, "Continuation"): a seek, step
        or scrub end that lands ahead of what your decoder has continues the packets from
        your read position (no DISCONTINUITY, DECODE_ONLY up to the new landing) instead of
        restarting at its keyframe. Keep your decoder unless a packet is flagged
        DISCONTINUITY, and present only frames whose pts >= the latest packet's
        landed_pts_in_stream. packets() gives its read-ahead back before every call that may
        move the stream, so nothing it read ahead is lost. Blocking (waits for a seek in
        progress). The C function is ``fpx_player_set_continuation``."""
        _lib.lib.fpx_player_set_continuation(self._h(), 1 if enabled else 0)
        self._continuation = bool(enabled)

    def report_decoded(self, pts: int) -> None:
        """Optional, with continuation: the largest pts (reference stream time base) your
        decoder of the reference stream returned since the last DISCONTINUITY packet you fed
        it (frames you dropped count). It lets landings whose packet was read already, but
        whose frame your decoder has not returned, continue too. Never report less than
        your decoder returned. The C function is ``fpx_player_report_decoded``."""
        _lib.lib.fpx_player_report_decoded(self._hq(), int(pts))

    def hls_variants(self) -> List[HLSVariant]:
        """The READY HLS item's master-playlist variants, in playlist order (I-frame ones
        included, flagged); [] without a master playlist. The C functions are
        ``fpx_player_hls_variant_count`` and ``fpx_player_hls_variant``."""
        n = ctypes.c_int(0)
        _lib.lib.fpx_player_hls_variant_count(self._hq(), ctypes.byref(n))
        out = []
        for i in range(n.value):
            v = _lib.fpx_hls_variant()
            _lib.lib.fpx_player_hls_variant(self._hq(), i, ctypes.byref(v))
            out.append(HLSVariant._from_c(i, v))
        return out

    def hls_renditions(self) -> List[HLSRendition]:
        """The READY HLS item's EXT-X-MEDIA renditions, in playlist order; the audio one the
        item plays is ``selected`` (its stream ``stream_index``); [] without a master
        playlist. The C functions are ``fpx_player_hls_rendition_count`` and
        ``fpx_player_hls_rendition``."""
        n = ctypes.c_int(0)
        _lib.lib.fpx_player_hls_rendition_count(self._hq(), ctypes.byref(n))
        out = []
        for i in range(n.value):
            r = _lib.fpx_hls_rendition()
            _lib.lib.fpx_player_hls_rendition(self._hq(), i, ctypes.byref(r))
            out.append(HLSRendition._from_c(i, r))
        return out

    def hls_select_audio(self, index: int) -> None:
        """Plays audio rendition ``index`` (of :meth:`hls_renditions`: an AUDIO one with a URI)
        from the next landing on (seek or frame step); its stream keeps the same index and its
        facts (:meth:`stream_info`) are the new rendition's from then on. Raises
        UnsupportedError when the item plays no separate audio, InvalidArgumentError for an
        index that names no such rendition. The C function is ``fpx_player_hls_select_audio``."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index must be an int, not {type(index).__name__}")
        if not -2 ** 31 <= index < 2 ** 31:
            raise _errors.InvalidArgumentError(detail=f"index is {index!r}")
        try:
            _lib.lib.fpx_player_hls_select_audio(self._hq(), index)
        except _errors.InvalidArgumentError as e:
            raise self._index_error(e, "rendition", index, len(self.hls_renditions())) from None

    def hls_select_variant(self, index: int) -> None:
        """Plays variant ``index`` (of :meth:`hls_variants`; not an I-frame one) from the next
        seek on; until then the variant playing goes on (seek to :meth:`current_time` to
        switch in place). Item time is the same on every variant; from the switch on,
        :meth:`stream_info` describes the new variant's streams and its ``selected`` is set.
        A switch that fails fails that seek with its error and the old variant plays on.
        Raises UnsupportedError for an item not opened through a master playlist,
        InvalidArgumentError for an index past the list or an I-frame variant. The C
        function is ``fpx_player_hls_select_variant``."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index must be an int, not {type(index).__name__}")
        if not -2 ** 31 <= index < 2 ** 31:
            raise _errors.InvalidArgumentError(detail=f"index is {index!r}")
        try:
            _lib.lib.fpx_player_hls_select_variant(self._hq(), index)
        except _errors.InvalidArgumentError as e:
            raise self._index_error(e, "variant", index, len(self.hls_variants())) from None

    def set_stream_enabled(self, index: int, enabled: bool) -> None:
        """Switches a stream of the ready item off or back on: a disabled stream is discarded
        in the demuxer and never returned by read_packet(). ReferenceStreamError for the
        reference stream, InvalidArgumentError for a bad index. Blocking (waits for a seek
        in progress). The C function is ``fpx_player_set_stream_enabled``."""
        try:
            _lib.lib.fpx_player_set_stream_enabled(self._h(), int(index), 1 if enabled else 0)
        except _errors.InvalidArgumentError as e:
            raise self._index_error(e, "stream", int(index), self._stream_count()) from None
        if not enabled and self._pre:
            # seek.h: a disabled stream's packets are never returned, buffered ones included
            keep = [r for r in self._pre if r[0] is None or r[1][3] != index]
            self._pre.clear()
            self._pre.extend(keep)

    def seekable_range(self) -> Tuple[Fraction, Fraction]:
        """(first frame, last frame) on the item timeline, exact. Blocking."""
        start, end = _lib.fpx_time(), _lib.fpx_time()
        _lib.lib.fpx_player_seekable_range(self._hq(), ctypes.byref(start), ctypes.byref(end))
        s, e = from_fpx_time(start), from_fpx_time(end)
        if s is None or e is None:
            raise _errors.InternalError(detail=f"seekable range with a non-numeric bound: "
                                               f"{start!r}, {end!r}")
        return s, e

    # -- seeking -----------------------------------------------------------------------
    def setup_seek_manager(self) -> None:
        """Idempotent. Without it every seek completes with FinishReason.NO_SEEK_MANAGER."""
        _lib.lib.fpx_player_setup_seek_manager(self._h())

    def _issue_seek(self, target: Any, precision: Any, entry: _SeekEntry) -> int:
        t = to_fpx_time(target, "seek target", _errors.InvalidTimeError)
        prec = _check_precision(precision)._to_c()
        h = self._h()
        key = self._core.register(entry)  # before the call: the completion may come first
        seek_id = ctypes.c_uint64()
        try:
            _lib.lib.fpx_player_seek(h, t, prec, _seek_trampoline, key, ctypes.byref(seek_id))
        except BaseException:
            self._core.unregister(key)  # on error the callback is never called
            raise
        return int(seek_id.value)

    def seek(self, target: TimeLike, precision: Optional[SeekPrecision] = None,
             on_complete: Optional[SeekCallback] = None) -> int:
        """Requests a seek of the current item; returns its seek id at once.

        ``target``: seconds on the item timeline (Fraction, int, float, Decimal, str; see
        :mod:`fastpix_seek.types`). ``precision``: a SeekPrecision, default
        ``SeekPrecision.default()`` (nearest keyframe within 1/10 s); use
        ``SeekPrecision.exact()`` for frame-exact landings. ``on_complete(outcome)`` runs
        exactly once, on the delivery thread, also when the seek is superseded or cancelled.
        The seek supersedes every earlier seek of this player.
        """
        _check_callable(on_complete, "on_complete")
        return self._issue_seek(target, precision, _SeekEntry(on_complete=on_complete))

    def seek_and_wait(self, target: TimeLike, precision: Optional[SeekPrecision] = None,
                      timeout: Optional[float] = 10.0) -> SeekOutcome:
        """Seeks and blocks until that seek completes; returns its outcome.

        Whatever the reason (completed, superseded, cancelled, failed) the outcome is
        returned, not raised; check ``outcome.finished``. Raises FastPixTimeoutError after
        ``timeout`` seconds (None: no limit; the seek goes on), InCallbackError when called
        from inside one of this player's callbacks, and re-raises the first exception a
        listener raised for this seek. In HOST mode it dispatches events while waiting.
        """
        self._check_can_wait("seek_and_wait", timeout)
        waiter = _Waiter()
        seek_id = self._issue_seek(target, precision, _SeekEntry(waiter=waiter))
        return cast(SeekOutcome, self._wait(waiter, seek_id, timeout, "seek_and_wait"))

    def seek_wait(self, target: TimeLike, precision: Optional[SeekPrecision] = None,
                  timeout: Optional[float] = 10.0) -> SeekOutcome:
        """The C synchronous seek: seeks and blocks (the GIL released) until the seek is decided.

        Unlike :meth:`seek_and_wait` it does not wait for event delivery, so listeners may
        hear of the seek after it returns (in HOST mode at the next dispatch). Returns the
        outcome whatever its reason; check ``outcome.finished``. Raises FastPixTimeoutError
        after ``timeout`` seconds (None: no limit; the seek stays issued) and InCallbackError
        from inside a callback. The C function is ``fpx_player_seek_wait``.
        """
        t = to_fpx_time(target, "seek target", _errors.InvalidTimeError)
        prec = _check_precision(precision)._to_c()
        ms = -1 if timeout is None else _timeout_ms(timeout, "timeout")
        h = self._h()

        def call() -> Any:
            out = _lib.fpx_seek_outcome()
            out.struct_size = ctypes.sizeof(out)
            _lib.lib.fpx_player_seek_wait(h, t, prec, ms, ctypes.byref(out))
            return out
        # Ctrl-C cancels the seek (its outcome then says CANCELLED to the listeners).
        return SeekOutcome._from_c(self._blocking(call))

    def _check_can_wait(self, what: str, timeout: Optional[float]) -> None:
        if self._core.in_callback():
            raise _errors.InCallbackError(
                detail=f"{what} would wait for a callback this thread has to deliver; "
                       f"use the on_complete form")
        if timeout is not None:
            _timeout_ms(timeout, "timeout")  # type/NaN check

    def _wait(self, waiter: _Waiter, seek_id: int, timeout: Optional[float], what: str) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            if self._delivery == DeliveryMode.HOST:
                self._pump_until(waiter.event, deadline)
            else:
                waiter.event.wait(None if deadline is None
                                  else max(0.0, deadline - time.monotonic()))
        finally:
            with waiter.lock:
                if not waiter.event.is_set():
                    # Timed out (or interrupted): a later completion is reported, not lost.
                    waiter.abandoned = True
        if waiter.abandoned:
            raise _errors.FastPixTimeoutError(
                detail=f"seek {seek_id} did not complete within {timeout} s")
        if waiter.outcome is None:
            raise _errors.FastPixCancelledError(
                detail=f"the player was closed and seek {seek_id} never completed")
        if waiter.errors:
            first, rest = waiter.errors[0], waiter.errors[1:]
            for e in rest:
                self._core.report(e, f"listener callback of seek {seek_id}")
            _note(first, seek_id, what)
            raise first
        return waiter.outcome

    def _pump_until(self, event: threading.Event, deadline: Optional[float]) -> None:
        fd = self.event_fd()
        while not event.is_set():
            self.dispatch_events()
            if event.is_set():
                return
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                slice_ = min(remaining, 0.05)
            else:
                slice_ = 0.05
            try:
                select.select([fd], [], [], slice_)
            except (OSError, ValueError):
                time.sleep(slice_)

    async def _await_completion(self, issue: Callable[[_SeekEntry], int]) -> Any:
        loop = asyncio.get_running_loop()
        fut: "asyncio.Future[Any]" = loop.create_future()
        if self._delivery == DeliveryMode.HOST:
            self.attach_event_loop(loop)
        issue(_SeekEntry(loop=loop, future=fut))
        return await fut

    async def seek_async(self, target: TimeLike,
                         precision: Optional[SeekPrecision] = None) -> SeekOutcome:
        """Seeks and awaits the outcome without blocking the event loop.

        The completion reaches the loop through ``loop.call_soon_threadsafe``. Listener
        exceptions of this seek are raised here. Cancelling the awaiting task does not cancel
        the seek. In HOST mode the player's event fd is attached to the running loop (see
        :meth:`attach_event_loop`).
        """
        return cast(SeekOutcome, await self._await_completion(
            lambda entry: self._issue_seek(target, precision, entry)))

    def attach_event_loop(self, loop: Optional[asyncio.AbstractEventLoop] = None) -> None:
        """HOST mode: dispatch events from ``loop`` (default: the running loop) whenever the
        event fd is readable. Idempotent for the same loop. Detached by close().

        Call it from the loop's thread. A duplicate of the event fd is registered, so
        closing the player from any thread never leaves the loop watching a recycled fd.
        """
        if self._delivery != DeliveryMode.HOST:
            raise _errors.WrongModeError(
                detail="attach_event_loop needs a DeliveryMode.HOST player")
        loop = loop or asyncio.get_running_loop()
        cur = self._loop_reader
        if cur is not None:
            if cur.loop is loop:
                return
            raise RuntimeError("the player is already attached to another event loop")
        fd = os.dup(self.event_fd())
        reader = _LoopReader(loop, fd)
        ref = weakref.ref(self)

        def on_readable() -> None:
            p = ref()
            if p is None or p.closed:
                reader.detach()  # the library's pipe is gone: EOF keeps it readable
                return
            try:
                p.dispatch_events()
            except _errors.InvalidHandleError:
                reader.detach()

        self._loop_reader = reader
        loop.add_reader(fd, on_readable)

    def _detach_loop_reader(self) -> None:
        reader, self._loop_reader = self._loop_reader, None
        if reader is None:
            return
        try:
            running: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is reader.loop:
            reader.detach()
            return
        try:
            reader.loop.call_soon_threadsafe(reader.detach)
        except RuntimeError:  # the loop is closed: nothing watches the fd any more
            reader.close_fd()

    def cancel_pending_seeks(self) -> int:
        """Cancels every queued or in-flight seek; returns how many."""
        n = ctypes.c_uint64()
        _lib.lib.fpx_player_cancel_pending_seeks(self._h(), ctypes.byref(n))
        return int(n.value)

    # -- listeners ---------------------------------------------------------------------
    def add_listener(self, listener: Any) -> int:
        """Registers a listener (a SeekPrecisionListener or any object with some of its
        methods) and returns its id. The object is held strongly until removed and the
        library has let go of it (see the module doc)."""
        if listener is None or isinstance(listener, (int, float, str, bytes)):
            raise TypeError(f"listener must be an object with on_* methods, not "
                            f"{type(listener).__name__}")
        h = self._h()
        entry = _ListenerEntry(listener)
        key = self._core.register(entry)
        c = _lib.fpx_listener()
        _lib.lib.fpx_listener_init(ctypes.byref(c))
        c.userdata = key
        c.on_seek_accuracy = _on_seek_accuracy
        c.on_seek_clamped = _on_seek_clamped
        c.on_scrub_state_changed = _on_scrub_state_changed
        c.on_scrub_position_changed = _on_scrub_position_changed
        c.on_frame_step = _on_frame_step
        c.on_item_status = _on_item_status
        c.destroy_notify = _destroy_notify
        c.on_index_complete = _on_index_complete
        lid = ctypes.c_uint64()
        try:
            _lib.lib.fpx_player_add_listener(h, ctypes.byref(c), ctypes.byref(lid))
        except BaseException:
            self._core.unregister(key)
            raise
        entry.listener_id = int(lid.value)
        self._listener_keys[int(lid.value)] = key
        return int(lid.value)

    def remove_listener(self, listener_id: int) -> None:
        """Unregisters a listener. No event reaches it after the next event boundary.
        NotFoundError for unknown ids."""
        if isinstance(listener_id, bool) or not isinstance(listener_id, int):
            raise TypeError(f"listener id must be an int, not {type(listener_id).__name__}")
        if not 0 <= listener_id < 2 ** 64:
            raise _errors.NotFoundError(detail=f"listener id {listener_id}")
        _lib.lib.fpx_player_remove_listener(self._h(), listener_id)
        self._listener_keys.pop(listener_id, None)

    # -- events ------------------------------------------------------------------------
    def dispatch_events(self) -> int:
        """HOST mode: runs every queued callback on this thread; returns how many ran.

        WrongModeError on a THREAD player; InCallbackError from inside a callback.
        Exceptions raised by the callbacks go to callback_errors and the handler.
        """
        n = ctypes.c_int()
        _lib.lib.fpx_player_dispatch_events(self._h(), ctypes.byref(n))
        return int(n.value)

    def event_fd(self) -> int:
        """HOST mode: a file descriptor that polls readable while events are queued. Owned
        by the player: do not read or close it."""
        fd = ctypes.c_int(-1)
        _lib.lib.fpx_player_event_fd(self._hq(), ctypes.byref(fd))
        return int(fd.value)

    # -- packets -----------------------------------------------------------------------
    def _item_is_live(self) -> bool:
        live = self._live
        if live is None:
            try:
                w = self.live_seek_window()
            except _errors.FastPixSeekError:
                return False  # no ready item: not cached, asked again next time
            if not w.is_available:
                return False  # not ready yet: not cached
            live = self._live = bool(w.is_live)
        return live

    def _invalidate_item_cache(self) -> None:
        self._pre.clear()  # packets of the old item: never handed out
        self._live = None
        self._tb_cache = {}
        self._origin = None
        self._origin_known = False
        self._origins = {}

    def _time_base(self, index: int) -> Optional[Fraction]:
        cache = self._tb_cache
        if index not in cache:
            try:
                cache[index] = self.stream_info(index).time_base
            except _errors.FastPixSeekError:
                cache[index] = None
        return cache[index]

    def _item_origin(self) -> Optional[Fraction]:
        if not self._origin_known:
            try:
                info = self.item_info()
                ok = info.time_base is not None and info.start_pts != _lib.FPX_NOPTS
                self._origin = info.origin if ok else None
                self._ref_tb = info.time_base
            except _errors.FastPixSeekError:
                self._origin = None
                self._ref_tb = None
            self._origin_known = True
        return self._origin

    def _packet_origin(self, origin_pts: int) -> Optional[Fraction]:
        """fpx_packet.item_origin_pts as seconds (HLS: per discontinuity domain), cached."""
        got = self._origins.get(origin_pts)
        if got is None:
            if not self._origin_known:
                self._item_origin()
            tb = self._ref_tb
            if tb is None:
                return self._origin
            got = self._origins[origin_pts] = origin_pts * tb
        return got

    def read_packet(self) -> Packet:
        """The next packet of the current item (any stream, demux order), copied.

        Raises EndOfFile at the end. Blocking; waits for pending seeks to settle first.
        Ctrl-C raises KeyboardInterrupt within about 100 ms even while the read is blocked
        on the network: the read is then interrupted with cancel_pending_seeks (pending
        seeks are cancelled and the packet being read is lost; seek to resume). A read
        interrupted by another thread's seek raises ReadInterruptedError. Packets that
        packets() read ahead and did not hand out come first (see packets()).
        """
        if self._pre:
            got = self._take()
            if got is not None:
                return got
        raws, err = self._blocking_read(1)
        if raws:
            return self._packet(raws[0])
        raise cast(BaseException, err)

    # fpx_packet as struct.unpack_from sees it (native alignment; tests/ check the offsets):
    # struct_size data size stream_index pts dts duration pos flags seek_id av_packet
    # landed_pts landed_pts_in_stream trim_samples landed_stream_index
    _PACKET_LAYOUT = struct.Struct("@NPNiqqqqIQPqqqiq")

    def _read_raw(self, h: Any, n: int,
                  stop: List[bool]) -> Tuple[List[Any], Optional[BaseException]]:
        """Up to n packets as (payload, unpacked fpx_packet), with the one reused struct;
        stops early after an error (returned, not raised), when stop[0] is set, or after
        about 2 ms so that a slow source hands out what it has. Any thread."""
        out: List[Any] = []
        err: Optional[BaseException] = None
        c = self._pkt
        read = _raw_read_packet()
        hv = ctypes.c_void_p(h.value)  # ready-made arguments: no conversion per call
        addr = ctypes.c_void_p(ctypes.addressof(c))
        unpack = self._PACKET_LAYOUT.unpack_from
        string_at = getattr(ctypes, "_string_at", ctypes.string_at)  # without the wrapper
        append = out.append
        clock = time.monotonic_ns
        deadline = clock() + 2_000_000
        with self._read_lock:
            while True:
                rc = read(hv, addr)
                if rc < 0:  # EndOfFile, ReadInterruptedError, I/O errors
                    err = _lib.make_error(rc, "fpx_player_read_packet")
                    break
                u = unpack(c)
                # Copy the payload before another read (or destroy) can invalidate it.
                append((string_at(u[1], u[2]) if u[2] else b"", u))
                if len(out) >= n or stop[0] or clock() > deadline:
                    break
        return out, err

    def _blocking_read(self, n: int) -> Tuple[List[Any], Optional[BaseException]]:
        h = self._hq()
        stop = [False]
        if self._core.in_callback():
            return self._read_raw(h, n, stop)

        def interrupted() -> None:
            stop[0] = True
            self._interrupt_read()
        # On the player's helper thread, so Ctrl-C interrupts the wait; the blocked read
        # is then interrupted too (cancel_pending_seeks: FPX_ERROR_INTERRUPTED).
        return cast(Tuple[List[Any], Optional[BaseException]],
                    self._runner.run(lambda: self._read_raw(h, n, stop), interrupted))

    def _packet(self, raw: Any) -> Packet:
        u = raw[1]
        tb = self._tb_cache.get(u[3], _MISSING)
        if tb is _MISSING:
            tb = self._time_base(u[3])
        op = u[15] if len(u) > 15 else _lib.FPX_NOPTS
        if op != _lib.FPX_NOPTS:
            return Packet._from_raw(raw, tb, self._packet_origin(op))
        return Packet._from_raw(raw, tb, self._origin if self._origin_known
                                else self._item_origin())

    def _take(self) -> Optional[Packet]:
        """The next read-ahead packet (raising the read-ahead error that comes next, if that
        is what comes next), or None when nothing is read ahead.

        _pre holds (payload, unpacked fpx_packet) entries and, where a batch ended on an
        error, (None, error). They are handed out as they are while no call that may move the
        packet stream ran since they were read (_gen unchanged). After such a call (a seek, a
        step, a scrub end, a cancel...) they may be stale, so one packet is read first: if it
        starts a new run (FPX_PACKET_FLAG_DISCONTINUITY, or another seek id) the read-ahead
        packets (and a read-ahead EndOfFile) are dropped, exactly what the host would never
        have seen without the read-ahead; a read-ahead error other than EndOfFile (it happened
        before the move) still comes first. Otherwise the library continued after them (the
        call did not move the demuxer), so they come first and the new packet after them. A
        read that ends the item (EndOfFile) means nothing moved either. When that read fails
        otherwise, the read-ahead packets are dropped (they may be stale) and its error comes
        after the read-ahead errors."""
        pre = self._pre
        if pre and self._gen != self._pre_gen:
            gen = self._gen
            raws, err = self._blocking_read(1)
            if raws:
                fresh = raws[0]
                last = next((e[1] for e in reversed(pre) if e[0] is not None), None)
                # With continuation on, a continued landing changes the seek id without a
                # DISCONTINUITY: the stream goes on right after the read-ahead packets (they
                # could not go back: _give_back_read_ahead), so they come first.
                if last is None or fresh[1][8] & _lib.FPX_PACKET_FLAG_DISCONTINUITY or \
                        (fresh[1][9] != last[9] and not self._continuation):
                    self._drop_read_ahead()
                pre.append(fresh)
            elif isinstance(err, _errors.EndOfFile) and gen == self._gen:
                if pre[-1][0] is not None:
                    pre.append((None, err))
            else:
                self._drop_read_ahead()
                pre.append((None, err))
            self._pre_gen = gen
        try:
            e = pre.popleft()
        except IndexError:
            return None
        if e[0] is None:
            raise cast(BaseException, e[1])
        return self._packet(e)

    def _drop_read_ahead(self) -> None:
        """Drops the read-ahead packets and EndOfFile; keeps the other read-ahead errors."""
        kept = [e for e in self._pre if e[0] is None and not isinstance(e[1], _errors.EndOfFile)]
        self._pre.clear()
        self._pre.extend(kept)

    def _blocking(self, call: Callable[[], Any]) -> Any:
        # From inside a callback the library must see the callback's thread (it refuses
        # with InCallbackError); elsewhere the helper thread keeps Ctrl-C responsive.
        if self._core.in_callback():
            return call()
        return self._runner.run(call, self._interrupt_read)

    def _interrupt_read(self) -> None:
        h = self._handle
        if h is not None:
            _lib.lib.fpx_player_cancel_pending_seeks(h, None)

    def packets(self, batch: int = 64) -> Iterator[Packet]:
        """Iterates the packets until EndOfFile: the packets read_packet() would return, one
        by one, with the same errors (ReadInterruptedError, I/O errors) and the same Ctrl-C
        behaviour, but read ``batch`` at a time (or what arrives within about 2 ms) on the
        helper thread with one reused fpx_packet: one thread hop per batch, not per packet.

        Seeks, steps, scrub ends and cancels between two packets are safe: no packet read
        ahead before them is handed out when the stream moved (see the rule at _take: the
        next packet after a seek is the new landing's, flagged DISCONTINUITY). With continuation
        on (set_continuation), the packets read ahead go back to the library before any call
        that may move the stream, and come again stamped for the new landing, so a landing
        that continues the stream loses none of them. Packets read
        ahead and not handed out when you stop iterating stay with the player: the next
        read_packet() or packets() returns them first. Opening or closing an item drops
        them; disabling a stream drops its own. Ctrl-C loses the batch being read (as a
        single read loses its packet): seek to resume. Raw C calls on :attr:`handle` are
        not seen by this check: after one, seek before iterating again.

        A batch is handed out when it is full, after about 2 ms of reading, or at an error;
        on a network source its packets wait for the read in progress. Live HLS items are
        read one packet per hop, so that packets never wait for the next segment.
        """
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be an int >= 1, not {batch!r}")
        if batch > 1 and self._item_is_live():
            # Live: a read may wait seconds for the next segment; packets read before it
            # must not wait with it (latency at the live edge). One packet per hop.
            batch = 1
        pre = self._pre
        popleft = pre.popleft
        new = _new_packet
        set_r, set_tb, set_origin = _SET_PACKET
        tbs = self._tb_cache
        while True:
            # The fast path: read-ahead packets while nothing moved the stream.
            if pre and self._gen == self._pre_gen and self._origin_known:
                try:
                    e = popleft()
                except IndexError:  # another thread took the last one
                    continue
                if e[0] is None:
                    pre.appendleft(e)  # an error: _take() raises it in its place
                else:
                    tb = tbs.get(e[1][3], _MISSING)
                    if tb is not _MISSING and tbs is self._tb_cache:
                        o = new(Packet)
                        set_r(o, e)
                        set_tb(o, tb)
                        set_origin(o, self._origin)
                        yield o
                        continue
                    pre.appendleft(e)
                tbs = self._tb_cache
            if not pre:
                gen = self._gen
                raws, err = self._blocking_read(batch)
                if not pre:
                    self._pre_gen = gen
                pre.extend(raws)  # (after another thread's read-ahead, if any)
                if err is not None:
                    # what was read before the error comes first, then the error
                    pre.append((None, err))
            try:
                pkt = self._take()
            except _errors.EndOfFile:
                return
            if pkt is not None:
                yield pkt

    # -- asyncio: the blocking calls, off the loop ---------------------------------------
    async def _off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Runs a blocking call of this player on its async worker thread and awaits it. The
        ctypes call releases the GIL, so the loop keeps running. In HOST mode the event fd
        is attached to the running loop first, so callbacks keep flowing meanwhile.
        Cancelling the awaiting task does not interrupt the call; its result is dropped."""
        loop = asyncio.get_running_loop()
        self._h()  # InvalidHandleError on a closed player, before any thread hop
        if self._delivery == DeliveryMode.HOST:
            self.attach_event_loop(loop)
        with self._async_lock:
            ex = self._async_executor
            if ex is None:
                ex = self._async_executor = ThreadPoolExecutor(max_workers=1,
                                                               thread_name_prefix="fpx-async")
        return await loop.run_in_executor(ex, fn, *args)

    async def open_async(self, url: PathLike, timeout: Optional[float] = None) -> ItemStatusInfo:
        """Opens ``url`` (see :meth:`open`) and awaits READY without blocking the loop;
        returns the status, or raises the item's error (NotFoundError, InvalidDataError...)
        or FastPixTimeoutError after ``timeout`` seconds (None: no limit)."""
        self.open(url)  # never blocks: the worker thread opens
        return await self.wait_item_async(timeout)

    async def wait_item_async(self, timeout: Optional[float] = None) -> ItemStatusInfo:
        """:meth:`wait_item` without blocking the event loop."""
        _timeout_ms(timeout, "timeout")  # type/NaN check on the caller's thread
        return cast(ItemStatusInfo, await self._off_loop(self.wait_item, timeout))

    async def read_packet_async(self) -> Packet:
        """:meth:`read_packet` without blocking the event loop (EndOfFile at the end)."""
        return cast(Packet, await self._off_loop(self.read_packet))

    def _read_batch(self, n: int) -> Tuple[List[Packet], bool]:
        # packets() with its read-ahead (one helper-thread hop per batch); what it read
        # beyond n stays with the player for the next batch.
        out: List[Packet] = []
        it = cast(Generator[Packet, None, None], self.packets(batch=n))
        try:
            for pkt in it:
                out.append(pkt)
                if len(out) >= n:
                    return out, False
        finally:
            it.close()
        return out, True

    async def packets_async(self, batch: int = 16) -> AsyncIterator[Packet]:
        """Async iterator over the packets until EndOfFile, without blocking the loop:
        ``async for pkt in player.packets_async(): ...``. Packets are read ``batch`` at a
        time on the player's async thread (one thread hop per batch, not per packet); a
        packet read but not yet consumed when you stop iterating is dropped."""
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise ValueError(f"batch must be an int >= 1, not {batch!r}")
        while True:
            pkts, eof = await self._off_loop(self._read_batch, batch)
            for pkt in pkts:
                yield pkt
            if eof:
                return

    async def step_frame_async(self, direction: FrameStepDirection = FrameStepDirection.FORWARD,
                               count: int = 1) -> FrameStepResult:
        """:meth:`step_frame` without blocking the event loop."""
        return cast(FrameStepResult, await self._off_loop(self.step_frame, direction, count))

    async def seek_wait_async(self, target: TimeLike, precision: Optional[SeekPrecision] = None,
                              timeout: Optional[float] = 10.0) -> SeekOutcome:
        """:meth:`seek_wait` (``fpx_player_seek_wait``) without blocking the event loop.
        :meth:`seek_async` needs no thread; this one returns as soon as the seek is decided,
        before its events are delivered."""
        return cast(SeekOutcome, await self._off_loop(self.seek_wait, target, precision, timeout))

    # -- scrubbing and stepping --------------------------------------------------------
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

    # -- live and DVR HLS --------------------------------------------------------------
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

    # -- stats -------------------------------------------------------------------------
    def stats(self) -> PlayerStats:
        """A copy of the player's counters (seeks issued/completed/superseded/cancelled/failed,
        packets demuxed, bytes read, events delivered, background index progress). The C
        function is ``fpx_player_stats_get``."""
        s = _lib.fpx_player_stats()
        _lib.lib.fpx_player_stats_get(self._hq(), ctypes.byref(s))
        return PlayerStats._from_c(s)

    # -- decoded frames (fastpix_seek.frames; PyAV needed, imported on first use) ---------
    def frame_at(self, t: TimeLike, precision: Optional[SeekPrecision] = None,
                 timeout: Optional[float] = 10.0, *, clamp: bool = False) -> "FrameAt":
        """Seeks to ``t`` with ``precision`` (default: exact, the frame on screen at ``t``)
        and returns the landed frame decoded with PyAV, with the seek's outcome
        (:class:`fastpix_seek.frames.FrameAt`). The decoder is kept between calls and
        continues where the packets continue. A ``t`` outside :meth:`frame_range` (before 0,
        after the last frame, after the last complete frame of a cut file) raises
        :class:`fastpix_seek.frames.FrameOutOfRangeError` (an ``IndexError``) unless
        ``clamp=True``, which answers with the nearest end's frame. Raises ImportError
        without PyAV and :class:`fastpix_seek.frames.FrameNotDecodedError` (a
        ``RuntimeError``) when nothing lands or decodes, whatever PyAV raised."""
        from .frames import reader_for
        return reader_for(self).frame_at(self, t, precision, timeout, clamp=clamp)

    def frames_at(self, times: Iterable[TimeLike], precision: Optional[SeekPrecision] = None,
                  timeout: Optional[float] = 10.0, *, clamp: bool = False) -> List["FrameAt"]:
        """:meth:`frame_at` for each time, answered in the order given; decoded in time order
        (forward, so the decoder continues), repeated and nearby backward requests served
        from a small cache of decoded frames. The list holds every distinct frame it
        answers; for many times use :meth:`iter_frames_at` or
        :meth:`iter_frames_in_time_order`, whose memory does not grow with their number."""
        from .frames import reader_for
        return reader_for(self).frames_at(self, times, precision, timeout, clamp=clamp)

    def iter_frames_at(self, times: Iterable[TimeLike], precision: Optional[SeekPrecision] = None,
                       timeout: Optional[float] = 10.0,
                       window: Optional[int] = None, *, clamp: bool = False
                       ) -> Iterator["FrameAt"]:
        """:meth:`frames_at` as an iterator in bounded memory: yields the frame at each time in
        the order given, reading ``times`` lazily and answering ``window`` (default
        ``fastpix_seek.frames.DEFAULT_WINDOW``, 64) of them at a time (sorted, each landing
        decoded once), so at most ``window`` distinct frames are held
        (:class:`fastpix_seek.frames.FrameReader.iter_frames_at`)."""
        from .frames import reader_for
        return reader_for(self).iter_frames_at(self, times, precision, timeout, window,
                                               clamp=clamp)

    def iter_frames_in_time_order(self, times: Iterable[TimeLike],
                                  precision: Optional[SeekPrecision] = None,
                                  timeout: Optional[float] = 10.0, *, clamp: bool = False
                                  ) -> Iterator[Tuple[int, "FrameAt"]]:
        """Yields ``(index, frame)`` for every time in time order (ties in the order given;
        ``index`` is the time's position in ``times``), each landing decoded once, one frame
        held at a time (:class:`fastpix_seek.frames.FrameReader.iter_frames_in_time_order`)."""
        from .frames import reader_for
        return reader_for(self).iter_frames_in_time_order(self, times, precision, timeout,
                                                          clamp=clamp)

    def frame_range(self) -> "FrameRange":
        """The times :meth:`frame_at` answers without ``clamp``
        (:class:`fastpix_seek.frames.FrameRange`: first frame, last frame -- the last
        complete one of a truncated file --, until when it is shown, truncated or not)."""
        from .frames import reader_for
        return reader_for(self).frame_range(self)

    def frame_reader(self, cache_size: int = 8, skip_nonref: bool = True,
                     continuation: bool = True, **decoder_options: Any) -> "FrameReader":
        """Replaces the decoder state of :meth:`frame_at` with a new
        :class:`fastpix_seek.frames.FrameReader` made with these options (``cache_size``
        decoded frames kept; ``skip_nonref``: skip non-reference pre-roll frames;
        ``continuation``: turn this player's continuation on, so forward requests continue
        the decoder instead of restarting at the keyframe; ``decoder_options``: PyAV
        codec-context attributes, e.g. ``thread_count=1``)."""
        from .frames import new_reader
        return new_reader(self, cache_size, skip_nonref, continuation, **decoder_options)


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

    def __init__(self, player: Player, handle: _lib.ScrubSessionHandle) -> None:
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
