#!/usr/bin/env bash
# Tests/c/run.sh -- builds and runs the C ABI tests of libfastpixseek.so.1.
#
#   Tests/c/run.sh [FIXTURE_DIR]
#
# Expects the library at build/lib (`make lib`) and the header at Include.
# FIXTURE_DIR holds the media from Tests/fixtures/make-fixtures.sh; without
# it, Tests/fixtures/out is used (and generated when the script exists).
#
# 1. compiles the header alone as C99 and as C++11;
# 2. builds every Tests/c/test_*.c with
#      cc -std=c99 -Wall -Wextra -Werror -pedantic -IInclude ... -lfastpixseek -lpthread
#    and runs it in a clean environment (env -i LD_LIBRARY_PATH=build/lib),
#    120 s timeout each;
#    Tests/c/avc_*.c are libavcodec hosts: built the same way plus
#    $(pkg-config --cflags --libs libavcodec libavutil) (a test-only dependency);
#    Tests/c/memlimit.c runs under `ulimit -v` through Tests/c/memlimit.sh (memory
#    exhaustion: FPX_MEMLIMIT_RUNS runs per limit, 2 unless set; not with FPX_SKIP_META=1);
# 3. meta-tests on the shared object: exports == header (both ways), no
#    Swift-mangled exports, no libswift dependency, SONAME and NODELETE,
#    generated tables fresh (tools/abi_gen.py --check; test_abi_tables checks every
#    error code's name and string against the header).
#
# Prints every failure and, last, one line "N passed, N failed" (the checks
# of all programs plus the meta-tests). Exit status 0 only when nothing failed.
# VERBOSE=1 also prints the section headers of each program.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2
# FPX_LIBDIR: test another build of the library (make test-asan / test-tsan use
# build/asan/lib and build/tsan/lib, with CC set to a sanitizing compiler).
LIBDIR=${FPX_LIBDIR:-$ROOT/build/lib}
# Sanitizer settings reach the programs through the clean environment.
SAN_ENV=()
for v in ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS LSAN_OPTIONS; do
    [ -n "${!v:-}" ] && SAN_ENV+=("$v=${!v}")
