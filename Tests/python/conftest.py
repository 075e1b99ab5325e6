"""Session fixtures for the FastPixSeek landing tests.

* fixtures_dir, library: from sharedfixtures.py, one definition for this tree and
  Bindings/python/tests (see there).
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

from sharedfixtures import REPO, compile_host, fixtures_dir, library  # noqa: F401 (fixtures)

LANDINGS_C = REPO / "Tests" / "c" / "landings.c"


RUN_TIMEOUT_S = float(os.environ.get("FPX_TEST_TIMEOUT", "900"))


@pytest.fixture(scope="session")
def landings_bin(library: Path, tmp_path_factory) -> Path:
    return compile_host(LANDINGS_C, library, tmp_path_factory.mktemp("landings") / "landings")


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
