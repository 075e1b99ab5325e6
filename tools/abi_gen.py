#!/usr/bin/env python3
"""tools/abi_gen.py -- every table of the ABI, generated from Include/fastpix/seek.h.

The header is the contract; this script reads it once with a real C parser (clang's JSON
AST, `clang -Xclang -ast-dump=json -fsyntax-only -fparse-all-comments`, the clang that the
Swift toolchain ships) and writes every table that used to be copied by hand:

  Sources/FastPixSeekPolicy/ErrorCode.swift   the Swift error cases, names and messages
  Sources/FastPixSeekPolicy/ABIEnums.swift    the header's other enums as the core's types
  Sources/FastPixSeek/ABITables.swift         the tables behind fpx_error_string and every
                                              fpx_*_name (keyed by the header's constants),
                                              and the callback-safety table (CFunction)
  Bindings/python/fastpix_seek/_abi.py        the Python enums, flags and constants
  Bindings/python/fastpix_seek/errors.py      the Python error classes (docstrings from the
                                              header; names and bases from PY_ERRORS below)
  Tests/abi/seek-h.json                       a JSON description of the header for tests
  tools/abi-version.mk                        FPX_VERSION_* for the Makefile
  Tests/c/test_abi_tables.c                   a C test: names and strings == the header's
  Tests/c/test_callback_safety.c              a C test: every player function called inside a
                                              callback refuses (IN_CALLBACK) exactly when its
                                              "Callback-safe:" line says no
  Tests/c/abi_fields.h                        every member of every output struct (X-macros)
                                              for test_abi_structs.c

What comes from where:
  * error codes, enum constants, their values and doc comments: the AST (EnumDecl);
  * messages: the doc comment of each fpx_error constant (`/**< ... */`), exactly; a code
    without one fails the generation;
  * callback safety: each FPX_API function's doc comment must say "Callback-safe: yes" or
    "Callback-safe: no"; a function without it fails the generation (there is no default);
  * object-like macros (FPX_PACKET_FLAG_*, FPX_LOG_*, ...): their names from clang's own
    macro table (`clang -E -dM`), their values evaluated by clang (each becomes an
    enumerator of a C23 `enum : long long` in a probe file whose AST is read back).

Usage:
  python3 tools/abi_gen.py            (re)write the generated files (`make gen`)
  python3 tools/abi_gen.py --check    exit 1, naming them, when a generated file is stale
  python3 tools/abi_gen.py --json     print the JSON description only
  (--header H --out D: another header, another output tree; Tests/python/test_abi_gen.py)
Exit status 2: the header breaks a rule above (the message names the declaration).

Needs only Python's standard library and a clang: $CLANG, else the clang next to the
`swift` on PATH, else `clang`. The build never runs it: the generated files are committed,
and the meta-tests (Tests/c/run.sh, Bindings/python/tests/test_binding_table.py) run
--check, so a stale file fails the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
HEADER = ROOT / "Include" / "fastpix" / "seek.h"
HEADER_REL = "Include/fastpix/seek.h"
COMMAND = "python3 tools/abi_gen.py (make gen)"
STAMP = f"Generated from {HEADER_REL} by {COMMAND}. Do not edit."

# The Python error classes: the names and built-in bases the binding has always had, and
# notes about the binding itself added to the header's text. A code missing here gets
# <CamelCase>Error deriving from FastPixSeekError alone.
PY_ERRORS: Dict[str, Tuple[str, Tuple[str, ...], str]] = {
    "FPX_ERROR_INVALID_HANDLE": ("InvalidHandleError", ("ValueError",), "Also raised for a closed Player."),
    "FPX_ERROR_INVALID_ARGUMENT": ("InvalidArgumentError", ("ValueError",), ""),
    "FPX_ERROR_INVALID_TIME": ("InvalidTimeError", ("ValueError",), ""),
    "FPX_ERROR_UNKNOWN_ENUM": ("UnknownEnumError", ("ValueError",), ""),
    "FPX_ERROR_NO_MEMORY": ("FastPixMemoryError", ("MemoryError",), ""),
    "FPX_ERROR_NO_FILE_DESCRIPTORS": ("NoFileDescriptorsError", ("OSError",), ""),
    "FPX_ERROR_NO_ITEM": ("NoItemError", ("RuntimeError",), ""),
    "FPX_ERROR_ITEM_NOT_READY": ("ItemNotReadyError", ("RuntimeError",), ""),
    "FPX_ERROR_ITEM_FAILED": ("ItemFailedError", ("RuntimeError",), ""),
    "FPX_ERROR_NOT_FOUND": ("NotFoundError", (), ""),
    "FPX_ERROR_IO": ("FastPixIOError", ("OSError",), ""),
    "FPX_ERROR_TIMEOUT": ("FastPixTimeoutError", ("TimeoutError",),
                          "The binding raises it too when one of its own waits (timeout=...) expires."),
    "FPX_ERROR_INVALID_DATA": ("InvalidDataError", ("ValueError",), ""),
    "FPX_ERROR_UNSUPPORTED": ("UnsupportedError", (), ""),
    "FPX_ERROR_NO_STREAM": ("NoStreamError", (), ""),
    "FPX_ERROR_EOF": ("EndOfFile", ("EOFError",), ""),
    "FPX_ERROR_CANCELLED": ("FastPixCancelledError", (),
                            "Deliberately *not* a subclass of ``asyncio.CancelledError`` (a ``BaseException``)."),
    "FPX_ERROR_IN_CALLBACK": ("InCallbackError", ("RuntimeError",), ""),
    "FPX_ERROR_WRONG_MODE": ("WrongModeError", ("RuntimeError",), ""),
    "FPX_ERROR_NETWORK": ("NetworkError", ("ConnectionError",), ""),
    "FPX_ERROR_NO_SEEK_MANAGER": ("NoSeekManagerError", ("RuntimeError",), ""),
    "FPX_ERROR_INTERNAL": ("InternalError", ("RuntimeError",), ""),
    "FPX_ERROR_INVALID_STATE": ("InvalidStateError", ("RuntimeError",), ""),
    "FPX_ERROR_EXPIRED": ("ExpiredError", (), ""),
    "FPX_ERROR_STALLED": ("StalledError", ("TimeoutError",), ""),
    "FPX_ERROR_PROTOCOL_NOT_ALLOWED": ("ProtocolNotAllowedError", ("PermissionError",),
                                       "The policy is ``Player(protocols=...)``."),
    "FPX_ERROR_INTERRUPTED": ("ReadInterruptedError", (),
                              "No packet was consumed; read again after the seek."),
    "FPX_ERROR_TOO_LARGE": ("TooLargeError", ("MemoryError",), "The cap is ``Player(max_buffer_bytes=...)``."),
    "FPX_ERROR_FFMPEG_MISMATCH": ("FFmpegMismatchError", ("RuntimeError",),
                                  "See ``fastpix_seek.ffmpeg_versions()``."),
    "FPX_ERROR_REFERENCE_STREAM": ("ReferenceStreamError", ("ValueError",), ""),
}

# The header's enums mirrored in the pure-Swift core (which cannot import the header):
# Swift type name for each. Enums not listed are converted in the ABI layer by the header's
# own constants (fpx_precision_kind, fpx_delivery_mode). The *Code ones carry the values of a
# richer hand-written core type (SeekClamp.kind, FrameStepUnavailableReason.code, ...).
SWIFT_CORE_ENUMS = {
    "fpx_finish_reason": "FinishReason",
    "fpx_landing_resolution": "LandingResolution",
    "fpx_scrub_state": "ScrubState",
    "fpx_frame_step_direction": "FrameStepDirection",
    "fpx_item_status": "ItemStatus",
    "fpx_media_type": "MediaType",
    "fpx_index_mode": "IndexMode",
    "fpx_clamp_kind": "ClampKindCode",
    "fpx_frame_step_unavailable_reason": "FrameStepUnavailableReasonCode",
    "fpx_date_seek_unavailable_reason": "DateSeekUnavailableReasonCode",
    "fpx_hole_reason": "HoleReason",
    "fpx_preview_kind": "PreviewKind",
    "fpx_preview_field": "PreviewField",
}

# Python names of the header's macro groups made IntFlag classes.
PY_FLAGS = {"FPX_PACKET_FLAG_": "PacketFlag", "FPX_TIME_FLAG_": "TimeFlag"}

SWIFT_KEYWORDS = {"internal", "default", "case", "class", "enum", "func", "import", "in", "init",
                  "is", "let", "operator", "private", "public", "protocol", "return", "self",
                  "static", "struct", "subscript", "super", "switch", "throw", "true", "false",
                  "try", "var", "where", "while", "do", "else", "for", "if", "nil", "repeat",
                  "break", "continue", "defer", "extension", "fileprivate", "guard", "inout",
                  "open", "rethrows", "throws", "typealias", "associatedtype", "deinit", "as",
                  "catch", "fallthrough", "Any", "Self", "Type"}


class GenError(Exception):
    pass


# -------------------------------------------------------------------------------------------
# Reading the header
# -------------------------------------------------------------------------------------------

def find_clang() -> str:
    env = os.environ.get("CLANG")
    if env:
        return env
    swift = shutil.which("swift") or ("/opt/swift/usr/bin/swift" if os.path.exists("/opt/swift/usr/bin/swift") else None)
    if swift:
        cand = Path(os.path.realpath(swift)).parent / "clang"
        if cand.exists():
            return str(cand)
    cl = shutil.which("clang")
    if cl:
        return cl
    raise GenError("no clang: set CLANG, or put the Swift toolchain (which ships clang) on PATH")


def run_clang(clang: str, args: List[str], source: Optional[Path] = None) -> str:
    cmd = [clang] + args + ([str(source)] if source else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise GenError(f"cannot run {clang}: {e} (set CLANG to a clang)")
    if p.returncode != 0:
        raise GenError(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return p.stdout


def ast_of(clang: str, path: Path, std: str, include: Optional[Path] = None) -> dict:
    args = ["-x", "c", f"-std={std}", "-Xclang", "-ast-dump=json", "-fsyntax-only",
            "-fparse-all-comments"]
    if include:
        args.append(f"-I{include}")
    return json.loads(run_clang(clang, args, path))


def comment_text(node: dict) -> str:
    """The text of a declaration's comment (its FullComment child): paragraphs joined by a
    blank line, lines by a space, whitespace collapsed. Banner comments ("/* ==== */")
    that clang attaches to the next declaration are dropped."""
    full = next((c for c in node.get("inner", []) if c.get("kind") == "FullComment"), None)
    if full is None:
        return ""
    paras = []
    for para in full.get("inner", []):
        pieces = []

        def walk(n: dict) -> None:
            if "text" in n:
                pieces.append(n["text"])
            for c in n.get("inner", []):
                walk(c)
        walk(para)
        text = " ".join("".join(pieces).split())
        if text:
            paras.append(text)
    if paras and set(paras[0]) <= {"="}:
        return ""  # a section banner, not this declaration's documentation
    return "\n\n".join(paras)


def callback_safety(name: str, doc: str) -> bool:
    marks = []
    for word in ("yes", "no"):
        if f"Callback-safe: {word}" in doc:
            marks.append(word == "yes")
    if len(marks) != 1:
        raise GenError(f"{HEADER_REL}: {name} has "
                       f"{'no' if not marks else 'more than one'} \"Callback-safe: yes|no\" line in "
                       f"its doc comment (there is no default: add one)")
    return marks[0]


def read_header(clang: str) -> dict:
    """Functions, enums and structs of the header: the declarations named fpx_ / FPX_ (the
    only ones seek.h makes; the system headers it includes have none)."""
    ast = ast_of(clang, HEADER, "c99")
    functions, enums, structs = [], [], []
    fields: Dict[str, List[dict]] = {}
    seen_enum_ids = set()
    for n in ast.get("inner", []):
        kind, name = n.get("kind"), n.get("name") or ""
        if kind == "FunctionDecl" and name.startswith("fpx_"):
            if not any(c.get("kind") == "VisibilityAttr" for c in n.get("inner", [])):
                raise GenError(f"{HEADER_REL}: {name} is declared without FPX_API")
            doc = comment_text(n)
            params = [{"name": c.get("name", ""), "type": c["type"]["qualType"],
                       "desugared": c["type"].get("desugaredQualType", c["type"]["qualType"])}
                      for c in n.get("inner", []) if c.get("kind") == "ParmVarDecl"]
            ftype = n["type"]["qualType"]
            functions.append({"name": name, "type": ftype, "returns": ftype[: ftype.index("(")].strip(),
                              "params": params,
                              "callback_safe": callback_safety(name, doc), "doc": doc})
        elif kind == "EnumDecl" and n.get("id") not in seen_enum_ids:
            consts, prev = [], -1
            for c in n.get("inner", []):
                if c.get("kind") != "EnumConstantDecl":
                    continue
                value = None
                for e in c.get("inner", []):
                    if e.get("kind") == "ConstantExpr":
                        value = int(e["value"])
                value = prev + 1 if value is None else value
                prev = value
                consts.append({"name": c["name"], "value": value, "doc": comment_text(c)})
            if not any(c["name"].startswith("FPX_") for c in consts):
                continue
            if not name.startswith("fpx_"):
                raise GenError(f"{HEADER_REL}: the enum of {consts[0]['name']} has no fpx_ name")
            seen_enum_ids.add(n.get("id"))
            vals = [c["value"] for c in consts]
            if len(set(vals)) != len(vals):
                raise GenError(f"{HEADER_REL}: enum {name} has two constants with one value")
            enums.append({"name": name, "doc": comment_text(n), "constants": consts})
        elif kind == "RecordDecl" and n.get("completeDefinition") and name.startswith("fpx_"):
            structs.append(name)
            fields[name] = [{"name": c["name"], "type": c["type"]["qualType"]}
                            for c in n.get("inner", []) if c.get("kind") == "FieldDecl"]
    if not functions or not enums:
        raise GenError(f"no functions or enums read from {HEADER_REL}")
    for f in functions:
        handle = f["params"] and f["params"][0]["type"] in ("fpx_player *", "fpx_scrub_session *")
        if not f["callback_safe"] and not handle:
            raise GenError(f"{HEADER_REL}: {f['name']} is \"Callback-safe: no\" but takes no player "
                           f"or scrub session, so the library cannot tell it is inside a callback")
    macros = read_macros(clang)
    return {"functions": functions, "enums": enums, "structs": sorted(set(structs)),
            "struct_fields": {k: fields[k] for k in sorted(fields)}, "macros": macros}


def read_macros(clang: str) -> List[dict]:
    """Object-like FPX_ macros of the header, with values evaluated by clang."""
    out = run_clang(clang, ["-x", "c", "-std=c99", "-E", "-dM", f"-I{HEADER.parent.parent}"], HEADER)
    names = []
    for line in out.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 2 or parts[0] != "#define":
            continue
        name = parts[1]
        if "(" in name or not name.startswith("FPX_") or name in ("FPX_API",) or name.endswith("_H"):
            continue
        names.append(name)
    if not names:
        raise GenError("clang -E -dM listed no FPX_ macros")
    with tempfile.TemporaryDirectory() as d:
        probe = Path(d) / "probe.c"
        probe.write_text("#include <fastpix/seek.h>\n" + "".join(
            f"enum fpx_probe_{n} : long long {{ fpx_probe_{n} = (long long)({n}) }};\n" for n in names))
        ast = ast_of(clang, probe, "c2x", HEADER.parent.parent)
    values: Dict[str, int] = {}
    for n in ast.get("inner", []):
        if n.get("kind") == "EnumDecl" and n.get("name", "").startswith("fpx_probe_"):
            for c in n.get("inner", []):
                if c.get("kind") == "EnumConstantDecl":
                    stack = list(c.get("inner", []))
                    while stack:
                        e = stack.pop(0)
                        if e.get("kind") == "ConstantExpr":
                            values[c["name"][len("fpx_probe_"):]] = int(e["value"])
                            break
                        stack.extend(e.get("inner", []))
    missing = [n for n in names if n not in values]
    if missing:
        raise GenError(f"clang did not evaluate the macros {missing}")
    order = {n: i for i, n in enumerate(names)}
    return [{"name": n, "value": values[n]} for n in sorted(names, key=lambda n: (n, order[n]))]


# -------------------------------------------------------------------------------------------
# Helpers
# -------------------------------------------------------------------------------------------

def enum_by_name(model: dict, name: str) -> dict:
    for e in model["enums"]:
        if e["name"] == name:
            return e
    raise GenError(f"{HEADER_REL}: no enum {name}")


def errors_of(model: dict) -> List[dict]:
    errs = enum_by_name(model, "fpx_error")["constants"]
    for c in errs:
        if not c["doc"]:
            raise GenError(f"{HEADER_REL}: {c['name']} has no /**< message */: fpx_error_string "
                           f"returns it, so every code needs one")
    return errs


def common_prefix(names: List[str]) -> str:
    if len(names) == 1:
        return names[0][: names[0].rfind("_") + 1]
    parts = [n.split("_") for n in names]
    out = []
    for words in zip(*parts):
        if len(set(words)) != 1:
            break
        out.append(words[0])
    prefix = "_".join(out) + "_"
    # never strip a whole name (an enumerator equal to the prefix)
    return prefix if all(len(n) > len(prefix) for n in names) else "FPX_"


def camel(words: List[str], upper_first: bool) -> str:
    s = "".join(w[:1].upper() + w[1:].lower() for w in words)
    return s if upper_first else s[:1].lower() + s[1:]


def swift_case(const: str) -> str:
    name = camel(const[len("FPX_ERROR_"):].split("_"), False)
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def swift_ident(case: str) -> str:
    return case.strip("`")


def swift_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def py_doc(s: str, indent: str) -> str:
    s = s.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = []
    for para in s.split("\n\n"):
        words, line = para.split(), ""
        for w in words:
            if line and len(indent) + len(line) + 1 + len(w) > 96:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        lines.append(line)
        lines.append("")
    lines = lines[:-1]
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""\n'
    body = "\n".join((indent + l) if l else "" for l in lines[1:])
    return f'{indent}"""{lines[0]}\n{body}\n{indent}"""\n'


def py_comment(s: str, indent: str) -> str:
    out = []
    words, line = " ".join(s.split()).split(), ""
    for w in words:
        if line and len(indent) + 3 + len(line) + 1 + len(w) > 96:
            out.append(f"{indent}#: {line}")
            line = w
        else:
            line = f"{line} {w}" if line else w
    if line:
        out.append(f"{indent}#: {line}")
    return "\n".join(out) + "\n" if out else ""


def name_functions(model: dict) -> List[Tuple[dict, dict]]:
    """Each fpx_<enum>_name function with its enum (fpx_error_name: fpx_error)."""
    out = []
    for f in model["functions"]:
        n = f["name"]
        if n.endswith("_name") and n != "fpx_error_name":
            enum = n[: -len("_name")]
            if not any(e["name"] == enum for e in model["enums"]):
                raise GenError(f"{HEADER_REL}: {n} names no enum ({enum})")
            out.append((f, enum_by_name(model, enum)))
    return out


def table_ident(enum_name: str) -> str:
    return camel(enum_name[len("fpx_"):].split("_"), False)


# -------------------------------------------------------------------------------------------
# Outputs
# -------------------------------------------------------------------------------------------

def gen_error_code_swift(model: dict) -> str:
    errs = [c for c in errors_of(model) if c["value"] != 0]
    o = [f"// {STAMP}\n",
         "//\n",
         "// The library's error codes: the C ABI's fpx_error, whose values are never renumbered\n",
         "// or reused. `message` is the header's own text for the code (fpx_error_string).\n",
         "public enum ErrorCode: Int32, Error, CaseIterable, Sendable {\n"]
    for c in errs:
        o.append(f"    case {swift_case(c['name'])} = {c['value']}\n")
    o.append("\n    /// The header's name of the code (\"FPX_ERROR_TIMEOUT\").\n")
    o.append("    public var name: StaticString {\n        switch self {\n")
    for c in errs:
        o.append(f"        case .{swift_ident(swift_case(c['name']))}: return {swift_str(c['name'])}\n")
    o.append("        }\n    }\n\n")
    o.append("    /// The header's description of the code (its doc comment in seek.h).\n")
    o.append("    public var message: StaticString {\n        switch self {\n")
    for c in errs:
        o.append(f"        case .{swift_ident(swift_case(c['name']))}: return {swift_str(c['doc'])}\n")
    o.append("        }\n    }\n}\n")
    return "".join(o)


def swift_doc(s: str, indent: str) -> str:
    out = []
    for para in s.split("\n\n"):
        words, line = para.split(), ""
        for w in words:
            if line and len(indent) + 4 + len(line) + 1 + len(w) > 100:
                out.append(f"{indent}/// {line}")
                line = w
            else:
                line = f"{line} {w}" if line else w
        out.append(f"{indent}/// {line}")
        out.append(f"{indent}///")
    return "\n".join(out[:-1]) + "\n" if out else ""


def swift_macro_type(m: dict) -> str:
    if any(m["name"].startswith(p) for p in PY_FLAGS):
        return "UInt32"
    if not (-2**31 <= m["value"] < 2**31):
        return "Int64"
    return "Int32"


def gen_core_enums_swift(model: dict) -> str:
    o = [f"// {STAMP}\n",
         "//\n",
         "// The header's enums as the core's Swift types (the core cannot import the header):\n",
         "// the same values, the same order, the header's documentation; and its object-like\n",
         "// macros as constants (flags UInt32, FPX_NOPTS Int64, the rest Int32).\n\n",
         "/// The header's object-like macros, by their C names.\n",
         "public enum ABIConstants {\n"]
    for m in model["macros"]:
        t = swift_macro_type(m)
        v = hex(m["value"]) if t == "UInt32" else ("Int64.min" if m["value"] == -2**63 else str(m["value"]))
        o.append(f"    public static let {m['name']}: {t} = {v}\n")
    o.append("}\n")
    for cname, sname in SWIFT_CORE_ENUMS.items():
        e = enum_by_name(model, cname)
        consts = e["constants"]
        prefix = common_prefix([c["name"] for c in consts])
        o.append("\n")
        o.append(f"/// The C type is `{cname}`" + (" (its values)." if sname.endswith("Code") else "."))
        o.append("\n")
        o.append(f"public enum {sname}: Int32, CaseIterable, Sendable {{\n")
        for c in consts:
            if c["doc"]:
                o.append(swift_doc(c["doc"], "    "))
            case = camel(c["name"][len(prefix):].split("_"), False)
            case = f"`{case}`" if case in SWIFT_KEYWORDS else case
            o.append(f"    case {case} = {c['value']}\n")
        o.append("}\n")
    return "".join(o)


def gen_tables_swift(model: dict) -> str:
    errs = errors_of(model)
    o = [f"// {STAMP}\n",
         "//\n",
         "// The tables behind fpx_error_string, fpx_error_name and every fpx_*_name function,\n",
         "// keyed by the header's own constants, and the callback-safety table that withPlayer\n",
         "// consults (each function's \"Callback-safe:\" line in seek.h).\n",
         "import CFastPixSeekABI\n\n",
         "enum ABITables {\n",
         "    /// fpx_error_string: the header's text of each code; \"unknown error\" for others.\n",
         "    static func errorString(_ code: Int32) -> StaticString {\n        switch code {\n"]
    for c in errs:
        o.append(f"        case Int32(truncatingIfNeeded: {c['name']}.rawValue): return {swift_str(c['doc'])}\n")
    o.append('        default: return "unknown error"\n        }\n    }\n\n')
    o.append("    /// fpx_error_name: the header's name of each code; \"FPX_UNKNOWN\" for others.\n")
    o.append("    static func errorName(_ code: Int32) -> StaticString {\n        switch code {\n")
    for c in errs:
        o.append(f"        case Int32(truncatingIfNeeded: {c['name']}.rawValue): return {swift_str(c['name'])}\n")
    o.append('        default: return "FPX_UNKNOWN"\n        }\n    }\n')
    for f, e in name_functions(model):
        o.append(f"\n    /// {f['name']}: the header's names of {e['name']}; \"FPX_UNKNOWN\" for others.\n")
        o.append(f"    static func {table_ident(e['name'])}Name(_ value: Int32) -> StaticString {{\n")
        o.append("        switch value {\n")
        for c in e["constants"]:
            o.append(f"        case Int32(truncatingIfNeeded: {c['name']}.rawValue): return {swift_str(c['name'])}\n")
        o.append('        default: return "FPX_UNKNOWN"\n        }\n    }\n')
    o.append("}\n\n")
    o.append("/// Every function of the header, for the calls that need to know which one they are\n")
    o.append("/// (withPlayer, withScrub). `isCallbackSafe` is the header's \"Callback-safe:\" line.\n")
    o.append("enum CFunction: String, CaseIterable, Sendable {\n")
    for f in model["functions"]:
        o.append(f"    case {f['name']}\n")
    o.append("\n    var isCallbackSafe: Bool {\n        switch self {\n")
    safe = [f["name"] for f in model["functions"] if f["callback_safe"]]
    unsafe = [f["name"] for f in model["functions"] if not f["callback_safe"]]
    for label, names in (("true", safe), ("false", unsafe)):
        if names:
            o.append("        case " + ",\n             ".join("." + n for n in names) + f":\n            return {label}\n")
    o.append("        }\n    }\n}\n")
    return "".join(o)


def py_enum_name(enum_name: str) -> str:
    return camel(enum_name[len("fpx_"):].split("_"), True)


def gen_abi_py(model: dict) -> str:
    o = [f"# {STAMP}\n",
         '"""The header\'s constants, enums and flags (Include/fastpix/seek.h), for the binding.\n\n',
         "Values and documentation come from the header itself; see tools/abi_gen.py.\n",
         '"""\n\n',
         "from __future__ import annotations\n\n",
         "import enum\n",
         "from typing import Dict, Tuple\n\n"]
    names = []
    o.append("# ---- macros ----------------------------------------------------------------------\n\n")
    for m in model["macros"]:
        flag = any(m["name"].startswith(p) for p in PY_FLAGS) and m["value"] >= 0
        o.append(f"{m['name']} = {hex(m['value']) if flag else m['value']}\n")
        names.append(m["name"])
    o.append("\n# ---- flags -----------------------------------------------------------------------\n")
    for prefix, cls in PY_FLAGS.items():
        members = [m for m in model["macros"] if m["name"].startswith(prefix)]
        if not members:
            raise GenError(f"{HEADER_REL}: no {prefix}* macros for {cls}")
        o.append(f"\n\nclass {cls}(enum.IntFlag):\n")
        o.append(f'    """The header\'s {prefix}* bits."""\n')
        for m in sorted(members, key=lambda m: m["value"]):
            o.append(f"    {m['name'][len(prefix):]} = {hex(m['value'])}\n")
        names.append(cls)
    o.append("\n\n# ---- enums -----------------------------------------------------------------------\n")
    for e in model["enums"]:
        consts = e["constants"]
        if e["name"] == "fpx_error":
            continue
        cls = py_enum_name(e["name"])
        prefix = common_prefix([c["name"] for c in consts])
        o.append(f"\n\nclass {cls}(enum.IntEnum):\n")
        o.append(py_doc(f"``{e['name']}``" + (f": {e['doc']}" if e["doc"] else " (seek.h)."), "    "))
        for c in consts:
            if c["doc"]:
                o.append(py_comment(c["doc"], "    "))
            o.append(f"    {c['name'][len(prefix):]} = {c['value']}\n")
        names.append(cls)
    o.append("\n\n# ---- errors ----------------------------------------------------------------------\n\n")
    o.append("#: fpx_error value -> (name, the header's message).\n")
    o.append("ERRORS: Dict[int, Tuple[str, str]] = {\n")
    for c in errors_of(model):
        o.append(f"    {c['value']}: ({c['name']!r}, {c['doc']!r}),\n")
    o.append("}\n")
    names.append("ERRORS")
    # module constants for every enumerator too (the raw layer's FPX_INDEX_OFF, ...)
    o.append("\n# ---- enumerators as module constants (the raw C names) ----------------------------\n\n")
    for e in model["enums"]:
        for c in e["constants"]:
            o.append(f"{c['name']} = {c['value']}\n")
            names.append(c["name"])
    o.append("\n__all__ = [\n")
    for n in names:
        o.append(f"    {n!r},\n")
    o.append("]\n")
    return "".join(o)


