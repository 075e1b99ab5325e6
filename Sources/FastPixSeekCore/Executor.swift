#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Work an `Executor` runs: drained by one pool thread at a time, which returns
/// when the work has nothing left (docs/ARCHITECTURE.md, "The shared executor").
public protocol ExecutorWork: AnyObject, Sendable {
    func drain()
}

/// A process-wide pool of threads that runs `ExecutorWork`s (per-player serial
/// queues, event queues, one-shot jobs). Players own no threads: every player's
/// media I/O, event delivery and background index runs on one of the four
/// pools below.
///
/// Growth and shrinking: a pool starts no thread until there is work. When work
/// is scheduled and more work is waiting than threads are idle, it starts a
/// thread, up to `maxThreads`; so a job blocked in I/O (or a host callback that
/// takes long) never holds up another job of its pool while the cap is not
/// reached. A thread idle for `idleNanoseconds` exits. Threads are joinable, and every one
/// that exits is joined (`retired`): by the next to exit, by a spawn at the cap, or, when it
/// was the pool's last thread, by the timer thread just after it exits, so none is left
/// unjoined (its stack kept) while the process runs on.
///
/// Blocking network I/O has a pool of its own (issue 26.5): the jobs of a player whose
/// item is read through a protocol other than a local file (`forMedia`) run on
/// `network`, so any number of players stalled on servers fill at most that pool, and
/// the jobs of players on local files (`work`) never wait behind them.
// @unchecked Sendable: the ready list and the counters are guarded by `m`; the rest is immutable.
public final class Executor: @unchecked Sendable {
    /// Opens, seeks, closes of players on local files (the per-player job queues): normal priority.
    public static var work: Executor { pools.work }
    /// The same for players whose item is read over a protocol (http, https, ...), and
    /// live HLS reloads: the jobs that can block on a server (`forMedia`).
    public static var network: Executor { pools.network }
    /// FPX_DELIVERY_THREAD events and FPX_DELIVERY_HOST wakeups.
    public static var delivery: Executor { pools.delivery }
    /// FULL background indexes, at nice +10.
    public static var background: Executor { pools.background }
    /// Delayed jobs (scrub sessions' trailing positions): one shared thread.
    public static var timers: TimerThread { pools.timers }

    private final class Pools {
        let work = Executor(name: "fpx-worker", background: false, maxThreads: configuredMaxThreads)
        let network = Executor(name: "fpx-net", background: false, maxThreads: configuredMaxThreads)
        let delivery = Executor(name: "fpx-events", background: false, maxThreads: configuredMaxThreads)
        let background = Executor(name: "fpx-index", background: true, maxThreads: configuredMaxThreads)
        let timers = TimerThread()
    }

    // The pools, made at the first use by whichever thread comes first: an atomic
    // with a constant initializer (an unretained pointer, never released), not a lazy
    // global, so that no thread reads a global that another thread's swift_once wrote.
    private static let poolsBits = Atomic<UInt>(0)
    private static var pools: Pools {
        let b = poolsBits.load(ordering: .acquiring)
        if b != 0 { return Unmanaged<Pools>.fromOpaque(UnsafeRawPointer(bitPattern: b)!).takeUnretainedValue() }
        let fresh = Unmanaged.passRetained(Pools())
        let (won, current) = poolsBits.compareExchange(expected: 0, desired: UInt(bitPattern: fresh.toOpaque()),
                                                       ordering: .acquiringAndReleasing)
        if won { return fresh.takeUnretainedValue() }
        fresh.release()
        return Unmanaged<Pools>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }

    /// The cap of each pool: FPX_MAX_THREADS from the environment (1...1024) when set at the
    /// first use, else 64.
    public static var configuredMaxThreads: Int {
        if let v = getenv("FPX_MAX_THREADS"), let n = Int(String(cString: v)), n >= 1 { return min(n, 1024) }
        return 64
    }

    public static let idleNanoseconds: UInt64 = 2_000_000_000

    /// The pool for a player's jobs on `url`: `work` for a local media file (a path, or
    /// file:), `network` for any other protocol, named as FFmpeg finds one (a run of letters,
    /// digits, '+', '-', '.' before a ':'; "subfile," lists too), and for a local HLS
    /// playlist (a name ending ".m3u8" or ".m3u": its segments may be remote). Only where
    /// the jobs wait depends on it.
    public static func forMedia(_ url: String) -> Executor {
        isLocalMedia(url) ? work : network
    }