done
LIB=$LIBDIR/libfastpixseek.so.1
ABI_JSON=$ROOT/Tests/abi/seek-h.json
CC=${CC:-cc}
CXX=${CXX:-g++}
CFLAGS=(-std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT/Include" -I"$ROOT/Tests/c")
LDFLAGS=(-L"$LIBDIR" -lfastpixseek -lpthread -lm)
TIMEOUT=${FPX_TEST_TIMEOUT:-120}
VERBOSE=${VERBOSE:-0}

PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; echo "FAIL - $*" >>"$TMP/failures"; }
# Every failure is printed where it happens and once more, all together, just before the
# summary line: a log that keeps only its tail (a CI page) still names them.
finish() {
    if [ -s "$TMP/failures" ]; then
        echo "failures ($(grep -c . "$TMP/failures") lines):"
        sed 's/^/    /' "$TMP/failures"
    fi
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
    exit $?
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/fpx-ctest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ---- fixtures -----------------------------------------------------------------
FIX=${1:-}
if [ -z "$FIX" ]; then
    FIX=$ROOT/Tests/fixtures/out
    if [ ! -f "$FIX/mp4_bframes.mp4" ] && [ -f "$ROOT/Tests/fixtures/make-fixtures.sh" ]; then
        echo "# generating fixtures into $FIX"
        bash "$ROOT/Tests/fixtures/make-fixtures.sh" "$FIX" >"$TMP/fixtures.log" 2>&1 ||
            { cat "$TMP/fixtures.log"; fail "make-fixtures.sh failed"; }
    fi
fi
if [ ! -d "$FIX" ]; then
    fail "fixture dir $FIX does not exist"
    finish
fi
FIX=$(cd "$FIX" && pwd)
for f in mp4_bframes.mp4 mkv.mkv ts.ts audio.m4a corrupt.mp4 garbage.bin; do
    [ -f "$FIX/$f" ] || fail "fixture $FIX/$f is missing"
done

# ---- header alone ---------------------------------------------------------------
echo "# header"
if gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT/Include" -fsyntax-only Tests/c/header_c99.c \
    >"$TMP/h.log" 2>&1; then
    pass "header compiles as C99 (-Wall -Wextra -Werror -pedantic)"
else
    cat "$TMP/h.log"
    fail "header does not compile as C99"
fi
if gcc -std=c99 -Wall -Wextra -Werror -pedantic -Wstrict-prototypes -Wmissing-prototypes -Wshadow \
    -I"$ROOT/Include" -fsyntax-only Tests/c/header_c99.c >"$TMP/h.log" 2>&1; then
    pass "header compiles as C99 with -Wstrict-prototypes -Wmissing-prototypes -Wshadow"
else
    cat "$TMP/h.log"
    fail "header warns with -Wstrict-prototypes -Wmissing-prototypes -Wshadow"
fi
if $CXX -std=c++11 -Wall -Wextra -Werror -pedantic -I"$ROOT/Include" -fsyntax-only Tests/c/header_cxx.cpp \
    >"$TMP/h.log" 2>&1; then
    pass "header compiles as C++11 (-Wall -Wextra -Werror -pedantic)"
else
    cat "$TMP/h.log"
    fail "header does not compile as C++11"
fi

if [ ! -f "$LIB" ]; then
    fail "$LIB does not exist (run make lib)"
    finish
fi

# ---- test programs ----------------------------------------------------------------
# run_prog NAME BINARY [ARGS...]: runs in a clean environment, adds its counts.
run_prog() {
    local name=$1 bin=$2
    shift 2
    local out=$TMP/$name.out rc summary p f
    timeout -k 5 "$TIMEOUT" env -i LD_LIBRARY_PATH="$LIBDIR" "${SAN_ENV[@]}" "$bin" "$@" >"$out" 2>&1
    rc=$?
    if [ "$VERBOSE" = 1 ]; then
        sed 's/^/    /' "$out"
    else
        grep -v '^== ' "$out" | grep -v '^[[:digit:]]* passed, [[:digit:]]* failed$' | sed 's/^/    /'
    fi
    summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    grep -E ': FAIL \[|^SUMMARY: [A-Za-z]*Sanitizer' "$out" | sed "s|^|$name: |" >>"$TMP/failures" || true
    if [ -n "$summary" ]; then
        p=${summary%% passed*}
        f=${summary#*, }
        f=${f%% failed*}
        PASS=$((PASS + p))
        FAIL=$((FAIL + f))
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        fail "$name: killed after ${TIMEOUT}s (last section: $(grep '^== ' "$out" | tail -n 1))"
    elif [ -z "$summary" ]; then
        fail "$name: exited with status $rc and no summary (crash? last section: $(grep '^== ' "$out" | tail -n 1))"
    elif [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
        fail "$name: exit status $rc despite 0 failed checks"
    fi
    echo "# $name: ${summary:-no summary} (exit $rc)"
}

TESTS=(test_time test_lifecycle test_seek test_delivery test_storm test_misuse test_scrub test_step test_live_api test_log)
TESTS+=(test_abi_structs test_lifetimes test_memsafe test_storm_packets test_stress_seeks)
TESTS+=(test_seek_wait test_seek_wait_inline test_stream_enable test_event_fd test_destroy_events test_index)
TESTS+=(test_memory_seek test_abi_tables test_callback_safety test_callback_matrix test_fd_exhaustion test_scale)
TESTS+=(test_stalled_servers test_conventions test_preview)
# The stack sizes of the shipped library's threads, read from /proc/self/maps: a sanitizer's
# runtime maps regions of hundreds of MiB of its own (shadow, allocator), so not there.
[ "${FPX_SKIP_META:-0}" = 1 ] || TESTS+=(test_thread_stacks)
for t in "${TESTS[@]}"; do
    echo "# $t"
    if ! $CC "${CFLAGS[@]}" "Tests/c/$t.c" -o "$TMP/$t" "${LDFLAGS[@]}" >"$TMP/$t.build" 2>&1; then
        cat "$TMP/$t.build"
        fail "$t: does not build"
        continue
    fi
    run_prog "$t" "$TMP/$t" "$FIX"
done

# ---- memory exhaustion (issue 26.6; seek.h section 6) ---------------------------------------
# 1,000 players under `ulimit -v` at 512 MiB to 1.5 GiB: every run succeeds, gets
# FPX_ERROR_NO_MEMORY, or dies by SIGABRT with the documented message; never SIGSEGV.
# FPX_MEMLIMIT_RUNS runs per limit: 2 here unless set (10 by hand; RELIABILITY.md); a run
# with typed errors other than NO_MEMORY is reported, not failed, unless FPX_MEMLIMIT_STRICT=1
# (FFmpeg reports a few of its allocation failures as invalid data: RELIABILITY.md). Not under
# the sanitizers (their shadow memory needs terabytes of address space).
if [ "${FPX_SKIP_META:-0}" != 1 ]; then
    echo "# memlimit"
    if ! $CC "${CFLAGS[@]}" Tests/c/memlimit.c -o "$TMP/memlimit" "${LDFLAGS[@]}" >"$TMP/memlimit.build" 2>&1; then
        cat "$TMP/memlimit.build"
        fail "memlimit: does not build"
    else
        FPX_MEMLIMIT_RUNS=${FPX_MEMLIMIT_RUNS:-2} FPX_MEMLIMIT_STRICT=${FPX_MEMLIMIT_STRICT:-0} bash Tests/c/memlimit.sh "$TMP/memlimit" "$FIX/mp4_bframes.mp4" \
            "$LIBDIR" >"$TMP/memlimit.out" 2>&1
        while IFS= read -r line; do
            case $line in
            "ok   - "*) pass "${line#ok   - }" ;;
            "FAIL - "*) fail "${line#FAIL - }" ;;
            *) echo "    $line" ;;
            esac
        done <"$TMP/memlimit.out"
    fi
