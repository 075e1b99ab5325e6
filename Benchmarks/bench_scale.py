"""The scale sections of the benchmark report (issue 17, and issue 21's packets in Python):
measured by bench.py's run, written by its report, so regenerating BENCHMARKS.md keeps them.

* throughput: exact seeks per second with many players from 1, 2 and 8 host threads,
  `fpx_bench throughput` against `av_bench throughput` (the same schedule, bench_threads.h),
  interleaved, every landing checked against ffprobe.
* idle: 1,000 open idle players (`idle_bench`): threads, descriptors, open time, memory,
  against 1,000 bare AVFormatContexts.
* packets: every packet of a file through the C API and through the Python bindings
  (`packet_bench.py`, run as a child; its table is embedded).

Each `run_*` takes the Bench object (bench.py) and stores its figures on it; `section`
renders them and `targets` adds rows to the report's target table.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

THREADS = (1, 2, 8)
IDLE_MODES = (("bare", ["bare"]), ("thread", ["fpx", "thread"]), ("host", ["fpx", "host"]))
IDLE_LABELS = {"bare": "bare libavformat", "thread": "FastPixSeek, THREAD delivery",
               "host": "FastPixSeek, HOST delivery"}


def _median(v: List[float]) -> float:
    s = sorted(v)
    if not s:
        return float("nan")
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def run_throughput(b: Any, run: Any, make_targets: Any, Failure: Any) -> None:
    players = 10 if b.smoke else 100
    seeks = 60 if b.smoke else 1000
    rounds = 1 if b.smoke else 2
    res: Dict[Tuple[str, str, int], List[Tuple[int, int]]] = {}
    bad: Dict[Tuple[str, str], List[int]] = {}
    for cont in ("mp4", "mkv"):
        path = b.corpus / f"gop250.{cont}"
        truth = b.truth[cont]
        tfile = b.results / f"targets-throughput.{cont}.txt"
        make_targets(truth, f"throughput-{path.name}", seeks, b.a.seed, tfile)
        for rnd in range(rounds):
            # (players, threads): the three, and one player from one thread, the
            # reference for what many players add
            for np_, th in [(players, t) for t in THREADS] + [(1, 1)]:
                for impl, exe in (("hand", "av_bench"), ("fpx", "fpx_bench")):
                    sys.stderr.write(f"bench: throughput {impl:4s} {cont} {np_} players "
                                     f"{th} threads (round {rnd + 1})\n")
                    try:
                        out = run([str(b.bin / exe), "throughput", str(path), str(tfile),
                                   str(np_), str(th), str(seeks)])
                    except Failure as e:
                        b.failures.append(f"throughput {impl} {cont} {th} threads: {e}")
                        continue
                    lines = out.splitlines()
                    head = [ln for ln in lines if ln.startswith("#throughput,")]
                    if not head:
                        b.failures.append(f"throughput {impl} {cont}: no summary line")
                        continue
                    _, _, _, n, wall, cpu = head[0].split(",")
                    key = (impl, cont, th) if np_ == players else (impl, cont, "one")
                    res.setdefault(key, []).append((int(wall), int(cpu)))
                    miss, tot = 0, 0
                    for ln in lines:
                        if ln.startswith("#"):
                            continue
                        _, t, landed = ln.split(",")
                        tot += 1
                        miss += int(landed) != truth.covering(int(t))
                    m = bad.setdefault((impl, cont), [0, 0])
                    m[0] += miss
                    m[1] += tot
                    if impl == "fpx":
                        prev = b.mism.get(("fpx-throughput", cont, "exact"), (0, 0))
                        b.mism[("fpx-throughput", cont, "exact")] = (prev[0] + miss,
                                                                     prev[1] + tot)
    b.throughput = {"players": players, "seeks": seeks, "rounds": rounds, "res": res,
                    "bad": bad}


def run_cachesim(b: Any, run: Any, Failure: Any) -> None:
    """The throughput schedule (one host thread) under callgrind with its cache simulation,
    one player against all of them, both sides, MP4: instructions, first-level data misses
    and last-level misses per seek, counted inside throughput_seek (the seek on the host's
    thread; fpx_player_seek_wait lands there). Counts the machine's load does not change."""
    import shutil
    import tempfile
    if not shutil.which("valgrind"):
        b.notes.append("valgrind is not installed: no cache simulation of the many-player seeks.")
        return
    players = 10 if b.smoke else 100
    seeks = 60 if b.smoke else 300
    path = b.corpus / "gop250.mp4"
    tfile = b.results / "targets-throughput.mp4.txt"
    out: Dict[Tuple[str, int], Dict[str, float]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="fpx-cachesim-"))
    try:
        for np_ in (1, players):
            for impl, exe in (("hand", "av_bench"), ("fpx", "fpx_bench")):
                sys.stderr.write(f"bench: cache simulation {impl} mp4 {np_} player(s), {seeks} seeks\n")
                cg = tmp / f"{impl}-{np_}.cg"
                try:
                    run(["valgrind", "--tool=callgrind", "--cache-sim=yes", f"--callgrind-out-file={cg}",
                         "--toggle-collect=throughput_seek", str(b.bin / exe), "throughput", str(path), str(tfile),
                         str(np_), "1", str(seeks)], env={"LD_LIBRARY_PATH": str(b.lib.parent)}, timeout=3600)
                except Failure as e:
                    b.notes.append(f"cache simulation {impl} {np_}: {str(e).splitlines()[0]}")
                    continue
                events: List[str] = []
                totals: List[int] = []
                for line in cg.read_text().splitlines():
                    if line.startswith("events:"):
                        events = line.split()[1:]
                    elif line.startswith(("summary:", "totals:")):
                        totals = [int(x) for x in line.split()[1:]]
                c = dict(zip(events, totals))
                if "Ir" in c and "D1mr" in c:
                    out[(impl, np_)] = {
                        "Ir": c["Ir"] / seeks,
                        "D1": (c.get("D1mr", 0) + c.get("D1mw", 0)) / seeks,
                        "LL": (c.get("DLmr", 0) + c.get("DLmw", 0)) / seeks}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    b.cachesim = {"players": players, "seeks": seeks, "res": out}


