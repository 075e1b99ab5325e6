#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A per-thread record of the host code the library is running on this thread
/// right now: an event (completion or listener, any player), the wakeup, or
/// the log callback. The C layer consults it so that, from inside any callback,
/// a function that could wait for something the calling thread itself holds up
/// (a worker it is running on, a lock its caller holds, a delivery thread it is
/// itself) returns `FPX_ERROR_IN_CALLBACK` instead of waiting (seek.h, section 3).
///
/// Two counters per thread, kept in one pthread-specific word (no allocation,
/// no lock): `delivery` (events, counted per nesting) and `host` (the log
/// callback and the wakeup, where the library may hold a player's engine lock
/// or be the player's own worker, index or reload thread).
public enum CallbackScope {
    public enum Kind: Sendable { case delivery, log, wakeup }

    // The pthread key (thread_local is not available to Swift), plus one; 0 until the first
    // use creates it. An atomic with a constant initializer, so no lazy global initialiser
    // (swift_once) is involved in reading it; created once, never deleted.
    private static let keyPlusOne = Atomic<UInt64>(0)

    private static var key: pthread_key_t {
        let k = keyPlusOne.load(ordering: .acquiring)
        if k != 0 { return pthread_key_t(k - 1) }
        var fresh = pthread_key_t()
        pthread_key_create(&fresh, nil)
        let (won, current) = keyPlusOne.compareExchange(expected: 0, desired: UInt64(fresh) + 1,
                                                        ordering: .acquiringAndReleasing)
        if won { return fresh }
        pthread_key_delete(fresh)
        return pthread_key_t(current - 1)
    }

    private static var word: UInt {
        get { UInt(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }

    // Low 16 bits: delivery depth; next 16: log/wakeup depth.
    private static func unit(_ k: Kind) -> UInt { k == .delivery ? 1 : 1 << 16 }

    /// Runs `body` (the host's code) marked as a callback of `kind` on this thread.
    @inline(__always)
    public static func run<T>(_ kind: Kind, _ body: () throws -> T) rethrows -> T {
        let u = unit(kind)
        word &+= u
        defer { word &-= u }
        return try body()
    }

    /// True inside any callback the library runs, on this thread.
    public static var isActive: Bool { word != 0 }

    /// True inside the log callback or the wakeup (at any depth) on this thread:
    /// places where the library itself may hold a player's locks or be one of
    /// its threads.
    public static var isInHostHook: Bool { word >> 16 != 0 }
}