fi

# ---- the packet-order storm (issue 26) ------------------------------------------------
# A 120 s 320x180 H.264 (-bf 3 -g 50) + AAC MP4 made here (a few seconds of ultrafast x264)
# and the csv ffprobe -show_packets writes of it (groundtruth.h's command): every packet the
# storm reads is checked against that file. FPX_STRESS_SECONDS sets the storm's length
# (default 40 s, about a minute with the encode; minutes by hand, see RELIABILITY.md).
echo "# test_packet_order"
PO=$TMP/packet_order
PO_SECONDS=${FPX_STRESS_SECONDS:-40}
mkdir -p "$PO"
if ! ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=320x180:rate=25 \
    -f lavfi -i sine=frequency=440:sample_rate=48000 -t 120 -map 0:v -map 1:a \
    -c:v libx264 -preset ultrafast -bf 3 -g 50 -pix_fmt yuv420p -c:a aac -b:a 48k "$PO/order.mp4" \
    >"$TMP/packet_order.log" 2>&1 ||
    ! ffprobe -v error -show_entries packet=stream_index,pts,dts,size,pos,flags,data_hash \
        -show_data_hash adler32 -of csv=p=0 "$PO/order.mp4" >"$PO/order.csv" 2>>"$TMP/packet_order.log"; then
    cat "$TMP/packet_order.log"
    fail "test_packet_order: ffmpeg or ffprobe could not make the media and its packet list"
elif ! $CC "${CFLAGS[@]}" Tests/c/test_packet_order.c -o "$TMP/test_packet_order" "${LDFLAGS[@]}" \
    >"$TMP/test_packet_order.build" 2>&1; then
    cat "$TMP/test_packet_order.build"
    fail "test_packet_order: does not build"
else
    # Its own timeout: the storm's length and a margin (at least the usual one).
    PO_TIMEOUT=$((PO_SECONDS + 90))
    [ "$PO_TIMEOUT" -lt "$TIMEOUT" ] && PO_TIMEOUT=$TIMEOUT
    TIMEOUT=$PO_TIMEOUT run_prog test_packet_order "$TMP/test_packet_order" "$PO/order.mp4" "$PO/order.csv" "$PO_SECONDS"
fi

# ---- libavcodec hosts (test-only dependency) -----------------------------------------
# Tests/c/avc_*.c decode the packet stream with libavcodec, as a real host would. They
# link libavcodec/libavutil through pkg-config; the library itself never does.
# HLS with separate audio renditions: a master ffmpeg writes with -var_stream_map (2 s; two
# video-only variants, two audio renditions of one group, the first DEFAULT).
echo "# test_hls_audio"
HLSA=$TMP/hls_audio
mkdir -p "$HLSA"
if ! ffmpeg -v error -f lavfi -i testsrc2=size=64x48:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000 \
    -f lavfi -i sine=frequency=880:sample_rate=22050 -t 2 \
    -map 0:v -map 0:v -map 1:a -map 2:a -c:v libx264 -preset ultrafast -g 25 -s:v:1 32x24 -c:a aac -b:a 32k -f hls \
    -hls_time 1 -hls_playlist_type vod -master_pl_name master.m3u8 \
    -var_stream_map "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,default:yes a:1,agroup:aud" \
    -hls_segment_filename "$HLSA/s%v_%d.ts" "$HLSA/out_%v.m3u8" >"$TMP/hls_audio.log" 2>&1; then
    cat "$TMP/hls_audio.log"
    fail "test_hls_audio: ffmpeg could not write the HLS master"
elif ! $CC "${CFLAGS[@]}" Tests/c/test_hls_audio.c -o "$TMP/test_hls_audio" "${LDFLAGS[@]}" >"$TMP/test_hls_audio.build" 2>&1; then
    cat "$TMP/test_hls_audio.build"
    fail "test_hls_audio: does not build"
