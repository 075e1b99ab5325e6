"""Shared ground truth and checks of the HLS frame tests (open GOP, segments cut mid-GOP,
the 33-bit wrap): the source file's frames by ffprobe and pictures by ffmpeg (framemd5), the
playlist's segment files, "the packets after a landing decode to ffmpeg's picture", and a
frame-step walk checked frame by frame.
"""
from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import pytest

from sharedfixtures import REPO
from framecheck import frame_md5, md5_by_pts
from groundtruth import packets as gt_packets
from groundtruth import reference_stream

sys.path.insert(0, str(REPO / "Bindings" / "python"))
from fastpix_seek import FrameStepDirection, Player, SeekPrecision  # noqa: E402
from fastpix_seek import pyav as bridge  # noqa: E402
from fastpix_seek.errors import EndOfFile  # noqa: E402

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]


def encode_sources(d: Path, encoders: Dict[str, List[str]], fps: int, seconds: int) -> Dict[str, Path]:
    """testsrc2 160x96 at `fps` for `seconds`, encoded once per entry of `encoders` (name:
    ffmpeg output options) into d/NAME.mp4."""
    out = {}
    for codec, args in encoders.items():
        out[codec] = d / f"{codec}.mp4"
        subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x96:rate={fps}:duration={seconds}",
                             *args, str(out[codec])], check=True, timeout=300)
    return out


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


def segment_files(d: Path) -> List[Tuple[Optional[Path], Path]]:
    """(init section or None, segment) of each entry of d/index.m3u8."""
    init = None
    out = []
    for line in (d / "index.m3u8").read_text().splitlines():
        m = re.match(r'#EXT-X-MAP:URI="([^"]+)"', line)
        if m:
            init = d / m.group(1)
        elif line and not line.startswith("#"):
            out.append((init, d / line))
    return out


def check_picture(p: Player, landed_pts: int, want_md5: str, what: str, max_packets: int = 150) -> None:
    """The packets from the read position decode (PyAV) to the landed frame with ffmpeg's
    picture, within `max_packets` packets; every reference packet presenting before it is
    DECODE_ONLY, the landed one is not. Reading on into the next discontinuity domain (an HLS
    EXT-X-DISCONTINUITY, a DASH Period) before the landed frame comes out of the decoder: the
    old domain's decoder is drained first, and the new domain's packets (another pts timeline,
    after the landing) are never DECODE_ONLY."""
    ref = p.item_info().reference_stream
    info = p.stream_info(ref)
    dec = bridge.decoder_for(info, thread_count=1)
    fed = crossed = False
    for _ in range(max_packets):
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


def walk_steps(p: Player, times: List[Fraction], lo: int, hi: int,
               picture: Callable[[int, Fraction, str], None], name: str = "") -> None:
    """An exact seek to times[lo], then forward steps one frame each to times[hi]; an exact seek
    to times[hi], then backward steps to times[lo]. Each landing is the next frame of `times`,
    and `picture(landed_stream_pts, time, what)` checks its packets."""
    for direction, start, stop in ((FrameStepDirection.FORWARD, lo, hi), (FrameStepDirection.BACKWARD, hi, lo)):
        o = p.seek_and_wait(times[start], SeekPrecision.exact())
        assert o.finished and Fraction(o.landed_time) == times[start], (name, o)
        step = 1 if direction == FrameStepDirection.FORWARD else -1
        for j in range(start + step, stop + step, step):
            r = p.step_frame(direction)
            what = f"{name}: {direction.name.lower()} step from {times[j - step]}"
            assert r.did_step and r.landed_media_time == times[j], (what, r, times[j])
            picture(int(r.landed_stream_pts), times[j], what)


def walk_whole(p: Player, times: List[Fraction], name: str = "") -> None:
    """From the first frame to the last and back, one frame a step, refused past either end."""
    o = p.seek_and_wait(0, SeekPrecision.exact())
    assert o.finished and Fraction(o.landed_time) == times[0], (name, o)
    for want in times[1:]:
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert r.did_step and r.landed_media_time == want, (name, r, want)
    assert not p.step_frame(FrameStepDirection.FORWARD).did_step
    for want in reversed(times[:-1]):
        r = p.step_frame(FrameStepDirection.BACKWARD)
        assert r.did_step and r.landed_media_time == want, (name, r, want)
    assert not p.step_frame(FrameStepDirection.BACKWARD).did_step


def at_or_after_between(p: Player, t: Truth, xs: List[Fraction], name: str = "") -> None:
    """For each frame time x in `xs` but the last frame: an at-or-after seek halfway to the next
    frame lands on that next frame, and its packets decode to its picture."""
    for x in xs:
        i = t.times.index(x)
        if i + 1 == len(t.times):
            continue
        want = t.times[i + 1]
        o = p.seek_and_wait((x + want) / 2, SeekPrecision.at_or_after())
        what = f"{name}: at or after {(x + want) / 2}"
        assert o.finished and Fraction(o.landed_time) == want, (what, o, want)
        check_picture(p, int(o.landed_stream_pts), t.md5[want], what)
