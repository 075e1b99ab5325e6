/*
 * avc_continuation.c -- continuation with a real decoder (seek.h, "Continuation").
 *
 * A libavcodec host that follows the header's rule and nothing more: it flushes its
 * decoder at DISCONTINUITY and only there, feeds every reference-stream packet, presents
 * the first decoded frame whose pts >= the landed_pts_in_stream of the latest packet it
 * fed, stops receiving once it has it, and reports the largest pts its decoder returned
 * (fpx_player_report_decoded). With continuation on, after sequences of forward steps of
 * one frame, forward exact seeks and scrub ends, every presented frame must be the
 * landing ffprobe says (the largest frame pts <= target; for steps, the next frame) and
 * hash equal to ffmpeg's straight decode (-f framemd5), and so must the frames that
 * follow the last landing of each sequence; at the end of the stream the host drains its
 * decoder (as every host must, to get the last frames), and the next landing, even on the
 * frame it just presented, must then restart; on B-pyramid and open-GOP fixtures (MP4,
 * Matroska, MPEG-TS). It counts the reference packets fed (= frames decoded) per
 * one-frame forward step: about one with continuation, the GOP prefix without. On a
 * 10 s GOP made with ffmpeg, exact seeks 2 s apart continue (the horizon).
 *
 * Test-only dependency: libavcodec/libavutil (pkg-config), built by Tests/c/run.sh.
 *
 * usage: avc_continuation FIXTURE_DIR
 */
#include "check.h"

#include <unistd.h>

#define MAX_FRAMES 4096

#include "avc_common.h"

typedef struct host {
    fpx_player *p;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *fr;
    int ref;
    int64_t landed;   /* landed_pts_in_stream of the latest packet fed */
    int64_t returned; /* largest pts the decoder returned since the last DISCONTINUITY */
    long fed;         /* reference packets fed by the last present() */
    int restarted;    /* the first packet read by the last present() was a DISCONTINUITY */
    int report;       /* report what the decoder returned */
    int drained;      /* the decoder was drained at the end of the stream (no flush since) */
    int fed_drained;  /* a packet reached a drained decoder: the library continued past the end */
} host;

static int open_host(host *h, fpx_player *p, int ref, int report)
{
    fpx_stream_info si;
    const AVCodec *codec;
    memset(h, 0, sizeof *h);
    h->p = p;
    h->ref = ref;
    h->report = report;
    h->returned = h->landed = FPX_NOPTS;
    memset(&si, 0, sizeof si);
    si.struct_size = sizeof si;
    if (fpx_player_stream_info(p, ref, &si) != FPX_OK || !(codec = avcodec_find_decoder((enum AVCodecID)si.codec_id)))
        return 0;
    if (!(h->dec = avcodec_alloc_context3(codec)))
        return 0;
    if (avcodec_parameters_to_context(h->dec, (const AVCodecParameters *)si.codecpar) < 0 ||
        avcodec_open2(h->dec, codec, NULL) < 0)
        return 0;
    h->dec->pkt_timebase.num = si.time_base_num;
    h->dec->pkt_timebase.den = si.time_base_den;
    h->pkt = av_packet_alloc();
    h->fr = av_frame_alloc();
    return h->pkt && h->fr;
}

static void close_host(host *h)
{
    avcodec_free_context(&h->dec);
    av_packet_free(&h->pkt);
    av_frame_free(&h->fr);
}


/* One frame out of the decoder, if it has one: 1 and its pts, else 0. */
static int receive(host *h, int64_t *t, char md5[33])
{
    if (avcodec_receive_frame(h->dec, h->fr) != 0)
        return 0;
    *t = frame_pts(h->fr);
    if (*t != AV_NOPTS_VALUE && (h->returned == FPX_NOPTS || *t > h->returned))
        h->returned = *t;
    if (md5)
        frame_md5(h->fr, md5);
    av_frame_unref(h->fr);
    return 1;
}

/* Reads and decodes until the decoder returns a frame at or after the landing: returns its
 * pts (FPX_NOPTS if none) and md5. Frames before the landing are dropped. */
