#!/usr/bin/env bash
# Tests/packaging/test-mypy.sh [PYTHON] -- `mypy --strict` is clean on the fastpix_seek
# package, on Examples/python, and on the recipe in fastpix_seek.pyav's docstring (so the
# documented `dec.decode(...)` type-checks). PYTHON: an interpreter with mypy and PyAV
# (tools/test-all.sh passes build/venv's). The mypy cache goes to a temporary folder.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
PY=${1:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fpx-mypy.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PASS=0 FAIL=0
run() {
    local what=$1; shift
    if MYPYPATH="$ROOT/Bindings/python:$ROOT/Examples/python" "$PY" -m mypy --strict --cache-dir="$TMP/cache" "$@" >"$TMP/out" 2>&1; then
        PASS=$((PASS + 1)); echo "ok   - mypy --strict $what: $(tail -n 1 "$TMP/out")"
    else
        FAIL=$((FAIL + 1)); echo "FAIL - mypy --strict $what:"; sed 's/^/    /' "$TMP/out"
    fi
}
echo "# $("$PY" -m mypy --version), PyAV $("$PY" -c 'import av; print(av.__version__)' 2>&1)"
run "-p fastpix_seek" -p fastpix_seek
run "Examples/python and Bindings/python/examples" Examples/python/decode_landing.py Examples/python/scrub.py Examples/python/frame_step.py Examples/python/frames_dask.py Examples/python/sprites_dask.py \
    Bindings/python/examples/seek_report.py
# The docstring recipe, as a function (its `...` placeholder becomes `pass`).
"$PY" - "$TMP/recipe.py" <<'PYEOF'
import ast, sys, textwrap
doc = ast.get_docstring(ast.parse(open("Bindings/python/fastpix_seek/pyav.py").read())) or ""
block = doc.split("\n\n")[1]
body = textwrap.indent(textwrap.dedent(block), "    ").replace("...  #", "pass  #")
open(sys.argv[1], "w").write("def recipe() -> None:\n" + body + "\n")
PYEOF
run "the fastpix_seek.pyav docstring recipe" "$TMP/recipe.py"
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
