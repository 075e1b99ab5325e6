/// What a decoder or a renderer needs to know about a stream beyond its codec, read from the
/// container (`AVCodecParameters`, `AVStream`). FFmpeg's enum values are kept as they are;
/// names are static C strings (or engine-owned, see `channelLayout`). The C fields are the
/// 0.3 fields at the end of `fpx_stream_info`.
public struct StreamDetails {
    public var profile: Int32 = -99
    public var level: Int32 = -99
    public var profileName: UnsafePointer<CChar>? = nil
    public var pixelFormat: UnsafePointer<CChar>? = nil
    public var bitDepth: Int32 = 0
    public var sampleAspectNum: Int32 = 0, sampleAspectDen: Int32 = 1
    public var frameRateNum: Int32 = 0, frameRateDen: Int32 = 0
    public var realFrameRateNum: Int32 = 0, realFrameRateDen: Int32 = 0
    public var colorRange: Int32 = 0, colorPrimaries: Int32 = 2, colorTransfer: Int32 = 2, colorSpace: Int32 = 2
    public var colorRangeName: UnsafePointer<CChar>? = nil
    public var colorPrimariesName: UnsafePointer<CChar>? = nil
    public var colorTransferName: UnsafePointer<CChar>? = nil
    public var colorSpaceName: UnsafePointer<CChar>? = nil
    public var chromaLocation: Int32 = 0
    public var chromaLocationName: UnsafePointer<CChar>? = nil
    public var fieldOrder: Int32 = 0
    public var hasDisplayMatrix = false
    public var rotationDegrees: Double = 0
    public var sampleFormat: UnsafePointer<CChar>? = nil
    /// Owned by the item's stream facts (kept until the player is destroyed).
    public var channelLayout: UnsafePointer<CChar>? = nil
    public var channelMask: UInt64 = 0
    public var frameSize: Int32 = 0
    public var initialPadding: Int32 = 0
    public var trailingPadding: Int32 = 0
    public var codecTag: UInt32 = 0
    public var bitRate: Int64 = 0
    public var bitsPerCodedSample: Int32 = 0
    public var bitsPerRawSample: Int32 = 0
    public var startPTS: Int64? = nil
    public var durationTicks: Int64? = nil
    public var frameCount: Int64 = 0
    public var disposition: Int32 = 0
    /// The stream's "language" metadata, copied; owned like `channelLayout`.
    public var language: UnsafePointer<CChar>? = nil

    public init() {}
}
