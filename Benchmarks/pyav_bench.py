#!/usr/bin/env python3
"""PyAV implementations for the FastPixSeek benchmarks (see bench.py).

    pyav_bench.py seek FILE TARGETS MODE PASSES REOPEN VIDEO_DELAY

MODE:
  exact  the same demux-only exact seek as av_bench.c, in Python: container.seek(backward) on
         the video stream, skip to the first keyframe, back off (1 s, doubling) while its pts is
         after the target, then read in decode order tracking the largest non-discard
         pts <= target; stop when dts > target, or where dts is missing after
         VIDEO_DELAY + 1 packets with pts > target.
  key    the last keyframe at or before the target (same back-off rule).
  naive  what most PyAV code does: container.seek(target, stream=video) and take the first
         decoded frame's pts.

VIDEO_DELAY is the stream's reorder depth (codecpar video_delay, ffprobe's has_b_frames):
PyAV 18 exposes has_b_frames only as a bool.

PASSES / REOPEN / TARGETS: as av_bench.c (REOPEN=1 reopens the container when the target's
segment changes, in the first pass). Prints "pass,idx,target,landed,ns,packets" per seek.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from typing import Iterator, List, Optional, Tuple

import av

from bench_truth import read_targets


class Reader:
    def __init__(self, path: str, video_delay: int) -> None:
        self.container = av.open(path)
        self.vs = self.container.streams.video[0]
        self.tb = self.vs.time_base
        self.video_delay = video_delay
        self.packets = 0
        self.it: Optional[Iterator[av.Packet]] = None

    def close(self) -> None:
        self.container.close()

    def _next(self) -> Optional[av.Packet]:
        assert self.it is not None
        for p in self.it:
            if p.size == 0 and p.pts is None:  # the flush packet PyAV yields at EOF
                return None
            self.packets += 1
            return p
        return None

    def seek_to_keyframe_before(self, target: int) -> Tuple[av.Packet, bool]:
        one_s = int(Fraction(1) / Fraction(self.tb))
        backoff = 0
        backed_off = False
        for _ in range(40):
            self.container.seek(target - backoff, backward=True, any_frame=False,
                                stream=self.vs)
            self.it = self.container.demux(self.vs)
            k = self._next()
            while k is not None and not k.is_keyframe:
                k = self._next()
            if k is not None and (k.pts is None or k.pts <= target):
                return k, backed_off
            backoff = backoff * 2 if backoff else one_s
            backed_off = True
        raise RuntimeError(f"no keyframe at or before {target}")

    def exact(self, target: int, keys_only: bool) -> int:
        p, backed_off = self.seek_to_keyframe_before(target)
        if keys_only and not backed_off:
            return p.pts
        best = None
        after = 0
        while p is not None:
            pts, dts = p.pts, p.dts
            if (not p.is_discard and pts is not None and pts <= target
                    and (not keys_only or p.is_keyframe) and (best is None or pts > best)):
                best = pts
            if dts is not None:
                if dts > target:
                    break
            elif pts is not None and pts > target:
                after += 1
                if after >= self.video_delay + 1:
                    break
            p = self._next()
        if best is None:
            raise RuntimeError(f"no frame at or before {target}")
        return best

    def naive(self, target: int) -> int:
        """-1 when nothing is decoded after the seek (counted as a mismatch)."""
        self.container.seek(target, stream=self.vs)
        for frame in self.container.decode(self.vs):
            return frame.pts if frame.pts is not None else -1
        return -1


def main(argv: List[str]) -> int:
    if len(argv) != 8 or argv[1] != "seek":
        print(__doc__, file=sys.stderr)
        return 2
    path, targets_path, mode = argv[2], argv[3], argv[4]
    passes, reopen, video_delay = int(argv[5]), int(argv[6]), int(argv[7])
    if mode not in ("exact", "key", "naive"):
        print(f"pyav_bench: unknown mode {mode}", file=sys.stderr)
        return 2
    targets = read_targets(targets_path)
    r = Reader(path, video_delay)
    seg = None
    out = ["pass,idx,target,landed,ns,packets"]
    clock = time.perf_counter_ns
    for pas in range(passes):
        for i, (s, t) in enumerate(targets):
            if reopen and pas == 0 and seg is not None and s != seg:
                r.close()
                r = Reader(path, video_delay)
            seg = s
            r.packets = 0
            t0 = clock()
            if mode == "naive":
                landed = r.naive(t)
            else:
                landed = r.exact(t, mode == "key")
            t1 = clock()
            out.append(f"{pas},{i},{t},{landed},{t1 - t0},{r.packets}")
    r.close()
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
