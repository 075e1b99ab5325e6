#!/usr/bin/env bash
# FastPixSeek benchmarks: ONE command that builds what it needs, runs everything and writes
# the report.
#
#   Benchmarks/run.sh            full run, the whole of BENCHMARKS.md at the top of the
#                                repository: the seeks (bench.py: 10-minute and 2-hour corpus,
#                                1000 targets per file, callgrind counts), then every section
#                                below (--frames, --batch, sprite_bench.py with 30 s files,
#                                preview_bench.py); nothing in the file is written by hand.
#                                About 45 minutes on 2 cores (FRAME_BENCH_SCALE=0.5 halves the
#                                frames benchmark's targets; SPRITE_BENCH_DURATION=S)
#   Benchmarks/run.sh --smoke    20 s corpus, 24 targets per file, about a minute; prints the
#                                results and writes Benchmarks/results-smoke/BENCHMARKS-smoke.md
#   Benchmarks/run.sh --frames [--smoke]
#                                only the time-to-frame benchmark (frame_bench.py, issue 21.6):
#                                FastPixSeek's frame helper (Python and C) against PyAV, the
#                                hand-written C loop, ffms2, decord and OpenCV on the corpus of
#                                make_frame_corpus.sh; writes its section of BENCHMARKS.md
#                                (Benchmarks/results-frames-smoke/ only with --smoke). decord
#                                and opencv-python-headless are pip-installed when $PYTHON is a
#                                virtual environment's (build/venv), else reported missing;
#                                torch + torchcodec into Benchmarks/build/torchvenv
#                                (FPX_BENCH_TORCH=0: not measured)
#   Benchmarks/run.sh --batch [--smoke]
#                                only frames of many files at scale (batch_bench.py, issue
#                                33.3): the Dask recipe against a process pool with the same
#                                task, decord's and torchcodec's batch APIs; writes its section
#                                of BENCHMARKS.md (Benchmarks/results-batch-smoke/ with --smoke)
#   Benchmarks/run.sh --packets [FILE]
#                                only packets in C against packets through the Python bindings
#                                (packet_bench.c / packet_bench.py), printed as a table; FILE
#                                defaults to a 60 s H.264 + AAC MP4 made with ffmpeg
#
# Exit status: non-zero only when a FastPixSeek implementation (C API or Python bindings)
# lands on a different frame than ffprobe says, or something fails to build or run. Never
# because of a timing.
#
# Needs: ffmpeg/ffprobe, cc, pkg-config with the FFmpeg 5.1 development files
# (libavformat-dev libavcodec-dev libavutil-dev), python3. PyAV is installed with pip when
# missing and $PYTHON is a virtual environment's (the PyAV rows are skipped otherwise). ffms2 (Debian's libffms2-dev) is
# installed with apt-get when missing and this runs as root (or with password-less sudo);
# when it cannot be, the ffms2 rows of the report say "not measured" and why (never a
# failure). The library is taken from
# build/lib/libfastpixseek.so.1 (built with `make lib` when missing) and copied to
# Benchmarks/build/lib, and the Python bindings to Benchmarks/build/python, so a rebuild
# during the run does not change what is measured.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
smoke=0
packets=0
frames=0
batch=0
case "${1:-}" in
    --smoke) smoke=1 ;;
    --packets) packets=1 ;;
    --frames) frames=1; [ "${2:-}" = "--smoke" ] && smoke=1 ;;
    --batch) batch=1; [ "${2:-}" = "--smoke" ] && smoke=1 ;;
    "") ;;
    *) echo "usage: $0 [--smoke | --packets [FILE] | --frames [--smoke] | --batch [--smoke]]" >&2; exit 2 ;;
esac
python=${PYTHON:-python3}

# 1. The library: a private snapshot.
if [ ! -e "$root/build/lib/libfastpixseek.so.1" ]; then
    echo "run.sh: build/lib/libfastpixseek.so.1 missing: make lib" >&2
    make -C "$root" lib
