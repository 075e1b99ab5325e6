#!/usr/bin/env python3
"""The PyAV recipe for a seek preview sprite, the peer of `fpx-seek sprite --precision exact`
in Benchmarks/sprite_bench.py: for each tile time t (the first frame, then every INTERVAL
seconds), seek backward to the keyframe at or before t (container.seek), decode forward and
keep the last frame at or before t (the frame on screen at t), scale it to a 160-pixel-wide
tile (PyAV's reformat: libswscale, bicubic), paste it into a numpy canvas, and write the
canvas as JPEG with libavcodec's mjpeg encoder (qscale 3).

    sprite_pyav.py FILE INTERVAL OUT.jpg [--columns 10] [--width 160]

Prints one JSON line: tiles, frames decoded.
"""
from __future__ import annotations

import argparse
import json
from fractions import Fraction

import av
import numpy as np


def tile_times(stream, container, interval: float):
    """The tile times: the stream's first frame, then every `interval` seconds before its end
    (exact fractions of a second). Shared with sprite_floor.py."""
    tb = stream.time_base
    start = Fraction(stream.start_time or 0) * tb
    end = start + Fraction(stream.duration) * tb if stream.duration else Fraction(container.duration, 1000000)
    step = Fraction(interval).limit_denominator(1000)
    times, k = [], 0
    while start + step * k < end:
        times.append(start + step * k)
        k += 1
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("interval", type=float)
    ap.add_argument("out")
    ap.add_argument("--columns", type=int, default=10)
    ap.add_argument("--width", type=int, default=160)
    a = ap.parse_args()
    decoded = 0
    with av.open(a.file) as c:
        v = c.streams.video[0]
        tb = v.time_base
        w = a.width
        h = round(v.codec_context.height * w / v.codec_context.width)
        h += h % 2
        times = tile_times(v, c, a.interval)
        rows = (len(times) + a.columns - 1) // a.columns
        canvas = np.full((rows * h, min(a.columns, len(times)) * w, 3), 32, np.uint8)
        for i, t in enumerate(times):
            c.seek(int(t / tb), stream=v, backward=True, any_frame=False)
            v.codec_context.flush_buffers()  # the frames of the previous run are not this one's
            on_screen = None
            for frame in c.decode(v):
                decoded += 1
                if frame.pts is not None and frame.pts * tb > t:
                    break
                on_screen = frame
            if on_screen is None:
                continue
            tile = on_screen.reformat(width=w, height=h, format="rgb24", interpolation="BICUBIC").to_ndarray()
            x, y = (i % a.columns) * w, (i // a.columns) * h
            canvas[y:y + h, x:x + w] = tile
    enc = av.CodecContext.create("mjpeg", "w")
    enc.width, enc.height = canvas.shape[1], canvas.shape[0]
    enc.pix_fmt = "yuvj420p"
    enc.time_base = Fraction(1, 25)
    enc.options = {"qscale": "3"}
    enc.flags |= av.codec.context.Flags.qscale if hasattr(av.codec.context, "Flags") else 0
    frame = av.VideoFrame.from_ndarray(canvas, format="rgb24").reformat(format="yuvj420p")
    with open(a.out, "wb") as f:
        for p in enc.encode(frame) + enc.encode(None):
            f.write(bytes(p))
    print(json.dumps({"tiles": len(times), "frames_decoded": decoded}))


if __name__ == "__main__":
    main()
