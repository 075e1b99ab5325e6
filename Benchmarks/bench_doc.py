"""Writing one benchmark's section of BENCHMARKS.md: the text between the markers
`<!-- section:NAME -->` and `<!-- /section:NAME -->` is replaced by a new run's; a section not
there yet goes before `anchor` (when the file has it) or at the end. Nothing else of the file
changes, so hand-written notes around a section survive a rerun.
"""
from __future__ import annotations

from pathlib import Path
from typing import List


def markers(name: str) -> tuple:
    return f"<!-- section:{name} -->", f"<!-- /section:{name} -->"


def write_section(path: str, name: str, text: str, anchor: str = "## Reproduce") -> None:
    out = Path(path)
    begin, end = markers(name)
    old = out.read_text() if out.exists() else ""
    block = f"{begin}\n{text}\n{end}"
    if begin in old and end in old:
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end):]
    elif anchor in old:
        new = old.replace(anchor, block + "\n\n" + anchor, 1)
    else:
        new = old + ("\n" if old else "") + block + "\n"
    out.write_text(new)


def kept_sections(out: str) -> List[str]:
    """The sections other drivers put into the report (between "<!-- section:NAME -->" and
    "<!-- /section:NAME -->", e.g. frame_bench.py's), taken from the report being replaced so
    that regenerating it does not drop them."""
    try:
        old = Path(out).read_text()
    except OSError:
        return []
    kept: List[str] = []
    pos = 0
    while True:
        i = old.find("<!-- section:", pos)
        if i < 0:
            return kept
        name = old[i + len("<!-- section:"):old.find(" -->", i)]
        end = f"<!-- /section:{name} -->"
        j = old.find(end, i)
        if j < 0:
            return kept
        kept += [old[i:j + len(end)], ""]
        pos = j + len(end)
