"""fpx-seek's conventions (issue 29.5 / deliverable 4, the CLI part), each against a tool we
did not write:

* --precision at_or_after lands on the first frame at or after TIME: ffprobe's frame list
  (seek and frame --json), and the picture `fpx-seek frame` writes is the one ffmpeg decodes
  for `ffmpeg -ss t -i F -frames:v 1` (input side on MP4/MKV) and `ffmpeg -i F -ss t`
  (output side everywhere: FFmpeg 5.1's input-side -ss on MPEG-TS starts at a later keyframe,
  see test_conventions.py), by ffmpeg's own decoded pixels;
* --timeline stream reads TIMEs and prints landings in the reference stream's own pts seconds:
  ffprobe's pts_time strings taken as TIMEs land on their frame (exact) or on the first frame
  at or after them (at_or_after, which is PyAV's decode-and-skip recipe) on an MKV whose audio
  starts before its video (item time 0 != stream pts 0) and on the TS fixture (stamped from
  1.47 s); the same strings on the item timeline land elsewhere;
* --reference-stream N seeks on video stream N of a file with two (ffmpeg -map), and a stream
  that does not exist or is not video is one clear line and exit status 2.

Run: make && FPX_FIXTURES=/work/fixtures python3 -m pytest -q Tests/python/test_cli_conventions.py
"""
from __future__ import annotations

import bisect
import json
import math
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import List

import jsonschema
import numpy as np
import pytest

import testmedia
import groundtruth as gtm
import sheetcheck as sc
from test_conventions import first_at_or_after, us_text

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
SCHEMA = json.loads((REPO / "docs" / "fpx-seek.schema.json").read_text())
FIXTURES = ["mp4_bframes.mp4", "mkv.mkv", "ts.ts"]
US = 10**6


def conforms(doc, definition: str):
    jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]}).validate(doc)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


