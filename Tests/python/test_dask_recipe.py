"""Examples/python/frames_dask.py (issue 21.5): frames_at mapped over several files with
dask.distributed on a LocalCluster of 2 workers (in-process, threads), every frame checked
against ffmpeg's own decode (framemd5), and the command line run once with 2 small worker
processes. dask[distributed] is in build/venv (tools/deps.sh --test); without it the test is
skipped with the reason (Debian's python3 has no dask)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from sharedfixtures import REPO
import framecheck
import groundtruth as gtm

sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(REPO / "Examples" / "python"))

pytest.importorskip("av")
distributed = pytest.importorskip("dask.distributed")


def test_catalogue_on_a_local_cluster(fixtures_dir, library):
    import frames_dask
    files = [fixtures_dir / n for n in ("mp4_bframes.mp4", "mkv.mkv", "mp4_opengop.mp4")]
    times = [Fraction(71, 10), Fraction(1, 2), Fraction(3), Fraction(29, 10), Fraction(11)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        result = frames_dask.catalogue(client, [(str(f), times) for f in files])
        # the thumbnail form: rgb24 at a given size
        thumbs = frames_dask.catalogue(client, [(str(files[0]), times[:2])],
                                       format="rgb24", width=80, height=60)
    assert sorted(result) == sorted(str(f) for f in files)
    for f in files:
        gt = gtm.load(str(f))
        md5 = framecheck.md5_by_pts(str(f))
        recs = result[str(f)]
        assert [r.requested for r in recs] == times
        for r in recs:
            assert r.pts == gt.covering(r.requested).pts and r.covers_target
            assert r.format == "yuv420p"
            assert hashlib.md5(r.image.tobytes()).hexdigest() == md5[r.pts], (f.name, r.requested)
    th = thumbs[str(files[0])]
    assert [r.image.shape for r in th] == [(60, 80, 3)] * 2 and th[0].format == "rgb24"


def test_command_line_with_worker_processes(fixtures_dir, library):
    env = {**os.environ, "PYTHONPATH": str(REPO / "Bindings" / "python"),
           "FASTPIX_SEEK_LIBRARY": str(library)}
    f = fixtures_dir / "mp4_bframes.mp4"
    proc = subprocess.run([sys.executable, str(REPO / "Examples" / "python" / "frames_dask.py"),
                           "--workers", "2", "--times", "1,5/2", str(f)],
                          env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    gt = gtm.load(str(f))
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    for line, t in zip(lines, (Fraction(1), Fraction(5, 2))):
        assert f"requested {t} s -> pts {gt.covering(t).pts} " in line and "yuv420p" in line


def test_sprite_catalogue_isolates_each_files_errors(fixtures_dir, library, tmp_path):
    """Examples/python/sprites_dask.py (issue 30.4): one task per file, each a
    fastpix_seek.sprites.make_sprite_sheet; every sheet's tiles are ffmpeg's pictures of the
    frames they claim (sheetcheck) and its JSON reads back with the SDK's rule through a
    Player's preview; a file that fails (garbage, a missing path, no video) gives its error and
    does not stop the others."""
    import json
    import sheetcheck as sc
    import sprites_dask
    from fastpix_seek import Player, PreviewKind
    good = [fixtures_dir / n for n in ("mp4_bframes.mp4", "mkv.mkv")]
    bad = [fixtures_dir / "garbage.bin", tmp_path / "missing.mp4", fixtures_dir / "audio.m4a"]
    paths = [str(p) for p in good[:1] + bad[:1] + good[1:] + bad[1:]]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        result = sprites_dask.catalogue(client, paths, str(tmp_path / "out"),
                                        {"interval": 1, "image_format": "png"})
    assert sorted(result) == sorted(paths)
    for f, why in zip(bad, ("", "MediaNotFoundError", "ValueError")):
        r = result[str(f)]
        assert not r.ok and r.sheet is None and r.error and r.error.startswith(why), r
    for f in good:
        r = result[str(f)]
        assert r.ok and r.sheet is not None and len(r.sheet.tiles) >= 3, r
        out = Path(r.output_dir)
        assert sc.check_sprite(f, out, sc.summary_of(r.sheet), jpeg=False,
                               frames=sc.frames_scaled_by_pyav(f, r.sheet.tile_width, r.sheet.tile_height)
                               ) == len(r.sheet.tiles)
        sheet = json.loads((out / "spritesheet.json").read_text())
        with Player(f) as p:
            p.wait_item(timeout=30)
            p.set_preview_source(PreviewKind.SPRITESHEET, out / "spritesheet.json")
            for tile in sheet["tiles"]:
                pv = p.preview(Fraction(tile["start"]) + Fraction(1, 1000))
                assert pv.rect[:2] == (tile["x"], tile["y"])


def test_sprite_command_line(fixtures_dir, library, tmp_path):
    """sprites_dask.py's command line (one in-process worker here: a LocalCluster of
    processes costs seconds): the tool's options, a line per file, status 1 when one failed."""
    import sprites_dask
    media = fixtures_dir / "mp4_bframes.mp4"
    argv = ["sprites_dask.py", "--workers", "1", "-o", str(tmp_path / "out"), "--interval", "2",
            "--precision", "keyframe:1/2", "--width", "64", str(media), str(tmp_path / "missing.mp4")]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        argv[1:1] = ["--scheduler", cluster.scheduler_address]
        assert sprites_dask.main(argv) == 1
    out = tmp_path / "out" / "mp4_bframes-0"
    sheet = json.loads((out / "spritesheet.json").read_text())
    assert sheet["tile_width"] == 64 and sheet["url"] == "sprite.jpg" and len(sheet["tiles"]) >= 3
