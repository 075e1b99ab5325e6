/*
 * test_hls_audio.c -- HLS separate audio renditions through the C API (seek.h, "HLS
 * variants and renditions", fpx_player_config.hls_audio, fpx_hls_rendition.selected and
 * stream_index), on a master ffmpeg wrote with -var_stream_map (two video-only variants,
 * two AUDIO renditions with their own playlists, 48 kHz DEFAULT and 22.05 kHz; run.sh
 * makes it):
 *   - hls_audio below -1 is FPX_ERROR_INVALID_ARGUMENT at create; a host whose config ends
 *     before hls_audio (garbage after its size) gets the automatic choice;
 *   - automatic: two streams, stream 1 is the rendition's audio, the rendition says
 *     selected 1, stream_index 1; -1: one stream, selected 0, stream_index -1; an index
 *     that names no AUDIO rendition fails the open with FPX_ERROR_INVALID_ARGUMENT;
 *   - fpx_hls_rendition written only up to the caller's struct_size (guard bytes);
 *   - after an exact seek: packets of both streams in decode order on the item timeline
 *     (item_origin_pts), one DISCONTINUITY, the audio packet straddling the landing
 *     carrying trim_samples = ceil((landing - pts) x rate), decode-only before it;
 *   - fpx_player_hls_select_audio: indexes of audio renditions are accepted, others are
 *     FPX_ERROR_INVALID_ARGUMENT, an item without a second feed FPX_ERROR_UNSUPPORTED; the
 *     switch shows at the next seek (stream facts, the rendition selected);
 *   - fpx_player_hls_select_variant: an index past the list is FPX_ERROR_INVALID_ARGUMENT,
 *     a file FPX_ERROR_UNSUPPORTED, no item FPX_ERROR_NO_ITEM; a switch shows at the next
 *     seek (selected, the video width);
 *   - a media playlist opened alone (no master): no variants, no renditions, both switches
 *     FPX_ERROR_UNSUPPORTED;
 *   - switches, listings and stream facts from another thread while this one seeks and
 *     reads (run under TSan by make test-tsan-c): every call succeeds, every packet's
 *     stream facts are one of the two renditions'.
 * usage: test_hls_audio FIXTURE_DIR HLS_DIR
 */
#include "check.h"

#include <stdatomic.h>
#include <stddef.h>

__extension__ typedef __int128 i128; /* exact rational arithmetic */

static char master[4096];
static char media[4096];   /* a media playlist of the master (no master) */

static fpx_player *open_with(int32_t hls_audio, size_t size, int *rc_out)
{
    unsigned char buf[sizeof(fpx_player_config) + 64];
    fpx_player_config *cfg = (fpx_player_config *)(void *)buf;
    fpx_player *p = NULL;
    int rc;
    memset(buf, 0x5A, sizeof buf);   /* garbage past an old host's size */
    fpx_player_config_init(cfg);
    cfg->hls_audio = hls_audio;
    if (size)
        cfg->size = size;
    if (size && size <= offsetof(fpx_player_config, hls_audio))
        memset(buf + size, 0x5A, sizeof buf - size);
    rc = fpx_player_create(cfg, &p);
    if (rc != FPX_OK) {
        *rc_out = rc;
        return NULL;
    }
    *rc_out = open_wait(p, master, NULL);
    return p;
}

static int streams(fpx_player *p)
{
    fpx_item_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (fpx_player_item_info(p, &info) != FPX_OK)
        return -1;
    return info.stream_count;
}

static int variant_selected(fpx_player *p, int i)
{
    fpx_hls_variant v;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    CHECK_OK(fpx_player_hls_variant(p, i, &v));
    return v.selected;
}

static int video_width(fpx_player *p)
{
    fpx_stream_info s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    CHECK_OK(fpx_player_stream_info(p, 0, &s));
    return s.width;
}

static fpx_hls_rendition rendition(fpx_player *p, int i)
{
    fpx_hls_rendition r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    CHECK_OK(fpx_player_hls_rendition(p, i, &r));
    return r;
}

/* ceil(n / d) */
static int64_t ceil_div(i128 n, i128 d)
{
    i128 q = n / d;
    if (n % d != 0 && ((n > 0) == (d > 0)))
        q++;
    return (int64_t)q;
}

