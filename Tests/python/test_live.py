"""Live, DVR (EVENT) and VOD HLS over real parts only: `ffmpeg` writing a sliding-window HLS
stream into a temp dir (livehls.LiveStream), a real HTTP server on 127.0.0.1 serving it (with
a request log and injectable faults), and the C host Tests/c/live.c driving libfastpixseek.

Expected values come from the playlists as the server served them (parsed in livehls.py) and
from ffprobe on copies of the segment files, never from the library:

* item timeline (seek.h, "Live and DVR HLS"): 0 is the start of the oldest segment of the
  playlist the player saw at open, later segments follow by EXTINF, frames inside a segment
  are placed by pts: frame pts p of segment k is at start(k) + (p - first_pts(k)) / 90000;
* live edge: end of the newest segment - 3 x TARGETDURATION (ffmpeg writes no HOLD-BACK);
* "the playlist the player has" at a call: one of the last two playlists served before the
  call, or one served during it (the playlist may have advanced by one reload).

Every ffmpeg, server and host process started here is stopped here, also on failure.
"""
from __future__ import annotations

import json
import os
import queue
import random
import shlex
import subprocess
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import List, Optional, Sequence

import pytest

from abi import C
from livehls import PLAYLIST, SEGMENT_RE, LiveStream, Playlist, Timeline
from sharedfixtures import REPO, compile_host

LIVE_C = REPO / "Tests" / "c" / "live.c"

IO_TIMEOUT_MS = 1500      # io_timeout_ms for the fault tests
SLACK_S = 1.0             # scheduling slack on top of an I/O timeout

FPX_ERROR_NOT_FOUND = C["FPX_ERROR_NOT_FOUND"]
FPX_ERROR_IO = C["FPX_ERROR_IO"]
FPX_ERROR_TIMEOUT = C["FPX_ERROR_TIMEOUT"]
FPX_ERROR_STALLED = C["FPX_ERROR_STALLED"]

FINISH_COMPLETED, FINISH_CANCELLED, FINISH_FAILED = (
    C["FPX_FINISH_COMPLETED"], C["FPX_FINISH_CANCELLED"], C["FPX_FINISH_FAILED"])
CLAMP_NONE, CLAMP_TO_START, CLAMP_TO_END = (
    C["FPX_CLAMP_NONE"], C["FPX_CLAMP_TO_SEEKABLE_START"], C["FPX_CLAMP_TO_SEEKABLE_END"])
DATE_OK, DATE_NOT_ADDRESSABLE, DATE_OUTSIDE = (
    C["FPX_DATE_SEEK_OK"], C["FPX_DATE_SEEK_NOT_DATE_ADDRESSABLE"], C["FPX_DATE_SEEK_OUTSIDE_WINDOW"])
STEP_AT_LIVE_EDGE = C["FPX_STEP_AT_LIVE_EDGE"]


# ============================================================================================
# The C host
# ============================================================================================

@pytest.fixture(scope="session")
def live_bin(library: Path, tmp_path_factory) -> Path:
    return compile_host(LIVE_C, library, tmp_path_factory.mktemp("livehost") / "live", libs=["m"])


