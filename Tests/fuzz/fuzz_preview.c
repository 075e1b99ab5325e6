/* libFuzzer harness (c): preview sources (seek.h, "Seek previews"), through the public API.
 *
 * The first byte picks the kind (even: spritesheet.json, odd: WebVTT); the rest is written as
 * the source file and given to fpx_player_set_preview_source (no item: sheets need none).
 * Invariants: a named code, never INTERNAL; FPX_ERROR_PREVIEW_MALFORMED names a field,
 * FPX_OK none; after an error fpx_player_preview is FPX_ERROR_NO_PREVIEW; after FPX_OK every
 * preview (times before, inside and past the range, and the next start as a time) has an
 * image URL, a rectangle inside the image cap, start <= time < end (or time == end for the
 * range's end), and asking at its start gives the same tile. Images are never fetched, so
 * URLs in the input reach nothing. See fuzz_common.h for the invariants of every harness. */
#include "fuzz_common.h"

static int time_le(fpx_time a, fpx_time b) { return fpx_time_compare(a, b) <= 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fpx_player *p;
    char path[1024];
    fpx_preview_kind kind;
    fpx_preview_field field = (fpx_preview_field)-1;
    int rc, i;
    if (size < 1)
        return 0;
    if (!p)
        p = fz_player(FPX_DELIVERY_THREAD, 2000);
    kind = (data[0] & 1) ? FPX_PREVIEW_WEBVTT : FPX_PREVIEW_SPRITESHEET;
    snprintf(path, sizeof path, "%s/fz.preview", fz_dir());
    if (fz_write(path, data + 1, size - 1) != 0)
        return 0;
    rc = fpx_player_set_preview_source(p, kind, path, &field);
    FZ_RC(rc);
    /* bad_field: set on every return; a field for MALFORMED, none for OK; an image URL
     * refused (PROTOCOL_NOT_ALLOWED, UNSUPPORTED) names its field */
    if (rc == FPX_ERROR_PREVIEW_MALFORMED ? field == FPX_PREVIEW_FIELD_NONE
        : (rc == FPX_ERROR_PROTOCOL_NOT_ALLOWED || rc == FPX_ERROR_UNSUPPORTED) ? (int)field == -1
        : field != FPX_PREVIEW_FIELD_NONE)
        fz_fail("bad_field does not match the code", rc, __LINE__);
    if (rc != FPX_OK) {
        fpx_preview v;
        memset(&v, 0, sizeof v);
        v.struct_size = sizeof v;
        if (fpx_player_preview(p, fpx_time_make(0, 1), &v) != FPX_ERROR_NO_PREVIEW)
            fz_fail("a source that failed still gives previews", rc, __LINE__);
        return 0;
    }
    {
        fpx_time times[6];
        times[0] = fpx_time_make(-1, 1);
        times[1] = fpx_time_make(0, 1);
        times[2] = fpx_time_make(1001, 24000);
        times[3] = fpx_time_make(37, 10);
        times[4] = fpx_time_make(3600, 1);
        times[5] = fpx_time_make(INT64_MAX / 2, 1000);
        for (i = 0; i < 6; i++) {
            fpx_preview v, again;
            memset(&v, 0, sizeof v);
            v.struct_size = sizeof v;
            FZ_RC(rc = fpx_player_preview(p, times[i], &v));
            if (rc != FPX_OK)
                fz_fail("a loaded source gives no preview", rc, __LINE__);
            if (!v.image_url || !v.image_url[0] || v.width < 1 || v.height < 1 || v.x < 0 || v.y < 0 ||
                (long)v.x + v.width > FPX_PREVIEW_MAX_IMAGE_SIDE || (long)v.y + v.height > FPX_PREVIEW_MAX_IMAGE_SIDE)
                fz_fail("a tile outside the image cap or without an image", 0, __LINE__);
            if (!time_le(v.start, v.time) || !time_le(v.time, v.end))
                fz_fail("the time is not within its tile", 0, __LINE__);
            memset(&again, 0, sizeof again);
            again.struct_size = sizeof again;
            FZ_RC(fpx_player_preview(p, v.start, &again));
            if (again.x != v.x || again.y != v.y || fpx_time_compare(again.start, v.start) != 0 ||
                strcmp(again.image_url, v.image_url) != 0)
                fz_fail("a tile's own start gives another tile", 0, __LINE__);
        }
    }
    return 0;
}
