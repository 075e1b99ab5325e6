// Queries on a media playlist and live-reload tracking (RFC 8216 6.2.2, 6.3.3-6.3.5).

extension HLSMediaPlaylist {
    /// Parses a playlist that must be a media playlist. Throws `HLSError`.
    public static func parse(_ text: String, url: String? = nil) throws -> HLSMediaPlaylist {
        try parse(Array(text.utf8), url: url)
    }

    public static func parse(_ bytes: [UInt8], url: String? = nil) throws -> HLSMediaPlaylist {
        guard let m = try HLSPlaylist.parse(bytes, url: url).media else {
            throw HLSError.malformed(line: 0, reason: "expected a media playlist, got a master playlist")
        }
        return m
    }

    /// How far behind the end of the playlist live playback should start:
    /// HOLD-BACK when the server gives it, else 3 x TARGETDURATION (RFC 8216 6.3.3).
    public var liveEdgeOffset: Rational {
        holdBack ?? Rational(Int128(targetDuration) * 3, 1)
    }

    /// Where playback should start on this playlist's timeline: EXT-X-START when
    /// present (negative offsets from the end; clamped to the playlist, RFC 8216
    /// 4.3.5.2), else for a live playlist `duration - liveEdgeOffset` (not below
    /// 0), else 0.
    public var preferredStartOffset: Rational {
        let zero = Rational(0)
        let total = duration
        if let start {
            let t = start.timeOffset
            if HLSNumber.compare(t, zero) >= 0 {
                return HLSNumber.compare(t, total) > 0 ? total : t
            }
            return HLSNumber.max(zero, total + t)
        }
        if isLive { return HLSNumber.max(zero, total - liveEdgeOffset) }
        return zero
    }

    /// Seconds to wait before the next reload (RFC 8216 6.3.4): the target
    /// duration, or half of it when the last reload found the playlist
    /// unchanged. Nil when the playlist will not change (ENDLIST or VOD). A DASH MPD with a
    /// positive minimumUpdatePeriod shorter than that reloads every that period (its window
    /// also moves with the clock, so a longer one does not slow the reloads).
    public func reloadInterval(previousUnchanged: Bool) -> Rational? {
        guard isLive else { return nil }
        let interval = Rational(Int128(targetDuration), previousUnchanged ? 2 : 1)
        if let updatePeriod, updatePeriod < interval { return updatePeriod }
        return interval
    }

    /// The index of the segment with `startOffset <= offset < endOffset`, or nil
    /// outside the playlist. Binary search; exact.
    public func segmentIndex(at offset: Rational) -> Int? {
        guard let i = segments.lastIndex(startingAtOrBefore: offset) else { return nil }
        return HLSNumber.less(offset, segments.endOffset(at: i)) ? i : nil
    }

    public func segment(at offset: Rational) -> HLSSegment? {
        segmentIndex(at: offset).map { segments[$0] }
    }

    /// The index of the first segment whose date span
    /// `[startDate, startDate + duration)` (Unix ms, exact) contains `unixMilliseconds`.
    public func segmentIndex(containingDate unixMilliseconds: Int64) -> Int? {
        let d = Rational(unixMilliseconds)
        for k in segments.indices {
            guard let start = segments.startDateExact(at: k) else { continue }
            if HLSNumber.lessOrEqual(start, d), HLSNumber.less(d, start + segments.duration(at: k) * Rational(1000)) { return k }
        }
        return nil
    }

    public func segment(containingDate unixMilliseconds: Int64) -> HLSSegment? {
        segmentIndex(containingDate: unixMilliseconds).map { segments[$0] }
    }

    /// The segment with this Media Sequence Number, if it is in the playlist.
    public func segment(sequence: Int64) -> HLSSegment? {
        segmentIndex(sequence: sequence).map { segments[$0] }
    }

    /// The index of the segment with this Media Sequence Number, if it is in the playlist.
    public func segmentIndex(sequence: Int64) -> Int? {
        guard let k = Int(exactly: Int128(sequence) - Int128(mediaSequence)), k >= 0, k < segments.count else { return nil }
        return k
    }

    /// The segment has left the window: its MSN is below the first one.
    public func hasExpired(_ sequence: Int64) -> Bool { sequence < mediaSequence }

    /// Same segments (MSN, URI, duration, dates, ranges, flags) and the same
    /// playlist-level state: what RFC 8216 6.3.4 calls "has not changed".
    public func isSameContent(as other: HLSMediaPlaylist) -> Bool {
        mediaSequence == other.mediaSequence && discontinuitySequence == other.discontinuitySequence
            && targetDuration == other.targetDuration && endList == other.endList
            && playlistType == other.playlistType && segments == other.segments
    }

    /// Compares this reload with the previous snapshot of the same playlist.
    public func track(previous p: HLSMediaPlaylist) -> HLSPlaylistDelta {
        let c = self
        func span(_ lo: Int64, _ hi: Int64) -> Range<Int64> { lo <= hi ? lo..<hi : lo..<lo }
        var restarted = c.mediaSequence < p.mediaSequence || c.discontinuitySequence < p.discontinuitySequence
        if !restarted {
            // Segments present in both must be the same resources (RFC 8216 6.2.2).
            let lo = Swift.max(p.mediaSequence, c.mediaSequence), hi = Swift.min(p.nextSequence, c.nextSequence)
            var msn = lo
            while msn < hi {
                guard let i = p.segmentIndex(sequence: msn), let j = c.segmentIndex(sequence: msn),
                      (p.url == c.url && p.segments.sameRawURI(i, c.segments, j)) || p.segments.uri(at: i) == c.segments.uri(at: j) else {
                    restarted = true
                    break
                }
                msn += 1
            }
        }
        let ended = c.endList && !p.endList
        if restarted {
            return HLSPlaylistDelta(expired: span(p.mediaSequence, p.nextSequence),
                                    added: span(c.mediaSequence, c.nextSequence),
                                    unchanged: false, restarted: true, contiguous: false, ended: ended)
        }
        return HLSPlaylistDelta(
            expired: span(p.mediaSequence, Swift.min(c.mediaSequence, p.nextSequence)),
            added: span(Swift.max(p.nextSequence, c.mediaSequence), c.nextSequence),
            unchanged: c.isSameContent(as: p),
            restarted: false,
            contiguous: c.mediaSequence <= p.nextSequence,
            ended: ended)
    }
}