ERRORS_PY_HEAD = '''"""Exceptions raised by fastpix_seek.

Every negative ``fpx_error`` code returned by the C library becomes an instance of
:class:`FastPixSeekError` (or of the subclass registered for that code, see
:data:`ERROR_CLASSES`). The instance carries the numeric ``code``, the symbolic ``name``
(``"FPX_ERROR_TIMEOUT"``), the library's own English ``message`` (``fpx_error_string``)
and, when known, the C ``function`` that returned it.

Errors the binding detects itself before calling the library (a NaN target, a negative
tolerance, a closed player) use the same classes and codes the library would have returned,
so ``except InvalidTimeError`` catches both.

Subclasses also derive from the closest built-in exception, so generic handlers work:
``InvalidTimeError`` is a ``ValueError``, ``FastPixTimeoutError`` a ``TimeoutError``,
``FastPixIOError`` an ``OSError``, ``EndOfFile`` an ``EOFError`` and so on.

The classes, their codes and their docstrings are generated from Include/fastpix/seek.h
(tools/abi_gen.py); their names and built-in bases are kept in that generator.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Type

from ._abi import ERRORS as _ERRORS

'''

ERRORS_PY_BASE = '''

#: fpx_error values, as in Include/fastpix/seek.h.
ERROR_NAMES: Dict[int, str] = {code: name for code, (name, _) in _ERRORS.items()}


class FastPixSeekError(Exception):
    """Base class of every error of the library and of this binding.

    Attributes:
        code: the negative ``fpx_error`` value.
        name: its symbolic name, e.g. ``"FPX_ERROR_INVALID_TIME"`` (``"FPX_UNKNOWN"`` for codes
            this binding does not know).
        message: the library's description (``fpx_error_string(code)``).
        function: the C function that returned the code, or ``None`` when the binding raised
            the error itself.
        detail: extra context added by the binding (``None`` when there is none).
        url: the item's path or URL when the error is about it (the binding names it: errors
            of ``Player.wait_item``, the frame helpers), else ``None``; the text then opens
            with it.
    """

    #: The code a subclass stands for; the base class uses whatever code it is given.
    default_code: int = 0

    code: int
    name: str
    message: str
    function: Optional[str]
    detail: Optional[str]
    url: Optional[str] = None

    def __init__(self, code: Optional[int] = None, message: Optional[str] = None,
                 function: Optional[str] = None, detail: Optional[str] = None) -> None:
        c = self.default_code if code is None else int(code)
        self.code = c
        self.name = ERROR_NAMES.get(c, "FPX_UNKNOWN")
        self.message = message if message is not None else _fallback_message(c)
        self.function = function
        self.detail = detail
        super().__init__(self._text())

    def _text(self) -> str:
        head = f"{self.url}: " if self.url else f"{self.function}: " if self.function else ""
        tail = f" ({self.detail})" if self.detail else ""
        return f"{head}{self.name} ({self.code}): {self.message}{tail}"

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]  # picklable despite the keyword-style constructor
        return (type(self), (self.code, self.message, self.function, self.detail),
                {"url": self.url})


#: fpx_error_string, installed by fastpix_seek._lib once the library is bound, so errors the
#: binding raises itself carry the library's own message too.
_message_source: Optional[Callable[[int], str]] = None


def _fallback_message(code: int) -> str:
    if _message_source is not None:
        try:
            return _message_source(code)
        except Exception:
            pass
    entry = _ERRORS.get(code)
    return entry[1] if entry else "unknown error"
'''

