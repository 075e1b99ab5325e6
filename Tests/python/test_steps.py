"""Frame stepping from C (Tests/c/steps.c) against ffprobe -show_frames, and the
packet-count bounds of the frame-grid cache."""
from __future__ import annotations

import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
from sharedfixtures import REPO, compile_host
VIDEO = ["mp4_bframes.mp4", "mp4_opengop.mp4", "mp4_vfr.mp4", "mkv.mkv", "ts.ts", "mp4_editlist.mp4", "fmp4.mp4"]


@pytest.fixture(scope="session")
def steps_bin(library: Path, tmp_path_factory) -> Path:
    return compile_host(REPO / "Tests" / "c" / "steps.c", library, tmp_path_factory.mktemp("steps") / "steps")


def run_steps(steps_bin: Path, library: Path, *args: str):
    p = subprocess.run([str(steps_bin), *args], capture_output=True, text=True, timeout=300,
                       env={"LD_LIBRARY_PATH": str(library.parent)})
    assert p.returncode == 0, f"steps {args} exited {p.returncode}: {p.stderr}"
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("name", VIDEO)
def test_forward_visits_every_frame_in_order(fixtures_dir, steps_bin, library, name):
    gt = gtm.load(str(fixtures_dir / name))
    lines = run_steps(steps_bin, library, str(fixtures_dir / name), "forward", "1")
    got = [l["pts"] for l in lines if l["did_step"]]
    assert got == gt.pts_list()[1:], f"{name}: first mismatch at step {next((i for i, (a, b) in enumerate(zip(got, gt.pts_list()[1:])) if a != b), len(got))}"
    last = lines[-1]
    assert not last["did_step"] and last["reason"] == 5 and last["direction"] == 0, last


@pytest.mark.parametrize("name", VIDEO)
def test_backward_visits_every_frame_in_reverse(fixtures_dir, steps_bin, library, name):
    gt = gtm.load(str(fixtures_dir / name))
    lines = run_steps(steps_bin, library, str(fixtures_dir / name), "backward", "1")
    got = [l["pts"] for l in lines if l["did_step"]]
    assert got == list(reversed(gt.pts_list()[:-1])), name
    last = lines[-1]
    assert not last["did_step"] and last["reason"] == 5 and last["direction"] == 1, last


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv"])
@pytest.mark.parametrize("n", [3, 7])
def test_count_greater_than_one(fixtures_dir, steps_bin, library, name, n):
    gt = gtm.load(str(fixtures_dir / name))
    lines = run_steps(steps_bin, library, str(fixtures_dir / name), "forward", str(n))
    got = [l["pts"] for l in lines if l["did_step"]]
    assert got == gt.pts_list()[n::n]
    # The refusal comes when fewer than n frames remain, and the playhead stays put.
    assert not lines[-1]["did_step"] and lines[-1]["reason"] == 5


def test_audio_only_refuses_with_no_video_track(fixtures_dir, steps_bin, library):
    lines = run_steps(steps_bin, library, str(fixtures_dir / "audio.m4a"), "forward", "1")
    assert len(lines) == 1 and not lines[0]["did_step"] and lines[0]["reason"] == 3
    assert "permanent" in lines[0]["explanation"]


@pytest.fixture(scope="module")
def long_gop(tmp_path_factory) -> Path:
    """A 29.97 fps H.264 with B-frames and a fixed GOP of 150 frames."""
    out = tmp_path_factory.mktemp("longgop") / "gop150.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001",
                    "-t", "20", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "150",
                    "-keyint_min", "150", "-sc_threshold", "0", "-pix_fmt", "yuv420p", str(out)], check=True)
    return out


