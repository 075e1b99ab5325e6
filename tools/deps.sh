#!/usr/bin/env bash
# Installs what building and testing FastPixSeek needs on Debian 12, only when missing.
set -euo pipefail
pkgs=(ffmpeg libavformat-dev libavutil-dev libavcodec-dev pkg-config gcc g++ make python3 python3-pip binutils librsvg2-bin)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "deps: the Swift toolchain (swift) must be on PATH" >&2; exit 1; }
# Python test dependencies.
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest
# jsonschema: the CLI's --json output is validated against docs/fpx-seek.schema.json.
python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema
# PyAV: the bindings' optional PyAV bridge (fastpix_seek.pyav), Examples/python and the benchmarks.
python3 -c 'import av' 2>/dev/null || python3 -m pip install -q av
