/* Issue 9 defects, one section each (the lifetime ones are in
 * test_lifetimes.c, the read/step storm in test_storm_packets.c, the
 * output-struct rule in test_abi_structs.c):
 *
 *  2. HLS/engine state read by item_info/stream_info while another thread
 *     opens and seeks (a data race on 0.2.0: run under make test-tsan);
 *  6. stepping the two mutated files of the fuzz corpus (seek exactly to
 *     0.75 s, then forward 3 / backward 2, alternating) never returns
 *     FPX_ERROR_INTERNAL;
 *  7. tolerances that cannot be used (INT64_MAX seconds, flag bits other than
 *     VALID) are refused by fpx_player_seek, fpx_scrub_end and
 *     fpx_player_seek_to_date, not accepted and failed later;
 *  8. 1,000 scrub gestures with two busy threads loading the CPU: every one
 *     ends IDLE, with exactly one IDLE event, seen IDLE inside its end callback;
 *  9. a step refused after reading media does not leave the reads somewhere
 *     else: the next packet follows the last one, or carries DISCONTINUITY
 *     and is a reference keyframe.
 * 10. (found by fuzz_api) an input struct whose size ends inside a pointer
 *     member: the member is left out, never copied in part and called.
 * Usage: test_memsafe FIXTURE_DIR [GESTURES] */
#include "check.h"

#include <sched.h>
#include <stddef.h>
#include <sys/stat.h>

#ifndef SCHED_IDLE
#define SCHED_IDLE 5 /* Linux */
#endif

/* ---- 2 ---------------------------------------------------------------- */
static volatile int race_stop;
static void *facts_reader(void *arg)
{
    fpx_player *p = arg;
    long n = 0;
    while (!flag_get(&race_stop)) {
        fpx_item_info ii = {.struct_size = sizeof ii};
        fpx_stream_info si = {.struct_size = sizeof si};
        fpx_live_seek_window w = {.struct_size = sizeof w};
        if (fpx_player_item_info(p, &ii) == FPX_OK && fpx_player_stream_info(p, ii.reference_stream, &si) == FPX_OK)
            n++;
        fpx_player_live_seek_window(p, &w);
    }
    return (void *)(intptr_t)n;
}

static void hls_races(void)
{
    char dir[1024], url[1200], cmd[1300];
    fpx_player *p;
    pthread_t th;
    void *reads;
    int i;
    SECTION("2. item_info/stream_info while another thread opens and seeks an HLS item");
    if (!make_hls_vod(dir, sizeof dir, "memsafe", 12)) {
        CHECK(!"ffmpeg could not write the VOD playlist");
        return;
    }
    snprintf(url, sizeof url, "%s/vod.m3u8", dir);
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(open_wait(p, url, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    flag_set(&race_stop, 0);
    pthread_create(&th, NULL, facts_reader, p);
    for (i = 0; i < 40; i++) {
        fpx_packet pk = {.struct_size = sizeof pk};
        if (i % 10 == 9) {
            CHECK_OK(fpx_player_open(p, url));
            CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
        }
        CHECK_OK(fpx_player_seek(p, fpx_time_make((i * 7) % 11, 1), fpx_precision_exact(), NULL, NULL, NULL));
        CHECK_OK(fpx_player_read_packet(p, &pk));
    }
    flag_set(&race_stop, 1);
    pthread_join(th, &reads);
    NOTE("%ld fact reads during the opens and seeks", (long)(intptr_t)reads);
    CHECK((intptr_t)reads > 0);
    CHECK_OK(fpx_player_destroy(p));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        NOTE("could not remove %s", dir);
}

/* ---- 6 ---------------------------------------------------------------- */
typedef struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int finished;
} waiter;

static void on_seek_done(const fpx_seek_outcome *o, void *ud)
{
    waiter *w = ud;
    pthread_mutex_lock(&w->mu);
    w->done++;
    w->finished = o->finished;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void wait_done(waiter *w, int n)
{
    pthread_mutex_lock(&w->mu);
    while (w->done < n)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static void repro_steps(const char *path)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    int k, rc, internal = 0, ok = 0, typed = 0;
    struct stat st;
    SECTION(path);
    if (stat(path, &st) != 0) {
        CHECK(!"repro file missing (run from the repository root)");
        return;
    }
    REQUIRE(open_wait(p, path, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_seek(p, fpx_time_make(75, 100), fpx_precision_exact(), on_seek_done, &w, NULL));
    wait_done(&w, 1);
    for (k = 0; k < 40; k++) {
        fpx_frame_step_result r = {.struct_size = sizeof r};
        int fwd = k % 2 == 0;
        rc = fpx_player_step_frame(p, fwd ? FPX_STEP_FORWARD : FPX_STEP_BACKWARD, fwd ? 3 : 2, &r);
        if (rc == FPX_ERROR_INTERNAL)
            internal++;
        else if (rc == FPX_OK)
            ok++;
        else
            typed++;
    }
    NOTE("40 steps: %d FPX_OK, %d typed errors, %d FPX_ERROR_INTERNAL", ok, typed, internal);
    CHECK_EQ(internal, 0);
    CHECK_OK(fpx_player_destroy(p));
}

/* ---- 7 ---------------------------------------------------------------- */
static void on_scrub_end_never(const fpx_scrub_result *r, void *ud)
{
    (void)r;
    (*(volatile int *)ud)++;
}

static void on_date_never(const fpx_date_seek_result *r, void *ud)
{
    (void)r;
    (*(volatile int *)ud)++;
}

static void tolerances(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_scrub_session *s;
    fpx_precision huge = fpx_precision_nearest_keyframe(fpx_time_make(INT64_MAX, 1));
    fpx_precision flags = fpx_precision_nearest_keyframe(fpx_time_make(1, 10));
    fpx_precision limit = fpx_precision_nearest_keyframe(fpx_time_make((int64_t)1 << 31, 1));
    volatile int never = 0;
    waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    SECTION("7. unusable tolerances are refused up front");
    flags.tolerance.flags |= 0x10u;
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), huge, NULL, NULL, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), flags, NULL, NULL, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_seek_to_date(p, 0, huge, on_date_never, (void *)&never, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_player_scrub_session(p, &s));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(0, 1)));
    CHECK_ERR(fpx_scrub_end(s, fpx_time_make(1, 1), huge, on_scrub_end_never, (void *)&never, NULL),
              FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_scrub_end(s, fpx_time_make(1, 1), flags, on_scrub_end_never, (void *)&never, NULL),
              FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_scrub_cancel(s));
    /* the largest accepted tolerance completes, and lands */
    CHECK_OK(fpx_player_seek(p, fpx_time_make(1, 1), limit, on_seek_done, &w, NULL));
    wait_done(&w, 1);
    CHECK_EQ(w.finished, 1);
    CHECK_OK(fpx_player_destroy(p));
    CHECK_EQ(never, 0);
}

