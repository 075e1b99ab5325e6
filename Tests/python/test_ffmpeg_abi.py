"""The FFmpeg ABI declaration (issue 13): fpx_ffmpeg_versions and FPX_ERROR_FFMPEG_MISMATCH.

* The versions reported are checked against tools that are not this library: the loaded
  ones against `ffprobe -version` (same Debian FFmpeg build, "runtime" column), the ones
  built against against `pkg-config --modversion` of the -dev packages that compiled it.
* The struct_size contract of fpx_ffmpeg_versions (prefix writes, invalid sizes).
* The refusal, end to end: a stand-in libavformat.so.M (M: the major the library was built
  against, 59 for FFmpeg 5.1, 61 for 7.1) is built here, with the real SONAME and symbol
  version (LIBAVFORMAT_M) and every symbol libfastpixseek.so.1 imports from libavformat,
  whose avformat_version() reports (M+1).3.100, as the next FFmpeg built under the old
  SONAME would. A fresh process loads it ahead of the real one with
  LD_LIBRARY_PATH (the dynamic linker's ordinary search, no preloading or symbol
  interposition tricks) and opens a file through the Python binding: fpx_player_open must
  return FPX_ERROR_FFMPEG_MISMATCH without calling anything else in libavformat (each
  other stub aborts the process with its name if called). The same program with the real
  libavformat opens the file. The unit-level rule (which majors pass) is
  Tests/FastPixSeekCoreTests/FFmpegABITests.swift.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sharedfixtures import REPO

BINDING = REPO / "Bindings" / "python"


def _child_env(library: Path, **extra: str) -> dict:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/tmp"),
           "PYTHONPATH": str(BINDING), "FASTPIX_SEEK_LIBRARY": str(library)}
    env.update(extra)
    return env


CHILD = r"""
import json, sys
import fastpix_seek
from fastpix_seek import Player, FFmpegMismatchError
v = fastpix_seek.ffmpeg_versions()
maps = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libavformat" in l})
try:
    with Player(sys.argv[1]) as p:
        p.wait_item(timeout=10)
        opened = "ok"
except FFmpegMismatchError as e:
    opened = f"{e.name} {e.code} {e.function}"
