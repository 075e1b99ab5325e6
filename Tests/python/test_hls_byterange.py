"""HLS byte ranges (EXT-X-BYTERANGE, EXT-X-MAP BYTERANGE) as a server on 127.0.0.1 receives
them (issue 28.4): every segment and every init section is one closed `Range: bytes=a-b`
request for exactly the range the playlist names, never `bytes=0-` nor an open-ended range;
a server that ignores Range (200 with the whole file) still gives the right packets (the bytes
before the range are read and dropped, up to max_buffer_bytes), and a range farther in than
that is FPX_ERROR_TOO_LARGE (seek.h, "Byte ranges" in "Live and DVR HLS").

Streams: ffmpeg's single-file HLS (`-hls_flags single_file`), TS and fMP4 (its init section a
byte range of the same file), and Shaka Packager's single-file fMP4 (playlist ranges without
an offset, continuing the previous one; a sidx between the init section and the first
segment). Ground truth: the playlist's text for the ranges, and ffprobe's packets of the same
playlist (FFmpeg's own hls demuxer) for what the host reads.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import pytest

from sharedfixtures import REPO
from rangeserver import recording, serve
from test_fragmented_mp4 import shaka_packager

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
SECONDS = 8


def make_source(d: Path) -> Path:
    src = d / "src.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate=25", "-t", str(SECONDS),
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "2", str(src)], check=True)
    return src


def make_stream(d: Path, kind: str) -> str:
    """Makes the stream in `d`; returns the playlist's name."""
    src = make_source(d)
    hls = FF + ["-i", str(src), "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                "-hls_flags", "single_file"]
    if kind == "ffmpeg_ts":
        subprocess.run(hls + [str(d / "v.m3u8")], check=True)
    elif kind == "ffmpeg_fmp4":
        subprocess.run(hls + ["-hls_segment_type", "fmp4", str(d / "v.m3u8")], check=True)
    elif kind == "shaka_fmp4":
        subprocess.run([shaka_packager(), f"in={src},stream=video,output={d / 'v.mp4'},playlist_name=v.m3u8",
                        "--segment_duration", "2", "--hls_master_playlist_output", str(d / "master.m3u8"),
                        "--hls_playlist_type", "VOD"], check=True, capture_output=True)
    else:
        raise AssertionError(kind)
    return "v.m3u8"


Range = Tuple[str, int, int]  # uri, first byte, last byte (inclusive)


def playlist_ranges(text: str) -> Tuple[List[Range], List[Range]]:
    """The segments' and init sections' byte ranges, as RFC 8216 4.3.2.2 reads them (an
    EXT-X-BYTERANGE without an offset continues the previous range of the same resource)."""
    segs: List[Range] = []
    maps: List[Range] = []
    pending: Optional[Tuple[int, Optional[int]]] = None
    end_of: Dict[str, int] = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#EXT-X-MAP:"):
            uri = re.search(r'URI="([^"]+)"', line).group(1)
            m = re.search(r'BYTERANGE="(\d+)@(\d+)"', line)
            if m:
                n, o = int(m.group(1)), int(m.group(2))
                maps.append((uri, o, o + n - 1))
        elif line.startswith("#EXT-X-BYTERANGE:"):
            n_s, _, o_s = line.split(":", 1)[1].partition("@")
            pending = (int(n_s), int(o_s) if o_s else None)
        elif line and not line.startswith("#"):
            if pending:
                n, o = pending
                if o is None:
                    o = end_of[line]
                segs.append((line, o, o + n - 1))
                end_of[line] = o + n
                pending = None
    return segs, maps


def ffprobe_packets(playlist: Path) -> List[Tuple[int, int, int]]:
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                   "packet=pts,dts,size", "-of", "json", str(playlist)])
    return [(int(p["pts"]), int(p["dts"]), int(p["size"])) for p in json.loads(out)["packets"]]


def read_all(p: Player) -> List[Tuple[int, int, int]]:
    return [(x.pts, x.dts, x.size) for x in p.packets() if x.stream_index == 0]


KINDS = ["ffmpeg_ts", "ffmpeg_fmp4", "shaka_fmp4"]


