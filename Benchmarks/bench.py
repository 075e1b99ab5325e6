#!/usr/bin/env python3
"""FastPixSeek benchmark driver. Run it through Benchmarks/run.sh, which builds the programs,
makes the corpus and passes the paths:

    bench.py --corpus DIR --bin DIR --lib SO --results DIR --out FILE [--smoke]
             [--targets N] [--seed S] [--rounds R] [--pythonpath DIR] [--command CMD]
    bench.py --rerender RESULTS/state.pickle [OUT]    (the report again, no measuring)

What it does:
  1. Ground truth, once per file (cached next to the file, keyed by size and mtime):
     `ffprobe -show_frames` on the reference video stream -> frame pts and keyframes, in the
     stream's time base. The frame covering t = the largest frame pts <= t.
  2. Targets, per file: N/2 uniform random ticks in [first frame, last frame] and N/2 picked
     exactly on frame pts, seeded (--seed and the file name), shuffled, written to
     RESULTS/targets-FILE.txt as absolute stream ticks, which every program reads.
     Each line also carries a segment number for the cold protocol: a new segment starts
     whenever a target falls into (or next to) a GOP an earlier target of the segment
     touched; programs reopen (new player / context) at segment starts, untimed.
  3. Runs, one process at a time:
       (1) fpx_bench (C API)   (2) av_bench (hand-written libavformat loop: the reference)
       (3) pyav_bench (PyAV: the same exact seek in Python, and the naive seek)
       (4) pyfpx_bench (Python bindings)
     cold = first pass with the segment protocol; warm = second pass of the same list on one
     player/context (every GOP already visited).
  4. Compares every landing with the ground truth, aggregates, and writes the report.

Exit status: 1 when a FastPixSeek implementation ((1) or (4)) mismatched the ground truth,
or a program failed to run; never because of a timing. PyAV or the Python bindings being
unavailable is reported, not a failure.
"""

from __future__ import annotations

import argparse
import datetime
import pickle
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_scale  # noqa: E402  (the scale sections: throughput, idle players, packets)
from bench_common import HERE, ROOT, Failure, log, run
from bench_report import Report
from bench_runs import Runs
from bench_stats import Figures
from bench_targets import Targets
from bench_truth import Truth, make_targets  # noqa: F401  (Truth: state.pickle of older runs names __main__.Truth)


class Bench(Runs, Figures, Targets, Report):
    """One run: the parts by concern are its bases (bench_runs, bench_stats, bench_targets,
    bench_report); this file is the driver."""

    def __init__(self, a: argparse.Namespace) -> None:
        self.a = a
        self.smoke = a.smoke
        self.corpus = Path(a.corpus)
        self.bin = Path(a.bin)
        self.lib = Path(a.lib)
        self.results = Path(a.results)
        self.results.mkdir(parents=True, exist_ok=True)
        self.failures: List[str] = []
        self.notes: List[str] = []
        self.py_env = {"FASTPIX_SEEK_LIBRARY": str(self.lib),
                       "PYTHONPATH": a.pythonpath or str(ROOT / "Bindings" / "python")}
        self.has_pyav = False
        self.pyav_info = ""
        self.has_pyfpx = False
        self.pyfpx_info = ""
        # results
        # every round's rows per (impl, container, mode, protocol)
        self.seeks: Dict[Tuple[str, str, str, str], List[List[Dict[str, str]]]] = {}
        self.mism: Dict[Tuple[str, str, str], Tuple[int, int]] = {}
        self.scrub: Dict[str, Dict[str, str]] = {}
        self.steps: Dict[str, Dict[str, Any]] = {}
        self.open: Dict[Any, Any] = {}
        self.segs: Dict[str, List[int]] = {}
        self.ffms2_ok, self.ffms2_info = self.ffms2_status(a)
        if not self.ffms2_ok:
            self.notes.append(f"ffms2 rows: {self.ffms2_info}.")

    # -- main -----------------------------------------------------------------------------
    def main(self) -> int:
        t0 = time.monotonic()
        self.load0 = " ".join(open("/proc/loadavg").read().split()[:3])
        for f in sorted(self.corpus.glob("*")):  # page cache
            if f.suffix in (".mp4", ".mkv", ".ts"):
                with open(f, "rb") as fh:
                    while fh.read(1 << 20):
                        pass
        self.check_python_impls()
        self.section_loads: List[Tuple[str, str]] = []
        for name, fn in (("seeks", self.run_seeks), ("instr", self.run_instr), ("trace", self.run_trace),
                         ("scrub", self.run_scrub), ("steps", self.run_steps),
                         ("open", self.run_open), ("index", self.run_index),
                         ("throughput", lambda: bench_scale.run_throughput(
                             self, run, make_targets, Failure)),
                         ("cachesim", lambda: bench_scale.run_cachesim(self, run, Failure)),
                         ("idle", lambda: bench_scale.run_idle(self, run, Failure)),
                         ("packets", lambda: bench_scale.run_packets(self, run, Failure, HERE))):
            fn()
            self.section_loads.append((name, open("/proc/loadavg").read().split()[0]))
        self.load1 = " ".join(open("/proc/loadavg").read().split()[:3])
        self.elapsed = time.monotonic() - t0
        self.generated = datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC")
        self.machine_info = self.machine()
        self.so = self.so_sizes()
        with open(self.results / "state.pickle", "wb") as fh:  # for --rerender
            pickle.dump(self.__dict__, fh)
        text = self.report()
        Path(self.a.out).write_text(text)
        print(text)
        log(f"wrote {self.a.out}")
        return self.verdict()

    def verdict(self) -> int:
        bad = []
        for (impl, cont, mode), (m, _) in sorted(self.mism.items()):
            if impl in ("fpx", "pyfpx", "fpx-index", "fpx-throughput") and m:
                bad.append(f"{impl} {cont} {mode}: {m} mismatches")
        for cont, c in self.steps.items():
            for g in c["gops"]:
                if g.get("mismatches"):
                    bad.append(f"fpx step {cont} GOP {g['gop']}: {g['mismatches']} mismatches")
        for b in bad:
            log("MISMATCH " + b)
        for f in self.failures:
            log("FAILED " + f)
        return 1 if bad or self.failures else 0



def rerender(state: str, out: Optional[str]) -> int:
    """Writes the report again from a finished run's RESULTS/state.pickle (report changes
    without re-measuring); same exit status rule."""
    b = Bench.__new__(Bench)
    with open(state, "rb") as fh:
        b.__dict__.update(pickle.load(fh))
    if out:
        b.a.out = out
    Path(b.a.out).write_text(b.report())
    log(f"wrote {b.a.out} from {state}")
    return b.verdict()


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "--rerender":
        return rerender(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--pythonpath", default=None,
                    help="where the fastpix_seek package is (default Bindings/python)")
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--targets", type=int, default=None)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--rounds", type=int, default=None,
                    help="times every seek job is run; figures use each job's best round "
                         "(default 3, smoke 1)")
    ap.add_argument("--command", default="Benchmarks/run.sh")
    ap.add_argument("--ffms2-status", default=None,
                    help="run.sh's ffms2 status file: 'ok VERSION' or 'not measured: WHY'")
    a = ap.parse_args()
    if a.targets is None:
        a.targets = 24 if a.smoke else 1000
    if a.rounds is None:
        a.rounds = 1 if a.smoke else 3
    try:
        return Bench(a).main()
    except Failure as e:
        log(f"FAILED: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
