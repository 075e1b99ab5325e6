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
#  3. runs the autopkgtest tests of debian/tests on the built packages (autopkgtest -B
#     ... -- null: the C example against libfastpixseek-dev, Debian's python3 with the
#     binding and python3-av, the tool with its man page and installed schema) -- only
#     when no FastPixSeek package is installed here (else one line says it is skipped,
#     and why); it purges the four packages it installed, nothing else;
#  4. proves the symbols check: relinks the scratch build with one export hidden
#     and requires the package build to fail in dpkg-gensymbols naming it.
#
# Nothing is installed into /usr/local or removed that this run did not install. Build
# dependencies it installs are listed before apt-get runs, and stay. Needs root for
# autopkgtest (apt). Prints ok/FAIL lines, the time of each stage, and "N passed, N failed".
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
# The packages are purged on exit only while this run has them installed (autopkgtest).
we_installed=0
cleanup() { [ "$we_installed" = 1 ] && purge; rm -rf "$W"; }
trap cleanup EXIT

for f in mp4_bframes.mp4 ts.ts; do
    [ -f "$FIX/$f" ] || { fail "fixture $FIX/$f is missing (Tests/fixtures/make-fixtures.sh)"; finish; }
done
FIX=$(cd "$FIX" && pwd)

# ---- 1. build-dependencies, clean copy, dpkg-buildpackage ----------------------------
stage "build-dependencies"
BUILD_DEPS=(build-essential dpkg-dev debhelper dh-python python3-all python3-setuptools python3-wheel pybuild-plugin-pyproject
            pkg-config libavformat-dev libavcodec-dev libavutil-dev lintian gcc ffmpeg autopkgtest)
# The Swift toolchain: Debian's swiftlang where apt has it (Debian 13: a Build-Depends);
# else (Debian 12) the build profile pkg.fastpixseek.swift-toolchain drops it from
# Build-Depends and debian/rules takes SWIFT_TOOLCHAIN or `swift` on PATH.
PROFILE=()
if dpkg -s swiftlang >/dev/null 2>&1 || apt-cache show swiftlang >/dev/null 2>&1; then
    BUILD_DEPS+=(swiftlang)
    echo "# Swift: Debian's swiftlang (a Build-Depends)"
else
    PROFILE=(-Ppkg.fastpixseek.swift-toolchain)
    echo "# Swift: no swiftlang package here (Debian 12): build profile pkg.fastpixseek.swift-toolchain, swift at ${SWIFT_TOOLCHAIN:-$(command -v swift)}"
fi
missing=()
for p in "${BUILD_DEPS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "# installing these Debian packages (they stay installed): ${missing[*]}"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >"$W/apt.log" 2>&1 || { tail -n 20 "$W/apt.log"; fail "apt-get install ${missing[*]}"; finish; }
fi