class Host:
    """The live host in stdin mode (`live [OPTS] URL -`): one command per line, its JSON lines
    back. The process is killed on exit if it has not ended by itself."""

    def __init__(self, exe: Path, library: Path, url: str, *opts: str):
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = str(library.parent) + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        self.cmd = [str(exe), *opts, url, "-"]
        self.t_start = time.time()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.lines: "queue.Queue[Optional[dict]]" = queue.Queue()
        self.all: List[dict] = []
        self.stderr: List[str] = []
        self._t_out = threading.Thread(target=self._pump_out, daemon=True)
        self._t_err = threading.Thread(target=self._pump_err, daemon=True)
        self._t_out.start()
        self._t_err.start()
        self.item: Optional[dict] = None
        self.open_failure: Optional[dict] = None

    def _pump_out(self):
        for line in self.proc.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                obj = {"type": "non-json", "line": line}
            self.all.append(obj)
            self.lines.put(obj)
        self.lines.put(None)

    def _pump_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))

    def describe(self) -> str:
        return (f"`{shlex.join(self.cmd)}` rc={self.proc.poll()} stderr="
                f"{' | '.join(self.stderr)[-1500:]!r}")

    def _next(self, deadline: float) -> dict:
        left = deadline - time.time()
        try:
            obj = self.lines.get(timeout=max(0.0, left))
        except queue.Empty:
            raise AssertionError(f"host gave no answer in time; {self.describe()}") from None
        if obj is None:
            self.lines.put(None)
            raise AssertionError(f"host ended early; {self.describe()}")
        if obj.get("type") in ("hang", "call-failed", "non-json"):
            raise AssertionError(f"host: {obj}; {self.describe()}")
        return obj

    def wait_open(self, timeout: float = 30.0) -> dict:
        """The item line; or the open-failure line (then self.open_failure is set)."""
        obj = self._next(time.time() + timeout)
        if obj["type"] == "open":
            self.open_failure = obj
        else:
            assert obj["type"] == "item", obj
            self.item = obj
        return obj

    def run(self, command: str, timeout: float = 30.0) -> List[dict]:
        """Sends one command; returns its lines (the last one has the command's type)."""
        want = command.split()[0]
        if want == "destroy-timing":
            want = "destroy"
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        out = []
        deadline = time.time() + timeout
        while True:
            obj = self._next(deadline)
            out.append(obj)
            if obj["type"] == want:
                return out

    def one(self, command: str, timeout: float = 30.0) -> dict:
        return self.run(command, timeout)[-1]

    def batch(self, commands: Sequence[str], timeout: float = 30.0) -> List[List[dict]]:
        """Sends all commands at once (the host runs them back to back, so no test-side delay
        can let the live window slide between them); returns each command's lines."""
        self.proc.stdin.write("".join(c + "\n" for c in commands))
        self.proc.stdin.flush()
        out: List[List[dict]] = []
        deadline = time.time() + timeout
        for c in commands:
            want = c.split()[0]
            lines: List[dict] = []
            while True:
                obj = self._next(deadline)
                lines.append(obj)
                if obj["type"] == want:
                    break
            out.append(lines)
        return out

    def send_line(self, text: str = "go") -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float = 15.0) -> dict:
        """Closes stdin: the host destroys the player; returns the destroy line."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        deadline = time.time() + timeout
        while True:
            obj = self._next(deadline)
            if obj["type"] == "destroy":
                self.proc.wait(max(0.1, deadline - time.time()))
                return obj

    def wait_exit(self, timeout: float = 10.0) -> int:
        """Waits for the process to end and for its output to be collected."""
        rc = self.proc.wait(timeout)
        self._t_out.join(5)
        self._t_err.join(5)
        return rc

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._t_out.join(5)
        self._t_err.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def host(live_bin: Path, library: Path):
    """host(url, *opts) -> an opened Host (the item line read); all are closed at teardown."""
    made: List[Host] = []

    def start(url: str, *opts: str, expect_open: bool = True) -> Host:
        h = Host(live_bin, library, url, *opts)
        made.append(h)
        h.wait_open()
        if expect_open and h.open_failure is not None:
            raise AssertionError(f"open failed: {h.open_failure}; {h.describe()}")
        return h

    yield start
    for h in made:
        h.close()


# ============================================================================================
# Helpers: JSON times, playlists around a call, the origin
# ============================================================================================

def T(j: dict) -> Fraction:
    assert j is not None and (j["flags"] & 1) and j["timescale"] > 0, f"not a numeric time: {j}"
    return Fraction(j["value"], j["timescale"])


def frac_arg(t: Fraction) -> str:
    t = Fraction(t)
    assert t.denominator <= 2**31 - 1
    return f"{t.numerator}/{t.denominator}"


def fmt(t: Fraction) -> str:
    return f"{t} ({float(t):.6f} s)"


def playlists_around(ls: LiveStream, t0_us: int, t1_us: int, since: float) -> List[Playlist]:
    """The playlists the player may have had for a call made in [t0, t1]: the last two served
    (to requests started after `since`) before t0, and any served during the call."""
    t0, t1 = t0_us / 1e6, t1_us / 1e6
    reqs = [r for r in ls.server.requests(since, name=PLAYLIST) if r.done and r.status == 200 and r.body]
    reqs.sort(key=lambda r: r.t_end)
    before = [r for r in reqs if r.t_end <= t0]
    during = [r for r in reqs if t0 < r.t_end and r.t_start <= t1]
    out = [r.playlist for r in before[-2:] + during]
    assert out, f"no playlist was served before or during [{t0}, {t1}]"
    return out


def origin_of(ls: LiveStream, h: Host, window: dict) -> Timeline:
    """The item timeline of this host's item: origin = the oldest MSN of a playlist served to
    it during open (before the item was ready), the one consistent with the window's
    (first_sequence, start). Fails when none is consistent."""
    t_ready = h.item["t_ready_us"] / 1e6
    opened = [pl for t, pl in ls.server.served_playlists(h.t_start) if t <= t_ready + 0.001]
    assert opened, f"no playlist was served before the item was ready; {h.describe()}"
    cands = sorted({pl.first_msn for pl in opened})
    for o in cands:
        tl = ls.timeline(o)
        if tl.start(window["first_sequence"]) == T(window["start"]):
            return tl
    raise AssertionError(
        f"window start {fmt(T(window['start']))} at first_sequence {window['first_sequence']} "
        f"matches no playlist served at open (oldest MSNs {cands}): the item timeline's 0 is "
        f"not the start of the oldest segment at open")


def check_window(ls: LiveStream, tl: Timeline, w: dict, cands: Sequence[Playlist],
                 dates: bool = True) -> Playlist:
    """Asserts the window equals the one computed from one of the candidate playlists;
    returns that playlist."""
    problems = []
    for pl in cands:
        p = []
        want_start, want_end = tl.window_start(pl), tl.window_end(pl)
        if w["first_sequence"] != pl.first_msn or w["last_sequence"] != pl.last_msn:
            p.append(f"sequences {w['first_sequence']}..{w['last_sequence']} != "
                     f"{pl.first_msn}..{pl.last_msn}")
        if T(w["start"]) != want_start:
            p.append(f"start {fmt(T(w['start']))} != {fmt(want_start)}")
        if T(w["end"]) != want_end:
            p.append(f"end {fmt(T(w['end']))} != newest end - 3 x TD = {fmt(want_end)}")
        if T(w["duration"]) != want_end - want_start:
            p.append(f"duration {T(w['duration'])} != {want_end - want_start}")
        if T(w["target_duration"]) != pl.target_duration:
            p.append(f"target_duration {T(w['target_duration'])} != {pl.target_duration}")
        if T(w["hold_back"]) != pl.edge_offset:
            p.append(f"hold_back {T(w['hold_back'])} != 3 x TD = {pl.edge_offset}")
        if dates:
            ws, we = tl.date_at(want_start, pl), tl.date_at(want_end, pl)
            if w["start_date_us"] != ws:
                p.append(f"start_date_us {w['start_date_us']} != PDT {ws}")
            if w["end_date_us"] != we:
                p.append(f"end_date_us {w['end_date_us']} != {we}")
        if not p:
            return pl
        problems.append(f"vs playlist {pl.first_msn}..{pl.last_msn}: " + "; ".join(p))
    raise AssertionError("window matches none of the playlists the player may have had:\n  "
                         + "\n  ".join(problems) + f"\nwindow: {w}")


def check_exact(tl: Timeline, target: Fraction, o: dict, what: str = "") -> List[str]:
    """Problems of an exact, unclamped landing against ffprobe ground truth."""
    p = []
    msn, pts, item_t = tl.exact_landing(target)
    if not o["finished"] or o["reason"] != FINISH_COMPLETED:
        return [f"{what} target {fmt(target)}: not finished: {o['reason_name']} "
                f"{o['error_name']}"]
    if o["clamp"]["kind"] != CLAMP_NONE:
        p.append(f"clamped {o['clamp']['kind_name']} to {o['clamp']['clamped_to']}")
    if T(o["requested_media_time"]) != target:
        p.append(f"requested_media_time {T(o['requested_media_time'])} != {target}")
    if o["landed_stream_pts"] != pts:
        p.append(f"landed pts {o['landed_stream_pts']} != covering frame {pts} (seg {msn})")
    if T(o["landed_media_time"]) != item_t:
        p.append(f"landed_media_time {fmt(T(o['landed_media_time']))} != {fmt(item_t)}")
    if o["frame_covers_target"] != 1:
        p.append("frame_covers_target 0")
    if (o["stream_time_base_num"], o["stream_time_base_den"]) != (1, 90000):
        p.append(f"time base {o['stream_time_base_num']}/{o['stream_time_base_den']}")
    return [f"{what} target {fmt(target)}: " + "; ".join(p)] if p else []


def seekable_unrequested(ls: LiveStream, tl: Timeline, w: dict, since: float) -> int:
    """The newest segment lying wholly inside the window [start, end] that nobody has
    requested since `since` (so a fault installed on it now is what the player will meet)."""
    asked = {r.name for r in ls.server.requests(since)}
    end = T(w["end"])
    for msn in range(w["last_sequence"], w["first_sequence"] - 1, -1):
        if tl.end(msn) <= end and ls.segment(msn).name not in asked and \
                msn > w["first_sequence"]:
            return msn
    raise AssertionError(f"no unrequested segment inside the window {w}; asked {sorted(asked)}")


# ============================================================================================
# Streams
# ============================================================================================

@pytest.fixture(scope="module")
def live(tmp_path_factory) -> LiveStream:
    """The shared sliding-window stream: 1 s segments (GOP 1 s), 6 in the playlist, PDT,
    delete_segments. Fault tests install faults on its server and clear them after."""
    ls = LiveStream(tmp_path_factory.mktemp("live"))
    with ls:
        ls.wait_segments(6, timeout=30)
        yield ls


@pytest.fixture
def faults(live: LiveStream):
    yield live.server
    live.server.clear_faults()


def traffic(ls: LiveStream, since: float, t0: Optional[float] = None) -> str:
    """The server's log since `since`, and the playlists on disk, for failure messages."""
    t0 = since if t0 is None else t0
    out = []
    for r in ls.server.requests(since):
        pl = r.playlist
        what = f" [{pl.first_msn}..{pl.last_msn}]" if pl is not None else ""
        out.append(f"  {r.t_start - t0:+8.3f} {r.t_end - t0:+8.3f} {r.name}{what} "
                   f"{r.status}{' fault=' + r.fault if r.fault else ''}"
                   f"{'' if r.done else ' (in progress)'}")
    for s in ls.snapshots():
        if s.t >= since - 2:
            out.append(f"  {s.t - t0:+8.3f} on disk [{s.playlist.first_msn}.."
                       f"{s.playlist.last_msn}]")
    return "\n".join(out)