def cachesim_lines(b: Any) -> List[str]:
    cs = getattr(b, "cachesim", None)
    if not cs or not cs["res"]:
        return []
    r, n = cs["res"], cs["players"]
    L = [f"Cache simulation (valgrind's callgrind, `--cache-sim=yes`; MP4, one host thread, {cs['seeks']} seeks, "
         "counted inside `throughput_seek`, i.e. the seek on the host's thread, where `fpx_player_seek_wait` "
         "lands): per seek, instructions, first-level data cache misses and last-level data misses "
         "(simulated caches; figures the machine's load does not change).", "",
         "| players | hand instructions | FastPixSeek instructions | hand D1 misses | FastPixSeek D1 misses | "
         "hand LL misses | FastPixSeek LL misses |", "|---|---|---|---|---|---|---|"]
    for np_ in (1, n):
        h, f = r.get(("hand", np_)), r.get(("fpx", np_))
        if h and f:
            L.append(f"| {np_} | {h['Ir']:,.0f} | {f['Ir']:,.0f} | {h['D1']:,.0f} | {f['D1']:,.0f} | "
                     f"{h['LL']:,.0f} | {f['LL']:,.0f} |")
    L.append("")
    h1, f1, hn, fn = r.get(("hand", 1)), r.get(("fpx", 1)), r.get(("hand", n)), r.get(("fpx", n))
    if h1 and f1 and hn and fn:
        L += [f"From one player to {n}: FastPixSeek's instructions per seek x{fn['Ir'] / f1['Ir']:.2f} "
              f"(the hand loop's x{hn['Ir'] / h1['Ir']:.2f}), its last-level misses per seek "
              f"x{fn['LL'] / max(f1['LL'], 1):.1f} (the hand loop's x{hn['LL'] / max(h1['LL'], 1):.1f}); at {n} "
              f"players it misses the last level {fn['LL'] / max(hn['LL'], 1):.2f}x as often as the hand loop per "
              "seek, and the first level "
              f"{fn['D1'] / max(hn['D1'], 1):.2f}x.", ""]
    return L


