"""What every part of the benchmark driver (bench.py) shares: where things are, the
implementations' names, the failure type, the log line and running one program."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONTAINERS = ("mp4", "mkv", "ts")
KEY_TOLERANCE = Fraction(5)  # seconds, FPX_PRECISION_NEAREST_KEYFRAME tolerance

IMPL_NAMES = {
    "fpx": "(1) fastpixseek, C API",
    "hand": "(2) hand-written libavformat loop (reference)",
    "pyav": "(3) PyAV, exact demux-only seek in Python",
    "pyav-naive": "(3') PyAV, naive seek + first decoded frame",
    "fpx-wait": "(1w) fastpixseek, C API, fpx_player_seek_wait (lands on the calling thread)",
    "pyfpx": "(4) fastpixseek, Python bindings",
}


class Failure(Exception):
    pass


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(cmd: Sequence[str], env: Optional[Dict[str, str]] = None,
        timeout: float = 3600) -> str:
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        p = subprocess.run(list(cmd), capture_output=True, text=True, env=full_env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {timeout} s: {' '.join(cmd)}")
    if p.returncode != 0:
        tail = (p.stderr or "").strip().splitlines()[-5:]
        raise Failure(f"exit status {p.returncode}: {' '.join(cmd)}\n    " +
                      "\n    ".join(tail))
    return p.stdout


def parse_csv(text: str) -> List[Dict[str, str]]:
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    if not lines:
        return []
    head = lines[0].split(",")
    return [dict(zip(head, ln.split(","))) for ln in lines[1:]]