    static func isLocalMedia(_ url: String) -> Bool {
        if url.hasPrefix("subfile,") { return false }
        var scheme = ""
        for c in url.unicodeScalars {
            if c == ":" {
                if !scheme.isEmpty && scheme.lowercased() != "file" { return false }
                break
            }
            guard ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
                    || c == "+" || c == "-" || c == "." else { break }
            scheme.unicodeScalars.append(c)
        }
        let name = url.lowercased()
        return !name.hasSuffix(".m3u8") && !name.hasSuffix(".m3u")
    }

    public let name: String
    public let background: Bool
    public let maxThreads: Int
    private let m = Monitor()
    private var ready: [ExecutorWork] = []
    private var head = 0
    /// Threads counted against the cap: the running ones, and `retired` until it is joined.
    private var threads = 0
    private var waiting = 0
    /// The last thread that exited idle, not joined yet. A thread that has left `loop` still
    /// runs its exit (TLS destructors, the sanitizers' teardown) and is still a task of the
    /// process: it stays counted until a pthread_join says it is gone, so that a new thread
    /// never makes the pool's OS threads more than the cap (test_scale counts them in
    /// /proc/self/task). The next thread to exit, a spawn that the cap would refuse, or, when
    /// it was the pool's last thread, the timer thread, asked by the exiting thread itself
    /// (`reapRetired`), joins it: at most one per pool waits to be joined.
    private var retired: pthread_t?

    public init(name: String, background: Bool, maxThreads: Int) {
        self.name = name
        self.background = background
        self.maxThreads = max(1, maxThreads)
    }

    /// Threads of this pool now alive (for tests and benchmarks).
    public var threadCount: Int { m.locked { threads - (retired == nil ? 0 : 1) } }

    /// Threads of this pool that exited and are not joined yet: 0 or 1 (for tests).
    var unjoinedThreadCount: Int { m.locked { retired == nil ? 0 : 1 } }

    /// Queues `w` to be drained by a pool thread. Never runs it on the calling thread.
    public func schedule(_ w: ExecutorWork) {
        m.lock()
        ready.append(w)
        var pending = ready.count - head
        var spawn = pending > waiting && threads < maxThreads
        if !spawn && pending > waiting, let r = retired {
            // At the cap only because an exited thread is still counted: join it first.
            retired = nil
            m.unlock()
            pthread_join(r, nil)
            m.lock()
            threads -= 1
            pending = ready.count - head
            spawn = pending > waiting && threads < maxThreads
        }
        if spawn { threads += 1 }
        m.signal()
        m.unlock()
        if spawn { start() }
    }

    /// Runs `body` once on a pool thread.
    public func run(_ body: @escaping @Sendable () -> Void) { schedule(OneShot(body)) }

    private func start() {
        // Joinable: an exited thread is joined by the next one to exit or by a spawn (`retired`).
        if OSThread(name: name, background: background, { [self] in self.loop() }) != nil { return }
        // The OS refused a thread: the work stays queued for the threads there are (or for
        // the next schedule, which tries again).
        m.locked { threads -= 1 }
    }

    private func loop() {
        m.lock()
        while true {
            if head < ready.count {
                let w = ready[head]
                head += 1
                if head == ready.count {
                    ready.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 1024 && head * 2 > ready.count {
                    ready.removeFirst(head)
                    head = 0
                }
                m.unlock()
                w.drain()
                m.lock()
                continue
            }
            waiting += 1
            let signalled = m.wait(until: monotonicNanoseconds() &+ Self.idleNanoseconds)
            waiting -= 1
            if !signalled && head == ready.count {
                // Stays counted until joined (`retired`); joins the one that exited before.
                let previous = retired
                retired = pthread_self()
                m.unlock()
                if let p = previous {
                    pthread_join(p, nil)
                    m.locked { threads -= 1 }
                }
                // When no other thread of the pool is left to join this one (the next to exit
                // does, or a spawn at the cap), the timer thread does, as soon as this thread
                // is gone (its join waits for the exit). Only then: a thread started here is
                // named after this one until it names itself, and must not make a full pool
                // look over its cap.
                let alone = m.locked {
                    threads == 1 && retired.map { pthread_equal($0, pthread_self()) != 0 } == true
                }
                if alone { Executor.timers.after(0) { [self] in self.reapRetired() } }
                return
            }
        }
    }
}

extension Executor {
    /// Joins the thread that exited last, if no other thread has joined it yet. Blocks only
    /// for the rest of that thread's exit.
    func reapRetired() {
        guard let r = m.locked({ () -> pthread_t? in
            let r = retired
            retired = nil
            return r
        }) else { return }
        pthread_join(r, nil)
        m.locked { threads -= 1 }
    }
}

/// One closure, run once.
// @unchecked Sendable: `body` is immutable and @Sendable.
final class OneShot: ExecutorWork, @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ b: @escaping @Sendable () -> Void) { body = b }
    func drain() { body() }
}