static void landing_section(void)
{
    int rc;
    fpx_player *p = open_with(0, 0, &rc);
    fpx_stream_info vs, as;
    fpx_seek_outcome o;
    fpx_packet pkt;
    int nv = 0, na = 0, n = 0, discs = 0, order_ok = 1, straddle_ok = 1, straddles = 0, before_ok = 1;
    long double prev = -1e18L;
    REQUIRE(p != NULL && rc == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&vs, 0, sizeof vs);
    vs.struct_size = sizeof vs;
    memset(&as, 0, sizeof as);
    as.struct_size = sizeof as;
    CHECK_OK(fpx_player_stream_info(p, 0, &vs));
    CHECK_OK(fpx_player_stream_info(p, 1, &as));
    CHECK_EQ(as.type, FPX_MEDIA_AUDIO);
    CHECK_EQ(as.index, 1);
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(1234, 1000), fpx_precision_exact(), 10000, &o));
    CHECK(o.frame_covers_target);
    for (n = 0; n < 200; n++) {
        long double t;
        memset(&pkt, 0, sizeof pkt);
        pkt.struct_size = sizeof pkt;
        rc = fpx_player_read_packet(p, &pkt);
        if (rc == FPX_ERROR_EOF)
            break;
        if (!CHECK_OK(rc))
            break;
        if (pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY)
            discs++;
        if (n == 0)
            CHECK(pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY);
        {
            const fpx_stream_info *s = pkt.stream_index == 0 ? &vs : &as;
            int64_t d = pkt.dts != FPX_NOPTS ? pkt.dts : pkt.pts;
            t = (long double)d * s->time_base_num / s->time_base_den -
                (long double)pkt.item_origin_pts * vs.time_base_num / vs.time_base_den;
            if (t < prev - 1e-9L)
                order_ok = 0;
            prev = t;
        }
        if (pkt.stream_index == 0) {
            nv++;
        } else if (pkt.stream_index == 1) {
            /* landing L = landed_pts x vtb; packet [P, P + dur) x atb, on the same pts timeline */
            i128 l = (i128)pkt.landed_pts * vs.time_base_num * as.time_base_den;   /* x vden*anum */
            i128 den = (i128)vs.time_base_den * as.time_base_num;
            i128 p0 = (i128)pkt.pts * den, p1 = (i128)(pkt.pts + pkt.duration) * den;
            na++;
            CHECK_EQ(pkt.landed_pts, o.landed_stream_pts);
            CHECK_EQ(pkt.landed_stream_index, 0);
            if (p0 < l && l < p1) {
                /* ceil((L - P) x rate): (l - p0)/den stream ticks x anum/aden s x rate */
                int64_t want = ceil_div((l - p0) * as.time_base_num * as.sample_rate, den * as.time_base_den);
                straddles++;
                if (pkt.trim_samples != want || !(pkt.flags & FPX_PACKET_FLAG_DECODE_ONLY))
                    straddle_ok = 0;
            } else if (pkt.trim_samples != 0 || (p0 < l) != ((pkt.flags & FPX_PACKET_FLAG_DECODE_ONLY) != 0)) {
                before_ok = 0;
            }
        }
        if (na >= 20)
            break;
    }
    CHECK(nv > 0);
    CHECK_EQ(na, 20);
    CHECK_EQ(discs, 1);
    CHECK(order_ok);
    CHECK_EQ(straddles, 1);
    CHECK(straddle_ok);
    CHECK(before_ok);
    fpx_player_destroy(p);
}

typedef struct hammer {
    fpx_player *p;
    atomic_int stop;
    int bad;
    long calls;
} hammer;

static void *hammer_run(void *arg)
{
    hammer *h = (hammer *)arg;
    int k = 0;
    while (!atomic_load(&h->stop)) {
        fpx_hls_rendition r;
        fpx_stream_info s;
        fpx_item_info info;
        fpx_live_seek_window w;
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        memset(&s, 0, sizeof s);
        s.struct_size = sizeof s;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        memset(&w, 0, sizeof w);
        w.struct_size = sizeof w;
        if (fpx_player_hls_select_audio(h->p, k++ % 2) != FPX_OK ||
            fpx_player_hls_rendition(h->p, k % 2, &r) != FPX_OK ||
            fpx_player_stream_info(h->p, 1, &s) != FPX_OK ||
            (s.sample_rate != 48000 && s.sample_rate != 22050) ||
            fpx_player_item_info(h->p, &info) != FPX_OK || info.stream_count != 2 ||
            fpx_player_live_seek_window(h->p, &w) != FPX_OK)
            h->bad++;
        h->calls++;
    }
    return NULL;
}

