"""No secret in the log (issue 28.7): no URL of an HLS key (EXT-X-KEY URI), nor its query,
reaches the host's log callback at any level, neither in the library's own lines nor in
FFmpeg's (its http writes `request: GET /key?token=... HTTP/1.1`, the request headers, and a
redirect's `Location` at DEBUG and TRACE). Checked at every level from ERROR to TRACE with a
token in the key URI's query, for a key served directly, one behind a 302 redirect whose
Location carries another token, an absolute key URL, and a key the server refuses (403: the
open fails with FPX_ERROR_ENCRYPTION, named in the log without the URL). The same log at
DEBUG does carry FFmpeg's http request lines for the segments (so the check sees FFmpeg's
lines at all), and the packets are those ffprobe reads from the clear stream.

A Python host: the bindings' log callback (fpx_set_log_callback) into `logging`.
"""
from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import RangeHandler, serve  # noqa: E402

KEY = bytes(range(0x40, 0x50))
N = 3
SECRETS = ["TOKDIRECT", "TOKREDIRECT", "TOKLOCATION", "TOKABSOLUTE", "TOKDENIED"]


class KeyServer(RangeHandler):
    """`redir.key?...` answers 302 to `enc.key?token=TOKLOCATION`; `denied.key` 403."""

    def send_head(self):
        name = self.path.lstrip("/").split("?")[0]
        if name == "redir.key":
            self.send_response(302)
            self.send_header("Location", "/enc.key?token=TOKLOCATION&user=viewer")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if name == "denied.key":
            self.send_error(403)
            return None
        return super().send_head()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("keylog")
    (d / "enc.key").write_bytes(KEY)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=30", "-t", str(N),
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "clear%d.ts"),
                    str(d / "clear.m3u8")], check=True)
    for i in range(N):
        subprocess.run(["openssl", "aes-128-cbc", "-K", KEY.hex(), "-iv", f"{i:032x}", "-in",
                        str(d / f"clear{i}.ts"), "-out", str(d / f"enc{i}.ts")], check=True)
    with serve(d, KeyServer) as base:
        def playlist(name: str, key_uri: str) -> str:
            lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD", f'#EXT-X-KEY:METHOD=AES-128,URI="{key_uri}"']
            for i in range(N):
                lines += ["#EXTINF:1.000000,", f"enc{i}.ts"]
            (d / name).write_text("\n".join(lines + ["#EXT-X-ENDLIST"]) + "\n")
            return f"{base}/{name}"
        urls = {
            "direct": playlist("direct.m3u8", "enc.key?token=TOKDIRECT"),
            "redirect": playlist("redirect.m3u8", "redir.key?token=TOKREDIRECT"),
            "absolute": playlist("absolute.m3u8", f"{base}/enc.key?token=TOKABSOLUTE"),
            "denied": playlist("denied.m3u8", "denied.key?token=TOKDENIED"),
        }
        yield d, urls


def clear_packets(d: Path):
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                   "packet=pts,dts,size", "-of", "json", str(d / "clear.m3u8")])
    return [(int(p["pts"]), int(p["dts"]), int(p["size"])) for p in json.loads(out)["packets"]]


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


LEVELS = ["ERROR", "WARNING", "INFO", "VERBOSE", "DEBUG", "TRACE"]


@pytest.fixture()
def capture():
    import fastpix_seek
    logger = logging.getLogger("fastpix_seek")
    h = Capture()
    old = logger.level
    logger.addHandler(h)
    logger.setLevel(logging.DEBUG)
    try:
        yield h
    finally:
        logger.removeHandler(h)
        logger.setLevel(old)
        fastpix_seek.set_log_level(fastpix_seek.FPX_LOG_INFO)  # the binding's default


def leaks(lines: List[str]) -> List[str]:
    return [x for x in lines if any(s in x for s in SECRETS) or ".key" in x or "token=" in x]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", ["direct", "redirect", "absolute", "denied"])
def test_no_key_url_reaches_the_log(site, capture, level, case):
    import fastpix_seek
    from fastpix_seek import Player
    from fastpix_seek.errors import EncryptionError
    d, urls = site
    fastpix_seek.set_log_level(getattr(fastpix_seek, f"FPX_LOG_{level}"))
    with Player(urls[case]) as p:
        if case == "denied":
            with pytest.raises(EncryptionError):
                p.wait_item(timeout=20)
        else:
            assert p.wait_item(timeout=20).status.name == "READY"
            got = [(x.pts, x.dts, x.size) for x in p.packets() if x.stream_index == 0]
            assert got == clear_packets(d)
    assert not leaks(capture.lines), leaks(capture.lines)[:5]
    if case == "denied":
        # The failure is named (tag and method), without the URL.
        assert any("EXT-X-KEY METHOD=AES-128: the key could not be fetched" in x for x in capture.lines)
    if level in ("DEBUG", "TRACE"):
        # FFmpeg's http lines reach the log: the playlist's and the segments' request lines.
        assert any(f"GET /{case}.m3u8 HTTP/1.1" in x for x in capture.lines), capture.lines[:20]
        if case != "denied":
            assert any("GET /enc0.ts HTTP/1.1" in x for x in capture.lines), capture.lines[:20]
