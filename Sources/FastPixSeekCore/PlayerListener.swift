/// Listener of a player's events. Every method has a no-op default.
/// The C type is `fpx_listener`.
public protocol PlayerListener: AnyObject, Sendable {
    func onSeekAccuracy(_ outcome: SeekOutcome)
    func onSeekClamped(_ clamp: SeekClamp, seekID: UInt64)
    func onItemStatus(_ status: ItemStatusInfo)
    func onScrubStateChanged(_ state: ScrubState)
    func onScrubPositionChanged(_ position: ScrubPosition)
    func onFrameStep(_ result: FrameStepResult)
    /// The background index of the current item is complete (`IndexMode.full`).
    func onIndexComplete(frames: UInt64)
    /// The player has dropped this listener (removed, or the player destroyed).
    func onRemoved()
}

public extension PlayerListener {
    func onSeekAccuracy(_ outcome: SeekOutcome) {}
    func onSeekClamped(_ clamp: SeekClamp, seekID: UInt64) {}
    func onItemStatus(_ status: ItemStatusInfo) {}
    func onScrubStateChanged(_ state: ScrubState) {}
    func onScrubPositionChanged(_ position: ScrubPosition) {}
    func onFrameStep(_ result: FrameStepResult) {}
    func onIndexComplete(frames: UInt64) {}
    func onRemoved() {}
}
