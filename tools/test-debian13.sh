#!/usr/bin/env bash
# tools/test-debian13.sh [--short] [--reuse] -- README's two commands on a fresh Debian 13
# (trixie: FFmpeg 7.1, Swift 6.0.3 from the `swiftlang` package, python3-av 14), with nothing
# but Debian's packages: a clean clone of this checkout's current commit (HEAD; uncommitted
# changes are not part of it) runs
#   1. tools/quickstart.sh   (tools/deps.sh installs swiftlang and FFmpeg 7.1's -dev packages)
#   2. the tests:
#      whole (default)  tools/test-all.sh: every suite, as CI runs it on Debian 12 (Swift, C,
#                       ASan, fuzz replay, pytest with the newest PyAV wheel in build/venv,
#                       Debian's python3 with python3-av 14, mypy, the Debian packages built,
#                       lintian-checked and their autopkgtest tests run in the root)
#      --short          (or FPX_DEB13_SHORT=1) the C API tests and meta-tests against FFmpeg
#                       7.1, and pytest under Debian's python3 + python3-av 14: ffprobe ground
#                       truth (test_landings), the FFmpeg ABI check, the examples, frame_at,
#                       the PyAV bridge, the stream facts; no venv, no pip
# inside a Debian 13 root made with debootstrap in a chroot. Prints each phase's run time and
# a last line "debian13: ok|FAILED (...)" and exits non-zero on failure.
#
# Needs root (debootstrap, chroot, mounts) and the network to Debian's archive. Where:
#   FPX_DEB13_DIR (default /var/tmp/fastpixseek-debian13), outside any checkout:
#     base/          the debootstrap'ed minimal Debian 13, made once and then reused
#     apt-archives/  Debian's .debs downloaded once (bind-mounted as the root's apt cache)
#     run/           the root the test runs in: a fresh copy of base/ each run, so the run
#                    starts from a Debian 13 without any package of ours; --reuse (or
#                    FPX_DEB13_REUSE=1) keeps the last run/ and its installed packages (quicker
#                    iterations; not a fresh machine any more). The clone is fresh either way.
#   FPX_DEB13_MIRROR (default http://deb.debian.org/debian).
# The host keeps nothing of it but that directory: the mounts (proc, sys, dev, the apt cache)
# are undone when the script ends, also on failure or interrupt.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
short=${FPX_DEB13_SHORT:-0}
reuse=${FPX_DEB13_REUSE:-0}
for a in "$@"; do
  case "$a" in
    --short) short=1 ;;
    --reuse) reuse=1 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-debian13: unknown argument '$a' (--short, --reuse)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "test-debian13: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
