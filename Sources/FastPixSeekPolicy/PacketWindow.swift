/// The packet window: packets in decode order from a reference keyframe (all
/// streams), the host's read cursor into it, and what it proves. A value that
/// owns its invariants:
///
/// - `cursor` is in `0...count`;
/// - `bytes` is the payload of the packets held, `maxReferenceDTS` the largest
///   reference dts among them;
/// - when `contiguous`, the demuxer is positioned right after the last packet
///   and the window starts at a reference keyframe (so host reads may append,
///   and stepping may extend it); `atEOF` only then says the stream ended there.
///
/// Contiguity is a fact the window derives, never a flag a caller sets: every
/// packet the demuxer gives is numbered as it arrives (`demuxed`), and every
/// positioning and failed read counts as a gap (`demuxerMoved`). The window is
/// contiguous only while its entries are consecutive demuxer output with
/// nothing between them and its last entry is the last packet the demuxer gave.
/// A packet read and let go instead of kept (a stop in the middle of a
/// positioning, a scan that drops what it read last) therefore ends contiguity
/// by itself: no caller can leave the window claiming packets the demuxer is
/// already past (issue 26). `markContiguous` only says that the window starts
/// where a landing may replay it.
///
/// Operations that let packets go return them, for the owner to release
/// (`LandingSeam.release`): the window holds handles, never frees.
public struct PacketWindow<Packet> {
    public struct Entry {
        public var header: DemuxedPacket
        /// The presentation time after priming (`Priming.presents`).
        public var presents: Int64?
        /// `Priming.notLandable`.
        public var notLandable: Bool
        public var packet: Packet
        /// The demuxer's ordinal of this packet (`demuxed`); 0: never numbered.
        public fileprivate(set) var order: UInt64 = 0
        public init(header: DemuxedPacket, presents: Int64?, notLandable: Bool, packet: Packet) {
            self.header = header; self.presents = presents; self.notLandable = notLandable; self.packet = packet
        }
    }

    /// At most this many packets are kept (`trim`).
    public static var maxPackets: Int { 4096 }

    public private(set) var entries: [Entry] = []
    public private(set) var cursor = 0
    public private(set) var maxReferenceDTS: Int64?
    public private(set) var bytes = 0
    public let referenceStream: Int32
    /// The window starts where a landing may replay it (`markContiguous`).
    private var replayable = false
    /// Every entry followed the one before straight from the demuxer.
    private var consecutive = true
    /// The ordinal of the demuxer's last packet; positionings and failed reads count too.
    private var demuxerOrder: UInt64 = 0
    private var eof = false

    /// The demuxer is positioned right after the last packet, and the window starts at
    /// a reference keyframe (see the type's comment: derived, not set).
    public var contiguous: Bool {
        replayable && consecutive && entries.last.map { $0.order == demuxerOrder && $0.order != 0 } == true
    }
    /// The stream ended right after the last packet (only while contiguous).
    public var atEOF: Bool { eof && contiguous }

    public init(referenceStream: Int32) { self.referenceStream = referenceStream }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    /// Packets the host has not read yet.
    public var hasUnread: Bool { cursor < entries.count }

    private func isReferenceKey(_ e: Entry) -> Bool { e.header.stream == referenceStream && e.header.isKey }

    /// A packet the demuxer just gave, numbered: every packet read passes here before
    /// it is appended or let go.
    public mutating func demuxed(_ e: Entry) -> Entry {
        demuxerOrder &+= 1
        var n = e
        n.order = demuxerOrder
        return n
    }

    /// The ordinal of the last packet the demuxer gave (`demuxed`; gaps count too).
    public var lastDemuxed: UInt64 { demuxerOrder }

    /// The demuxer moved (a positioning) or its position is unknown (a failed read): the
    /// window no longer ends where the demuxer is, until it is emptied and refilled.
    public mutating func demuxerMoved() { demuxerOrder &+= 1 }

    /// Appends the packet the demuxer gave last (`demuxed`); anything else (a packet
    /// from before a positioning, a packet read after one let go) breaks contiguity
    /// until the window is emptied.
    public mutating func append(_ e: Entry) {
        if let last = entries.last, e.order != last.order &+ 1 || e.order == 0 { consecutive = false }
        if entries.isEmpty { consecutive = e.order != 0 }
        entries.append(e)
        bytes &+= max(0, e.header.size)
        if e.header.stream == referenceStream, let d = e.header.dts { maxReferenceDTS = max(maxReferenceDTS ?? d, d) }
    }

    /// Empties the window. Returns the packets to release.
    public mutating func clear() -> [Packet] {
        let out = entries.map(\.packet)
        entries.removeAll(keepingCapacity: true)
        bytes = 0
        cursor = 0
        replayable = false
        consecutive = true
        maxReferenceDTS = nil
        eof = false
        return out
    }