/// A serial queue on an `Executor`: jobs run one at a time, in the order queued,
/// on whichever pool thread drains it; never on the thread that queues them.
// @unchecked Sendable: the job list and flags are guarded by `m`; `executor` is immutable.
public final class SerialQueue: ExecutorWork, @unchecked Sendable {
    private let m = Monitor()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    /// In the executor's ready list or being drained.
    private var scheduled = false
    private var runner: pthread_t?
    /// Where the queue is scheduled next (`use`).
    private var executor: Executor

    public init(executor: Executor) { self.executor = executor }

    /// Schedules the queue on `e` from its next scheduling on (a drain under way goes on
    /// where it runs): a player's queue follows its item (`Executor.forMedia`).
    public func use(_ e: Executor) { m.locked { executor = e } }

    public func async(_ job: @escaping @Sendable () -> Void) {
        let target: Executor? = m.locked {
            jobs.append(job)
            if scheduled { return nil }
            scheduled = true
            return executor
        }
        target?.schedule(self)
    }

    public func drain() {
        m.lock()
        while head < jobs.count {
            let j = jobs[head]
            head += 1
            runner = pthread_self()
            m.unlock()
            j()
            m.lock()
            runner = nil
        }
        jobs.removeAll(keepingCapacity: true)
        head = 0
        scheduled = false
        m.broadcast()
        m.unlock()
    }

    /// Blocks until nothing is queued or running. Not from one of this queue's own jobs.
    public func waitIdle() {
        m.locked { while scheduled { m.wait() } }
    }

    /// True when the calling thread is running one of this queue's jobs.
    public var isRunningOnCurrentThread: Bool {
        m.locked {
            guard let r = runner else { return false }
            return pthread_equal(r, pthread_self()) != 0
        }
    }
}

/// One shared thread ("fpx-timer") that runs delayed jobs at their deadlines, in
/// deadline order; started at the first job, it exits after
/// `Executor.idleNanoseconds` with none pending. Jobs must be quick (they run on
/// the timer thread itself): the scrub sessions' jobs only post an event.
// @unchecked Sendable: the entries and the flag are guarded by `m`.
public final class TimerThread: @unchecked Sendable {
    private let m = Monitor()
    private var entries: [(at: UInt64, job: @Sendable () -> Void)] = []
    private var running = false

    /// Runs `job` at `deadline` (monotonic nanoseconds), or soon after; never inside this call.
    public func after(_ deadline: UInt64, _ job: @escaping @Sendable () -> Void) {
        let start: Bool = m.locked {
            entries.append((deadline, job))
            m.signal()
            if running { return false }
            running = true
            return true
        }
        guard start else { return }
        if let t = OSThread(name: "fpx-timer", { [self] in self.loop() }) {
            t.detach()
        } else {
            // Refused by the OS: the next `after` tries again.
            m.locked { running = false }
        }
    }

    private func loop() {
        m.lock()
        while true {
            var first = -1
            for i in entries.indices where first < 0 || entries[i].at < entries[first].at { first = i }
            if first >= 0 {
                if entries[first].at <= monotonicNanoseconds() {
                    let job = entries.remove(at: first).job
                    m.unlock()
                    job()
                    m.lock()
                } else {
                    m.wait(until: entries[first].at)
                }
                continue
            }
            if !m.wait(until: monotonicNanoseconds() &+ Executor.idleNanoseconds) && entries.isEmpty {
                running = false
                m.unlock()
                return
            }
        }
    }
}
