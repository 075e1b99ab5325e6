"""Issue 29.9: the ``frames`` extra installs what the frame helpers and their frames need --
PyAV (the same range as the ``pyav`` extra), numpy for ``VideoFrame.to_ndarray()`` and Pillow
for ``VideoFrame.to_image()`` -- checked in the METADATA setuptools writes for a wheel built
from Bindings/python (``pip wheel``, no network). The ImportError that tells a user without
PyAV what to install is checked once, in Tests/python/test_frames.py (test_errors_and_no_pyav),
which runs under both interpreters tools/test-all.sh uses."""
from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from typing import Dict, List

import pytest

from sharedfixtures import REPO

BINDING = REPO / "Bindings" / "python"


def _requires(meta: str) -> Dict[str, List[str]]:
    """extra -> the requirement names METADATA lists for it (lower case)."""
    out: Dict[str, List[str]] = {}
    # Newer setuptools: `av<19,>=10; extra == "frames"`; Debian's 66: `av (<19,>=10) ; extra == 'frames'`.
    for m in re.finditer(r"^Requires-Dist: ([A-Za-z0-9_.-]+)[^;\n]*; extra == [\"']([a-z]+)[\"']$",
                         meta, re.M):
        out.setdefault(m.group(2), []).append(m.group(1).lower())
    return out


@pytest.fixture(scope="module")
def metadata(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                           "--no-build-isolation", "--no-index", "-w", str(out), str(BINDING)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheel = next(out.glob("fastpix_seek-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return z.read(name).decode()


def test_frames_extra_installs_pyav_numpy_and_pillow(metadata: str) -> None:
    assert "Provides-Extra: frames\n" in metadata and "Provides-Extra: pyav\n" in metadata
    req = _requires(metadata)
    assert sorted(req["frames"]) == ["av", "numpy", "pillow"]
    assert req["pyav"] == ["av"]
    # The same PyAV range in both extras.
    av_specs = re.findall(r"^Requires-Dist: av([^;\n]*); extra == [\"'](frames|pyav)[\"']$",
                          metadata, re.M)
    assert len(av_specs) == 2
    assert len({",".join(sorted(re.sub(r"[() ]", "", spec).split(","))) for spec, _ in av_specs}) == 1
    # The core package depends on nothing.
    assert not re.search(r"^Requires-Dist: [^;\n]*$", metadata, re.M)


@pytest.mark.parametrize("module,call", [("numpy", "to_ndarray"), ("PIL", "to_image")])
def test_frames_need_what_the_extra_adds(module: str, call: str) -> None:
    """PyAV's frames import numpy (to_ndarray) and Pillow (to_image) on use, and PyAV itself
    declares neither: without the module the call fails, so the extra must bring it."""
    code = (f"import sys; sys.modules[{module!r}] = None\n"
            "import av, importlib.metadata as md\n"
            "reqs = ' '.join(md.requires('av') or []).lower()\n"
            f"print('DECLARED' if {module.lower()!r} in reqs or 'pillow' in reqs and {module!r} == 'PIL' else 'UNDECLARED')\n"
            "f = av.VideoFrame(16, 16, 'rgb24')\n"
            f"try:\n    f.{call}()\n    print('WORKS')\nexcept Exception:  # ImportError, or AttributeError on None\n    print('NEEDS')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["UNDECLARED", "NEEDS"], out.stdout
