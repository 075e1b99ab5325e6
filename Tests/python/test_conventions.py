"""The conventions of seek.h section 2 ("Conventions"), each against the tool it names.

* FPX_PRECISION_AT_OR_AFTER lands on the first frame at or after t: ffprobe's frame list (the
  frame-index convention: frame i is the i-th frame in pts order), the frame `ffmpeg -ss t
  -frames:v 1` outputs (compared by ffmpeg's own decoded pixels: framemd5), and the PyAV
  decode-and-skip recipe (seek backward, decode, skip pts < t; t in the stream's pts seconds,
  converted to item time with fpx_item_info's start_pts as the header says);
* exact (the default) stays the frame on screen at t;
* fpx_player_config.reference_stream: every landing follows the chosen video stream of a file
  with two (made here with ffmpeg -map), and invalid choices fail the open.

The library is driven through the plain C host Tests/c/landings.c; nothing here grades it by
itself. Run: make lib && FPX_FIXTURES=/work/fixtures python3 -m pytest -q Tests/python/test_conventions.py
"""

from __future__ import annotations

import bisect
import math
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import framecheck
import testmedia
import groundtruth as gtm

CONVENTION_FIXTURES = ["mp4_bframes.mp4", "mkv.mkv", "ts.ts"]
US = 10**6


def item_text(t: Fraction) -> str:
    t = Fraction(t)
    return f"{t.numerator}/{t.denominator}"


def us_text(t_us: int) -> str:
    """Microseconds as the decimal seconds ffmpeg parses exactly (it reads -ss in microseconds)."""
    sign = "-" if t_us < 0 else ""
    a = abs(t_us)
    return f"{sign}{a // US}.{a % US:06d}"


def first_at_or_after(pts: List[int], ticks: Fraction) -> int:
    i = bisect.bisect_left(pts, math.ceil(ticks))
    return pts[min(i, len(pts) - 1)]