def throughput_best(b: Any, impl: str, cont: str, th: Any) -> Optional[Tuple[int, int]]:
    """The round with the shortest wall time (the rule of every other table)."""
    r = getattr(b, "throughput", {}).get("res", {}).get((impl, cont, th))
    return min(r) if r else None


def why_throughput(b: Any) -> List[str]:
    """What the table itself says about a miss: the same seeks on one player against many."""
    tp = getattr(b, "throughput", None)
    out: List[str] = []
    for cont in ("mp4", "mkv"):
        h1, f1 = throughput_best(b, "hand", cont, "one"), throughput_best(b, "fpx", cont, "one")
        hn, fn = throughput_best(b, "hand", cont, 1), throughput_best(b, "fpx", cont, 1)
        if not (tp and h1 and f1 and hn and fn) or hn[0] / fn[0] >= 1.0:
            continue
        n = tp["seeks"]
        out.append(
            f"{cont.upper()}: with one player the same {n} seeks take FastPixSeek "
            f"{f1[1] / n / 1e3:.0f} us of CPU each against the hand loop's {h1[1] / n / 1e3:.0f} "
            f"({h1[0] / f1[0]:.2f}x its seeks per second); with {tp['players']} players "
            f"{fn[1] / n / 1e3:.0f} us against {hn[1] / n / 1e3:.0f}: from one player to "
            f"{tp['players']}, FastPixSeek's CPU per seek grows {fn[1] / f1[1]:.2f}x, the hand "
            f"loop's {hn[1] / h1[1]:.2f}x. One cause, measured by a profile taken while "
            f"writing this benchmark (2026-12-01, `perf record` of `fpx_bench throughput`, "
            f"100 players): each player keeps the packets it demuxed from the landing's keyframe on (the "
            f"window the host reads next), so a seek frees the previous window of a player "
            f"last used {tp['players']} seeks ago, cold in the cache, and allocates the new "
            f"one: malloc/free (`_int_malloc`, `unlink_chunk`, `_int_free`, "
            f"`malloc_consolidate`) took about half of FastPixSeek's CPU there, 2.3x the "
            f"hand loop's time in them for the same seeks. A benchmark whose "
            f"host never reads the packets pays for that window without using it.")
    if out:
        out = ["Why the many-player rows miss, from this table:", ""] + [f"- {x}" for x in out] + [""]
    return out + cachesim_lines(b)


def run_idle(b: Any, run: Any, Failure: Any) -> None:
    n = 50 if b.smoke else 1000
    reps = 1 if b.smoke else 3
    path = b.corpus / "gop250.mp4"
    rows: Dict[str, List[List[str]]] = {}
    exe = b.bin / "idle_bench"
    for rep in range(reps):
        for name, args in IDLE_MODES:
            sys.stderr.write(f"bench: idle {name} x{n} (run {rep + 1})\n")
            cmd = [str(exe), args[0], str(n), str(path)] + args[1:]
            try:
                out = run(cmd)
            except Failure as e:
                b.failures.append(f"idle {name}: {e}")
                continue
            line = [ln for ln in out.splitlines() if ln and not ln.startswith("#")][-1]
            rows.setdefault(name, []).append(line.split(","))
    b.idle = {"n": n, "reps": reps, "rows": rows, "cores": os.cpu_count() or 1}


def _idle(b: Any, name: str, col: int) -> List[float]:
    return [float(r[col]) for r in getattr(b, "idle", {}).get("rows", {}).get(name, [])]


def run_packets(b: Any, run: Any, Failure: Any, here: Path) -> None:
    rounds = 1 if b.smoke else 15
    cmd = [sys.executable, str(here / "packet_bench.py"), "--bin", str(b.bin), "--lib",
           str(b.lib), "--rounds", str(rounds)]
    if b.a.pythonpath:
        cmd += ["--pythonpath", b.a.pythonpath]
    sys.stderr.write(f"bench: packets in C and Python ({rounds} rounds)\n")
    try:
        out = run(cmd)
    except Failure as e:
        b.failures.append(f"packets: {e}")
        b.packets = None
        return
    lines = out.strip().splitlines()
    rows: Dict[str, float] = {}
    for ln in lines:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if ln.startswith("| ") and len(cells) == 6 and cells[1][:1].isdigit():
            rows[cells[0]] = float(cells[1])
    b.packets = {"lines": lines, "rounds": rounds, "rows": rows}


