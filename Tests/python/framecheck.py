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
import subprocess
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


def make_hevc_opengop(out: str) -> str:
    """3 s of 160x96 HEVC with x265's open GOPs (CRA + RASL pictures), B-pyramid, GOP of 24:
    the open-GOP HEVC case of the frame tests (about a second to encode)."""
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=160x96:rate=25:duration=3", "-c:v", "libx265",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-x265-params",
                    "log-level=error:keyint=24:min-keyint=24:scenecut=0:open-gop=1:bframes=3:"
                    "b-pyramid=1:pools=1:frame-threads=1", out], check=True, timeout=120)
    return out


def pts_list(path: str) -> List[int]:
    return [p for p, _ in frame_md5s(path)]
