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
import bisect
import ctypes
import datetime
import json
import math
import os
import pickle
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_scale  # noqa: E402  (the scale sections: throughput, idle players, packets)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONTAINERS = ("mp4", "mkv", "ts")
KEY_TOLERANCE = Fraction(5)  # seconds, FPX_PRECISION_NEAREST_KEYFRAME tolerance

IMPL_NAMES = {
    "fpx": "(1) fastpixseek, C API",
    "hand": "(2) hand-written libavformat loop (reference)",
    "pyav": "(3) PyAV, exact demux-only seek in Python",
    "pyav-naive": "(3') PyAV, naive seek + first decoded frame",
    "pyfpx": "(4) fastpixseek, Python bindings",
}


class Failure(Exception):
    pass


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# ground truth
# --------------------------------------------------------------------------------------------

class Truth:
    def __init__(self, d: Dict[str, Any]) -> None:
        self.time_base = Fraction(d["time_base"])
        self.video_delay = int(d["video_delay"])
        self.frames: List[int] = d["frames"]          # sorted presentation pts
        self.keys: List[int] = d["keys"]              # sorted keyframe pts
        self.container_start = d.get("container_start")

    def covering(self, t: int) -> Optional[int]:
        i = bisect.bisect_right(self.frames, t) - 1
        return self.frames[i] if i >= 0 else None

    def key_before(self, t: int) -> Optional[int]:
        i = bisect.bisect_right(self.keys, t) - 1
        return self.keys[i] if i >= 0 else None

    def gop_of(self, t: int) -> int:
        return max(0, bisect.bisect_right(self.keys, t) - 1)

    def nearest_keys(self, t: int, tol_ticks: int) -> List[int]:
        """The acceptable landings of a nearest-keyframe seek: the keyframe(s) nearest t within
        [t - tol, t + tol] (both on a tie), else the covering frame (the documented fallback)."""
        lo = bisect.bisect_left(self.keys, t - tol_ticks)
        hi = bisect.bisect_right(self.keys, t + tol_ticks)
        cand = self.keys[lo:hi]
        if not cand:
            c = self.covering(t)
            return [c] if c is not None else []
        best = min(abs(k - t) for k in cand)
        return [k for k in cand if abs(k - t) == best]


def probe(path: Path, frames_from: str = "frames") -> Truth:
    """ffprobe ground truth for the best video stream, cached in PATH.probe.json."""
    st = path.stat()
    cache = path.with_name(path.name + ".probe.json")
    key = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "from": frames_from, "v": 2}
    if cache.exists():
        try:
            d = json.loads(cache.read_text())
            if d.get("key") == key:
                return Truth(d)
        except (ValueError, OSError):
            pass
    log(f"ffprobe ground truth for {path.name} ({frames_from})")
    info = json.loads(run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           "stream=index,time_base,has_b_frames:format=start_time",
                           "-of", "json", str(path)]))
    s = info["streams"][0]
    frames: List[int] = []
    keys: List[int] = []
    if frames_from == "frames":
        out = json.loads(run(["ffprobe", "-v", "error", "-select_streams", "v:0",
                              "-show_frames", "-show_entries",
                              "frame=pts,best_effort_timestamp,key_frame", "-of", "json",
                              str(path)]))
        for fr in out["frames"]:
            pts = fr.get("pts", fr.get("best_effort_timestamp"))
            if pts is None:
                continue
            frames.append(int(pts))
            if int(fr.get("key_frame", 0)) == 1:
                keys.append(int(pts))
    else:  # packets: no decoding (used for the 2-hour file, which only needs counts)
        out = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                   "packet=pts,flags", "-of", "csv=p=0", str(path)])
        for ln in out.splitlines():
            parts = ln.split(",")
            if len(parts) < 2 or parts[0] in ("", "N/A"):
                continue
            frames.append(int(parts[0]))
            if "K" in parts[1]:
                keys.append(int(parts[0]))
    frames.sort()
    keys.sort()
    d = {"key": key, "time_base": s["time_base"], "video_delay": s.get("has_b_frames", 0),
         "container_start": info.get("format", {}).get("start_time"),
         "frames": frames, "keys": keys}
    cache.write_text(json.dumps(d))
    return Truth(d)


# --------------------------------------------------------------------------------------------
# targets
# --------------------------------------------------------------------------------------------

