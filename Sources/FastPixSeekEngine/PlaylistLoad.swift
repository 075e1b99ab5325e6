#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

/// Fetches and parses what an HLS item's URLs name: an HLS playlist, or a DASH MPD (a body
/// whose first non-blank byte is '<'), which becomes the master playlist of its
/// representations (`DASHManifest.master`); a representation URL (`DASHManifest.splitKey`)
/// becomes that representation's media playlist (`DASHSegments`), its MPD fetched again
/// unless the caller has it, over every Period (each a discontinuity domain), and for a
/// SegmentBase its sidx fetched (the index range only).
/// The MPD gets the playlist caps: the same size limit, segment count and byte budget.
enum PlaylistLoad {
    static func load(_ url: String, guard g: IOGuard, fromRemote: Bool, policy: IOPolicy,
                     known: DASHManifest? = nil) throws -> (HLSPlaylist, DASHManifest?) {
        if let k = DASHManifest.splitKey(url) {
            let m = try known ?? manifest(k.mpd, guard: g, fromRemote: fromRemote, policy: policy)
            guard let parts = try refused({ try m.representationInEveryPeriod(set: k.set, representation: k.representation) })
            else { throw EngineError(.invalidData) }
            return (.media(try media(parts, of: m, guard: g, fromRemote: fromRemote || HLSFetch.isRemote(k.mpd), policy: policy)), m)
        }
        let bytes = try HLSFetch.fetch(url, guard: g, fromRemote: fromRemote, limit: HLSFetch.playlistLimit(policy))
        if bytes.withUnsafeBufferPointer({ DASHManifest.looksLikeMPD($0) }) {
            let m = try parse(bytes, url: url, policy: policy)
            return (.master(m.master), m)
        }
        return (try HLSFetch.parse(bytes, url: url, policy: policy), nil)
    }

    static func manifest(_ url: String, guard g: IOGuard, fromRemote: Bool, policy: IOPolicy) throws -> DASHManifest {
        try parse(try HLSFetch.fetch(url, guard: g, fromRemote: fromRemote, limit: HLSFetch.playlistLimit(policy)),
                  url: url, policy: policy)
    }

    /// The XML is bounded by the buffer cap too (`DASHXML.Limits(budget:)`).
    static func parse(_ bytes: FallibleBuffer<UInt8>, url: String, policy: IOPolicy) throws -> DASHManifest {
        let limits = DASHXML.Limits(budget: max(1, policy.maxBufferBytes))
        return try refused { try bytes.withUnsafeBufferPointer { try DASHManifest.parse($0, url: url, limits: limits) } }
    }

    /// A representation's media playlist over every Period; a SegmentBase part's sidx is
    /// fetched (its index range only, one closed request) and read first.
    static func media(_ parts: [DASHManifest.Representation], of m: DASHManifest, guard g: IOGuard, fromRemote: Bool,
                      policy: IOPolicy) throws -> HLSMediaPlaylist {
        let limits = HLSPlaylist.Limits(maxBytes: max(1, policy.maxBufferBytes))
        var indexes: [DASHSidx.Index?] = []
        for r in parts {
            guard let range = try refused({ try DASHSegments.indexRange(r) }) else { indexes.append(nil); continue }
            guard range.length <= Int64(HLSFetch.playlistLimit(policy)) else { throw EngineError(.tooLarge) }
            let bytes = try HLSFetch.fetch(r.baseURL, guard: g, fromRemote: fromRemote, limit: HLSFetch.playlistLimit(policy),
                                           range: range)
            indexes.append(try refused {
                try bytes.withUnsafeBufferPointer { try DASHSidx.parse($0, offset: range.offset, maxReferences: limits.maxSegments) }
            })
        }
        let now = try m.live.map { try clockMS($0, mpd: m.url, guard: g, fromRemote: fromRemote, policy: policy) }
        return try refused {
            try DASHSegments.playlist(parts, url: m.url, indexes: indexes, live: m.live, nowMS: now, limits: limits)
        }
    }

    /// The most a UTCTiming response may be: an xs:dateTime with room to spare.
    static let maxTimeBytes = 256

    /// A dynamic MPD's wall clock now, Unix ms: its first UTCTiming element of a scheme read
    /// here -- `direct` (the value), `http-xsdate` and `http-iso` (the body of the value's first
    /// URL, resolved against the MPD's, fetched under the protocol policy, at most
    /// `maxTimeBytes`, an xs:dateTime with a zone), `http-head` (the Date of a HEAD answer to
    /// that URL: `HTTPHeadClock`) -- else the host clock. Unknown schemes are skipped. A time
    /// source that fails fails the load, typed.
    static func clockMS(_ live: DASHManifest.Live, mpd: String?, guard g: IOGuard, fromRemote: Bool,
                        policy: IOPolicy) throws -> Rational {
        for t in live.utcTiming {
            switch t.scheme {
            case .direct?:
                if let ms = t.directMS { return ms }
            case .httpXSDate?, .httpISO?:
                let url = sourceURL(t, mpd: mpd)
                let body = try HLSFetch.fetch(url, guard: g, fromRemote: fromRemote || HLSFetch.isRemote(mpd ?? ""),
                                              limit: maxTimeBytes)
                let text = body.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
                guard let ms = HLSDate.unixMillisecondsExact(DASHValues.trim(text)) else {
                    Log.emit(Log.error, "fastpixseek: DASH UTCTiming refused: the time source's body is not an xs:dateTime")
                    throw EngineError(.invalidData)
                }
                return ms
            case .httpHead?:
                let url = sourceURL(t, mpd: mpd)
                return try HTTPHeadClock.unixMilliseconds(url, guard: g, fromRemote: fromRemote || HLSFetch.isRemote(mpd ?? ""))
            case nil:
                continue
            }
        }
        return hostClockMS()
    }

    /// The first URL of a UTCTiming's @value, resolved against the MPD's.
    static func sourceURL(_ t: DASHManifest.UTCTiming, mpd: String?) -> String {
        let first = String(t.value.split(separator: " ").first ?? "")
        return mpd.map { HLSURL.resolve(base: $0, reference: first) } ?? first
    }

    /// The host's wall clock, Unix ms (exact to the nanosecond).
    static func hostClockMS() -> Rational {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Rational(Int128(ts.tv_sec) * 1_000_000_000 + Int128(ts.tv_nsec), 1_000_000)
    }

    /// A `DASHError` as the library's error, logged (the feature or defect, never a URL).
    static func refused<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as DASHError {
            Log.emit(Log.error, "fastpixseek: DASH manifest refused: \(e.description)")
            throw EngineError(e.errorCode)
        }
    }
}