else
    run_prog test_hls_audio "$TMP/test_hls_audio" "$FIX" "$HLSA"
fi

if pkg-config --exists libavcodec libavutil; then
    for src in Tests/c/avc_*.c; do
        [ -f "$src" ] || continue
        t=$(basename "$src" .c)
        echo "# $t"
        # shellcheck disable=SC2046
        if ! $CC "${CFLAGS[@]}" "$src" -o "$TMP/$t" $(pkg-config --cflags --libs libavcodec libavutil) \
            "${LDFLAGS[@]}" >"$TMP/$t.build" 2>&1; then
            cat "$TMP/$t.build"
            fail "$t: does not build"
            continue
        fi
        run_prog "$t" "$TMP/$t" "$FIX"
    done
else
    fail "libavcodec/libavutil development files are missing (tools/deps.sh installs libavcodec-dev)"
fi

# ---- meta-tests ------------------------------------------------------------------------
# FPX_SKIP_META=1 (sanitizer builds): the shared object is not the shipped one.
if [ "${FPX_SKIP_META:-0}" = 1 ]; then
    finish
fi
echo "# meta: the shared object"
# The header's functions as clang parsed it: Tests/abi/seek-h.json, written by
# tools/abi_gen.py (which refuses an fpx_ function declared without FPX_API).
python3 -c 'import json, sys; print("\n".join(f["name"] for f in json.load(open(sys.argv[1]))["functions"]))' \
    "$ABI_JSON" | sort -u >"$TMP/header.syms"
nm -D --defined-only "$LIB" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$TMP/all.syms"
grep '^fpx_' "$TMP/all.syms" >"$TMP/lib.syms"

if [ "$(wc -l <"$TMP/header.syms")" -ge 40 ]; then
    pass "header: $(wc -l <"$TMP/header.syms") FPX_API functions in $ABI_JSON"
else
    fail "header: $ABI_JSON lists $(wc -l <"$TMP/header.syms") functions"
fi
missing=$(comm -23 "$TMP/header.syms" "$TMP/lib.syms")
extra=$(comm -13 "$TMP/header.syms" "$TMP/lib.syms")
if [ -z "$missing" ]; then
    pass "(a) every function declared in the header is exported"
else
    fail "(a) declared in the header but not exported: $(echo $missing)"
fi
if [ -z "$extra" ]; then
    pass "(a) every exported fpx_ symbol is declared in the header"
else
    fail "(a) exported but not declared in the header: $(echo $extra)"
fi
swift_exports=$(grep -E '^(\$s|\$S|_T0)' "$TMP/all.syms")
if [ -z "$swift_exports" ]; then
    pass "(b) no Swift-mangled symbols exported"
else
    fail "(b) Swift-mangled exports: $(echo "$swift_exports" | head -n 5 | tr '\n' ' ') ($(echo "$swift_exports" | wc -l) in all)"
fi
others=$(grep -v '^fpx_' "$TMP/all.syms")
if [ -n "$others" ]; then
    echo "    note: exported symbols other than fpx_*: $(echo "$others" | head -n 10 | tr '\n' ' ')"
fi
swift_imports=$(nm -D --undefined-only "$LIB" | awk '{ print $NF }' | grep -E '^(\$s|\$S|_T0|swift_)')
if [ -z "$swift_imports" ]; then
    pass "(b) no undefined Swift runtime symbols (the runtime is linked in)"
else
    fail "(b) undefined Swift symbols: $(echo "$swift_imports" | head -n 5 | tr '\n' ' ')"
fi
ldd "$LIB" >"$TMP/ldd.out" 2>&1
if grep -qi 'libswift\|libFoundation\|libdispatch\|libBlocksRuntime' "$TMP/ldd.out"; then
    fail "(c) ldd shows Swift runtime libraries: $(grep -i 'swift\|Foundation\|dispatch\|Blocks' "$TMP/ldd.out" | awk '{print $1}' | tr '\n' ' ')"
else
    pass "(c) ldd shows no libswift"
fi
if grep -q 'not found' "$TMP/ldd.out"; then
    fail "(c) ldd: unresolved dependencies: $(grep 'not found' "$TMP/ldd.out" | tr '\n' ' ')"
else
    pass "(c) ldd: every dependency resolves"
fi
readelf -d "$LIB" >"$TMP/dyn.out" 2>&1
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p' "$TMP/dyn.out")
if [ "$soname" = "libfastpixseek.so.1" ]; then
    pass "(d) SONAME is libfastpixseek.so.1"
