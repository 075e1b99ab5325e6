"""Examples/ (issue 13): built and run as a user would, the written frames checked against
ffprobe (frame time) and ffmpeg's own decode (pixels) by Tests/packaging/check_landed_frame.py.

* Examples/c/decode_landing.c, built with nothing but
  `pkg-config --cflags --libs fastpixseek libavcodec libavutil libswscale` (the build tree's
  fastpixseek-uninstalled.pc here; Tests/packaging/test-debian.sh builds it against the
  installed Debian packages);
* Examples/python/decode_landing.py (PyAV decoding), scrub.py and frame_step.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from sharedfixtures import REPO

sys.path.insert(0, str(REPO / "Tests" / "packaging"))
import check_landed_frame  # noqa: E402
import groundtruth  # noqa: E402

EXAMPLES = REPO / "Examples"


def _assert_frame(media: Path, target, image: Path) -> None:
    results = check_landed_frame.check(str(media), str(target), str(image))
    bad = [m for ok, m in results if not ok]
    assert not bad, bad
    assert len(results) == 2


@pytest.fixture(scope="module")
def c_example(library, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("c-example")
    env = {**os.environ, "PKG_CONFIG_PATH": str(library.parent)}
    # The build tree's .pc is fastpixseek-uninstalled.pc; pkg-config picks it up for the
    # plain name fastpixseek, exactly as an install's fastpixseek.pc would be.
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fastpixseek", "libavcodec", "libavutil", "libswscale"],
                           env=env, capture_output=True, text=True, check=True).stdout.split()
    exe = d / "decode_landing"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    str(EXAMPLES / "c" / "decode_landing.c"), "-o", str(exe), *flags],
                   check=True, capture_output=True, text=True)
    return exe


@pytest.mark.parametrize("name,target", [("mp4_bframes.mp4", "5/2"), ("ts.ts", "3.7"),
                                         ("mkv.mkv", "7001/1000"), ("mp4_editlist.mp4", "1.3")])
def test_c_decode_landing(c_example, library, fixtures_dir, tmp_path, name, target):
    out = tmp_path / "frame.ppm"
    proc = subprocess.run([str(c_example), str(fixtures_dir / name), target, str(out)],
                          env={"LD_LIBRARY_PATH": str(library.parent), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert re.match(r"requested \S+ s: landed on frame pts \d+ ", proc.stdout), proc.stdout
    _assert_frame(fixtures_dir / name, target, out)


def _run_py(library: Path, script: str, *args: str) -> str:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/tmp"),
           "PYTHONPATH": str(REPO / "Bindings" / "python"), "FASTPIX_SEEK_LIBRARY": str(library)}
    proc = subprocess.run([sys.executable, str(EXAMPLES / "python" / script), *args], env=env,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("name,target", [("mp4_bframes.mp4", "5/2"), ("mkv.mkv", "7001/1000"),
                                         ("mp4_editlist.mp4", "1.3")])
def test_python_decode_landing(library, fixtures_dir, tmp_path, name, target):
    out = tmp_path / "frame.ppm"
    _run_py(library, "decode_landing.py", str(fixtures_dir / name), target, str(out))
    _assert_frame(fixtures_dir / name, target, out)


def test_python_scrub(library, fixtures_dir, tmp_path):
    out = tmp_path / "scrub.ppm"
    text = _run_py(library, "scrub.py", str(fixtures_dir / "ts.ts"), "1", "4.5", str(out))
    assert re.match(r"120 samples, 1 seek: ", text), text
    _assert_frame(fixtures_dir / "ts.ts", "4.5", out)


def test_python_frame_step(library, fixtures_dir, tmp_path):
    media = fixtures_dir / "mp4_vfr.mp4"
    out = tmp_path / "step.ppm"
    text = _run_py(library, "frame_step.py", str(media), "3.9", "4", str(out))
    gt = groundtruth.load(str(media))
    start = gt.frame_index(gt.covering(Fraction(39, 10)).pts)
    want = [start + 1, start + 2, start + 3, start + 4, start + 3]
    got = [int(m) for m in re.findall(r"^step \w+: \S+ \(pts (-?\d+)\)$", text, re.M)]
    assert got == [gt.frames[i].pts for i in want], text
    final = gt.to_item(gt.frames[want[-1]].pts)
    _assert_frame(media, final, out)
