/* Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit. */
/*
 * test_abi_tables: every name and string the library gives for the header's
 * constants is the header's: fpx_error_name and fpx_error_string (the constant's doc
 * comment, word for word) for every fpx_error code, every fpx_*_name function for
 * every constant of its enum, and the fallbacks for values the header does not
 * define. The values come from the header's constants, so a renumbering that the
 * library missed fails here.
 */
#include "check.h"

#include <limits.h>

struct entry { const char *name; int value; const char *text; };

static const struct entry errors[] = {
    {"FPX_OK", FPX_OK, "success"},
    {"FPX_ERROR_INVALID_HANDLE", FPX_ERROR_INVALID_HANDLE, "invalid handle: NULL, destroyed or foreign"},
    {"FPX_ERROR_INVALID_ARGUMENT", FPX_ERROR_INVALID_ARGUMENT, "invalid argument: a NULL pointer or an out-of-range value"},
    {"FPX_ERROR_INVALID_TIME", FPX_ERROR_INVALID_TIME, "invalid time: NaN, infinite, invalid, timescale <= 0"},
    {"FPX_ERROR_UNKNOWN_ENUM", FPX_ERROR_UNKNOWN_ENUM, "an enum value this library does not know"},
    {"FPX_ERROR_NO_MEMORY", FPX_ERROR_NO_MEMORY, "out of memory"},
    {"FPX_ERROR_NO_ITEM", FPX_ERROR_NO_ITEM, "nothing is attached to the player"},
    {"FPX_ERROR_ITEM_NOT_READY", FPX_ERROR_ITEM_NOT_READY, "the item is still loading"},
    {"FPX_ERROR_ITEM_FAILED", FPX_ERROR_ITEM_FAILED, "the item failed to load; see its status"},
    {"FPX_ERROR_NOT_FOUND", FPX_ERROR_NOT_FOUND, "missing file, HTTP 404, unknown listener id"},
    {"FPX_ERROR_IO", FPX_ERROR_IO, "I/O error: read error, connection reset"},
    {"FPX_ERROR_TIMEOUT", FPX_ERROR_TIMEOUT, "timed out: the player's I/O timeout, or the call's own time limit (timeout_ms), expired"},
    {"FPX_ERROR_INVALID_DATA", FPX_ERROR_INVALID_DATA, "corrupt, truncated or unrecognised media"},
    {"FPX_ERROR_UNSUPPORTED", FPX_ERROR_UNSUPPORTED, "a protocol or feature this build cannot do, or a local path that is no regular file (a directory, FIFO, device, socket)"},
    {"FPX_ERROR_NO_STREAM", FPX_ERROR_NO_STREAM, "no audio or video stream to seek on"},
    {"FPX_ERROR_EOF", FPX_ERROR_EOF, "end of the item's packets"},
    {"FPX_ERROR_CANCELLED", FPX_ERROR_CANCELLED, "cancelled: the item was closed or replaced, or the player destroyed"},
    {"FPX_ERROR_IN_CALLBACK", FPX_ERROR_IN_CALLBACK, "not callable from inside a callback"},
    {"FPX_ERROR_WRONG_MODE", FPX_ERROR_WRONG_MODE, "not available in this delivery mode (e.g. dispatch on a FPX_DELIVERY_THREAD player)"},
    {"FPX_ERROR_NETWORK", FPX_ERROR_NETWORK, "connection refused, unreachable host"},
    {"FPX_ERROR_NO_SEEK_MANAGER", FPX_ERROR_NO_SEEK_MANAGER, "the operation needs fpx_player_setup_seek_manager"},
    {"FPX_ERROR_INTERNAL", FPX_ERROR_INTERNAL, "internal error: a bug, please report it"},
    {"FPX_ERROR_INVALID_STATE", FPX_ERROR_INVALID_STATE, "invalid state (e.g. fpx_scrub_update without fpx_scrub_begin)"},
    {"FPX_ERROR_EXPIRED", FPX_ERROR_EXPIRED, "the live segment being read left the playlist window"},
    {"FPX_ERROR_STALLED", FPX_ERROR_STALLED, "a live playlist stopped updating"},
    {"FPX_ERROR_PROTOCOL_NOT_ALLOWED", FPX_ERROR_PROTOCOL_NOT_ALLOWED, "refused by the protocol policy (see \"Untrusted media\")"},
    {"FPX_ERROR_INTERRUPTED", FPX_ERROR_INTERRUPTED, "a blocked read stopped by a seek, cancel, close or destroy"},
    {"FPX_ERROR_TOO_LARGE", FPX_ERROR_TOO_LARGE, "media exceeds the player's buffer cap (max_buffer_bytes)"},
    {"FPX_ERROR_FFMPEG_MISMATCH", FPX_ERROR_FFMPEG_MISMATCH, "loaded FFmpeg majors differ from the build's; see \"FFmpeg ABI\""},
    {"FPX_ERROR_REFERENCE_STREAM", FPX_ERROR_REFERENCE_STREAM, "the reference stream cannot be disabled"},
    {"FPX_ERROR_NO_FILE_DESCRIPTORS", FPX_ERROR_NO_FILE_DESCRIPTORS, "the process (EMFILE) or system (ENFILE) is out of file descriptors"},
    {"FPX_ERROR_ENCRYPTION", FPX_ERROR_ENCRYPTION, "HLS encryption that cannot be applied: an EXT-X-KEY METHOD other than NONE or AES-128 (SAMPLE-AES...), a KEYFORMAT other than identity, a key that cannot be fetched or is not 16 bytes, or a segment that does not decrypt; a DASH MPD with ContentProtection (added in 0.4.0)"},
    {"FPX_ERROR_NO_PREVIEW", FPX_ERROR_NO_PREVIEW, "the player has no preview source: show a timestamp-only preview (added in 0.4.0)"},
    {"FPX_ERROR_PREVIEW_MALFORMED", FPX_ERROR_PREVIEW_MALFORMED, "a preview source (spritesheet.json, WebVTT track) with a field that does not parse; fpx_player_set_preview_source names the field (added in 0.4.0)"},
};

