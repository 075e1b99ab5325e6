"""The HLS timeline is a function of the playlist and the media (seek.h, "Timeline" in "Live
and DVR HLS"): two encodes joined by EXT-X-DISCONTINUITY, with integer EXTINF that
disagrees with the media (1.5 s segments listed as 2 s, or as 1 s), with and without
EXT-X-START. Ground truth: ffprobe of each segment, placed by the header's rule (each
domain anchored by its first segment's first frame at that segment's listed start); the
landing by SegmentLanding's documented segment choice. Same item time -> same frame on a
fresh player and after other seeks and steps; start_pts and fpx_packet.item_origin_pts
(Python Packet.item_time) right across the discontinuity. Served over HTTP on 127.0.0.1."""
from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import serve  # noqa: E402

TB = 90000  # MPEG-TS


def probe(path: Path) -> List[dict]:
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                   "packet=pts,dts,size,flags", "-of", "json", str(path)])
    return json.loads(out)["packets"]


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    """Two encodes (different pts bases), 4 segments of 1.5 s each (GOP 45 at 30 fps)."""
    d = tmp_path_factory.mktemp("timeline")
    for name, src, offset in (("a", "testsrc2", "0"), ("b", "smptebars", "100")):
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"{src}=size=128x96:rate=30", "-t", "6",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "45", "-keyint_min", "45", "-sc_threshold", "0",
                        "-bf", "2", "-output_ts_offset", offset, "-f", "hls", "-hls_time", "1.5",
                        "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / f"{name}%d.ts"),
                        str(d / f"{name}.m3u8")], check=True)
    pk = {f"{n}{i}.ts": probe(d / f"{n}{i}.ts") for n in "ab" for i in range(4)}
    for k, v in pk.items():  # the shape the test relies on: 45 frames a segment
        assert len(v) == 45, (k, len(v))
    with serve(d) as base:
        yield d, pk, base


def write(d: Path, name: str, extinf: int, start=None) -> Tuple[str, List[dict]]:
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{max(extinf, 2)}", "#EXT-X-MEDIA-SEQUENCE:0",
             "#EXT-X-PLAYLIST-TYPE:VOD"]
    if start is not None:
        lines.append(f"#EXT-X-START:TIME-OFFSET={start}")
    segs = []
    for n, dom in (("a", 0), ("b", 1)):
        if n == "b":
            lines.append("#EXT-X-DISCONTINUITY")
        for i in range(4):
            lines += [f"#EXTINF:{extinf},", f"{n}{i}.ts"]
            segs.append(dict(file=f"{n}{i}.ts", domain=dom, start=Fraction(extinf * len(segs))))
    lines.append("#EXT-X-ENDLIST")
    (d / name).write_text("\n".join(lines) + "\n")
    return name, segs


class Truth:
    """The header's placement and SegmentLanding's choice, on ffprobe's packets."""

    def __init__(self, segs: List[dict], pk: Dict[str, List[dict]]):
        self.segs = segs
        self.frames = [sorted(int(p["pts"]) for p in pk[s["file"]]) for s in segs]
        self.anchor: Dict[int, Tuple[int, int]] = {}
        for i, s in enumerate(segs):
            if s["domain"] not in self.anchor:
                self.anchor[s["domain"]] = (math.floor(s["start"] * TB), self.frames[i][0])

    def ticks(self, i: int, pts: int) -> int:
        t0, p0 = self.anchor[self.segs[i]["domain"]]
        return t0 + pts - p0

    def item_time(self, i: int, pts: int) -> Fraction:
        return Fraction(self.ticks(i, pts), TB)

    def origin(self, i: int) -> int:
        t0, p0 = self.anchor[self.segs[i]["domain"]]
        return p0 - t0

    def covering(self, t: Fraction) -> int:
        target = t * TB
        i = max(k for k, s in enumerate(self.segs) if s["start"] * TB <= target) if t >= 0 else 0
        first = self.ticks(i, self.frames[i][0])
        last = self.ticks(i, self.frames[i][-1])
        cont = lambda a, b: self.segs[a]["domain"] == self.segs[b]["domain"]  # noqa: E731
        if target < first:
            return i - 1 if i > 0 and cont(i - 1, i) else i
        if target > last and i + 1 < len(self.segs) and cont(i, i + 1) and \
                self.ticks(i + 1, self.frames[i + 1][0]) <= target:
            return i + 1
        return i

    def exact(self, t: Fraction) -> int:
        i = self.covering(t)
        at = [p for p in self.frames[i] if self.ticks(i, p) <= t * TB]
        return max(at) if at else self.frames[i][0]

    @property
    def last_item_time(self) -> Fraction:
        return self.item_time(len(self.segs) - 1, self.frames[-1][-1])


