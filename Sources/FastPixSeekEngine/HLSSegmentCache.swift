import FastPixSeekCore

/// The segment engines of an HLS item: one `FFmpegEngine` per demuxed segment, by media
/// sequence number, bounded (the current one and two neighbours, within the buffer cap),
/// with the last init section fetched (fMP4) and the counters of retired engines.
///
/// Locking: every member runs under the player's engine lock (the serial engine calls),
/// except `interrupt`, which runs on any thread: the table is written under the engine
/// lock *and* the leaf lock `em`, and `interrupt` reads it under `em` alone.
// @unchecked Sendable: see above.
final class HLSSegmentCache: @unchecked Sendable {
    private let policy: IOPolicy
    private let remote: Bool
    private let em = Monitor()
    private var engines: [Int64: FFmpegEngine] = [:]
    private var order: [Int64] = []
    /// The last init section fetched (fMP4), by URI and byte range.
    private var initSections: [String: FallibleBuffer<UInt8>] = [:]
    /// AES-128 keys fetched, by URI (never logged).
    private var keys: [String: [UInt8]] = [:]
    private var retiredCounters: (packets: UInt64, bytes: UInt64) = (0, 0)
    /// Streams the host disabled; applied to every segment engine, now and later.
    private var disabledStreams: Set<Int32> = []

    init(policy: IOPolicy, remote: Bool) {
        self.policy = policy
        self.remote = remote
    }

    /// The engine of a segment if it is open (engine lock).
    subscript(_ sequence: Int64) -> FFmpegEngine? { engines[sequence] }

    /// Opens a segment without keeping it (the open's first segment, kept by `adopt`).
    /// `listedOnDomain`: a packed audio segment's listed start on its domain's pts timeline,
    /// for one without an ID3 timestamp (`HLSPackedAudio.segmentStart`).
    func open(_ s: HLSFeed.Segment, stop: (() -> Bool)? = nil,
              listedOnDomain: () -> Rational? = { nil }) throws -> FFmpegEngine {
        let e = try HLSFetch.openSegment(s, policy: policy, remote: remote, initSections: &initSections, keys: &keys,
                                         stop: stop, listedOnDomain: listedOnDomain)
        for i in disabledStreams { try? e.setStreamEnabled(i, false) }
        return e
    }

    /// The engine of `s`, opened (fetched and demuxed) if needed. `keep`: the segment the
    /// reader is in, never evicted for this one.
    func engine(for s: HLSFeed.Segment, keep: Int64?, stop: (() -> Bool)? = nil,
                listedOnDomain: () -> Rational? = { nil }) throws -> FFmpegEngine {
        if let e = engines[s.sequence] { return e }
        let e = try open(s, stop: stop, listedOnDomain: listedOnDomain)
        adopt(e, sequence: s.sequence, keep: keep)
        return e
    }

    /// Keeps an engine opened for `sequence`, evicting others. Keeps the segment engines
    /// bounded: the current one and two neighbours, and the segments held within the
    /// buffer cap (the current and the new one are always kept). Evicting one frees
    /// nothing the host holds: packets belong to the player (PacketView.owner), stream
    /// facts to `ItemFacts`.
    func adopt(_ e: FFmpegEngine, sequence: Int64, keep: Int64?) {
        em.locked { engines[sequence] = e }
        order.append(sequence)
        var held = em.locked { engines.values.reduce(0) { $0 &+ $1.bufferedBytes } }
        var i = 0
        while i < order.count && (order.count > 3 || held > policy.maxBufferBytes) {
            let old = order[i]
            if old == keep || old == sequence { i += 1; continue }
            order.remove(at: i)
            if let o = em.locked({ engines.removeValue(forKey: old) }) { held &-= o.bufferedBytes; retire(o) }
        }
    }

    private func retire(_ e: FFmpegEngine) {
        let c = e.demuxCounters
        retiredCounters.packets &+= c.packets
        retiredCounters.bytes &+= c.bytes
        e.close()
    }

    /// Drops the keys no segment of the window uses any more (issue 28.8: with a key per
    /// segment, the cache would otherwise grow with the stream).
    func forgetKeys(except kept: Set<String>) {
        if keys.keys.contains(where: { !kept.contains($0) }) {
            keys = keys.filter { kept.contains($0.key) }
        }
    }

    /// The keys held (a test's measure of bounded live state, in the DEBUG log line).
    var keyCount: Int { keys.count }

    /// Applies to every segment engine, now and later.
    func setStreamEnabled(_ index: Int32, _ enabled: Bool) throws {
        if enabled { disabledStreams.remove(index) } else { disabledStreams.insert(index) }
        for e in em.locked({ Array(engines.values) }) { try e.setStreamEnabled(index, enabled) }
    }

    /// Any thread.
    func interrupt() {
        for e in em.locked({ Array(engines.values) }) { e.interrupt() }
    }

    func close() {
        let all: [FFmpegEngine] = em.locked { let a = Array(engines.values); engines.removeAll(); return a }
        for e in all { retire(e) }
        order.removeAll()
    }

    var demuxCounters: (packets: UInt64, bytes: UInt64) {
        var c = retiredCounters
        for e in engines.values {
            let d = e.demuxCounters
            c.packets &+= d.packets
            c.bytes &+= d.bytes
        }
        return c
    }
}