static int64_t present(host *h, char md5[33])
{
    fpx_packet fp;
    int first = 1, n = 0;
    int64_t t, shown = FPX_NOPTS;
    h->fed = 0;
    h->restarted = 0;
    md5[0] = 0;
    while (shown == FPX_NOPTS && n++ < 5000) {
        int rc;
        memset(&fp, 0, sizeof fp);
        fp.struct_size = sizeof fp;
        rc = fpx_player_read_packet(h->p, &fp);
        if (rc != FPX_OK) {
            CHECK_EQ(rc, FPX_ERROR_EOF);
            /* The end: drain the decoder for the frames it still holds. */
            if (!h->drained) {
                avcodec_send_packet(h->dec, NULL);
                h->drained = 1;
            }
            while (shown == FPX_NOPTS && receive(h, &t, md5))
                if (t != AV_NOPTS_VALUE && t >= h->landed)
                    shown = t;
            if (shown == FPX_NOPTS)
                md5[0] = 0;
            break;
        }
        if (first) {
            h->restarted = (fp.flags & FPX_PACKET_FLAG_DISCONTINUITY) != 0;
            first = 0;
        }
        if (fp.flags & FPX_PACKET_FLAG_DISCONTINUITY) {
            avcodec_flush_buffers(h->dec);
            h->returned = FPX_NOPTS;
            h->drained = 0;
        }
        if (fp.stream_index != h->ref)
            continue;
        if (h->drained) {
            h->fed_drained = 1;
            break;
        }
        h->landed = fp.landed_pts_in_stream;
        h->pkt->data = (uint8_t *)(uintptr_t)fp.data;
        h->pkt->size = (int)fp.size;
        h->pkt->pts = fp.pts == FPX_NOPTS ? AV_NOPTS_VALUE : fp.pts;
        h->pkt->dts = fp.dts == FPX_NOPTS ? AV_NOPTS_VALUE : fp.dts;
        h->pkt->duration = fp.duration;
        h->pkt->flags = (int)(fp.flags & (FPX_PACKET_FLAG_KEY | FPX_PACKET_FLAG_CORRUPT | FPX_PACKET_FLAG_DISCARD));
        h->fed++;
        for (;;) {
            char m[33];
            int sent = avcodec_send_packet(h->dec, h->pkt);
            /* Frames decoded before this packet come out first (a continued landing may
             * already be in the decoder). */
            while (shown == FPX_NOPTS && receive(h, &t, m))
                if (t != AV_NOPTS_VALUE && t >= h->landed) {
                    shown = t;
                    memcpy(md5, m, 33);
                }
            if (sent != AVERROR(EAGAIN))
                break;
            if (shown != FPX_NOPTS) {
                /* The decoder wants its output taken before this packet: take it (the
                 * host then drops it, and the report says so). */
                while (receive(h, &t, NULL)) {
                }
            }
        }
    }
    if (h->report && h->returned != FPX_NOPTS)
        CHECK_OK(fpx_player_report_decoded(h->p, h->returned));
    return shown;
}

static int covering_index(const truth *t, int64_t ticks)
{
    int i, best = 0;
    for (i = 0; i < t->n; i++)
        if (t->pts[i] <= ticks)
            best = i;
    return best;
}

static truth T;
static fpx_item_info INFO;

static fpx_time at_ticks(int64_t ticks)
{
    return fpx_time_make((ticks - INFO.start_pts) * INFO.time_base_num, INFO.time_base_den);
}

/* An exact seek, waited for. */
static int seek_wait(fpx_player *p, fpx_time t)
{
    fpx_seek_outcome o;
    int rc;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    rc = fpx_player_seek_wait(p, t, fpx_precision_exact(), 10000, &o);
    if (rc == FPX_OK && !o.finished)
        return -1;
    return rc;
}

/* Checks the presented frame against frame j of the truth. */
static int check_frame(const char *name, const char *what, int64_t got, const char *md5, int j)
{
    if (CHECK_EQ(got, T.pts[j]) && CHECK_STR(md5, T.md5[j]))
        return 1;
    NOTE("%s: %s: presented %" PRId64 ", want frame %d (pts %" PRId64 ")", name, what, got, j, T.pts[j]);
    return 0;
}

