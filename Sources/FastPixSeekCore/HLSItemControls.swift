/// What an HLS item (and a DASH item, which opens through the same engine) offers beyond
/// `MediaEngine`: the master playlist's listing and the variant and audio rendition switches.
/// The HLS item engine implements it; callers reach it through `MediaEngine.hlsControls`,
/// and an engine without it (a file) has no listing, no selection, and refuses a switch with
/// `.unsupported`.
///
/// Threading contract (as `MediaEngine`'s concurrent members; Sync.swift): every member is
/// concurrent, callable from any thread at any time, also while a serial member runs and
/// after `close()`. None blocks on I/O or takes `engineLock`; they read immutable state or
/// state under an engine-private lock of Sync.swift's last levels. A switch is recorded
/// here and made by the next landing, under the engine lock.
public protocol HLSItemControls: AnyObject {
    /// The master playlist's variants and renditions (nil without one). Immutable.
    var hlsListing: HLSListing? { get }

    /// The audio rendition played as a second feed now (an index of the listing's
    /// renditions) and its stream; nil when the engine plays none.
    var hlsAudioSelection: (index: Int, stream: Int32)? { get }

    /// Plays audio rendition `index` (of the listing) from the next landing on.
    /// `.unsupported` without a second feed, `.invalidArgument` for an index that names no
    /// AUDIO rendition with a URI.
    func selectHLSAudio(_ index: Int) throws

    /// The variant played now (an index of the listing's variants); nil when the engine
    /// cannot switch (no master).
    var hlsVariantSelection: Int? { get }

    /// Plays variant `index` (of the listing) from the next seek on. `.unsupported` without
    /// a master, `.invalidArgument` for an index past the list or an I-frame variant.
    func selectHLSVariant(_ index: Int) throws
}

public extension MediaEngine {
    /// The engine's HLS controls; nil for an engine without them (a file).
    var hlsControls: HLSItemControls? { self as? HLSItemControls }
}
