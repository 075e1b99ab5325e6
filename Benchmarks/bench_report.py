"""The report of the benchmark driver (bench.py): BENCHMARKS.md from a run's results (the
machine, every section's tables, the targets, the index section), keeping the sections other
drivers and hand-written notes put into the file (bench_doc.kept_sections)."""

from __future__ import annotations

import ctypes
import datetime
import os
import platform
import shutil
import subprocess
from typing import List, Sequence, Tuple

import bench_scale

from bench_common import CONTAINERS, IMPL_NAMES, KEY_TOLERANCE, ROOT
from bench_doc import kept_sections
from bench_stats import fmt_ratio, median, ms, p95, ratio


class Report:
    """Writing the report (a mixin of bench.Bench)."""

    def instr_section(self) -> List[str]:
        """Instructions per cold exact seek (callgrind) beside the times of the same seeks,
        through the callback and through fpx_player_seek_wait: what is instructions, what is
        hand-off, what is cost per instruction."""
        ins = getattr(self, "instr", {})
        if not ins:
            return []
        n = getattr(self, "instr_n", 0)
        L = ["## Instructions per cold exact seek (callgrind), and where the rest of the time goes", "",
             f"`Benchmarks/instr.sh FILE TARGETS {n} exact` (valgrind's callgrind) counts the instructions "
             f"of the first {n} cold targets of this run (a new player or context per segment, as in "
             "\"Exact seek, cold\"): the hand loop's `hand_seek`; the library's seek job on its worker "
             "(`Player.runSeek`: the landing and its completion, not the thread hand-offs) and its "
             "`Lander.resolve` alone. Instruction counts do not depend on the machine's load. Times are "
             "the cold exact medians of the tables above: (1) to the completion callback, (1w) "
             "`fpx_player_seek_wait` (the landing on the calling thread, no hand-off), (2) the hand loop.", "",
             "| File | (2) instructions | (1) seek job | x(2) | Lander.resolve | x(2) | (2) ms | (1w) ms | x(2) "
             "| (1) ms | x(2) | hand-offs, (1) - (1w) (us) | packets | (1w) - (2) per packet (us) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for cont in ("mp4", "mkv"):
            c = ins.get(cont)
            if not c:
                continue
            h, f, w = (self.med(i, cont, "exact", "cold") for i in ("hand", "fpx", "fpx-wait"))
            pk = median(self.timed("fpx-wait", cont, "exact", "cold", "packets") or [float("nan")])
            L.append(f"| gop250.{cont} | {c['hand']:,.0f} | {c['job']:,.0f} | {c['job'] / c['hand']:.3f}x | "
                     f"{c['resolve']:,.0f} | {c['resolve'] / c['hand']:.3f}x | {ms(h)} | {ms(w)} | "
                     f"{fmt_ratio(ratio(w, h))} | {ms(f)} | {fmt_ratio(ratio(f, h))} | {(f - w) / 1e3:.1f} | "
                     f"{pk:.0f} | {(w - h) / 1e3 / pk:.2f} |")
        L += ["", "Reading the table: the seek job's instructions over the hand loop's is the work the "
              "library adds to a landing; (1w) over (2) in time, above that, is the same instructions "
              "running slower (a colder cache: the library's per-packet window and allocations); (1) - (1w) "
              "is what the thread hand-offs of an asynchronous seek cost (queue to the worker, completion, "
              "delivery to the callback thread). The last column spreads (1w)'s extra time over the "
              "packets the landing read: the per-packet cost of the landing's bookkeeping.", ""]
        slower = [c for c in ("mp4", "mkv") if ins.get(c) and
                  self.med("fpx-wait", c, "exact", "cold") > self.med("fpx", c, "exact", "cold")]
        if slower:
            L += [f"In this run (1w) was slower than (1) on {', '.join(c.upper() for c in slower)}: landing on the "
                  "calling thread cost more than the hand-offs it saves, for the same instructions. This run does "
                  "not measure why. A likely cause, not measured: the player's open and its earlier landings ran "
                  "on the worker thread, whose core's caches hold the demuxer's state, while (1w) lands on the "
                  "host's thread, on either core.", ""]
        return L

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
        table("Exact seek, cold", "exact", "cold", ("hand", "fpx", "fpx-wait", "pyfpx", "pyav", "pyav-naive"),
              "Each seek into a GOP the player has not visited. x(2) = median / median of the "
              "hand loop.")
        L += ["Cold exact seeks split by position: the first seek on a freshly opened "
              "player/context (segment start) versus the later cold seeks of the same player "
              "(still into GOPs it has not visited). Median ms (count).", ""]
        L += ["| Implementation | " + " | ".join(f"{c.upper()} first / later" for c in CONTAINERS)
              + " |", "|---|---|---|---|"]
        for impl in ("hand", "fpx", "fpx-wait", "pyfpx", "pyav"):
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

        L += self.instr_section()

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
