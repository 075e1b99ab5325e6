"""Every FFmpeg call of the engine goes through one thin layer (issue 32.2):
Sources/FastPixSeekEngine/FFmpegCalls.swift, one `ffmpeg_<name>` function per FFmpeg function,
each calling through to FFmpeg. Its test-only faults (FFmpegFaults.swift) exist in debug builds
only (FPX_FAULTS, defined by Package.swift for the debug configuration: `swift test`), never in
the shipped library.

The source tests read the tree only; the last one reads the built library (`make`)."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = ROOT / "Sources" / "FastPixSeekEngine"
LAYER = ENGINE / "FFmpegCalls.swift"
FAULTS = ENGINE / "FFmpegFaults.swift"

# FFmpeg's function prefixes (libavformat, libavcodec, libavutil, libswscale, libswresample).
CALL = re.compile(r"(?<![\w.])((?:av|avformat|avio|avcodec|avutil|sws|swr)_\w+)\s*\(")



def code(path):
    """The file without its comments (`//` to the end of a line)."""
    return "\n".join(re.sub(r"//.*", "", line) for line in path.read_text().splitlines())


def wrappers():
    """{FFmpeg name: body} of every `func ffmpeg_<name>` of the layer."""
    text = code(LAYER)
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"^func ffmpeg_(\w+)\(", text, re.M)]
    bodies = {}
    for i, (at, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        bodies[name] = text[at:end]
    return bodies


def direct_calls(path):
    return sorted(set(CALL.findall(code(path))))


def test_no_ffmpeg_call_outside_the_layer():
    files = sorted(ENGINE.glob("*.swift"))
    assert len(files) > 20, files
    bad = []
    for f in files:
        if f in (LAYER, FAULTS):
            continue
        for name in direct_calls(f):
            bad.append(f"{f.name}: {name}")
    assert not bad, "direct FFmpeg calls outside FFmpegCalls.swift: " + ", ".join(bad)


def test_the_layer_has_every_call_the_engine_makes():
    """Every FFmpeg function the engine names has its ffmpeg_ function."""
    have = set(wrappers())
    assert len(have) >= 40, have
    missing = sorted(f"{f.name}: {n}" for f in ENGINE.glob("*.swift") if f not in (LAYER, FAULTS)
                     for n in direct_calls(f) if n not in have)
    assert not missing, "FFmpeg functions without their ffmpeg_ function in FFmpegCalls.swift: " + ", ".join(missing)


def test_each_function_of_the_layer_calls_its_ffmpeg_function():
    for name, body in wrappers().items():
        assert re.search(r"(?<![\w.])%s\(" % re.escape(name), body), f"ffmpeg_{name} does not call {name}"
        others = set(CALL.findall(body)) - {name, "avformat_free_context"}
        assert not others, f"ffmpeg_{name} calls {sorted(others)} too"


def test_faults_exist_in_fault_builds_only():
    pkg = (ROOT / "Package.swift").read_text()
    assert re.search(r'\.target\(name: "FastPixSeekEngine",[^)]*\.define\("FPX_FAULTS", '
                     r'\.when\(configuration: \.debug\)\)', pkg, re.S), "FPX_FAULTS: the debug configuration only"
    lines = [ln for ln in code(FAULTS).splitlines() if ln.strip()]
    assert lines[0].strip() == "#if FPX_FAULTS" and lines[-1].strip() == "#endif", \
        "FFmpegFaults.swift is all #if FPX_FAULTS"
    # In the layer, FFmpegFaults appears only inside `#if FPX_FAULTS` ... `#endif`.
    depth = 0
    for n, line in enumerate(code(LAYER).splitlines(), 1):
        s = line.strip()
        if s == "#if FPX_FAULTS":
            depth += 1
        elif s == "#endif" and depth:
            depth -= 1
        elif "FFmpegFaults" in s:
            assert depth, f"FFmpegCalls.swift:{n}: a fault hook outside #if FPX_FAULTS"
    # Nothing else in the library's sources uses them.
    for f in (ROOT / "Sources").rglob("*.swift"):
        if f not in (LAYER, FAULTS):
            assert "FFmpegFault" not in code(f), f"{f.relative_to(ROOT)} uses the test-only faults"


def test_every_fault_has_its_hook():
    """Each call FFmpegFaults names (FFmpegCall) is asked in its own function of the layer."""
    cases = set(re.findall(r"\bcase ([a-z_, ]+)\n", code(FAULTS).split("enum FFmpegCall")[1].split("}")[0]))
    names = {n.strip() for c in cases for n in c.split(",") if n.strip()}
    assert len(names) >= 15, names
    bodies = wrappers()
    for name in sorted(names):
        assert name in bodies, f"FFmpegCall.{name} has no ffmpeg_{name}"
        assert re.search(r"FFmpegFaults\.\w+\(\.%s\b" % name, bodies[name]), f"ffmpeg_{name} never asks FFmpegFaults"


def test_release_library_has_no_fault_code(library, tmp_path):
    """The shipped library (`make`, release) holds no fault code: none of its symbols (their
    Swift names carry the type names whole), none of its strings outside the debug
    information (whose file table names every source file, FFmpegFaults.swift too)."""
    syms = subprocess.run(["nm", str(library)], capture_output=True, text=True, check=True).stdout
    assert "FFmpegLog" in syms, "the symbol table names the engine's types (not stripped)"
    for name in ("FFmpegFault", "FFmpegCall"):
        assert name not in syms, [s for s in syms.splitlines() if name in s][:5]
    dyn = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True,
                         check=True).stdout
    assert not re.search(r"(?<![\w])ffmpeg_", dyn), "the layer is not exported"
    stripped = tmp_path / "lib.so"
    subprocess.run(["strip", "--strip-debug", "-o", str(stripped), str(library)], check=True)
    blob = stripped.read_bytes()
    assert b"FFmpegFaults" not in blob and b"does not nest" not in blob
