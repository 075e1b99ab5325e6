"""Floats and numpy scalars as times (issue 29.2-3): the float of a frame's own time lands on
that frame, on every frame of a 30000/1001 MP4 and on the MKV (1/1000), MPEG-TS (1/90000) and
1/12288 time bases; numpy float64/float32/int64 scalars are accepted wherever a time is.

Ground truth: every decoded frame's pts from `ffprobe -show_frames` (groundtruth.py); the
float is computed from that pts the way other libraries hand frame times out
(`float(pts * time_base)` on the item timeline), never from the library."""
from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

from sharedfixtures import REPO
import groundtruth as gtm

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402
from fastpix_seek.types import float_to_fraction, to_fraction  # noqa: E402

FILES = ["mp4_bframes.mp4", "mkv.mkv", "ts.ts", "mp4_tb12288.mp4"]


@pytest.mark.parametrize("name", FILES)
def test_the_float_of_every_frames_time_lands_on_that_frame(fixtures_dir: Path, name: str) -> None:
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    early, wrong = 0, []
    with Player(str(path)) as p:
        for f in gt.frames:
            t = float(gt.to_item(f.pts))
            o = p.seek_and_wait(t, SeekPrecision.exact())
            if o.landed_stream_pts != f.pts:
                wrong.append((t, f.pts, o.landed_stream_pts))
                early += o.landed_stream_pts < f.pts
    assert not wrong, f"{len(wrong)} of {len(gt.frames)} frames missed ({early} early): {wrong[:5]}"
    assert len(gt.frames) > 250


def test_the_float_of_every_frames_time_is_that_time_exactly(fixtures_dir: Path) -> None:
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    assert gt.time_base == Fraction(1, 30000) or gt.time_base.denominator % 30000 == 0
    for f in gt.frames:
        exact = gt.to_item(f.pts)
        assert float_to_fraction(float(exact)) == exact


def test_typed_decimals_keep_their_meaning() -> None:
    assert to_fraction(0.1) == Fraction(1, 10)
    assert to_fraction(12.34) == Fraction(617, 50)
    assert to_fraction(-2.5) == Fraction(-5, 2)
    assert to_fraction(0.0) == 0
    for x in (0.1, 1 / 3, 2 / 3, 1e10 / 3, 123.456, 0.3, 7.0, 5e-324, 1.7976931348623157e308):
        assert float(to_fraction(x)) == x  # always a number that rounds back to the float


def test_numpy_scalars_are_times(fixtures_dir: Path) -> None:
    np = pytest.importorskip("numpy")
    assert to_fraction(np.float64(1.5)) == Fraction(3, 2)
    assert to_fraction(np.float32(0.1)) == Fraction(1, 10)  # float32's own precision
    assert to_fraction(np.int64(3)) == 3
    with pytest.raises(ValueError):
        to_fraction(np.float64("nan"))
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    times = np.linspace(0.0, float(gt.last_time), 7)
    with Player(str(path)) as p:
        for t in times:
            o = p.seek_and_wait(t, SeekPrecision.exact())
            assert o.landed_stream_pts == gt.covering(to_fraction(t)).pts
        o = p.seek_and_wait(np.float64(gt.to_item(gt.frames[100].pts)), SeekPrecision.exact())
        assert o.landed_stream_pts == gt.frames[100].pts
