import CFFmpeg
import FastPixSeekCore
import Glibc

/// The options every open of the engine gives FFmpeg (avformat_open_input, a segment's or a
/// key's avio_open2, the http-head clock's tls/tcp): the I/O timeout, the protocol whitelist
/// and the TLS checks of the player's policy. One place, so that no open goes without any of
/// them. An option that cannot be set (no memory) throws and frees `dict`.
enum OpenOptions {
    static func set(_ dict: inout OpaquePointer?, policy: IOPolicy) throws {
        if policy.timeoutNanoseconds > 0 {
            try setOption(&dict, "rw_timeout", String(min(policy.timeoutNanoseconds / 1000, UInt64(Int64.max))))
        }
        try setOption(&dict, "protocol_whitelist", ProtocolGate.whitelist(policy.protocols))
        try setTLS(&dict, policy.tls)
    }

    /// FFmpeg's tls protocol checks nothing unless `tls_verify` is 1 (its default is 0);
    /// with 1, GnuTLS and OpenSSL check the chain and the host name, mbedTLS the chain
    /// against `ca_file` and the name. The CA file follows TLSPolicy's order.
    static func setTLS(_ dict: inout OpaquePointer?, _ tls: TLSPolicy) throws {
        guard tls.verify else {
            try setOption(&dict, "tls_verify", "0")
            return
        }
        try setOption(&dict, "tls_verify", "1")
        let environment = getenv("SSL_CERT_FILE").map { String(cString: $0) }
        if let file = tls.caFile(environment: environment, exists: { access($0, R_OK) == 0 }) {
            try setOption(&dict, "ca_file", file)
        }
    }
}
