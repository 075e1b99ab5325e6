#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// A seekable in-memory AVIOContext over downloaded bytes (HLS segments):
/// segments are small, and demuxing them from memory makes in-segment seeks
/// free and independent of the server's support for Range requests. The bytes are a
/// `FallibleBuffer` (malloc'd, allocated where they were downloaded: issue 18.3).
final class MemoryIO {
    let bytes: FallibleBuffer<UInt8>
    var position = 0
    private(set) var context: UnsafeMutablePointer<AVIOContext>?

    init?(_ bytes: FallibleBuffer<UInt8>) {
        self.bytes = bytes
        let size: Int32 = 32768
        guard let buffer = ffmpeg_av_malloc(Int(size)) else { return nil }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        context = ffmpeg_avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), size, opaque,
                                            memoryRead, memorySeek)
        if context == nil { ffmpeg_av_free(buffer); return nil }
    }

    deinit {
        if let c = context {
            ffmpeg_av_free(c.pointee.buffer)
            var cc: UnsafeMutablePointer<AVIOContext>? = c
            ffmpeg_avio_context_free(&cc)
        }
    }
}

private let memoryRead: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buf, size in
    guard let opaque = opaque, let buf = buf, size > 0 else { return fpx_averror_eof() }
    let io = Unmanaged<MemoryIO>.fromOpaque(opaque).takeUnretainedValue()
    let n = min(Int(size), io.bytes.count - min(io.position, io.bytes.count))
    guard n > 0 else { return fpx_averror_eof() }
    io.bytes.withUnsafeBufferPointer { src in
        guard let base = src.baseAddress else { return }
        buf.update(from: base + io.position, count: n)
    }
    io.position += n
    return Int32(n)
}

private let memorySeek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
    guard let opaque = opaque else { return -1 }
    let io = Unmanaged<MemoryIO>.fromOpaque(opaque).takeUnretainedValue()
    let size = Int64(io.bytes.count)
    let target: Int64
    switch whence & ~Int32(AVSEEK_FORCE) {
    case Int32(AVSEEK_SIZE): return size
    case SEEK_SET: target = offset
    case SEEK_CUR: target = Int64(io.position) &+ offset
    case SEEK_END: target = size &+ offset
    default: return -1
    }
    // Past the end is allowed, as lseek allows it: reads there are EOF. A byte range that
    // holds only part of what its container describes ends there, cleanly: an fMP4 I-frame
    // playlist's entry is a moof and its first sample (Shaka Packager), whose trun names
    // samples past the range; refusing the seek made the mov demuxer fail with that code
    // ("partial file": -1, EPERM), which reached the host as FPX_ERROR_IO (issue 28.5).
    guard target >= 0 else { return -1 }
    io.position = Int(clamping: target)
    return target
}
