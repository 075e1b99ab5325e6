extension Player {
    /// Enables or disables a stream of the ready item: a disabled stream is discarded in the
    /// demuxer and its packets are never returned. The reference stream cannot be disabled
    /// (`.referenceStream`). Takes the engine lock, so it waits for a seek in progress.
    /// The C function is `fpx_player_set_stream_enabled`.
    public func setStreamEnabled(_ index: Int32, enabled: Bool) throws {
        let engine = try readyEngine()
        try withEngine(engine) { try engine.setStreamEnabled(index, enabled) }
    }
}
