import Glibc
import CFFmpeg
import FastPixSeekCore

/// The engine factory for the player: HLS playlists and DASH MPDs go to `HLSItemEngine`
/// (`openHLS`; an MPD through `PlaylistLoad`), every other file or http(s) URL to
/// `FFmpegEngine`. A URL without the .m3u8 extension that libavformat recognises as HLS is
/// reopened with `openHLS`; one without the .mpd extension whose body is an MPD (libavformat's probe
/// names dash, which `DemuxerGate` keeps out: EINVAL) is opened as DASH.
public func makeFFmpegEngine(url: String, policy: IOPolicy) throws -> MediaEngine & PacketSource {
    // No open starts without the allocation reserve (seek.h section 6).
    guard MemoryReserve.ensure() else { throw EngineError(.noMemory) }
    if HLSFeed.looksLikePlaylist(url) { return try checkedReference(openHLS(url: url, policy: policy), policy) }
    let e: FFmpegEngine
    do {
        e = try FFmpegEngine(url: url, policy: policy, referenceStream: policy.referenceStream)
    } catch let x as EngineError where x.avError == -Int32(EINVAL) {
        guard isMPD(url, policy: policy) else { throw x }
        return try checkedReference(openHLS(url: url, policy: policy), policy)
    }
    if let name = e.itemInfo.formatName, String(cString: name) == "hls" {
        e.close()
        return try checkedReference(openHLS(url: url, policy: policy), policy)
    }
    return e
}

/// Whether the resource at `url` is an XML document with an MPD element (within the playlist
/// size cap): asked only when libavformat refused a format outside `DemuxerGate.whitelist`.
func isMPD(_ url: String, policy: IOPolicy) -> Bool {
    guard let body = try? HLSFetch.fetch(url, guard: IOGuard(policy: policy), fromRemote: false,
                                         limit: HLSFetch.playlistLimit(policy)) else { return false }
    return body.withUnsafeBufferPointer { b in
        guard DASHManifest.looksLikeMPD(b) else { return false }
        let m = Array("<MPD".utf8)
        guard b.count >= m.count else { return false }
        for i in 0...(b.count - m.count) where b[i] == m[0] && Array(b[i..<(i + m.count)]) == m { return true }
        return false
    }
}

/// An HLS item keeps the automatic reference stream: a chosen one that differs fails the
/// open with `.unsupported` (seek.h, fpx_player_config.reference_stream).
func checkedReference(_ e: MediaEngine & PacketSource, _ policy: IOPolicy) throws -> MediaEngine & PacketSource {
    guard let want = policy.referenceStream, want != e.referenceStream else { return e }
    Log.emit(ABIConstants.FPX_LOG_ERROR, "reference_stream: stream index \(want) was chosen, but an HLS item "
             + "resolves seeks on its automatic reference stream (index \(e.referenceStream))")
    e.close()
    throw EngineError(.unsupported)
}

/// An HLS or DASH item, always an `HLSItemEngine`: the variant's feed (the media playlist's,
/// or the one a master's choice names), with its separate audio rendition merged in as a
/// second feed (`HLSRenditionMerge`) when the master names one (HLSRenditions.select);
/// through a master, it can switch variants.
public func openHLS(url: String, policy: IOPolicy) throws -> MediaEngine & PacketSource {
    let v = try HLSFeed(url: url, policy: policy)
    var rendition: HLSRenditionMerge?
    if let a = v.audioRenditionURI {
        do {
            rendition = try HLSRenditionMerge(video: v, audioURI: a, policy: policy, renditions: v.renditions,
                                              audioIndex: v.audioRenditionIndex ?? -1)
        } catch { v.close(); throw error }
    }
    return HLSItemEngine(owner: v, rendition: rendition, policy: policy)
}
