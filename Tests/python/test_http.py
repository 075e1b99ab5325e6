"""HTTP items over a real local server on 127.0.0.1: landings equal ffprobe's over
http, and faults (404, refused connection, a stalled server) give typed errors
within the I/O timeout, never a hang. Every server started here is stopped here."""
from __future__ import annotations

import os
import random
import socket
import subprocess
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
from rangeserver import serve
from sharedfixtures import REPO, compile_host
CLI = REPO / "build" / "bin" / "fpx-seek"


@pytest.fixture(scope="module")
def http_base(fixtures_dir: Path):
    with serve(fixtures_dir) as base:
        yield base


@pytest.fixture
def stalled_url():
    """A server that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    accepted = []
    stop = threading.Event()

    def run():
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
                accepted.append(conn)
            except OSError:
                pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/stall.mp4"
    finally:
        stop.set()
        t.join(5)
        for c in accepted:
            c.close()
        sock.close()


def cli(*args, timeout=30):
    env = dict(os.environ)
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv"])
def test_exact_landings_over_http(fixtures_dir: Path, http_base: str, run_landings, name: str):
    gt = gtm.load(str(fixtures_dir / name))
    rng = random.Random(f"http-{name}")
    dur = gt.to_item(gt.frames[-1].pts)
    targets = [Fraction(rng.randrange(0, int(dur * 10**6)), 10**6) for _ in range(60)]
    res = run_landings(f"{http_base}/{name}", "exact", [f"{t.numerator}/{t.denominator}" for t in targets])
    assert res.returncode == 0, res.describe()
    assert len(res.seeks) == len(targets)
    wrong = []
    for t, o in zip(targets, res.seeks):
        _, ct = gt.clamp(t)
        want = gt.covering(ct).pts
        if not o["finished"] or o["landed_stream_pts"] != want:
            wrong.append((str(t), want, o["landed_stream_pts"], o["reason"]))
    assert not wrong, f"{len(wrong)} of {len(targets)} wrong over http: {wrong[:10]}"


def test_http_404_is_not_found(http_base: str):
    p = cli("seek", f"{http_base}/missing.mp4", "1")
    assert p.returncode == 1
    assert "FPX_ERROR_NOT_FOUND" in p.stderr, p.stderr


def test_refused_connection_is_network_error():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    p = cli("seek", f"http://127.0.0.1:{port}/x.mp4", "1", "--timeout", "2000")
    assert p.returncode == 1
    assert "FPX_ERROR_NETWORK" in p.stderr, p.stderr


def test_stalled_server_times_out(stalled_url: str):
    t0 = time.monotonic()
    p = cli("seek", stalled_url, "1", "--timeout", "500")
    elapsed = time.monotonic() - t0
    assert p.returncode == 1
    assert "FPX_ERROR_TIMEOUT" in p.stderr, p.stderr
    assert elapsed < 10, f"a 0.5 s timeout took {elapsed:.1f} s"


def test_destroy_returns_within_a_second_while_io_is_blocked(stalled_url: str, library: Path, tmp_path: Path):
    exe = compile_host(REPO / "Tests" / "c" / "stall_destroy.c", library, tmp_path / "stall_destroy")
    p = subprocess.run([str(exe), stalled_url], capture_output=True, text=True, timeout=30,
                       env={"LD_LIBRARY_PATH": str(library.parent)})
    assert p.returncode == 0, p.stdout + p.stderr