/* After the last landing of a sequence, the frames that follow decode to ffmpeg's too. */
static void check_following(const char *name, host *h, int j, int count)
{
    int k;
    for (k = 1; k <= count && j + k < T.n; k++) {
        fpx_frame_step_result r;
        char md5[33];
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        CHECK_OK(fpx_player_step_frame(h->p, FPX_STEP_FORWARD, 1, &r));
        check_frame(name, "following frame", present(h, md5), md5, j + k);
    }
}

typedef struct counts { long steps, fed, continued, max_fed; } counts;

/* One-frame forward steps from frame j0: each presented frame is the next one. */
static void steps(const char *name, host *h, int j0, int n, counts *c)
{
    char md5[33];
    int k;
    CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j0])));
    check_frame(name, "seek before steps", present(h, md5), md5, j0);
    for (k = 1; k <= n && j0 + k < T.n; k++) {
        fpx_frame_step_result r;
        memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        if (!CHECK_OK(fpx_player_step_frame(h->p, FPX_STEP_FORWARD, 1, &r)) || !CHECK(r.did_step))
            break;
        CHECK_EQ(r.landed_stream_pts, T.pts[j0 + k]);
        check_frame(name, "step +1", present(h, md5), md5, j0 + k);
        c->steps++;
        c->fed += h->fed;
        if (h->fed > c->max_fed)
            c->max_fed = h->fed;
        if (!h->restarted)
            c->continued++;
    }
    check_following(name, h, j0 + k - 1, 3);
}

/* Forward exact seeks by 1-3 frames (targets on and between frames). */
static void seeks(const char *name, host *h, int j0, int n, long *continued)
{
    char md5[33];
    int k, j = j0;
    CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j0])));
    check_frame(name, "seek", present(h, md5), md5, j0);
    for (k = 0; k < n && j + 4 < T.n; k++) {
        int64_t ticks;
        j += 1 + k % 3;
        ticks = T.pts[j] + (k % 2 ? (T.pts[j + 1] - T.pts[j]) / 2 : 0);
        CHECK_OK(seek_wait(h->p, at_ticks(ticks)));
        check_frame(name, "forward seek", present(h, md5), md5, covering_index(&T, ticks));
        if (!h->restarted)
            (*continued)++;
    }
    check_following(name, h, j, 3);
}

typedef struct scrub_wait { pthread_mutex_t m; pthread_cond_t c; int done; } scrub_wait;

static void on_scrub(const fpx_scrub_result *r, void *ud)
{
    scrub_wait *w = (scrub_wait *)ud;
    (void)r;
    pthread_mutex_lock(&w->m);
    w->done = 1;
    pthread_cond_broadcast(&w->c);
    pthread_mutex_unlock(&w->m);
}

/* Scrub gestures that end a few frames ahead of the playhead. */
static void scrubs(const char *name, host *h, int j0, int n, long *continued)
{
    fpx_scrub_session *s = NULL;
    char md5[33];
    int k, j = j0;
    REQUIRE(fpx_player_scrub_session(h->p, &s) == FPX_OK);
    CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j0])));
    check_frame(name, "seek before scrub", present(h, md5), md5, j0);
    for (k = 0; k < n && j + 4 < T.n; k++) {
        scrub_wait w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
        j += 2;
        CHECK_OK(fpx_scrub_begin(s, at_ticks(T.pts[j - 2])));
        CHECK_OK(fpx_scrub_update(s, at_ticks(T.pts[j - 1])));
        CHECK_OK(fpx_scrub_end(s, at_ticks(T.pts[j]), fpx_precision_exact(), on_scrub, &w, NULL));
        pthread_mutex_lock(&w.m);
        while (!w.done)
            pthread_cond_wait(&w.c, &w.m);
        pthread_mutex_unlock(&w.m);
        check_frame(name, "scrub end", present(h, md5), md5, j);
        if (!h->restarted)
            (*continued)++;
    }
    check_following(name, h, j, 3);
}

/* A playing host: after the landing it decodes and presents on (every frame the decoder
 * returns, in order), so its decoder has returned frames past the landing. A seek to one
 * of those must restart (and land right); a seek past what it has read may continue. With
 * report 0 the host never calls fpx_player_report_decoded: the library's own rule holds. */
