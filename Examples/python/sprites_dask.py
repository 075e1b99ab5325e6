#!/usr/bin/env python3
"""sprites_dask.py -- seek-preview sprite sheets for many files, spread over a Dask cluster.

    pip install 'dask[distributed]' 'fastpix-seek[frames]'
    python3 Examples/python/sprites_dask.py -o sheets/ a.mp4 b.mkv ...             # local cluster
    python3 Examples/python/sprites_dask.py --scheduler tcp://host:8786 -o /shared/sheets *.mp4
    python3 Examples/python/sprites_dask.py -o sheets/ --interval 5 --precision exact a.mp4

The unit of work is a file, as in frames_dask.py: one task per file calls
:func:`fastpix_seek.sprites.make_sprite_sheet` (the keyframe mode by default: one keyframe
decoded per tile, from the container's index) into its own directory, OUT/<stem>-<n>/
(sprite.jpg, spritesheet.json, thumbnails.vtt, as `fpx-seek sprite` writes them), and returns
what it wrote. Dask does the scheduling, retries and scaling.

Errors are per file: a file that cannot be opened, has no video, or whose sheet cannot be
made gives a :class:`SpriteResult` with ``error`` set (the exception's class and message) and
the other files' sheets are made as usual; ``catalogue`` never raises for one file's failure.

Every worker needs libfastpixseek.so.1 and the bindings with PyAV and numpy (the ``frames``
extra), and must see the files (a shared file system, or URLs a Player can open) and OUT.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from fastpix_seek.sprites import SpriteSheet, make_sprite_sheet

__all__ = ["SpriteResult", "sprite_for_file", "catalogue", "main"]


@dataclass(frozen=True)
class SpriteResult:
    """One file's sheet (picklable). ``sheet`` is what :func:`make_sprite_sheet` wrote (None
    when it failed); ``error`` the reason when it failed."""
    path: str
    output_dir: str
    sheet: Optional[SpriteSheet]
    error: Optional[str]

    @property
    def ok(self) -> bool:
        return self.error is None


def sprite_for_file(path: str, output_dir: str,
                    options: Optional[Mapping[str, Any]] = None) -> SpriteResult:
    """The task: ``make_sprite_sheet(path, output_dir, **options)``. Never raises for the
    file's own failure (a missing or damaged file, no video, a frame that cannot be decoded, a
    directory that cannot be written): the result says why."""
    try:
        sheet = make_sprite_sheet(path, output_dir, **dict(options or {}))
    except Exception as e:  # the file's failure, whatever it is, stays the file's
        return SpriteResult(path, output_dir, None, f"{type(e).__name__}: {e}")
    return SpriteResult(path, output_dir, sheet, None)


def catalogue(client: Any, paths: Sequence[str], output_root: str,
              options: Optional[Mapping[str, Any]] = None) -> Dict[str, SpriteResult]:
    """Maps :func:`sprite_for_file` over ``paths`` on a ``dask.distributed.Client``, each into
    OUTPUT_ROOT/<stem>-<index>/, and gathers {path: SpriteResult}."""
    dirs = [str(Path(output_root) / f"{Path(p).stem or 'item'}-{i}") for i, p in enumerate(paths)]
    futures = client.map(sprite_for_file, list(paths), dirs, [dict(options or {})] * len(paths),
                         pure=False)
    return dict(zip(paths, client.gather(futures)))


def _precision(text: str) -> Dict[str, Any]:
    """--precision keyframe[:TOL] | exact, as `fpx-seek sprite` spells it."""
    kind, _, tol = text.partition(":")
    if kind not in ("keyframe", "exact") or (tol and kind != "keyframe"):
        raise argparse.ArgumentTypeError("keyframe[:TOL] or exact")
    return {"precision": kind, **({"keyframe_tolerance": Fraction(tol)} if tol else {})}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", required=True, help="the directory the sheets go under")
    ap.add_argument("--scheduler", help="a Dask scheduler address (default: a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--interval", type=Fraction, help="seconds between tiles")
    g.add_argument("--tiles", type=int, help="tiles over the duration")
    ap.add_argument("--width", type=int, default=160, help="tile width (default 160)")
    ap.add_argument("--height", type=int, help="tile height (default: in proportion)")
    ap.add_argument("--columns", type=int, default=10, help="tiles per row (default 10)")
    ap.add_argument("--format", choices=("jpeg", "png"), default="jpeg")
    ap.add_argument("--quality", type=int, default=3, help="JPEG qscale, 2 best ... 31 (default 3)")
    ap.add_argument("--precision", type=_precision, default={"precision": "keyframe"},
                    help="keyframe[:TOL] (default) or exact")
    ap.add_argument("--max-rows", type=int, help="rows per image")
    a = ap.parse_args(argv[1:])
    options: Dict[str, Any] = {"interval": a.interval, "tiles": a.tiles, "tile_width": a.width,
                               "tile_height": a.height, "columns": a.columns,
                               "image_format": a.format, "quality": a.quality,
                               "max_rows": a.max_rows, **a.precision}
    import dask.distributed
    dist: Any = dask.distributed  # (dask's constructors are untyped)
    cluster = None if a.scheduler else dist.LocalCluster(n_workers=a.workers, threads_per_worker=1,
                                                         dashboard_address=None)
    with dist.Client(a.scheduler or cluster) as client:
        result = catalogue(client, a.files, a.output, options)
    if cluster is not None:
        cluster.close()
    failed = 0
    for path, r in result.items():
        if r.ok and r.sheet is not None:
            print(f"{path}: {len(r.sheet.tiles)} tiles -> {r.output_dir}")
        else:
            failed += 1
            print(f"{path}: failed: {r.error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