fi
build=$here/build
mkdir -p "$build/lib" "$build/bin"
cp -pf "$root/build/lib/libfastpixseek.so.1" "$build/lib/.libfastpixseek.so.1.tmp"
mv -f "$build/lib/.libfastpixseek.so.1.tmp" "$build/lib/libfastpixseek.so.1"
ln -sf libfastpixseek.so.1 "$build/lib/libfastpixseek.so"
# ... and of the Python bindings, taken at the same moment
rm -rf "$build/python"
mkdir -p "$build/python"
cp -r "$root/Bindings/python/fastpix_seek" "$build/python/"

# 2. The C programs, strictly.
CC=${CC:-cc}
CFLAGS="-std=c99 -Wall -Wextra -Werror -O2"
# shellcheck disable=SC2046
$CC $CFLAGS -pthread -o "$build/bin/av_bench" "$here/av_bench.c" \
    $(pkg-config --cflags --libs libavformat libavcodec libavutil)
$CC $CFLAGS -shared -fPIC -o "$build/bin/avtrace.so" "$here/avtrace.c" -ldl \
    $(pkg-config --cflags libavformat)
$CC $CFLAGS -I"$root/Include" -o "$build/bin/packet_bench" "$here/packet_bench.c" \
    -L"$build/lib" -lfastpixseek -Wl,-rpath,"$build/lib"
if [ $packets = 1 ]; then
    exec "$python" "$here/packet_bench.py" --bin "$build/bin" --lib "$build/lib/libfastpixseek.so.1" \
        --pythonpath "$build/python" ${2:+"$2"}
fi
$CC $CFLAGS -I"$root/Include" -o "$build/bin/fpx_bench" "$here/fpx_bench.c" \
    -L"$build/lib" -lfastpixseek -Wl,-rpath,"$build/lib" -pthread
$CC $CFLAGS -I"$root/Include" -o "$build/bin/index_bench" "$here/index_bench.c" \
    -L"$build/lib" -lfastpixseek -Wl,-rpath,"$build/lib" -pthread
# shellcheck disable=SC2046
$CC $CFLAGS -I"$root/Include" -I"$root/Tests/c" -o "$build/bin/idle_bench" "$here/idle_bench.c" \
    -L"$build/lib" -lfastpixseek -Wl,-rpath,"$build/lib" -pthread \
    $(pkg-config --cflags --libs libavformat libavutil)

# 3. ffms2 (optional): the indexing reference. Its status goes to build/ffms2-status.txt,
# which bench.py reads: "ok VERSION" or "not measured: WHY".
ffms2_status=$build/ffms2-status.txt
rm -f "$build/bin/ffms2_bench" "$ffms2_status"
ffms2_why=""
if ! pkg-config --exists ffms2 2>/dev/null; then
    sudo=""
    if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
    if ! command -v apt-get >/dev/null 2>&1; then
        ffms2_why="libffms2-dev is not installed and there is no apt-get"
    elif [ "$(id -u)" != 0 ] && [ -z "$sudo" ]; then
        ffms2_why="libffms2-dev is not installed and installing it needs root (apt-get)"
    else
        echo "run.sh: installing ffms2 (apt-get install libffms2-dev)" >&2
        log=$build/ffms2-apt.log
        # The package lists may be fresh already: update only when the install alone fails,
        # and not in the smoke run (kept short: one bounded attempt).
        if [ $smoke = 1 ]; then limit=30; else limit=300; fi
        if ! DEBIAN_FRONTEND=noninteractive timeout "$limit" $sudo apt-get install -y -qq \
                libffms2-dev >"$log" 2>&1 && [ $smoke = 0 ]; then
            DEBIAN_FRONTEND=noninteractive timeout "$limit" $sudo apt-get update -qq >>"$log" 2>&1 || true
            DEBIAN_FRONTEND=noninteractive timeout "$limit" $sudo apt-get install -y -qq \
                libffms2-dev >>"$log" 2>&1 || true
        fi
        if ! pkg-config --exists ffms2 2>/dev/null; then
            ffms2_why="apt-get install libffms2-dev failed: $(grep -v '^\s*$' "$log" | tail -n 1 || true)"
            if [ $smoke = 1 ]; then
                ffms2_why="$ffms2_why (smoke run: no apt-get update; the full run tries one)"
            fi
        fi
    fi
