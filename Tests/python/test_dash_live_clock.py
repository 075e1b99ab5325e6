"""Live DASH timing read from the MPD (issue 31 item 3, seek.h "DASH", Live): the wall clock
of UTCTiming, the window of timeShiftBufferDepth, and number-based live (SegmentTemplate
@duration, no SegmentTimeline: the segments the clock makes available).

ffmpeg's dash muxer writes a live MPD in real time (`-re`, 1 s segments; `-use_timeline 0`
for the number-based one, `-utc_timing_url` naming the test server's time source). The
Range-honouring test server on 127.0.0.1 serves it with one change per test: for the clock,
the MPD's availabilityStartTime moved 37 s later and a time source 37 s ahead of the host
(the MPD's clock is then 37 s ahead of the host's; a player on the host's clock would find
no segment available); for the depth, a timeShiftBufferDepth of 3 s where the MPD lists 8.

Ground truth, never the library: the MPD as served (availabilityStartTime, the segments it
lists), the host clock plus the skew, the segment files on disk as one file with the
initialization (test_dash_live.truth): ffmpeg's decoded pictures by pts.
"""
from __future__ import annotations

import datetime
import io
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import REPO
from rangeserver import RangeHandler, serve
from hlsframes import FF, check_picture
from test_dash_live import FPS, TIMESCALE, attr, iso_us, truth

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import FrameStepDirection, Player, SeekPrecision  # noqa: E402

SECONDS, SKEW = 24, 37


