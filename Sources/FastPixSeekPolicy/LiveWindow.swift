/// The seekable window of an item (an HLS or DASH live window, or a whole VOD item), on the
/// item timeline, with its dates when the item is date-addressable. The C type is
/// `fpx_live_seek_window`. Pure data: the engine fills it by `HLSWindow`'s rules (its end, dates
/// to item times); `HLSRenditions.intersect` gives the window of a variant with a separate
/// audio rendition.
public struct LiveWindow: Hashable, Sendable {
    public var isLive: Bool
    public var isDateAddressable: Bool
    public var start: MediaTime
    public var end: MediaTime
    public var startDateMicroseconds: Int64?
    public var endDateMicroseconds: Int64?
    public var firstSequence: Int64
    public var lastSequence: Int64
    public var targetDuration: MediaTime
    public var holdBack: MediaTime
    public init(isLive: Bool, isDateAddressable: Bool, start: MediaTime, end: MediaTime,
                startDateMicroseconds: Int64?, endDateMicroseconds: Int64?, firstSequence: Int64,
                lastSequence: Int64, targetDuration: MediaTime, holdBack: MediaTime) {
        self.isLive = isLive; self.isDateAddressable = isDateAddressable; self.start = start; self.end = end
        self.startDateMicroseconds = startDateMicroseconds; self.endDateMicroseconds = endDateMicroseconds
        self.firstSequence = firstSequence; self.lastSequence = lastSequence
        self.targetDuration = targetDuration; self.holdBack = holdBack
    }
    public var duration: MediaTime { MediaTime.subtract(end, start) }
}
