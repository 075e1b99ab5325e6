#!/usr/bin/env python3
"""decode_landing.py FILE TIME [OUT.ppm] -- seek exactly with fastpix_seek, decode with PyAV,
write the landed frame as a PPM image.

    pip install 'Bindings/python[pyav]'    # or Debian: apt install python3-av
    python3 Examples/python/decode_landing.py movie.mp4 92.5 frame.ppm   # TIME: 92.5 or 1001/30000

What a player does: open, seek with the exact precision (the outcome names the landed frame
by its pts), then feed the packets that follow (they start at the keyframe the landed frame
needs) to a decoder until the frame with that pts comes out. Frames before it (their packets
are flagged decode-only) are decoded but not shown.

The decoding is fastpix_seek.pyav's decode_landed_frame() (the package's PyAV bridge, for
PyAV 10 -- Debian 12's python3-av -- and newer): PyAV may carry another FFmpeg than the
libavformat 59 that libfastpixseek uses, so its decoder is built from the codec *name* and
the extradata, and packets are rebuilt from their bytes and timestamps, never from the
library's AVCodecParameters/AVPacket pointers (see "FFmpeg ABI" in fastpix/seek.h).
scrub.py and frame_step.py use the same function.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any, List

from fastpix_seek import Player, SeekPrecision
from fastpix_seek.pyav import decode_landed_frame

__all__ = ["decode_landed_frame", "write_ppm", "main"]


def write_ppm(frame: Any, path: str, note: str = "") -> None:
    """Writes an av.VideoFrame as binary PPM (RGB), with its pts in a comment line."""
    rgb = frame.reformat(format="rgb24")
    plane = rgb.planes[0]
    raw = bytes(plane)
    row = rgb.width * 3
    with open(path, "wb") as f:
        f.write(f"P6\n# fastpixseek pts={frame.pts} time_base={frame.time_base} {note}\n"
                f"{rgb.width} {rgb.height}\n255\n".encode())
        for y in range(rgb.height):
            f.write(raw[y * plane.line_size:y * plane.line_size + row])


def main(argv: List[str]) -> int:
    if len(argv) < 3:
        print((__doc__ or "").strip().splitlines()[0], file=sys.stderr)
        return 2
    path, target, out = argv[1], Fraction(argv[2]), (argv[3] if len(argv) > 3 else "landed.ppm")
    with Player(path) as player:
        player.wait_item(timeout=10)
        outcome = player.seek_and_wait(target, SeekPrecision.exact())
        if not outcome.finished:
            print(f"the seek did not land: {outcome.reason.name}", file=sys.stderr)
            return 1
        if outcome.landed_stream_pts is None:
            print("the seek landed on no frame", file=sys.stderr)
            return 1
        frame = decode_landed_frame(player, outcome.landed_stream_pts)
        write_ppm(frame, out)
        print(f"requested {target} s: landed on frame pts {outcome.landed_stream_pts} "
              f"(time base {outcome.stream_time_base}) = {outcome.landed_time} s on the item "
              f"timeline, covers target {outcome.frame_covers_target}; wrote {out} "
              f"({frame.width}x{frame.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
