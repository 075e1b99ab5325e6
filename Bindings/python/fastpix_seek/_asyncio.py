"""asyncio: seeks awaited on the loop, the blocking calls run off it, and a HOST player's
event fd watched by the loop, as a mixin of :class:`~fastpix_seek.Player`."""

from __future__ import annotations

import asyncio
import os
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, AsyncIterator, Callable, Generator, List, Optional, Tuple, Union, cast

from . import errors as _errors
from ._base import PathLike, _PlayerBase
from ._calls import _timeout_ms
from ._delivery import _LoopReader, _SeekEntry
from .types import (DeliveryMode, FrameStepDirection, FrameStepResult, ItemStatusInfo, Packet,
                    Preview, PreviewKind, SeekOutcome, SeekPrecision, TimeLike)

class _AsyncMixin(_PlayerBase):
    """The asyncio methods of :class:`~fastpix_seek.Player`."""

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

    async def set_preview_source_async(self, kind: Union[PreviewKind, int], url: Optional[PathLike] = None) -> None:
        """:meth:`set_preview_source` (which reads a sheet over the network) without blocking
        the event loop."""
        await self._off_loop(self.set_preview_source, kind, url)

    async def preview_async(self, t: TimeLike) -> Preview:
        """:meth:`preview` without blocking the event loop (a keyframe preview reads its own
        demuxer; a sheet's never blocks, but awaiting it is harmless)."""
        return cast(Preview, await self._off_loop(self.preview, t))
