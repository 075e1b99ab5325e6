import CFastPixSeekABI
import FastPixSeekCore

/// A host's C callback and the userdata handed back to it: what every export taking a
/// `(callback, userdata)` pair keeps, to call later on another thread (a completion on the
/// delivery thread, the log callback on any thread, the wakeup on a library thread: seek.h).
/// nil when the host passed no callback. (A listener's members travel together in CListener,
/// Exports+Player.swift.)
///
/// The function is kept as its address and each export casts it back to its own C type
/// (`unsafeBitCast(host.function, to: fpx_seek_callback.self)`), in code that names that type:
/// not generic over the function type, because Swift 6.0.3 (Debian 13's) asserts in SILGen on a
/// call through a C function pointer held as a generic value.
// @unchecked Sendable: the address of the host's C function and the host's opaque pointer,
// which the library never dereferences, only hands back to the host's own function.
struct HostCallback: @unchecked Sendable {
    let function: UnsafeRawPointer
    let userdata: UnsafeMutableRawPointer?

    /// `function`: the host's C function pointer (`unsafeBitCast(callback, to:
    /// UnsafeRawPointer?.self)`), nil for none.
    init?(_ function: UnsafeRawPointer?, _ userdata: UnsafeMutableRawPointer?) {
        guard let function else { return nil }
        self.function = function
        self.userdata = userdata
    }

    /// A completion for the core: `deliver` turns each value into the C arguments and calls
    /// the host's function (on the thread that runs the completion).
    func completion<Value>(_ deliver: @escaping @Sendable (Value, HostCallback) -> Void) -> @Sendable (Value) -> Void {
        { [self] value in deliver(value, self) }
    }
}

/// `body` with the C copy of `outcome` (nil for none), for a result struct's `outcome`
/// member: the pointer is valid for the call only, as seek.h says of callback arguments.
func withCOutcome(_ outcome: SeekOutcome?, _ body: (UnsafePointer<fpx_seek_outcome>?) -> Void) {
    guard let o = outcome else { return body(nil) }
    var c = cOutcome(o)
    withUnsafePointer(to: &c) { body($0) }
}