def test_backward_through_a_gop_demuxes_at_most_2n_packets(long_gop, steps_bin, library):
    gt = gtm.load(str(long_gop))
    keys = [f.pts for f in gt.frames if f.key]
    assert len(keys) >= 3
    k2, k3 = keys[1], keys[2]
    gop = [p for p in gt.pts_list() if k2 <= p < k3]
    n = len(gop)
    assert n >= 120
    # Land on the frame just before the third keyframe, then step back through the GOP.
    start = gt.to_item(gop[-1])
    lines = run_steps(steps_bin, library, str(long_gop), "gop", f"{start.numerator}/{start.denominator}", str(n - 1))
    got = [l["pts"] for l in lines if "pts" in l and l["did_step"]]
    assert got == list(reversed(gop[:-1]))
    total = lines[-1]["total_packets"]
    assert total <= 2 * n, f"{total} packets to step back through a GOP of {n} (naive re-seeking: ~{n * n // 2})"


def test_forward_steps_demux_about_one_packet_each(long_gop, steps_bin, library):
    gt = gtm.load(str(long_gop))
    lines = run_steps(steps_bin, library, str(long_gop), "forward", "1")
    got = [l["pts"] for l in lines if l["did_step"]]
    assert got == gt.pts_list()[1:]
    per_step = [l["packets"] for l in lines if l["did_step"]]
    # After the first scan, each step reads at most the reorder delay + 1 packets.
    assert max(per_step[1:]) <= 4, max(per_step[1:])
    assert sum(per_step[1:]) <= len(per_step[1:]) + 16


# ---- MPEG-TS: backward steps enter each GOP by byte offset, reading it about once ----------

def _packet_count(path: Path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets",
                          "-of", "json", str(path)], check=True, capture_output=True, text=True).stdout
    return sum(int(s["nb_read_packets"]) for s in json.loads(out)["streams"])


@pytest.fixture(scope="module")
def ts_walks(tmp_path_factory) -> dict:
    """An MPEG-2 TS with 15-frame GOPs (2 B-frames) and an H.264 (3 B-frames, GOP 48) + AAC TS."""
    d = tmp_path_factory.mktemp("tswalk")
    m2, avc = d / "mpeg2_gop15.ts", d / "h264_aac.ts"
    ff = ["ffmpeg", "-v", "error", "-nostdin", "-y"]
    subprocess.run(ff + ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=12", "-c:v", "mpeg2video",
                         "-g", "15", "-bf", "2", "-q:v", "5", str(m2)], check=True)
    subprocess.run(ff + ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30000/1001:duration=12",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=12",
                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "48", "-keyint_min", "48",
                         "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-threads", "1", "-c:a", "aac", "-b:a", "64k",
                         str(avc)], check=True)
    return {"mpeg2": m2, "h264_aac": avc}


