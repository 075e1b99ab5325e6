"""Cold seeks on MPEG-TS read about one GOP.

MPEG-TS timestamp seeks resync near the target's dts, mid-GOP, past the keyframe the
target needs. The resolver then steps back by bytes from where the seek landed (the
file's bytes per second), each retry reading only up to where the previous one started,
instead of backing off in time (1 s, doubling), where every miss reads on to the next
keyframe, past the target: that cost 2-3 GOPs per cold seek.

Each target runs in its own process (Tests/c/landings.c), so every seek is cold. Landings
are checked against ffprobe; the packet count against the file's packets per GOP.
"""
from __future__ import annotations

import random
import statistics
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm

GOP = 125  # 5 s at 25 fps


@pytest.fixture(scope="module")
def long_gop_ts(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tscold") / "gop125.ts"
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3",
                    "-g", str(GOP), "-keyint_min", str(GOP), "-sc_threshold", "0", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-b:a", "64k", "-f", "mpegts", str(out)], check=True)
    return out


def rat(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


@pytest.mark.parametrize("precision", ["exact", "keyframe"])
def test_cold_ts_seek_reads_about_one_gop(long_gop_ts: Path, run_landings, precision: str):
    gt = gtm.load(str(long_gop_ts))
    keys = [f for f in gt.frames if f.key]
    assert len(keys) >= 10
    # Packets of all streams per GOP: what reading one GOP demuxes.
    all_packets = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=stream_index", "-of", "csv=p=0",
                                  str(long_gop_ts)], capture_output=True, text=True, check=True).stdout.split()
    per_gop = len(all_packets) / len(keys)
    rng = random.Random(11)
    lo, hi = gt.to_item(keys[1].pts), gt.last_time
    targets = [lo + (hi - lo) * Fraction(rng.randrange(10_000), 10_000) for _ in range(24)]
    reads, problems = [], []
    for t in targets:
        # keyframe: a 3 s tolerance, more than half a GOP, so a keyframe is always in the window.
        res = run_landings(long_gop_ts, "exact" if precision == "exact" else "keyframe:3/1", [rat(t)])
        assert res.returncode == 0 and len(res.seeks) == 1, res.describe()
        o = res.seeks[0]
        if precision == "exact":
            want = gt.covering(gt.clamp(t)[1]).pts
        else:
            w = gt.nearest_keyframe(gt.clamp(t)[1], Fraction(3))
            # None in the last GOP's far half: the covering frame.
            want = w.pts if w is not None else gt.covering(gt.clamp(t)[1]).pts
        if o["landed_stream_pts"] != want:
            problems.append(f"target {t}: landed {o['landed_stream_pts']}, want {want}")
        reads.append(o["packets_read"])
    assert not problems, "\n".join(problems)
    median = statistics.median(reads)
    # The keyframe the target needs is on average half a GOP before it; stepping back by
    # bytes reads about one GOP. Time backoff read 2-3.
    print(f"{precision}: median {median} packets per cold seek, {per_gop:.0f} per GOP: {sorted(reads)}")
    assert median <= 1.5 * per_gop, f"median {median} packets per cold seek, {per_gop:.0f} per GOP: {sorted(reads)}"


@pytest.fixture(scope="module", params=["irregular_h264", "mpeg2_opengop_offset"])
def odd_ts(request, tmp_path_factory) -> Path:
    """TS whose keyframes a fixed interval does not predict: forced at irregular times
    (H.264 with B-frames and AAC), or MPEG-2 open GOPs (leading B-frames decode after
    their keyframe) with a 10 s timestamp offset."""
    out = tmp_path_factory.mktemp("tsodd") / f"{request.param}.ts"
    base = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "40"]
    if request.param == "irregular_h264":
        times = "0,1.3,5.2,6,11.72,12.08,19.4,26.6,27,33.3,38.12"
        codec = ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "1000", "-sc_threshold", "0",
                 "-force_key_frames", times, "-pix_fmt", "yuv420p"]
    else:
        codec = ["-c:v", "mpeg2video", "-g", "45", "-bf", "2", "-b:v", "400k", "-output_ts_offset", "10"]
    subprocess.run(base + codec + ["-c:a", "aac", "-b:a", "64k", "-f", "mpegts", str(out)], check=True)
    return out


@pytest.mark.parametrize("precision", ["exact", "keyframe"])
def test_cold_ts_seeks_land_right_on_irregular_and_open_gops(odd_ts: Path, run_landings, precision: str):
    gt = gtm.load(str(odd_ts))
    keys = [f for f in gt.frames if f.key]
    assert len(keys) >= 5
    rng = random.Random(5)
    lo, hi = gt.first_time, gt.last_time
    # Random targets, and each keyframe's own time, the frame before it and just after.
    targets = [lo + (hi - lo) * Fraction(rng.randrange(10_000), 10_000) for _ in range(12)]
    for k in keys[1:8]:
        kt = gt.to_item(k.pts)
        targets += [kt, kt - Fraction(1, 1000), kt + Fraction(1, 1000)]
    prec = "exact" if precision == "exact" else "keyframe:3/1"

    def want(t: Fraction) -> int:
        if precision == "exact":
            return gt.covering(gt.clamp(t)[1]).pts
        w = gt.nearest_keyframe(gt.clamp(t)[1], Fraction(3))
        return w.pts if w is not None else gt.covering(gt.clamp(t)[1]).pts

    problems = []
    # Each target cold in its own process, then all in one player (later scans step back
    # by what the grid learned: keyframe offsets, an interval these files do not keep).
    for t in targets:
        res = run_landings(odd_ts, prec, [rat(t)])
        assert res.returncode == 0 and len(res.seeks) == 1, res.describe()
        if res.seeks[0]["landed_stream_pts"] != want(t):
            problems.append(f"{odd_ts.name} target {t}: landed {res.seeks[0]['landed_stream_pts']}, want {want(t)}")
    res = run_landings(odd_ts, prec, [rat(t) for t in targets])
    assert res.returncode == 0 and len(res.seeks) == len(targets), res.describe()
    for t, o in zip(targets, res.seeks):
        if o["landed_stream_pts"] != want(t):
            problems.append(f"{odd_ts.name} one player, target {t}: landed {o['landed_stream_pts']}, want {want(t)}")
    assert not problems, "\n".join(problems)
