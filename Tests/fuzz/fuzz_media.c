/* libFuzzer harness (a): media bytes -> open -> seeks, steps, reads.
 *
 * Input: byte 0 = mode (bit 0: deliver the bytes as the one segment of an HLS
 * VOD playlist, which the library demuxes from memory through its custom
 * AVIOContext; else as a plain file), bytes 1..15 = 15 operations, the rest =
 * the media. An operation byte is kind (high 3 bits) and argument (low 5):
 *   0 exact seek to arg/4 s      1 nearest-keyframe seek to 0.3*arg s, tolerance arg/10 s
 *   2 step forward 1..4          3 step backward 1..4
 *   4 read arg+1 packets (every payload byte is touched)
 *   5 current_time, seekable_range, live window
 *   6 cancel pending seeks       7 item info, stream info (extradata touched)
 * See fuzz_common.h for the invariants. */
#include "fuzz_common.h"

#define NOPS 15

static volatile uint8_t sink;

static void touch(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    size_t i;
    for (i = 0; i < n; i++)
        s ^= p[i];
    sink ^= s;
}

static void run_ops(fpx_player *p, fz_counts *c, const uint8_t *ops)
{
    int i, k;
    for (i = 0; i < NOPS; i++) {
        int kind = ops[i] >> 5, arg = ops[i] & 31;
        switch (kind) {
        case 0:
            fz_seek(p, c, fpx_time_make(arg, 4), fpx_precision_exact());
            break;
        case 1:
            fz_seek(p, c, fpx_time_make(3 * arg, 10), fpx_precision_nearest_keyframe(fpx_time_make(arg, 10)));
            break;
        case 2:
        case 3: {
            fpx_frame_step_result r = {.struct_size = sizeof r};
            FZ_RC(fpx_player_step_frame(p, kind == 2 ? FPX_STEP_FORWARD : FPX_STEP_BACKWARD, 1 + arg % 4, &r));
            break;
        }
        case 4:
            for (k = 0; k <= arg; k++) {
                fpx_packet pk = {.struct_size = sizeof pk};
                int rc = fpx_player_read_packet(p, &pk);
                FZ_RC(rc);
                if (rc != FPX_OK)
                    break;
                touch(pk.data, pk.size);
                /* seek.h "Disposable packets": only ever on a DECODE_ONLY packet, never with
                 * DISCONTINUITY or CORRUPT. */
                if ((pk.flags & FPX_PACKET_FLAG_DISPOSABLE) &&
                    (!(pk.flags & FPX_PACKET_FLAG_DECODE_ONLY) ||
                     (pk.flags & (FPX_PACKET_FLAG_DISCONTINUITY | FPX_PACKET_FLAG_CORRUPT))))
                    fz_fail("DISPOSABLE without DECODE_ONLY, or with DISCONTINUITY/CORRUPT", rc, __LINE__);
            }
            break;
        case 5: {
            fpx_time t, a, b;
            fpx_live_seek_window w = {.struct_size = sizeof w};
            FZ_RC(fpx_player_current_time(p, &t));
            FZ_RC(fpx_player_seekable_range(p, &a, &b));
            FZ_RC(fpx_player_live_seek_window(p, &w));
            break;
        }
        case 6:
            FZ_RC(fpx_player_cancel_pending_seeks(p, NULL));
            break;
        default: {
            fpx_item_info ii = {.struct_size = sizeof ii};
            fpx_stream_info si = {.struct_size = sizeof si};
            int rc = fpx_player_item_info(p, &ii);
            FZ_RC(rc);
            if (rc == FPX_OK && ii.format_name)
                touch((const uint8_t *)ii.format_name, strlen(ii.format_name));
            rc = fpx_player_stream_info(p, arg % 4, &si);
            FZ_RC(rc);
            if (rc == FPX_OK && si.extradata)
                touch(si.extradata, si.extradata_size);
            break;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char media[1024], url[1024], playlist[256];
    fpx_player *p;
    fz_counts c;
    int rc;
    if (size < 1 + NOPS + 1)
        return 0;
    snprintf(media, sizeof media, "%s/media.bin", fz_dir());
    if (fz_write(media, data + 1 + NOPS, size - 1 - NOPS) != 0)
        return 0;
    if (data[0] & 1) {
        snprintf(url, sizeof url, "%s/media.m3u8", fz_dir());
        snprintf(playlist, sizeof playlist,
                 "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\nmedia.bin\n#EXT-X-ENDLIST\n");
        if (fz_write(url, playlist, strlen(playlist)) != 0)
            return 0;
    } else {
        snprintf(url, sizeof url, "%s", media);
    }
    fz_counts_init(&c);
    p = fz_player(FPX_DELIVERY_THREAD, 2000);
    if (!p)
        abort();
    FZ_RC(fpx_player_open(p, url));
    rc = fpx_player_wait_item(p, 5000, NULL);
    FZ_RC(rc);
    FZ_RC(fpx_player_setup_seek_manager(p));
    run_ops(p, &c, data + 1);
    fz_destroy_check(p, &c);
    fz_after_destroy_check(&c);
    return 0;
}
