"""Live DASH (issue 31, seek.h "DASH"): a dynamic MPD as ffmpeg's dash muxer writes it in real
time (`-re`, 1 s segments, SegmentTemplate + SegmentTimeline with $Number$, a 6-segment window
whose startNumber and S@t move on, availabilityStartTime, suggestedPresentationDelay), served on
127.0.0.1 by the Range-honouring test server. The item is live like an HLS one: a seekable
window that slides with the reloads, a live edge suggestedPresentationDelay before the newest
segment's end, date seeks by the MPD's clock; when ffmpeg ends, its MPD turns static and the
item ends. The window, edge and dates are checked in ffmpeg's low-latency mode too (`-streaming 1
-ldash 1`: a fragment a frame, Resync elements, no suggestedPresentationDelay).

Ground truth, never the library: the MPD files as served (availabilityStartTime,
suggestedPresentationDelay, startNumber), the segment files on disk (`-extra_window_size` keeps
them) as one file with the initialization: ffprobe's frames and ffmpeg's decoded pictures by
pts. A date D lands on the frame whose date (availabilityStartTime + pts / timescale) covers D.
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import REPO
from framecheck import md5_by_pts
from rangeserver import recording, serve
from hlsframes import FF, check_picture

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402

SECONDS, FPS, TIMESCALE = 16, 25, 12800


def iso_us(text: str) -> Fraction:
    """An xs:dateTime with Z, as Unix microseconds (Python's calendar, not the library)."""
    import calendar
    m = re.fullmatch(r"(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)(\.\d+)?Z", text)
    y, mo, d, h, mi, s = (int(m.group(k)) for k in range(1, 7))
    frac = Fraction(m.group(7) or "0")
    return (calendar.timegm((y, mo, d, h, mi, s)) + frac) * 1_000_000


def attr(text: str, name: str, default=None) -> str:
    m = re.search(rf'{name}="([^"]+)"', text)
    if m is None and default is not None:
        return default
    return m.group(1)


# ffmpeg's modes: its default (whole segments); `-streaming 1 -ldash 1` (low-latency DASH: each
# frame its own fragment, written as it comes, availabilityTimeComplete="false", Resync
# elements, and no suggestedPresentationDelay, so the live edge is 3 target durations back).
MODES = {"segments": [], "streaming": ["-streaming", "1", "-ldash", "1"]}


@pytest.fixture
def live(tmp_path, request):
    """ffmpeg writing the live MPD in real time (in the MODES entry the test names, by default
    "segments"); the server; stopped at the end."""
    mode = MODES[getattr(request, "param", "segments")]
    proc = subprocess.Popen(FF + ["-re", "-f", "lavfi", "-i", f"testsrc2=size=160x120:rate={FPS}", "-t", str(SECONDS),
                                  "-c:v", "libx264", "-preset", "ultrafast", "-g", str(FPS), "-bf", "0", "-f", "dash",
                                  "-seg_duration", "1", "-window_size", "6", "-extra_window_size", "100",
                                  "-use_timeline", "1", "-use_template", "1", *mode, str(tmp_path / "live.mpd")])
    try:
        handler = recording()
        with serve(tmp_path, handler) as base:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                mpd = tmp_path / "live.mpd"
                if mpd.exists() and 'type="dynamic"' in mpd.read_text() and \
                        int(attr(mpd.read_text(), "startNumber")) >= 2:
                    break
                time.sleep(0.2)
            else:
                pytest.fail("ffmpeg wrote no sliding dynamic MPD")
            # The premise of the mode: ffmpeg took -ldash (its MPD says so), or wrote segments.
            assert ('availabilityTimeComplete="false"' in mpd.read_text()) == bool(mode), mpd.read_text()
            yield tmp_path, f"{base}/live.mpd", proc
    finally:
        proc.kill()
        proc.wait(10)


def truth(d: Path) -> dict:
    """Every segment on disk after the initialization, decoded by ffmpeg: md5 by pts."""
    chunks = sorted(d.glob("chunk-stream0-*.m4s"))
    whole = d / "whole.mp4"
    whole.write_bytes((d / "init-stream0.m4s").read_bytes() + b"".join(c.read_bytes() for c in chunks))
    return md5_by_pts(str(whole))


@pytest.mark.parametrize("live", list(MODES), indirect=True)
def test_a_dynamic_mpd_is_live_with_a_sliding_window_an_edge_and_dates(live):
    d, url, proc = live
    text = (d / "live.mpd").read_text()
    ast = iso_us(attr(text, "availabilityStartTime"))
    # Without suggestedPresentationDelay, 3 target durations (seek.h "DASH"; 1 s segments).
    delay = Fraction(attr(text, "suggestedPresentationDelay", "PT3S").strip("PTS"))
    with Player(url) as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        assert p.item_info().format_name == "dash (fastpixseek)"
        w = p.live_seek_window()
        assert w.is_live and w.is_date_addressable, w
        assert w.hold_back == delay
        first = w.first_sequence
        # The window's dates are the MPD's clock: its start is a segment start (whole seconds
        # after availabilityStartTime, 1 s segments), its span the item times'.
        assert (w.start_date_us - ast) % 1_000_000 == 0, (w.start_date_us, ast)
        assert Fraction(w.end_date_us - w.start_date_us, 1_000_000) == w.end - w.start
        # A date in the window lands on the frame whose date covers it, with its picture.
        date = w.start_date_us + (w.end_date_us - w.start_date_us) // 3 + 7_000
        r = p.seek_to_date_and_wait(int(date), SeekPrecision.exact())
        assert r.seeked and r.outcome.finished, r
        pts = int(r.outcome.landed_stream_pts)
        frame = Fraction(1_000_000, FPS)
        assert ast + Fraction(pts * 1_000_000, TIMESCALE) <= date < ast + Fraction(pts * 1_000_000, TIMESCALE) + frame, \
            (pts, date - ast)
        md5 = truth(d)
        check_picture(p, pts, md5[pts], f"date {date}")
        # The live edge: suggestedPresentationDelay before the newest segment's end.
        before = p.live_seek_window()
        o = p.seek_to_live_edge_and_wait(timeout=20)
        after = p.live_seek_window()
        assert o.finished and o.frame_covers_target, o
        edge = Fraction(o.requested_time)
        assert edge in (before.end, after.end), (o, before, after)
        assert Fraction(o.landed_time) <= edge < Fraction(o.landed_time) + Fraction(1, FPS), o
        # The window slides with the reloads (startNumber moves on in the MPD).
        time.sleep(3)
        w3 = p.live_seek_window()
        assert w3.is_live and w3.first_sequence > first, (first, w3)
        served = int(attr((d / "live.mpd").read_text(), "startNumber"))
        assert abs(w3.first_sequence - served) <= 2, (w3.first_sequence, served)
        # A date before the window is refused, typed (not clamped).
        r = p.seek_to_date_and_wait(int(ast), SeekPrecision.exact())
        assert not r.seeked and r.reason.name == "OUTSIDE_WINDOW", r


def test_when_ffmpeg_ends_the_mpd_turns_static_and_the_item_ends(live):
    d, url, proc = live
    with Player(url) as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        assert p.live_seek_window().is_live
        proc.wait(SECONDS + 30)
        assert 'type="static"' in (d / "live.mpd").read_text()
        deadline = time.monotonic() + 15
        while p.live_seek_window().is_live and time.monotonic() < deadline:
            time.sleep(0.3)
        w = p.live_seek_window()
        assert not w.is_live, w
        # The end of the window: the stream's last frame (the last one on disk), its picture.
        md5 = truth(d)
        o = p.seek_and_wait(w.end, SeekPrecision.exact())
        assert o.finished and int(o.landed_stream_pts) == max(md5), (o, w, max(md5))
        check_picture(p, max(md5), md5[max(md5)], "the last frame")
