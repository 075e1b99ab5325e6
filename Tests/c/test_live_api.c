/* The live API on non-live items and misuse: no item, a file item, NULL and
 * destroyed handles, bad enums. (Live streams themselves: Tests/python/test_live.py
 * with Tests/c/live.c.) Usage: test_live_api FIXTURE_DIR */
#include "check.h"

#include <fastpix/seek.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int edge_calls, edge_error, edge_had_outcome, date_calls, date_reason, date_seeked;

static void on_edge(const fpx_seek_outcome *o, int error, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    edge_calls++;
    edge_error = error;
    edge_had_outcome = o != NULL && o->finished;
    pthread_mutex_unlock(&mu);
}

static void on_date(const fpx_date_seek_result *r, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    date_calls++;
    date_reason = (int)r->reason;
    date_seeked = r->seeked;
    pthread_mutex_unlock(&mu);
}

static int calls(int *c) {
    int n;
    pthread_mutex_lock(&mu);
    n = *c;
    pthread_mutex_unlock(&mu);
    return n;
}

int main(int argc, char **argv) {
    char path[4096];
    fpx_player *p = NULL, *gone;
    fpx_live_seek_window w = {.struct_size = sizeof(fpx_live_seek_window)};
    fpx_precision bad;
    if (argc < 2) { fprintf(stderr, "usage: test_live_api FIXTURE_DIR\n"); return 2; }
    snprintf(path, sizeof path, "%s/mp4_bframes.mp4", argv[1]);

    SECTION("no item");
    REQUIRE(fpx_player_create(NULL, &p) == FPX_OK);
    CHECK_OK(fpx_player_live_seek_window(p, &w));
    CHECK_EQ(w.is_available, 0);
    CHECK_EQ(w.struct_size, sizeof w);
    CHECK_OK(fpx_player_seek_to_live_edge(p, on_edge, NULL, NULL));
    CHECK_OK(fpx_player_seek_to_date(p, 1764437000000000LL, fpx_precision_exact(), on_date, NULL, NULL));
    sleep_ms(100);
    CHECK_EQ(calls(&edge_calls), 1);
    CHECK_EQ(edge_error, FPX_ERROR_NO_ITEM);
    CHECK_EQ(edge_had_outcome, 0);
    CHECK_EQ(calls(&date_calls), 1);
    CHECK_EQ(date_reason, FPX_DATE_SEEK_NO_CURRENT_ITEM);
    CHECK_EQ(date_seeked, 0);

    SECTION("a file item: not live, not date addressable");
    CHECK_OK(fpx_player_open(p, path));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_live_seek_window(p, &w));
    CHECK_EQ(w.is_available, 1);
    CHECK_EQ(w.is_live, 0);
    CHECK_EQ(w.is_date_addressable, 0);
    CHECK_TIME_EQ(w.start, fpx_time_make(0, 1));
    CHECK_TIME_EQ(w.end, fpx_time_make(359359, 30000)); /* the last frame */
    CHECK_OK(fpx_player_seek_to_date(p, 1764437000000000LL, fpx_precision_exact(), on_date, NULL, NULL));
    CHECK_OK(fpx_player_seek_to_live_edge(p, on_edge, NULL, NULL));
    sleep_ms(300);
    CHECK_EQ(calls(&date_calls), 2);
    CHECK_EQ(date_reason, FPX_DATE_SEEK_NOT_DATE_ADDRESSABLE);
    CHECK_EQ(calls(&edge_calls), 2);
    CHECK_EQ(edge_error, 0);
    CHECK_EQ(edge_had_outcome, 1);

    SECTION("misuse");
    CHECK_ERR(fpx_player_live_seek_window(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    bad = fpx_precision_exact();
    bad.kind = (fpx_precision_kind)77;
    CHECK_ERR(fpx_player_seek_to_date(p, 0, bad, on_date, NULL, NULL), FPX_ERROR_UNKNOWN_ENUM);
    bad = fpx_precision_nearest_keyframe(fpx_time_make(-1, 1));
    CHECK_ERR(fpx_player_seek_to_date(p, 0, bad, on_date, NULL, NULL), FPX_ERROR_INVALID_ARGUMENT);
    sleep_ms(100);
    CHECK_EQ(calls(&date_calls), 2); /* an error return means no callback */
    CHECK(fpx_date_seek_reason_explanation(2) != NULL);
    CHECK(fpx_date_seek_reason_explanation(-5) != NULL);
    CHECK_ERR(fpx_player_live_seek_window(NULL, &w), FPX_ERROR_INVALID_HANDLE);
    gone = p;
    CHECK_OK(fpx_player_destroy(p));
    CHECK_ERR(fpx_player_live_seek_window(gone, &w), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_seek_to_live_edge(gone, on_edge, NULL, NULL), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_seek_to_date(gone, 0, fpx_precision_exact(), on_date, NULL, NULL), FPX_ERROR_INVALID_HANDLE);
    return check_summary();
}
