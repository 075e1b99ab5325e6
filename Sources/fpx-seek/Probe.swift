#if canImport(Glibc)
import Glibc
#endif
import FastPixSeekCore

let probeUsage = """
usage: fpx-seek probe FILE|URL [--json] [--timeout MS] [--reference-stream N] [--variant N] [--audio N]

Prints the container, duration, seekable range (first to last frame), the
reference stream (the one seeks resolve on), frame and keyframe counts (a full
demux of the reference stream) and every stream. When the seekable range ends well
before the container's duration (a truncated or damaged file) it prints a one-line
warning on standard error, and --json says "truncated": true. An HLS master
playlist's variants and renditions are listed ("variants", "renditions"); the audio
rendition played with its own playlist is a stream of the item ("demuxed", its
"stream_index"), the others are listed only. A DASH MPD lists its video representations
as variants and its audio adaptation sets as renditions. --reference-stream N makes video stream N
(as ffprobe numbers streams) the reference stream. --variant N plays variant N, --audio N
audio rendition N (-1: none). HLS holes (EXT-X-GAP segments, segments that failed twice)
met by the full demux are listed ("holes": the media sequence number of the latest segment
of each run of holes, why, how many segments, and where reading went on).
"""

func runProbe(_ args: [String]) {
    let o = parseOptions(args, valued: ["--timeout", "--variant", "--audio", "--reference-stream"], switches: [], usage: probeUsage)
    guard o.positional.count == 1 else { fail("probe needs exactly one FILE|URL (see --help)", code: Exit.usage) }
    let url = o.positional[0]
    let (player, engine) = openPlayer(url, timeoutMS: o.timeoutMS, options: o)
    defer { player.destroy() }
    let info = engine.itemInfo
    let range = (try? player.seekableRange()) ?? nil
    var keyframes = 0, frames = 0
    let window: LiveWindow? = (try? player.liveSeekWindow()) ?? nil
    if let w = window, w.isLive {
        // A live stream never ends: report the window instead of a full demux.
        if o.json {
            print("{\"url\":\(jsonString(url)),\"live\":true,\"window\":{\"start\":\(jsonTime(w.start)),\"end\":\(jsonTime(w.end)),"
                  + "\"first_sequence\":\(w.firstSequence),\"last_sequence\":\(w.lastSequence),\"date_addressable\":\(w.isDateAddressable),"
                  + "\"start_date_us\":\(w.startDateMicroseconds ?? 0),\"end_date_us\":\(w.endDateMicroseconds ?? 0)}}")
        } else {
            print("\(url)")
            print("  live HLS         segments \(w.firstSequence)...\(w.lastSequence), target duration \(w.targetDuration) s")
            print("  seekable window  \(fmt(w.start.seconds)) .. \(fmt(w.end.seconds)) s (live edge = newest segment end - \(fmt(w.holdBack.seconds, 3)) s)")
            print("  date addressable \(w.isDateAddressable ? "yes" : "no (no EXT-X-PROGRAM-DATE-TIME)")")
        }
        return
    }
    // HLS holes (seek.h, "Gaps") are met while reading: each time the item's hole count grows,
    // note the latest hole and where reading went on (the first packet after it).
    var holes: [(sequence: Int64, reason: HoleReason, segments: UInt64, resumedAt: MediaTime?)] = []
    var holeCount: UInt64 = 0
    while let p = try? player.readPacket() {
        let h = engine.holeReport
        if h.count > holeCount {
            holes.append((h.lastSequence, h.lastReason, h.count - holeCount, nil))
            holeCount = h.count
        }
        if let last = holes.last, last.resumedAt == nil, p.streamIndex == info.referenceStream, let pts = p.pts {
            var tl = info.timeline
            if let o = p.itemOriginPTS { tl.originTicks = o }
            holes[holes.count - 1].resumedAt = tl.itemTime(ofTicks: pts)
        }
        guard p.streamIndex == info.referenceStream, p.flags & PacketView.flagDiscard == 0 else { continue }
        frames += 1
        if p.flags & PacketView.flagKey != 0 { keyframes += 1 }
    }
    let truncation = truncationWarning(duration: info.duration, range: range, endsAtCut: engine.seekableRangeEndsAtCut)
    if let w = truncation { fputs("fpx-seek: \(url): \(w)\n", stderr) }
    var streams: [StreamInfo] = []
    for s in 0..<info.streamCount { if let si = engine.streamInfo(s) { streams.append(si) } }
    let format = info.formatName.map { String(cString: $0) } ?? "unknown"
    if o.json {
        var out = "{\"url\":\(jsonString(url)),\"format\":\(jsonString(format)),\"duration\":\(jsonTime(info.duration)),"
        out += "\"reference_stream\":\(info.referenceStream),\"seekable\":\(info.seekable),"
        out += "\"time_base\":{\"num\":\(info.timeline.timeBaseNum),\"den\":\(info.timeline.timeBaseDen)},"
        out += "\"start_pts\":\(info.startPTS ?? info.timeline.originTicks),"
        out += "\"seekable_range\":" + (range.map { "{\"start\":\(jsonTime($0.start)),\"end\":\(jsonTime($0.end))}" } ?? "null") + ","
        out += "\"truncated\":\(truncation != nil),"
        out += "\"frames\":\(frames),\"keyframes\":\(keyframes),\"streams\":["
        out += streams.map { s in
            let name = s.codecName.map { String(cString: $0) } ?? "unknown"
            let type = ["unknown", "video", "audio", "subtitle", "data"][Int(s.type.rawValue)]
            return "{\"index\":\(s.index),\"type\":\(jsonString(type)),\"codec\":\(jsonString(name)),"
                + "\"time_base\":{\"num\":\(s.timeBaseNum),\"den\":\(s.timeBaseDen)},"
                + "\"width\":\(s.width),\"height\":\(s.height),\"sample_rate\":\(s.sampleRate),\"channels\":\(s.channels),"
                + detailsJSON(s.details) + "}"
        }.joined(separator: ",")
        out += "]"
        if let l = engine.hlsControls?.hlsListing { out += "," + hlsListingJSON(l) }
        if engine.hlsControls?.hlsListing != nil || !holes.isEmpty {
            // (one statement per piece: Swift 6.0.3 cannot type-check the whole as one expression)
            let items: [String] = holes.map { h in
                let resumed: String = h.resumedAt.map(jsonTime) ?? "null"
                let reason: String = jsonString(holeReasonName(h.reason))
                return "{\"last_sequence\":\(h.sequence),\"reason\":\(reason),\"segments\":\(h.segments),\"resumed_at\":\(resumed)}"
            }
            out += ",\"holes\":[" + items.joined(separator: ",") + "]"
        }
        out += "}"
        print(out)
        return
    }
    print("\(url)")
    print("  format           \(format)")
    print("  duration         \(fmt(info.duration.seconds)) s")
    if let r = range {
        print("  seekable range   \(fmt(r.start.seconds)) .. \(fmt(r.end.seconds)) s (first to last frame)"
              + (truncation != nil ? ", ends well before the duration: truncated or damaged" : ""))
    } else {
        print("  seekable range   unknown")
    }
    print("  reference stream #\(info.referenceStream), time base \(info.timeline.timeBaseNum)/\(info.timeline.timeBaseDen), item start at pts \(info.startPTS ?? info.timeline.originTicks)")
    print("  frames           \(frames), keyframes \(keyframes)" + (keyframes > 0 ? ", mean GOP \(fmt(Double(frames) / Double(keyframes), 1)) frames" : ""))
    if let l = engine.hlsControls?.hlsListing { printHLSListing(l) }
    for h in holes {
        let what = h.reason == .gap ? "EXT-X-GAP" : "failed twice"
        print("  hole             " + (h.segments > 1 ? "\(h.segments) segments up to " : "") + "segment \(h.sequence) (\(what)), "
              + (h.resumedAt.map { "reading went on at \(fmt($0.seconds)) s" } ?? "nothing read after it"))
    }
    for s in streams {
        let name = s.codecName.map { String(cString: $0) } ?? "unknown"
        let d = s.details
        func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }
        var extra = [text(d.profileName)].compactMap { $0 }
        let kind: String
        if s.type == .video {
            extra += [text(d.pixelFormat)].compactMap { $0 }
            if d.frameRateNum > 0 && d.frameRateDen > 0 { extra.append("\(fmt(Double(d.frameRateNum) / Double(d.frameRateDen), 3)) fps") }
            if d.colorSpace != 2, let cs = text(d.colorSpaceName) { extra.append(cs) }
            if d.hasDisplayMatrix { extra.append("rotation \(fmt(d.rotationDegrees, 0))") }
            kind = "video \(s.width)x\(s.height)"
        } else if s.type == .audio {
            extra += [text(d.sampleFormat), text(d.channelLayout)].compactMap { $0 }
            kind = "audio \(s.sampleRate) Hz, \(s.channels) ch"
        } else {
            kind = "other"
        }
        let more = extra.isEmpty ? "" : " (" + extra.joined(separator: ", ") + ")"
        print("  stream #\(s.index)        \(name), \(kind)\(more), time base \(s.timeBaseNum)/\(s.timeBaseDen)")
    }
}

