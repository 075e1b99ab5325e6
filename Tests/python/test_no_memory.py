"""Media-driven allocations under a low address-space limit (issue 18.3): the C host
Tests/c/hostile.c runs with RLIMIT_AS (what `ulimit -v` sets) a little above what it needs to
open, seek and read a small HLS VOD, and is then handed media whose sizes come from the server
or the playlist: a segment with a large Content-Length, a segment without one, an init section,
a playlist of many segments. Each must fail with FPX_ERROR_NO_MEMORY (the item's error), and
the process must live on: it exits 0 after destroying the player, and nothing reaches its
stderr (0.3.0 reserved such sizes with Swift arrays, whose failed allocation aborts the
process: "Fatal error: failed to allocate").

The limit is the lowest RLIMIT_AS under which the host still opens, seeks and reads a small
HLS VOD (found by bisection), plus HEADROOM (24 MiB): room for the library's and the Swift
runtime's small allocations (header section 6 says those can still abort when a process has no
memory left at all), far less than the media asks for (56 MiB).

Every server started here is stopped here.
"""
from __future__ import annotations

import resource
import subprocess
import time
from pathlib import Path

import pytest

from test_hls_bounds import vod  # noqa: F401 (fixture)
from test_untrusted import HostRun, Server, hostile_bin, playlist, server  # noqa: F401 (fixtures)

MiB = 1 << 20
HEADROOM = 24 * MiB
BIG = 56 * MiB          # under the default cap (64 MiB), far over the headroom


def run_limited(hostile: Path, url: str, *commands: str, limit: int = 0, options=(), timeout: float = 60) -> HostRun:
    cmd = [str(hostile), "--timeout", "20000", *options, url, *commands]

    def pre():
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, preexec_fn=pre)
    return HostRun(cmd, proc, time.monotonic() - t0)


def small_vod_works(hostile: Path, url: str, limit: int) -> bool:
    try:
        r = run_limited(hostile, url, "wait", "seek", "1", "read", "100", "destroy", limit=limit, timeout=30)
    except subprocess.TimeoutExpired:
        return False
    try:
        return (r.returncode == 0 and r.stderr == "" and r.one("wait")["status"] == 2
                and r.one("seek")["error"] == "FPX_OK" and r.one("read")["packets"] == 100)
    except (AssertionError, KeyError):
        return False


@pytest.fixture(scope="module")
def limit(hostile_bin: Path, vod: Path) -> int:
    """The lowest RLIMIT_AS (to 1 MiB) under which the host opens, seeks and reads the small
    VOD, by bisection, plus HEADROOM. The small VOD works under the result (checked), so
    the limit is not what fails below: the media's own sizes are."""
    s = Server()
    try:
        s.text("/small.m3u8", (vod / "vod.m3u8").read_text())
        for i in range(4):
            s.file(f"/seg{i}.ts", (vod / f"seg{i}.ts").read_bytes())
        url = f"{s.base}/small.m3u8"
        r = run_limited(hostile_bin, url, "wait", "rss")
        hi = r.one("rss")["vm_peak_kb"] * 1024 + HEADROOM
        assert small_vod_works(hostile_bin, url, hi), r.describe()
        lo = 16 * MiB
        while hi - lo > MiB:
            mid = (lo + hi) // 2
            if small_vod_works(hostile_bin, url, mid):
                hi = mid
            else:
                lo = mid
        lim = hi + HEADROOM
        for _ in range(3):
            assert small_vod_works(hostile_bin, url, lim), lim
        return lim
    finally:
        s.close()


def assert_no_memory(r: HostRun):
    assert r.returncode == 0, r.describe()               # not killed by an abort
    assert r.stderr == "", r.describe()                  # the library prints nothing; no "Fatal error"
    w = r.one("wait")
    assert w["status"] == 3 and w["item_error"] == "FPX_ERROR_NO_MEMORY", r.describe()
    assert r.one("destroy")["rc"] == 0, r.describe()


def test_segment_with_a_large_content_length(hostile_bin: Path, server: Server, limit: int):
    server.file("/big.ts", bytes(BIG))
    server.text("/big.m3u8", playlist("big.ts"))
    assert_no_memory(run_limited(hostile_bin, f"{server.base}/big.m3u8", "wait", "destroy", limit=limit))


def test_segment_without_content_length(hostile_bin: Path, server: Server, fixtures_dir: Path, limit: int):
    """Close-delimited, never ending: the buffer grows as bytes arrive until an allocation
    fails (without the limit the same segment stops at the cap: TOO_LARGE, test_untrusted)."""
    server.endless("/endless.ts", (fixtures_dir / "ts.ts").read_bytes())
    server.text("/endless.m3u8", playlist("endless.ts"))
    assert_no_memory(run_limited(hostile_bin, f"{server.base}/endless.m3u8", "wait", "destroy", limit=limit,
                                 timeout=120))


def test_segment_byte_range_from_the_playlist(hostile_bin: Path, server: Server, limit: int):
    """EXT-X-BYTERANGE: the size comes from the playlist (the server sends what it is asked)."""
    server.file("/one.ts", bytes(BIG + MiB))
    text = playlist("one.ts").replace("#EXTINF:10.0,\n", f"#EXTINF:10.0,\n#EXT-X-BYTERANGE:{BIG}@0\n")
    server.text("/range.m3u8", text.replace("#EXT-X-VERSION:3", "#EXT-X-VERSION:4"))
    assert_no_memory(run_limited(hostile_bin, f"{server.base}/range.m3u8", "wait", "destroy", limit=limit))


def test_init_section(hostile_bin: Path, server: Server, limit: int):
    """EXT-X-MAP: an init section of 15 MiB (under its own 16 MiB cap, and under the headroom)
    and a 40 MiB segment behind it: the init section is fetched, the buffer for the two
    together is not."""
    server.file("/init.mp4", bytes(15 * MiB))
    server.file("/s.m4s", bytes(40 * MiB))
    text = playlist("s.m4s").replace("#EXT-X-MEDIA-SEQUENCE:0", '#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-MAP:URI="init.mp4"')
    server.text("/fmp4.m3u8", text.replace("#EXT-X-VERSION:3", "#EXT-X-VERSION:6"))
    assert_no_memory(run_limited(hostile_bin, f"{server.base}/fmp4.m3u8", "wait", "destroy", limit=limit))


def test_playlist_of_many_segments(hostile_bin: Path, server: Server, vod: Path, limit: int):
    """1,000,000 segments (13 MB of text, 56 MB of table: under the 1 GiB cap set here):
    the table's allocation fails typed."""
    lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
    lines += ["#EXTINF:1,\ns.ts"] * 1_000_000
    lines.append("#EXT-X-ENDLIST")
    server.text("/many.m3u8", "\n".join(lines) + "\n")
    server.file("/s.ts", (vod / "seg0.ts").read_bytes())
    assert_no_memory(run_limited(hostile_bin, f"{server.base}/many.m3u8", "wait", "destroy", limit=limit,
                                 options=["--cap", str(1 << 30)]))
