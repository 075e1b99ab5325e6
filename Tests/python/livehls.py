"""Real live HLS for the FastPixSeek live tests: an `ffmpeg` process writing a sliding-window
(or EVENT, or VOD) HLS stream into a temp dir, a real HTTP server on 127.0.0.1 serving that
dir (Range support, a request log, injectable faults), and ground truth that never asks the
library: the playlists as they were served, parsed here (RFC 8216, just what ffmpeg writes),
and ffprobe on copies of every segment file.

Nothing here imports or calls FastPixSeek.

    with LiveStream(tmp_path) as ls:        # live, 1 s segments, list size 6, PDT
        ls.wait_segments(6)
        ls.url                               # http://127.0.0.1:PORT/live.m3u8
        ls.server.add_fault("seg00012.ts", "stall")
        ls.server.served_playlists(t0, t1)   # what was served, with times
        tl = ls.timeline(origin_msn)         # item timeline per seek.h "Live and DVR HLS"
        tl.exact_landing(Fraction(7, 2))     # (stream pts, item time) of the covering frame
        ls.stop_ffmpeg()                     # SIGKILL: the playlist stops updating, no ENDLIST

Every process and server a LiveStream starts is stopped when the `with` block ends, also when
the block raises.

Time conventions: wall-clock times are `time.time()` seconds (the C host prints
CLOCK_REALTIME microseconds, the same clock); dates (EXT-X-PROGRAM-DATE-TIME) are Unix
microseconds as Fractions; item-timeline times are Fractions of seconds; stream times are
ints in the segment's 1/90000 time base.

Run `python3 livehls.py [live|event|vod|nopdt]` for a standalone self-check of the pieces.
"""

from __future__ import annotations

import bisect
import calendar
import os
import queue
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass
from fractions import Fraction
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

sys.path.insert(0, str(Path(__file__).resolve().parent))
import groundtruth as gtm  # noqa: E402

FFMPEG = os.environ.get("FFMPEG", "ffmpeg")
PLAYLIST = "live.m3u8"
SEGMENT_RE = re.compile(r"seg(\d+)\.ts$")

# ============================================================================================
# Playlist parsing (ground truth; independent of the library)
# ============================================================================================

_PDT_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?"
                     r"(Z|z|[+-]\d{2}(?::?\d{2})?)?$")


def parse_pdt(value: str) -> Fraction:
    """An EXT-X-PROGRAM-DATE-TIME value (ISO 8601, as ffmpeg writes it:
    2026-11-29T17:20:18.296+0000) -> exact Unix microseconds."""
    m = _PDT_RE.match(value.strip())
    if not m:
        raise ValueError(f"bad PROGRAM-DATE-TIME {value!r}")
    y, mo, d, h, mi, s, frac, tz = m.groups()
    secs = calendar.timegm((int(y), int(mo), int(d), int(h), int(mi), int(s), 0, 0, 0))
    us = Fraction(secs * 1_000_000)
    if frac:
        us += Fraction(int(frac), 10 ** len(frac)) * 1_000_000
    if tz and tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        digits = tz[1:].replace(":", "")
        off_min = int(digits[:2]) * 60 + (int(digits[2:4]) if len(digits) >= 4 else 0)
        us -= sign * off_min * 60 * 1_000_000
    return us


@dataclass(frozen=True)
class Segment:
    msn: int
    uri: str
    duration: Fraction            # EXTINF, exactly as written
    pdt_us: Optional[Fraction]    # explicit PDT, or the previous one + durations (same disc.)
    discontinuity: bool
    disc_seq: int

    @property
    def name(self) -> str:
        return os.path.basename(urllib.parse.urlparse(self.uri).path)


@dataclass(frozen=True)
class Playlist:
    text: str
    target_duration: int
    media_sequence: int
    discontinuity_sequence: int
    endlist: bool
    playlist_type: Optional[str]   # None, "EVENT" or "VOD"
    hold_back: Optional[Fraction]  # EXT-X-SERVER-CONTROL HOLD-BACK
    segments: Tuple[Segment, ...]

    @property
    def first_msn(self) -> int:
        return self.media_sequence

    @property
    def last_msn(self) -> int:
        return self.media_sequence + len(self.segments) - 1

    @property
    def is_live(self) -> bool:
        return not self.endlist

    @property
    def has_pdt(self) -> bool:
        return any(s.pdt_us is not None for s in self.segments)

    @property
    def edge_offset(self) -> Fraction:
        """HOLD-BACK, else 3 x TARGETDURATION (RFC 8216 6.3.3)."""
        return self.hold_back if self.hold_back is not None else Fraction(3 * self.target_duration)

    def segment(self, msn: int) -> Optional[Segment]:
        k = msn - self.media_sequence
        return self.segments[k] if 0 <= k < len(self.segments) else None

    def msns(self) -> List[int]:
        return [s.msn for s in self.segments]


