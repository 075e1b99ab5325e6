import CFastPixSeekABI
import FastPixSeekCore
import FastPixSeekEngine

// Seek previews (seek.h, "Seek previews"): conversions only; the source and the rule are
// the core's (Player+Preview.swift, PreviewSheet).

// New in 0.4.0: no older layout.
extension fpx_preview: OutputStruct {
    static var legacySize: Int { MemoryLayout<Self>.size }
}

func cPreview(_ p: Preview) -> fpx_preview {
    var c = fpx_preview()
    c.struct_size = MemoryLayout<fpx_preview>.size
    c.kind = fpx_preview_kind(rawValue: UInt32(p.kind.rawValue))
    c.clamp = fpx_clamp_kind(rawValue: UInt32(p.clamp.kind))
    c.requested_time = p.requested.c
    c.time = p.time.c
    c.start = p.start.c
    c.end = p.end.c
    c.image_url = p.imageURL
    c.x = p.x; c.y = p.y; c.width = p.width; c.height = p.height
    c.stream_index = -1
    c.pts = FPX_NOPTS
    c.dts = FPX_NOPTS
    if let k = p.packet {
        c.stream_index = k.streamIndex
        c.flags = k.flags
        c.data = k.data?.assumingMemoryBound(to: UInt8.self)
        c.size = k.size
        c.pts = k.pts ?? FPX_NOPTS
        c.dts = k.dts ?? FPX_NOPTS
        c.av_packet = k.avPacket
    }
    return c
}

@_cdecl("fpx_player_set_preview_source")
public func fpxPlayerSetPreviewSource(_ h: OpaquePointer?, _ kind: fpx_preview_kind, _ url: UnsafePointer<CChar>?,
                                      _ badField: UnsafeMutablePointer<fpx_preview_field>?) -> Int32 {
    badField?.pointee = FPX_PREVIEW_FIELD_NONE
    return withPlayer(.fpx_player_set_preview_source, h) { p in
        guard let k = PreviewKind(rawValue: Int32(bitPattern: kind.rawValue)) else {
            try? p.setPreviewSource(kind: .none, url: nil, io: FFmpegPreviewIO())
            throw ErrorCode.unknownEnum
        }
        do {
            try p.setPreviewSource(kind: k, url: url.map { String(cString: $0) }, io: FFmpegPreviewIO())
        } catch let e as PreviewSourceError {
            badField?.pointee = fpx_preview_field(rawValue: UInt32(e.field.rawValue))
            throw e.code
        }
    }
}

@_cdecl("fpx_player_preview")
public func fpxPlayerPreview(_ h: OpaquePointer?, _ t: fpx_time, _ out: UnsafeMutablePointer<fpx_preview>?) -> Int32 {
    withPlayer(.fpx_player_preview, h) { p in
        let slot = try OutputSlot(out)
        slot.store(cPreview(try p.preview(at: MediaTime(t))))
    }
}
