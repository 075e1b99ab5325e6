#!/usr/bin/env bash
# The demux-only, LGPL FFmpeg that `make wheel` bundles, built from Debian's own FFmpeg
# source package (`apt-get source ffmpeg`, nothing else downloaded).
#
#   tools/wheel-ffmpeg.sh            build it (or reuse a finished build); prints its prefix
#   tools/wheel-ffmpeg.sh --prefix   print the prefix a build would use, build nothing
#   tools/wheel-ffmpeg.sh --flags    print the configure flags
#
# The build is cached in build/wheel-ffmpeg/<source version>-<hash of the flags>/: a second
# run with the same source and flags is a no-op (a stamp file marks a finished build).
# FFMPEG_SRC_VERSION picks the source package version (default: the newest that apt offers,
# `apt-cache showsrc ffmpeg`).
#
# Needs a deb-src line for the suite (Debian 12: /etc/apt/sources.list.d/*.sources with
# "Types: deb-src"; the script says so when apt has none), dpkg-dev (dpkg-source), a C
# compiler, make, pkg-config, and libmbedtls-dev (TLS for https; see below).
#
# What it enables (the library calls no decoder or encoder; `nm -D --undefined-only
# build/lib/libfastpixseek.so.1` lists the 22 libavformat, 11 libavcodec packet/parameter
# and 25 libavutil functions it uses):
# - libavformat, libavcodec (packets, parameters, parsers, bitstream filters: no codec),
#   libavutil (AES for HLS keys included); no avdevice/avfilter/swscale/swresample/postproc;
# - the demuxers of the containers players meet (MP4/MOV, Matroska/WebM, MPEG-TS/PS, AVI,
#   FLV, HLS, ASF, Ogg, the raw audio and video elementary streams), the parsers
#   avformat_find_stream_info uses for their codecs, the bitstream filters it and the
#   demuxers need (extract_extradata; demuxers select their own), the protocols file, http,
#   https (tcp, tls under them) and crypto;
# - TLS: mbedTLS (Apache-2.0; needs --enable-version3, so FFmpeg's licence is LGPL v3 or
#   later). Chosen for size: Debian 12's mbedTLS is 1.0 MB of libraries, OpenSSL 3's
#   libssl+libcrypto 5.4 MB, GnuTLS with its dependencies 6.7 MB, and the wheel must stay
#   under 15 MB of libraries. As with Debian's FFmpeg, certificates are not verified unless
#   a CA file is given (FFmpeg's tls_verify/ca_file options);
# - zlib (compressed Matroska tracks and MOV headers).
# No --enable-gpl, no --enable-nonfree: tools/wheel-check.py fails the wheel otherwise.
#
# Patches (tools/wheel-ffmpeg-patches/, shipped in the wheel): without a decoder nothing learns
# a stream's reorder depth, and with 0 libavformat made up dts = pts in Matroska (landings a
# frame early). 0001: H.264 and HEVC streams start with the deepest depth (16); 0002: the
# H.264 and HEVC parsers set the real one from the SPS where a stream is parsed.
#
# Symbol versions are renamed (LIBAVFORMAT_59 -> FPX_LIBAVFORMAT_59, ...), so that a system
# FFmpeg or PyAV's in the same process can never satisfy the library's references, even one
# of the same major version loaded globally; auditwheel renames the files.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/build/wheel-ffmpeg"

DEMUXERS=mov,matroska,mpegts,mpegps,avi,flv,hls,asf,ogg,mp3,aac,ac3,eac3,loas,flac,wav,h264,hevc,av1,obu,ivf,m4v,mpegvideo
PARSERS=h264,hevc,av1,vp8,vp9,mpeg4video,mpegvideo,h263,vc1,mjpeg,aac,aac_latm,mpegaudio,ac3,dca,opus,vorbis,flac
BSFS=extract_extradata
PROTOCOLS=file,http,https,tcp,tls,crypto
FLAGS=(--disable-everything --disable-autodetect --disable-programs --disable-doc
       --disable-avdevice --disable-avfilter --disable-swscale --disable-swresample --disable-postproc
       --enable-shared --disable-static --enable-pic --enable-pthreads --disable-x86asm
       --enable-network --enable-zlib --enable-version3 --enable-mbedtls
       --enable-demuxer=$DEMUXERS --enable-parser=$PARSERS --enable-bsf=$BSFS --enable-protocol=$PROTOCOLS)
# The version-script node prefix (see above).
SYMVER_PREFIX=FPX_

case "${1:-}" in
    --flags) printf '%s\n' "${FLAGS[@]}"; exit 0 ;;
    --prefix|"") ;;
    *) echo "usage: $0 [--prefix|--flags]" >&2; exit 2 ;;
esac

VERSION="${FFMPEG_SRC_VERSION:-$(apt-cache showsrc ffmpeg 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n1)}"
if [ -z "$VERSION" ]; then
    cat >&2 <<'EOF'
