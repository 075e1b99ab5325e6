"""A real HTTP server on 127.0.0.1 for the tests: http.server with single-range support
(FFmpeg needs it to seek), optionally slow. Every server started with `serve` is stopped
when its `with` block ends."""
from __future__ import annotations

import contextlib
import os
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator, List, Optional, Tuple, Type


class RangeHandler(SimpleHTTPRequestHandler):
    """Serves files with `Range: bytes=a-b` support. Subclasses may set `delay` (seconds
    before every response) and `chunk_pause` (seconds after every 8 KiB of body), and
    `ignore_range` (answer 200 with the whole file whatever the Range, as some servers do).
    `record`, when a subclass sets it to a list, gets `(path, Range header or None)` for every
    request, in arrival order (see `recording`)."""

    delay = 0.0
    chunk_pause = 0.0
    ignore_range = False
    record: Optional[List[Tuple[str, Optional[str]]]] = None
    record_lock = threading.Lock()

    def log_message(self, *args):  # keep test output clean
        pass

    def send_head(self):
        if self.record is not None:
            with self.record_lock:
                self.record.append((self.path, self.headers.get("Range")))
        if self.delay:
            time.sleep(self.delay)
        path = self.translate_path(self.path)
        rng = self.headers.get("Range")
        if not rng or self.ignore_range or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        start_s, _, end_s = rng.replace("bytes=", "").partition("-")
        start = int(start_s or 0)
        end = min(int(end_s) if end_s else size - 1, size - 1)
        if start >= size:
            self.send_error(416)
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self._remaining = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        remaining = getattr(self, "_remaining", None)
        if remaining is None and not self.chunk_pause:
            try:
                return super().copyfile(source, outputfile)
            except OSError:  # the client went away (it had what it wanted)
                return
        while remaining is None or remaining > 0:
            chunk = source.read(8192 if remaining is None else min(8192, remaining))
            if not chunk:
                break
            try:
                outputfile.write(chunk)
            except OSError:  # the client went away (a cancelled read)
                return
            if remaining is not None:
                remaining -= len(chunk)
            if self.chunk_pause:
                time.sleep(self.chunk_pause)


# Python's socketserver listens with a backlog of 5. Many players opening at once (each open
# is a playlist and two segment connections for HLS) overflow it: the kernel drops the SYNs,
# the clients retransmit them after 1 s, 3 s, 7 s, and opens take seconds for the server's
# sake (issue 18.5: 50 HLS players took 2.7-7.9 s to open in either delivery mode, 0.4-0.6 s
# with this backlog; TcpExtListenOverflows counted the drops).
BACKLOG = 256


class Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True


@contextlib.contextmanager
def serve(directory: Path, handler: Type[RangeHandler] = RangeHandler,
          tls: Optional[Tuple[Path, Path]] = None) -> Iterator[str]:
    """Serves `directory` on 127.0.0.1 (a free port); yields the base URL; stops the server.
    `tls` (certificate and key files, PEM): https instead of http."""
    make = lambda *a, **kw: handler(*a, directory=str(directory), **kw)  # noqa: E731
    server = Server(("127.0.0.1", 0), make)
    if tls:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(tls[0]), str(tls[1]))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        t.join(5)


def recording(ignore_range: bool = False) -> Type[RangeHandler]:
    """A RangeHandler class of its own whose `record` list gets every request's path and Range
    header (a new list per call, so concurrent tests do not share one)."""
    return type("RecordingHandler", (RangeHandler,), {"record": [], "ignore_range": ignore_range})
