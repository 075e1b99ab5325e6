"""The child process of test_frames_memory.py: answers many times with one of the frame helpers
of fastpix_seek.frames and reports how much resident memory that took.

    python framemem.py MODE MEDIA TIMES_JSON SAMPLE_EVERY

MODE: ``iter`` (Player.iter_frames_at, the order given), ``time``
(Player.iter_frames_in_time_order) or ``list`` (Player.frames_at). TIMES_JSON: a file with a
list of [numerator, denominator] pairs. Prints one JSON line: ``base_kb`` (VmRSS after the
first frame is decoded, when PyAV, the decoder and the library are loaded and the peak has been
reset), ``peak_kb`` (VmHWM at the end), ``answers`` (how many), ``order`` (the index of each
answer's time in TIMES_JSON), ``pts`` (each answer's landed pts) and ``samples`` ([index, pts,
md5] for every SAMPLE_EVERY-th answer: framecheck.frame_md5 of its pixels, for the parent to
compare with ffmpeg's). The frames themselves are dropped as they come (the list mode keeps
its list, as a caller of frames_at does). Needs FASTPIX_SEEK_LIBRARY in the environment.
"""
from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "Bindings" / "python"))

import framecheck  # noqa: E402


def status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def reset_peak() -> None:
    """Resets VmHWM to the current RSS (Linux >= 4.0: "5" to /proc/self/clear_refs)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def main() -> int:
    mode, media, times_json, every_s = sys.argv[1:5]
    every = int(every_s)
    times = [Fraction(n, d) for n, d in json.loads(Path(times_json).read_text())]
    from fastpix_seek import Player
    order: List[int] = []
    pts: List[int] = []
    samples: List[Tuple[int, int, str]] = []

    def seen(i: int, r: Any) -> None:
        if len(order) % every == 0:
            samples.append((i, r.pts, framecheck.frame_md5(r.frame)))
        order.append(i)
        pts.append(r.pts)

    with Player(media) as p:
        p.wait_item(timeout=20)
        p.frame_at(times[0])  # loads PyAV and the decoder
        reset_peak()
        base = status_kb("VmRSS")
        if mode == "iter":
            for i, r in enumerate(p.iter_frames_at(times)):
                seen(i, r)
        elif mode == "time":
            for i, r in p.iter_frames_in_time_order(times):
                seen(i, r)
        elif mode == "list":
            kept = p.frames_at(times)
            for i, r in enumerate(kept):
                seen(i, r)
        else:
            raise SystemExit(f"unknown mode {mode}")
        peak = status_kb("VmHWM")
    print(json.dumps({"base_kb": base, "peak_kb": peak, "answers": len(order), "order": order,
                      "pts": pts, "samples": samples}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
