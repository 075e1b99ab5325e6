"""How an installed fastpix_seek finds libfastpixseek.so.1 (issue 13), in fresh processes.

Each check runs a new interpreter with a minimal environment (no FASTPIX_SEEK_LIBRARY, no
LD_LIBRARY_PATH unless stated, cwd outside the checkout) on an *installed* copy of the
package, and asks it which file it loaded (the binding's library_path, cross-checked with
/proc/self/maps) and which lookup step found it (library_found_by):

* the wheel from `make wheel-system` (setuptools' bdist_wheel through `pip wheel`, METADATA
  from pyproject.toml) carries the library as package data and loads that copy first, even when
  LD_LIBRARY_PATH offers another one;
* `pip install Bindings/python`, with the library installed by `make install` under a
  prefix the loader does not search, finds it through `pkg-config --variable=libdir`.

The system-wide cases (the Debian package in the ld cache, /usr/local after `make install`
with and without ldconfig) need root and run in Tests/packaging/test-debian.sh.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from sharedfixtures import REPO

# The package version, as pyproject.toml declares it (one source: it must match the header).
VERSION = next(line.split("\"")[1] for line in (REPO / "Bindings/python/pyproject.toml").read_text().splitlines()
               if line.startswith("version = "))

PROBE = r"""
import json, sys
from fractions import Fraction
import fastpix_seek
from fastpix_seek import _lib, Player, SeekPrecision
maps = [l.split()[-1] for l in open("/proc/self/maps") if "libfastpixseek" in l]
landed = None
if len(sys.argv) > 1:
    with Player(sys.argv[1]) as p:
        p.wait_item(timeout=10)
        landed = str(p.seek_and_wait(Fraction(5, 2), SeekPrecision.exact()).landed_time)
print(json.dumps({"module": fastpix_seek.__file__, "path": _lib.library_path,
                  "found_by": _lib.library_found_by, "maps": sorted(set(maps)),
                  "landed": landed}))
