"""The I/O deadline against the pace of a server (issue 26.4; seek.h section 8, "Time bounds"):
real HTTP servers on 127.0.0.1 and the plain C host Tests/c/hostile.c in subprocesses.

* Slow but steady succeeds: an HLS segment at 6 KB/s and at 20 KB/s (ten pieces a second,
  never silent 0.1 s), an AES-128 key at 1 byte/s and an MP4 over plain http at 20 KB/s,
  each taking several I/O timeouts in all. (0.4 re-armed the deadline only between reads of
  up to 64 KiB, and bounded a whole open by one timeout: each of these failed with
  FPX_ERROR_TIMEOUT after one.)
* A transfer that drips forever is stopped by the overall bound, 16 x the I/O timeout, with
  FPX_ERROR_TIMEOUT: a segment with no end, and an MP4 whose open never gets its header.
* A silent server still fails within one I/O timeout.

The four hosts of a test run at once (the 1 B/s key takes 15 s whatever else happens), so
each test lasts about as long as its slowest host. Every server started here is stopped here.
"""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict

import pytest

from test_hls_bounds import write_vod
from test_untrusted import HostRun, Server, hostile_bin, host, server  # noqa: F401 (fixtures)

KEY = bytes(range(0x30, 0x40))
IV = "000102030405060708090a0b0c0d0e0f"
FACTOR = 16  # Deadline.overallFactor: the overall bound is 16 x T


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Path:
    """A 4 s 160x120 H.264 VOD in four 1 s MPEG-TS segments (about 40 KB each), the same
    segments AES-128 encrypted, and a 4 s MP4 (moov first)."""
    d = write_vod(tmp_path_factory.mktemp("pace"), 4, 1)
    for i in range(4):
        subprocess.run(["openssl", "enc", "-aes-128-cbc", "-K", KEY.hex(), "-iv", IV,
                        "-in", str(d / f"seg{i}.ts"), "-out", str(d / f"enc{i}.ts")], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "4",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-movflags", "+faststart",
                    str(d / "plain.mp4")], check=True)
    return d


