"""Ground truth for FastPixSeek tests, from ffprobe only.

Nothing here calls the library: every expected value is derived from `ffprobe` JSON output
with exact rational arithmetic (fractions.Fraction), following the definitions in
Include/fastpix/seek.h ("Time model"):

* The reference stream: the first video stream, else the first audio stream (this is what
  av_find_best_stream picks for the test fixtures, which have at most one of each).
* The frame grid: the decoded frames of the reference stream (`ffprobe -show_frames`), by pts
  in the stream time base. The decoder drops frames of discard-flagged packets (edit-list
  pre-roll, AAC priming), so they are not on the grid, as the header requires.
* The item timeline: item time 0 is stream pts `origin_ticks` (see `origin_ticks()`).

Times on the item timeline are Fractions of seconds; times on the stream timeline are
"ticks" (Fractions or ints in units of the stream time base).

Run `python3 groundtruth.py FILE...` for a summary of each file.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import List, Optional, Sequence

FFPROBE = os.environ.get("FFPROBE", "ffprobe")

US_PER_S = 1_000_000

# The media made by Tests/fixtures/make-fixtures.sh, and the files that must fail to open.
MEDIA_FIXTURES = [
    "mp4_bframes.mp4",
    "mp4_opengop.mp4",
    "mp4_vfr.mp4",
    "mp4_editlist.mp4",
    "fmp4.mp4",
    "mkv.mkv",
    "ts.ts",
    "audio.m4a",
    "mp4_tb12288.mp4",
    "audio.mp3",
    "audio.opus",
]
# Audio whose first packet is partly encoder priming (skip samples), not discard-flagged.
PRIMED_AUDIO = ["audio.mp3", "audio.opus"]
ERROR_FIXTURES = ["corrupt.mp4", "garbage.bin"]


# --------------------------------------------------------------------------------------------
# ffprobe plumbing
# --------------------------------------------------------------------------------------------

def _ffprobe_json(path: str, *args: str) -> dict:
    cmd = [FFPROBE, "-v", "error", "-of", "json", *args, path]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ffprobe failed on {path}: {' '.join(cmd)}\n{proc.stderr.strip()}")
    return json.loads(proc.stdout or "{}")


@functools.lru_cache(maxsize=None)
def probe(path: str) -> dict:
    """`ffprobe -show_format -show_streams` as a dict."""
    return _ffprobe_json(path, "-show_format", "-show_streams")


def _int_or_none(v) -> Optional[int]:
    if v is None or v == "N/A":
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _fraction(s: str) -> Fraction:
    num, _, den = s.partition("/")
    return Fraction(int(num), int(den or 1))


def round_half_away(x: Fraction) -> int:
    """Round to nearest, ties away from zero (av_rescale's AV_ROUND_NEAR_INF)."""
    x = Fraction(x)
    if x >= 0:
        return int((x + Fraction(1, 2)) // 1)
    return -int((-x + Fraction(1, 2)) // 1)


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    pts: int            # stream ticks
    key: bool           # ffprobe frame key_frame
    pict_type: str = "?"


@dataclass(frozen=True)
class Packet:
    pts: Optional[int]
    dts: Optional[int]
    flags: str          # ffprobe's flags string, e.g. "K_", "_D"

    @property
    def key(self) -> bool:
        return "K" in self.flags

    @property
    def discard(self) -> bool:
        return "D" in self.flags


@dataclass
class StreamRef:
    index: int
    codec_type: str
    codec_name: str
    time_base: Fraction
    start_pts: Optional[int]


@dataclass
class GroundTruth:
    path: str
    stream: StreamRef
    format_name: str
    format_start_us: Optional[int]
    origin_ticks: int
    frames: List[Frame]
    keyframes: List[Frame] = field(default_factory=list)

    # ---- conversions -------------------------------------------------------------------
    @property
    def time_base(self) -> Fraction:
        return self.stream.time_base

    def to_ticks(self, item_time: Fraction) -> Fraction:
        """Item-timeline seconds -> exact (possibly fractional) stream ticks."""
        return self.origin_ticks + Fraction(item_time) / self.time_base

    def to_item(self, ticks) -> Fraction:
        """Stream ticks -> item-timeline seconds (exact)."""
        return (Fraction(ticks) - self.origin_ticks) * self.time_base

    # ---- the grid ----------------------------------------------------------------------
    @property
    def first(self) -> Frame:
        return self.frames[0]

    @property
    def last(self) -> Frame:
        return self.frames[-1]

    @property
    def first_time(self) -> Fraction:
        return self.to_item(self.first.pts)

    @property
    def last_time(self) -> Fraction:
        return self.to_item(self.last.pts)

    def clamp(self, item_time: Fraction):
        """(kind, clamped item time) per fpx_clamp_kind."""
        t = Fraction(item_time)
        if t < self.first_time:
            return "FPX_CLAMP_TO_SEEKABLE_START", self.first_time
        if t > self.last_time:
            return "FPX_CLAMP_TO_SEEKABLE_END", self.last_time
        return "FPX_CLAMP_NONE", t

    def covering(self, item_time: Fraction) -> Frame:
        """The exact landing for an item-timeline target (clamped to the grid)."""
        return covering_frame(self.frames, self.to_ticks(item_time))

    def nearest_keyframe(self, item_time: Fraction, tolerance: Fraction) -> Optional[Frame]:
        return nearest_keyframe(self.keyframes, self.to_ticks(item_time),
                                Fraction(tolerance) / self.time_base)

    def is_keyframe_pts(self, pts: int) -> bool:
        i = bisect.bisect_left(self._kpts, pts)
        return i < len(self._kpts) and self._kpts[i] == pts

    def frame_index(self, pts: int) -> Optional[int]:
        pl = self.pts_list()
        i = bisect.bisect_left(pl, pts)
        return i if i < len(pl) and pl[i] == pts else None

    def pts_list(self) -> List[int]:
        return self._pts

    def __post_init__(self):
        self._pts = [f.pts for f in self.frames]
        self._kpts = [f.pts for f in self.keyframes]


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------

def reference_stream(path: str) -> StreamRef:
    """First video stream, else first audio stream (av_find_best_stream for our fixtures)."""
    streams = probe(path).get("streams", [])
    # attached pictures (cover art) are not real video streams
    videos = [s for s in streams if s.get("codec_type") == "video"
              and not s.get("disposition", {}).get("attached_pic")]
    audios = [s for s in streams if s.get("codec_type") == "audio"]
    chosen = (videos or audios or [None])[0]
    if chosen is None:
        raise RuntimeError(f"{path}: no audio or video stream")
    return StreamRef(
        index=int(chosen["index"]),
        codec_type=chosen["codec_type"],
        codec_name=chosen.get("codec_name", "?"),
        time_base=_fraction(chosen["time_base"]),
        start_pts=_int_or_none(chosen.get("start_pts")),
    )


def format_start_time_us(path: str) -> Optional[int]:
    """AVFormatContext.start_time in microseconds (ffprobe prints it as %f seconds)."""
    s = probe(path).get("format", {}).get("start_time")
    if s is None or s == "N/A":
        return None
    return round_half_away(Fraction(s) * US_PER_S)


def stream_start_pts(path: str) -> Optional[int]:
    return reference_stream(path).start_pts


def origin_ticks(path: str) -> int:
    """Stream pts of item time 0, exactly as seek.h defines it.

    The stream's start_pts when start_pts rescaled to microseconds (round to nearest) equals
    the container start_time in microseconds; otherwise the container start_time rounded to
    the nearest tick of the reference stream's time base.
    """
    st = reference_stream(path)
    fmt_us = format_start_time_us(path)
    return _origin(st.time_base, st.start_pts, fmt_us)


def _origin(tb: Fraction, start_pts: Optional[int], fmt_us: Optional[int]) -> int:
    if fmt_us is None:
        # No container start time: the stream's own start (not the case for our fixtures).
        return start_pts if start_pts is not None else 0
    if start_pts is not None and round_half_away(start_pts * tb * US_PER_S) == fmt_us:
        return start_pts
    return round_half_away(Fraction(fmt_us, US_PER_S) / tb)


def stream_origin(path: str, index: int) -> "tuple[Fraction, int]":
    """Stream `index`'s time base and the origin of item time in its ticks (seek.h section 2)."""
    st = next(s for s in probe(path)["streams"] if int(s["index"]) == index)
    tb = Fraction(st["time_base"])
    return tb, _origin(tb, _int_or_none(st.get("start_pts")), format_start_time_us(path))


def frames(path: str, stream_index: Optional[int] = None) -> List[Frame]:
    """Decoded frames of a stream (default: the reference stream), sorted by pts, unique pts.

    pts falls back to best_effort_timestamp, then pkt_dts, when the decoder gives none.
    """
    return list(_frames_cached(path, stream_index if stream_index is not None
                               else reference_stream(path).index))


@functools.lru_cache(maxsize=None)
def _frames_cached(path: str, stream_index: int) -> tuple:
    data = _ffprobe_json(path, "-select_streams", str(stream_index), "-show_frames",
                         "-show_entries",
                         "frame=pts,pkt_dts,best_effort_timestamp,key_frame,pict_type")
    by_pts = {}
    for fr in data.get("frames", []):
        pts = _int_or_none(fr.get("pts"))
        if pts is None:
            pts = _int_or_none(fr.get("best_effort_timestamp"))
        if pts is None:
            pts = _int_or_none(fr.get("pkt_dts"))
        if pts is None:
            continue
        key = bool(int(fr.get("key_frame", 0)))
        prev = by_pts.get(pts)
        if prev is not None:
            key = key or prev.key
        by_pts[pts] = Frame(pts=pts, key=key, pict_type=fr.get("pict_type", "?"))
    return tuple(by_pts[p] for p in sorted(by_pts))


def packets(path: str, stream_index: Optional[int] = None) -> List[Packet]:
    """Demuxed packets of a stream (default: the reference stream), in decode order."""
    return list(_packets_cached(path, stream_index if stream_index is not None
                                else reference_stream(path).index))


@functools.lru_cache(maxsize=None)
def _packets_cached(path: str, stream_index: int) -> tuple:
    data = _ffprobe_json(path, "-select_streams", str(stream_index), "-show_packets",
                         "-show_entries", "packet=pts,dts,flags")
    return tuple(Packet(pts=_int_or_none(p.get("pts")), dts=_int_or_none(p.get("dts")),
                        flags=p.get("flags", "")) for p in data.get("packets", []))


def covering_frame(frames: Sequence[Frame], target_ticks) -> Frame:
    """The frame with the largest pts <= target, clamped to the first / last frame."""
    if not frames:
        raise ValueError("no frames")
    t = Fraction(target_ticks)
    pts = [f.pts for f in frames]
    # bisect on exact Fractions: ints compare exactly with Fractions
    i = bisect.bisect_right(pts, t) - 1
    if i < 0:
        return frames[0]
    return frames[i]


def keyframes(frames_or_path) -> List[Frame]:
    """The key frames (ffprobe key_frame=1) of a frame list, or of a file's reference stream."""
    fl = frames(frames_or_path) if isinstance(frames_or_path, str) else frames_or_path
    return [f for f in fl if f.key]


def nearest_keyframe(kframes: Sequence[Frame], target_ticks, tol_ticks) -> Optional[Frame]:
    """Keyframe nearest target inside [target - tol, target + tol]; ties go to the earlier.

    None when no keyframe lies in the window.
    """
    t = Fraction(target_ticks)
    tol = Fraction(tol_ticks)
    best = None
    for k in kframes:  # ascending pts, so a tie keeps the earlier one
        d = abs(k.pts - t)
        if d <= tol and (best is None or d < abs(best.pts - t)):
            best = k
    return best


def frame_pts(path) -> List[int]:
    """The reference stream's decoded frame pts (frames() above), sorted, unique."""
    return [f.pts for f in frames(str(path))]


def media_duration(gt: GroundTruth) -> Fraction:
    """The container's duration by ffprobe (format=duration), else the last frame's item time."""
    d = probe(gt.path).get("format", {}).get("duration")
    return Fraction(d) if d and d != "N/A" else gt.last_time


@functools.lru_cache(maxsize=None)
def load(path: str) -> GroundTruth:
    """Everything above for one file, computed once."""
    path = os.path.abspath(path)
    st = reference_stream(path)
    fmt = probe(path).get("format", {})
    fl = frames(path, st.index)
    if not fl:
        raise RuntimeError(f"{path}: ffprobe decoded no frames of stream {st.index}")
    return GroundTruth(
        path=path,
        stream=st,
        format_name=fmt.get("format_name", "?"),
        format_start_us=format_start_time_us(path),
        origin_ticks=origin_ticks(path),
        frames=fl,
        keyframes=keyframes(fl),
    )


# --------------------------------------------------------------------------------------------

def _summary(path: str) -> str:
    gt = load(path)
    pk = packets(path)
    durs = sorted({b.pts - a.pts for a, b in zip(gt.frames, gt.frames[1:])})
    lines = [
        f"{os.path.basename(path)}: {gt.format_name}",
        f"  reference stream #{gt.stream.index} {gt.stream.codec_type}/{gt.stream.codec_name} "
        f"tb={gt.time_base} start_pts={gt.stream.start_pts}",
        f"  format start_time={gt.format_start_us} us -> origin_ticks={gt.origin_ticks}",
        f"  frames={len(gt.frames)} first={gt.first.pts} ({gt.first_time} s item) "
        f"last={gt.last.pts} ({gt.last_time} s item = {float(gt.last_time):.6f})",
        f"  keyframes({len(gt.keyframes)}): {[k.pts for k in gt.keyframes]}",
        f"  frame durations (ticks): {durs[:8]}{' ...' if len(durs) > 8 else ''}",
        f"  packets={len(pk)} key={sum(p.key for p in pk)} discard={sum(p.discard for p in pk)} "
        f"negative_pts={sum(1 for p in pk if p.pts is not None and p.pts < 0)} "
        f"no_pts={sum(1 for p in pk if p.pts is None)} no_dts={sum(1 for p in pk if p.dts is None)}",
    ]
    kp = sorted(p.pts for p in pk if p.key and not p.discard and p.pts is not None)
    kf = [k.pts for k in gt.keyframes]
    if kp != kf:
        lines.append(f"  NOTE: key packets (non-discard) {kp} != key frames {kf}")
    return "\n".join(lines)


if __name__ == "__main__":
    for a in sys.argv[1:]:
        print(_summary(a))