def run(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def rat(t) -> str:
    t = Fraction(t)
    return f"{t.numerator}/{t.denominator}"


def frac(j: dict) -> Fraction:
    return Fraction(j["rational"])


def on_screen(pts: List[int], ticks: Fraction) -> int:
    i = bisect.bisect_right(pts, math.floor(ticks)) - 1
    return pts[max(i, 0)]


def picks(n: int, spread: int) -> List[int]:
    p = {1, 2, n - 2, n - 1}
    p.update(range(1, n, max(1, n // spread)))
    return sorted(i for i in p if 0 < i < n)


def frame_json(path: Path, times: List[str], tmp_path: Path, *opts) -> dict:
    r = run("frame", path, *times, "-o", tmp_path / "s.png", "--width", "16", "--json", *opts)
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert j["failed"] == 0 and len(j["times"]) == len(times)
    return j


# ---------------------------------------------------------------------------------------------
# at_or_after: ffprobe's frames
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FIXTURES)
def test_at_or_after_is_the_first_frame_at_or_after_in_ffprobes_list(fixtures_dir, tmp_path, name):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    rows = []  # (kind, frame index, item time)
    for i in picks(len(pts), 20):
        on, prev = gt.to_item(pts[i]), gt.to_item(pts[i - 1])
        rows += [("on", i, on), ("between", i, (prev + on) / 2), ("before", i, on - Fraction(1, US))]
    times = [rat(t) for _, _, t in rows]
    j = frame_json(path, times, tmp_path, "--precision", "at_or_after")
    assert j["precision"]["kind"] == "at_or_after" and j["timeline"] == "item"
    assert j["reference_stream"] == gt.stream.index
    exact = frame_json(path, times, tmp_path)  # the default stays the frame on screen
    assert exact["precision"]["kind"] == "exact"
    for (kind, i, t), v, e in zip(rows, j["times"], exact["times"]):
        assert first_at_or_after(pts, gt.to_ticks(t)) == pts[i]
        assert v["landed_stream_pts"] == pts[i], (name, kind, i, v)
        assert frac(v["landed"]) == gt.to_item(pts[i])
        o = v["outcome"]
        assert o["precision"]["kind"] == "at_or_after"
        assert o["within_requested_tolerance"] is True  # the verdict: landed >= requested
        assert o["frame_covers_target"] is (kind == "on")
        assert o["landed_stream_time"] is None and o["timeline"] == "item"
        assert e["landed_stream_pts"] == (pts[i] if kind == "on" else pts[i - 1]), (name, kind, i, e)


@pytest.mark.parametrize("name", FIXTURES)
def test_seek_at_or_after_text_json_and_the_end(fixtures_dir, name):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    i = len(pts) // 2
    t = (gt.to_item(pts[i - 1]) + gt.to_item(pts[i])) / 2
    r = run("seek", path, rat(t), "--precision", "at_or_after")
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(None, 1) for line in r.stdout.splitlines())
    assert lines["precision"] == "at_or_after"
    assert lines["result"] == "hit: the landed frame starts at or after the target"
    assert f"stream pts {pts[i]}" in lines["landed"]
    assert lines["resolved"] == "the first frame at or after the target"
    j = conforms(json.loads(run("seek", path, rat(t), "--precision", "at_or_after", "--json").stdout), "seek_outcome")
    assert j["landed_stream_pts"] == pts[i] and j["within_requested_tolerance"] is True
    assert j["within_requested_tolerance_note"] == "at_or_after: the landed frame starts at or after the requested time"
    # Past the last frame there is no frame at or after: the last frame, clamped, verdict false.
    past = gt.last_time + 1
    j = conforms(json.loads(run("seek", path, rat(past), "--precision", "at_or_after", "--json").stdout),
                 "seek_outcome")
    assert j["landed_stream_pts"] == pts[-1] and j["clamp"]["kind"] == "to_seekable_end"
    assert j["within_requested_tolerance"] is False
    r = run("seek", path, rat(past), "--precision", "at_or_after")
    assert "then the last frame (no frame starts at or after the target)" in r.stdout, r.stdout
    # Before the first frame: clamped to it, which is at or after.
    j = conforms(json.loads(run("seek", path, rat(gt.first_time - 1), "--precision", "at_or_after", "--json").stdout),
                 "seek_outcome")
    assert j["landed_stream_pts"] == pts[0] and j["within_requested_tolerance"] is True


def test_step_from_and_scrub_take_at_or_after(fixtures_dir, tmp_path):
    path = fixtures_dir / "mkv.mkv"
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    t = (gt.to_item(pts[40]) + gt.to_item(pts[41])) / 2
    r = run("step", path, "--from", rat(t), "--precision", "at_or_after", "--json")
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "step")
    assert j[0]["stream_pts"] == pts[42]  # landed on frame 41, then one step
    r = run("step", path, "--from", rat(t), "--json")
    assert json.loads(r.stdout)[0]["stream_pts"] == pts[41]  # exact: frame 40, then one step
    samples = tmp_path / "g.txt"
    samples.write_text(f"1\n2\n{rat(t)}\n")
    r = run("scrub", path, samples, "--precision", "at_or_after", "--json")
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "scrub")
    assert j["outcome"]["landed_stream_pts"] == pts[41] and j["outcome"]["precision"]["kind"] == "at_or_after"
    for cmd in (["sprite", path, "-o", tmp_path / "sp"], ["live", "http://127.0.0.1:9/x.m3u8"]):
        r = run(*cmd, "--precision", "at_or_after")
        assert r.returncode == 2 and "--precision at_or_after is not available here" in r.stderr, r.stderr


# ---------------------------------------------------------------------------------------------
# at_or_after: ffmpeg -ss's decoded pixels against the PNG fpx-seek writes
# ---------------------------------------------------------------------------------------------

