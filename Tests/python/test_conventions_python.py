"""The conventions of seek.h section 2 in Python (issue 29.5, deliverable 4), each against the
tool it names, through the binding:

* ``SeekPrecision.at_or_after()`` and its outcome (verdict, repr, tolerance), against
  ffprobe's frame list;
* the frame helpers' ``which="at_or_after"``: the landed frame is the first frame at or after
  t in ffprobe's list and has the pixels `ffmpeg -i F -ss t` (output-side) outputs first,
  on MP4 with B-frames, MKV and MPEG-TS, for times on, between and just before frames;
* ``timeline="stream"``: times in the reference stream's own pts seconds; the float of
  ffprobe's ``pts_time`` (printed to the microsecond) and PyAV's ``frame.time`` land on their
  frame, with both ``which``; PyAV's decode-and-skip recipe (seek backward, decode, skip
  ``pts < t``) returns the frame (pts and pixels) ``which="at_or_after", timeline="stream"``
  returns; on an MKV whose audio starts before its video (item time 0 != stream pts 0);
* ``Player(reference_stream=i)`` on a file with two video streams (made with ffmpeg -map):
  every answer is a frame of stream i (ffprobe's grid of that stream, ffmpeg's pixels of that
  stream), and refused choices raise typed errors naming the stream and why;
* on an HLS item, ``which="at_or_after"`` gives ffprobe's first frame at or after t of the
  playlist, across segment ends; another reference stream is refused with UnsupportedError.

Run: make && FPX_FIXTURES=/work/fixtures python3 -m pytest -q Tests/python/test_conventions_python.py
(passes with Debian's /usr/bin/python3 and python3-av 10 too: PATH=/usr/bin:/bin /usr/bin/python3 -m pytest ...).
"""
from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from sharedfixtures import REPO
import framecheck
import groundtruth as gtm
from test_conventions import (CONVENTION_FIXTURES, early_audio, ffmpeg_md5s,  # noqa: F401
                              first_at_or_after, sample_indices, targets_around, two_videos,
                              us_text)

sys.path.insert(0, str(REPO / "Bindings" / "python"))

av = pytest.importorskip("av")  # the venv and Debian's python3 both have it (tools/deps.sh)

US = 10**6


def open_player(path: Path, **kw: Any) -> Any:
    from fastpix_seek import Player
    p = Player(path, **kw)
    p.wait_item(timeout=20)
    return p


def covering(pts: List[int], ticks: Fraction) -> int:
    return gtm.covering_frame([gtm.Frame(q, False) for q in pts], ticks).pts


def probe_pts_times(path: Path, stream: int) -> List[Tuple[int, str]]:
    """(pts, pts_time as ffprobe prints it) for every frame of ``stream``, in pts order."""
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", str(stream),
                                   "-show_entries", "frame=pts,pts_time", "-of", "csv=p=0",
                                   str(path)], text=True)
    rows = []
    for line in out.splitlines():
        parts = line.strip().strip(",").split(",")
        if len(parts) >= 2 and parts[0] not in ("", "N/A"):
            rows.append((int(parts[0]), parts[1]))
    return sorted(rows)


def md5_of_stream(path: Path, stream: int) -> Dict[int, str]:
    """ffmpeg's decoded pixels of ``stream`` by pts (framemd5 of a full decode, ffprobe's pts)."""
    md5 = ffmpeg_md5s(path, stream)
    pts = [p for p, _ in probe_pts_times(path, stream)]
    assert len(pts) == len(md5), "ffmpeg and ffprobe decode as many frames"
    return dict(zip(pts, md5))


def pyav_decode_and_skip(path: Path, stream: int, t_stream: Fraction, seek: bool) -> Tuple[int, str]:
    """PyAV's recipe for "the frame at t": (pts, md5 of its pixels)."""
    return framecheck.pyav_decode_and_skip(str(path), stream, t_stream, seek)