def sample_indices(n: int, spread: int) -> List[int]:
    picks = {0, 1, 2, 3, n - 3, n - 2, n - 1}
    picks.update(range(0, n, max(1, n // spread)))
    return sorted(i for i in picks if 0 <= i < n)


def targets_around(gt, indices) -> List[Tuple[str, int, Fraction]]:
    """(kind, frame index, item time): on frame i, between frames i-1 and i, 1 us before frame i."""
    pts = gt.pts_list()
    out = []
    for i in indices:
        on = gt.to_item(pts[i])
        out.append(("on", i, on))
        if i > 0:
            prev = gt.to_item(pts[i - 1])
            out.append(("between", i, (prev + on) / 2))
            before = on - Fraction(1, US)
            if before > prev:
                out.append(("before", i, before))
    return out


def ffmpeg_md5s(path: Path, stream: int, pre=(), post=(), frames=None) -> List[str]:
    """ffmpeg's decoded frames of `stream` (presentation order) as MD5s of their pixels."""
    cmd = ["ffmpeg", "-nostdin", "-v", "error", *pre, "-i", str(path), *post, "-map", f"0:{stream}",
           "-fps_mode", "passthrough"]
    if frames is not None:
        cmd += ["-frames:v", str(frames)]
    cmd += ["-f", "framemd5", "-"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}: {proc.stderr[-2000:]}"
    return [line.rsplit(",", 1)[1].strip() for line in proc.stdout.splitlines()
            if line and not line.startswith("#")]


def seeks_by_target(res) -> Dict[str, dict]:
    assert res.returncode == 0, res.describe()
    return {s["target"]: s for s in res.seeks}


def landed(seek: dict) -> int:
    assert seek["finished"], seek
    return seek["landed_stream_pts"]


@pytest.fixture(scope="module")
def media(fixtures_dir):
    return {name: fixtures_dir / name for name in CONVENTION_FIXTURES}


# ---------------------------------------------------------------------------------------------
# at or after: ffprobe's frames, and what the outcome says
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_at_or_after_lands_on_the_first_frame_at_or_after(name, media, run_landings):
    path = media[name]
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    tg = targets_around(gt, sample_indices(len(pts), 25))
    texts = [item_text(t) for _, _, t in tg]
    res = run_landings(path, "at_or_after", texts)
    got = seeks_by_target(res)
    exact = seeks_by_target(run_landings(path, "exact", texts))
    for (kind, i, t), text in zip(tg, texts):
        s = got[text]
        want = first_at_or_after(pts, gt.to_ticks(t))
        assert want == pts[i], (kind, i)  # the targets are built so
        assert landed(s) == want, f"{name} {kind} frame {i} t={text}: {s}"
        assert s["precision"]["kind"] == 3 and s["resolution"] == "FPX_LANDING_COVERING_FRAME"
        assert s["clamp"]["kind"] == "FPX_CLAMP_NONE"
        assert s["frame_covers_target"] == (kind == "on"), (kind, s)
        assert s["within_requested_tolerance"] is True
        assert s["tolerance_before"]["value"] == 0 and s["tolerance_after"]["flags"] & 0x2
        # exact (the default) keeps the frame on screen: the same frame on it, the one before inside it
        e = landed(exact[text])
        assert e == (pts[i] if kind == "on" else pts[i - 1]), (kind, i, exact[text])


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_at_or_after_clamps_to_the_range(name, media, run_landings):
    path = media[name]
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    past = gt.last_time + 1
    before = gt.first_time - 1
    inside_last = gt.to_item(pts[-2]) + Fraction(1, US)  # inside the frame before the last
    got = seeks_by_target(run_landings(path, "at_or_after", [item_text(t) for t in (past, before, inside_last)]))
    s = got[item_text(past)]
    assert landed(s) == pts[-1] and s["clamp"]["kind"] == "FPX_CLAMP_TO_SEEKABLE_END"
    assert s["within_requested_tolerance"] is False  # the last frame is before what was asked
    assert s["frame_covers_target"] is True           # it covers the clamped target
    s = got[item_text(before)]
    assert landed(s) == pts[0] and s["clamp"]["kind"] == "FPX_CLAMP_TO_SEEKABLE_START"
    assert s["within_requested_tolerance"] is True
    s = got[item_text(inside_last)]
    assert landed(s) == pts[-1] and s["clamp"]["kind"] == "FPX_CLAMP_NONE"


# ---------------------------------------------------------------------------------------------
# at or after: ffmpeg -ss t -frames:v 1, by ffmpeg's pixels
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_at_or_after_is_what_ffmpeg_ss_outputs(name, media, run_landings):
    """Output-side `ffmpeg -i F -ss t` (decode from the start, drop frames before t) on every
    fixture, and input-side `ffmpeg -ss t -i F` where libavformat's seek is frame-accurate (MP4,
    Matroska). On MPEG-TS, FFmpeg 5.1's input-side -ss starts at a keyframe after t (its seek
    resyncs past it): a seek there is not a decode-and-skip of t, so it is not the reference."""
    path = media[name]
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    full = ffmpeg_md5s(path, gt.stream.index)
    assert len(full) == len(pts), "ffmpeg and ffprobe decode as many frames"
    assert len(set(full)) == len(full), "every frame of the fixture has its own pixels"
    frame_of = {md5: i for i, md5 in enumerate(full)}
    tg = targets_around(gt, sample_indices(len(pts), 5))
    # ffmpeg reads -ss in microseconds: each target as the microsecond ffmpeg gets; "on" frame
    # targets go to the library exactly (the microsecond is the frame's time rounded).
    rows = []
    for kind, i, t in tg:
        t_us = gtm.round_half_away(Fraction(t) * US)
        lib_t = t if kind == "on" else Fraction(t_us, US)
        if kind != "on":
            assert gt.to_item(pts[i - 1]) < lib_t <= gt.to_item(pts[i])
        rows.append((kind, i, t_us, item_text(lib_t)))
    got = seeks_by_target(run_landings(path, "at_or_after", [r[3] for r in rows]))
    input_seek_accurate = name != "ts.ts"
    for kind, i, t_us, text in rows:
        lib = landed(got[text])
        out = ffmpeg_md5s(path, gt.stream.index, post=("-ss", us_text(t_us)), frames=1)
        assert len(out) == 1
        assert pts[frame_of[out[0]]] == lib, f"{name} {kind} t={us_text(t_us)}: ffmpeg -i F -ss"
        if input_seek_accurate:
            inp = ffmpeg_md5s(path, gt.stream.index, pre=("-ss", us_text(t_us)), frames=1)
            assert pts[frame_of[inp[0]]] == lib, f"{name} {kind} t={us_text(t_us)}: ffmpeg -ss t -i F"


# ---------------------------------------------------------------------------------------------
# at or after: the PyAV decode-and-skip recipe, in the stream's own pts seconds
# ---------------------------------------------------------------------------------------------

def pyav_decode_and_skip(path: Path, stream: int, t_stream: Fraction, seek: bool) -> int:
    pytest.importorskip("av")
    return framecheck.pyav_decode_and_skip(str(path), stream, t_stream, seek)[0]


@pytest.fixture(scope="module")
def early_audio(tmp_path_factory) -> Path:
    """A 29.97 fps H.264 MKV whose audio starts before its video (-itsoffset -0.007 plus AAC's
    priming, negative timestamps kept): the container starts at -29 ms of the streams' clock."""
    return Path(testmedia.make_early_audio(str(tmp_path_factory.mktemp("early") / "early.mkv")))


def test_stream_seconds_on_a_file_whose_audio_starts_early(early_audio, run_landings):
    """Issue 29.5's case: item time 0 is the container's start, so a video frame's own pts
    seconds taken as item time land one frame early with exact; converted with start_pts
    (seek.h, "Conventions") they land on the frame, exact and at-or-after alike."""
    gt = gtm.load(str(early_audio))
    assert gt.format_start_us is not None and gt.format_start_us < 0
    pts, tb = gt.pts_list(), gt.time_base
    idx = sample_indices(len(pts), 8)[1:]
    raw = [item_text(pts[i] * tb) for i in idx]
    res = run_landings(early_audio, "exact", raw)
    start_pts = res.item["start_pts"]
    assert start_pts == gt.origin_ticks < 0
    got = seeks_by_target(res)
    assert all(landed(got[t]) == pts[i - 1] for i, t in zip(idx, raw)), "unconverted: one frame early"
    conv = [item_text(pts[i] * tb - start_pts * tb) for i in idx]
    for prec in ("exact", "at_or_after"):
        got = seeks_by_target(run_landings(early_audio, prec, conv))
        for i, t in zip(idx, conv):
            assert landed(got[t]) == pts[i], (prec, i)
            assert got[t]["frame_covers_target"] is True
    check_stream_seconds(early_audio, run_landings, seek=True)


@pytest.mark.parametrize("name", CONVENTION_FIXTURES)
def test_at_or_after_in_stream_seconds_is_the_pyav_recipe(name, media, run_landings):
    """Times in the stream's pts seconds (PyAV's frame.time, ffprobe's pts_time) become item
    times by the header's conversion with fpx_item_info.start_pts; the landing is then the
    frame the recipe returns. On MPEG-TS the recipe decodes from the start (its backward seek
    lands past the target there, as ffmpeg's does)."""
    check_stream_seconds(media[name], run_landings, seek=name != "ts.ts")


def check_stream_seconds(path: Path, run_landings, seek: bool) -> None:
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    tb = gt.time_base
    probe = run_landings(path, "at_or_after", [])
    assert probe.returncode == 0, probe.describe()
    start_pts = probe.item["start_pts"]
    assert Fraction(probe.item["time_base"]["num"], probe.item["time_base"]["den"]) == tb
    rows = []
    for i in sample_indices(len(pts), 6):
        for t_stream in (pts[i] * tb, (pts[i] * tb) - Fraction(1, 1000) if i else pts[i] * tb):
            item = t_stream - start_pts * tb  # seek.h, "Conventions"
            rows.append((i, t_stream, item_text(item)))
    got = seeks_by_target(run_landings(path, "at_or_after", [r[2] for r in rows]))
    for i, t_stream, text in rows:
        want = pyav_decode_and_skip(path, gt.stream.index, t_stream, seek=seek)
        assert want == first_at_or_after(pts, t_stream / tb)
        assert landed(got[text]) == want, f"{path.name} stream time {t_stream}: {got[text]}"


# ---------------------------------------------------------------------------------------------
# the reference stream
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module", params=["mkv", "mp4"])
def two_videos(request, tmp_path_factory) -> Path:
    """Audio, a 25 fps video and a 30000/1001 fps video (other GOP, other size), by ffmpeg -map."""
    return Path(testmedia.make_two_videos(str(tmp_path_factory.mktemp("two_videos") / f"two.{request.param}")))


def stream_grid(path: Path, index: int):
    """The chosen stream's frames and item-time mapping (origin as seek.h defines it)."""
    tb, origin = gtm.stream_origin(str(path), index)
    return [f.pts for f in gtm.frames(str(path), index)], tb, origin


def test_reference_stream_choice(two_videos, run_landings):
    streams = gtm.probe(str(two_videos))["streams"]
    assert [s["codec_type"] for s in streams] == ["audio", "video", "video"]
    auto = run_landings(two_videos, "exact", [])
    assert auto.returncode == 0, auto.describe()
    assert auto.item["reference_stream"] == 1  # av_find_best_stream: the larger video
    for index in (1, 2):
        pts, tb, origin = stream_grid(two_videos, index)
        to_item = lambda p: (p - origin) * tb  # noqa: E731
        picks = sample_indices(len(pts), 9)
        ts = []
        for i in picks:
            ts.append(to_item(pts[i]))
            if i:
                ts.append((to_item(pts[i - 1]) + to_item(pts[i])) / 2)
        texts = [item_text(t) for t in ts]
        for prec in ("exact", "at_or_after"):
            res = run_landings(two_videos, prec, texts, reference_stream=index + 1)
            assert res.returncode == 0, res.describe()
            assert res.item["reference_stream"] == index
            assert Fraction(res.item["time_base"]["num"], res.item["time_base"]["den"]) == tb
            assert res.item["start_pts"] == origin
            got = seeks_by_target(res)
            for t, text in zip(ts, texts):
                ticks = origin + t / tb
                want = (first_at_or_after(pts, ticks) if prec == "at_or_after"
                        else gtm.covering_frame([gtm.Frame(p, False) for p in pts], ticks).pts)
                s = got[text]
                assert s["stream_index"] == index and landed(s) == want, (index, prec, text, s)
            # the range ends at the chosen stream's last frame
            assert res.range["rc"] == 0
            assert Fraction(res.range["end"]["value"], res.range["end"]["timescale"]) == to_item(pts[-1])


@pytest.mark.parametrize("choice", [1, 4, 1000])  # the audio stream; past the streams
def test_reference_stream_invalid_choice_fails_the_open(two_videos, run_landings, choice):
    res = run_landings(two_videos, "exact", [], reference_stream=choice)
    assert res.returncode == 2, res.describe()
    assert "FPX_ERROR_INVALID_ARGUMENT" in res.stderr, res.describe()


def test_reference_stream_negative_is_refused_at_create(two_videos, run_landings):
    res = run_landings(two_videos, "exact", [], reference_stream=-1)
    assert res.returncode == 3 and "FPX_ERROR_INVALID_ARGUMENT" in res.stderr, res.describe()
