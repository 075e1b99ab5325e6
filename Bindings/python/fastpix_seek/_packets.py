"""Packets: read_packet(), packets() and their read-ahead, as a mixin of
:class:`~fastpix_seek.Player`.

packets() reads ``batch`` packets per hop to the player's helper thread with one reused
``fpx_packet``; what it read but did not hand out waits in ``Player._pre`` for the next
packets() or read_packet(). The rule that keeps the read-ahead right when a seek, step or
scrub end moves the packet stream is at :meth:`_PacketsMixin._take`.
"""

from __future__ import annotations

import ctypes
import struct
import time
from fractions import Fraction
from typing import Any, Callable, Iterator, List, Optional, Tuple, cast

from . import _lib
from . import errors as _errors
from ._base import _PlayerBase
from .types import _SET_ORIGIN, _SET_R, _SET_TB, Packet


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


class _PacketsMixin(_PlayerBase):
    """The packet readers of :class:`~fastpix_seek.Player`."""

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
