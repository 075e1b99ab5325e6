"""HLS time and memory bounds (issue 18, items 4 and 5): real HTTP servers on 127.0.0.1, the
plain C hosts Tests/c/hostile.c and Tests/c/manyplayers.c in subprocesses, so timings and RSS
are the host's own.

* 18.5a: a VOD whose last segment is served at 1 byte/s. The open tries it once (to find the
  last frame) and times out; a seek into it fails with FPX_ERROR_TIMEOUT; seeks into segments
  already fetched then take milliseconds (0.3.0: every seek re-downloaded the last segment
  for the seekable range and waited the whole I/O timeout).
* 18.5b: 50 HLS VOD players opened at once, THREAD and HOST delivery: all READY within 2 s
  each (measured 0.4-0.6 s on 2 cores). The 7.7 s vs 2.7 s of the issue was the test
  server's listen backlog (Python's default, 5: dropped SYNs, retransmitted after 1 s, 3 s,
  7 s), not the delivery mode; see rangeserver.BACKLOG.

Every server started here is stopped here.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path
from typing import List

import pytest

from rangeserver import serve
from test_untrusted import HostRun, Server, hostile_bin, host, server  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "Include"
MANY_C = REPO / "Tests" / "c" / "manyplayers.c"


def compile_host(src: Path, library: Path, out: Path) -> Path:
    libdir = library.parent
    linkdir = libdir
    if not (libdir / "libfastpixseek.so").exists():
        linkdir = out.parent
        if not (linkdir / "libfastpixseek.so").exists():
            (linkdir / "libfastpixseek.so").symlink_to(library)
    cmd = [os.environ.get("CC", "cc"), "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
           f"-I{INCLUDE}", str(src), f"-L{linkdir}", "-lfastpixseek", "-lpthread",
           f"-Wl,-rpath,{libdir}", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"compiling {src.name} failed:\n{shlex.join(cmd)}\n{proc.stderr}", pytrace=False)
    return out


@pytest.fixture(scope="session")
def many_bin(library: Path, tmp_path_factory) -> Path:
    return compile_host(MANY_C, library, tmp_path_factory.mktemp("many") / "manyplayers")


@pytest.fixture(scope="module")
def vod(tmp_path_factory) -> Path:
    """An 8 s H.264 VOD in four 2 s MPEG-TS segments (seg0.ts ... seg3.ts)."""
    d = tmp_path_factory.mktemp("vod")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "8",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-f", "hls", "-hls_time", "2",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "seg%d.ts"),
                    str(d / "vod.m3u8")], check=True)
    assert (d / "vod.m3u8").read_text().count("#EXTINF") == 4
    return d


def serve_vod(server: Server, vod: Path, slow: str) -> str:
    """Serves the VOD; segment `slow` at 1 byte per second."""
    server.text("/vod.m3u8", (vod / "vod.m3u8").read_text())
    for i in range(4):
        name = f"seg{i}.ts"
        data = (vod / name).read_bytes()
        if name != slow:
            server.file("/" + name, data)
            continue

        def trickle(h, data=data):
            h.send_response(200)
            h.send_header("Content-Type", "video/mp2t")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            for k in range(len(data)):
                if server.stop.is_set():
                    return
                h.wfile.write(data[k:k + 1])
                h.wfile.flush()
                server.stop.wait(1.0)
        server.routes["/" + name] = trickle
    return f"{server.base}/vod.m3u8"


T_MS = 2000


def seeks(r: HostRun) -> List[dict]:
    return [l for l in r.lines if l.get("cmd") == "seek"]


@pytest.mark.parametrize("slow", ["seg3.ts", "seg1.ts"])
def test_seeks_after_a_stalled_segment_take_no_timeout(host, server, vod: Path, slow: str):
    """seg3 (the last segment, which the open demuxes for the last frame) or seg1 at 1 B/s:
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
