#!/usr/bin/env bash
# Runs every test of FastPixSeek. This is the command README.md names and .ci/run calls.
#
# What it changes outside the checkout and temporary folders, said before it happens:
#   * Debian packages it needs and does not find (tools/deps.sh --test lists them before
#     installing, and appends them to build/deps-installed.txt); it never removes a package
#     it did not install in this run;
#   * the autopkgtest step installs the four FastPixSeek packages (and the tests' Depends)
#     on this machine and purges the FastPixSeek packages again; it is skipped, with one
#     line saying why, when FastPixSeek packages were installed before (they stay).
# Python test dependencies go into build/venv (made with Debian's /usr/bin/python3); every
# install of our own goes to staging directories. It builds the library and tool, generates
# the media fixtures with the ffmpeg CLI, and runs: Swift core tests, C API tests and
# meta-tests, the C tests under ASan + UBSan, the fuzz corpus replay, install + pkg-config,
# the Makefile checks, the pytest suites (ffprobe ground truth, CLI, Python bindings, with
# the newest PyAV wheel), Debian's python3 with python3-av on the PyAV bridge and the
# examples, mypy --strict, the wheel, the benchmark smoke run, and the Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
status_before=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
bash tools/deps.sh --test
. tools/swift-env.sh   # the toolchain deps.sh found, first on PATH (tools/swift-env.sh)
venv=$root/build/venv
# The venv's python3 first on PATH (subprocesses of the tests use it too); the Swift
# toolchain and everything else stay reachable behind it.
export PATH="$venv/bin:$PATH"

failed=()
# Everything below is also kept in build/test-all.log; on failure the last lines repeat
# the failure lines of the whole run, so a CI page that shows only the tail names them.
mkdir -p "$root/build"
exec > >(tee "$root/build/test-all.log") 2>&1
step() { echo; echo "=== $1 (t=${SECONDS}s)"; }

step "build (make): no compiler warnings"
make -s 2>&1 | tee "$root/build/make.log"
if grep -E '(^|: )warning: ' "$root/build/make.log"; then failed+=("build warnings"); else echo "build: no warnings"; fi

step "quickstart (tools/quickstart.sh) with Debian's /usr/bin/python3 first on PATH"
PATH="/usr/bin:/bin:$PATH" bash tools/quickstart.sh >"$root/build/quickstart.log" 2>&1 &&
  grep -q "^result      within the requested tolerance" "$root/build/quickstart.log" &&
  echo "quickstart: ok ($(grep -c . "$root/build/quickstart.log") lines)" ||
  { cat "$root/build/quickstart.log"; failed+=("quickstart"); }

step "Swift core tests (swift test)"
mkdir -p .build/tmp
TMPDIR=$root/.build/tmp swift test 2>&1 | tail -n 25 || failed+=("swift test")

step "media fixtures (ffmpeg CLI)"
fixtures=${FPX_FIXTURES:-$root/Tests/fixtures/out}
bash Tests/fixtures/make-fixtures.sh "$fixtures"
export FPX_FIXTURES=$fixtures

step "C API tests and meta-tests"
bash Tests/c/run.sh "$fixtures" || failed+=("C tests")

step "C API tests under AddressSanitizer + UBSan (make test-asan-c)"
# Builds an instrumented copy of the library in build/asan (own scratch path) and runs
# every C test against it: any ASan, LSan or UBSan report fails the step.
make -s test-asan-c FPX_FIXTURES="$fixtures" || failed+=("ASan C tests")

step "fuzz corpus replay (every seed once, against the ASan build)"
FPX_LIBDIR="$root/build/asan/lib" \
  CC="$(dirname "$(readlink -f "$(command -v swift)")")/clang -fsanitize=address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld" \
  ASAN_OPTIONS=detect_leaks=1 FPX_FUZZ_MEDIA_DIR="$root/Tests/fuzz/files" FPX_REPLAY_SWIFT_SANITIZE=1 \
  bash Tests/fuzz/replay.sh || failed+=("fuzz replay")

step "install + pkg-config host"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
make -s install PREFIX=/usr/local LIBDIR=/usr/local/lib DESTDIR="$stage"
if (
  export PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_PATH="$stage/usr/local/lib/pkgconfig"
  cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/c/install_host.c $(pkg-config --cflags --libs fastpixseek) -lpthread -o "$stage/host"
  env -i LD_LIBRARY_PATH="$stage/usr/local/lib" "$stage/host" samples/sample.mp4
); then echo "install host: ok"; else failed+=("install host"); fi

step "Makefile: make && make is a no-op, install never builds, uninstall removes all"
bash Tests/packaging/test-make.sh || failed+=("Makefile test")

# The self-contained wheel: minutes on a cold cache (FFmpeg from source, the library again),
# so by hand before a release, not in every CI run: FPX_TEST_WHEEL=1, with
# FPX_WHEEL_ROOTS="DIR..." naming Debian roots without FFmpeg (see the script).
if [ "${FPX_TEST_WHEEL:-0}" = 1 ]; then
  step "the self-contained wheel (make wheel; Tests/packaging/test-wheel.sh $FPX_WHEEL_ROOTS)"
  bash Tests/packaging/test-wheel.sh || failed+=("wheel test")
fi

step "pytest under build/venv's python (ffprobe ground truth, CLI, HTTP, live HLS, bindings, newest PyAV)"
echo "PyAV $("$venv/bin/python" -c 'import av; print(av.__version__)') in $venv"
# Two worker processes (pytest-xdist): 484 s instead of 706 s for the same 1,122 tests on
# this 2-core box; every test is independent of the others' order and process.
"$venv/bin/python" -m pytest -q -p no:cacheprovider -n 2 || failed+=("pytest")

step "Debian's /usr/bin/python3 with Debian's python3-av: the PyAV bridge, Examples/python, frame_at"
echo "PyAV $(/usr/bin/python3 -c 'import av; print(av.__version__)') for /usr/bin/python3"
PATH=/usr/bin:/bin:$PATH /usr/bin/python3 -m pytest -q -p no:cacheprovider \
  Bindings/python/tests/test_binding_pyav.py \
  Tests/python/test_examples.py Tests/python/test_frames.py Tests/python/test_frames_range.py \
  -k "not cli_frame and not c_frames_at" || failed+=("Debian python3 + python3-av")

step "mypy --strict: the package and Examples/python"
bash Tests/packaging/test-mypy.sh "$venv/bin/python" || failed+=("mypy")

if [ -x Benchmarks/run.sh ]; then
  step "benchmark smoke (checks they run and land right; no timing thresholds)"
  PYTHON="$venv/bin/python" bash Benchmarks/run.sh --smoke || failed+=("benchmark smoke")
fi

step "Debian packages: build, lintian, contents, then the autopkgtest tests (debian/tests)"
bash Tests/packaging/test-debian.sh "$fixtures" || failed+=("Debian packaging test")

step "the checkout: the tests left it as they found it (git status, build products aside)"
status_after=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
if [ "$status_before" = "$status_after" ]; then
  echo "checkout: unchanged"
else
  diff <(echo "$status_before") <(echo "$status_after") | sed 's/^/    /' | head -n 20
  failed+=("checkout changed")
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "failure lines of this run (from build/test-all.log):"
  grep -E '(^|[ :])(FAIL|FAILED|not ok|ERROR)( |:|$)|^SUMMARY: [A-Za-z]*Sanitizer' "$root/build/test-all.log" |
    grep -v '^FAILED: ' | tail -n 40 | sed 's/^/    /' || true
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test suites passed"