# ---------------------------------------------------------------------------------------------
# SeekPrecision.at_or_after() and its outcome
# ---------------------------------------------------------------------------------------------

def test_at_or_after_precision_value(library):
    from fastpix_seek import PrecisionKind, SeekPrecision
    from fastpix_seek._lib import lib
    p = SeekPrecision.at_or_after()
    assert p.kind == PrecisionKind.AT_OR_AFTER == 3 and p.tolerance == 0
    assert str(p) == "at or after"
    c = p._to_c()
    ref = lib.fpx_precision_at_or_after()
    assert (c.kind, c.tolerance.value, c.tolerance.flags) == (ref.kind, ref.tolerance.value,
                                                               ref.tolerance.flags)
    from fastpix_seek._calls import _check_precision
    with pytest.raises(TypeError, match=r"\.at_or_after\(\)"):
        _check_precision("exact")


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_at_or_after_outcome(fixtures_dir, library, name):
    """On a frame: that frame, covering, ok/hit; inside a frame: the next one, not covering
    but within tolerance (landed >= requested), ok/hit; past the last frame: the last frame,
    clamped, not within tolerance, miss/MISS. Exact keeps the frame on screen."""
    from fastpix_seek import ClampKind, SeekPrecision
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    i = len(pts) // 2
    on = gt.to_item(pts[i])
    inside = (gt.to_item(pts[i - 1]) + on) / 2
    past = gt.last_time + 1
    with open_player(path) as p:
        o = p.seek_wait(on, SeekPrecision.at_or_after())
        assert o.landed_stream_pts == pts[i] and o.frame_covers_target and o.within_tolerance
        assert o.verdict == "ok" and "at or after: hit" in repr(o)
        assert o.accuracy.tolerance_before == 0 and o.accuracy.tolerance_after is None  # +inf
        o = p.seek_wait(inside, SeekPrecision.at_or_after())
        assert o.landed_stream_pts == pts[i] and not o.frame_covers_target
        assert o.within_tolerance and o.delta is not None and o.delta > 0
        assert o.verdict == "ok" and "hit" in repr(o)
        e = p.seek_wait(inside, SeekPrecision.exact())
        assert e.landed_stream_pts == pts[i - 1] and e.verdict == "ok"
        o = p.seek_wait(past, SeekPrecision.at_or_after())
        assert o.landed_stream_pts == pts[-1] and o.clamp.kind == ClampKind.TO_SEEKABLE_END
        assert not o.within_tolerance and o.verdict == "miss" and "MISS" in repr(o)


