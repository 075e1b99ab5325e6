"""The runs of the benchmark driver (bench.py): which peers can run, and running each section's
programs (seeks of every implementation, the libavformat trace, scrub, steps, open, the
background index against ffms2), checking every landing against the ground truth as it goes."""

from __future__ import annotations

import argparse
import bisect
import random
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Tuple

from bench_common import CONTAINERS, HERE, KEY_TOLERANCE, Failure, log, parse_csv, run
from bench_stats import median
from bench_truth import Truth, make_targets, probe, write_plain_targets


class Runs:
    """Running the programs and recording their rows (a mixin of bench.Bench)."""

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
        if impl in ("fpx", "fpx-wait"):
            # fpx-wait: fpx_player_seek_wait, which lands an idle player's seek on the
            # calling thread (no hand-off), timed to its return
            cmd = [str(self.bin / "fpx_bench"), "seek", str(path), str(targets),
                   "exact-wait" if impl == "fpx-wait" else mode,
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
            elif impl in ("fpx", "fpx-wait", "pyfpx"):
                ok = landed in truth.nearest_keys(t, tol_ticks)
            else:
                ok = landed == truth.key_before(t)
            bad += 0 if ok else 1
        prev = self.mism.get((impl, cont, mode), (0, 0))
        self.mism[(impl, cont, mode)] = (prev[0] + bad, prev[1] + len(rows))

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
                ("hand", "exact", "cold"), ("fpx", "exact", "cold"), ("fpx-wait", "exact", "cold"),
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

    def run_instr(self) -> None:
        """Instructions per cold exact seek under callgrind (Benchmarks/instr.sh), MP4 and MKV:
        the hand loop's hand_seek against the library's seek job and its Lander.resolve, on
        the first targets of the run. A figure the machine's load does not change."""
        self.instr: Dict[str, Dict[str, float]] = {}
        self.instr_n = 24 if self.smoke else 200
        for cont in ("mp4", "mkv"):
            path = self.corpus / f"gop250.{cont}"
            tfile = self.results / f"targets-gop250.{cont}.txt"
            log(f"callgrind  {cont:4s} ({self.instr_n} cold exact seeks, three counts)")
            try:
                out = run(["bash", str(HERE / "instr.sh"), str(path), str(tfile), str(self.instr_n), "exact"],
                          env={"FPX_BIN": str(self.bin), "FPX_LIB": str(self.lib.parent)}, timeout=1800)
            except Failure as e:
                self.notes.append(f"callgrind counts for {cont}: {str(e).splitlines()[0]}")
                continue
            counts: Dict[str, float] = {}
            for line in out.splitlines():
                for key, label in (("hand", "hand loop"), ("job", "seek job"), ("resolve", "Lander.resolve")):
                    if label in line:
                        counts[key] = float(line.split()[-2] if key != "hand" else line.split()[-1])
            if len(counts) == 3:
                self.instr[cont] = counts
            else:
                self.notes.append(f"callgrind counts for {cont}: unreadable output {out!r}")

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
