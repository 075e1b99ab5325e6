"""The public API of fastpix_seek as data (names, and signatures of the Player's methods), for
test_binding_modules.py: ``python fpx_public_api.py OUT.json`` records it (done once before
the package was split along its concerns; public_api.json is that record)."""
from __future__ import annotations

import importlib
import inspect
import json
import sys
import types
from typing import Any, Dict, List

#: The modules a user imports by name (documented in the package and the README).
PUBLIC_MODULES = ["fastpix_seek", "fastpix_seek.errors", "fastpix_seek.types",
                  "fastpix_seek.player", "fastpix_seek.frames", "fastpix_seek.pyav",
                  "fastpix_seek.frame_errors", "fastpix_seek.item_errors",
                  "fastpix_seek.sprites"]

#: Classes whose public attributes and signatures are part of the API.
PUBLIC_CLASSES = ["fastpix_seek.Player", "fastpix_seek.ScrubSession",
                  "fastpix_seek.SeekPrecisionListener", "fastpix_seek.frames.FrameReader"]


def _signature(fn: Any) -> str:
    """Parameter names, kinds and defaults: what a caller depends on (annotations are the
    type checker's business and may name private classes)."""
    parts = []
    for p in inspect.signature(fn).parameters.values():
        text = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        if p.default is not p.empty:
            text += "=" + repr(p.default)
        parts.append(("kw:" if p.kind == p.KEYWORD_ONLY else "") + text)
    return "(" + ", ".join(parts) + ")"


def _members(cls: type) -> Dict[str, str]:
    out = {}
    for name in sorted(dir(cls)):
        if name.startswith("_") and name not in ("__init__", "__enter__", "__exit__"):
            continue
        attr = inspect.getattr_static(cls, name)
        if isinstance(attr, property):
            out[name] = "property" + (" settable" if attr.fset is not None else "")
        elif isinstance(attr, (staticmethod, classmethod)):
            out[name] = type(attr).__name__ + _signature(attr.__func__)
        elif callable(attr):
            kind = "async " if inspect.iscoroutinefunction(attr) or \
                inspect.isasyncgenfunction(attr) else ""
            out[name] = kind + _signature(attr)
        else:
            out[name] = "attribute"
    return out


def record() -> Dict[str, Any]:
    api: Dict[str, Any] = {"modules": {}, "classes": {}}
    for m in PUBLIC_MODULES:
        mod = importlib.import_module(m)
        names: List[str] = sorted(getattr(mod, "__all__", []))
        api["modules"][m] = names
    top = importlib.import_module("fastpix_seek")
    api["top_level_attributes"] = sorted(
        n for n in dir(top) if not n.startswith("_")
        and not isinstance(getattr(top, n), types.ModuleType))
    for path in PUBLIC_CLASSES:
        mod_name, _, cls_name = path.rpartition(".")
        cls = getattr(importlib.import_module(mod_name), cls_name)
        api["classes"][path] = _members(cls)
    return api


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else ".")
    with open(sys.argv[1], "w") as f:
        json.dump(record(), f, indent=1, sort_keys=True)
        f.write("\n")
