"""Helpers shared by the binding tests (imported by name: the tests dir is on sys.path)."""

from __future__ import annotations

import random
import threading
import time
import zlib
from fractions import Fraction
from pathlib import Path
from typing import Callable, List, Set

INT32_MAX = 2 ** 31 - 1

HERE = Path(__file__).resolve().parent
BINDING = HERE.parent
REPO = BINDING.parents[1]
HEADER = REPO / "Include" / "fastpix" / "seek.h"
INCLUDE = REPO / "Include"


def task_ids() -> Set[int]:
    """Thread ids (tids) of every thread of this process, from /proc/self/task."""
    return {int(t.name) for t in Path("/proc/self/task").iterdir()}


def foreign_task_ids() -> Set[int]:
    """Threads not started by Python's threading module: the library's, among others."""
    py = {t.native_id for t in threading.enumerate()
          if not isinstance(t, threading._DummyThread)}  # type: ignore[attr-defined]
    return task_ids() - py


def wait_for(cond: Callable[[], bool], timeout: float = 10.0, step: float = 0.005) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return cond()


def seed_for(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


def random_targets(rng: random.Random, lo: Fraction, hi: Fraction, n: int) -> List[Fraction]:
    """n random Fractions in [lo, hi] with assorted denominators."""
    out = []
    for _ in range(n):
        den = rng.choice([1, 10, 1000, 1001, 7, 30000, 48000, 90000, 1000000, 15360, 44100])
        out.append(Fraction(rng.randint(int(lo * den), int(hi * den)), den))
    return out


def show(x: object) -> str:
    if isinstance(x, Fraction):
        return f"{x} (~{float(x):.6f} s)"
    return repr(x)