ERRORS_PY_TAIL = '''

def error_class_for(code: int) -> Type[FastPixSeekError]:
    """The exception class for an fpx_error code (FastPixSeekError for unknown codes)."""
    return ERROR_CLASSES.get(int(code), FastPixSeekError)
'''


def py_error_class(const: dict) -> Tuple[str, Tuple[str, ...], str]:
    if const["name"] in PY_ERRORS:
        return PY_ERRORS[const["name"]]
    return (camel(const["name"][len("FPX_ERROR_"):].split("_"), True) + "Error", (), "")


def gen_errors_py(model: dict) -> str:
    errs = [c for c in errors_of(model) if c["value"] != 0]
    unknown = set(PY_ERRORS) - {c["name"] for c in errs}
    if unknown:
        raise GenError(f"tools/abi_gen.py: PY_ERRORS names codes the header lacks: {sorted(unknown)}")
    classes = [(c, *py_error_class(c)) for c in errs]
    o = [f"# {STAMP}\n", ERRORS_PY_HEAD, "__all__ = [\n", '    "FastPixSeekError",\n']
    for _, cls, _, _ in classes:
        o.append(f'    "{cls}",\n')
    o.append('    "ERROR_CLASSES",\n    "ERROR_NAMES",\n    "error_class_for",\n]\n')
    o.append(ERRORS_PY_BASE)
    for c, cls, bases, note in classes:
        doc = f"{c['name']}: {c['doc']}."
        if note:
            doc += "\n\n" + note
        o.append(f"\n\nclass {cls}({', '.join(('FastPixSeekError',) + bases)}):\n")
        o.append(py_doc(doc, "    "))
        o.append(f"    default_code = {c['value']}\n")
    o.append("\n\n#: code -> exception class. Unknown codes map to FastPixSeekError itself.\n")
    o.append("ERROR_CLASSES: Dict[int, Type[FastPixSeekError]] = {\n")
    for _, cls, _, _ in classes:
        o.append(f"    {cls}.default_code: {cls},\n")
    o.append("}\n")
    o.append(ERRORS_PY_TAIL)
    return "".join(o)


