"""The library's log reaches Python's logging (logger "fastpix_seek"), and nothing reaches
stderr by default: FFmpeg's own lines from corrupt.mp4 went to stderr in 0.2.0."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastpix_seek
from fastpix_seek import Player

HERE = Path(__file__).resolve().parent


def test_ffmpeg_messages_reach_logging(fixtures_dir: Path, caplog):
    caplog.set_level(logging.DEBUG, logger="fastpix_seek")
    with Player(str(fixtures_dir / "corrupt.mp4")) as p:
        with pytest.raises(fastpix_seek.InvalidDataError):
            p.wait_item(10)
    msgs = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "fastpix_seek"]
    assert any("moov atom not found" in m and lv == logging.ERROR for lv, m in msgs), msgs


def test_library_messages_reach_logging(caplog):
    caplog.set_level(logging.DEBUG, logger="fastpix_seek")
    with Player("gopher://127.0.0.1:1/x") as p:
        with pytest.raises(fastpix_seek.ProtocolNotAllowedError):
            p.wait_item(10)
    assert any("not allowed" in r.getMessage() for r in caplog.records if r.name == "fastpix_seek")


def test_nothing_on_stderr_by_default(fixtures_dir: Path):
    code = (
        "import fastpix_seek\n"
        "for name in ('corrupt.mp4', 'garbage.bin'):\n"
        "    p = fastpix_seek.Player(sys.argv[1] + '/' + name)\n"
        "    try:\n"
        "        p.wait_item(10)\n"
        "    except fastpix_seek.FastPixSeekError:\n"
        "        pass\n"
        "    p.close()\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parent) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", "import sys\n" + code, str(fixtures_dir)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr


@pytest.mark.parametrize("bad", [1e300, 2.0 ** 63, 9.3e15])
def test_io_timeout_that_does_not_fit_is_refused(bad: float):
    # 0.2.0 wrapped 1e300 s to 0 ms: no bound at all.
    with pytest.raises(fastpix_seek.InvalidArgumentError):
        Player(io_timeout=bad)


def test_io_timeout_huge_but_representable_is_accepted(fixtures_dir: Path):
    with Player(str(fixtures_dir / "mp4_bframes.mp4"), io_timeout=9.2e15) as p:
        p.wait_item(10)
        p.read_packet()