SRC=$W/src/fastpixseek
mkdir -p "$SRC"
git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
    (cd "$ROOT" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
    tar -C "$ROOT" --null -T - -cf - | tar -C "$SRC" -xf -
if (cd "$SRC" && dpkg-checkbuilddeps ${PROFILE[@]+"${PROFILE[@]}"}) >"$W/bd.log" 2>&1; then
    pass "dpkg-checkbuilddeps: build-dependencies satisfied"
else
    fail "dpkg-checkbuilddeps: $(cat "$W/bd.log")"
fi

stage "dpkg-buildpackage -us -uc -b ${PROFILE[*]}"
t=$(date +%s)
if (cd "$SRC" && dpkg-buildpackage -us -uc -b ${PROFILE[@]+"${PROFILE[@]}"}) >"$W/build.log" 2>&1; then
    pass "dpkg-buildpackage -us -uc -b ${PROFILE[*]} from a clean copy ($(( $(date +%s) - t ))s; $(grep -m1 '^debian/rules: Swift' "$W/build.log" | sed 's/^debian\/rules: //'))"
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
dist=$(cd "$SRC" && dpkg-parsechangelog -S Distribution)
if [ "${dv%-*}" = "$hv" ]; then
    pass "package version $dv carries the header's FPX_VERSION $hv"
elif [ "$dist" = UNRELEASED ] && dpkg --compare-versions "${dv%-*}" gt "$hv"; then
    echo "# package version $dv (UNRELEASED) is ahead of the header's FPX_VERSION $hv: bump FPX_VERSION_* before releasing"
else
    fail "package version $dv, header FPX_VERSION $hv: add a debian/changelog entry"
fi

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
X=$W/x
for p in libfastpixseek1 fpx-seek; do dpkg-deb -x "$DEBS/${p}_"*"_$(dpkg --print-architecture).deb" "$X"; done
L=$X/usr/lib/$ma/libfastpixseek.so.1
if [ -f "$L" ]; then pass "libfastpixseek1 ships usr/lib/$ma/libfastpixseek.so.1"; else fail "no usr/lib/$ma/libfastpixseek.so.1 in libfastpixseek1"; fi
dpkg-deb -c "$DEBS"/fpx-seek_*.deb >"$W/fpx-seek.contents"
for f in usr/share/fpx-seek/fpx-seek.schema.json usr/share/man/man1/fpx-seek.1.gz; do
    grep -q " \./$f$" "$W/fpx-seek.contents" && pass "fpx-seek ships /$f" || fail "fpx-seek lacks /$f"
done
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
if [ -z "$want" ] && echo "$deps" | grep -qE "libavformat$(pkg-config --modversion libavformat | cut -d. -f1)( |,|$)"; then
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
    pass "debian/libfastpixseek1.symbols lists exactly the $(wc -l <"$W/exports") exports (with their version nodes)"
else
    fail "debian/libfastpixseek1.symbols differs from the exports (< exported, > listed):"
    diff "$W/exports" "$W/listed" | grep '^[<>]' | sed 's/^/    /'
fi

# ---- 3. installed: the autopkgtest tests (debian/tests) --------------------------------
stage "autopkgtest (debian/tests) on the built packages"
# autopkgtest's virt-null runs the tests on this machine: it installs the four packages and
# the tests' Depends with apt. So it runs only when no FastPixSeek package is installed (a
# developer's installed packages are never replaced or removed), and afterwards purges the
# four packages it installed; the Depends it pulled in are listed and stay.
# The FastPixSeek packages installed on this machine (none: autopkgtest may run).
installed_here() {
    local p out=""
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && out="$out $p"
    done
    echo "${out# }"
}
skip_line() { echo "# autopkgtest skipped: FastPixSeek packages are installed here ($1) and are left as they are; run them on a throwaway machine: dpkg-buildpackage -us -uc -b, then autopkgtest -B ../*.deb . -- null"; }
pre=$(installed_here)
ran_autopkgtest=0
if [ -n "$pre" ]; then
    skip_line "$pre"
elif ! command -v autopkgtest >/dev/null; then
    fail "autopkgtest is not installed (apt-get install autopkgtest; tools/deps.sh --test does)"
else
    echo "# autopkgtest -- null: installs ${PKGS[*]} and the Depends of debian/tests/control on this machine, then purges ${PKGS[*]}"
    dpkg-query -W -f='${Package}\n' | sort >"$W/pkgs.before"
    we_installed=1
    t=$(date +%s)
    (cd "$SRC" && autopkgtest -B --output-dir "$W/autopkgtest" "$DEBS"/*.deb . -- null) >"$W/autopkgtest.log" 2>&1
    rc=$?
    while read -r name result rest; do
        case "$result" in
            PASS) pass "autopkgtest $name" ;;
            SKIP) fail "autopkgtest $name skipped: $rest" ;;
            *) fail "autopkgtest $name: $result $rest" ;;
        esac
    done < <(cat "$W/autopkgtest/summary" 2>/dev/null)
    if [ $rc -ne 0 ]; then
        grep -vE '^(autopkgtest \[|Reading|Building|Selecting|Preparing|Unpacking|Setting up|Processing)' "$W/autopkgtest.log" | tail -n 40 | sed 's/^/    /'
        fail "autopkgtest exited $rc (log: debian/tests output above)"
    else
        pass "autopkgtest: every test of debian/tests/control passed ($(( $(date +%s) - t ))s)"
    fi
    purge
    we_installed=0
    dpkg-query -W -f='${Package}\n' | sort >"$W/pkgs.after"
    added=$(comm -13 "$W/pkgs.before" "$W/pkgs.after" | tr '\n' ' ')
    [ -n "$added" ] && echo "# left installed by autopkgtest (the tests' Depends): $added"
    if ! dpkg -s libfastpixseek1 >/dev/null 2>&1 && [ ! -e "/usr/lib/$ma/libfastpixseek.so.1" ] && [ ! -e /usr/bin/fpx-seek ]; then
        pass "the FastPixSeek packages this run installed are purged again"
    else
        fail "FastPixSeek packages or files left after the purge"
    fi
    ran_autopkgtest=1
fi

# The other case, as a developer's machine with the packages installed: with this run's own
# libfastpixseek1 installed (purged again right after), the decision above skips autopkgtest
# with its one line, and the package is still installed afterwards.
if [ "$ran_autopkgtest" = 1 ]; then
    stage "with a FastPixSeek package installed: autopkgtest is skipped, the package stays"
    we_installed=1
    if $SUDO dpkg -i "$DEBS"/libfastpixseek1_*.deb >"$W/dpkg1.log" 2>&1; then
        now=$(installed_here)
        line=$([ -n "$now" ] && skip_line "$now")
        if [ "$now" = libfastpixseek1 ] && [ "$(echo "$line" | wc -l)" = 1 ] && dpkg -s libfastpixseek1 >/dev/null 2>&1; then
            pass "installed packages are detected and kept: $line"
        else
            fail "with libfastpixseek1 installed: installed_here='$now', line='$line'"
        fi
    else
        cat "$W/dpkg1.log"
        fail "dpkg -i libfastpixseek1"
    fi
    purge
    we_installed=0
fi

# ---- 4. the symbols check fails when an export disappears ------------------------------
stage "symbols check, scratch build without one export"
victim=fpx_clamp_kind_name
grep -q "^ $victim@" "$SRC/debian/libfastpixseek1.symbols" || fail "$victim is not in the symbols file"
printf 'FASTPIXSEEK_1 {\n  global: fpx_*;\n  local: %s; *;\n};\n' "$victim" >"$SRC/Sources/FastPixSeek/fastpixseek.map"
# -nc: reuse the scratch build; make relinks the library (the version script changed).
# The stamp would make dh skip the build step; pybuild refuses to unpack over its output.
rm -rf "$SRC/debian/debhelper-build-stamp" "$SRC/.pybuild"
if (cd "$SRC" && dpkg-buildpackage -us -uc -b -nc ${PROFILE[@]+"${PROFILE[@]}"}) >"$W/scratch.log" 2>&1; then
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
