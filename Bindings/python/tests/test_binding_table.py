"""The raw layer matches Include/fastpix/seek.h: every function bound, every struct laid out
exactly like the C compiler lays it out, library loading and the version check."""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
from typing import Dict, Set

import pytest

from fpx_binding_testutil import BINDING, INCLUDE, REPO

import fastpix_seek
from fastpix_seek import _lib, errors


#: The header as clang parsed it (tools/abi_gen.py writes it; test_generated_files_are_fresh
#: fails when it, or any other generated file, is stale).
ABI = json.loads((REPO / "Tests" / "abi" / "seek-h.json").read_text())


def header_functions() -> Set[str]:
    """Names of the FPX_API function declarations of the header."""
    return {f["name"] for f in ABI["functions"]}


def header_structs() -> Set[str]:
    return set(ABI["structs"])


def test_generated_files_are_fresh():
    """Every table generated from seek.h (Swift, C names, Python, the JSON above) is what
    tools/abi_gen.py makes of the header now."""
    r = subprocess.run([sys.executable, str(REPO / "tools" / "abi_gen.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_header_parse_sanity():
    names = header_functions()
    assert {"fpx_version", "fpx_player_seek", "fpx_player_read_packet"} <= names
    assert len(names) >= 40


def test_every_header_function_is_bound():
    table = [b.name for b in _lib.FUNCTIONS]
    assert len(table) == len(set(table)), "a function is bound twice"
    missing = header_functions() - set(table)
    assert not missing, f"FPX_API functions without a row in fastpix_seek._lib.FUNCTIONS: " \
                        f"{sorted(missing)}"
    extra = set(table) - header_functions()
    assert not extra, f"rows of FUNCTIONS that the header does not declare: {sorted(extra)}"


def test_every_binding_has_the_header_signature(tmp_path):
    """Each row of FUNCTIONS has the header's arity, and every argument and the result the
    size the C compiler gives the header's type (and, for a pointer to one of the header's
    structs, the struct's size): an int64_t bound as c_int, or a missing argument, fails."""
    cc = os.environ.get("CC", "cc")
    lines = ["#include <stdio.h>", "#include <fastpix/seek.h>", "int main(void) {"]
    for f in ABI["functions"]:
        if f["returns"] != "void":
            lines.append(f'  printf("{f["name"]} r %zu\\n", sizeof({f["returns"]}));')
        for i, p in enumerate(f["params"]):
            lines.append(f'  printf("{f["name"]} {i} %zu\\n", sizeof({p["type"]}));')
            t = p["type"].replace("const ", "").strip()
            if t.endswith("*") and t[:-1].strip() in ABI["structs"]:
                lines.append(f'  printf("{f["name"]} {i}* %zu\\n", sizeof({t[:-1].strip()}));')
    lines += ["  return 0;", "}"]
    src, exe = tmp_path / "signatures.c", tmp_path / "signatures"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", f"-I{INCLUDE}", str(src), "-o", str(exe)], check=True)
    sizes = dict(line.rsplit(" ", 1) for line in
                 subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines())
    bound = {b.name: b for b in _lib.FUNCTIONS}
    for f in ABI["functions"]:
        b = bound[f["name"]]
        assert len(b.argtypes) == len(f["params"]), f"{f['name']}: arity"
        if f["returns"] == "void":
            assert b.restype is None, f"{f['name']}: returns void"
        else:
            assert ctypes.sizeof(b.restype) == int(sizes[f"{f['name']} r"]), f"{f['name']}: result"
        for i, a in enumerate(b.argtypes):
            assert ctypes.sizeof(a) == int(sizes[f"{f['name']} {i}"]), \
                f"{f['name']} argument {i} ({f['params'][i]['type']})"
            if f"{f['name']} {i}*" in sizes:
                assert issubclass(a, ctypes._Pointer), f"{f['name']} argument {i}: a pointer"
                assert ctypes.sizeof(a._type_) == int(sizes[f"{f['name']} {i}*"]), \
                    f"{f['name']} argument {i}: points to {f['params'][i]['type']}"


def test_every_bound_function_is_exported_by_the_library():
    assert _lib.missing_functions == [], (
        f"{_lib.library_path} does not export {_lib.missing_functions}: the library is older "
        f"than the header (rebuild with `make lib`)")
    for b in _lib.FUNCTIONS:
        fn = getattr(_lib.lib, b.name)
        assert fn.restype is b.restype or (b.restype is None and fn.restype is None), b.name
        assert list(fn.argtypes) == list(b.argtypes), b.name


def test_every_header_struct_is_mirrored():
    missing = header_structs() - set(_lib.STRUCTS)
    assert not missing, f"structs of the header without a ctypes mirror: {sorted(missing)}"


def test_error_codes_match_the_header():
    consts = next(e for e in ABI["enums"] if e["name"] == "fpx_error")["constants"]
    declared = {c["value"]: c["name"] for c in consts}
    assert declared == errors.ERROR_NAMES
    for c in consts:
        assert _lib.lib.fpx_error_string(c["value"]) == c["doc"], c["name"]
        if c["value"] < 0:
            cls = errors.error_class_for(c["value"])
            assert " ".join(cls.__doc__.split()).startswith(f"{c['name']}: {c['doc']}."), cls
    for code_, name in declared.items():
        assert _lib.lib.fpx_error_name(code_) == name
        if code_ < 0:
            cls = errors.error_class_for(code_)
            assert cls is not errors.FastPixSeekError, f"no exception class for {name}"
            e = _lib.make_error(code_, "fpx_test")
            assert isinstance(e, cls) and e.code == code_ and e.name == name
            assert e.message == _lib.lib.fpx_error_string(code_)
            assert name in str(e) and "fpx_test" in str(e)
    unknown = _lib.make_error(-999)
    assert type(unknown) is errors.FastPixSeekError and unknown.name == "FPX_UNKNOWN"
    assert unknown.message == "unknown error"


def test_builtin_exception_bases():
    assert issubclass(errors.InvalidTimeError, ValueError)
    assert issubclass(errors.InvalidArgumentError, ValueError)
    assert issubclass(errors.FastPixTimeoutError, TimeoutError)
    assert issubclass(errors.FastPixIOError, OSError)
    assert issubclass(errors.NetworkError, ConnectionError)
    assert issubclass(errors.EndOfFile, EOFError)
    assert issubclass(errors.InvalidHandleError, ValueError)
    for cls in errors.ERROR_CLASSES.values():
        assert issubclass(cls, errors.FastPixSeekError)


# ------------------------------------------------------------------------------------------
# Struct layout, against the C compiler
# ------------------------------------------------------------------------------------------

def _c_program(structs: Dict[str, type]) -> str:
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <stdalign.h>",
             "#include <fastpix/seek.h>", "int main(void) {"]
    for name, cls in structs.items():
        fields = ", ".join(
            f'\\"{f}\\": %zu' for f, _ in cls._fields_)
        args = ", ".join(f"offsetof({name}, {f})" for f, _ in cls._fields_)
        lines.append(
            f'  printf("{{\\"struct\\": \\"{name}\\", \\"size\\": %zu, \\"align\\": %zu, '
            f'\\"offsets\\": {{{fields}}}}}\\n", sizeof({name}), alignof({name}), {args});')
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def c_layout(tmp_path_factory) -> Dict[str, dict]:
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.fail(f"no C compiler ({cc}) to check the struct layout against", pytrace=False)
    d = tmp_path_factory.mktemp("layout")
    src, exe = d / "layout.c", d / "layout"
    src.write_text(_c_program(_lib.STRUCTS))
    proc = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", f"-I{INCLUDE}", str(src), "-o",
                           str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, f"compiling the layout probe failed:\n{proc.stderr}"
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return {o["struct"]: o for o in map(json.loads, out.splitlines())}


@pytest.mark.parametrize("name", sorted(_lib.STRUCTS))
def test_struct_layout_matches_c(c_layout, name):
    cls = _lib.STRUCTS[name]
    c = c_layout[name]
    py_offsets = {f: getattr(cls, f).offset for f, _ in cls._fields_}
    assert py_offsets == c["offsets"], f"{name}: field offsets differ"
    assert ctypes.sizeof(cls) == c["size"], f"{name}: sizeof differs"
    assert ctypes.alignment(cls) == c["align"], f"{name}: alignment differs"


def test_struct_field_sizes_match_c(tmp_path):
    """Each field's own size too (catches an int32 mirrored as int64 that happens to fit in
    padding)."""
    cc = os.environ.get("CC", "cc")
    lines = ["#include <stdio.h>", "#include <fastpix/seek.h>", "int main(void) {"]
    for name, cls in _lib.STRUCTS.items():
        for f, _ in cls._fields_:
            lines.append(f'  printf("{name}.{f} %zu\\n", sizeof((({name} *)0)->{f}));')
    lines += ["  return 0;", "}"]
    src, exe = tmp_path / "fields.c", tmp_path / "fields"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", f"-I{INCLUDE}", str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        key, size = line.split()
        sname, fname = key.split(".")
        assert getattr(_lib.STRUCTS[sname], fname).size == int(size), key


# ------------------------------------------------------------------------------------------
# Loading and version
# ------------------------------------------------------------------------------------------

def test_version_check_and_values():
    major, minor, patch = _lib.library_version
    assert (major, minor) >= _lib.EXPECTED_VERSION and major == _lib.EXPECTED_VERSION[0]
    assert fastpix_seek.version() == f"{major}.{minor}.{patch}"
    macros = {m["name"]: m["value"] for m in ABI["macros"]}
    assert (macros["FPX_VERSION_MAJOR"], macros["FPX_VERSION_MINOR"]) == _lib.EXPECTED_VERSION, \
        "EXPECTED_VERSION should follow the header the binding mirrors"


def test_enums_flags_and_constants_match_the_header():
    """The binding's enums and constants are the header's (generated into _abi)."""
    from fastpix_seek import _abi, types
    for e in ABI["enums"]:
        for c in e["constants"]:
            assert getattr(_abi, c["name"]) == c["value"], c["name"]
    for m in ABI["macros"]:
        assert getattr(_abi, m["name"]) == m["value"], m["name"]
    assert types.IndexMode.FULL == _lib.FPX_INDEX_FULL == _abi.FPX_INDEX_FULL
    assert types.FinishReason(_abi.FPX_FINISH_SUPERSEDED).name == "SUPERSEDED"
    assert _lib.FPX_PACKET_FLAG_DISCONTINUITY == _abi.PacketFlag.DISCONTINUITY


def test_version_too_old_raises_import_error(monkeypatch):
    class Fake:
        class fpx_version:  # noqa: N801  (stands in for the ctypes function)
            def __new__(cls):
                return 0x000000

    monkeypatch.setattr(_lib, "EXPECTED_VERSION", (0, 1))
    with pytest.raises(ImportError, match=r"version 0\.0\.0.*needs 0\.1"):
        _lib._check_version(Fake)
    monkeypatch.setattr(_lib, "EXPECTED_VERSION", (1, 0))
    with pytest.raises(ImportError):
        _lib._check_version(Fake)


def _import_in_subprocess(env_updates: Dict[str, str], drop=()) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    for k in drop:
        env.pop(k, None)
    env.update(env_updates)
    code = ("import sys; sys.path.insert(0, %r); import fastpix_seek; "
            "print(fastpix_seek.library_path)" % str(BINDING))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd="/")


def test_env_library_path_is_used(library):
    r = _import_in_subprocess({"FASTPIX_SEEK_LIBRARY": str(library)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(library)


def test_bad_env_library_path_fails_clearly(tmp_path):
    r = _import_in_subprocess({"FASTPIX_SEEK_LIBRARY": str(tmp_path / "nope.so")})
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "FASTPIX_SEEK_LIBRARY" in r.stderr


def test_build_folder_fallback():
    built = REPO / "build" / "lib" / "libfastpixseek.so.1"
    if not built.is_file():
        pytest.skip("no in-tree build")
    r = _import_in_subprocess({}, drop=("FASTPIX_SEEK_LIBRARY", "LD_LIBRARY_PATH"))
    assert r.returncode == 0, r.stderr
    # Either the system loader found an installed copy, or the walk up found the build.
    path = r.stdout.strip()
    assert path == str(built) or "libfastpixseek.so.1" in path


def test_not_loaded_with_pydll():
    assert type(_lib.lib) is ctypes.CDLL
    assert not isinstance(_lib.lib, ctypes.PyDLL)


def _can_build_without_isolation() -> bool:
    try:
        import setuptools
        from importlib.util import find_spec
    except ImportError:
        return False
    if find_spec("wheel") is not None:
        return True
    v = tuple(int(x) for x in re.findall(r"\d+", setuptools.__version__)[:2])
    return v >= (70, 1)  # bdist_wheel moved into setuptools


def test_pip_install_works(tmp_path, library):
    """`pip install Bindings/python` works (pure Python: a py3-none-any wheel), and the
    installed copy imports and finds the library through FASTPIX_SEEK_LIBRARY."""
    target = tmp_path / "site"
    # Build from a copy: setuptools writes build/ and *.egg-info next to the sources.
    src = tmp_path / "src"
    shutil.copytree(BINDING, src, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__", ".*"))
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile",
           "--disable-pip-version-check", "--target", str(target), str(src)]
    if _can_build_without_isolation():
        cmd.insert(4, "--no-build-isolation")
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and re.search(r"(?i)connection|network|resolve|offline|proxy",
                                       r.stdout + r.stderr):
        pytest.skip(f"pip needs the network to get setuptools for an isolated build: "
                    f"{(r.stdout + r.stderr)[-300:]}")
    assert r.returncode == 0, r.stdout + r.stderr
    pkg = target / "fastpix_seek"
    for n in ("__init__.py", "_lib.py", "player.py", "types.py", "errors.py", "py.typed"):
        assert (pkg / n).is_file(), f"{n} missing from the installed package"
    assert not list(pkg.glob("*.so")), "the package must have no compiled parts"
    wheel_tags = list(target.glob("fastpix_seek-*.dist-info/WHEEL"))
    assert wheel_tags and "py3-none-any" in wheel_tags[0].read_text()
    env = dict(os.environ, FASTPIX_SEEK_LIBRARY=str(library), PYTHONPATH=str(target))
    code = "import fastpix_seek, sys; print(fastpix_seek.__file__); print(fastpix_seek.version())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd="/")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith(str(target))
