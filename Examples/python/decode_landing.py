#!/usr/bin/env python3
"""decode_landing.py FILE TIME [OUT.ppm] -- seek exactly with fastpix_seek, decode with PyAV,
write the landed frame as a PPM image.

    pip install Bindings/python av
    python3 Examples/python/decode_landing.py movie.mp4 92.5 frame.ppm   # TIME: 92.5 or 1001/30000

What a player does: open, seek with the exact precision (the outcome names the landed frame
by its pts), then feed the packets that follow (they start at the keyframe the landed frame
needs) to a decoder until the frame with that pts comes out. Frames before it (their packets
are flagged decode-only) are decoded but not shown.

PyAV bundles its own FFmpeg (another major version than the libavformat 59 that
libfastpixseek uses), so its decoder is built from the codec *name* and the extradata, and
packets are rebuilt from their bytes and timestamps, never from the library's
AVCodecParameters/AVPacket pointers (see "FFmpeg ABI" in fastpix/seek.h).

decode_landed_frame() is reused by scrub.py and frame_step.py.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from typing import Optional

import av  # PyAV

from fastpix_seek import Player, SeekPrecision


def make_decoder(player: Player):
    """A PyAV decoder for the reference stream, from its codec name and extradata."""
    info = player.item_info()
    si = player.stream_info(info.reference_stream)
    codec = av.CodecContext.create(si.codec_name, "r")
    if si.extradata:
        codec.extradata = si.extradata
    return codec, si


def decode_landed_frame(player: Player, landed_pts: int):
    """Reads packets from the player's current position (right after a seek or a step) and
    decodes them until the frame with pts ``landed_pts`` comes out; returns that av.VideoFrame.
    Raises RuntimeError if it never does."""
    codec, si = make_decoder(player)
    ref = si.index
    for p in player.packets():
        if p.stream_index != ref:
            continue
        pkt = av.Packet(p.data)
        pkt.pts, pkt.dts = p.pts, p.dts
        pkt.time_base = si.time_base
        if p.is_key:
            pkt.is_keyframe = True
        if p.is_discard:
            pkt.is_discard = True  # edit-list pre-roll: decoded, never output
        for frame in codec.decode(pkt):
            if frame.pts == landed_pts:
                return frame
    for frame in codec.decode(None):  # end of file: drain the reorder buffer
        if frame.pts == landed_pts:
            return frame
    raise RuntimeError(f"the landed frame (pts {landed_pts}) was never decoded")


def write_ppm(frame, path: str, note: str = "") -> None:
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


def main(argv) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    path, target, out = argv[1], Fraction(argv[2]), (argv[3] if len(argv) > 3 else "landed.ppm")
    with Player(path) as player:
        player.wait_item(timeout=10)
        outcome = player.seek_and_wait(target, SeekPrecision.exact())
        if not outcome.finished:
            print(f"the seek did not land: {outcome.reason.name}", file=sys.stderr)
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
