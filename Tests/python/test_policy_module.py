"""The landing policy (Sources/FastPixSeekPolicy) stays the core's innermost part:
it imports nothing (no Glibc, no Foundation, no FFmpeg: no I/O, no threads), its
SwiftPM target depends on nothing, the core depends on it, and docs/ARCHITECTURE.md
names every one of its files."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
POLICY = ROOT / "Sources" / "FastPixSeekPolicy"


def test_policy_imports_nothing():
    files = sorted(POLICY.glob("*.swift"))
    assert files, "the policy target has sources"
    for f in files:
        for n, line in enumerate(f.read_text().splitlines(), 1):
            assert not re.match(r"\s*(@_exported\s+|@testable\s+)?import\s", line), f"{f.name}:{n}: {line}"
            assert "canImport" not in line, f"{f.name}:{n}: {line}"


def test_policy_target_depends_on_nothing_and_the_core_on_it():
    pkg = (ROOT / "Package.swift").read_text()
    assert re.search(r'\.target\(name: "FastPixSeekPolicy"\)', pkg), "the policy target has no dependencies"
    assert re.search(r'\.target\(name: "FastPixSeekCore", dependencies: \["FastPixSeekPolicy"\]\)', pkg)
    for target in ("FastPixSeekEngine", "FastPixSeek"):
        m = re.search(r'\.target\(name: "%s",\s*dependencies: \[([^\]]*)\]' % target, pkg)
        assert m and "FastPixSeekPolicy" not in m.group(1), f"{target} reaches the policy through the core"


def test_architecture_names_every_policy_file():
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    assert "innermost part" in doc
    for f in POLICY.glob("*.swift"):
        assert f.name in doc, f"docs/ARCHITECTURE.md does not name {f.name}"
