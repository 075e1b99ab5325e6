# tools/swift-env.sh -- sourced (never run) by tools/*.sh: puts a Swift 6 toolchain's bin
# directory first on PATH when `swift` on PATH is not one, so that `make`, `swift test` and
# the toolchain's clang (sanitizer builds) are found the same way everywhere.
#
# Where a toolchain is looked for, first found wins (a `swift` counts when swift-frontend
# sits beside the file it resolves to: python3-swiftclient's /usr/bin/swift does not):
#   1. $SWIFT_TOOLCHAIN/usr/bin (a swift.org toolchain unpacked anywhere, as debian/rules takes it)
#   2. `swift` on PATH (nothing changes)
#   3. /usr/libexec/swift/bin: Debian 13's `swiftlang` (6.0.3). Its postinst links
#      /usr/bin/swift there, unless the debconf question swiftlang/link_swift was answered
#      no or /usr/bin/swift was another program's (python3-swiftclient's)
#   4. /opt/swift/usr/bin: the swift.org tarball where README (Debian 12) unpacks it
# Sets FPX_SWIFT to the driver found (empty when none).
fpx_is_swift() { [ -n "$1" ] && [ -x "$1" ] && [ -x "$(dirname "$(readlink -f "$1")")/swift-frontend" ]; }
FPX_SWIFT=""
for fpx_d in ${SWIFT_TOOLCHAIN:+"$SWIFT_TOOLCHAIN/usr/bin"} PATH /usr/libexec/swift/bin /opt/swift/usr/bin; do
  if [ "$fpx_d" = PATH ]; then
    fpx_s=$(command -v swift 2>/dev/null || true)
    fpx_is_swift "$fpx_s" && { FPX_SWIFT=$fpx_s; break; }
  elif fpx_is_swift "$fpx_d/swift"; then
    FPX_SWIFT=$fpx_d/swift
    PATH="$fpx_d:$PATH"
    export PATH
    break
  fi
done
unset fpx_d fpx_s
export FPX_SWIFT
