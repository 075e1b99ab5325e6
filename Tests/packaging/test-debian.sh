#!/usr/bin/env bash
# Tests/packaging/test-debian.sh -- the Debian packages, end to end (issue 13).
#
#   Tests/packaging/test-debian.sh [FIXTURE_DIR]
#
#  1. installs the build-dependencies when missing (apt-get), copies the tree as a
#     clean checkout (tracked and new files; no build/, .build/ or caches) to a
#     scratch directory and runs `dpkg-buildpackage -us -uc -b` there;
#  2. checks the .debs: lintian (no errors; every warning must be listed in
#     debian/README.source), contents, -dbgsym packages holding the debug files,
#     hardening (BIND_NOW, RELRO), no RUNPATH, Depends on the exact FFmpeg libraries,
#     the symbols file listing exactly the library's exports;
#  3. installs them with dpkg -i, builds Examples/c/decode_landing.c with only
#     `pkg-config --cflags --libs fastpixseek libavcodec libavutil` in a clean
#     environment (no source-tree path), runs it, and checks the written frame's time
#     against ffprobe and its pixels against ffmpeg (check_landed_frame.py);
#     imports fastpix_seek from /usr/bin/python3 (the interpreter dh_python3 installs
#     for) with no environment override and seeks with it; runs /usr/bin/fpx-seek
#     --version; then purges the packages (also when a step fails);
#  4. proves the symbols check: relinks the scratch build with one export hidden
#     and requires the package build to fail in dpkg-gensymbols naming it.
#
# Needs root (dpkg -i), like the rest of tools/test-all.sh on the CI box. Prints
# ok/FAIL lines, the time of each stage, and "N passed, N failed".
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
FIX=${1:-${FPX_FIXTURES:-$ROOT/Tests/fixtures/out}}
PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
T0=$(date +%s)
stage() { echo "# $1 (t=$(( $(date +%s) - T0 ))s)"; }
finish() { echo "# total $(( $(date +%s) - T0 ))s"; echo "$PASS passed, $FAIL failed"; [ "$FAIL" -eq 0 ]; exit $?; }

PKGS=(libfastpixseek1 libfastpixseek-dev python3-fastpix-seek fpx-seek)
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
W=$(mktemp -d "${TMPDIR:-/tmp}/fpx-deb.XXXXXX")
purge() { $SUDO dpkg --purge "${PKGS[@]}" >/dev/null 2>&1 || true; }
cleanup() { purge; rm -rf "$W"; }
trap cleanup EXIT

for f in mp4_bframes.mp4 ts.ts; do
    [ -f "$FIX/$f" ] || { fail "fixture $FIX/$f is missing (Tests/fixtures/make-fixtures.sh)"; finish; }
done
FIX=$(cd "$FIX" && pwd)

# ---- 1. build-dependencies, clean copy, dpkg-buildpackage ----------------------------
stage "build-dependencies"
BUILD_DEPS=(dpkg-dev debhelper dh-python python3-all python3-setuptools pybuild-plugin-pyproject
            pkg-config libavformat-dev libavcodec-dev libavutil-dev lintian gcc ffmpeg)
missing=()
for p in "${BUILD_DEPS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "# installing ${missing[*]}"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >"$W/apt.log" 2>&1 || { tail -n 20 "$W/apt.log"; fail "apt-get install ${missing[*]}"; finish; }
fi
purge   # a previous run interrupted before its cleanup

