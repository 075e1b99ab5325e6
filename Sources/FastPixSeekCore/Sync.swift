#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-recursive mutex with a condition variable, on pthreads. Foundation and
/// Dispatch stay out of the library (see docs/ARCHITECTURE.md, "Size").
// @unchecked Sendable: its only state is the pthread mutex and condition variable
// themselves (immutable pointers), which exist to be shared between threads.
public final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    /// Takes the lock only if it is free now; never waits. True when taken.
    public func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }
    public func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    public func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits with the lock held. `deadline` is monotonic nanoseconds; nil waits forever.
    /// Returns false on timeout.
    @discardableResult
    public func wait(until deadline: UInt64? = nil) -> Bool {
        guard let deadline = deadline else { pthread_cond_wait(cond, mutex); return true }
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(cond, mutex, &ts) == 0
    }

    public func broadcast() { pthread_cond_broadcast(cond) }
    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(cond) }
}

/// Monotonic nanoseconds.
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// A joinable OS thread running a closure.
public final class OSThread {
    /// The stack of every thread the library starts (the pools' workers, the timer). Without
    /// it glibc reserves RLIMIT_STACK's size (8 MiB by default, 32 MiB when unlimited) for
    /// each, and the three pools' 193 threads at their caps reserve 1.5 GiB of address space,
    /// what `ulimit -v` counts (issue 26.6). The deepest stack measured in the tests is
    /// well under 192 KiB (the C tests and the pytest suites pass with `ulimit -s 192`,
    /// which sets the default size: RELIABILITY.md), so 1 MiB leaves a margin of five.
    public static let stackBytes = 1 << 20

    private var handle = pthread_t()
    private var started = false

    private final class Box {
        let body: @Sendable () -> Void
        let name: String
        let background: Bool
        init(_ b: @escaping @Sendable () -> Void, name: String, background: Bool) {
            body = b; self.name = name; self.background = background
        }
    }

    /// Starts `body` on a new thread named `name` (what `top -H`, gdb and
    /// /proc/self/task/*/comm show; Linux keeps 15 bytes). A `background`
    /// thread runs at nice +10 relative to the thread that starts it, capped at 19 (Linux
    /// priorities are per thread), so on a busy
    /// machine the host's threads and the player's worker run first. Returns
    /// nil if the OS refuses.
    public init?(name: String, background: Bool = false, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body, name: name, background: background)).toOpaque()
        var attr = pthread_attr_t()
        guard pthread_attr_init(&attr) == 0 else { Unmanaged<Box>.fromOpaque(box).release(); return nil }
        defer { pthread_attr_destroy(&attr) }
        // Explicit, not RLIMIT_STACK's size (see stackBytes). A refused size leaves the default.
        _ = pthread_attr_setstacksize(&attr, OSThread.stackBytes)
        let rc = pthread_create(&handle, &attr, { raw in
            guard let raw = raw else { return nil }
            let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
            OSThread.nameCurrent(box.name)
            if box.background {
                // On Linux, PRIO_PROCESS with who 0 is the calling thread only, and a new
                // thread starts at its creator's nice value: +10 relative to it (capped at
                // 19), never an absolute 10, which would raise the priority of a host that
                // runs niced (a root host at nice 15 would get an index at 10). Lowering
                // one's own priority needs no privilege; a failure only leaves it as it was.
                errno = 0
                let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                if errno == 0 {
                    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(current + 10, 19))
                }
            }
            box.body()
            return nil
        }, box)
        guard rc == 0 else { Unmanaged<Box>.fromOpaque(box).release(); return nil }
        started = true
    }

    /// Names the calling thread (pthread_setname_np is not visible to Swift here; the
    /// kernel takes the name from /proc/thread-self/comm). Best effort.
    private static func nameCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    public var isCurrent: Bool { started && pthread_equal(handle, pthread_self()) != 0 }

    public func join() {
        guard started else { return }
        started = false
        pthread_join(handle, nil)
    }

    public func detach() {
        guard started else { return }
        started = false
        pthread_detach(handle)
    }
}
