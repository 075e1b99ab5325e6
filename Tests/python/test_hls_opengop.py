"""Open GOP across HLS segment ends (issue 28.2), on streams as packagers publish them.

An open GOP's I frame (x264 `open-gop`, x265's default CRA) has leading frames: they follow it
in decode order, so a packager that cuts segments at keyframes puts them in the I frame's
segment, but they present before it and reference the previous segment's last GOP. Sources:
H.264 (x264 open-gop) and HEVC (x265 open GOP), 10 s at 25 fps, a keyframe every 2 s, cut into
2 s segments by ffmpeg's hls muxer (TS) and by Shaka Packager (TS and fMP4), served over HTTP on
127.0.0.1 by a server that honours Range. For every stream the premise is checked first
(ffprobe of each segment, with its init section: frames that present before the segment's
first keyframe).

Ground truth is the source file: ffprobe's frames and keyframes, ffmpeg's decoded pictures
(framemd5). Around every open-GOP keyframe (4 frames before it to 2 after):

* exact seeks land on the frame shown at the target, the packets delivered decode to that
  frame's picture (PyAV), every reference packet presenting before it is DECODE_ONLY and the
  landed one is not;
* at-or-after seeks between two frames land on the later one, and its packets produce it;
* nearest-keyframe seeks (tolerance 1 s and 0.3 s) land on the nearest keyframe inside the
  tolerance (ties to the earlier), else on the frame shown at the target, and the packets
  produce that frame;
* frame steps walk one frame at a time across each segment end, forward and backward, and
  each step's packets produce its frame; and walk the whole stream both ways, refused past its
  ends.

Before 0.4.x the leading frames could not be decoded (the packets started at the next
segment's I frame), nearest-keyframe seeks took a leading frame for the next segment's first
keyframe, and a forward step from a leading frame skipped a whole segment.

Not here: ffmpeg's fMP4 HLS muxer (FFmpeg 5.1) writes each fragment's first sample, the open-GOP
I frame, one frame early, on its first leading frame's presentation time (ffprobe of the
playlist shows two frames at one pts), so that stream has no well-defined frame at that time;
Shaka Packager's TS muxer has no HEVC; GStreamer's hlssink2 is not among the test packages.
"""
from __future__ import annotations

import bisect
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import List

import pytest

from sharedfixtures import REPO
from groundtruth import packets as gt_packets
from hlsframes import FF, at_or_after_between, Truth, check_picture, encode_sources, segment_files, truth, walk_steps, walk_whole
from rangeserver import serve
from test_fragmented_mp4 import shaka_packager

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402

FPS, SECONDS, GOP, SEGMENT = 25, 10, 50, 2
FRAME = Fraction(1, FPS)
ENCODERS = {
    "h264": ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "3",
             "-x264-params", f"open-gop=1:keyint={GOP}:min-keyint={GOP}:scenecut=0"],
    "hevc": ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params",
             f"log-level=error:keyint={GOP}:min-keyint={GOP}:scenecut=0:open-gop=1:bframes=3:"
             "b-pyramid=1:pools=1:frame-threads=1"],
}
# name: (codec, packager, segment format)
STREAMS = {
    "ffmpeg-ts-h264": ("h264", "ffmpeg", "ts"),
    "ffmpeg-ts-hevc": ("hevc", "ffmpeg", "ts"),
    "shaka-ts-h264": ("h264", "shaka", "ts"),
    "shaka-fmp4-h264": ("h264", "shaka", "fmp4"),
    "shaka-fmp4-hevc": ("hevc", "shaka", "fmp4"),
}