fi
if [ -z "$ffms2_why" ]; then
    # shellcheck disable=SC2046
    if $CC $CFLAGS -o "$build/bin/ffms2_bench" "$here/ffms2_bench.c" \
            $(pkg-config --cflags --libs ffms2) 2>"$build/ffms2-cc.log"; then
        deb=$(dpkg-query -W -f='${Version}' libffms2-dev 2>/dev/null || true)
        echo "ok $(pkg-config --modversion ffms2)${deb:+ (Debian libffms2-dev $deb)}" >"$ffms2_status"
    else
        # a compile error in our own program is a failure, not a missing dependency
        cat "$build/ffms2-cc.log" >&2
        exit 1
    fi
else
    echo "run.sh: ffms2 rows not measured: $ffms2_why" >&2
    echo "not measured: $ffms2_why" >"$ffms2_status"
fi

# 4. PyAV (optional).
# pip only into a virtual environment (Debian's own python3 refuses a global install, PEP 668).
if ! "$python" -c "import av" 2>/dev/null; then
    if "$python" -c "import sys; sys.exit(sys.prefix == sys.base_prefix)" 2>/dev/null; then
        echo "run.sh: installing PyAV into the virtual environment of $python (pip install av)" >&2
        "$python" -m pip install --quiet av >&2 || echo "run.sh: PyAV could not be installed; its rows are skipped" >&2
    else
        echo "run.sh: no PyAV for $python (apt install python3-av, or PYTHON=a venv's python); its rows are skipped" >&2
    fi
fi

# torch and torchcodec for the frames and batch benchmarks.
full=0
if [ $smoke = 0 ] && [ $frames = 0 ] && [ $batch = 0 ]; then full=1; fi
torch_python=
if [ $frames = 1 ] || [ $batch = 1 ] || [ $full = 1 ]; then
    # torch and torchcodec (PyPI; torchcodec's CPU build over the system's FFmpeg) in a
    # virtual environment of their own: several GB with torch's CUDA dependencies, made once.
    # FPX_BENCH_TORCH=0 skips them (reported as not measured).
    if [ "${FPX_BENCH_TORCH:-1}" = 1 ]; then
        tv=$build/torchvenv
        if ! "$tv/bin/python" -c "import torchcodec" 2>/dev/null; then
            echo "run.sh: installing torch and torchcodec into $tv (pip; several GB; FPX_BENCH_TORCH=0 skips)" >&2
            { /usr/bin/python3 -m venv "$tv" && "$tv/bin/python" -m pip install --quiet torch torchcodec numpy >&2; } ||
                echo "run.sh: torchcodec could not be installed; reported as not measured" >&2
        fi
        [ -x "$tv/bin/python" ] && torch_python=$tv/bin/python
    fi
fi
in_venv() { "$python" -c "import sys; sys.exit(sys.prefix == sys.base_prefix)" 2>/dev/null; }

# Frames of many files at scale (issue 33.3).
batch_run() { # [--smoke]
    if ! "$python" -c "import decord" 2>/dev/null && in_venv; then
        "$python" -m pip install --quiet decord >&2 || echo "run.sh: decord could not be installed" >&2
    fi
    if [ "${1:-}" = --smoke ]; then
        "$python" "$here/batch_bench.py" --corpus "$here/corpus-batch-smoke" --pythonpath "$build/python" \
            --lib "$build/lib/libfastpixseek.so.1" --python "$python" --torch-python "$torch_python" \
            --smoke --out "$here/results-batch-smoke/BENCHMARKS-batch-smoke.md" --command "Benchmarks/run.sh --batch --smoke"
    else
        "$python" "$here/batch_bench.py" --corpus "$here/corpus-batch" --pythonpath "$build/python" \
            --lib "$build/lib/libfastpixseek.so.1" --python "$python" --torch-python "$torch_python" \
            --out "$root/BENCHMARKS.md" --command "Benchmarks/run.sh --batch"
    fi
}

