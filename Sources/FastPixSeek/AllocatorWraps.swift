import CRealAllocator
import FastPixSeekCore

// The allocator of the objects linked into libfastpixseek.so (seek.h section 6, "Memory
// exhaustion"): the Makefile links it with --wrap=malloc, calloc, realloc, posix_memalign,
// _Znwm and _ZnwmSt11align_val_t (operator new), so that the static Swift runtime's and the
// Swift code's calls come here (see Sources/FastPixSeekCore/AllocationFailure.swift). Each
// calls the C library's function (__real_*, Sources/CRealAllocator); when that fails, it
// releases the library's reserve and tries once more. Nothing here allocates or touches a
// Swift object (no retain, no metadata): pointers, integers and C calls only.

/// One retry after releasing the reserve, when the first try failed and the reserve was held.
@inline(__always)
private func withReserve(_ attempt: () -> UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    if let p = attempt() { return p }
    return MemoryReserve.release() ? attempt() : nil
}

@_cdecl("__wrap_malloc")
public func fpxWrapMalloc(_ size: Int) -> UnsafeMutableRawPointer? {
    if let p = fpx_real_malloc(size) { return p }
    return size == 0 ? nil : withReserve { fpx_real_malloc(size) }
}

@_cdecl("__wrap_calloc")
public func fpxWrapCalloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    if let p = fpx_real_calloc(count, size) { return p }
    return count == 0 || size == 0 ? nil : withReserve { fpx_real_calloc(count, size) }
}

/// realloc(p, 0) may free and return NULL: no retry then (p is gone).
@_cdecl("__wrap_realloc")
public func fpxWrapRealloc(_ ptr: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
    if let p = fpx_real_realloc(ptr, size) { return p }
    return size == 0 ? nil : withReserve { fpx_real_realloc(ptr, size) }
}

@_cdecl("__wrap_posix_memalign")
public func fpxWrapPosixMemalign(_ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ alignment: Int,
                                 _ size: Int) -> Int32 {
    let rc = fpx_real_posix_memalign(out, alignment, size)
    guard rc == ENOMEM_CODE, MemoryReserve.release() else { return rc }
    return fpx_real_posix_memalign(out, alignment, size)
}

/// operator new(size_t): malloc, or the runtime's report and SIGABRT (the C++ parts of the
/// Swift runtime are built without exceptions: a bad_alloc would end in std::terminate, by
/// SIGABRT but without the documented message). operator delete frees with free.
@_cdecl("__wrap__Znwm")
public func fpxWrapOperatorNew(_ size: Int) -> UnsafeMutableRawPointer? {
    let n = size == 0 ? 1 : size
    if let p = fpxWrapMalloc(n) { return p }
    fpxAbortAllocationFailure(UInt(bitPattern: n), 0)
    return nil
}

/// operator new(size_t, align_val_t): posix_memalign (aligned operator delete frees with free).
@_cdecl("__wrap__ZnwmSt11align_val_t")
public func fpxWrapOperatorNewAligned(_ size: Int, _ alignment: Int) -> UnsafeMutableRawPointer? {
    let n = size == 0 ? 1 : size
    let a = max(alignment, MemoryLayout<UnsafeRawPointer>.size)
    var p: UnsafeMutableRawPointer?
    if fpxWrapPosixMemalign(&p, a, n) == 0, let p { return p }
    fpxAbortAllocationFailure(UInt(bitPattern: n), UInt(bitPattern: a &- 1))
    return nil
}

/// swift_slowAlloc(size, alignMask), the Swift runtime's allocator of objects, metadata and
/// UnsafeMutablePointer.allocate, as every other object of the runtime and the Swift code
/// calls it (--wrap=swift_slowAlloc): the same choice as the runtime's own (malloc for an
/// alignment malloc gives, posix_memalign above it, 16 for alignMask ~0), through the
/// wrappers above, and on failure the runtime's report and SIGABRT. The runtime's own
/// swift_slowAlloc reports through swift_abortAllocationFailure from Swift 6.1 on (wrapped
/// too); Swift 6.0.3's (Debian 13's swiftlang) ends the process with a bare ud2 (SIGILL, no
/// message), so without this wrapper the documented end (seek.h section 6) held for one
/// toolchain only.
@_cdecl("__wrap_swift_slowAlloc")
public func fpxWrapSwiftSlowAlloc(_ size: Int, _ alignMask: UInt) -> UnsafeMutableRawPointer? {
    let n = max(size, 1) // never NULL, not even for 0 bytes (the runtime's callers never check)
    if alignMask <= 7 {
        if let p = fpxWrapMalloc(n) { return p }
    } else {
        let alignment = alignMask == UInt.max ? 16 : Int(bitPattern: alignMask &+ 1)
        var p: UnsafeMutableRawPointer?
        if fpxWrapPosixMemalign(&p, alignment, n) == 0, let p { return p }
    }
    fpxAbortAllocationFailure(UInt(bitPattern: size), alignMask)
    return nil
}

/// ENOMEM without importing Glibc's errno machinery here.
private let ENOMEM_CODE: Int32 = 12
