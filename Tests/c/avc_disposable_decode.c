/*
 * avc_disposable_decode.c -- FPX_PACKET_FLAG_DISPOSABLE with a real decoder (seek.h,
 * "Disposable packets").
 *
 * For each fixture (H.264 with B-pyramids in MP4, MKV and MPEG-TS; HEVC with open GOPs and
 * b-pyramid in MP4 (sdtp), MKV and MPEG-TS, and with two temporal sub-layers; MPEG-4 Part 2
 * in MP4 with an sdtp box, where only the container says so), many exact seeks to random
 * frames: the host drops every packet flagged DISPOSABLE before libavcodec and decodes the
 * rest, and the landed frame and the FOLLOW frames after it must hash (md5 of the pixels) to
 * ffmpeg's own decode
 * (ffmpeg -f framemd5 -fps_mode passthrough), at ffprobe's pts. So no dropped packet was
 * referenced by anything the host presents. The same with the decoder-side recipe instead
 * (skip_frame = AVDISCARD_NONREF while packets are DECODE_ONLY). On every packet: DISPOSABLE
 * only with DECODE_ONLY, never with DISCONTINUITY, only on the video stream. The flagged count
 * must be > 0 on every fixture (else nothing was tested), and on the MP4s with sdtp the
 * container's AV_PKT_FLAG_DISPOSABLE must be there and agree. A control (every DECODE_ONLY
 * packet dropped) must break some landing, or the check could not see a wrong flag.
 *
 * usage: avc_disposable_decode FIXTURE_DIR
 */
#include "check.h"

#define MAX_FRAMES 4096

#include "avc_common.h"

#define FOLLOW 12  /* frames checked after the landed one */
#ifndef TARGETS
#define TARGETS 20 /* random exact landings per fixture (drop mode); -DTARGETS=N for more */
#endif
#ifndef NONREF_TARGETS
#define NONREF_TARGETS 6
#endif

/* CONTROL drops every DECODE_ONLY packet but the first: it must break some landing,
 * or this test could not see a wrongly flagged packet. */
enum mode { DROP, NONREF, CONTROL };

typedef struct counts {
    long decode_only, flagged, container, container_decode_only, container_agree, frames, targets, ok;
} counts;

static truth T;
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Seeks exactly to frame i (a target inside [pts_i, pts_i+1)) and checks the landed frame and
 * the FOLLOW after it against ffmpeg's decode. Returns 1 when all matched. */
static int landing(fpx_player *p, AVCodecContext *dec, const fpx_item_info *info, int i, enum mode mode,
                   counts *c, const char *name)
{
    fpx_packet fp;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *fr = av_frame_alloc();
    int ref = info->reference_stream;
    int64_t span = i + 1 < T.n ? T.pts[i + 1] - T.pts[i] : 1;
    int64_t ticks = T.pts[i] + (int64_t)(next_rand() % (uint64_t)(span > 0 ? span : 1));
    fpx_time target = fpx_time_make((ticks - info->start_pts) * info->time_base_num, info->time_base_den);
    int first = 1, n = 0, eof = 0, shown = 0, good = 1;
    int64_t landed = FPX_NOPTS;
    REQUIRE(pkt && fr);
    if (!CHECK_OK(fpx_player_seek(p, target, fpx_precision_exact(), NULL, NULL, NULL)))
        good = 0;
    while (good && shown <= FOLLOW && i + shown < T.n && n++ < 4000) {
        int rc;
        memset(&fp, 0, sizeof fp);
        fp.struct_size = sizeof fp;
        rc = eof ? FPX_ERROR_EOF : fpx_player_read_packet(p, &fp);
        if (rc == FPX_ERROR_EOF) {
            if (eof)
                break;
            eof = 1;
            avcodec_send_packet(dec, NULL);
        } else {
            const AVPacket *ap = (const AVPacket *)fp.av_packet;
            if (!CHECK_OK(rc)) {
                good = 0;
                break;
            }
            if (first) {
                CHECK(fp.flags & FPX_PACKET_FLAG_DISCONTINUITY);
                landed = fp.landed_pts;
                avcodec_flush_buffers(dec);
                dec->skip_frame = AVDISCARD_DEFAULT;
                first = 0;
            }
            if (fp.flags & FPX_PACKET_FLAG_DISPOSABLE) {
                if (!CHECK(fp.flags & FPX_PACKET_FLAG_DECODE_ONLY) ||
                    !CHECK(!(fp.flags & FPX_PACKET_FLAG_DISCONTINUITY)) || !CHECK_EQ(fp.stream_index, ref))
                    NOTE("%s: pts %" PRId64 " flags 0x%x", name, fp.pts, (unsigned)fp.flags);
            }
            if (fp.stream_index != ref)
                continue;
            if (fp.flags & FPX_PACKET_FLAG_DECODE_ONLY)
                c->decode_only++;
            if (ap && (ap->flags & AV_PKT_FLAG_DISPOSABLE)) {
                c->container++;
                if ((fp.flags & FPX_PACKET_FLAG_DECODE_ONLY) && !(fp.flags & FPX_PACKET_FLAG_DISCONTINUITY)) {
                    c->container_decode_only++;
                    if (fp.flags & FPX_PACKET_FLAG_DISPOSABLE)
                        c->container_agree++;
                }
            }
            if (fp.flags & FPX_PACKET_FLAG_DISPOSABLE) {
                c->flagged++;
                if (mode == DROP)
                    continue; /* the host drops it before its decoder */
            }
            if (mode == CONTROL && (fp.flags & FPX_PACKET_FLAG_DECODE_ONLY) && !(fp.flags & FPX_PACKET_FLAG_DISCONTINUITY))
                continue;
            if (mode == NONREF)
                dec->skip_frame = (fp.flags & FPX_PACKET_FLAG_DECODE_ONLY) ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
            fill_packet(pkt, &fp);
            if (avcodec_send_packet(dec, pkt) < 0)
                continue;
        }
        while (avcodec_receive_frame(dec, fr) == 0) {
            int64_t t = frame_pts(fr);
            if (t != AV_NOPTS_VALUE && t >= landed && shown <= FOLLOW && i + shown < T.n) {
                char md5[33];
                frame_md5(fr, md5);
                c->frames++;
                if (mode == CONTROL) {
                    if (t != T.pts[i + shown] || strcmp(md5, T.md5[i + shown]) != 0)
                        good = 0;
                } else if (!CHECK_EQ(t, T.pts[i + shown]) || !CHECK_STR(md5, T.md5[i + shown])) {
                    NOTE("%s (%s): landing on frame %d (pts %" PRId64 "), frame %d after it", name,
                         mode == DROP ? "drop" : "skip_frame", i, T.pts[i], shown);
                    good = 0;
                }
                shown++;
            }
            av_frame_unref(fr);
        }
    }
    if (mode != CONTROL && !CHECK_EQ(landed, T.pts[i]))
        good = 0;
    if (shown != FOLLOW + 1 && i + shown != T.n) {
        if (mode != CONTROL)
            CHECK(shown == FOLLOW + 1 || i + shown == T.n);
        good = 0;
    }
    av_frame_free(&fr);
    av_packet_free(&pkt);
    c->targets++;
    c->ok += good;
    return good;
}