/// What changed between two snapshots of a live media playlist.
public struct HLSPlaylistDelta: Hashable, Sendable {
    /// MSNs of the previous snapshot that left the window.
    public var expired: Range<Int64>
    /// MSNs that are new in this snapshot.
    public var added: Range<Int64>
    /// Nothing changed (RFC 8216 6.3.4: reload again after half a target duration).
    public var unchanged: Bool
    /// The sequence went backwards or a kept MSN names another resource: the
    /// stream restarted; everything previous expired and everything is new.
    public var restarted: Bool
    /// The new window overlaps or directly follows the previous one (no
    /// segments were missed between the reloads).
    public var contiguous: Bool
    /// EXT-X-ENDLIST appeared in this snapshot.
    public var ended: Bool

    public func isExpired(_ sequence: Int64) -> Bool { expired.contains(sequence) }
}

/// Follows a live playlist across reloads and keeps a stable timeline: the
/// offset of a segment on it does not change when the window slides.
/// Timeline 0 is the first segment of the first snapshot.
public struct HLSLiveTracker {
    public private(set) var playlist: HLSMediaPlaylist?
    public private(set) var lastDelta: HLSPlaylistDelta?
    /// Where the current playlist's first segment sits on the stable timeline.
    public private(set) var baseOffset = Rational(0)
    /// When segments were missed between reloads or the stream restarted, the
    /// stable timeline is only estimated from then on (missed segments count
    /// as one target duration each).
    public private(set) var timelineEstimated = false

    public init() {}

    /// Takes a new snapshot; returns what changed since the previous one.
    @discardableResult
    public mutating func update(_ new: HLSMediaPlaylist) -> HLSPlaylistDelta {
        guard let prev = playlist else {
            let d = HLSPlaylistDelta(expired: new.mediaSequence..<new.mediaSequence,
                                     added: new.mediaSequence..<Swift.max(new.mediaSequence, new.nextSequence),
                                     unchanged: false, restarted: false, contiguous: true, ended: new.endList)
            playlist = new
            lastDelta = d
            return d
        }
        let d = new.track(previous: prev)
        let prevEnd = HLSNumber.add(baseOffset, prev.duration)
        var newBase: Rational? = baseOffset   // an empty snapshot inside the old window keeps the base
        if d.restarted {
            newBase = prevEnd
            timelineEstimated = true
        } else if let a = prev.segment(sequence: Swift.max(prev.mediaSequence, new.mediaSequence)),
                  let b = new.segment(sequence: a.sequence) {
            // The first MSN in both windows anchors the new window.
            newBase = HLSNumber.add(baseOffset, a.startOffset).flatMap { HLSNumber.subtract($0, b.startOffset) }
        } else if new.mediaSequence >= prev.nextSequence {
            let missed = Int128(new.mediaSequence) - Int128(prev.nextSequence)
            if missed > 0 { timelineEstimated = true }
            let (estimate, overflow) = missed.multipliedReportingOverflow(by: Int128(prev.targetDuration))
            newBase = overflow ? nil : prevEnd.flatMap { HLSNumber.add($0, Rational(estimate, 1)) }
        }
        if let newBase {
            baseOffset = newBase
        } else {
            // Beyond Int128 (only with absurd sequence jumps): restart the timeline.
            baseOffset = Rational(0)
            timelineEstimated = true
        }
        playlist = new
        lastDelta = d
        return d
    }

    /// Seconds until the next reload (nil when the playlist ended).
    public var reloadInterval: Rational? {
        playlist?.reloadInterval(previousUnchanged: lastDelta?.unchanged ?? false)
    }

    /// The segment's start on the stable timeline, if it is in the current window.
    public func stableOffset(ofSequence sequence: Int64) -> Rational? {
        guard let s = playlist?.segment(sequence: sequence) else { return nil }
        return HLSNumber.add(baseOffset, s.startOffset)
    }

    /// The current window's segment at a stable-timeline offset.
    public func segment(atStableOffset offset: Rational) -> HLSSegment? {
        guard let p = playlist, let local = HLSNumber.subtract(offset, baseOffset) else { return nil }
        return p.segment(at: local)
    }
}

extension HLSMasterPlaylist {
    /// Parses a playlist that must be a master playlist. Throws `HLSError`.
    public static func parse(_ text: String, url: String? = nil) throws -> HLSMasterPlaylist {
        try parse(Array(text.utf8), url: url)
    }

    public static func parse(_ bytes: [UInt8], url: String? = nil) throws -> HLSMasterPlaylist {
        guard let m = try HLSPlaylist.parse(bytes, url: url).master else {
            throw HLSError.malformed(line: 0, reason: "expected a master playlist, got a media playlist")
        }
        return m
    }
}
