/// How a player checks the servers it reaches over TLS (https, and the tls transport of a
/// DASH http-head time source). The C fields are `fpx_player_config.tls_ca_file` and
/// `tls_insecure`; the engine turns it into FFmpeg's tls options (`tls_verify`, `ca_file`).
///
/// - By default the server's certificate must chain to a trusted CA and name the host the
///   URL names: FFmpeg's tls protocol does neither unless asked (`tls_verify` is 0 by
///   default), so without this anyone on the path could read a stream's AES-128 keys and
///   change its playlists.
/// - The CA certificates: `caFile` when the host names one, else the file `$SSL_CERT_FILE`
///   names (OpenSSL's convention), else the first of `systemBundles` that exists; with none,
///   the TLS library's own default (GnuTLS: the system's trust; mbedTLS: none, so nothing
///   verifies and every https open fails, typed).
/// - `verify` false turns all of it off (test servers with self-signed certificates).
public struct TLSPolicy: Hashable, Sendable {
    public var verify: Bool
    public var caFile: String?

    public init(verify: Bool = true, caFile: String? = nil) {
        self.verify = verify
        self.caFile = caFile
    }

    public static let `default` = TLSPolicy()

    /// Where the common Linux distributions keep their CA bundle (Debian and Ubuntu, Fedora
    /// and RHEL, openSUSE, RHEL's extracted store, Alpine): the first that exists is used.
    public static let systemBundles = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/ssl/ca-bundle.pem",
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/cert.pem",
    ]

    /// The CA file to verify against, given the environment's `SSL_CERT_FILE` and which
    /// paths exist (`exists`); nil: the TLS library's default.
    public func caFile(environment: String?, exists: (String) -> Bool) -> String? {
        if let f = caFile { return f }
        if let e = environment, !e.isEmpty { return e }
        return TLSPolicy.systemBundles.first(where: exists)
    }
}
