#!/usr/bin/env python3
"""FastPixSeek through its Python bindings (Bindings/python, package fastpix_seek), for the
benchmarks (see bench.py).

    pyfpx_bench.py seek FILE TARGETS MODE PASSES REOPEN [TOL_NUM TOL_DEN]
    pyfpx_bench.py scrub FILE N

seek: as fpx_bench.c, with Player.seek_and_wait (default THREAD delivery); a seek is timed
around that call (time.perf_counter_ns), so the time includes waking the Python thread.
Targets are absolute stream ticks, passed as the exact Fraction
(ticks - item_info.start_pts) * time_base. Prints
"pass,idx,target,landed,ns,latency_ns,cb_delay_ns,packets,covers,resolution,is_key".

scrub: N ScrubSession.update(Fraction) calls, each timed alone (the Fractions are built
beforehand), then N more as one batch. Prints "calls,median_ns,p95_ns,mean_ns_batch,
timer_overhead_ns".

The library is found the binding's way: $FASTPIX_SEEK_LIBRARY, the loader, then build/lib.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from typing import List, Tuple

import fastpix_seek as fpx

from bench_truth import read_targets


def open_player(path: str) -> Tuple[fpx.Player, int, Fraction]:
    p = fpx.Player(path)
    p.wait_item(timeout=60)
    info = p.item_info()
    return p, int(info.start_pts), Fraction(info.time_base)


def cmd_seek(argv: List[str]) -> int:
    path, targets_path, mode = argv[2], argv[3], argv[4]
    passes, reopen = int(argv[5]), int(argv[6])
    tol = Fraction(int(argv[7]), int(argv[8])) if len(argv) == 9 else Fraction(5)
    if mode == "exact":
        prec = fpx.SeekPrecision.exact()
    elif mode == "key":
        prec = fpx.SeekPrecision.nearest_keyframe(tol)
    else:
        print(f"pyfpx_bench: unknown mode {mode}", file=sys.stderr)
        return 2
    targets = read_targets(targets_path)
    p, start, tb = open_player(path)
    seg = None
    out = ["pass,idx,target,landed,ns,latency_ns,cb_delay_ns,packets,covers,resolution,is_key"]
    clock = time.perf_counter_ns
    for pas in range(passes):
        for i, (s, t) in enumerate(targets):
            if reopen and pas == 0 and seg is not None and s != seg:
                p.close()
                p, start, tb = open_player(path)
            seg = s
            when = (t - start) * tb
            t0 = clock()
            o = p.seek_and_wait(when, prec, timeout=60)
            t1 = clock()
            if not o.finished:
                print(f"pyfpx_bench: seek to {t} did not finish: {o.reason!r}", file=sys.stderr)
                return 2
            ns = t1 - t0
            out.append(f"{pas},{i},{t},{o.landed_stream_pts},{ns},{o.latency_ns},"
                       f"{ns - o.latency_ns},{o.packets_read},{int(o.frame_covers_target)},"
                       f"{int(o.resolution)},{int(o.landed_is_keyframe)}")
    p.close()
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def cmd_scrub(argv: List[str]) -> int:
    path, n = argv[2], int(argv[3])
    p, _, _ = open_player(path)
    s = p.scrub_session()
    clock = time.perf_counter_ns
    times = [Fraction(i % 9000 * 1001, 30000) for i in range(n)]
    v = [0] * n
    for i in range(n):
        t0 = clock()
        v[i] = clock() - t0
    v.sort()
    overhead = v[n // 2]
    s.begin(0)
    update = s.update
    for i in range(n):
        to = times[i]
        t0 = clock()
        update(to)
        v[i] = clock() - t0
    b0 = clock()
    for to in times:
        update(to)
    b1 = clock()
    s.cancel()
    p.close()
    v.sort()
    print("calls,median_ns,p95_ns,mean_ns_batch,timer_overhead_ns")
    print(f"{n},{v[n // 2]},{v[int(n * 0.95)]},{(b1 - b0) / n:.1f},{overhead}")
    return 0


def main(argv: List[str]) -> int:
    if len(argv) >= 7 and argv[1] == "seek":
        return cmd_seek(argv)
    if len(argv) == 4 and argv[1] == "scrub":
        return cmd_scrub(argv)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