@pytest.fixture(scope="module", params=KINDS)
def stream(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param)
    name = make_stream(d, request.param)
    text = (d / name).read_text()
    segs, maps = playlist_ranges(text)
    assert len(segs) >= SECONDS // 2 - 1, text
    if request.param != "ffmpeg_ts":
        assert maps, text  # the init section is a byte range too
    return request.param, d, name, segs, maps, ffprobe_packets(d / name)


def closed(rng: Optional[str]) -> Optional[Tuple[int, int]]:
    m = re.fullmatch(r"bytes=(\d+)-(\d+)", rng or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def test_each_range_is_one_closed_request(stream):
    kind, d, name, segs, maps, truth = stream
    handler = recording()
    with serve(d, handler) as base:
        with Player(f"{base}/{name}") as p:
            st = p.wait_item(timeout=30)
            assert st.status.name == "READY", st
            assert read_all(p) == truth
            # Seeks into every segment (each a fresh fetch of its range or the cached one).
            for i in range(len(segs)):
                o = p.seek_and_wait(Fraction(2 * i + 1, 1), SeekPrecision.exact())
                assert o.finished and o.frame_covers_target, o
    reqs = list(handler.record)
    media_uris = {u for u, _, _ in segs} | {u for u, _, _ in maps}
    wanted: Set[Tuple[int, int]] = {(a, b) for _, a, b in segs} | {(a, b) for _, a, b in maps}
    media = [(path, rng) for path, rng in reqs if path.lstrip("/").split("?")[0] in media_uris]
    assert media, reqs
    bad = [(path, rng) for path, rng in media if closed(rng) not in wanted]
    assert not bad, f"requests that are not one of the playlist's ranges: {bad}"
    asked = {closed(rng) for _, rng in media}
    assert asked == wanted, f"ranges never asked for: {wanted - asked}"


def test_a_server_that_ignores_range_gives_the_same_packets(stream):
    kind, d, name, segs, maps, truth = stream
    handler = recording(ignore_range=True)
    with serve(d, handler) as base:
        with Player(f"{base}/{name}") as p:
            st = p.wait_item(timeout=30)
            assert st.status.name == "READY", st
            assert read_all(p) == truth
            for i in (len(segs) - 1, 1, 0):
                o = p.seek_and_wait(Fraction(4 * i + 1, 2), SeekPrecision.exact())
                assert o.finished and o.frame_covers_target, o
                first = p.read_packet()
                assert (first.pts, first.dts, first.size) in truth  # a packet of the stream, intact
    # It was asked for the ranges all the same (the server answered 200 to each).
    media_uris = {u for u, _, _ in segs}
    assert all(closed(rng) for path, rng in handler.record if path.lstrip("/") in media_uris)


def test_a_range_past_the_cap_from_a_server_that_ignores_range_is_too_large(stream):
    kind, d, name, segs, maps, truth = stream
    # A cap every segment (with its init section) fits in, but that the last segment's
    # offset is past: reading it would mean dropping more than the cap.
    largest = max(b - a + 1 for _, a, b in segs) + sum(b - a + 1 for _, a, b in maps[:1])
    cap = max(2 * largest, segs[1][1] + 1)
    last = segs[-1]
    assert last[1] > cap, (last, cap)
    handler = recording(ignore_range=True)
    with serve(d, handler) as base:
        with Player(f"{base}/{name}", max_buffer_bytes=cap) as p:
            st = p.wait_item(timeout=30)
            assert st.status.name == "READY", st
            # The first segments read (their ranges start within the cap).
            o = p.seek_and_wait(Fraction(1, 2), SeekPrecision.exact())
            assert o.finished and o.frame_covers_target, o
            o = p.seek_and_wait(Fraction(2 * len(segs) - 1, 1), SeekPrecision.exact())
            assert not o.finished and o.error == -27, o  # FPX_ERROR_TOO_LARGE
            # Not a hole: the item stays as it was, and the first segments still read.
            assert p.item_status().segments_skipped == 0
            o = p.seek_and_wait(Fraction(1, 2), SeekPrecision.exact())
            assert o.finished and o.frame_covers_target, o
