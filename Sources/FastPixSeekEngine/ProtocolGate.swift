#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import FastPixSeekCore

/// The protocol policy applied to URLs before libavformat opens them.
///
/// - `check(_:policy:fromRemote:)` decides one URL: FFmpeg's own name for its
///   protocol (`avio_find_protocol_name`, so the decision and the open agree on
///   what the URL is) must be allowed by the host's list, and by the remote
///   rule when remote content named it; local targets (a path, `file:`,
///   `pipe:N`, and the URLs nested inside `cache:`, `async:`, `subfile`,
///   `crypto:` and `concat:`) must be regular files, so a FIFO, a character
///   or block device, a socket or a directory never blocks `open(2)`/`read(2)`.
/// - `install(on:)` puts the same check in front of every nested open a
///   demuxer makes (`AVFormatContext.io_open`: the hls demuxer's playlists and
///   segments, mov's data references, ...), and `ffmpegOptions` passes the
///   list as FFmpeg's `protocol_whitelist` for the opens inside protocols.
///
/// Not covered (documented in the header): names inside a `concatf:` list
/// file, when the host allows `concatf`; a local path swapped for a FIFO
/// between the check and the open.
enum ProtocolGate {
    /// FFmpeg's name for `url`'s protocol; nil when no protocol matches.
    static func protocolName(_ url: String) -> String? {
        guard let p = ffmpeg_avio_find_protocol_name(url) else { return nil }
        return String(cString: p)
    }

    /// `protocolName`, telling an unknown protocol from a failed lookup: libavformat's lookup
    /// allocates the list of protocols (ffurl_get_protocols) and answers "none" when that
    /// allocation fails. So a nil answer is asked again once an allocation of 64 KiB has just
    /// succeeded; none then is FPX_ERROR_NO_MEMORY, never FPX_ERROR_UNSUPPORTED.
    static func knownProtocolName(_ url: String) throws -> String? {
        if let p = protocolName(url) { return p }
        guard let probe = ffmpeg_av_malloc(1 << 16) else { throw EngineError(.noMemory) }
        ffmpeg_av_free(probe)
        return protocolName(url)
    }

    /// Throws `.protocolNotAllowed` (policy), `.unsupported` (unknown protocol,
    /// or a local target that is not a regular file), or returns.
    static func check(_ url: String, policy: ProtocolPolicy, fromRemote: Bool, depth: Int = 0) throws {
        guard depth < 8 else { throw EngineError(.protocolNotAllowed) }
        guard let proto = try knownProtocolName(url) else {
            Log.emit(Log.warning, "fastpixseek: no FFmpeg protocol for a URL; refused")
            throw EngineError(.unsupported)
        }
        guard policy.allows(proto, fromRemote: fromRemote) else {
            Log.emit(Log.warning, "fastpixseek: protocol '\(proto)' not allowed" +
                     (fromRemote ? " in content from the network (only http and https are)" : " by the player's protocol policy"))
            throw EngineError(.protocolNotAllowed)
        }
        switch proto {
        case "file":
            var path = Substring(url)
            if path.hasPrefix("file:") { path = path.dropFirst(5) }
            try requireRegular(path: String(path))
        case "pipe":
            // pipe:N reads file descriptor N (stdin without a number).
            var rest = Substring(url).dropFirst(5)
            if rest.isEmpty { rest = "0" }
            let fd = Int32(rest) ?? 0
            var st = stat()
            guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw EngineError(.unsupported) }
        case "cache", "async", "subfile", "crypto":
            guard let colon = url.firstIndex(of: ":") else { throw EngineError(.unsupported) }
            try check(String(url[url.index(after: colon)...]), policy: policy, fromRemote: fromRemote, depth: depth + 1)
        case "concat":
            for part in url.dropFirst("concat:".count).split(separator: "|") {
                try check(String(part), policy: policy, fromRemote: fromRemote, depth: depth + 1)
            }
        default:
            break
        }
    }

    /// A path that does not exist is left to the open (FPX_ERROR_NOT_FOUND);
    /// anything but a regular file is refused before open(2) can block on it.
    static func requireRegular(path: String) throws {
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            Log.emit(Log.warning, "fastpixseek: not a regular file (a FIFO, device, socket or directory); refused")
            throw EngineError(.unsupported)
        }
    }

    /// FFmpeg's `protocol_whitelist` for contexts opened under `policy`.
    static func whitelist(_ policy: ProtocolPolicy) -> String {
        var names = Set(policy.ffmpegWhitelist.split(separator: ",").map(String.init))
        if names.contains("https") { names.insert("httpproxy") }
        return names.sorted().joined(separator: ",")
    }

    /// The state one format context's gate needs, kept alive by its engine.
    final class Context {
        let policy: ProtocolPolicy
        /// The top-level URL came from the network: nested opens may be http(s) only.
        let remoteOrigin: Bool
        /// In-memory items (HLS segments) have no business opening anything.
        let refuseAll: Bool
        unowned let ioGuard: IOGuard
        /// libavformat's default io_open, as the context had it before `install` replaced it
        /// (read from each context, not once per process: a process-wide copy read from a
        /// context allocated at the first create stayed nil for good when that allocation
        /// failed, and every later open of the process was refused).
        fileprivate(set) var defaultOpen: IOOpen?

        init(policy: ProtocolPolicy, remoteOrigin: Bool, refuseAll: Bool, ioGuard: IOGuard) {
            self.policy = policy; self.remoteOrigin = remoteOrigin; self.refuseAll = refuseAll; self.ioGuard = ioGuard
        }
    }

    typealias IOOpen = @convention(c) (UnsafeMutablePointer<AVFormatContext>?,
                                       UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                                       UnsafePointer<CChar>?, Int32,
                                       UnsafeMutablePointer<OpaquePointer?>?) -> Int32

    /// Routes `c`'s nested opens through the gate. `context` must outlive `c`.
    static func install(on c: UnsafeMutablePointer<AVFormatContext>, _ context: Context) {
        context.defaultOpen = c.pointee.io_open
        c.pointee.opaque = Unmanaged.passUnretained(context).toOpaque()
        c.pointee.io_open = gatedIOOpen
    }
}

private let gatedIOOpen: ProtocolGate.IOOpen = { s, pb, url, flags, options in
    guard let s = s, let raw = s.pointee.opaque, let url = url else {
        return -Int32(EPERM)
    }
    let gate = Unmanaged<ProtocolGate.Context>.fromOpaque(raw).takeUnretainedValue()
    guard let open = gate.defaultOpen else { return -Int32(EPERM) }
    let u = String(cString: url)
    do {
        if gate.refuseAll { throw EngineError(.protocolNotAllowed) }
        try ProtocolGate.check(u, policy: gate.policy, fromRemote: gate.remoteOrigin)
    } catch let e as EngineError {
        gate.ioGuard.refuse(e)
        return -Int32(EPERM)
    } catch {
        return -Int32(EPERM)
    }
    return open(s, pb, url, flags, options)
}
