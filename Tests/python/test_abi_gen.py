"""tools/abi_gen.py, the one source of the ABI's tables: run on edited copies of seek.h, it
carries a renumbered constant and a reworded message into every generated file together,
refuses a function without a "Callback-safe:" line and an error code without a message, and
its --check fails on a stale file. (The checkout's own files are checked fresh by the
meta-tests: Tests/c/run.sh and Bindings/python/tests/test_binding_table.py.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GEN = REPO / "tools" / "abi_gen.py"
HEADER = REPO / "Include" / "fastpix" / "seek.h"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(GEN), *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def tree(tmp_path):
    """An edited copy of the header and an output tree holding the checkout's generated files."""
    (tmp_path / "Include" / "fastpix").mkdir(parents=True)
    header = tmp_path / "Include" / "fastpix" / "seek.h"
    shutil.copy(HEADER, header)
    out = tmp_path / "out"
    r = run("--header", str(header), "--out", str(out))
    assert r.returncode == 0, r.stderr
    return header, out


def edit(header: Path, old: str, new: str) -> None:
    text = header.read_text()
    assert text.count(old) == 1, old
    header.write_text(text.replace(old, new))


def test_the_checkout_is_what_the_generator_writes(tree):
    header, out = tree
    for rel in ("Sources/FastPixSeekPolicy/ErrorCode.swift", "Sources/FastPixSeek/ABITables.swift",
                "Bindings/python/fastpix_seek/errors.py", "Bindings/python/fastpix_seek/_abi.py",
                "Tests/abi/seek-h.json", "Tests/c/test_abi_tables.c"):
        assert (out / rel).read_text() == (REPO / rel).read_text(), rel
        assert (out / rel).read_text().splitlines()[0].find("Generated from Include/fastpix/seek.h by "
                                                            "python3 tools/abi_gen.py") >= 0, rel


def test_a_reworded_message_reaches_swift_c_and_python_and_check_fails(tree):
    header, out = tree
    edit(header, "/**< end of the item's packets */", "/**< no more packets: the end of the item */")
    r = run("--header", str(header), "--out", str(out), "--check")
    assert r.returncode == 1 and "stale" in r.stderr, r.stderr
    r = run("--header", str(header), "--out", str(out))
    assert r.returncode == 0, r.stderr
    for rel in ("Sources/FastPixSeekPolicy/ErrorCode.swift", "Sources/FastPixSeek/ABITables.swift",
                "Bindings/python/fastpix_seek/errors.py", "Bindings/python/fastpix_seek/_abi.py",
                "Tests/c/test_abi_tables.c"):
        text = (out / rel).read_text()
        assert "no more packets: the end of the item" in text, rel
        assert "end of the item's packets" not in text, rel
    assert run("--header", str(header), "--out", str(out), "--check").returncode == 0


def test_a_renumbered_constant_changes_the_values_not_the_keyed_tables(tree):
    header, out = tree
    before = {p: p.read_text() for p in out.rglob("*") if p.is_file()}
    edit(header, "FPX_FINISH_FAILED = 4 ", "FPX_FINISH_FAILED = 7 ")
    assert run("--header", str(header), "--out", str(out)).returncode == 0
    changed = {str(p.relative_to(out)) for p, t in before.items() if p.read_text() != t}
    # The core's enum and the Python enum carry the value; the C name table and the C test
    # are keyed by the header's constant, so they need no change.
    assert {"Sources/FastPixSeekPolicy/ABIEnums.swift", "Bindings/python/fastpix_seek/_abi.py",
            "Tests/abi/seek-h.json"} <= changed
    assert "Sources/FastPixSeek/ABITables.swift" not in changed
    assert "case failed = 7" in (out / "Sources/FastPixSeekPolicy/ABIEnums.swift").read_text()
    assert "    FAILED = 7\n" in (out / "Bindings/python/fastpix_seek/_abi.py").read_text()


def test_a_function_without_a_callback_safe_line_fails(tree):
    header, out = tree
    edit(header, "/** Begins (or restarts) a gesture at `at`. Callback-safe: yes. */",
         "/** Begins (or restarts) a gesture at `at`. */")
    r = run("--header", str(header), "--out", str(out), "--check")
    assert r.returncode == 2
    assert "fpx_scrub_begin" in r.stderr and "Callback-safe" in r.stderr


def test_a_function_marked_twice_fails(tree):
    header, out = tree
    edit(header, "/** Begins (or restarts) a gesture at `at`. Callback-safe: yes. */",
         "/** Begins (or restarts) a gesture at `at`. Callback-safe: yes. Callback-safe: no. */")
    r = run("--header", str(header), "--out", str(out), "--check")
    assert r.returncode == 2 and "fpx_scrub_begin" in r.stderr


def test_a_callback_safety_change_reaches_the_table(tree):
    header, out = tree
    edit(header, "/** Records a sample. Issues no seek. Callback-safe: yes. */",
         "/** Records a sample. Issues no seek. Callback-safe: no. */")
    assert run("--header", str(header), "--out", str(out)).returncode == 0
    tables = (out / "Sources/FastPixSeek/ABITables.swift").read_text()
    unsafe = tables[tables.index("return true"):tables.index("return false")]
    assert ".fpx_scrub_update" in unsafe
    test = (out / "Tests/c/test_callback_safety.c").read_text()
    assert 't.calls[i].name = "fpx_scrub_update";\n    t.calls[i].callback_safe = 0;' in test


def test_an_error_code_without_a_message_fails(tree):
    header, out = tree
    edit(header, "    FPX_ERROR_NO_MEMORY = -5,        /**< out of memory */\n",
         "    FPX_ERROR_NO_MEMORY = -5,\n")
    r = run("--header", str(header), "--out", str(out), "--check")
    assert r.returncode == 2 and "FPX_ERROR_NO_MEMORY" in r.stderr


def test_a_function_without_fpx_api_fails(tree):
    header, out = tree
    edit(header, "FPX_API int fpx_scrub_cancel(fpx_scrub_session *session);",
         "int fpx_scrub_cancel(fpx_scrub_session *session);")
    r = run("--header", str(header), "--out", str(out), "--check")
    assert r.returncode == 2 and "fpx_scrub_cancel" in r.stderr and "FPX_API" in r.stderr


def test_a_new_error_code_gets_a_class_a_case_and_a_message(tree):
    header, out = tree
    last = "    FPX_ERROR_PREVIEW_MALFORMED = -33 /**<"
    edit(header, last, "    FPX_ERROR_TOO_MANY_FILES = -34,   /**< too many open files (EMFILE, ENFILE) */\n" +
         last)
    r = run("--header", str(header), "--out", str(out))
    assert r.returncode == 0, r.stderr
    swift = (out / "Sources/FastPixSeekPolicy/ErrorCode.swift").read_text()
    assert "case tooManyFiles = -34" in swift and '"too many open files (EMFILE, ENFILE)"' in swift
    py = (out / "Bindings/python/fastpix_seek/errors.py").read_text()
    assert "class TooManyFilesError(FastPixSeekError):" in py
    assert "FPX_ERROR_TOO_MANY_FILES: too many open files (EMFILE, ENFILE)." in py


def test_callback_unsafe_needs_a_player(tree):
    header, out = tree
    edit(header, "/** The invalid time (flags 0). Callback-safe: yes. */",
         "/** The invalid time (flags 0). Callback-safe: no. */")
    r = run("--header", str(header), "--out", str(out), "--check")
    assert r.returncode == 2 and "fpx_time_invalid" in r.stderr
