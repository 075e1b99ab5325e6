import CFFmpeg
import FastPixSeekCore

/// av_dict_set for the options of one open. Its only failure for these keys and values is an
/// allocation (ENOMEM): that is FPX_ERROR_NO_MEMORY and `dict` is freed, so no open goes
/// ahead without an option the player's policy put there (the protocol whitelist, the I/O
/// timeout, the allocation bounds of seek.h section 8), as it did when the result was ignored.
func setOption(_ dict: inout OpaquePointer?, _ key: String, _ value: String) throws {
    if av_dict_set(&dict, key, value, 0) < 0 {
        av_dict_free(&dict)
        throw EngineError(.noMemory)
    }
}
