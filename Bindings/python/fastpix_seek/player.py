"""The player: :class:`Player`'s lifecycle, items, seeks, listeners and events, assembled
with the modules of its other concerns, and its frame helpers' methods.

The package, floor by floor (each module imports only the floors under it; no cycle):

1. :mod:`fastpix_seek._lib`, :mod:`~fastpix_seek._abi`, :mod:`~fastpix_seek.errors`,
   :mod:`~fastpix_seek.types`: the C library, its constants, errors and value types;
   :mod:`~fastpix_seek.item_errors` and :mod:`~fastpix_seek.frame_errors` refine errors.
2. :mod:`fastpix_seek._delivery`: callbacks and delivery (listeners, the trampolines C calls,
   where exceptions raised in callbacks go: read its module doc for the threading rules).
3. :mod:`fastpix_seek._calls`: blocking calls on a helper thread (Ctrl-C), shared checks;
   :mod:`fastpix_seek._base`: what the concerns share of a player, for the type checker.
4. The concerns, each a mixin of :class:`Player`: :mod:`~fastpix_seek._packets` (packets and
   their read-ahead), :mod:`~fastpix_seek._asyncio` (asyncio), :mod:`~fastpix_seek._scrub`
   (scrub sessions, frame steps), :mod:`~fastpix_seek._live` (live and DVR HLS).
5. :mod:`fastpix_seek.frames` and :mod:`fastpix_seek.pyav`: the frame helpers (decoded frames
   with PyAV), written against the player's public methods only (a Protocol), importing no
   module of the player.
6. This module: :class:`Player` itself (lifecycle, items, seeks, listeners, events), made of
   the concerns, with its frame methods (``frame_at``...) handing over to the frame helpers.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import select
import threading
import time
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, cast

from . import _lib, _log
from . import errors as _errors
from ._asyncio import _AsyncMixin
from ._base import PathLike, SeekCallback
from ._calls import _check_callable, _check_precision, _Runner, _SLICE, _timeout_ms
from ._delivery import (MAX_CALLBACK_ERRORS, CallbackExceptionHandler, SeekPrecisionListener,
                        _Core, _destroy_notify, _fail_future, _ListenerEntry, _LoopReader, _note,
                        _on_frame_step, _on_index_complete, _on_item_status, _on_scrub_position_changed,
                        _on_scrub_state_changed, _on_seek_accuracy, _on_seek_clamped, _SeekEntry,
                        _seek_trampoline, _Waiter, _WakeupEntry, _wakeup,
                        default_callback_exception_handler, get_callback_exception_handler,
                        set_callback_exception_handler)
from ._live import _LiveMixin
from ._preview import _PreviewMixin
from ._packets import _PacketsMixin
from ._scrub import ScrubSession, _ScrubMixin
from .frames import ITEM, ON_SCREEN, FrameAt, FrameRange, FrameReader, new_reader, reader_for
from .item_errors import StreamIndexError, item_error
from .types import (DeliveryMode, HLSRendition, HLSVariant, IndexMode, ItemInfo, ItemStatus,
                    ItemStatusInfo, PlayerStats, SeekOutcome, SeekPrecision, StreamInfo, TimeLike,
                    _enum, from_fpx_time, to_fpx_time)

_INT64_MAX = 2**63 - 1

__all__ = [
    "Player", "ScrubSession", "SeekPrecisionListener", "set_callback_exception_handler",
    "get_callback_exception_handler", "default_callback_exception_handler",
    "CallbackExceptionHandler", "MAX_CALLBACK_ERRORS",
]


_live_players: "weakref.WeakSet[Player]" = weakref.WeakSet()


@atexit.register
def _close_all_at_exit() -> None:
    # No library thread may call into a finalizing interpreter.
    for p in list(_live_players):
        try:
            p.close()
        except BaseException:
            pass


class Player(_PacketsMixin, _AsyncMixin, _ScrubMixin, _LiveMixin, _PreviewMixin):
    """A FastPixSeek player: one media item, precision seeks, packets.

    ``Player(url=None, *, delivery=DeliveryMode.THREAD, io_timeout=10.0, wakeup=None,
    seek_manager=True, protocols=None, max_buffer_bytes=None, index_mode=IndexMode.KEYFRAMES,
    hls_variant=None, hls_max_bandwidth=None, hls_max_height=None, hls_audio=None,
    reference_stream=None, tls_ca_file=None, tls_verify=True)``

    * ``url``: opened at once when given (see :meth:`open`); wait with :meth:`wait_item`.
    * ``delivery``: where callbacks run (see :mod:`fastpix_seek._delivery`).
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
    * ``reference_stream``: the stream seeks resolve on (``fpx_player_config.reference_stream``;
      seek.h section 2): None for the library's choice (the best video stream, else the best
      audio stream), or a stream index, 0-based as :meth:`stream_info`, ffprobe and PyAV
      count them, naming a video stream of every item this player opens. Landings, steps,
      the seekable range, item time 0, the time base of outcomes and the frame helpers all
      follow it. An index the item lacks fails the open with
      :class:`~fastpix_seek.item_errors.StreamIndexError` (an ``IndexError``), a stream that
      is not video (audio, an attached cover picture) with
      :class:`~fastpix_seek.errors.InvalidArgumentError`, an HLS item (which keeps its own
      choice) with :class:`~fastpix_seek.errors.UnsupportedError`: :meth:`wait_item` raises
      them, naming the stream and why. Negative: InvalidArgumentError here.
    * ``tls_ca_file``, ``tls_verify``: how https servers are checked
      (``fpx_player_config.tls_ca_file``, ``tls_insecure``). By default a server's certificate
      must chain to a trusted CA and name the URL's host, else the open or the fetch fails
      with :class:`~fastpix_seek.errors.FastPixIOError` and the log says why. The
      trusted CAs: ``tls_ca_file`` (a PEM file), else ``$SSL_CERT_FILE``, else the system's
      bundle (``/etc/ssl/certs/ca-certificates.crt`` and the other usual places).
      ``tls_verify=False`` checks nothing (test servers with self-signed certificates only).

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
                 hls_audio: Optional[int] = None,
                 reference_stream: Optional[int] = None,
                 tls_ca_file: Optional[PathLike] = None,
                 tls_verify: bool = True) -> None:
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
        # The reference stream: 0-based here, as stream_info; the C field counts from 1 (0:
        # automatic).
        if reference_stream is not None:
            if isinstance(reference_stream, bool) or not isinstance(reference_stream, int):
                raise TypeError(f"reference_stream must be a stream index (int) or None, not "
                                f"{type(reference_stream).__name__}")
            if not 0 <= reference_stream <= 2 ** 31 - 2:
                raise _errors.InvalidArgumentError(
                    detail=f"reference_stream is {reference_stream!r}: a stream index >= 0 "
                           f"(0-based, as stream_info counts), or None for the automatic choice")
            cfg.reference_stream = reference_stream + 1
        self._reference_stream = reference_stream
        # TLS checks: the library copies the path at create.
        if not isinstance(tls_verify, bool):
            raise TypeError(f"tls_verify must be a bool, not {type(tls_verify).__name__}")
        cfg.tls_insecure = 0 if tls_verify else 1
        if tls_ca_file is not None:
            ca = os.fsencode(tls_ca_file)
            if not ca or b"\0" in ca:
                raise _errors.InvalidArgumentError(detail=f"tls_ca_file is {tls_ca_file!r}: a path to a PEM file")
            cfg.tls_ca_file = ca
        self._refusal_mark = 0
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
        return self._delivery

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
        self._refusal_mark = _log.refusal_mark()
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
        refused = self._reference_refusal(e)
        if refused is not e:
            refused.url = os.fsdecode(raw)  # the cause is known: no table of causes
            return refused
        try:
            av_error = self.item_status().av_error
        except _errors.FastPixSeekError:
            av_error = 0
        return item_error(e, os.fsdecode(raw), av_error)

    def _reference_refusal(self, e: _errors.FastPixSeekError) -> _errors.FastPixSeekError:
        """An open refused for the chosen reference stream (an InvalidArgumentError: no such
        stream, not video; an UnsupportedError: an HLS item) as the error that says so: the
        library's log line as its detail, StreamIndexError (an IndexError) for a stream the
        item lacks; ``e`` itself for any other error."""
        want = self._reference_stream
        if want is None or not isinstance(e, (_errors.InvalidArgumentError,
                                              _errors.UnsupportedError)):
            return e
        why = _log.reference_refusal(want, self._refusal_mark)
        if why is None:
            if not isinstance(e, _errors.InvalidArgumentError):
                return e
            # The log is off (set_log_level(FPX_LOG_QUIET)): the causes that fit.
            why = (f"reference_stream={want}: stream {want} is not a video stream of this item "
                   f"(it has no stream {want}, or that stream is audio, subtitles, data or an "
                   f"attached picture)")
        cls = (StreamIndexError if isinstance(e, _errors.InvalidArgumentError)
               and "does not exist" in why else type(e))
        return cls(e.code, why, e.function, None)

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
        included, flagged); [] without a master playlist. A DASH item lists its video
        representations here, in MPD order (seek.h, "DASH"). The C functions are
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
        playlist. A DASH item lists each audio adaptation set here, as an AUDIO rendition of
        group "audio". The C functions are ``fpx_player_hls_rendition_count`` and
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
        facts (:meth:`stream_info`) are the new rendition's from then on; a failed switch fails
        that landing, typed, and the old rendition plays on. Raises UnsupportedError (the item
        plays no separate audio), InvalidArgumentError (no such rendition); C: ``fpx_player_hls_select_audio``."""
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

    def cancel_pending_seeks(self) -> int:
        """Cancels every queued or in-flight seek; returns how many."""
        n = ctypes.c_uint64()
        _lib.lib.fpx_player_cancel_pending_seeks(self._h(), ctypes.byref(n))
        return int(n.value)

    # -- listeners ---------------------------------------------------------------------
    def add_listener(self, listener: Any) -> int:
        """Registers a listener (a SeekPrecisionListener or any object with some of its
        methods) and returns its id. The object is held strongly until removed and the
        library has let go of it (see :mod:`fastpix_seek._delivery`)."""
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
        # The code's text lists every cause (missing file, HTTP 404...); here only one fits.
        why = "no listener with this id"
        if not 0 <= listener_id < 2 ** 64:
            raise _errors.NotFoundError(None, why, None, f"listener id {listener_id}")
        try:
            _lib.lib.fpx_player_remove_listener(self._h(), listener_id)
        except _errors.NotFoundError as e:
            raise _errors.NotFoundError(e.code, why, e.function,
                                        f"listener id {listener_id}") from None
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
    # -- stats -------------------------------------------------------------------------
    def stats(self) -> PlayerStats:
        """A copy of the player's counters (seeks issued/completed/superseded/cancelled/failed,
        packets demuxed, bytes read, events delivered, background index progress). The C
        function is ``fpx_player_stats_get``."""
        s = _lib.fpx_player_stats()
        _lib.lib.fpx_player_stats_get(self._hq(), ctypes.byref(s))
        return PlayerStats._from_c(s)

    # -- decoded frames (fastpix_seek.frames; PyAV imported on first use) -----------------
    def frame_at(self, t: TimeLike, precision: Optional[SeekPrecision] = None,
                 timeout: Optional[float] = 10.0, *, clamp: bool = False,
                 which: str = ON_SCREEN, timeline: str = ITEM) -> "FrameAt":
        """Seeks to ``t`` with ``precision`` (default: exact, the frame on screen at ``t``)
        and returns the landed frame decoded with PyAV, with the seek's outcome
        (:class:`fastpix_seek.frames.FrameAt`). The decoder is kept between calls and
        continues where the packets continue.

        The conventions (:mod:`fastpix_seek.frames`, "Conventions"): ``which="on_screen"``
        (default) is the frame on screen at ``t``, ``which="at_or_after"`` the first frame at
        or after ``t`` (``ffmpeg -ss``, PyAV's decode-and-skip, frame-index APIs; the
        precision ``SeekPrecision.at_or_after()``); ``timeline="item"`` (default) reads ``t``
        on the item timeline, ``timeline="stream"`` in the reference stream's own pts seconds
        (ffprobe's ``pts_time``, PyAV's ``frame.time``; a float is read as the nearest tick
        of the stream's time base). The stream is the player's ``reference_stream``.

        A ``t`` outside :meth:`frame_range` (before 0, after the last frame -- for
        ``at_or_after`` after the last frame's time --, after the last complete frame of a
        cut file) raises :class:`fastpix_seek.frames.FrameOutOfRangeError` (an
        ``IndexError``) unless ``clamp=True``, which answers with the nearest end's frame.
        Raises ImportError without PyAV and :class:`fastpix_seek.frames.FrameNotDecodedError`
        (a ``RuntimeError``) when nothing lands or decodes, whatever PyAV raised; ValueError
        for an unknown ``which`` or ``timeline``, or a ``precision`` that contradicts
        ``which``."""
        return reader_for(self).frame_at(self, t, precision, timeout, clamp=clamp,
                                         which=which, timeline=timeline)

    def frames_at(self, times: Iterable[TimeLike], precision: Optional[SeekPrecision] = None,
                  timeout: Optional[float] = 10.0, *, clamp: bool = False,
                  which: str = ON_SCREEN, timeline: str = ITEM) -> List["FrameAt"]:
        """:meth:`frame_at` for each time, answered in the order given; decoded in time order
        (forward, so the decoder continues), repeated and nearby backward requests served
        from a small cache of decoded frames. ``which`` and ``timeline`` as in
        :meth:`frame_at`. The list holds every distinct frame it answers; for many times use
        :meth:`iter_frames_at` or :meth:`iter_frames_in_time_order`, whose memory does not
        grow with their number."""
        return reader_for(self).frames_at(self, times, precision, timeout, clamp=clamp,
                                          which=which, timeline=timeline)

    def iter_frames_at(self, times: Iterable[TimeLike], precision: Optional[SeekPrecision] = None,
                       timeout: Optional[float] = 10.0,
                       window: Optional[int] = None, *, clamp: bool = False,
                       which: str = ON_SCREEN, timeline: str = ITEM
                       ) -> Iterator["FrameAt"]:
        """:meth:`frames_at` as an iterator in bounded memory: yields the frame at each time in
        the order given, reading ``times`` lazily and answering ``window`` (default
        ``fastpix_seek.frames.DEFAULT_WINDOW``, 64) of them at a time (sorted, each landing
        decoded once), so at most ``window`` distinct frames are held
        (:class:`fastpix_seek.frames.FrameReader.iter_frames_at`). ``which`` and
        ``timeline`` as in :meth:`frame_at`."""
        return reader_for(self).iter_frames_at(self, times, precision, timeout, window,
                                               clamp=clamp, which=which, timeline=timeline)

    def iter_frames_in_time_order(self, times: Iterable[TimeLike],
                                  precision: Optional[SeekPrecision] = None,
                                  timeout: Optional[float] = 10.0, *, clamp: bool = False,
                                  which: str = ON_SCREEN, timeline: str = ITEM
                                  ) -> Iterator[Tuple[int, "FrameAt"]]:
        """Yields ``(index, frame)`` for every time in time order (ties in the order given;
        ``index`` is the time's position in ``times``), each landing decoded once, one frame
        held at a time (:class:`fastpix_seek.frames.FrameReader.iter_frames_in_time_order`).
        ``which`` and ``timeline`` as in :meth:`frame_at`."""
        return reader_for(self).iter_frames_in_time_order(self, times, precision, timeout,
                                                          clamp=clamp, which=which,
                                                          timeline=timeline)

    def frame_range(self) -> "FrameRange":
        """The times :meth:`frame_at` answers without ``clamp``
        (:class:`fastpix_seek.frames.FrameRange`: first frame, last frame -- the last
        complete one of a truncated file --, until when it is shown, truncated or not)."""
        return reader_for(self).frame_range(self)

    def frame_reader(self, cache_size: int = 8, skip_nonref: bool = True,
                     continuation: bool = True, **decoder_options: Any) -> "FrameReader":
        """Replaces the decoder state of :meth:`frame_at` with a new
        :class:`fastpix_seek.frames.FrameReader` made with these options (``cache_size``
        decoded frames kept; ``skip_nonref``: skip non-reference pre-roll frames;
        ``continuation``: turn this player's continuation on, so forward requests continue
        the decoder instead of restarting at the keyframe; ``decoder_options``: PyAV
        codec-context attributes, e.g. ``thread_count=1``)."""
        return new_reader(self, cache_size, skip_nonref, continuation, **decoder_options)
