#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// HLS fetching: playlists, segments and init sections through libavformat's protocols,
/// bounded by the I/O timeout and the buffer cap. Stateless; each call brings its own
/// `IOGuard` (the playlist feed's, or a segment's own).
enum HLSFetch {
    /// The most bytes a playlist may have (seek.h section 8: "Memory"); the buffer cap
    /// when that is smaller.
    static let maxPlaylistBytes = 16 << 20

    static func playlistLimit(_ policy: IOPolicy) -> Int { min(maxPlaylistBytes, max(1, policy.maxBufferBytes)) }

    /// Parses a playlist into its compact form. Its text and parsed segments together may
    /// not exceed the buffer cap, nor its segments `HLSPlaylist.Limits.maxSegments`:
    /// FPX_ERROR_TOO_LARGE (issue 18.4).
    static func parse(_ bytes: FallibleBuffer<UInt8>, url: String, policy: IOPolicy) throws -> HLSPlaylist {
        do {
            return try bytes.withUnsafeBufferPointer {
                try HLSPlaylist.parse($0, url: url, limits: HLSPlaylist.Limits(maxBytes: max(1, policy.maxBufferBytes)))
            }
        } catch let e as HLSError {
            // The log names the tag (and an EXT-X-KEY's METHOD); never a URI or a key.
            Log.emit(Log.error, "fastpixseek: HLS playlist refused: \(e.description)")
            throw EngineError(e.errorCode)
        }
    }

    static func isRemote(_ url: String) -> Bool {
        ProtocolGate.protocolName(url).map(ProtocolPolicy.isRemote) ?? false
    }

