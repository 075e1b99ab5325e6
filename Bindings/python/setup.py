"""Build glue for setuptools (the metadata is all in pyproject.toml).

Two things pyproject.toml cannot say:

* A wheel that carries the library (``make wheel`` copies libfastpixseek.so.1 into the
  package before building; it is package data) is platform-specific: its tag becomes
  ``py3-none-<platform>`` (ctypes: any Python 3, one platform). Without the library the
  wheel stays ``py3-none-any``.
* setuptools writes ``build/`` and ``*.egg-info`` into the source directory; here they go to
  a scratch directory that is removed when the build process exits, so
  ``pip install Bindings/python`` leaves the checkout as it was.
"""
import atexit
import shutil
import tempfile
from pathlib import Path

from setuptools import Distribution, setup

try:  # setuptools >= 70.1 has its own bdist_wheel
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # older setuptools (Debian 12: 66) with the wheel package
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

BUNDLED = (Path(__file__).resolve().parent / "fastpix_seek" / "libfastpixseek.so.1").is_file()


class BinaryDistribution(Distribution):
    """With the library inside, the package is installed as platform-specific (platlib)."""

    def has_ext_modules(self) -> bool:
        return BUNDLED


class PlatformWheel(bdist_wheel):  # type: ignore[misc, valid-type]
    def get_tag(self):  # type: ignore[no-untyped-def]
        python, abi, plat = super().get_tag()
        return ("py3", "none", plat) if BUNDLED else (python, abi, plat)


scratch = tempfile.mkdtemp(prefix="fastpix-seek-setuptools.")
atexit.register(shutil.rmtree, scratch, True)

setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel},
      options={"build": {"build_base": scratch + "/build"}, "egg_info": {"egg_base": scratch}})