def ffmpeg_rgb(path: Path, stream: int, pre=(), post=()) -> np.ndarray:
    st = next(s for s in gtm.probe(str(path))["streams"] if int(s["index"]) == stream)
    w, h = int(st["width"]), int(st["height"])
    raw = subprocess.check_output(["ffmpeg", "-nostdin", "-v", "error", *pre, "-i", str(path), *post, "-map",
                                   f"0:{stream}", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                                  timeout=120)
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


@pytest.mark.parametrize("name", FIXTURES)
def test_frame_at_or_after_is_ffmpeg_ss_picture(fixtures_dir, tmp_path, name):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    full = np.frombuffer(sc.rgb(path), np.uint8)
    n = len(pts)
    full = full.reshape(n, -1)
    input_side = name != "ts.ts"
    for i in picks(n, 4):
        # A time strictly inside frame i-1, as the microsecond ffmpeg reads: its first frame at
        # or after is frame i, the frame on screen is frame i-1.
        mid = (gt.to_item(pts[i - 1]) + gt.to_item(pts[i])) / 2
        t_us = gtm.round_half_away(mid * US)
        assert gt.to_item(pts[i - 1]) < Fraction(t_us, US) < gt.to_item(pts[i])
        png = tmp_path / f"f{i}.png"
        r = run("frame", path, us_text(t_us), "-o", png, "--precision", "at_or_after")
        assert r.returncode == 0, r.stderr
        assert f", stream pts {pts[i]})  hit: the landed frame starts at or after the target" in r.stdout, r.stdout
        ours = sc.image(png)
        refs = [("ffmpeg -i F -ss t", ffmpeg_rgb(path, gt.stream.index, post=("-ss", us_text(t_us))))]
        if input_side:
            refs.append(("ffmpeg -ss t -i F", ffmpeg_rgb(path, gt.stream.index, pre=("-ss", us_text(t_us)))))
        for label, ref in refs:
            assert ref.shape == ours.shape
            # ffmpeg's output is frame i of its own full decode, and so is ours; no neighbour is as close.
            assert sc.mad(ref.reshape(-1), full[i]) == 0, (label, i)
            d = {k: sc.mad(ours.reshape(-1), full[k]) for k in range(max(0, i - 2), min(n, i + 3))}
            assert min(d, key=lambda k: d[k]) == i and d[i] < 1.0, (name, label, i, d)
            assert sc.mad(ours, ref) < 1.0, (name, label, i)


# ---------------------------------------------------------------------------------------------
# --timeline stream: ffprobe's pts_time
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def early_audio(tmp_path_factory) -> Path:
    """A 29.97 fps H.264 MKV whose audio starts before its video (-itsoffset -0.007 plus AAC's
    priming, negative timestamps kept): item time 0 (the container's start) is not pts 0."""
    return Path(testmedia.make_early_audio(str(tmp_path_factory.mktemp("early") / "early.mkv")))


def pts_times(path: Path, stream: int):
    """ffprobe's frames of `stream`: (pts, pts_time as ffprobe prints it)."""
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", str(stream), "-show_entries",
                                   "frame=pts,pts_time", "-of", "csv=p=0", str(path)], text=True)
    rows = [line.split(",")[:2] for line in out.splitlines() if line.strip()]
    return sorted((int(p), s) for p, s in rows)


@pytest.mark.parametrize("which", ["early_audio", "ts.ts"])
def test_timeline_stream_takes_ffprobes_pts_time(which, fixtures_dir, early_audio, tmp_path):
    path = early_audio if which == "early_audio" else fixtures_dir / which
    gt = gtm.load(str(path))
    tb = gt.time_base
    assert gt.origin_ticks != 0  # item time 0 is not the stream's pts 0
    frames = pts_times(path, gt.stream.index)
    pts = [p for p, _ in frames]
    assert pts == gt.pts_list()
    idx = picks(len(frames), 12)
    texts = [frames[i][1] for i in idx]  # the floats as ffprobe prints them (6 decimals)
    for prec in ("exact", "at_or_after"):
        j = frame_json(path, texts, tmp_path, "--timeline", "stream", "--precision", prec)
        assert j["timeline"] == "stream"
        for i, text, v in zip(idx, texts, j["times"]):
            s = Fraction(text)  # the float's decimal, in the stream's pts seconds
            want = on_screen(pts, s / tb) if prec == "exact" else first_at_or_after(pts, s / tb)
            assert v["landed_stream_pts"] == want, (which, prec, i, text, v)
            assert frac(v["landed_stream_time"]) == want * tb
            o = v["outcome"]
            assert o["timeline"] == "stream" and frac(o["requested_stream_time"]) == s
            assert frac(o["requested"]) == s - gt.origin_ticks * tb  # item time = s - start_pts x tb
            assert frac(o["landed"]) == gt.to_item(want)
        # where ffprobe's decimal is the frame's exact time, both conventions give that frame
        exact_on = [i for i, text in zip(idx, texts) if Fraction(text) == pts[i] * tb]
        assert exact_on, "some pts_time strings are exact"
        for i in exact_on:
            assert j["times"][idx.index(i)]["landed_stream_pts"] == pts[i]
    # The same strings on the item timeline (the default) are other times: on the early-audio
    # MKV (container start -29 ms) the frame on screen is an earlier frame.
    item = frame_json(path, texts, tmp_path)
    moved = [v["landed_stream_pts"] != on_screen(pts, Fraction(t) / tb) for t, v in zip(texts, item["times"])]
    assert any(moved), which
    # seek prints pts seconds, and the item time next to them
    i = idx[len(idx) // 2]
    r = run("seek", path, frames[i][1], "--precision", "exact", "--timeline", "stream")
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(None, 1) for line in r.stdout.splitlines())
    landed = on_screen(pts, Fraction(frames[i][1]) / tb)
    assert lines["landed"].startswith(f"{float(landed * tb):.6f} s  ({rat(landed * tb)}, stream pts {landed}"), lines
    assert lines["requested"].startswith(f"{float(Fraction(frames[i][1])):.6f} s"), lines
    assert "stream pts seconds; item time" in lines["requested"]
    # step: --from and every landing in pts seconds
    r = run("step", path, "--from", frames[i][1], "--timeline", "stream", "--times", "2", "--json")
    assert r.returncode == 0, r.stderr
    steps = conforms(json.loads(r.stdout), "step")
    k = pts.index(landed)
    assert [s["stream_pts"] for s in steps] == pts[k + 1:k + 3]
    assert [frac(s["landed_stream_time"]) for s in steps] == [p * tb for p in pts[k + 1:k + 3]]
    assert [frac(s["landed"]) for s in steps] == [gt.to_item(p) for p in pts[k + 1:k + 3]]