static void playing(const char *name, host *h, int j0, long *continued)
{
    char md5[33];
    int k, j;
    CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j0])));
    check_frame(name, "playing: seek", present(h, md5), md5, j0);
    /* Play 8 frames: each present() after the landing returns the next frame. */
    for (k = 1; k <= 8; k++) {
        int64_t t = FPX_NOPTS;
        while (t == FPX_NOPTS || t < T.pts[j0 + k]) {
            /* Present whatever comes: a playing host does not seek for it. */
            h->landed = T.pts[j0 + k];
            t = present(h, md5);
            if (t == FPX_NOPTS)
                break;
        }
        check_frame(name, "playing: next frame", t, md5, j0 + k);
    }
    /* Back inside what it presented (ahead of the landing): must restart. */
    j = j0 + 4;
    CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j])));
    check_frame(name, "playing: seek into presented frames", present(h, md5), md5, j);
    CHECK(h->restarted);
    /* Play 3, then seek a few frames past what it read: may continue; lands right either way. */
    for (k = 1; k <= 3; k++) {
        h->landed = T.pts[j + k];
        check_frame(name, "playing: next frame", present(h, md5), md5, j + k);
    }
    j += 3 + 6;
    CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j])));
    check_frame(name, "playing: seek ahead", present(h, md5), md5, j);
    if (!h->restarted)
        (*continued)++;
}

/* The end of the stream: a landing on the last frame reads to the end, where the host
 * drains its decoder; the next landings (the same frame again, one a few frames back) must
 * restart with a DISCONTINUITY and land right, whether or not the host reported what the
 * drained decoder returned. */
static void at_the_end(const char *name, host *h)
{
    char md5[33];
    int report, j = T.n - 1;
    for (report = 1; report >= 0; report--) {
        h->report = report;
        CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j])));
        check_frame(name, "the last frame", present(h, md5), md5, j);
        CHECK(h->drained);
        CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j])));
        check_frame(name, "the last frame again, after the end", present(h, md5), md5, j);
        if (!CHECK(h->restarted) || !CHECK(!h->fed_drained))
            NOTE("%s: report %d: a landing after the end continued the run the host drained", name, report);
        CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j])));
        present(h, md5);
        CHECK_OK(seek_wait(h->p, at_ticks(T.pts[j - 3])));
        check_frame(name, "three frames back, after the end", present(h, md5), md5, j - 3);
        CHECK(h->restarted);
        CHECK(!h->fed_drained);
        h->fed_drained = 0;
    }
    h->report = 1;
}

static void fixture_run(const char *name)
{
    counts on = {0, 0, 0, 0}, off = {0, 0, 0, 0};
    long seeks_cont = 0, scrubs_cont = 0, play_cont = 0;
    int pass;
    REQUIRE(load_truth(fixture(name), &T));
    CHECK_EQ(T.nmd5, T.n);
    for (pass = 0; pass < 2; pass++) {
        fpx_player *p = make_player(FPX_DELIVERY_THREAD);
        host h;
        REQUIRE(p != NULL);
        REQUIRE(open_wait(p, fixture(name), NULL) == FPX_OK);
        CHECK_OK(fpx_player_setup_seek_manager(p));
        memset(&INFO, 0, sizeof INFO);
        INFO.struct_size = sizeof INFO;
        REQUIRE(fpx_player_item_info(p, &INFO) == FPX_OK);
        CHECK_OK(fpx_player_set_continuation(p, pass == 0));
        REQUIRE(open_host(&h, p, INFO.reference_stream, 1));
        /* Steps from inside a GOP, across the next keyframe. */
        steps(name, &h, T.n / 3 + 1, 16, pass == 0 ? &on : &off);
        if (pass == 0) {
            seeks(name, &h, T.n / 2 + 2, 10, &seeks_cont);
            scrubs(name, &h, T.n / 4 + 1, 6, &scrubs_cont);
            playing(name, &h, T.n / 2 - 20, &play_cont);
            h.report = 0;
            playing(name, &h, T.n / 2 - 40, &play_cont);
            h.report = 1;
            /* A backward seek after all that still lands right (it restarts). */
            {
                char md5[33];
                int j = T.n / 5;
                CHECK_OK(seek_wait(p, at_ticks(T.pts[j])));
                check_frame(name, "backward seek", present(&h, md5), md5, j);
                CHECK(h.restarted);
            }
            at_the_end(name, &h);
        }
        close_host(&h);
        fpx_player_destroy(p);
    }
    NOTE("%s: 1-frame forward steps: continuation on: %ld steps, %ld continued, %.2f frames decoded per step "
         "(max %ld); off: %.2f per step (max %ld); forward seeks continued: %ld/10, scrub ends: %ld/6, "
         "playing hosts' seeks ahead: %ld/2",
         name, on.steps, on.continued, on.steps ? (double)on.fed / (double)on.steps : 0.0, on.max_fed,
         off.steps ? (double)off.fed / (double)off.steps : 0.0, off.max_fed, seeks_cont, scrubs_cont, play_cont);
    CHECK_EQ(off.continued, 0);
    CHECK(on.continued >= on.steps - 2); /* at most the GOP boundary restarts */
    CHECK(on.steps > 0 && on.fed <= 2 * on.steps); /* about one frame decoded per step */
    CHECK(off.fed > 2 * on.fed);
    CHECK(seeks_cont >= 9);  /* forward seeks inside the GOP or just past its keyframe */
    CHECK(scrubs_cont >= 5);
    CHECK(play_cont >= 1);   /* a playing host's seek past what it read */
}