def gen_json(model: dict) -> str:
    # The stamp on the first line, as in every generated file.
    body = json.dumps(model, indent=1)
    return "{" + f'"generated": {json.dumps(STAMP)},' + body[1:] + "\n"


def gen_c_test(model: dict) -> str:
    errs = errors_of(model)
    o = [f"/* {STAMP} */\n",
         "/*\n * test_abi_tables: every name and string the library gives for the header's\n"
         " * constants is the header's: fpx_error_name and fpx_error_string (the constant's doc\n"
         " * comment, word for word) for every fpx_error code, every fpx_*_name function for\n"
         " * every constant of its enum, and the fallbacks for values the header does not\n"
         " * define. The values come from the header's constants, so a renumbering that the\n"
         " * library missed fails here.\n */\n",
         '#include "check.h"\n\n#include <limits.h>\n\n',
         "struct entry { const char *name; int value; const char *text; };\n\n",
         "static const struct entry errors[] = {\n"]
    for c in errs:
        o.append(f"    {{{c_str(c['name'])}, {c['name']}, {c_str(c['doc'])}}},\n")
    o.append("};\n\n")
    tables = name_functions(model)
    for f, e in tables:
        o.append(f"static const struct entry {e['name']}_names[] = {{\n")
        for c in e["constants"]:
            o.append(f"    {{{c_str(c['name'])}, {c['name']}, NULL}},\n")
        o.append("};\n\n")
    o.append("static void check_table(const char *fn, const char *(*name_of)(int), const struct entry *t, size_t n)\n")
    o.append("{\n    size_t i;\n    int probe;\n    for (i = 0; i < n; i++) {\n"
             "        if (!CHECK_STR(name_of(t[i].value), t[i].name))\n"
             "            NOTE(\"%s(%d)\", fn, t[i].value);\n    }\n"
             "    for (probe = -1000; probe <= 1000; probe += 7) {\n"
             "        int known = 0;\n"
             "        for (i = 0; i < n; i++)\n            known |= t[i].value == probe;\n"
             "        if (!known && !CHECK_STR(name_of(probe), \"FPX_UNKNOWN\"))\n"
             "            NOTE(\"%s(%d)\", fn, probe);\n    }\n}\n\n")
    o.append("int main(int argc, char **argv)\n{\n    size_t i, j, n = sizeof errors / sizeof errors[0];\n"
             "    int probe;\n    check_init(argc, argv, 30);\n\n"
             "    SECTION(\"fpx_error_name and fpx_error_string: the header's name and text of every code\");\n"
             "    for (i = 0; i < n; i++) {\n"
             "        CHECK_STR(fpx_error_name(errors[i].value), errors[i].name);\n"
             "        if (!CHECK_STR(fpx_error_string(errors[i].value), errors[i].text))\n"
             "            NOTE(\"fpx_error_string(%s)\", errors[i].name);\n"
             "        for (j = 0; j < i; j++)\n"
             "            if (!CHECK(strcmp(errors[i].text, errors[j].text) != 0))\n"
             "                NOTE(\"%s and %s share their text\", errors[i].name, errors[j].name);\n"
             "    }\n\n"
             "    SECTION(\"codes the header does not define: \\\"unknown error\\\" and FPX_UNKNOWN\");\n"
             "    for (probe = -1000; probe <= 1000; probe += 3) {\n"
             "        int known = 0;\n"
             "        for (i = 0; i < n; i++)\n            known |= errors[i].value == probe;\n"
             "        if (known)\n            continue;\n"
             "        if (!CHECK_STR(fpx_error_string(probe), \"unknown error\") ||\n"
             "            !CHECK_STR(fpx_error_name(probe), \"FPX_UNKNOWN\"))\n"
             "            NOTE(\"code %d\", probe);\n    }\n"
             "    CHECK_STR(fpx_error_string(INT_MIN), \"unknown error\");\n"
             "    CHECK_STR(fpx_error_name(INT_MAX), \"FPX_UNKNOWN\");\n")
    for f, e in tables:
        o.append(f"\n    SECTION(\"{f['name']}: every {e['name']} constant, and FPX_UNKNOWN\");\n")
        o.append(f"    check_table(\"{f['name']}\", {f['name']}, {e['name']}_names,\n"
                 f"                sizeof {e['name']}_names / sizeof {e['name']}_names[0]);\n")
    o.append("    return check_summary();\n}\n")
    return "".join(o)


