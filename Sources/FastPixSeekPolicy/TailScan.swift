/// The last frame of a tail read to the end of the data, in decode order, and whether
/// the data ends in a packet cut short (`Lander.scanLastFrame`). Pure: the lander feeds
/// it each packet's facts, in the order it read them.
struct TailScan {
    /// The largest last frame of the reference packets read whole before the cut, and
    /// how many reference packets that is.
    private var whole: (last: Int64?, count: Int) = (nil, 0)
    /// The same over every reference packet (the range as if nothing were cut).
    private var all: (last: Int64?, count: Int) = (nil, 0)
    /// A packet cut short (of any stream) was read, and no whole reference packet after it.
    private(set) var endsAtCut = false

    /// One packet: on the reference stream or not, cut short or not, and the last frame
    /// it presents when it is landable (nil otherwise).
    mutating func add(onRef: Bool, cut: Bool, lastFrame: Int64?) {
        if cut {
            endsAtCut = true
        } else if onRef && endsAtCut {
            // Data follows the damaged packet: damage inside the file, not its end.
            endsAtCut = false
            whole = all
        }
        guard onRef else { return }
        all = (Self.max(all.last, lastFrame), all.count + 1)
        if !endsAtCut { whole = (Self.max(whole.last, lastFrame), whole.count + 1) }
    }

    /// The tail's last frame and how many reference packets prove it: those before the
    /// cut when the data ends in one, else every one read.
    var result: (last: Int64?, count: Int) { endsAtCut ? whole : all }

    private static func max(_ a: Int64?, _ b: Int64?) -> Int64? {
        guard let a = a else { return b }
        guard let b = b else { return a }
        return Swift.max(a, b)
    }
}
