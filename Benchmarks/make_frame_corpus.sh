#!/usr/bin/env bash
# The corpus of the time-to-frame benchmark (Benchmarks/frame_bench.py, issue 21.6):
#
#   Benchmarks/make_frame_corpus.sh OUTDIR [--smoke]
#
#   gop250.mp4 / gop250.mkv   10 min, 320x180, 29.97 fps, H.264 (x264 ultrafast, -bf 3,
#                             GOP 250 closed, no scenecut), video only; the MKV is a remux
#                             (-c copy) of the MP4 (the same recipe as make_corpus.sh)
#   x264_720p.mp4             60 s, 1280x720, 25 fps, H.264 (x264 veryfast: B-pyramid,
#                             3 B-frames, GOP up to 250 with scene cuts, as x264 defaults)
#   hevc_opengop.mp4          60 s, 1280x720, 25 fps, HEVC (x265 ultrafast with open GOPs:
#                             CRA keyframes with RASL leading pictures, keyint 250, 3 B-frames)
# --smoke: the same recipes, 20 s / 6 s long.
#
# Existing files are kept; each is written to a temporary name first.
set -euo pipefail
out=${1:?usage: make_frame_corpus.sh OUTDIR [--smoke]}
mkdir -p "$out"
long=600 short=60
[ "${2:-}" = "--smoke" ] && { long=20; short=6; }

gen() { # name, then ffmpeg options
    local name=$1; shift
    if [ -s "$out/$name" ]; then return; fi
    echo "frame corpus: generating $out/$name" >&2
    local ext=${name##*.}
    ffmpeg -nostdin -hide_banner -v error -y "$@" "$out/.tmp.$ext"
    mv -f "$out/.tmp.$ext" "$out/$name"
}
gen gop250.mp4 -f lavfi -i "testsrc2=size=320x180:rate=30000/1001" -t "$long" \
    -c:v libx264 -preset ultrafast -bf 3 -g 250 -keyint_min 250 -sc_threshold 0 -pix_fmt yuv420p \
    -crf 30 -movflags +faststart
gen gop250.mkv -i "$out/gop250.mp4" -c copy -map 0
gen x264_720p.mp4 -f lavfi -i "testsrc2=size=1280x720:rate=25" -t "$short" \
    -c:v libx264 -preset veryfast -bf 3 -g 250 -pix_fmt yuv420p -crf 26 -movflags +faststart
gen hevc_opengop.mp4 -f lavfi -i "testsrc2=size=1280x720:rate=25" -t "$short" \
    -c:v libx265 -preset ultrafast -pix_fmt yuv420p -crf 30 \
    -x265-params "log-level=error:keyint=250:min-keyint=25:open-gop=1:bframes=3:b-pyramid=1" \
    -tag:v hvc1 -movflags +faststart
echo "frame corpus: done ($out)" >&2