def xsdate(unix: float) -> str:
    t = datetime.datetime.fromtimestamp(unix, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def handler(skew: int, depth: str | None):
    """Serves the directory; /time answers the host clock + `skew` s (an xs:dateTime); an
    .mpd is served with its availabilityStartTime `skew` s later and, when `depth` is given,
    that timeShiftBufferDepth."""
    class Clocked(RangeHandler):
        def send_head(self):
            path = self.path.split("?")[0]
            if path == "/time":
                body = xsdate(time.time() + skew).encode()
            elif path.endswith(".mpd"):
                text = (Path(self.directory) / path.lstrip("/")).read_text()
                ast = attr(text, "availabilityStartTime") if 'type="dynamic"' in text else None
                if ast:
                    moved = xsdate(float(iso_us(ast) / 1_000_000) + skew)
                    text = text.replace(f'availabilityStartTime="{ast}"', f'availabilityStartTime="{moved}"')
                if depth and ast:
                    text = re.sub(r'timeShiftBufferDepth="[^"]*"', f'timeShiftBufferDepth="{depth}"', text)
                body = text.encode()
            else:
                return super().send_head()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self._remaining = None
            return io.BytesIO(body)
    return Clocked


def start_ffmpeg(d: Path, extra) -> subprocess.Popen:
    return subprocess.Popen(FF + ["-re", "-f", "lavfi", "-i", f"testsrc2=size=160x120:rate={FPS}", "-t", str(SECONDS),
                                  "-c:v", "libx264", "-preset", "ultrafast", "-g", str(FPS), "-bf", "0", "-f", "dash",
                                  "-seg_duration", "1", "-extra_window_size", "100", "-use_template", "1"]
                            + extra + [str(d / "live.mpd")])


def wait_segments(d: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while len(list(d.glob("chunk-stream0-*.m4s"))) < n:
        assert proc.poll() is None and time.monotonic() < deadline, "ffmpeg wrote too few segments"
        time.sleep(0.2)


def served(url: str) -> str:
    import urllib.request
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def test_number_based_live_on_the_mpds_skewed_clock(tmp_path):
    """-use_timeline 0: the segments follow from the clock. The MPD's clock (UTCTiming, 37 s
    ahead of the host, availabilityStartTime moved with it): the window ends where that clock
    says, spans the MPD's timeShiftBufferDepth, slides with the clock; a date lands on the
    frame whose date covers it by the served availabilityStartTime, with ffmpeg's picture;
    steps from there are the next frames."""
    with serve(tmp_path, handler(SKEW, None)) as base:
        proc = start_ffmpeg(tmp_path, ["-use_timeline", "0", "-window_size", "6", "-utc_timing_url", f"{base}/time"])
        try:
            wait_segments(tmp_path, 10, proc)
            text = served(f"{base}/live.mpd")
            assert 'type="dynamic"' in text and "<SegmentTimeline" not in text and 'duration="' in text, text
            assert 'urn:mpeg:dash:utc:http-xsdate:2014' in text, text
            ast = iso_us(attr(text, "availabilityStartTime"))
            depth = Fraction(attr(text, "timeShiftBufferDepth").strip("PTS"))
            with Player(f"{base}/live.mpd") as p:
                assert p.wait_item(timeout=30).status.name == "READY"
                assert p.item_info().format_name == "dash (fastpixseek)"
                w = p.live_seek_window()
                clock_us = (time.time() + SKEW) * 1_000_000
                assert w.is_live and w.is_date_addressable, w
                # Segments start on whole seconds after the served availabilityStartTime.
                assert (w.start_date_us - ast) % 1_000_000 == 0, (w.start_date_us, ast)
                # The window's first segment: number 1 + its start in seconds (startNumber 1).
                assert w.first_sequence == 1 + (w.start_date_us - ast) // 1_000_000, w
                # It ends by the MPD's clock, not the host's (37 s behind: nothing there yet);
                # its newest end at most a reload (1 s) and a segment behind that clock.
                newest_end = w.start_date_us + (w.last_sequence - w.first_sequence + 1) * 1_000_000
                assert clock_us - 3_000_000 <= newest_end <= clock_us, (newest_end - clock_us, w)
                # The window spans the depth (ends within it: depth s of whole segments).
                span = (w.last_sequence - w.first_sequence + 1)
                assert span == depth, (span, depth, w)
                # A date in the window: the frame covering it by the served clock, ffmpeg's picture.
                date = w.start_date_us + 2_000_000 + 7_000
                r = p.seek_to_date_and_wait(int(date), SeekPrecision.exact())
                assert r.seeked and r.outcome.finished, r
                pts = int(r.outcome.landed_stream_pts)
                frame = Fraction(1_000_000, FPS)
                at = ast + Fraction(pts * 1_000_000, TIMESCALE)
                assert at <= date < at + frame, (pts, date - ast)
                md5 = truth(tmp_path)
                check_picture(p, pts, md5[pts], f"date {date}")
                # Steps: the next frames, their pictures.
                for k in range(1, 4):
                    s = p.step_frame(FrameStepDirection.FORWARD)
                    want = pts + k * TIMESCALE // FPS
                    assert s.did_step and int(s.landed_stream_pts) == want, (k, s)
                    check_picture(p, want, md5[want], f"step {k}")
                # The live edge: suggestedPresentationDelay before the newest segment's end.
                before = p.live_seek_window()
                o = p.seek_to_live_edge_and_wait(timeout=20)
                after = p.live_seek_window()
                assert o.finished and o.frame_covers_target, o
                assert Fraction(o.requested_time) in (before.end, after.end), (o, before, after)
                assert before.hold_back == Fraction(attr(text, "suggestedPresentationDelay").strip("PTS")), before
                # The window moves with the clock (number-based: ffmpeg says minimumUpdatePeriod
                # 500 s; the reloads stay every target duration).
                first = w.first_sequence
                time.sleep(3)
                w3 = p.live_seek_window()
                assert w3.first_sequence >= first + 2, (first, w3)
                # A date before the window: refused, typed.
                r = p.seek_to_date_and_wait(int(ast), SeekPrecision.exact())
                assert not r.seeked and r.reason.name == "OUTSIDE_WINDOW", r
        finally:
            proc.kill()
            proc.wait(10)


def test_the_window_follows_timeshiftbufferdepth_not_the_list(tmp_path):
    """A SegmentTimeline MPD listing 8 segments, served with timeShiftBufferDepth PT3S: the
    window holds the segments whose end is less than 3 s behind the clock (the host's: no
    UTCTiming), at most 3 of 1 s, while the MPD lists 8."""
    with serve(tmp_path, handler(0, "PT3S")) as base:
        proc = start_ffmpeg(tmp_path, ["-use_timeline", "1", "-window_size", "8"])
        try:
            wait_segments(tmp_path, 10, proc)
            text = served(f"{base}/live.mpd")
            listed = sum(1 + int(r or 0) for r in re.findall(r'<S (?:t="\d+" )?d="\d+"(?: r="(\d+)")? ?/>', text))
            assert listed == 8 and 'timeShiftBufferDepth="PT3S"' in text, (listed, text)
            with Player(f"{base}/live.mpd") as p:
                assert p.wait_item(timeout=30).status.name == "READY"
                for _ in range(3):
                    w = p.live_seek_window()
                    n = w.last_sequence - w.first_sequence + 1
                    assert w.is_live and 1 <= n <= 3, (n, w)
                    # Its oldest segment ends less than 3 s (plus a reload, 1 s) before now.
                    oldest_end = w.start_date_us + 1_000_000
                    assert oldest_end > (time.time() - 3 - 1.5) * 1_000_000, (oldest_end, w)
                    time.sleep(1.1)
        finally:
            proc.kill()
            proc.wait(10)
