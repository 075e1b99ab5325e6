import CFastPixSeekABI
import FastPixSeekCore

// The output-struct rule (seek.h, section 7, "Structs the library fills").
//
// Every export that fills a struct in the caller's memory (item status and
// info, stream info, packets, stats, frame-step results, the live window, and
// any struct added later) goes through `OutputSlot`:
//
//   1. Before any work, `OutputSlot(pointer)` reads the caller's first field
//      (struct_size, a size_t). 0 means a host that predates the rule: it is
//      read as the struct's *legacy size* (the layout every host built
//      against 0.2.0 or earlier has; see `OutputStruct.legacySize`). A size
//      smaller than that first field (1 ... sizeof(size_t) - 1) is
//      FPX_ERROR_INVALID_ARGUMENT and nothing is written. A size larger than
//      the library's struct is a newer host: the library fills what it knows.
//   2. `store(value)` writes exactly min(caller size, library size) bytes, a
//      byte prefix of the struct, never one byte past it, with struct_size
//      set to that number, so the host can tell which fields were filled.
//
// Callback payloads (outcomes, scrub and date results, events) are
// library-owned memory handed to the host and are exempt: they are always
// complete and their struct_size is the library's sizeof.

/// A C struct the library fills in the caller's memory. Its first member is a
/// size_t byte count (struct_size, or size).
protocol OutputStruct {
    /// The size a caller that passes 0 gets: the struct as the oldest hosts
    /// under this SONAME have it. Frozen: never grows when fields are appended.
    static var legacySize: Int { get }
}

extension OutputStruct {
    /// The end of `field` rounded up to the struct's alignment, i.e. the
    /// sizeof a struct that ended with `field`.
    static func sizeEnding<F>(at field: PartialKeyPath<Self>, _: F.Type) -> Int {
        let a = MemoryLayout<Self>.alignment
        guard let off = MemoryLayout<Self>.offset(of: field) else { return MemoryLayout<Self>.size }
        let end = off + MemoryLayout<F>.size
        return min((end + a - 1) / a * a, MemoryLayout<Self>.size)
    }
}

/// The caller's output struct, checked: see the rule above.
struct OutputSlot<T: OutputStruct> {
    let pointer: UnsafeMutablePointer<T>
    /// Bytes the library will write: min(caller size, sizeof(T)).
    let size: Int

    /// Checks the caller's size. Throws invalidArgument for NULL or a size
    /// smaller than the size field itself. Writes nothing.
    init(_ p: UnsafeMutablePointer<T>?) throws {
        guard let p = p else { throw ErrorCode.invalidArgument }
        let declared = UnsafeRawPointer(p).load(as: Int.self)
        let n = declared == 0 ? T.legacySize : declared
        guard n >= MemoryLayout<Int>.size else { throw ErrorCode.invalidArgument }
        pointer = p
        size = min(n, MemoryLayout<T>.size)
    }

    /// An optional output: nil stays nil, a bad size throws.
    static func optional(_ p: UnsafeMutablePointer<T>?) throws -> OutputSlot<T>? {
        guard p != nil else { return nil }
        return try OutputSlot(p)
    }

    /// Writes the first `size` bytes of `value`, with the size field set to `size`.
    func store(_ value: T) {
        var v = value
        withUnsafeMutableBytes(of: &v) { src in
            guard let base = src.baseAddress else { return }
            src.storeBytes(of: size, toByteOffset: 0, as: Int.self)
            UnsafeMutableRawPointer(pointer).copyMemory(from: base, byteCount: size)
        }
    }
}

// The legacy sizes: the 0.2.0 layouts, frozen (fields appended later are not
// part of them). Every struct below was the same in 0.1 and 0.2.0 except
// fpx_frame_step_result, which 0.2.0 grew from 48 bytes (ending at
// `explanation`) to 64: a zero-size caller gets the 48-byte layout, which is
// safe for hosts built against either header.
extension fpx_item_status_info: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.av_error, Int32.self) }
}
extension fpx_item_info: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.format_name, UnsafePointer<CChar>?.self) }
}
extension fpx_stream_info: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.codecpar, UnsafeRawPointer?.self) }
}
extension fpx_packet: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.av_packet, UnsafeRawPointer?.self) }
}
extension fpx_player_stats: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.events_delivered, UInt64.self) }
}
extension fpx_frame_step_result: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.explanation, UnsafePointer<CChar>?.self) }
}
// New in 0.4.0: no older layout.
extension fpx_hls_variant: OutputStruct {
    static var legacySize: Int { MemoryLayout<Self>.size }
}
extension fpx_hls_rendition: OutputStruct {
    static var legacySize: Int { MemoryLayout<Self>.size }
}
extension fpx_live_seek_window: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.hold_back, fpx_time.self) }
}

// fpx_player_seek_wait (0.3) is the first export to fill an outcome in the
// caller's memory; a zero size gets the outcome as it was then.
extension fpx_seek_outcome: OutputStruct {
    static var legacySize: Int { sizeEnding(at: \Self.packets_read, UInt64.self) }
}
