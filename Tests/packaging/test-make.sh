#!/usr/bin/env bash
# Tests/packaging/test-make.sh -- the Makefile's promises (issue 13):
#   1. `make && make`: the second make does no work (library and tool mtimes unchanged,
#      `make -q` says up to date, no `swift build` run);
#   2. `make install` never builds: with the build missing it fails with one line;
#   3. `make install` installs library (stripped, no RUNPATH/RPATH, versioned symbols),
#      symlink, header, fastpixseek.pc, fpx-seek and its man page, under the multiarch
#      LIBDIR on Debian, and the JSON schema under share/fpx-seek; `make uninstall` removes
#      every file it installed and the directories of its own (pkgconfig/ when left empty);
#   4. `make install` to a prefix the loader does not search prints the one line a user
#      needs (LD_LIBRARY_PATH); a staged (DESTDIR) install prints nothing;
#   5. a Swift build leaves nothing in $TMPDIR (SwiftPM's lock files and
#      TemporaryDirectory.* go to .build/tmp);
#   6. with FPX_TEST_MAKE_ONCE=1 (a clean build, minutes: by hand, not in CI): each Swift
#      module is compiled once for the library and the tool (issue 27.5): from an empty
#      scratch directory `make lib` compiles the shared modules and `make cli` then compiles
#      only the tool's own module.
# Prints "ok"/"FAIL" lines and a summary; exit status 0 only when nothing failed.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fpx-maketest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

LIB=build/lib/libfastpixseek.so.1
CLI=build/bin/fpx-seek
if make -s >"$TMP/make1.log" 2>&1; then pass "make builds"; else cat "$TMP/make1.log"; fail "make failed"; fi
m1=$(stat -c %Y.%N "$LIB" "$CLI" 2>/dev/null | tr '\n' ' ')
sleep 1
make >"$TMP/make2.log" 2>&1
m2=$(stat -c %Y.%N "$LIB" "$CLI" 2>/dev/null | tr '\n' ' ')
if [ -n "$m1" ] && [ "$m1" = "$m2" ]; then
    pass "make && make: library and tool mtimes unchanged by the second make"
else
    fail "make && make: mtimes changed ($m1 -> $m2)"
fi
if grep -q 'swift build' "$TMP/make2.log"; then
    fail "the second make ran swift build:"; sed 's/^/    /' "$TMP/make2.log"
else
    pass "the second make ran no swift build ($(tr '\n' ' ' <"$TMP/make2.log"))"
fi
if make -q all; then pass "make -q all: up to date"; else fail "make -q all says out of date after make"; fi

# install never builds
make install OUT="$TMP/nobuild" DESTDIR="$TMP/stage0" >"$TMP/i0.out" 2>"$TMP/i0.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -vc '^make: \*\*\*' "$TMP/i0.err")" = 1 ] && grep -q "run 'make' first" "$TMP/i0.err" &&
   [ ! -s "$TMP/i0.out" ] && [ ! -e "$TMP/nobuild" ] && [ ! -e "$TMP/stage0" ]; then
    pass "make install with no build: fails with one line ($(head -n 1 "$TMP/i0.err")), builds nothing, installs nothing"
else
    fail "make install with no build: rc=$rc out=$(cat "$TMP/i0.out") err=$(cat "$TMP/i0.err")"
fi

