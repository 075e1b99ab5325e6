"""Fixtures for the fastpix_seek binding tests.

* The package under test is the one in this checkout (Bindings/python), put first on sys.path,
  unless FPX_TEST_INSTALLED=1 (then the installed fastpix_seek is tested).
* The library (sharedfixtures.library_path(): $FASTPIX_SEEK_LIBRARY, else $FPX_LIB, else
  <repo>/build/lib/libfastpixseek.so.1; built with `make lib`, not here) is exported as
  FASTPIX_SEEK_LIBRARY before fastpix_seek is imported, so the tests never pick up some other
  installed copy.
* fixtures_dir, library: Tests/python/sharedfixtures.py, the one definition both pytest trees
  import; ground truth: Tests/python/groundtruth.py (ffprobe + Fractions). Both via sys.path.
* Every test is followed by gc.collect() (autouse), so objects dropped by a test are
  collected while the library may still be delivering their events.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

HERE = Path(__file__).resolve().parent
BINDING = HERE.parent
GROUNDTRUTH_DIR = BINDING.parents[1] / "Tests" / "python"


if os.environ.get("FPX_TEST_INSTALLED") != "1" and str(BINDING) not in sys.path:
    sys.path.insert(0, str(BINDING))
if str(GROUNDTRUTH_DIR) not in sys.path:
    sys.path.append(str(GROUNDTRUTH_DIR))

# The fixture lists live with the ground truth, beside make-fixtures.sh's other users.
from groundtruth import MEDIA_FIXTURES  # noqa: E402
from sharedfixtures import REPO, fixtures_dir, library, library_path  # noqa: E402,F401 (fixtures)

LIBRARY = library_path()
if LIBRARY.is_file():
    os.environ["FASTPIX_SEEK_LIBRARY"] = str(LIBRARY)


def pytest_configure(config: pytest.Config) -> None:
    if not LIBRARY.is_file():
        raise pytest.UsageError(f"{LIBRARY} does not exist: build the library first "
                                f"(`make lib` in {REPO}) or set FASTPIX_SEEK_LIBRARY")


@pytest.fixture(params=MEDIA_FIXTURES)
def media(request: pytest.FixtureRequest, fixtures_dir: Path) -> Path:
    """Each media fixture in turn."""
    return fixtures_dir / request.param


@pytest.fixture
def sample(fixtures_dir: Path) -> Path:
    """One ordinary fixture (H.264 + AAC MP4, closed GOP, 1001/30000 frames)."""
    return fixtures_dir / "mp4_bframes.mp4"


@pytest.fixture(autouse=True)
def _collect_garbage_after_each_test() -> Iterator[None]:
    yield
    gc.collect()


@pytest.fixture
def captured_errors() -> Iterator[List[Tuple[BaseException, object, str]]]:
    """Replaces the callback exception handler for one test; yields what it received."""
    import fastpix_seek

    got: List[Tuple[BaseException, object, str]] = []
    prev = fastpix_seek.set_callback_exception_handler(
        lambda exc, player, where: got.append((exc, player, where)))
    try:
        yield got
    finally:
        fastpix_seek.set_callback_exception_handler(prev)