def callback_test_arg(fn: str, param: dict) -> str:
    """A C argument for a call made only to see whether the function refuses to run inside a
    callback: the test's own handles, else zero, NULL or the zero time."""
    t, d = param["type"], param["desugared"]
    if t == "fpx_player *":
        return "NULL" if fn == "fpx_player_destroy" else "t.player"
    if t == "fpx_scrub_session *":
        return "t.scrub"
    if "*" in d or "(" in d:
        return "NULL"
    if t == "fpx_time":
        return "fpx_time_make(0, 1)"
    if t == "fpx_precision":
        return "fpx_precision_exact()"
    if t in ("int", "int32_t", "int64_t", "uint32_t", "uint64_t", "unsigned int", "size_t") or \
            d.startswith("enum ") or any(e_ == t for e_ in ("fpx_frame_step_direction",)):
        return f"({t})0"
    raise GenError(f"tools/abi_gen.py: no test argument for {fn}'s parameter {param['name']} ({t})")


def gen_callback_test(model: dict) -> str:
    """test_callback_safety.c: every int function that takes a player or a scrub session,
    called from inside a callback, returns FPX_ERROR_IN_CALLBACK exactly when the header
    does not mark it "Callback-safe: yes"."""
    calls = []
    for f in model["functions"]:
        ps = f["params"]
        if not f["type"].startswith("int (") or not ps or ps[0]["type"] not in ("fpx_player *", "fpx_scrub_session *"):
            continue
        args = ", ".join(callback_test_arg(f["name"], p) for p in ps)
        calls.append((f, f"{f['name']}({args})"))
    # close_item last: the functions before it then still see the item
    calls.sort(key=lambda fc: fc[0]["name"] == "fpx_player_close_item")
    o = [f"/* {STAMP} */\n",
         "/*\n * test_callback_safety: the header's \"Callback-safe:\" line of every function that\n"
         " * takes a player or a scrub session, as the library enforces it. Each is called from\n"
         " * inside a seek completion (FPX_DELIVERY_HOST, dispatched on this thread), with the\n"
         " * test's handles and zero or NULL for every other argument: a function marked\n"
         " * \"Callback-safe: no\" must return FPX_ERROR_IN_CALLBACK, one marked \"yes\" must not.\n"
         " * (fpx_player_destroy gets NULL: destroying from a callback has its own tests.)\n */\n",
         '#include "check.h"\n\n',
         "struct call { const char *name; int callback_safe; int rc; };\n\n",
         "static struct {\n    fpx_player *player;\n    fpx_scrub_session *scrub;\n    int ran;\n"
         f"    struct call calls[{len(calls)}];\n}} t;\n\n",
         "static void in_callback(const fpx_seek_outcome *outcome, void *userdata)\n{\n    int i = 0;\n"
         "    (void)outcome;\n    (void)userdata;\n    if (t.ran++)\n        return;\n"]
    for f, call in calls:
        o.append(f"    t.calls[i].name = {c_str(f['name'])};\n")
        o.append(f"    t.calls[i].callback_safe = {1 if f['callback_safe'] else 0};\n")
        o.append(f"    t.calls[i++].rc = {call};\n")
    o.append("}\n\n")
    o.append("int main(int argc, char **argv)\n{\n    size_t i;\n"
             "    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};\n"
             "    int dispatched = 0;\n    check_init(argc, argv, 60);\n"
             "    SECTION(\"every player function from inside a callback: IN_CALLBACK exactly when not callback-safe\");\n"
             "    t.player = make_player(FPX_DELIVERY_HOST);\n    REQUIRE(t.player != NULL);\n"
             "    REQUIRE(open_wait(t.player, fixture(\"mp4_bframes.mp4\"), &st) == FPX_OK);\n"
             "    CHECK_OK(fpx_player_setup_seek_manager(t.player));\n"
             "    CHECK_OK(fpx_player_scrub_session(t.player, &t.scrub));\n"
             "    CHECK_OK(fpx_player_seek(t.player, fpx_time_make(1, 1), fpx_precision_exact(), in_callback, NULL, NULL));\n"
             "    while (!t.ran && dispatched < 1000) {\n        int n = 0;\n"
             "        CHECK_OK(fpx_player_dispatch_events(t.player, &n));\n        dispatched++;\n"
             "        if (!t.ran)\n            sleep_ms(5);\n    }\n"
             "    REQUIRE(t.ran);\n"
             "    for (i = 0; i < sizeof t.calls / sizeof t.calls[0]; i++) {\n"
             "        const struct call *c = &t.calls[i];\n"
             "        if (c->callback_safe) {\n"
             "            if (!CHECK(c->rc != FPX_ERROR_IN_CALLBACK))\n"
             "                NOTE(\"%s is Callback-safe: yes but returned FPX_ERROR_IN_CALLBACK\", c->name);\n"
             "        } else if (!CHECK_EQ(c->rc, FPX_ERROR_IN_CALLBACK)) {\n"
             "            NOTE(\"%s is Callback-safe: no but returned %d (%s)\", c->name, c->rc, fpx_error_name(c->rc));\n"
             "        }\n    }\n"
             "    CHECK_OK(fpx_player_destroy(t.player));\n"
             "    return check_summary();\n}\n")
    return "".join(o)


