"""Issue 29.7 (deliverable 6, Python): an item's error names its path or URL, gives only the
cause that fits the case (no "HTTP 404" for a local file, no "missing file" for a URL), and is
the built-in exception a user would catch -- FileNotFoundError, PermissionError,
IsADirectoryError, TimeoutError, ConnectionError, IndexError -- while staying an instance of
the package's class for the library's code (and of FastPixSeekError).

The HTTP cases use a real HTTP server on 127.0.0.1 (Tests/python/rangeserver.py) answering each
status; the permission case opens a mode-000 file as an unprivileged user (setpriv, when the
tests run as root; directly otherwise)."""
from __future__ import annotations

import errno
import os
import pickle
import socket
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator, Tuple

import pytest

from fastpix_seek import (FastPixSeekError, HTTPAccessError, MediaIsADirectoryError,
                          MediaNotFoundError, MediaPermissionError, Player, StreamIndexError)
from fastpix_seek.errors import (FastPixIOError, FastPixTimeoutError, InvalidArgumentError,
                                 InvalidDataError, NetworkError, NotFoundError, UnsupportedError)
from rangeserver import RangeHandler, serve

#: Words of the library's table text for codes whose causes differ by case.
LOCAL_ONLY = ("missing file", "No such file", "Permission denied")
URL_ONLY = ("HTTP", "connection", "Connection")
NEVER = ("listener",)


def _fails(url: str, **kw: object) -> FastPixSeekError:
    with Player(url, **kw) as p:  # type: ignore[arg-type]
        with pytest.raises(FastPixSeekError) as ei:
            p.wait_item(timeout=20)
    return ei.value


def _no_foreign_causes(e: FastPixSeekError, local: bool) -> None:
    text = str(e)
    for word in NEVER + (URL_ONLY if local else LOCAL_ONLY):
        assert word not in e.message, (word, text)


class _Status(RangeHandler):
    """/404.mp4 answers 404, /403.mp4 403, and so on."""

    def do_GET(self) -> None:
        code = int(self.path.strip("/").split(".")[0])
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET


@pytest.fixture
def status_server(tmp_path: Path) -> Iterator[str]:
    with serve(tmp_path, _Status) as url:
        yield url


@pytest.mark.parametrize("form", ["plain", "file:"])
def test_missing_file_is_file_not_found(tmp_path: Path, form: str) -> None:
    path = tmp_path / "no" / "such.mp4"
    url = str(path) if form == "plain" else "file:" + str(path)
    e = _fails(url)
    assert isinstance(e, MediaNotFoundError) and isinstance(e, FileNotFoundError)
    assert isinstance(e, NotFoundError) and e.code == NotFoundError.default_code
    assert e.url == url and str(e).startswith(f"{url}: ")
    assert e.errno == errno.ENOENT and e.filename == str(path)
    assert e.message == os.strerror(errno.ENOENT)
    _no_foreign_causes(e, local=True)
    # Picklable with its url (multiprocessing, concurrent.futures).
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is type(e) and again.url == url and str(again) == str(e)


def test_directory_is_a_directory(tmp_path: Path) -> None:
    e = _fails(str(tmp_path))
    assert isinstance(e, MediaIsADirectoryError) and isinstance(e, IsADirectoryError)
    assert isinstance(e, UnsupportedError) and e.errno == errno.EISDIR
    assert str(tmp_path) in str(e) and "protocol" not in str(e)


def test_unreadable_file_is_a_permission_error(tmp_path: Path, fixtures_dir: Path, request: Any) -> None:
    """A mode-000 copy of a fixture, opened by a user who may not read it."""
    path = tmp_path / "locked.mp4"
    path.write_bytes((fixtures_dir / "mp4_bframes.mp4").read_bytes())
    path.chmod(0)
    tmp_path.chmod(0o755)
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from fastpix_seek import Player, FastPixSeekError\n"
            "from fastpix_seek.errors import NotFoundError\n"
            "with Player(sys.argv[2]) as p:\n"
            "    try:\n        p.wait_item(timeout=20)\n        print('OPENED')\n"
            "    except FastPixSeekError as e:\n"
            "        print(type(e).__name__, isinstance(e, PermissionError),\n"
            "              isinstance(e, NotFoundError), e.errno, e.url == sys.argv[2], '|', e)\n")
    binding = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    if os.geteuid() == 0:
        # The other user reads the package and the library from copies of its own (a
        # checkout under /root, as in a Debian root, is closed to it); the file stays locked.
        pub = Path(tempfile.mkdtemp(prefix="fpx-pub-"))  # pytest's own tmp is closed to others
        request.addfinalizer(lambda: shutil.rmtree(pub, ignore_errors=True))
        shutil.copytree(Path(binding) / "fastpix_seek", pub / "fastpix_seek",
                        ignore=shutil.ignore_patterns("__pycache__"))
        lib = pub / "libfastpixseek.so.1"
        shutil.copy2(os.environ["FASTPIX_SEEK_LIBRARY"], lib)
        for d in [pub, *pub.rglob("*")]:
            d.chmod(0o755 if d.is_dir() or d == lib else 0o644)
        binding, env["FASTPIX_SEEK_LIBRARY"] = str(pub), str(lib)
    cmd = [sys.executable, "-c", code, binding, str(path)]
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    words = out.stdout.split("|")[0].split()
    assert words == ["MediaPermissionError", "True", "True", str(errno.EACCES), "True"], out.stdout
    text = out.stdout.split("|", 1)[1]
    assert str(path) in text and "Permission denied" in text
    assert "HTTP" not in text and "listener" not in text and "missing" not in text