# ---------------------------------------------------------------------------------------------
# which="at_or_after": ffprobe's grid, ffmpeg -ss's pixels
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_frames_at_or_after_on_between_before(fixtures_dir, library, name):
    """Times on, between and 1 us before frames (item timeline): which="at_or_after" answers
    the first frame at or after t (ffprobe), which="on_screen" (the default) the frame on
    screen; every frame has ffmpeg's pixels for its pts. Through frames_at,
    iter_frames_at and iter_frames_in_time_order alike."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    md5 = framecheck.md5_by_pts(str(path))
    rows = targets_around(gt, sample_indices(len(pts), 30))
    times = [t for _, _, t in rows]
    with open_player(path) as p:
        after = p.frames_at(times, which="at_or_after")
        shown = p.frames_at(times)
        it = list(p.iter_frames_at(times, which="at_or_after", window=7))
        ordered = dict(p.iter_frames_in_time_order(times, which="at_or_after"))
    wrong = []
    for k, ((kind, i, t), a, s) in enumerate(zip(rows, after, shown)):
        assert a.pts == first_at_or_after(pts, gt.to_ticks(t)) == pts[i], (kind, i, t)
        assert a.requested == t and a.outcome.precision.kind == 3
        assert a.outcome.frame_covers_target == (kind == "on")
        assert s.pts == (pts[i] if kind == "on" else pts[i - 1]), (kind, i, t)
        assert it[k].pts == a.pts and ordered[k].pts == a.pts
        for r in (a, s):
            if framecheck.frame_md5(r.frame) != md5[r.pts]:
                wrong.append((kind, i, r.pts))
    assert not wrong, f"frames with other pixels than ffmpeg's: {wrong}"


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_frame_at_or_after_is_what_ffmpeg_ss_outputs(fixtures_dir, library, name):
    """`ffmpeg -i F -ss t -frames:v 1` (output-side: decode from the start, drop frames before
    t; t on the item timeline, which ffmpeg -ss reads) outputs the pixels of
    frame_at(t, which="at_or_after"), for t on, between and just before frames. ffmpeg reads
    -ss in microseconds: each target is the microsecond ffmpeg gets."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    rows = []
    for kind, i, t in targets_around(gt, sample_indices(len(pts), 3)):
        t_us = gtm.round_half_away(Fraction(t) * US)
        rows.append((kind, i, t if kind == "on" else Fraction(t_us, US), t_us))
    with open_player(path) as p:
        for kind, i, t, t_us in rows:
            f = p.frame_at(t, which="at_or_after")
            out = ffmpeg_md5s(path, gt.stream.index, post=("-ss", us_text(t_us)), frames=1)
            assert len(out) == 1
            assert framecheck.frame_md5(f.frame) == out[0], (name, kind, i, us_text(t_us), f.pts)
            assert f.pts == pts[i]


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_at_or_after_range_and_clamp(fixtures_dir, library, name):
    """After the last frame's time no frame starts: which="at_or_after" raises
    FrameOutOfRangeError (an IndexError, as frame-index APIs do; ffmpeg -ss outputs nothing),
    clamp=True answers the last frame; on_screen still answers the last frame there (it is
    on screen until it ends)."""
    from fastpix_seek import FrameOutOfRangeError
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    just_after = gt.last_time + Fraction(1, 1000)
    with open_player(path) as p:
        rng = p.frame_range()
        assert rng.end == gt.last_time and rng.contains(just_after)
        assert not rng.contains(just_after, "at_or_after") and rng.contains(rng.end, "at_or_after")
        assert p.frame_at(just_after).pts == gt.last.pts
        with pytest.raises(FrameOutOfRangeError) as ei:
            p.frame_at(just_after, which="at_or_after")
        assert isinstance(ei.value, IndexError) and "at or after" in str(ei.value)
        assert ei.value.requested == just_after
        out = ffmpeg_md5s(path, gt.stream.index,
                          post=("-ss", us_text(math.ceil(just_after * US))), frames=1)
        assert out == [], "ffmpeg -ss past the last frame outputs nothing"
        f = p.frame_at(just_after, which="at_or_after", clamp=True)
        assert f.pts == gt.last.pts and f.requested == just_after
        assert p.frame_at(gt.last_time, which="at_or_after").pts == gt.last.pts
        # before the start: the first frame at or after it
        assert p.frame_at(0, which="at_or_after").pts == gt.first.pts


def test_conventions_options_are_checked(fixtures_dir, library):
    from fastpix_seek import SeekPrecision
    path = fixtures_dir / "mp4_bframes.mp4"
    with open_player(path) as p:
        with pytest.raises(ValueError, match="which must be 'on_screen'"):
            p.frame_at(1, which="after")
        with pytest.raises(ValueError, match="timeline must be 'item'"):
            p.frames_at([1], timeline="pts")
        with pytest.raises(ValueError, match="timeline must be 'item'"):
            p.iter_frames_at([1], timeline="pts")  # at the call, not at the first answer
        with pytest.raises(ValueError, match="pass one of the two"):
            p.frame_at(1, SeekPrecision.exact(), which="at_or_after")
        with pytest.raises(ValueError, match="pass one of the two"):
            p.iter_frames_in_time_order([1], SeekPrecision.nearest_keyframe(1),
                                        which="at_or_after")
        # the precision alone, or repeated, is the same convention
        a = p.frame_at(Fraction(1, 20), SeekPrecision.at_or_after())
        b = p.frame_at(Fraction(1, 20), SeekPrecision.at_or_after(), which="at_or_after")
        assert a.pts == b.pts == 2002


