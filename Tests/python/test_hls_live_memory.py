"""Bounded live state (issue 28.8): what a live HLS item keeps per segment, per key and per
discontinuity domain is forgotten once it leaves the window, so a long live stream costs the
same memory in its first minute and its hundredth.

The stream is made to grow that state as fast as it can: 0.2 s segments (five a second), each
with its own EXT-X-KEY URI (key rotation: a token per segment in the query), every fifth an
EXT-X-GAP, and a DISCONTINUITY every 20 segments (the content loops), in a 30-segment window
served live by a real HTTP server on 127.0.0.1 (the window slides with the wall clock, as a
packager's would). A host reads the item for LIVE_SECONDS (about 200 segments, 160 keys, 40
holes, 10 domains: the unbounded 0.4 state held all of them). Measured: the library's DEBUG
line after each slide ("HLS live state: ... keys, holes, holes reported, domains") never
exceeds the window's share; the server's log says how many distinct keys were fetched (each
once); the packets are the source segments' (ffprobe), in order; holes are counted once each.
"""
from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import RangeHandler, serve  # noqa: E402

KEY = bytes(range(0x60, 0x70))
IV = "0x" + "00" * 15 + "07"
SEG = 0.2          # seconds per segment
LOOP = 20          # source segments: the content loops (a DISCONTINUITY each time)
WINDOW = 30        # segments in the live playlist
GAP_EVERY = 5      # MSN % 5 == 4 is an EXT-X-GAP
LIVE_SECONDS = 40  # how long the host reads


class LiveKeys(RangeHandler):
    """The live playlist (made per request from the clock), `s<MSN>.ts` (source MSN % LOOP,
    encrypted) and `key?n=<MSN>&token=...` (the same 16 bytes under a URI per segment)."""

    t0 = 0.0
    keys_asked: List[str] = []
    lock = threading.Lock()

    def newest(self) -> int:
        return WINDOW + int((time.monotonic() - self.t0) / SEG)

    def send_bytes(self, body: bytes, ctype: str):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path, _, query = self.path.lstrip("/").partition("?")
        if path == "live.m3u8":
            end = self.newest()
            first = end - WINDOW
            lines = ["#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:1", f"#EXT-X-MEDIA-SEQUENCE:{first}",
                     f"#EXT-X-DISCONTINUITY-SEQUENCE:{first // LOOP}"]
            for n in range(first, end):
                if n % LOOP == 0 and n > first:
                    lines.append("#EXT-X-DISCONTINUITY")
                lines.append(f'#EXT-X-KEY:METHOD=AES-128,URI="key?n={n}&token=viewer{n}",IV={IV}')
                if n % GAP_EVERY == GAP_EVERY - 1:
                    lines.append("#EXT-X-GAP")
                lines += [f"#EXTINF:{SEG:.3f},", f"s{n}.ts"]
            return self.send_bytes(("\n".join(lines) + "\n").encode(), "application/vnd.apple.mpegurl")
        if path == "key":
            with self.lock:
                self.keys_asked.append(query)
            return self.send_bytes(KEY, "application/octet-stream")
        m = re.fullmatch(r"s(\d+)\.ts", path)
        if m:
            self.path = f"/enc{int(m.group(1)) % LOOP}.ts"
            return super().do_GET()
        self.send_error(404)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    d = tmp_path_factory.mktemp("livemem")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-t", str(LOOP * SEG),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "5", "-keyint_min", "5", "-bf", "0",
                    "-f", "hls", "-hls_time", str(SEG), "-hls_playlist_type", "vod",
                    "-hls_segment_filename", str(d / "clear%d.ts"), str(d / "clear.m3u8")], check=True)
    assert (d / f"clear{LOOP - 1}.ts").is_file() and not (d / f"clear{LOOP}.ts").exists()
    packets = {}
    for i in range(LOOP):
        subprocess.run(["openssl", "aes-128-cbc", "-K", KEY.hex(), "-iv", IV[2:], "-in", str(d / f"clear{i}.ts"),
                        "-out", str(d / f"enc{i}.ts")], check=True)
        out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                       "packet=pts,size", "-of", "json", str(d / f"clear{i}.ts")])
        packets[i] = [(int(p["pts"]), int(p["size"])) for p in json.loads(out)["packets"]]
    return d, packets


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if "HLS live state" in msg:
            self.lines.append(msg)


STATE = re.compile(r"HLS live state: window (\d+) segments, (\d+) keys, (\d+) holes, (\d+) holes reported, "
                   r"(\d+) domains")


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_live_state_stays_within_the_window(source):
    import fastpix_seek
    from fastpix_seek import Player
    d, packets = source
    logger = logging.getLogger("fastpix_seek")
    cap = Capture()
    old = logger.level, logger.propagate
    logger.addHandler(cap)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False  # FFmpeg's DEBUG lines stay out of pytest's log capture
    fastpix_seek.set_log_level(fastpix_seek.FPX_LOG_DEBUG)
    LiveKeys.t0 = time.monotonic()
    LiveKeys.keys_asked = []
    got: List[tuple] = []
    rss: List[int] = []
    try:
        with serve(d, LiveKeys) as base:
            with Player(f"{base}/live.m3u8") as p:
                st = p.wait_item(timeout=20)
                assert st.status.name == "READY", st
                t_end = time.monotonic() + LIVE_SECONDS
                next_rss = time.monotonic() + 5
                while time.monotonic() < t_end:
                    x = p.read_packet()
                    got.append((x.pts, x.size, bool(x.flags & 0x200)))
                    if time.monotonic() >= next_rss:
                        rss.append(rss_kib())
                        next_rss += 5
                skipped = p.stats().segments_skipped
    finally:
        logger.removeHandler(cap)
        logger.setLevel(old[0])
        logger.propagate = old[1]
        fastpix_seek.set_log_level(fastpix_seek.FPX_LOG_INFO)

    states = [tuple(int(g) for g in STATE.search(x).groups()) for x in cap.lines]
    # Many slides were seen (one line per window the host read in: a reload about once a
    # target duration, each sliding the window by about 1 / SEG segments).
    assert len(states) >= LIVE_SECONDS / 2, len(states)
    for window, keys, holes, reported, domains in states:
        assert window == WINDOW
        assert keys <= WINDOW, states       # at most one per window segment (one URI each)
        assert holes <= WINDOW // GAP_EVERY and reported <= WINDOW // GAP_EVERY, states
        assert domains <= WINDOW // LOOP + 2, states
    # Each key was fetched once (a key that left the window is never needed again), and
    # there were many more than a window's worth.
    asked = LiveKeys.keys_asked
    assert len(asked) == len(set(asked)) and len(asked) >= 4 * WINDOW, (len(asked), len(set(asked)))
    assert all("token=viewer" in q for q in asked)
    # Holes: each counted once; about one segment in five of what was read.
    read_segments = len(asked) + skipped
    assert 0.15 * read_segments <= skipped <= 0.25 * read_segments + 2, (skipped, read_segments)
    # The packets are the source's, segment after segment; a hole or a loop restart is a
    # DISCONTINUITY (the packets after it start a source segment).
    flat = {(pts, size) for i in range(LOOP) for pts, size in packets[i]}
    starts = {packets[i][0] for i in range(LOOP)}
    for pts, size, disc in got:
        assert (pts, size) in flat
        if disc:
            assert (pts, size) in starts
    print(f"\nlive state lines: {len(states)}, keys fetched: {len(asked)}, holes: {skipped}, "
          f"packets: {len(got)}, RSS KiB every 5 s: {rss}")
