"""Out-of-range times in the frame helpers (issue 29.6, deliverable 5).

* ``frame_at`` / ``frames_at`` / the iterators raise ``FrameOutOfRangeError`` (an
  ``IndexError`` and a ``FastPixSeekError``, naming the file) for a time before item time 0
  or after the last frame stops being on screen (ffprobe's last frame and the container's
  duration), unless ``clamp=True``: then the first or last frame answers, with ffmpeg's
  pixels. The seek API keeps clamping and reporting it (``outcome.clamp``).
* A truncated file (an MP4 with its index up front and a TS, cut with ``head``): the frame
  range ends at its last complete frame (ffprobe's packet positions say which packets the
  cut left whole; the frame has the full file's pixels) and says it was truncated; times
  past it raise the typed error (never PyAV's raw ``EOFError``), ``clamp=True`` answers with
  that last complete frame. A cut inside the last packet (less than 1 s short) is flagged
  by the library too (the packet libavformat read short); a cut it cannot see (a TS's last
  PES) is found while decoding and reported the same way.
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from sharedfixtures import REPO
import framecheck
import groundtruth as gtm

sys.path.insert(0, str(REPO / "Bindings" / "python"))

av = pytest.importorskip("av")  # the venv and Debian's python3 both have it (tools/deps.sh)


def _duration(path: Path) -> Fraction:
    out = subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "format=duration",
                                   "-of", "csv=p=0", str(path)], text=True)
    return Fraction(out.strip())


def _packets(path: Path) -> List[Dict[str, int]]:
    """The video packets in file (decode) order: pts, pos, size (ffprobe)."""
    out = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "packet=pts,pos,size", "-of", "json", str(path)], text=True))
    return [{"pts": int(p["pts"]), "pos": int(p["pos"]), "size": int(p["size"])}
            for p in out["packets"]]


@pytest.fixture(scope="module")
def full_mp4(tmp_path_factory) -> Path:
    """10 s of 320x180 H.264 with B-frames, index up front (a cut keeps its index)."""
    out = tmp_path_factory.mktemp("range") / "full.mp4"
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f",
                    "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=10", "-c:v",
                    "libx264", "-g", "25", "-bf", "2", "-pix_fmt", "yuv420p", "-movflags",
                    "+faststart", str(out)], check=True, timeout=120)
    return out


def _cut(src: Path, dst: Path, size: int) -> Path:
    dst.write_bytes(src.read_bytes()[:size])
    return dst


def _last_complete_pts(full: Path, cut_at: int) -> int:
    """The last frame whose packet and every packet before it in decode order end before
    the cut (ffprobe's packet positions in the whole file)."""
    whole = []
    for p in _packets(full):
        if p["pos"] + p["size"] > cut_at:
            break
        whole.append(p["pts"])
    return max(whole)


def test_out_of_range_raises_index_error(fixtures_dir, library):
    from fastpix_seek import ClampKind, FastPixSeekError, Player, SeekPrecision
    from fastpix_seek.frames import FrameOutOfRangeError
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    md5 = framecheck.md5_by_pts(str(path))
    duration = _duration(path)
    first, last = gt.covering(gt.first_time).pts, gt.covering(gt.last_time).pts
    with Player(path) as p:
        p.wait_item(timeout=20)
        rng = p.frame_range()
        assert (rng.start, rng.end, rng.truncated) == (gt.first_time, gt.last_time, False)
        assert rng.until == duration
        for t in (Fraction(-1, 100), Fraction(-5), duration, duration + 1, Fraction(10 ** 6)):
            with pytest.raises(FrameOutOfRangeError) as ei:
                p.frame_at(t)
            e = ei.value
            assert isinstance(e, IndexError) and isinstance(e, FastPixSeekError)
            assert e.requested == t and e.range == (gt.first_time, gt.last_time)
            assert not e.truncated and str(path) in str(e) and "clamp=True" in str(e)
            with pytest.raises(IndexError):
                p.frames_at([Fraction(1), t])
            with pytest.raises(IndexError):
                list(p.iter_frames_at([t]))
            with pytest.raises(IndexError):
                list(p.iter_frames_in_time_order([t]))
            # clamp=True: the nearest end's frame, ffmpeg's pixels.
            r = p.frame_at(t, clamp=True)
            assert r.requested == t and r.pts == (first if t < 0 else last)
            assert framecheck.frame_md5(r.frame) == md5[r.pts]
            # The seek API keeps clamping and saying so.
            out = p.seek_wait(t, SeekPrecision.exact())
            assert out.clamp.kind == (ClampKind.TO_SEEKABLE_START if t < 0
                                      else ClampKind.TO_SEEKABLE_END)
        # In range: 0, the last frame's own time, and until the duration (last frame shown).
        inside = [Fraction(0), gt.last_time, (gt.last_time + duration) / 2]
        res = p.frames_at(inside)
        assert [r.pts for r in res] == [first, last, last]
        res = p.frames_at([Fraction(-1), Fraction(1), duration + 3], clamp=True)
        assert [r.pts for r in res] == [first, gt.covering(Fraction(1)).pts, last]


def test_truncated_mp4(full_mp4, library, tmp_path):
    """Cut at 45 %: the library flags it; the range ends at the last complete frame."""
    from fastpix_seek import FastPixSeekError, Player
    from fastpix_seek.frames import FrameOutOfRangeError
    size = full_mp4.stat().st_size
    cut = _cut(full_mp4, tmp_path / "cut.mp4", size * 45 // 100)
    want = _last_complete_pts(full_mp4, size * 45 // 100)
    md5 = framecheck.md5_by_pts(str(full_mp4))
    gt = gtm.load(str(full_mp4))
    with Player(cut) as p:
        p.wait_item(timeout=20)
        assert p.item_info().seekable_range_truncated
        rng = p.frame_range()
        # The library's own range ends at the last complete frame too (test_truncated_range.py).
        assert rng.truncated and rng.seekable_end == rng.end
        last = p.frame_at(rng.end)
        assert last.pts == want and framecheck.frame_md5(last.frame) == md5[want]
        assert last.time == rng.end
        for t in (rng.until, rng.seekable_end + 1, Fraction(9)):
            assert t is not None
            with pytest.raises(FrameOutOfRangeError) as ei:
                p.frame_at(t)
            assert ei.value.truncated and isinstance(ei.value, IndexError)
            assert isinstance(ei.value, FastPixSeekError) and str(cut) in str(ei.value)
            assert "truncated" in str(ei.value)
            r = p.frame_at(t, clamp=True)
            assert r.pts == want and framecheck.frame_md5(r.frame) == md5[want]
        # Everything before the cut: right frames, full file's pixels.
        times = [rng.start + (rng.end - rng.start) * Fraction(k, 9) for k in range(10)]
        for t, r in zip(times, p.frames_at(times)):
            assert r.pts == gt.covering(t).pts and framecheck.frame_md5(r.frame) == md5[r.pts]


@pytest.mark.parametrize("frac", [30, 45, 70])
def test_truncated_ts(full_mp4, library, tmp_path, frac):
    """A TS cut with head: every frame up to the range's end has the full file's pixels,
    times past it raise the typed error (whether or not the library flags the cut)."""
    from fastpix_seek import Player
    from fastpix_seek.frames import FrameOutOfRangeError
    full = tmp_path / "full.ts"
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i",
                    str(full_mp4), "-c", "copy", str(full)], check=True, timeout=60)
    size = full.stat().st_size
    cut = _cut(full, tmp_path / "cut.ts", size * frac // 100 // 188 * 188 + 100)
    md5 = framecheck.md5_by_pts(str(full))
    with Player(cut) as p:
        p.wait_item(timeout=20)
        rng = p.frame_range()
        r = p.frame_at(rng.end)
        assert framecheck.frame_md5(r.frame) == md5[r.pts], "the range ends on a damaged frame"
        assert r.time == rng.end or rng.truncated
        past = [rng.until if rng.until is not None else rng.end + 1, rng.seekable_end + 1,
                Fraction(11)]
        for t in past:
            with pytest.raises(FrameOutOfRangeError):
                p.frame_at(t)
            c = p.frame_at(t, clamp=True)
            assert framecheck.frame_md5(c.frame) == md5[c.pts]
        times = [rng.start + (rng.end - rng.start) * Fraction(k, 7) for k in range(8)]
        for r in p.frames_at(times):
            assert framecheck.frame_md5(r.frame) == md5[r.pts]


def test_cut_in_the_last_frame(full_mp4, library, tmp_path):
    """Cut inside the last packet (a few hundred bytes short, too little for the duration
    rule): the library finds the packet libavformat read short, flags the item truncated and
    ends its range at the last complete frame; frame_at past it says IndexError, truncated,
    never EOFError or a raw PyAV error; clamp=True gives that last complete frame."""
    from fastpix_seek import Player
    from fastpix_seek.frames import FrameOutOfRangeError
    pk = _packets(full_mp4)
    last = max(pk, key=lambda q: q["pos"])
    at = last["pos"] + last["size"] // 2
    cut = _cut(full_mp4, tmp_path / "cut_end.mp4", at)
    want = _last_complete_pts(full_mp4, at)
    md5 = framecheck.md5_by_pts(str(full_mp4))
    with Player(cut) as p:
        p.wait_item(timeout=20)
        assert p.item_info().seekable_range_truncated
        _, end = p.seekable_range()
        r = p.frame_at(end)
        assert r.pts == want != last["pts"] and framecheck.frame_md5(r.frame) == md5[want]
        rng = p.frame_range()
        assert rng.truncated and rng.end == r.time == end
        for t in (rng.until, end + 1):
            with pytest.raises(FrameOutOfRangeError) as ei:
                p.frame_at(t)
            assert ei.value.truncated and isinstance(ei.value, IndexError)
            c = p.frame_at(t, clamp=True)
            assert c.pts == want and framecheck.frame_md5(c.frame) == md5[want]
