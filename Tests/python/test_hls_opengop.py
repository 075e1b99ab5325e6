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
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, NamedTuple, Tuple

import pytest

from conftest import REPO
from framecheck import frame_md5, md5_by_pts
from groundtruth import packets as gt_packets
from groundtruth import reference_stream
from rangeserver import serve
from test_fragmented_mp4 import shaka_packager

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import FrameStepDirection, Player, SeekPrecision  # noqa: E402
from fastpix_seek import pyav as bridge  # noqa: E402
from fastpix_seek.errors import EndOfFile  # noqa: E402

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
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
# Packets read after a landing before its frame must have come out (a GOP and a segment's worth).
MAX_PACKETS = 3 * GOP


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
    for codec, args in ENCODERS.items():
        subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x96:rate={FPS}:duration={SECONDS}",
                             *args, str(d / f"{codec}.mp4")], check=True, timeout=300)
    for name, (codec, packager, fmt) in STREAMS.items():
        package(d / f"{codec}.mp4", d / name, packager, fmt)
    with serve(d) as base:
        yield d, base


class Truth(NamedTuple):
    """The source's frames (item seconds, ascending), keyframes, and pictures by item time."""
    times: List[Fraction]
    keys: List[Fraction]
    md5: Dict[Fraction, str]


def truth(src: Path) -> Truth:
    st = reference_stream(str(src))
    pk = [p for p in gt_packets(str(src)) if p.pts is not None]
    first = min(p.pts for p in pk)
    item = lambda pts: (pts - first) * st.time_base  # noqa: E731 (HLS item time 0: the first frame)
    md5 = {item(p): m for p, m in md5_by_pts(str(src)).items()}
    times = sorted(item(p.pts) for p in pk)
    assert sorted(md5) == times, "ffprobe's packets and ffmpeg's decoded frames disagree"
    return Truth(times, sorted(item(p.pts) for p in pk if p.key), md5)


def targets(t: Truth) -> List[Fraction]:
    """The frames from 4 before to 2 after every keyframe but the first."""
    out = []
    for k in t.keys[1:]:
        i = t.times.index(k)
        out += t.times[max(0, i - 4):i + 3]
    return out


def segment_files(d: Path) -> List[Tuple[Path, Path]]:
    """(init section or None, segment) of each playlist entry."""
    text = (d / "index.m3u8").read_text()
    init = None
    out = []
    for line in text.splitlines():
        m = re.match(r'#EXT-X-MAP:URI="([^"]+)"', line)
        if m:
            init = d / m.group(1)
        elif line and not line.startswith("#"):
            out.append((init, d / line))
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


def check_picture(p: Player, landed_pts: int, want_md5: str, what: str) -> None:
    """The packets from the read position decode to the landed frame with the right picture;
    every reference packet presenting before it is DECODE_ONLY, the landed one is not.
    Reading on into the next discontinuity domain (an HLS EXT-X-DISCONTINUITY, a DASH Period)
    before the landed frame comes out of the decoder: the old domain's decoder is drained
    first, and the new domain's packets (another pts timeline, after the landing) are never
    DECODE_ONLY."""
    ref = p.item_info().reference_stream
    info = p.stream_info(ref)
    dec = bridge.decoder_for(info, thread_count=1)
    fed = crossed = False
    for n in range(MAX_PACKETS):
        try:
            pkt = p.read_packet()
        except EndOfFile:
            break
        if pkt.is_discontinuity and fed and pkt.stream_index != ref:
            pass  # another stream's own crossing into the next domain
        elif pkt.is_discontinuity and fed:
            for fr in dec.decode(None):
                if not crossed and fr.pts == landed_pts:
                    assert frame_md5(fr) == want_md5, f"{what}: the landed frame decodes to another picture"
                    return
            dec = bridge.decoder_for(info, thread_count=1)
            crossed = True
        elif pkt.is_discontinuity:
            dec = bridge.flush_decoder(dec, info, thread_count=1)
        if pkt.stream_index != ref:
            continue
        fed = True
        if crossed:
            assert not pkt.is_decode_only, (what, pkt, landed_pts)
            continue
        if pkt.pts is not None:
            assert pkt.is_decode_only == (pkt.pts < landed_pts), (what, pkt, landed_pts)
        if pkt.is_disposable:
            continue
        for fr in dec.decode(bridge.to_av_packet(pkt)):
            if fr.pts == landed_pts:
                assert frame_md5(fr) == want_md5, f"{what}: the landed frame decodes to another picture"
                return
    for fr in dec.decode(None):
        if fr.pts == landed_pts:
            assert frame_md5(fr) == want_md5, f"{what}: the landed frame decodes to another picture"
            return
    pytest.fail(f"{what}: the landed frame (pts {landed_pts}) never comes out of the delivered packets")


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
        for x in targets(t):
            i = t.times.index(x)
            if i + 1 == len(t.times):
                continue
            want = t.times[i + 1]
            o = p.seek_and_wait((x + want) / 2, SeekPrecision.at_or_after())
            what = f"{name}: at or after {(x + want) / 2}"
            assert o.finished and Fraction(o.landed_time) == want, (what, o, want)
            check_picture(p, int(o.landed_stream_pts), t.md5[want], what)


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
            for direction, start, stop in ((FrameStepDirection.FORWARD, i - 4, i + 2),
                                           (FrameStepDirection.BACKWARD, i + 2, i - 4)):
                o = p.seek_and_wait(t.times[start], SeekPrecision.exact())
                assert o.finished and Fraction(o.landed_time) == t.times[start], o
                step = 1 if direction == FrameStepDirection.FORWARD else -1
                for j in range(start + step, stop + step, step):
                    r = p.step_frame(direction)
                    what = f"{name}: {direction.name.lower()} step from {t.times[j - step]}"
                    assert r.did_step and r.landed_media_time == t.times[j], (what, r, t.times[j])
                    check_picture(p, int(r.landed_stream_pts), t.md5[t.times[j]], what)


def test_steps_walk_the_whole_stream_both_ways(stream):
    """From the first frame to the last and back, one frame a step, refused past either end."""
    name, url, t = stream
    with Player(url) as p:
        p.wait_item(timeout=30)
        o = p.seek_and_wait(0, SeekPrecision.exact())
        assert o.finished and Fraction(o.landed_time) == t.times[0], o
        for want in t.times[1:]:
            r = p.step_frame(FrameStepDirection.FORWARD)
            assert r.did_step and r.landed_media_time == want, (name, r, want)
        assert not p.step_frame(FrameStepDirection.FORWARD).did_step
        for want in reversed(t.times[:-1]):
            r = p.step_frame(FrameStepDirection.BACKWARD)
            assert r.did_step and r.landed_media_time == want, (name, r, want)
        assert not p.step_frame(FrameStepDirection.BACKWARD).did_step
