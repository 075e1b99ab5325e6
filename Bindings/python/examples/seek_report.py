#!/usr/bin/env python3
"""Seek a media file N times and print where each seek landed.

    python3 seek_report.py FILE [--n 100] [--precision exact|at_or_after|default|keyframe:TOL]
                                [--seed 1] [--exact-times]

Targets are random item times from half a second before the start to half a second past the
end (so some are clamped), each a Fraction with an assorted timescale. Every row shows the
requested time, the landed frame's time, delta = landed - requested (exact), a verdict, the
clamp kind and how the landing was resolved. Verdicts:

    covers    exact precision: the landed frame's interval holds the (clamped) target
    at/after  at-or-after precision: the landed frame starts at or after the target
    within    keyframe precision: landed inside [requested - tol, requested + tol]
    outside   keyframe precision: outside that window (e.g. the target was clamped);
              at-or-after precision: a target past the last frame, clamped to it
    MISS      exact precision, but the frame does not cover the target (a library bug)
    <reason>  the seek did not finish (superseded, cancelled, failed, no_seek_manager)

Times print as seconds with 6 decimals for reading; --exact-times prints the Fractions.
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional

try:
    import fastpix_seek  # noqa: F401  (installed with `pip install Bindings/python`)
except ImportError:  # run from a checkout without installing: use the package beside this folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastpix_seek import (ClampKind, FastPixSeekError, LandingResolution, Player,
                          PrecisionKind, SeekOutcome, SeekPrecision)

DENOMINATORS = [1, 10, 1000, 1001, 7, 30000, 48000, 90000, 1_000_000]

CLAMP = {
    ClampKind.NONE: "-",
    ClampKind.TO_SEEKABLE_START: "start",
    ClampKind.TO_SEEKABLE_END: "end",
    ClampKind.SEEKABLE_RANGE_UNKNOWN: "unknown",
}
RESOLUTION = {
    LandingResolution.NONE: "none",
    LandingResolution.COVERING_FRAME: "covering",
    LandingResolution.KEYFRAME: "keyframe",
    LandingResolution.FALLBACK_COVERING_FRAME: "fallback",
}


def parse_precision(text: str) -> SeekPrecision:
    if text == "exact":
        return SeekPrecision.exact()
    if text == "default":
        return SeekPrecision.default()
    if text == "at_or_after":
        return SeekPrecision.at_or_after()
    if text.startswith("keyframe:"):
        return SeekPrecision.nearest_keyframe(text.split(":", 1)[1])
    raise argparse.ArgumentTypeError(f"unknown precision {text!r}")


def targets(start: Fraction, end: Fraction, n: int, seed: int) -> List[Fraction]:
    rng = random.Random(seed)
    lo, hi = start - Fraction(1, 2), end + Fraction(1, 2)
    out = []
    for _ in range(n):
        den = rng.choice(DENOMINATORS)
        out.append(Fraction(rng.randint(int(lo * den), int(hi * den)), den))
    return out


def fmt(t: Optional[Fraction], exact: bool, signed: bool = False) -> str:
    if t is None:
        return "-"
    if exact:
        return str(t)
    return f"{float(t):+.6f}" if signed else f"{float(t):.6f}"


def verdict(o: SeekOutcome) -> str:
    if not o.finished:
        return o.verdict
    if o.precision.kind == PrecisionKind.EXACT:
        return "covers" if o.frame_covers_target else "MISS"
    if o.precision.kind == PrecisionKind.AT_OR_AFTER:
        return "at/after" if o.within_tolerance else "outside"
    return "within" if o.within_tolerance else "outside"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--n", type=int, default=100, help="number of seeks (default 100)")
    ap.add_argument("--precision", type=parse_precision, default=SeekPrecision.exact(),
                    help="exact (default), at_or_after, default, or keyframe:TOLERANCE")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact-times", action="store_true", help="print times as Fractions")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per seek")
    args = ap.parse_args(argv)

    try:
        with Player(args.file) as player:
            player.wait_item(timeout=args.timeout)
            info = player.item_info()
            start, end = player.seekable_range()
            print(f"{args.file}: {info.format_name}, reference stream #{info.reference_stream} "
                  f"(time base {info.time_base}), seekable [{fmt(start, args.exact_times)}, "
                  f"{fmt(end, args.exact_times)}] s, precision {args.precision}")
            w = 22 if args.exact_times else 12
            header = (f"{'#':>4}  {'requested':>{w}}  {'landed':>{w}}  {'delta':>{w}}  "
                      f"{'verdict':<10} {'clamp':<8} {'resolution':<10}")
            print(header)
            print("-" * len(header))
            counts: Dict[str, int] = {}
            for i, t in enumerate(targets(start, end, args.n, args.seed), 1):
                o = player.seek_and_wait(t, args.precision, timeout=args.timeout)
                v = verdict(o)
                counts[v] = counts.get(v, 0) + 1
                clamp = CLAMP.get(o.clamp.kind, str(o.clamp.kind))
                res = RESOLUTION.get(o.resolution, str(o.resolution))
                print(f"{i:>4}  {fmt(o.requested_time, args.exact_times):>{w}}  "
                      f"{fmt(o.landed_time, args.exact_times):>{w}}  "
                      f"{fmt(o.delta, args.exact_times, signed=True):>{w}}  "
                      f"{v:<10} {clamp:<8} {res:<10}")
            print("-" * len(header))
            print("verdicts: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
            s = player.stats()
            print(f"stats: {s.seeks_completed} completed, {s.packets_demuxed} packets demuxed")
            return 1 if counts.get("MISS") else 0
    except FastPixSeekError as e:
        print(f"seek_report: {args.file}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
