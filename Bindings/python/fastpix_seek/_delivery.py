"""Callbacks and delivery: listeners, the trampolines C calls, where their exceptions go.

The floor under every other module of the player (fastpix_seek.player and its concern
modules): it imports nothing of them.

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
import itertools
import os
import sys
import threading
import traceback
import weakref
from typing import Any, Callable, Dict, List, Optional, Protocol, Tuple, Union

from . import _lib
from .types import (DateSeekResult, FrameStepResult, ItemStatusInfo, LiveEdgeResult,
                    ScrubPosition, ScrubResult, ScrubState, SeekAccuracy, SeekClamp, SeekOutcome,
                    _enum)

__all__ = ["SeekPrecisionListener", "CallbackExceptionHandler", "MAX_CALLBACK_ERRORS",
           "default_callback_exception_handler", "set_callback_exception_handler",
           "get_callback_exception_handler"]

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
    """``fn(exc, player, where)``: ``player`` is the :class:`~fastpix_seek.Player` whose
    callback raised (None once collected)."""

    def __call__(self, exc: BaseException, player: Optional[Any], where: str) -> Any: ...


def default_callback_exception_handler(exc: BaseException, player: Optional[Any],
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
        self.player_ref: Optional["weakref.ReferenceType[Any]"] = None

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
# HOST mode: a player's event fd watched by an asyncio loop (Player.attach_event_loop)
# ----------------------------------------------------------------------------------------

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
