/* The conventions of seek.h section 2 through the C API: FPX_PRECISION_AT_OR_AFTER (its
 * constructor, outcome, verdict, clamping, packets, scrub end, HLS across segment ends; another
 * reference stream refused on HLS), the stream-pts
 * conversion with fpx_item_info.start_pts, and fpx_player_config.reference_stream (size
 * rules, invalid choices, the log line saying why). Frame lists come from ffprobe; the
 * comparisons against ffmpeg -ss and PyAV are in Tests/python/test_conventions.py.
 * Usage: test_conventions FIXTURE_DIR */
#include "check.h"

#include <fastpix/seek.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ffprobe's frames of one stream, sorted by pts ---------------------------------------- */

typedef struct frames {
    int64_t *pts;
    size_t n;
} frames;

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t probe_frames(frames *f, const char *path, int stream) {
    char cmd[8192], line[256];
    FILE *p;
    size_t cap = 0, i, j;
    f->pts = NULL;
    f->n = 0;
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -select_streams %d -show_entries frame=pts -of csv=p=0 '%s'", stream, path);
    p = popen(cmd, "r");
    if (!p) return 0;
    while (fgets(line, sizeof line, p)) {
        if (strncmp(line, "N/A", 3) == 0 || line[0] == '\n') continue;
        if (f->n == cap) {
            int64_t *np;
            cap = cap ? cap * 2 : 1024;
            np = realloc(f->pts, cap * sizeof *np);
            if (!np) break;
            f->pts = np;
        }
        f->pts[f->n++] = strtoll(line, NULL, 10);
    }
    pclose(p);
    qsort(f->pts, f->n, sizeof *f->pts, cmp64);
    for (i = j = 0; i < f->n; i++)
        if (j == 0 || f->pts[j - 1] != f->pts[i]) f->pts[j++] = f->pts[i];
    f->n = j;
    return f->n;
}

/* The first frame whose pts >= ticks num/den (exact), else the last. */
static int64_t first_at_or_after(const frames *f, int64_t num, int64_t den) {
    size_t i;
    for (i = 0; i < f->n; i++)
        if (f->pts[i] * den >= num) return f->pts[i];
    return f->pts[f->n - 1];
}

/* ---- the log ------------------------------------------------------------------------------- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char last_error[1024];

static void on_log(int level, const char *message, void *ud) {
    (void)ud;
    if (level > FPX_LOG_ERROR || !message || strstr(message, "reference_stream") == NULL) return;
    pthread_mutex_lock(&log_mu);
    snprintf(last_error, sizeof last_error, "%s", message);
    pthread_mutex_unlock(&log_mu);
}

static int logged(const char *needle) {
    int found;
    pthread_mutex_lock(&log_mu);
    found = strstr(last_error, needle) != NULL;
    pthread_mutex_unlock(&log_mu);
    return found;
}

static void clear_log(void) {
    pthread_mutex_lock(&log_mu);
    last_error[0] = 0;
    pthread_mutex_unlock(&log_mu);
}

/* ---- helpers ------------------------------------------------------------------------------- */

static fpx_player *open_with(const char *path, int32_t reference, int *wait_rc) {
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.reference_stream = reference;
    if (fpx_player_create(&cfg, &p) != FPX_OK) return NULL;
    if (fpx_player_open(p, path) != FPX_OK) { fpx_player_destroy(p); return NULL; }
    *wait_rc = fpx_player_wait_item(p, 20000, NULL);
    fpx_player_setup_seek_manager(p);
    return p;
}

static int seek(fpx_player *p, fpx_time t, fpx_precision prec, fpx_seek_outcome *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    return fpx_player_seek_wait(p, t, prec, 20000, o);
}

static fpx_item_info item_info(fpx_player *p) {
    fpx_item_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_OK(fpx_player_item_info(p, &info));
    return info;
}

/* ---- scrub end ----------------------------------------------------------------------------- */

static pthread_mutex_t scrub_mu = PTHREAD_MUTEX_INITIALIZER;
static int scrub_done, scrub_kind = -1;
static int64_t scrub_pts = FPX_NOPTS;

