#if canImport(Glibc)
import Glibc
#endif

/// eventfd(2) (glibc's <sys/eventfd.h> is not in the Glibc module).
@_silgen_name("eventfd")
private func fpx_eventfd(_ initval: UInt32, _ flags: Int32) -> Int32

/// A player's ordered event queue and its delivery.
///
/// Events are closures posted from any thread and run one at a time, in order,
/// never inside the call that posted them: on the shared delivery pool
/// (`.thread`: `Executor.delivery`, one pool thread at a time drains a queue) or
/// by the host (`.host`, through `dispatch()`, signalled by one eventfd and an
/// optional wakeup run on the delivery pool).
// @unchecked Sendable: the queue's mutable state is guarded by `m`, host dispatch by
// `dispatchMonitor`; `mode`, `wakeup` and `eventFD` are immutable after init.
public final class EventQueue: ExecutorWork, @unchecked Sendable {
    public enum Mode: Sendable { case thread, host }

    public let mode: Mode
    private let m = Monitor()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    /// `.thread`: in the delivery pool's ready list or being drained.
    private var scheduled = false
    /// Serialises host dispatchers.
    private let dispatchMonitor = Monitor()
    private var deliveringThread: pthread_t?
    private let wakeup: WakeupBox?
    /// `.host` with a wakeup: runs the wakeups one at a time, in order, on the delivery pool.
    private let wakeQueue: SerialQueue?
    /// FPX_DELIVERY_HOST: an eventfd, readable (counter > 0) while events are queued.
    public private(set) var eventFD: Int32 = -1
    private var delivered: UInt64 = 0

    // @unchecked Sendable: the host's wakeup (a C function pointer and its userdata),
    // called on a library thread as seek.h documents; immutable.
    private final class WakeupBox: @unchecked Sendable {
        let call: () -> Void
        init(_ c: @escaping () -> Void) { call = c }
    }

    public convenience init?(mode: Mode, wakeup: (() -> Void)?) {
        var failure = ErrorCode.noMemory
        self.init(mode: mode, wakeup: wakeup, failure: &failure)
    }

    /// `failure` says why it returned nil: `.noFileDescriptors` when eventfd(2) found the
    /// process or the system out of descriptors (EMFILE, ENFILE), else `.noMemory`.
    /// No thread is started: delivery runs on `Executor.delivery`.
    public init?(mode: Mode, wakeup: (() -> Void)?, failure: inout ErrorCode) {
        self.mode = mode
        self.wakeup = wakeup.map { WakeupBox($0) }
        switch mode {
        case .host:
            // EFD_NONBLOCK and EFD_CLOEXEC are O_NONBLOCK and O_CLOEXEC on Linux.
            let fd = fpx_eventfd(0, O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                failure = (errno == EMFILE || errno == ENFILE) ? .noFileDescriptors : .noMemory
                return nil
            }
            eventFD = fd
            wakeQueue = wakeup == nil ? nil : SerialQueue(executor: Executor.delivery)
        case .thread:
            wakeQueue = nil
        }
    }

    deinit {
        if eventFD >= 0 { close(eventFD) }
    }

    public var deliveredCount: UInt64 { m.locked { delivered } }

    /// True when the calling thread is running one of this queue's events.
    public var isDeliveringOnCurrentThread: Bool {
        m.locked {
            guard let t = deliveringThread else { return false }
            return pthread_equal(t, pthread_self()) != 0
        }
    }

    /// Queues an event. Never runs it inside this call.
    public func post(_ event: @escaping @Sendable () -> Void) {
        var scheduleDrain = false
        m.locked {
            let wasEmpty = head == queue.count
            queue.append(event)
            switch mode {
            case .host:
                if wasEmpty {
                    var one: UInt64 = 1
                    _ = write(eventFD, &one, 8)
                    if let w = wakeup, let q = wakeQueue {
                        q.async { CallbackScope.run(.wakeup) { w.call() } }
                    }
                }
            case .thread:
                if !scheduled {
                    scheduled = true
                    scheduleDrain = true
                }
            }
            m.broadcast()
        }
        if scheduleDrain { Executor.delivery.schedule(self) }
    }

    private func pop() -> (() -> Void)? {
        guard head < queue.count else { return nil }
        let e = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
            if mode == .host {
                var v: UInt64 = 0
                _ = read(eventFD, &v, 8)
            }
        } else if head > 1024 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return e
    }

    /// `.thread`: runs every queued event on the calling pool thread, one at a time.
    public func drain() {
        m.lock()
        while let e = pop() {
            deliveringThread = pthread_self()
            m.unlock()
            CallbackScope.run(.delivery) { e() }
            m.lock()
            deliveringThread = nil
            delivered &+= 1
        }
        scheduled = false
        m.broadcast()
        m.unlock()
    }

    /// `.host`: runs every queued event on the calling thread. Returns how many ran.
    public func dispatch() -> Int {
        dispatchMonitor.lock()
        var n = 0
        m.lock()
        while let e = pop() {
            deliveringThread = pthread_self()
            m.unlock()
            CallbackScope.run(.delivery) { e() }
            n += 1
            m.lock()
            deliveringThread = nil
            delivered &+= 1
        }
        m.unlock()
        dispatchMonitor.unlock()
        return n
    }

    /// Delivers what is queued, then stops. From outside a callback this waits
    /// until every event has run (and every wakeup queued has returned). From
    /// inside one of this queue's callbacks it returns at once; the delivering
    /// thread drains the rest after the current callback returns.
    public func shutdown() {
        let inCallback = isDeliveringOnCurrentThread
        m.locked { stopping = true; m.broadcast() }
        if inCallback { return }
        switch mode {
        case .thread:
            m.locked { while scheduled { m.wait() } }
        case .host:
            _ = dispatch()
            wakeQueue?.waitIdle()
        }
    }
}