"""


def _run(python: str, cwd: Path, env: dict, *args: str) -> dict:
    base = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "LANG": "C.UTF-8"}
    base.update(env)
    proc = subprocess.run([python, "-c", PROBE, *args], cwd=cwd, env=base,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _expected_landing(fixtures_dir: Path) -> str:
    import groundtruth
    from fractions import Fraction
    gt = groundtruth.load(str(fixtures_dir / "mp4_bframes.mp4"))
    return str(gt.to_item(gt.covering(Fraction(5, 2)).pts))


def _pyproject() -> dict:
    try:
        import tomllib  # Python 3.11
    except ImportError:  # pragma: no cover
        pytest.skip("tomllib needs Python 3.11")
    return tomllib.loads((REPO / "Bindings/python/pyproject.toml").read_text())["project"]


def test_wheel_carries_the_library_and_loads_it_first(tmp_path, library, fixtures_dir):
    out = subprocess.run(["make", "-s", "-C", str(REPO), "wheel-system", f"PYTHON={sys.executable}",
                          "PIP_WHEEL_FLAGS=--no-build-isolation --no-index"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    wheel = Path(REPO / out.stdout.strip().splitlines()[-1])
    plat = sysconfig.get_platform().replace("-", "_")
    assert wheel.name == f"fastpix_seek-{VERSION}-py3-none-{plat}.whl"
    assert not (REPO / "build" / "wheel-system" / "src").exists()
    import zipfile
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        meta = z.read(f"fastpix_seek-{VERSION}.dist-info/METADATA").decode()
        wheel_file = z.read(f"fastpix_seek-{VERSION}.dist-info/WHEEL").decode()
    # setuptools wrote it, from pyproject.toml: every field there is in METADATA.
    # (the wheel package's bdist_wheel writes "bdist_wheel", setuptools 70.1 and newer their own)
    assert re.search(r"^Generator: (bdist_wheel|setuptools) ", wheel_file, re.M), wheel_file
    assert "Root-Is-Purelib: false" in wheel_file
    project = _pyproject()
    assert f"Name: {project['name']}\n" in meta and f"Version: {project['version']}\n" in meta
    assert f"Summary: {project['description']}\n" in meta
    assert f"Requires-Python: {project['requires-python']}\n" in meta
    for extra, reqs in project["optional-dependencies"].items():
        assert f"Provides-Extra: {extra}\n" in meta
    assert all(f"Classifier: {c}\n" in meta for c in project["classifiers"])
    assert "fastpix_seek/libfastpixseek.so.1" in names and "fastpix_seek/py.typed" in names
    assert {"fastpix_seek/" + p.name for p in (REPO / "Bindings/python/fastpix_seek").glob("*.py")} <= set(names)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(target), str(wheel)], check=True, capture_output=True)
    bundled = target / "fastpix_seek" / "libfastpixseek.so.1"
    assert bundled.is_file()
    # Another copy on LD_LIBRARY_PATH (the system loader's first choice) must lose.
    info = _run(sys.executable, tmp_path, {"PYTHONPATH": str(target),
                                           "LD_LIBRARY_PATH": str(library.parent)},
                str(fixtures_dir / "mp4_bframes.mp4"))
    assert info["module"] == str(target / "fastpix_seek" / "__init__.py")
    assert info["found_by"] == "bundled in the package"
    assert info["path"] == str(bundled)
    assert info["maps"] == [str(bundled)]
    assert info["landed"] == _expected_landing(fixtures_dir)


def _residue() -> set:
    src = REPO / "Bindings" / "python"
    return {p.name for p in src.iterdir() if p.name == "build" or p.name.endswith(".egg-info")}


def test_pip_install_finds_a_make_install_prefix_through_pkg_config(tmp_path, fixtures_dir):
    system_python = "/usr/bin/python3"
    # pip install of the source tree, offline, with the pip and setuptools of the interpreter
    # running the tests (a venv's: Debian's python3 may have no pip, and PEP 668 refuses it).
    target = tmp_path / "site"
    before = _residue()
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "--no-index", "--target", str(target),
                           str(REPO / "Bindings" / "python")],
                          capture_output=True, text=True, env={**os.environ, "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert not list(target.glob("fastpix_seek/libfastpixseek.so*"))
    # setuptools' build/ and egg-info went to a scratch folder, not into the checkout.
    assert _residue() == before, _residue() - before
    prefix = tmp_path / "prefix"
    subprocess.run(["make", "-s", "-C", str(REPO), "install", f"PREFIX={prefix}"], check=True,
                   capture_output=True)
    libdirs = list(prefix.glob("lib*/**/libfastpixseek.so.1"))
    assert len(libdirs) == 1
    lib = libdirs[0]
    pc_dir = lib.parent / "pkgconfig"
    assert (pc_dir / "fastpixseek.pc").is_file()
    # The loader does not search the prefix: without pkg-config the import fails ...
    base = {"PYTHONPATH": str(target)}
    env_nopc = {**base, "PATH": str(tmp_path / "nobin")}
    (tmp_path / "nobin").mkdir()
    proc = subprocess.run([system_python, "-c", "import fastpix_seek"], cwd=tmp_path,
                          env={"HOME": str(tmp_path), **env_nopc}, capture_output=True, text=True)
    if proc.returncode == 0:
        pytest.fail("fastpix_seek imported with no library reachable: a system copy is installed? "
                    + proc.stdout + proc.stderr)
    assert "cannot find libfastpixseek.so.1" in proc.stderr
    # The ImportError lists every place the lookup looked, the prefix's pkg-config included.
    for step in ("$FASTPIX_SEEK_LIBRARY: not set", "bundled in the package: no ", "system loader (",
                 "ctypes.util.find_library('fastpixseek')", "pkg-config --variable=libdir fastpixseek: no pkg-config",
                 "install directory: no /usr/local/lib", "project build folder: no build/lib/libfastpixseek.so.1"):
        assert step in proc.stderr, (step, proc.stderr)
    # ... and with PKG_CONFIG_PATH naming the prefix it loads the prefix's copy.
    info = _run(system_python, tmp_path, {**base, "PKG_CONFIG_PATH": str(pc_dir)},
                str(fixtures_dir / "mp4_bframes.mp4"))
    assert info["found_by"] == "pkg-config libdir"
    assert info["path"] == str(lib)
    assert info["maps"] == [str(lib)]
    assert info["landed"] == _expected_landing(fixtures_dir)