# install / uninstall
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
libdir=/usr/local/lib${ma:+/$ma}
S=$TMP/stage
if make -s install PREFIX=/usr/local DESTDIR="$S" >"$TMP/i.log" 2>&1; then pass "make install"; else cat "$TMP/i.log"; fail "make install failed"; fi
[ ! -s "$TMP/i.log" ] && pass "a staged (DESTDIR) install prints nothing" || fail "a staged install printed: $(cat "$TMP/i.log")"
m3=$(stat -c %Y.%N "$LIB" "$CLI" 2>/dev/null | tr '\n' ' ')
[ "$m3" = "$m1" ] && pass "make install did not rebuild" || fail "make install touched the build ($m1 -> $m3)"
for f in "$libdir/libfastpixseek.so.1" "$libdir/libfastpixseek.so" /usr/local/include/fastpix/seek.h \
         "$libdir/pkgconfig/fastpixseek.pc" /usr/local/bin/fpx-seek /usr/local/share/man/man1/fpx-seek.1 \
         /usr/local/share/fpx-seek/fpx-seek.schema.json; do
    if [ -e "$S$f" ]; then pass "installed $f"; else fail "not installed: $f"; fi
done
L=$S$libdir/libfastpixseek.so.1
if readelf -d "$L" | grep -qE '\((RUNPATH|RPATH)\)'; then
    fail "installed library has $(readelf -d "$L" | grep -E 'RUNPATH|RPATH')"
else
    pass "installed library has no RUNPATH/RPATH"
fi
if readelf -d "$S/usr/local/bin/fpx-seek" | grep -qE '\((RUNPATH|RPATH)\)'; then fail "fpx-seek has a RUNPATH"; else pass "fpx-seek has no RUNPATH/RPATH"; fi
if readelf -S "$L" | grep -qE '\.symtab|\.debug_'; then fail "installed library is not stripped"; else pass "installed library is stripped ($(stat -c %s "$L") bytes)"; fi
if readelf -S "$S/usr/local/bin/fpx-seek" | grep -qE '\.symtab|\.debug_'; then fail "fpx-seek is not stripped"; else pass "fpx-seek is stripped"; fi
unversioned=$(nm -D --defined-only "$L" | awk '$3 ~ /^fpx_/ && $3 !~ /@@(FASTPIXSEEK_1|FPX_0\.4)$/ { print $3 }')
nexp=$(nm -D --defined-only "$L" | awk '$3 ~ /^fpx_/' | wc -l)
if [ "$nexp" -gt 0 ] && [ -z "$unversioned" ]; then
    pass "all $nexp fpx_ exports carry a version node (FASTPIXSEEK_1, or FPX_0.4 for the 0.4 additions)"
else
    fail "exports without a version node: $(echo $unversioned | head -c 300)"
fi
if grep -qx "libdir=$libdir" "$S$libdir/pkgconfig/fastpixseek.pc"; then pass "fastpixseek.pc libdir=$libdir"; else fail "fastpixseek.pc: $(grep libdir= "$S$libdir/pkgconfig/fastpixseek.pc")"; fi
make -s uninstall PREFIX=/usr/local DESTDIR="$S" >"$TMP/u.log" 2>&1 || { cat "$TMP/u.log"; fail "make uninstall failed"; }
left=$(find "$S" -type f -o -type l)
if [ -z "$left" ]; then pass "make uninstall removed every installed file"; else fail "left after uninstall: $left"; fi
for d in "$libdir/pkgconfig" /usr/local/include/fastpix /usr/local/share/fpx-seek; do
    [ ! -e "$S$d" ] && pass "make uninstall removed the empty $d/" || fail "left after uninstall: $d/"
done
# pkgconfig/ holding another package's file stays, with that file.
mkdir -p "$S$libdir/pkgconfig" && echo other >"$S$libdir/pkgconfig/other.pc"
make -s install PREFIX=/usr/local DESTDIR="$S" >/dev/null 2>&1 && make -s uninstall PREFIX=/usr/local DESTDIR="$S" >/dev/null 2>&1
[ -f "$S$libdir/pkgconfig/other.pc" ] && pass "make uninstall keeps a pkgconfig/ that holds other files" ||
    fail "make uninstall removed another package's pkgconfig file"

# A private prefix: the loader hint, exactly one line.
P=$TMP/prefix
make -s install PREFIX="$P" >"$TMP/ip.out" 2>&1
if [ "$(wc -l <"$TMP/ip.out")" = 1 ] && grep -q "LD_LIBRARY_PATH=$P/lib" "$TMP/ip.out"; then
    pass "make install PREFIX=<private>: $(cat "$TMP/ip.out")"
