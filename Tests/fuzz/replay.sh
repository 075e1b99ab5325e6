#!/usr/bin/env bash
# Tests/fuzz/replay.sh -- runs every seed of Tests/fuzz/corpus/<harness>/ once
# through its harness (built with a plain main(), no libFuzzer), so ordinary CI
# checks the corpora, crash reproducers included, on every run.
#
#   Tests/fuzz/replay.sh            against build/lib (make lib)
#   FPX_LIBDIR=... CC="clang -fsanitize=address" Tests/fuzz/replay.sh   (sanitized)
#
# A harness aborts on a broken invariant (see fuzz_common.h), so a nonzero exit
# of a replay is a failure. Prints "N passed, N failed" last.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
LIBDIR=${FPX_LIBDIR:-$ROOT/build/lib}
CC=${CC:-cc}
SAN_ENV=()
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
    [ -n "${!v:-}" ] && SAN_ENV+=("$v=${!v}")
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fpx-replay.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PASS=0
FAIL=0
for h in fuzz_media fuzz_api fuzz_hls fuzz_preview; do
    name=${h#fuzz_}
    if ! $CC -std=c99 -Wall -Wextra -Werror -DFPX_FUZZ_REPLAY -I"$ROOT/Include" "Tests/fuzz/$h.c" \
        -o "$TMP/$h" -L"$LIBDIR" -lfastpixseek -lpthread >"$TMP/$h.build" 2>&1; then
        cat "$TMP/$h.build"
        echo "FAIL - $h does not build"
        FAIL=$((FAIL + 1))
        continue
    fi
    files=(Tests/fuzz/corpus/"$name"/*)
    start=$(date +%s.%N)
    if timeout -k 5 "${FPX_REPLAY_TIMEOUT:-600}" env -i LD_LIBRARY_PATH="$LIBDIR" PATH=/usr/bin:/bin "${SAN_ENV[@]}" \
        "$TMP/$h" "${files[@]}" >"$TMP/$h.out" 2>"$TMP/$h.err"; then
        echo "ok   - $h: $(cat "$TMP/$h.out") ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s)"
        PASS=$((PASS + 1))
    else
        echo "FAIL - $h: exit $? over ${#files[@]} inputs"
        grep -v '^\[' "$TMP/$h.err" | tail -n 30 | sed 's/^/    /'
        FAIL=$((FAIL + 1))
    fi
done
# Swift harnesses: compiled with the one pure core file they test (no library), at -Onone so
# Swift's bounds checks stay on; with FPX_REPLAY_SWIFT_SANITIZE=1 also under ASan.
SWIFTC=${SWIFTC:-swiftc}
SWIFT_SAN=()
[ "${FPX_REPLAY_SWIFT_SANITIZE:-0}" = 1 ] && SWIFT_SAN=(-sanitize=address)
for h in fuzz_nal; do
    name=${h#fuzz_}
    case $h in
        fuzz_nal) core=(Sources/FastPixSeekCore/NALReference.swift) ;;
    esac
    if ! "$SWIFTC" -parse-as-library -Onone -D FPX_FUZZ_REPLAY "${SWIFT_SAN[@]}" "${core[@]}" "Tests/fuzz/$h.swift" \
        -o "$TMP/$h" >"$TMP/$h.build" 2>&1; then
        cat "$TMP/$h.build"
        echo "FAIL - $h does not build"
        FAIL=$((FAIL + 1))
        continue
    fi
    files=(Tests/fuzz/corpus/"$name"/*)
    start=$(date +%s.%N)
    if timeout -k 5 "${FPX_REPLAY_TIMEOUT:-600}" env -i PATH=/usr/bin:/bin "${SAN_ENV[@]}" \
        "$TMP/$h" "${files[@]}" >"$TMP/$h.out" 2>"$TMP/$h.err"; then
        echo "ok   - $h: $(cat "$TMP/$h.out") ($(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s)"
        PASS=$((PASS + 1))
    else
        echo "FAIL - $h: exit $? over ${#files[@]} inputs"
        tail -n 30 "$TMP/$h.err" | sed 's/^/    /'
        FAIL=$((FAIL + 1))
    fi
done
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