static const struct entry fpx_finish_reason_names[] = {
    {"FPX_FINISH_COMPLETED", FPX_FINISH_COMPLETED, NULL},
    {"FPX_FINISH_CANCELLED", FPX_FINISH_CANCELLED, NULL},
    {"FPX_FINISH_SUPERSEDED", FPX_FINISH_SUPERSEDED, NULL},
    {"FPX_FINISH_NO_SEEK_MANAGER", FPX_FINISH_NO_SEEK_MANAGER, NULL},
    {"FPX_FINISH_FAILED", FPX_FINISH_FAILED, NULL},
};

static const struct entry fpx_clamp_kind_names[] = {
    {"FPX_CLAMP_NONE", FPX_CLAMP_NONE, NULL},
    {"FPX_CLAMP_TO_SEEKABLE_START", FPX_CLAMP_TO_SEEKABLE_START, NULL},
    {"FPX_CLAMP_TO_SEEKABLE_END", FPX_CLAMP_TO_SEEKABLE_END, NULL},
    {"FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN", FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN, NULL},
};

static const struct entry fpx_landing_resolution_names[] = {
    {"FPX_LANDING_NONE", FPX_LANDING_NONE, NULL},
    {"FPX_LANDING_COVERING_FRAME", FPX_LANDING_COVERING_FRAME, NULL},
    {"FPX_LANDING_KEYFRAME", FPX_LANDING_KEYFRAME, NULL},
    {"FPX_LANDING_FALLBACK_COVERING_FRAME", FPX_LANDING_FALLBACK_COVERING_FRAME, NULL},
};

static const struct entry fpx_item_status_names[] = {
    {"FPX_ITEM_NONE", FPX_ITEM_NONE, NULL},
    {"FPX_ITEM_LOADING", FPX_ITEM_LOADING, NULL},
    {"FPX_ITEM_READY", FPX_ITEM_READY, NULL},
    {"FPX_ITEM_FAILED", FPX_ITEM_FAILED, NULL},
};

static void check_table(const char *fn, const char *(*name_of)(int), const struct entry *t, size_t n)
{
    size_t i;
    int probe;
    for (i = 0; i < n; i++) {
        if (!CHECK_STR(name_of(t[i].value), t[i].name))
            NOTE("%s(%d)", fn, t[i].value);
    }
    for (probe = -1000; probe <= 1000; probe += 7) {
        int known = 0;
        for (i = 0; i < n; i++)
            known |= t[i].value == probe;
        if (!known && !CHECK_STR(name_of(probe), "FPX_UNKNOWN"))
            NOTE("%s(%d)", fn, probe);
    }
}

int main(int argc, char **argv)
{
    size_t i, j, n = sizeof errors / sizeof errors[0];
    int probe;
    check_init(argc, argv, 30);

    SECTION("fpx_error_name and fpx_error_string: the header's name and text of every code");
    for (i = 0; i < n; i++) {
        CHECK_STR(fpx_error_name(errors[i].value), errors[i].name);
        if (!CHECK_STR(fpx_error_string(errors[i].value), errors[i].text))
            NOTE("fpx_error_string(%s)", errors[i].name);
        for (j = 0; j < i; j++)
            if (!CHECK(strcmp(errors[i].text, errors[j].text) != 0))
                NOTE("%s and %s share their text", errors[i].name, errors[j].name);
    }

    SECTION("codes the header does not define: \"unknown error\" and FPX_UNKNOWN");
    for (probe = -1000; probe <= 1000; probe += 3) {
        int known = 0;
        for (i = 0; i < n; i++)
            known |= errors[i].value == probe;
        if (known)
            continue;
        if (!CHECK_STR(fpx_error_string(probe), "unknown error") ||
            !CHECK_STR(fpx_error_name(probe), "FPX_UNKNOWN"))
            NOTE("code %d", probe);
    }
    CHECK_STR(fpx_error_string(INT_MIN), "unknown error");
    CHECK_STR(fpx_error_name(INT_MAX), "FPX_UNKNOWN");

    SECTION("fpx_finish_reason_name: every fpx_finish_reason constant, and FPX_UNKNOWN");
    check_table("fpx_finish_reason_name", fpx_finish_reason_name, fpx_finish_reason_names,
                sizeof fpx_finish_reason_names / sizeof fpx_finish_reason_names[0]);

    SECTION("fpx_clamp_kind_name: every fpx_clamp_kind constant, and FPX_UNKNOWN");
    check_table("fpx_clamp_kind_name", fpx_clamp_kind_name, fpx_clamp_kind_names,
                sizeof fpx_clamp_kind_names / sizeof fpx_clamp_kind_names[0]);

    SECTION("fpx_landing_resolution_name: every fpx_landing_resolution constant, and FPX_UNKNOWN");
    check_table("fpx_landing_resolution_name", fpx_landing_resolution_name, fpx_landing_resolution_names,
                sizeof fpx_landing_resolution_names / sizeof fpx_landing_resolution_names[0]);

    SECTION("fpx_item_status_name: every fpx_item_status constant, and FPX_UNKNOWN");
    check_table("fpx_item_status_name", fpx_item_status_name, fpx_item_status_names,
                sizeof fpx_item_status_names / sizeof fpx_item_status_names[0]);
    return check_summary();
}
