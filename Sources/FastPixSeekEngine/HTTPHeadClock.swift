#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// A DASH UTCTiming `http-head` time source: one HEAD request, its answer's Date
/// (`HTTPHeadDate` reads it). FFmpeg's http protocol keeps the answer's fields to itself, so
/// the request goes over the transport under it, FFmpeg's `tcp` (http) or `tls` (https), with
/// the same protocol policy (the URL must pass `ProtocolGate.check` as http or https; the
/// transports are what FFmpeg's whitelist adds under them), interrupt callback and I/O timeout
/// as every fetch. `Connection: close`; at most `HTTPHeadDate.maxBytes` are read; no redirect
/// is followed, no credentials of the URL are sent.
enum HTTPHeadClock {
    static func unixMilliseconds(_ url: String, guard g: IOGuard, fromRemote: Bool) throws -> Rational {
        try ProtocolGate.check(url, policy: g.policy.protocols, fromRemote: fromRemote)
        guard let target = Target(url) else {
            Log.emit(Log.error, "fastpixseek: DASH UTCTiming refused: the http-head source is not an http(s) URL with a host")
            throw EngineError(.invalidData)
        }
        var cb = AVIOInterruptCB(callback: ioInterruptCallback, opaque: Unmanaged.passUnretained(g).toOpaque())
        var opts: OpaquePointer?
        defer { ffmpeg_av_dict_free(&opts) }
        try OpenOptions.set(&opts, policy: g.policy)
        let memoryEpoch = MemoryReserve.epoch
        g.begin()
        defer { g.end() }
        var io: UnsafeMutablePointer<AVIOContext>?
        let ret = ffmpeg_avio_open2(&io, target.transport, AVIO_FLAG_READ_WRITE, &cb, &opts)
        guard ret >= 0, let ctx = io else {
            throw ret < 0 ? openError(ret, guard: g, checked: true, epoch: memoryEpoch) : EngineError(.internal)
        }
        g.watch(io: ctx)
        defer { g.unwatch(); ffmpeg_avio_closep(&io) }
        let request = Array(target.request.utf8)
        request.withUnsafeBufferPointer { ffmpeg_avio_write(ctx, $0.baseAddress!, Int32($0.count)) }
        ffmpeg_avio_flush(ctx)
        if ctx.pointee.error < 0 { throw g.error(for: ctx.pointee.error) }
        let head = UnsafeMutablePointer<UInt8>.allocate(capacity: HTTPHeadDate.maxBytes)
        defer { head.deallocate() }
        var count = 0
        while HTTPHeadDate.headEnd(UnsafeBufferPointer(start: head, count: count)) == nil {
            guard count < HTTPHeadDate.maxBytes else { return try refused(.incomplete) }
            let n = ffmpeg_avio_read_partial(ctx, head + count, Int32(HTTPHeadDate.maxBytes - count))
            if n == fpx_averror_eof() || n == 0 {
                if g.wasCut { throw g.error(for: fpx_averror_exit()) }
                return try refused(.incomplete)
            }
            if n < 0 { throw g.error(for: n) }
            count += Int(n)
            g.credit(bytes: Int(n))
        }
        do {
            return try HTTPHeadDate.unixMilliseconds(head: UnsafeBufferPointer(start: head, count: count))
        } catch let r as HTTPHeadDate.Refusal {
            return try refused(r)
        }
    }

    private static func refused(_ r: HTTPHeadDate.Refusal) throws -> Rational {
        Log.emit(Log.error, "fastpixseek: DASH UTCTiming refused: \(r.description)")
        throw EngineError(.invalidData)
    }

    /// Where the request goes and what it says, from the URL (FFmpeg's `av_url_split`).
    struct Target {
        let transport: String
        let request: String

        init?(_ url: String) {
            var proto = [CChar](repeating: 0, count: 16)
            var host = [CChar](repeating: 0, count: 256)
            var path = [CChar](repeating: 0, count: 4096)
            var port: Int32 = -1
            ffmpeg_av_url_split(&proto, Int32(proto.count), &host, Int32(host.count), &port, &path, Int32(path.count), url)
            let scheme = Target.text(proto).lowercased()
            let name = Target.text(host)
            var target = Target.text(path)
            if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
            if target.isEmpty { target = "/" }
            guard scheme == "http" || scheme == "https", !name.isEmpty,
                  Target.visible(name), Target.visible(target), target.hasPrefix("/") else { return nil }
            let bracketed = name.contains(":") ? "[\(name)]" : name
            let transportPort = port > 0 ? port : (scheme == "https" ? 443 : 80)
            transport = (scheme == "https" ? "tls" : "tcp") + "://\(bracketed):\(transportPort)"
            let hostField = port > 0 ? "\(bracketed):\(port)" : bracketed
            request = "HEAD \(target) HTTP/1.1\r\nHost: \(hostField)\r\nUser-Agent: fastpixseek\r\n"
                + "Accept: */*\r\nConnection: close\r\n\r\n"
        }

        /// The characters of a NUL-terminated buffer `av_url_split` filled.
        static func text(_ buffer: [CChar]) -> String {
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        /// Visible ASCII only: nothing in a URL may end the request line or add a field.
        static func visible(_ s: String) -> Bool { s.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } }
    }
}
