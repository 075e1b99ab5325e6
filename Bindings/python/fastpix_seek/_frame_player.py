"""The player as the frame helpers (:mod:`fastpix_seek.frames`, :mod:`fastpix_seek.pyav`) see
it: the public methods of :class:`~fastpix_seek.Player` they call, as a Protocol, so that
they import no module of the player (they are the top floor; player.py hands over to them)."""

from __future__ import annotations

from fractions import Fraction
from typing import Iterator, Optional, Protocol, Tuple

from .types import ItemInfo, Packet, SeekOutcome, SeekPrecision, StreamInfo, TimeLike

__all__ = ["FramePlayer"]


class FramePlayer(Protocol):
    """What frames.py and pyav.py call on a :class:`~fastpix_seek.Player`."""

    def item_info(self) -> ItemInfo: ...

    def stream_info(self, index: int) -> StreamInfo: ...

    def seekable_range(self) -> Tuple[Fraction, Fraction]: ...

    def set_continuation(self, enabled: bool) -> None: ...

    def report_decoded(self, pts: int) -> None: ...

    def seek_wait(self, target: TimeLike, precision: Optional[SeekPrecision] = None,
                  timeout: Optional[float] = 10.0) -> SeekOutcome: ...

    def packets(self, batch: int = 64) -> Iterator[Packet]: ...
