#!/usr/bin/env python3
"""sprites_dask.py -- seek-preview sprite sheets for many files, spread over a Dask cluster.

    pip install 'dask[distributed]'             # plus fpx-seek (the Debian package, or make)
    python3 Examples/python/sprites_dask.py -o sheets/ a.mp4 b.mkv ...             # local cluster
    python3 Examples/python/sprites_dask.py --scheduler tcp://host:8786 -o /shared/sheets *.mp4
    python3 Examples/python/sprites_dask.py -o sheets/ --interval 5 --precision exact a.mp4

The unit of work is a file, as in frames_dask.py: one task per file runs `fpx-seek sprite`
(the keyframe mode by default: one keyframe decoded per tile, from the container's index)
into its own directory, OUT/<stem>-<n>/ (sprite.jpg, spritesheet.json, thumbnails.vtt), and
returns its JSON summary. Dask does the scheduling, retries and scaling.

Errors are per file: a file that cannot be opened, has no video, or whose sheet cannot be
written gives a :class:`SpriteResult` with ``error`` set (the tool's message) and the other
files' sheets are made as usual; ``catalogue`` never raises for one file's failure.

Every worker needs the `fpx-seek` tool (``cli=`` or $FPX_SEEK_CLI, default `fpx-seek` on
PATH) and must see the files (a shared file system, or URLs the tool can open) and OUT.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["SpriteResult", "sprite_for_file", "catalogue", "main"]


@dataclass(frozen=True)
class SpriteResult:
    """One file's sheet (picklable). ``summary`` is `fpx-seek sprite --json`'s object (None
    when the tool wrote nothing); ``error`` the reason when the sheet is missing or partial."""
    path: str
    output_dir: str
    summary: Optional[Dict[str, Any]]
    error: Optional[str]

    @property
    def ok(self) -> bool:
        return self.error is None


def sprite_for_file(path: str, output_dir: str, options: Sequence[str] = (),
                    cli: Optional[str] = None, timeout: float = 3600) -> SpriteResult:
    """The task: `fpx-seek sprite PATH -o OUTPUT_DIR --json OPTIONS...`. Never raises for the
    file's own failure (exit status 1, a timeout, a missing tool): the result says why."""
    tool = cli or os.environ.get("FPX_SEEK_CLI") or "fpx-seek"
    try:
        os.makedirs(output_dir, exist_ok=True)
        r = subprocess.run([tool, "sprite", path, "-o", output_dir, "--json", *options],
                           capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return SpriteResult(path, output_dir, None, f"{type(e).__name__}: {e}")
    summary: Optional[Dict[str, Any]] = None
    if r.stdout.strip():
        try:
            summary = json.loads(r.stdout)
        except ValueError:
            summary = None
    if r.returncode == 0:
        return SpriteResult(path, output_dir, summary, None)
    err = r.stderr.strip().splitlines()
    return SpriteResult(path, output_dir, summary,
                        err[-1] if err else f"fpx-seek sprite exited with status {r.returncode}")


def catalogue(client: Any, paths: Sequence[str], output_root: str, options: Sequence[str] = (),
              cli: Optional[str] = None) -> Dict[str, SpriteResult]:
    """Maps :func:`sprite_for_file` over ``paths`` on a ``dask.distributed.Client``, each into
    OUTPUT_ROOT/<stem>-<index>/, and gathers {path: SpriteResult}."""
    dirs = [str(Path(output_root) / f"{Path(p).stem or 'item'}-{i}") for i, p in enumerate(paths)]
    futures = client.map(sprite_for_file, list(paths), dirs, [list(options)] * len(paths),
                         [cli] * len(paths), pure=False)
    return dict(zip(paths, client.gather(futures)))


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--output", required=True, help="the directory the sheets go under")
    ap.add_argument("--scheduler", help="a Dask scheduler address (default: a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    ap.add_argument("--cli", help="the fpx-seek tool (default $FPX_SEEK_CLI, else fpx-seek on PATH)")
    a, rest = ap.parse_known_args(argv[1:])  # the rest goes to fpx-seek sprite (--interval 5 ...)
    import dask.distributed
    dist: Any = dask.distributed  # (dask's constructors are untyped)
    cluster = None if a.scheduler else dist.LocalCluster(n_workers=a.workers, threads_per_worker=1,
                                                         dashboard_address=None)
    with dist.Client(a.scheduler or cluster) as client:
        result = catalogue(client, a.files, a.output, rest, a.cli)
    if cluster is not None:
        cluster.close()
    failed = 0
    for path, r in result.items():
        if r.ok and r.summary is not None:
            print(f"{path}: {r.summary['tiles']} tiles -> {r.output_dir}")
        else:
            failed += 1
            print(f"{path}: failed: {r.error}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
