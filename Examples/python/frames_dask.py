#!/usr/bin/env python3
"""frames_dask.py -- the frames at given times of many files, spread over a Dask cluster.

    pip install 'dask[distributed]' av          # plus fastpix_seek (Bindings/python)
    python3 Examples/python/frames_dask.py --times 1,2.5,7 a.mp4 b.mkv ...        # local cluster
    python3 Examples/python/frames_dask.py --scheduler tcp://host:8786 --times 10 *.mp4

A catalogue job (a thumbnail strip per file, frames for a model, a QC sheet) outgrows one
machine long before one file outgrows one worker, so the unit of work is a file: one task per
file opens one :class:`fastpix_seek.Player` and calls :meth:`Player.iter_frames_in_time_order`
with all of that file's times (sorted, so the decoder continues forward inside a GOP; each
decoded frame is converted and dropped before the next, so only the arrays of the result stay). Dask
(``dask.distributed``) does everything else -- scheduling, retries, moving results, scaling
from a ``LocalCluster`` to many machines -- so nothing here is home-made distribution.

Every worker needs libfastpixseek.so.1 and the bindings (the Debian packages, or the wheel
from ``make wheel``, which carries the library) and PyAV, and must see the files at the same
paths (a shared file system) or reach them by URL (http/https work as they do in a Player).

What comes back per frame is a :class:`FrameRecord`: the requested and landed times, the
landed pts, whether the frame covers the target, and the picture as a numpy array (the
decoder's own format by default, ``yuv420p`` for most video, planes stacked as PyAV's
``to_ndarray`` gives them; or ``rgb24`` and a size for thumbnails), because PyAV frames do
not travel between processes. ``frames_for_file`` is the task; ``catalogue`` maps it.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

from fastpix_seek import Player, SeekPrecision

__all__ = ["FrameRecord", "frames_for_file", "catalogue", "main"]


@dataclass(frozen=True)
class FrameRecord:
    """One frame of the catalogue (picklable: plain values and a numpy array)."""
    path: str
    requested: Fraction
    landed_time: Optional[Fraction]
    pts: int
    covers_target: bool
    format: str
    #: The picture, as ``av.VideoFrame.to_ndarray()`` gives it in ``format``.
    image: Any


def frames_for_file(path: str, times: Sequence[Any], format: Optional[str] = None,
                    width: Optional[int] = None, height: Optional[int] = None,
                    exact: bool = True) -> List[FrameRecord]:
    """The task: the frames of one file at ``times`` (any order; answered in that order).
    ``format``/``width``/``height`` convert the picture (PyAV's ``reformat``); by default it
    stays in the decoder's format and size. ``exact=False`` takes the nearest keyframe within
    1/10 s instead (cheaper, no decoding past the keyframe)."""
    precision = SeekPrecision.exact() if exact else SeekPrecision.nearest_keyframe(Fraction(1, 10))
    out: List[Optional[FrameRecord]] = [None] * len(times)
    with Player(path) as player:
        player.wait_item(timeout=30)
        for i, r in player.iter_frames_in_time_order(times, precision):
            frame = r.frame
            if format is not None or width is not None or height is not None:
                frame = frame.reformat(width=width, height=height, format=format)
            out[i] = FrameRecord(path, r.requested, r.time, r.pts,
                                 r.outcome.frame_covers_target, frame.format.name,
                                 frame.to_ndarray())
    return [rec for rec in out if rec is not None]


def catalogue(client: Any, jobs: Sequence[Tuple[str, Sequence[Any]]],
              **options: Any) -> Dict[str, List[FrameRecord]]:
    """Maps :func:`frames_for_file` over ``jobs`` ((path, times) pairs) on a
    ``dask.distributed.Client`` and gathers the results: {path: [FrameRecord, ...]}.
    ``options`` go to frames_for_file. A task that fails raises here (Dask re-raises the
    worker's exception); ``client.map`` retries are Dask's (``retries=``)."""
    paths = [p for p, _ in jobs]
    futures = client.map(frames_for_file, paths, [list(t) for _, t in jobs],
                         pure=False, **options)
    return dict(zip(paths, client.gather(futures)))


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--times", required=True, help="comma-separated times in seconds (92.5 or 1001/30000)")
    ap.add_argument("--scheduler", help="a Dask scheduler address (default: a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    a = ap.parse_args(argv[1:])
    import dask.distributed
    dist: Any = dask.distributed  # (dask's constructors are untyped)
    times = [Fraction(t) for t in a.times.split(",")]
    cluster = None if a.scheduler else dist.LocalCluster(n_workers=a.workers, threads_per_worker=1,
                                                         dashboard_address=None)
    with dist.Client(a.scheduler or cluster) as client:
        result = catalogue(client, [(f, times) for f in a.files])
    if cluster is not None:
        cluster.close()
    for path, records in result.items():
        for r in records:
            print(f"{path}: requested {r.requested} s -> pts {r.pts} ({r.landed_time} s, covers "
                  f"target {r.covers_target}), {r.format} {r.image.shape}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
