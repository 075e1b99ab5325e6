"""Packet.is_disposable (FPX_PACKET_FLAG_DISPOSABLE) with PyAV: after exact seeks to random
frames, a host that drops the disposable packets before its decoder still decodes the landed
frame and the frames after it to ffmpeg's pixels (framemd5), on H.264 with B-pyramids and
HEVC with open GOPs; the flag is only ever on decode-only video packets, and it is on some
(else nothing was tested). decode_landed_frame drops them too."""

from __future__ import annotations

import hashlib
import random
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
from sharedfixtures import MAKE_FIXTURES
from fastpix_seek import Player, SeekPrecision
from fastpix_seek._abi import PacketFlag
from fastpix_seek.pyav import decode_landed_frame, decoder_for, flush_decoder, to_av_packet

FOLLOW = 4


def framemd5(path: Path):
    out = subprocess.check_output(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-fps_mode",
                                   "passthrough", "-f", "framemd5", "-"], text=True)
    return [l.rsplit(",", 1)[1].strip() for l in out.splitlines() if l and not l.startswith("#")]


def fixture(d: Path, name: str) -> Path:
    if not (d / name).is_file():  # the HEVC fixtures are not in MEDIA_FIXTURES
        subprocess.run(["bash", str(MAKE_FIXTURES), str(d)], check=True, capture_output=True)
    return d / name


def md5_of(frame) -> str:
    return hashlib.md5(frame.to_ndarray().tobytes()).hexdigest()  # yuv420p, as ffmpeg's rawvideo


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "hevc_opengop.mp4", "hevc_opengop.ts"])
def test_dropping_disposable_packets_keeps_the_pixels(fixtures_dir: Path, name):
    path = fixture(fixtures_dir, name)
    gt = gtm.load(str(path))
    md5 = framemd5(path)
    assert len(md5) == len(gt.frames)
    rnd = random.Random(name)
    flagged = decode_only = 0
    with Player(path) as p:
        p.wait_item(timeout=20)
        ref = p.item_info().reference_stream
        info = p.stream_info(ref)
        dec = decoder_for(info, thread_count=1)
        picks = [len(gt.frames) - 1] + [rnd.randrange(len(gt.frames)) for _ in range(7)]
        for i in picks:
            f = gt.frames[i]
            span = gt.frames[i + 1].pts - f.pts if i + 1 < len(gt.frames) else 1
            p.seek_wait(gt.to_item(f.pts + rnd.randrange(span)), SeekPrecision.exact(), timeout=30)
            shown = []
            for pkt in p.packets():
                if pkt.is_disposable:
                    assert pkt.is_decode_only and not pkt.is_discontinuity and pkt.stream_index == ref
                    assert pkt.flags & PacketFlag.DISPOSABLE
                if pkt.is_discontinuity:
                    dec = flush_decoder(dec, info, thread_count=1)
                if pkt.stream_index != ref:
                    continue
                decode_only += pkt.is_decode_only
                if pkt.is_disposable:
                    flagged += 1
                    continue
                shown += [fr for fr in dec.decode(to_av_packet(pkt))
                          if fr.pts is not None and fr.pts >= pkt.landed_pts_in_stream]
                if len(shown) > FOLLOW or i + len(shown) >= len(gt.frames):
                    break
            else:
                shown += [fr for fr in dec.decode(None) if fr.pts is not None and fr.pts >= f.pts]
            want = min(FOLLOW + 1, len(gt.frames) - i)
            assert [fr.pts for fr in shown[:want]] == [g.pts for g in gt.frames[i:i + want]], (name, i)
            assert [md5_of(fr) for fr in shown[:want]] == md5[i:i + want], (name, i)
        # decode_landed_frame drops them as well and still finds the landed frame.
        f = gt.frames[len(gt.frames) - 2]
        p.seek_wait(gt.to_item(f.pts), SeekPrecision.exact(), timeout=30)
        assert md5_of(decode_landed_frame(p, f.pts, thread_count=1)) == md5[len(gt.frames) - 2]
    assert flagged > 0 and decode_only > flagged, (name, flagged, decode_only)


def test_hls_segments_carry_the_flag_and_keep_the_pixels(tmp_path: Path):
    """HLS (MPEG-TS segments, Annex B): the flag is decided the same way for packets the HLS
    engine hands out, across segment boundaries."""
    pl = tmp_path / "v.m3u8"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001", "-t", "6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "45", "-sc_threshold", "0",
                    "-threads", "1", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", str(pl)], check=True)
    md5 = framemd5(pl)
    j = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts",
                                 "-of", "csv=p=0", str(pl)], text=True)
    pts = sorted(int(x.strip(",")) for x in j.split())
    assert len(pts) == len(md5)
    rnd = random.Random(3)
    flagged = 0
    with Player(pl) as p:
        p.wait_item(timeout=20)
        ref = p.item_info().reference_stream
        info = p.stream_info(ref)
        dec = decoder_for(info, thread_count=1)
        for i in [len(pts) - 1, 44, 89] + [rnd.randrange(len(pts)) for _ in range(5)]:
            p.seek_wait(Fraction(pts[i] - pts[0], 90000), SeekPrecision.exact(), timeout=30)
            shown = []
            for pkt in p.packets():
                if pkt.is_discontinuity:
                    dec = flush_decoder(dec, info, thread_count=1)
                if pkt.stream_index != ref:
                    continue
                if pkt.is_disposable:
                    assert pkt.is_decode_only
                    flagged += 1
                    continue
                # (landed_pts_in_stream is None on packets of later segments: seek.h)
                shown += [fr for fr in dec.decode(to_av_packet(pkt)) if fr.pts is not None and fr.pts >= pts[i]]
                if len(shown) > FOLLOW or i + len(shown) >= len(pts):
                    break
            else:
                shown += [fr for fr in dec.decode(None) if fr.pts is not None and fr.pts >= pts[i]]
            want = min(FOLLOW + 1, len(pts) - i)
            assert [fr.pts for fr in shown[:want]] == pts[i:i + want], i
            assert [md5_of(fr) for fr in shown[:want]] == md5[i:i + want], i
    assert flagged > 0