/// The stream details (seek.h fpx_stream_info, 0.3 fields) as JSON members, names not integers.
func detailsJSON(_ d: StreamDetails) -> String {
    func str(_ p: UnsafePointer<CChar>?) -> String { p.map { jsonString(String(cString: $0)) } ?? "null" }
    func ratio(_ n: Int32, _ den: Int32) -> String { n > 0 && den > 0 ? jsonString(rationalText(MediaTime(value: Int64(n), timescale: den))) : "null" }
    var out = "\"profile\":\(str(d.profileName)),\"level\":" + (d.level == -99 ? "null" : "\(d.level)") + ","
    out += "\"pixel_format\":\(str(d.pixelFormat)),\"bit_depth\":" + (d.bitDepth > 0 ? "\(d.bitDepth)" : "null") + ","
    out += "\"sample_aspect_ratio\":\(ratio(d.sampleAspectNum, d.sampleAspectDen)),"
    out += "\"frame_rate\":\(ratio(d.frameRateNum, d.frameRateDen)),"
    out += "\"color\":{\"range\":" + (d.colorRange == 0 ? "null" : str(d.colorRangeName))
    out += ",\"primaries\":" + (d.colorPrimaries == 2 ? "null" : str(d.colorPrimariesName))
    out += ",\"transfer\":" + (d.colorTransfer == 2 ? "null" : str(d.colorTransferName))
    out += ",\"space\":" + (d.colorSpace == 2 ? "null" : str(d.colorSpaceName)) + "},"
    out += "\"rotation\":" + (d.hasDisplayMatrix ? jsonDouble(d.rotationDegrees) : "null") + ","
    out += "\"sample_format\":\(str(d.sampleFormat)),\"channel_layout\":\(str(d.channelLayout)),"
    out += "\"bit_rate\":" + (d.bitRate > 0 ? "\(d.bitRate)" : "null") + ",\"language\":\(str(d.language))"
    return out
}

