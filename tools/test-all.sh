#!/usr/bin/env bash
# Runs every test of FastPixSeek. This is the command README.md names and .ci/run calls.
# It installs what it needs (Debian packages, Python test dependencies), builds the
# library and tool, generates the media fixtures with the ffmpeg CLI, and runs:
#   Swift core tests, C API tests and meta-tests, the C tests again under ASan + UBSan,
#   the fuzz corpus replay, the install + pkg-config test,
#   and the pytest suites (ffprobe ground truth, Python bindings).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash tools/deps.sh

failed=()
step() { echo; echo "=== $1"; }

step "build (make)"
make -s

step "Swift core tests (swift test)"
swift test 2>&1 | tail -n 25 || failed+=("swift test")

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
  ASAN_OPTIONS=detect_leaks=1 FPX_FUZZ_MEDIA_DIR="$root/Tests/fuzz/files" \
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

step "pytest (ffprobe ground truth, CLI, HTTP, live HLS, Python bindings)"
python3 -m pytest -q -p no:cacheprovider || failed+=("pytest")

if [ -x Benchmarks/run.sh ]; then
  step "benchmark smoke (checks they run and land right; no timing thresholds)"
  bash Benchmarks/run.sh --smoke || failed+=("benchmark smoke")
fi

step "Debian packages: build, lintian, install, C example and Python against them, purge"
# Last: it installs the packages system-wide for its duration (and purges them).
bash Tests/packaging/test-debian.sh "$fixtures" || failed+=("Debian packaging test")

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test suites passed"