def _segname(msn: int) -> str:
    return f"seg{msn:05d}.ts"


def _msn(name: str) -> Optional[int]:
    m = SEGMENT_RE.search(name)
    return int(m.group(1)) if m else None


# ============================================================================================
# Window
# ============================================================================================

def test_window_matches_playlist_and_slides(live: LiveStream, host):
    h = host(live.url)
    w1 = h.one("window")
    h.one("sleep 3000")
    w2 = h.one("window")
    for w in (w1, w2):
        assert w["is_available"] == 1 and w["is_live"] == 1 and w["is_date_addressable"] == 1, w
    tl = origin_of(live, h, w1)
    pl1 = check_window(live, tl, w1, playlists_around(live, w1["t_before_us"], w1["t_after_us"],
                                                     h.t_start))
    pl2 = check_window(live, tl, w2, playlists_around(live, w2["t_before_us"], w2["t_after_us"],
                                                     h.t_start))
    assert pl1.hold_back is None and T(w1["hold_back"]) == 3 * pl1.target_duration
    assert w2["first_sequence"] >= w1["first_sequence"] + 2, \
        f"after 3 s of 1 s segments the window did not slide: {w1['first_sequence']} -> " \
        f"{w2['first_sequence']}"
    assert T(w2["start"]) > T(w1["start"]) and T(w2["end"]) > T(w1["end"])
    # The timeline keeps its meaning as the window slides: the same MSN, the same time.
    assert T(w2["start"]) - T(w1["start"]) == \
        tl.start(w2["first_sequence"]) - tl.start(w1["first_sequence"])
    assert w2["start_date_us"] - w1["start_date_us"] == \
        (T(w2["start"]) - T(w1["start"])) * 1_000_000
    h.finish()


# ============================================================================================
# Seeks by time
# ============================================================================================

