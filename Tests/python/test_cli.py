"""fpx-seek, every subcommand on generated media, JSON parsed and checked against
ffprobe ground truth, and bad arguments."""
from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"


def run(*args, input=None, timeout=120):
    assert CLI.is_file(), f"{CLI} missing: run `make` first"
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, input=input, timeout=timeout)


def frac(t) -> Fraction:
    return Fraction(t["value"], t["timescale"])


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv", "audio.m4a"])
def test_probe_json(fixtures_dir: Path, name):
    gt = gtm.load(str(fixtures_dir / name))
    p = run("probe", fixtures_dir / name, "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["frames"] == len(gt.frames)
    assert j["keyframes"] == len([f for f in gt.frames if f.key])
    assert j["start_pts"] == gt.origin_ticks
    assert frac(j["seekable_range"]["start"]) == gt.to_item(gt.frames[0].pts)
    assert frac(j["seekable_range"]["end"]) == gt.to_item(gt.frames[-1].pts)


def test_probe_human(fixtures_dir: Path):
    p = run("probe", fixtures_dir / "mp4_bframes.mp4")
    assert p.returncode == 0 and "keyframes" in p.stdout and "h264" in p.stdout


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv"])
@pytest.mark.parametrize("time", ["2.5", "1001/30000", "7"])
def test_seek_json_exact(fixtures_dir: Path, name, time):
    gt = gtm.load(str(fixtures_dir / name))
    p = run("seek", fixtures_dir / name, time, "--precision", "exact", "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    target = Fraction(time)
    _, ct = gt.clamp(target)
    assert j["landed_stream_pts"] == gt.covering(ct).pts
    assert frac(j["requested"]) == target
    assert frac(j["delta"]) == frac(j["landed"]) - target
    assert j["finished"] is True and j["frame_covers_target"] is True


def test_seek_keyframe_and_clamp(fixtures_dir: Path):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    p = run("seek", fixtures_dir / "mp4_bframes.mp4", "-5", "--precision", "keyframe:0.5", "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["clamp"]["kind"] == 1 and j["clamp"]["did_clamp"] is True
    assert j["landed_stream_pts"] == gt.frames[0].pts
    assert frac(j["delta"]) == Fraction(5)
    human = run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--precision", "keyframe:0.5")
    assert human.returncode == 0 and "verdict" in human.stdout


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts"])
def test_step_json(fixtures_dir: Path, name):
    gt = gtm.load(str(fixtures_dir / name))
    pts = gt.pts_list()
    p = run("step", fixtures_dir / name, "--from", "2", "--times", "5", "--count", "2", "--json")
    assert p.returncode == 0, p.stderr
    steps = json.loads(p.stdout)
    start = gt.covering(Fraction(2)).pts
    i = pts.index(start)
    assert [s["stream_pts"] for s in steps] == pts[i + 2:i + 12:2]
    back = json.loads(run("step", fixtures_dir / name, "--times", "1", "--backward", "--json").stdout)
    assert back == [{"did_step": False, "direction": "backward", "reason": 5, "explanation": back[0]["explanation"]}]


def test_step_audio_refuses(fixtures_dir: Path):
    j = json.loads(run("step", fixtures_dir / "audio.m4a", "--json").stdout)
    assert j[0]["did_step"] is False and j[0]["reason"] == 3


def test_scrub_coalesces(fixtures_dir: Path, tmp_path: Path):
    gt = gtm.load(str(fixtures_dir / "mkv.mkv"))
    samples = "".join(f"{i / 100}\n" for i in range(1, 501))
    p = run("scrub", fixtures_dir / "mkv.mkv", "-", "--precision", "exact", "--json", input=samples)
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["samples"] == 500 and j["seeks_issued"] == 1 and j["was_cancelled"] is False
    assert j["states"] == ["scrubbing", "settling", "idle"]
    assert j["positions"][-1]["sample_count"] == 500
    assert frac(j["positions"][-1]["time"]) == Fraction(5)
    assert j["outcome"]["landed_stream_pts"] == gt.covering(Fraction(5)).pts


def test_report_json_and_svg(fixtures_dir: Path, tmp_path: Path):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    svg = tmp_path / "r.svg"
    p = run("report", fixtures_dir / "mp4_bframes.mp4", "--targets", "30", "--json", "--svg", svg)
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["frames"] == len(gt.frames) and j["keyframes"] == len([f for f in gt.frames if f.key])
    rows = {r["precision"]: r for r in j["precisions"]}
    assert set(rows) == {"exact", "default", "keyframe:0.5", "keyframe:2"}
    assert all(r["landed"] == 30 for r in rows.values())
    assert rows["keyframe:2"]["within_tolerance"] == 30  # GOP 1.6 s: a keyframe is always within 2 s
    assert rows["exact"]["cost_packets"]["max"] >= rows["keyframe:2"]["cost_packets"]["max"]
    assert len(j["worst_spots"]) == 5
    text = svg.read_text()
    assert text.startswith("<svg") and text.count("<rect") >= len([f for f in gt.frames if f.key])
    human = run("report", fixtures_dir / "mp4_bframes.mp4", "--targets", "10")
    assert human.returncode == 0 and "worst spots" in human.stdout


@pytest.mark.parametrize("args,needle", [
    ([], "usage"),
    (["bogus"], "unknown command"),
    (["seek"], "needs"),
    (["seek", "x.mp4"], "needs"),
    (["seek", "x.mp4", "abc"], "TIME"),
    (["seek", "x.mp4", "1", "--precision", "keyframe:-1"], "--precision"),
    (["seek", "x.mp4", "1", "--frobnicate"], "unknown option"),
    (["step", "x.mp4", "--count", "0"], "--count"),
    (["report", "x.mp4", "--targets", "0"], "--targets"),
    (["scrub", "x.mp4"], "needs"),
])
def test_bad_arguments_exit_2_with_one_line(args, needle):
    p = run(*args)
    assert p.returncode == 2
    assert needle in p.stderr
    if args:
        assert p.stderr.count("\n") == 1, p.stderr


def test_missing_file_exits_1():
    p = run("seek", "/nonexistent/x.mp4", "1")
    assert p.returncode == 1 and "FPX_ERROR_NOT_FOUND" in p.stderr


@pytest.mark.parametrize("cmd", ["probe", "seek", "step", "scrub", "report", "live"])
def test_every_subcommand_has_help(cmd):
    p = run(cmd, "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: fpx-seek " + cmd)


@pytest.fixture(scope="module")
def vod_hls(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("vodhls")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-t", "6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_flags", "program_date_time",
                    "-hls_segment_filename", str(d / "s%03d.ts"), str(d / "vod.m3u8")], check=True)
    return d / "vod.m3u8"


def test_live_window_edge_and_date_on_a_vod_playlist(vod_hls: Path):
    w = json.loads(run("live", vod_hls, "window", "--json").stdout)
    assert w["is_live"] is False and w["is_date_addressable"] is True
    assert frac(w["start"]) == 0 and frac(w["end"]) == 6  # six 1 s segments
    pdt = [l for l in vod_hls.read_text().splitlines() if l.startswith("#EXT-X-PROGRAM-DATE-TIME")]
    assert len(pdt) >= 1 and w["start_date_us"] is not None
    inside = (w["start_date_us"] + 2_500_000) / 1e6
    p = run("live", vod_hls, "date", f"{inside:.6f}", "--precision", "exact", "--json")
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["seeked"] is True
    # 2.5 s after the first segment's date is 2.5 s into the item: frame 75 at 30 fps.
    assert frac(j["outcome"]["landed"]) == Fraction(75, 30)
    before = (w["start_date_us"] - 10_000_000) / 1e6
    p = run("live", vod_hls, "date", f"{before:.6f}", "--json")
    assert p.returncode == 1
    r = json.loads(p.stdout)
    assert r["seeked"] is False and r["reason"] == 3
    assert r["window_start_date_us"] == w["start_date_us"]
    e = json.loads(run("live", vod_hls, "edge", "--json").stdout)
    assert e["finished"] is True and frac(e["landed"]) == Fraction(179, 30)  # the last frame


def test_live_bad_arguments(vod_hls: Path):
    assert run("live").returncode == 2
    assert run("live", vod_hls, "frobnicate").returncode == 2
    assert run("live", vod_hls, "date").returncode == 2