# ---------------------------------------------------------------------------------------------
# timeline="stream": ffprobe's pts_time, PyAV's frame.time and decode-and-skip
# ---------------------------------------------------------------------------------------------

def check_stream_floats(path: Path, stream: int, **player: Any) -> None:
    """Every frame's ffprobe pts_time, read as a float (as users' code does), and PyAV's
    frame.time, given with timeline="stream": both conventions land on that frame; the same
    floats as item time land one frame early somewhere when the clocks differ."""
    rows = probe_pts_times(path, stream)
    pts = [q for q, _ in rows]
    floats = [float(s) for _, s in rows]
    with av.open(str(path)) as c:
        pyav_times = sorted((f.pts, f.time) for f in c.decode(c.streams[stream]))
    assert [q for q, _ in pyav_times] == pts
    with open_player(path, **player) as p:
        assert p.item_info().reference_stream == stream
        for which in ("on_screen", "at_or_after"):
            got = p.frames_at(floats, which=which, timeline="stream")
            bad = [(q, t, r.pts) for q, t, r in zip(pts, floats, got) if r.pts != q]
            assert not bad, f"{path.name} {which}: ffprobe pts_time floats off their frame: {bad[:5]}"
            for r in got:
                assert r.stream_time == r.pts * r.outcome.stream_time_base
        got = p.frames_at([t for _, t in pyav_times], which="at_or_after", timeline="stream")
        assert [r.pts for r in got] == pts, "PyAV frame.time floats"
        # numpy arrays of them, through the bounded iterators too
        import numpy as np
        arr = np.array(floats, dtype=np.float64)
        it = p.iter_frames_at(arr[::-1], which="at_or_after", timeline="stream", window=50)
        assert [r.pts for r in it] == pts[::-1]
        ordered = p.iter_frames_in_time_order(arr, timeline="stream")
        assert [(i, r.pts) for i, r in ordered] == list(enumerate(pts))


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_stream_timeline_pts_time_floats_land_on_their_frame(fixtures_dir, library, name):
    path = fixtures_dir / name
    check_stream_floats(path, gtm.load(str(path)).stream.index)


def check_pyav_recipe(path: Path, stream: int, seek: bool, **player: Any) -> None:
    """PyAV's decode-and-skip for stream-second times on, between and 1 ms before frames:
    frame_at(t, which="at_or_after", timeline="stream") has its pts and its pixels."""
    rows = probe_pts_times(path, stream)
    with av.open(str(path)) as c:
        tb = Fraction(c.streams[stream].time_base)
    pts = [q for q, _ in rows]
    times = []
    for i in sample_indices(len(pts), 8):
        times.append(pts[i] * tb)
        if i:
            times += [(pts[i - 1] + pts[i]) * tb / 2, pts[i] * tb - Fraction(1, 1000)]
    with open_player(path, **player) as p:
        info = p.item_info()
        for t in times:
            want_pts, want_md5 = pyav_decode_and_skip(path, stream, t, seek)
            assert want_pts == first_at_or_after(pts, t / tb)
            f = p.frame_at(t, which="at_or_after", timeline="stream")
            assert f.pts == want_pts, (path.name, t, f.outcome)
            assert framecheck.frame_md5(f.frame) == want_md5, (path.name, t)
            assert f.requested == t - info.origin == info.item_time(t)
            assert info.stream_seconds(f.requested) == t


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_stream_timeline_is_the_pyav_recipe(fixtures_dir, library, name):
    """On MPEG-TS the recipe decodes from the start (PyAV's backward seek lands past the
    target there, as ffmpeg's input-side -ss does: seek.h, "Conventions")."""
    path = fixtures_dir / name
    check_pyav_recipe(path, gtm.load(str(path)).stream.index, seek=name != "ts.ts")