wheel-ffmpeg: apt knows no source package 'ffmpeg'. Add a deb-src line for your suite, e.g.
  /etc/apt/sources.list.d/deb-src.sources with "Types: deb-src", the URIs/Suites/Components/
  Signed-By of /etc/apt/sources.list.d/debian.sources, then run apt-get update.
EOF
    exit 1
fi
# FFmpeg patches applied on top of Debian's source (tools/wheel-ffmpeg-patches/*.patch, in
# name order): their hash is part of the cache key, with the flags.
PATCHES=("$ROOT"/tools/wheel-ffmpeg-patches/*.patch)
PHASH="$(cat "${PATCHES[@]}" | sha256sum | cut -c1-10)"
HASH="$(printf '%s\n' "${FLAGS[@]}" "$SYMVER_PREFIX" "$PHASH" | sha256sum | cut -c1-10)"
SAFE_VERSION="${VERSION//[:~]/_}"
DIR="$CACHE/$SAFE_VERSION-$HASH"
PREFIX="$DIR/prefix"
if [ "${1:-}" = "--prefix" ]; then echo "$PREFIX"; exit 0; fi
if [ -f "$DIR/.done" ]; then echo "$PREFIX"; exit 0; fi

SRCROOT="$CACHE/src/$SAFE_VERSION-$PHASH"
if [ ! -f "$SRCROOT/.unpacked" ]; then
    rm -rf "$SRCROOT" && mkdir -p "$SRCROOT"
    echo "wheel-ffmpeg: apt-get source ffmpeg=$VERSION" >&2
    (cd "$SRCROOT" && apt-get source -q "ffmpeg=$VERSION" >&2)
    SRC="$(find "$SRCROOT" -mindepth 1 -maxdepth 1 -type d -name 'ffmpeg-*' | head -n1)"
    [ -n "$SRC" ] || { echo "wheel-ffmpeg: no ffmpeg-* directory in $SRCROOT" >&2; exit 1; }
    for p in "${PATCHES[@]}"; do patch -s -p1 -d "$SRC" <"$p"; done
    touch "$SRCROOT/.unpacked"
fi
SRC="$(find "$SRCROOT" -mindepth 1 -maxdepth 1 -type d -name 'ffmpeg-*' | head -n1)"

rm -rf "$DIR" && mkdir -p "$DIR/obj"
echo "wheel-ffmpeg: configuring FFmpeg $VERSION in $DIR" >&2
(cd "$DIR/obj" && "$SRC/configure" --prefix="$PREFIX" "${FLAGS[@]}" > "$DIR/configure.txt") || {
    tail -n 20 "$DIR/obj/ffbuild/config.log" >&2; exit 1; }
make -C "$DIR/obj" -j"$(nproc)" \
    VERSION_SCRIPT_POSTPROCESS_CMD="sed -e 's/^LIB/${SYMVER_PREFIX}LIB/'" >"$DIR/make.log" 2>&1 || {
    tail -n 30 "$DIR/make.log" >&2; exit 1; }
make -C "$DIR/obj" install >>"$DIR/make.log" 2>&1
strip --strip-unneeded "$PREFIX"/lib/lib*.so.*.*.*

# The licence and the build configuration, for the wheel (fastpix_seek/ffmpeg/).
DOC="$PREFIX/share/fastpix-ffmpeg"
mkdir -p "$DOC"
cp "$SRC/LICENSE.md" "$SRC/COPYING.LGPLv2.1" "$SRC/COPYING.LGPLv3" "$DOC/"
[ -f "$SRC/debian/copyright" ] && cp "$SRC/debian/copyright" "$DOC/debian-copyright"
mbed_copyright="$(dpkg -L libmbedcrypto7 2>/dev/null | grep '/copyright$' | head -n1 || true)"
[ -n "$mbed_copyright" ] && cp "$mbed_copyright" "$DOC/mbedtls-copyright"
{
    echo "FFmpeg $VERSION (Debian source package ffmpeg=$VERSION), built by tools/wheel-ffmpeg.sh"
    echo "licence (configure): $(sed -n 's/^License: //p' "$DIR/configure.txt")"
    echo "symbol versions: ${SYMVER_PREFIX}LIBAVFORMAT_*, ${SYMVER_PREFIX}LIBAVCODEC_*, ${SYMVER_PREFIX}LIBAVUTIL_*"
    echo "changed from Debian's source (LGPL section 2): the patches in patches/:"
    printf '  %s\n' "${PATCHES[@]##*/}"
    echo "configure flags:"
    printf '  %s\n' "${FLAGS[@]}"
} > "$DOC/BUILD.txt"
cp "$DIR/configure.txt" "$DOC/configure-output.txt"
mkdir -p "$DOC/patches" && cp "${PATCHES[@]}" "$DOC/patches/"
touch "$DIR/.done"
echo "$PREFIX"
