"""docs/ARCHITECTURE.md stays true to the tree and findable from it (issue 32.5):
every section a source comment points at ("docs/ARCHITECTURE.md, "Priming"") is a heading
of the document, every `Type.member` it names is a member of a type declared in Sources,
and every source file it names exists.

Reads the source tree only: no build, no library."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def headings():
    return [m.group(1).strip() for m in re.finditer(r"^#{2,4} (.+)$", DOC.read_text(), re.M)]


def comment_text(path):
    """The file with comment lines joined, so a reference cut over two lines reads whole."""
    text = path.read_text()
    return re.sub(r"\n\s*(///?|#)\s*", " ", text)


def references():
    """(file, section) for every section named after a mention of docs/ARCHITECTURE.md."""
    files = sorted((ROOT / "Sources").rglob("*.swift")) + [ROOT / "Makefile", ROOT / "Package.swift",
                                                           ROOT / "RELIABILITY.md", ROOT / "README.md",
                                                           ROOT / "BENCHMARKS.md"]
    found = []
    for f in files:
        for m in re.finditer(r"ARCHITECTURE\.md([^);\n]{0,160})", comment_text(f)):
            for name in re.findall(r"\"([^\"]+)\"", m.group(1)):
                found.append((f.relative_to(ROOT), name))
    return found


def test_sections_pointed_at_exist():
    refs = references()
    assert len(refs) >= 10, refs  # the scan finds the comments' pointers
    heads = headings()
    missing = sorted({f"{f}: \"{name}\"" for f, name in refs if not any(h.startswith(name) for h in heads)})
    assert not missing, "sections named but not in docs/ARCHITECTURE.md: " + "; ".join(missing)


def test_names_in_the_document_exist():
    doc = re.sub(r"```.*?```", "", DOC.read_text(), flags=re.S)
    sources = {p: p.read_text() for p in (ROOT / "Sources").rglob("*.swift")}
    every_file = {p.name for d in ("Sources", "Tests", "Bindings", "tools", "Include", "Benchmarks", "Examples")
                  for p in (ROOT / d).rglob("*") if p.is_file()}
    bad = []
    for token in sorted(set(re.findall(r"`([^`\n]+)`", doc))):
        for f in re.findall(r"[\w+.-]+\.(?:swift|py|c|sh)\b", token):
            if pathlib.PurePath(f).name not in every_file:
                bad.append(f"file {f}")
        m = re.match(r"^([A-Z]\w+)\.([a-z]\w*)", token)
        if not m or token.endswith((".swift", ".py", ".c", ".sh", ".h", ".md", ".so")):
            continue
        owner, member = m.groups()
        decl = re.compile(r"\b(?:class|struct|enum|protocol|extension|typealias)\s+%s\b" % owner)
        homes = [s for s in sources.values() if decl.search(s)]
        if not homes:
            bad.append(f"type {owner} ({token})")
        elif not any(re.search(r"\b%s\b" % member, s) for s in homes):
            bad.append(f"member {token}")
    assert not bad, "docs/ARCHITECTURE.md names what Sources does not have: " + ", ".join(bad)


def test_the_places_a_newcomer_looks_for():
    """The table "Where each rule lives" answers the questions of issue 32."""
    doc = DOC.read_text()
    table = doc[doc.index("## Where each rule lives"):doc.index("## The data flow of one seek")]
    for question, place in (("landing is decided", "Lander+Rules.swift"), ("segment is fetched", "HLSFetch.swift"),
                            ("error gets its message", "ErrorCode.swift"),
                            ("continuation decides", "Lander+Continuation.swift"),
                            ("AES-128 decrypts", "HLSFetch.decrypt"), ("lock order", "Sync.swift")):
        row = next((line for line in table.splitlines() if question in line), None)
        assert row and place in row, f"no row for '{question}' naming {place}"