def package(src: Path, out: Path, packager: str, fmt: str) -> None:
    out.mkdir()
    if packager == "ffmpeg":
        subprocess.run(FF + ["-i", str(src), "-c", "copy", "-f", "hls", "-hls_time", str(SEGMENT),
                             "-hls_playlist_type", "vod", "-hls_segment_filename", str(out / "seg_%d.ts"),
                             str(out / "index.m3u8")], check=True, timeout=120)
        return
    seg = "seg_$Number$.ts" if fmt == "ts" else "seg_$Number$.m4s"
    desc = f"in={src},stream=video,segment_template={out / seg},playlist_name=index.m3u8"
    if fmt == "fmp4":
        desc += f",init_segment={out / 'init.mp4'}"
    subprocess.run([shaka_packager(), desc, "--segment_duration", str(SEGMENT),
                    "--hls_master_playlist_output", str(out / "master.m3u8"), "--hls_playlist_type", "VOD"],
                   check=True, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("opengop")
    encode_sources(d, ENCODERS, FPS, SECONDS)
    for name, (codec, packager, fmt) in STREAMS.items():
        package(d / f"{codec}.mp4", d / name, packager, fmt)
    with serve(d) as base:
        yield d, base


def targets(t: Truth) -> List[Fraction]:
    """The frames from 4 before to 2 after every keyframe but the first."""
    out = []
    for k in t.keys[1:]:
        i = t.times.index(k)
        out += t.times[max(0, i - 4):i + 3]
    return out


def leading_frames(d: Path, tmp: Path) -> int:
    """Frames, over all segments, presenting before their segment's first keyframe (ffprobe)."""
    n = 0
    for k, (init, seg) in enumerate(segment_files(d)):
        f = seg
        if init is not None:
            f = tmp / f"whole_{k}.mp4"
            f.write_bytes(init.read_bytes() + seg.read_bytes())
        pk = [p for p in gt_packets(str(f)) if p.pts is not None]
        first_key = next(p.pts for p in pk if p.key)
        n += sum(1 for p in pk[pk.index(next(p for p in pk if p.key)):] if p.pts < first_key)
    return n


@pytest.fixture(scope="module", params=sorted(STREAMS))
def stream(request, site, tmp_path_factory):
    d, base = site
    codec = STREAMS[request.param][0]
    assert leading_frames(d / request.param, tmp_path_factory.mktemp("whole")) > 0, \
        f"{request.param}: no segment carries leading frames (no open GOP across segment ends)"
    return request.param, f"{base}/{request.param}/index.m3u8", truth(d / f"{codec}.mp4")


def test_exact_seeks_decode_leading_frames(stream):
    name, url, t = stream
    with Player(url) as p:
        p.wait_item(timeout=30)
        for x in targets(t):
            o = p.seek_and_wait(x, SeekPrecision.exact())
            what = f"{name}: exact {x}"
            assert o.finished and Fraction(o.landed_time) == x, (what, o)
            check_picture(p, int(o.landed_stream_pts), t.md5[x], what)


def test_at_or_after_seeks_between_leading_frames(stream):
    """A target between two frames lands on the later one, leading frames included."""
    name, url, t = stream
    with Player(url) as p:
        p.wait_item(timeout=30)
        at_or_after_between(p, t, targets(t), name)


@pytest.mark.parametrize("tolerance", [Fraction(1), Fraction(3, 10)])
def test_nearest_keyframe_seeks_land_on_frames_the_packets_produce(stream, tolerance):
    name, url, t = stream
    with Player(url) as p:
        p.wait_item(timeout=30)
        for x in targets(t):
            o = p.seek_and_wait(x, SeekPrecision.nearest_keyframe(tolerance))
            near = [k for k in t.keys if abs(k - x) <= tolerance]
            want = min(near, key=lambda k: (abs(k - x), k)) if near else t.times[bisect.bisect_right(t.times, x) - 1]
            what = f"{name}: nearest keyframe {x} +- {tolerance}"
            assert o.finished and Fraction(o.landed_time) == want, (what, o, want)
            check_picture(p, int(o.landed_stream_pts), t.md5[want], what)


def test_steps_walk_frame_by_frame_across_segment_ends(stream):
    name, url, t = stream
    with Player(url) as p:
        p.wait_item(timeout=30)
        for k in t.keys[1:]:
            i = t.times.index(k)
            walk_steps(p, t.times, i - 4, i + 2, lambda pts, x, what: check_picture(p, pts, t.md5[x], what), name)


def test_steps_walk_the_whole_stream_both_ways(stream):
    """From the first frame to the last and back, one frame a step, refused past either end."""
    name, url, t = stream
    with Player(url) as p:
        p.wait_item(timeout=30)
        walk_whole(p, t.times, name)