def section(b: Any, fmt_ratio: Any) -> List[str]:
    L: List[str] = []
    tp = getattr(b, "throughput", None)
    if tp:
        L += [f"## Exact seeks per second, {tp['players']} players, 1, 2 and 8 host threads", "",
              f"`fpx_bench throughput` and `av_bench throughput` (`Benchmarks/bench_threads.h`, "
              f"one schedule for both): {tp['players']} players (FastPixSeek, THREAD delivery, "
              f"default index mode) or {tp['players']} contexts (the hand loop) on one file, "
              f"opened first (untimed); T host threads share them, thread t taking the players "
              f"p with p mod T = t round robin, {tp['seeks']} exact seeks in all to distinct "
              f"random targets (FastPixSeek: `fpx_player_seek_wait`), so every (player, target) "
              f"pair is cold. Wall time and the process's CPU time (user + system) of the seeks "
              f"only; best of {tp['rounds']} interleaved rounds. Every landing is checked "
              f"against ffprobe.", "",
              "| File | host threads | hand loop seeks/s | FastPixSeek seeks/s | FastPixSeek / "
              "hand | hand CPU per seek (us) | FastPixSeek CPU per seek (us) | CPU x hand |",
              "|---|---|---|---|---|---|---|---|"]
        for cont in ("mp4", "mkv"):
            for th in list(THREADS) + ["one"]:
                h = throughput_best(b, "hand", cont, th)
                f = throughput_best(b, "fpx", cont, th)
                label = "1 (and 1 player)" if th == "one" else str(th)
                if not h or not f:
                    L.append(f"| {cont.upper()} | {label} | n/a | n/a | | | | |")
                    continue
                n = tp["seeks"]
                hs, fs = n / (h[0] / 1e9), n / (f[0] / 1e9)
                L.append(f"| {cont.upper()} | {label} | {hs:.0f} | {fs:.0f} | "
                         f"{fmt_ratio(fs / hs)} | {h[1] / n / 1e3:.0f} | {f[1] / n / 1e3:.0f} | "
                         f"{fmt_ratio(f[1] / h[1]) if h[1] else 'n/a'} |")
        cells = [f"{impl} {cont.upper()} {m[0]}/{m[1]}"
                 for (impl, cont), m in sorted(tp["bad"].items())]
        L += ["", "Landings against ffprobe (wrong / seeks, all rounds): " + "; ".join(cells)
              + ".", ""]
        L += why_throughput(b)
    idle = getattr(b, "idle", None)
    if idle and idle["rows"]:
        n = idle["n"]
        L += [f"## {n:,} idle players (shared executor)", "",
              f"`Benchmarks/idle_bench.c`, one process per row, {idle['reps']} runs each, "
              f"alternating (bare, THREAD, HOST), {n:,} players (or contexts) on `gop250.mp4` "
              f"(in the page cache). Bare = {n:,} x (`avformat_open_input` + "
              f"`avformat_find_stream_info`), one after the other, all kept open. FastPixSeek = "
              f"{n:,} `fpx_player_create` (untimed), then `fpx_player_open` on all and "
              f"`fpx_player_wait_item` on all (the opens run concurrently on the pool). Threads "
              f"from /proc/self/task (library threads: named `fpx-*`), descriptors from "
              f"/proc/self/fd (added by the creates and opens, minus bare's per context), "
              f"RSS = VmRSS added by the opens.", "",
              f"| | open {n:,} median (ms) | min..max (ms) | x bare | library threads while "
              f"opening (max) | library threads idle (3 s after) | fds per player beyond media "
              f"| RSS per player (KiB) | x bare |",
              "|---|---|---|---|---|---|---|---|---|"]
        bo, br = _median(_idle(b, "bare", 2)), _median(_idle(b, "bare", 6))
        bf = _median(_idle(b, "bare", 5))
        for name, _ in IDLE_MODES:
            o = _idle(b, name, 2)
            if not o:
                L.append(f"| {IDLE_LABELS[name]} | n/a | | | | | | | |")
                continue
            rss = _median(_idle(b, name, 6))
            fds = _median(_idle(b, name, 5)) - bf if name != "bare" else None
            L.append(f"| {IDLE_LABELS[name]} | {_median(o):.0f} | {min(o):.0f}..{max(o):.0f} | "
                     f"{'' if name == 'bare' else fmt_ratio(_median(o) / bo)} | "
                     f"{max(_idle(b, name, 3)):.0f} | {max(_idle(b, name, 4)):.0f} | "
                     f"{'' if fds is None else f'{fds:.2f}'} | {rss:.0f} | "
                     f"{'' if name == 'bare' else fmt_ratio(rss / br)} |")
        L.append("")
    pk = getattr(b, "packets", None)
    if pk:
        L += ["## Packets in Python against C", "",
              f"`Benchmarks/packet_bench.c` and `Benchmarks/packet_bench.py` ({pk['rounds']} "
              f"interleaved rounds): every packet of a 60 s 320x180 H.264 (`-bf 3 -g 250`) + AAC "
              f"MP4 read to the end, the C program (`fpx_player_read_packet` with one "
              f"`fpx_packet`, a fresh process, its warm second pass) and, on one Player per "
              f"mode, the bindings; each reader touches the payload.", ""]
        L += [ln for ln in pk["lines"] if ln.startswith("|") or ln.startswith("file:")]
        L.append("")
    return L