@pytest.mark.parametrize("kind", ["mpeg2", "h264_aac"])
def test_ts_backward_walk_reads_each_gop_about_once(ts_walks, steps_bin, library, kind):
    path = ts_walks[kind]
    gt = gtm.load(str(path))
    lines = run_steps(steps_bin, library, str(path), "backward", "1")
    stepped = [l for l in lines if l["did_step"]]
    # Every landing is ffprobe's frame, in reverse, down to the first frame.
    assert [l["pts"] for l in stepped] == list(reversed(gt.pts_list()[:-1])), kind
    assert not lines[-1]["did_step"] and lines[-1]["reason"] == 5
    # The whole walk (from the landing on the last frame) demuxes at most ~1.5x the file's packets;
    # the bound is 2x (re-reading 2-3 GOPs per GOP entered, as timestamp seeks did, is ~2.6x).
    file_packets = _packet_count(path)
    walk = lines[-1]["demuxed"] - (lines[0]["demuxed"] - lines[0]["packets"])
    assert walk <= 2 * file_packets, f"{kind}: {walk} packets demuxed for a {file_packets}-packet file"
    # Each step reports what it demuxed: the packets_read sum is the walk.
    assert sum(l["packets"] for l in lines) == walk
    # Entering a GOP costs about one GOP of packets (the median entry; the first entry from the
    # end has no byte estimate yet).
    gop_frames = len(gt.pts_list()) / sum(1 for f in gt.frames if f.key)
    entries = sorted(l["packets"] for l in stepped if l["packets"] > 0)
    per_video_frame = file_packets / len(gt.pts_list())
    assert entries[len(entries) // 2] <= 2 * gop_frames * per_video_frame, (kind, entries)


# ---- Steps with no landing: refused without reading where the range proves it -----------

def _huge(steps_bin, library, path, direction, start, count=None):
    args = ["huge", direction, f"{start.numerator}/{start.denominator}"] + ([str(count)] if count else [])
    before, step = run_steps(steps_bin, library, str(path), *args)
    assert not step["did_step"] and step["reason"] == 5 and step["direction"] == (0 if direction == "forward" else 1)
    return step["demuxed"] - before["demuxed_before"], step["packets"]


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv", "fmp4.mp4"])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_int_max_step_is_refused_without_demuxing(fixtures_dir, steps_bin, library, name, direction):
    # INT_MAX frames cannot fit between the playhead and either end of the seekable range: the
    # range proves the refusal (it used to demux to the end or the start).
    demuxed, reported = _huge(steps_bin, library, fixtures_dir / name, direction, Fraction(6))
    assert demuxed == 0 and reported == 0, (name, demuxed, reported)


@pytest.mark.parametrize("name", ["ts.ts", "mkv.mkv"])
@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_refused_step_reports_the_packets_it_demuxed(fixtures_dir, steps_bin, library, name, direction):
    # One frame more than there are that way: only reading to the end (or the start) proves it.
    gt = gtm.load(str(fixtures_dir / name))
    start = Fraction(6)
    i = gt.frame_index(gt.covering(start).pts)
    count = (len(gt.pts_list()) - 1 - i if direction == "forward" else i) + 1
    demuxed, reported = _huge(steps_bin, library, fixtures_dir / name, direction, start, count)
    assert demuxed > 0 and reported == demuxed, (name, demuxed, reported)


def test_container_frame_count_proves_a_refusal(fixtures_dir, steps_bin, library):
    # mov lists every sample: a step of as many frames as the stream has is refused unread.
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    demuxed, reported = _huge(steps_bin, library, fixtures_dir / "mp4_bframes.mp4", "forward", Fraction(6),
                              len(gt.pts_list()))
    assert demuxed == 0 and reported == 0


# ---- Long steps: more frames than the packet window holds ------------------------------

@pytest.fixture(scope="module")
def long_ts(tmp_path_factory) -> Path:
    """200 s of 25 fps H.264 (GOP 250, B-frames) in MPEG-TS: 5000 frames, more than the
    4096-packet window."""
    out = tmp_path_factory.mktemp("longts") / "long.ts"
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=96x64:rate=25:duration=200", "-c:v", "libx264", "-preset", "ultrafast",
                    "-bf", "3", "-g", "250", "-keyint_min", "250", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
                    "-threads", "1", str(out)], check=True)
    return out


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_a_step_longer_than_the_window_lands(long_ts, steps_bin, library, direction):
    # Stepping 4500 frames used to lose the window's contiguity at 4096 packets and re-scan from
    # the playhead for every packet: 1,000,000 packets, then a wrong refusal.
    gt = gtm.load(str(long_ts))
    pts = gt.pts_list()
    assert len(pts) == 5000
    n = 4500
    if direction == "forward":
        start, want = Fraction(0), pts[n]
    else:
        start, want = gt.to_item(pts[-1]), pts[-1 - n]
    before, step = run_steps(steps_bin, library, str(long_ts), "huge", direction,
                             f"{start.numerator}/{start.denominator}", str(n))
    assert step["did_step"] and step["pts"] == want, step
    demuxed = step["demuxed"] - before["demuxed_before"]
    assert step["packets"] == demuxed
    assert demuxed <= 2 * n, demuxed


def test_a_long_refused_step_reads_to_the_end_once(long_ts, steps_bin, library):
    gt = gtm.load(str(long_ts))
    before, step = run_steps(steps_bin, library, str(long_ts), "huge", "forward", "0/1", str(len(gt.pts_list())))
    assert not step["did_step"] and step["reason"] == 5
    demuxed = step["demuxed"] - before["demuxed_before"]
    assert step["packets"] == demuxed and demuxed <= len(gt.pts_list()) + 16, demuxed
