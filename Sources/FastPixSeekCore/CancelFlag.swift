import Synchronization

/// One request's stop flag: set (once, never cleared) by whoever cancels,
/// supersedes or interrupts the request, read without a lock by the code
/// doing its work (between packets, and from FFmpeg's interrupt callback).
/// Replaces per-packet closures that took `Player.m`.
// Sendable: its only state is an atomic.
public final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    /// Sets the flag (release ordering: what the setter wrote before is
    /// visible to a reader that sees it set).
    public func set() { flag.store(true, ordering: .releasing) }
    public var isSet: Bool { flag.load(ordering: .acquiring) }
}
