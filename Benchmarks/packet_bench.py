#!/usr/bin/env python3
"""Packets in Python against packets in C (issue 21, item 3): per-packet microseconds of
reading every packet of one file, in one interleaved run.

    packet_bench.py --bin DIR [--lib SO] [--pythonpath DIR] [--rounds N] [FILE]

Each round: the C program (DIR/packet_bench FILE 2, a fresh process; its second, warm pass
is taken) and, on one long-lived Player per mode, an exact seek_wait to 0 (not timed) and
then every packet to EndOfFile, timed as a whole (time.perf_counter_ns):

* ``packets()``          the iterator (batched read-ahead on the helper thread)
* ``read_packet()``      one call per packet (one helper-thread hop per packet)
* ``packets(batch=1)``   the iterator without read-ahead (a hop per packet, as before 0.4)

Every mode touches the payload like the C program. The report gives the median over the
rounds of ns / packets, its difference to C's median, and the median of the per-round
differences (C and Python measured back to back, so a load burst from elsewhere on the
machine weighs less). Without FILE a 60 s 320x180 H.264 +
AAC MP4 (B-frames) is made with ffmpeg in DIR/../packets-60s.mp4. Exit status 1 when a mode
reads a different number of packets than C.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List


def make_clip(path: Path) -> None:
    if path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    "testsrc2=size=320x180:rate=30000/1001:duration=60", "-f", "lavfi", "-i",
                    "sine=frequency=440:sample_rate=48000:duration=60", "-c:v", "libx264",
                    "-preset", "veryfast", "-bf", "3", "-g", "250", "-c:a", "aac", "-b:a",
                    "64k", "-shortest", str(tmp)], check=True)
    tmp.replace(path)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, type=Path)
    ap.add_argument("--lib")
    ap.add_argument("--pythonpath")
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("file", nargs="?", type=Path)
    a = ap.parse_args()
    if a.lib:
        os.environ["FASTPIX_SEEK_LIBRARY"] = a.lib
    if a.pythonpath:
        sys.path.insert(0, a.pythonpath)
    import fastpix_seek as fpx

    path = a.file or (a.bin.parent / "packets-60s.mp4")
    if a.file is None:
        make_clip(path)

    def c_round() -> tuple:
        out = subprocess.run([str(a.bin / "packet_bench"), str(path), "2"], check=True,
                             capture_output=True, text=True).stdout.split()
        _, n, ns, _ = out[-1].split(",")
        return int(n), int(ns)

    players: Dict[str, "fpx.Player"] = {}
    sink = [0]

    def touch(pk: "fpx.Packet") -> None:
        d = pk.data
        if d:
            sink[0] += d[0] + d[-1]

    def it_packets(p: "fpx.Player") -> int:
        n = 0
        for pk in p.packets():
            d = pk.data
            if d:
                sink[0] += d[0] + d[-1]
            n += 1
        return n

    def it_batch1(p: "fpx.Player") -> int:
        n = 0
        for pk in p.packets(batch=1):
            d = pk.data
            if d:
                sink[0] += d[0] + d[-1]
            n += 1
        return n

    def it_read(p: "fpx.Player") -> int:
        n = 0
        read = p.read_packet
        while True:
            try:
                pk = read()
            except fpx.EndOfFile:
                return n
            d = pk.data
            if d:
                sink[0] += d[0] + d[-1]
            n += 1

    modes: Dict[str, Callable[["fpx.Player"], int]] = {
        "packets()": it_packets, "read_packet()": it_read, "packets(batch=1)": it_batch1}
    for m in modes:
        p = fpx.Player(path)
        p.wait_item(60)
        players[m] = p
    per: Dict[str, List[float]] = {"C (fpx_player_read_packet)": []}
    per.update({m: [] for m in modes})
    counts: Dict[str, set] = {k: set() for k in per}
    exact = fpx.SeekPrecision.exact()
    for _ in range(a.rounds):
        n, ns = c_round()
        per["C (fpx_player_read_packet)"].append(ns / n / 1000)
        counts["C (fpx_player_read_packet)"].add(n)
        for m, fn in modes.items():
            p = players[m]
            p.seek_wait(0, exact, timeout=60)
            t0 = time.perf_counter_ns()
            k = fn(p)
            dt = time.perf_counter_ns() - t0
            per[m].append(dt / k / 1000)
            counts[m].add(k)
    for p in players.values():
        p.close()
    c_med = statistics.median(per["C (fpx_player_read_packet)"])
    npk = sorted(counts["C (fpx_player_read_packet)"])
    print(f"file: {path} ({npk} packets), {a.rounds} interleaved rounds, Python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    print("| reader | median us/packet | min | max | minus C: medians | minus C: median of "
          "per-round differences |")
    print("|---|---:|---:|---:|---:|---:|")
    bad = 0
    cs = per["C (fpx_player_read_packet)"]
    for k, v in per.items():
        med = statistics.median(v)
        if k.startswith("C "):
            diff = paired = ""
        else:
            diff = f"{med - c_med:+.2f}"
            paired = f"{statistics.median(x - c for x, c in zip(v, cs)):+.2f}"
        print(f"| {k} | {med:.2f} | {min(v):.2f} | {max(v):.2f} | {diff} | {paired} |")
        if counts[k] != counts["C (fpx_player_read_packet)"]:
            print(f"packet_bench: {k} read {sorted(counts[k])} packets, C {npk}",
                  file=sys.stderr)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
