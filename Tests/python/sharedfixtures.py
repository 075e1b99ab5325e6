"""What both pytest trees (Tests/python and Bindings/python/tests) set up the same way: the
media fixtures, the library under test and C hosts compiled against it. Each tree's conftest
imports the fixtures from here (pytest registers a fixture where it is imported), so there
is one definition of each.

* library_path(): $FASTPIX_SEEK_LIBRARY, else $FPX_LIB, else build/lib/libfastpixseek.so.1
  (`make lib`; not built here).
* fixtures_dir: $FPX_FIXTURES, else Tests/fixtures/out; Tests/fixtures/make-fixtures.sh is run
  when a fixture listed there (or its fixtures.txt) is missing (it is idempotent).
* library: library_path(), which must exist.
* compile_host(): a C host (Tests/c/*.c) built strictly against the header and the library.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Sequence

import pytest

from groundtruth import ERROR_FIXTURES, MEDIA_FIXTURES

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "Include"
MAKE_FIXTURES = REPO / "Tests" / "fixtures" / "make-fixtures.sh"


def library_path() -> Path:
    env = os.environ.get("FASTPIX_SEEK_LIBRARY") or os.environ.get("FPX_LIB")
    return Path(env) if env else REPO / "build" / "lib" / "libfastpixseek.so.1"


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    d = Path(os.environ.get("FPX_FIXTURES") or REPO / "Tests" / "fixtures" / "out")
    wanted = MEDIA_FIXTURES + ERROR_FIXTURES + ["fixtures.txt"]
    if not all((d / n).is_file() for n in wanted):
        proc = subprocess.run(["bash", str(MAKE_FIXTURES), str(d)], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            pytest.fail(f"make-fixtures.sh {d} failed (exit {proc.returncode}):\n"
                        f"{proc.stderr}", pytrace=False)
    missing = [n for n in wanted if not (d / n).is_file()]
    if missing:
        pytest.fail(f"fixtures missing in {d}: {missing}", pytrace=False)
    return d


@pytest.fixture(scope="session")
def library() -> Path:
    lib = library_path()
    if not lib.is_file():
        pytest.fail(f"{lib} does not exist: build the library first (`make lib` in {REPO}) "
                    f"or set FASTPIX_SEEK_LIBRARY; the test runner builds it before running "
                    f"these tests", pytrace=False)
    return lib


def compile_host(src: Path, library: Path, out: Path, libs: Sequence[str] = ()) -> Path:
    """Compiles `src` to `out` with -std=c99 -Wall -Wextra -Werror -pedantic against the
    header and `library` (found at run time through its rpath); `libs` are further -l flags.
    -lfastpixseek needs the unversioned name: one is made next to `out` when the library's
    directory has none (the Makefile makes build/lib/libfastpixseek.so)."""
    libdir = library.parent
    linkdir = libdir
    if not (libdir / "libfastpixseek.so").exists():
        linkdir = out.parent
        if not (linkdir / "libfastpixseek.so").exists():
            (linkdir / "libfastpixseek.so").symlink_to(library)
    cmd = [os.environ.get("CC", "cc"), "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
           f"-I{INCLUDE}", str(src), f"-L{linkdir}", "-lfastpixseek", "-lpthread",
           *[f"-l{lib}" for lib in libs], f"-Wl,-rpath,{libdir}", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"compiling {src.name} failed:\n{shlex.join(cmd)}\n{proc.stderr}",
                    pytrace=False)
    return out
