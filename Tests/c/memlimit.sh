#!/usr/bin/env bash
# Tests/c/memlimit.sh BIN FILE LIBDIR -- memory exhaustion ends the way seek.h section 6 says
# (issue 26.6): Tests/c/memlimit.c (BIN, built by run.sh) runs 1,000 players on FILE under
# `ulimit -v` (RLIMIT_AS) at several limits, several times each. Every run must either
#   - exit 0 with nothing on stderr: every call returned FPX_OK or FPX_ERROR_NO_MEMORY, or
#   - die by SIGABRT with "Fatal error: failed to allocate " on stderr (the Swift runtime's
#     allocation failure, which has no failure path),
# never by SIGSEGV or another signal, never hang (300 s). A run whose calls returned other
# typed errors (exit 3: FFmpeg reports a few of its allocation failures as invalid data)
# is counted apart; it fails the check unless FPX_MEMLIMIT_STRICT=0. So is a run that died
# by SIGSEGV/SIGBUS at an instruction of FFmpeg's own libraries, or by a call from them
# through a null function pointer (memlimit.c names the object of the faulting
# instruction, and for a jump to an address no object holds, the caller's: seek.h
# section 6 says the library cannot vouch for FFmpeg's code; seen with FFmpeg 5.1 about
# once in 70 runs, in libavformat's file open, and FFmpeg 5.1's AAC decoder, which
# avformat_find_stream_info runs, calling its MDCT whose setup failed, about once in 20
# runs at 512 MiB); a crash anywhere else always fails.
#
#   FPX_MEMLIMIT_LIMITS  limits in MiB (default "512 768 1024 1536")
#   FPX_MEMLIMIT_RUNS    runs per limit (default 10; run.sh passes 2 unless it is set)
#   FPX_MEMLIMIT_PLAYERS players per run (default 1000)
#   FPX_MEMLIMIT_STRICT  1 (default): other typed errors fail; 0: they are only counted
#                        (run.sh in CI: a crash always fails, a typed error is reported)
#
# Prints "ok   - ..." / "FAIL - ..." lines (run.sh's format) and one line per limit with the
# outcomes. Exit status 0 only when every run ended one of the two ways above.
set -u
BIN=$1 FILE=$2 LIBDIR=$3
LIMITS=${FPX_MEMLIMIT_LIMITS:-512 768 1024 1536}
RUNS=${FPX_MEMLIMIT_RUNS:-10}
PLAYERS=${FPX_MEMLIMIT_PLAYERS:-1000}
STRICT=${FPX_MEMLIMIT_STRICT:-1}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fpx-memlimit.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
failed=0

for lim in $LIMITS; do
    ok=0 nomem=0 aborted=0 typed=0 ffcrash=0 bad=0 notes=""
    for ((r = 1; r <= RUNS; r++)); do
        # The limit applies to the test program only (set in the child shell, which then
        # execs it);
        # no core files. The subshell's own stderr (bash's "Segmentation fault" notice) is dropped.
        { timeout -k 5 300 bash -c 'ulimit -c 0; ulimit -v "$1" && exec env -i LD_LIBRARY_PATH="$2" "$3" "$4" "$5"' \
            _ $((lim * 1024)) "$LIBDIR" "$BIN" "$FILE" "$PLAYERS" >"$TMP/out" 2>"$TMP/err"; } 2>/dev/null
        rc=$?
        if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ]; then
            if grep -q 'FPX_ERROR_NO_MEMORY' "$TMP/out"; then nomem=$((nomem + 1)); else ok=$((ok + 1)); fi
            notes=$(sed -n 's/.*"created":\([0-9]*\),"ready":\([0-9]*\),"seeks_landed":\([0-9]*\).*/\1\/\2\/\3/p' "$TMP/out")
        elif [ "$rc" -eq 134 ] && grep -q '^Fatal error: failed to allocate [0-9]* bytes' "$TMP/err"; then
            aborted=$((aborted + 1))
        elif { [ "$rc" -eq 139 ] || [ "$rc" -eq 135 ]; } && [ "$STRICT" = 0 ] &&
            grep -qE '^memlimit: SIG(SEGV|BUS) at 0x[0-9a-f]+ in ([^ ]*/libav(format|codec|util)\.so|an unknown object, called from 0x[0-9a-f]+ in [^ ]*/libav(format|codec|util)\.so)' "$TMP/err"; then
            ffcrash=$((ffcrash + 1))
            echo "note: ${lim} MiB run $r: died inside FFmpeg (seek.h section 6): $(head -c 300 "$TMP/err" | tr '\n' ' ')"
        elif [ "$rc" -eq 3 ] && [ "$STRICT" = 0 ] && [ ! -s "$TMP/err" ]; then
            typed=$((typed + 1))
            echo "note: ${lim} MiB run $r: typed errors other than FPX_ERROR_NO_MEMORY: $(grep -o '"codes".*' "$TMP/out")"
        else
            bad=$((bad + 1))
            case $rc in
            124 | 137) why="hung (killed after 300 s)" ;;
            3) why="an unexpected error code: $(cat "$TMP/out")" ;;
            0) why="exit 0 but stderr: $(head -c 300 "$TMP/err")" ;;
            *) why="exit status $rc$( [ "$rc" -gt 128 ] && echo " (signal $((rc - 128)))"), stderr: $(head -c 300 "$TMP/err" | tr '\n' ' ')" ;;
            esac
            echo "FAIL - memory exhaustion: ${lim} MiB run $r: $why"
        fi
    done
    summary="${lim} MiB, $PLAYERS players, $RUNS runs: $ok succeeded, $nomem FPX_ERROR_NO_MEMORY, $aborted SIGABRT with the message, $typed other typed errors, $ffcrash crashes inside FFmpeg, $bad otherwise${notes:+ (last clean run created/ready/landed: $notes)}"
    if [ "$bad" -eq 0 ]; then
        echo "ok   - memory exhaustion: $summary"
    else
        echo "FAIL - memory exhaustion: $summary"
        failed=1
    fi
done
exit "$failed"