else
    fail "(d) SONAME is '$soname', expected libfastpixseek.so.1"
fi
if grep -E '\(FLAGS_1\)' "$TMP/dyn.out" | grep -qw 'NODELETE'; then
    pass "(d) FLAGS_1 include NODELETE"
else
    fail "(d) FLAGS_1 lack NODELETE: '$(grep -E '\(FLAGS_1\)' "$TMP/dyn.out" | sed 's/^ *//')'"
fi

# (f) every export carries the symbol version FASTPIXSEEK_1 (the version script's node).
objdump -T "$LIB" | awk '$NF ~ /^fpx_/ && $0 !~ /\*UND\*/' >"$TMP/versions.out"
nver=$(wc -l <"$TMP/versions.out")
unversioned=$(grep -vw -e 'FASTPIXSEEK_1' -e 'FPX_0\.4' "$TMP/versions.out" | awk '{ print $NF }')
if [ "$nver" -gt 0 ] && [ "$nver" -eq "$(wc -l <"$TMP/lib.syms")" ] && [ -z "$unversioned" ]; then
    pass "(f) all $nver fpx_ exports carry the version FASTPIXSEEK_1 or FPX_0.4 (objdump -T)"
else
    fail "(f) exports without the version FASTPIXSEEK_1: $(echo $unversioned | head -c 400) ($nver versioned of $(wc -l <"$TMP/lib.syms"))"
fi

# (d) a GNU build ID (debuggers and Debian's -dbgsym packages find the symbols by it; the
# Makefile asks for it: Debian 13's swiftlang driver does not by itself).
if readelf -n "$LIB" 2>/dev/null | grep -q 'Build ID: [0-9a-f]\{40\}'; then
    pass "(d) libfastpixseek.so.1 carries a GNU build ID"
else
    fail "(d) libfastpixseek.so.1 has no GNU build ID note (readelf -n)"
fi

# (g) the allocator of the objects linked into the library is the library's wrapper, which
# releases its reserve and retries, and the runtime's allocation-failure report its own,
# which allocates nothing (the Makefile's --wrap; seek.h section 6): no call reaches the
# runtime's own swift_slowAlloc (Swift 6.0.3's traps with a bare ud2 on failure), every one
# goes to __wrap_swift_slowAlloc, whose code releases the reserve and ends in the library's
# report (fpxAbortAllocationFailure); whatever the runtime still calls malloc or
# swift_abortAllocationFailure from goes to __wrap_malloc and the wrapped report.
objdump -d --no-show-raw-insn "$LIB" >"$TMP/lib.dis" 2>/dev/null
slow_direct=$(grep -cE '(call|jmp) +[0-9a-f]+ <swift_slowAlloc>' "$TMP/lib.dis" || true)
slow_wrapped=$(grep -cE '(call|jmp) +[0-9a-f]+ <__wrap_swift_slowAlloc>' "$TMP/lib.dis" || true)
wrap_impl=$(awk '/^[0-9a-f]+ <\$s11FastPixSeek21fpxWrapSwiftSlowAlloc/ {on = 1; next} /^[0-9a-f]+ </ {on = 0} on' "$TMP/lib.dis")
if [ "$slow_direct" -eq 0 ] && [ "$slow_wrapped" -gt 0 ] &&
    grep -q 'MemoryReserve.*release' <<<"$wrap_impl" &&
    grep -qE 'fpxAbortAllocationFailure|__wrap__ZN5swift28swift_abortAllocationFailureEmm' <<<"$wrap_impl"; then
    pass "(g) swift_slowAlloc's $slow_wrapped callers allocate through the library's wrapper (reserve, then its own report; --wrap)"
else
    fail "(g) the runtime's allocator is not the library's: $slow_direct calls to swift_slowAlloc itself, $slow_wrapped to __wrap_swift_slowAlloc, or the wrapper lacks the reserve or the report (objdump -d)"
fi

# (e) the generated tables are fresh: every table of the ABI (Swift error cases, names and
# messages; the C name tables; the callback-safety table; the Python enums and errors;
# Tests/abi/seek-h.json; Tests/c/test_abi_tables.c, which checks every code's name and
# string against the header) is what tools/abi_gen.py makes of seek.h now.
echo "# meta: generated tables"
if python3 "$ROOT/tools/abi_gen.py" --check >"$TMP/gen.out" 2>&1; then
    pass "(e) the files generated from the header are fresh (tools/abi_gen.py --check)"
else
    sed 's/^/    /' "$TMP/gen.out"
    fail "(e) generated files are stale: run make gen"
fi

finish
