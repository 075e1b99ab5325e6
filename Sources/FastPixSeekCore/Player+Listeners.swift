/// Listeners: registration and delivery of their events through the event queue.
extension Player {
    /// Posts an event that runs `body` for every listener at delivery time.
    func postToListeners(_ body: @escaping @Sendable (PlayerListener) -> Void) {
        events.post { [self] in
            let ls = self.m.locked { self.listeners.map { $0.listener } }
            for l in ls { body(l) }
        }
    }

    /// Runs `body` for every listener now; only on the delivery thread.
    func notifyListenersNow(_ body: (PlayerListener) -> Void) {
        let ls = m.locked { listeners.map { $0.listener } }
        for l in ls { body(l) }
    }


    // MARK: Listeners

    public func addListener(_ l: PlayerListener) throws -> UInt64 {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            let id = nextListenerID
            nextListenerID += 1
            listeners.append((id, l))
            return id
        }
    }

    public func removeListener(_ id: UInt64) throws {
        try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let i = listeners.firstIndex(where: { $0.id == id }) else { throw ErrorCode.notFound }
            let l = listeners.remove(at: i).listener
            events.post { l.onRemoved() }
        }
    }
}
