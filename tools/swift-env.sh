# tools/swift-env.sh -- sourced (never run) by tools/*.sh and .ci/run: puts a Swift 6
# toolchain's bin directory first on PATH when `swift` is not on PATH yet, so that `make`,
# `swift test` and the toolchain's clang (sanitizer builds) are found the same way everywhere.
#
# Where a toolchain is looked for, first found wins:
#   1. $SWIFT_TOOLCHAIN/usr/bin (a swift.org toolchain unpacked anywhere, as debian/rules takes it)
#   2. `swift` already on PATH (nothing changes)
#   3. /usr/libexec/swift/bin: Debian 13's `swiftlang` package (6.0.3), which links only
#      swiftc, swift-build and swift-run into /usr/bin, not the `swift` driver itself
#   4. /opt/swift/usr/bin: the swift.org tarball where README (Debian 12) unpacks it
# Sets FPX_SWIFT to the driver found (empty when none).
fpx_swift_dirs=()
[ -n "${SWIFT_TOOLCHAIN:-}" ] && fpx_swift_dirs+=("$SWIFT_TOOLCHAIN/usr/bin")
FPX_SWIFT=""
for fpx_d in "${fpx_swift_dirs[@]}" PATH /usr/libexec/swift/bin /opt/swift/usr/bin; do
  if [ "$fpx_d" = PATH ]; then
    FPX_SWIFT=$(command -v swift 2>/dev/null || true)
    [ -n "$FPX_SWIFT" ] && break
  elif [ -x "$fpx_d/swift" ]; then
    FPX_SWIFT=$fpx_d/swift
    case ":$PATH:" in *":$fpx_d:"*) ;; *) PATH="$fpx_d:$PATH"; export PATH ;; esac
    break
  fi
done
unset fpx_d fpx_swift_dirs
export FPX_SWIFT
