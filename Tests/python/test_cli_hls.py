"""fpx-seek on HLS (issue 29.7 / deliverable 6, CLI part): `frame` takes --variant and
--audio as `seek` and `probe` do and lists the variants and renditions; holes (EXT-X-GAP
segments, segments that failed twice) are said in text and JSON by probe, seek and frame;
a TIME whose segment stalls past --timeout fails alone, the others are written (exit 1).
Streams made by ffmpeg and served over HTTP on 127.0.0.1 with Range support; ground truth
is ffprobe of the segments and ffmpeg's decode of the playlist."""
from __future__ import annotations

import json
from fractions import Fraction
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List

import jsonschema
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
SCHEMA = json.loads((REPO / "docs" / "fpx-seek.schema.json").read_text())
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sheetcheck as sc  # noqa: E402
from rangeserver import RangeHandler, serve  # noqa: E402

N = 6  # one-second segments, 30 fps


def conforms(doc, definition: str):
    jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]}).validate(doc)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


def cli(*args, timeout=60) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=timeout)


class Faulty(RangeHandler):
    """`fail` paths answer their statuses (one per request); `stall` paths wait first."""
    lock = threading.Lock()
    fail: Dict[str, List[int]] = {}
    stall: Dict[str, float] = {}

    def send_head(self):
        name = self.path.lstrip("/").split("?")[0]
        with Faulty.lock:
            codes = Faulty.fail.get(name)
            code = codes.pop(0) if codes else None
            pause = Faulty.stall.get(name, 0.0)
        if pause:
            time.sleep(pause)
        if code:
            self.send_error(code)
            return None
        return super().send_head()


def media_playlist(d: Path, name: str, gap=(), rename: Dict[int, str] = {}) -> str:
    lines = ["#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0",
             "#EXT-X-PLAYLIST-TYPE:VOD"]
    for i in range(N):
        if i in gap:
            lines.append("#EXT-X-GAP")
        lines += ["#EXTINF:1.000000,", rename.get(i, f"s{i}.ts")]
    lines.append("#EXT-X-ENDLIST")
    (d / name).write_text("\n".join(lines) + "\n")
    return name


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("clihls")
    # Six one-second segments of 128x96 H.264 (B-frames), for holes and stalls.
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=30", "-t", str(N),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "s%d.ts"), str(d / "orig.m3u8")],
                   check=True)
    # A master with two video-only variants and a separate audio rendition (as test_hls_master.py).
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-f", "lavfi",
                    "-i", "sine=frequency=440:sample_rate=48000", "-t", "3", "-map", "0:v", "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-s:v:0", "160x120", "-s:v:1", "96x72",
                    "-b:v:0", "300k", "-b:v:1", "100k", "-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
                    "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:eng,name:English,default:yes",
                    "-hls_segment_filename", str(d / "m%v_%d.ts"), str(d / "out_%v.m3u8")], check=True)
    first = min(int(p["pts"]) for p in json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "json",
         str(d / "s0.ts")]))["packets"])
    Faulty.fail, Faulty.stall = {}, {}
    with serve(d, Faulty) as base:
        yield d, base, first


