#!/usr/bin/env python3
"""Time to the presented frame (issue 21.6): FastPixSeek's frame helper against its peers.

    Benchmarks/run.sh --frames [--smoke]       (builds the C peers, makes the corpus, runs this)
    python3 Benchmarks/frame_bench.py --corpus DIR --bin DIR --lib LIB --pythonpath DIR \\
        [--smoke] [--scale S] [--out BENCHMARKS.md]

Tasks, on each file of Benchmarks/make_frame_corpus.sh (the 10-minute 320x180 x264 -bf 3
-g 250 MP4 and MKV, a 60 s 720p x264, a 60 s 720p HEVC with x265 open GOPs):

* T1: open + one frame, cold (a fresh open for every frame; the open is in the time);
* T2: one open, then random frames;
* T3: one open, a scrub walk forward then back in small steps (2 frames) from a random start;
* T4a: one open, forward steps of 1 frame (5 each) from random starts;
* T4b: one open, a scrub session's gestures: drags of 8 positions, 4-30 frames apart, forward
  or back, each drag from where the last ended.

The targets are stream ticks inside a frame (its pts plus half its duration), so every peer is
asked for the frame on screen at that time (the one whose pts is the largest <= the target).

Peers, each in its own process, interleaved (for each file and task the peers run in a
rotating order; one process per peer, file and task; its start-up, imports and index are not
timed, the open is timed only in T1):

* ``fpx-py``: ``Player.frame_at`` (fastpix_seek.frames; PyAV decoder with thread_count=1);
* ``pyav``: the PyAV recipe: ``container.seek(target, backward=True, stream=s)``, decode
  forward, keep the last frame with pts <= target (thread_count=1);
* ``fpx-c``: FastPixSeek + libavcodec in C (Examples/c/frames_at.c's recipe,
  frame_bench_c.c ``fpx``);
* ``hand-c``: the hand-written libavformat + libavcodec loop (av_seek_frame BACKWARD, flush,
  decode forward; frame_bench_c.c ``hand``);
* ``ffms2``: ffms2's FFMS_GetFrame(n) (Debian's libffms2-dev; one decoder thread; indexing
  at open is not timed, even in T1);
* ``decord``: ``VideoReader(path, num_threads=1)[n]`` (pip, build/venv only);
* ``opencv``: ``cv2.VideoCapture``, ``CAP_PROP_POS_FRAMES = n``, ``read()``
  (opencv-python-headless, pip, build/venv only);
* ``tc-exact``, ``tc-approx``: torchcodec's ``VideoDecoder(path, seek_mode="exact" |
  "approximate", num_ffmpeg_threads=1, dimension_order="NHWC").get_frame_at(n)`` (CPU,
  ``torch.set_num_threads(1)``; exact mode scans the file at open to build its index,
  approximate mode computes frame n's time from the average frame rate). torch and
  torchcodec live in their own virtual environment (``--torch-python``; run.sh makes
  Benchmarks/build/torchvenv from PyPI), over the system's FFmpeg libraries.

Every returned frame is checked against ffmpeg's own decode: the peers that return the
decoder's picture (fpx-py, pyav, fpx-c, hand-c, ffms2) by its framemd5 hash against the
framemd5 of the frame the target falls in; the RGB peers (decord, OpenCV) by comparing an
8x8-block signature of their picture with ffmpeg's rgb24 decode of that frame and its 2
neighbours each side: right when the wanted frame is the closest and within 3 levels.
Peers that cannot be installed are reported as such.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from bench_doc import write_section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "Tests" / "python"))

FILES = ["gop250.mp4", "gop250.mkv", "x264_720p.mp4", "hevc_opengop.mp4"]
PEERS = ["fpx-py", "pyav", "fpx-c", "hand-c", "ffms2", "decord", "opencv", "tc-exact", "tc-approx"]
RGB_PEERS = {"decord", "opencv", "tc-exact", "tc-approx"}
TORCH_PEERS = {"tc-exact", "tc-approx"}
YUV_PEERS = {"fpx-py", "pyav", "fpx-c", "hand-c", "ffms2"}
TASKS = ["T1", "T2", "T3", "T4a", "T4b"]
BREAKDOWN_TASKS = ["T1", "T2"]
BREAKDOWN_PEERS = ["fpx-py", "pyav"]
BLOCK = 8


def log(msg: str) -> None:
    print(f"frame_bench: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# ground truth

def truth(path: Path) -> Tuple[List[int], List[str]]:
    import framecheck
    pairs = framecheck.frame_md5s(str(path))
    return [p for p, _ in pairs], [m for _, m in pairs]


def target_ticks(pts: List[int], i: int) -> int:
    return pts[i] + (pts[i + 1] - pts[i]) // 2 if i + 1 < len(pts) else pts[i]


# ------------------------------------------------------------------------------------------
# tasks: lists of "O" and frame indices

def make_tasks(n: int, rnd: random.Random, scale: float) -> Dict[str, List[Any]]:
    def k(x: float) -> int:
        return max(2, int(round(x * scale)))
    margin = 40
    t: Dict[str, List[Any]] = {}
    t["T1"] = sum((["O", rnd.randrange(n)] for _ in range(k(8))), [])
    t["T2"] = ["O"] + [rnd.randrange(n) for _ in range(k(12))]
    steps = k(10)
    s = rnd.randrange(n - 2 * steps - margin)
    fwd = [s + 2 * i for i in range(steps + 1)]
    t["T3"] = ["O"] + fwd + fwd[-2::-1]
    t4a: List[Any] = ["O"]
    for _ in range(k(4)):
        s = rnd.randrange(n - 6)
        t4a += [s + i for i in range(6)]
    t["T4a"] = t4a
    t4b: List[Any] = ["O"]
    pos = rnd.randrange(n)
    for _ in range(k(3)):
        d = rnd.choice((-1, 1))
        for _ in range(8):
            pos = min(n - 1, max(0, pos + d * rnd.randint(4, 30)))
            t4b.append(pos)
    t["T4b"] = t4b
    return t


def task_file(items: List[Any], pts: List[int], path: Path) -> None:
    with open(path, "w") as f:
        for it in items:
            f.write("O\n" if it == "O" else f"F {it} {pts[it]} {target_ticks(pts, it)}\n")


# ------------------------------------------------------------------------------------------
# Python peers (worker processes)

def signature(rgb: Any) -> Any:
    import numpy as np
    a = np.asarray(rgb, dtype=np.float32)
    h, w = (a.shape[0] // BLOCK) * BLOCK, (a.shape[1] // BLOCK) * BLOCK
    a = a[:h, :w].reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3).mean(axis=(1, 3))
    return a


class TimedDecoder:
    """A PyAV decoder whose decode() calls add their time to acc[0] (the breakdown pass);
    everything else goes to the decoder itself."""

    def __init__(self, dec: Any, acc: List[int]) -> None:
        object.__setattr__(self, "_d", dec)
        object.__setattr__(self, "_acc", acc)

    def decode(self, packet: Any = None) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return self._d.decode(packet)
        finally:
            self._acc[0] += time.perf_counter_ns() - t0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._d, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._d, name, value)


def worker(peer: str, path: str, tasks: str, sig_out: Optional[str], breakdown: bool = False) -> int:
    """One peer on one task file; prints "idx,ns,md5,got,decoded" per answer. breakdown (the
    fpx-py and pyav peers only, a pass of its own, not timed in the tables): also the open's
    time, the landing's (fpx-py: the seek outcome's latency_ns; pyav: container.seek) and the
    time inside the decoder's decode() calls, per answer."""
    lines = [ln.split() for ln in open(tasks)]
    out: List[str] = []
    sigs: List[Any] = []
    open_ns = 0
    state: Dict[str, Any] = {}
    dec_acc = [0]
    land_acc = [0]
    read_acc = [0]  # fpx-py: inside player.packets()' next(): the binding's reads
    conv_acc = [0]  # fpx-py: fastpix_seek.pyav.to_av_packet
    fed_acc = [0]  # fpx-py: packets fed to the decoder (FrameAt.packets)
    if peer == "fpx-py":
        from fastpix_seek import Player
        import fastpix_seek.frames  # noqa: F401  (import time not measured)
        import av  # noqa: F401
        if breakdown:
            import fastpix_seek.pyav as fpyav
            made = fpyav.decoder_for
            fpyav.decoder_for = lambda info, **o: TimedDecoder(made(info, **o), dec_acc)  # type: ignore
            convert = fpyav.to_av_packet

            def timed_convert(pkt: Any) -> Any:
                t0 = time.perf_counter_ns()
                try:
                    return convert(pkt)
                finally:
                    conv_acc[0] += time.perf_counter_ns() - t0
            fpyav.to_av_packet = timed_convert  # type: ignore
            read = Player.packets

            def timed_packets(self: Any, *args: Any, **kw: Any) -> Any:
                it = iter(read(self, *args, **kw))
                while True:
                    t0 = time.perf_counter_ns()
                    try:
                        pkt = next(it)
                    except StopIteration:
                        return
                    finally:
                        read_acc[0] += time.perf_counter_ns() - t0
                    yield pkt
            Player.packets = timed_packets  # type: ignore

        def do_open() -> None:
            if "p" in state:
                state["p"].close()
            p = Player(path)
            p.wait_item(timeout=30)
            p.frame_reader(thread_count=1)
            info = p.item_info()
            state.update(p=p, start=info.start_pts, tb=info.time_base)

        def get(idx: int, pts: int, target: int) -> Tuple[str, int, int]:
            import framecheck
            r = state["p"].frame_at((Fraction(target) - state["start"]) * state["tb"])
            if r.outcome is not None:
                land_acc[0] += r.outcome.latency_ns
            fed_acc[0] += r.packets
            return framecheck.frame_md5(r.frame), r.pts, r.decoded
    elif peer == "pyav":
        import av

        def do_open() -> None:
            if "c" in state:
                state["c"].close()
            c = av.open(path)
            s = c.streams.video[0]
            s.thread_type = "SLICE"
            s.codec_context.thread_count = 1
            state.update(c=c, s=s)

        def get(idx: int, pts: int, target: int) -> Tuple[str, int, int]:
            import framecheck
            c, s = state["c"], state["s"]
            t0 = time.perf_counter_ns()
            c.seek(target, backward=True, any_frame=False, stream=s)
            land_acc[0] += time.perf_counter_ns() - t0
            prev = None
            n = 0
            # container.decode(stream) is demux() then packet.decode() (the codec context's
            # decode); the breakdown pass makes those calls itself, to time the decoder alone
            frames = (f for pkt in c.demux(s) for f in TimedDecoder(s.codec_context, dec_acc).decode(pkt)) \
                if breakdown else c.decode(s)
            for frame in frames:
                n += 1
                if frame.pts is not None and frame.pts > target:
                    break
                prev = frame
            got = prev if prev is not None else frame
            return framecheck.frame_md5(got), got.pts, n
    elif peer == "decord":
        import decord

        def do_open() -> None:
            state["vr"] = decord.VideoReader(path, ctx=decord.cpu(0), num_threads=1)

        def get(idx: int, pts: int, target: int) -> Tuple[str, int, int]:
            img = state["vr"][idx].asnumpy()
            sigs.append(signature(img))
            return "rgb", -1, -1
    elif peer == "opencv":
        import cv2
        cv2.setNumThreads(1)

        def do_open() -> None:
            if "cap" in state:
                state["cap"].release()
            state["cap"] = cv2.VideoCapture(path, cv2.CAP_FFMPEG)

        def get(idx: int, pts: int, target: int) -> Tuple[str, int, int]:
            cap = state["cap"]
            cap.set(cv2.CAP_PROP_POS_FRAMES, idx)
            ok, img = cap.read()
            if not ok:
                sigs.append(None)
                return "-", -1, -1
            sigs.append(signature(img[:, :, ::-1]))
            return "rgb", -1, -1
    elif peer in TORCH_PEERS:
        import torch
        from torchcodec.decoders import VideoDecoder
        torch.set_num_threads(1)
        mode = "exact" if peer == "tc-exact" else "approximate"

        def do_open() -> None:
            state["d"] = VideoDecoder(path, seek_mode=mode, num_ffmpeg_threads=1, dimension_order="NHWC")

        def get(idx: int, pts: int, target: int) -> Tuple[str, int, int]:
            sigs.append(signature(state["d"].get_frame_at(idx).data.numpy()))
            return "rgb", -1, -1
    else:
        raise SystemExit(f"unknown peer {peer}")
    for ln in lines:
        if ln[0] == "O":
            t0 = time.perf_counter_ns()
            do_open()
            open_ns += time.perf_counter_ns() - t0
            continue
        idx, pts, target = int(ln[1]), int(ln[2]), int(ln[3])
        dec_acc[0] = land_acc[0] = read_acc[0] = conv_acc[0] = fed_acc[0] = 0
        opened = open_ns
        t0 = time.perf_counter_ns()
        try:
            md5, got, dec = get(idx, pts, target)
        except Exception as e:  # a peer failing on a frame is a wrong frame, not a crash
            log(f"{peer}: frame {idx}: {type(e).__name__}: {e}")
            md5, got, dec = "-", -1, -1
            if peer in RGB_PEERS:
                sigs.append(None)
        ns = time.perf_counter_ns() - t0 + open_ns
        open_ns = 0
        out.append(f"{idx},{ns},{md5},{got},{dec}" + (f",{opened},{land_acc[0]},{dec_acc[0]},{read_acc[0]},{conv_acc[0]},{fed_acc[0]}" if breakdown else ""))
    if sig_out is not None:
        import pickle
        with open(sig_out, "wb") as fh:
            pickle.dump(sigs, fh)
    print("\n".join(out))
    return 0