    /// The window starts at a reference keyframe a landing may replay (a scan or
    /// positioning filled it from there). It is contiguous only while it also ends
    /// where the demuxer is (`contiguous`).
    public mutating func markContiguous(atEOF end: Bool = false) { replayable = true; eof = end }
    /// The window was read without a stream, or lost its start: it proves nothing past its end.
    public mutating func markDiscontiguous() { replayable = false }
    /// Reading from the end of the contiguous window hit the end of the stream.
    public mutating func reachedEOF() { if contiguous { eof = true } }

    /// The host's reads start at `index` (clamped to the window).
    public mutating func point(at index: Int) { cursor = min(max(0, index), entries.count) }

    /// The index of the reference keyframe presenting at `pts`, while contiguous.
    public func indexOfKeyframe(presenting pts: Int64) -> Int? {
        guard contiguous else { return nil }
        return entries.firstIndex { isReferenceKey($0) && $0.presents == pts }
    }

    /// The next packet for the host, without advancing the cursor; nil when all are read.
    public func peekNext() -> Entry? { cursor < entries.count ? entries[cursor] : nil }

    /// The next packet for the host, advancing the cursor; nil when all are read.
    public mutating func takeNext() -> Entry? {
        guard cursor < entries.count else { return nil }
        cursor += 1
        return entries[cursor - 1]
    }

    /// Whether the window is over its caps (`maxPackets`, `maxBytes`).
    public func isOver(maxBytes: Int) -> Bool { entries.count > Self.maxPackets || bytes > maxBytes }

    /// Keeps the window under its caps: drops whole GOPs the host has read past,
    /// else gives up the window (host reads then go straight through).
    public mutating func trim(maxBytes: Int) -> [Packet] {
        guard isOver(maxBytes: maxBytes) else { return [] }
        var cut: Int?
        for i in stride(from: min(cursor, entries.count) - 1, to: 0, by: -1) where isReferenceKey(entries[i]) {
            cut = i
            break
        }
        let n = cut ?? min(cursor, entries.count)
        let out = removeFront(n)
        cursor -= n
        if cut == nil { replayable = false }
        return out
    }

    /// Drops the packets before the last reference keyframe (the frames they
    /// proved are in the grid already). `cursorLost`: the host's cursor pointed
    /// into them (its read position must be restored unless a landing sets it).
    public mutating func dropLeadingGOPs() -> (released: [Packet], cursorLost: Bool) {
        guard let cut = entries.lastIndex(where: isReferenceKey), cut > 0 else { return ([], false) }
        let out = removeFront(cut)
        var lost = false
        if cursor < cut { lost = true; cursor = 0 } else { cursor -= cut }
        maxReferenceDTS = nil
        for e in entries where e.header.stream == referenceStream {
            if let d = e.header.dts { maxReferenceDTS = max(maxReferenceDTS ?? d, d) }
        }
        return (out, lost)
    }

    private mutating func removeFront(_ n: Int) -> [Packet] {
        guard n > 0 else { return [] }
        let out = entries[0..<n].map(\.packet)
        for e in entries[0..<n] { bytes &-= max(0, e.header.size) }
        entries.removeFirst(n)
        return out
    }

    /// What the window proves about the frame grid (`FrameGrid.record`): nil
    /// unless it is contiguous and starts at a reference packet with a time.
    public func proof() -> (start: Int64, end: Int64, frames: [(pts: Int64, key: Bool, dts: Int64?)],
                            entryPoints: [FrameGrid.Keyframe], keyPositions: [Int64: Int64])? {
        guard contiguous, let first = entries.first, first.header.stream == referenceStream,
              let start = first.presents else { return nil }
        let end: Int64
        if atEOF { end = Int64.max } else if let d = maxReferenceDTS { end = d } else { return nil }
        var frames: [(pts: Int64, key: Bool, dts: Int64?)] = []
        var entryPoints: [FrameGrid.Keyframe] = []
        var positions: [Int64: Int64] = [:]
        frames.reserveCapacity(entries.count)
        for e in entries where e.header.stream == referenceStream {
            guard let t = e.presents ?? e.header.dts else { continue }
            if !e.notLandable {
                frames.append((t, e.header.isKey, e.header.dts))
                if e.header.isKey, let b = e.header.pos { positions[t] = b }
            } else if e.header.isKey {
                entryPoints.append(FrameGrid.Keyframe(pts: t, dts: e.header.dts, pos: e.header.pos, landable: false))
            }
        }
        return (start, max(start, end), frames, entryPoints, positions)
    }
}
