#!/usr/bin/env bash
# The newcomer's first command: install dependencies, build, and run fpx-seek on the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/deps.sh   # Debian packages only (listed before installing); no Python package
. tools/swift-env.sh # the toolchain deps.sh found, first on PATH (tools/swift-env.sh)
make -s
echo
echo "== fpx-seek probe samples/sample.mp4"
build/bin/fpx-seek probe samples/sample.mp4
echo
echo "== fpx-seek seek samples/sample.mp4 2.5 --precision exact"
build/bin/fpx-seek seek samples/sample.mp4 2.5 --precision exact
echo
echo "== fpx-seek seek samples/sample.mp4 2.5 --precision nearest_keyframe:0.5"
build/bin/fpx-seek seek samples/sample.mp4 2.5 --precision nearest_keyframe:0.5
