"""The frame at a time: seek with a precision, decode with PyAV, return the landed frame.

    from fastpix_seek import Player

    with Player("movie.mp4") as p:
        p.wait_item(timeout=5)
        f = p.frame_at(12.5)                 # exact by default: the frame on screen at 12.5 s
        f.frame.to_image().save("at.png")    # an av.VideoFrame (PIL needed for to_image)
        print(f.pts, f.time, f.outcome.frame_covers_target)
        for f in p.frames_at([30, 1, 2.5, 2.4]):   # any order; results in that order
            ...
        for f in p.iter_frames_at(many_times):     # the same, in bounded memory
            ...
        for i, f in p.iter_frames_in_time_order(many_times):   # time order; i: index in many_times
            ...
        f = p.frame_at(0.033367, which="at_or_after", timeline="stream")   # as ffprobe/PyAV count

:meth:`Player.frame_at` and :meth:`Player.frames_at` are thin methods over
:class:`FrameReader`, which keeps one PyAV decoder per player between calls and follows the
packet contract of ``fastpix/seek.h``:

* the decoder is flushed only at a packet flagged ``FPX_PACKET_FLAG_DISCONTINUITY`` (or when
  the reader cannot vouch for what it was fed -- a new item, a request served from its cache,
  an error -- and the packets did not restart: it then also waits for a keyframe, so that a
  frame is reported missing rather than decoded wrong): so when the library *continues* the packet stream after a seek (no
  DISCONTINUITY, DECODE_ONLY packets up to the new landing), the decoder keeps what it has
  and decodes only the frames between the two landings;
* packets flagged ``FPX_PACKET_FLAG_DISPOSABLE`` (pre-roll no later frame references) are
  dropped before the decoder;
* ``DECODE_ONLY`` packets are decoded, their frames never returned; with ``skip_nonref``
  (the default) the decoder's ``skip_frame`` is ``NONREF`` while it is fed DECODE_ONLY
  packets (it then skips frames no other frame references, which are by definition not
  shown) and ``DEFAULT`` otherwise;
* the wanted frame is the decoded frame whose pts equals the landing the packets carry
  (``landed_pts_in_stream``, which is the outcome's ``landed_stream_pts`` for the reference
  stream); decoded frames before the landing are discarded, so the right frame comes out
  whether the packets restarted at a keyframe or continued.

``frames_at`` sorts its times (so successive landings move forward and continuation can
apply), decodes each landing once, and keeps a small bounded cache (``cache_size`` frames,
default 8) of the frames decoded at or after a landing, which serves repeated and backward
requests close to a recent landing without decoding the GOP again.

Memory. ``frames_at`` returns a list, so it holds every distinct frame it answers until the
list is dropped: its memory grows with the number of distinct landed frames (about 1.5 bytes
a pixel for 8-bit 4:2:0 plus the decoder's padding: some 130 KB a 320x180 frame, 3 MB a 1080p
one), whatever the number of times. Two iterators hold a bounded number of frames instead
(whatever the caller keeps of what they yield is the caller's):

* :meth:`FrameReader.iter_frames_at` (``Player.iter_frames_at``) answers in the order given.
  It reads the times lazily, ``window`` (default 64) at a time, sorts each window, decodes it
  forward and yields its answers in the given order: at most ``window`` distinct frames plus
  the reader's cache are held. Times in random order cost more decoding than in
  ``frames_at`` (each window restarts from its earliest time), times already sorted cost the
  same.
* :meth:`FrameReader.iter_frames_in_time_order` (``Player.iter_frames_in_time_order``) sorts
  all the times (a few hundred bytes each, no frames) and yields ``(index, FrameAt)`` in time
  order (ties in the order given; ``index`` is the time's position in ``times``), decoding
  each landing once as ``frames_at`` does: one frame plus the reader's cache is held.

Neither holds the reader's lock while suspended at a ``yield``: other calls on the same player
may run between two answers (each answer is right on its own; the decoder then restarts where
needed).

Range. A time outside :meth:`FrameReader.frame_range` (``Player.frame_range``) raises
:class:`FrameOutOfRangeError`, an ``IndexError`` (as torchcodec and decord do), unless the
call passes ``clamp=True``: then the first or the last frame answers (``FrameAt.requested``
keeps the time asked for). In range: from item time 0 (or the first frame, if earlier) until
the last frame stops being shown (the item's duration, or the last frame's time plus its
duration). The seek API itself (``Player.seek*``) keeps clamping and reports it in
``outcome.clamp``. On a truncated file (an interrupted download, a copy cut short) the range
ends at the last *complete* frame, decoded without errors from packets read whole, and says
``truncated``: the library flags a file whose seekable range ends well short of its duration
(``ItemInfo.seekable_range_truncated``), and a landing that runs into the end of the data or
decodes damaged finds a smaller cut. Times past it raise :class:`FrameOutOfRangeError` with
``truncated=True``, never PyAV's ``EOFError``; every other decode failure is
:class:`FrameNotDecodedError`.

Conventions. Tools mean different frames by "the frame at t" and different clocks by "t"
(seek.h section 2, "Conventions"). Every frame helper takes both as keyword options, the
defaults being the seed's:

* which frame: ``which="on_screen"`` (the default; precision exact): the frame on screen at
  t, the largest pts <= t, as AVFoundation, mpv or any player shows t.
  ``which="at_or_after"`` (:meth:`SeekPrecision.at_or_after
  <fastpix_seek.SeekPrecision.at_or_after>`): the first frame at or after t, the smallest
  pts >= t, what ``ffmpeg -ss t`` outputs first, what PyAV's recipe (seek backward, decode,
  skip ``pts < t``) returns, and frame i of a frame-index API (asked at frame i's pts).
* which clock: ``timeline="item"`` (the default): item time, 0 the container's start, the
  clock of the seek API, of ``ffmpeg -ss`` and of ``FrameAt.time``. ``timeline="stream"``:
  the reference stream's own pts seconds, the clock of ffprobe's ``pts_time``, PyAV's
  ``frame.time``, ``pts * time_base`` and ``FrameAt.stream_time``.
* which video stream: ``Player(url, reference_stream=i)``, i the stream's index as
  ``Player.stream_info``, ffprobe and PyAV (``container.streams[i]``) count them; None (the
  default) lets the library pick (the best video stream).

The two clocks differ by the container's start (:attr:`ItemInfo.origin
<fastpix_seek.ItemInfo.origin>`): an MKV whose audio starts 7 ms before its video, an MPEG-TS
stamped from 1.4 s. With ``timeline="stream"`` a float is read as the nearest tick of the
reference stream's time base, so ffprobe's ``pts_time`` (printed to the microsecond) and
PyAV's ``frame.time`` land on their frame (:meth:`ItemInfo.item_time
<fastpix_seek.ItemInfo.item_time>`). With ``which="at_or_after"`` the range ends at the last
frame's time (after it no frame starts: :class:`FrameOutOfRangeError` unless ``clamp=True``);
on an HLS item too (a time after a segment's last frame gives the next segment's first).

PyAV is optional: this module imports ``av`` only when a decoder is first needed and raises
ImportError with an explanation when it is missing. The ``frames`` extra
(``pip install 'fastpix-seek[frames]'``) installs PyAV with numpy and Pillow, which the
frames' ``to_ndarray()`` and ``to_image()`` need (PyAV depends on neither). Supported: PyAV 10 (Debian 12's
``python3-av``) to the newest release, through :mod:`fastpix_seek.pyav`.

Do not read packets yourself between the calls on the same player without seeking (the
reader cannot see those packets); seeking is fine: the next packet is then a DISCONTINUITY.
:meth:`FrameReader.reset` forgets the decoder state explicitly.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Tuple

from . import errors as _errors
from ._abi import (FPX_PACKET_FLAG_CORRUPT, FPX_PACKET_FLAG_DECODE_ONLY,
                   FPX_PACKET_FLAG_DISCONTINUITY, FPX_PACKET_FLAG_DISPOSABLE, FPX_PACKET_FLAG_KEY)
from .frame_errors import FrameError, FrameNotDecodedError, FrameOutOfRangeError
from .types import (MediaType, PrecisionKind, SeekOutcome, SeekPrecision, TimeLike,
                    to_fraction)

if TYPE_CHECKING:
    from ._frame_player import FramePlayer as Player

__all__ = ["FrameAt", "FrameRange", "FrameReader", "FrameError", "FrameNotDecodedError",
           "FrameOutOfRangeError", "reader_for", "new_reader", "DEFAULT_CACHE_SIZE",
           "DEFAULT_WINDOW", "TAIL_ATTEMPTS", "ON_SCREEN", "AT_OR_AFTER", "ITEM", "STREAM"]

#: ``which=``: the frame on screen at t, the largest pts <= t (the default; the seed's
#: ``exact``, what a player shows at t).
ON_SCREEN = "on_screen"
#: ``which=``: the first frame at or after t, the smallest pts >= t (``ffmpeg -ss t``, PyAV's
#: seek-decode-and-skip recipe, frame-index APIs; :meth:`SeekPrecision.at_or_after`).
AT_OR_AFTER = "at_or_after"
#: ``timeline=``: times on the item timeline, 0 the container's start (the default; the seek
#: API's clock, and ``ffmpeg -ss``'s).
ITEM = "item"
#: ``timeline=``: times in the reference stream's own pts seconds (ffprobe's ``pts_time``,
#: PyAV's ``frame.time``, ``pts * time_base``), converted by :meth:`ItemInfo.item_time
#: <fastpix_seek.ItemInfo.item_time>` (a float is read as the nearest tick of the stream's
#: time base).
STREAM = "stream"

#: Default number of decoded frames a reader keeps for repeated and backward requests.
DEFAULT_CACHE_SIZE = 8

#: Default number of times :meth:`FrameReader.iter_frames_at` answers per sorted window.
DEFAULT_WINDOW = 64

#: How many GOPs back from the cut :meth:`FrameReader.frame_range` looks for the last complete
#: frame of a truncated file before it gives up (a cut inside a keyframe loses one GOP; more
#: than a few whole GOPs without one complete frame is a damaged file, not a cut one).
TAIL_ATTEMPTS = 4


@dataclass(frozen=True)
class FrameAt:
    """One answer of :meth:`Player.frame_at` / :meth:`Player.frames_at`.

    ``frame``: the decoded ``av.VideoFrame`` (its ``pts`` is the landed pts); ``requested``:
    the time asked for on the item timeline, exact (with ``timeline="stream"`` the time given,
    converted: :meth:`ItemInfo.stream_seconds <fastpix_seek.ItemInfo.stream_seconds>` gives
    it back); ``outcome``: the seek's
    :class:`~fastpix_seek.SeekOutcome` (landed time, covers-target verdict, clamp...);
    ``from_cache``: served from the reader's cache, no packet decoded; ``decoded``: frames the
    decoder produced for this answer (0 from the cache); ``packets``: packets fed to it;
    ``dropped``: DISPOSABLE packets dropped before it."""

    frame: Any
    requested: Fraction
    outcome: SeekOutcome
    from_cache: bool = False
    decoded: int = 0
    packets: int = 0
    dropped: int = 0

    @property
    def pts(self) -> int:
        """The landed frame's pts in the reference stream's time base."""
        return int(self.outcome.landed_stream_pts)  # type: ignore[arg-type]

    @property
    def time(self) -> Optional[Fraction]:
        """The landed frame's time on the item timeline (outcome.landed_time)."""
        return self.outcome.landed_time

    @property
    def stream_time(self) -> Optional[Fraction]:
        """The landed frame's time in the reference stream's own pts seconds (``pts *
        time_base``: ffprobe's ``pts_time``, PyAV's ``frame.time``), exact."""
        tb = self.outcome.stream_time_base
        pts = self.outcome.landed_stream_pts
        return None if tb is None or pts is None else pts * tb


