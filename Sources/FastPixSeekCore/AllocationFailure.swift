#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// Allocation failure in the Swift runtime (seek.h, section 6, "Memory exhaustion";
// issue 26.6).
//
// Every Swift object, array, string and UnsafeMutablePointer.allocate comes from the
// runtime's swift_slowAlloc, which has no failure path: when malloc returns NULL it calls
// swift::swift_abortAllocationFailure, which formats "Fatal error: failed to allocate N bytes
// of memory with alignment A" with vasprintf -- itself an allocation, which fails too when
// the process has no memory left -- and passes the unset result to fputs: the process died
// by SIGSEGV with no message (seen in cores as fputs(str=NULL) under
// swift_abortAllocationFailure).
//
// The Makefile links the library with --wrap for malloc, calloc, realloc, posix_memalign,
// operator new and swift::swift_abortAllocationFailure, so that the calls from the objects
// linked into the library (the static Swift runtime, the Swift code; not FFmpeg's shared
// libraries) come to the library's own (Sources/FastPixSeek/AllocatorWraps.swift):
//   - an allocation that fails releases the library's reserve (MemoryReserve) and is tried
//     once more: the work under way goes on, and new work (a create, an open, a seek) fails
//     with FPX_ERROR_NO_MEMORY until the reserve can be taken again. This covers the
//     runtime's allocations that have no failure path at all: swift_slowAlloc, and the
//     metadata caches, whose failure was a trap (SIGILL) or a NULL dereference (SIGSEGV);
//   - when it still fails, swift_slowAlloc and operator new end in
//     fpxAbortAllocationFailure, which writes the runtime's message from a stack buffer
//     with write(2) and aborts (SIGABRT).
// Nothing here allocates: StaticStrings, tuples on the stack, an atomic, mmap/munmap.
// A build linked without the flags (swift test, fpx-seek, the sanitizer builds) keeps the
// runtime's own allocator and report.

/// Address space the library holds back for the moment an allocation of the Swift runtime
/// fails (see above): mapped at the first player's create, never touched (no resident
/// memory; MAP_NORESERVE), released to let the failing allocation and the work under way
/// finish, and taken again before new work starts.
public enum MemoryReserve {
    /// 8 MiB: far more than the runtime's small allocations of the jobs under way need to
    /// finish, and little beside a player's own use (about 1 MiB per open file item).
    public static let bytes = 8 << 20
    /// The reserve's address, 0 while released (a constant initializer: no lazy global).
    private static let held = Atomic<UInt>(0)
    /// How many times the reserve was released: a job that saw it change ran out of memory.
    private static let releases = Atomic<UInt>(0)

    /// The current count of releases, taken when a job starts (see `classify`).
    public static var epoch: UInt { releases.load(ordering: .acquiring) }

    /// True when the reserve is held, taking it again if it was released: the check before
    /// new work. False when the process has not the address space for it now: the caller
    /// fails with FPX_ERROR_NO_MEMORY before it starts.
    public static func ensure() -> Bool {
        if held.load(ordering: .acquiring) != 0 { return true }
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              p != MAP_FAILED else { return false }
        if !held.compareExchange(expected: 0, desired: UInt(bitPattern: p), ordering: .acquiringAndReleasing).exchanged {
            munmap(p, bytes)
        }
        return true
    }

    /// Releases the reserve; false if it was not held (another thread took it first). Only
    /// for the allocator's wrappers, when an allocation failed.
    public static func release() -> Bool {
        let a = held.exchange(0, ordering: .acquiringAndReleasing)
        guard a != 0, let p = UnsafeMutableRawPointer(bitPattern: a) else { return false }
        munmap(p, bytes)
        releases.add(1, ordering: .releasing)
        return true
    }

    /// `code`, or FPX_ERROR_NO_MEMORY when `code` is what libavformat may make of an
    /// allocation failure (invalid data, an I/O error, no stream, unsupported, internal) and
    /// the process ran out of memory during the job: the reserve was released since `since`
    /// (the job's `epoch` at its start), or cannot be taken again now (seek.h section 6).
    public static func classify(_ code: ErrorCode, since: UInt) -> ErrorCode {
        switch code {
        case .invalidData, .io, .noStream, .unsupported, .internal:
            return epoch == since && ensure() ? code : .noMemory
        default: return code
        }
    }

    /// Whether the reserve is held now (tests).
    public static var isHeld: Bool { held.load(ordering: .acquiring) != 0 }
}

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