def test_item_time_reads_floats_as_the_nearest_tick(fixtures_dir, library):
    """ItemInfo.item_time: floats to the nearest tick of the time base (ffprobe's 6 decimals
    of 1001/30000 s are 0.033367 > the frame's time), exact types exactly; stream_seconds its
    inverse. On MPEG-TS the clocks differ by the container's start (1.4667 s)."""
    import numpy as np
    from fastpix_seek import InvalidTimeError
    with open_player(fixtures_dir / "mp4_bframes.mp4") as p:
        info = p.item_info()
        assert info.item_time(0.033367) == Fraction(1001, 30000)
        assert info.item_time(np.float64(0.033367)) == Fraction(1001, 30000)
        assert info.item_time(np.float32(0.033367)) == Fraction(1001, 30000)
        assert info.item_time(Fraction(33367, 10**6)) == Fraction(33367, 10**6)
        assert info.item_time("0.033367") == Fraction(33367, 10**6)
        with pytest.raises(InvalidTimeError):
            info.item_time(float("nan"))
        with pytest.raises(TypeError):
            info.item_time(True)
        # as item time, the float is the simplest fraction it rounds from: just after the frame
        assert p.frame_at(0.033367, which="at_or_after").pts == 2002
        assert p.frame_at(0.033367, which="at_or_after", timeline="stream").pts == 1001
    ts = fixtures_dir / "ts.ts"
    gt = gtm.load(str(ts))
    with open_player(ts) as p:
        info = p.item_info()
        assert info.start_pts == gt.origin_ticks and info.origin > 1
        first = probe_pts_times(ts, gt.stream.index)[0]
        assert info.item_time(float(first[1])) == gt.first_time
        assert info.stream_seconds(gt.first_time) == first[0] * gt.time_base
        # stream seconds read as item time: 1.4667 s into the item
        assert p.frame_at(float(first[1]), which="at_or_after").time >= Fraction(first[1])
        f = p.frame_at(float(first[1]), which="at_or_after", timeline="stream")
        assert f.pts == first[0] and f.time == gt.first_time


# ---------------------------------------------------------------------------------------------
# an MKV whose audio starts before its video: item time 0 != stream pts 0
# ---------------------------------------------------------------------------------------------

def test_early_audio_mkv_stream_timeline(early_audio, library):
    """Issue 29.5's case. Item time 0 is the container's start (the audio's, some ms before the
    video's pts 0): a video frame's pts_time read as item time lands one frame early with the
    default convention; with timeline="stream" every pts_time float lands on its frame, and
    PyAV's decode-and-skip agrees (pts and pixels)."""
    gt = gtm.load(str(early_audio))
    stream = gt.stream.index
    rows = probe_pts_times(early_audio, stream)
    with open_player(early_audio) as p:
        info = p.item_info()
        assert info.start_pts < 0 and info.start_pts == gt.origin_ticks
        assert info.item_time(0) == -info.origin > 0
        picks = sample_indices(len(rows), 8)[1:]
        floats = [float(rows[i][1]) for i in picks]
        early = p.frames_at(floats)  # pts seconds taken as item time
        assert [r.pts for r in early] == [rows[i - 1][0] for i in picks], "one frame early"
    check_stream_floats(early_audio, stream)
    check_pyav_recipe(early_audio, stream, seek=True)


