"""Nearest-keyframe seeks from the container's keyframe index (mov sample table, Matroska
cues) read O(1) packets, cold, and land where ffprobe says.

Each target runs in its own process, so nothing is known before the seek but what the
library learned while opening the item. Tests/c/landings.c is the host.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm

INDEXED = ["mp4_bframes.mp4", "mp4_opengop.mp4", "mp4_editlist.mp4", "mp4_tb12288.mp4", "mkv.mkv",
           "mp4_vfr.mp4"]
# Learning the pts of the keyframes either side of the target (a seek and the packets
# interleaved before each), then the frames up to the target: far below a GOP (48 frames).
MAX_PACKETS = 16


def rat(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


@pytest.mark.parametrize("name", INDEXED)
def test_cold_keyframe_seek_reads_few_packets(fixtures_dir: Path, run_landings, name: str):
    gt = gtm.load(str(fixtures_dir / name))
    tol = Fraction(1, 10)
    kf = [k for k in gt.keyframes if gt.to_item(k.pts) > gt.first_time]
    assert len(kf) >= 3
    problems = []
    # A keyframe exactly at the window's edges, just before/after the target, and the
    # midpoint between a keyframe and its next frame.
    for j, k in enumerate(kf[:6]):
        kt = gt.to_item(k.pts)
        for t in (kt + tol, kt - tol, kt + Fraction(1, 1000), kt - Fraction(1, 1000)):
            res = run_landings(fixtures_dir / name, "default", [rat(t)])
            assert res.returncode == 0 and len(res.seeks) == 1, res.describe()
            o = res.seeks[0]
            want = gt.nearest_keyframe(gt.clamp(t)[1], tol)
            assert want is not None
            if o["landed_stream_pts"] != want.pts:
                problems.append(f"{name} target {t}: landed {o['landed_stream_pts']}, want {want.pts}")
            if o["resolution"] != "FPX_LANDING_KEYFRAME":
                problems.append(f"{name} target {t}: resolution {o['resolution']}")
            covering = gt.covering(gt.clamp(t)[1])
            if bool(o["frame_covers_target"]) != (covering.pts == want.pts):
                problems.append(f"{name} target {t}: frame_covers_target {o['frame_covers_target']}")
            if o["packets_read"] > MAX_PACKETS:
                problems.append(f"{name} target {t}: {o['packets_read']} packets read (max {MAX_PACKETS})")
    assert not problems, "\n".join(problems)


def test_matroska_without_cues_is_not_trusted(tmp_path: Path, run_landings):
    """A Matroska file written to a pipe has no cues: libavformat's index then holds only the
    keyframes read so far (both ends, after measuring the seekable range), with a hole between.
    Keyframe seeks into the hole must still land on ffprobe's nearest keyframe."""
    import subprocess
    out = tmp_path / "nocues.mkv"
    with open(out, "wb") as fh:
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                        "testsrc2=size=160x120:rate=30:duration=60", "-c:v", "libx264", "-preset",
                        "ultrafast", "-bf", "2", "-g", "250", "-keyint_min", "250", "-sc_threshold", "0",
                        "-f", "matroska", "-"], stdout=fh, check=True)
    gt = gtm.load(str(out))
    kf = gt.keyframes
    assert len(kf) >= 7
    problems = []
    for tol in (Fraction(1, 10), Fraction(5)):
        targets = []
        for k in kf:
            kt = gt.to_item(k.pts)
            targets += [kt, kt + tol, kt - tol, kt + Fraction(1, 3)]
        res = run_landings(out, f"keyframe:{tol.numerator}/{tol.denominator}", [rat(t) for t in targets])
        assert res.returncode == 0 and len(res.seeks) == len(targets), res.describe()
        for t, o in zip(targets, res.seeks):
            ct = gt.clamp(t)[1]
            k = gt.nearest_keyframe(ct, tol)
            want = k.pts if k is not None else gt.covering(ct).pts
            if o["landed_stream_pts"] != want:
                problems.append(f"tolerance {tol}, target {t}: landed {o['landed_stream_pts']}, want {want}")
    assert not problems, "\n".join(problems)
