"""What the concern modules of the player share: the state and the primitives of a
:class:`~fastpix_seek.Player` that its mixins (:mod:`~fastpix_seek._packets`,
:mod:`~fastpix_seek._asyncio`, :mod:`~fastpix_seek._scrub`, :mod:`~fastpix_seek._live`) use
from one another, declared once for the type checker.

At run time :class:`_PlayerBase` is an empty class: every declaration below is defined by
:class:`~fastpix_seek.Player` (``player.py``: the state, lifecycle, items and seeks) or by
one of the mixins, which is named beside it.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Optional, Tuple, Union

from . import _lib
from ._calls import _Runner
from ._delivery import _Core, _LoopReader, _SeekEntry, _Waiter
from .types import (DeliveryMode, FrameStepDirection, FrameStepResult, ItemInfo, ItemStatusInfo,
                    LiveSeekWindow, Packet, Preview, PreviewKind, SeekOutcome, SeekPrecision, StreamInfo,
                    TimeLike)

__all__ = ["PathLike", "SeekCallback"]

#: What Player.open accepts.
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
#: A seek's on_complete callback.
SeekCallback = Callable[[SeekOutcome], Any]


class _PlayerBase:
    """The shared part of a Player, for the type checker (module doc)."""

    if TYPE_CHECKING:  # pragma: no cover - declarations only
        # -- state (Player.__init__)
        _handle: Optional[_lib.PlayerHandle]
        _core: _Core
        _delivery: DeliveryMode
        _runner: _Runner
        _read_lock: threading.Lock
        _gen: int
        _pre: "deque[Tuple[Optional[bytes], Any]]"
        _pre_gen: int
        _continuation: bool
        _live: Optional[bool]
        _pkt: _lib.fpx_packet
        _tb_cache: Dict[int, Optional[Fraction]]
        _origin: Optional[Fraction]
        _origin_known: bool
        _origins: Dict[int, Fraction]
        _ref_tb: Optional[Fraction]
        _loop_reader: Optional[_LoopReader]
        _async_executor: Optional[ThreadPoolExecutor]
        _async_lock: threading.Lock

        # -- lifecycle, items, seeks, events (player.py)
        @property
        def closed(self) -> bool: raise NotImplementedError

        @property
        def delivery(self) -> DeliveryMode: raise NotImplementedError

        def _h(self) -> _lib.PlayerHandle: raise NotImplementedError

        def _hq(self) -> _lib.PlayerHandle: raise NotImplementedError

        def open(self, url: PathLike) -> None: raise NotImplementedError

        def wait_item(self, timeout: Optional[float] = None) -> ItemStatusInfo:
            raise NotImplementedError

        def item_info(self) -> ItemInfo: raise NotImplementedError

        def stream_info(self, index: int) -> StreamInfo: raise NotImplementedError

        def _issue_seek(self, target: Any, precision: Any, entry: _SeekEntry) -> int:
            raise NotImplementedError

        def seek_wait(self, target: TimeLike, precision: Optional[SeekPrecision] = None,
                      timeout: Optional[float] = 10.0) -> SeekOutcome:
            raise NotImplementedError

        def _check_can_wait(self, what: str, timeout: Optional[float]) -> None:
            raise NotImplementedError

        def _wait(self, waiter: _Waiter, seek_id: int, timeout: Optional[float],
                  what: str) -> Any:
            raise NotImplementedError

        def dispatch_events(self) -> int: raise NotImplementedError

        def event_fd(self) -> int: raise NotImplementedError

        # -- packets (_packets.py)
        def read_packet(self) -> Packet: raise NotImplementedError

        def packets(self, batch: int = 64) -> Iterator[Packet]: raise NotImplementedError

        def _blocking(self, call: Callable[[], Any]) -> Any: raise NotImplementedError

        # -- asyncio (_asyncio.py)
        async def _await_completion(self, issue: Callable[[_SeekEntry], int]) -> Any:
            raise NotImplementedError

        def attach_event_loop(self, loop: Optional[asyncio.AbstractEventLoop] = None) -> None:
            raise NotImplementedError

        # -- scrub and steps (_scrub.py)
        def step_frame(self, direction: FrameStepDirection = FrameStepDirection.FORWARD,
                       count: int = 1) -> FrameStepResult:
            raise NotImplementedError

        # -- seek previews (_preview.py)
        def set_preview_source(self, kind: Union[PreviewKind, int], url: Optional[PathLike] = None) -> None:
            raise NotImplementedError

        def preview(self, t: TimeLike) -> Preview: raise NotImplementedError

        # -- live (_live.py)
        def live_seek_window(self) -> LiveSeekWindow: raise NotImplementedError
