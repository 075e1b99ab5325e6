import CFastPixSeekABI
import FastPixSeekCore

/// A host's C callback and the userdata handed back to it: what every export taking a
/// `(callback, userdata)` pair keeps, to call later on another thread (a completion on the
/// delivery thread, the log callback on any thread, the wakeup on a library thread: seek.h).
/// nil when the host passed no callback. (A listener's members travel together in CListener,
/// Exports+Player.swift.)
// @unchecked Sendable: an immutable C function pointer and the host's opaque pointer, which
// the library never dereferences, only hands back to the host's own function.
struct HostCallback<Function>: @unchecked Sendable {
    let function: Function
    let userdata: UnsafeMutableRawPointer?

    init?(_ function: Function?, _ userdata: UnsafeMutableRawPointer?) {
        guard let function else { return nil }
        self.function = function
        self.userdata = userdata
    }

    /// A completion for the core: `deliver` turns each value into the C arguments and calls
    /// `function` with them and `userdata` (on the thread that runs the completion).
    func completion<Value>(
        _ deliver: @escaping @Sendable (Value, Function, UnsafeMutableRawPointer?) -> Void
    ) -> @Sendable (Value) -> Void {
        { value in deliver(value, function, userdata) }
    }
}

/// `body` with the C copy of `outcome` (nil for none), for a result struct's `outcome`
/// member: the pointer is valid for the call only, as seek.h says of callback arguments.
func withCOutcome(_ outcome: SeekOutcome?, _ body: (UnsafePointer<fpx_seek_outcome>?) -> Void) {
    guard let o = outcome else { return body(nil) }
    var c = cOutcome(o)
    withUnsafePointer(to: &c) { body($0) }
}