def open_player(url: str):
    from fastpix_seek import Player
    p = Player(url)
    st = p.wait_item(timeout=20)
    assert st.status.name == "READY", st
    return p


def targets(truth: Truth, n: int, seed: str) -> List[Fraction]:
    rng = random.Random(seed)
    end = truth.last_item_time
    out = [Fraction(rng.randrange(0, int(end * 1000)), 1000) for _ in range(n)]
    # near every listed start and every domain's frame edges
    for s in truth.segs:
        out += [s["start"], s["start"] + Fraction(1, 100)]
    return sorted({t for t in out if 0 <= t <= end})


@pytest.mark.parametrize("extinf", [2, 1])
@pytest.mark.parametrize("start", [None, 9])
def test_same_item_time_same_frame_fresh_and_after_history(media, extinf, start):
    from fastpix_seek import SeekPrecision
    from fastpix_seek.errors import EndOfFile
    d, pk, base = media
    name, segs = write(d, f"tl{extinf}_{start}.m3u8", extinf, start)
    truth = Truth(segs, pk)
    url = f"{base}/{name}"
    ts = targets(truth, 6, f"{extinf}{start}")
    fresh = {}
    for t in ts[::3] if len(ts) > 12 else ts:
        with open_player(url) as p:
            fresh[t] = p.seek_and_wait(t, SeekPrecision.exact()).landed_stream_pts
    rng = random.Random(f"h{extinf}{start}")
    with open_player(url) as p:
        order = list(ts)
        rng.shuffle(order)
        wrong = []
        for t in order:
            # other work in between: reads, steps, seeks elsewhere
            if rng.random() < 0.5:
                p.step_frame()
            if rng.random() < 0.3:
                try:
                    p.read_packet()
                except EndOfFile:
                    pass
            o = p.seek_and_wait(t, SeekPrecision.exact())
            assert o.finished, o
            want = truth.exact(t)
            if o.landed_stream_pts != want or (t in fresh and fresh[t] != want):
                wrong.append((str(t), want, o.landed_stream_pts, fresh.get(t)))
            assert o.landed_time == truth.item_time(truth.covering(t), o.landed_stream_pts)
        assert not wrong, wrong


@pytest.mark.parametrize("start", [None, 9])
def test_start_pts_item_origin_and_playhead(media, start):
    from fastpix_seek import SeekPrecision
    d, pk, base = media
    name, segs = write(d, f"origin_{start}.m3u8", 2, start)
    truth = Truth(segs, pk)
    with open_player(f"{base}/{name}") as p:
        info = p.item_info()
        assert info.start_pts == truth.frames[0][0]  # item time 0 == pts start_pts, first domain
        first_seg = 0 if start is None else 4        # EXT-X-START 9 s: b0, listed [8, 10)
        assert p.current_time() == truth.item_time(first_seg, truth.frames[first_seg][0])
        got = []
        for _ in range(200 if start is None else 100):
            got.append(p.read_packet())
        # every packet's item time is the header's placement, across the discontinuity
        order = [i for i in range(first_seg, 8) for _ in pk[segs[i]["file"]]]
        pts_in = [int(x["pts"]) for i in range(first_seg, 8) for x in pk[segs[i]["file"]]]
        for k, pkt in enumerate(got):
            i = order[k]
            assert pkt.pts == pts_in[k]
            assert pkt.item_time == truth.item_time(i, pkt.pts), (k, i)
        if start is None:
            assert got[180].is_discontinuity and got[180].pts == pts_in[180]
        # a seek into domain b, then a step: item times still on the same rule
        o = p.seek_and_wait(Fraction(23, 2), SeekPrecision.exact())
        assert o.landed_time == truth.item_time(truth.covering(Fraction(23, 2)), o.landed_stream_pts)
        assert p.current_time() == o.landed_time


def test_fmp4_start_pts_and_item_time(tmp_path):
    """fMP4 (EXT-X-MAP): start_pts is the first frame's pts (B-frames: not 0), and every
    packet's item_time is (pts - start_pts) x time base, against ffprobe."""
    from fastpix_seek import Player
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=25", "-t", "3",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                    "-hls_segment_filename", str(tmp_path / "f%d.m4s"), str(tmp_path / "f.m3u8")], check=True)
    out = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts:stream=time_base",
         "-of", "json", str(tmp_path / "f.m3u8")]))
    tb = Fraction(out["streams"][0]["time_base"])
    pts = [int(p["pts"]) for p in out["packets"]]
    first = min(pts)
    with serve(tmp_path) as base, Player(f"{base}/f.m3u8") as p:
        assert p.wait_item(timeout=20).status.name == "READY"
        info = p.item_info()
        assert info.start_pts == first and info.time_base == tb
        got = [p.read_packet() for _ in range(len(pts))]
        assert [x.pts for x in got] == pts
        assert all(x.item_time == (x.pts - first) * tb for x in got)