@dataclass(frozen=True)
class FrameRange:
    """The times the frame helpers answer (:meth:`FrameReader.frame_range`,
    ``Player.frame_range``), on the item timeline, exact.

    ``start``: the first frame's time; ``end``: the last frame the helpers can return (on a
    truncated file the last *complete* frame: its packet and every packet before it in
    decode order were read whole); ``until``: where the last frame stops being on screen (the
    item's duration, or ``end`` plus the last frame's duration; None when unknown);
    ``truncated``: the item's data ends before its container says (the library's
    ``seekable_range_truncated``, or a cut found while decoding); ``seekable_end``: the end
    of the library's seekable range (the seek API's clamp bound; past ``end`` on a cut file,
    whose index still lists frames whose data is gone).

    A time ``t`` is in range (:meth:`contains`) when ``min(0, start) <= t`` and ``t < until``
    (or ``t <= end`` when ``until`` is unknown): item time 0 is the item's start even when the
    first frame comes a little later (it answers with the first frame), and the last frame
    answers until it stops being on screen, as in a player. With ``which="at_or_after"`` the
    range ends at ``end`` itself: after the last frame's time no frame starts (``ffmpeg -ss``
    outputs nothing there, frame-index APIs raise IndexError)."""

    start: Fraction
    end: Fraction
    until: Optional[Fraction]
    truncated: bool
    seekable_end: Fraction

    def contains(self, t: TimeLike, which: str = ON_SCREEN) -> bool:
        """True when the item time ``t`` is in range for ``which`` (see the class doc)."""
        x = to_fraction(t)
        if x < min(Fraction(0), self.start):
            return False
        if _precision_for(which, None) is not None:  # at or after: a frame must start at or after
            return x <= self.end
        return x <= self.end or (self.until is not None and x < self.until)


