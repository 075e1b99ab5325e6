/// The texts `fpx-seek sprite` writes: the SDK's spritesheet.json and a WebVTT thumbnail
/// track into the same images (seek.h, "Seek previews", reads them back).
extension PreviewSheet {
    /// spritesheet.json: {"url", "tile_width", "tile_height", "duration", "tiles": [{"start", "x", "y"}]};
    /// every tile names its own "url" too when the tiles are on more than one image.
    /// Starts are written as the shortest decimal that reads back as the start's Double.
    public func spritesheetJSON(url: String, tileWidth: Int32, tileHeight: Int32, duration: MediaTime) -> String {
        let many = Set(tiles.map { $0.image }).count > 1
        var j = "{\"url\":\(jsonString(url)),\"tile_width\":\(tileWidth),\"tile_height\":\(tileHeight),"
        j += "\"duration\":\(jsonDouble(duration.seconds)),\"tiles\":["
        j += tiles.map { t in
            "{\"start\":\(jsonDouble(t.start.seconds)),\"x\":\(t.x),\"y\":\(t.y)"
                + (many ? ",\"url\":\(jsonString(t.image))" : "") + "}"
        }.joined(separator: ",")
        return j + "]}\n"
    }

    /// A WebVTT thumbnail track: one cue per tile, from its start to the next tile's (the
    /// last to `duration`, or one millisecond past its start when `duration` is not later),
    /// payload IMAGE#xywh=x,y,w,h.
    public func webVTT(duration: MediaTime) -> String {
        var vtt = "WEBVTT\n"
        for (i, t) in tiles.enumerated() {
            let last = MediaTime.compare(duration, t.start) > 0 ? duration : MediaTime.subtract(t.start, MediaTime(value: -1, timescale: 1000))
            let end = i + 1 < tiles.count ? tiles[i + 1].start : last
            vtt += "\n\(PreviewSheet.vttTime(t.start)) --> \(PreviewSheet.vttTime(end))\n"
            vtt += "\(t.image)#xywh=\(t.x),\(t.y),\(t.width),\(t.height)\n"
        }
        return vtt
    }

    /// WebVTT's hh:mm:ss.mmm of an exact time, rounded up to the millisecond: a cue never
    /// starts before its frame.
    public static func vttTime(_ t: MediaTime) -> String {
        let v = Int128(max(0, t.value)) * 1000, d = Int128(max(1, t.timescale))
        let ms = Int64((v + d - 1) / d)
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
        func pad(_ n: Int64, _ w: Int) -> String { let s = String(n); return String(repeating: "0", count: max(0, w - s.count)) + s }
        return pad(h, 2) + ":" + pad(m, 2) + ":" + pad(s, 2) + "." + pad(f, 3)
    }
}
