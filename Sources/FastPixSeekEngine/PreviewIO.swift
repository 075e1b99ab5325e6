import FastPixSeekCore

/// The I/O of preview sources (seek.h, "Seek previews"): a spritesheet.json or WebVTT track
/// fetched whole through libavformat's protocols under the player's protocol policy and
/// timeouts (the fetch HLS playlists use), and image URLs checked against the policy.
public struct FFmpegPreviewIO: PreviewIO {
    public init() {}

    public func fetch(_ url: String, policy: IOPolicy, limit: Int) throws -> [UInt8] {
        let buffer = try HLSFetch.fetch(url, guard: IOGuard(policy: policy), fromRemote: false, limit: limit)
        return buffer.withUnsafeBufferPointer { Array($0) }
    }

    public func check(_ url: String, policy: ProtocolPolicy, fromRemote: Bool) throws {
        try ProtocolGate.check(url, policy: policy, fromRemote: fromRemote)
    }

    public func isRemote(_ url: String) -> Bool { HLSFetch.isRemote(url) }
}
