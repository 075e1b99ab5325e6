"""Python stays interruptible (issue 10): Ctrl-C (a real SIGINT sent by the test to a child
Python process) during a blocked wait_item or read_packet raises KeyboardInterrupt within
100 ms, in both delivery modes. 0.2.0's binding sat in the C call until the I/O timeout."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_untrusted import Server, long_ts, server  # noqa: F401  (fixtures)

REPO = Path(__file__).resolve().parents[2]
BINDING = REPO / "Bindings" / "python"

CHILD = r"""
import sys, time
import fastpix_seek
from fastpix_seek import Player, DeliveryMode
url, mode, what = sys.argv[1], sys.argv[2], sys.argv[3]
delivery = DeliveryMode.HOST if mode == "host" else DeliveryMode.THREAD
p = Player(url, delivery=delivery, io_timeout=60)
if what in ("read", "iter"):
    p.wait_item(30)
    for _ in range(30):
        p.read_packet()
print("ready", flush=True)
sys.stdin.readline()
print("blocking", flush=True)
try:
    if what == "wait":
        p.wait_item()
    elif what == "iter":
        for _ in p.packets():
            pass
    else:
        while True:
            p.read_packet()
    print("returned", flush=True)
except KeyboardInterrupt:
    print("interrupted %.6f" % time.monotonic(), flush=True)
t0 = time.monotonic()
p.close()
print("closed %.1f" % ((time.monotonic() - t0) * 1000), flush=True)
"""


def run_child(url: str, mode: str, what: str, arm=None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(BINDING) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-c", CHILD, url, mode, what], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        if arm:
            arm()
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "blocking"
        time.sleep(1.0)  # well inside the blocked call
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = out.splitlines()
    got = [l for l in lines if l.startswith("interrupted")]
    assert got, f"no KeyboardInterrupt: stdout {out!r} stderr {err[-2000:]!r}"
    closed = [l for l in lines if l.startswith("closed")]
    return {"latency_ms": (float(got[0].split()[1]) - sent) * 1000,
            "close_ms": float(closed[0].split()[1]) if closed else None, "stderr": err}


@pytest.mark.parametrize("mode", ["thread", "host"])
def test_ctrl_c_interrupts_wait_item(server, mode: str):
    server.routes["/s.mp4"] = lambda h: server.stop.wait()  # accepts, never answers
    r = run_child(f"{server.base}/s.mp4", mode, "wait")
    assert 0 <= r["latency_ms"] < 100, r
    assert r["close_ms"] is not None and r["close_ms"] < 1000, r


@pytest.mark.parametrize("what", ["read", "iter"])
@pytest.mark.parametrize("mode", ["thread", "host"])
def test_ctrl_c_interrupts_read_packet(server, long_ts: bytes, mode: str, what: str):
    """read: read_packet() in a loop; iter: packets() (batched read-ahead, issue 21)."""
    server.file("/long.ts", long_ts, throttle=4_000_000)
    r = run_child(f"{server.base}/long.ts", mode, what, arm=server.arm)
    assert 0 <= r["latency_ms"] < 100, r
    assert r["close_ms"] is not None and r["close_ms"] < 1000, r


def test_a_seek_interrupts_a_blocked_packets_iteration(server, long_ts: bytes):
    """packets() (batched read-ahead, issue 21) blocked on a stalled HTTP body: another
    thread's seek makes it raise ReadInterruptedError, as read_packet() does, and the next
    packets() starts at that seek's landing."""
    import threading

    sys.path.insert(0, str(BINDING))
    import fastpix_seek
    from fastpix_seek import Player, SeekPrecision

    server.file("/long.ts", long_ts, throttle=4_000_000)
    with Player(f"{server.base}/long.ts", io_timeout=30) as p:
        p.wait_item(30)
        it = p.packets()
        for _ in range(30):
            next(it)
        server.arm()  # the body in progress stalls: the iteration blocks in a read
        box: dict = {}

        def seek_later() -> None:
            time.sleep(0.5)
            box["outcome"] = p.seek_and_wait(1, SeekPrecision.exact(), timeout=20)

        t = threading.Thread(target=seek_later)
        t.start()
        t0 = time.monotonic()
        with pytest.raises(fastpix_seek.errors.ReadInterruptedError):
            for _ in it:
                pass
        waited = time.monotonic() - t0
        t.join(30)
        assert waited < 5, waited
        o = box["outcome"]
        first = next(p.packets())
        assert first.is_discontinuity and first.seek_id == o.seek_id