    /// GETs a whole resource (a playlist, a segment) through libavformat's
    /// protocols, interruptible, bounded by the I/O timeout (silence: re-armed whenever
    /// bytes arrive) and by the overall bound (`Deadline.overall`, T more per 64 KiB received). The URL must
    /// pass the protocol policy (`fromRemote`: it was named by a playlist from
    /// the network, so http/https only). More than `limit` bytes is
    /// FPX_ERROR_TOO_LARGE, decided from Content-Length when the server sends
    /// one, else as the bytes arrive (never more than `limit` is held).
    /// The bytes are appended to `into` (a new buffer by default). Every allocation
    /// sized by the server or the playlist goes through `FallibleBuffer`: out of
    /// memory is FPX_ERROR_NO_MEMORY, never a trap (issue 18.3).
    @discardableResult
    static func fetch(_ url: String, guard g: IOGuard, fromRemote: Bool, limit: Int,
                      range: HLSByteRange? = nil, stop: (() -> Bool)? = nil,
                      into out: FallibleBuffer<UInt8> = FallibleBuffer<UInt8>()) throws -> FallibleBuffer<UInt8> {
        try ProtocolGate.check(url, policy: g.policy.protocols, fromRemote: fromRemote)
        let memoryEpoch = MemoryReserve.epoch
        var cb = AVIOInterruptCB(callback: ioInterruptCallback, opaque: Unmanaged.passUnretained(g).toOpaque())
        // A byte range over http(s) is one closed request for exactly the range (issue 28.4):
        // FFmpeg's http sends `Range: bytes=offset-(end_offset - 1)` and its reads stop at
        // end_offset. A server that ignores Range answers 200 with the whole resource, which
        // FFmpeg's http refuses for an offset past 0 (its connect fails with -1, EPERM, when
        // the answer does not start at the offset asked: no Content-Range starting there);
        // then once more from byte 0
        // (`bytes=0-(end - 1)`, still closed), and the bytes before the range are read and
        // dropped (`discard`, bounded by the buffer cap).
        let http = range != nil && ProtocolGate.protocolName(url).map { $0 == "http" || $0 == "https" } == true
        func open(from offset: Int64?) throws -> UnsafeMutablePointer<AVIOContext> {
            var opts: OpaquePointer?
            try OpenOptions.set(&opts, policy: g.policy)
            if let r = range, let o = offset {
                try setOption(&opts, "offset", String(o))
                try setOption(&opts, "end_offset", String(r.end))
            }
            var io: UnsafeMutablePointer<AVIOContext>?
            let ret = ffmpeg_avio_open2(&io, url, AVIO_FLAG_READ, &cb, &opts)
            ffmpeg_av_dict_free(&opts)
            guard ret >= 0, let ctx = io else {
                if ret >= 0 { throw EngineError(.internal) }
                throw OpenFailure(code: ret)
            }
            return ctx
        }

        g.begin(stop: stop)
        defer { g.end() }
        var io: UnsafeMutablePointer<AVIOContext>?
        var from: Int64? = nil
        if let r = range, http, r.length > 0 { from = r.offset }
        do {
            do {
                io = try open(from: from)
            } catch let f as OpenFailure where f.code == -Int32(EPERM) && (from ?? 0) > 0 && !g.wasCut {
                // The server ignored the Range (FFmpeg's http refuses a 200 to an offset).
                try checkDiscard(from ?? 0, guard: g)
                from = 0
                io = try open(from: 0)
            }
        } catch let f as OpenFailure {
            throw openError(f.code, guard: g, checked: true, epoch: memoryEpoch)
        }
        guard let ctx = io else { throw EngineError(.internal) }
        // Bytes arriving re-arm the silence deadline from the interrupt callback, however
        // large the reads below (IOGuard); the watch ends before the context is freed.
        g.watch(io: ctx)
        defer { g.unwatch(); ffmpeg_avio_closep(&io) }
        var want = limit
        if let r = range { want = Int(clamping: r.length) }
        if range != nil && want > limit { throw EngineError(.tooLarge) }
        if let r = range, let f = from {
            // Where the server's answer starts: the range (206), or byte 0 (asked from 0, or a
            // server that ignores Range, 200): read and drop the bytes before the range.
            let at = fpx_avio_protocol_offset(ctx)
            if at != f {
                Log.emit(Log.error, "fastpixseek: HLS byte range: the server answered another range")
                throw EngineError(.invalidData)
            }
            if at < r.offset {
                try discard(ctx, r.offset - at, guard: g)
            }
        } else if let r = range, r.offset > 0 {
            // A byte range of a file (lseek), or of another protocol: seek to it.
            let got = ffmpeg_avio_seek(ctx, r.offset, SEEK_SET)
            if got < 0 { throw g.error(for: Int32(truncatingIfNeeded: got)) }
        }
        let size = ffmpeg_avio_size(ctx)
        if range == nil && size > Int64(limit) { throw EngineError(.tooLarge) }
        func grow(_ n: Int) throws {
            do { try out.reserve(n) } catch { throw EngineError(.noMemory) }
        }
        // With a size, reserve it once (at most the cap); without one, grow by half again
        // from 1 MiB (0.3.0 reserved the whole cap, which under a low RLIMIT_AS trapped).
        let start = out.count
        try grow(start &+ (size > 0 ? Int(min(Int64(want), size)) : min(want, 1 << 20)))
        while true {
            let got = out.count - start
            let room = min(65536, want - got + 1)
            if room <= 0 { break }
            if out.capacity - out.count < room { try grow(max(out.count + room, out.capacity + out.capacity / 2)) }
            let n = ffmpeg_avio_read(ctx, out.tail, Int32(room))
            if n == fpx_averror_eof() || n == 0 { break }
            if n < 0 { throw g.error(for: n) }
            if range == nil && got + Int(n) > limit { throw EngineError(.tooLarge) }
            out.commit(min(Int(n), want - got))
            if range != nil && out.count - start >= want { break }
            // The overall bound grows with what arrived (Deadline.overall).
            g.credit(bytes: Int(n))
        }
        // A transfer cut short (deadline, stop, abort) is an error, never a short body.
        if g.wasCut { throw g.error(for: fpx_averror_exit()) }
        return out
    }

