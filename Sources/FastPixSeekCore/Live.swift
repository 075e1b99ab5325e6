/// Why a date seek could not happen. The C type is `fpx_date_seek_unavailable_reason`.
public enum DateSeekUnavailableReason: Hashable, Sendable {
    case noCurrentItem
    /// The playlist publishes no PROGRAM-DATE-TIME: the library never invents dates.
    case streamIsNotDateAddressable
    /// Reported rather than clamped.
    case dateOutsideSeekableWindow(requestedMicroseconds: Int64, windowStartMicroseconds: Int64, windowEndMicroseconds: Int64)

    public var code: Int32 {
        switch self {
        case .noCurrentItem: return DateSeekUnavailableReasonCode.noCurrentItem.rawValue
        case .streamIsNotDateAddressable: return DateSeekUnavailableReasonCode.notDateAddressable.rawValue
        case .dateOutsideSeekableWindow: return DateSeekUnavailableReasonCode.outsideWindow.rawValue
        }
    }

    public static func explanation(code: Int32) -> StaticString {
        switch DateSeekUnavailableReasonCode(rawValue: code) {
        case .ok: return "The date was mapped to media time and the seek was issued."
        case .noCurrentItem: return "Nothing is attached to the player."
        case .notDateAddressable: return "The stream publishes no program date time; seek by time instead."
        case .outsideWindow: return "The date is outside the seekable window; it was reported, not clamped."
        case nil: return "Unknown date seek reason."
        }
    }
}

/// The C type is `fpx_date_seek_result`.
public enum DateSeekResult: Sendable {
    case seeked(SeekOutcome)
    case unavailable(requestedMicroseconds: Int64, reason: DateSeekUnavailableReason)
}

extension Player {
    /// The seekable window as of now. nil when there is no ready item.
    /// The C function is `fpx_player_live_seek_window`.
    public func liveSeekWindow() throws -> LiveWindow? {
        let e: PlayerEngine? = try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            guard let it = item, it.status == .ready else { return nil }
            return it.engine
        }
        return e?.liveWindow()
    }

    /// Seeks to the live edge (a file's last frame) with one completion; the
    /// completion gets nil and `.noItem` when nothing is attached.
    /// The C function is `fpx_player_seek_to_live_edge`.
    public func seekToLiveEdge(completion: @escaping @Sendable (SeekOutcome?, ErrorCode?) -> Void) throws -> UInt64 {
        let hasItem: Bool = try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            return item != nil
        }
        guard hasItem else {
            events.post { completion(nil, .noItem) }
            return 0
        }
        // The edge is read when the seek runs (clamping to the window's end).
        let target = (try? liveSeekWindow())??.end ?? MediaTime(value: Int64.max / 4, timescale: 1)
        let t = target.isNumeric ? target : MediaTime(value: Int64.max / 4, timescale: 1)
        return try seek(to: t, precision: .exact) { completion($0, nil) }
    }

    /// Seeks to a wall-clock date. The C function is `fpx_player_seek_to_date`.
    public func seekToDate(microseconds us: Int64, precision: SeekPrecision, convention: FrameConvention = .onScreen,
                           completion: @escaping @Sendable (DateSeekResult) -> Void) throws -> UInt64 {
        // The precision, validated once (the date is checked against the window below).
        let checked = try SeekTarget(time: .zero, precision: precision, convention: convention)
        let engine: PlayerEngine? = try m.locked {
            guard !destroyed else { throw ErrorCode.invalidHandle }
            return item?.engine
        }
        func refuse(_ r: DateSeekUnavailableReason) -> UInt64 {
            events.post { completion(.unavailable(requestedMicroseconds: us, reason: r)) }
            return 0
        }
        let hasItem = m.locked { item != nil }
        guard hasItem else { return refuse(.noCurrentItem) }
        guard let e = engine, let w = e.liveWindow() else { return refuse(.noCurrentItem) }
        guard w.isDateAddressable, let ws = w.startDateMicroseconds, let we = w.endDateMicroseconds else {
            return refuse(.streamIsNotDateAddressable)
        }
        guard us >= ws, us <= we, let t = e.itemTime(forDateMicroseconds: us) else {
            return refuse(.dateOutsideSeekableWindow(requestedMicroseconds: us, windowStartMicroseconds: ws,
                                                     windowEndMicroseconds: we))
        }
        return try seek(checked.at(t)) { completion(.seeked($0)) }
    }
}
