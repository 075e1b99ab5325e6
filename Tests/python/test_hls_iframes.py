"""fMP4 I-frame playlists (EXT-X-I-FRAMES-ONLY, issue 28.5) as Shaka Packager writes them: each
entry's byte range is a `moof` and the fragment's first sample only (its `trun` names samples
past the range). Served over HTTP on 127.0.0.1; both of Shaka's layouts: one file with byte
ranges for everything (the init section too), and an init section with one file per segment.

* The item opens; its packets are the I-frames, each byte for byte the stream's keyframe at
  that pts (ffprobe's packets of the full variant, MD5 of the data), in order, nothing else.
* Exact seeks land on the I-frame at or before the target (the frame shown there), and
  nearest-keyframe seeks on an I-frame; steps walk from I-frame to I-frame.
* An I-frame playlist that cannot be read (byte ranges that cut the moof) is
  FPX_ERROR_INVALID_DATA at open with a log line naming the segment and why, never an I/O
  ("connection") error: before 0.4.x the mov demuxer's "partial file" on the samples past the
  range became FPX_ERROR_IO "read error, connection reset".
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import pytest

from sharedfixtures import REPO
from rangeserver import serve
from test_fragmented_mp4 import shaka_packager

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import FrameStepDirection, Player, SeekPrecision  # noqa: E402
from fastpix_seek.errors import InvalidDataError  # noqa: E402

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
SECONDS, FPS, GOP, SEGMENT = 24, 30, 60, 6


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("iframes")
    src = d / "src.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=320x240:rate={FPS}", "-t", str(SECONDS),
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", str(GOP), "-bf", "3", str(src)], check=True)
    pk = shaka_packager()
    subprocess.run([pk, f"in={src},stream=video,output={d / 'one.mp4'},playlist_name=one.m3u8,"
                        "iframe_playlist_name=one_i.m3u8",
                    "--segment_duration", str(SEGMENT), "--hls_master_playlist_output", str(d / "m1.m3u8"),
                    "--hls_playlist_type", "VOD"], check=True, capture_output=True)
    subprocess.run([pk, f"in={src},stream=video,init_segment={d / 'init.mp4'},"
                        f"segment_template={d / 'seg_$Number$.m4s'},playlist_name=many.m3u8,"
                        "iframe_playlist_name=many_i.m3u8",
                    "--segment_duration", str(SEGMENT), "--hls_master_playlist_output", str(d / "m2.m3u8"),
                    "--hls_playlist_type", "VOD"], check=True, capture_output=True)
    for name in ("one_i.m3u8", "many_i.m3u8"):
        text = (d / name).read_text()
        assert "#EXT-X-I-FRAMES-ONLY" in text and "#EXT-X-MAP" in text and "#EXT-X-BYTERANGE" in text, text
    # Unreadable: every range cut to 400 bytes (less than a moof).
    cut = re.sub(r"#EXT-X-BYTERANGE:\d+@", "#EXT-X-BYTERANGE:400@", (d / "one_i.m3u8").read_text())
    (d / "cut_i.m3u8").write_text(cut)
    with serve(d) as base:
        yield d, base


def keyframes(path: Path) -> Tuple[Fraction, List[Tuple[int, int, str]]]:
    """The time base and (pts, size, MD5) of every keyframe of the full variant (ffprobe)."""
    j = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5", "-show_entries",
         "packet=pts,size,flags,data_hash:stream=time_base", "-of", "json", str(path)]))
    tb = Fraction(j["streams"][0]["time_base"])
    return tb, [(int(p["pts"]), int(p["size"]), p["data_hash"].split(":")[1])
                for p in j["packets"] if "K" in p["flags"]]


LAYOUTS = {"one_file": ("one_i.m3u8", "one.m3u8"), "segment_files": ("many_i.m3u8", "many.m3u8")}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_iframe_playlist_gives_the_streams_keyframes(site, layout):
    d, base = site
    iframes, full = LAYOUTS[layout]
    tb, keys = keyframes(d / full)
    entries = (d / iframes).read_text().count("#EXT-X-BYTERANGE")
    assert entries == SECONDS // SEGMENT
    with Player(f"{base}/{iframes}") as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        got = []
        for x in p.packets():
            assert x.stream_index == 0 and x.flags & 1  # keyframes only
            got.append((x.pts, x.size, hashlib.md5(x.data).hexdigest()))
        # One I-frame per entry, each one of the stream's keyframes, byte for byte, in order.
        assert len(got) == entries, got
        assert all(g in keys for g in got), (got, keys)
        assert [g[0] for g in got] == sorted(g[0] for g in got)
        iframe_pts = [g[0] for g in got]
        # Item time 0 is the first I-frame.
        rng = random.Random(layout)
        for _ in range(12):
            t = Fraction(rng.randrange(0, SECONDS * 1000), 1000)
            want = max(q for q in iframe_pts if q <= iframe_pts[0] + t / tb)
            o = p.seek_and_wait(t, SeekPrecision.exact())
            assert o.finished and o.landed_stream_pts == want, (t, o)
            first = p.read_packet()
            assert (first.pts, first.size, hashlib.md5(first.data).hexdigest()) in got
            o = p.seek_and_wait(t, SeekPrecision.nearest_keyframe(Fraction(SEGMENT)))
            assert o.finished and o.landed_stream_pts in iframe_pts, (t, o)
        # Steps walk the I-frames.
        o = p.seek_and_wait(Fraction(0), SeekPrecision.exact())
        assert o.landed_stream_pts == iframe_pts[0]
        for q in iframe_pts[1:]:
            r = p.step_frame()
            assert r.did_step and r.landed_stream_pts == q, r
        r = p.step_frame(direction=FrameStepDirection.BACKWARD)
        assert r.did_step and r.landed_stream_pts == iframe_pts[-2], r


def test_an_unreadable_iframe_playlist_says_why(site):
    d, base = site
    lines: List[str] = []

    class H(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger = logging.getLogger("fastpix_seek")
    h = H(level=logging.ERROR)
    logger.addHandler(h)
    try:
        with Player(f"{base}/cut_i.m3u8") as p:
            with pytest.raises(InvalidDataError):
                p.wait_item(timeout=30)
    finally:
        logger.removeHandler(h)
    assert any("HLS segment 0 cannot be demuxed" in x and "a byte range of 400 bytes" in x for x in lines), lines
    assert not any("connection" in x for x in lines), lines