print(json.dumps({"versions": v.__dict__, "maps": maps, "opened": opened}))
"""


def _run_child(library: Path, media: Path, **extra: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(media)], env=_child_env(library, **extra),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _ffprobe_versions() -> dict:
    out = subprocess.run(["ffprobe", "-version"], capture_output=True, text=True, check=True).stdout
    found = {}
    for lib in ("libavformat", "libavcodec", "libavutil"):
        m = re.search(rf"^{lib}\s+(\d+)\.\s*(\d+)\.\s*(\d+) /\s*(\d+)\.\s*(\d+)\.\s*(\d+)", out, re.M)
        assert m, out
        found[lib] = tuple(int(x) for x in m.groups()[3:])  # the loaded ("runtime") column
    return found


def _modversion(lib: str) -> tuple:
    out = subprocess.run(["pkg-config", "--modversion", lib], capture_output=True, text=True,
                         check=True).stdout.strip()
    return tuple(int(x) for x in out.split("."))


# The (libavformat, libavcodec, libavutil) majors of the FFmpeg releases the source supports:
# 5.1 (Debian 12), 6.1 (Ubuntu 24.04), 7.1 (Debian 13).
SUPPORTED_MAJORS = {(59, 59, 57), (60, 60, 58), (61, 61, 59)}
# The libavformat major of the -dev package the library was built against.
AVFORMAT_MAJOR = _modversion("libavformat")[0]


def test_versions_match_ffprobe_and_pkg_config(library, fixtures_dir):
    r = _run_child(library, fixtures_dir / "mp4_bframes.mp4")
    v = r["versions"]
    probe = _ffprobe_versions()
    for short, lib in (("avformat", "libavformat"), ("avcodec", "libavcodec"), ("avutil", "libavutil")):
        assert tuple(v[f"{short}_runtime"]) == probe[lib], (lib, v, probe)
        assert tuple(v[f"{short}_build"]) == _modversion(lib), (lib, v)
    assert (v["avformat_build"][0], v["avcodec_build"][0], v["avutil_build"][0]) in SUPPORTED_MAJORS, v
    assert v["compatible"] is True
    assert r["opened"] == "ok"


def test_struct_size_prefix_contract(library):
    lib = ctypes.CDLL(str(library))
    f = lib.fpx_ffmpeg_versions
    f.argtypes = [ctypes.c_void_p]
    f.restype = ctypes.c_int
    size_t = ctypes.sizeof(ctypes.c_size_t)
    full = size_t + 6 * 4 + 4  # struct_size, six unsigned, int compatible
    full = (full + size_t - 1) // size_t * size_t
    buf = (ctypes.c_ubyte * 64)(*([0xAB] * 64))
    assert f(None) == -2
    ctypes.c_size_t.from_buffer(buf).value = size_t - 1
    assert f(ctypes.addressof(buf)) == -2
    assert bytes(buf[size_t:]) == b"\xab" * (64 - size_t)
    assert ctypes.c_size_t.from_buffer(buf).value == size_t - 1
    # struct_size 0 (the output-struct rule's older host): the whole struct, new in 0.2.
    ctypes.c_size_t.from_buffer(buf).value = 0
    assert f(ctypes.addressof(buf)) == 0
    assert ctypes.c_size_t.from_buffer(buf).value == full
    assert bytes(buf[full:]) == b"\xab" * (64 - full)
    buf[:] = [0xAB] * 64
    # A host whose struct ends after avformat_build: exactly those bytes are written.
    ctypes.c_size_t.from_buffer(buf).value = size_t + 4
    assert f(ctypes.addressof(buf)) == 0
    assert ctypes.c_size_t.from_buffer(buf).value == size_t + 4
    assert int.from_bytes(bytes(buf[size_t:size_t + 4]), "little") >> 16 == AVFORMAT_MAJOR
    assert bytes(buf[size_t + 4:]) == b"\xab" * (64 - size_t - 4)
    # A newer host with a bigger struct: the library fills its own sizeof and says so.
    ctypes.c_size_t.from_buffer(buf).value = 64
    assert f(ctypes.addressof(buf)) == 0
    assert ctypes.c_size_t.from_buffer(buf).value == full
    assert bytes(buf[full:]) == b"\xab" * (64 - full)


def _build_standin_libavformat(library: Path, out_dir: Path) -> Path:
    """libavformat.so.M (the build's major) whose avformat_version() says (M+1).3.100; every
    other symbol that libfastpixseek imports from libavformat aborts with its name."""
    nm = subprocess.run(["nm", "-D", "--undefined-only", str(library)], capture_output=True,
                        text=True, check=True).stdout
    major = AVFORMAT_MAJOR
    syms = sorted({m.group(1) for m in re.finditer(rf"\bU (\w+)@LIBAVFORMAT_{major}\b", nm)})
    assert "avformat_version" in syms and "avformat_open_input" in syms, syms
    src = ["#include <stdio.h>", "#include <stdlib.h>",
           "static void called(const char *n) { fprintf(stderr, \"stand-in libavformat: %s called\\n\", n); abort(); }",
           f"unsigned avformat_version(void) {{ return ({major + 1}u << 16) | (3u << 8) | 100u; }}"]
    src += [f"void {s}(void) {{ called(\"{s}\"); }}" for s in syms if s != "avformat_version"]
    (out_dir / "standin.c").write_text("\n".join(src) + "\n")
    (out_dir / "standin.map").write_text(f"LIBAVFORMAT_{major} {{ global: *; }};\n")
    so = out_dir / f"libavformat.so.{major}"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(out_dir / "standin.c"),
                    f"-Wl,-soname,libavformat.so.{major}", f"-Wl,--version-script={out_dir / 'standin.map'}"],
                   check=True, capture_output=True)
    return so


def test_open_refuses_another_libavformat_major(library, fixtures_dir, tmp_path):
    so = _build_standin_libavformat(library, tmp_path)
    media = fixtures_dir / "mp4_bframes.mp4"
    r = _run_child(library, media, LD_LIBRARY_PATH=str(tmp_path))
    assert r["maps"] == [str(so)], r          # the stand-in, not the system's libavformat
    v = r["versions"]
    assert tuple(v["avformat_runtime"]) == (AVFORMAT_MAJOR + 1, 3, 100)
    assert v["avformat_build"][0] == AVFORMAT_MAJOR
    assert v["compatible"] is False
    assert r["opened"] == "FPX_ERROR_FFMPEG_MISMATCH -28 fpx_player_open"
    # Control: the same program with the real libavformat opens the file.
    assert _run_child(library, media)["opened"] == "ok"