def test_frame_takes_variant_and_audio(site, tmp_path):
    d, base, _ = site
    url = f"{base}/master.m3u8"
    for variant, size in (("0", "160,120"), ("1", "96,72")):
        png = tmp_path / f"v{variant}.png"
        r = cli("frame", url, "1.5", "-o", png, "--variant", variant, "--json")
        assert r.returncode == 0, r.stderr
        j = conforms(json.loads(r.stdout), "frame")
        assert [v["selected"] for v in j["variants"]] == [variant == "0", variant == "1"]
        assert j["renditions"][0]["language"] == "eng" and j["renditions"][0]["demuxed"] is True
        assert j["times"][0]["outcome"]["frame_covers_target"] is True
        got = subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of",
                                       "csv=p=0", str(png)], text=True).strip()
        assert got == size
    r = cli("frame", url, "1.5", "-o", tmp_path / "a.png", "--audio", "-1", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["renditions"][0]["demuxed"] is False
    r = cli("frame", url, "1.5", "-o", tmp_path / "t.png", "--variant", "1")
    assert r.returncode == 0 and "variant #1" in r.stdout and "(playing)" in r.stdout, r.stdout
    assert "rendition #0" in r.stdout
    assert cli("frame", url, "1", "-o", tmp_path / "x.png", "--audio", "x").returncode == 2
    assert cli("frame", url, "1", "-o", tmp_path / "x.png", "--variant", "-2").returncode == 2
    r = cli("frame", url, "1", "-o", tmp_path / "x.png", "--variant", "7")
    assert r.returncode == 1 and "INVALID_ARGUMENT" in r.stderr


def test_probe_json_of_a_master_conforms(site):
    d, base, _ = site
    r = cli("probe", f"{base}/master.m3u8", "--json")
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "probe")
    assert j["holes"] == [] and len(j["variants"]) == 2


CASES = {"gap": (dict(gap=(2,)), 2, "gap"), "missing": (dict(rename={3: "nope3.ts"}), 3, "failed")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_holes_in_probe_seek_and_frame(site, tmp_path, case):
    d, base, first = site
    kw, hole, reason = CASES[case]
    url = f"{base}/{media_playlist(d, case + '.m3u8', **kw)}"
    after = hole + 1  # item time of the first frame after the hole (the segments are 1 s)

    r = cli("probe", url, "--json")
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "probe")
    assert len(j["holes"]) == 1
    h = j["holes"][0]
    assert (h["last_sequence"], h["reason"], h["segments"]) == (hole, reason, 1)
    assert h["resumed_at"]["rational"] == f"{after}/1"
    t = cli("probe", url)
    what = "EXT-X-GAP" if reason == "gap" else "failed twice"
    assert f"hole             segment {hole} ({what}), reading went on at {after}.000000 s" in t.stdout, t.stdout

    target = f"{hole}.5"
    r = cli("seek", url, target, "--json")
    assert r.returncode == 0, r.stderr
    o = conforms(json.loads(r.stdout), "seek_outcome")
    assert o["landed_past_hole"] == reason and o["frame_covers_target"] is False
    assert o["landed"]["rational"] == f"{after}/1" and o["landed_stream_pts"] == first + after * 90000
    t = cli("seek", url, target)
    assert "hole        the target is in a hole" in t.stdout, t.stdout
    r = cli("seek", url, "0.5", "--json")
    assert json.loads(r.stdout)["landed_past_hole"] == "none"

    r = cli("frame", url, "0.5", target, "5.5", "-o", tmp_path / "s.png", "--json")
    assert r.returncode == 0, r.stderr
    j = conforms(json.loads(r.stdout), "frame")
    assert [v["outcome"]["landed_past_hole"] for v in j["times"]] == ["none", reason, "none"]
    assert [v["landed_stream_pts"] for v in j["times"]] == [first + 45000, first + after * 90000, first + 495000]
    assert j["holes"] == {"segments_skipped": 1, "last_skipped_sequence": hole, "last_skip_reason": reason}
    t = cli("frame", url, "0.5", target, "5.5", "-o", tmp_path / "s.png")
    lines = t.stdout.splitlines()
    assert "landed on the first frame after it" in lines[1] and "hole" not in lines[0] + lines[2]
    assert f"holes: 1 segment skipped (the latest: segment {hole}, {reason})" in t.stdout