SRC=$W/src/fastpixseek
mkdir -p "$SRC"
git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
    (cd "$ROOT" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
    tar -C "$ROOT" --null -T - -cf - | tar -C "$SRC" -xf -
if (cd "$SRC" && dpkg-checkbuilddeps) >"$W/bd.log" 2>&1; then
    pass "dpkg-checkbuilddeps: build-dependencies satisfied"
else
    fail "dpkg-checkbuilddeps: $(cat "$W/bd.log")"
fi

stage "dpkg-buildpackage -us -uc -b"
t=$(date +%s)
if (cd "$SRC" && dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1; then
    pass "dpkg-buildpackage -us -uc -b from a clean copy ($(( $(date +%s) - t ))s)"
else
    tail -n 40 "$W/build.log" | sed 's/^/    /'
    fail "dpkg-buildpackage failed (log above)"
    finish
fi
DEBS=$W/debs
mkdir -p "$DEBS"
mv "$W"/src/*.deb "$W"/src/*.changes "$W"/src/*.buildinfo "$DEBS"/
ls "$DEBS" | sed 's/^/    /'
if grep -q 'dpkg-gensymbols: warning: some new symbols appeared' "$W/build.log"; then
    fail "symbols file: new exports are not listed in debian/libfastpixseek1.symbols:"
    sed -n '/^+ /p' "$W/build.log" | sed 's/^/    /'
fi

# ---- 2. what the .debs hold ---------------------------------------------------------
stage "lintian and contents"
lintian --no-tag-display-limit "$DEBS"/*.changes >"$W/lintian.log" 2>&1
errors=$(grep -E '^E: ' "$W/lintian.log")
if [ -z "$errors" ]; then pass "lintian: no errors"; else fail "lintian errors:"; echo "$errors" | sed 's/^/    /'; fi
unlisted=""
while read -r tag; do
    [ -n "$tag" ] || continue
    grep -qw -- "$tag" "$SRC/debian/README.source" || unlisted="$unlisted $tag"
done < <(grep -E '^W: ' "$W/lintian.log" | awk '{ print $3 }' | sort -u)
if [ -z "$unlisted" ]; then
    pass "lintian: every warning is listed with its reason in debian/README.source ($(grep -c '^W: ' "$W/lintian.log") warnings)"
else
    fail "lintian warnings not explained in debian/README.source:$unlisted"
    grep -E '^W: ' "$W/lintian.log" | sed 's/^/    /'
fi

# The header's FPX_VERSION_* as clang read them (tools/abi_gen.py writes Tests/abi/seek-h.json).
hv=$(python3 -c 'import json, sys; m = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))["macros"]}; print("%d.%d.%d" % (m["FPX_VERSION_MAJOR"], m["FPX_VERSION_MINOR"], m["FPX_VERSION_PATCH"]))' "$ROOT/Tests/abi/seek-h.json")
dv=$(dpkg-deb -f "$DEBS"/libfastpixseek1_*.deb Version)
[ "${dv%-*}" = "$hv" ] && pass "package version $dv carries the header's FPX_VERSION $hv" ||
    fail "package version $dv, header FPX_VERSION $hv: add a debian/changelog entry"

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
X=$W/x
for p in libfastpixseek1 fpx-seek; do dpkg-deb -x "$DEBS/${p}_"*"_$(dpkg --print-architecture).deb" "$X"; done
L=$X/usr/lib/$ma/libfastpixseek.so.1
if [ -f "$L" ]; then pass "libfastpixseek1 ships usr/lib/$ma/libfastpixseek.so.1"; else fail "no usr/lib/$ma/libfastpixseek.so.1 in libfastpixseek1"; fi
[ "$(dpkg-deb -f "$DEBS"/libfastpixseek1_*.deb Multi-Arch)" = same ] && pass "libfastpixseek1: Multi-Arch: same" || fail "libfastpixseek1 is not Multi-Arch: same"
for b in "$L" "$X/usr/bin/fpx-seek"; do
    n=${b##*/}
    readelf -d "$b" >"$W/dyn" 2>&1
    readelf -lW "$b" >"$W/ph" 2>&1
    if grep -qE '\((RUNPATH|RPATH)\)' "$W/dyn"; then fail "$n has $(grep -E 'RUNPATH|RPATH' "$W/dyn")"; else pass "$n: no RUNPATH/RPATH"; fi
    if grep -q 'BIND_NOW' "$W/dyn" && grep -q GNU_RELRO "$W/ph"; then pass "$n: hardened (RELRO, BIND_NOW)"; else fail "$n lacks RELRO/BIND_NOW"; fi
    if readelf -S "$b" | grep -qE ' \.(symtab|debug_info) '; then fail "$n is not stripped"; else pass "$n is stripped"; fi
    id=$(readelf -n "$b" | sed -n 's/.*Build ID: *//p')
    dbg=$(for d in "$DEBS"/*-dbgsym_*.deb; do dpkg-deb -c "$d"; done | grep -c "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug")
    [ "$dbg" = 1 ] && pass "$n: its debug file is in a -dbgsym package" || fail "$n: no /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug in the -dbgsym packages"
done
deps=$(dpkg-deb -f "$DEBS"/libfastpixseek1_*.deb Depends)
want=""
for so in $(readelf -d "$L" | sed -n 's/.*NEEDED.*\[\(libav[a-z]*\)\.so\.\([0-9]*\)\].*/\1\2/p'); do
    echo "$deps" | grep -qE "(^|, )$so( |,|$)" || want="$want $so"
done
if [ -z "$want" ] && echo "$deps" | grep -q libavformat59; then
    pass "libfastpixseek1 Depends on the FFmpeg libraries it links: $deps"
else
    fail "libfastpixseek1 Depends ($deps) lacks:$want"
fi
pydeps=$(dpkg-deb -f "$DEBS"/python3-fastpix-seek_*.deb Depends)
echo "$pydeps" | grep -q "libfastpixseek1 (= $(dpkg-deb -f "$DEBS"/libfastpixseek1_*.deb Version))" &&
    pass "python3-fastpix-seek Depends: $pydeps" || fail "python3-fastpix-seek Depends: $pydeps"
nm -D --defined-only "$L" | awk '$3 ~ /@/ { sub(/@@/, "@", $3); print $3 }' | sort >"$W/exports"
grep -E '^ ' "$SRC/debian/libfastpixseek1.symbols" | awk '{ print $1 }' | sort >"$W/listed"
if cmp -s "$W/exports" "$W/listed"; then
    pass "debian/libfastpixseek1.symbols lists exactly the $(wc -l <"$W/exports") exports (all @FASTPIXSEEK_1)"
else
    fail "debian/libfastpixseek1.symbols differs from the exports (< exported, > listed):"
    diff "$W/exports" "$W/listed" | grep '^[<>]' | sed 's/^/    /'
fi

# ---- 3. installed: C example, Python, the tool -----------------------------------------
stage "dpkg -i"
if $SUDO dpkg -i "$DEBS"/libfastpixseek1_*.deb "$DEBS"/libfastpixseek-dev_*.deb \
        "$DEBS"/python3-fastpix-seek_*.deb "$DEBS"/fpx-seek_*.deb >"$W/dpkg.log" 2>&1; then
    pass "dpkg -i of the four packages"
else
    cat "$W/dpkg.log"
    fail "dpkg -i failed"
    finish
fi
# A clean environment: no LD_LIBRARY_PATH, PKG_CONFIG_PATH, PYTHONPATH or FASTPIX_SEEK_LIBRARY,
# run from a directory outside the source tree.
E=$W/example
mkdir -p "$E"
cp "$ROOT/Examples/c/decode_landing.c" "$E/"
clean() { (cd "$E" && env -i PATH=/usr/bin:/bin HOME="$E" LANG=C.UTF-8 "$@"); }
pc=$(clean pkg-config --cflags --libs fastpixseek libavcodec libavutil 2>&1)
case "$pc" in
    *"$ROOT"*|*"$W/src"*) fail "pkg-config output names the source tree: $pc" ;;
    *) pass "pkg-config --cflags --libs fastpixseek libavcodec libavutil: $pc" ;;