# ------------------------------------------------------------------------------------------
# the driver

class Bench:
    def __init__(self, a: argparse.Namespace) -> None:
        self.a = a
        self.status: Dict[str, str] = {}
        self.results: Dict[Tuple[str, str, str], List[Dict[str, Any]]] = {}
        self.breakdown: Dict[Tuple[str, str, str], List[Dict[str, int]]] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="frame-bench-"))

    def peer_status(self) -> None:
        env = self.env()
        for peer, mod in (("fpx-py", "av"), ("pyav", "av"), ("decord", "decord"), ("opencv", "cv2"),
                          ("tc-exact", "torchcodec"), ("tc-approx", "torchcodec")):
            py = self.python(peer)
            r = subprocess.run([py, "-c", f"import {mod}; print(getattr({mod}, '__version__', '?'))"],
                               capture_output=True, text=True, env=env)
            self.status[peer] = (f"ok ({mod} {r.stdout.strip()})" if r.returncode == 0 else
                                 f"not measured: `import {mod}` fails in {py}: "
                                 f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
        c = Path(self.a.bin) / "frame_bench_c"
        if not c.exists():
            for p in ("fpx-c", "hand-c", "ffms2"):
                self.status[p] = "not measured: frame_bench_c was not built"
        else:
            self.status["fpx-c"] = "ok"
            self.status["hand-c"] = "ok"
            self.status["ffms2"] = self.a.ffms2_status or "ok"

    def python(self, peer: str) -> str:
        return (self.a.torch_python or self.a.python) if peer in TORCH_PEERS else self.a.python

    def env(self) -> Dict[str, str]:
        return {**os.environ, "PYTHONPATH": f"{self.a.pythonpath}:{ROOT / 'Tests' / 'python'}",
                "FASTPIX_SEEK_LIBRARY": self.a.lib, "LD_LIBRARY_PATH": str(Path(self.a.lib).parent),
                "OMP_NUM_THREADS": "1", "OPENCV_FFMPEG_THREADS": "1"}

    def run_peer(self, peer: str, path: Path, tasks: Path,
                 breakdown: bool = False) -> Tuple[List[List[str]], Optional[List[Any]]]:
        sig = None
        if peer in ("fpx-c", "hand-c", "ffms2"):
            mode = {"fpx-c": "fpx", "hand-c": "hand", "ffms2": "ffms2"}[peer]
            cmd = [str(Path(self.a.bin) / "frame_bench_c"), mode, str(path), str(tasks)]
        else:
            sig = str(self.tmp / "sig.pickle")
            cmd = [self.python(peer), str(HERE / "frame_bench.py"), "--worker", peer, str(path), str(tasks),
                   "--sig-out", sig] + (["--breakdown"] if breakdown else [])
        r = subprocess.run(cmd, capture_output=True, text=True, env=self.env(), timeout=3600)
        if r.returncode != 0:
            raise RuntimeError(f"{peer} on {path.name}: exit {r.returncode}: {r.stderr.strip()[-400:]}")
        rows = [ln.split(",") for ln in r.stdout.splitlines() if ln.strip()]
        sigs = None
        if sig is not None and peer in RGB_PEERS:
            import pickle
            with open(sig, "rb") as fh:
                sigs = pickle.load(fh)
        return rows, sigs

    def rgb_reference(self, path: Path, indices: List[int], n: int) -> Dict[int, Any]:
        """Signatures of ffmpeg's rgb24 decode of the frames in indices (display order)."""
        import numpy as np
        want = sorted(set(i for i in indices if 0 <= i < n))
        if not want:
            return {}
        probe = json.loads(subprocess.check_output(
            ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
             "-of", "json", str(path)], text=True))["streams"][0]
        w, h = probe["width"], probe["height"]
        # Every frame through a pipe, the wanted ones kept (ffmpeg's select with hundreds of
        # terms fails to initialise).
        p = subprocess.Popen(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-fps_mode",
                              "passthrough", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1 << 22)
        out: Dict[int, Any] = {}
        size = w * h * 3
        assert p.stdout is not None
        wanted = set(want)
        last = want[-1]
        for i in range(last + 1):
            buf = p.stdout.read(size)
            if len(buf) < size:
                break
            if i in wanted:
                out[i] = signature(np.frombuffer(buf, dtype=np.uint8).reshape(h, w, 3))
        p.stdout.close()
        p.kill()
        p.wait()
        return out

    def run(self) -> int:
        t0 = time.monotonic()
        self.peer_status()
        for p in PEERS:
            log(f"{p}: {self.status[p]}")
        rnd = random.Random(2112)
        scale = 0.35 if self.a.smoke else self.a.scale
        self.truths: Dict[str, Tuple[List[int], List[str]]] = {}
        for name in FILES:
            path = Path(self.a.corpus) / name
            log(f"{name}: ffmpeg's decode (framemd5) ...")
            pts, md5 = truth(path)
            self.truths[name] = (pts, md5)
            tasks = make_tasks(len(pts), rnd, scale)
            wanted_rgb: List[int] = []
            for tname in TASKS:
                tf = self.tmp / f"{name}-{tname}.txt"
                task_file(tasks[tname], pts, tf)
                peers = [p for p in PEERS if self.status[p].startswith("ok")]
                k = TASKS.index(tname) + FILES.index(name)
                order = peers[k % len(peers):] + peers[:k % len(peers)]
                for peer in order:
                    log(f"{name} {tname} {peer} ...")
                    try:
                        rows, sigs = self.run_peer(peer, path, tf)
                    except Exception as e:
                        log(f"FAILED {e}")
                        self.results[(name, tname, peer)] = [{"failed": str(e)}]
                        continue
                    recs = []
                    for j, row in enumerate(rows):
                        idx, ns, m, got, dec = int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4])
                        rec = {"idx": idx, "ns": ns, "md5": m, "got": got, "decoded": dec}
                        if len(row) >= 7:  # the C peers: the open's and the decoder's part of ns
                            rec["open"], rec["decode"] = int(row[5]), int(row[6])
                        if sigs is not None:
                            rec["sig"] = sigs[j] if j < len(sigs) else None
                            wanted_rgb += [idx + d for d in range(-2, 3)]
                        recs.append(rec)
                    self.results[(name, tname, peer)] = recs
            # The breakdown pass (T1, T2; fpx-py and pyav; not in the tables above): where
            # each answer's time goes, to explain the ratios from measurement.
            for tname in BREAKDOWN_TASKS:
                for peer in BREAKDOWN_PEERS:
                    if not self.status[peer].startswith("ok"):
                        continue
                    log(f"{name} {tname} {peer} (breakdown) ...")
                    try:
                        rows, _ = self.run_peer(peer, path, self.tmp / f"{name}-{tname}.txt", breakdown=True)
                    except Exception as e:
                        log(f"breakdown FAILED {e}")
                        continue
                    self.breakdown[(name, tname, peer)] = [
                        {"ns": int(r[1]), "decoded": int(r[4]), "open": int(r[5]), "land": int(r[6]),
                         "decode": int(r[7]), "read": int(r[8]), "convert": int(r[9]), "fed": int(r[10])} for r in rows]
            ref = self.rgb_reference(path, wanted_rgb, len(pts)) if wanted_rgb else {}
            self.check(name, pts, md5, ref)
        self.elapsed = time.monotonic() - t0
        self.measured()
        self.write()
        bad = [k for k, v in self.results.items() if k[2] in ("fpx-py", "fpx-c") and
               any(not r.get("ok") for r in v)]
        for k in bad:
            log(f"WRONG FRAMES from FastPixSeek: {k}")
        return 1 if bad else 0

    def check(self, name: str, pts: List[int], md5: List[str], ref: Dict[int, Any]) -> None:
        import numpy as np
        for (fname, tname, peer), recs in self.results.items():
            if fname != name:
                continue
            for r in recs:
                if "failed" in r:
                    continue
                i = r["idx"]
                if peer in YUV_PEERS:
                    r["ok"] = r["md5"] == md5[i]
                    if not r["ok"] and r["md5"] in md5:
                        r["off"] = md5.index(r["md5"]) - i if md5.count(r["md5"]) == 1 else None
                else:
                    s = r.pop("sig", None)
                    if s is None:
                        r["ok"] = False
                        continue
                    dist = {j: float(np.abs(ref[j] - s).mean()) for j in range(i - 2, i + 3) if j in ref}
                    best = min(dist, key=lambda j: dist[j]) if dist else None
                    r["ok"] = best == i and dist[i] <= 3.0
                    if not r["ok"] and best is not None and dist[best] <= 3.0:
                        r["off"] = best - i
                    r["dist"] = round(dist.get(i, -1.0), 2)

    # -- report ------------------------------------------------------------------------------

    def measured(self) -> None:
        """What the report says of the run itself, taken when it ends (kept for --rerender)."""
        def git(*args: str) -> str:
            r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
            return r.stdout.strip()
        self.meta = {
            "now": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "load": " ".join(open("/proc/loadavg").read().split()[:3]),
            "git": git("rev-parse", "--short", "HEAD") +
            (" + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""),
            "elapsed": self.elapsed, "command": self.a.command, "smoke": self.a.smoke, "scale": self.a.scale}

    def write(self) -> None:
        res = Path(self.a.results)
        res.mkdir(parents=True, exist_ok=True)
        key = "|".join
        (res / "frame_bench.json").write_text(json.dumps(
            {"meta": self.meta, "status": self.status,
             "results": {key(k): v for k, v in self.results.items()},
             "breakdown": {key(k): v for k, v in self.breakdown.items()}}, indent=0))
        text = self.section()
        (res / "frame_bench.md").write_text(text)
        print(text)
        if self.a.out:
            write_section(self.a.out, "frame_bench", text, "## Reproduce")
            log(f"wrote its section of {self.a.out}")

    def section(self) -> str:
        m = self.meta
        L = ["## Time to the presented frame (issue 21, item 6)", ""]
        L += [f"Measured {m['now']} with `{m['command']}` (driver `Benchmarks/frame_bench.py`, C peers "
              f"`Benchmarks/frame_bench_c.c`, corpus `Benchmarks/make_frame_corpus.sh`), git "
              f"{m['git']}, {m['elapsed']:.0f} s, load average {m['load']} at the end (2 cores shared with other "
              f"sessions: absolute times are inflated and noisy; compare peers within a row). "
              f"Scale {0.35 if m['smoke'] else m['scale']} (targets per task: T1 "
              f"{self._count('T1')}, T2 {self._count('T2')}, T3 {self._count('T3')}, T4a "
              f"{self._count('T4a')}, T4b {self._count('T4b')} per file and peer).", ""]
        L += ["The FastPixSeek rows run with continuation on (the frame helper and the C recipe "
              "turn it on and report what their decoder returned, `fpx_player_report_decoded`): "
              "a landing ahead of what the decoder has continues the packets instead of "
              "restarting at the keyframe; DISPOSABLE pre-roll packets are dropped before the "
              "decoder and `skip_frame=NONREF` is set while the packets are DECODE_ONLY.", ""]
        L += ["Peers:", ""]
        for p in PEERS:
            L.append(f"- `{p}`: {self.status.get(p, '?')}")
        L += ["", "Each cell: median ms per frame, then wrong frames / frames (a frame is wrong when its "
              "pixels are not ffmpeg's decode of the frame the target falls in: framemd5 for the peers "
              "returning the decoder's picture; for decord, OpenCV and torchcodec, which return RGB, the nearest of "
              "ffmpeg's rgb24 frames within 2 must be the wanted one, within 3 levels). `n/m` in "
              "T1 includes the open (not ffms2's indexing).", ""]
        for tname, title in (("T1", "T1: open + one frame, cold"), ("T2", "T2: one open, random frames"),
                             ("T3", "T3: scrub walk forward and back, 2-frame steps"),
                             ("T4a", "T4a: forward steps of 1 from random starts"),
                             ("T4b", "T4b: scrub gestures (drags of 8 positions, 4-30 frames apart)")):
            L += [f"### {title}", ""]
            L += ["| File | " + " | ".join(PEERS) + " |", "|---|" + "---:|" * len(PEERS)]
            for name in FILES:
                cells = []
                for p in PEERS:
                    recs = self.results.get((name, tname, p))
                    if not recs:
                        cells.append("n/a")
                    elif "failed" in recs[0]:
                        cells.append("failed")
                    else:
                        ms = statistics.median(r["ns"] for r in recs) / 1e6
                        wrong = sum(not r.get("ok") for r in recs)
                        cells.append(f"{ms:.1f} ({wrong}/{len(recs)})")
                L.append(f"| {name} | " + " | ".join(cells) + " |")
            L.append("")
        # decoded frames per answer (where the peer says)
        L += ["### Frames decoded per answer (median; FastPixSeek rows count what the decoder put out)", ""]
        dpeers = ["fpx-py", "pyav", "fpx-c", "hand-c"]
        L += ["| File | Task | " + " | ".join(dpeers) + " |", "|---|---|" + "---:|" * len(dpeers)]
        for name in FILES:
            for tname in TASKS:
                cells = []
                for p in dpeers:
                    recs = self.results.get((name, tname, p)) or []
                    d = [r["decoded"] for r in recs if "decoded" in r and r["decoded"] >= 0]
                    cells.append(f"{statistics.median(d):.0f}" if d else "n/a")
                L.append(f"| {name} | {tname} | " + " | ".join(cells) + " |")
        L.append("")
        # ratios
        L += ["### Ratios (median time per frame; below 1 is faster)", ""]
        L += ["| File | Task | fpx-py / pyav | fpx-c / hand-c | fpx-c / ffms2 | fpx-py / decord | "
              "fpx-py / tc-exact | fpx-py / tc-approx |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
        for name in FILES:
            for tname in TASKS:
                def med(p: str) -> Optional[float]:
                    recs = self.results.get((name, tname, p)) or []
                    v = [r["ns"] for r in recs if "ns" in r]
                    return statistics.median(v) if v else None

                def ratio(a: str, b: str) -> str:
                    x, y = med(a), med(b)
                    return f"{x / y:.2f}" if x and y else "n/a"
                L.append(f"| {name} | {tname} | {ratio('fpx-py', 'pyav')} | {ratio('fpx-c', 'hand-c')} | "
                         f"{ratio('fpx-c', 'ffms2')} | {ratio('fpx-py', 'decord')} | "
                         f"{ratio('fpx-py', 'tc-exact')} | {ratio('fpx-py', 'tc-approx')} |")
        L.append("")
        L += self.targets_and_breakdown()
        # wrong-frame details
        offs: List[str] = []
        for (name, tname, p), recs in sorted(self.results.items()):
            bad = [r for r in recs if "failed" not in r and not r.get("ok")]
            if bad:
                kinds: Dict[str, int] = {}
                for r in bad:
                    o = r.get("off")
                    key = f"{o:+d} frame(s)" if isinstance(o, int) else "matching no frame within 2"
                    kinds[key] = kinds.get(key, 0) + 1
                offs.append(f"- {p} on {name} {tname}: {len(bad)}/{len(recs)} wrong (" +
                            ", ".join(f"{v} {k}" for k, v in sorted(kinds.items())) + ")")
        L += ["### Wrong frames, by how far off", ""]
        L += offs or ["- none"]
        L += ["", "Reproduce: `" + m["command"] + "` (needs what `Benchmarks/run.sh` needs; decord and "
              "opencv-python-headless are pip-installed into `build/venv` only, torch and torchcodec "
              "into `Benchmarks/build/torchvenv`, ffms2 is Debian's libffms2-dev).", ""]
        return "\n".join(L)

    def med(self, name: str, tname: str, peer: str) -> Optional[float]:
        v = [r["ns"] for r in self.results.get((name, tname, peer)) or [] if "ns" in r]
        return statistics.median(v) if v else None

    def targets_and_breakdown(self) -> List[str]:
        """The targets of issue 33.2, then, for T1 and T2, where each answer's time goes in the
        breakdown pass (fpx-py and the PyAV recipe), and why each miss is a miss."""
        L = ["### Targets (issue 33, item 2)", "",
             "T1 and T2 at most 0.5x the PyAV recipe (fpx-py / pyav) and the hand C loop (fpx-c / hand-c); "
             "T3 at most 0.5x the fastest peer; one-frame steps (T4a) one decode.", "",
             "| File | T1 fpx-py / pyav | T1 fpx-c / hand-c | T2 fpx-py / pyav | T2 fpx-c / hand-c | "
             "T3 fpx-py / fastest peer | T4a frames decoded per one-frame step (fpx-py, fpx-c) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
        misses: List[Tuple[str, str]] = []
        c_misses: List[Tuple[str, str]] = []
        others = [p for p in PEERS if p not in ("fpx-py", "fpx-c")]
        for name in FILES:
            cells = []
            for tname in ("T1", "T2"):
                for a, b in (("fpx-py", "pyav"), ("fpx-c", "hand-c")):
                    x, y = self.med(name, tname, a), self.med(name, tname, b)
                    if x and y:
                        r = x / y
                        cells.append(f"{r:.2f} ({'met' if r <= 0.5 else 'not met'})")
                        if r > 0.5:
                            (misses if a == "fpx-py" else c_misses).append((name, tname))
                    else:
                        cells.append("n/a")
            peers = [(self.med(name, "T3", p), p) for p in others]
            peers = [(v, p) for v, p in peers if v]
            x = self.med(name, "T3", "fpx-py")
            if x and peers:
                v, p = min(peers)
                cells.append(f"{x / v:.2f} vs {p} ({'met' if x / v <= 0.5 else 'not met'})")
            else:
                cells.append("n/a")
            # a step: an answer for the frame right after the previous answer's (T4a's runs of
            # six start with a seek, not counted)
            dec = [r["decoded"] for q in ("fpx-py", "fpx-c")
                   for prev, r in zip(self.results.get((name, "T4a", q)) or [], (self.results.get((name, "T4a", q)) or [])[1:])
                   if r.get("decoded", -1) >= 0 and r["idx"] == prev["idx"] + 1]
            cells.append(f"median {statistics.median(dec):.0f}, max {max(dec)} ({len(dec)} steps)" if dec else "n/a")
            L.append(f"| {name} | " + " | ".join(cells) + " |")
        L.append("")
        if not self.breakdown:
            return L
        L += ["### Where a T1 and T2 answer's time goes (breakdown pass)", "",
              "The same task files run once more for fpx-py and the PyAV recipe with the decoder's `decode()` "
              "calls timed (a wrapper around the codec context; the PyAV recipe's `container.decode(stream)` "
              "made as the `demux()` and `decode()` calls it is made of), after the timed runs above, so it "
              "does not change them. Means per answer in ms (they add up; the tables above give medians): "
              "*open* is the player's (fpx-py: `Player(path)`, `wait_item`, `frame_reader`) or "
              "`av.open`'s; *landing* is the seek (fpx-py: the outcome's `latency_ns`, the library's "
              "landing; pyav: `container.seek`); *decode* the time inside the decoder, with the frames it put "
              "out; fpx-py's *packets* the time inside `next()` of `player.packets()` (the library's read and "
              "the ctypes binding's packet object), with the packets fed to the decoder, and *to av.Packet* "
              "`fastpix_seek.pyav.to_av_packet`; *rest* everything else (fpx-py: the frame helper's Python and "
              "making its decoder at the first answer after an open, where PyAV opens its codec inside the first "
              "`decode()`; pyav: demuxing and PyAV's Python; both: the benchmark's md5 of the frame).", "",
              "| File | Task | Peer | total | open | landing | decode (frames) | packets (fed) | to av.Packet | rest |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        means: Dict[Tuple[str, str, str], Dict[str, float]] = {}
        for name in FILES:
            for tname in BREAKDOWN_TASKS:
                for peer in BREAKDOWN_PEERS:
                    rows = self.breakdown.get((name, tname, peer))
                    if not rows:
                        continue
                    m = {k: statistics.mean(r[k] for r in rows) / 1e6
                         for k in ("ns", "open", "land", "decode", "read", "convert")}
                    m["decoded"] = statistics.mean(r["decoded"] for r in rows)
                    m["fed"] = statistics.mean(r["fed"] for r in rows)
                    m["rest"] = m["ns"] - m["open"] - m["land"] - m["decode"] - m["read"] - m["convert"]
                    means[(name, tname, peer)] = m
                    pk = f"{m['read']:.2f} ({m['fed']:.0f})" if peer == "fpx-py" else "-"
                    cv = f"{m['convert']:.2f}" if peer == "fpx-py" else "-"
                    L.append(f"| {name} | {tname} | {peer} | {m['ns']:.2f} | {m['open']:.2f} | {m['land']:.2f} | "
                             f"{m['decode']:.2f} ({m['decoded']:.0f}) | {pk} | {cv} | {m['rest']:.2f} |")
        L.append("")
        why = []
        for name, tname in misses:
            f, p = means.get((name, tname, "fpx-py")), means.get((name, tname, "pyav"))
            if not (f and p):
                continue
            budget = p["ns"] / 2
            parts = sorted(((f[k], k) for k in ("open", "land", "decode", "read", "convert", "rest")), reverse=True)
            fo, po = f["ns"] - f["decode"], p["ns"] - p["decode"]
            text = (f"- {name} {tname}: 0.5x the PyAV recipe is {budget:.2f} ms per answer; fpx-py spends "
                    f"{f['ns']:.2f} ms (" + ", ".join(f"{k} {v:.2f}" for v, k in parts) + "). Its decoder put out "
                    f"{f['decoded']:.0f} frames to PyAV's {p['decoded']:.0f} in {f['decode'] / max(p['decode'], 1e-9):.2f}x "
                    f"PyAV's decode time; everything but the decoding takes {fo:.2f} ms against PyAV's {po:.2f} "
                    f"({fo / max(po, 1e-9):.2f}x).")
            if f["decode"] > budget:
                text += (" The decoding alone is over the budget: the frames it decodes are the reference frames "
                         "from the keyframe to the target (frames no later frame references are skipped), so "
                         "less means decoding fewer of those, which changes the picture, or a faster decoder.")
            elif fo > po:
                text += (f" Decoding is within the budget; the rest is {fo - po:.2f} ms more than PyAV's, "
                         f"the largest part its {parts[0][1] if parts[0][1] != 'decode' else parts[1][1]}: "
                         "0.5x needs those parts below PyAV's own, where a Python host pays for the library's "
                         "open (a player, its worker and index) and for each packet crossing ctypes.")
            else:
                text += (f" Both parts are below PyAV's; the total is {f['ns'] / p['ns']:.2f}x because "
                         "decoding, which it halves at best, is most of both.")
            why.append(text)
        for name, tname in c_misses:
            fc, hc = self.med(name, tname, "fpx-c"), self.med(name, tname, "hand-c")
            cm = {}
            for q in ("fpx-c", "hand-c"):
                recs = [r for r in self.results.get((name, tname, q)) or [] if "decode" in r]
                if recs:
                    cm[q] = {k: statistics.mean(r[k] for r in recs) / 1e6 for k in ("ns", "open", "decode")}
                    cm[q]["decoded"] = statistics.mean(r["decoded"] for r in recs)
            if not (fc and hc and len(cm) == 2):
                continue
            a, b = cm["fpx-c"], cm["hand-c"]
            ao, bo = a["ns"] - a["open"] - a["decode"], b["ns"] - b["open"] - b["decode"]
            text = (f"- {name} {tname}, C: fpx-c / hand-c is {fc / hc:.2f} (medians); means per answer, fpx-c "
                    f"{a['ns']:.2f} ms = open {a['open']:.2f} + decode {a['decode']:.2f} ({a['decoded']:.0f} frames) "
                    f"+ the rest {ao:.2f} (landing, packets, md5), hand-c {b['ns']:.2f} = open {b['open']:.2f} + "
                    f"decode {b['decode']:.2f} ({b['decoded']:.0f} frames) + {bo:.2f}. fpx-c decodes "
                    f"{a['decoded'] / max(b['decoded'], 1e-9):.2f}x the frames in "
                    f"{a['decode'] / max(b['decode'], 1e-9):.2f}x the decode time (the frames skipped are the "
                    "non-reference ones, the cheapest to decode)")
            budget = b["ns"] / 2
            if a["decode"] > budget:
                text += ("; its decoding alone is over 0.5x hand-c's answer: less needs fewer reference frames "
                         "decoded, which changes the picture.")
            else:
                text += (f"; 0.5x is {budget:.2f} ms: after its decoding, {budget - a['decode']:.2f} ms remain for "
                         f"an open and a rest that take {a['open'] + ao:.2f} ms (hand-c's "
                         f"{b['open'] + bo:.2f}); the largest is the "
                         f"{'open (the player, its worker and index against avformat_open_input)' if a['open'] >= ao else 'rest (the landing and the packets through the library)'}.")
            why.append(text)
        if why:
            L += ["Why each miss above is a miss, from the breakdown:", ""] + why + [""]
        return L

    def _count(self, tname: str) -> int:
        for (name, t, p), recs in self.results.items():
            if t == tname and recs and "failed" not in recs[0]:
                return len(recs)
        return 0


def main(argv: List[str]) -> int:
    if len(argv) > 2 and argv[1] == "--rerender":
        # The section again from a run's frame_bench.json, without measuring:
        # frame_bench.py --rerender RESULTS/frame_bench.json [BENCHMARKS.md]
        data = json.loads(Path(argv[2]).read_text())
        b = Bench(argparse.Namespace(results=str(Path(argv[2]).parent), out=argv[3] if len(argv) > 3 else None))
        b.meta, b.status = data["meta"], data["status"]
        b.results = {tuple(k.split("|")): v for k, v in data["results"].items()}  # type: ignore
        b.breakdown = {tuple(k.split("|")): v for k, v in data["breakdown"].items()}  # type: ignore
        b.write()
        b.tmp.rmdir()  # made by Bench(); a rerender runs nothing in it
        return 0
    if len(argv) > 1 and argv[1] == "--worker":
        sig = argv[argv.index("--sig-out") + 1] if "--sig-out" in argv else None
        return worker(argv[2], argv[3], argv[4], sig, "--breakdown" in argv)
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--torch-python", default="", help="the python with torch and torchcodec (default --python)")
    ap.add_argument("--results", default=str(HERE / "results-frames"))
    ap.add_argument("--out", help="BENCHMARKS.md to put the section in (replaced between its markers)")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--ffms2-status", default="")
    ap.add_argument("--command", default="Benchmarks/run.sh --frames")
    a = ap.parse_args(argv[1:])
    if a.ffms2_status and os.path.exists(a.ffms2_status):
        a.ffms2_status = open(a.ffms2_status).read().strip()
    return Bench(a).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