def gen_abi_fields_h(model: dict) -> str:
    """X-macros of every member of every output struct (those that start with
    struct_size), for Tests/c/test_abi_structs.c: a member added to the header is
    compared there without anyone copying its name. A member whose type is another
    fpx_ struct is listed leaf by leaf, by its dotted path (offsetof takes one), never
    with its padding."""
    sf = model["struct_fields"]
    o = [f"/* {STAMP} */\n",
         "/* Every leaf member of every output struct of seek.h, in declaration order, after\n"
         " * struct_size: FPX_FIELDS_<struct>(X) calls X(T, path), path a member or a dotted\n"
         " * path into a member of struct type. FPX_OUTPUT_STRUCTS(Y) calls Y(T) for each. */\n",
         "#ifndef FPX_TEST_ABI_FIELDS_H\n#define FPX_TEST_ABI_FIELDS_H\n\n"]
    outputs = [n for n in sorted(sf) if sf[n] and sf[n][0]["name"] == "struct_size"]

    def leaves(members: List[dict], prefix: str) -> List[str]:
        out: List[str] = []
        for m in members:
            path = prefix + m["name"]
            if m["type"] in sf:
                out += leaves(sf[m["type"]], path + ".")
            else:
                out.append(path)
        return out

    for n in outputs:
        items = [f"X({n}, {p})" for p in leaves(sf[n][1:], "")]
        o.append(f"#define FPX_FIELDS_{n}(X) \\\n    " + " \\\n    ".join(items) + "\n\n")
    o.append("#define FPX_OUTPUT_STRUCTS(Y) \\\n    " + " \\\n    ".join(f"Y({n})" for n in outputs) + "\n\n")
    o.append("#endif\n")
    return "".join(o)


