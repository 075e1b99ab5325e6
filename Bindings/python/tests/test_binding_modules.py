"""Issue 29.10 (deliverable 7): the package split along its concerns -- callbacks and delivery
(_delivery), blocking calls (_calls), packets (_packets), asyncio (_asyncio), scrub and steps
(_scrub), live (_live), the player's lifecycle, items and seeks (player) -- with the frame
helpers (frames, pyav) on top of the player's floors.

* No import cycle: the graph of every import between the package's modules, including the
  ones inside functions and under ``TYPE_CHECKING`` (player.py and frames.py used to import
  each other that way), has no cycle.
* The frame helpers import no module of the player (only the floors under it and a Protocol
  of its public methods); only player.py (which hands its frame methods over to them) and the
  package's __init__ import them, and the sheet maker (sprites), which is over both: it opens
  a Player and lands and decodes through the frame helpers; nothing imports it.
* Each module imports alone in a fresh interpreter; frames does not import PyAV until a frame
  is asked for.
* The public API is what it was before the split: public_api.json was recorded from the
  package before it (fpx_public_api.py: every public module's ``__all__``, the package's
  names, the public methods of Player, ScrubSession, SeekPrecisionListener and FrameReader
  with their parameters).
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

import pytest

import fpx_public_api

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "fastpix_seek"

#: The modules of the player (everything the frame helpers must not import).
PLAYER_MODULES = {"player", "_delivery", "_calls", "_base", "_packets", "_asyncio", "_scrub",
                  "_live", "_preview"}
FRAME_HELPERS = {"frames", "pyav"}
#: Over the player and the frame helpers (fastpix_seek.sprites): imported by no module.
SHEET_MAKERS = {"sprites"}


def _modules() -> List[str]:
    return sorted(p.stem for p in PACKAGE.glob("*.py"))


def _imports(name: str) -> Set[str]:
    """The package's modules ``name`` imports anywhere in its source (top level, inside
    functions, under TYPE_CHECKING)."""
    mods = set(_modules())
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    out: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:  # from . import x
                out.update(a.name for a in node.names if a.name in mods)
            elif node.level == 1 and node.module:
                out.add(node.module.split(".")[0])
            elif node.level == 0 and node.module and node.module.startswith("fastpix_seek"):
                parts = node.module.split(".")
                if len(parts) > 1:
                    out.add(parts[1])
                else:
                    out.update(a.name for a in node.names if a.name in mods)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "fastpix_seek" and len(parts) > 1:
                    out.add(parts[1])
    out.discard(name)
    return out & mods


def _graph() -> Dict[str, Set[str]]:
    return {m: _imports(m) for m in _modules()}


def test_no_import_cycle() -> None:
    graph = _graph()
    state: Dict[str, int] = {}
    path: List[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = path[path.index(n):] + [n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m)
    # The one the issue named is gone both ways.
    assert "frames" not in graph["player"] or "player" not in graph["frames"]
    assert "player" not in graph["frames"] and "player" not in graph["pyav"]


def test_frame_helpers_are_the_top_floor() -> None:
    graph = _graph()
    for helper in FRAME_HELPERS:
        assert not graph[helper] & PLAYER_MODULES, (helper, graph[helper] & PLAYER_MODULES)
    importers = {m for m, deps in graph.items() if deps & FRAME_HELPERS} - FRAME_HELPERS
    assert importers <= {"player", "__init__"} | SHEET_MAKERS, importers
    assert not {m for m, deps in graph.items() if deps & SHEET_MAKERS}
    # Every other module of the player is under player.py: none imports it.
    assert not {m for m, deps in graph.items() if "player" in deps} - {"__init__"} - SHEET_MAKERS


@pytest.mark.parametrize("module", [m for m in sorted(p.stem for p in PACKAGE.glob("*.py"))])
def test_each_module_imports_alone(module: str) -> None:
    name = "fastpix_seek" if module == "__init__" else f"fastpix_seek.{module}"
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r})\n"
            f"import importlib; importlib.import_module({name!r})\n"
            "print('AV' if 'av' in sys.modules else 'NOAV')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    if module != "pyav":
        assert out.stdout.strip() == "NOAV", f"importing {name} imported PyAV"


def test_public_api_unchanged() -> None:
    recorded = json.loads((HERE / "public_api.json").read_text())
    now = fpx_public_api.record()
    assert now["modules"] == recorded["modules"]
    assert now["top_level_attributes"] == recorded["top_level_attributes"]
    for cls, members in recorded["classes"].items():
        assert now["classes"][cls] == members, cls


def test_player_is_no_longer_one_module_of_everything() -> None:
    """player.py was 2,180 lines with nine concerns; each concern now has its module and
    player.py keeps the player's lifecycle, items and seeks."""
    sizes = {p.stem: len(p.read_text().splitlines()) for p in PACKAGE.glob("*.py")}
    assert sizes["player"] < 1000, sizes
    assert all(sizes[m] < 600 for m in PLAYER_MODULES - {"player"}), sizes
