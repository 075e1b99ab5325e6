"""Session fixtures for the FastPixSeek landing tests.

* fixtures_dir: $FPX_FIXTURES, else Tests/fixtures/out; Tests/fixtures/make-fixtures.sh is run
  when a fixture listed there is missing (it is idempotent).
* library: build/lib/libfastpixseek.so.1 (or $FPX_LIB). Not built here: `make lib` first.
* landings_bin: Tests/c/landings.c compiled once per session against the library.
* run_landings: runs the landings host and parses its JSON lines.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Optional

import pytest

from groundtruth import ERROR_FIXTURES, MEDIA_FIXTURES

REPO = Path(__file__).resolve().parents[2]
MAKE_FIXTURES = REPO / "Tests" / "fixtures" / "make-fixtures.sh"
LANDINGS_C = REPO / "Tests" / "c" / "landings.c"
INCLUDE = REPO / "Include"


RUN_TIMEOUT_S = float(os.environ.get("FPX_TEST_TIMEOUT", "900"))


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
    lib = Path(os.environ.get("FPX_LIB") or REPO / "build" / "lib" / "libfastpixseek.so.1")
    if not lib.is_file():
        pytest.fail(f"{lib} does not exist: build the library first (`make lib` in {REPO}); "
                    f"the test runner builds it before running these tests", pytrace=False)
    return lib


@pytest.fixture(scope="session")
def landings_bin(library: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("landings") / "landings"
    libdir = library.parent
    # -lfastpixseek needs the unversioned name; make one next to the binary if the build dir
    # has none (the Makefile creates build/lib/libfastpixseek.so).
    linkdir = libdir
    if not (libdir / "libfastpixseek.so").exists():
        linkdir = out.parent
        (linkdir / "libfastpixseek.so").symlink_to(library)
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{INCLUDE}",
           str(LANDINGS_C), f"-L{linkdir}", "-lfastpixseek", "-lpthread",
           f"-Wl,-rpath,{libdir}", "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"compiling landings.c failed:\n{shlex.join(cmd)}\n{proc.stderr}",
                    pytrace=False)
    return out


@dataclass
class LandingsResult:
    cmd: List[str]
    returncode: int
    stderr: str
    item: Optional[dict] = None
    seeks: List[dict] = field(default_factory=list)
    packets: List[dict] = field(default_factory=list)
    range: Optional[dict] = None
    other: List[dict] = field(default_factory=list)

    def describe(self) -> str:
        return (f"`{shlex.join(self.cmd)}` exited {self.returncode}; "
                f"stderr: {self.stderr.strip()[-2000:]!r}")


@pytest.fixture(scope="session")
def run_landings(landings_bin: Path, library: Path):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = str(library.parent) + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")

    def run(media: Path, precision: str, targets: Iterable[str] = (),
            read_after: Optional[tuple] = None, reference_stream: int = 0) -> LandingsResult:
        # fpx_player_config.reference_stream (0 automatic; N > 0 the stream of index N - 1).
        head = [str(landings_bin)] + (["--reference-stream", str(reference_stream)] if reference_stream else [])
        if read_after is not None:
            target, n = read_after
            cmd = head + [str(media), "--read-after", target, str(n), precision]
            stdin = ""
        else:
            cmd = head + [str(media), precision]
            stdin = "".join(f"{t}\n" for t in targets)
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env,
                              timeout=RUN_TIMEOUT_S)
        res = LandingsResult(cmd=cmd, returncode=proc.returncode, stderr=proc.stderr)
        for line in proc.stdout.splitlines():
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise AssertionError(f"landings printed a non-JSON line {line!r}: {e}; "
                                     f"{res.describe()}")
            kind = obj.get("type")
            if kind == "item":
                res.item = obj
            elif kind == "seek":
                res.seeks.append(obj)
            elif kind == "packet":
                res.packets.append(obj)
            elif kind == "range":
                res.range = obj
            else:
                res.other.append(obj)
        return res

    return run
