#if canImport(Glibc)
import Glibc
#endif

// The Swift runtime's report of a failed allocation (seek.h, section 6, "Memory exhaustion").
//
// When malloc returns NULL under swift_slowAlloc (every Swift object, array, string and
// UnsafeMutablePointer.allocate), the runtime calls swift::swift_abortAllocationFailure,
// which formats "Fatal error: failed to allocate N bytes of memory with alignment A" with
// vasprintf -- itself an allocation, which fails too when the process has no memory left --
// and passes the unset result to fputs: the process died by SIGSEGV with no message
// (issue 26.6; seen in the cores as fputs(str=NULL) under swift_abortAllocationFailure).
//
// The Makefile links the library with
//     --wrap=_ZN5swift28swift_abortAllocationFailureEmm
// so that the runtime's call (from swift_slowAlloc, another object of the static runtime)
// comes here instead: the same message, built in a buffer on the stack and written with
// write(2), then abort(). Nothing here allocates: a StaticString, a tuple on the stack, no
// closure that escapes. A build linked without the flag (swift test, the sanitizer builds)
// keeps the runtime's own report.

/// The bytes of the message: the runtime's text, then size and alignment in decimal.
private struct FailureMessage {
    private var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private(set) var count = 0

    mutating func append(_ s: StaticString) {
        let p = s.utf8Start
        for i in 0..<s.utf8CodeUnitCount { append(byte: p[i]) }
    }

    mutating func append(decimal value: UInt) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: 20 digits at most
        var n = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(truncatingIfNeeded: 48 &+ v % 10)
                v /= 10
                n &+= 1
            } while v != 0 && n < d.count
            while n > 0 {
                n &-= 1
                append(byte: d[n])
            }
        }
    }

    mutating func append(byte: UInt8) {
        let capacity = MemoryLayout.size(ofValue: bytes)
        guard count < capacity else { return }
        withUnsafeMutableBytes(of: &bytes) { $0[count] = byte }
        count &+= 1
    }

    /// write(2) to standard error, retried on EINTR and short writes; best effort.
    mutating func writeToStandardError() {
        let total = count
        withUnsafeBytes(of: &bytes) { b in
            guard let base = b.baseAddress else { return }
            var done = 0
            while done < total {
                let r = write(2, base + done, total - done)
                if r > 0 { done &+= r } else if r < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}

/// Replaces swift::swift_abortAllocationFailure(size_t size, size_t alignMask) at link time
/// (see above): writes "Fatal error: failed to allocate SIZE bytes of memory with alignment
/// ALIGN" on standard error without allocating, then aborts (SIGABRT).
@_cdecl("__wrap__ZN5swift28swift_abortAllocationFailureEmm")
public func fpxAbortAllocationFailure(_ size: UInt, _ alignMask: UInt) {
    var m = FailureMessage()
    m.append("Fatal error: failed to allocate ")
    m.append(decimal: size)
    m.append(" bytes of memory with alignment ")
    m.append(decimal: alignMask &+ 1)
    m.append("\n")
    m.writeToStandardError()
    abort()
}