def _whole_frames(frames: Iterable[Any]) -> List[int]:
    """The pts of the frames a decoder put out without errors (PyAV's ``is_corrupt``: the
    decoder concealed damage, e.g. a picture whose data was cut)."""
    return [f.pts for f in frames if f.pts is not None and not getattr(f, "is_corrupt", False)]


def _s(t: Fraction) -> str:
    return f"{float(t):.6g} s"


def _precision_for(which: str, precision: Optional[SeekPrecision]) -> Optional[SeekPrecision]:
    """The seek precision of ``which`` (module doc, "Conventions") and ``precision``: None
    (exact) or ``precision`` for ON_SCREEN; ``SeekPrecision.at_or_after()`` for AT_OR_AFTER,
    which ``precision`` may repeat but not contradict."""
    if which == ON_SCREEN:
        return precision
    if which == AT_OR_AFTER:
        if precision is not None and (not isinstance(precision, SeekPrecision)
                                      or precision.kind != PrecisionKind.AT_OR_AFTER):
            raise ValueError(f"which='at_or_after' is the precision SeekPrecision.at_or_after(); "
                             f"precision={precision} asks for another: pass one of the two")
        return SeekPrecision(PrecisionKind.AT_OR_AFTER, Fraction(0))
    raise ValueError(f"which must be {ON_SCREEN!r} (the frame on screen at t, the default) or "
                     f"{AT_OR_AFTER!r} (the first frame at or after t, as ffmpeg -ss), not "
                     f"{which!r}")