def make_targets(truth: Truth, name: str, n: int, seed: int, path: Path) -> List[Tuple[int, int]]:
    rng = random.Random(f"{seed}:{name}")
    lo, hi = truth.frames[0], truth.frames[-1]
    uni = [rng.randint(lo, hi) for _ in range(n // 2)]
    onf = [rng.choice(truth.frames) for _ in range(n - n // 2)]
    ticks = uni + onf
    rng.shuffle(ticks)
    out: List[Tuple[int, int]] = []
    seg, seen = 0, set()  # type: int, set
    for t in ticks:
        g = truth.gop_of(t)
        if seen & {g - 1, g, g + 1}:
            seg += 1
            seen = set()
        seen.add(g)
        out.append((seg, t))
    with open(path, "w") as f:
        f.write(f"# targets for {name}: SEGMENT TICKS; TICKS = absolute pts in the video "
                f"stream's time base {truth.time_base}\n")
        f.write(f"# seed {seed}; {len(uni)} uniform random in [{lo}, {hi}], {len(onf)} on frame "
                f"pts; segments (cold protocol): {seg + 1}\n")
        for s, t in out:
            f.write(f"{s} {t}\n")
    return out


def write_plain_targets(ticks: Sequence[int], path: Path) -> None:
    with open(path, "w") as f:
        for t in ticks:
            f.write(f"0 {t}\n")


# --------------------------------------------------------------------------------------------
# the benchmark
# --------------------------------------------------------------------------------------------

class Bench:
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

    # -- availability -------------------------------------------------------------------
    def ffms2_status(self, a: argparse.Namespace) -> Tuple[bool, str]:
        """(usable, text): from run.sh's status file ("ok VERSION" / "not measured: WHY")."""
        exe = Path(a.bin) / "ffms2_bench"
        st = getattr(a, "ffms2_status", None)
        if not st:
            return False, "not measured: no --ffms2-status given (run through Benchmarks/run.sh)"
        try:
            text = Path(st).read_text().strip()
        except OSError as e:
            return False, f"not measured: run.sh wrote no ffms2 status ({e.strerror})"
        if text.startswith("ok") and exe.exists():
            return True, "ffms2 " + text[2:].strip()
        if text.startswith("ok"):
            return False, f"not measured: {exe} missing"
        return False, text if text.startswith("not measured") else f"not measured: {text}"

    def check_python_impls(self) -> None:
        try:
            out = run([sys.executable, "-c",
                       "import av,sys; lv=av.library_versions; "
                       "print(av.__version__, 'libavformat', '.'.join(map(str, "
                       "lv['libavformat'])))"])
            self.has_pyav = True
            self.pyav_info = out.strip()
        except Failure as e:
            self.pyav_info = f"not available ({str(e).splitlines()[-1].strip()})"
            self.notes.append("PyAV could not be imported: the PyAV rows are skipped.")
        try:
            out = run([sys.executable, "-c",
                       "import fastpix_seek as f; print('fastpix_seek', f.__version__, "
                       "'over library', f.version())"],
                      env=self.py_env)
            self.has_pyfpx = True
            self.pyfpx_info = out.strip()
        except Failure as e:
            self.pyfpx_info = f"not available ({str(e).splitlines()[-1].strip()})"
            self.notes.append("The Python bindings (fastpix_seek) could not be imported: "
                              "row (4) is reported as not available.")

    # -- one seek job ---------------------------------------------------------------------
    def seek_job(self, impl: str, cont: str, mode: str, proto: str, path: Path,
                 targets: Path, truth: Truth, rnd: int) -> None:
        passes, reopen = (1, 1) if proto == "cold" else (2, 0)
        tol = KEY_TOLERANCE
        if impl == "fpx":
            cmd = [str(self.bin / "fpx_bench"), "seek", str(path), str(targets), mode,
                   str(passes), str(reopen), str(tol.numerator), str(tol.denominator)]
            env = None
        elif impl == "hand":
            cmd = [str(self.bin / "av_bench"), "seek", str(path), str(targets), mode,
                   str(passes), str(reopen)]
            env = None
        elif impl in ("pyav", "pyav-naive"):
            cmd = [sys.executable, str(HERE / "pyav_bench.py"), "seek", str(path), str(targets),
                   "naive" if impl == "pyav-naive" else mode, str(passes), str(reopen),
                   str(truth.video_delay)]
            env = None
        elif impl == "pyfpx":
            cmd = [sys.executable, str(HERE / "pyfpx_bench.py"), "seek", str(path),
                   str(targets), mode, str(passes), str(reopen), str(tol.numerator),
                   str(tol.denominator)]
            env = self.py_env
        else:
            raise AssertionError(impl)
        log(f"{impl:10s} {cont:4s} {mode:5s} {proto} (round {rnd + 1})")
        key = (impl, cont, mode, proto)
        try:
            out = run(cmd, env=env)
        except Failure as e:
            self.failures.append(f"{impl} {cont} {mode} {proto}: {e}")
            return
        rows = parse_csv(out)
        (self.results / f"{impl}-{cont}-{mode}-{proto}-r{rnd + 1}.csv").write_text(out)
        self.seeks.setdefault(key, []).append(rows)
        # correctness, over every row (both passes)
        tol_ticks = int(tol / truth.time_base)
        bad = 0
        for r in rows:
            t, landed = int(r["target"]), int(r["landed"])
            if mode == "exact":
                ok = landed == truth.covering(t)
            elif impl in ("fpx", "pyfpx"):
                ok = landed in truth.nearest_keys(t, tol_ticks)
            else:
                ok = landed == truth.key_before(t)
            bad += 0 if ok else 1
        prev = self.mism.get((impl, cont, mode), (0, 0))
        self.mism[(impl, cont, mode)] = (prev[0] + bad, prev[1] + len(rows))

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

    # -- sections -------------------------------------------------------------------------
    def run_seeks(self) -> None:
        n = self.a.targets
        self.truth: Dict[str, Truth] = {}
        self.jobs: Dict[str, List[Tuple[str, str, str]]] = {}
        for cont in CONTAINERS:
            path = self.corpus / f"gop250.{cont}"
            truth = probe(path)
            self.truth[cont] = truth
            tfile = self.results / f"targets-gop250.{cont}.txt"
            self.segs[cont] = [sg for sg, _ in make_targets(truth, path.name, n, self.a.seed,
                                                             tfile)]
            jobs: List[Tuple[str, str, str]] = [
                ("hand", "exact", "cold"), ("fpx", "exact", "cold"),
                ("hand", "exact", "warm"), ("fpx", "exact", "warm"),
                ("hand", "key", "cold"), ("fpx", "key", "cold"),
            ]
            if self.has_pyav:
                jobs += [("pyav", "exact", "cold"), ("pyav", "exact", "warm"),
                         ("pyav", "key", "cold"), ("pyav-naive", "exact", "cold")]
            if self.has_pyfpx:
                jobs += [("pyfpx", "exact", "cold"), ("pyfpx", "exact", "warm"),
                         ("pyfpx", "key", "cold")]
            self.jobs[cont] = jobs
        # rounds: every job once per round, so that load changes hit all implementations alike
        for rnd in range(self.a.rounds):
            for cont in CONTAINERS:
                path = self.corpus / f"gop250.{cont}"
                tfile = self.results / f"targets-gop250.{cont}.txt"
                for impl, mode, proto in self.jobs[cont]:
                    self.seek_job(impl, cont, mode, proto, path, tfile, self.truth[cont], rnd)

    def run_trace(self) -> None:
        """Cold exact seeks of (1) and (2) again, under the avtrace.so LD_PRELOAD shim: how
        much of a seek is spent inside libavformat, and how many calls it makes."""
        shim = self.bin / "avtrace.so"
        if not shim.exists():
            self.notes.append("avtrace.so missing: no time split.")
            return
        self.trace: Dict[Tuple[str, str], Dict[str, float]] = {}
        for cont in CONTAINERS:
            path = self.corpus / f"gop250.{cont}"
            tfile = self.results / f"targets-gop250.{cont}.txt"
            for impl, exe in (("hand", "av_bench"), ("fpx", "fpx_bench")):
                log(f"trace      {cont:4s} {impl}")
                out_path = self.results / f"avtrace-{impl}-{cont}.csv"
                try:
                    rows = parse_csv(run([str(self.bin / exe), "seek", str(path), str(tfile),
                                          "exact", "1", "1"],
                                         env={"LD_PRELOAD": str(shim),
                                              "AVTRACE_OUT": str(out_path)}))
                    tr = {r["name"]: (int(r["calls"]), int(r["total_ns"]))
                          for r in parse_csv(out_path.read_text())}
                except (Failure, OSError, KeyError) as e:
                    self.failures.append(f"trace {impl} {cont}: {e}")
                    continue
                n = len(rows)
                total = sum(int(r["ns"]) for r in rows)
                inside = sum(v[1] for v in tr.values())
                self.trace[(impl, cont)] = {
                    "n": n, "mean_ns": total / n, "inside_ns": inside / n,
                    "read": tr["av_read_frame"][0] / n,
                    "read_ns": tr["av_read_frame"][1] / max(1, tr["av_read_frame"][0]),
                    "seek": tr["av_seek_frame"][0] / n,
                    "seek_file": tr["avformat_seek_file"][0] / n,
                    "flush": tr["avformat_flush"][0] / n}

    def run_scrub(self) -> None:
        n = 100000
        path = self.corpus / "gop250.mp4"
        log("scrub update cost")
        try:
            self.scrub["C"] = parse_csv(run([str(self.bin / "fpx_bench"), "scrub", str(path),
                                             str(n)]))[0]
        except Failure as e:
            self.failures.append(f"scrub (C): {e}")
        if self.has_pyfpx:
            try:
                self.scrub["Python"] = parse_csv(run(
                    [sys.executable, str(HERE / "pyfpx_bench.py"), "scrub", str(path), str(n)],
                    env=self.py_env))[0]
            except Failure as e:
                self.failures.append(f"scrub (Python): {e}")

    def run_steps(self) -> None:
        for cont in CONTAINERS:
            truth = self.truth[cont]
            path = self.corpus / f"gop250.{cont}"
            ngops = len(truth.keys)
            gops = [1] if self.smoke else [ngops // 4, ngops // 2, (3 * ngops) // 4]
            per: List[Dict[str, Any]] = []
            for g in gops:
                if g + 1 >= ngops:
                    continue
                lo, hi = truth.keys[g], truth.keys[g + 1]
                gop = [p for p in truth.frames if lo <= p < hi]
                back = list(reversed(gop))  # the playhead's path: last frame .. keyframe
                log(f"step       {cont:4s} GOP {g} ({len(gop)} frames)")
                rec: Dict[str, Any] = {"gop": g, "frames": len(gop)}
                try:
                    out = run([str(self.bin / "fpx_bench"), "step", str(path), str(back[0]),
                               str(len(back) - 1)])
                    rows = parse_csv(out)
                    summ = [ln for ln in out.splitlines() if ln.startswith("#summary")][0]
                    _, seek_pk, step_pk, step_ns = summ.split(",")
                    landed = [int(r["landed"]) for r in rows]
                    rec.update(seek_packets=int(seek_pk), step_packets=int(step_pk),
                               step_ns=int(step_ns), seek_ns=int(rows[0]["ns"]),
                               mismatches=sum(1 for a, b in zip(landed, back) if a != b)
                               + abs(len(landed) - len(back)))
                except Failure as e:
                    self.failures.append(f"step {cont} GOP {g}: {e}")
                    continue
                tfile = self.results / f"step-targets-{cont}-{g}.txt"
                write_plain_targets(back, tfile)
                for impl, exe in (("hand", "av_bench"), ("fpx", "fpx_bench")):
                    try:
                        rows = parse_csv(run([str(self.bin / exe), "seek", str(path),
                                              str(tfile), "exact", "1", "0"]))
                        rec[f"{impl}_reseek_packets"] = sum(int(r["packets"]) for r in rows)
                        rec[f"{impl}_reseek_ns"] = sum(int(r["ns"]) for r in rows)
                        rec[f"{impl}_first_seek_packets"] = int(rows[0]["packets"])
                        rec[f"{impl}_reseek_mismatches"] = sum(
                            1 for r, b in zip(rows, back) if int(r["landed"]) != b)
                    except Failure as e:
                        self.failures.append(f"re-seek {impl} {cont} GOP {g}: {e}")
                per.append(rec)
            self.steps[cont] = {"gops": per}

    # index modes for the open-time measurement: (key in self.open, fpx_bench argument)
    OPEN_MODES = (("fpx-off", "off"), ("fpx", "keyframes"), ("fpx-full", "full"))
    OPEN_FILES = (("long", "long2h.mp4"), ("short", "gop250.mp4"), ("mkv", "gop250.mkv"),
                  ("ts", "gop250.ts"))

    def run_open(self) -> None:
        """Open time of bare libavformat and of FastPixSeek in every index mode, on every
        corpus file (one process per measurement, alternating); RSS after open, and (MP4s)
        after a seek into every GOP, for bare libavformat and the default mode."""
        reps = 3 if self.smoke else 9
        files = {f: self.corpus / n for f, n in self.OPEN_FILES}
        self.long_truth = probe(files["long"], frames_from="packets")
        res: Dict[Any, Any] = {"reps": reps}
        impls = [("hand", "av_bench", None)] + [(k, "fpx_bench", m) for k, m in self.OPEN_MODES]
        for fname, path in files.items():
            truth = {"long": self.long_truth, "short": self.truth["mp4"],
                     "mkv": self.truth["mkv"], "ts": self.truth["ts"]}[fname]
            for impl, _, _ in impls:
                res[(fname, impl)] = {"open_ns": [], "rss_open": [], "rss_start": [],
                                      "hwm_open": [], "create_ns": [], "rss_seeks": None,
                                      "hwm_seeks": None}
            log(f"open/RSS   {path.name} x{reps} (bare, fpx off/keyframes/full)")
            for _ in range(reps):  # alternate, one process per measurement
                for impl, exe, mode in impls:
                    cmd = [str(self.bin / exe), "open", str(path)]
                    if mode:
                        cmd += ["-", mode]
                    try:
                        r = parse_csv(run(cmd))[0]
                    except Failure as e:
                        self.failures.append(f"open {impl} {path.name}: {e}")
                        continue
                    d = res[(fname, impl)]
                    d["open_ns"].append(int(r["open_ns"]))
                    d["rss_open"].append(int(r["rss_open_kb"]))
                    d["rss_start"].append(int(r["rss_start_kb"]))
                    d["hwm_open"].append(int(r["hwm_open_kb"]))
                    if "create_ns" in r:
                        d["create_ns"].append(int(r["create_ns"]))
            res[(fname, "frames")] = len(truth.frames)
            res[(fname, "keys")] = len(truth.keys)
            if fname not in ("long", "short"):
                continue
            # one exact seek into every GOP, in random order: the middle frame of each
            rng = random.Random(f"{self.a.seed}:open:{fname}")
            bounds = truth.keys + [truth.frames[-1] + 1]
            seeks = []
            for k0, k1 in zip(bounds, bounds[1:]):
                lo = bisect.bisect_left(truth.frames, k0)
                hi = bisect.bisect_left(truth.frames, k1)
                seeks.append(truth.frames[(lo + hi) // 2])
            rng.shuffle(seeks)
            tfile = self.results / f"open-targets-{fname}.txt"
            write_plain_targets(seeks, tfile)
            for impl, exe in (("hand", "av_bench"), ("fpx", "fpx_bench")):
                try:
                    r = parse_csv(run([str(self.bin / exe), "open", str(path), str(tfile)]))[0]
                    res[(fname, impl)]["rss_seeks"] = int(r["rss_seeks_kb"])
                    res[(fname, impl)]["hwm_seeks"] = int(r["hwm_seeks_kb"])
                except Failure as e:
                    self.failures.append(f"open+seeks {impl} {path.name}: {e}")
        self.open = res

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

    INDEX_FILES = ("gop250.mp4", "gop250.mkv", "gop250.ts", "long2h.mp4")
    # index_bench.c's seek kinds: (kind, label, precision tolerance in seconds or None)
    INDEX_KINDS = (("full-exact", "FULL, exact", None),
                   ("full-default", "FULL, default precision (nearest keyframe, 1/10 s)",
                    Fraction(1, 10)),
                   ("full-key", f"FULL, nearest keyframe, {KEY_TOLERANCE} s", KEY_TOLERANCE),
                   ("kf-exact", "KEYFRAMES player, exact (one player, warming)", None),
                   ("host-exact", "FULL, exact, FPX_DELIVERY_HOST", None),
                   ("host-default", "FULL, default precision, FPX_DELIVERY_HOST",
                    Fraction(1, 10)),
                   ("host-key", f"FULL, nearest keyframe, {KEY_TOLERANCE} s, FPX_DELIVERY_HOST",
                    KEY_TOLERANCE))

    def index_truth(self, name: str) -> Truth:
        return self.long_truth if name == "long2h.mp4" else self.truth[name.split(".")[1]]

    def run_index(self) -> None:
        """FPX_INDEX_FULL (index_bench.c) against ffms2 (ffms2_bench.c), per file:
        1. index build time: REPS rounds, each one index_bench process (index only) and one
           ffms2_bench process (FFMS_DoIndexing2, video track only), alternating; medians;
           indexed frame counts checked against ffprobe.
        2. seeks with the index complete: index_bench on the run's targets (exact, default
           precision, nearest keyframe 5 s on the FULL player; exact on a KEYFRAMES player),
           every landing checked against ffprobe; ROUNDS runs, each kind's figures from its
           round with the lowest median.
        3. ffms2 FFMS_GetFrame on the first targets (a decoded exact seek; informational)."""
        reps = 3 if self.smoke else 5
        rounds = 1 if self.smoke else 2
        n = self.a.targets
        n_ffms2 = 24 if self.smoke else 200
        self.index_runs: Dict[str, Dict[str, Any]] = {}
        self.ffms2_getframe: Dict[str, List[Dict[str, str]]] = {}
        for name in self.INDEX_FILES:
            path = self.corpus / name
            truth = self.index_truth(name)
            want = len(truth.frames)
            rec: Dict[str, Any] = {"fpx_index_ms": [], "fpx_ready_ms": [], "fpx_packets": [],
                                   "fpx_open_to_index_ms": [], "bare_total_ms": [],
                                   "ffms2_total_ms": [], "ffms2_create_ms": [],
                                   "ffms2_index_ms": [], "ffms2_frames": None, "frames": None,
                                   "keys": len(truth.keys), "want": want, "seeks": {},
                                   "targets": 0}
            log(f"index      {name} x{reps} (fpx FULL{', ffms2' if self.ffms2_ok else ''})")
            for _ in range(reps):
                try:
                    out = run([str(self.bin / "index_bench"), str(path)])
                    r = self.index_summary(out)
                except Failure as e:
                    self.failures.append(f"index_bench {name}: {e}")
                    break
                if int(r["frames"]) != want or int(r["complete"]) != 1:
                    self.failures.append(f"index_bench {name}: {int(r['frames'])} frames indexed "
                                         f"(complete={int(r['complete'])}), ffprobe has {want}")
                rec["frames"] = int(r["frames"])
                rec["fpx_index_ms"].append(r["index_ms"])
                rec["fpx_ready_ms"].append(r["ready_ms"])
                rec["fpx_open_to_index_ms"].append(r["open_to_index_ms"])
                rec["fpx_packets"].append(r["index_packets"])
                try:  # the demux floor: bare libavformat reading every video packet
                    b = parse_csv(run([str(self.bin / "av_bench"), "readall", str(path)]))[0]
                    rec["bare_total_ms"].append(int(b["total_ns"]) / 1e6)
                except Failure as e:
                    self.failures.append(f"av_bench readall {name}: {e}")
                if not self.ffms2_ok:
                    continue
                try:
                    f = parse_csv(run([str(self.bin / "ffms2_bench"), "index", str(path)]))[0]
                except Failure as e:
                    # third-party: reported, not a failure of the run
                    rec["ffms2_error"] = str(e).splitlines()[-1].strip()
                    continue
                rec["ffms2_total_ms"].append(int(f["total_ns"]) / 1e6)
                rec["ffms2_create_ms"].append(int(f["create_ns"]) / 1e6)
                rec["ffms2_index_ms"].append(int(f["index_ns"]) / 1e6)
                rec["ffms2_frames"] = int(f["frames"])
            # seeks with the index complete
            tfile = self.results / f"targets-{name}.txt"
            if not tfile.exists():  # long2h.mp4: targets of its own, same recipe
                make_targets(truth, name, n, self.a.seed, tfile)
            log(f"index      {name} seeks, {n} targets x{len(self.INDEX_KINDS)} kinds x{rounds}")
            best: Dict[str, List[Dict[str, str]]] = {}
            for rnd in range(rounds):
                try:
                    out = run([str(self.bin / "index_bench"), str(path), str(tfile), str(n),
                               str(KEY_TOLERANCE.numerator), str(KEY_TOLERANCE.denominator)])
                except Failure as e:
                    self.failures.append(f"index_bench seeks {name}: {e}")
                    break
                (self.results / f"index-{name}-r{rnd + 1}.csv").write_text(out)
                rows = parse_csv("\n".join(ln for ln in out.splitlines()
                                            if not ln.startswith("#summary")))
                for kind, _, tol in self.INDEX_KINDS:
                    kr = [r for r in rows if r["kind"] == kind]
                    tol_ticks = None if tol is None else int(tol / truth.time_base)
                    bad = 0
                    for r in kr:
                        t, landed = int(r["target"]), int(r["landed"])
                        ok = (landed == truth.covering(t) if tol_ticks is None
                              else landed in truth.nearest_keys(t, tol_ticks))
                        bad += 0 if ok else 1
                    prev = self.mism.get(("fpx-index", name, kind), (0, 0))
                    self.mism[("fpx-index", name, kind)] = (prev[0] + bad, prev[1] + len(kr))
                    if kr and (kind not in best or median([float(r["ns"]) for r in kr]) <
                               median([float(r["ns"]) for r in best[kind]])):
                        best[kind] = kr
                rec["targets"] = max(rec["targets"], max((len(v) for v in best.values()),
                                                         default=0))
            rec["seeks"] = best
            # ffms2 decoded exact seeks (gop250 files only)
            if self.ffms2_ok and name.startswith("gop250"):
                log(f"ffms2      {name} FFMS_GetFrame x{n_ffms2}")
                try:
                    rows = parse_csv(run([str(self.bin / "ffms2_bench"), "getframe", str(path),
                                          str(tfile), str(n_ffms2)]))
                    bad = sum(1 for r in rows if int(r["landed"]) != truth.covering(int(r["target"])))
                    self.mism[("ffms2", name, "getframe")] = (bad, len(rows))
                    self.ffms2_getframe[name] = rows
                except Failure as e:
                    rec["ffms2_getframe_error"] = str(e).splitlines()[-1].strip()
            self.index_runs[name] = rec

    @staticmethod
    def index_summary(out: str) -> Dict[str, float]:
        for ln in out.splitlines():
            if ln.startswith("#summary"):
                return {k: float(v) for k, v in (f.split("=") for f in ln.split()[1:])}
        raise Failure("index_bench printed no #summary line")

    def index_kind(self, name: str, kind: str, field: str = "ns") -> List[float]:
        rec = getattr(self, "index_runs", {}).get(name) or {}
        return [float(r[field]) for r in rec.get("seeks", {}).get(kind, [])]

    def index_section(self) -> List[str]:
        runs = getattr(self, "index_runs", None)
        if not runs:
            return []
        reps = max((len(r["fpx_index_ms"]) for r in runs.values()), default=0)
        L = ["## Background index (FPX_INDEX_FULL) and ffms2", "",
             "**Index build.** `Benchmarks/index_bench.c`: a player with `index_mode = "
             "FPX_INDEX_FULL` opens the file; *index* is the time from READY (the "
             "`on_item_status` callback) to `on_index_complete` (the background index opens its "
             "own demux context and reads every video packet once; the file is in the page "
             "cache, so this is demux cost, not disk); *open to index complete* adds the "
             "player's own open before READY. *Bare read-all* (`av_bench readall`) is the demux "
             "floor: bare libavformat opening the file and reading every video packet (other "
             "streams discarded), keeping pts and flags, in the same rounds. `Benchmarks/ffms2_bench.c`: `FFMS_CreateIndexer` (which opens the "
             "file) + `FFMS_DoIndexing2` with only the video track selected; *total* is both, "
             "the figure compared (both sides open a demux context of their own and read the "
             "file once). One process per measurement, the two alternating, "
             f"{reps} each; medians. Frames indexed are checked against ffprobe. Grid memory is "
             "computed from the documented cost (8 bytes per frame, 16 per keyframe), not "
             f"measured. ffms2: {self.ffms2_info}.", "",
             "| File | Frames (ffprobe) | FULL frames indexed | FULL index (ms) | "
             "FULL index min..max | FULL open to index complete (ms) | bare read-all (ms) | "
             "ffms2 total (ms) | ffms2 create + index (ms) | ffms2 frames | "
             "FULL index / ffms2 total | Grid memory |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, r in runs.items():
            fi = r["fpx_index_ms"]
            grid = (r["frames"] or 0) * 8 + r["keys"] * 16
            if r["ffms2_total_ms"]:
                ft = r["ffms2_total_ms"]
                f_cells = (f"{median(ft):.1f} | {median(r['ffms2_create_ms']):.1f} + "
                           f"{median(r['ffms2_index_ms']):.1f} | {r['ffms2_frames']} | "
                           f"{fmt_ratio(ratio(median(fi), median(ft)))}")
            else:
                why = r.get("ffms2_error") or self.ffms2_info
                f_cells = f"{why} | | | n/a"
            L.append(f"| {name} | {r['want']} | {r['frames']} | "
                     f"{median(fi):.1f} | " + (f"{min(fi):.1f}..{max(fi):.1f}" if fi else "n/a")
                     + f" | {median(r['fpx_open_to_index_ms']):.1f} | "
                     f"{median(r['bare_total_ms']):.1f} | {f_cells} | "
                     f"{grid / 1024:.0f} KiB |")
        L += ["", "**Seeks with the index complete.** After `on_index_complete`, the run's "
              "targets (the same seeded list as the tables above; for long2h.mp4 a list of its "
              "own, same recipe) go, in order, to the FULL player as an exact seek, a "
              "default-precision seek (`fpx_precision_default()`: nearest keyframe within "
              "1/10 s, else the covering frame) and a nearest-keyframe seek with tolerance "
              f"{KEY_TOLERANCE} s, and to one `FPX_INDEX_KEYFRAMES` player as an exact seek "
              "(one player, its grid warming as its seeks read: the default mode's warm "
              "behaviour). Each is timed like (1): from `fpx_player_seek()` to the completion "
              "callback's entry. Every landing is checked against ffprobe (any mismatch fails "
              "the run). x(2) is against the hand loop's cold median on the same file and "
              "precision (exact, or keyframe at/before for both keyframe kinds); x(3) = PyAV's "
              "cold median / this median (how many times faster).", "",
              "| File | Seek | Seeks | Mismatches | median / p95 (ms) | latency_ns median (ms) | "
              "packets_read median (p95) | x(2) | x(3) faster |",
              "|---|---|---|---|---|---|---|---|---|"]
        for name in runs:
            cont = name.split(".")[1] if name.startswith("gop250") else None
            for kind, label, tol in self.INDEX_KINDS:
                v = self.index_kind(name, kind)
                m = self.mism.get(("fpx-index", name, kind), (0, 0))
                if not v:
                    L.append(f"| {name} | {label} | 0 | {m[0]} / {m[1]} | failed | | | | |")
                    continue
                lat = self.index_kind(name, kind, "latency_ns")
                pk = self.index_kind(name, kind, "packets")
                x2 = x3 = ""
                if cont:
                    mode = "exact" if tol is None else "key"
                    x2 = fmt_ratio(ratio(median(v), self.med("hand", cont, mode, "cold")))
                    if self.has_pyav:
                        x3 = fmt_ratio(ratio(self.med("pyav", cont, mode, "cold"), median(v)))
                L.append(f"| {name} | {label} | {len(v)} | {m[0]} / {m[1]} | {ms(median(v))} / "
                         f"{ms(p95(v))} | {ms(median(lat))} | {median(pk):.0f} ({p95(pk):.0f}) | "
                         f"{x2} | {x3} |")
        L.append("")
        gf = getattr(self, "ffms2_getframe", {})
        L += ["**ffms2 exact seek, for reference.** `ffms2_bench getframe`: with ffms2's index "
              "built (untimed) and a video source (1 decoding thread, `FFMS_SEEK_NORMAL`), "
              "`FFMS_GetFrame(n)` for the frame covering each of the first targets of the list, "
              "timed. This DECODES the frame (ffms2 has no demux-only landing), so it is not "
              "comparable with the packet-level seeks above; it is what a frame-accurate "
              "decoding library pays per random access. Landing = that frame's pts in ffms2's "
              "index, checked against ffprobe (reported, not asserted: third-party).", ""]
        if gf:
            L += ["| File | Frames fetched | Mismatches | median / p95 (ms) |", "|---|---|---|---|"]
            for name, rows in gf.items():
                v = [float(r["ns"]) for r in rows]
                m = self.mism.get(("ffms2", name, "getframe"), (0, 0))
                L.append(f"| {name} | {len(v)} | {m[0]} / {m[1]} | {ms(median(v))} / {ms(p95(v))} |")
        else:
            errs = [f"{n}: {r['ffms2_getframe_error']}" for n, r in runs.items()
                    if r.get("ffms2_getframe_error")]
            L.append(("Not measured: " + "; ".join(errs) + ".") if errs else
                     (self.ffms2_info[0].upper() + self.ffms2_info[1:] + "."))
        L.append("")
        return L

    # -- report ---------------------------------------------------------------------------
    def machine(self) -> List[Tuple[str, str]]:
        def sh(cmd: List[str]) -> str:
            try:
                return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
            except OSError:
                return "?"
        cpu = "?"
        try:
            for ln in open("/proc/cpuinfo"):
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        mem = "?"
        try:
            for ln in open("/proc/meminfo"):
                if ln.startswith("MemTotal"):
                    mem = f"{int(ln.split()[1]) / 1048576:.1f} GiB"
        except OSError:
            pass
        distro = "?"
        try:
            for ln in open("/etc/os-release"):
                if ln.startswith("PRETTY_NAME="):
                    distro = ln.split("=", 1)[1].strip().strip('"')
        except OSError:
            pass
        try:
            lib = ctypes.CDLL(str(self.lib))
            lib.fpx_version_string.restype = ctypes.c_char_p
            fpxv = lib.fpx_version_string().decode()
        except OSError as e:
            fpxv = f"? ({e})"
        commit = sh(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
        dirty = sh(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])
        lavf = sh(["pkg-config", "--modversion", "libavformat"])
        ffv = sh(["ffmpeg", "-version"]).splitlines()[0] if shutil.which("ffmpeg") else "?"
        cc = sh(["cc", "--version"]).splitlines()[0] if shutil.which("cc") else "?"
        return [
            ("CPU", f"{cpu}, {os.cpu_count()} logical cores"),
            ("Memory", mem),
            ("OS", f"{distro}, Linux {platform.release()}"),
            ("FFmpeg (C programs, library)", f"libavformat {lavf}; CLI: {ffv}"),
            ("C compiler", cc),
            ("Python", platform.python_version()),
            ("PyAV", self.pyav_info + (" (PyAV's wheel bundles its own FFmpeg)"
                                       if self.has_pyav else "")),
            ("fastpixseek", f"{fpxv} (git {commit}{', working tree modified' if dirty else ''})"
                            f"; measured library: snapshot of build/lib/libfastpixseek.so.1, "
                            f"sha256 {self.lib_sha()[:16]}, built "
                            f"{self.lib_mtime()}"),
            ("Python bindings", self.pyfpx_info),
            ("ffms2", self.ffms2_info),
            ("Load average at start / end", f"{self.load0} / {self.load1}"),
            ("1-minute load after each section", ", ".join(
                f"{n} {v}" for n, v in getattr(self, "section_loads", [])) or "?"),
        ]

    def lib_sha(self) -> str:
        import hashlib
        return hashlib.sha256(self.lib.read_bytes()).hexdigest()

    def lib_mtime(self) -> str:
        return datetime.datetime.fromtimestamp(self.lib.stat().st_mtime,
                                               datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    def report(self) -> str:
        L: List[str] = []
        a = self.a
        now = self.generated
        title = "FastPixSeek benchmarks" + (" (smoke run)" if self.smoke else "")
        L += [f"# {title}", ""]
        L += [f"Generated {now} by `{a.command}` (driver: `Benchmarks/bench.py`; "
              f"took {self.elapsed:.0f} s). Every figure below comes from that run; raw "
              f"per-seek CSVs are in `{os.path.relpath(self.results, ROOT)}/` (not committed).",
              ""]
        if self.smoke:
            L += ["**Smoke run**: 20 s files and few targets. It checks that everything runs "
                  "and that FastPixSeek lands correctly; its timings mean little.", ""]
        L += ["## Machine", ""]
        L += ["| | |", "|---|---|"]
        L += [f"| {k} | {v} |" for k, v in self.machine_info]
        L += ["", "The machine has 2 cores and other work (builds, test suites of other "
              "sessions) may have been running during the measurement; the load averages "
              "above give an idea. Treat ratios as more reliable than absolute times, and "
              "small differences (< ~10 %) as noise.", ""]

        # corpus and method
        t = self.truth
        L += ["## Corpus and method", ""]
        L += ["Generated by `Benchmarks/make_corpus.sh` with the ffmpeg CLI (testsrc2, "
              "libx264 `-preset ultrafast -bf 3 -g 250 -keyint_min 250 -sc_threshold 0`, "
              "closed GOPs, video only):", ""]
        L += ["| File | Length | Frames | Keyframes | Time base | First frame pts | "
              "Reorder depth |", "|---|---|---|---|---|---|---|"]
        for cont in CONTAINERS:
            tr = t[cont]
            L += [f"| gop250.{cont} | {self.length_s(tr):.0f} s, "
                  f"320x180 | {len(tr.frames)} | {len(tr.keys)} | "
                  f"{tr.time_base} | {tr.frames[0]} | {tr.video_delay} |"]
        lt = self.long_truth
        L += [f"| long2h.mp4 | {self.length_s(lt):.0f} s, 160x90 | {len(lt.frames)} | "
              f"{len(lt.keys)} | {lt.time_base} | {lt.frames[0]} | {lt.video_delay} |", ""]
        L += [f"- Targets: {a.targets} per file (seed {a.seed}): half uniform random ticks "
              "between the first and last frame, half exactly on frame pts, shuffled, as "
              "absolute stream ticks in a file every program reads "
              "(`targets-gop250.*.txt`). FastPixSeek gets them on its item timeline: "
              "(ticks - `fpx_item_info.start_pts`) x time base.",
              "- Ground truth: `ffprobe -show_frames` on the video stream. Exact: the frame "
              "covering the target (largest pts <= target). Hand loop and PyAV keyframe seek: "
              "the last keyframe at or before the target. FastPixSeek keyframe seek "
              f"(`fpx_precision_nearest_keyframe`, tolerance {KEY_TOLERANCE} s, more than half "
              "a GOP, so a keyframe is always in the window): the keyframe nearest the target "
              "(either on a tie). The landing checked is `landed_stream_pts`.",
              "- **Cold**: first pass with the segment protocol: a new player (or "
              "AVFormatContext / PyAV container) is opened, untimed, whenever a target falls "
              "in or next to a GOP an earlier target of the same player touched. So every "
              "cold seek goes into a GOP that player has not seen. **Warm**: the same list run "
              "twice on one player; the second pass is measured (every GOP already visited).",
              "- Time per seek: (1) from `fpx_player_seek()` to the entry of the completion "
              "callback (`FPX_DELIVERY_THREAD`, the main thread waits on a condvar, one seek "
              "at a time); (2) and (3) the synchronous seek function; (4) around "
              "`Player.seek_and_wait()`. All files are in the page cache (read before the "
              "run), so these are CPU and demux costs, not disk.",
              "- Implementations (2) and (3) read packets only (no decoding), like FastPixSeek; "
              "(3') decodes until its first frame.",
              f"- Rounds: every seek job runs {a.rounds} time(s), each round going through all "
              "implementations and containers in turn, so that changes in machine load reach "
              "them alike. Each timing figure comes from that job's round with the lowest "
              "median (the same rule for every implementation).", ""]

        # correctness
        L += ["## Correctness: mismatches against ffprobe", ""]
        L += ["Mismatched landings / landings checked: every landing of every round, cold and "
              "warm passes together for exact.",
              ""]
        L += ["| Implementation | Mode | MP4 | MKV | TS |", "|---|---|---|---|---|"]
        for impl in ("fpx", "pyfpx", "hand", "pyav", "pyav-naive"):
            for mode in ("exact", "key"):
                if impl == "pyav-naive" and mode == "key":
                    continue
                cells = []
                for cont in CONTAINERS:
                    m = self.mism.get((impl, cont, mode))
                    cells.append(f"{m[0]} / {m[1]}" if m else self.na(impl))
                label = "exact" if mode == "exact" else (
                    "nearest keyframe" if impl in ("fpx", "pyfpx") else "keyframe at/before")
                if impl == "pyav-naive":
                    label = "first decoded frame vs exact"
                L += [f"| {IMPL_NAMES[impl]} | {label} | " + " | ".join(cells) + " |"]
        for kind, label, _ in self.INDEX_KINDS:
            cells = []
            for cont in CONTAINERS:
                m = self.mism.get(("fpx-index", f"gop250.{cont}", kind))
                cells.append(f"{m[0]} / {m[1]}" if m else "not measured")
            L += [f"| (1) with FPX_INDEX_FULL complete (index_bench) | {label} | "
                  + " | ".join(cells) + " |"]
        m = [self.mism.get(("fpx-index", "long2h.mp4", k)) for k, _, _ in self.INDEX_KINDS]
        m = [x for x in m if x]
        if m:
            L += ["", f"long2h.mp4 with FPX_INDEX_FULL complete, all four kinds: "
                  f"{sum(x[0] for x in m)} mismatches in {sum(x[1] for x in m)} landings."]
        step_bad = sum(g.get("mismatches", 0) for c in self.steps.values() for g in c["gops"])
        step_n = sum(g["frames"] for c in self.steps.values() for g in c["gops"])
        L += ["", f"Backward frame steps (1): {step_bad} mismatches in {step_n} landings.", ""]

        # timing tables
        def table(title: str, mode: str, proto: str, impls: Sequence[str], note: str) -> None:
            L.extend([f"## {title}", "", note, ""])
            L.extend(["| Implementation | " + " | ".join(
                f"{c.upper()} median / p95 (ms) | x(2)" for c in CONTAINERS) + " |",
                "|---|" + "---|---|" * len(CONTAINERS)])
            for impl in impls:
                cells = []
                for cont in CONTAINERS:
                    v = self.timed(impl, cont, mode, proto)
                    ref = self.timed("hand", cont, mode, proto)
                    if not v:
                        cells += [self.na(impl), ""]
                        continue
                    cells += [f"{ms(median(v))} / {ms(p95(v))}",
                              fmt_ratio(ratio(median(v), median(ref)))]
                L.append(f"| {IMPL_NAMES[impl]} | " + " | ".join(cells) + " |")
            L.append("")
        table("Exact seek, cold", "exact", "cold", ("hand", "fpx", "pyfpx", "pyav", "pyav-naive"),
              "Each seek into a GOP the player has not visited. x(2) = median / median of the "
              "hand loop.")
        L += ["Cold exact seeks split by position: the first seek on a freshly opened "
              "player/context (segment start) versus the later cold seeks of the same player "
              "(still into GOPs it has not visited). Median ms (count).", ""]
        L += ["| Implementation | " + " | ".join(f"{c.upper()} first / later" for c in CONTAINERS)
              + " |", "|---|---|---|---|"]
        for impl in ("hand", "fpx", "pyfpx", "pyav"):
            cells = []
            for cont in CONTAINERS:
                f, l = self.cold_split(impl, cont, "exact")
                cells.append(f"{ms(median(f))} ({len(f)}) / {ms(median(l))} ({len(l)})"
                             if f or l else self.na(impl))
            L.append(f"| {IMPL_NAMES[impl]} | " + " | ".join(cells) + " |")
        L.append("")
        table("Exact seek, warm (second pass, every GOP already visited)", "exact", "warm",
              ("hand", "fpx", "pyfpx", "pyav"),
              "The hand loop and PyAV keep nothing between seeks, so their second pass costs "
              "what the first did; x(2) is against the hand loop's own second pass.")
        table("Keyframe seek, cold", "key", "cold", ("hand", "fpx", "pyfpx", "pyav"),
              "(2) and (3): the last keyframe at/before the target (seek backward, first "
              "keyframe, back off if after). (1) and (4): `FPX_PRECISION_NEAREST_KEYFRAME` "
              f"with tolerance {KEY_TOLERANCE} s.")

        # packets per seek
        L += ["## Packets demuxed per seek", "",
              "Median (p95; share of seeks with 0). (2) and (3): av_read_frame calls. (1): "
              "`packets_read` of the outcome (\"packets demuxed to resolve this landing\"), and "
              "the growth of `fpx_player_stats.packets_demuxed` across the seek (everything "
              "the player demuxed meanwhile, e.g. to learn the seekable range).", ""]
        L += ["| Implementation | Mode | Counter | " + " | ".join(c.upper() for c in CONTAINERS)
              + " |", "|---|---|---|---|---|---|"]
        for impl, mode, proto, field in (
                ("hand", "exact", "cold", "packets"), ("fpx", "exact", "cold", "packets"),
                ("fpx", "exact", "cold", "demuxed"), ("fpx", "exact", "warm", "packets"),
                ("fpx", "exact", "warm", "demuxed"), ("hand", "key", "cold", "packets"),
                ("fpx", "key", "cold", "packets"), ("fpx", "key", "cold", "demuxed")):
            cells = []
            for cont in CONTAINERS:
                try:
                    v = self.timed(impl, cont, mode, proto, field)
                except KeyError:
                    v = []
                if not v:
                    cells.append("n/a")
                    continue
                zero = sum(1 for x in v if x == 0) / len(v)
                cells.append(f"{median(v):.0f} ({p95(v):.0f}; {zero:.0%})")
            counter = {"packets": "av_read_frame" if impl == "hand" else "packets_read",
                       "demuxed": "stats delta"}[field]
            L.append(f"| {IMPL_NAMES[impl]} | {mode} {proto} | {counter} | " + " | ".join(cells)
                     + " |")
        L.append("")

        # time split
        tr = getattr(self, "trace", {})
        if tr:
            L += ["## Where a cold exact seek's time goes", "",
                  "The cold exact runs of (1) and (2) repeated under `Benchmarks/avtrace.c`, an "
                  "LD_PRELOAD shim that counts and times av_read_frame, av_seek_frame, "
                  "avformat_seek_file and avformat_flush (opens make none of these calls). "
                  "Means per seek; the shim adds ~0.1 us per call. \"Outside\" is everything "
                  "else: for (1) the library's own work, thread hand-offs and delivery.", ""]
            L += ["| Container | Implementation | mean seek (ms) | inside libavformat (ms) | "
                  "outside (ms) | av_read_frame calls | us per av_read_frame | "
                  "av_seek_frame calls | avformat_seek_file calls |",
                  "|---|---|---|---|---|---|---|---|---|"]
            for cont in CONTAINERS:
                for impl in ("hand", "fpx"):
                    d = tr.get((impl, cont))
                    if not d:
                        continue
                    L.append(f"| {cont.upper()} | {IMPL_NAMES[impl]} | {ms(d['mean_ns'])} | "
                             f"{ms(d['inside_ns'])} | {ms(d['mean_ns'] - d['inside_ns'])} | "
                             f"{d['read']:.1f} | {d['read_ns'] / 1e3:.2f} | {d['seek']:.2f} | "
                             f"{d['seek_file']:.2f} |")
            L.append("")

        # scrub
        L += ["## Scrub update cost", "",
              "100,000 `fpx_scrub_update` calls in one gesture, each timed alone "
              "(median, p95; the timer pair's own cost shown separately and not subtracted), "
              "then 100,000 more timed as one batch (mean).", ""]
        L += ["| Caller | median (ns) | p95 (ns) | batch mean (ns) | timer overhead (ns) |",
              "|---|---|---|---|---|"]
        for who in ("C", "Python"):
            s = self.scrub.get(who)
            if s:
                L.append(f"| {who} | {s['median_ns']} | {s['p95_ns']} | {s['mean_ns_batch']} | "
                         f"{s['timer_overhead_ns']} |")
            else:
                L.append(f"| {who} | not available | | | |")
        L.append("")

        # stepping
        L += ["## Backward stepping through a GOP", "",
              "A fresh player seeks exactly to the last frame of a 250-frame GOP, then "
              "`fpx_player_step_frame(BACKWARD, 1)` 249 times down to its keyframe. Packets "
              "from `fpx_player_stats_get().packets_demuxed`. Naive re-seeking = one exact "
              "seek per frame of the same path, with the hand loop (what an app without "
              "stepping support does), and with FastPixSeek's exact seek for comparison.",
              ""]
        L += ["| Container | GOP | seek packets | step packets (249 steps) | step time (ms) | "
              "hand re-seek packets | hand re-seek time (ms) | fpx re-seek packets | "
              "fpx re-seek time (ms) |", "|---|---|---|---|---|---|---|---|---|"]
        for cont in CONTAINERS:
            for g in self.steps.get(cont, {}).get("gops", []):
                L.append(f"| {cont.upper()} | {g['gop']} | {g.get('seek_packets', 'n/a')} | "
                         f"{g.get('step_packets', 'n/a')} | {ms(g.get('step_ns', float('nan')))}"
                         f" | {g.get('hand_reseek_packets', 'n/a')} | "
                         f"{ms(g.get('hand_reseek_ns', float('nan')))} | "
                         f"{g.get('fpx_reseek_packets', 'n/a')} | "
                         f"{ms(g.get('fpx_reseek_ns', float('nan')))} |")
        L.append("")

        # delivery latency
        L += ["## Completion delivery latency", "",
              "Time from the seek call to the completion callback's entry, minus the "
              "outcome's `latency_ns` (the library's own request-to-completion time): what "
              "the queue and delivery thread add. Cold exact seeks.", ""]
        L += ["| Caller | " + " | ".join(f"{c.upper()} median / p95 (us)" for c in CONTAINERS)
              + " |", "|---|---|---|---|"]
        for impl, who in (("fpx", "C (callback entry)"),
                          ("pyfpx", "Python (seek_and_wait returned)")):
            cells = []
            for cont in CONTAINERS:
                v = self.timed(impl, cont, "exact", "cold", "cb_delay_ns")
                cells.append(f"{median(v) / 1e3:.1f} / {p95(v) / 1e3:.1f}" if v else "n/a")
            L.append(f"| {who} | " + " | ".join(cells) + " |")
        L.append("")

        # open / RSS
        o = self.open
        L += ["## Open time and memory", "",
              f"Separate processes, alternating, {o.get('reps')} each; median. Bare = "
              "`avformat_open_input` + `avformat_find_stream_info`. FastPixSeek = "
              "`fpx_player_open` until `fpx_player_wait_item` returns READY (creating the "
              "player, timed apart, is excluded). RSS = `getrusage` ru_maxrss (peak), measured "
              "in a child forked by the benchmark program: Linux carries ru_maxrss across "
              "execve, so a program started by the Python driver would otherwise report the "
              f"driver's own peak. Cross-check: VmHWM from /proc/self/status was within "
              f"8 KiB of ru_maxrss in {self.hwm_agree()} runs. "
              "\"At start\" is the program with its libraries loaded, before the open; the "
              "last column is one more process each, after one exact seek into every GOP of "
              "the file (random order).", ""]
        L += ["FastPixSeek is measured in every index mode (`fpx_player_config.index_mode`); "
              "with FULL the time is still to READY (the background index starts after it). "
              "RSS after a seek into every GOP: MP4 files, bare and the default mode only.", ""]
        L += ["| File | Implementation | open median (ms) | x bare | open min..max (ms) | "
              "RSS at start (KiB) | RSS after open (KiB) | open adds (KiB) | "
              "RSS after a seek into every GOP (KiB) |",
              "|---|---|---|---|---|---|---|---|---|"]
        impl_label = {"hand": "bare libavformat", "fpx-off": "fastpixseek, OFF",
                      "fpx": "fastpixseek, KEYFRAMES (default)", "fpx-full": "fastpixseek, FULL"}
        for fname, label in self.OPEN_FILES:
            h = o.get((fname, "hand"))
            for impl in ("hand", "fpx-off", "fpx", "fpx-full"):
                d = o.get((fname, impl))
                if not d or not d["open_ns"]:
                    L.append(f"| {label} | {impl_label[impl]} | n/a | | | | | | |")
                    continue
                x = ("" if impl == "hand" or not h or not h["open_ns"] else
                     fmt_ratio(ratio(median(d["open_ns"]), median(h["open_ns"]))))
                L.append(f"| {label} | {impl_label[impl]}"
                         f" | {ms(median(d['open_ns']))} | {x} | {ms(min(d['open_ns']))}.."
                         f"{ms(max(d['open_ns']))} | {median(d['rss_start']):.0f} | "
                         f"{median(d['rss_open']):.0f} | "
                         f"{median(d['rss_open']) - median(d['rss_start']):.0f} | "
                         f"{d['rss_seeks'] if d['rss_seeks'] is not None else ''} |")
        L.append("")
        d = o.get(("long", "fpx"))
        if d and d["create_ns"]:
            L += [f"`fpx_player_create` itself: median {ms(median(d['create_ns']))} ms.", ""]
        idx = self.index_figures()
        if idx:
            L += [f"Index: the library's frame grid costs 8 bytes per frame + 16 per keyframe "
                  f"(`seek.h`, frame stepping). For long2h.mp4 ({idx['frames']} frames, "
                  f"{idx['keys']} keyframes) that is {idx['grid_bytes']} bytes = "
                  f"{idx['grid_bpf']:.3f} bytes/frame. Measured: RSS after open, FastPixSeek "
                  f"minus bare libavformat, grows by {idx['open_marginal']:.2f} bytes per extra "
                  f"frame between gop250.mp4 and long2h.mp4, and by "
                  f"{idx['after_seeks_marginal']:.2f} bytes per extra frame after a seek into "
                  f"every GOP: everything the library adds per frame, grid included, beyond "
                  f"libavformat's own index."
                  + (" (Smoke corpus: too few frames between the two files for these per-frame "
                     "figures to mean anything; RSS moves in 4 KiB pages.)" if self.smoke else ""),
                  ""]

        L += bench_scale.section(self, fmt_ratio)

        # .so
        so = self.so
        L += ["## Library size", "",
              f"`{os.path.basename(str(self.lib))}`: {so[0]:,} bytes as built, {so[1]:,} bytes "
              f"after `strip -o` (static Swift runtime included).", ""]

        # targets
        L += ["## Targets", "",
              "The targets of issue 11 (the landing core and the seek index), plus the earlier "
              "ones still tracked. Unless the row names another, the library runs with its "
              "default index mode (KEYFRAMES: the container's own keyframe index, no extra "
              "I/O).", "",
              "| Target | Result | Figures |", "|---|---|---|"]
        for name, met, fig in self.targets_eval():
            L.append(f"| {name} | {met} | {fig} |")
        L.append("")
        L += ["## Why the misses", ""]
        L += self.why()
        L.append("")
        if self.notes or self.failures:
            L += ["## Notes and failures", ""]
            L += [f"- {n}" for n in self.notes]
            L += [f"- FAILED: {f}" for f in self.failures]
            L.append("")
        L += self.index_section()
        L += kept_sections(a.out)
        L += ["## Reproduce", "", "```", a.command, "```", "",
              "Needs ffmpeg/ffprobe, a C compiler, the FFmpeg 5.1 development packages, "
              "python3 with pip (PyAV is installed with `pip install av` when missing), "
              "libffms2-dev for the ffms2 rows (installed with apt-get when missing and "
              "possible; otherwise those rows say \"not measured\" and why), and "
              "the built library (`make lib`; run.sh builds it when `build/lib` has none). "
              "`Benchmarks/run.sh --smoke` is the 2-minute version.", ""]
        return "\n".join(L)

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

    def targets_eval(self) -> List[Tuple[str, str, str]]:
        out: List[Tuple[str, str, str]] = []

        def verdict(ok: Optional[bool]) -> str:
            return "n/a" if ok is None else ("**met**" if ok else "**not met**")

        # 1. mismatches
        for impl in ("fpx", "pyfpx"):
            cells, ok = [], True
            if impl == "pyfpx" and not self.has_pyfpx:
                out.append((f"0 mismatches, {IMPL_NAMES[impl]}", "n/a",
                            "bindings not available"))
                continue
            for cont in CONTAINERS:
                bad = sum(self.mism.get((impl, cont, m), (0, 0))[0] for m in ("exact", "key"))
                tot = sum(self.mism.get((impl, cont, m), (0, 0))[1] for m in ("exact", "key"))
                if tot == 0:
                    ok = False
                cells.append(f"{cont.upper()} {bad}/{tot}")
                ok = ok and bad == 0
            if impl == "fpx":
                sb = sum(g.get("mismatches", 0) for c in self.steps.values() for g in c["gops"])
                cells.append(f"steps {sb}")
                ok = ok and sb == 0
            out.append((f"0 mismatches, {IMPL_NAMES[impl]}", verdict(ok), "; ".join(cells)))
        idx_cells, idx_ok, idx_n = [], True, 0
        for name in self.INDEX_FILES:
            bad = sum(self.mism.get(("fpx-index", name, k), (0, 0))[0]
                      for k, _, _ in self.INDEX_KINDS)
            tot = sum(self.mism.get(("fpx-index", name, k), (0, 0))[1]
                      for k, _, _ in self.INDEX_KINDS)
            idx_n += tot
            idx_ok = idx_ok and tot > 0 and bad == 0
            idx_cells.append(f"{name} {bad}/{tot}")
        out.append(("0 mismatches, FULL index complete (exact, default precision, nearest "
                    "keyframe 5 s; thread and host delivery) and KEYFRAMES exact", verdict(idx_ok if idx_n else None),
                    "; ".join(idx_cells)))
        # 2. cold exact (issue 17: <= 1.2x in MP4 and MKV; issue 11: <= 1.0x in TS)
        for cont, lim in (("mp4", 1.2), ("mkv", 1.2), ("ts", 1.0)):
            r = ratio(self.med("fpx", cont, "exact", "cold"),
                      self.med("hand", cont, "exact", "cold"))
            out.append((f"cold exact seek median <= {lim}x (2), {cont.upper()}",
                        verdict(None if r != r else r <= lim),
                        f"{fmt_ratio(r)} ({ms(self.med('fpx', cont, 'exact', 'cold'))} vs "
                        f"{ms(self.med('hand', cont, 'exact', 'cold'))} ms)"))
        # 3. warm
        for cont in CONTAINERS:
            r = ratio(self.med("fpx", cont, "exact", "warm"),
                      self.med("hand", cont, "exact", "warm"))
            out.append((f"repeated seeks into known GOPs <= 0.2x (2), {cont.upper()}",
                        verdict(None if r != r else r <= 0.2),
                        f"{fmt_ratio(r)} ({ms(self.med('fpx', cont, 'exact', 'warm'))} vs "
                        f"{ms(self.med('hand', cont, 'exact', 'warm'))} ms)"))
        # 4. keyframe (issue 11: to the completion callback <= 2x in MP4 and MKV, <= 1.0x in
        # TS; the outcome's own latency_ns <= 1.2x)
        for cont, lim in (("mp4", 2.0), ("mkv", 2.0), ("ts", 1.0)):
            r = ratio(self.med("fpx", cont, "key", "cold"), self.med("hand", cont, "key", "cold"))
            out.append((f"cold keyframe seek, to the completion callback, <= {lim:g}x (2), "
                        f"{cont.upper()}", verdict(None if r != r else r <= lim),
                        f"{fmt_ratio(r)} ({ms(self.med('fpx', cont, 'key', 'cold'))} vs "
                        f"{ms(self.med('hand', cont, 'key', 'cold'))} ms)"))
        for cont in ("mp4", "mkv"):
            lat = self.timed("fpx", cont, "key", "cold", "latency_ns")
            if not lat:
                continue
            r = ratio(median(lat), self.med("hand", cont, "key", "cold"))
            out.append((f"cold keyframe seek, outcome latency_ns, <= 1.2x (2), {cont.upper()}",
                        verdict(None if r != r else r <= 1.2),
                        f"{fmt_ratio(r)} ({ms(median(lat))} vs "
                        f"{ms(self.med('hand', cont, 'key', 'cold'))} ms)"))
        # 5. vs PyAV
        for proto, lim in (("cold", 2.0), ("warm", 10.0)):
            if not self.has_pyav:
                out.append((f"(1) >= {lim:g}x faster than (3), {proto}", "n/a", "no PyAV"))
                continue
            cells, ok = [], True
            for cont in CONTAINERS:
                r = ratio(self.med("pyav", cont, "exact", proto),
                          self.med("fpx", cont, "exact", proto))
                cells.append(f"{cont.upper()} {fmt_ratio(r)}")
                ok = ok and r == r and r >= lim
            out.append((f"(1) >= {lim:g}x faster than (3), {proto} exact", verdict(ok),
                        "; ".join(cells)))
        # 5b. with index_mode=full complete (issue 11): exact and keyframe seeks <= 0.15x the
        # hand loop in every container and >= 10x faster than PyAV; index build <= ffms2.
        runs = getattr(self, "index_runs", None) or {}
        for kinds, what, mode in ((("full-exact",), "exact", "exact"),
                                  (("full-key", "full-default"), "keyframe", "key"),
                                  (("host-exact",), "exact (host delivery)", "exact"),
                                  (("host-key", "host-default"), "keyframe (host delivery)",
                                   "key")):
            for lim_name, lim in (("hand", 0.15), ("pyav", 10.0)):
                if lim_name == "pyav" and not self.has_pyav:
                    out.append((f"with `index_mode=full` complete: {what} seeks >= 10x faster "
                                f"than (3)", "n/a", "no PyAV"))
                    continue
                cells, met, missed = [], [], []
                for cont in CONTAINERS:
                    for kind in kinds:
                        v = self.index_kind(f"gop250.{cont}", kind)
                        tag = cont.upper() + ("" if len(kinds) == 1 else
                                              (" 5 s" if kind.endswith("-key") else " default"))
                        if not v:
                            cells.append(f"{tag} not measured")
                            missed.append(tag)
                            continue
                        if lim_name == "hand":
                            r = ratio(median(v), self.med("hand", cont, mode, "cold"))
                            ok = r == r and r <= lim
                            cells.append(f"{tag} {fmt_ratio(r)} ({ms(median(v))} vs "
                                         f"{ms(self.med('hand', cont, mode, 'cold'))} ms)")
                        else:
                            r = ratio(self.med("pyav", cont, mode, "cold"), median(v))
                            ok = r == r and r >= lim
                            cells.append(f"{tag} {fmt_ratio(r)} ({ms(median(v))} vs "
                                         f"{ms(self.med('pyav', cont, mode, 'cold'))} ms)")
                        (met if ok else missed).append(tag)
                name = (f"with `index_mode=full` complete: {what} seeks <= 0.15x (2) cold"
                        if lim_name == "hand" else
                        f"with `index_mode=full` complete: {what} seeks >= 10x faster than (3) "
                        f"cold")
                out.append((name, verdict(None if not runs else not missed),
                            "; ".join(cells) + (" (not met: " + ", ".join(missed) + ")"
                                                if missed and met else "")))
        cells, ok, measured = [], True, False
        if runs and not self.ffms2_ok:
            cells.append(f"ffms2 {self.ffms2_info}; FULL index alone:")
        for name, r in runs.items():
            fi, ft = r["fpx_index_ms"], r["ffms2_total_ms"]
            if not fi:
                cells.append(f"{name} FULL failed")
                ok = False
                continue
            if not ft:
                cells.append(f"{name} {median(fi):.1f} ms" + (
                    f", ffms2 not measured: {r['ffms2_error']}" if r.get("ffms2_error") else ""))
                continue
            measured = True
            q = ratio(median(fi), median(ft))
            ok = ok and q <= 1.0
            cells.append(f"{name} {median(fi):.1f} vs {median(ft):.1f} ms ({fmt_ratio(q)}; "
                         f"from the player's open: {median(r['fpx_open_to_index_ms']):.1f} ms)")
        out.append(("full index build time <= ffms2's indexing of the same file",
                    (verdict(ok) if measured else "not measured") if runs else "n/a",
                    "; ".join(cells) if cells else "not measured"))
        # 6. scrub
        for who, lim in (("C", 1000), ("Python", 10000)):
            s = self.scrub.get(who)
            if not s:
                out.append((f"scrub update <= {lim // 1000} us from {who}", "n/a",
                            "not available"))
                continue
            m = float(s["median_ns"])
            out.append((f"scrub update <= {lim // 1000} us from {who}", verdict(m <= lim),
                        f"median {m:.0f} ns per call (batch mean {s['mean_ns_batch']} ns)"))
        # 7. stepping: the steps alone, and the whole walk including the landing seek
        for label, with_seek in (("steps only", False), ("including the seek to the GOP's "
                                                         "last frame", True)):
            cells, met, missed = [], [], []
            for cont in CONTAINERS:
                gs = self.steps.get(cont, {}).get("gops", [])
                if not gs:
                    continue
                ns = [g["step_packets"] + (g["seek_packets"] if with_seek else 0)
                      for g in gs if "step_packets" in g]
                if len(ns) != len(gs) or not ns:
                    missed.append(cont.upper())
                    continue
                cells.append(f"{cont.upper()} " + ", ".join(str(n) for n in ns))
                (met if max(ns) <= 500 else missed).append(cont.upper())
            if not met and not missed:
                v = "n/a"
            elif not missed:
                v = "**met**"
            elif not met:
                v = "**not met**"
            else:
                v = f"**met** ({', '.join(met)}); **not met** ({', '.join(missed)})"
            out.append((f"backward stepping through a 250-frame GOP demuxes <= 500 packets "
                        f"({label})", v, "; ".join(cells) + " (per GOP measured)"))
        # 8. open, in every index mode, on every corpus file
        for impl, label in (("fpx-off", "OFF"), ("fpx", "KEYFRAMES"), ("fpx-full", "FULL")):
            rs = self.open_ratios(impl)
            cells, met, missed = [], [], []
            for fl, r, f, h in rs:
                cells.append(f"{fl} {fmt_ratio(r)} ({ms(f)} vs {ms(h)} ms)")
                (met if r == r and r <= 1.2 else missed).append(fl)
            v = ("n/a" if not met and all(r != r for _, r, _, _ in rs) else
                 verdict(not missed))
            out.append((f"open time <= 1.2x bare libavformat, index_mode {label} (to READY)", v,
                        "; ".join(cells) + (" (not met: " + ", ".join(missed) + ")"
                                            if missed and met else "")))
        # 9. index
        idx = self.index_figures()
        if idx:
            out.append(("index <= 16 bytes per frame", verdict(idx["grid_bpf"] <= 16),
                        f"documented grid {idx['grid_bpf']:.3f} B/frame; measured RSS above "
                        f"libavformat {idx['open_marginal']:.2f} B/frame after open, "
                        f"{idx['after_seeks_marginal']:.2f} after a seek into every GOP"))
        else:
            out.append(("index <= 16 bytes per frame", "n/a", "open measurements failed"))
        out += bench_scale.targets(self, fmt_ratio, verdict)
        return out

    def why(self) -> List[str]:
        """Explanations for the targets that were not met, from this run's own measurements."""
        ev = self.targets_eval()
        missed = [n for n, m, _ in ev if "not met" in m]
        unmeasured = [f"{n} ({f})" for n, m, f in ev if m in ("n/a", "not measured")]
        tail = ([f"Not measured in this run, so neither met nor missed: "
                 f"{'; '.join(unmeasured)}."] if unmeasured else [])
        if not missed:
            return ["Every measured target was met in this run."] + (
                [""] + tail if tail else [])
        L: List[str] = [f"{len(missed)} of {len(ev)} targets were not met in this run. Each "
                        "point below is computed from this run (tables above, per-seek CSVs "
                        "in the results folder); nothing is estimated.", ""]
        if tail:
            L += tail + [""]
        tr = getattr(self, "trace", {})

        def miss(sub: str) -> bool:
            return any(sub in n for n in missed)

        def miss_in(sub: str, cont: str) -> bool:
            return any(sub in n and n.endswith(", " + cont.upper()) for n in missed)
        self._miss = miss

        def first_later_extra(cont: str) -> Tuple[List[int], List[int]]:
            rows = self.best_round("fpx", cont, "exact", "cold")
            segs = self.segs.get(cont, [])
            fd, ld = [], []
            for r in rows:
                i = int(r["idx"])
                extra = int(r["demuxed"]) - int(r["packets"])
                (fd if i == 0 or segs[i] != segs[i - 1] else ld).append(extra)
            return fd, ld

        # cold exact
        if miss("cold exact seek"):
            L.append("**Cold exact seeks.**")
            for cont in CONTAINERS:
                f1, l1 = self.cold_split("fpx", cont, "exact")
                f2, l2 = self.cold_split("hand", cont, "exact")
                fd, ld = first_later_extra(cont)
                tb = self.truth[cont]
                last_gop = len(tb.frames) - bisect.bisect_left(tb.frames, tb.keys[-1])
                fr = self.timed("fpx", cont, "exact", "cold", "packets")
                hr = self.timed("hand", cont, "exact", "cold", "packets")
                if not (f1 and l1 and f2 and l2 and fr and hr) or not miss_in("cold exact", cont):
                    continue
                same = ("the same number of packets as" if median(fr) == median(hr) else
                        "fewer packets than" if median(fr) < median(hr) else "more packets than")
                text = (f"- {cont.upper()}: (1) reads {same} (2) (median packets_read "
                        f"{median(fr):.0f} vs {median(hr):.0f} av_read_frame calls). The first "
                        f"seek on a fresh player costs {ms(median(f1))} ms against "
                        f"{ms(median(f2))} ms for (2)")
                if median(fd) > 0:
                    text += (f": the player demuxes a median {median(fd):.0f} packets beyond "
                             f"its landing (this file's last GOP has {last_gop} frames; "
                             f"`fpx_player_seekable_range` documents demuxing the last GOP)")
                else:
                    text += (f" (it demuxes a median {median(fd):.0f} packets beyond its "
                             f"landing, so the difference is not extra reading)")
                text += (f". Later cold seeks: {ms(median(l1))} vs {ms(median(l2))} ms "
                         f"({fmt_ratio(ratio(median(l1), median(l2)))}).")
                a, b = tr.get(("fpx", cont)), tr.get(("hand", cont))
                if a and b:
                    text += (f" Under the call-counting shim, (1) makes {a['read']:.0f} "
                             f"av_read_frame calls per seek at {a['read_ns'] / 1e3:.2f} us, "
                             f"(2) {b['read']:.0f} at {b['read_ns'] / 1e3:.2f} us")
                    if a["mean_ns"] >= a["inside_ns"] and b["mean_ns"] >= b["inside_ns"]:
                        text += (f"; time inside libavformat per seek {ms(a['inside_ns'])} vs "
                                 f"{ms(b['inside_ns'])} ms, outside it "
                                 f"{ms(a['mean_ns'] - a['inside_ns'])} vs "
                                 f"{ms(b['mean_ns'] - b['inside_ns'])} ms.")
                    else:
                        text += (" (the shim also counts the calls the players make while "
                                 "opening, which are not in the timed seeks, so no "
                                 "inside/outside time split is given for this file).")
                L.append(text)
            fr = self.timed("fpx", "ts", "exact", "cold", "packets")
            hr = self.timed("hand", "ts", "exact", "cold", "packets")
            if fr and hr and miss_in("cold exact", "ts"):
                L.append(f"- TS has no container index: a cold TS seek reads a median "
                         f"{median(fr):.0f} packets, the reference {median(hr):.0f}; reading "
                         f"much less needs the background index (`index_mode=full`: "
                         f"\"Background index\" below).")
            for cont in CONTAINERS:
                lat = self.timed("fpx", cont, "exact", "cold", "latency_ns")
                dl = self.timed("fpx", cont, "exact", "cold", "cb_delay_ns")
                if lat and dl and miss_in("cold exact", cont):
                    L.append(f"- {cont.upper()}: of (1)'s cold exact median "
                             f"{ms(self.med('fpx', cont, 'exact', 'cold'))} ms, the library's own "
                             f"latency_ns is {ms(median(lat))} ms and the completion delivery "
                             f"{ms(median(dl))} ms (the reference has no thread hand-off).")
            L.append("")

        # warm
        if miss("repeated seeks"):
            L.append("**Repeated seeks into visited GOPs.**")
            for cont in CONTAINERS:
                w = self.timed("fpx", cont, "exact", "warm", "packets")
                c = self.timed("fpx", cont, "exact", "cold", "packets")
                lat = self.timed("fpx", cont, "exact", "warm", "latency_ns")
                dl = self.timed("fpx", cont, "exact", "warm", "cb_delay_ns")
                if not (w and c):
                    continue
                small = sum(1 for x in w if x <= 2) / len(w)
                L.append(f"- {cont.upper()}: second-pass packets_read median {median(w):.0f} "
                         f"(p95 {p95(w):.0f}; {small:.0%} of seeks read <= 2 packets), first pass "
                         f"{median(c):.0f}. Median {ms(median(self.timed('fpx', cont, 'exact', 'warm')))}"
                         f" ms per seek, of which {ms(median(lat))} ms library latency and "
                         f"{ms(median(dl))} ms delivery.")
            L.append("")

        # keyframe
        if miss("cold keyframe seek"):
            L.append("**Keyframe seeks.**")
            for cont in CONTAINERS:
                f = self.timed("fpx", cont, "key", "cold", "packets")
                h = self.timed("hand", cont, "key", "cold", "packets")
                if f and h and miss_in("cold keyframe seek", cont):
                    zero = sum(1 for x in f if x == 0) / len(f)
                    hm = self.med("hand", cont, "key", "cold")
                    lim = 1.0 if cont == "ts" else 2.0
                    text = (f"- {cont.upper()}: (2) reads a median {median(h):.0f} packet(s) "
                            f"(one av_seek_frame(BACKWARD), then packets until a keyframe at/before "
                            f"the target) in {ms(hm)} ms. (1) reads a median {median(f):.0f} "
                            f"(p95 {p95(f):.0f}; {zero:.0%} of seeks read none) to land on the "
                            f"nearest keyframe within +/-{KEY_TOLERANCE} s"
                            + (", without a keyframe index in the container" if cont == "ts"
                               else "") + ".")
                    lat = self.timed("fpx", cont, "key", "cold", "latency_ns")
                    dl = self.timed("fpx", cont, "key", "cold", "cb_delay_ns")
                    if lat and dl:
                        text += (f" Of (1)'s median {ms(self.med('fpx', cont, 'key', 'cold'))} ms, "
                                 f"{ms(median(lat))} ms is the outcome's latency_ns "
                                 f"({fmt_ratio(ratio(median(lat), hm))} of (2)) and "
                                 f"{ms(median(dl))} ms the completion delivery; {lim:g}x of (2) "
                                 f"is {ms(lim * hm)} ms.")
                    L.append(text)
            L.append("")

        # vs PyAV
        if miss("than (3), cold exact") or miss("than (3), warm exact"):
            if self.has_pyav:
                L.append("**Against PyAV.**")
                for cont in CONTAINERS:
                    pc = self.timed("pyav", cont, "exact", "cold", "packets")
                    hc = self.timed("hand", cont, "exact", "cold", "packets")
                    if not (pc and hc):
                        continue
                    pp = self.med("pyav", cont, "exact", "cold") / max(1.0, median(pc))
                    hp = self.med("hand", cont, "exact", "cold") / max(1.0, median(hc))
                    L.append(f"- {cont.upper()}: (3) makes the reference's reads "
                             f"({median(pc):.0f} packets median) in Python, at ~{pp / 1e3:.1f} us per "
                             f"packet against ~{hp / 1e3:.1f} us in C: "
                             f"{ms(self.med('pyav', cont, 'exact', 'cold'))} ms cold and "
                             f"{ms(self.med('pyav', cont, 'exact', 'warm'))} ms warm, against (1)'s "
                             f"{ms(self.med('fpx', cont, 'exact', 'cold'))} and "
                             f"{ms(self.med('fpx', cont, 'exact', 'warm'))} ms. (3) is "
                             f"{fmt_ratio(ratio(self.med('pyav', cont, 'exact', 'cold'), self.med('hand', cont, 'exact', 'cold')))}"
                             f" the C reference cold, so 2x faster than (3) means (1) at "
                             f"<= {fmt_ratio(ratio(self.med('pyav', cont, 'exact', 'cold'), 2 * self.med('hand', cont, 'exact', 'cold')))}"
                             f" of (2) cold.")
                L.append("")

        # stepping with the seek
        if miss("backward stepping"):
            L.append("**Stepping, counting the landing seek.**")
            for cont in CONTAINERS:
                for g in self.steps.get(cont, {}).get("gops", [])[:1]:
                    if "seek_packets" in g and "hand_first_seek_packets" in g:
                        L.append(f"- {cont.upper()} (GOP {g['gop']}): the exact seek to the GOP's "
                                 f"last frame demuxed {g['seek_packets']} packets in (1) on a fresh "
                                 f"player; the hand loop needs {g['hand_first_seek_packets']} for "
                                 f"the same landing. The 249 steps then demuxed "
                                 f"{g['step_packets']}.")
            L.append("")
        L += self.why_index() + self.why_open()
        return L

    def why_index(self) -> List[str]:
        """The misses of the index_mode=full targets, from index_bench's own figures."""
        miss = self._miss
        runs = getattr(self, "index_runs", None) or {}
        L: List[str] = []
        if miss("index_mode=full` complete"):
            L.append("**Seeks with the full index complete.**")
            for cont in CONTAINERS:
                name = f"gop250.{cont}"
                for kind, label, tol in [k for k in self.INDEX_KINDS if k[0] != "kf-exact"]:
                    v = self.index_kind(name, kind)
                    if not v:
                        L.append(f"- {cont.upper()} {label}: not measured (index_bench failed; "
                                 f"see Notes and failures).")
                        continue
                    mode = "exact" if tol is None else "key"
                    h = self.med("hand", cont, mode, "cold")
                    ok = ratio(median(v), h) <= 0.15
                    if self.has_pyav:
                        ok = ok and ratio(self.med("pyav", cont, mode, "cold"), median(v)) >= 10
                    if ok:
                        continue
                    lat = self.index_kind(name, kind, "latency_ns")
                    pk = self.index_kind(name, kind, "packets")
                    res = [int(r) for r in self.index_kind(name, kind, "resolution")]
                    fb = sum(1 for r in res if r == 3)
                    text = (f"- {cont.upper()} {label}: median {ms(median(v))} ms to the "
                            f"callback, of which {ms(median(lat))} ms is the outcome's latency_ns "
                            f"and {ms(median(v) - median(lat))} ms the completion hand-off; "
                            f"packets_read median {median(pk):.0f} (p95 {p95(pk):.0f}). "
                            f"0.15x of the hand loop's {ms(h)} ms is {ms(0.15 * h)} ms.")
                    if self.has_pyav:
                        pv = self.med("pyav", cont, mode, "cold")
                        text += f" 10x faster than PyAV's {ms(pv)} ms is {ms(pv / 10)} ms."
                    if tol is not None and fb:
                        text += (f" {fb} of {len(res)} landings had no keyframe within "
                                 f"{tol} s and fell back to the covering frame.")
                    L.append(text)
            L.append("")
        if miss("ffms2"):
            L.append("**Full index build against ffms2.**")
            for name, r in runs.items():
                fi, ft = r["fpx_index_ms"], r["ffms2_total_ms"]
                if not fi or not ft:
                    continue
                q = ratio(median(fi), median(ft))
                if q <= 1.0:
                    continue
                pk = median(r["fpx_packets"]) if r["fpx_packets"] else float("nan")
                L.append(f"- {name}: FULL took {median(fi):.1f} ms from READY to "
                         f"on_index_complete ({r['frames']} frames; packets_demuxed grew by "
                         f"{pk:.0f} meanwhile, {median(fi) * 1e3 / max(1.0, pk):.2f} us per "
                         f"packet), ffms2 {median(ft):.1f} ms ({median(r['ffms2_create_ms']):.1f}"
                         f" ms FFMS_CreateIndexer, {median(r['ffms2_index_ms']):.1f} ms "
                         f"FFMS_DoIndexing2, {median(r['ffms2_index_ms']) * 1e3 / max(1, r['ffms2_frames'] or 1):.2f}"
                         f" us per frame): {fmt_ratio(q)}. FULL's READY itself took "
                         f"{median(r['fpx_ready_ms']):.1f} ms (not counted). Bare libavformat "
                         f"opens the file and reads every video packet in "
                         f"{median(r['bare_total_ms']):.1f} ms, so FULL spends "
                         f"{median(fi) - median(r['bare_total_ms']):.1f} ms beyond demuxing.")
            L.append("")
        return L

    def full_vs_keyframes(self, fname: str) -> str:
        """Whether FULL delays READY: its open median against KEYFRAMES' on the same file."""
        f, k = self.open.get((fname, "fpx-full")), self.open.get((fname, "fpx"))
        if not f or not k or not f["open_ns"] or not k["open_ns"]:
            return ""
        a, b = median(f["open_ns"]), median(k["open_ns"])
        return (f" Against KEYFRAMES on the same file ({ms(b)} ms), FULL's READY comes "
                f"{ms(abs(a - b))} ms {'later' if a > b else 'earlier'} "
                f"({fmt_ratio(ratio(a, b))}).")

    def why_open(self) -> List[str]:
        miss = self._miss
        L: List[str] = []
        if miss("open time"):
            L.append("**Open time.**")
            for impl, label in (("fpx-off", "OFF"), ("fpx", "KEYFRAMES"), ("fpx-full", "FULL")):
                for fl, r, f, h in self.open_ratios(impl):
                    if r != r or r <= 1.2:
                        continue
                    fname = [k for k, n in self.OPEN_FILES if n == fl][0]
                    d, b = self.open[(fname, impl)], self.open[(fname, "hand")]
                    L.append(f"- {label}, {fl}: median {ms(f)} ms against bare "
                             f"{ms(h)} ms ({fmt_ratio(r)}, {ms(f - h)} ms more); fastest runs "
                             f"{ms(min(d['open_ns']))} vs {ms(min(b['open_ns']))} ms "
                             f"({fmt_ratio(ratio(min(d['open_ns']), min(b['open_ns'])))}). "
                             f"The player's open adds "
                             f"{median(d['rss_open']) - median(b['rss_open']):.0f} KiB RSS over "
                             f"bare libavformat."
                             + (self.full_vs_keyframes(fname) if impl == "fpx-full" else ""))
            L.append("")
        if miss("16 bytes per frame"):
            idx = self.index_figures()
            if idx:
                L += [f"**Index memory.** The documented grid is {idx['grid_bpf']:.3f} bytes per "
                      f"frame; measured RSS above libavformat grows {idx['open_marginal']:.2f} "
                      f"bytes per frame after open and {idx['after_seeks_marginal']:.2f} after "
                      f"a seek into every GOP.", ""]
        return L

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
        for name, fn in (("seeks", self.run_seeks), ("trace", self.run_trace),
                         ("scrub", self.run_scrub), ("steps", self.run_steps),
                         ("open", self.run_open), ("index", self.run_index),
                         ("throughput", lambda: bench_scale.run_throughput(
                             self, run, make_targets, Failure)),
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


def kept_sections(out: str) -> List[str]:
    """The sections other drivers put into the report (between "<!-- section:NAME -->" and
    "<!-- /section:NAME -->", e.g. frame_bench.py's), taken from the report being replaced so
    that regenerating it does not drop them."""
    try:
        old = Path(out).read_text()
    except OSError:
        return []
    kept: List[str] = []
    pos = 0
    while True:
        i = old.find("<!-- section:", pos)
        if i < 0:
            return kept
        name = old[i + len("<!-- section:"):old.find(" -->", i)]
        end = f"<!-- /section:{name} -->"
        j = old.find(end, i)
        if j < 0:
            return kept
        kept += [old[i:j + len(end)], ""]
        pos = j + len(end)


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
