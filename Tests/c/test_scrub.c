/* Scrub sessions through the C API: coalescing (by the player's counters),
 * throttled positions with the trailing edge, the state sequence, cancel, and
 * the documented edge cases. Usage: test_scrub FIXTURE_DIR */
#include "check.h"

#include <fastpix/seek.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_EVENTS 4096

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int states[64];
static int nstates;
static fpx_scrub_position positions[MAX_EVENTS];
static double position_at_ms[MAX_EVENTS];
static int npositions;
static int results;
static fpx_scrub_result last_result;
static fpx_seek_outcome last_outcome;
static int have_outcome;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void on_state(fpx_scrub_state s, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    if (nstates < 64) states[nstates++] = (int)s;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void on_position(const fpx_scrub_position *p, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    if (npositions < MAX_EVENTS) {
        position_at_ms[npositions] = now_ms();
        positions[npositions++] = *p;
    }
    pthread_mutex_unlock(&mu);
}

static void on_end(const fpx_scrub_result *r, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    last_result = *r;
    have_outcome = r->outcome != NULL;
    if (r->outcome) last_outcome = *r->outcome;
    results++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int wait_results(int n) {
    struct timespec dl;
    int ok = 1;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 10;
    pthread_mutex_lock(&mu);
    while (results < n && ok) ok = pthread_cond_timedwait(&cv, &mu, &dl) == 0;
    pthread_mutex_unlock(&mu);
    return results >= n;
}

static void reset(void) {
    pthread_mutex_lock(&mu);
    nstates = npositions = results = have_outcome = 0;
    pthread_mutex_unlock(&mu);
}


int main(int argc, char **argv) {
    char path[4096];
    fpx_player *p = NULL;
    fpx_scrub_session *s = NULL, *s2 = NULL;
    fpx_listener l;
    fpx_player_stats before = {.struct_size = sizeof(fpx_player_stats)}, after = {.struct_size = sizeof(fpx_player_stats)};
    fpx_scrub_state st;
    fpx_time thr;
    int active, i;
    uint64_t id = 0;
    if (argc < 2) { fprintf(stderr, "usage: test_scrub FIXTURE_DIR\n"); return 2; }
    snprintf(path, sizeof path, "%s/mp4_bframes.mp4", argv[1]);

    SECTION("setup");
    REQUIRE(fpx_player_create(NULL, &p) == FPX_OK);
    CHECK_OK(fpx_player_open(p, path));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_ERR(fpx_player_scrub_session(p, &s2), FPX_ERROR_NO_SEEK_MANAGER);
    CHECK(s2 == NULL);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_scrub_session(p, &s));
    REQUIRE(s != NULL);
    fpx_listener_init(&l);
    l.on_scrub_state_changed = on_state;
    l.on_scrub_position_changed = on_position;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    CHECK_OK(fpx_scrub_get_state(s, &st, &active));
    CHECK_EQ(st, FPX_SCRUB_IDLE);
    CHECK_EQ(active, 0);
    CHECK_OK(fpx_scrub_get_position_throttle(s, &thr));
    CHECK_TIME_EQ(thr, fpx_time_make(100, 1000));

    SECTION("10,000 updates, then end: one seek");
    reset();
    CHECK_OK(fpx_player_stats_get(p, &before));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(0, 1)));
    CHECK_OK(fpx_scrub_get_state(s, &st, &active));
    CHECK_EQ(st, FPX_SCRUB_SCRUBBING);
    CHECK_EQ(active, 1);
    {
        double t0 = now_ms();
        for (i = 1; i <= 10000; i++) {
            if (fpx_scrub_update(s, fpx_time_make(i, 1000)) != FPX_OK) { CHECK(0); break; }
            if (i % 100 == 0) sleep_ms(1); /* spread the drag over ~0.1 s+ */
        }
        NOTE("10,000 updates took %.1f ms", now_ms() - t0);
    }
    CHECK_OK(fpx_player_stats_get(p, &after));
    CHECK_EQ(after.seeks_issued - before.seeks_issued, 0);
    CHECK_OK(fpx_scrub_end(s, fpx_time_make(10000, 1000), fpx_precision_exact(), on_end, NULL, &id));
    CHECK(id != 0);
    REQUIRE(wait_results(1));
    CHECK_OK(fpx_player_stats_get(p, &after));
    CHECK_EQ(after.seeks_issued - before.seeks_issued, 1);
    CHECK_EQ(last_result.sample_count, 10000);
    CHECK_EQ(last_result.was_cancelled, 0);
    CHECK(have_outcome);
    CHECK_EQ(last_outcome.seek_id, id);
    CHECK_EQ(last_outcome.finished, 1);
    sleep_ms(50);
    pthread_mutex_lock(&mu);
    /* States: SCRUBBING, SETTLING, IDLE, in that order. */
    CHECK_EQ(nstates, 3);
    if (nstates == 3) {
        CHECK_EQ(states[0], FPX_SCRUB_SCRUBBING);
        CHECK_EQ(states[1], FPX_SCRUB_SETTLING);
        CHECK_EQ(states[2], FPX_SCRUB_IDLE);
    }
    /* Positions: throttled, and the last one is the final sample. */
    CHECK(npositions >= 1);
    CHECK(npositions < 10000 / 10);
    if (npositions >= 1) {
        CHECK_EQ(positions[npositions - 1].sample_count, 10000);
        CHECK_TIME_EQ(positions[npositions - 1].time, fpx_time_make(10000, 1000));
    }
    for (i = 1; i + 1 < npositions; i++) {
        /* Every delivery but the flushed last one is at least one throttle after the previous. */
        if (position_at_ms[i] - position_at_ms[i - 1] < 90.0) {
            CHECK(position_at_ms[i] - position_at_ms[i - 1] >= 90.0);
            break;
        }
        CHECK(positions[i].sample_count > positions[i - 1].sample_count);
    }
    NOTE("%d position events for 10,000 samples", npositions);
    pthread_mutex_unlock(&mu);
    CHECK_OK(fpx_scrub_get_state(s, &st, &active));
    CHECK_EQ(st, FPX_SCRUB_IDLE);

    SECTION("trailing edge: a burst's last position arrives without end");
    reset();
    CHECK_OK(fpx_scrub_set_position_throttle(s, fpx_time_make(200, 1000)));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
    CHECK_OK(fpx_scrub_update(s, fpx_time_make(2, 1)));
    CHECK_OK(fpx_scrub_update(s, fpx_time_make(3, 1)));
    CHECK_OK(fpx_scrub_update(s, fpx_time_make(4, 1)));
    sleep_ms(500);
    pthread_mutex_lock(&mu);
    CHECK_EQ(npositions, 2);
    if (npositions == 2) {
        CHECK_TIME_EQ(positions[0].time, fpx_time_make(2, 1));
        CHECK_TIME_EQ(positions[1].time, fpx_time_make(4, 1));
        CHECK_EQ(positions[1].sample_count, 3);
        CHECK(position_at_ms[1] - position_at_ms[0] >= 190.0);
    }
    pthread_mutex_unlock(&mu);

    SECTION("cancel issues no seek");
    CHECK_OK(fpx_player_stats_get(p, &before));
    CHECK_OK(fpx_scrub_cancel(s));
    CHECK_OK(fpx_scrub_get_state(s, &st, NULL));
    CHECK_EQ(st, FPX_SCRUB_IDLE);
    sleep_ms(50);
    CHECK_OK(fpx_player_stats_get(p, &after));
    CHECK_EQ(after.seeks_issued - before.seeks_issued, 0);
    CHECK_OK(fpx_scrub_cancel(s)); /* idle: no-op */

    SECTION("update or end without begin");
    CHECK_ERR(fpx_scrub_update(s, fpx_time_make(1, 1)), FPX_ERROR_INVALID_STATE);
    reset();
    CHECK_ERR(fpx_scrub_end(s, fpx_time_make(1, 1), fpx_precision_exact(), on_end, NULL, NULL), FPX_ERROR_INVALID_STATE);
    sleep_ms(50);
    CHECK_EQ(results, 0);

    SECTION("non-numeric times");
    {
        fpx_time bad = fpx_time_make(1, 0);
        CHECK_ERR(fpx_scrub_begin(s, bad), FPX_ERROR_INVALID_TIME);
        CHECK_ERR(fpx_scrub_begin(s, fpx_time_infinity(0)), FPX_ERROR_INVALID_TIME);
        CHECK_ERR(fpx_scrub_begin(s, fpx_time_from_seconds(0.0 / 0.0, 600)), FPX_ERROR_INVALID_TIME);
        CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
        CHECK_ERR(fpx_scrub_update(s, bad), FPX_ERROR_INVALID_TIME);
        CHECK_ERR(fpx_scrub_end(s, fpx_time_infinity(1), fpx_precision_exact(), on_end, NULL, NULL), FPX_ERROR_INVALID_TIME);
        CHECK_ERR(fpx_scrub_set_position_throttle(s, fpx_time_make(-1, 10)), FPX_ERROR_INVALID_TIME);
        CHECK_OK(fpx_scrub_cancel(s));
    }

    SECTION("begin while scrubbing restarts the count");
    reset();
    CHECK_OK(fpx_scrub_set_position_throttle(s, fpx_time_make(0, 1)));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
    CHECK_OK(fpx_scrub_update(s, fpx_time_make(2, 1)));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(3, 1)));
    CHECK_OK(fpx_scrub_update(s, fpx_time_make(4, 1)));
    CHECK_OK(fpx_scrub_end(s, fpx_time_make(4, 1), fpx_precision_default(), on_end, NULL, NULL));
    REQUIRE(wait_results(1));
    CHECK_EQ(last_result.sample_count, 1);

    SECTION("begin while settling: the settling seek is superseded by the next end");
    reset();
    CHECK_OK(fpx_player_stats_get(p, &before));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
    CHECK_OK(fpx_scrub_end(s, fpx_time_make(9, 1), fpx_precision_exact(), on_end, NULL, NULL));
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(2, 1)));
    CHECK_OK(fpx_scrub_update(s, fpx_time_make(3, 1)));
    CHECK_OK(fpx_scrub_end(s, fpx_time_make(3, 1), fpx_precision_exact(), on_end, NULL, NULL));
    REQUIRE(wait_results(2));
    CHECK_OK(fpx_player_stats_get(p, &after));
    CHECK_EQ(after.seeks_issued - before.seeks_issued, 2);
    CHECK_EQ(after.seeks_completed + after.seeks_superseded - before.seeks_completed - before.seeks_superseded, 2);
    CHECK_EQ(last_result.sample_count, 1);
    CHECK(have_outcome && last_outcome.finished);

    SECTION("destroy while settling: the end callback runs once, before destroy returns");
    reset();
    CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
    CHECK_OK(fpx_scrub_end(s, fpx_time_make(11, 1), fpx_precision_exact(), on_end, NULL, NULL));
    CHECK_OK(fpx_player_destroy(p));
    CHECK_EQ(results, 1); /* delivered before destroy returned */
    /* Either it landed first, or destroy cancelled it: then there is no outcome. */
    CHECK(last_result.was_cancelled ? !have_outcome : have_outcome);
    CHECK_ERR(fpx_scrub_update(s, fpx_time_make(1, 1)), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_scrub_begin((fpx_scrub_session *)p, fpx_time_make(1, 1)), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_scrub_begin(NULL, fpx_time_make(1, 1)), FPX_ERROR_INVALID_HANDLE);
    return check_summary();
}