static void concurrent_section(void)
{
    int rc, i, bad_reads = 0;
    hammer h;
    pthread_t t;
    fpx_player *p = open_with(0, 0, &rc);
    REQUIRE(p != NULL && rc == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&h, 0, sizeof h);
    h.p = p;
    atomic_init(&h.stop, 0);
    REQUIRE(pthread_create(&t, NULL, hammer_run, &h) == 0);
    for (i = 0; i < 24; i++) {
        fpx_seek_outcome o;
        fpx_packet pkt;
        int n;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        if (fpx_player_seek_wait(p, fpx_time_make((i * 7) % 19, 10), fpx_precision_exact(), 10000, &o) != FPX_OK ||
            !o.frame_covers_target)
            bad_reads++;
        for (n = 0; n < 12; n++) {
            memset(&pkt, 0, sizeof pkt);
            pkt.struct_size = sizeof pkt;
            rc = fpx_player_read_packet(p, &pkt);
            if (rc == FPX_ERROR_EOF)
                break;
            if (rc != FPX_OK || pkt.stream_index < 0 || pkt.stream_index > 1)
                bad_reads++;
        }
    }
    atomic_store(&h.stop, 1);
    pthread_join(t, NULL);
    CHECK_EQ(bad_reads, 0);
    CHECK_EQ(h.bad, 0);
    CHECK(h.calls > 0);
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    fpx_player *p, *bad = NULL;
    fpx_player_config cfg;
    int rc;
    if (argc < 3) {
        fprintf(stderr, "usage: test_hls_audio FIXTURE_DIR HLS_DIR\n");
        return 2;
    }
    check_init(argc, argv, 120);
    snprintf(master, sizeof master, "%s/master.m3u8", argv[2]);

    SECTION("hls_audio at create");
    fpx_player_config_init(&cfg);
    CHECK_EQ(cfg.hls_audio, 0);
    cfg.hls_audio = -2;
    CHECK_ERR(fpx_player_create(&cfg, &bad), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(bad == NULL);

    SECTION("automatic: the DEFAULT rendition is stream 1");
    p = open_with(0, 0, &rc);
    REQUIRE(p != NULL);
    CHECK_OK(rc);
    CHECK_EQ(streams(p), 2);
    {
        fpx_hls_rendition r = rendition(p, 0);
        int count = -1;
        CHECK_OK(fpx_player_hls_rendition_count(p, &count));
        CHECK_EQ(count, 2);
        CHECK_EQ(rendition(p, 1).selected, 0);
        CHECK_EQ(rendition(p, 1).stream_index, -1);
        CHECK_EQ(r.type, FPX_MEDIA_AUDIO);
        CHECK_EQ(r.has_uri, 1);
        CHECK_EQ(r.is_default, 1);
        CHECK_EQ(r.selected, 1);
        CHECK_EQ(r.stream_index, 1);
    }
    SECTION("fpx_hls_rendition: never written past struct_size");
    {
        unsigned char buf[sizeof(fpx_hls_rendition) + 128];
        size_t sizes[] = {offsetof(fpx_hls_rendition, selected), offsetof(fpx_hls_rendition, stream_index),
                          sizeof(fpx_hls_rendition)};
        size_t k, i;
        for (k = 0; k < 3; k++) {
            fpx_hls_rendition *r = (fpx_hls_rendition *)(void *)(buf + 64);
            int clean = 1;
            memset(buf, 0xA5, sizeof buf);
            r->struct_size = sizes[k];
            CHECK_OK(fpx_player_hls_rendition(p, 0, r));
            CHECK_EQ(r->struct_size, sizes[k]);
            for (i = 0; i < sizeof buf; i++)
                if ((i < 64 || i >= 64 + sizes[k]) && buf[i] != 0xA5)
                    clean = 0;
            CHECK(clean);
            if (sizes[k] == sizeof(fpx_hls_rendition))
                CHECK_EQ(r->stream_index, 1);
        }
    }
    fpx_player_destroy(p);

    SECTION("an old host's config (ends before hls_audio): automatic");
    p = open_with(7, offsetof(fpx_player_config, hls_audio), &rc);
    REQUIRE(p != NULL);
    CHECK_OK(rc);
    CHECK_EQ(streams(p), 2);
    fpx_player_destroy(p);

    SECTION("hls_audio -1: no separate audio");
    p = open_with(-1, 0, &rc);
    REQUIRE(p != NULL);
    CHECK_OK(rc);
    CHECK_EQ(streams(p), 1);
    {
        fpx_hls_rendition r = rendition(p, 0);
        CHECK_EQ(r.selected, 0);
        CHECK_EQ(r.stream_index, -1);
    }
    fpx_player_destroy(p);

    SECTION("hls_audio 2 (the second rendition) and 3 (none)");
    p = open_with(2, 0, &rc);
    REQUIRE(p != NULL);
    CHECK_OK(rc);
    CHECK_EQ(streams(p), 2);
    CHECK_EQ(rendition(p, 0).selected, 0);
    CHECK_EQ(rendition(p, 1).selected, 1);
    CHECK_EQ(rendition(p, 1).stream_index, 1);
    {
        fpx_stream_info as;
        memset(&as, 0, sizeof as);
        as.struct_size = sizeof as;
        CHECK_OK(fpx_player_stream_info(p, 1, &as));
        CHECK_EQ(as.sample_rate, 22050);
    }
    fpx_player_destroy(p);
    p = open_with(3, 0, &rc);
    REQUIRE(p != NULL);
    CHECK_EQ(rc, FPX_ERROR_INVALID_ARGUMENT);
    fpx_player_destroy(p);

    SECTION("fpx_player_hls_select_audio");
    p = open_with(0, 0, &rc);
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_hls_select_audio(p, 0));                  /* the one playing */
    CHECK_ERR(fpx_player_hls_select_audio(p, 2), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_hls_select_audio(p, -1), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_player_hls_select_audio(p, 1));
    CHECK_EQ(rendition(p, 0).selected, 1);                       /* until the next landing */
    {
        fpx_seek_outcome o;
        fpx_stream_info as;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(1, 2), fpx_precision_exact(), 10000, &o));
        CHECK(o.frame_covers_target);
        CHECK_EQ(rendition(p, 0).selected, 0);
        CHECK_EQ(rendition(p, 1).selected, 1);
        CHECK_EQ(rendition(p, 1).stream_index, 1);
        memset(&as, 0, sizeof as);
        as.struct_size = sizeof as;
        CHECK_OK(fpx_player_stream_info(p, 1, &as));
        CHECK_EQ(as.sample_rate, 22050);
    }
    fpx_player_destroy(p);
    p = open_with(-1, 0, &rc);
    REQUIRE(p != NULL);
    CHECK_ERR(fpx_player_hls_select_audio(p, 0), FPX_ERROR_UNSUPPORTED);  /* no second feed */
    fpx_player_destroy(p);
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    CHECK_ERR(fpx_player_hls_select_audio(p, 0), FPX_ERROR_NO_ITEM);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_ERR(fpx_player_hls_select_audio(p, 0), FPX_ERROR_UNSUPPORTED);  /* a file */
    fpx_player_destroy(p);

    SECTION("fpx_player_hls_select_variant");
    p = open_with(0, 0, &rc);
    REQUIRE(p != NULL);
    {
        fpx_seek_outcome o;
        int playing = variant_selected(p, 0) ? 0 : 1, other = 1 - playing;
        int w = video_width(p);
        CHECK_EQ(variant_selected(p, other), 0);
        CHECK_OK(fpx_player_hls_select_variant(p, playing));          /* the one playing */
        CHECK_ERR(fpx_player_hls_select_variant(p, 2), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(fpx_player_hls_select_variant(p, -1), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_OK(fpx_player_hls_select_variant(p, other));
        CHECK_EQ(variant_selected(p, playing), 1);                   /* until the next seek */
        CHECK_OK(fpx_player_setup_seek_manager(p));
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(1, 2), fpx_precision_exact(), 10000, &o));
        CHECK_EQ(o.error, 0);
        CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
        CHECK(o.frame_covers_target);
        CHECK_EQ(variant_selected(p, other), 1);
        CHECK_EQ(variant_selected(p, playing), 0);
        CHECK_EQ(video_width(p) * 2 == w || w * 2 == video_width(p), 1);  /* 64x48 and 32x24 */
    }
    fpx_player_destroy(p);
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    CHECK_ERR(fpx_player_hls_select_variant(p, 0), FPX_ERROR_NO_ITEM);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_ERR(fpx_player_hls_select_variant(p, 0), FPX_ERROR_UNSUPPORTED);  /* a file */
    fpx_player_destroy(p);
    /* A media playlist (no master): an HLS item with no listing and no switch. */
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    snprintf(media, sizeof media, "%s/out_0.m3u8", argv[2]);
    CHECK_OK(open_wait(p, media, NULL));
    {
        int count = -1;
        fpx_hls_variant v;
        CHECK_OK(fpx_player_hls_variant_count(p, &count));
        CHECK_EQ(count, 0);
        count = -1;
        CHECK_OK(fpx_player_hls_rendition_count(p, &count));
        CHECK_EQ(count, 0);
        memset(&v, 0, sizeof v);
        v.struct_size = sizeof v;
        CHECK_ERR(fpx_player_hls_variant(p, 0, &v), FPX_ERROR_INVALID_ARGUMENT);
    }
    CHECK_ERR(fpx_player_hls_select_variant(p, 0), FPX_ERROR_UNSUPPORTED);
    CHECK_ERR(fpx_player_hls_select_audio(p, 0), FPX_ERROR_UNSUPPORTED);
    fpx_player_destroy(p);

    SECTION("an exact seek: both streams, decode order, the audio landing");
    landing_section();

    SECTION("switches and listings from another thread while seeking and reading");
    concurrent_section();
    return check_summary();
}
