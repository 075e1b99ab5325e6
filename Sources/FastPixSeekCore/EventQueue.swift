#if canImport(Glibc)
import Glibc
#endif

/// A player's ordered event queue and its delivery.
///
/// Events are closures posted from any thread and run one at a time, in order,
/// either on a library thread (`.thread`) or by the host (`.host`, through
/// `dispatch()`), never inside the call that posted them.
// @unchecked Sendable: the queue's mutable state is guarded by `m`, host dispatch by
// `dispatchMonitor`; `mode` and `wakeup` are immutable.
public final class EventQueue: @unchecked Sendable {
    public enum Mode: Sendable { case thread, host }

    public let mode: Mode
    private let m = Monitor()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var thread: OSThread?
    /// Serialises host dispatchers.
    private let dispatchMonitor = Monitor()
    private var dispatching = false
    private var deliveringThread: pthread_t?
    private let wakeup: (() -> Void)?
    /// FPX_DELIVERY_HOST: readable while events are queued.
    public private(set) var eventFD: Int32 = -1
    /// The pipe's write end: one byte is in the pipe while events are queued.
    private var signalFD: Int32 = -1
    private var delivered: UInt64 = 0
    private var waker: OSThread?
    private var wakePending = false

    public convenience init?(mode: Mode, wakeup: (() -> Void)?) {
        var failure = ErrorCode.noMemory
        self.init(mode: mode, wakeup: wakeup, failure: &failure)
    }

    /// `failure` says why it returned nil: `.noFileDescriptors` when pipe(2) found the
    /// process or the system out of descriptors (EMFILE, ENFILE), else `.noMemory`.
    public init?(mode: Mode, wakeup: (() -> Void)?, failure: inout ErrorCode) {
        self.mode = mode
        self.wakeup = wakeup
        switch mode {
        case .host:
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else {
                failure = (errno == EMFILE || errno == ENFILE) ? .noFileDescriptors : .noMemory
                return nil
            }
            if wakeup != nil {
                // The wakeup runs on a library thread, never inside the call that posted.
                guard let t = OSThread(name: "fpx-wakeup", { [self] in self.wakeLoop() }) else {
                    close(fds[0]); close(fds[1])
                    failure = .noMemory
                    return nil
                }
                waker = t
            }
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            eventFD = fds[0]
            signalFD = fds[1]
        case .thread:
            guard let t = OSThread(name: "fpx-events", { [self] in self.threadLoop() }) else { return nil }
            thread = t
        }
    }

    deinit {
        if eventFD >= 0 { close(eventFD) }
        if signalFD >= 0 { close(signalFD) }
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
        m.locked {
            let wasEmpty = head == queue.count
            queue.append(event)
            if mode == .host && wasEmpty {
                var one: UInt8 = 1
                _ = write(signalFD, &one, 1)
                wakePending = true
            }
            m.broadcast()
        }
    }

    private func wakeLoop() {
        m.lock()
        while true {
            if wakePending {
                wakePending = false
                m.unlock()
                if let w = wakeup { CallbackScope.run(.wakeup) { w() } }
                m.lock()
                continue
            }
            if stopping { break }
            m.wait()
        }
        m.unlock()
    }

    private func pop() -> (() -> Void)? {
        guard head < queue.count else { return nil }
        let e = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
            if mode == .host {
                var v: UInt8 = 0
                while read(eventFD, &v, 1) > 0 {}
            }
        } else if head > 1024 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return e
    }

    private func threadLoop() {
        m.lock()
        while true {
            if let e = pop() {
                deliveringThread = pthread_self()
                m.unlock()
                CallbackScope.run(.delivery) { e() }
                m.lock()
                deliveringThread = nil
                delivered &+= 1
                continue
            }
            if stopping { break }
            m.wait()
        }
        m.unlock()
    }

    /// `.host`: runs every queued event on the calling thread. Returns how many ran.
    public func dispatch() -> Int {
        dispatchMonitor.lock()
        dispatching = true
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
        dispatching = false
        dispatchMonitor.unlock()
        return n
    }

    /// Delivers what is queued, then stops. From outside a callback this waits
    /// until every event has run. From inside one of this queue's callbacks it
    /// returns at once; the delivering thread drains the rest after the current
    /// callback returns.
    public func shutdown() {
        let inCallback = isDeliveringOnCurrentThread
        m.locked { stopping = true; m.broadcast() }
        switch mode {
        case .thread:
            if inCallback {
                thread?.detach()
            } else {
                thread?.join()
            }
            thread = nil
        case .host:
            if !inCallback { _ = dispatch() }
            if let w = waker {
                if inCallback { w.detach() } else { w.join() }
                waker = nil
            }
        }
    }
}
