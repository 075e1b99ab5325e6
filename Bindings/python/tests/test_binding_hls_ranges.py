"""HLS ranges and the live edge, over a real HTTP server on 127.0.0.1, against ffprobe of the
segment files.

* One rule for ranges: an HLS VOD item's seekable end (and a clamp-to-end target) is its last
  frame, as for a file item (not its last segment's end); its hold_back is 0.
* AT_LIVE_EDGE tells its two causes apart: the next frame is not published yet, or it is
  published but lies past the hold-back edge.
"""
from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import pytest

from fastpix_seek import FrameStepDirection, FrameStepUnavailableReason, Player, SeekPrecision

from groundtruth import frame_pts
from rangeserver import serve

TB = 90000


@pytest.fixture(scope="module")
def segs(tmp_path_factory) -> Tuple[Path, List[str]]:
    """3 s at 25 fps with B-frames (the last frame decoded is not the last presented), 1 s
    MPEG-TS segments, plus the same media as one TS file."""
    d = tmp_path_factory.mktemp("hls_ranges")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25", "-keyint_min", "25",
                    "-sc_threshold", "0", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                    "-hls_segment_filename", str(d / "seg%d.ts"), str(d / "vod.m3u8")], check=True)
    names = [l.strip() for l in (d / "vod.m3u8").read_text().splitlines() if l.strip().endswith(".ts")]
    assert len(names) == 3, names
    return d, names


def test_vod_seekable_end_is_the_last_frame(segs):
    d, names = segs
    first = frame_pts(d / names[0])[0]
    last = frame_pts(d / names[-1])[-1]
    end = Fraction(last - first, TB)
    assert end < 3, "the last frame presents before the last segment's end"
    with serve(d) as base, Player(f"{base}/vod.m3u8") as p:
        p.wait_item(timeout=30)
        start, e = p.seekable_range()
        assert (start, e) == (0, end), (start, e, end)
        w = p.live_seek_window()
        assert not w.is_live and w.end == end and w.hold_back == 0, w
        assert w.duration is not None and w.duration >= end
        for prec in (SeekPrecision.exact(), SeekPrecision.default(), SeekPrecision.nearest_keyframe(Fraction(1, 10))):
            o = p.seek_wait(10, prec, timeout=30)
            assert o.clamp.did_clamp and o.clamp.clamped_to == end, (prec, o.clamp)
            if prec == SeekPrecision.exact():
                assert o.landed_stream_pts == last and o.landed_time == end, o
        # Exactly on the end: no clamp.
        o = p.seek_wait(end, SeekPrecision.exact(), timeout=30)
        assert not o.clamp.did_clamp and o.landed_stream_pts == last, o
        # And the last frame is the last step forward.
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert not r.did_step and r.reason == FrameStepUnavailableReason.CANNOT_STEP_IN_DIRECTION, r


def test_file_item_has_the_same_rule(segs):
    """The same media as one TS file: its seekable end is its last frame too (unchanged)."""
    d, names = segs
    f = d / "whole.ts"
    if not f.exists():
        subprocess.run(["ffmpeg", "-v", "error", "-i", "concat:" + "|".join(str(d / n) for n in names),
                        "-c", "copy", "-f", "mpegts", "-mpegts_copyts", "1", str(f)], check=True)
    pts = frame_pts(f)
    start_time = Fraction(json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-show_entries", "format=start_time", "-of", "json", str(f)]))
        ["format"]["start_time"])
    with Player(f) as p:
        p.wait_item(timeout=30)
        _, e = p.seekable_range()
        o = p.seek_wait(10, SeekPrecision.exact(), timeout=30)
        assert o.landed_stream_pts == pts[-1] and o.clamp.clamped_to == e
        assert abs(e - (Fraction(pts[-1], TB) - start_time)) <= Fraction(1, TB), (e, pts[-1], start_time)


def write_live(d: Path, name: str, names: List[str], hold_back: str) -> Path:
    lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0",
             f"#EXT-X-SERVER-CONTROL:HOLD-BACK={hold_back}"]
    for n in names:
        lines += ["#EXTINF:1.000000,", n]
    (d / name).write_text("\n".join(lines) + "\n")  # no ENDLIST: live
    return d / name


