#!/usr/bin/env bash
# Generates the benchmark corpus with the ffmpeg CLI.
#
#   Benchmarks/make_corpus.sh OUTDIR [--smoke]
#
# Full corpus:
#   gop250.mp4 / gop250.mkv / gop250.ts  10 min, 320x180, 29.97 fps (30000/1001), H.264
#                                         (x264 ultrafast, -bf 3, GOP 250 closed, no scenecut),
#                                         video only. The MKV and TS are remuxes (-c copy) of
#                                         the MP4, so all three hold the same frames.
#   long2h.mp4                            2 h, 160x90, 29.97 fps, GOP 250, very low bitrate;
#                                         for open time and memory.
# --smoke: the same recipes, 20 s long (and a 60 s "long" file).
#
# Files that already exist are kept (delete OUTDIR to regenerate); each file is written to a
# temporary name first, so an interrupted run never leaves a truncated file behind.
set -euo pipefail

out=${1:?usage: make_corpus.sh OUTDIR [--smoke]}
mode=${2:-}
mkdir -p "$out"

if [ "$mode" = "--smoke" ]; then
    short=20
    long=60
else
    short=600
    long=7200
fi

X264=(-c:v libx264 -preset ultrafast -bf 3 -g 250 -keyint_min 250 -sc_threshold 0
      -pix_fmt yuv420p)

gen() { # name, then ffmpeg output options
    local name=$1; shift
    if [ -s "$out/$name" ]; then
        echo "corpus: $out/$name exists" >&2
        return
    fi
    echo "corpus: generating $out/$name" >&2
    local ext=${name##*.}
    ffmpeg -nostdin -v error -y "$@" "$out/.tmp.$ext"
    mv -f "$out/.tmp.$ext" "$out/$name"
}

gen gop250.mp4 -f lavfi -i "testsrc2=size=320x180:rate=30000/1001" -t "$short" \
    "${X264[@]}" -crf 30 -movflags +faststart
gen gop250.mkv -i "$out/gop250.mp4" -c copy -map 0
gen gop250.ts -i "$out/gop250.mp4" -c copy -map 0 -f mpegts
gen long2h.mp4 -f lavfi -i "testsrc2=size=160x90:rate=30000/1001" -t "$long" \
    "${X264[@]}" -b:v 24k -maxrate 48k -bufsize 96k -movflags +faststart
echo "corpus: done ($out)" >&2