def test_early_audio_mkv_item_timeline_is_ffmpeg_ss(early_audio, library):
    """ffmpeg -ss reads t on the item timeline (0 the container's start): its first frame is
    frame_at(t, which="at_or_after") with the default timeline, pixels compared."""
    gt = gtm.load(str(early_audio))
    pts = gt.pts_list()
    with open_player(early_audio) as p:
        for kind, i, t in targets_around(gt, sample_indices(len(pts), 3)):
            t_us = gtm.round_half_away(Fraction(t) * US)
            lib_t = t if kind == "on" else Fraction(t_us, US)
            f = p.frame_at(lib_t, which="at_or_after")
            assert f.pts == pts[i], (kind, i)
            out = ffmpeg_md5s(early_audio, gt.stream.index, post=("-ss", us_text(t_us)), frames=1)
            assert out == [framecheck.frame_md5(f.frame)], (kind, i, us_text(t_us))


# ---------------------------------------------------------------------------------------------
# Player(reference_stream=)
# ---------------------------------------------------------------------------------------------

def test_reference_stream_frames(two_videos, library):
    """Streams: 0 audio, 1 a 160x120 25 fps video, 2 a 96x72 30000/1001 fps video. With
    reference_stream=1 or 2 every frame answered is that stream's (ffprobe's grid of that
    stream, ffmpeg's pixels of that stream), in both conventions and both clocks."""
    streams = gtm.probe(str(two_videos))["streams"]
    assert [s["codec_type"] for s in streams] == ["audio", "video", "video"]
    with open_player(two_videos) as p:
        assert p.item_info().reference_stream == 1  # automatic: the best video stream
    for index, size in ((1, (160, 120)), (2, (96, 72))):
        rows = probe_pts_times(two_videos, index)
        pts = [q for q, _ in rows]
        md5 = md5_of_stream(two_videos, index)
        with open_player(two_videos, reference_stream=index) as p:
            info = p.item_info()
            tb = info.time_base
            assert info.reference_stream == index and tb is not None
            assert (p.stream_info(index).width, p.stream_info(index).height) == size
            rng = p.frame_range()
            assert info.stream_seconds(rng.end) == pts[-1] * tb
            picks = sample_indices(len(pts), 12)
            item = [info.item_time(pts[i] * tb) for i in picks]
            between = [info.item_time((pts[i - 1] + pts[i]) * tb / 2) for i in picks if i]
            on = p.frames_at(item)
            after = p.frames_at(between, which="at_or_after")
            shown = p.frames_at(between)
            floats = p.frames_at([float(rows[i][1]) for i in picks], which="at_or_after",
                                 timeline="stream")
            assert [r.pts for r in on] == [pts[i] for i in picks]
            assert [r.pts for r in floats] == [pts[i] for i in picks]
            assert [r.pts for r in after] == [pts[i] for i in picks if i]
            assert [r.pts for r in shown] == [pts[i - 1] for i in picks if i]
            for r in on + after + shown + floats:
                assert r.outcome.stream_index == index
                assert (r.frame.width, r.frame.height) == size
                assert framecheck.frame_md5(r.frame) == md5[r.pts], (index, r.pts)
            # PyAV's recipe on the same stream, in its pts seconds
            t = (pts[5] * 2 + 1) * tb / 2
            want = pyav_decode_and_skip(two_videos, index, t, seek=True)
            f = p.frame_at(t, which="at_or_after", timeline="stream")
            assert (f.pts, framecheck.frame_md5(f.frame)) == want


