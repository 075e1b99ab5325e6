"""The PyAV bridge: a decoder built from StreamInfo decodes the library's packets after exact
seeks; the first frame presented at or after packet.landed_pts_in_stream is ffprobe's landing
and hashes to ffmpeg's straight decode of that frame (framemd5)."""

from __future__ import annotations

import hashlib
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
from fastpix_seek import FrameStepDirection, Player, SeekPrecision
from fastpix_seek.pyav import PYAV_VERSION, decode_landed_frame, decoder_for, flush_decoder, to_av_packet


def framemd5(path: Path):
    out = subprocess.check_output(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-fps_mode",
                                   "passthrough", "-f", "framemd5", "-"], text=True)
    return [l.rsplit(",", 1)[1].strip() for l in out.splitlines() if l and not l.startswith("#")]


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "mkv.mkv", "ts.ts", "mp4_opengop.mp4"])
def test_pyav_decoder_from_stream_info(fixtures_dir: Path, name):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    md5 = framemd5(path)
    assert len(md5) == len(gt.frames)
    with Player(path) as p:
        p.wait_item(timeout=20)
        ref = p.item_info().reference_stream
        info = p.stream_info(ref)
        dec = decoder_for(info, thread_count=1)
        for t in (Fraction(13, 10), Fraction(5, 2), Fraction(7901, 1000), Fraction(11)):
            p.seek_wait(t, SeekPrecision.exact(), timeout=30)
            want = gt.covering(t).pts
            shown = None
            for pkt in p.packets():
                if pkt.is_discontinuity:
                    dec = flush_decoder(dec, info, thread_count=1)
                if pkt.stream_index != ref:
                    continue
                for frame in dec.decode(to_av_packet(pkt)):
                    if shown is None and frame.pts is not None and frame.pts >= pkt.landed_pts_in_stream:
                        shown = frame
                if shown is not None:
                    break
            assert shown is not None and shown.pts == want, (name, t)
            planes = shown.to_ndarray().tobytes()  # yuv420p, packed like ffmpeg's rawvideo
            assert hashlib.md5(planes).hexdigest() == md5[gt.frame_index(want)]


def test_pyav_audio_decoder(fixtures_dir: Path):
    with Player(fixtures_dir / "mp4_bframes.mp4") as p:
        p.wait_item(timeout=20)
        a = next(p.stream_info(i) for i in range(p.item_info().stream_count) if p.stream_info(i).sample_rate)
        dec = decoder_for(a)
        frames = []
        for pkt in p.packets():
            if pkt.stream_index == a.index:
                frames += dec.decode(to_av_packet(pkt))
            if len(frames) >= 5:
                break
        assert frames and all(f.sample_rate == a.sample_rate and f.samples == a.frame_size for f in frames[1:])


def test_pyav_version_is_in_the_declared_range():
    """pyproject.toml's pyav extra declares the range this bridge is tested with (CI runs it with
    Debian 12's python3-av 10.0 and with the newest wheel)."""
    import re
    toml = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    m = re.search(r'pyav = \["av>=(\d+)(?:\.(\d+))?,<(\d+)"\]', toml)
    assert m, "pyproject.toml declares no pyav = [\"av>=X,<Y\"] extra"
    lo, hi = (int(m.group(1)), int(m.group(2) or 0)), int(m.group(3))
    assert lo <= PYAV_VERSION[:2] and PYAV_VERSION[0] < hi, (PYAV_VERSION, m.group(0))


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "mp4_editlist.mp4"])
def test_decode_landed_frame_after_seeks_and_steps(fixtures_dir: Path, name):
    """The bridge's decode_landed_frame (what Examples/python use) gives ffprobe's covering
    frame after an exact seek, again after a backward seek (a discontinuity: the decoder is
    flushed or, on PyAV 10, replaced), and after a frame step."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    md5 = framemd5(path)
    with Player(path) as p:
        p.wait_item(timeout=20)
        for t in (Fraction(5, 2), Fraction(13, 10)):
            o = p.seek_and_wait(t, SeekPrecision.exact())
            f = decode_landed_frame(p, o.landed_stream_pts, thread_count=1)
            assert f.pts == gt.covering(t).pts == o.landed_stream_pts
            assert hashlib.md5(f.to_ndarray().tobytes()).hexdigest() == md5[gt.frame_index(f.pts)]
        r = p.step_frame(FrameStepDirection.FORWARD)
        f = decode_landed_frame(p, r.landed_stream_pts)
        assert f.pts == r.landed_stream_pts