def parse_playlist(text: str) -> Playlist:
    """A media playlist as ffmpeg's hls muxer writes it (RFC 8216 subset, no byte ranges)."""
    lines = [ln.strip() for ln in text.splitlines()]
    if not lines or lines[0] != "#EXTM3U":
        raise ValueError("not a playlist (no #EXTM3U)")
    td = None
    media_seq = 0
    disc_seq0 = 0
    endlist = False
    ptype = None
    hold_back = None
    pending_dur: Optional[Fraction] = None
    pending_pdt: Optional[Fraction] = None
    pending_disc = False
    segs: List[Segment] = []
    prev_pdt_end: Optional[Fraction] = None  # date of the end of the previous segment
    disc_seq = None
    for ln in lines[1:]:
        if not ln:
            continue
        if ln.startswith("#EXT-X-TARGETDURATION:"):
            td = int(ln.split(":", 1)[1])
        elif ln.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            media_seq = int(ln.split(":", 1)[1])
        elif ln.startswith("#EXT-X-DISCONTINUITY-SEQUENCE:"):
            disc_seq0 = int(ln.split(":", 1)[1])
        elif ln == "#EXT-X-ENDLIST":
            endlist = True
        elif ln.startswith("#EXT-X-PLAYLIST-TYPE:"):
            ptype = ln.split(":", 1)[1].strip()
        elif ln.startswith("#EXT-X-SERVER-CONTROL:"):
            m = re.search(r"(?:^|,)HOLD-BACK=([0-9.]+)", ln.split(":", 1)[1])
            if m:
                hold_back = Fraction(m.group(1))
        elif ln.startswith("#EXTINF:"):
            pending_dur = Fraction(ln.split(":", 1)[1].split(",", 1)[0].strip())
        elif ln.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            pending_pdt = parse_pdt(ln.split(":", 1)[1])
        elif ln == "#EXT-X-DISCONTINUITY":
            pending_disc = True
        elif ln.startswith("#"):
            continue
        else:
            if pending_dur is None:
                raise ValueError(f"segment {ln!r} without #EXTINF")
            if disc_seq is None:
                disc_seq = disc_seq0
            if pending_disc:
                disc_seq += 1
                prev_pdt_end = None
            pdt = pending_pdt if pending_pdt is not None else prev_pdt_end
            segs.append(Segment(msn=media_seq + len(segs), uri=ln, duration=pending_dur,
                                pdt_us=pdt, discontinuity=pending_disc, disc_seq=disc_seq))
            prev_pdt_end = None if pdt is None else pdt + pending_dur * 1_000_000
            pending_dur = None
            pending_pdt = None
            pending_disc = False
    if td is None:
        raise ValueError("no #EXT-X-TARGETDURATION")
    return Playlist(text=text, target_duration=td, media_sequence=media_seq,
                    discontinuity_sequence=disc_seq0, endlist=endlist, playlist_type=ptype,
                    hold_back=hold_back, segments=tuple(segs))


# ============================================================================================
# HTTP server: Range support, a request log, injectable faults
# ============================================================================================

FAULTS = (
    "404",         # answer 404 Not Found
    "stall",       # read the request, never answer (until the server stops)
    "stall-body",  # answer 200 with the full Content-Length, send part of the body, stall
    "reset",       # answer 200 with the full Content-Length, send part of the body, then RST
)

Matcher = Union[str, Callable[[str], bool]]


@dataclass
class Request:
    t_start: float          # time.time() when the request line was read
    t_end: float            # when the answer was complete (or the fault ended it)
    name: str               # basename of the path
    path: str
    status: int             # HTTP status sent; 0 when nothing was sent (stall)
    fault: Optional[str]
    range: Optional[str]
    client: Tuple[str, int]
    body: Optional[bytes] = None   # playlists only: exactly what was sent
    done: bool = False             # the answer is complete (or the fault ended it)

    @property
    def playlist(self) -> Optional[Playlist]:
        if not self.done or self.body is None or self.status != 200:
            return None
        return parse_playlist(self.body.decode("utf-8"))


