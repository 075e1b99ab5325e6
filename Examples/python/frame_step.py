#!/usr/bin/env python3
"""frame_step.py FILE TIME STEPS [OUT.ppm] -- step frame by frame from an exact seek.

    python3 Examples/python/frame_step.py movie.mp4 2 5 stepped.ppm

Seeks exactly to TIME, steps STEPS frames forward one at a time, then one frame back, printing
every landing (exact rational item times, pts). Steps follow the stream's real frame grid, so
variable frame rates and B-frames need no arithmetic from the host. The final frame is decoded
and written. A refused step (end of the item, no video) comes back with a typed reason.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from typing import List

from fastpix_seek import FrameStepDirection, Player, SeekPrecision

from fastpix_seek.pyav import decode_landed_frame

from decode_landing import write_ppm


def main(argv: List[str]) -> int:
    if len(argv) < 4:
        print((__doc__ or "").strip().splitlines()[0], file=sys.stderr)
        return 2
    path, start, steps = argv[1], Fraction(argv[2]), int(argv[3])
    out = argv[4] if len(argv) > 4 else "stepped.ppm"
    with Player(path) as player:
        player.wait_item(timeout=10)
        o = player.seek_and_wait(start, SeekPrecision.exact())
        print(f"seek {start}: {o.landed_time} (pts {o.landed_stream_pts})")
        moves = [FrameStepDirection.FORWARD] * steps + [FrameStepDirection.BACKWARD]
        last = None
        if o.landed_stream_pts is None:
            print("the seek landed on no frame", file=sys.stderr)
            return 1
        for d in moves:
            r = player.step_frame(d)
            if not r.did_step:
                print(f"step {d.name.lower()}: refused, {r.reason.name}: {r.explanation}")
                return 1
            print(f"step {d.name.lower()}: {r.landed_media_time} (pts {r.landed_stream_pts})")
            last = r
        if last is None or last.landed_stream_pts is None:
            print("no step landed on a frame", file=sys.stderr)
            return 1
        frame = decode_landed_frame(player, last.landed_stream_pts)
        write_ppm(frame, out)
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