static void fixture_run(const char *name, int expect_container)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_info info;
    AVCodecContext *dec;
    counts c, s, x;
    int k;
    memset(&c, 0, sizeof c);
    memset(&s, 0, sizeof s);
    memset(&x, 0, sizeof x);
    REQUIRE(p != NULL);
    REQUIRE(load_truth(fixture(name), &T));
    REQUIRE(T.nmd5 == T.n && T.n > 2 * FOLLOW);
    REQUIRE(open_wait(p, fixture(name), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    REQUIRE(fpx_player_item_info(p, &info) == FPX_OK);
    dec = open_decoder(p, info.reference_stream);
    REQUIRE(dec != NULL);
    for (k = 0; k < TARGETS; k++) {
        /* Random frames, and the last one (the longest DECODE_ONLY run of its GOP). */
        int i = k == 0 ? T.n - 1 : (int)(next_rand() % (uint64_t)T.n);
        landing(p, dec, &info, i, DROP, &c, name);
    }
    for (k = 0; k < NONREF_TARGETS; k++)
        landing(p, dec, &info, (int)(next_rand() % (uint64_t)T.n), NONREF, &s, name);
    /* The control: landings whose DECODE_ONLY run is long (late in a GOP, or the last frame). */
    for (k = 0; k < 4; k++)
        landing(p, dec, &info, k == 0 ? T.n - 1 : T.n / 2 + k * 7, CONTROL, &x, name);
    NOTE("%s: control (every DECODE_ONLY packet dropped): %ld/%ld landings still equal", name, x.ok, x.targets);
    CHECK(x.ok < x.targets);
    NOTE("%s: drop: %ld/%ld landings with the landed frame and %d after it equal to ffmpeg's (%ld frames);"
         " %ld of %ld DECODE_ONLY video packets DISPOSABLE (dropped); container AV_PKT_FLAG_DISPOSABLE on %ld"
         " (%ld of the %ld DECODE_ONLY ones flagged)",
         name, c.ok, c.targets, FOLLOW, c.frames, c.flagged, c.decode_only, c.container, c.container_agree,
         c.container_decode_only);
    NOTE("%s: skip_frame=NONREF while DECODE_ONLY: %ld/%ld landings equal to ffmpeg's (%ld frames)", name, s.ok,
         s.targets, s.frames);
    CHECK_EQ(c.ok, c.targets);
    CHECK_EQ(s.ok, s.targets);
    CHECK(c.flagged > 0); /* else this proved nothing */
    if (expect_container) {
        CHECK(c.container_decode_only > 0);
        CHECK_EQ(c.container_agree, c.container_decode_only);
    } else {
        CHECK_EQ(c.container, 0);
    }
    avcodec_free_context(&dec);
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; int sdtp; } files[] = {
        {"mp4_bframes.mp4", 0}, {"mkv.mkv", 0}, {"ts.ts", 0}, {"mp4_opengop.mp4", 0},
        {"hevc_opengop.mp4", 1}, {"hevc_opengop.mkv", 0}, {"hevc_opengop.ts", 0}, {"hevc_temporal.mkv", 0}, {"mpeg4_sdtp.mp4", 1}};
    size_t i;
    check_init(argc, argv, TARGETS > 40 ? 1800 : 110);
    av_log_set_level(AV_LOG_QUIET); /* open-GOP leading frames make the decoders warn; not ours */
    setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 0); /* run.sh runs us with env -i */
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        SECTION(files[i].name);
        fixture_run(files[i].name, files[i].sdtp);
    }
    return check_summary();
}