else
    fail "make install PREFIX=<private> printed: $(cat "$TMP/ip.out")"
fi
make -s uninstall PREFIX="$P" >/dev/null 2>&1
left=$(find "$P" -type f -o -type l)
[ -z "$left" ] && pass "make uninstall PREFIX=<private>: nothing left" || fail "left: $left"

# SwiftPM and $TMPDIR: a relink (the map is newer) must leave the given TMPDIR empty.
T=$TMP/tmpdir
mkdir -p "$T"
touch Sources/FastPixSeek/fastpixseek.map
TMPDIR=$T make -s lib >"$TMP/relink.log" 2>&1 || { cat "$TMP/relink.log"; fail "relink failed"; }
if [ -z "$(ls -A "$T")" ]; then pass "a Swift build leaves nothing in \$TMPDIR"; else fail "left in \$TMPDIR: $(ls -A "$T" | head -n 5 | tr '\n' ' ')"; fi

# 6. Each module compiled once (by hand: FPX_TEST_MAKE_ONCE=1).
if [ "${FPX_TEST_MAKE_ONCE:-0}" = 1 ]; then
    rm -rf .build/make "$LIB" "$CLI"
    t0=$(date +%s); make lib >"$TMP/once-lib.log" 2>&1 || { tail -n 20 "$TMP/once-lib.log"; fail "make lib"; }
    t1=$(date +%s); make cli >"$TMP/once-cli.log" 2>&1 || { tail -n 20 "$TMP/once-cli.log"; fail "make cli"; }
    t2=$(date +%s)
    for m in FastPixSeekPolicy FastPixSeekCore FastPixSeekEngine; do
        nl=$(grep -c "Compiling $m " "$TMP/once-lib.log"); nc=$(grep -c "Compiling $m " "$TMP/once-cli.log")
        if [ "$nl" -ge 1 ] && [ "$nc" = 0 ]; then pass "$m compiled by make lib, not again by make cli"
        else fail "$m: compiled $nl times by make lib, $nc times by make cli"; fi
    done
    if grep -q "Compiling fpx_seek " "$TMP/once-cli.log"; then pass "make cli compiled the tool's own module (lib $((t1 - t0)) s, cli $((t2 - t1)) s)"
    else fail "make cli compiled no fpx-seek module: $(grep Compiling "$TMP/once-cli.log" | head -n 3)"; fi
fi

# The man page (what make install installs) renders without warnings and keeps what it says.
if command -v man >/dev/null; then
    # Wide enough that no paragraph wraps or hyphenates; justification spaces squeezed.
    MANWIDTH=2000 man -l docs/fpx-seek.1 2>"$TMP/man.err" | tr -s " " >"$TMP/man.txt"
    [ ! -s "$TMP/man.err" ] && pass "man -l docs/fpx-seek.1: no warnings" || fail "man -l warns: $(head -n 3 "$TMP/man.err")"
    for want in '{"kind": "exact"|"at_or_after"|"nearest_keyframe", "tolerance": "1/10", "tolerance_seconds": 0.1}' \
                'ffmpeg -ss t starts at the first frame at or after t (smallest pts >= t)' \
                'ffmpeg -ss t -i F: smallest pts >= t' 'files and HLS items) lands on the first frame at or after the target' \
                '"truncated": true' '"clamped": true' '/usr/share/fpx-seek/fpx-seek.schema.json' \
                'nearest_keyframe:TOL (short: keyframe:TOL)' 'options still parse after --'; do
        grep -qF -- "$want" "$TMP/man.txt" && pass "the rendered man page says: $want" || fail "the rendered man page lacks: $want"
    done
else
    fail "no man (apt-get install man-db) to render docs/fpx-seek.1"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