dir=${FPX_DEB13_DIR:-/var/tmp/fastpixseek-debian13}
mirror=${FPX_DEB13_MIRROR:-http://deb.debian.org/debian}
case "$(cd "$(dirname "$dir")" 2>/dev/null && pwd)/" in
  "$src"/*) echo "test-debian13: FPX_DEB13_DIR=$dir is inside the checkout; put it outside" >&2; exit 2 ;;
esac
mkdir -p "$dir/apt-archives/partial" "$dir/debootstrap-cache"
t0=$SECONDS
phase() { echo; echo "=== debian13: $1 (t=$((SECONDS - t0))s)"; }
times=()
timed() {  # timed NAME CMD...: runs CMD, records "NAME Ns"
  local name=$1 s=$SECONDS rc=0
  shift
  "$@" || rc=$?
  times+=("$name $((SECONDS - s))s$([ $rc -eq 0 ] || echo " (FAILED, exit $rc)")")
  return $rc
}

command -v debootstrap >/dev/null || {
  echo "test-debian13: installing Debian's debootstrap (apt-get install debootstrap)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}

# ---- the base root: debootstrap once ---------------------------------------------------
base=$dir/base
if [ ! -x "$base/usr/bin/apt-get" ]; then
  phase "debootstrap --variant=minbase trixie $base ($mirror)"
  rm -rf "$base.tmp"
  timed debootstrap debootstrap --variant=minbase --cache-dir="$dir/debootstrap-cache" trixie "$base.tmp" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
    { tail -n 20 "$dir/debootstrap.log"; exit 1; }
  mv "$base.tmp" "$base"
fi

# ---- the run root ------------------------------------------------------------------------
root=$dir/run
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if mountpoint -q "$root/proc" 2>/dev/null; then
  echo "test-debian13: $root/proc is mounted: another run is using $root (or one was killed; umount its mounts)" >&2
  exit 1
fi
if [ "$reuse" = 1 ] && [ -x "$root/usr/bin/apt-get" ]; then
  phase "reusing $root (--reuse: packages of an earlier run stay installed)"
else
  phase "fresh root: $root from $base"
  rm -rf "$root"
  timed copy-root cp -a "$base" "$root"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The certificate authorities this host trusts on top of Debian's (a TLS-inspecting proxy's,
# say) go where the root's ca-certificates picks them up (update-ca-certificates), and pip in
# the test venv is pointed at the system bundle (its own certifi bundle lacks them).
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
mkdir -p "$root/etc/ssl/certs"
[ -f "$root/etc/ssl/certs/ca-certificates.crt" ] || cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror trixie main
deb $mirror trixie-updates main
deb ${FPX_DEB13_SECURITY:-http://deb.debian.org/debian-security} trixie-security main
EOF
# No service starts in the chroot (the host's init is not the root's).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
for m in proc sys dev dev/pts var/cache/apt/archives; do
  mkdir -p "$root/$m"
  case "$m" in
    proc) mount -t proc proc "$root/proc" ;;
    var/cache/apt/archives) mount --bind "$dir/apt-archives" "$root/$m" ;;
    *) mount --bind "/$m" "$root/$m" ;;
  esac
  mounted+=("$root/$m")
done
in_root() {  # a clean environment: nothing of the host's PATH, toolchain or Python leaks in
  chroot "$root" env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" DEBIAN_FRONTEND=noninteractive \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DEFAULT_TIMEOUT=180 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# ---- a clean clone of HEAD ---------------------------------------------------------------
phase "clone $(git rev-parse --short HEAD) into $root/root/fastpixseek"
git bundle create -q "$root/tmp/fastpixseek.bundle" HEAD
timed apt-git in_root sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null &&
  update-ca-certificates >/dev/null 2>&1'
in_root sh -c 'rm -rf /root/fastpixseek && git -c advice.detachedHead=false -c init.defaultBranch=main clone -q /tmp/fastpixseek.bundle /root/fastpixseek && rm /tmp/fastpixseek.bundle &&
  cd /root/fastpixseek && git log -1 --format="commit %h %s"'
in_root sh -c '. /etc/os-release; echo "$PRETTY_NAME"'

status=0
failed=()
# ---- README's first command ------------------------------------------------------------
phase "tools/quickstart.sh (deps.sh installs swiftlang and FFmpeg's -dev packages from Debian 13)"
if timed quickstart in_root bash -c 'cd /root/fastpixseek && bash tools/quickstart.sh' >"$dir/quickstart.log" 2>&1 &&
   grep -q "^result      within the requested tolerance" "$dir/quickstart.log"; then
  grep -E "^deps:|^Swift|^== |^result|^landed" "$dir/quickstart.log" | head -n 20
else
  tail -n 40 "$dir/quickstart.log"; failed+=(quickstart); status=1
fi

# ---- README's second command (whole) or its short form ----------------------------------
if [ "$status" -eq 0 ]; then
  if [ "$short" = 1 ]; then
    phase "short form: deps --test (Debian packages), fixtures, C tests, pytest with Debian's python3 + python3-av"
    # No venv: FPX_NO_VENV=1 keeps deps.sh to Debian's packages (python3-av 14, pytest, ...).
    if ! timed tests-short in_root bash -c '
        set -o pipefail
        cd /root/fastpixseek
        FPX_NO_VENV=1 bash tools/deps.sh --test
        . tools/swift-env.sh
        echo "PyAV $(/usr/bin/python3 -c "import av; print(av.__version__)") with FFmpeg $(pkg-config --modversion libavformat) (libavformat)"
        s=$SECONDS; bash Tests/fixtures/make-fixtures.sh /root/fixtures >/root/fixtures.log 2>&1 || { tail -n 20 /root/fixtures.log; exit 1; }
        echo "fixtures: $((SECONDS - s))s"
        s=$SECONDS; rc=0
        bash Tests/c/run.sh /root/fixtures >/root/c-tests.log 2>&1 || rc=1
        tail -n 1 /root/c-tests.log; echo "C tests: $((SECONDS - s))s"
        s=$SECONDS
        FPX_FIXTURES=/root/fixtures /usr/bin/python3 -m pytest -q -p no:cacheprovider \
          Tests/python/test_landings.py Tests/python/test_ffmpeg_abi.py Tests/python/test_examples.py \
          Tests/python/test_frames.py Bindings/python/tests/test_binding_pyav.py \
          Bindings/python/tests/test_binding_stream_facts.py 2>&1 | tail -n 15 || rc=1
        echo "pytest (Debian python3 + python3-av): $((SECONDS - s))s"
        [ $rc -eq 0 ] || { grep -E "^FAIL" /root/c-tests.log | head -n 40; exit 1; }
      '; then failed+=("short tests"); status=1; fi
  else
    phase "tools/test-all.sh (the whole suite)"
    if ! timed test-all in_root bash -c 'cd /root/fastpixseek && bash tools/test-all.sh' >"$dir/test-all.log" 2>&1; then
      failed+=(test-all); status=1
    fi
    grep -E "^=== |passed|failed|^FAILED|^all test suites" "$dir/test-all.log" | tail -n 60
  fi
fi

in_root sh -c 'echo "swiftlang $(dpkg-query -W -f="\${Version}" swiftlang), libavformat-dev $(dpkg-query -W -f="\${Version}" libavformat-dev), python3-av $(dpkg-query -W -f="\${Version}" python3-av 2>/dev/null || echo none)"'
phase "run times"
printf '    %s\n' "${times[@]}"
echo "    total $((SECONDS - t0))s  (logs: $dir/*.log)"
if [ "$status" -eq 0 ]; then
  echo "debian13: ok ($([ "$short" = 1 ] && echo short || echo whole))"
else
  echo "debian13: FAILED (${failed[*]})"
fi
exit "$status"
