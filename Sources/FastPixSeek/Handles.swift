import CFastPixSeekABI
import FastPixSeekCore

/// Live players by handle token. A handle is an opaque, never-reused token,
/// not a pointer: a destroyed or forged handle is looked up, never dereferenced.
enum Handles {
    private static let m = Monitor()
    // Guarded by `m`: every read and write of `players` and `next` holds it.
    nonisolated(unsafe) private static var players: [UInt: Player] = [:]
    nonisolated(unsafe) private static var next: UInt = 1

    static func register(_ p: Player) -> OpaquePointer? {
        m.locked {
            let token = (next << 4) | 0x5
            next += 1
            players[token] = p
            return OpaquePointer(bitPattern: token)
        }
    }

    static func player(_ h: OpaquePointer?) -> Player? {
        guard let h = h else { return nil }
        let token = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(h)))
        return m.locked { players[token] }
    }

    /// The scrub session handle of a player handle: the same token, tagged.
    static func scrubHandle(of player: OpaquePointer?) -> OpaquePointer? {
        guard let h = player else { return nil }
        return OpaquePointer(bitPattern: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(h))) | 0x8)
    }

    /// The player behind a scrub session handle.
    static func playerOfScrub(_ h: OpaquePointer?) -> Player? {
        guard let h = h else { return nil }
        let token = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(h)))
        guard token & 0xF == 0xD else { return nil }
        return m.locked { players[token & ~UInt(0x8)] }
    }

    /// Removes and returns the player: the handle is invalid from here on.
    static func unregister(_ h: OpaquePointer?) -> Player? {
        guard let h = h else { return nil }
        let token = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(h)))
        return m.locked { players.removeValue(forKey: token) }
    }
}

/// Runs `body` with the player for `handle`, mapping thrown codes. `function` is the C
/// function being served: one not marked "Callback-safe: yes" in seek.h (the generated
/// CFunction table, ABITables.swift) returns FPX_ERROR_IN_CALLBACK from inside a callback.
/// There is no default: every export names itself.
///
/// Refused from inside any callback the library runs on this thread (any player's event,
/// the wakeup, the log callback: `CallbackScope`), whichever player it is called on: such
/// a call may wait for a worker, a lock or a delivery thread that the calling thread itself
/// is, or holds up.
@inline(__always)
func withPlayer(_ function: CFunction, _ handle: OpaquePointer?, _ body: (Player) throws -> Void) -> Int32 {
    guard let p = Handles.player(handle) else { return ErrorCode.invalidHandle.rawValue }
    if !function.isCallbackSafe && (CallbackScope.isActive || p.isInCallback) { return ErrorCode.inCallback.rawValue }
    do {
        try body(p)
        return 0
    } catch let e as ErrorCode {
        return e.rawValue
    } catch let e as EngineError {
        return e.code.rawValue
    } catch {
        return ErrorCode.internal.rawValue
    }
}

func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
