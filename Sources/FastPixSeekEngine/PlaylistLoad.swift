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
        return try refused { try DASHSegments.playlist(parts, url: m.url, indexes: indexes, live: m.live, limits: limits) }
    }

    /// A `DASHError` as the library's error, logged (the feature or defect, never a URL).
    static func refused<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as DASHError {
            Log.emit(Log.error, "fastpixseek: DASH manifest refused: \(e.description)")
            throw EngineError(e.errorCode)
        }
    }
}
