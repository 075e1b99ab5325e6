#!/usr/bin/env bash
# Instructions per cold exact seek, FastPixSeek against the hand-written libavformat loop,
# counted by valgrind's callgrind: a figure that does not depend on what else the machine
# is doing (timings on a shared machine do), for comparing two builds of the library.
#
#   Benchmarks/instr.sh FILE TARGETS [N] [MODE]
#
# FILE and TARGETS as for `fpx_bench seek` (Benchmarks/run.sh writes the targets to
# Benchmarks/results/targets-*.txt); the first N targets (default 300), the cold protocol
# (a new player / context per segment), MODE exact (default) or key. Uses the programs and
# the library snapshot of the last Benchmarks/run.sh (Benchmarks/build; FPX_BIN=DIR and
# FPX_LIB=DIR take them from elsewhere). Prints, per seek: the hand loop's hand_seek;
# FastPixSeek's seek job on the worker (Player.runSeek: the landing and its completion, not
# the thread hand-offs, which cost time but few instructions) and its Lander.resolve alone.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
file=${1:?usage: instr.sh FILE TARGETS [N] [exact|key]}
targets=${2:?usage: instr.sh FILE TARGETS [N] [exact|key]}
n=${3:-300}
mode=${4:-exact}
bin=${FPX_BIN:-$here/build/bin}
lib=${FPX_LIB:-$here/build/lib}
command -v valgrind >/dev/null || { echo "instr.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fpx-instr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$targets" | head -n "$n" >"$tmp/targets.txt"
seeks=$(wc -l <"$tmp/targets.txt")

count() { # out-file, toggle pattern, command...
    local out=$1 pat=$2; shift 2
    valgrind --tool=callgrind --callgrind-out-file="$out" "--toggle-collect=$pat" "$@" \
        >/dev/null 2>"$out.log" || { cat "$out.log" >&2; exit 1; }
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.log"
}
hand=$(count "$tmp/hand.cg" 'hand_seek' "$bin/av_bench" seek "$file" "$tmp/targets.txt" "$mode" 1 1)
job=$(LD_LIBRARY_PATH=$lib count "$tmp/job.cg" '*PlayerC03runC0yy*' \
      "$bin/fpx_bench" seek "$file" "$tmp/targets.txt" "$mode" 1 1)
res=$(LD_LIBRARY_PATH=$lib count "$tmp/res.cg" '*LanderC7resolve__10shouldStop*' \
      "$bin/fpx_bench" seek "$file" "$tmp/targets.txt" "$mode" 1 1)
awk -v n="$seeks" -v h="$hand" -v j="$job" -v r="$res" -v f="$(basename "$file")" -v m="$mode" 'BEGIN {
    printf "%s, %d cold %s seeks: instructions per seek\n", f, n, m
    printf "  hand loop (hand_seek)            %10.0f\n", h / n
    printf "  FastPixSeek seek job (runSeek)   %10.0f  %.3fx\n", j / n, j / h
    printf "  FastPixSeek Lander.resolve       %10.0f  %.3fx\n", r / n, r / h
}'
