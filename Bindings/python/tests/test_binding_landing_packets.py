"""The landing on the packet stream, through the binding: every packet after an exact seek
carries the landed pts; audio packets straddling it carry trim_samples, checked against
ffprobe's audio packets with Fractions."""

from __future__ import annotations

import json
import math
import subprocess
from fractions import Fraction
from pathlib import Path

from fastpix_seek import Player, SeekPrecision

import groundtruth as gtm


def audio_packets(path: Path):
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                                   "packet=pts,duration:stream=time_base,sample_rate", "-of", "json", str(path)])
    j = json.loads(out)
    st = j["streams"][0]
    return ({int(p["pts"]): int(p["duration"]) for p in j["packets"]},
            Fraction(st["time_base"]), int(st["sample_rate"]))


def test_packets_carry_the_landing_and_trim(fixtures_dir: Path):
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    durations, atb, rate = audio_packets(path)
    straddled = 0
    with Player(path) as p:
        p.wait_item(timeout=20)
        for t in (Fraction(13, 10), Fraction(5, 2), Fraction(7901, 1000), Fraction(10)):
            o = p.seek_wait(t, SeekPrecision.exact(), timeout=30)
            want = gt.covering(t).pts
            assert o.landed_stream_pts == want
            landing = want * gt.time_base  # seconds on the video stream timeline
            first = True
            for _ in range(400):
                pkt = p.read_packet()
                assert pkt.is_discontinuity == first
                first = False
                assert pkt.landed_pts == want and pkt.landed_stream_index == gt.stream.index
                if pkt.stream_index == gt.stream.index:
                    assert pkt.landed_pts_in_stream == want
                    continue
                start = pkt.pts * atb
                end = (pkt.pts + durations[pkt.pts]) * atb
                assert pkt.landed_pts_in_stream == math.ceil(landing / atb)
                expected = math.ceil((landing - start) * rate) if start < landing < end else 0
                assert pkt.trim_samples == expected, (t, pkt)
                if expected:
                    straddled += 1
                    assert pkt.is_decode_only and "trim_samples" in repr(pkt)
                if start >= landing:
                    break
    assert straddled >= 3


def test_hls_packets_carry_the_landing_across_segments(tmp_path: Path):
    """HLS: the landing segment's packets and those of the segments read after it on its
    timeline (no discontinuity between) carry the same landed_pts and landed_pts_in_stream
    (seek.h, fpx_packet.landed_pts_in_stream); DECODE_ONLY exactly on the packets that present
    before the landing."""
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-t", "6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(tmp_path / "s%03d.ts"),
                    str(tmp_path / "vod.m3u8")], check=True)
    with Player(tmp_path / "vod.m3u8") as p:
        p.wait_item(timeout=20)
        o = p.seek_wait(Fraction(5, 2), SeekPrecision.exact(), timeout=30)
        assert o.finished and o.frame_covers_target
        want = o.landed_stream_pts
        # The landing's segment is [2, 3) s: packets presenting 0.5 s (45000 ticks of 1/90000)
        # or more after the landed frame at 2.5 s are from the segments after it.
        seen_in, seen_after = 0, 0
        for i, pkt in enumerate(p.packets()):
            assert pkt.is_discontinuity == (i == 0)
            assert pkt.landed_pts == want and pkt.landed_stream_index == 0
            assert pkt.landed_pts_in_stream == want, (i, pkt)
            assert pkt.is_decode_only == (pkt.pts < want), (i, pkt)
            if pkt.pts >= want + 45000:
                seen_after += 1
            else:
                seen_in += 1
            if i > 150:
                break
        assert seen_in > 0 and seen_after > 30
