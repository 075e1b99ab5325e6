"""Seek-preview sprite sheets from Python: what ``fpx-seek sprite MEDIA -o DIR`` writes.

    from fastpix_seek.sprites import make_sprite_sheet

    sheet = make_sprite_sheet("movie.mp4", "out/", interval=5)        # keyframe mode, JPEG
    sheet = make_sprite_sheet("movie.mp4", "out/", tiles=50, precision="exact", image_format="png")
    print(sheet.json_path, sheet.vtt_path, sheet.images, [t.start for t in sheet.tiles])

:func:`make_sprite_sheet` writes into ``out_dir`` (made if missing) the sprite image(s)
(``sprite.jpg``, then ``sprite-1.jpg``... when the tiles need more than one image),
``spritesheet.json`` in the SDK's format (``{"url", "tile_width", "tile_height", "duration",
"tiles": [{"start", "x", "y"}]}``; every tile names its own ``"url"`` too when there are
several images) and ``thumbnails.vtt``, a WebVTT thumbnail track into the same images. The
texts follow the same rules as the tool's (``Sources/FastPixSeekPolicy/PreviewSheet+Write.swift``):
a start is the shortest decimal that reads back as the start's double (readers round it down
to the microsecond: ``Player.set_preview_source`` does); a cue's times are rounded up to the
millisecond (a cue never begins before its frame), the last cue ends at the duration.

Times. Tiles are requested from the first frame's time (rounded up to the microsecond) every
``interval`` seconds (default: the duration / 100, at least 1 s; ``tiles=N``: N tiles over the
duration) up to the end of the seekable range, as the tool requests them. Each tile's start is
the LANDED time, the time of the frame it shows, so the tile a player shows for t (the last
tile whose start is at or before t) is a picture at or before t; two requests landing on the
same frame make one tile.

Precision. ``"keyframe"`` (the default): each tile is the keyframe nearest its time within
``keyframe_tolerance`` (default half the interval), from the container's index; a time with
no keyframe that near gets no tile of its own and nothing is decoded for it (the seek's
outcome says so before any packet is read); a landed keyframe is decoded from its packets
alone (the decoder restarts at every landing; a decoder with reordering delay is fed the
packets that follow until the keyframe comes out). ``"exact"``: the frame on screen at each
time (:meth:`FrameReader.frame_at <fastpix_seek.frames.FrameReader.frame_at>`'s rule), the
times visited in order with one decoder and continuation; for a file the player indexes the
whole reference stream first (``IndexMode.FULL``, no decoding), as the tool does.

Pictures. Each frame is scaled to the tile by libswscale (bicubic: PyAV's ``reformat``) to
rgb24 and put on the image in rows of ``columns`` tiles (no padding); an image is written by
PyAV's libavcodec encoders: mjpeg (full-range 4:2:0 at qscale ``quality``, 2 best ... 31) or
png. PyAV's wheels carry their own FFmpeg: from libswscale 9 (FFmpeg 8) the scaler places
the chroma samples where the stream says they are (H.264's "left"), which an older libswscale
(the tool's, on Debian 12) does not, so a tile can differ from the tool's by a level or two.
An image is at most 16384 pixels wide (``columns * tile_width``) and high; more rows than
``max_rows`` (default: as many as fit in 8192 pixels) go on the next image.

Errors. Every failure raises (spritesheet.json and thumbnails.vtt are written last, only when
no requested time failed; images finished before the failure stay): the item's own error
(``Player.wait_item``: ``MediaNotFoundError``...), a time whose frame could not be decoded
(:class:`~fastpix_seek.frame_errors.FrameNotDecodedError`), ``ValueError`` for an item without
video and for options outside the tool's ranges, ``OSError`` when a file cannot be written.

PyAV (and numpy) are needed, as for :mod:`fastpix_seek.frames`: the ``frames`` extra
(``pip install 'fastpix-seek[frames]'``). This module imports them only when called.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, List, Optional, Set, Tuple, Union

from . import frames as _frames
from ._abi import IndexMode
from ._base import PathLike
from .frame_errors import FrameNotDecodedError
from .player import Player
from .types import SeekPrecision, TimeLike, to_fraction

__all__ = ["SpriteTile", "SpriteSheet", "make_sprite_sheet", "KEYFRAME", "EXACT",
           "SPRITESHEET_JSON", "THUMBNAILS_VTT"]

#: ``precision=``: the keyframe nearest each time, within the tolerance (the default).
KEYFRAME = "keyframe"
#: ``precision=``: the frame on screen at each time.
EXACT = "exact"
#: The names written into ``out_dir`` besides the images.
SPRITESHEET_JSON = "spritesheet.json"
THUMBNAILS_VTT = "thumbnails.vtt"

_MAX_SIDE = 16384
_BACKGROUND = 32  # the grey of an image's unused cells, as the tool's
_US = 1_000_000


@dataclass(frozen=True)
class SpriteTile:
    """One tile: ``start``, the landed frame's time on the item timeline (exact); its pts in
    the reference stream's time base; whether it is a keyframe; ``image``, its image's name as
    written in the JSON and the VTT (``base_url`` + file name); ``x``, ``y``: its cell."""

    start: Fraction
    stream_pts: int
    keyframe: bool
    image: str
    x: int
    y: int


@dataclass(frozen=True)
class SpriteSheet:
    """What :func:`make_sprite_sheet` wrote. ``tiles`` in start order; ``images``,
    ``json_path``, ``vtt_path``: the files; ``requested``: the times asked for;
    ``duplicates``: requests that landed on a frame already a tile; ``no_keyframe``:
    keyframe-mode requests with no keyframe within the tolerance (no tile of their own);
    ``frames_decoded``: frames the decoder produced."""

    tiles: Tuple[SpriteTile, ...]
    tile_width: int
    tile_height: int
    columns: int
    duration: Fraction
    interval: Fraction
    precision: SeekPrecision
    image_format: str
    images: Tuple[Path, ...]
    json_path: Path
    vtt_path: Path
    requested: int
    duplicates: int
    no_keyframe: int
    frames_decoded: int


def _int(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an int in {lo}...{hi}, not {value!r}")
    return value


def _round_half_away(x: float) -> int:
    """Swift's ``rounded()`` of a non-negative double (the tool's arithmetic)."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def _request_times(start: Fraction, end: Fraction, duration: Fraction, interval_us: Optional[int],
                   tiles: Optional[int]) -> Tuple[List[Fraction], int]:
    """The tool's requested times (Sprite.swift, in the same double arithmetic, so that both
    ask for the same times): the first frame's time rounded up to the microsecond, then every
    step while within the seekable range. Returns (times, step in microseconds)."""
    start_us = math.ceil(float(start) * 1e6)
    span_us = max(0, math.floor(float(end) * 1e6) - start_us)
    dur_us = max(span_us, _round_half_away(float(duration) * 1e6))
    if interval_us is not None:
        step = interval_us
    elif tiles is not None:
        step = max(1, dur_us // tiles)
    else:
        step = max(_US, dur_us // 100)
    limit = tiles if tiles is not None else 10000
    times: List[Fraction] = []
    k = 0
    while k * step <= span_us and len(times) < limit:
        times.append(Fraction(start_us + k * step, _US))
        k += 1
    return times, step


def _wait_for_index(player: Player, timeout: float) -> None:
    """As the tool: until the full index is complete, or `timeout`, or no frame was indexed
    after 0.5 s (a source the library does not index)."""
    t0 = time.monotonic()
    while True:
        s = player.stats()
        if s.index_complete:
            return
        waited = time.monotonic() - t0
        if waited > timeout or (s.index_frames == 0 and waited > 0.5):
            return
        time.sleep(0.002)


def _json_number(x: Fraction) -> str:
    """The tool's jsonDouble(MediaTime.seconds): the shortest decimal of the double."""
    return repr(float(x))


def _json_string(s: str) -> str:
    """The tool's jsonString: quote, backslash, \\n, \\t and other controls escaped; the rest
    as is (UTF-8)."""
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return "".join(out) + '"'


def _vtt_time(t: Fraction) -> str:
    """hh:mm:ss.mmm, rounded up to the millisecond (PreviewSheet.vttTime)."""
    ms = math.ceil(max(Fraction(0), t) * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def _spritesheet_json(tiles: List[SpriteTile], url: str, w: int, h: int,
                      duration: Fraction) -> str:
    many = len({t.image for t in tiles}) > 1
    items = [f'{{"start":{_json_number(t.start)},"x":{t.x},"y":{t.y}'
             + (f',"url":{_json_string(t.image)}' if many else "") + "}" for t in tiles]
    return (f'{{"url":{_json_string(url)},"tile_width":{w},"tile_height":{h},'
            f'"duration":{_json_number(duration)},"tiles":[' + ",".join(items) + "]}\n")


def _webvtt(tiles: List[SpriteTile], w: int, h: int, duration: Fraction) -> str:
    out = ["WEBVTT\n"]
    for i, t in enumerate(tiles):
        last = duration if duration > t.start else t.start + Fraction(1, 1000)
        end = tiles[i + 1].start if i + 1 < len(tiles) else last
        out.append(f"\n{_vtt_time(t.start)} --> {_vtt_time(end)}\n{t.image}#xywh={t.x},{t.y},{w},{h}\n")
    return "".join(out)


def _encode(av: Any, canvas: Any, path: Path, png: bool, quality: int) -> None:
    """One image by libavcodec's png encoder (rgb24) or mjpeg (full-range 4:2:0 converted by
    libswscale, bicubic; qscale `quality`, one thread, as ``ffmpeg -q:v`` writes it)."""
    h, w = canvas.shape[:2]
    frame = av.VideoFrame.from_ndarray(canvas, format="rgb24")
    cc = av.CodecContext.create("png" if png else "mjpeg", "w")
    cc.width, cc.height = w, h
    cc.time_base = Fraction(1, 25)
    cc.thread_count = 1
    if png:
        cc.pix_fmt = "rgb24"
    else:
        cc.pix_fmt = "yuvj420p"
        cc.options = {"qmin": str(quality), "qmax": str(quality)}
        frame = frame.reformat(format="yuvj420p", interpolation="BICUBIC")
    data = b"".join(bytes(p) for p in cc.encode(frame))
    data += b"".join(bytes(p) for p in cc.encode(None))
    if not data:
        raise OSError(f"cannot write {path}: the {'png' if png else 'mjpeg'} encoder gave nothing")
    path.write_bytes(data)


def make_sprite_sheet(media: PathLike, out_dir: Union[str, "os.PathLike[str]"], *,
                      interval: Optional[TimeLike] = None, tiles: Optional[int] = None,
                      tile_width: int = 160, tile_height: Optional[int] = None,
                      columns: int = 10, image_format: str = "jpeg", quality: int = 3,
                      precision: str = KEYFRAME, keyframe_tolerance: Optional[TimeLike] = None,
                      max_rows: Optional[int] = None, base_url: str = "",
                      timeout: float = 30.0, **player_options: Any) -> SpriteSheet:
    """Writes the sprite sheet of ``media`` (a path or URL) into ``out_dir`` and returns what
    it wrote (module doc). ``interval`` (seconds, 0.001...86400) or ``tiles`` (1...10000), not
    both; ``tile_width`` 16...4096, ``tile_height`` 16...4096 (default: in proportion to the
    frame); ``columns`` 1...256; ``image_format`` "jpeg" or "png"; ``quality`` JPEG's qscale
    2...31; ``precision`` "keyframe" or "exact"; ``keyframe_tolerance`` seconds (default half
    the interval); ``max_rows`` rows per image; ``base_url`` put before the image names in the
    JSON and the VTT; ``timeout`` seconds for opening the item and for each seek;
    ``player_options`` go to :class:`~fastpix_seek.Player` (``reference_stream=``,
    ``hls_variant=``, protocol policy...)."""
    tw = _int("tile_width", tile_width, 16, 4096)
    fixed_h = None if tile_height is None else _int("tile_height", tile_height, 16, 4096)
    cols = _int("columns", columns, 1, 256)
    if cols * tw > _MAX_SIDE:
        raise ValueError(f"columns x tile_width must be at most {_MAX_SIDE} pixels")
    rows_cap = None if max_rows is None else _int("max_rows", max_rows, 1, _MAX_SIDE)
    q = _int("quality", quality, 2, 31)
    if image_format not in ("jpeg", "jpg", "png"):
        raise ValueError(f"image_format must be 'jpeg' or 'png', not {image_format!r}")
    png = image_format == "png"
    if precision not in (KEYFRAME, EXACT):
        raise ValueError(f"precision must be {KEYFRAME!r} or {EXACT!r}, not {precision!r}")
    exact = precision == EXACT
    if interval is not None and tiles is not None:
        raise ValueError("give interval or tiles, not both")
    interval_us: Optional[int] = None
    if interval is not None:
        seconds = float(to_fraction(interval))
        if not 0.001 <= seconds <= 86400:
            raise ValueError(f"interval must be 0.001...86400 s, not {interval!r}")
        interval_us = _round_half_away(seconds * 1e6)
    count = None if tiles is None else _int("tiles", tiles, 1, 10000)
    tolerance = None if keyframe_tolerance is None else to_fraction(keyframe_tolerance)
    if exact and tolerance is not None:
        raise ValueError("keyframe_tolerance is for precision='keyframe'")
    ext = "png" if png else "jpg"
    out = Path(out_dir)

    def image_name(i: int) -> str:
        return f"sprite.{ext}" if i == 0 else f"sprite-{i}.{ext}"

    pyav = _frames._pyav()  # PyAV, or the ImportError that explains the extra
    av = pyav.av
    import numpy as np  # the frames extra has it

    player_options.setdefault("index_mode", IndexMode.FULL if exact else IndexMode.KEYFRAMES)
    with Player(media, **player_options) as player:
        player.wait_item(timeout=timeout)
        item = player.item_info()
        url = os.fsdecode(media)
        if not item.has_video:
            raise ValueError(f"{url} has no video stream to make tiles of")
        if exact and not item.format_name.startswith(("hls", "dash")):
            _wait_for_index(player, max(timeout, 60.0))
        start, end = player.seekable_range()
        duration = item.duration if item.duration is not None else end
        times, step_us = _request_times(start, end, duration, interval_us, count)
        half = Fraction(max(1, step_us // 2), _US)
        if tolerance is None:
            tolerance = half if half <= 2 ** 31 else Fraction(1)
        prec = SeekPrecision.exact() if exact else SeekPrecision.nearest_keyframe(tolerance)
        out.mkdir(parents=True, exist_ok=True)

        # Keyframe landings restart at their keyframe: nothing to continue, nothing to cache.
        reader = _frames.FrameReader(cache_size=_frames.DEFAULT_CACHE_SIZE if exact else 0,
                                     continuation=exact)
        tile_h = fixed_h or 0
        rows_per_image = 0
        canvas: Any = None
        canvas_index = -1
        placed: List[SpriteTile] = []
        seen: Set[int] = set()
        duplicates = no_keyframe = 0
        images: List[Path] = []

        def write_canvas() -> None:
            nonlocal canvas
            if canvas is None:
                return
            used = len(placed) - canvas_index * cols * rows_per_image
            rows = (used + cols - 1) // cols
            path = out / image_name(canvas_index)
            _encode(av, np.ascontiguousarray(canvas[:rows * tile_h]), path, png, q)
            images.append(path)
            canvas = None

        for visited, t in enumerate(times, start=1):
            if not exact:
                # The landing first: a time without a keyframe that near is not decoded.
                o = player.seek_wait(t, prec, timeout=timeout)
                if o.finished and o.landed_stream_pts is not None:
                    if not o.landed_is_keyframe:
                        no_keyframe += 1
                        continue
                    if int(o.landed_stream_pts) in seen:
                        duplicates += 1
                        continue
            got = reader.frame_at(player, t, prec, timeout, clamp=True)
            if got.pts in seen:
                duplicates += 1
                continue
            if not exact and not got.outcome.landed_is_keyframe:
                no_keyframe += 1
                continue
            frame = got.frame
            if tile_h == 0:
                fw, fh = frame.width, frame.height
                tile_h = max(2, (fh * tw + fw // 2) // max(fw, 1))
            if rows_per_image == 0:
                rows_per_image = min(rows_cap or max(1, 8192 // tile_h), max(1, _MAX_SIDE // tile_h))
            per_image = cols * rows_per_image
            slot = len(placed)
            image = slot // per_image
            if image != canvas_index:
                write_canvas()
                n = min(per_image, len(times) - visited + 1)  # tiles this image may still get
                width = min(cols, n) * tw
                canvas = np.full((((n + cols - 1) // cols) * tile_h, width, 3), _BACKGROUND, np.uint8)
                canvas_index = image
            cell = slot % per_image
            x, y = (cell % cols) * tw, (cell // cols) * tile_h
            scaled = frame.reformat(width=tw, height=tile_h, format="rgb24", interpolation="BICUBIC")
            canvas[y:y + tile_h, x:x + tw] = scaled.to_ndarray()
            seen.add(got.pts)
            start_time = got.time if got.time is not None else t
            placed.append(SpriteTile(start_time, got.pts, got.outcome.landed_is_keyframe,
                                     base_url + image_name(image), x, y))
        write_canvas()
        frames_decoded = reader.frames_decoded
    if not placed:
        raise FrameNotDecodedError("nothing to write: no frame could be decoded", url=url)

    ordered = sorted(placed, key=lambda tile: tile.start)
    json_path, vtt_path = out / SPRITESHEET_JSON, out / THUMBNAILS_VTT
    json_path.write_text(_spritesheet_json(ordered, base_url + image_name(0), tw, tile_h, duration),
                         encoding="utf-8")
    vtt_path.write_text(_webvtt(ordered, tw, tile_h, duration), encoding="utf-8")
    return SpriteSheet(tuple(ordered), tw, tile_h, cols, duration, Fraction(step_us, _US), prec,
                       "png" if png else "jpeg", tuple(images), json_path, vtt_path, len(times),
                       duplicates, no_keyframe, frames_decoded)