esac
if clean sh -c 'cc -std=c99 -Wall -Wextra -Werror -pedantic -o decode_landing decode_landing.c $(pkg-config --cflags --libs fastpixseek libavcodec libavutil)' >"$W/cc.log" 2>&1; then
    pass "Examples/c/decode_landing.c builds against the installed packages only"
    lib=$(clean ldd ./decode_landing | awk '/libfastpixseek/ { print $3 }')
    [ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "/usr/lib/$ma/libfastpixseek.so.1")" ] &&
        pass "it loads $lib (the packaged library)" || fail "it loads '$lib'"
    for case in "mp4_bframes.mp4 2.5" "ts.ts 1001/300"; do
        set -- $case
        if clean ./decode_landing "$FIX/$1" "$2" "$E/$1.ppm" >"$W/run.log" 2>&1; then
            pass "decode_landing $1 $2: $(cat "$W/run.log")"
            /usr/bin/python3 "$ROOT/Tests/packaging/check_landed_frame.py" "$FIX/$1" "$2" "$E/$1.ppm" >"$W/chk.log" 2>&1
            while read -r line; do
                case "$line" in ok*) pass "$1 $2: ${line#ok   - }" ;; FAIL*) fail "$1 $2: ${line#FAIL - }" ;; *) echo "    $line" ;; esac
            done <"$W/chk.log"
        else
            fail "decode_landing $1 $2: $(cat "$W/run.log")"
        fi
    done
