/// Which variant of a master playlist an HLS item plays (fpx_player_config.hls_variant,
/// hls_max_bandwidth, hls_max_height), and of a DASH MPD's video representations. Pure; tested
/// on fake data (HLSVariantChoiceTests) and on parsed masters (the core's HLSListingTests).
public struct HLSVariantChoice: Hashable, Sendable {
    /// What the choice reads of a variant (the playlist model's `HLSVariant` conforms).
    public protocol VariantFacts {
        /// BANDWIDTH, bits per second.
        var bandwidth: Int64 { get }
        /// RESOLUTION's height; nil without RESOLUTION.
        var height: Int64? { get }
        /// An `EXT-X-I-FRAME-STREAM-INF` variant: never played.
        var iFrame: Bool { get }
    }

    /// 0-based index in playlist order (I-frame variants counted), nil: by the caps.
    public var index: Int?
    /// Highest BANDWIDTH at or below it; nil: no cap.
    public var maxBandwidth: Int64?
    /// RESOLUTION height at or below it (variants without RESOLUTION fit); nil: no cap.
    public var maxHeight: Int64?

    public init(index: Int? = nil, maxBandwidth: Int64? = nil, maxHeight: Int64? = nil) {
        self.index = index; self.maxBandwidth = maxBandwidth; self.maxHeight = maxHeight
    }

    /// The variant to play: the index when given (an I-frame variant or one past the list:
    /// nil, refused); else, among the variants that are not I-frame ones and fit the
    /// height cap (all of them when none fits), the highest BANDWIDTH within the bandwidth
    /// cap, else the lowest BANDWIDTH. Ties go to the earlier variant. Nil without variants.
    public func select<V: VariantFacts>(_ variants: [V]) -> Int? {
        if let i = index {
            guard i >= 0, i < variants.count, !variants[i].iFrame else { return nil }
            return i
        }
        let playable = variants.indices.filter { !variants[$0].iFrame }
        guard !playable.isEmpty else { return nil }
        var pool = playable
        if let h = maxHeight {
            let fit = playable.filter { (variants[$0].height ?? 0) <= h }
            if !fit.isEmpty { pool = fit }
        }
        var best: Int?
        for i in pool where maxBandwidth.map({ variants[i].bandwidth <= $0 }) ?? true {
            if let b = best, variants[b].bandwidth >= variants[i].bandwidth { continue }
            best = i
        }
        if let b = best { return b }
        var low = pool[0]
        for i in pool where variants[i].bandwidth < variants[low].bandwidth { low = i }
        return low
    }
}