class _Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle keep-alive connection is dropped after this

    def log_message(self, *args):
        pass

    # ---- dispatch ----------------------------------------------------------------------
    def do_GET(self):
        srv: "HLSServer" = self.server.owner  # type: ignore[attr-defined]
        t0 = time.time()
        path = urllib.parse.urlparse(self.path).path
        name = os.path.basename(path)
        fault = srv.fault_for(name)
        rec = Request(t_start=t0, t_end=t0, name=name, path=path, status=0, fault=fault,
                      range=self.headers.get("Range"), client=self.client_address)
        srv.record(rec)  # logged at once, so a stalled request is visible while it hangs
        try:
            if fault == "404":
                self.send_error(404)
                rec.status = 404
            elif fault == "stall":
                srv.stop_event.wait()
                self.close_connection = True
            elif fault in ("stall-body", "reset"):
                rec.status = self._partial(srv, fault)
            elif name.endswith(".m3u8"):
                rec.status, rec.body = self._playlist()
            else:
                rec.status = self._file()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
            self.close_connection = True
        finally:
            rec.t_end = time.time()
            rec.done = True

    def do_HEAD(self):
        self.close_connection = True
        self.send_error(405)

    # ---- answers -----------------------------------------------------------------------
    def _local(self) -> str:
        return self.translate_path(self.path)

    def _playlist(self):
        p = self._local()
        try:
            with open(p, "rb") as f:   # ffmpeg replaces it by rename: one consistent read
                body = f.read()
        except OSError:
            self.send_error(404)
            return 404, None
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.apple.mpegurl")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return 200, body

    def _file(self) -> int:
        p = self._local()
        if not os.path.isfile(p):
            self.send_error(404)
            return 404
        size = os.path.getsize(p)
        start, end = 0, size - 1
        status = 200
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            a, _, b = rng[6:].split(",")[0].partition("-")
            if a:
                start = int(a)
                end = min(int(b), size - 1) if b else size - 1
            elif b:  # suffix range
                start = max(0, size - int(b))
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return 416
            status = 206
        with open(p, "rb") as f:
            f.seek(start)
            data = f.read(end - start + 1)
        self.send_response(status)
        self.send_header("Content-Type", "video/mp2t")
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return status

    def _partial(self, srv: "HLSServer", fault: str) -> int:
        """Headers promising the whole file, then only a part of it."""
        p = self._local()
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError:
            self.send_error(404)
            return 404
        self.send_response(200)
        self.send_header("Content-Type", "video/mp2t")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        part = max(188, (len(data) * srv.partial_fraction.numerator
                         // srv.partial_fraction.denominator) // 188 * 188)
        self.wfile.write(data[:part])
        self.wfile.flush()
        self.close_connection = True
        if fault == "stall-body":
            srv.stop_event.wait()
        else:  # RST instead of FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
        return 200


class _Server(ThreadingHTTPServer):
    # Not socketserver's 5: see rangeserver.BACKLOG (issue 18.5).
    request_queue_size = 256
    daemon_threads = False
    block_on_close = True
    allow_reuse_address = True


class HLSServer:
    """A ThreadingHTTPServer on 127.0.0.1 serving `directory`. Use as a context manager or
    call start()/stop(). stop() also ends stalled answers and closes open connections."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.stop_event = threading.Event()
        self.partial_fraction = Fraction(1, 4)  # of the body sent by stall-body / reset
        self._lock = threading.Lock()
        self._faults: List[Tuple[Matcher, str]] = []
        self._log: List[Request] = []
        self._conns: set = set()
        self._httpd: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> "HLSServer":
        owner = self
        directory = str(self.directory)

        class H(_Handler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=directory, **kw)

            def setup(self):
                super().setup()
                with owner._lock:
                    owner._conns.add(self.connection)

            def finish(self):
                try:
                    super().finish()
                finally:
                    with owner._lock:
                        owner._conns.discard(self.connection)

        self._httpd = _Server(("127.0.0.1", 0), H)
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True,
                                        name="hls-server")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self.stop_event.set()
        self._httpd.shutdown()
        with self._lock:
            conns = list(self._conns)
        for c in conns:  # wake handlers blocked on idle keep-alive connections
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()  # joins the handler threads
        if self._thread:
            self._thread.join(5)
        self._httpd = None

    def __enter__(self) -> "HLSServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    def url(self, name: str = PLAYLIST) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"

    # ---- faults ------------------------------------------------------------------------
    def add_fault(self, match: Matcher, behaviour: str) -> None:
        """Requests whose basename equals `match` (or for which match(name) is true) get
        `behaviour` (one of FAULTS). Earlier rules win."""
        if behaviour not in FAULTS:
            raise ValueError(f"unknown fault {behaviour!r}; known: {FAULTS}")
        with self._lock:
            self._faults.append((match, behaviour))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def fault_for(self, name: str) -> Optional[str]:
        with self._lock:
            for m, b in self._faults:
                if (m == name) if isinstance(m, str) else m(name):
                    return b
        return None

    # ---- log ---------------------------------------------------------------------------
    def record(self, rec: Request) -> None:
        with self._lock:
            self._log.append(rec)

    def requests(self, since: float = 0.0, until: float = float("inf"),
                 name: Optional[str] = None) -> List[Request]:
        """Requests that started in [since, until], in order of arrival (entries are made
        when a request arrives and completed in place: see Request.done)."""
        with self._lock:
            log = list(self._log)
        return [r for r in log if since <= r.t_start <= until and (name is None or r.name == name)]

    def served_playlists(self, since: float = 0.0, until: float = float("inf"),
                         name: str = PLAYLIST) -> List[Tuple[float, Playlist]]:
        """(time the answer was complete, playlist) for every playlist answered with 200
        whose request started in [since, until]."""
        out = []
        for r in self.requests(since, until, name):
            pl = r.playlist
            if pl is not None:
                out.append((r.t_end, pl))
        out.sort(key=lambda x: x[0])
        return out


# ============================================================================================
# Live stream
# ============================================================================================

@dataclass
class Snapshot:
    t: float        # time.time() when the watcher saw this playlist on disk
    playlist: Playlist


class LiveStream:
    """ffmpeg writing HLS into `root/hls`, served over HTTP; copies of every segment in
    `root/keep` (made as soon as a segment is listed, before delete_segments removes it).

    kind:  "live"  sliding window (-hls_list_size list_size), no playlist type
           "event" -hls_playlist_type event (grows, never slides, no ENDLIST while running)
           "vod"   -hls_playlist_type vod on a finite input (vod_seconds), run to completion
                   before the server starts
    pdt:   write EXT-X-PROGRAM-DATE-TIME (hls_flags program_date_time)
    delete_segments: hls_flags delete_segments (live only)
    """

    def __init__(self, root: Path, kind: str = "live", pdt: bool = True,
                 delete_segments: bool = True, list_size: int = 6, hls_time: int = 1,
                 fps: int = 30, gop: Optional[int] = None, vod_seconds: int = 8,
                 bframes: int = 2):
        if kind not in ("live", "event", "vod"):
            raise ValueError(kind)
        self.root = Path(root)
        self.dir = self.root / "hls"
        self.keep = self.root / "keep"
        self.kind = kind
        self.pdt = pdt
        self.delete_segments = delete_segments and kind == "live"
        self.list_size = list_size
        self.hls_time = hls_time
        self.fps = fps
        self.gop = gop if gop is not None else fps * hls_time
        self.vod_seconds = vod_seconds
        self.bframes = bframes
        self.server = HLSServer(self.dir)
        self.proc: Optional[subprocess.Popen] = None
        self.ffmpeg_log = self.root / "ffmpeg.log"
        self.ffmpeg_stopped_at: Optional[float] = None
        self._snapshots: List[Snapshot] = []
        self._segments: Dict[int, Segment] = {}
        self._listed_at: Dict[int, float] = {}
        self._lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._stop_watch = threading.Event()
        self._watcher: Optional[threading.Thread] = None
        # ffprobe runs on every new segment in the background, so that ground truth is ready
        # when a test needs it (a test that stops to probe lets the live window slide away).
        self._probe_q: "queue.Queue[Optional[str]]" = queue.Queue()
        self._prober: Optional[threading.Thread] = None
        self._logf = None

    # ---- command -----------------------------------------------------------------------
    def ffmpeg_cmd(self) -> List[str]:
        src = f"testsrc2=size=160x120:rate={self.fps}"
        cmd = [FFMPEG, "-hide_banner", "-nostdin", "-loglevel", "warning"]
        if self.kind == "vod":
            cmd += ["-f", "lavfi", "-i", f"{src}:duration={self.vod_seconds}"]
        else:
            cmd += ["-re", "-f", "lavfi", "-i", src]
        cmd += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                "-g", str(self.gop), "-keyint_min", str(self.gop), "-sc_threshold", "0",
                "-bf", str(self.bframes), "-f", "hls", "-hls_time", str(self.hls_time)]
        flags = []
        if self.kind == "live":
            cmd += ["-hls_list_size", str(self.list_size)]
            if self.delete_segments:
                flags.append("delete_segments")
                cmd += ["-hls_delete_threshold", "3"]
        else:
            cmd += ["-hls_list_size", "0", "-hls_playlist_type", self.kind]
        if self.pdt:
            flags.append("program_date_time")
        if flags:
            cmd += ["-hls_flags", "+".join(flags)]
        cmd += ["-hls_segment_filename", str(self.dir / "seg%05d.ts"), str(self.dir / PLAYLIST)]
        return cmd

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> "LiveStream":
        self.dir.mkdir(parents=True, exist_ok=True)
        self.keep.mkdir(parents=True, exist_ok=True)
        self._logf = open(self.ffmpeg_log, "wb")
        try:
            if self.kind == "vod":
                p = subprocess.run(self.ffmpeg_cmd(), stdout=self._logf, stderr=self._logf,
                                   stdin=subprocess.DEVNULL, timeout=120)
                if p.returncode != 0:
                    raise RuntimeError(f"ffmpeg (vod) failed: {self.ffmpeg_log.read_text()}")
                self._poll_once()
            else:
                self.proc = subprocess.Popen(self.ffmpeg_cmd(), stdout=self._logf,
                                             stderr=self._logf, stdin=subprocess.DEVNULL,
                                             start_new_session=True)
                self._watcher = threading.Thread(target=self._watch, daemon=True,
                                                 name="hls-watch")
                self._watcher.start()
            self._prober = threading.Thread(target=self._probe_loop, daemon=True,
                                            name="hls-probe")
            self._prober.start()
            for k in sorted(self.segments()):
                self._probe_q.put(str(self.keep / self._segments[k].name))
            self.server.start()
        except BaseException:
            self.close()
            raise
        return self

    def stop_ffmpeg(self, graceful: bool = False) -> None:
        """Stop the encoder. graceful=False (SIGKILL): the playlist simply stops updating and
        keeps no ENDLIST (an encoder crash). graceful=True (SIGINT): ffmpeg finishes the
        last segment and writes ENDLIST."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT if graceful else signal.SIGKILL)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.ffmpeg_stopped_at = time.time()
        time.sleep(0.1)
        self._poll_once()

    def close(self) -> None:
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
        finally:
            self._stop_watch.set()
            if self._watcher is not None:
                self._watcher.join(5)
            if self._prober is not None:
                self._probe_q.put(None)
                self._prober.join(30)
            self.server.stop()
            if self._logf is not None:
                self._logf.close()
                self._logf = None

    def __enter__(self) -> "LiveStream":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def url(self) -> str:
        return self.server.url(PLAYLIST)

    def ffmpeg_alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # ---- watching the output -----------------------------------------------------------
    def _watch(self) -> None:
        while not self._stop_watch.is_set():
            try:
                self._poll_once()
            except Exception as e:  # keep watching; surface it through wait_* timeouts
                sys.stderr.write(f"livehls watcher: {e!r}\n")
            self._stop_watch.wait(0.02)

    def _probe_loop(self) -> None:
        while True:
            path = self._probe_q.get()
            if path is None or self._stop_watch.is_set():
                return
            try:
                segment_truth(path)
            except Exception as e:  # the test asking for it will see the error itself
                sys.stderr.write(f"livehls prober: {path}: {e!r}\n")

    def _poll_once(self) -> None:
        with self._poll_lock:
            self._poll_locked()

    def _poll_locked(self) -> None:
        p = self.dir / PLAYLIST
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError):
            return
        with self._lock:
            if self._snapshots and self._snapshots[-1].playlist.text == text:
                return
        try:
            pl = parse_playlist(text)
        except ValueError:
            return
        now = time.time()
        for s in pl.segments:
            if s.msn in self._segments:
                if self._segments[s.msn].name != s.name:
                    raise RuntimeError(f"MSN {s.msn} changed from {self._segments[s.msn]} to {s}")
                continue
            src = self.dir / s.name
            dst = self.keep / s.name
            if not dst.exists():
                shutil.copyfile(src, dst.with_suffix(".part"))
                os.replace(dst.with_suffix(".part"), dst)
            with self._lock:
                self._segments[s.msn] = s
                self._listed_at[s.msn] = now
            self._probe_q.put(str(dst))
        with self._cond:
            self._snapshots.append(Snapshot(t=now, playlist=pl))
            self._cond.notify_all()

    def snapshots(self) -> List[Snapshot]:
        with self._lock:
            return list(self._snapshots)

    def latest(self) -> Playlist:
        with self._lock:
            if not self._snapshots:
                raise RuntimeError("no playlist yet")
            return self._snapshots[-1].playlist

    def wait_segments(self, n: int, timeout: float = 30.0) -> Playlist:
        """Wait until at least n segments have been published in all (and, when n <= the
        list size, the current playlist lists at least n). Returns the current playlist."""
        deadline = time.time() + timeout
        with self._cond:
            while True:
                cur = self._snapshots[-1].playlist if self._snapshots else None
                if cur is not None and len(self._segments) >= n and \
                        (len(cur.segments) >= min(n, self.list_size) or self.kind != "live"):
                    return cur
                left = deadline - time.time()
                if left <= 0 or (self.proc is not None and self.proc.poll() is not None):
                    break
                self._cond.wait(min(left, 0.1))
        tail = self.ffmpeg_log.read_text()[-2000:] if self.ffmpeg_log.exists() else ""
        raise TimeoutError(f"{len(self._segments)} of {n} segments after {timeout} s; "
                           f"ffmpeg alive={self.ffmpeg_alive()} log: {tail}")

    def wait_new_segment(self, after_msn: int, timeout: float = 10.0) -> int:
        """Wait for a segment with MSN > after_msn; returns the newest MSN."""
        deadline = time.time() + timeout
        with self._cond:
            while True:
                if self._segments and max(self._segments) > after_msn:
                    return max(self._segments)
                left = deadline - time.time()
                if left <= 0:
                    raise TimeoutError(f"no segment after {after_msn} in {timeout} s")
                self._cond.wait(min(left, 0.1))

    # ---- ground truth ------------------------------------------------------------------
    def segment(self, msn: int, wait: float = 2.0) -> Segment:
        """The segment with this MSN. A playlist the server just handed out can be a few
        milliseconds newer than what the watcher has seen: wait up to `wait` seconds for an
        MSN newer than every known one."""
        deadline = time.time() + wait
        with self._cond:
            while msn not in self._segments:
                newer = not self._segments or msn > max(self._segments)
                left = deadline - time.time()
                if not newer or left <= 0:
                    raise KeyError(msn)
                self._cond.wait(min(left, 0.05))
            return self._segments[msn]

    def segments(self) -> Dict[int, Segment]:
        with self._lock:
            return dict(self._segments)

    def listed_at(self, msn: int) -> Optional[float]:
        """When the watcher first saw msn in the playlist on disk."""
        with self._lock:
            return self._listed_at.get(msn)

    def segment_path(self, msn: int) -> Path:
        return self.keep / self.segment(msn).name

    def truth(self, msn: int) -> "SegmentTruth":
        return segment_truth(str(self.segment_path(msn)))

    def timeline(self, origin_msn: int) -> "Timeline":
        return Timeline(self, origin_msn)

    def first_served_after(self, msn: int, since: float = 0.0) -> Optional[float]:
        """When a playlist listing msn was first served (answer complete), or None."""
        for t, pl in self.server.served_playlists(since):
            if pl.segment(msn) is not None:
                return t
        return None


# ============================================================================================
# ffprobe per segment, and the item timeline
# ============================================================================================

@dataclass(frozen=True)
class SegmentTruth:
    path: str
    time_base: Fraction
    frames: Tuple[gtm.Frame, ...]     # presentation order, unique pts
    packets: Tuple[gtm.Packet, ...]   # decode order

    @property
    def first_pts(self) -> int:
        return self.frames[0].pts

    def pts_list(self) -> List[int]:
        return [f.pts for f in self.frames]


_truth_cache: Dict[str, SegmentTruth] = {}
_truth_lock = threading.Lock()


def segment_truth(path: str) -> SegmentTruth:
    with _truth_lock:
        hit = _truth_cache.get(path)
    if hit is not None:
        return hit
    st = gtm.reference_stream(path)
    fr = tuple(gtm.frames(path, st.index))
    pk = tuple(gtm.packets(path, st.index))
    if not fr:
        raise RuntimeError(f"ffprobe decoded no frames in {path}")
    t = SegmentTruth(path=path, time_base=st.time_base, frames=fr, packets=pk)
    with _truth_lock:
        _truth_cache[path] = t
    return t


class Timeline:
    """The item timeline of seek.h ("Live and DVR HLS"): 0 is the start of segment
    origin_msn (the oldest segment of the playlist the player saw at open); later segments
    follow by their EXTINF durations. Frame placement inside a segment is by pts: a frame of
    segment k with pts p is at start(k) + (p - first_pts(k)) * time_base."""

    def __init__(self, stream: LiveStream, origin_msn: int):
        self.stream = stream
        self.origin = origin_msn

    def seg(self, msn: int) -> Segment:
        return self.stream.segment(msn)

    def truth(self, msn: int) -> SegmentTruth:
        return self.stream.truth(msn)

    def start(self, msn: int) -> Fraction:
        t = Fraction(0)
        if msn >= self.origin:
            for k in range(self.origin, msn):
                t += self.seg(k).duration
        else:
            for k in range(msn, self.origin):
                t -= self.seg(k).duration
        return t

    def end(self, msn: int) -> Fraction:
        return self.start(msn) + self.seg(msn).duration

    def segment_at(self, t: Fraction, msns: Optional[Sequence[int]] = None) -> int:
        """The MSN whose [start, end) holds t, among msns (default: all known)."""
        cands = sorted(msns if msns is not None else self.stream.segments())
        for k in cands:
            if self.start(k) <= t < self.end(k):
                return k
        raise ValueError(f"no known segment holds item time {t} ({float(t):.6f}); "
                         f"known {cands[:1]}..{cands[-1:]} from origin {self.origin}")

    # ---- windows (per a playlist) ------------------------------------------------------
    def window_start(self, pl: Playlist) -> Fraction:
        return self.start(pl.first_msn)

    def window_end(self, pl: Playlist) -> Fraction:
        """The live edge: end of the newest segment minus HOLD-BACK or 3 x TARGETDURATION."""
        return self.end(pl.last_msn) - pl.edge_offset

    def date_at(self, t: Fraction, pl: Playlist) -> Fraction:
        """Unix microseconds of item time t, through the PDT of the segment of pl holding t
        (the last segment of pl holds its own end)."""
        msns = pl.msns()
        if t == self.end(pl.last_msn):
            k = pl.last_msn
        else:
            k = self.segment_at(t, msns)
        s = pl.segment(k)
        if s is None or s.pdt_us is None:
            raise ValueError(f"segment {k} has no date")
        return s.pdt_us + (t - self.start(k)) * 1_000_000

    def time_of_date(self, date_us: Fraction, pl: Playlist) -> Tuple[int, Fraction]:
        """(msn, item time) of a date inside pl: the segment whose [PDT, PDT + EXTINF) holds it."""
        for s in pl.segments:
            if s.pdt_us is not None and s.pdt_us <= date_us < s.pdt_us + s.duration * 1_000_000:
                return s.msn, self.start(s.msn) + (Fraction(date_us) - s.pdt_us) / 1_000_000
        raise ValueError(f"date {date_us} is in no segment of the playlist")

    # ---- frames ------------------------------------------------------------------------
    def item_time_of(self, msn: int, pts: int) -> Fraction:
        tr = self.truth(msn)
        return self.start(msn) + (pts - tr.first_pts) * tr.time_base

    def ticks_at(self, t: Fraction) -> Tuple[int, Fraction]:
        """(msn, exact stream ticks) of item time t."""
        k = self.segment_at(t)
        tr = self.truth(k)
        return k, tr.first_pts + (t - self.start(k)) / tr.time_base

    def frames_around(self, msn: int) -> List[Tuple[int, gtm.Frame]]:
        """(msn, frame) of msn-1, msn, msn+1 (those known), by pts."""
        segs = self.stream.segments()
        out = []
        for k in (msn - 1, msn, msn + 1):
            if k in segs:
                out += [(k, f) for f in self.truth(k).frames]
        out.sort(key=lambda x: x[1].pts)
        return out

    def exact_landing(self, t: Fraction) -> Tuple[int, int, Fraction]:
        """(msn, stream pts, item time) of the frame covering item time t: the largest pts
        <= the target's ticks."""
        k, ticks = self.ticks_at(t)
        fl = self.frames_around(k)
        pts = [f.pts for _, f in fl]
        i = bisect.bisect_right(pts, ticks) - 1
        if i < 0:
            raise ValueError(f"no frame at or before item time {t}")
        m, fr = fl[i]
        return m, fr.pts, self.item_time_of(m, fr.pts)

    def nearest_keyframe(self, t: Fraction, tol: Fraction) -> Optional[Tuple[int, int, Fraction]]:
        """(msn, pts, item time) of the keyframe nearest t within +-tol (ties: earlier)."""
        k, ticks = self.ticks_at(t)
        best = None
        for m, fr in self.frames_around(k):
            if not fr.key:
                continue
            ft = self.item_time_of(m, fr.pts)
            d = abs(ft - t)
            if d <= tol and (best is None or d < best[0]):
                best = (d, m, fr.pts, ft)
        return None if best is None else best[1:]

    def frame_of_pts(self, pts: int) -> Optional[Tuple[int, Fraction]]:
        """(msn, item time) of the known frame with this pts (newest segments first: each
        segment looked at costs an ffprobe run the first time)."""
        for k in sorted(self.stream.segments(), reverse=True):
            tr = self.truth(k)
            if tr.frames[0].pts <= pts <= tr.frames[-1].pts and pts in set(tr.pts_list()):
                return k, self.item_time_of(k, pts)
        return None

    def packets_from(self, msn: int, count: int) -> List[Tuple[int, gtm.Packet]]:
        """The first `count` packets (decode order) from the start of segment msn onwards,
        over the concatenated segments, as (msn, packet)."""
        out: List[Tuple[int, gtm.Packet]] = []
        segs = self.stream.segments()
        k = msn
        while len(out) < count and k in segs:
            out += [(k, p) for p in self.truth(k).packets]
            k += 1
        return out[:count]

    def check_contiguous(self, msns: Sequence[int]) -> List[str]:
        """Harness self-check: inside the given run, the first pts of each segment equals
        the previous first pts plus its EXTINF (so EXTINF placement and pts placement
        agree, and the ground truth is not ambiguous). Returns the violations."""
        bad = []
        ms = sorted(msns)
        for a, b in zip(ms, ms[1:]):
            if b != a + 1:
                continue
            ta, tb_ = self.truth(a), self.truth(b)
            want = ta.first_pts + self.seg(a).duration / ta.time_base
            if tb_.first_pts != want:
                bad.append(f"seg {b} first pts {tb_.first_pts} != seg {a} first pts "
                           f"{ta.first_pts} + EXTINF {self.seg(a).duration} = {want}")
        return bad


# ============================================================================================
# Standalone self-check: python3 livehls.py [live|event|vod|nopdt]
# ============================================================================================

def _selfcheck(kind: str) -> int:
    import tempfile
    import urllib.request

    with tempfile.TemporaryDirectory() as td:
        ls = LiveStream(Path(td), kind="live" if kind == "nopdt" else kind, pdt=kind != "nopdt")
        with ls:
            print("ffmpeg:", " ".join(ls.ffmpeg_cmd()))
            pl = ls.wait_segments(6 if kind != "vod" else 1)
            print(f"url {ls.url}: msn {pl.first_msn}..{pl.last_msn} td={pl.target_duration} "
                  f"endlist={pl.endlist} type={pl.playlist_type} pdt={pl.has_pdt}")
            t0 = time.time()
            body = urllib.request.urlopen(ls.url, timeout=5).read().decode()
            time.sleep(0.05)  # the log entry is made after the answer is sent
            served = ls.server.served_playlists(t0)
            assert served and served[-1][1].text == body, "served log != body"
            seg = pl.segments[1]
            full = urllib.request.urlopen(ls.server.url(seg.name), timeout=5).read()
            req = urllib.request.Request(ls.server.url(seg.name), headers={"Range": "bytes=188-375"})
            part = urllib.request.urlopen(req, timeout=5).read()
            assert part == full[188:376], "range"
            tl = ls.timeline(pl.first_msn)
            bad = tl.check_contiguous(pl.msns())
            assert not bad, bad
            for s in pl.segments[:3]:
                tr = ls.truth(s.msn)
                print(f"  seg {s.msn} {s.name} EXTINF {s.duration} pdt {s.pdt_us} start "
                      f"{tl.start(s.msn)} first_pts {tr.first_pts} frames {len(tr.frames)} "
                      f"keys {[f.pts for f in tr.frames if f.key]}")
            t = tl.start(pl.segments[1].msn) + Fraction(1, 2)
            print("  exact landing at", t, "->", tl.exact_landing(t))
            if pl.is_live:
                print(f"  window [{tl.window_start(pl)}, {tl.window_end(pl)}]")
                if pl.has_pdt:
                    print(f"  dates [{tl.date_at(tl.window_start(pl), pl)}, "
                          f"{tl.date_at(tl.window_end(pl), pl)}]")
            # faults
            for fault in FAULTS:
                name = pl.segments[2].name
                ls.server.clear_faults()
                ls.server.add_fault(name, fault)
                t1 = time.time()
                try:
                    data = urllib.request.urlopen(ls.server.url(name), timeout=1).read()
                    outcome = f"read {len(data)} bytes"
                except Exception as e:  # noqa: BLE001
                    outcome = f"{type(e).__name__}: {e}"
                print(f"  fault {fault}: {outcome} after {time.time() - t1:.2f} s")
            ls.server.clear_faults()
            if kind == "live":
                first = pl.first_msn
                time.sleep(2.5)
                pl2 = ls.latest()
                print(f"  after 2.5 s: msn {pl2.first_msn}..{pl2.last_msn} (was {first})")
                assert pl2.first_msn > first
                ls.stop_ffmpeg()
                time.sleep(1.5)
                pl3 = ls.latest()
                print(f"  stopped: msn {pl3.first_msn}..{pl3.last_msn} endlist={pl3.endlist}")
                assert not pl3.endlist
        print("closed; server thread alive:", ls.server._thread and ls.server._thread.is_alive())
    return 0


if __name__ == "__main__":
    for k in sys.argv[1:] or ["live"]:
        _selfcheck(k)
