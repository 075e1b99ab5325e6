// Test builds only (FPX_FAULTS, the debug configuration: Package.swift): the shipped library
// has none of this file.
#if FPX_FAULTS
#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore
import Synchronization

/// The FFmpeg calls of FFmpegCalls.swift that can fail, by FFmpeg's name: the ones a test can
/// make fail or stall.
enum FFmpegCall: String, CaseIterable, Sendable {
    case avformat_alloc_context, avformat_open_input, avformat_find_stream_info
    case av_read_frame, av_seek_frame, avformat_seek_file, av_find_best_stream
    case avio_open2, avio_read, avio_read_partial, avio_seek, avio_size, avio_alloc_context, avio_find_protocol_name
    case av_packet_alloc, av_packet_clone, avcodec_parameters_alloc, avcodec_parameters_copy
    case av_malloc, av_dict_set, av_aes_alloc, av_aes_init, av_channel_layout_describe
}

/// One injected fault: `call`'s first `after` calls run as usual, the next `times` get `effect`
/// (`Int.max`: every later call), the calls after those run as usual again.
struct FFmpegFault: Sendable {
    enum Effect: Sendable {
        /// The call returns this AVERROR without calling FFmpeg; a call that returns a pointer
        /// returns NULL (an allocation failure), whatever the code.
        case fail(Int32)
        /// avio_read and avio_read_partial only: FFmpeg is asked for at most this many bytes (a short read).
        case short(Int32)
        /// The call blocks until `FFmpegFaults.release()`, `nanoseconds` (nil: no limit) or the
        /// end of the scope, then calls FFmpeg. A call on a format context (or an avio_open2
        /// given an interrupt callback) polls the context's interrupt callback every 10 ms as
        /// FFmpeg's blocking I/O does, and returns AVERROR_EXIT when it asks to stop.
        case stall(nanoseconds: UInt64?)
    }
    let call: FFmpegCall
    let after: Int
    let times: Int
    let effect: Effect

    init(_ call: FFmpegCall, after: Int = 0, times: Int = Int.max, _ effect: Effect) {
        self.call = call; self.after = after; self.times = times; self.effect = effect
    }
}

/// The faults armed now, for every thread (the engine's calls run on the player's workers):
/// one scope at a time (`with`), reset at its end.
enum FFmpegFaults {
    /// Guards everything below but `armed` (a leaf of the lock order: Sync.swift).
    static let m = Monitor()
    /// Whether a scope is active: one atomic load per call when none is.
    private static let armed = Atomic<Bool>(false)
    nonisolated(unsafe) private static var faults: [FFmpegFault] = []
    nonisolated(unsafe) private static var seen: [FFmpegCall: Int] = [:]
    nonisolated(unsafe) private static var hit: [FFmpegCall: Int] = [:]
    nonisolated(unsafe) private static var released = false
    nonisolated(unsafe) private static var stalled = 0

    /// Runs `body` with `list` armed; then disarms them and releases every stall, also when
    /// `body` throws. Scopes do not nest.
    static func with<T>(_ list: [FFmpegFault], _ body: () throws -> T) rethrows -> T {
        m.locked {
            precondition(!armed.load(ordering: .relaxed), "FFmpegFaults.with does not nest")
            faults = list
            seen = [:]
            hit = [:]
            released = false
            armed.store(true, ordering: .releasing)
        }
        defer {
            m.locked {
                armed.store(false, ordering: .releasing)
                faults = []
                released = true
                m.broadcast()
            }
        }
        return try body()
    }

    /// Lets every stalled call go on (and the later ones of a stall fault).
    static func release() {
        m.locked {
            released = true
            m.broadcast()
        }
    }

    /// The calls of `call` made in the current (or last) scope, and how many a fault hit.
    static func calls(_ call: FFmpegCall) -> Int { m.locked { seen[call, default: 0] } }
    static func hits(_ call: FFmpegCall) -> Int { m.locked { hit[call, default: 0] } }

    /// Calls stalled now.
    static var stalledCalls: Int { m.locked { stalled } }

    enum Hit { case fail(Int32), short(Int32) }

    /// What this call of `call` gets, nil: FFmpeg as usual. A stall is served here.
    static func hit(_ call: FFmpegCall, _ format: UnsafeMutablePointer<AVFormatContext>? = nil,
                    interrupt: AVIOInterruptCB? = nil) -> Hit? {
        guard armed.load(ordering: .acquiring) else { return nil }
        let effect: FFmpegFault.Effect? = m.locked {
            guard armed.load(ordering: .relaxed) else { return nil }
            let n = seen[call, default: 0]
            seen[call] = n + 1
            guard let f = faults.first(where: { $0.call == call && n >= $0.after && n - $0.after < $0.times })
            else { return nil }
            hit[call, default: 0] += 1
            return f.effect
        }
        switch effect {
        case nil: return nil
        case .fail(let e): return .fail(e)
        case .short(let n): return .short(n)
        case .stall(let ns):
            let cb = interrupt ?? format?.pointee.interrupt_callback
            return stall(until: ns.map { monotonicNanoseconds() &+ $0 }, interrupt: cb)
        }
    }

    /// `hit` for a call whose only fault is a failure: its code, nil: FFmpeg as usual.
    static func fault(_ call: FFmpegCall, _ format: UnsafeMutablePointer<AVFormatContext>? = nil,
                      interrupt: AVIOInterruptCB? = nil) -> Int32? {
        if case .fail(let e) = hit(call, format, interrupt: interrupt) { return e }
        return nil
    }

    /// `hit` for a read: a failure, a shorter size, or none.
    enum Read { case none, fail(Int32), short(Int32) }
    static func read(_ call: FFmpegCall, asked: Int32) -> Read {
        switch hit(call) {
        case .fail(let e): return .fail(e)
        case .short(let n): return .short(max(1, min(n, asked)))
        case nil: return .none
        }
    }

    private static func stall(until deadline: UInt64?, interrupt cb: AVIOInterruptCB?) -> Hit? {
        m.locked { stalled += 1 }
        defer { m.locked { stalled -= 1 } }
        while true {
            // The interrupt callback takes the engine's own locks: never under `m`.
            if let f = cb?.callback, f(cb?.opaque) != 0 { return .fail(fpx_averror_exit()) }
            let now = monotonicNanoseconds()
            let done: Bool = m.locked {
                if released || (deadline.map { now >= $0 } ?? false) { return true }
                let poll = now &+ 10_000_000
                m.wait(until: deadline.map { min($0, poll) } ?? poll)
                return released
            }
            if done { return nil }
        }
    }
}
#endif
