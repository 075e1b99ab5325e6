#!/usr/bin/env python3
"""The least decoding an exact sprite sheet needs, done by libavcodec through PyAV: the floor
`fpx-seek sprite --precision exact` is measured against in Benchmarks/sprite_bench.py.

For each tile time t (the first frame, then every INTERVAL seconds) the tile shows the frame
on screen at t: the last frame whose pts is at or before t. Knowing every packet in advance
(one demux pass, not counted as decoding), this recipe sends the decoder only what those
frames need: in each GOP that holds a tile's frame, the packets from its keyframe to the last
such frame's packet, with `skip_frame` NONREF on every packet that is not a tile's frame (a
non-reference frame is never needed by another), and nothing of a GOP without a tile. It
makes no picture (no scaling, no JPEG): what is left is the decoding alone. A tile frame that
is a leading frame of an open GOP (shown before its keyframe) would need the previous GOP's
references; the recipe refuses such a file rather than guess.

    sprite_floor.py FILE INTERVAL [--threads N] [--check]

`--check` decodes the whole file again with nothing skipped and compares every tile frame's
planes with that decode (ground truth: libavcodec with every frame), and fails on any
difference. Prints one JSON line: tiles, frames decoded, packets sent, and with --check the
tiles that matched.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys

import av

from sprite_pyav import tile_times


def digest(frame) -> str:
    return hashlib.md5(frame.to_ndarray(format="yuv420p").tobytes()).hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("interval", type=float)
    ap.add_argument("--threads", type=int, default=0, help="decoding threads (0: one per core, frame threads)")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()

    with av.open(a.file) as c:
        v = c.streams.video[0]
        tb = v.time_base
        packets = [p for p in c.demux(v) if p.size > 0]
        times = tile_times(v, c, a.interval)
        shown = sorted(p.pts for p in packets if p.pts is not None)
        # The frame on screen at each tile time (the first frame for a time before it).
        targets = set()
        for t in times:
            on = [q for q in shown if q * tb <= t]
            targets.add(on[-1] if on else shown[0])
        index_of = {p.pts: i for i, p in enumerate(packets)}
        keys = [i for i, p in enumerate(packets) if p.is_keyframe]
        if not keys or keys[0] != 0:
            print("sprite_floor: the first packet is not a keyframe", file=sys.stderr)
            return 2
        # GOP g: packets keys[g] .. keys[g+1]-1 in decode order; the last tile packet in it.
        need = {}
        for q in targets:
            i = index_of[q]
            g = max(k for k, s in enumerate(keys) if s <= i)
            if q < packets[keys[g]].pts:
                print(f"sprite_floor: tile frame pts {q} is a leading frame of an open GOP", file=sys.stderr)
                return 2
            need[g] = max(need.get(g, -1), i)

        cc = v.codec_context
        cc.thread_type = "FRAME"
        cc.thread_count = a.threads
        got = {}
        decoded = sent = 0
        for g in sorted(need):
            for i in range(keys[g], need[g] + 1):
                p = packets[i]
                cc.skip_frame = "DEFAULT" if p.pts in targets else "NONREF"
                sent += 1
                for f in cc.decode(p):
                    decoded += 1
                    if f.pts in targets:
                        got[f.pts] = digest(f) if a.check else True
            for f in cc.decode(None):   # drain: the GOP's last tile frame may still be inside
                decoded += 1
                if f.pts in targets:
                    got[f.pts] = digest(f) if a.check else True
            cc.flush_buffers()
        missing = targets - set(got)
        if missing:
            print(f"sprite_floor: {len(missing)} tile frames never came out: {sorted(missing)[:5]}", file=sys.stderr)
            return 1

    result = {"tiles": len(times), "frames_decoded": decoded, "packets_sent": sent, "packets": len(packets)}
    if a.check:
        matched = 0
        with av.open(a.file) as c:
            for f in c.decode(video=0):
                if f.pts in got:
                    if digest(f) != got[f.pts]:
                        print(f"sprite_floor: tile frame pts {f.pts} differs from the full decode", file=sys.stderr)
                        return 1
                    matched += 1
        if matched != len(got):
            print(f"sprite_floor: {matched} of {len(got)} tile frames found in the full decode", file=sys.stderr)
            return 1
        result["matched"] = matched
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