def test_exact_seeks_inside_window_and_across_a_boundary(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    problems: List[str] = []
    rounds = 0
    for rnd in range(3):
        w = h.one("window")
        check_window(live, tl, w, playlists_around(live, w["t_before_us"], w["t_after_us"],
                                                   h.t_start))
        end = T(w["end"])
        # The newest two seconds of the window: they stay inside it while we seek.
        m = tl.segment_at(end - Fraction(3, 2))
        b = tl.end(m)  # the boundary between m and m + 1
        assert b < end
        targets = [
            tl.start(m) + Fraction(1, 2) + Fraction(1, 60),   # between two frames
            tl.start(m) + Fraction(7, 30),                   # exactly on a frame
            b - Fraction(1, 90000),                          # last frame of m
            b,                                               # keyframe opening m + 1
            b + Fraction(1, 90000),
            b + Fraction(1, 3) + Fraction(1, 1000),
            b - Fraction(1, 45) + Fraction(rnd, 7919),
        ]
        res = h.batch([f"seek {frac_arg(t)} exact" for t in targets])
        assert not tl.check_contiguous([m, m + 1]), tl.check_contiguous([m, m + 1])
        for t, r in zip(targets, res):
            problems += check_exact(tl, t, r[-1]["outcome"], f"round {rnd}")
        rounds += 1
        h.one("sleep 700")
    assert not problems, f"{len(problems)} wrong exact landings:\n" + "\n".join(problems)
    d = h.finish()
    assert d["completions"] == d["issued"] == rounds * 7, d


def test_default_precision_and_steps_inside_window(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    end = T(w["end"])
    m = tl.segment_at(end - Fraction(3, 2))
    b = tl.end(m)
    problems = []
    dtargets = (b - Fraction(1, 20), b + Fraction(2, 25), tl.start(m) + Fraction(1, 2))
    res = h.batch([f"seek {frac_arg(t)} default" for t in dtargets] +
                  [f"seek {frac_arg(b)} exact", "step backward 1", "step forward 2"])
    # DEFAULT = nearest keyframe within 1/10 s, else the exact landing.
    for t, r in zip(dtargets, res):
        o = r[-1]["outcome"]
        kf = tl.nearest_keyframe(t, Fraction(1, 10))
        want = kf if kf is not None else tl.exact_landing(t)
        kind = "FPX_LANDING_KEYFRAME" if kf is not None else "FPX_LANDING_FALLBACK_COVERING_FRAME"
        if not o["finished"] or o["landed_stream_pts"] != want[1] or \
                T(o["landed_media_time"]) != want[2] or o["resolution_name"] != kind:
            problems.append(f"default {fmt(t)}: landed {o['landed_stream_pts']} "
                            f"{o['resolution_name']} want {want[1]} {kind}")
    # Steps along ffprobe's frame grid across the boundary.
    problems += check_exact(tl, b, res[3][-1]["outcome"], "step origin")
    last_of_m = tl.truth(m).frames[-1].pts
    second_of_next = tl.truth(m + 1).frames[1].pts
    s = res[4][-1]
    if not (s["rc"] == 0 and s["did_step"] == 1 and s["landed_stream_pts"] == last_of_m and
            T(s["landed_media_time"]) == tl.item_time_of(m, last_of_m)):
        problems.append(f"step backward from the boundary: {s}; want pts {last_of_m}")
    s = res[5][-1]
    if not (s["rc"] == 0 and s["did_step"] == 1 and s["landed_stream_pts"] == second_of_next):
        problems.append(f"step forward 2: {s}; want pts {second_of_next}")
    assert not problems, "\n".join(problems)
    h.finish()


def test_clamping_past_the_edge_and_before_the_start(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    problems = []
    # Past the edge: clamped to the edge, the common live case.
    far = T(w["end"]) + 1000
    r = h.one(f"seek {frac_arg(far)} exact")
    o = r["outcome"]
    cands = playlists_around(live, r["t_before_us"], r["t_done_us"], h.t_start)
    edges = {tl.window_end(pl) for pl in cands}
    if o["clamp"]["kind"] != CLAMP_TO_END or o["clamp"]["did_clamp"] != 1:
        problems.append(f"target {fmt(far)}: clamp {o['clamp']['kind_name']}, want "
                        f"FPX_CLAMP_TO_SEEKABLE_END")
    else:
        to = T(o["clamp"]["clamped_to"])
        if to not in edges:
            problems.append(f"clamped_to {fmt(to)} is not the live edge of a playlist the "
                            f"player had: {sorted(map(fmt, edges))}")
        want = tl.exact_landing(to)
        if not o["finished"] or o["landed_stream_pts"] != want[1] or \
                T(o["landed_media_time"]) != want[2]:
            problems.append(f"clamped to the edge {fmt(to)}: landed {o['landed_stream_pts']}, "
                            f"covering frame is {want[1]}")
        if T(o["requested_media_time"]) != far:
            problems.append(f"requested_media_time {T(o['requested_media_time'])} != {far}")
    # Before the start: clamped to the start of the oldest segment.
    r = h.one("seek -1/1 exact")
    o = r["outcome"]
    cands = playlists_around(live, r["t_before_us"], r["t_done_us"], h.t_start)
    starts = {tl.window_start(pl): pl.first_msn for pl in cands}
    if o["clamp"]["kind"] != CLAMP_TO_START or o["clamp"]["did_clamp"] != 1:
        problems.append(f"target -1: clamp {o['clamp']['kind_name']}, want "
                        f"FPX_CLAMP_TO_SEEKABLE_START")
    else:
        to = T(o["clamp"]["clamped_to"])
        if to not in starts:
            problems.append(f"clamped_to {fmt(to)} is not the window start of a playlist the "
                            f"player had: {sorted(map(fmt, starts))}")
        else:
            first = tl.truth(starts[to]).frames[0].pts
            if not o["finished"] or o["landed_stream_pts"] != first or \
                    T(o["landed_media_time"]) != to:
                problems.append(f"clamped to the start {fmt(to)}: landed "
                                f"{o['landed_stream_pts']} at {o['landed_media_time']}, the "
                                f"first frame of segment {starts[to]} is {first}")
    d = h.finish()
    assert not problems, "\n".join(problems)
    assert d["clamped_events"] == 2, f"on_seek_clamped fired {d['clamped_events']} times for " \
                                     f"2 clamped seeks"


def test_seek_to_live_edge(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    r = h.one("edge")
    o = r["outcome"]
    assert r["error"] == 0 and o is not None and o["finished"] == 1, r
    cands = playlists_around(live, r["t_before_us"], r["t_done_us"], h.t_start)
    landed = T(o["landed_media_time"])
    td = cands[-1].target_duration
    near = [pl for pl in cands if abs(landed - tl.window_end(pl)) <= td]
    assert near, (f"landed at {fmt(landed)}, not within one segment of the live edge of any "
                  f"playlist the player had: {[fmt(tl.window_end(pl)) for pl in cands]}")
    # The landing is a real frame: the one covering the seek's own (clamped) target.
    target = T(o["clamp"]["clamped_target"])
    want = tl.exact_landing(target)
    assert (o["landed_stream_pts"], landed) == (want[1], want[2]), \
        f"edge seek to {fmt(target)} landed {o['landed_stream_pts']}, ffprobe says {want}"
    assert o["precision"]["kind"] == 0, "the edge seek is exact"
    d = h.finish()
    assert d["completions"] == 1 and d["issued"] == 1, f"one edge seek, completions: {d}"


# ============================================================================================
# Seeks by date
# ============================================================================================

def test_date_seek_inside_window(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    problems = []
    for off in (Fraction(4567, 10000), Fraction(0), Fraction(999, 1000)):
        w = h.one("window")
        # the segment holding end - 3/2: [start(m), start(m) + 1) lies in the newest 2 s
        m = tl.segment_at(T(w["end"]) - Fraction(3, 2))
        seg = live.segment(m)
        date = seg.pdt_us + off * 1_000_000
        assert date.denominator == 1
        r = h.one(f"date {int(date)} exact")
        if r["seeked"] != 1 or r["reason"] != DATE_OK or r["outcome"] is None:
            problems.append(f"date PDT({m}) + {off}: not seeked: reason {r['reason']} "
                            f"{r['explanation']}")
            continue
        o = r["outcome"]
        target = tl.start(m) + off
        # ground truth: first pts of that segment + offset x 90000, covering frame per ffprobe
        tr = tl.truth(m)
        ticks = tr.first_pts + off * 90000
        cover = max(f.pts for f in tr.frames if f.pts <= ticks)
        assert tl.exact_landing(target)[1] == cover  # harness self-consistency
        if r["requested_date_us"] != date:
            problems.append(f"requested_date_us {r['requested_date_us']} != {date}")
        if T(o["requested_media_time"]) != target:
            problems.append(f"date PDT({m}) + {off}: requested_media_time "
                            f"{fmt(T(o['requested_media_time']))} != {fmt(target)}")
        if not o["finished"] or o["landed_stream_pts"] != cover or \
                T(o["landed_media_time"]) != tl.item_time_of(m, cover):
            problems.append(f"date PDT({m}) + {off}: landed {o['landed_stream_pts']} "
                            f"({o['reason_name']}), want {cover}")
    assert not problems, "\n".join(problems)
    h.finish()


def test_date_outside_window_is_reported_not_clamped(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    before = h.one("current")
    problems = []
    for label, date in (("10 s before the window", w["start_date_us"] - 10_000_000),
                        ("an hour after the edge", int(time.time() * 1e6) + 3_600_000_000)):
        r = h.one(f"date {date} exact")
        if r["seeked"] != 0 or r["reason"] != DATE_OUTSIDE or r["outcome"] is not None:
            problems.append(f"{label}: seeked {r['seeked']} reason {r['reason']} "
                            f"({r['explanation']}), want OUTSIDE_WINDOW without an outcome")
            continue
        if r["requested_date_us"] != date:
            problems.append(f"{label}: requested_date_us {r['requested_date_us']} != {date}")
        cands = playlists_around(live, r["t_before_us"], r["t_done_us"], h.t_start)
        spans = [(tl.date_at(tl.window_start(pl), pl), tl.date_at(tl.window_end(pl), pl))
                 for pl in cands]
        if (r["window_start_date_us"], r["window_end_date_us"]) not in spans:
            problems.append(f"{label}: window dates {r['window_start_date_us']}.."
                            f"{r['window_end_date_us']} are not those of a playlist the player "
                            f"had: {spans}")
    after = h.one("current")
    if before["rc"] == 0 and after["rc"] == 0 and T(after["playhead"]) != T(before["playhead"]):
        problems.append(f"the playhead moved: {before['playhead']} -> {after['playhead']}")
    d = h.finish()
    if d["accuracy_events"] != 0:
        problems.append(f"a refused date seek landed somewhere: {d}")
    assert not problems, "\n".join(problems)


def test_stream_without_pdt_is_not_date_addressable(tmp_path: Path, host):
    with LiveStream(tmp_path, pdt=False) as ls:
        pl = ls.wait_segments(4, timeout=30)
        assert not pl.has_pdt
        h = host(ls.url)
        w = h.one("window")
        assert w["is_live"] == 1 and w["is_date_addressable"] == 0, w
        assert w["start_date_us"] == 0 and w["end_date_us"] == 0, w
        tl = origin_of(ls, h, w)
        check_window(ls, tl, w, playlists_around(ls, w["t_before_us"], w["t_after_us"],
                                                 h.t_start), dates=False)
        r = h.one(f"date {int(time.time() * 1e6) - 2_000_000} exact")
        assert r["seeked"] == 0 and r["reason"] == DATE_NOT_ADDRESSABLE and \
            r["outcome"] is None, r
        d = h.finish()
        assert d["completions"] == d["issued"] == 1, d


# ============================================================================================
# Stepping and reading at the live edge
# ============================================================================================

def test_step_forward_at_live_edge(live: LiveStream, host):
    h = host(live.url)
    checked = []
    for attempt in range(4):
        e, s, w = (x[-1] for x in h.batch(["edge", "step forward 1", "window"]))
        assert e["outcome"]["finished"] == 1, e
        # The edge may have moved (a reload) between the edge seek and the step; then the
        # playhead is no longer at the edge and the step proves nothing either way.
        moved = playlists_around(live, e["t_before_us"], w["t_after_us"], h.t_start)
        if len({pl.last_msn for pl in moved}) > 1:
            continue
        checked.append(s)
        assert s["rc"] == 0, s
        assert s["did_step"] == 0 and s["reason"] == STEP_AT_LIVE_EDGE, \
            f"step forward 1 frame at the live edge: {s}"
        assert s["landed_stream_pts"] is None
        if len(checked) >= 2:
            break
        h.one("sleep 300")
    assert checked, "every attempt raced a playlist reload"
    d = h.finish()
    assert d["step_events"] >= len(checked), f"refused steps must reach on_frame_step: {d}"


def test_reading_continues_into_new_segments(live: LiveStream, host):
    h = host(live.url)
    w = h.one("window")
    tl = origin_of(live, h, w)
    end = T(w["end"])
    target = end - Fraction(1, 2) + Fraction(1, 45)
    n = 150  # 5 s of 30 fps video: needs segments that do not exist yet
    res = h.batch([f"seek {frac_arg(target)} exact", f"read {n}"], timeout=25)
    r, lines = res[0][-1], res[1]
    o = r["outcome"]
    summary, pkts = lines[-1], [x for x in lines if x["type"] == "packet"]
    assert not check_exact(tl, target, o), check_exact(tl, target, o)
    listed_at_seek = max(pl.last_msn for pl in
                         playlists_around(live, r["t_before_us"], r["t_done_us"], h.t_start))
    assert summary["error"] == 0 and summary["got"] == n, summary
    m = tl.exact_landing(target)[0]
    # Wait until every segment read is listed (the watcher copies it), then compare.
    truth = tl.packets_from(m, n)
    for _ in range(50):
        if len(truth) >= n:
            break
        time.sleep(0.1)
        truth = tl.packets_from(m, n)
    assert len(truth) == n, f"ground truth has only {len(truth)} packets from segment {m}"
    got = [(p["pts"], p["dts"], p["key"]) for p in pkts]
    want = [(p.pts, p.dts, int(p.key)) for _, p in truth]
    first_diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    assert got == want, (f"packets differ from ffprobe's from segment {m} on, first at #"
                         f"{first_diff}: got {got[first_diff:first_diff + 3]} want "
                         f"{want[first_diff:first_diff + 3]}")
    segs_read = sorted({k for k, _ in truth})
    assert len(segs_read) >= 3, f"read crossed only {segs_read}"
    assert segs_read[-1] > listed_at_seek, \
        f"the read never needed a segment that appeared after the seek ({segs_read}, " \
        f"listed at seek: {listed_at_seek})"
    dts = [p["dts"] for p in pkts]
    assert all(a < b for a, b in zip(dts, dts[1:])), "dts not increasing"
    firsts = [min(p.pts for k2, p in truth if k2 == k) for k in segs_read]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)
    landed = o["landed_stream_pts"]
    assert pkts[0]["discontinuity"] == 1 and all(p["discontinuity"] == 0 for p in pkts[1:])
    wrong_do = [p["pts"] for p in pkts if p["decode_only"] != int(p["pts"] < landed)]
    assert not wrong_do, f"DECODE_ONLY wrong for pts {wrong_do[:10]} (landed {landed})"
    assert all(p["seek_id"] == o["seek_id"] for p in pkts)
    h.finish()


def test_reading_a_segment_that_left_the_window_is_expired(live: LiveStream, host):
    h = host(live.url, "--timeout", str(IO_TIMEOUT_MS))
    w = h.one("window")
    tl = origin_of(live, h, w)
    e = h.one("edge")
    assert e["outcome"]["finished"] == 1, e
    landed_msn = tl.segment_at(T(e["outcome"]["landed_media_time"]))
    # Let the window slide past the landed segment and the one after it; give the player a
    # reload (one target duration) to see it.
    deadline = time.time() + 15
    while live.latest().first_msn <= landed_msn + 1 and time.time() < deadline:
        time.sleep(0.05)
    assert live.latest().first_msn > landed_msn + 1
    time.sleep(1.5 * live.latest().target_duration)
    lines = h.run("read 600", timeout=IO_TIMEOUT_MS / 1000 + 20)
    summary = lines[-1]
    pkts = [x for x in lines if x["type"] == "packet"]
    assert summary["error_name"] == "FPX_ERROR_EXPIRED", \
        f"reading from segment {landed_msn} after the window moved to " \
        f"{live.latest().first_msn}..: {summary}\nlog:\n{traffic(live, h.t_start)}"
    truth = tl.packets_from(landed_msn, len(pkts))
    assert [(p["pts"], p["dts"]) for p in pkts] == [(p.pts, p.dts) for _, p in truth], \
        "the packets before EXPIRED are not the stream's from the landing on"
    assert summary["elapsed_ms"] < IO_TIMEOUT_MS + SLACK_S * 1000, summary
    h.finish()


# ============================================================================================
# VOD and EVENT playlists
# ============================================================================================

def _random_targets(rng: random.Random, lo: Fraction, hi: Fraction, n: int) -> List[Fraction]:
    span = hi - lo
    out = [lo + span * Fraction(rng.randrange(0, 10**6), 10**6) for _ in range(n)]
    return out


def test_vod_playlist_exact_landings(tmp_path: Path, host):
    with LiveStream(tmp_path, kind="vod", vod_seconds=8) as ls:
        pl = ls.latest()
        assert pl.endlist and pl.playlist_type == "VOD" and len(pl.segments) == 8
        tl = ls.timeline(pl.first_msn)
        assert not tl.check_contiguous(pl.msns()), tl.check_contiguous(pl.msns())
        h = host(ls.url)
        w = h.one("window")
        assert w["is_available"] == 1 and w["is_live"] == 0, w
        last = tl.truth(pl.last_msn).frames
        # One rule with files: a VOD item's seekable end is its last frame itself.
        last_end = tl.item_time_of(pl.last_msn, last[-1].pts)
        problems = []
        if T(w["start"]) != 0:
            problems.append(f"window start {w['start']} != 0")
        if T(w["end"]) != last_end:
            problems.append(f"window end {fmt(T(w['end']))} != the last frame {fmt(last_end)}")
        if T(w["hold_back"]) != 0:
            problems.append(f"VOD hold_back {w['hold_back']}: the end is not reduced, so 0")
        rng = random.Random("vod")
        total = tl.end(pl.last_msn)
        targets = _random_targets(rng, Fraction(0), total, 40)
        targets += [tl.start(k) for k in pl.msns()] + [tl.end(k) - Fraction(1, 90000)
                                                      for k in pl.msns()]
        for t in targets:
            o = h.one(f"seek {frac_arg(t)} exact")["outcome"]
            if t > last_end:
                # Past the last frame (inside the last segment): clamped to it, as in a file.
                if o["clamp"]["kind"] != CLAMP_TO_END or T(o["clamp"]["clamped_to"]) != last_end \
                        or o["landed_stream_pts"] != last[-1].pts:
                    problems.append(f"vod target {fmt(t)} past the last frame: {o['clamp']['kind_name']} "
                                    f"landed {o['landed_stream_pts']}, want the last frame {last[-1].pts}")
                continue
            problems += check_exact(tl, t, o, "vod")
        o = h.one("seek 100/1 exact")["outcome"]
        if o["clamp"]["kind"] != CLAMP_TO_END or o["landed_stream_pts"] != last[-1].pts \
                or T(o["clamp"]["clamped_to"]) != last_end:
            problems.append(f"seek past the end: {o['clamp']['kind_name']} landed "
                            f"{o['landed_stream_pts']}, want the last frame {last[-1].pts}")
        assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
        h.finish()


def test_event_playlist_exact_landings(tmp_path: Path, host):
    with LiveStream(tmp_path, kind="event") as ls:
        ls.wait_segments(5, timeout=30)
        h = host(ls.url)
        w = h.one("window")
        assert w["is_live"] == 1 and w["first_sequence"] == 0, w
        tl = origin_of(ls, h, w)
        assert tl.origin == 0
        pl = check_window(ls, tl, w, playlists_around(ls, w["t_before_us"], w["t_after_us"],
                                                      h.t_start))
        assert pl.playlist_type == "EVENT"
        rng = random.Random("event")
        end = T(w["end"])
        targets = _random_targets(rng, Fraction(0), end, 25)
        targets += [tl.start(k) for k in range(0, pl.last_msn) if tl.start(k) < end]
        problems = []
        for t in targets:
            o = h.one(f"seek {frac_arg(t)} exact")["outcome"]
            problems += check_exact(tl, t, o, "event")
        h.one("sleep 2000")
        w2 = h.one("window")
        check_window(ls, tl, w2, playlists_around(ls, w2["t_before_us"], w2["t_after_us"],
                                                  h.t_start))
        if not (w2["first_sequence"] == 0 and T(w2["start"]) == 0 and T(w2["end"]) > end):
            problems.append(f"an EVENT window keeps its start and grows: {w} -> {w2}")
        assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
        h.finish()


# ============================================================================================
# Faults
# ============================================================================================

def test_stalled_playlist_at_open_times_out(live: LiveStream, faults, host):
    faults.add_fault(PLAYLIST, "stall")
    t0 = time.time()
    h = host(live.url, "--timeout", str(IO_TIMEOUT_MS), expect_open=False)
    elapsed = time.time() - t0
    assert h.open_failure is not None, f"opened through a stalled playlist: {h.item}"
    assert h.open_failure["error_name"] == "FPX_ERROR_TIMEOUT", h.open_failure
    assert elapsed < IO_TIMEOUT_MS / 1000 + SLACK_S, f"open took {elapsed:.2f} s"
    assert h.wait_exit(10) == 2, h.describe()
    assert any("FPX_ERROR_TIMEOUT" in ln for ln in h.stderr), h.stderr


def _seek_into_faulted_segment(live: LiveStream, faults, host, fault: str, offset: Fraction,
                               want_error: str, timeout_ms: int = IO_TIMEOUT_MS):
    h = host(live.url, "--timeout", str(timeout_ms))
    w = h.one("window")
    tl = origin_of(live, h, w)
    m = seekable_unrequested(live, tl, w, h.t_start)
    faults.add_fault(_segname(m), fault)
    t_fault = time.time()
    target = tl.start(m) + offset
    r = h.one(f"seek {frac_arg(target)} exact", timeout=timeout_ms / 1000 + 20)
    o = r["outcome"]
    hit = [q for q in live.server.requests(t_fault, name=_segname(m)) if q.fault == fault]
    assert hit, (f"the player never requested segment {m} after the fault was installed "
                 f"(cached before?); outcome {o['reason_name']} {o['error_name']}")
    assert o["finished"] == 0 and o["reason"] == FINISH_FAILED, \
        f"seek into a segment answered with {fault!r}: {o['reason_name']}, landed " \
        f"{o['landed_stream_pts']}"
    assert o["error_name"] == want_error, f"{fault!r}: error {o['error_name']}, want {want_error}"
    assert o["landed_stream_pts"] is None and o["stream_index"] == -1
    return h, o


@pytest.mark.parametrize("fault", ["stall", "stall-body"])
def test_stalled_segment_fails_with_timeout(live: LiveStream, faults, host, fault: str):
    h, o = _seek_into_faulted_segment(live, faults, host, fault, Fraction(1, 2),
                                      "FPX_ERROR_TIMEOUT")
    lat = o["latency_ns"] / 1e9
    assert lat < IO_TIMEOUT_MS / 1000 + SLACK_S, f"the failure took {lat:.2f} s"
    d = h.finish()
    assert d["ms"] < 1000, d


def test_404_segment_is_a_hole_the_seek_lands_past(live: LiveStream, faults, host):
    # seek.h "Gaps": a segment that answers 404 twice is a hole; a seek into it lands on the
    # first frame of the next segment, with landed_past_hole FPX_HOLE_FAILED (2).
    h = host(live.url, "--timeout", str(IO_TIMEOUT_MS))
    w = h.one("window")
    tl = origin_of(live, h, w)
    m = seekable_unrequested(live, tl, w, h.t_start)
    faults.add_fault(_segname(m), "404")
    t_fault = time.time()
    r = h.one(f"seek {frac_arg(tl.start(m) + Fraction(1, 2))} exact", timeout=IO_TIMEOUT_MS / 1000 + 20)
    o = r["outcome"]
    hit = [q for q in live.server.requests(t_fault, name=_segname(m)) if q.fault == "404"]
    assert len(hit) == 2, f"segment {m} requested {len(hit)} times (tried, and once more)"
    assert o["finished"] == 1 and o["landed_past_hole"] == 2, o
    assert o["frame_covers_target"] == 0
    landed = tl.frame_of_pts(o["landed_stream_pts"])
    assert landed is not None and landed[0] == m + 1, (landed, m)
    assert o["landed_stream_pts"] == tl.truth(m + 1).frames[0].pts
    h.finish()


def test_connection_reset_mid_segment_is_io_error(live: LiveStream, faults, host):
    # the server sends a quarter of the segment, then RST; the target is near its end
    h, _ = _seek_into_faulted_segment(live, faults, host, "reset", Fraction(9, 10),
                                      "FPX_ERROR_IO")
    h.finish()


def test_stalled_playlist_reload_fails_a_read_with_timeout(live: LiveStream, faults, host):
    h = host(live.url, "--timeout", str(IO_TIMEOUT_MS))
    e = h.one("edge")
    assert e["outcome"]["finished"] == 1, e
    faults.add_fault(PLAYLIST, "stall")   # every reload from now on hangs
    t_fault = time.time()
    lines = h.run("read 600", timeout=IO_TIMEOUT_MS / 1000 + 20)
    summary = lines[-1]
    stalled = [q for q in live.server.requests(t_fault, name=PLAYLIST) if q.fault == "stall"]
    assert stalled, f"the player never reloaded the playlist; {summary}"
    assert summary["error_name"] == "FPX_ERROR_TIMEOUT", \
        f"a reload that hangs: {summary}\nlog:\n{traffic(live, h.t_start)}"
    late = summary["t_us"] / 1e6 - stalled[0].t_start
    assert late < IO_TIMEOUT_MS / 1000 + SLACK_S, \
        f"the read failed {late:.2f} s after the stalled reload began"
    d = h.finish()
    assert d["ms"] < 1000, d


def test_stalled_next_segment_fails_a_read_with_timeout(live: LiveStream, faults, host):
    h = host(live.url, "--timeout", str(IO_TIMEOUT_MS))
    w = h.one("window")
    tl = origin_of(live, h, w)
    newest = live.latest().last_msn
    faults.add_fault(lambda name: (_msn(name) or -1) > newest, "stall")
    res = h.batch(["edge", "read 600"], timeout=IO_TIMEOUT_MS / 1000 + 20)
    e, lines = res[0][-1], res[1]
    assert e["outcome"]["finished"] == 1, e
    summary = lines[-1]
    landed_msn = tl.frame_of_pts(e["outcome"]["landed_stream_pts"])[0]
    available = sum(len(tl.truth(k).packets) for k in range(landed_msn, newest + 1))
    assert summary["error_name"] == "FPX_ERROR_TIMEOUT", \
        f"{summary}\nedge: {e}\nlog (s since host start):\n{traffic(live, h.t_start)}"
    assert summary["got"] == available, \
        f"read {summary['got']} packets before the failure; segments {landed_msn}..{newest} " \
        f"hold {available}"
    stalled = [q for q in live.server.requests(h.t_start) if q.fault == "stall"]
    assert stalled, "the player never requested the stalled segment"
    late = summary["t_us"] / 1e6 - stalled[0].t_start
    assert late < IO_TIMEOUT_MS / 1000 + SLACK_S, \
        f"the read failed {late:.2f} s after the stalled request began"
    d = h.finish()
    assert d["ms"] < 1000, d


def test_destroy_returns_within_a_second_while_io_is_blocked(live: LiveStream, faults, host):
    h = host(live.url, "--timeout", "30000")
    w = h.one("window")
    tl = origin_of(live, h, w)
    m = seekable_unrequested(live, tl, w, h.t_start)
    faults.add_fault(_segname(m), "stall")
    t_fault = time.time()
    # seek into the stalled segment, then destroy once the request is hanging in the server
    h.proc.stdin.write(f"destroy-timing {frac_arg(tl.start(m) + Fraction(1, 2))} line\n")
    h.proc.stdin.flush()
    deadline = time.time() + 10
    while not [q for q in live.server.requests(t_fault, name=_segname(m))] and \
            time.time() < deadline:
        time.sleep(0.02)
    assert live.server.requests(t_fault, name=_segname(m)), "segment never requested"
    time.sleep(0.3)
    h.send_line()
    lines = []
    deadline = time.time() + 15
    while not lines or lines[-1]["type"] != "destroy":
        lines.append(h._next(deadline))
    d = lines[-1]
    done = [x for x in lines if x["type"] == "completion"]
    assert d["rc"] == 0 and d["ms"] < 1000, f"destroy took {d['ms']:.0f} ms with I/O blocked"
    assert d["completions"] == d["issued"] == 1 and len(done) == 1, lines
    assert done[0]["outcome"]["reason"] == FINISH_CANCELLED, done[0]


def test_playlist_that_stops_updating_gives_stalled(tmp_path: Path, host):
    with LiveStream(tmp_path) as ls:
        ls.wait_segments(6, timeout=30)
        h = host(ls.url, "--timeout", str(IO_TIMEOUT_MS))
        w = h.one("window")
        tl = origin_of(ls, h, w)
        e = h.one("edge")
        ls.stop_ffmpeg()  # SIGKILL: no ENDLIST, the playlist just stops changing
        assert e["outcome"]["finished"] == 1, e
        final = ls.latest()
        assert not final.endlist
        landed_msn = tl.frame_of_pts(e["outcome"]["landed_stream_pts"])[0]
        assert landed_msn > final.first_msn, \
            f"harness too slow: the window ({final.first_msn}..) left the landed segment " \
            f"{landed_msn} before ffmpeg was stopped"
        td = final.target_duration
        time.sleep(3.5 * td)
        t0 = time.time()
        lines = h.run("read 1000", timeout=25)
        summary = lines[-1]
        pkts = [x for x in lines if x["type"] == "packet"]
        truth = tl.packets_from(landed_msn, 10**6)
        assert truth[-1][0] == final.last_msn
        assert summary["error_name"] == "FPX_ERROR_STALLED", \
            f"reading past the end of a playlist that stopped updating: {summary}"
        assert summary["got"] == len(truth), \
            f"read {summary['got']} packets, segments {landed_msn}..{final.last_msn} hold " \
            f"{len(truth)}: STALLED must come after the last listed packet"
        assert [(p["pts"], p["dts"]) for p in pkts] == [(p.pts, p.dts) for _, p in truth]
        assert time.time() - t0 < 20
        h.finish()
