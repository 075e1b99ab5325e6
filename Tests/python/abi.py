"""The header's constants as clang read them: Tests/abi/seek-h.json, which tools/abi_gen.py
generates from Include/fastpix/seek.h (the meta-tests fail when it is stale). Tests take their
codes, flags and enum values from here instead of keeping copies of the header's tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

ABI = json.loads((Path(__file__).resolve().parents[1] / "abi" / "seek-h.json").read_text())

#: Every macro and enumerator of the header: name -> value.
C: Dict[str, int] = {m["name"]: m["value"] for m in ABI["macros"]}
C.update({c["name"]: c["value"] for e in ABI["enums"] for c in e["constants"]})