private func cs(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

/// HLS: the master playlist's variants and renditions (seek.h, fpx_hls_variant).
func hlsListingJSON(_ l: HLSListing) -> String {
    func js(_ s: String?) -> String { s.map(jsonString) ?? "null" }
    let vs = l.variants.enumerated().map { i, v in
        "{\"index\":\(i),\"iframe\":\(v.isIFrame),\"selected\":\(v.selected),\"bandwidth\":\(v.bandwidth),"
            + "\"average_bandwidth\":\(v.averageBandwidth),\"width\":\(v.width),\"height\":\(v.height),"
            + "\"frame_rate\":" + (v.frameRateDen > 0 ? "{\"num\":\(v.frameRateNum),\"den\":\(v.frameRateDen)}" : "null")
            + ",\"codecs\":\(js(cs(v.codecs))),\"hdcp_level\":\(js(cs(v.hdcpLevel))),\"audio_group\":\(js(cs(v.audioGroup)))}"
    }
    let types = ["unknown", "video", "audio", "subtitle", "data"]
    let rs = l.renditions.enumerated().map { i, r in
        "{\"index\":\(i),\"type\":\(jsonString(types[Int(r.type.rawValue)])),\"group_id\":\(js(cs(r.groupID))),"
            + "\"name\":\(js(cs(r.name))),\"language\":\(js(cs(r.language))),\"channels\":\(js(cs(r.channels))),"
            + "\"default\":\(r.isDefault),\"autoselect\":\(r.autoselect),\"has_uri\":\(r.hasURI),"
            + "\"in_selected_group\":\(r.inSelectedGroup),\"demuxed\":\(r.selected),"
            + "\"stream_index\":" + (r.selected ? "\(r.streamIndex)" : "null") + "}"
    }
    return "\"variants\":[" + vs.joined(separator: ",") + "],\"renditions\":[" + rs.joined(separator: ",") + "]"
}

func printHLSListing(_ l: HLSListing) {
    for (i, v) in l.variants.enumerated() {
        let res = v.width > 0 ? " \(v.width)x\(v.height)" : ""
        print("  variant #\(i)       \(v.bandwidth) bit/s\(res)" + (cs(v.codecs).map { " \($0)" } ?? "")
              + (v.isIFrame ? " (I-frame)" : "") + (v.selected ? " (playing)" : ""))
    }
    for (i, r) in l.renditions.enumerated() {
        let t = ["unknown", "video", "audio", "subtitle", "data"][Int(r.type.rawValue)]
        print("  rendition #\(i)     \(t) group \(cs(r.groupID) ?? "?") \"\(cs(r.name) ?? "")\""
              + (cs(r.language).map { " \($0)" } ?? "") + (r.isDefault ? " default" : "")
              + (r.selected ? " (playing: stream #\(r.streamIndex))" : r.hasURI ? " (own playlist: listed, not demuxed)" : ""))
    }
}
