"""HLS holes (seek.h, "Gaps"): EXT-X-GAP segments are never fetched; a segment that fails
twice (404, 5xx) is skipped; one that fails once (503, then served) is played. Reads go on
after a hole with a DISCONTINUITY; a seek into one lands on the first frame after it with
a typed reason; holes are counted in the stats and the item status. Served over HTTP on
127.0.0.1 with Range support; ground truth is ffprobe of each segment."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Dict, List

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import RangeHandler, serve  # noqa: E402

N = 6  # one-second segments


def probe(path: Path) -> List[dict]:
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                   "packet=pts,dts,size,flags", "-of", "json", str(path)])
    return json.loads(out)["packets"]


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    d = tmp_path_factory.mktemp("gaps")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=30", "-t", str(N),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "s%d.ts"), str(d / "orig.m3u8")],
                   check=True)
    pk = {i: probe(d / f"s{i}.ts") for i in range(N)}
    return d, pk


def playlist(d: Path, name: str, gap=(), rename: Dict[int, str] = {}) -> str:
    lines = ["#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0",
             "#EXT-X-PLAYLIST-TYPE:VOD"]
    for i in range(N):
        if i in gap:
            lines.append("#EXT-X-GAP")
        lines += ["#EXTINF:1.000000,", rename.get(i, f"s{i}.ts")]
    lines.append("#EXT-X-ENDLIST")
    (d / name).write_text("\n".join(lines) + "\n")
    return name


class Faulty(RangeHandler):
    """Records every GET; answers `fail` paths with their status (a count: that many times)."""
    lock = threading.Lock()
    seen: Counter = Counter()
    fail: Dict[str, List[int]] = {}

    def send_head(self):
        name = self.path.lstrip("/").split("?")[0]
        with Faulty.lock:
            Faulty.seen[name] += 1
            codes = Faulty.fail.get(name)
            code = codes.pop(0) if codes else None
        if code:
            self.send_error(code)
            return None
        return super().send_head()


@pytest.fixture()
def server(media):
    d, _ = media
    Faulty.seen = Counter()
    Faulty.fail = {}
    with serve(d, Faulty) as base:
        yield base


def open_player(url: str):
    from fastpix_seek import Player
    p = Player(url)
    st = p.wait_item(timeout=20)
    assert st.status.name == "READY", st
    return p


def all_packets(p):
    from fastpix_seek.errors import EndOfFile
    out = []
    while True:
        try:
            out.append(p.read_packet())
        except EndOfFile:
            return out


def first_frame(pk) -> int:
    return min(int(x["pts"]) for x in pk)


CASES = {
    "gap": dict(gap=(2,), fail={}, hole=2, reason="GAP"),
    "missing": dict(rename={3: "nope3.ts"}, fail={}, hole=3, reason="FAILED"),
    "server_error": dict(fail={"s4.ts": [500, 503]}, hole=4, reason="FAILED"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_reads_skip_the_hole_with_a_discontinuity(media, server, case):
    from fastpix_seek import HoleReason
    d, pk = media
    c = CASES[case]
    name = playlist(d, f"{case}.m3u8", gap=c.get("gap", ()), rename=c.get("rename", {}))
    Faulty.fail = {k: list(v) for k, v in c["fail"].items()}
    hole = c["hole"]
    with open_player(f"{server}/{name}") as p:
        got = [x for x in all_packets(p) if x.stream_index == 0]
        want = [x for i in range(N) if i != hole for x in pk[i]]
        assert [(x.pts, x.dts, x.size) for x in got] == \
            [(int(w["pts"]), int(w["dts"]), int(w["size"])) for w in want]
        # The first packet after the hole, and only it (no seek was made), is a DISCONTINUITY.
        after = sum(len(pk[i]) for i in range(hole))
        disc = [k for k, x in enumerate(got) if x.flags & 0x200]
        assert disc == [after], disc
        st = p.item_status()
        assert st.status.name == "READY"
        assert (st.segments_skipped, st.last_skipped_sequence, st.last_skip_reason) == \
            (1, hole, HoleReason[c["reason"]])
        assert p.stats().segments_skipped == 1
    if case == "gap":
        assert Faulty.seen["s2.ts"] == 0  # a GAP is never fetched
    elif case == "missing":
        assert Faulty.seen["nope3.ts"] == 2  # tried, and once more
    else:
        assert Faulty.seen["s4.ts"] == 2


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_seek_into_the_hole_lands_on_the_first_frame_after_it(media, server, case):
    from fastpix_seek import HoleReason, SeekPrecision
    d, pk = media
    c = CASES[case]
    name = playlist(d, f"{case}.m3u8", gap=c.get("gap", ()), rename=c.get("rename", {}))
    Faulty.fail = {k: list(v) for k, v in c["fail"].items()}
    hole = c["hole"]
    with open_player(f"{server}/{name}") as p:
        for prec in (SeekPrecision.exact(), SeekPrecision.nearest_keyframe(Fraction(1, 10))):
            o = p.seek_and_wait(Fraction(2 * hole + 1, 2), prec)  # the middle of the hole
            assert o.finished, o
            assert o.landed_stream_pts == first_frame(pk[hole + 1])
            assert o.landed_past_hole == HoleReason[c["reason"]]
            assert not o.frame_covers_target
            first = p.read_packet()
            assert first.flags & 0x200 and first.pts == int(pk[hole + 1][0]["pts"])
        # A seek elsewhere is ordinary, and the same target lands the same way again.
        o = p.seek_and_wait(Fraction(1, 2), SeekPrecision.exact())
        assert o.finished and o.landed_past_hole == HoleReason.NONE and o.frame_covers_target
        o = p.seek_and_wait(Fraction(2 * hole + 1, 2), SeekPrecision.exact())
        assert o.landed_stream_pts == first_frame(pk[hole + 1])
        assert p.item_status().segments_skipped == 1  # counted once


def test_one_failure_is_retried_and_played(media, server):
    d, pk = media
    name = playlist(d, "flaky.m3u8")
    Faulty.fail = {"s1.ts": [503]}
    with open_player(f"{server}/{name}") as p:
        got = [x for x in all_packets(p) if x.stream_index == 0]
        assert len(got) == sum(len(pk[i]) for i in range(N))
        assert p.item_status().segments_skipped == 0
        assert p.stats().segments_skipped == 0
    assert Faulty.seen["s1.ts"] == 2


def test_steps_cross_the_hole(media, server):
    from fastpix_seek import SeekPrecision
    d, pk = media
    name = playlist(d, "gapstep.m3u8", gap=(2,))
    with open_player(f"{server}/{name}") as p:
        last1 = max(int(x["pts"]) for x in pk[1])
        o = p.seek_and_wait(Fraction(199, 100), SeekPrecision.exact())
        assert o.landed_stream_pts == last1
        r = p.step_frame()
        assert r.did_step and r.landed_stream_pts == first_frame(pk[3])
        r = p.step_frame(direction=__import__("fastpix_seek").FrameStepDirection.BACKWARD)
        assert r.did_step and r.landed_stream_pts == last1
    assert Faulty.seen["s2.ts"] == 0


# --- Holes at the edge (issue 28.6): trailing holes never fail an item that has a readable
# segment; the start falls back to the last readable segment before them (seek.h, "Gaps").

M = 10  # one-second segments


@pytest.fixture(scope="module")
def media10(tmp_path_factory):
    d = tmp_path_factory.mktemp("edge")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=30", "-t", str(M),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "s%d.ts"), str(d / "orig.m3u8")],
                   check=True)
    pk = {i: probe(d / f"s{i}.ts") for i in range(M)}
    return d, pk


@pytest.fixture()
def server10(media10):
    d, _ = media10
    Faulty.seen = Counter()
    Faulty.fail = {}
    with serve(d, Faulty) as base:
        yield base


def edge_playlist(d: Path, name: str, gap=(), rename: Dict[int, str] = {}, live=False, start=None) -> str:
    lines = ["#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0"]
    if not live:
        lines.append("#EXT-X-PLAYLIST-TYPE:VOD")
    if start is not None:
        lines.append(f"#EXT-X-START:TIME-OFFSET={start}")
    for i in range(M):
        if i in gap:
            lines.append("#EXT-X-GAP")
        lines += ["#EXTINF:1.000000,", rename.get(i, f"s{i}.ts")]
    if not live:
        lines.append("#EXT-X-ENDLIST")
    (d / name).write_text("\n".join(lines) + "\n")
    return name


EDGE_CASES = {
    # A live playlist whose last 4 of 10 segments are GAP: its edge (10 - 3 x 1 s) is in them.
    "live_trailing_gaps": dict(live=True, gap=(6, 7, 8, 9), start_at=5),
    # A VOD whose EXT-X-START falls in trailing gaps.
    "vod_start_in_trailing_gaps": dict(start="8.5", gap=(7, 8, 9), start_at=6),
    # ... or in trailing segments that cannot be downloaded (404 twice).
    "vod_start_in_trailing_failures": dict(start="9.5", rename={8: "nope8.ts", 9: "nope9.ts"}, start_at=7),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_trailing_holes_start_at_the_last_readable_segment_before_them(media10, server10, case):
    from fastpix_seek import HoleReason, SeekPrecision
    d, pk = media10
    c = EDGE_CASES[case]
    name = edge_playlist(d, f"{case}.m3u8", gap=c.get("gap", ()), rename=c.get("rename", {}),
                         live=c.get("live", False), start=c.get("start"))
    k = c["start_at"]
    with open_player(f"{server10}/{name}") as p:
        # Reading with no seek starts at that segment's first packet.
        first = p.read_packet()
        assert (first.pts, first.dts) == (int(pk[k][0]["pts"]), int(pk[k][0]["dts"])), (first.pts, pk[k][0])
        st = p.item_status()
        assert st.status.name == "READY" and st.segments_skipped >= 1, st
        # The packets go on to that segment's end (no hole was read as media).
        got = [first] + [p.read_packet() for _ in range(len(pk[k]) - 1)]
        assert [(x.pts, x.dts, x.size) for x in got] == [(int(w["pts"]), int(w["dts"]), int(w["size"])) for w in pk[k]]
        # A seek into the trailing hole lands on the last frame before it (nothing after).
        o = p.seek_and_wait(Fraction(2 * M - 1, 2), SeekPrecision.exact())
        assert o.finished, o
        assert o.landed_stream_pts == max(int(x["pts"]) for x in pk[k])
        assert o.landed_past_hole in (HoleReason.GAP, HoleReason.FAILED) and not o.frame_covers_target
    for i in c.get("gap", ()):
        assert Faulty.seen[f"s{i}.ts"] == 0  # a GAP is never fetched


def test_an_item_of_holes_only_still_fails(media10, server10):
    d, _ = media10
    from fastpix_seek import Player
    name = edge_playlist(d, "allgaps.m3u8", gap=tuple(range(M)))
    from fastpix_seek.errors import NotFoundError
    with Player(f"{server10}/{name}") as p:
        with pytest.raises(NotFoundError):
            p.wait_item(timeout=20)
