"""The statistics of the benchmark driver (bench.py): medians and percentiles, ratios and how
they are printed, and `Figures`, the aggregates of a run's results (the best round of a job,
the cold split, the open and index figures) that the report and the targets read."""

from __future__ import annotations

import math
import statistics
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from bench_common import Failure, run
from bench_truth import Truth


def median(v: Sequence[float]) -> float:
    return float(statistics.median(v)) if v else float("nan")


def p95(v: Sequence[float]) -> float:
    if not v:
        return float("nan")
    s = sorted(v)
    return float(s[max(0, math.ceil(0.95 * len(s)) - 1)])


def ms(ns: float) -> str:
    if ns != ns:
        return "n/a"
    return f"{ns / 1e6:.3f}"


def ratio(a: float, b: float) -> float:
    if a != a or b != b or b == 0:
        return float("nan")
    return a / b


def fmt_ratio(r: float) -> str:
    if r != r:
        return "n/a"
    return f"{r:.3f}x" if r < 1 else f"{r:.2f}x"



class Figures:
    """Aggregates over the results a `Bench` gathered (a mixin of bench.Bench)."""

    def best_round(self, impl: str, cont: str, mode: str, proto: str) -> List[Dict[str, str]]:
        """The measured pass of the round with the lowest median time (best of the rounds,
        the same rule for every implementation)."""
        rounds = self.seeks.get((impl, cont, mode, proto))
        if not rounds:
            return []
        want = "0" if proto == "cold" else "1"
        passes = [[r for r in rows if r["pass"] == want] for rows in rounds]
        passes = [p for p in passes if p]
        if not passes:
            return []
        return min(passes, key=lambda p: median([float(r["ns"]) for r in p]))

    def timed(self, impl: str, cont: str, mode: str, proto: str,
              field: str = "ns") -> List[float]:
        return [float(r[field]) for r in self.best_round(impl, cont, mode, proto)]

    def cold_split(self, impl: str, cont: str, mode: str) -> Tuple[List[float], List[float]]:
        """Cold-pass times split into (first seek on a fresh player, later cold seeks)."""
        rows = self.best_round(impl, cont, mode, "cold")
        segs = self.segs.get(cont, [])
        first, later = [], []
        for r in rows:
            i = int(r["idx"])
            (first if i == 0 or segs[i] != segs[i - 1] else later).append(float(r["ns"]))
        return first, later

    def open_ratios(self, impl: str) -> List[Tuple[str, float, float, float]]:
        """(file, ratio, fpx median ns, bare median ns) of one index mode, every file."""
        out = []
        for fname, label in self.OPEN_FILES:
            f, h = self.open.get((fname, impl)), self.open.get((fname, "hand"))
            if not f or not h or not f["open_ns"] or not h["open_ns"]:
                out.append((label, float("nan"), float("nan"), float("nan")))
                continue
            a, b = median(f["open_ns"]), median(h["open_ns"])
            out.append((label, ratio(a, b), a, b))
        return out

    def index_kind(self, name: str, kind: str, field: str = "ns") -> List[float]:
        rec = getattr(self, "index_runs", {}).get(name) or {}
        return [float(r[field]) for r in rec.get("seeks", {}).get(kind, [])]

    def na(self, impl: str) -> str:
        if impl == "pyfpx" and not self.has_pyfpx:
            return "not available"
        if impl.startswith("pyav") and not self.has_pyav:
            return "skipped (no PyAV)"
        return "failed"

    @staticmethod
    def length_s(tr: Truth) -> float:
        return float((tr.frames[-1] - tr.frames[0]) * tr.time_base) if tr.frames else 0.0

    def hwm_agree(self) -> str:
        ok = tot = 0
        for k, d in self.open.items():
            if isinstance(k, tuple) and isinstance(d, dict):
                for a, b in zip(d["rss_open"], d["hwm_open"]):
                    tot += 1
                    ok += abs(a - b) <= 8
        return f"{ok} of {tot}"

    def index_figures(self) -> Optional[Dict[str, float]]:
        o = self.open
        try:
            F, K = o[("long", "frames")], o[("long", "keys")]
            Fs = o[("short", "frames")]

            def extra(fname: str, field: str) -> float:
                f, h = o[(fname, "fpx")], o[(fname, "hand")]
                if field == "rss_open":
                    return (median(f["rss_open"]) - median(h["rss_open"])) * 1024
                return (f["rss_seeks"] - h["rss_seeks"]) * 1024
            return {"frames": F, "keys": K, "grid_bytes": 8 * F + 16 * K,
                    "grid_bpf": (8 * F + 16 * K) / F,
                    "open_marginal": (extra("long", "rss_open") - extra("short", "rss_open"))
                    / (F - Fs),
                    "after_seeks_marginal": (extra("long", "rss_seeks") -
                                             extra("short", "rss_seeks")) / (F - Fs)}
        except (KeyError, TypeError, ZeroDivisionError, statistics.StatisticsError):
            return None

    def so_sizes(self) -> Tuple[int, int]:
        full = self.lib.stat().st_size
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "stripped.so"
            try:
                run(["strip", "-o", str(out), str(self.lib)])
                stripped = out.stat().st_size
            except Failure as e:
                self.failures.append(f"strip: {e}")
                stripped = -1
        return full, stripped

    # -- targets --------------------------------------------------------------------------
    def med(self, impl: str, cont: str, mode: str, proto: str) -> float:
        return median(self.timed(impl, cont, mode, proto))