# The time to the presented frame (issue 21.6, 33.2).
frames_run() { # [--smoke]
    ffms2_flags=()
    if [ -z "$ffms2_why" ]; then
        # shellcheck disable=SC2207
        ffms2_flags=(-DWITH_FFMS2 $(pkg-config --cflags --libs ffms2))
    fi
    # shellcheck disable=SC2046
    $CC $CFLAGS -DWITH_FPX -I"$root/Include" -o "$build/bin/frame_bench_c" "$here/frame_bench_c.c" \
        $(pkg-config --cflags --libs libavformat libavcodec libavutil) "${ffms2_flags[@]}" \
        -L"$build/lib" -lfastpixseek -Wl,-rpath,"$build/lib"
    if in_venv; then
        for mod in decord:decord cv2:opencv-python-headless; do
            if ! "$python" -c "import ${mod%%:*}" 2>/dev/null; then
                echo "run.sh: installing ${mod#*:} into the virtual environment of $python (pip)" >&2
                "$python" -m pip install --quiet "${mod#*:}" >&2 || echo "run.sh: ${mod#*:} could not be installed; reported as not measured" >&2
            fi
        done
    fi
    if [ "${1:-}" = --smoke ]; then
        "$here/make_frame_corpus.sh" "$here/corpus-frames-smoke" --smoke
        "$python" "$here/frame_bench.py" --corpus "$here/corpus-frames-smoke" --bin "$build/bin" \
            --lib "$build/lib/libfastpixseek.so.1" --pythonpath "$build/python" --python "$python" \
            --torch-python "$torch_python" --results "$here/results-frames-smoke" --out "$here/results-frames-smoke/BENCHMARKS-frames-smoke.md" \
            --ffms2-status "$ffms2_status" --smoke --command "Benchmarks/run.sh --frames --smoke"
    else
        "$here/make_frame_corpus.sh" "$here/corpus-frames"
        "$python" "$here/frame_bench.py" --corpus "$here/corpus-frames" --bin "$build/bin" \
            --lib "$build/lib/libfastpixseek.so.1" --pythonpath "$build/python" --python "$python" \
            --torch-python "$torch_python" --results "$here/results-frames" --out "$root/BENCHMARKS.md" --ffms2-status "$ffms2_status" \
            --scale "${FRAME_BENCH_SCALE:-1}" --command "${FRAMES_COMMAND:-Benchmarks/run.sh --frames}"
    fi
}

if [ $batch = 1 ]; then
    if [ $smoke = 1 ]; then batch_run --smoke; else batch_run; fi
    exit
fi
if [ $frames = 1 ]; then
    if [ $smoke = 1 ]; then frames_run --smoke; else frames_run; fi
    exit
fi

# 5. Corpus, then the driver.
if [ $smoke = 1 ]; then
    corpus=$here/corpus-smoke
    results=$here/results-smoke
    out=$results/BENCHMARKS-smoke.md
    "$here/make_corpus.sh" "$corpus" --smoke
    cmd="Benchmarks/run.sh --smoke"
    extra=(--smoke)
else
    corpus=$here/corpus
    results=$here/results
    out=$root/BENCHMARKS.md
    "$here/make_corpus.sh" "$corpus"
    cmd="Benchmarks/run.sh"
    extra=()
fi
mkdir -p "$results"
status=0
"$python" "$here/bench.py" --corpus "$corpus" --bin "$build/bin" \
    --lib "$build/lib/libfastpixseek.so.1" --pythonpath "$build/python" --results "$results" --out "$out" \
    --ffms2-status "$ffms2_status" --command "$cmd" "${extra[@]}" || status=$?
[ $full = 1 ] || exit $status

# The full run: every other section of BENCHMARKS.md, each written between its markers with
# the command that reproduces it alone; nothing in the file is written by hand.
frames_run || status=$?
batch_run || status=$?
[ -x "$root/build/bin/fpx-seek" ] || make -C "$root" cli
"$python" "$here/sprite_bench.py" --duration "${SPRITE_BENCH_DURATION:-30}" --out "$root/BENCHMARKS.md" || status=$?
"$python" "$here/preview_bench.py" --out "$root/BENCHMARKS.md" || status=$?
exit $status