/* ---- 8 ---------------------------------------------------------------- */
typedef struct gesture_log {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long idle_events;
    long ended;
    long idle_in_callback;
    fpx_scrub_session *s;
} gesture_log;

static void on_state(fpx_scrub_state st, void *ud)
{
    gesture_log *g = ud;
    if (st == FPX_SCRUB_IDLE) {
        pthread_mutex_lock(&g->mu);
        g->idle_events++;
        pthread_mutex_unlock(&g->mu);
    }
}

static void on_end(const fpx_scrub_result *r, void *ud)
{
    gesture_log *g = ud;
    fpx_scrub_state st = FPX_SCRUB_SETTLING;
    (void)r;
    fpx_scrub_get_state(g->s, &st, NULL);
    pthread_mutex_lock(&g->mu);
    g->ended++;
    if (st == FPX_SCRUB_IDLE)
        g->idle_in_callback++;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static volatile int busy_stop;
static void *busy(void *arg)
{
    volatile unsigned long x = 0;
    (void)arg;
    while (!flag_get(&busy_stop))
        x++;
    return NULL;
}

/* Two busy threads, as in the issue: the end
 * caller is preempted between issuing the seek and recording it. */
static void scrub_gestures(long n)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    gesture_log g;
    fpx_listener l;
    pthread_t b[2];
    long i, stuck = 0;
    int k;
    SECTION("8. scrub gestures under CPU load all end IDLE, one IDLE event each");
    memset(&g, 0, sizeof g);
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_scrub_session(p, &g.s));
    fpx_listener_init(&l);
    l.userdata = &g;
    l.on_scrub_state_changed = on_state;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    flag_set(&busy_stop, 0);
    for (k = 0; k < 2; k++)
        pthread_create(&b[k], NULL, busy, NULL);
    /* This thread (the gesture's) runs at the lowest priority, the library's
     * threads (created before) at the normal one: the end caller is
     * preempted right after issuing its seek, as on a loaded machine. */
    {
        struct sched_param sp;
        memset(&sp, 0, sizeof sp);
        if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) != 0)
            NOTE("SCHED_IDLE refused; the gestures run at normal priority");
    }
    for (i = 0; i < n; i++) {
        fpx_scrub_state st = FPX_SCRUB_SETTLING;
        uint64_t deadline;
        CHECK_OK(fpx_scrub_begin(g.s, fpx_time_make(i % 50, 10)));
        for (k = 0; k < 3; k++)
            fpx_scrub_update(g.s, fpx_time_make((i + k) % 50, 10));
        if (fpx_scrub_end(g.s, fpx_time_make((i * 13) % 50, 10), i % 2 ? fpx_precision_exact() : fpx_precision_default(),
                          on_end, &g, NULL) != FPX_OK) {
            CHECK(!"fpx_scrub_end failed");
            break;
        }
        deadline = now_ns() + 10000000000ull;
        pthread_mutex_lock(&g.mu);
        while (g.ended < i + 1 && now_ns() < deadline) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&g.cv, &g.mu, &ts);
        }
        pthread_mutex_unlock(&g.mu);
        /* the IDLE event is delivered just before the end callback, in the same event */
        fpx_scrub_get_state(g.s, &st, NULL);
        if (st != FPX_SCRUB_IDLE)
            stuck++;
    }
    flag_set(&busy_stop, 1);
    {
        struct sched_param sp;
        memset(&sp, 0, sizeof sp);
        pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
    }
    for (k = 0; k < 2; k++)
        pthread_join(b[k], NULL);
    CHECK_OK(fpx_player_destroy(p));
    NOTE("%ld gestures: %ld ended, %ld IDLE events, %ld saw IDLE in their end callback, %ld left not IDLE", n,
         g.ended, g.idle_events, g.idle_in_callback, stuck);
    CHECK_EQ(g.ended, n);
    CHECK_EQ(g.idle_events, n);
    CHECK_EQ(g.idle_in_callback, n);
    CHECK_EQ(stuck, 0);
}

