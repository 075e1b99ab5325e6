# Sourced by the tests: generates the test media into $M with the ffmpeg CLI (H.264 with
# B-frames in MP4 and MPEG-TS, AAC audio), the same recipe as Tests/fixtures/make-fixtures.sh.
M=${AUTOPKGTEST_TMP:-$(mktemp -d)}/media
mkdir -p "$M"
if [ ! -f "$M/mp4_bframes.mp4" ]; then
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=320x240:rate=30000/1001" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
        -t 12 -c:v libx264 -preset veryfast -bf 3 -g 48 -keyint_min 48 -sc_threshold 0 -pix_fmt yuv420p \
        -c:a aac -ac 1 -shortest "$M/mp4_bframes.mp4"
    ffmpeg -v error -y -i "$M/mp4_bframes.mp4" -c copy -f mpegts "$M/ts.ts"
fi
SRC=$(pwd)   # autopkgtest runs each test from the source tree's root
