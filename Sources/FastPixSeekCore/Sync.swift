#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// THE LOCKS AND THEIR ORDER. This is the one place they are written (docs/ARCHITECTURE.md
// and the other comments point here; Tests/python/test_lock_order.py checks that every
// Monitor of the library is listed below and that nothing else claims an order).
//
// Every lock of the library is a `Monitor` (below): no other mutex, no Dispatch, no actors.
// What threads share without a lock is an `Atomic` (CancelFlag, OpenDeadline, IOGuard's
// deadlines and interrupt flag, Log's level, the executor's pools, CallbackScope's key).
// The fpx-seek tool's own monitors (Sources/fpx-seek) are local waits of the tool, not
// the library's, and are not listed.
//
// Each lock, by level (its owner type and field; what it guards):
//
// Level 1
//   EventQueue.dispatchMonitor  one FPX_DELIVERY_HOST dispatcher of a player at a time
//                               (fpx_player_dispatch_events, destroy's last drain); held
//                               while that dispatch runs the host's callbacks.
// Level 2
//   Player.engineLock           the item's engine: every serial MediaEngine member (open's
//                               range, seek, step, read, close, counters; MediaEngine.swift),
//                               Player.disposable. Held across I/O. Taken by Player.issue
//                               (seek, seek_wait) and Player.statistics only with tryLock
//                               (never a wait); a seek_wait that lands inline keeps it from
//                               that tryLock until its seek is completed or handed off.
//   PreviewState.busy           a player's preview calls, one at a time; the preview source,
//                               the last preview packet; held across the preview engine's
//                               I/O (it is that engine's engine lock).
// Level 3
//   Player.m                    the player's state: item, SeekManager value, jobs, listeners,
//                               stats, playhead, read stop flag, host packet, retained facts.
// Level 4
//   EventQueue.m                a player's event list, its delivery state, the eventfd.
//   ScrubSession.m              the scrub gesture, its throttle and trailing position.
//   HLSPlaylistFeed.m           an HLS feed's playlist window, live tracker, holes report,
//                               reload state.
// Level 5 (leaves: nothing is taken while one is held)
//   Player.demuxSnapLock        the engine's demux counters as of the last engine call.
//   SeekWaitBox.m               one fpx_player_seek_wait's outcome.
//   PreviewState.leaf           the preview engine (for destroy's interrupt) and `shut`.
//   SerialQueue.m               a serial queue's jobs (a player's jobs, a host wakeup queue).
//   Executor.m                  a pool's ready list and thread counts (four pools).
//   TimerThread.m               the shared timer's deadlines.
//   Log.m                       the log sink and its level.
//   Handles.m                   the C ABI's handle registry (FastPixSeek/Handles.swift).
//   IOGuard.m                   one I/O operation's stop closure (read off its own thread),
//                               why it was cut, a protocol refusal.
//   FFmpegEngine.publishLock    every FFmpegEngine's published seekable range (one static lock).
//   ItemFacts.handedOutLock     whether the host was handed an item's fact pointers.
//   EngineStrings.m             the stream details' interned C strings.
//   HLSSegmentCache.em          an HLS item's table of segment engines (written under
//                               engineLock and em; interrupt reads it under em alone).
//   HLSRenditionMerge.am        an HLS item's current audio rendition feed, the pending
//                               audio switch, the retired rendition feeds' facts.
//   HLSItemEngine.vm            an HLS item's feeds playing (its variant's, the rendition
//                               merge), the variant switch, the retired feeds' facts and
//                               counters.
//   FFmpegLog.m                 the av_log callback's installation and the partial line.
//   FFmpegFaults.m              test builds only (FPX_FAULTS): the injected FFmpeg faults, their
//                               counts and the stalls' release (a stall polls the interrupt
//                               callback with it not held).
//
// The order:
//   1. A thread holding a lock takes only locks of a later level; never two locks of one
//      level, nor two instances of one lock (two players', two feeds', two guards').
//   2. tryLock is exempt (it never waits): Player.issue tries engineLock, then takes m;
//      statistics tries engineLock, then takes demuxSnapLock.
//   3. The edges that exist today (A -> B: B taken while A is held):
//      dispatchMonitor -> EventQueue.m, and whatever a callback-safe call takes (rule 6);
//      engineLock -> Player.m (retiring an engine; a seek_wait's inline landing completing
//        or handing off its seek, SeekWait.swift), demuxSnapLock, HLSPlaylistFeed.m and
//        the engines' leaves (IOGuard.m, publishLock, handedOutLock, EngineStrings.m, em,
//        am, vm), Log.m and FFmpegLog.m (logging inside engine calls);
//      PreviewState.busy -> Player.m, PreviewState.leaf, and the preview engine's locks as
//        engineLock takes them;
//      Player.m -> EventQueue.m (posting), SerialQueue.m and Executor.m (queueing a job,
//        the index job), SeekWaitBox.m (onDecided), HLSPlaylistFeed.m, em, am, vm (an
//        engine's interrupt() and holeReport, concurrent members);
//      EventQueue.m -> SerialQueue.m (a host wakeup queued), Executor.m (its schedule);
//      ScrubSession.m -> TimerThread.m; HLSPlaylistFeed.m -> TimerThread.m (a reload due).
//   4. Waits: a thread waits on a Monitor's condition holding, besides that lock, only
//      locks that no thread it waits for takes. The waits on Player.m (wait_item, a read
//      or step settling, joinIndex), SeekWaitBox.m, SerialQueue.waitIdle,
//      EventQueue.shutdown and ScrubSession.shutdown hold nothing else;
//      HLSPlaylistFeed.waitForSegment and HLSPlaylistFeed.close wait under engineLock for
//      a reload job, which never takes it.
//   5. No lock of level 3 or later is held across I/O, host code or a wait for another
//      thread. engineLock and busy are held across I/O and an HLS reload wait, never
//      across a wait for a player's job queue or for event delivery.
//
// Callbacks (6):
//   - Host code runs with no library lock held, except: FPX_DELIVERY_HOST events run inside
//     fpx_player_dispatch_events (or destroy's last drain) holding that queue's
//     dispatchMonitor, which no callback-safe function takes; and the log callback runs on
//     whichever thread logs, under what that thread holds of levels 1 and 2: a player's
//     engineLock inside a serial engine call (its worker, the host's read_packet, a step,
//     a seek_wait landing on the host's thread),
//     PreviewState.busy in a preview, a dispatchMonitor when a host callback's call logs;
//     never a lock of level 3 or later (Log.emit calls the sink after releasing Log.m,
//     FFmpegLog after releasing FFmpegLog.m; under Player.m and later locks the library
//     neither logs nor calls FFmpeg to do I/O: a seek decided from memory under Player.m
//     only unreferences packets).
//   - Events (completions, listeners) run on the delivery pool (EventQueue.drain, with
//     EventQueue.m released) or in the host's dispatch; a wakeup runs as a job of a
//     SerialQueue on the delivery pool (SerialQueue.m released). An event reads the
//     listener list under Player.m and calls the listeners after releasing it.
//   - So inside any callback (CallbackScope marks the thread) the C layer refuses every
//     function seek.h does not mark "Callback-safe: yes" (FPX_ERROR_IN_CALLBACK;
//     Handles.swift withPlayer), and destroy from the log callback, the wakeup or another
//     player's callback. The callback-safe functions take Handles.m, Player.m and locks
//     after it, and only try engineLock; fpx_player_destroy of the callback's own player
//     also waits for its job queue and takes its engineLock, neither of which an event's
//     thread holds.
//   - The library's own callbacks: FFmpeg's interrupt callback (IOGuard.shouldInterrupt)
//     runs inside the FFmpeg call (under engineLock or busy, or none) and takes only
//     IOGuard.m, briefly (on the operation's own thread only to record a cut). The
//     `shouldStop` closures and `IOPolicy.aborted` read one atomic CancelFlag, take no
//     lock, and are called with no level-4 or level-5 lock held (IOGuard reads `stop`,
//     releases m, then calls it; HLSPlaylistFeed.waitForSegment releases m, then asks).
//     `SeekRequest.onDecided` runs under Player.m (and, for a seek landed inline, under the
//     engineLock its seek_wait holds) and takes only SeekWaitBox.m. Jobs
//     (Executor, SerialQueue, TimerThread) run with their queue's lock released.

/// A non-recursive mutex with a condition variable, on pthreads. Foundation and
/// Dispatch stay out of the library (see docs/ARCHITECTURE.md, "Shipping the .so").
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