def paced(server: Server, path: str, data: bytes, rate: int, forever: bool = False, silent_after: int = -1):
    """Serves `data` at `rate` bytes/s in ten pieces a second (a piece of at least one byte:
    1 B/s is one byte a second), honouring a single Range. `forever`: no Content-Length, the
    bytes repeated without end. `silent_after` >= 0: after that many bytes, nothing more
    until the server stops (a stall)."""
    def route(h):
        size = len(data)
        start, end = 0, size - 1
        rng = h.headers.get("Range")
        if rng and not forever:
            a, _, b = rng.replace("bytes=", "").partition("-")
            start = int(a or 0)
            end = min(int(b) if b else size - 1, size - 1)
            h.send_response(206)
            h.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        if forever:
            h.send_header("Connection", "close")
            h.close_connection = True
        else:
            h.send_header("Accept-Ranges", "bytes")
            h.send_header("Content-Length", str(end - start + 1))
        h.end_headers()
        piece = max(1, rate // 10)
        pos, sent = start, 0
        while (forever or pos <= end) and not server.stop.is_set():
            if silent_after >= 0 and sent >= silent_after:
                server.stop.wait()
                return
            n = piece if forever else min(piece, end - pos + 1)
            chunk = bytes(data[(pos + k) % size] for k in range(n)) if forever else data[pos:pos + n]
            h.wfile.write(chunk)
            h.wfile.flush()
            pos += n
            sent += n
            server.stop.wait(n / rate)
    server.routes[path] = route


def serve_site(server: Server, media: Path, prefix: str, slow: Dict[str, Callable[[str, bytes], None]],
               encrypted: bool = False) -> str:
    """The VOD under `prefix`; `slow` maps a file name to how it is served (else at full speed).
    Encrypted: seg0, seg1 and seg3 under key "fast.key", seg2 under "slow.key" (the same key),
    so the open (seg0, and seg3 for the last frame) never needs the slow one."""
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for i in range(4):
        if encrypted and i in (0, 2, 3):
            key = "slow.key" if i == 2 else "fast.key"
            lines.append(f'#EXT-X-KEY:METHOD=AES-128,URI="{key}",IV=0x{IV}')
        lines += ["#EXTINF:1.000000,", f"seg{i}.ts"]
    lines.append("#EXT-X-ENDLIST")
    server.text(f"{prefix}/vod.m3u8", "\n".join(lines) + "\n")
    files = {f"seg{i}.ts": (media / (f"enc{i}.ts" if encrypted else f"seg{i}.ts")).read_bytes() for i in range(4)}
    if encrypted:
        files["fast.key"] = files["slow.key"] = KEY
    for name, data in files.items():
        if name in slow:
            slow[name](f"{prefix}/{name}", data)
        else:
            server.file(f"{prefix}/{name}", data)
    return f"{server.base}{prefix}/vod.m3u8"


def run_all(host, jobs):
    """Runs the hosts of `jobs` ({name: (url, options, commands)}) at once."""
    with ThreadPoolExecutor(len(jobs)) as pool:
        futures = {k: pool.submit(host, url, *cmds, options=opts, timeout=120) for k, (url, opts, cmds) in jobs.items()}
        return {k: f.result() for k, f in futures.items()}


def seek_lines(r: HostRun):
    return [l for l in r.lines if l.get("cmd") == "seek"]


def test_slow_but_steady_servers_succeed(host, server, media: Path):
    """Segments at 6 KB/s and 20 KB/s (T = 1 s; about 7 s and 2 s for seg2), a key at 1 B/s
    (T = 2 s; 15 s for 16 bytes) and an MP4 over http at 20 KB/s (T = 1 s): every open and
    seek succeeds, and takes longer than its I/O timeout (the pace is real)."""
    seg2 = len((media / "seg2.ts").read_bytes())
    jobs = {}
    for rate in (6000, 20000):
        url = serve_site(server, media, f"/r{rate}", {"seg2.ts": lambda p, d, r=rate: paced(server, p, d, r)})
        jobs[rate] = (url, ["--timeout", "1000"], ["wait", "seek", "2.5", "read", "5"])
    url = serve_site(server, media, "/aes", {"slow.key": lambda p, d: paced(server, p, d, 1)}, encrypted=True)
    jobs["key"] = (url, ["--timeout", "2000"], ["wait", "seek", "2.5", "read", "5"])
    paced(server, "/plain.mp4", (media / "plain.mp4").read_bytes(), 20000)
    jobs["plain"] = (f"{server.base}/plain.mp4", ["--timeout", "1000"], ["wait", "seek", "3", "read", "20"])

    runs = run_all(host, jobs)
    for name, r in runs.items():
        w = r.one("wait")
        assert w["rc"] == 0 and w["status"] == 2, f"{name}: {r.describe()}"
        s = seek_lines(r)
        assert len(s) == 1 and s[0]["error"] == "FPX_OK", f"{name}: {r.describe()}"
        rd = r.one("read")
        assert rd["rc"] == 0 and rd["packets"] > 0 and rd["corrupt"] == 0, f"{name}: {r.describe()}"
    # The pace was real: each transfer outlasted its timeout several times over.
    assert seek_lines(runs[6000])[0]["ms"] >= seg2 / 6000 * 1000 * 0.8 > 3 * 1000, runs[6000].describe()
    assert seek_lines(runs[20000])[0]["ms"] >= seg2 / 20000 * 1000 * 0.8 > 1000, runs[20000].describe()
    assert seek_lines(runs["key"])[0]["ms"] >= 14000, runs["key"].describe()
    plain = runs["plain"]
    assert plain.one("wait")["ms"] + seek_lines(plain)[0]["ms"] > 2000, plain.describe()


def test_endless_drips_stop_at_the_overall_bound_and_silence_at_the_timeout(host, server, media: Path):
    """T = 0.5 s. A segment that drips forever (10 bytes a second, no end) fails the seek
    with FPX_ERROR_TIMEOUT at the overall bound, 16 T = 8 s (not before: bytes keep coming);
    an MP4 whose bytes drip forever fails its open the same way at 8 s; a segment that
    sends 1000 bytes and then nothing fails within T of its silence."""
    t = 500
    bound = FACTOR * t
    drip = serve_site(server, media, "/drip",
                      {"seg2.ts": lambda p, d: paced(server, p, d, 10, forever=True)})
    silent = serve_site(server, media, "/silent",
                        {"seg2.ts": lambda p, d: paced(server, p, d, 20000, silent_after=1000)})
    paced(server, "/endless.mp4", (media / "plain.mp4").read_bytes(), 10, forever=True)
    opts = ["--timeout", str(t)]
    runs = run_all(host, {
        "drip": (drip, opts, ["wait", "seek", "2.5", "seek", "0.5"]),
        "silent": (silent, opts, ["wait", "seek", "2.5", "seek", "0.5"]),
        "open": (f"{server.base}/endless.mp4", opts, ["wait"]),
    })
    for name in ("drip", "silent"):
        r = runs[name]
        w = r.one("wait")
        assert w["rc"] == 0 and w["status"] == 2, f"{name}: {r.describe()}"
        s = seek_lines(r)
        assert len(s) == 2 and s[0]["error"] == "FPX_ERROR_TIMEOUT", f"{name}: {r.describe()}"
        # The player plays on: a seek into a held segment is fine.
        assert s[1]["error"] == "FPX_OK", f"{name}: {r.describe()}"
    ms = seek_lines(runs["drip"])[0]["ms"]
    assert bound - 100 <= ms <= bound + 1500, f"a drip stopped after {ms} ms, not at {bound}; {runs['drip'].describe()}"
    ms = seek_lines(runs["silent"])[0]["ms"]
    assert ms <= t + 700, f"a silent segment failed after {ms} ms; {runs['silent'].describe()}"
    w = runs["open"].one("wait")
    assert w["item_error"] == "FPX_ERROR_TIMEOUT", runs["open"].describe()
    assert bound - 100 <= w["ms"] <= bound + 1500, runs["open"].describe()