else
    cat "$W/cc.log"
    fail "Examples/c/decode_landing.c does not build against the installed packages"
fi

# The Python the package was built for: dh_python3 installs into /usr/lib/python3/dist-packages
# for Debian's /usr/bin/python3 (the python3 on PATH may be another one, e.g. pyenv's).
cat >"$E/py_check.py" <<'EOF'
import sys
from fractions import Fraction
import fastpix_seek
from fastpix_seek import Player, SeekPrecision
maps = open("/proc/self/maps").read()
loaded = sorted({l.split()[-1] for l in maps.splitlines() if "libfastpixseek" in l})
with Player(sys.argv[1]) as p:
    p.wait_item(timeout=10)
    out = p.seek_and_wait(Fraction(5, 2), SeekPrecision.exact())
print(fastpix_seek.__file__, " ".join(loaded), out.landed_time)
EOF
if clean /usr/bin/python3 "$E/py_check.py" "$FIX/mp4_bframes.mp4" >"$W/py.log" 2>&1; then
    read -r modfile loaded landed <"$W/py.log"
    case "$modfile" in /usr/lib/python3/dist-packages/fastpix_seek/*) pass "/usr/bin/python3 imports fastpix_seek from $modfile" ;;
        *) fail "fastpix_seek imported from $modfile" ;; esac
    [ "$loaded" = "/usr/lib/$ma/libfastpixseek.so.1" ] && pass "the binding loaded the system library $loaded, no env override" ||
        fail "the binding loaded '$loaded'"
    exp=$(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$ROOT/Tests/python'); import groundtruth as g; from fractions import Fraction as F; t=g.load('$FIX/mp4_bframes.mp4'); print(t.to_item(t.covering(F(5,2)).pts))")
    [ "$landed" = "$exp" ] && pass "python seek to 5/2 landed on $landed = ffprobe's covering frame" || fail "python seek landed $landed, ffprobe says $exp"
else
    cat "$W/py.log"
    fail "/usr/bin/python3 cannot import and use fastpix_seek"
fi
# `pip install Bindings/python` (not the Debian package) finds the system library too, from
# any interpreter: here the python3 first on PATH, which may not be Debian's.
PYT=$W/pip-target
PY_ANY=$(python3 -c "import sys; print(sys.executable)")
printf '%s\n' 'from fastpix_seek import _lib' 'print(_lib.library_found_by + "|" + _lib.library_path)' >"$E/py_which.py"
if /usr/bin/python3 -m pip install -q --no-deps --no-build-isolation --no-index --target "$PYT" \
        "$ROOT/Bindings/python" >"$W/pip.log" 2>&1; then
    r=$(clean env PYTHONPATH="$PYT" "$PY_ANY" "$E/py_which.py" 2>&1)
    [ "$r" = "system loader|/usr/lib/$ma/libfastpixseek.so.1" ] &&
        pass "pip-installed binding under $PY_ANY loads the packaged library ($r)" ||
        fail "pip-installed binding under $PY_ANY: '$r'"
else
    cat "$W/pip.log"
    fail "pip install Bindings/python"
fi

v=$(clean /usr/bin/fpx-seek --version 2>&1)
want_v=$(dpkg-deb -f "$DEBS"/fpx-seek_*.deb Version)
[ "$v" = "fpx-seek ${want_v%%-*}" ] && pass "/usr/bin/fpx-seek --version: $v" || fail "/usr/bin/fpx-seek --version: '$v'"
[ -f /usr/share/man/man1/fpx-seek.1.gz ] && pass "man page installed" || fail "no /usr/share/man/man1/fpx-seek.1.gz"

stage "dpkg --purge"
if $SUDO dpkg --purge "${PKGS[@]}" >"$W/purge.log" 2>&1 && ! dpkg -s libfastpixseek1 >/dev/null 2>&1 &&
   [ ! -e "/usr/lib/$ma/libfastpixseek.so.1" ] && [ ! -e /usr/bin/fpx-seek ]; then
    pass "dpkg --purge removed the packages"
else
    cat "$W/purge.log"
    fail "dpkg --purge"
fi

# `make install PREFIX=/usr/local` (from the scratch build; install never builds) and the
# pip-installed binding: found before ldconfig runs (pkg-config's default path, else the
# multiarch directory), and through the ld cache after.
stage "make install PREFIX=/usr/local, the binding before and after ldconfig"
# Directories this step creates are removed again (deepest first) after the uninstall.
new_dirs=$(for d in "/usr/local/lib/$ma/pkgconfig" "/usr/local/lib/$ma" /usr/local/share/man/man1 \
                    /usr/local/share/man; do [ -d "$d" ] || echo "$d"; done)
uninstall_local() {
    $SUDO make -s -C "$SRC" uninstall PREFIX=/usr/local >/dev/null 2>&1
    for d in $new_dirs; do $SUDO rmdir "$d" 2>/dev/null; done
    $SUDO ldconfig
}
cleanup() { purge; uninstall_local; rm -rf "$W"; }
if $SUDO make -s -C "$SRC" install PREFIX=/usr/local >"$W/mi.log" 2>&1; then
    LL=/usr/local/lib/$ma/libfastpixseek.so.1
    mkdir -p "$W/pyonly" && ln -sf "$PY_ANY" "$W/pyonly/python3"
    r=$(cd "$E" && env -i PATH="$W/pyonly" HOME="$E" PYTHONPATH="$PYT" python3 "$E/py_which.py" 2>&1)
    [ "$r" = "install directory|$LL" ] && pass "before ldconfig, without pkg-config: $r" || fail "before ldconfig, without pkg-config: '$r'"
    r=$(clean env PYTHONPATH="$PYT" "$PY_ANY" "$E/py_which.py" 2>&1)
    [ "$r" = "pkg-config libdir|$LL" ] && pass "before ldconfig: $r" || fail "before ldconfig: '$r'"
    $SUDO ldconfig
    r=$(clean env PYTHONPATH="$PYT" "$PY_ANY" "$E/py_which.py" 2>&1)
    [ "$r" = "system loader|$LL" ] && pass "after ldconfig: $r" || fail "after ldconfig: '$r'"
else
    cat "$W/mi.log"
    fail "make install PREFIX=/usr/local"
fi
uninstall_local
[ ! -e "/usr/local/lib/$ma/libfastpixseek.so.1" ] && ! ldconfig -p | grep -q libfastpixseek &&
    pass "make uninstall + ldconfig: nothing left" || fail "libfastpixseek left in /usr/local or the ld cache"

# ---- 4. the symbols check fails when an export disappears ------------------------------
stage "symbols check, scratch build without one export"
victim=fpx_clamp_kind_name
grep -q "^ $victim@" "$SRC/debian/libfastpixseek1.symbols" || fail "$victim is not in the symbols file"
printf 'FASTPIXSEEK_1 {\n  global: fpx_*;\n  local: %s; *;\n};\n' "$victim" >"$SRC/Sources/FastPixSeek/fastpixseek.map"
# -nc: reuse the scratch build; make relinks the library (the version script changed).
# The stamp would make dh skip the build step; pybuild refuses to unpack over its output.
rm -rf "$SRC/debian/debhelper-build-stamp" "$SRC/.pybuild"
if (cd "$SRC" && dpkg-buildpackage -us -uc -b -nc) >"$W/scratch.log" 2>&1; then
    fail "the package build succeeded with $victim missing from the library"
elif grep -q "dpkg-gensymbols: error: some symbols or patterns disappeared" "$W/scratch.log" &&
     grep -qE "^-? *$victim@FASTPIXSEEK_1" "$W/scratch.log" &&
     ! nm -D --defined-only "$SRC/build/lib/libfastpixseek.so.1" | grep -q "$victim"; then
    pass "a library without $victim fails the package build in dpkg-gensymbols ($(grep -E "$victim@" "$W/scratch.log" | head -n 1 | sed 's/^ *//'))"
else
    tail -n 30 "$W/scratch.log" | sed 's/^/    /'
    fail "the scratch build failed, but not in the symbols check"
fi

finish