    /// Reads and drops the `count` bytes before a byte range, from a server that ignored the
    /// Range request (a 200 with the whole resource). Bounded: at most the buffer cap
    /// (`max_buffer_bytes`) is read for nothing, a range farther into the resource is
    /// FPX_ERROR_TOO_LARGE; the bytes re-arm the deadlines as any others do. Logged once per
    /// download as a warning (without the URI).
    static func discard(_ ctx: UnsafeMutablePointer<AVIOContext>, _ count: Int64, guard g: IOGuard) throws {
        try checkDiscard(count, guard: g)
        Log.emit(Log.warning, "fastpixseek: HLS byte range: the server ignores Range requests; "
                 + "reading and dropping the \(count) bytes before the range")
        var left = count
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 65536)
        defer { scratch.deallocate() }
        while left > 0 {
            let n = ffmpeg_avio_read(ctx, scratch, Int32(min(left, 65536)))
            if n == fpx_averror_eof() || n == 0 { throw EngineError(.invalidData) }
            if n < 0 { throw g.error(for: n) }
            left -= Int64(n)
            g.credit(bytes: Int(n))
        }
    }

    /// FPX_ERROR_TOO_LARGE when `count` bytes before a range are more than may be dropped.
    static func checkDiscard(_ count: Int64, guard g: IOGuard) throws {
        if count > Int64(max(1, g.policy.maxBufferBytes)) {
            Log.emit(Log.error, "fastpixseek: HLS byte range: the server ignores Range requests and the range starts "
                     + "\(count) bytes in, past the buffer cap")
            throw EngineError(.tooLarge)
        }
    }

    /// A failed avio_open2, by FFmpeg's code.
    private struct OpenFailure: Error { let code: Int32 }

    /// Downloads a segment (its byte range, if any) and demuxes it from memory,
    /// behind its init section when it has one (fMP4: EXT-X-MAP). The init
    /// section and the segment together may not exceed the buffer cap.
    static func openSegment(_ s: HLSFeed.Segment, policy: IOPolicy, remote: Bool, initSections: inout [String: FallibleBuffer<UInt8>],
                            keys: inout [String: [UInt8]], stop: (() -> Bool)? = nil,
                            listedOnDomain: () -> Rational? = { nil }) throws -> FFmpegEngine {
        let g = IOGuard(policy: policy)
        let cap = max(1, policy.maxBufferBytes)
        let bytes = FallibleBuffer<UInt8>()
        if let m = s.map {
            let key = m.uri + (m.byteRange.map { "@\($0.offset)+\($0.length)" } ?? "")
            let section: FallibleBuffer<UInt8>
            if let cached = initSections[key] {
                section = cached
            } else {
                section = try HLSFetch.fetch(m.uri, guard: g, fromRemote: remote, limit: min(cap, 16 << 20),
                                              range: m.byteRange, stop: stop)
                initSections = [key: section]
            }
            do { try section.withUnsafeBufferPointer { try bytes.append(contentsOf: $0) } } catch {
                throw EngineError(.noMemory)
            }
        }
        let segmentStart = bytes.count
        // The key first: a key that cannot be had fails before the segment is downloaded.
        let key = try s.key.map { try HLSFetch.key($0, guard: g, remote: remote, cache: &keys, stop: stop) }
        try HLSFetch.fetch(s.uri, guard: g, fromRemote: remote, limit: max(1, cap - bytes.count),
                            range: s.byteRange, stop: stop, into: bytes)
        if let k = key, let info = s.key {
            try decrypt(bytes, from: segmentStart, key: k, iv: info.iv(sequence: s.sequence))
        }
        guard bytes.count > 0 else { throw EngineError(.invalidData) }
        let start = s.map == nil ? packedAudioStart(bytes, sequence: s.sequence, listedOnDomain: listedOnDomain) : nil
        do {
            return try FFmpegEngine(url: s.uri, policy: policy, memory: bytes, packedAudioStart: start)
        } catch let e as EngineError where e.code == .eof || e.code == .io {
            // Demuxed from memory: no I/O happened, so an end or an I/O code is the segment's
            // own bytes ending before its container does (a byte range too short: issue 28.5),
            // named as such, never as a connection error. Logged with the MSN, not the URI.
            let what = s.byteRange.map { "a byte range of \($0.length) bytes" } ?? "\(bytes.count) bytes"
            Log.emit(Log.error, "fastpixseek: HLS segment \(s.sequence) cannot be demuxed: its bytes end before its "
                     + "container's header does (\(what)" + (s.map != nil ? ", behind its init section)" : ")"))
            throw EngineError(.invalidData, avError: e.avError)
        }
    }


    /// Where a segment's first sample sits if it is packed audio (`HLSPackedAudio`; the
    /// engine applies it only when the segment demuxes as an elementary audio stream): its ID3
    /// timestamp, else its listed start on the domain. A malformed tag is logged (MSN only)
    /// and the segment placed as one without the frame.
    static func packedAudioStart(_ bytes: FallibleBuffer<UInt8>, sequence: Int64,
                                 listedOnDomain: () -> Rational?) -> Rational? {
        let t = bytes.withUnsafeBufferPointer { HLSPackedAudio.timestamp(UnsafeRawBufferPointer($0)) }
        if case .malformed(let why) = t {
            Log.emit(Log.warning, "fastpixseek: HLS segment \(sequence): its ID3 tag is malformed (\(why)); "
                     + "placed by the playlist")
        }
        // A timestamp is unwrapped past a 33-bit wrap inside the domain when the domain is
        // placed already (HLSPackedAudio.segmentStart; the anchor segment's is taken as it is).
        if case .ticks = t { return HLSPackedAudio.segmentStart(t, listedOnDomain: listedOnDomain()) }
        // Only an elementary audio segment uses it: the domain's placement is read lazily.
        return bytes.withUnsafeBufferPointer { looksPacked(UnsafeRawBufferPointer($0)) } ? listedOnDomain() : nil
    }

    /// Whether a segment's bytes may be packed audio (an ID3 tag, an ADTS, MP3 or AC-3 sync word
    /// at the start): TS and fMP4 segments never start so, and need not learn the domain's
    /// placement before they are demuxed.
    static func looksPacked(_ b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 2 else { return false }
        if b.count >= 3 && b[0] == 0x49 && b[1] == 0x44 && b[2] == 0x33 { return true }   // ID3
        if b[0] == 0xFF && (b[1] & 0xE0) == 0xE0 { return true }                            // ADTS / MPEG audio
        return b[0] == 0x0B && b[1] == 0x77                                                 // AC-3 / E-AC-3
    }

    /// An AES-128 key (EXT-X-KEY), fetched once per URI under the segments' protocol
    /// policy (a remote playlist's key only over http/https). It must be exactly 16 bytes.
    /// Failures are FPX_ERROR_ENCRYPTION (the av_error keeps FFmpeg's code), logged with
    /// the tag and method, never with the key's bytes or URI.
    static func key(_ k: HLSKey, guard g: IOGuard, remote: Bool, cache: inout [String: [UInt8]],
                    stop: (() -> Bool)?) throws -> [UInt8] {
        if let b = cache[k.uri] { return b }
        let got: FallibleBuffer<UInt8>
        do {
            // FFmpeg's http names the URL in its lines (DEBUG, TRACE): none reach the log.
            got = try FFmpegLog.withoutFFmpegLines {
                try HLSFetch.fetch(k.uri, guard: g, fromRemote: remote, limit: 64, stop: stop)
            }
        } catch let e as EngineError {
            // A cancel or an interrupt stays what it is.
            if e.code == .cancelled || e.code == .interrupted { throw e }
            Log.emit(Log.error, "fastpixseek: HLS EXT-X-KEY METHOD=AES-128: the key could not be fetched (\(e.code))")
            throw EngineError(.encryption, avError: e.avError)
        }
        guard got.count == 16 else {
            Log.emit(Log.error, "fastpixseek: HLS EXT-X-KEY METHOD=AES-128: the key is \(got.count) bytes, not 16")
            throw EngineError(.encryption)
        }
        let b = got.withUnsafeBufferPointer { Array($0) }
        cache[k.uri] = b
        return b
    }

    /// Decrypts `buf[start...]` in place (AES-128-CBC, libavutil's av_aes) and strips its
    /// PKCS#7 padding, which must be valid: FPX_ERROR_ENCRYPTION otherwise.
    static func decrypt(_ buf: FallibleBuffer<UInt8>, from start: Int, key: [UInt8], iv: [UInt8]) throws {
        let n = buf.count - start
        func fail(_ why: String) -> EngineError {
            Log.emit(Log.error, "fastpixseek: HLS EXT-X-KEY METHOD=AES-128: a segment does not decrypt (\(why))")
            return EngineError(.encryption)
        }
        guard n > 0, n % 16 == 0, let base = buf.base else { throw fail("its size is not a multiple of 16") }
        guard let ctx = ffmpeg_av_aes_alloc() else { throw EngineError(.noMemory) }
        defer { ffmpeg_av_free(UnsafeMutableRawPointer(ctx)) }
        let ok = key.withUnsafeBufferPointer { ffmpeg_av_aes_init(ctx, $0.baseAddress, 128, 1) } == 0
        guard ok else { throw fail("bad key") }
        var ivb = iv
        let p = base + start
        ivb.withUnsafeMutableBufferPointer { ivp in
            var done = 0
            while done < n {
                let blocks = min((n - done) / 16, 1 << 20)
                ffmpeg_av_aes_crypt(ctx, p + done, p + done, Int32(blocks), ivp.baseAddress, 1)
                done += blocks * 16
            }
        }
        let pad = Int(p[n - 1])
        guard pad >= 1, pad <= 16, (1...pad).allSatisfy({ p[n - $0] == UInt8(pad) }) else {
            throw fail("bad padding: a wrong key or IV")
        }
        buf.removeLast(pad)
    }
}
