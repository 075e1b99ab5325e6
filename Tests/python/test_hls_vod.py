"""HLS VOD through the library's own playlist handling, against ffprobe: fMP4
segments (EXT-X-MAP init sections) and a single-file playlist (EXT-X-BYTERANGE)."""
from __future__ import annotations

import json
import random
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"


def make(tmp: Path, kind: str) -> Path:
    args = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001", "-t", "8",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "2",
            "-hls_playlist_type", "vod"]
    if kind == "fmp4":
        args += ["-hls_segment_type", "fmp4", "-hls_segment_filename", str(tmp / "s%03d.m4s")]
    else:
        args += ["-hls_flags", "single_file"]
    out = tmp / f"{kind}.m3u8"
    subprocess.run(args + [str(out)], check=True)
    return out


def frames(playlist: Path):
    j = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_frames", "-show_entries",
         "frame=pts,best_effort_timestamp:stream=time_base", "-of", "json", str(playlist)]))
    tb = Fraction(j["streams"][0]["time_base"])
    pts = sorted({int(f.get("pts", f.get("best_effort_timestamp"))) for f in j["frames"]})
    return tb, pts


@pytest.mark.parametrize("kind", ["fmp4", "byterange"])
def test_exact_landings_match_ffprobe(tmp_path: Path, kind: str):
    pl = make(tmp_path, kind)
    text = pl.read_text()
    assert ("#EXT-X-MAP" in text) if kind == "fmp4" else ("#EXT-X-BYTERANGE" in text)
    tb, pts = frames(pl)
    rng = random.Random(kind)
    wrong = []
    for _ in range(25):
        t = Fraction(rng.randrange(0, 7_900_000), 1_000_000)
        p = subprocess.run([str(CLI), "seek", str(pl), f"{t.numerator}/{t.denominator}", "--precision", "exact",
                            "--json"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        j = json.loads(p.stdout)
        # Item time 0 is the first segment's start, i.e. the first frame.
        target = pts[0] + t / tb
        want = max(x for x in pts if x <= target)
        if j["landed_stream_pts"] != want:
            wrong.append((str(t), want, j["landed_stream_pts"]))
    assert not wrong, wrong
