"""HLS time and memory bounds (issue 18, items 4 and 5): real HTTP servers on 127.0.0.1, the
plain C hosts Tests/c/hostile.c and Tests/c/manyplayers.c in subprocesses, so timings and RSS
are the host's own.

* 18.5a: a VOD whose last segment stalls after its first byte (a server that goes silent;
  one that keeps dripping is test_io_pace.py's). The open tries it once (to find the
  last frame) and times out; a seek into it fails with FPX_ERROR_TIMEOUT; seeks into segments
  already fetched then take milliseconds (0.3.0: every seek re-downloaded the last segment
  for the seekable range and waited the whole I/O timeout).
* 18.5b: 50 HLS VOD players opened at once, THREAD and HOST delivery: all READY within 2 s
  each (measured 0.4-0.6 s on 2 cores). The 7.7 s vs 2.7 s of the issue was the test
  server's listen backlog (Python's default, 5: dropped SYNs, retransmitted after 1 s, 3 s,
  7 s), not the delivery mode; see rangeserver.BACKLOG.

* 18.4: a 550,000-segment VOD playlist opens within max_buffer_bytes (peak RSS growth under
  the cap, measured from /proc in the host), or fails with FPX_ERROR_TOO_LARGE under smaller
  caps; the segment-count cap (1,000,000) and the 16 MiB text cap.

Every server started here is stopped here.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import List

import pytest

from rangeserver import serve
from sharedfixtures import REPO, compile_host
from test_untrusted import HostRun, Server, hostile_bin, host, server  # noqa: F401 (fixtures)

MANY_C = REPO / "Tests" / "c" / "manyplayers.c"


@pytest.fixture(scope="session")
def many_bin(library: Path, tmp_path_factory) -> Path:
    return compile_host(MANY_C, library, tmp_path_factory.mktemp("many") / "manyplayers")


def write_vod(d: Path, seconds: int, segment: int) -> Path:
    """A 160x120 H.264 VOD of `seconds` in MPEG-TS segments of `segment` s (GOP 1 s):
    d/vod.m3u8 and d/seg0.ts, seg1.ts, ..."""
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", str(seconds),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-f", "hls", "-hls_time", str(segment),
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "seg%d.ts"),
                    str(d / "vod.m3u8")], check=True)
    assert (d / "vod.m3u8").read_text().count("#EXTINF") == seconds // segment
    return d


@pytest.fixture(scope="module")
def vod(tmp_path_factory) -> Path:
    """An 8 s H.264 VOD in four 2 s MPEG-TS segments (seg0.ts ... seg3.ts)."""
    return write_vod(tmp_path_factory.mktemp("vod"), 8, 2)


def serve_vod(server: Server, vod: Path, slow: str) -> str:
    """Serves the VOD; segment `slow` sends its first byte and then nothing (a stall)."""
    server.text("/vod.m3u8", (vod / "vod.m3u8").read_text())
    for i in range(4):
        name = f"seg{i}.ts"
        data = (vod / name).read_bytes()
        if name != slow:
            server.file("/" + name, data)
            continue

        def stall(h, data=data):
            h.send_response(200)
            h.send_header("Content-Type", "video/mp2t")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data[:1])
            h.wfile.flush()
            server.stop.wait()
        server.routes["/" + name] = stall
    return f"{server.base}/vod.m3u8"


T_MS = 2000


def seeks(r: HostRun) -> List[dict]:
    return [l for l in r.lines if l.get("cmd") == "seek"]


@pytest.mark.parametrize("slow", ["seg3.ts", "seg1.ts"])
def test_seeks_after_a_stalled_segment_take_no_timeout(host, server, vod: Path, slow: str):
    """seg3 (the last segment, which the open demuxes for the last frame) or seg1 stalled:
    the seek into it times out once, within T + 0.5 s; every later seek into a segment that
    is already held (seg0, fetched at open) or fast (seg2) takes well under T."""
    url = serve_vod(server, vod, slow)
    into_slow = "7" if slow == "seg3.ts" else "3"
    r = host(url, "wait", "seek", into_slow, "seek", "0.5", "seek", "1.0", "seek", "5", "seek", "0.2",
             options=["--timeout", str(T_MS)], timeout=60)
    w = r.one("wait")
    assert w["rc"] == 0 and w["status"] == 2, r.describe()
    s = seeks(r)
    assert len(s) == 5, r.describe()
    assert s[0]["error"] == "FPX_ERROR_TIMEOUT", r.describe()
    assert s[0]["ms"] < T_MS + 500, r.describe()
    for later in s[1:]:
        assert later["error"] == "FPX_OK", r.describe()
        assert later["ms"] < 500, r.describe()
    # The last segment was tried by the open and by the seek into it, never by the others.
    if slow == "seg3.ts":
        assert server.requests.count("/seg3.ts") == 2, server.requests


@pytest.mark.parametrize("mode", ["thread", "host"])
def test_fifty_hls_players_open_at_once(many_bin: Path, vod: Path, mode: str):
    """50 VOD players opened together over 127.0.0.1 are all READY within 2 s, in either
    delivery mode (best of two runs, for a machine shared with other work)."""
    runs = []
    with serve(vod) as base:
        for _ in range(2):
            p = subprocess.run([str(many_bin), f"{base}/vod.m3u8", "50", mode], capture_output=True, text=True,
                               timeout=120)
            assert p.returncode == 0, p.stdout + p.stderr
            j = json.loads(p.stdout)
            assert j["failed"] == 0, j
            runs.append(j["ready_ms"])
            if j["ready_ms"] < 2000:
                break
    assert min(runs) < 2000, runs


# ---------------------------------------------------------------------------------------------
# 18.4: playlist memory
# ---------------------------------------------------------------------------------------------

MiB = 1 << 20


def big_playlist(n: int) -> str:
    """A VOD of n 2 s segments, every one the same 2 s TS file (s.ts?N): 23 bytes a segment."""
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0",
             "#EXT-X-PLAYLIST-TYPE:VOD"]
    for i in range(n):
        lines += ["#EXTINF:2,", f"s.ts?{i}"]
    lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def serve_big(server: Server, vod: Path, n: int) -> str:
    server.text("/big.m3u8", big_playlist(n))
    server.file("/s.ts", (vod / "seg0.ts").read_bytes())
    return f"{server.base}/big.m3u8"


def test_550000_segments_open_within_the_cap(host, server, vod: Path):
    """0.3.0: a 15 MB playlist of 550,000 segments held 351 MB resident (439 MB peak) for one
    player. Now the text and the parsed segments count against max_buffer_bytes (default
    64 MiB): the player opens READY, and the process's peak RSS grows by less than the cap
    over the same host opening a 4-segment playlist. Seeks at both ends land in milliseconds
    (a binary search, not a pass over the segments)."""
    url = serve_big(server, vod, 550_000)
    assert len(big_playlist(550_000)) < 16 * MiB
    # The baseline: same host, same server, a 4-segment VOD.
    server.text("/small.m3u8", big_playlist(4))
    base = host(f"{server.base}/small.m3u8", "wait", "rss", options=["--timeout", "20000"])
    assert base.one("wait")["rc"] == 0, base.describe()
    r = host(url, "wait", "rss", "seek", "1099990", "seek", "3", "rss", options=["--timeout", "20000"], timeout=120)
    w = r.one("wait")
    assert w["rc"] == 0 and w["status"] == 2, r.describe()
    grown = r.one("rss")["hwm_kb"] * 1024 - base.one("rss")["hwm_kb"] * 1024
    assert grown < 64 * MiB, (grown, r.describe())
    for s in seeks(r):
        assert s["error"] == "FPX_OK" and s["ms"] < 1000, r.describe()


@pytest.mark.parametrize("cap", [16 * MiB, 40 * MiB])
def test_550000_segments_past_a_smaller_cap_fail_typed(host, server, vod: Path, cap: int):
    """With max_buffer_bytes below what the playlist needs (16 MiB: less than the text plus
    its segments; 40 MiB: the text fits, its segments do not), the open fails with
    FPX_ERROR_TOO_LARGE, and the peak RSS stays under the baseline plus the cap."""
    url = serve_big(server, vod, 550_000)
    server.text("/small.m3u8", big_playlist(4))
    base = host(f"{server.base}/small.m3u8", "wait", "rss", options=["--timeout", "20000"])
    r = host(url, "wait", "rss", options=["--timeout", "20000", "--cap", str(cap)], timeout=120)
    assert r.one("wait")["item_error"] == "FPX_ERROR_TOO_LARGE", r.describe()
    grown = r.one("rss")["hwm_kb"] * 1024 - base.one("rss")["hwm_kb"] * 1024
    assert grown < cap, (grown, r.describe())


def test_segment_count_cap(host, server, vod: Path):
    """More than 1,000,000 segments (the header's segment-count cap) is FPX_ERROR_TOO_LARGE,
    whatever max_buffer_bytes allows; the playlist (1,000,001 segments of 13 bytes) is under
    the 16 MiB playlist cap."""
    lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
    lines += ["#EXTINF:1,\ns.ts"] * 1_000_001
    lines.append("#EXT-X-ENDLIST")
    body = "\n".join(lines) + "\n"
    assert len(body) < 16 * MiB
    server.text("/many.m3u8", body)
    server.file("/s.ts", (vod / "seg0.ts").read_bytes())
    r = host(f"{server.base}/many.m3u8", "wait", options=["--timeout", "20000", "--cap", str(1 << 30)], timeout=120)
    assert r.one("wait")["item_error"] == "FPX_ERROR_TOO_LARGE", r.describe()
    # One segment fewer opens.
    lines.pop(3)
    server.text("/many.m3u8", "\n".join(lines) + "\n")
    r = host(f"{server.base}/many.m3u8", "wait", options=["--timeout", "20000", "--cap", str(1 << 30)], timeout=120)
    assert r.one("wait")["status"] == 2, r.describe()


def test_playlist_over_16_mib_is_too_large(host, server, vod: Path):
    """The playlist text cap: more than 16 MiB is FPX_ERROR_TOO_LARGE (from Content-Length)."""
    body = big_playlist(10) + "#" * (16 * MiB) + "\n"
    server.text("/huge.m3u8", body)
    server.file("/s.ts", (vod / "seg0.ts").read_bytes())
    r = host(f"{server.base}/huge.m3u8", "wait", options=["--timeout", "20000", "--cap", str(1 << 30)])
    assert r.one("wait")["item_error"] == "FPX_ERROR_TOO_LARGE", r.describe()
