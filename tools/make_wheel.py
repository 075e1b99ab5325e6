#!/usr/bin/env python3
"""tools/make_wheel.py LIBRARY OUTDIR -- the fastpix-seek wheel, carrying the library.

Builds dist `fastpix_seek-<version>-py3-none-<platform>.whl` from Bindings/python with
LIBRARY (a built libfastpixseek.so.1) inside the package as fastpix_seek/libfastpixseek.so.1,
which the binding loads before any system copy (see fastpix_seek/_lib.py). The wheel is
platform-specific (the .so is) but not Python-version-specific (the binding is ctypes).
It needs FFmpeg 5.1's libavformat59/libavcodec59/libavutil57 on the target machine; the
Swift runtime is inside the .so.

Written with zipfile (PEP 427 layout, RECORD with sha256), so it needs no setuptools, wheel
or network. `make wheel` runs it with the stripped library. Prints the wheel's path.
"""
import base64
import hashlib
import os
import re
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / "Bindings" / "python"
SONAME = "libfastpixseek.so.1"


def project_field(text: str, key: str) -> str:
    m = re.search(rf'^{key}\s*=\s*"([^"]*)"', text, re.M)
    if not m:
        raise SystemExit(f"make_wheel: no {key} in pyproject.toml")
    return m.group(1)


def record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    library, outdir = Path(sys.argv[1]), Path(sys.argv[2])
    if not library.is_file():
        print(f"make_wheel: {library} is missing; run 'make' first", file=sys.stderr)
        return 1
    pyproject = (PY / "pyproject.toml").read_text()
    name = project_field(pyproject, "name")
    version = project_field(pyproject, "version")
    summary = project_field(pyproject, "description")
    requires_python = project_field(pyproject, "requires-python")
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    dist = name.replace("-", "_")
    tag = f"py3-none-{platform}"
    wheel_name = f"{dist}-{version}-{tag}.whl"
    distinfo = f"{dist}-{version}.dist-info"

    files = []  # (arcname, bytes, mode)
    for p in sorted((PY / "fastpix_seek").iterdir()):
        if p.is_file() and (p.suffix == ".py" or p.name == "py.typed"):
            files.append((f"fastpix_seek/{p.name}", p.read_bytes(), 0o644))
    files.append((f"fastpix_seek/{SONAME}", library.read_bytes(), 0o755))
    readme = (PY / "README.md").read_text()
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
                f"License: MIT\nRequires-Python: {requires_python}\n"
                "Classifier: License :: OSI Approved :: MIT License\n"
                "Classifier: Operating System :: POSIX :: Linux\n"
                "Description-Content-Type: text/markdown\n\n" + readme)
    files.append((f"{distinfo}/METADATA", metadata.encode(), 0o644))
    files.append((f"{distinfo}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: fastpixseek make_wheel\n"
                                        f"Root-Is-Purelib: false\nTag: {tag}\n").encode(), 0o644))
    files.append((f"{distinfo}/top_level.txt", b"fastpix_seek\n", 0o644))
    for extra in ("LICENSE", "NOTICE"):
        files.append((f"{distinfo}/{extra}", (ROOT / extra).read_bytes(), 0o644))
    record = [record_line(a, d) for a, d, _ in files] + [f"{distinfo}/RECORD,,"]

    outdir.mkdir(parents=True, exist_ok=True)
    out = outdir / wheel_name
    tmp = outdir / (wheel_name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data, mode in files + [(f"{distinfo}/RECORD",
                                             ("\n".join(record) + "\n").encode(), 0o644)]:
            info = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
