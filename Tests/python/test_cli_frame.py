"""fpx-seek frame with many times (issue 29.8 / deliverable 1): it runs like
Examples/c/frames_at.c (continuation, one decoder kept across times visited in increasing
order), so a 100-time contact sheet decodes about the frames between its first and last
time once instead of a keyframe's pre-roll per time; every cell is ffmpeg's picture of the
frame covering its time; --json reports per time what landed; a failure at one time does
not lose the others (test_cli_hls.py makes one over HTTP)."""
from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

import groundtruth as gtm
import sheetcheck as sc

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
SCHEMA = json.loads((REPO / "docs" / "fpx-seek.schema.json").read_text())


def conforms(doc, definition: str):
    jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]}).validate(doc)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


@pytest.fixture(scope="module")
def long_gop(tmp_path_factory) -> Path:
    """40 s, 320x180, 25 fps H.264 with 3 B-frames and one keyframe every 10 s: seeking
    restart at a keyframe costs up to 250 frames of pre-roll."""
    out = tmp_path_factory.mktemp("frame") / "gop250.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "40",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "250", "-keyint_min", "250",
                    "-sc_threshold", "0", "-pix_fmt", "yuv420p", str(out)], check=True)
    return out


def test_contact_sheet_of_100_times_continues(long_gop, tmp_path):
    path = long_gop
    gt = gtm.load(str(path))
    times = [Fraction(k * 39, 100) + Fraction(1, 7) for k in range(100)]
    times = times[1::2] + times[0::2][::-1]  # out of order: visited sorted, placed as given
    png = tmp_path / "sheet.png"
    r = subprocess.run([str(CLI), "frame", str(path), *[f"{t.numerator}/{t.denominator}" for t in times],
                        "-o", str(png), "--width", "80", "--columns", "10", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert j["written"] and j["failed"] == 0 and j["cell"] == {"width": 80, "height": 45}
    assert [v["index"] for v in j["times"]] == list(range(100))
    for t, v in zip(times, j["times"]):
        assert v["ok"] and v["error"] is None
        assert v["landed_stream_pts"] == gt.covering(t).pts, (t, v)
        assert Fraction(v["landed"]["rational"]) == gt.to_item(gt.covering(t).pts)
        assert v["outcome"]["frame_covers_target"] is True
    # Continuation: one pass from the first keyframe to the last time decodes each frame at
    # most once (the first landing's pre-roll included); restarting at each landing's
    # keyframe (what the tool did before) would decode, summed over the times, the frames
    # from the keyframe to the landing.
    pts = gt.pts_list()
    kidx = [gt.frame_index(k.pts) for k in gt.keyframes]
    last = max(gt.frame_index(gt.covering(t).pts) for t in times)
    restart = sum(gt.frame_index(gt.covering(t).pts) - max(k for k in kidx if k <= gt.frame_index(gt.covering(t).pts)) + 1
                  for t in times)
    assert j["frames_decoded"] == sum(v["frames_decoded"] for v in j["times"])
    assert j["frames_decoded"] <= last + 1 + 8, (j["frames_decoded"], last)
    assert j["frames_decoded"] * 5 < restart, (j["frames_decoded"], restart)
    assert len(pts) == 1000
    # Every cell is ffmpeg's picture of the frame covering its time.
    sheet = sc.image(png)
    assert sheet.shape == (4 + 10 * 49, 4 + 10 * 84, 3)
    frames = sc.frames_scaled(path, 80, 45)
    for k, t in enumerate(times):
        n = gt.frame_index(gt.covering(t).pts)
        picture = sc.cell(sheet, 4 + (k % 10) * 84, 4 + (k // 10) * 49, 80, 45)
        best, d = sc.nearest(frames, picture, n)
        assert best == n and d < 2.0, (t, n, best, d)


def test_times_seconds_apart_in_a_long_gop_continue(long_gop, tmp_path):
    """Times 2 s apart in a 10 s GOP (past the 1 s a frame grid alone lets a seek read on):
    the mp4's keyframe index shows no keyframe between, so each continues from the last
    one (about 50 frames each) instead of restarting at the keyframe (50, 100, 150, 200);
    the time past the next keyframe restarts there. Every cell is ffmpeg's picture."""
    path = long_gop
    gt = gtm.load(str(path))
    times = [0, 2, 4, 6, 8, 10, 12]
    png = tmp_path / "sheet.png"
    r = subprocess.run([str(CLI), "frame", str(path), *map(str, times), "-o", str(png), "--width", "80",
                        "--columns", "7", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert j["failed"] == 0
    idx = [gt.frame_index(gt.covering(Fraction(t)).pts) for t in times]
    assert idx[4] == 200 and idx[5] == 250
    fd = [v["frames_decoded"] for v in j["times"]]
    # 0..8 s: one pass from the keyframe, each frame decoded at most once (a few B-frames past).
    assert sum(fd[:5]) <= idx[4] + 1 + 8, fd
    for k in range(1, 5):
        assert fd[k] <= idx[k] - idx[k - 1] + 8, fd
    # 10 s: a keyframe: restarts there; 12 s continues from it.
    assert fd[5] <= 2 and fd[6] <= idx[6] - idx[5] + 8, fd
    sheet = sc.image(png)
    frames = sc.frames_scaled(path, 80, 45)
    for k, n in enumerate(idx):
        best, d = sc.nearest(frames, sc.cell(sheet, 4 + k * 84, 4, 80, 45), n)
        assert best == n and d < 2.0, (times[k], n, best, d)


def test_text_lines_keep_the_order_given(long_gop, tmp_path):
    path = long_gop
    gt = gtm.load(str(path))
    times = ["39.9", "0", "12.34", "5"]
    r = subprocess.run([str(CLI), "frame", str(path), *times, "-o", str(tmp_path / "s.png")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 5 and lines[-1].startswith(f"wrote {tmp_path / 's.png'} (4 frames")
    for t, line in zip(times, lines):
        assert line.startswith(f"{t} s -> ") and f"stream pts {gt.covering(Fraction(t)).pts})" in line, line


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "hevc_opengop.mkv", "ts.ts"])
def test_json_single_frame_and_last_frame(fixtures_dir, tmp_path, name):
    """--json on one TIME, and the last frame (issue 29.1) in a sheet with others."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    last = gt.to_item(gt.last.pts)
    times = [Fraction(1, 3), last, Fraction(2)]
    r = subprocess.run([str(CLI), "frame", str(path), *[f"{t.numerator}/{t.denominator}" for t in times], "-o",
                        str(tmp_path / "s.png"), "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert [v["landed_stream_pts"] for v in j["times"]] == [gt.covering(t).pts for t in times]
    assert j["holes"] == {"segments_skipped": 0, "last_skipped_sequence": None, "last_skip_reason": "none"}
    assert "variants" not in j


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "hevc_opengop.mkv"])
def test_a_second_landing_on_the_last_frames(fixtures_dir, tmp_path, name):
    """The frame before the last of a B-frame stream comes out of the decoder only when it is
    drained at the end of the packets; a second TIME landing on it (reached by continuing from
    the frame before, then exact inside it and on it again) restarts at its keyframe instead of continuing past the end (it failed: "the landed
    frame ... could not be decoded"). Every cell is ffmpeg's picture of its frame."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    n = len(pts)
    a, b = gt.to_item(pts[-2]), gt.to_item(pts[-1])
    times = [gt.to_item(pts[-3]), a, (a + b) / 2, a + Fraction(1, 10**6), b, b]
    png = tmp_path / "end.png"
    r = subprocess.run([str(CLI), "frame", str(path), *[f"{t.numerator}/{t.denominator}" for t in times], "-o",
                        str(png), "--width", "80", "--columns", "6", "--json"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert [v["landed_stream_pts"] for v in j["times"]] == [pts[-3]] + [pts[-2]] * 3 + [pts[-1]] * 2
    h = j["cell"]["height"]
    frames = sc.frames_scaled(path, 80, h)
    sheet = sc.image(png)
    for k, v in enumerate(j["times"]):
        want = n - 3 if k == 0 else n - 2 if k < 4 else n - 1
        best, d = sc.nearest(frames, sc.cell(sheet, 4 + k * 84, 4, 80, h), want)
        assert best == want and d < 2.0, (k, best, d)


def _encoders() -> str:
    return subprocess.run(["ffmpeg", "-hide_banner", "-encoders"], capture_output=True, text=True).stdout


@pytest.mark.parametrize("codec", ["libaom-av1", "libx265"])
def test_every_codec_the_decoder_has(codec, tmp_path):
    """fpx-seek frame on AV1 (FFmpeg's native `av1` decoder needs hardware: the tool must pick
    the software one, as ffmpeg does) and on HEVC with B-frames, made with Debian's ffmpeg:
    every cell is ffmpeg's picture of the frame covering its time, the last frames included."""
    if codec not in _encoders():
        pytest.fail(f"Debian's ffmpeg has no {codec} encoder here")  # a missing encoder is a broken setup
    path = tmp_path / ("av1.mp4" if codec == "libaom-av1" else "hevc.mkv")
    extra = (["-cpu-used", "8", "-g", "25"] if codec == "libaom-av1"
             else ["-preset", "ultrafast", "-x265-params", "bframes=3:keyint=25:log-level=none"])
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x96:rate=25", "-t", "3",
                    "-c:v", codec, *extra, "-pix_fmt", "yuv420p", str(path)], check=True, timeout=300)
    gt = gtm.load(str(path))
    pts = gt.pts_list()
    last = gt.to_item(pts[-1])
    times = [Fraction(1, 3), Fraction(13, 10), Fraction(5, 2), last, last - Fraction(1, 25)]
    png = tmp_path / "sheet.png"
    r = subprocess.run([str(CLI), "frame", str(path), *[f"{t.numerator}/{t.denominator}" for t in times],
                        "-o", str(png), "--width", "80", "--columns", "5", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert j["written"] and j["failed"] == 0
    sheet = sc.image(png)
    h = j["cell"]["height"]
    frames = sc.frames_scaled(path, 80, h)
    for k, (t, v) in enumerate(zip(times, j["times"])):
        assert v["ok"] and v["landed_stream_pts"] == gt.covering(t).pts, (t, v)
        n = gt.frame_index(gt.covering(t).pts)
        best, d = sc.nearest(frames, sc.cell(sheet, 4 + k * 84, 4, 80, h), n)
        assert best == n and d < 2.0, (codec, t, n, best, d)