def _is_at_or_after(precision: Optional[SeekPrecision]) -> bool:
    return isinstance(precision, SeekPrecision) and precision.kind == PrecisionKind.AT_OR_AFTER


def _item_times(player: "Player", times: Iterable[TimeLike], timeline: str) -> List[Fraction]:
    """``times`` on the item timeline: as they are for ITEM; for STREAM, from the reference
    stream's own pts seconds (:meth:`ItemInfo.item_time`, a float read as the nearest tick)."""
    if timeline == ITEM:
        return [to_fraction(t) for t in times]
    if timeline == STREAM:
        ts = list(times)
        if not ts:
            return []
        item = player.item_info()
        return [item.item_time(t) for t in ts]
    raise ValueError(f"timeline must be {ITEM!r} (item time, 0 the container's start: the "
                     f"default) or {STREAM!r} (the reference stream's own pts seconds, as "
                     f"ffprobe's pts_time and PyAV's frame.time), not {timeline!r}")


def _pyav() -> Any:
    try:
        from . import pyav
    except ImportError as e:
        raise ImportError("Player.frame_at / frames_at decode with PyAV, which is not "
                          "installed: pip install 'fastpix-seek[frames]' (PyAV, numpy, "
                          "Pillow) or 'av>=10', or on Debian apt install python3-av") from e
    return pyav