def targets(b: Any, fmt_ratio: Any, verdict: Any) -> List[Tuple[str, str, str]]:
    out: List[Tuple[str, str, str]] = []
    idle = getattr(b, "idle", None)
    if idle and idle["rows"]:
        lim = 2 * idle["cores"] + 4
        for name in ("thread", "host"):
            v = _idle(b, name, 4)
            out.append((f"{idle['n']:,} idle players: at most 2 x cores + 4 = {lim} library "
                        f"threads, {name.upper()}", verdict(bool(v) and max(v) <= lim),
                        f"{max(v):.0f}" if v else "not measured"))
        bf = _median(_idle(b, "bare", 5))
        v = _idle(b, "host", 5)
        out.append(("HOST players: one fd each beyond their media",
                    verdict(bool(v) and _median(v) - bf <= 1.0),
                    f"{_median(v) - bf:.2f}" if v else "not measured"))
        bo, br = _median(_idle(b, "bare", 2)), _median(_idle(b, "bare", 6))
        for name in ("thread", "host"):
            o, r = _idle(b, name, 2), _idle(b, name, 6)
            if not o:
                continue
            x = _median(o) / bo
            out.append((f"open {idle['n']:,} players <= 1.2x bare, {name.upper()}",
                        verdict(x <= 1.2), f"{fmt_ratio(x)} ({_median(o):.0f} vs {bo:.0f} ms)"))
            y = _median(r) / br
            out.append((f"memory per player <= 1.1x bare, {name.upper()}", verdict(y <= 1.1),
                        f"{fmt_ratio(y)} ({_median(r):.0f} vs {br:.0f} KiB)"))
    tp = getattr(b, "throughput", None)
    if tp:
        for cont in ("mp4", "mkv"):
            cells, ok = [], True
            for th in THREADS:
                h, f = throughput_best(b, "hand", cont, th), throughput_best(b, "fpx", cont, th)
                if not h or not f:
                    cells.append(f"{th} threads not measured")
                    ok = False
                    continue
                x = h[0] / f[0]
                cells.append(f"{th} threads {fmt_ratio(x)}")
                ok = ok and x >= 1.0
            out.append((f"exact seeks/s with {tp['players']} players >= the hand loop's, "
                        f"{cont.upper()}", verdict(ok), "; ".join(cells)))
    pk = getattr(b, "packets", None)
    if pk and pk["rows"]:
        c = pk["rows"].get("C (fpx_player_read_packet)")
        p = pk["rows"].get("packets()")
        if c is not None and p is not None:
            out.append(("a packet through `packets()` costs at most 10 us more than in C",
                        verdict(p - c <= 10.0), f"+{p - c:.2f} us ({p:.2f} vs {c:.2f})"))
    return out