def test_reference_stream_refusals_are_typed_and_say_why(two_videos, library):
    from fastpix_seek import InvalidArgumentError, Player, StreamIndexError
    from fastpix_seek.errors import FastPixSeekError
    p = Player(two_videos, reference_stream=0)
    try:
        with pytest.raises(InvalidArgumentError) as ei:
            p.wait_item(timeout=20)
        e = ei.value
        assert not isinstance(e, IndexError) and isinstance(e, ValueError)
        assert e.url == str(two_videos) and str(e).startswith(str(two_videos))
        assert "reference_stream=0: stream 0 is not a video stream but audio" in e.message, e
        assert "fpx_player_config" not in str(e)
    finally:
        p.close()
    p = Player(two_videos, reference_stream=3)
    try:
        with pytest.raises(StreamIndexError) as ei2:
            p.wait_item(timeout=20)
        assert isinstance(ei2.value, IndexError) and isinstance(ei2.value, InvalidArgumentError)
        assert "reference_stream=3: stream 3 does not exist: the item has 3 streams" in str(ei2.value)
    finally:
        p.close()
    with pytest.raises(InvalidArgumentError, match="reference_stream is -1"):
        Player(reference_stream=-1)
    with pytest.raises(TypeError, match="reference_stream must be a stream index"):
        Player(reference_stream=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Player(reference_stream="1")  # type: ignore[arg-type]
    # the choice is read at every open
    with Player(reference_stream=2) as p2:
        p2.open(two_videos)
        p2.wait_item(timeout=20)
        assert p2.item_info().reference_stream == 2
    assert issubclass(StreamIndexError, FastPixSeekError)


def test_reference_stream_refuses_an_attached_picture(tmp_path, library):
    """A cover picture is a video stream to ffprobe (disposition attached_pic), not one to
    seek on: the open fails, saying so; the movie's own stream opens."""
    from fastpix_seek import InvalidArgumentError, Player
    cover, movie = tmp_path / "cover.png", tmp_path / "cover.mp4"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                    "color=red:size=64x64", "-frames:v", "1", str(cover)], check=True, timeout=60)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=160x120:rate=25", "-i", str(cover), "-t", "1", "-map", "0:v",
                    "-map", "1", "-c:v:0", "libx264", "-preset", "ultrafast", "-c:v:1", "png",
                    "-disposition:v:1", "attached_pic", str(movie)], check=True, timeout=60)
    streams = gtm.probe(str(movie))["streams"]
    assert [(s["codec_type"], s["disposition"]["attached_pic"]) for s in streams] == \
        [("video", 0), ("video", 1)]
    p = Player(movie, reference_stream=1)
    try:
        with pytest.raises(InvalidArgumentError, match="reference_stream=1: stream 1 is an "
                                                       "attached picture"):
            p.wait_item(timeout=20)
    finally:
        p.close()
    with open_player(movie, reference_stream=0) as q:
        assert q.item_info().reference_stream == 0
        gt = gtm.load(str(movie))
        assert gt.stream.index == 0
        want = first_at_or_after(gt.pts_list(), gt.to_ticks(Fraction(1, 2)))
        assert q.frame_at(Fraction(1, 2), which="at_or_after").pts == want


def test_reference_stream_refusal_without_the_log(two_videos, library):
    """With the library's log off the error still names the choice and the causes that fit."""
    from fastpix_seek import FPX_LOG_INFO, FPX_LOG_QUIET, InvalidArgumentError, Player, set_log_level
    set_log_level(FPX_LOG_QUIET)
    try:
        p = Player(two_videos, reference_stream=0)
        try:
            with pytest.raises(InvalidArgumentError, match=r"reference_stream=0: stream 0 is not "
                                                           r"a video stream of this item"):
                p.wait_item(timeout=20)
        finally:
            p.close()
    finally:
        set_log_level(FPX_LOG_INFO)


# ---------------------------------------------------------------------------------------------
# HLS: at or after across segment ends; another reference stream refused, typed
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hls_vod(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("hls")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=160x120:rate=30", "-f", "lavfi", "-i", "sine=sample_rate=48000",
                    "-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "30",
                    "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                    "-hls_segment_filename", str(d / "s%d.ts"), str(d / "v.m3u8")],
                   check=True, timeout=120)
    return d / "v.m3u8"


