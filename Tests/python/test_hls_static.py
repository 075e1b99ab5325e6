"""Static HLS playlists written by the tests over real TS segments made by ffmpeg:
discontinuities, EVENT, HOLD-BACK, START, missing PDT, unsupported tags. Ground
truth: ffprobe of the segment files."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from groundtruth import frame_pts

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
sys.path.insert(0, str(REPO / "Bindings" / "python"))


def cli(*args):
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=60)


def frac(t) -> Fraction:
    return Fraction(t["value"], t["timescale"])


@pytest.fixture(scope="module")
def segs(tmp_path_factory):
    """Two encodes, 4 one-second segments each, with different pts bases."""
    d = tmp_path_factory.mktemp("static")
    for name, src, offset in (("a", "testsrc2", "0"), ("b", "smptebars", "100")):
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"{src}=size=160x120:rate=30", "-t", "4",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-output_ts_offset", offset,
                        "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                        "-hls_segment_filename", str(d / f"{name}%d.ts"), str(d / f"{name}.m3u8")], check=True)
    return d


def write(d: Path, name: str, lines) -> Path:
    p = d / name
    p.write_text("\n".join(lines) + "\n")
    return p


def seg_lines(prefix: str, n=4):
    out = []
    for i in range(n):
        out += ["#EXTINF:1.000000,", f"{prefix}{i}.ts"]
    return out


HEAD = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0"]


def test_discontinuity_lands_in_the_second_encode(segs: Path):
    pl = write(segs, "disc.m3u8", HEAD + seg_lines("a") + ["#EXT-X-DISCONTINUITY"] + seg_lines("b") + ["#EXT-X-ENDLIST"])
    for t, seg, off in ((Fraction(9, 2), "b0.ts", Fraction(1, 2)), (Fraction(13, 2), "b2.ts", Fraction(1, 2)),
                        (Fraction(3, 2), "a1.ts", Fraction(1, 2))):
        p = cli("seek", pl, f"{t.numerator}/{t.denominator}", "--precision", "exact", "--json")
        assert p.returncode == 0, p.stderr
        j = json.loads(p.stdout)
        domain_first = frame_pts(segs / (seg[0] + "0.ts"))[0]
        seg_index = int(seg[1])
        target = domain_first + (seg_index + off) * 90000
        frames = frame_pts(segs / seg)
        assert j["landed_stream_pts"] == max(x for x in frames if x <= target), (t, seg)
        assert frac(j["landed"]) <= t


def test_hold_back_sets_the_live_edge(segs: Path):
    pl = write(segs, "holdback.m3u8", HEAD + ["#EXT-X-SERVER-CONTROL:HOLD-BACK=1.5"] + seg_lines("a"))
    w = json.loads(cli("live", pl, "window", "--json").stdout)
    assert w["is_live"] is True
    assert frac(w["end"]) == Fraction(5, 2)
    assert frac(w["hold_back"]) == Fraction(3, 2)
    j = json.loads(cli("seek", pl, "3.5", "--precision", "exact", "--json").stdout)
    assert j["clamp"]["kind"] == "to_seekable_end" and frac(j["clamp"]["clamped_to"]) == Fraction(5, 2)


def test_event_playlist_is_live_from_zero(segs: Path):
    pl = write(segs, "event.m3u8", HEAD + ["#EXT-X-PLAYLIST-TYPE:EVENT"] + seg_lines("a"))
    w = json.loads(cli("live", pl, "window", "--json").stdout)
    assert w["is_live"] is True and frac(w["start"]) == 0
    assert frac(w["end"]) == Fraction(1)  # 4 s - 3 x TARGETDURATION


def test_missing_pdt_is_not_date_addressable(segs: Path):
    pl = write(segs, "nopdt.m3u8", HEAD + seg_lines("a") + ["#EXT-X-ENDLIST"])
    w = json.loads(cli("live", pl, "window", "--json").stdout)
    assert w["is_date_addressable"] is False and w["start_date_us"] is None
    p = cli("live", pl, "date", "1764437000", "--json")
    assert p.returncode == 3 and json.loads(p.stdout)["reason"] == "not_date_addressable"


def test_start_tag_sets_where_reading_begins(segs: Path):
    from fastpix_seek import Player  # the in-tree bindings
    pl = write(segs, "start.m3u8", HEAD + ["#EXT-X-START:TIME-OFFSET=2.5"] + seg_lines("a") + ["#EXT-X-ENDLIST"])
    with Player(str(pl)) as p:
        p.wait_item(timeout=10)
        first = next(iter(p.packets()))
    a2 = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                  "packet=pts", "-of", "csv=p=0", str(segs / "a2.ts")]).split()
    assert first.pts == int(a2[0].rstrip(b","))


# EXT-X-KEY: test_hls_aes.py (AES-128 plays; other methods are FPX_ERROR_ENCRYPTION).
@pytest.mark.parametrize("tag", ["#EXT-X-SKIP:SKIPPED-SEGMENTS=2"])
def test_unsupported_tags_are_a_typed_error(segs: Path, tag: str):
    pl = write(segs, "unsup.m3u8", HEAD + [tag] + seg_lines("a") + ["#EXT-X-ENDLIST"])
    p = cli("live", pl, "window")
    assert p.returncode == 1 and "FPX_ERROR_UNSUPPORTED" in p.stderr, p.stderr