def test_timeline_stream_and_reference_stream_usage(fixtures_dir):
    path = fixtures_dir / "mkv.mkv"
    for bad in (["--timeline", "pts"], ["--reference-stream", "-1"], ["--reference-stream", "x"]):
        r = run("seek", path, "1", *bad)
        assert r.returncode == 2 and r.stderr.startswith("fpx-seek: --"), (bad, r.stderr)


# ---------------------------------------------------------------------------------------------
# --reference-stream on a file with two video streams
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def two_videos(tmp_path_factory) -> Path:
    """Audio, a 25 fps 160x120 video and a 30000/1001 fps 96x72 video, by ffmpeg -map."""
    return Path(testmedia.make_two_videos(str(tmp_path_factory.mktemp("two_videos") / "two.mkv")))



def test_reference_stream_seeks_and_writes_the_chosen_video(two_videos, tmp_path):
    streams = gtm.probe(str(two_videos))["streams"]
    assert [s["codec_type"] for s in streams] == ["audio", "video", "video"]
    p = conforms(json.loads(run("probe", two_videos, "--json").stdout), "probe")
    assert p["reference_stream"] == 1  # automatic: the best video
    p = conforms(json.loads(run("probe", two_videos, "--json", "--reference-stream", "2").stdout), "probe")
    assert p["reference_stream"] == 2
    pts = [f.pts for f in gtm.frames(str(two_videos), 2)]
    tb, origin = gtm.stream_origin(str(two_videos), 2)
    other = set(f.pts for f in gtm.frames(str(two_videos), 1))
    to_item = lambda q: (q - origin) * tb  # noqa: E731
    idx = picks(len(pts), 6)
    times = [(to_item(pts[i - 1]) + to_item(pts[i])) / 2 for i in idx]
    for prec, want in (("exact", [pts[i - 1] for i in idx]), ("at_or_after", [pts[i] for i in idx])):
        j = frame_json(two_videos, [rat(t) for t in times], tmp_path, "--reference-stream", "2", "--precision", prec)
        assert j["reference_stream"] == 2 and j["cell"]["height"] == 12  # 16 wide, 96x72 in proportion
        assert [v["landed_stream_pts"] for v in j["times"]] == want, prec
        assert all(v["outcome"]["stream_index"] == 2 for v in j["times"])
    assert not set(want) <= other, "the two streams' grids differ, so the choice is visible"
    # The PNG is stream 2's picture (96x72), ffmpeg's decode of -map 0:2 at that frame.
    i = idx[len(idx) // 2]
    t_us = gtm.round_half_away(((to_item(pts[i - 1]) + to_item(pts[i])) / 2) * US)
    png = tmp_path / "two.png"
    r = run("frame", two_videos, us_text(t_us), "-o", png, "--reference-stream", "2", "--precision", "at_or_after")
    assert r.returncode == 0, r.stderr
    ours = sc.image(png)
    ref = ffmpeg_rgb(two_videos, 2, pre=("-ss", us_text(t_us)))
    assert ours.shape == ref.shape == (72, 96, 3)
    assert sc.mad(ours, ref) < 1.0
    # seek and step follow it too
    j = conforms(json.loads(run("seek", two_videos, rat(times[0]), "--reference-stream", "2", "--precision",
                                "exact", "--json").stdout), "seek_outcome")
    assert j["stream_index"] == 2 and j["landed_stream_pts"] == pts[idx[0] - 1]
    r = run("step", two_videos, "--from", rat(times[0]), "--reference-stream", "2", "--json")
    assert conforms(json.loads(r.stdout), "step")[0]["stream_pts"] == pts[idx[0]]


@pytest.mark.parametrize("choice,why", [(0, "stream index 0 is not a video stream but audio"),
                                        (3, "stream index 3 does not exist: the item has 3 streams (indices 0...2)"),
                                        (1000, "stream index 1000 does not exist")])
@pytest.mark.parametrize("command", ["seek", "frame", "probe"])
def test_reference_stream_that_is_not_video_is_exit_2(two_videos, tmp_path, choice, why, command):
    args = {"seek": [two_videos, "1"], "frame": [two_videos, "1", "-o", tmp_path / "x.png"],
            "probe": [two_videos]}[command]
    r = run(command, *args, "--reference-stream", choice)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.startswith(f"fpx-seek: --reference-stream {choice}: {why}"), r.stderr
    assert r.stderr.count("\n") == 1 and "fpx_player_config" not in r.stderr
    assert r.stdout == "" and not (tmp_path / "x.png").exists()


def test_reference_stream_in_sprite_and_report(two_videos, tmp_path):
    """sprite's tiles are stream 2's pictures (ffmpeg's decode of -map 0:2, by pixels) at its
    keyframes; report counts stream 2's frames and keyframes (ffprobe's)."""
    frames2 = gtm.frames(str(two_videos), 2)
    pts = [f.pts for f in frames2]
    keys = {f.pts for f in frames2 if f.key}
    out = tmp_path / "sprite"
    r = run("sprite", two_videos, "-o", out, "--format", "png", "--reference-stream", "2", "--json")
    assert r.returncode == 0, r.stderr
    summary = conforms(json.loads(r.stdout), "sprite")
    sheet = json.loads((out / "spritesheet.json").read_text())
    w, h = sheet["tile_width"], sheet["tile_height"]
    raw = subprocess.check_output(["ffmpeg", "-nostdin", "-v", "error", "-i", str(two_videos), "-map", "0:2", "-vf",
                                   f"scale={w}:{h}:flags=bicubic", "-fps_mode", "passthrough", "-f", "rawvideo",
                                   "-pix_fmt", "rgb24", "-"])
    decoded = np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)
    assert len(decoded) == len(pts)
    image = sc.image(out / summary["images"][0])
    assert summary["tile_list"]
    for tile, detail in zip(sheet["tiles"], summary["tile_list"]):
        assert detail["stream_pts"] in keys, detail
        n = pts.index(detail["stream_pts"])
        best, d = sc.nearest(decoded, sc.cell(image, tile["x"], tile["y"], w, h), n)
        assert best == n and d < 2.0, (tile, n, best, d)
    rep = json.loads(run("report", two_videos, "--reference-stream", "2", "--targets", "10", "--json").stdout)
    assert rep["frames"] == len(pts) and rep["keyframes"] == len(keys)
    rep1 = json.loads(run("report", two_videos, "--targets", "10", "--json").stdout)
    assert rep1["frames"] == len(gtm.frames(str(two_videos), 1)) != len(pts)


def test_scrub_in_stream_seconds(early_audio, tmp_path):
    gt = gtm.load(str(early_audio))
    tb = gt.time_base
    frames = pts_times(early_audio, gt.stream.index)
    pts = [p for p, _ in frames]
    samples = tmp_path / "g.txt"
    samples.write_text("".join(f"{frames[i][1]}\n" for i in (10, 20, 30)))
    r = run("scrub", early_audio, samples, "--timeline", "stream", "--precision", "exact", "--json")
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "scrub")
    o = j["outcome"]
    assert o["timeline"] == "stream" and frac(o["requested_stream_time"]) == Fraction(frames[30][1])
    assert o["landed_stream_pts"] == pts[30] and frac(o["landed_stream_time"]) == pts[30] * tb
    # the positions the listeners saw, printed in stream seconds too
    assert j["positions"] and all(frac(p["time"]) in {Fraction(frames[i][1]) for i in (10, 20, 30)}
                                  for p in j["positions"])