/* The horizon (seek.h, "Continuation"): in a 10 s GOP, exact seeks 2 s apart continue (the
 * mp4's keyframe index shows no keyframe between what was read and the target), each
 * decoding about the 50 frames between instead of the keyframe's growing pre-roll; a seek
 * past the next keyframe restarts there. Frames hash equal to ffmpeg's. */
static void long_gop_run(void)
{
    static const int at[] = {50, 100, 150, 200};
    char dir[] = "/tmp/fpx-avc-gop.XXXXXX", path[128], cmd[512], md5[33];
    fpx_player *p;
    host h;
    size_t i;
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/gop250.mp4", dir);
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=160x96:rate=25 -t 16 -c:v libx264 -preset ultrafast "
             "-bf 3 -g 250 -keyint_min 250 -sc_threshold 0 -pix_fmt yuv420p -threads 1 %s",
             path);
    REQUIRE(system(cmd) == 0);
    REQUIRE(load_truth(path, &T));
    REQUIRE(T.n == 400 && T.nmd5 == T.n);
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    REQUIRE(open_wait(p, path, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&INFO, 0, sizeof INFO);
    INFO.struct_size = sizeof INFO;
    REQUIRE(fpx_player_item_info(p, &INFO) == FPX_OK);
    CHECK_OK(fpx_player_set_continuation(p, 1));
    REQUIRE(open_host(&h, p, INFO.reference_stream, 1));
    CHECK_OK(seek_wait(p, at_ticks(T.pts[0])));
    check_frame("gop250.mp4", "seek to 0", present(&h, md5), md5, 0);
    for (i = 0; i < sizeof at / sizeof at[0]; i++) {
        CHECK_OK(seek_wait(p, at_ticks(T.pts[at[i]])));
        check_frame("gop250.mp4", "seek 2 s ahead", present(&h, md5), md5, at[i]);
        int ok = CHECK(!h.restarted);
        if (!CHECK(h.fed <= 50 + 8) || !ok)
            NOTE("gop250.mp4: seek to frame %d: restarted %d, %ld packets fed", at[i], h.restarted, h.fed);
    }
    /* 10.4 s: the keyframe at 10 s lies between: restart there. */
    CHECK_OK(seek_wait(p, at_ticks(T.pts[260])));
    check_frame("gop250.mp4", "seek past the next keyframe", present(&h, md5), md5, 260);
    CHECK(h.restarted);
    CHECK(h.fed <= 10 + 8);
    check_following("gop250.mp4", &h, 260, 3);
    close_host(&h);
    fpx_player_destroy(p);
    remove(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    static const char *videos[] = {"mp4_bframes.mp4", "mp4_opengop.mp4", "mkv.mkv", "ts.ts"};
    size_t i;
    check_init(argc, argv, 110);
    av_log_set_level(AV_LOG_QUIET);
    setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 0); /* run.sh runs us with env -i */
    for (i = 0; i < sizeof videos / sizeof videos[0]; i++) {
        SECTION(videos[i]);
        fixture_run(videos[i]);
    }
    SECTION("gop250.mp4 (made here)");
    long_gop_run();
    return check_summary();
}
