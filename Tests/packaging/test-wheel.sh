#!/usr/bin/env bash
# Tests/packaging/test-wheel.sh [ROOT...] -- the self-contained wheel of `make wheel` (issue 27.3):
#   1. `make wheel` builds it (FFmpeg from Debian's source package, cached in
#      build/wheel-ffmpeg/ by source version; the library in .build/wheel), and
#      tools/wheel-check.py passes: py3-none-manylinux tag, at most 15 MB of libraries, no GPL
#      library (FFmpeg's own av*_license()/av*_configuration()), FFmpeg's libraries renamed,
#      the library's FFmpeg imports bound to the renamed symbol versions, FFmpeg's licence
#      and build configuration inside;
#   2. on this host, which has Debian's FFmpeg 5.1 installed: the wheel installed with pip, in
#      a process that loads the system's libavformat.so.59 globally (RTLD_GLOBAL) before
#      fastpix_seek and uses PyAV as the decoder, every FFmpeg symbol libfastpixseek.so.1
#      binds goes to the wheel's own copies (the dynamic loader's report, LD_DEBUG=bindings),
#      and Player.frame_at returns ffmpeg's pixels;
#   3. in each ROOT, a Debian root with no FFmpeg package (checked with dpkg-query and by
#      looking for libavformat files), made with
#        debootstrap --variant=minbase --include=python3-venv,ca-certificates SUITE ROOT
#      (bookworm and trixie tested): `pip install` of the wheel and PyPI's PyAV into a venv,
#      and Player.frame_at returns the frame ffprobe says covers each time with the pixels of
#      ffmpeg's own decode (ground truth computed on this host; wheel_probe.py in the root).
#      Needs root (chroot, mount); PyAV's wheel for the root's Python is downloaded from PyPI
#      by this host's pip (cached in build/wheel-test-pip/) and installed in the root offline.
#      ROOTs also come from FPX_WHEEL_ROOTS (space-separated); with none, step 3 says SKIP.
# Prints "ok"/"FAIL" lines and a summary; exit status 0 only when nothing failed.
set -u
ROOT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT_DIR" || exit 2
PASS=0 FAIL=0
pass() { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
PY=${PYTHON:-$( [ -x build/venv/bin/python ] && echo "$ROOT_DIR/build/venv/bin/python" || echo python3)}
FIX=${FPX_FIXTURES:-$ROOT_DIR/Tests/fixtures/out}
[ -f "$FIX/mp4_bframes.mp4" ] || FIX=/work/fixtures
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fpx-wheeltest.XXXXXX")
MOUNTS=()
cleanup() { for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT

# 1. build and check
t0=$(date +%s)
if make -s wheel PYTHON="$PY" PIP_WHEEL_FLAGS="--no-build-isolation --no-index" >"$TMP/make.log" 2>&1; then
    pass "make wheel ($(( $(date +%s) - t0 )) s)"
else
    sed 's/^/    /' "$TMP/make.log" | tail -n 30; fail "make wheel failed"
fi
WHEEL=$(ls build/wheel/fastpix_seek-*.whl 2>/dev/null | head -n1)
[ -n "$WHEEL" ] || { fail "no wheel in build/wheel"; echo "$PASS passed, $FAIL failed"; exit 1; }
if "$PY" tools/wheel-check.py "$WHEEL" >"$TMP/check.txt"; then
    pass "tools/wheel-check.py: $(head -n1 "$TMP/check.txt")"
    sed -n '2,$p' "$TMP/check.txt" | sed 's/^/    /'
else
    sed 's/^/    /' "$TMP/check.txt"; fail "tools/wheel-check.py"
fi

# The check itself fails a wheel that carries a GPL FFmpeg: the same wheel with Debian's own
# libavformat/libavcodec/libavutil 5.1 (configured --enable-gpl) in place of the bundled ones.
if "$PY" - "$WHEEL" "$TMP/gpl" >"$TMP/gpl.log" 2>&1 <<'EOF'
import glob, os, re, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
system = {re.sub(r"\.so.*", "", os.path.basename(p)): p
          for p in glob.glob("/usr/lib/x86_64-linux-gnu/libav*.so.[0-9]*.*.*")}
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(f"{out}/{os.path.basename(src)}", "w") as zout:
    for info in zin.infolist():
        stem = re.split(r"-|\.so", os.path.basename(info.filename))[0]
        data = open(system[stem], "rb").read() if info.filename.startswith("fastpix_seek.libs/libav") else zin.read(info)
        zout.writestr(info, data)
EOF
then
    "$PY" tools/wheel-check.py "$TMP"/gpl/*.whl >"$TMP/gpl.txt"; rc=$?
    n=$(grep -c "^FAIL: licence: fastpix_seek.libs/libav.* says 'GPL version 2 or later'" "$TMP/gpl.txt")
    if [ $rc -ne 0 ] && [ "$n" = 3 ]; then
        pass "tools/wheel-check.py fails a wheel carrying Debian's GPL FFmpeg ($(grep -m1 '^FAIL: licence' "$TMP/gpl.txt"))"
    else
        sed 's/^/    /' "$TMP/gpl.txt"; fail "tools/wheel-check.py accepted Debian's GPL FFmpeg (rc=$rc)"
    fi
else
    cat "$TMP/gpl.log"; fail "making the GPL wheel"
fi

# Ground truth (ffprobe's covering frame, ffmpeg's decode) for the frame_at cases.
mkdir -p "$TMP/case"
FILES="mp4_bframes.mp4 mkv.mkv mp4_opengop.mp4 ts.ts hevc_opengop.mkv"
for f in $FILES; do cp "$FIX/$f" "$TMP/case/"; done
cp Tests/python/framecheck.py Tests/packaging/wheel_probe.py "$TMP/case/"
if ! "$PY" - "$TMP/case" $FILES >"$TMP/gt.log" 2>&1 <<'EOF'
import json, sys
from fractions import Fraction
sys.path.insert(0, "Tests/python")
import framecheck, groundtruth
out, cases = sys.argv[1], []
for name in sys.argv[2:]:
    path = f"{out}/{name}"
    gt = groundtruth.load(path)
    md5 = framecheck.md5_by_pts(path)
    end = gt.last_time
    for k in range(7):  # 0, 1/6 ... the last frame's time, in a shuffled order
        t = end * Fraction([0, 5, 2, 6, 1, 4, 3][k], 6)
        pts = gt.covering(t).pts
        cases.append({"file": name, "time": str(t), "pts": pts, "md5": md5[pts]})
json.dump(cases, open(f"{out}/cases.json", "w"))
print(len(cases))
EOF
then cat "$TMP/gt.log"; fail "ground truth"; fi
NCASES=$(tail -n1 "$TMP/gt.log")

# 2. this host: a system FFmpeg loaded globally first, PyAV's in the process too.
"$PY" -m pip install -q --no-deps --no-index --target "$TMP/site" "$WHEEL" || fail "pip install --target"
cat >"$TMP/clash.py" <<'EOF'
import ctypes, runpy, sys
ctypes.CDLL("libavformat.so.59", mode=ctypes.RTLD_GLOBAL)  # Debian's FFmpeg, global scope
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
EOF
if LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMP/ld" PYTHONPATH="$TMP/site" \
       "$PY" "$TMP/clash.py" "$TMP/case/wheel_probe.py" "$TMP/case/cases.json" >"$TMP/host.json" 2>"$TMP/host.err"; then
    pass "host, system libavformat.so.59 loaded globally first, PyAV $("$PY" -c 'import av; print(av.__version__)'): frame_at returns ffmpeg's frame and pixels in $NCASES of $NCASES cases"
else
    cat "$TMP/host.json" "$TMP/host.err" | tail -n 20 | sed 's/^/    /'; fail "host: frame_at with the wheel"
fi
# Every binding the loader made from libfastpixseek.so.1 to an FFmpeg symbol.
grep -h "binding file [^ ]*libfastpixseek.so.1 " "$TMP"/ld.* | grep "symbol \`av" >"$TMP/bind.txt"
nbind=$(wc -l <"$TMP/bind.txt")
foreign=$(grep -v " to $TMP/site/fastpix_seek/\.\./fastpix_seek\.libs/libav[a-z]*-[0-9a-f]*\.so[.0-9]* " "$TMP/bind.txt" | head -n3)
sysloaded=$("$PY" -c 'import json,sys; print(sum("/usr/lib/x86_64-linux-gnu/libavformat.so.59" in m for m in json.load(open(sys.argv[1]))["maps"]))' "$TMP/host.json" 2>/dev/null)
if [ "$nbind" -gt 20 ] && [ -z "$foreign" ] && [ "${sysloaded:-0}" -gt 0 ]; then
    pass "LD_DEBUG=bindings: all $nbind FFmpeg bindings of libfastpixseek.so.1 go to the wheel's renamed copies, with the system's libavformat.so.59 in the process"
else
    fail "bindings: $nbind found, system libavformat mapped: ${sysloaded:-?}, foreign: $foreign"
fi

# The same cases over http and https (mbedTLS) from servers on 127.0.0.1 (Range honoured;
# https with a certificate for 127.0.0.1 from a throwaway CA, Tests/python/tlscerts.py, that
# the host trusts through $SSL_CERT_FILE); then https once more without it: the wheel's
# mbedTLS checks the certificate against the system's CAs and refuses it (FPX_ERROR_IO).
if PYTHONPATH="$TMP/site" "$PY" - "$TMP" "$PY" >"$TMP/net.log" 2>&1 <<'EOF'
import json, os, pathlib, subprocess, sys
sys.path.insert(0, "Tests/python")
import rangeserver, tlscerts
tmp, py = sys.argv[1], sys.argv[2]
certs = tlscerts.make(pathlib.Path(tmp) / "certs")
env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
rc = 0
for tls, trusted in ((False, True), (True, True), (True, False)):
    with rangeserver.serve(pathlib.Path(f"{tmp}/case"), tls=certs.server if tls else None) as url:
        p = subprocess.run([py, f"{tmp}/case/wheel_probe.py", f"{tmp}/case/cases.json", "--base", url],
                           capture_output=True, text=True, timeout=300,
                           env={**env, "SSL_CERT_FILE": str(certs.ca)} if trusted else env)
        d = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() and trusted else {}
        print(url.split(":")[0], "trusted" if trusted else "untrusted", p.returncode, d.get("frames"),
              d.get("wrong"), p.stderr[-300:])
        if trusted:
            rc |= p.returncode or (d.get("frames", 0) == 0)
        else:
            rc |= p.returncode == 0 or "FPX_ERROR_IO" not in p.stderr + p.stdout
sys.exit(rc)
EOF
then
    pass "http and https (mbedTLS, the CA from \$SSL_CERT_FILE) on 127.0.0.1: frame_at returns ffmpeg's frame and pixels in $NCASES of $NCASES cases each; https from a CA the host does not trust fails with FPX_ERROR_IO"
else
    sed 's/^/    /' "$TMP/net.log" | cut -c1-600; fail "frame_at over http/https with the wheel"
fi

# 3. Debian roots without FFmpeg
ROOTS=("$@")
[ ${#ROOTS[@]} -gt 0 ] || read -r -a ROOTS <<<"${FPX_WHEEL_ROOTS:-}"
if [ ${#ROOTS[@]} -eq 0 ]; then
    echo "SKIP - no Debian root given (arguments or FPX_WHEEL_ROOTS): the no-FFmpeg install was not tested"
fi
# The pyav extra's requirement (pyproject.toml), for pip download.
AV_SPEC=$("$PY" -c 'import tomllib; print(tomllib.load(open("Bindings/python/pyproject.toml", "rb"))["project"]["optional-dependencies"]["pyav"][0])')
for R in "${ROOTS[@]}"; do
    name="$(basename "$R") (Debian $(cat "$R/etc/debian_version" 2>/dev/null))"
    pkgs=$(chroot "$R" dpkg-query -W -f '${Package} ${Status}\n' 2>/dev/null | grep -E '^(ffmpeg|libav|libsw|libpostproc)' | grep ' installed$')
    files=$(find "$R/usr" "$R/lib"* -name 'libav*.so*' 2>/dev/null | head -n3)
    if [ -z "$pkgs" ] && [ -z "$files" ]; then pass "$name: no FFmpeg package, no libav* file"
    else fail "$name has FFmpeg: $pkgs $files"; continue; fi
    W="$R/tmp/fpx-wheel-test"
    rm -rf "$W" && mkdir -p "$W" && cp -r "$TMP/case" "$W/" && cp "$WHEEL" "$W/"
    mountpoint -q "$R/proc" || { mount -t proc proc "$R/proc" && MOUNTS+=("$R/proc"); }
    # PyPI's PyAV for the root's Python, downloaded here by pip (cached in build/wheel-test-pip),
    # installed there offline.
    pyver=$(chroot "$R" python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')
    DL="$ROOT_DIR/build/wheel-test-pip/cp$pyver"
    t0=$(date +%s)
    if ! "$PY" -m pip download -q --disable-pip-version-check --only-binary=:all: -d "$DL" \
            --python-version "$pyver" --implementation cp --abi "cp$pyver" --abi abi3 \
            --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_34_x86_64 "$AV_SPEC" >"$TMP/dl.log" 2>&1; then
        tail -n 5 "$TMP/dl.log" | sed 's/^/    /'; fail "$name: pip download av for cp$pyver"; continue
    fi
    mkdir -p "$W/dl" && cp "$DL"/*.whl "$W/dl/"
    if chroot "$R" env -i PATH=/usr/bin:/bin HOME=/tmp /bin/sh -c "python3 -m venv /tmp/fpx-wheel-test/venv &&
            /tmp/fpx-wheel-test/venv/bin/pip install -q --disable-pip-version-check --no-index \
                --find-links /tmp/fpx-wheel-test/dl '/tmp/fpx-wheel-test/$(basename "$WHEEL")[pyav]'" \
            >"$TMP/pip.log" 2>&1; then
        avv=$(chroot "$R" /tmp/fpx-wheel-test/venv/bin/python -c 'import av; print(av.__version__)')
        pass "$name: pip install '$(basename "$WHEEL")[pyav]' (PyPI's PyAV $avv; $(( $(date +%s) - t0 )) s)"
    else
        tail -n 15 "$TMP/pip.log" | sed 's/^/    /'; fail "$name: pip install"; continue
    fi
    if chroot "$R" env -i PATH=/usr/bin:/bin HOME=/tmp /tmp/fpx-wheel-test/venv/bin/python \
            /tmp/fpx-wheel-test/case/wheel_probe.py /tmp/fpx-wheel-test/case/cases.json >"$TMP/root.json" 2>"$TMP/root.err"; then
        info=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("PyAV", d["pyav"], "|", d["found_by"], "|", " ".join(p.rsplit("/",2)[-2]+"/"+p.rsplit("/",1)[-1] for p in d["maps"]))' "$TMP/root.json")
        pass "$name: frame_at returns ffmpeg's frame and pixels in $NCASES of $NCASES cases ($info)"
    else
        cat "$TMP/root.json" "$TMP/root.err" | tail -n 20 | sed 's/^/    /'; fail "$name: frame_at with the wheel"
    fi
    rm -rf "$W"
done
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