/* ---- 9 ---------------------------------------------------------------- */
static void refused_step_keeps_reads(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_packet pk = {.struct_size = sizeof pk};
    fpx_frame_step_result r = {.struct_size = sizeof r};
    fpx_item_info ii = {.struct_size = sizeof ii};
    int64_t last_pos = -1;
    int i;
    SECTION("9. a step refused after reading media leaves the reads in order");
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_item_info(p, &ii));
    for (i = 0; i < 6; i++) {
        CHECK_OK(fpx_player_read_packet(p, &pk));
        last_pos = pk.pos;
    }
    /* From the first frame, backward: refused, after demuxing the first GOP. */
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 1, &r));
    CHECK_EQ(r.did_step, 0);
    CHECK_EQ(r.reason, FPX_STEP_CANNOT_STEP_IN_DIRECTION);
    CHECK_OK(fpx_player_read_packet(p, &pk));
    if (pk.flags & FPX_PACKET_FLAG_DISCONTINUITY) {
        CHECK_EQ(pk.stream_index, ii.reference_stream);
        CHECK(pk.flags & FPX_PACKET_FLAG_KEY);
    } else {
        /* no DISCONTINUITY: it must come after the last packet read */
        if (!CHECK(pk.pos > last_pos))
            NOTE("read pos %" PRId64 " (pts %" PRId64 ") after pos %" PRId64 " without DISCONTINUITY", pk.pos,
                 pk.pts, last_pos);
    }
    CHECK_OK(fpx_player_destroy(p));
}

/* ---- 10 (found by fuzz_api) ------------------------------------------------- */
static volatile int partial_calls;
static void partial_status(const fpx_item_status_info *s, void *ud)
{
    (void)s;
    (void)ud;
    partial_calls++;
}
static void partial_wakeup(void *ud)
{
    (void)ud;
    partial_calls++;
}

/* An input struct whose declared size ends inside a pointer member: the
 * library takes whole members only, so the cut one counts as absent (NULL,
 * default). fuzz_api found the listener case: half a function pointer was
 * copied and later called (SEGV at a small address). */
static void partial_members(void)
{
    fpx_listener l;
    fpx_player_config cfg;
    fpx_player *p = NULL;
    SECTION("10. a size ending inside a pointer member: that member is left out");
    /* listener: size cuts on_item_status after 2 of its bytes */
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    fpx_listener_init(&l);
    l.on_item_status = partial_status;
    l.size = offsetof(fpx_listener, on_item_status) + 2;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_destroy(p));
    /* config: size cuts wakeup (host mode, so it would be called) */
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_HOST;
    cfg.wakeup = partial_wakeup;
    cfg.size = offsetof(fpx_player_config, wakeup) + 4;
    CHECK_OK(fpx_player_create(&cfg, &p));
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    CHECK_OK(fpx_player_destroy(p));
    /* config: size cuts the protocol whitelist string pointer */
    fpx_player_config_init(&cfg);
    cfg.protocol_whitelist = "file";
    cfg.size = offsetof(fpx_player_config, protocol_whitelist) + 3;
    CHECK_OK(fpx_player_create(&cfg, &p));
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_destroy(p));
    CHECK_EQ(partial_calls, 0);
}

int main(int argc, char **argv)
{
    long gestures = argc > 2 ? atol(argv[2]) : 1000;
    check_init(argc, argv, 115);
    tolerances();
    refused_step_keeps_reads();
    repro_steps("Tests/fuzz/files/internal-step-mkv.mkv");
    repro_steps("Tests/fuzz/files/internal-step-mp4.mp4");
    hls_races();
    scrub_gestures(gestures);
    partial_members();
    return check_summary();
}
