"""The lock order is written once, in the header comment of
Sources/FastPixSeekCore/Sync.swift (issue 32.4): every lock the library declares is named
there by its owner type and field, every name there is a lock that exists, the library
has no lock primitive but `Monitor`, and no other file states an order of its own (a
mention of "lock order" elsewhere points at Sync.swift).

Reads the source tree only: no build, no library."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SYNC = ROOT / "Sources" / "FastPixSeekCore" / "Sync.swift"
# The library's modules (the fpx-seek tool's own waits are not the library's locks).
LIBRARY = [ROOT / "Sources" / m for m in ("FastPixSeek", "FastPixSeekCore", "FastPixSeekEngine",
                                          "FastPixSeekPolicy")]

TYPE_DECL = re.compile(r"^(\s*)(?:(?:public|private|fileprivate|internal|final|open|indirect)\s+)*"
                       r"(?:class|struct|enum|actor|extension)\s+(\w+)")
MONITOR_DECL = re.compile(r"^(\s*)(?:(?:public|private|fileprivate|internal|static|nonisolated\(unsafe\))\s+)*"
                          r"(?:let|var)\s+(\w+)\s*(?::\s*Monitor\s*)?=\s*Monitor\(\)")


def declared_locks():
    """(Owner.field, file:line) of every `Monitor()` stored by a type of the library."""
    found = []
    for module in LIBRARY:
        for f in sorted(module.rglob("*.swift")):
            owners = []  # (indent, name) of the enclosing type declarations
            for n, line in enumerate(f.read_text().splitlines(), 1):
                t = TYPE_DECL.match(line)
                if t:
                    indent = len(t.group(1))
                    owners = [o for o in owners if o[0] < indent] + [(indent, t.group(2))]
                    continue
                m = MONITOR_DECL.match(line)
                if m:
                    indent = len(m.group(1))
                    enclosing = [o for o in owners if o[0] < indent]
                    assert enclosing, f"{f.relative_to(ROOT)}:{n}: a Monitor outside any type: {line.strip()}"
                    found.append((f"{enclosing[-1][1]}.{m.group(2)}", f"{f.relative_to(ROOT)}:{n}"))
                elif "Monitor()" in line and "//" not in line.split("Monitor()")[0]:
                    raise AssertionError(f"{f.relative_to(ROOT)}:{n}: a Monitor this test cannot name: "
                                         f"{line.strip()}")
    return found


def header_comment():
    """The `//` comment block of Sync.swift that states the order."""
    text = SYNC.read_text()
    start = text.index("// THE LOCKS AND THEIR ORDER")
    block = []
    for line in text[start:].splitlines():
        if not line.startswith("//"):
            break
        block.append(line)
    return "\n".join(block)


def listed_locks(comment):
    """The lock table: lines `//   Owner.field   what it guards` between the first level
    heading and "The order:"."""
    table = comment[comment.index("// Level 1"):comment.index("// The order:")]
    return {m.group(1) for m in re.finditer(r"^//   ([A-Z]\w*\.\w+)\s{2,}", table, re.M)}


def test_every_lock_is_listed_in_sync_swift_and_every_listed_lock_exists():
    declared = declared_locks()
    assert len(declared) >= 20, declared  # the scan found the library's locks
    names = {n for n, _ in declared}
    assert len(names) == len(declared), f"two locks with one name: {sorted(declared)}"
    listed = listed_locks(header_comment())
    missing = sorted(f"{n} ({where})" for n, where in declared if n not in listed)
    assert not missing, "locks missing from Sync.swift's lock order: " + ", ".join(missing)
    stale = sorted(listed - names)
    assert not stale, "Sync.swift's lock order lists locks that do not exist: " + ", ".join(stale)


def test_every_lock_has_one_level():
    comment = header_comment()
    table = comment[comment.index("// Level 1"):comment.index("// The order:")]
    levels = [m.start() for m in re.finditer(r"^// Level \d", table, re.M)]
    assert len(levels) >= 3
    for name in listed_locks(comment):
        assert len(re.findall(r"^//   %s\s" % re.escape(name), table, re.M)) == 1, name


def test_the_callback_rule_is_there():
    comment = header_comment()
    assert "Callbacks" in comment
    for phrase in ("no library lock held", "Callback-safe: yes", "FPX_ERROR_IN_CALLBACK", "shouldStop"):
        assert phrase in comment, phrase


def test_no_other_lock_primitive():
    for module in LIBRARY:
        for f in sorted(module.rglob("*.swift")):
            if f == SYNC:
                continue
            for n, line in enumerate(f.read_text().splitlines(), 1):
                code = line.split("//")[0]
                for prim in ("pthread_mutex", "pthread_rwlock", "pthread_spin", "os_unfair_lock", "NSLock",
                             "NSRecursiveLock", "NSCondition", "Mutex<", "DispatchQueue", "DispatchSemaphore"):
                    assert prim not in code, f"{f.relative_to(ROOT)}:{n}: {prim} (locks are Monitors: Sync.swift)"


def test_no_second_copy_of_the_order():
    """Elsewhere a "lock order" is only a pointer to Sync.swift."""
    files = [p for module in LIBRARY for p in module.rglob("*.swift") if p != SYNC]
    files += [ROOT / "docs" / "ARCHITECTURE.md", ROOT / "README.md", ROOT / "RELIABILITY.md",
              ROOT / "Include" / "fastpix" / "seek.h"]
    for f in files:
        lines = f.read_text().splitlines()
        for n, line in enumerate(lines, 1):
            if re.search(r"lock order", line, re.I):
                context = " ".join(lines[max(0, n - 3):n + 2])
                assert "Sync.swift" in context, f"{f.relative_to(ROOT)}:{n}: a lock order not pointing at Sync.swift"
            # An order spelled out as a chain of locks (engineLock -> Player.m ...).
            assert not re.search(r"\b(engineLock|Player\.m)\s*(->|→)", line), \
                f"{f.relative_to(ROOT)}:{n}: a lock order written outside Sync.swift"
