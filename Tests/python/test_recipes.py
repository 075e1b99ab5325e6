"""The recipes of Include/fastpix/seek.h, fpx-seek(1) and README, checked against the ffmpeg CLI
(issue 20):

* "exact and `ffmpeg -ss t`": an exact seek lands on the frame covering t; `ffmpeg -ss t`
  starts at the first frame at or after t, which for a t inside a frame is the next one; the
  recipe (exact seek, then one forward step when the landing starts before t) gives ffmpeg's
  frame: same pts as ffprobe's first frame >= t, same pixels as `ffmpeg -ss t` (framemd5);
* the CLI spelling of it, `fpx-seek step FILE --from t`.
(The "thumbnail at t" recipe is Examples/c/decode_landing.c: Tests/python/test_examples.py.)
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Bindings" / "python"))
CLI = REPO / "build" / "bin" / "fpx-seek"


def ffmpeg_ss_md5(path: Path, t: Fraction) -> str:
    """framemd5 of the first frame `ffmpeg -ss t -i path` outputs (accurate seek, the default)."""
    out = subprocess.check_output(["ffmpeg", "-v", "error", "-ss", f"{float(t):.9f}", "-i", str(path), "-map", "0:v:0",
                                   "-frames:v", "1", "-f", "framemd5", "-"], text=True)
    return [l.rsplit(",", 1)[1].strip() for l in out.splitlines() if l and not l.startswith("#")][0]


def all_md5(path: Path):
    out = subprocess.check_output(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-fps_mode",
                                   "passthrough", "-f", "framemd5", "-"], text=True)
    return [l.rsplit(",", 1)[1].strip() for l in out.splitlines() if l and not l.startswith("#")]


@pytest.mark.parametrize("name,t", [("mp4_bframes.mp4", Fraction(5, 2)), ("mp4_bframes.mp4", Fraction(7901, 1000)),
                                    ("mkv.mkv", Fraction(3, 1) + Fraction(1, 100))])
def test_first_frame_at_or_after_t_is_ffmpeg_ss(fixtures_dir: Path, library, name, t):
    from fastpix_seek import FrameStepDirection, Player, SeekPrecision
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    covering = gt.covering(t)
    after = next(f for f in gt.frames if gt.to_item(f.pts) >= t)  # gt.frames: the landable frames, in pts order
    assert gt.to_item(covering.pts) < t and after.pts != covering.pts  # t falls inside a frame
    md5 = all_md5(path)
    # ffmpeg -ss t gives the first frame at or after t, not the exact landing.
    assert ffmpeg_ss_md5(path, t) == md5[gt.frame_index(after.pts)] != md5[gt.frame_index(covering.pts)]
    with Player(path) as p:
        p.wait_item(timeout=20)
        o = p.seek_and_wait(t, SeekPrecision.exact())
        assert o.landed_stream_pts == covering.pts and o.frame_covers_target
        assert o.landed_time < t
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert r.did_step and r.landed_stream_pts == after.pts
    cli = subprocess.run([str(CLI), "step", str(path), "--from", f"{t.numerator}/{t.denominator}", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)[0]["stream_pts"] == after.pts


def test_exact_on_a_frame_start_is_that_frame_for_both(fixtures_dir: Path, library):
    """t on a frame's start: exact and ffmpeg -ss agree, and the recipe takes no step."""
    from fastpix_seek import Player, SeekPrecision
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    f = gt.frames[40]
    t = gt.to_item(f.pts)
    assert ffmpeg_ss_md5(path, t) == all_md5(path)[gt.frame_index(f.pts)]
    with Player(path) as p:
        p.wait_item(timeout=20)
        o = p.seek_and_wait(t, SeekPrecision.exact())
        assert o.landed_stream_pts == f.pts and not o.landed_time < t