static void on_scrub(const fpx_scrub_result *r, void *ud) {
    (void)ud;
    pthread_mutex_lock(&scrub_mu);
    if (r->outcome) {
        scrub_kind = (int)r->outcome->precision.kind;
        scrub_pts = r->outcome->landed_stream_pts;
    }
    scrub_done = 1;
    pthread_mutex_unlock(&scrub_mu);
}

/* The defaults in every member of *cfg that ends at or before `end` (size untouched), the way
 * a host built against an older header fills its smaller struct; the bytes past `end` keep
 * whatever they hold. */
static void defaults_before(fpx_player_config *cfg, size_t end) {
    cfg->protocol_whitelist = NULL;
    cfg->wakeup = NULL;
    cfg->wakeup_userdata = NULL;
    cfg->delivery = FPX_DELIVERY_THREAD;
    cfg->io_timeout_ms = 10000;
    cfg->max_buffer_bytes = 0;
    cfg->index_mode = FPX_INDEX_KEYFRAMES;
    cfg->hls_max_bandwidth = 0;
    cfg->hls_variant = 0;
    cfg->hls_max_height = 0;
    cfg->hls_audio = 0;
    if (end >= offsetof(fpx_player_config, reference_stream) + sizeof cfg->reference_stream)
        cfg->reference_stream = 0;
}

