"""Resident memory of the frame helpers for many times (issue 26.7): 10,000 random times on a
20 s 320x180 H.264 file (-g 50 -bf 3, 500 frames: nearly every frame is asked for), each helper
in its own process (Tests/python/framemem.py), whose peak resident memory (VmHWM, reset after
the first frame is decoded) is read from /proc/self/status:

* ``Player.iter_frames_in_time_order`` and ``Player.iter_frames_at`` (the caller's order, a
  window of 64) stay under BOUND above the process's resident memory before the run, whatever
  the number of times; every answer is the exact landing of its time (ffprobe's frame list),
  every 97th has ffmpeg's own pixels (framemd5), the time order is sorted with ties in the
  order given, and the caller's order is the order given;
* ``Player.frames_at``, which returns a list and so holds every distinct frame it answers,
  grows past 3 x BOUND on the same times: the measurement sees frames that are held.

FPX_FRAMES_MEMORY_TARGETS (environment) changes the 10,000 (by hand: 100,000).
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List

import pytest

import framecheck
import groundtruth as gtm

pytest.importorskip("av")

HERE = Path(__file__).resolve().parent
TARGETS = int(os.environ.get("FPX_FRAMES_MEMORY_TARGETS", "10000"))
SAMPLE_EVERY = 97
MiB = 1024
#: Growth of the peak resident memory allowed to the iterators, in kB: the window (64 frames
#: of 320x180, about 140 kB each with the decoder's padding), the reader's cache (8), the
#: decoder's own frames and Python's small objects for 10,000 answers, with room to spare.
BOUND = 24 * MiB


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("framemem") / "f320.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=320x180:rate=25:duration=20", "-c:v", "libx264", "-preset",
                    "veryfast", "-g", "50", "-bf", "3", "-pix_fmt", "yuv420p", str(out)],
                   check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def times(media: Path, tmp_path_factory) -> List[Fraction]:
    end = gtm.load(str(media)).last_time
    rnd = random.Random(267)
    ts = [Fraction(rnd.randint(0, int(end * 1000)), 1000) for _ in range(TARGETS)]
    ts[1::500] = ts[0::500][:len(ts[1::500])]  # ties: the same time twice, in the given order
    return ts


def run(mode: str, media: Path, times: List[Fraction], library: Path, tmp: Path) -> Dict[str, Any]:
    tj = tmp / f"times-{mode}.json"
    tj.write_text(json.dumps([[t.numerator, t.denominator] for t in times]))
    env = {**os.environ, "FASTPIX_SEEK_LIBRARY": str(library)}
    proc = subprocess.run([sys.executable, str(HERE / "framemem.py"), mode, str(media), str(tj),
                           str(SAMPLE_EVERY)], env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    r: Dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    r["growth_kb"] = r["peak_kb"] - r["base_kb"]
    print(f"{mode}: {len(times)} times, {len(set(r['pts']))} distinct frames, resident "
          f"{r['base_kb'] // 1024} MB -> peak {r['peak_kb'] // 1024} MB "
          f"(+{r['growth_kb'] / 1024:.1f} MB)")
    return r


def check_answers(media: Path, times: List[Fraction], r: Dict[str, Any]) -> None:
    gt = gtm.load(str(media))
    md5 = framecheck.md5_by_pts(str(media))
    assert r["answers"] == len(times)
    assert sorted(r["order"]) == list(range(len(times)))  # every time answered once
    wrong = [(i, p) for i, p in zip(r["order"], r["pts"]) if gt.covering(times[i]).pts != p]
    assert not wrong, f"answers that are not the exact landing of their time: {wrong[:10]}"
    assert len(r["samples"]) >= len(times) // SAMPLE_EVERY
    bad = [(i, p) for i, p, m in r["samples"] if md5[p] != m]
    assert not bad, f"frames with other pixels than ffmpeg's: {bad[:10]}"


def test_time_order_iterator_memory_is_bounded(media, times, library, tmp_path):
    r = run("time", media, times, library, tmp_path)
    check_answers(media, times, r)
    order = r["order"]
    assert order == sorted(range(len(times)), key=lambda i: times[i])  # stable: ties as given
    assert r["growth_kb"] < BOUND, r["growth_kb"]


def test_caller_order_iterator_memory_is_bounded(media, times, library, tmp_path):
    r = run("iter", media, times, library, tmp_path)
    check_answers(media, times, r)
    assert r["order"] == list(range(len(times)))
    assert r["growth_kb"] < BOUND, r["growth_kb"]


def test_the_list_holds_every_distinct_frame(media, times, library, tmp_path):
    """frames_at's documented behaviour, and the measurement's sensitivity: the same times
    answered as a list grow the process by the frames it holds."""
    r = run("list", media, times, library, tmp_path)
    check_answers(media, times, r)
    assert r["order"] == list(range(len(times)))
    assert len(set(r["pts"])) > 400
    assert r["growth_kb"] > 3 * BOUND, r["growth_kb"]


def test_iterator_arguments(fixtures_dir, library):
    """window is checked when the iterator is made; times are read lazily, a window at a
    time (an endless generator works); the time-order form reads them all first."""
    sys.path.insert(0, str(HERE.parents[1] / "Bindings" / "python"))
    from itertools import count, islice
    from fastpix_seek import Player
    path = fixtures_dir / "mp4_bframes.mp4"
    with Player(path) as p:
        p.wait_item(timeout=20)
        for bad in (0, -1, True, 2.5):
            with pytest.raises(ValueError):
                p.iter_frames_at([1], window=bad)  # type: ignore[arg-type]
        pulled: List[int] = []

        def endless():
            for k in count():
                pulled.append(k)
                yield Fraction(k % 7, 2)
        got = list(islice(p.iter_frames_at(endless(), window=5), 7))
        assert [g.requested for g in got] == [Fraction(k % 7, 2) for k in range(7)]
        assert len(pulled) == 10  # two windows of 5, no more
        gt = gtm.load(str(path))
        assert all(g.pts == gt.covering(g.requested).pts for g in got)
        assert list(p.iter_frames_at([])) == [] and list(p.iter_frames_in_time_order([])) == []