def test_hls_at_or_after_across_segments(hls_vod, library):
    """Every frame's midpoint to the next (the segment ends among them) gives the next frame,
    by ffprobe's frames of the playlist (stream pts, as FrameAt.pts)."""
    from fastpix_seek import Player
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "frame=pts", "-of", "csv=p=0", str(hls_vod)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    pts = sorted({int(x.split(",")[0]) for x in out.split() if x.split(",")[0] not in ("", "N/A")})
    assert len(pts) >= 80
    with open_player(hls_vod) as p:
        info = p.item_info()
        ref = info.reference_stream
        tb = info.time_base
        start = int(info.start_pts)
        assert p.frame_at(1).pts is not None  # on screen: fine
        for k in range(len(pts) - 1):
            mid = Fraction(pts[k] + pts[k + 1], 2)
            got = p.frame_at((mid - start) * tb, which="at_or_after")
            assert got.pts == pts[k + 1], (k, got.pts, pts[k + 1])
            on = p.frame_at((pts[k] - start) * tb, which="on_screen")
            assert on.pts == pts[k], (k, on.pts, pts[k])


def test_hls_refuses_another_reference_stream(hls_vod, library):
    from fastpix_seek import Player, UnsupportedError
    with open_player(hls_vod) as p:
        ref = p.item_info().reference_stream
    other = 1 - ref
    p = Player(hls_vod, reference_stream=other)
    try:
        with pytest.raises(UnsupportedError) as ej:
            p.wait_item(timeout=20)
        assert (f"reference_stream={other}: stream {other} was chosen, but an HLS item"
                in str(ej.value)), ej.value
    finally:
        p.close()


# ---------------------------------------------------------------------------------------------
# the READMEs' examples of the conventions, as written
# ---------------------------------------------------------------------------------------------

def readme_block(path: Path) -> str:
    """The python block of ``path`` that shows which="at_or_after", dedented."""
    import textwrap
    text = path.read_text()
    for block in text.split("```python")[1:]:
        code = block.split("```")[0]
        if 'which="at_or_after"' in code:
            return textwrap.dedent(code.rstrip().lstrip("\n")) + "\n"
    raise AssertionError(f"no conventions example in {path}")


@pytest.fixture(scope="module")
def two_video_mkv(tmp_path_factory) -> Path:
    """Audio, then two video streams (#1 25 fps, #2 30000/1001 fps), by ffmpeg -map."""
    out = tmp_path_factory.mktemp("readme") / "two.mkv"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
                    "-f", "lavfi", "-i", "testsrc=size=96x72:rate=30000/1001",
                    "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "4",
                    "-map", "2:a", "-map", "0:v", "-map", "1:v", "-c:v", "libx264",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", str(out)],
                   check=True, timeout=120)
    return out


@pytest.mark.parametrize("readme,movie,source", [
    ("README.md", "movie.mp4", "mp4_bframes.mp4"),
    ("Bindings/python/README.md", "movie.mkv", None)])
def test_readme_conventions_examples_run(readme, movie, source, fixtures_dir, two_video_mkv,
                                         library, tmp_path, monkeypatch):
    """Run as written, on a file of that name: the fixture (README.md), a two-video MKV
    (Bindings/python/README.md asks for stream 2). Each ``which="at_or_after"`` answer is
    ffprobe's first frame at or after its time."""
    media = fixtures_dir / source if source else two_video_mkv
    (tmp_path / movie).symlink_to(media)
    monkeypatch.chdir(tmp_path)
    scope: Dict[str, Any] = {}
    exec("from fastpix_seek import Player\n" + readme_block(REPO / readme), scope)
    f = scope["f"]
    stream = f.outcome.stream_index
    pts = [q for q, _ in probe_pts_times(media, stream)]
    tb = f.outcome.stream_time_base
    origin = Fraction(f.pts * tb) - f.time
    assert f.pts == first_at_or_after(pts, (Fraction(5, 2) + origin) / tb)
    g = scope["g"]
    assert g.pts == first_at_or_after(pts, round(Fraction(0.033367) / tb))
    if source is None:
        assert stream == 2
