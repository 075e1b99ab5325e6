"""The corpus's ground truth and the seek targets of the benchmark driver (bench.py):
ffprobe's frames and keyframes per file (cached next to the file), and the seeded target
lists every program reads."""

from __future__ import annotations

import bisect
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from bench_common import log, run

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


def read_targets(path: str) -> List[Tuple[int, int]]:
    """(segment, ticks) per line of a file make_targets or write_plain_targets wrote: how the
    Python peers (pyav_bench.py, pyfpx_bench.py) read their targets."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            seg, ticks = line.split()
            out.append((int(seg), int(ticks)))
    return out


def write_plain_targets(ticks: Sequence[int], path: Path) -> None:
    with open(path, "w") as f:
        for t in ticks:
            f.write(f"0 {t}\n")
