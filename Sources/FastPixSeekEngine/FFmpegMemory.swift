import CFFmpeg
import FastPixSeekCore

// Out of memory in libavformat's open paths as FPX_ERROR_NO_MEMORY (seek.h section 6,
// "Memory exhaustion"; issue 26.6).

/// av_dict_set for the options of one open. Its only failure for these keys and values is an
/// allocation (ENOMEM): that is FPX_ERROR_NO_MEMORY and `dict` is freed, so no open goes
/// ahead without an option the player's policy put there (the protocol whitelist, the I/O
/// timeout, the allocation bounds of seek.h section 8), as it did when the result was ignored.
func setOption(_ dict: inout OpaquePointer?, _ key: String, _ value: String) throws {
    if ffmpeg_av_dict_set(&dict, key, value, 0) < 0 {
        ffmpeg_av_dict_free(&dict)
        throw EngineError(.noMemory)
    }
}

/// The error of a failed open (avformat_open_input, avformat_find_stream_info, avio_open2):
/// `g`'s mapping (a refusal, a timeout, an interruption or a cancel first), with what
/// libavformat makes of its own allocation failures as FPX_ERROR_NO_MEMORY: its protocol
/// lookup allocates the list of protocols and answers AVERROR_PROTOCOL_NOT_FOUND when that
/// fails, so that answer for a URL ProtocolGate.check found a protocol for (`checked`) is
/// FPX_ERROR_NO_MEMORY; and MemoryReserve.classify (an open during which the process ran out
/// of memory: `epoch` is MemoryReserve.epoch at the open's start).
func openError(_ ret: Int32, guard g: IOGuard, checked: Bool, epoch: UInt) -> EngineError {
    let e = g.error(for: ret)
    if checked && ret == fpx_averror_protocol_not_found() && e.code == .unsupported {
        return EngineError(.noMemory, avError: ret)
    }
    return EngineError(MemoryReserve.classify(e.code, since: epoch), avError: e.avError)
}