def test_at_live_edge_past_hold_back_is_not_unpublished(segs):
    """HOLD-BACK 1.5 s on 3 s: the edge is 1.5 s; the frame after it is published (ffprobe
    lists it in a segment the playlist names) but past the edge."""
    d, names = segs
    pl = write_live(d, "live_hb.m3u8", names, "1.5")
    first = frame_pts(d / names[0])[0]
    allpts = sorted(x for n in names for x in frame_pts(d / n))
    edge = first + Fraction(3, 2) * TB
    at = max(x for x in allpts if x <= edge)
    nxt = min(x for x in allpts if x > at)
    with serve(d) as base, Player(f"{base}/{pl.name}") as p:
        p.wait_item(timeout=30)
        w = p.live_seek_window()
        assert w.is_live and w.end == Fraction(3, 2) and w.hold_back == Fraction(3, 2), w
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact(), timeout=30)
        assert o.landed_stream_pts == at, (o, at)
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert not r.did_step and r.reason == FrameStepUnavailableReason.AT_LIVE_EDGE, r
        assert nxt > edge  # published, past the edge
        assert "published but lies past the hold-back edge" in r.explanation, r.explanation
        assert "has not been published" not in r.explanation, r.explanation


def test_at_live_edge_unpublished(segs):
    """HOLD-BACK 0: the edge is the newest segment's end; from the last frame the next one is
    in a segment the playlist has not published."""
    d, names = segs
    pl = write_live(d, "live_nohb.m3u8", names, "0")
    last = frame_pts(d / names[-1])[-1]
    with serve(d) as base, Player(f"{base}/{pl.name}") as p:
        p.wait_item(timeout=30)
        o = p.seek_wait(3, SeekPrecision.exact(), timeout=30)
        assert o.landed_stream_pts == last, o
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert not r.did_step and r.reason == FrameStepUnavailableReason.AT_LIVE_EDGE, r
        assert "has not been published" in r.explanation, r.explanation
        assert "hold-back" not in r.explanation, r.explanation


def keyframes_and_frames(d: Path, names: List[str]) -> Tuple[List[int], List[int]]:
    keys, frames = [], []
    for n in names:
        j = json.loads(subprocess.check_output(
            ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,flags",
             "-of", "json", str(d / n)]))
        for p in j["packets"]:
            frames.append(int(p["pts"]))
            if "K" in p["flags"]:
                keys.append(int(p["pts"]))
    return sorted(keys), sorted(frames)


def test_keyframe_seeks_across_segment_boundaries(segs):
    """Nearest-keyframe seeks whose window spans two segments land as a brute-force oracle over
    ffprobe's keyframes says: the nearer keyframe inside the window, ties to the earlier, else
    the covering frame (the core's SegmentLanding and LandingRules, through the HLS engine)."""
    d, names = segs
    keys, frames = keyframes_and_frames(d, names)
    first = frames[0]
    assert len([k for k in keys if k > first]) >= 2  # a keyframe at each segment start
    rng = __import__("random").Random(5)
    cases = [(Fraction(1, 2), Fraction(1, 2)), (Fraction(52, 100), Fraction(1, 2)),
             (Fraction(9, 10), Fraction(1, 2)), (Fraction(3, 2), Fraction(1, 2)),
             (Fraction(3, 2) + Fraction(1, TB), Fraction(1, 2)), (Fraction(8, 10), Fraction(1, 10)),
             (Fraction(9, 10), Fraction(1, 10)), (Fraction(19, 10), Fraction(1, 10)), (Fraction(1), Fraction(0))]
    cases += [(Fraction(rng.randrange(0, 2900), 1000), Fraction(rng.choice([50, 100, 300, 500]), 1000))
              for _ in range(20)]
    wrong = []
    with serve(d) as base, Player(f"{base}/vod.m3u8") as p:
        p.wait_item(timeout=30)
        for t, tol in cases:
            target = first + t * TB
            inside = [k for k in keys if target - tol * TB <= k <= target + tol * TB]
            if inside:
                want = min(inside, key=lambda k: (abs(k - target), k))
            else:
                want = max(f for f in frames if f <= target)
            o = p.seek_wait(t, SeekPrecision.nearest_keyframe(tol), timeout=30)
            if o.landed_stream_pts != want:
                wrong.append((str(t), str(tol), want, o.landed_stream_pts))
    assert not wrong, wrong
