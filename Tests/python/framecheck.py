"""Ground truth for decoded frames (issue 21.4-21.6): ffmpeg's own decode of every frame of a
file (framemd5 of the raw decoder output, in presentation order), keyed by pts through
ffprobe's frame list, and the same md5 computed from a PyAV frame or from raw planes.

Used by test_frames.py, test_dask_recipe.py, test_cli.py (fpx-seek frame) and
Benchmarks/frame_bench.py.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import subprocess
from fractions import Fraction
from typing import Any, Dict, List, Tuple


@functools.lru_cache(maxsize=None)
def frame_md5s(path: str) -> Tuple[Tuple[int, str], ...]:
    """(pts, md5 of the decoded picture) for every frame ffmpeg decodes from the first video
    stream, in presentation order. The pts are ffprobe's (stream time base); the md5s are
    ffmpeg's framemd5 of the decoder's own pixel format (no conversion, no frame-rate
    change)."""
    out = subprocess.check_output(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0",
                                   "-fps_mode", "passthrough", "-f", "framemd5", "-"], text=True)
    md5 = [line.rsplit(",", 1)[1].strip() for line in out.splitlines()
           if line and not line.startswith("#")]
    probe = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "frame=pts,best_effort_timestamp", "-of", "json", path], text=True))
    pts = sorted(int(f.get("pts", f.get("best_effort_timestamp"))) for f in probe["frames"])
    if len(pts) != len(md5):
        raise RuntimeError(f"{path}: ffprobe lists {len(pts)} frames, ffmpeg decoded {len(md5)}")
    return tuple(zip(pts, md5))


def md5_by_pts(path: str) -> Dict[int, str]:
    return dict(frame_md5s(path))


def frame_md5(frame: Any) -> str:
    """framemd5's hash of a PyAV VideoFrame: its planes, row by row, without padding."""
    m = hashlib.md5()
    for p in frame.planes:
        b = bytes(p)
        width = _row_bytes(frame, p)
        for y in range(p.height):
            m.update(b[y * p.line_size:y * p.line_size + width])
    return m.hexdigest()


def _row_bytes(frame: Any, plane: Any) -> int:
    """Bytes of picture in one row of a plane (8-bit formats: the plane width; 16-bit: twice)."""
    name = frame.format.name
    wide = any(name.endswith(s) for s in ("p10le", "p10be", "p12le", "p16le", "le", "be"))
    return plane.width * (2 if wide else 1)


def pyav_decode_and_skip(path: str, stream: int, t_stream: Fraction, seek: bool) -> Tuple[int, str]:
    """PyAV's recipe for "the frame at t" (t in the stream's pts seconds): seek backward to t
    (unless `seek` is false), decode, skip frames before t; (pts, md5 of its pixels)."""
    import av  # the callers skip without PyAV
    with av.open(path) as c:
        s = c.streams[stream]
        tb = Fraction(s.time_base.numerator, s.time_base.denominator)
        target = t_stream / tb
        if seek:
            c.seek(math.floor(target), stream=s, backward=True)
        for f in c.decode(s):
            if f.pts is not None and f.pts >= target:
                return f.pts, frame_md5(f)
    raise AssertionError("no frame at or after the target")


def pts_list(path: str) -> List[int]:
    return [p for p, _ in frame_md5s(path)]
