"""Muxed audio across HLS segment ends (issue 28, seek.h fpx_packet.landed_pts_in_stream): in
MPEG-TS segments that carry video and audio, ffmpeg's muxer puts the audio that presents just
before a segment's first keyframe at the start of the next segment. After an exact landing on
one of a segment's last frames, the next segment's first audio packets can present before the
landing: they must be DECODE_ONLY, with their landing fields and trim_samples, as in the
landing's own segment (before this test, they came out as if they presented after it).

Ground truth: ffprobe of each segment (the video's first frame of the first segment is item
time 0); the segments are served by the Range server on 127.0.0.1."""
from __future__ import annotations

import json
import math
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from rangeserver import serve
from test_hls_renditions import _player

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
KEY, DECODE_ONLY, DISC = 0x1, 0x100, 0x200
TB = Fraction(1, 90000)
RATE = 48000


@pytest.fixture(scope="module")
def muxed(tmp_path_factory):
    d = tmp_path_factory.mktemp("muxed")
    subprocess.run(FF + ["-f", "lavfi", "-i", "testsrc2=size=96x72:rate=25:duration=6", "-f", "lavfi", "-i",
                         f"sine=frequency=440:sample_rate={RATE}:duration=6", "-c:v", "libx264", "-preset",
                         "ultrafast", "-bf", "2", "-g", "25", "-c:a", "aac", "-b:a", "48k", "-f", "hls", "-hls_time",
                         "1", "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "s_%d.ts"),
                         str(d / "index.m3u8")], check=True, timeout=120)
    segs = [ln for ln in (d / "index.m3u8").read_text().splitlines() if ln and not ln.startswith("#")]
    packets = []
    for k, name in enumerate(segs):
        j = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                                       "stream=index,codec_type,time_base:packet=stream_index,pts,duration,size",
                                       "-of", "json", str(d / name)], check=True, capture_output=True, text=True,
                                      timeout=60).stdout)
        kinds = {s["index"]: s["codec_type"] for s in j["streams"]}
        assert all(s["time_base"] == "1/90000" for s in j["streams"])
        packets += [dict(kind=kinds[p["stream_index"]], pts=int(p["pts"]), duration=int(p.get("duration", 0)),
                         size=int(p["size"]), seg=k) for p in j["packets"]]
    origin = min(p["pts"] for p in packets if p["kind"] == "video" and p["seg"] == 0)
    for p in packets:
        p["t"] = (p["pts"] - origin) * TB
    with serve(d) as base:
        yield f"{base}/index.m3u8", packets, len(segs)


def test_the_stream_has_the_shape(muxed):
    """ffmpeg's segments: the next segment's first audio frame presents before the previous
    segment's last video frame (else this test would prove nothing)."""
    _, pk, n = muxed
    hits = 0
    for k in range(n - 1):
        last_video = max(p["t"] for p in pk if p["seg"] == k and p["kind"] == "video")
        first_audio = min(p["t"] for p in pk if p["seg"] == k + 1 and p["kind"] == "audio")
        hits += first_audio < last_video
    assert hits >= 3


def test_landings_at_a_segments_end_flag_the_next_segments_early_audio(muxed):
    from fastpix_seek import SeekPrecision
    url, pk, n = muxed
    with _player(url) as p:
        audio_index = next(i for i in range(p.item_info().stream_count) if i != p.item_info().reference_stream)
        for k in range(n - 1):
            video = sorted(x["t"] for x in pk if x["seg"] == k and x["kind"] == "video")
            for landed in video[-2:]:
                o = p.seek_wait(landed, SeekPrecision.exact())
                assert o.landed_time == landed and o.frame_covers_target
                # Read past the next segment's first audio frames.
                want = [x for x in pk if x["seg"] == k + 1 and x["kind"] == "audio"][:3]
                got = []
                for q in p.packets():
                    if q.stream_index == audio_index and q.pts in {x["pts"] for x in want}:
                        got.append(q)
                    if len(got) == len(want):
                        break
                assert [q.pts for q in got] == [x["pts"] for x in want]
                for q, x in zip(got, want):
                    before = x["t"] < landed
                    # As in the landing's own segment (test_hls_renditions): DECODE_ONLY when it
                    # starts before the landing, trimmed when it straddles it.
                    assert bool(q.flags & DECODE_ONLY) == before, (landed, x)
                    assert q.landed_pts == o.landed_stream_pts
                    assert q.landed_pts_in_stream == o.landed_stream_pts   # one 1/90000 time base
                    straddles = x["t"] < landed < x["t"] + x["duration"] * TB
                    assert q.trim_samples == (math.ceil((landed - x["t"]) * RATE) if straddles else 0), (landed, x)
                    assert not q.flags & DISC
