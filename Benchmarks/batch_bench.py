#!/usr/bin/env python3
"""Frames of many files at scale (issue 33, item 3): the Dask recipe against a process pool
running the same task, and against decord's and torchcodec's batch APIs on the same targets.

    Benchmarks/run.sh --batch [--smoke]     (makes the corpus, runs this, writes its section)
    python3 Benchmarks/batch_bench.py --corpus DIR --pythonpath DIR --lib LIB \\
        [--torch-python PY] [--workers 2] [--smoke] [--out BENCHMARKS.md]

The corpus: FILES files of 320x180 29.97 fps H.264 (x264 ultrafast, 3 B-frames, closed GOPs of
250), each of its own length, made by ffmpeg. The targets: PER_FILE distinct frames per file
chosen at random, each asked for at the middle of its display interval, in sorted order. Every
engine turns them into RGB pictures (rgb24, the file's size) in WORKERS worker processes of one
thread each, and gives them back to the driver:

* ``fpx-dask``: Examples/python/frames_dask.py's ``catalogue`` (one task per file:
  ``frames_for_file(path, times, format="rgb24")``) on a dask.distributed LocalCluster of
  WORKERS processes (peak memory from each worker's ru_maxrss after the run);
* ``fpx-pool``: the same task in a ``concurrent.futures.ProcessPoolExecutor`` of WORKERS
  processes (the baseline: the recipe's overhead is fpx-dask / fpx-pool);
* ``decord``: ``VideoReader(path, num_threads=1).get_batch(indices)`` per file in the same
  pool;
* ``tc-exact``, ``tc-approx``: torchcodec's ``VideoDecoder(path, seek_mode=...,
  num_ffmpeg_threads=1, dimension_order="NHWC").get_frames_played_at(seconds)`` per file in
  the same pool (torch's own python: --torch-python).

Each engine runs in a driver process of its own, after its workers are up and have imported
what they need (a warm-up task each): the time is from the first task submitted to the last
picture received. Peak memory per worker is the largest ru_maxrss a worker reports after its
tasks. Every picture is checked against ffmpeg's rgb24 decode of the frame the target falls in
(8x8-block signatures: the wanted frame must be the nearest of its 2 neighbours each side and
within 3 levels, as frame_bench.py checks RGB peers).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import resource
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Tuple

from frame_bench import signature  # the 8x8-block signature frame_bench.py checks RGB peers with

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ENGINES = ["fpx-dask", "fpx-pool", "decord", "tc-exact", "tc-approx"]
TORCH = {"tc-exact", "tc-approx"}


def log(msg: str) -> None:
    print(f"batch_bench: {msg}", file=sys.stderr, flush=True)


def make_corpus(d: Path, files: int, seconds: int) -> List[Path]:
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(files):
        p = d / f"clip{i:02d}_{seconds + i}s.mp4"
        if not p.exists():
            tmp = d / f".tmp{i}.mp4"
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                            "testsrc2=size=320x180:rate=30000/1001", "-t", str(seconds + i), "-c:v", "libx264",
                            "-preset", "ultrafast", "-bf", "3", "-g", "250", "-keyint_min", "250",
                            "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-crf", "30", str(tmp)], check=True)
            tmp.rename(p)
        out.append(p)
    return out


# ------------------------------------------------------------------------------------------
# worker side: one task per file; each returns (pictures, the worker's peak RSS in KiB)

def _rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def warm(engine: str) -> int:
    if engine.startswith("fpx"):
        import frames_dask  # noqa: F401
        import av  # noqa: F401
    elif engine == "decord":
        import decord  # noqa: F401
    else:
        import torch
        import torchcodec.decoders  # noqa: F401
        torch.set_num_threads(1)
    return os.getpid()


def fpx_task(path: str, times: List[Fraction]) -> Tuple[List[Any], int]:
    import frames_dask
    recs = frames_dask.frames_for_file(path, times, format="rgb24")
    return [r.image for r in recs], _rss()


def decord_task(path: str, indices: List[int]) -> Tuple[List[Any], int]:
    import decord
    vr = decord.VideoReader(path, ctx=decord.cpu(0), num_threads=1)
    batch = vr.get_batch(indices).asnumpy()
    return list(batch), _rss()


def torch_task(path: str, seconds: List[float], mode: str) -> Tuple[List[Any], int]:
    from torchcodec.decoders import VideoDecoder
    d = VideoDecoder(path, seek_mode=mode, num_ffmpeg_threads=1, dimension_order="NHWC")
    batch = d.get_frames_played_at(seconds).data.numpy()
    return list(batch), _rss()


def run_engine(engine: str, plan_file: str, workers: int) -> Dict[str, Any]:
    plan = json.load(open(plan_file))
    jobs = plan["jobs"]
    if engine == "fpx-dask":
        import dask.distributed as dd
        cluster = dd.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None)
        client = dd.Client(cluster)
        import frames_dask
        client.run(warm, engine)
        t0 = time.perf_counter()
        got = frames_dask.catalogue(client, [(j["path"], [Fraction(t) for t in j["times"]]) for j in jobs],
                                    format="rgb24")
        elapsed = time.perf_counter() - t0
        peak = max(client.run(_rss).values())
        results = [([r.image for r in got[j["path"]]], peak) for j in jobs]
        client.close()
        cluster.close()
    else:
        with ProcessPoolExecutor(workers) as pool:
            list(pool.map(warm, [engine] * workers * 2))
            t0 = time.perf_counter()
            if engine == "fpx-pool":
                futs = [pool.submit(fpx_task, j["path"], [Fraction(t) for t in j["times"]]) for j in jobs]
            elif engine == "decord":
                futs = [pool.submit(decord_task, j["path"], j["indices"]) for j in jobs]
            else:
                mode = "exact" if engine == "tc-exact" else "approximate"
                futs = [pool.submit(torch_task, j["path"], j["seconds"], mode) for j in jobs]
            results = [f.result() for f in futs]
            elapsed = time.perf_counter() - t0
    frames = sum(len(r[0]) for r in results)
    sigs = [[signature(img).tolist() for img in r[0]] for r in results]
    return {"engine": engine, "seconds": elapsed, "frames": frames, "peak_rss_kib": max(r[1] for r in results),
            "sigs": sigs}


# ------------------------------------------------------------------------------------------
# checking

def reference(path: Path, wanted: List[int]) -> Dict[int, Any]:
    import numpy as np
    w, h = 320, 180
    keep = set(j for i in wanted for j in range(i - 2, i + 3))
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-fps_mode", "passthrough",
                          "-pix_fmt", "rgb24", "-f", "rawvideo", "-"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=1 << 22)
    assert p.stdout is not None
    out: Dict[int, Any] = {}
    i = 0
    while True:
        buf = p.stdout.read(w * h * 3)
        if len(buf) < w * h * 3:
            break
        if i in keep:
            out[i] = signature(np.frombuffer(buf, dtype=np.uint8).reshape(h, w, 3))
        i += 1
    p.wait()
    return out


def wrong_frames(sigs: List[List[Any]], plan: Dict[str, Any], refs: List[Dict[int, Any]]) -> int:
    import numpy as np
    wrong = 0
    for job, got, ref in zip(plan["jobs"], sigs, refs):
        if len(got) != len(job["indices"]):
            wrong += len(job["indices"])
            continue
        for i, s in zip(job["indices"], got):
            a = np.asarray(s, dtype=np.float32)
            dist = {j: float(np.abs(ref[j] - a).mean()) for j in range(i - 2, i + 3) if j in ref}
            best = min(dist, key=lambda j: dist[j])
            wrong += not (best == i and dist[i] <= 3.0)
    return wrong


# ------------------------------------------------------------------------------------------
# the driver

def main(argv: List[str]) -> int:
    if len(argv) > 1 and argv[1] == "--engine":
        res = run_engine(argv[2], argv[3], int(argv[4]))
        print(json.dumps(res))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--torch-python", default="")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--command", default="Benchmarks/run.sh --batch")
    a = ap.parse_args(argv[1:])
    nfiles, seconds, per_file = (4, 10, 8) if a.smoke else (16, 60, 24)
    rounds = 1 if a.smoke else a.rounds
    sys.path.insert(0, str(ROOT / "Tests" / "python"))
    import framecheck
    import groundtruth
    files = make_corpus(Path(a.corpus), nfiles, seconds)
    rnd = random.Random(3303)
    plan: Dict[str, Any] = {"jobs": []}
    for f in files:
        pts = [p for p, _ in framecheck.frame_md5s(str(f))]
        gt = groundtruth.load(str(f))
        idx = sorted(rnd.sample(range(len(pts) - 1), per_file))
        mids = [pts[i] + (pts[i + 1] - pts[i]) // 2 for i in idx]  # ticks inside frame i
        plan["jobs"].append({"path": str(f), "indices": idx, "times": [str(gt.to_item(m)) for m in mids],
                             "seconds": [float(m * gt.time_base) for m in mids]})
    plan_file = Path(a.corpus) / "plan.json"
    plan_file.write_text(json.dumps(plan))
    log("ffmpeg's rgb24 decode of every target and its neighbours ...")
    refs = [reference(Path(j["path"]), j["indices"]) for j in plan["jobs"]]
    env = {**os.environ, "PYTHONPATH": f"{a.pythonpath}:{ROOT / 'Examples' / 'python'}:{HERE}",
           "FASTPIX_SEEK_LIBRARY": a.lib, "LD_LIBRARY_PATH": str(Path(a.lib).parent), "OMP_NUM_THREADS": "1"}
    runs: Dict[str, List[Dict[str, Any]]] = {e: [] for e in ENGINES}
    status: Dict[str, str] = {}
    for r in range(rounds):
        order = ENGINES[r % len(ENGINES):] + ENGINES[:r % len(ENGINES)]
        for e in order:
            if status.get(e, "ok") != "ok":
                continue
            py = (a.torch_python or a.python) if e in TORCH else a.python
            log(f"round {r + 1}: {e} ...")
            p = subprocess.run([py, str(HERE / "batch_bench.py"), "--engine", e, str(plan_file), str(a.workers)],
                               capture_output=True, text=True, env=env, timeout=3600)
            if p.returncode != 0:
                status[e] = "not measured: " + (p.stderr.strip().splitlines() or ["?"])[-1][:200]
                log(f"{e}: {status[e]}")
                continue
            res = json.loads(p.stdout.strip().splitlines()[-1])
            res["wrong"] = wrong_frames(res.pop("sigs"), plan, refs)
            runs[e].append(res)
    text = section(a, runs, status, nfiles, seconds, per_file, rounds)
    print(text)
    if a.out:
        sys.path.insert(0, str(HERE))
        from bench_doc import write_section
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        write_section(a.out, "batch_bench", text)
        log(f"wrote its section of {a.out}")
    bad = [e for e in ("fpx-dask", "fpx-pool") if any(x["wrong"] for x in runs[e])]
    return 1 if bad else 0


def section(a: argparse.Namespace, runs: Dict[str, List[Dict[str, Any]]], status: Dict[str, str],
            nfiles: int, seconds: int, per_file: int, rounds: int) -> str:
    import statistics

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    L = ["## Frames of many files at scale (issue 33, item 3)", "",
         f"Measured {now} with `{a.command}` (driver `Benchmarks/batch_bench.py`), git "
         f"{git('rev-parse', '--short', 'HEAD')}, load average {load} at the end. {nfiles} files of "
         f"{seconds}-{seconds + nfiles - 1} s (320x180 H.264, GOP 250, 3 B-frames), {per_file} random frames "
         f"each as rgb24, {a.workers} worker processes of one thread, {rounds} interleaved round(s); the "
         f"median round. Every picture checked against ffmpeg's rgb24 decode.", "",
         "| Engine | frames/s | time (s) | peak RSS per worker (MiB) | wrong frames |", "|---|---:|---:|---:|---:|"]
    med: Dict[str, float] = {}
    for e in ENGINES:
        rs = runs[e]
        if not rs:
            L.append(f"| {e} | {status.get(e, 'not measured')} | | | |")
            continue
        t = statistics.median(x["seconds"] for x in rs)
        med[e] = t
        frames = rs[0]["frames"]
        L.append(f"| {e} | {frames / t:.1f} | {t:.2f} | {max(x['peak_rss_kib'] for x in rs) / 1024:.0f} | "
                 f"{sum(x['wrong'] for x in rs)}/{frames * len(rs)} |")
    L.append("")
    if "fpx-dask" in med and "fpx-pool" in med:
        L.append(f"The Dask recipe's overhead over the process pool with the same task: "
                 f"{med['fpx-dask'] / med['fpx-pool']:.2f}x (target at most 1.1x).")
    for e in ("decord", "tc-exact", "tc-approx"):
        if e in med and "fpx-pool" in med:
            L.append(f"fpx-pool / {e}: {med['fpx-pool'] / med[e]:.2f}x the time (below 1 is faster).")
    L += ["", f"Reproduce: `{a.command}`.", ""]
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
