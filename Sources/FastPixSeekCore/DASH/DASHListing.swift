/// An MPD as the HLS item model sees it (seek.h, "DASH"): a master playlist whose variants
/// are the video representations (BANDWIDTH, RESOLUTION, CODECS, FRAME-RATE from the MPD),
/// chosen at open and switched like HLS variants (`HLSVariantChoice`); each audio
/// adaptation set one AUDIO rendition of group "audio" (its highest-bandwidth
/// representation), chosen like an HLS rendition (`HLSRenditions.select`: the first set is
/// the default). An MPD without video lists its audio representations as variants.
///
/// A representation is named by its MPD's URL with the fragment `#fpx-dash=<set>.<rep>`
/// (element indexes in document order): the engine never fetches that URL, it reads the
/// representation's segments from the MPD (`DASHSegments`).
extension DASHManifest {
    public static let keyMarker = "#fpx-dash="

    /// The MPD URL and the representation key of a representation URL, nil for any other URL.
    public static func splitKey(_ url: String) -> (mpd: String, set: Int, representation: Int)? {
        let u = Array(url.utf8), k = Array(keyMarker.utf8)
        guard u.count > k.count else { return nil }
        var at: Int? = nil
        for i in stride(from: u.count - k.count, through: 0, by: -1) where Array(u[i..<(i + k.count)]) == k { at = i; break }
        guard let i = at else { return nil }
        let parts = u[(i + k.count)...].split(separator: 0x2E, omittingEmptySubsequences: false)
        guard parts.count == 2, let a = HLSNumber.decimalInteger(parts[0]), let b = HLSNumber.decimalInteger(parts[1]),
              a <= Int64(Int32.max), b <= Int64(Int32.max) else { return nil }
        return (String(decoding: u[..<i], as: UTF8.self), Int(a), Int(b))
    }

    func key(_ a: AdaptationSet, _ r: Representation) -> String {
        var base = url ?? ""
        if let h = base.firstIndex(of: "#") { base = String(base[..<h]) }
        return base + DASHManifest.keyMarker + "\(a.index).\(r.index)"
    }

    /// The representation a key names.
    public func representation(set: Int, representation: Int) -> Representation? {
        adaptationSets.first { $0.index == set }?.representations.first { $0.index == representation }
    }

    /// The master playlist the item model plays.
    public var master: HLSMasterPlaylist {
        let video = adaptationSets.filter { $0.contentType == .video }
        let audio = adaptationSets.filter { $0.contentType == .audio }
        let variantSets = video.isEmpty ? Array(audio.prefix(1)) : video
        let group: String? = video.isEmpty || audio.isEmpty ? nil : "audio"
        var variants: [HLSVariant] = []
        for a in variantSets {
            for r in a.representations {
                var res: HLSResolution? = nil
                if let w = r.width, let h = r.height { res = HLSResolution(width: w, height: h) }
                variants.append(HLSVariant(bandwidth: r.bandwidth, averageBandwidth: nil, resolution: res, codecs: r.codecs,
                                           frameRate: r.frameRate, audioGroup: group, videoGroup: nil, subtitlesGroup: nil,
                                           closedCaptions: nil, uri: key(a, r), rawURI: key(a, r),
                                           attributes: HLSAttributeList()))
            }
        }
        var renditions: [HLSRendition] = []
        if group != nil {
            for (k, a) in audio.enumerated() {
                var best = a.representations[0]
                for r in a.representations.dropFirst() where r.bandwidth > best.bandwidth { best = r }
                let name = a.label ?? a.lang ?? a.id ?? "audio \(k + 1)"
                renditions.append(HLSRendition(type: "AUDIO", groupID: "audio", name: name, language: a.lang,
                                               uri: key(a, best), rawURI: key(a, best), isDefault: k == 0, autoselect: true,
                                               attributes: HLSAttributeList()))
            }
        }
        return HLSMasterPlaylist(url: url, version: nil, variants: variants, renditions: renditions,
                                 independentSegments: true, start: nil)
    }
}