def test_a_time_that_fails_does_not_lose_the_others(site, tmp_path):
    """Segment 3 stalls past --timeout: its TIME fails (TIMEOUT, said on its line and in
    --json), the others are landed, decoded and written; exit status 1."""
    d, base, first = site
    url = f"{base}/{media_playlist(d, 'stall.m3u8')}"
    Faulty.stall = {"s3.ts": 3.0}
    try:
        times = ["0.5", "3.5", "5.5", "1.5"]
        png = tmp_path / "s.png"
        r = cli("frame", url, *times, "-o", png, "--width", "64", "--timeout", "800", "--json")
        assert r.returncode == 1, r.stderr
        assert "1 of 4 times failed" in r.stderr
        j = conforms(json.loads(r.stdout), "frame")
        assert j["written"] is True and j["failed"] == 1
        ok = [v["ok"] for v in j["times"]]
        assert ok == [True, False, True, True]
        assert "TIMEOUT" in j["times"][1]["error"] and j["times"][1]["landed"] is None
        assert [v["landed_stream_pts"] for v in j["times"]] == [first + 45000, None, first + 495000, first + 135000]
        t = cli("frame", url, *times, "-o", png, "--width", "64", "--timeout", "800")
        assert t.returncode == 1
        lines = t.stdout.splitlines()
        assert lines[1].startswith("3.5 s -> failed: the seek did not land") and "TIMEOUT" in lines[1]
        assert lines[-1].startswith(f"wrote {png} (4 frames")
        # One TIME, and it fails: nothing is written, exit 1.
        single = tmp_path / "one.png"
        t = cli("frame", url, "3.5", "-o", single, "--timeout", "800")
        assert t.returncode == 1 and "nothing to write" in t.stderr and not single.exists()
        assert t.stdout.startswith("3.5 s -> failed: the seek did not land")
    finally:
        Faulty.stall = {}
    # The cells: ffmpeg's pictures of the frames at 0.5, 5.5 and 1.5 s; the failed one blank.
    sheet = sc.image(png)
    frames = sc.frames_scaled(d / "orig.m3u8", 64, 48)
    for k, tt in enumerate(times):
        picture = sc.cell(sheet, 4 + k * 68, 4, 64, 48)
        if k == 1:
            assert (picture == 32).all()
            continue
        n = round(float(tt) * 30)
        best, dist = sc.nearest(frames, picture, n)
        assert best == n and dist < 2.0, (tt, best, dist)


def test_conventions_on_hls(site, tmp_path):
    """--timeline stream and another --reference-stream are file options (seek.h: an HLS item
    keeps its automatic reference stream; its times stay on the item timeline): each is a
    clear line and exit status 2. --precision at_or_after lands on HLS items too, across
    segment ends: the first frame at or after t of ffprobe's frames of the playlist."""
    d, base, _ = site
    url = f"{base}/master.m3u8"
    r = cli("seek", url, "1", "--timeline", "stream")
    assert r.returncode == 2 and "--timeline stream is for files" in r.stderr, r.stderr
    r = cli("seek", url, "1", "--reference-stream", "1")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("fpx-seek: --reference-stream 1: stream index 1 was chosen, but an HLS item"), r.stderr
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts",
                          "-of", "csv=p=0", str(d / "orig.m3u8")], capture_output=True, text=True,
                         check=True).stdout
    pts = sorted({int(x.split(",")[0]) for x in out.split() if x.split(",")[0] not in ("", "N/A")})
    start = pts[0]
    for k in (10, 28, 29, 30, 58, 59, 60):  # 1 s segments of 30 frames: the ends among them
        mid = Fraction(pts[k] + pts[k + 1] - 2 * start, 2 * 90000)
        r = cli("seek", f"{base}/orig.m3u8", f"{float(mid):.6f}", "--precision", "at_or_after", "--json")
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout)
        assert got["landed_stream_pts"] == pts[k + 1], (k, got["landed_stream_pts"], pts[k + 1])
        r = cli("seek", f"{base}/orig.m3u8", f"{float(mid):.6f}", "--precision", "exact", "--json")
        assert json.loads(r.stdout)["landed_stream_pts"] == pts[k], k
    r = cli("frame", url, "1.01", "-o", tmp_path / "x.png", "--precision", "at_or_after")
    assert r.returncode == 0 and (tmp_path / "x.png").exists(), r.stderr
    r = cli("seek", url, "1", "--reference-stream", "0", "--precision", "exact", "--json")  # the automatic one
    assert r.returncode == 0 and json.loads(r.stdout)["stream_index"] == 0, r.stderr