def gen_version_mk(model: dict) -> str:
    m = {x["name"]: x["value"] for x in model["macros"]}
    return (f"# {STAMP}\n"
            "# The header's version, for the Makefile (which must not need Python to build).\n"
            f"FPX_VERSION_MAJOR := {m['FPX_VERSION_MAJOR']}\n"
            f"FPX_VERSION_MINOR := {m['FPX_VERSION_MINOR']}\n"
            f"FPX_VERSION_PATCH := {m['FPX_VERSION_PATCH']}\n")


OUTPUTS = [
    ("Sources/FastPixSeekPolicy/ErrorCode.swift", gen_error_code_swift),
    ("Sources/FastPixSeekPolicy/ABIEnums.swift", gen_core_enums_swift),
    ("Sources/FastPixSeek/ABITables.swift", gen_tables_swift),
    ("Bindings/python/fastpix_seek/_abi.py", gen_abi_py),
    ("Bindings/python/fastpix_seek/errors.py", gen_errors_py),
    ("Tests/abi/seek-h.json", gen_json),
    ("tools/abi-version.mk", gen_version_mk),
    ("Tests/c/test_abi_tables.c", gen_c_test),
    ("Tests/c/abi_fields.h", gen_abi_fields_h),
    ("Tests/c/test_callback_safety.c", gen_callback_test),
]


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail when a generated file is stale")
    ap.add_argument("--json", action="store_true", help="print the JSON description only")
    ap.add_argument("--header", type=Path, help="read this seek.h (in an Include/fastpix/ tree) "
                    "instead of the checkout's (for the generator's own tests)")
    ap.add_argument("--out", type=Path, help="write (or --check) the files under this directory "
                    "instead of the checkout")
    args = ap.parse_args(argv)
    global HEADER
    if args.header:
        HEADER = args.header.resolve()
    out_root = args.out.resolve() if args.out else ROOT
    try:
        model = read_header(find_clang())
        rendered = [(rel, fn(model)) for rel, fn in OUTPUTS]
    except GenError as e:
        print(f"abi_gen: {e}", file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(gen_json(model))
        return 0
    stale = []
    for rel, text in rendered:
        path = out_root / rel
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if args.check:
        if stale:
            print("abi_gen: stale generated files (run `make gen`): " + ", ".join(stale), file=sys.stderr)
            return 1
        return 0
    for rel in stale:
        print(f"abi_gen: wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