int main(int argc, char **argv) {
    char mkv[4096], ts[4096], mp4[4096], hlsdir[4096], hls[4200], cmd[9000];
    frames fm, ft;
    fpx_player *p;
    fpx_player_config cfg;
    fpx_seek_outcome o;
    fpx_item_info info;
    fpx_precision prec;
    fpx_packet pk;
    fpx_frame_step_result r = {.struct_size = sizeof(fpx_frame_step_result)};
    int wait_rc = 0, i, saw_landed, before_landed_ok, key_first;
    int64_t want, t_ms;
    if (argc < 2) { fprintf(stderr, "usage: test_conventions FIXTURE_DIR\n"); return 2; }
    check_watchdog(300);
    snprintf(mkv, sizeof mkv, "%s/mkv.mkv", argv[1]);
    snprintf(ts, sizeof ts, "%s/ts.ts", argv[1]);
    snprintf(mp4, sizeof mp4, "%s/mp4_bframes.mp4", argv[1]);
    REQUIRE(probe_frames(&fm, mkv, 0) > 100);
    REQUIRE(probe_frames(&ft, ts, 0) > 100);

    SECTION("fpx_precision_at_or_after");
    prec = fpx_precision_at_or_after();
    CHECK_EQ(prec.kind, FPX_PRECISION_AT_OR_AFTER);
    CHECK_EQ(prec.kind, 3);
    CHECK_EQ(fpx_time_compare(prec.tolerance, fpx_time_make(0, 1)), 0);

    SECTION("at or after on mkv.mkv (time base 1/1000): the outcome");
    p = open_with(mkv, 0, &wait_rc);
    REQUIRE(p != NULL && wait_rc == FPX_OK);
    info = item_info(p);
    CHECK_EQ(info.reference_stream, 0);
    CHECK_EQ(info.time_base_num, 1);
    CHECK_EQ(info.time_base_den, 1000);
    /* Inside frame 40: exact lands on it, at or after on frame 41. */
    t_ms = (fm.pts[40] + fm.pts[41]) / 2 - info.start_pts; /* item ms */
    CHECK_OK(seek(p, fpx_time_make(t_ms, 1000), fpx_precision_exact(), &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[40]);
    CHECK_OK(seek(p, fpx_time_make(t_ms, 1000), fpx_precision_at_or_after(), &o));
    CHECK_EQ(o.finished, 1);
    CHECK_EQ(o.landed_stream_pts, fm.pts[41]);
    CHECK_EQ(o.precision.kind, FPX_PRECISION_AT_OR_AFTER);
    CHECK_EQ(o.resolution, FPX_LANDING_COVERING_FRAME);
    CHECK_EQ(o.frame_covers_target, 0);
    CHECK_EQ(o.accuracy.within_requested_tolerance, 1);
    CHECK_EQ(fpx_time_compare(o.accuracy.tolerance_before, fpx_time_make(0, 1)), 0);
    CHECK(o.accuracy.tolerance_after.flags & FPX_TIME_FLAG_POSITIVE_INFINITY);
    CHECK(fpx_time_compare(o.accuracy.delta, fpx_time_make(0, 1)) > 0);
    CHECK_EQ(o.clamp.kind, FPX_CLAMP_NONE);
    CHECK_EQ(o.stream_index, 0);
    /* On frame 50 exactly: that frame, covering the target, for both conventions. */
    CHECK_OK(seek(p, fpx_time_make(fm.pts[50] - info.start_pts, 1000), fpx_precision_at_or_after(), &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[50]);
    CHECK_EQ(o.frame_covers_target, 1);
    CHECK_EQ(o.accuracy.within_requested_tolerance, 1);
    /* 1/3 ms before frame 60 (between ticks): frame 60. */
    CHECK_OK(seek(p, fpx_time_make(3 * (fm.pts[60] - info.start_pts) - 1, 3000), fpx_precision_at_or_after(), &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[60]);
    CHECK_EQ(o.frame_covers_target, 0);

    SECTION("at or after: the packets start at the keyframe, DECODE_ONLY before the landing");
    CHECK_OK(seek(p, fpx_time_make(t_ms, 1000), fpx_precision_at_or_after(), &o));
    saw_landed = 0;
    before_landed_ok = 1;
    key_first = -1;
    for (i = 0; i < 400 && !saw_landed; i++) {
        memset(&pk, 0, sizeof pk);
        pk.struct_size = sizeof pk;
        if (fpx_player_read_packet(p, &pk) != FPX_OK) break;
        if (i == 0) {
            CHECK(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY);
            CHECK_EQ(pk.landed_pts, fm.pts[41]);
        }
        if (pk.stream_index != 0) continue;
        if (key_first < 0) key_first = (pk.flags & FPX_PACKET_FLAG_KEY) != 0;
        if (pk.pts == fm.pts[41]) {
            saw_landed = 1;
            CHECK_EQ(pk.flags & FPX_PACKET_FLAG_DECODE_ONLY, 0);
        } else if (pk.pts < fm.pts[41] && !(pk.flags & FPX_PACKET_FLAG_DECODE_ONLY)) {
            before_landed_ok = 0;
        }
    }
    CHECK(saw_landed);
    CHECK(before_landed_ok);
    CHECK_EQ(key_first, 1);

    SECTION("at or after, then a step: the next frame of ffprobe's list");
    CHECK_OK(seek(p, fpx_time_make(t_ms, 1000), fpx_precision_at_or_after(), &o));
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r));
    CHECK_EQ(r.did_step, 1);
    CHECK_EQ(r.landed_stream_pts, fm.pts[42]);

    SECTION("at or after: clamping at both ends");
    CHECK_OK(seek(p, fpx_time_make(3600, 1), fpx_precision_at_or_after(), &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[fm.n - 1]);
    CHECK_EQ(o.clamp.kind, FPX_CLAMP_TO_SEEKABLE_END);
    CHECK_EQ(o.accuracy.within_requested_tolerance, 0); /* landed before what was asked */
    CHECK_EQ(o.frame_covers_target, 1);                 /* the clamped target: the last frame */
    CHECK_OK(seek(p, fpx_time_make(-5, 1), fpx_precision_at_or_after(), &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[0]);
    CHECK_EQ(o.clamp.kind, FPX_CLAMP_TO_SEEKABLE_START);
    CHECK_EQ(o.accuracy.within_requested_tolerance, 1);
    /* Inside the frame before the last: the last. */
    CHECK_OK(seek(p, fpx_time_make(fm.pts[fm.n - 2] - info.start_pts + 1, 1000), fpx_precision_at_or_after(), &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[fm.n - 1]);
    CHECK_EQ(o.clamp.kind, FPX_CLAMP_NONE);

    SECTION("the precision's kind: AT_OR_AFTER ignores the tolerance; unknown kinds are refused");
    prec.kind = FPX_PRECISION_AT_OR_AFTER;
    prec.tolerance = fpx_time_invalid();
    CHECK_OK(seek(p, fpx_time_make(t_ms, 1000), prec, &o));
    CHECK_EQ(o.landed_stream_pts, fm.pts[41]);
    prec.kind = (fpx_precision_kind)4;
    CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), prec, NULL, NULL, NULL), FPX_ERROR_UNKNOWN_ENUM);
    CHECK_STR(fpx_landing_resolution_name(o.resolution), "FPX_LANDING_COVERING_FRAME");

    SECTION("scrub end with at or after");
    {
        fpx_scrub_session *s = NULL;
        int done = 0, k;
        CHECK_OK(fpx_player_scrub_session(p, &s));
        CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
        CHECK_OK(fpx_scrub_update(s, fpx_time_make(2, 1)));
        CHECK_OK(fpx_scrub_end(s, fpx_time_make(t_ms, 1000), fpx_precision_at_or_after(), on_scrub, NULL, NULL));
        for (k = 0; k < 2000 && !done; k++) {
            sleep_ms(5);
            pthread_mutex_lock(&scrub_mu);
            done = scrub_done;
            pthread_mutex_unlock(&scrub_mu);
        }
        CHECK(done);
        pthread_mutex_lock(&scrub_mu);
        CHECK_EQ(scrub_kind, FPX_PRECISION_AT_OR_AFTER);
        CHECK_EQ(scrub_pts, fm.pts[41]);
        pthread_mutex_unlock(&scrub_mu);
    }
    fpx_player_destroy(p);

    SECTION("stream pts seconds to item time (ts.ts: item time 0 is pts 132006)");
    p = open_with(ts, 0, &wait_rc);
    REQUIRE(p != NULL && wait_rc == FPX_OK);
    info = item_info(p);
    CHECK_EQ(info.time_base_num, 1);
    CHECK_EQ(info.time_base_den, 90000);
    CHECK_EQ(info.start_pts, ft.pts[0]);
    for (i = 1; i < (int)ft.n; i += 37) {
        /* The stream's own pts seconds (ffprobe's pts_time) of frame i, and just before it. */
        fpx_time s_on = fpx_time_make(ft.pts[i] * info.time_base_num, info.time_base_den);
        fpx_time s_before = fpx_time_make(ft.pts[i] * info.time_base_num * 10 - 1, info.time_base_den * 10);
        fpx_time origin = fpx_time_make(info.start_pts * info.time_base_num, info.time_base_den);
        fpx_time item_on = fpx_time_subtract(s_on, origin);
        fpx_time item_before = fpx_time_subtract(s_before, origin);
        /* The packet form: pts p is item time (p - start_pts) x time base. */
        CHECK_EQ(fpx_time_compare(item_on, fpx_time_make((ft.pts[i] - info.start_pts) * info.time_base_num,
                                                         info.time_base_den)), 0);
        CHECK_OK(seek(p, item_on, fpx_precision_exact(), &o));
        CHECK_EQ(o.landed_stream_pts, ft.pts[i]);
        CHECK_OK(seek(p, item_on, fpx_precision_at_or_after(), &o));
        CHECK_EQ(o.landed_stream_pts, ft.pts[i]);
        CHECK_OK(seek(p, item_before, fpx_precision_at_or_after(), &o));
        CHECK_EQ(o.landed_stream_pts, ft.pts[i]);
        CHECK_OK(seek(p, item_before, fpx_precision_exact(), &o));
        CHECK_EQ(o.landed_stream_pts, ft.pts[i - 1]);
        /* Taken as item time (unconverted), a stream time lands 1.4667 s later. */
        CHECK_OK(seek(p, s_on, fpx_precision_at_or_after(), &o));
        want = first_at_or_after(&ft, (int64_t)ft.pts[i] + info.start_pts, 1);
        CHECK_EQ(o.landed_stream_pts, want);
    }
    fpx_player_destroy(p);

    SECTION("reference_stream: size rules and defaults");
    memset(&cfg, 0x5a, sizeof cfg);
    fpx_player_config_init(&cfg);
    CHECK_EQ(cfg.reference_stream, 0);
    CHECK_EQ(cfg.size, sizeof cfg);
    memset(&cfg, 0x5a, sizeof cfg);
    CHECK_OK(fpx_player_config_init_size(&cfg, offsetof(fpx_player_config, reference_stream)));
    CHECK(cfg.size <= offsetof(fpx_player_config, reference_stream));
    CHECK_EQ(cfg.reference_stream, 0x5a5a5a5a); /* never written past size */
    /* A host whose struct ends before reference_stream gets the automatic choice, whatever
     * the bytes after its struct hold. */
    cfg.size = offsetof(fpx_player_config, reference_stream);
    defaults_before(&cfg, offsetof(fpx_player_config, reference_stream));
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    if (p) {
        CHECK_OK(fpx_player_open(p, mp4));
        CHECK_OK(fpx_player_wait_item(p, 20000, NULL));
        info = item_info(p);
        CHECK_EQ(info.reference_stream, 0);
        fpx_player_destroy(p);
    }
    fpx_player_config_init(&cfg);
    cfg.reference_stream = -1;
    p = NULL;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(p == NULL);

    SECTION("tls_ca_file, tls_insecure: size rules, defaults and refusals");
    memset(&cfg, 0x5a, sizeof cfg);
    fpx_player_config_init(&cfg);
    CHECK(cfg.tls_ca_file == NULL);
    CHECK_EQ(cfg.tls_insecure, 0);
    memset(&cfg, 0x5a, sizeof cfg);
    CHECK_OK(fpx_player_config_init_size(&cfg, offsetof(fpx_player_config, tls_ca_file)));
    CHECK_EQ(cfg.size, offsetof(fpx_player_config, tls_ca_file));
    CHECK_EQ(cfg.tls_insecure, 0x5a5a5a5a); /* never written past size */
    /* A host whose struct ends before them (the 0.4 layout through reference_stream): the
     * bytes after its struct are never read (a wild pointer and a value that would be
     * refused sit there), and the default checks apply. */
    defaults_before(&cfg, offsetof(fpx_player_config, tls_ca_file));
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    fpx_player_destroy(p);
    /* A size that ends inside tls_insecure leaves it out too. */
    cfg.size = offsetof(fpx_player_config, tls_insecure) + 2;
    cfg.tls_ca_file = NULL;
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    fpx_player_destroy(p);
    {
        static const int32_t refused[] = {2, -1, INT32_MAX, INT32_MIN};
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
            fpx_player_config_init(&cfg);
            cfg.tls_insecure = refused[i];
            p = NULL;
            CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
            CHECK(p == NULL);
        }
    }
    fpx_player_config_init(&cfg);
    cfg.tls_ca_file = "";
    p = NULL;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(p == NULL);
    fpx_player_config_init(&cfg);
    cfg.tls_insecure = 1;
    cfg.tls_ca_file = "/nonexistent/ca.pem"; /* copied; read only at an https open */
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    if (p) {
        CHECK_OK(fpx_player_open(p, mp4)); /* a file: TLS plays no part */
        CHECK_OK(fpx_player_wait_item(p, 20000, NULL));
        fpx_player_destroy(p);
    }

    SECTION("reference_stream: a video stream by index; invalid choices fail the open, logged");
    CHECK_OK(fpx_set_log_callback(FPX_LOG_ERROR, on_log, NULL));
    p = open_with(mp4, 1, &wait_rc); /* stream 0, the video */
    REQUIRE(p != NULL);
    CHECK_OK(wait_rc);
    info = item_info(p);
    CHECK_EQ(info.reference_stream, 0);
    fpx_player_destroy(p);
    clear_log();
    p = open_with(mp4, 2, &wait_rc); /* stream 1 is AAC */
    REQUIRE(p != NULL);
    CHECK_ERR(wait_rc, FPX_ERROR_INVALID_ARGUMENT);
    {
        fpx_item_status_info st;
        memset(&st, 0, sizeof st);
        st.struct_size = sizeof st;
        CHECK_OK(fpx_player_item_status(p, &st));
        CHECK_EQ(st.status, FPX_ITEM_FAILED);
        CHECK_EQ(st.error, FPX_ERROR_INVALID_ARGUMENT);
    }
    CHECK(logged("stream index 1"));
    CHECK(logged("not a video stream but audio"));
    fpx_player_destroy(p);
    clear_log();
    p = open_with(mp4, 3, &wait_rc); /* there is no stream 2 */
    REQUIRE(p != NULL);
    CHECK_ERR(wait_rc, FPX_ERROR_INVALID_ARGUMENT);
    CHECK(logged("does not exist: the item has 2 streams"));
    fpx_player_destroy(p);

    SECTION("reference_stream: steps, packets and stream switches follow the chosen stream");
    {
        char dir[64], two[200];
        frames f2;
        snprintf(dir, sizeof dir, "%s", "/tmp/fpx-conv-two.XXXXXX");
        REQUIRE(mkdtemp(dir) != NULL);
        snprintf(two, sizeof two, "%s/two.mkv", dir);
        /* Audio, a 25 fps video (automatic: the larger), a 30000/1001 fps video with B-frames. */
        snprintf(cmd, sizeof cmd,
                 "ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=160x120:rate=25 "
                 "-f lavfi -i testsrc=size=96x72:rate=30000/1001 -f lavfi -i sine=sample_rate=48000 -t 4 "
                 "-map 2:a -map 0:v -map 1:v -c:v libx264 -preset ultrafast -bf 2 -g:v:0 12 -g:v:1 20 "
                 "-pix_fmt yuv420p -c:a aac '%s' >/dev/null 2>&1", two);
        REQUIRE(system(cmd) == 0);
        REQUIRE(probe_frames(&f2, two, 2) > 60);
        p = open_with(two, 0, &wait_rc);
        REQUIRE(p != NULL && wait_rc == FPX_OK);
        CHECK_EQ(item_info(p).reference_stream, 1);
        fpx_player_destroy(p);
        p = open_with(two, 3, &wait_rc);
        REQUIRE(p != NULL && wait_rc == FPX_OK);
        info = item_info(p);
        CHECK_EQ(info.reference_stream, 2);
        CHECK_EQ(info.has_video, 1);
        /* Frame 30 of stream 2, then steps along stream 2's grid (ffprobe's). */
        CHECK_OK(seek(p, fpx_time_make((f2.pts[30] - info.start_pts) * info.time_base_num, info.time_base_den),
                      fpx_precision_exact(), &o));
        CHECK_EQ(o.stream_index, 2);
        CHECK_EQ(o.landed_stream_pts, f2.pts[30]);
        CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r));
        CHECK_EQ(r.landed_stream_pts, f2.pts[31]);
        CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 3, &r));
        CHECK_EQ(r.landed_stream_pts, f2.pts[28]);
        CHECK_OK(seek(p, fpx_time_make(3 * ((f2.pts[40] + f2.pts[41]) / 2 - info.start_pts) * info.time_base_num,
                                       3 * info.time_base_den),
                      fpx_precision_at_or_after(), &o));
        CHECK_EQ(o.landed_stream_pts, f2.pts[41]);
        memset(&pk, 0, sizeof pk);
        pk.struct_size = sizeof pk;
        CHECK_OK(fpx_player_read_packet(p, &pk));
        CHECK_EQ(pk.landed_stream_index, 2);
        CHECK_EQ(pk.landed_pts, f2.pts[41]);
        /* The chosen stream cannot be switched off; the automatic one now can. */
        CHECK_ERR(fpx_player_set_stream_enabled(p, 2, 0), FPX_ERROR_REFERENCE_STREAM);
        CHECK_OK(fpx_player_set_stream_enabled(p, 1, 0));
        fpx_player_destroy(p);
        free(f2.pts);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    }

    SECTION("HLS: at or after on every frame, across segment ends (ffprobe's frames of the playlist)");
    snprintf(hlsdir, sizeof hlsdir, "%s", "/tmp/fpx-conv-hls.XXXXXX");
    REQUIRE(mkdtemp(hlsdir) != NULL);
    snprintf(hls, sizeof hls, "%s/v.m3u8", hlsdir);
    /* B-frames (veryfast, bf 2), a keyframe a second, 1 s segments: 3 segments of 25 frames. */
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=64x48:rate=25 -t 3 -c:v libx264 "
             "-preset veryfast -bf 2 -g 25 -f hls -hls_time 1 -hls_playlist_type vod '%s' >/dev/null 2>&1", hls);
    REQUIRE(system(cmd) == 0);
    {
        frames fh;
        size_t k, bad_on = 0, bad_between = 0, bad_before = 0;
        REQUIRE(probe_frames(&fh, hls, 0) >= 70);
        p = open_with(hls, 0, &wait_rc);
        REQUIRE(p != NULL && wait_rc == FPX_OK);
        info = item_info(p);
        CHECK_EQ(info.time_base_den, 90000);
        CHECK_EQ(info.start_pts, fh.pts[0]);
        for (k = 0; k < fh.n; k++) {
            int64_t on = fh.pts[k] - info.start_pts; /* item ticks of frame k */
            /* on frame k: frame k */
            CHECK_OK(seek(p, fpx_time_make(on, 90000), fpx_precision_at_or_after(), &o));
            if (!(o.finished == 1 && o.landed_stream_pts == fh.pts[k])) bad_on++;
            /* one tick before frame k: frame k */
            if (k > 0) {
                CHECK_OK(seek(p, fpx_time_make(on - 1, 90000), fpx_precision_at_or_after(), &o));
                if (!(o.finished == 1 && o.landed_stream_pts == fh.pts[k] && o.accuracy.within_requested_tolerance))
                    bad_before++;
            }
            /* between frame k and k + 1 (the segment ends among them): frame k + 1 */
            if (k + 1 < fh.n) {
                int64_t mid = (fh.pts[k] + fh.pts[k + 1]) / 2 - info.start_pts;
                CHECK_OK(seek(p, fpx_time_make(mid, 90000), fpx_precision_at_or_after(), &o));
                if (!(o.finished == 1 && o.landed_stream_pts == fh.pts[k + 1] && o.frame_covers_target == 0))
                    bad_between++;
            }
        }
        NOTE("%zu frames: at or after wrong on %zu (on a frame), %zu (a tick before), %zu (between)", fh.n,
             bad_on, bad_before, bad_between);
        CHECK_EQ(bad_on, 0);
        CHECK_EQ(bad_before, 0);
        CHECK_EQ(bad_between, 0);
        /* Exact keeps its meaning there: between frames k and k + 1 it is frame k. */
        CHECK_OK(seek(p, fpx_time_make((fh.pts[24] + fh.pts[25]) / 2 - info.start_pts, 90000), fpx_precision_exact(), &o));
        CHECK_EQ(o.landed_stream_pts, fh.pts[24]);
        fpx_player_destroy(p);
        free(fh.pts);
    }

    SECTION("HLS: another reference stream than the automatic one is refused (UNSUPPORTED)");
    p = open_with(hls, 1, &wait_rc); /* the automatic one: accepted */
    REQUIRE(p != NULL);
    CHECK_OK(wait_rc);
    fpx_player_destroy(p);
    clear_log();
    p = open_with(hls, 2, &wait_rc);
    REQUIRE(p != NULL);
    CHECK_ERR(wait_rc, FPX_ERROR_UNSUPPORTED);
    CHECK(logged("HLS item"));
    fpx_player_destroy(p);
    fpx_set_log_callback(FPX_LOG_QUIET, NULL, NULL);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", hlsdir);
    CHECK(system(cmd) == 0);

    free(fm.pts);
    free(ft.pts);
    return check_summary();
}
