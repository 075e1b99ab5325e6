#!/usr/bin/env python3
"""wheel-check.py WHEEL [--json]

Checks the self-contained wheel of `make wheel` and prints its facts (one line each, or one
JSON object with --json). Exit status 1 when any check fails:

* the tag is py3-none-manylinux_X_Y_x86_64 (ctypes only: any Python 3, no ABI);
* the shared libraries it carries (every ELF file in it) total at most 15 MB unpacked;
* no library is GPL: FFmpeg's libraries are asked themselves, in a child process that loads
  the unpacked copies (av*_license(), the licence configure computed from its flags, must be
  an LGPL one, and av*_configuration() must have neither --enable-gpl nor --enable-nonfree);
  libfastpixseek is this project's (MIT); every other library must be in REVIEWED, a table
  of licences read from the Debian copyright files the wheel carries (fastpix_seek/ffmpeg/):
  a library nobody reviewed fails;
* the libraries of FFmpeg were renamed by auditwheel (libavformat-<hash>.so.59, ...), and
  every FFmpeg symbol the library imports is bound to a renamed symbol version (FPX_LIB*);
* FFmpeg's licence and build configuration are inside (fastpix_seek/ffmpeg/).

Stdlib only.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MAX_LIB_BYTES = 15 * 1000 * 1000
# Licences of the non-FFmpeg libraries auditwheel bundles, from the Debian copyright files
# that tools/wheel-ffmpeg.sh copies into the wheel (mbedtls-copyright: "Apache-2.0 or
# GPL-2.0-or-later", used under Apache-2.0, as FFmpeg's --enable-version3 requires; zlib's
# own licence). Keys: the file name up to the first "-" or ".so".
REVIEWED = {
    "libmbedtls": "Apache-2.0",
    "libmbedx509": "Apache-2.0",
    "libmbedcrypto": "Apache-2.0",
    "libz": "Zlib",
}
FFMPEG = ("libavformat", "libavcodec", "libavutil")
DOCS = ("BUILD.txt", "configure-output.txt", "LICENSE.md", "COPYING.LGPLv3", "COPYING.LGPLv2.1")

ASK_FFMPEG = r"""
import ctypes, json, sys
out = {}
for path in sys.argv[1:]:
    lib = ctypes.CDLL(path)
    stem = path.rsplit("/", 1)[-1].split("-")[0].split(".")[0]
    name = stem[3:]  # avformat
    lic = getattr(lib, name + "_license"); lic.restype = ctypes.c_char_p
    cfg = getattr(lib, name + "_configuration"); cfg.restype = ctypes.c_char_p
    out[path] = {"license": lic().decode(), "configuration": cfg().decode()}
print(json.dumps(out))
"""


def is_elf(data: bytes) -> bool:
    return data[:4] == b"\x7fELF"


def stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return re.split(r"-|\.so", base, maxsplit=1)[0]


def check(wheel: Path) -> dict:
    facts: dict = {"wheel": wheel.name, "failures": []}
    fail = facts["failures"].append
    m = re.fullmatch(r"fastpix_seek-[^-]+-py3-none-(manylinux_\d+_\d+_x86_64)\.whl", wheel.name)
    if m:
        facts["platform_tag"] = m.group(1)
    else:
        fail(f"tag: {wheel.name} is not py3-none-manylinux_X_Y_x86_64")
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        z.extractall(tmp)
        libs = {}
        for info in z.infolist():
            with z.open(info) as f:
                if is_elf(f.read(4)):
                    libs[info.filename] = info.file_size
        facts["libraries"] = {n: libs[n] for n in sorted(libs)}
        facts["library_bytes"] = sum(libs.values())
        facts["wheel_bytes"] = wheel.stat().st_size
        if facts["library_bytes"] > MAX_LIB_BYTES:
            fail(f"size: the libraries total {facts['library_bytes']} bytes > {MAX_LIB_BYTES}")
        licences = {}
        ffmpeg_paths = []
        for n in libs:
            s = stem(n)
            if n == "fastpix_seek/libfastpixseek.so.1":
                licences[n] = "MIT (this project)"
            elif s in FFMPEG:
                if not re.fullmatch(rf"fastpix_seek\.libs/{s}-[0-9a-f]{{8}}\.so(\.\d+)+", n):
                    fail(f"rename: {n} is not a renamed copy ({s}-<hash>.so.N...)")
                ffmpeg_paths.append(str(Path(tmp) / n))
            elif s in REVIEWED:
                licences[n] = REVIEWED[s]
            else:
                fail(f"licence: {n} is in no reviewed table (add it to REVIEWED with its licence)")
        if sorted(stem(p) for p in ffmpeg_paths) != sorted(FFMPEG):
            fail(f"ffmpeg: expected {FFMPEG} once each, found {[stem(p) for p in ffmpeg_paths]}")
        if ffmpeg_paths:
            proc = subprocess.run([sys.executable, "-c", ASK_FFMPEG, *ffmpeg_paths],
                                  capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
            if proc.returncode != 0:
                fail(f"ffmpeg: the bundled libraries do not load: {proc.stderr.strip()[-400:]}")
            else:
                for path, a in json.loads(proc.stdout).items():
                    n = str(Path(path).relative_to(tmp))
                    licences[n] = "FFmpeg: " + a["license"]
                    if not a["license"].startswith("LGPL"):
                        fail(f"licence: {n} says {a['license']!r}")
                    for flag in ("--enable-gpl", "--enable-nonfree"):
                        if flag in a["configuration"].split():
                            fail(f"licence: {n} was configured with {flag}")
                    facts["ffmpeg_configuration"] = a["configuration"]
        facts["licences"] = {n: licences.get(n, "?") for n in sorted(libs)}
        # Every FFmpeg symbol the library imports is bound to a renamed version node.
        dyn = subprocess.run(["readelf", "--dyn-syms", "-W", str(Path(tmp) / "fastpix_seek/libfastpixseek.so.1")],
                             capture_output=True, text=True).stdout
        und = [ln.split()[7] for ln in dyn.splitlines() if " UND " in ln and len(ln.split()) > 7]
        av = [s for s in und if s.startswith("av")]
        plain = [s for s in av if "@" in s and not s.split("@")[-1].startswith("FPX_LIB")]
        if not av or plain:
            fail(f"symbols: FFmpeg imports not bound to FPX_LIB* versions: {plain[:5] or 'none found'}")
        facts["ffmpeg_imports"] = len(av)
        needed = subprocess.run(["readelf", "-d", str(Path(tmp) / "fastpix_seek/libfastpixseek.so.1")],
                                capture_output=True, text=True).stdout
        facts["library_needed"] = re.findall(r"Shared library: \[([^\]]+)\]", needed)
        facts["library_runpath"] = re.findall(r"R(?:UN)?PATH.*\[([^\]]+)\]", needed)
        for d in DOCS:
            if f"fastpix_seek/ffmpeg/{d}" not in z.namelist():
                fail(f"docs: fastpix_seek/ffmpeg/{d} is missing")
    return facts


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--json"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    facts = check(Path(args[0]))
    if "--json" in sys.argv:
        print(json.dumps(facts, indent=1))
    else:
        print(f"wheel {facts['wheel']}: {facts['wheel_bytes']} bytes; tag {facts.get('platform_tag')}; "
              f"libraries {facts['library_bytes']} bytes unpacked")
        for n, size in facts["libraries"].items():
            print(f"  {n}  {size} bytes  {facts['licences'][n]}")
        for f in facts["failures"]:
            print(f"FAIL: {f}")
    return 1 if facts["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