class FrameReader:
    """The decoder state of :meth:`Player.frame_at` for one player (see the module doc).

    ``cache_size``: decoded frames kept (>= 0); ``skip_nonref``: skip non-reference frames
    while decoding DECODE_ONLY packets; ``continuation``: turn the player's continuation on
    (seek.h, "Continuation"), so that a landing ahead of what the decoder has continues the
    packets instead of restarting at the keyframe, and report to the library what the decoder
    returned (``Player.report_decoded``); ``decoder_options``: attributes set on the PyAV
    decoder (e.g. ``thread_count=1``)."""

    def __init__(self, cache_size: int = DEFAULT_CACHE_SIZE, skip_nonref: bool = True,
                 continuation: bool = True, **decoder_options: Any) -> None:
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size must be an int >= 0, not {cache_size!r}")
        self.cache_size = cache_size
        self.skip_nonref = skip_nonref
        self.continuation = continuation
        # The largest pts the decoder returned since its last flush (reported to the library
        # before each seek when continuation is on); None right after a flush.
        self._max_out: Optional[int] = None
        # One request at a time: the decoder and the packet stream are shared state.
        self._lock = threading.RLock()
        self.decoder_options = decoder_options
        self._dec: Any = None
        self._info: Any = None
        self._item: Any = None
        self._ref = -1
        # False when the decoder holds state the next packets may not continue (a seek
        # whose packets were never read, an error): flush at the next packet.
        self._clean = True
        self._skipping = False
        #: pts -> av.VideoFrame, least recently used first.
        self._cache: "OrderedDict[int, Any]" = OrderedDict()
        # Frames the decoder put out after the last landed one (same decode call): whatever
        # cache_size says, the next landing may be one of them when the packets continue.
        self._ahead: Dict[int, Any] = {}
        # The item's FrameRange (frame_range), for self._range_item.
        self._range: Optional[FrameRange] = None
        self._range_item: Any = None
        self._range_verified = False  # its end was checked by decoding the tail
        # _decode_to ran out of packets (end of the item) without the landed frame.
        self._hit_end = False
        #: Counters over the reader's life: frames decoded, packets fed, disposable dropped.
        self.frames_decoded = 0
        self.packets_fed = 0
        self.packets_dropped = 0

    def reset(self) -> None:
        """Forgets the decoder and the cache."""
        self._dec = None
        self._info = None
        self._item = None
        self._cache.clear()
        self._ahead = {}
        self._clean = True
        self._skipping = False
        self._max_out = None
        self._range = None
        self._range_item = None

    # -- the decoder ---------------------------------------------------------------------

    def _prepare(self, player: "Player") -> None:
        item = player.item_info()
        if self._dec is not None and item == self._item:
            return
        self.reset()
        if not item.has_video:
            raise ValueError("frame_at needs an item with a video stream")
        pyav = _pyav()
        self._ref = item.reference_stream
        self._info = player.stream_info(self._ref)
        if self._info.type != MediaType.VIDEO:
            raise ValueError("frame_at needs a video reference stream")
        try:
            self._dec = pyav.decoder_for(self._info, **self.decoder_options)
        except (ValueError, pyav.av.FFmpegError) as e:
            self.reset()
            raise FrameNotDecodedError(f"no decoder for the {self._info.codec_name!r} stream: "
                                       f"{e}", None, _url(player)) from e
        self._item = item
        self._skipping = False
        # Continuation is the player's setting: with it on, the library continues the
        # packets only where this decoder's state makes that right (seek.h).
        player.set_continuation(self.continuation)

    def _flush(self) -> None:
        pyav = _pyav()
        try:
            self._dec = pyav.flush_decoder(self._dec, self._info, **self.decoder_options)
        except (ValueError, pyav.av.FFmpegError) as e:
            raise FrameNotDecodedError(f"the decoder could not be reset: {e}") from e
        self._skipping = False
        self._max_out = None

    def _set_skip(self, skip: bool) -> None:
        if skip != self._skipping:
            if not self._dec.is_open:
                # Some decoders read skip_frame once, when they open (libdav1d: its
                # decode_frame_type), and would skip non-reference frames for good: open it
                # with DEFAULT first; to those the later changes are only a hint they ignore.
                self._dec.open()
            self._dec.skip_frame = "NONREF" if skip else "DEFAULT"
            self._skipping = skip

    def _remember(self, frame: Any) -> None:
        if self.cache_size == 0:
            return
        c = self._cache
        c[frame.pts] = frame
        c.move_to_end(frame.pts)
        while len(c) > self.cache_size:
            c.popitem(last=False)

    # -- the range -----------------------------------------------------------------------

    def frame_range(self, player: "Player") -> FrameRange:
        """The times this reader answers without clamping (:class:`FrameRange`). Its end is
        the last *complete* frame: the item's tail is decoded once (one GOP, kept for the
        item) and a frame counts when it decoded without errors (``av.Frame.is_corrupt``
        false) from packets read whole; a file whose data ends before that is
        ``truncated``. Items of unknown duration (live) are not decoded to their end: their
        range is the library's seekable range."""
        with self._lock:
            self._prepare(player)
            return self._range_of(player, verify=True)

    def _range_of(self, player: "Player", verify: bool = False) -> FrameRange:
        """The cached range; computed from the library's seekable range and duration, and
        checked by decoding the tail when the library flags the item truncated or ``verify``
        (frame_range, or a landing that hit the end of the data)."""
        item = player.item_info()
        if (self._range is not None and item == self._range_item and item.duration is not None
                and (self._range_verified or not verify)):
            return self._range  # a live item's range moves: asked again each time
        start, end = player.seekable_range()
        until: Optional[Fraction] = None
        if item.duration is not None and item.duration > end:
            until = item.duration
        elif self._info is not None and self._info.frame_rate:
            until = end + 1 / Fraction(self._info.frame_rate)
        rng = FrameRange(start, end, until, False, end)
        self._range_verified = False
        if item.duration is not None and (item.seekable_range_truncated or verify):
            last, shown = self._tail(player, start, end)
            if item.seekable_range_truncated or last < end:
                rng = FrameRange(start, last, shown, True, end)
            self._range_verified = True
        self._range, self._range_item = rng, item
        return rng

    def _tail(self, player: "Player", start: Fraction,
              end: Fraction) -> Tuple[Fraction, Optional[Fraction]]:
        """The last complete frame's time and the time it stops being shown (its time plus
        its duration), decoding from the last keyframe before the seekable end with a decoder
        of its own. A frame is complete when it decoded without errors and its packet came
        before the first CORRUPT one (a packet cut short) in decode order. When the last GOP
        has none, the GOP before it is tried (:data:`TAIL_ATTEMPTS` in all)."""
        pyav = _pyav()
        self._clean = False  # these seeks move the packet stream under the main decoder
        target = end
        for _ in range(TAIL_ATTEMPTS):
            out = player.seek_wait(target, SeekPrecision.exact())
            if not out.finished or out.landed_time is None:
                break
            try:
                dec = pyav.decoder_for(self._info, **self.decoder_options)
            except (ValueError, pyav.av.FFmpegError) as e:
                raise FrameNotDecodedError(f"no decoder for the {self._info.codec_name!r} "
                                           f"stream: {e}", out, _url(player)) from e
            whole: Dict[int, Tuple[Fraction, Optional[Fraction]]] = {}
            cut = False
            earliest: Optional[Fraction] = None
            decoded: List[int] = []
            for p in player.packets():
                if p.stream_index != self._ref or p.pts is None:
                    continue
                t = p.item_time
                if t is not None and (earliest is None or t < earliest):
                    earliest = t
                if p.flags & FPX_PACKET_FLAG_CORRUPT:
                    cut = True
                if cut or t is None:
                    continue  # from the cut on, no frame is complete
                whole[p.pts] = (t, None if not p.duration or p.time_base is None
                                else p.duration * Fraction(p.time_base))
                try:
                    decoded.extend(_whole_frames(dec.decode(pyav.to_av_packet(p))))
                except pyav.av.FFmpegError:
                    continue
            try:
                decoded.extend(_whole_frames(dec.decode(None)))
            except pyav.av.FFmpegError:
                pass
            done = [whole[q] for q in decoded if q in whole]
            if done:
                last, dur = max(done, key=lambda e: e[0])
                if dur is None and self._info.frame_rate:
                    dur = 1 / Fraction(self._info.frame_rate)
                return last, None if dur is None else last + dur
            if earliest is None or earliest <= start:
                break
            target = earliest - Fraction(1, 1000)  # the GOP before this one
        raise FrameNotDecodedError(f"no complete frame found before the end of the data at "
                                   f"{_s(end)}", None, _url(player))

    def _out_of_range(self, player: "Player", requested: Fraction, rng: FrameRange,
                      outcome: Optional[SeekOutcome] = None,
                      at_or_after: bool = False) -> FrameOutOfRangeError:
        where = (f"after the last complete frame ({_s(rng.end)}) of a truncated file "
                 f"(its data ends before the {_s(rng.seekable_end)} the seekable range reaches)"
                 if rng.truncated and requested > rng.end else
                 f"after the last frame ({_s(rng.end)}): no frame starts at or after it "
                 f"(which='at_or_after'; ffmpeg -ss outputs none there)"
                 if at_or_after and requested > rng.end else
                 f"outside the item's frames ({_s(rng.start)} to {_s(rng.end)}"
                 + (f", shown until {_s(rng.until)}" if rng.until is not None else "") + ")")
        return FrameOutOfRangeError(f"{_s(requested)} is {where}; clamp=True answers with the "
                                    f"nearest frame instead", outcome, _url(player), requested,
                                    (rng.start, rng.end), rng.truncated)

    # -- one landing ---------------------------------------------------------------------

    def frame_at(self, player: "Player", t: TimeLike,
                 precision: Optional[SeekPrecision] = None,
                 timeout: Optional[float] = 10.0, *, clamp: bool = False,
                 which: str = ON_SCREEN, timeline: str = ITEM) -> FrameAt:
        """Seeks ``player`` to ``t`` with ``precision`` (default: exact) and returns the
        landed frame (see :meth:`Player.frame_at`). ``which`` and ``timeline`` choose the
        convention (module doc, "Conventions"): ``which="at_or_after"`` the first frame at or
        after ``t``, ``timeline="stream"`` a ``t`` in the reference stream's pts seconds. A
        ``t`` outside :meth:`frame_range` raises :class:`FrameOutOfRangeError` (an
        IndexError) unless ``clamp`` is True (then the first or last frame answers).
        Thread-safe: requests on one reader run one at a time."""
        prec = _precision_for(which, precision)
        requested = _item_times(player, (t,), timeline)[0]
        with self._lock:
            return self._frame_at(player, requested, prec, timeout, clamp)

    def _frame_at(self, player: "Player", t: TimeLike, precision: Optional[SeekPrecision],
                  timeout: Optional[float], clamp: bool = False) -> FrameAt:
        self._prepare(player)
        requested = to_fraction(t)
        rng = self._range_of(player)
        target = requested
        after = _is_at_or_after(precision)
        if not rng.contains(requested, AT_OR_AFTER if after else ON_SCREEN):
            if not clamp:
                raise self._out_of_range(player, requested, rng, at_or_after=after)
            target = rng.start if requested < rng.start else rng.end
        try:
            got = self._land(player, requested, target, precision, timeout)
        except FrameNotDecodedError as e:
            # The packets ended before the landed frame: a file cut short (whether or not
            # the library flagged it). Its last complete frame bounds the range from now on.
            landed = None if e.outcome is None else e.outcome.landed_time
            if not self._hit_end or landed is None or self._range_verified:
                raise
            try:
                rng = self._range_of(player, verify=True)
            except FrameNotDecodedError:
                raise e from e.__cause__  # no complete frame at all: not a cut, a decoder
            if landed <= rng.end:
                raise
            if not clamp:
                raise self._out_of_range(player, requested, rng, e.outcome, after) from e
            return self._land(player, requested, rng.end, precision, timeout)
        if getattr(got.frame, "is_corrupt", False) and not self._range_verified:
            # A damaged landed frame: the data may end in it (a cut TS's last PES is not
            # flagged). Past the last complete frame it is out of range; before it, damage
            # in the middle of the file, returned as decoded (frame.is_corrupt tells).
            try:
                rng = self._range_of(player, verify=True)
            except FrameNotDecodedError:
                return got
            if got.time is not None and got.time > rng.end:
                if not clamp:
                    raise self._out_of_range(player, requested, rng, got.outcome, after)
                return self._land(player, requested, rng.end, precision, timeout)
        return got

    def _land(self, player: "Player", requested: Fraction, target: Fraction,
              precision: Optional[SeekPrecision], timeout: Optional[float]) -> FrameAt:
        if self.continuation and self._clean and self._max_out is not None:
            player.report_decoded(self._max_out)
        outcome = player.seek_wait(target, SeekPrecision.exact() if precision is None
                                   else precision, timeout=timeout)
        if not outcome.finished or outcome.landed_stream_pts is None:
            # Nothing landed; whatever the seek did to the packet stream, the next packet
            # after a landed seek is a DISCONTINUITY, so the decoder needs no flush here.
            raise FrameNotDecodedError(f"the seek to {_s(target)} did not land "
                                       f"({outcome.reason.name})", outcome, _url(player))
        want = int(outcome.landed_stream_pts)
        hit = self._cache.get(want)
        if hit is not None:
            self._cache.move_to_end(want)
        else:
            hit = self._ahead.get(want)
        if hit is not None:
            if not self.continuation:
                # The seek moved the packet stream and we read none of it: without
                # continuation its next packet is a DISCONTINUITY anyway.
                self._clean = False
            # With continuation the library continues from what we read (packets() gave its
            # read-ahead back) or restarts with a DISCONTINUITY: the decoder stays right.
            return FrameAt(hit, requested, outcome, from_cache=True)
        try:
            frame, decoded, fed, dropped = self._decode_to(player, outcome, want)
        except FrameError as e:
            self._clean = False
            if e.url is None:
                e.url = _url(player)
            raise
        except BaseException:
            self._clean = False
            raise
        return FrameAt(frame, requested, outcome, decoded=decoded, packets=fed, dropped=dropped)

    def _decode_to(self, player: "Player", outcome: SeekOutcome,
                   want: int) -> Tuple[Any, int, int, int]:
        pyav = _pyav()
        to_av = pyav.to_av_packet
        ref = self._ref
        errors = pyav.av.FFmpegError
        found: Any = None
        overshoot: Optional[int] = None
        decoded = fed = dropped = 0
        ahead: Dict[int, Any] = {}
        need_key = False
        # The decoder's first complaint, kept as the cause of FrameNotDecodedError.
        failure: Optional[BaseException] = None
        self._hit_end = False
        for p in player.packets():
            flags = p.flags
            if flags & FPX_PACKET_FLAG_DISCONTINUITY:
                self._flush()
                self._clean = True
                need_key = False
            elif not self._clean:
                # The decoder's state is not what these packets continue (a request served
                # from the cache, an error) and the library did not restart them: start over
                # at the next keyframe rather than decode from the middle of a GOP (if the
                # landing comes before it, the frame is reported missing, never wrong).
                self._flush()
                self._clean = True
                need_key = True
            if p.stream_index != ref:
                continue
            if need_key:
                if not flags & FPX_PACKET_FLAG_KEY:
                    continue
                need_key = False
            if flags & FPX_PACKET_FLAG_DISPOSABLE:
                dropped += 1
                continue
            landing = p.landed_pts_in_stream
            target = want if landing is None else landing
            if self.skip_nonref:
                self._set_skip(bool(flags & FPX_PACKET_FLAG_DECODE_ONLY))
            fed += 1
            try:
                frames = self._dec.decode(to_av(p))
            except errors as e:
                failure = failure or e
                continue  # a damaged packet: go on with the next one, as ffmpeg does
            for frame in frames:
                decoded += 1
                pts = frame.pts
                if pts is not None and (self._max_out is None or pts > self._max_out):
                    self._max_out = pts
                if pts is None or pts < target:
                    continue  # pre-roll (DECODE_ONLY) or before the landing: never returned
                self._remember(frame)
                if pts == want and found is None:
                    found = frame
                elif found is not None:
                    ahead[pts] = frame
                elif pts > want:
                    # Past the landing without it: the packets continued beyond frames this
                    # decoder had already produced (or the stream lacks the frame).
                    overshoot = pts
            if found is not None or overshoot is not None:
                break
        else:
            # End of the item: the landed frame may still be in the reorder buffer.
            self._hit_end = True
            self._set_skip(False)
            try:
                drained = self._dec.decode(None)
            except errors as e:
                failure = failure or e
                drained = []
            for frame in drained:
                decoded += 1
                if frame.pts is not None and frame.pts >= want:
                    self._remember(frame)
                    if frame.pts == want and found is None:
                        found = frame
            # A drained decoder takes no more packets: the next landing must start afresh
            # (it does: a seek after EOF is a DISCONTINUITY), so make a clean one.
            self._clean = False
        self._ahead = ahead
        self.frames_decoded += decoded
        self.packets_fed += fed
        self.packets_dropped += dropped
        if found is None:
            self._clean = False
            why = "" if overshoot is None else f" (the decoder went on to pts {overshoot})"
            if failure is not None:
                why += f" ({getattr(self._dec, 'name', '?')} decoder: {failure})"
            raise FrameNotDecodedError(f"the landed frame (pts {want}) was never decoded{why}",
                                       outcome) from failure
        return found, decoded, fed, dropped

    # -- many landings -------------------------------------------------------------------

    def frames_at(self, player: "Player", times: Iterable[TimeLike],
                  precision: Optional[SeekPrecision] = None,
                  timeout: Optional[float] = 10.0, *, clamp: bool = False,
                  which: str = ON_SCREEN, timeline: str = ITEM) -> List[FrameAt]:
        """The frame at each time, in the order given (see :meth:`Player.frames_at`;
        ``which`` and ``timeline`` as in :meth:`frame_at`). The list holds every distinct
        frame it answers: for many times, :meth:`iter_frames_at` or
        :meth:`iter_frames_in_time_order` hold a bounded number (module doc, "Memory")."""
        prec = _precision_for(which, precision)
        req = _item_times(player, times, timeline)
        with self._lock:
            return self._frames_at(player, req, prec, timeout, clamp)

    def _frames_at(self, player: "Player", req: List[Fraction],
                   precision: Optional[SeekPrecision], timeout: Optional[float],
                   clamp: bool) -> List[FrameAt]:
        order = sorted(range(len(req)), key=lambda i: req[i])
        out: List[Optional[FrameAt]] = [None] * len(req)
        done: Dict[Fraction, FrameAt] = {}
        for i in order:
            t = req[i]
            r = done.get(t)
            if r is None:
                r = self._frame_at(player, t, precision, timeout, clamp)
                done[t] = r
            out[i] = r
        return [r for r in out if r is not None]

    def iter_frames_at(self, player: "Player", times: Iterable[TimeLike],
                       precision: Optional[SeekPrecision] = None,
                       timeout: Optional[float] = 10.0,
                       window: Optional[int] = None, *, clamp: bool = False,
                       which: str = ON_SCREEN, timeline: str = ITEM) -> Iterator[FrameAt]:
        """The frame at each time, yielded in the order given, holding at most ``window``
        distinct frames (plus the cache): ``times`` is read lazily, ``window`` at a time, and
        each window is answered as :meth:`frames_at` answers a list (sorted, each landing
        decoded once). ``window`` >= 1 (None: :data:`DEFAULT_WINDOW`); a larger one decodes
        less for times in random order. ``which`` and ``timeline`` as in :meth:`frame_at`
        (checked at the call). Errors are raised when the window that holds their time is
        answered (module doc, "Memory")."""
        if window is None:
            window = DEFAULT_WINDOW
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be an int >= 1, not {window!r}")
        prec = _precision_for(which, precision)
        _item_times(player, (), timeline)  # checks the name
        return self._iter_windows(player, iter(times), prec, timeout, window, clamp, timeline)

    def _iter_windows(self, player: "Player", times: Iterator[TimeLike],
                      precision: Optional[SeekPrecision], timeout: Optional[float],
                      window: int, clamp: bool, timeline: str = ITEM) -> Iterator[FrameAt]:
        while True:
            req = _item_times(player, islice(times, window), timeline)
            if not req:
                return
            with self._lock:
                answers = self._frames_at(player, req, precision, timeout, clamp)
            # Yielded outside the lock; the window's frames go as the caller consumes them.
            answers.reverse()
            while answers:
                yield answers.pop()

    def iter_frames_in_time_order(self, player: "Player", times: Iterable[TimeLike],
                                  precision: Optional[SeekPrecision] = None,
                                  timeout: Optional[float] = 10.0, *, clamp: bool = False,
                                  which: str = ON_SCREEN, timeline: str = ITEM
                                  ) -> Iterator[Tuple[int, FrameAt]]:
        """``(index, frame)`` for every time, yielded in time order (ties in the order given;
        ``index`` is the time's position in ``times``), each landing decoded once and one
        frame held at a time (plus the cache). ``which`` and ``timeline`` as in
        :meth:`frame_at`. The times are read and checked before the first answer (module
        doc, "Memory")."""
        prec = _precision_for(which, precision)
        req = _item_times(player, times, timeline)
        return self._iter_time_order(player, req, prec, timeout, clamp)

    def _iter_time_order(self, player: "Player", req: List[Fraction],
                         precision: Optional[SeekPrecision], timeout: Optional[float],
                         clamp: bool) -> Iterator[Tuple[int, FrameAt]]:
        last: Optional[FrameAt] = None
        for i in sorted(range(len(req)), key=lambda k: req[k]):
            t = req[i]
            if last is None or last.requested != t:
                last = None  # drop the previous frame before decoding the next
                with self._lock:
                    last = self._frame_at(player, t, precision, timeout, clamp)
            yield i, last


def _url(player: "Player") -> Optional[str]:
    """The player's item as the user named it (path or URL), for error messages."""
    raw = getattr(player, "_opened", None)
    return None if raw is None else os.fsdecode(raw)


_SLOT = "_fpx_frame_reader"


_SLOT_LOCK = threading.Lock()


def reader_for(player: "Player") -> FrameReader:
    """The player's FrameReader (default options), made on first use."""
    r: Optional[FrameReader] = player.__dict__.get(_SLOT)
    if r is None:
        with _SLOT_LOCK:
            r = player.__dict__.get(_SLOT)
            if r is None:
                r = FrameReader()
                player.__dict__[_SLOT] = r
    return r


def new_reader(player: "Player", cache_size: int = DEFAULT_CACHE_SIZE, skip_nonref: bool = True,
               continuation: bool = True, **decoder_options: Any) -> FrameReader:
    """Replaces the player's FrameReader with one made with these options."""
    r = FrameReader(cache_size, skip_nonref, continuation, **decoder_options)
    player.__dict__[_SLOT] = r
    return r
