#!/usr/bin/env python3
"""scrub.py FILE FROM TO [OUT.ppm] -- a scrub gesture: many position updates, one seek.

    python3 Examples/python/scrub.py movie.mp4 1 4.5 scrubbed.ppm

A timeline drag sends positions at touch rate. With a scrub session they cost nothing: begin()
and update() record samples and issue no seek; end() issues exactly one exact seek to where
the finger stopped. The landed frame is then decoded (fastpix_seek.pyav) and written.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from typing import List

from fastpix_seek import Player, SeekPrecision

from fastpix_seek.pyav import decode_landed_frame

from decode_landing import write_ppm


def main(argv: List[str]) -> int:
    if len(argv) < 4:
        print((__doc__ or "").strip().splitlines()[0], file=sys.stderr)
        return 2
    path, start, stop = argv[1], Fraction(argv[2]), Fraction(argv[3])
    out = argv[4] if len(argv) > 4 else "scrubbed.ppm"
    with Player(path) as player:
        player.wait_item(timeout=10)
        session = player.scrub_session()
        samples = 120                      # two seconds of a 60 Hz drag
        session.begin(start)
        for i in range(1, samples + 1):
            session.update(start + (stop - start) * i / samples)
        before = player.stats().seeks_issued
        result = session.end_and_wait(stop, SeekPrecision.exact())
        seeks = player.stats().seeks_issued - before
        outcome = result.outcome
        if outcome is None or not outcome.finished or outcome.landed_stream_pts is None:
            print("the scrub's seek did not land", file=sys.stderr)
            return 1
        frame = decode_landed_frame(player, outcome.landed_stream_pts)
        write_ppm(frame, out)
        print(f"{result.sample_count} samples, {seeks} seek: landed on {outcome.landed_time} s "
              f"(pts {outcome.landed_stream_pts}); wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
