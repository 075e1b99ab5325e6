/* libFuzzer harness (c): the HLS playlist parser, through the public API.
 *
 * The input is written as a playlist file next to two real MPEG-TS segments
 * (s0.ts, s1.ts, copied from FPX_FUZZ_MEDIA_DIR/tiny.ts) and opened: the
 * library's own parser (RFC 8216) reads it, the HLS engine follows master
 * playlists, byte ranges, maps, dates and discontinuities, and demuxes what
 * resolves. Then: the live window, a read, an exact seek, a step and the date
 * seek. Inputs naming network URLs ("://") are skipped: a fuzzer must not
 * reach the network. See fuzz_common.h for the invariants. */
#include "fuzz_common.h"

static void setup_segments(void)
{
    static int done;
    char src[1024], dst[1024];
    const char *d = getenv("FPX_FUZZ_MEDIA_DIR");
    FILE *f;
    uint8_t *buf;
    long n;
    int i;
    if (done)
        return;
    done = 1;
    snprintf(src, sizeof src, "%s/tiny.ts", d ? d : "Tests/fuzz/files");
    f = fopen(src, "rb");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        for (i = 0; i < 2; i++) {
            snprintf(dst, sizeof dst, "%s/s%d.ts", fz_dir(), i);
            fz_write(dst, buf, (size_t)n);
        }
    }
    free(buf);
    fclose(f);
}

static void on_date(const fpx_date_seek_result *r, void *ud)
{
    fz_on_seek(r->outcome, ud);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[1024];
    fpx_player *p;
    fz_counts c;
    size_t i;
    int rc;
    for (i = 0; i + 2 < size; i++)
        if (data[i] == ':' && data[i + 1] == '/' && data[i + 2] == '/')
            return 0;
    setup_segments();
    snprintf(path, sizeof path, "%s/fz.m3u8", fz_dir());
    if (fz_write(path, data, size) != 0)
        return 0;
    fz_counts_init(&c);
    p = fz_player(FPX_DELIVERY_THREAD, 1000);
    if (!p)
        abort();
    FZ_RC(fpx_player_open(p, path));
    rc = fpx_player_wait_item(p, 3000, NULL);
    FZ_RC(rc);
    FZ_RC(fpx_player_setup_seek_manager(p));
    if (rc == FPX_OK) {
        fpx_live_seek_window w = {.struct_size = sizeof w};
        fpx_packet pk = {.struct_size = sizeof pk};
        fpx_frame_step_result r = {.struct_size = sizeof r};
        fpx_item_info ii = {.struct_size = sizeof ii};
        FZ_RC(fpx_player_live_seek_window(p, &w));
        FZ_RC(fpx_player_item_info(p, &ii));
        FZ_RC(fpx_player_read_packet(p, &pk));
        fz_seek(p, &c, fpx_time_make(size % 7, 2), fpx_precision_exact());
        FZ_RC(fpx_player_step_frame(p, size % 2 ? FPX_STEP_FORWARD : FPX_STEP_BACKWARD, 1, &r));
        if (w.is_date_addressable) {
            rc = fpx_player_seek_to_date(p, w.start_date_us + 1000, fpx_precision_exact(), on_date, &c, NULL);
            FZ_RC(rc);
            if (rc == FPX_OK) { pthread_mutex_lock(&c.mu); c.issued++; pthread_mutex_unlock(&c.mu); }
        }
        FZ_RC(fpx_player_read_packet(p, &pk));
    }
    fz_destroy_check(p, &c);
    fz_after_destroy_check(&c);
    return 0;
}
