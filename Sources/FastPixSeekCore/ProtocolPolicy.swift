/// Which protocols a player may open, and what content reached over the
/// network may name. The C field is `fpx_player_config.protocol_whitelist`.
///
/// - The host's list (default `file,http,https`) bounds every URL the player
///   opens: the item's own URL and everything a demuxer or playlist names.
/// - Content reached from a remote resource (an http or https playlist, or a
///   demuxer reading from http) may name only `http` and `https`, never a
///   local file or a nested FFmpeg protocol, whatever the host's list says.
/// - FFmpeg's `protocol_whitelist` gets the host's list plus the transports
///   http and https need under them (`tcp`, `tls`), so nested opens inside
///   libavformat are bounded too; `tcp`/`tls` named directly by a URL are
///   refused unless the host lists them.
public struct ProtocolPolicy: Hashable, Sendable {
    /// The protocols the host allows, lower case, as FFmpeg names them.
    public let allowed: Set<String>

    public static let defaultList = "file,http,https"
    public static let `default` = ProtocolPolicy(allowed: ["file", "http", "https"])
    /// Protocols content from the network may name.
    public static let remoteSafe: Set<String> = ["http", "https"]

    public init(allowed: Set<String>) { self.allowed = allowed }

    /// Parses a comma-separated list ("file,http,https"); nil for the default.
    /// Returns nil for an empty list or a name with characters FFmpeg's
    /// protocol names never have.
    public static func parse(_ list: String?) -> ProtocolPolicy? {
        guard let list = list else { return .default }
        var names = Set<String>()
        for part in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(part.filter { $0 != " " }).lowercased()
            guard !name.isEmpty, name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F })
            else { return nil }
            names.insert(name)
        }
        return names.isEmpty ? nil : ProtocolPolicy(allowed: names)
    }

    /// FFmpeg's `protocol_whitelist` option: the host's list plus the
    /// transports under http/https.
    public var ffmpegWhitelist: String {
        var names = allowed
        if names.contains("http") || names.contains("https") { names.insert("tcp") }
        if names.contains("https") { names.insert("tls") }
        return names.sorted().joined(separator: ",")
    }

    /// Whether `proto` (FFmpeg's name for a URL's protocol) may be opened,
    /// given whether the URL was named by remote content.
    public func allows(_ proto: String, fromRemote: Bool) -> Bool {
        let p = proto.lowercased()
        guard allowed.contains(p) else { return false }
        return !fromRemote || ProtocolPolicy.remoteSafe.contains(p)
    }

    public static func isRemote(_ proto: String) -> Bool { remoteSafe.contains(proto.lowercased()) }
}