def test_http_404(status_server: str) -> None:
    url = f"{status_server}/404.mp4"
    e = _fails(url)
    assert type(e) is NotFoundError and not isinstance(e, FileNotFoundError)
    assert e.url == url and str(e).startswith(f"{url}: ")
    assert e.message == "HTTP 404 Not Found"
    _no_foreign_causes(e, local=False)


@pytest.mark.parametrize("status,words", [(403, "HTTP 403 Forbidden"),
                                          (401, "HTTP 401 Unauthorized")])
def test_http_refused_is_a_permission_error(status_server: str, status: int, words: str) -> None:
    url = f"{status_server}/{status}.mp4"
    e = _fails(url)
    assert isinstance(e, HTTPAccessError) and isinstance(e, PermissionError)
    assert isinstance(e, FastPixIOError) and e.message == words and e.url == url
    _no_foreign_causes(e, local=False)


def test_http_server_error(status_server: str) -> None:
    url = f"{status_server}/503.mp4"
    e = _fails(url)
    assert type(e) is FastPixIOError and e.message == "HTTP 5xx server error" and e.url == url
    _no_foreign_causes(e, local=False)


def test_connection_refused() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/x.mp4"
    e = _fails(url)
    assert isinstance(e, NetworkError) and isinstance(e, ConnectionError)
    assert e.message == os.strerror(errno.ECONNREFUSED) and e.url == url
    _no_foreign_causes(e, local=False)


@pytest.fixture
def silent_server() -> Iterator[Tuple[str, socket.socket]]:
    """Accepts connections and never answers."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}/slow.mp4", srv
    finally:
        srv.close()


def test_timeout_is_a_timeout_error(silent_server: Tuple[str, socket.socket]) -> None:
    url, _ = silent_server
    e = _fails(url, io_timeout=0.5)
    assert isinstance(e, FastPixTimeoutError) and isinstance(e, TimeoutError)
    assert e.url == url and str(e).startswith(f"{url}: ")
    _no_foreign_causes(e, local=False)


def test_garbage_names_the_file(fixtures_dir: Path) -> None:
    path = str(fixtures_dir / "garbage.bin")
    e = _fails(path)
    assert isinstance(e, InvalidDataError) and isinstance(e, ValueError)
    assert e.url == path and str(e).startswith(f"{path}: ")
    _no_foreign_causes(e, local=True)


def test_bad_stream_index_is_an_index_error(sample: Path) -> None:
    with Player(sample) as p:
        p.wait_item(timeout=20)
        n = p.item_info().stream_count
        for call in (lambda: p.stream_info(n), lambda: p.stream_info(-1),
                     lambda: p.set_stream_enabled(n + 3, False)):
            with pytest.raises(IndexError) as ei:
                call()
            e = ei.value
            assert isinstance(e, StreamIndexError) and isinstance(e, InvalidArgumentError)
            assert isinstance(e, FastPixSeekError) and f"the item has {n}" in str(e)
        assert p.stream_info(n - 1).index == n - 1


def test_unknown_listener_id_says_only_that(sample: Path) -> None:
    with Player(sample) as p:
        for lid in (12345, -1):
            with pytest.raises(NotFoundError) as ei:
                p.remove_listener(lid)
            e = ei.value
            assert e.message == "no listener with this id" and str(lid) in str(e)
            assert "HTTP" not in str(e) and "file" not in str(e)
            assert not isinstance(e, FileNotFoundError)


def test_permission_error_class_bases() -> None:
    """The refinements stay the library code's classes."""
    assert issubclass(MediaPermissionError, NotFoundError)
    assert issubclass(MediaPermissionError, PermissionError)
    assert issubclass(MediaNotFoundError, FileNotFoundError)
    assert issubclass(HTTPAccessError, FastPixIOError)
