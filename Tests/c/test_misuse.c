/*
 * test_misuse.c -- every entry point with bad input: NULL, destroyed and
 * forged handles, NULL out pointers, invalid times, unknown enums, negative
 * tolerances, no item, corrupt and unrecognised media. Nothing may crash;
 * every failure is a typed error, outputs stay untouched and no callback is
 * ever called for a rejected seek.
 *
 * usage: test_misuse FIXTURE_DIR
 */
#include "check.h"

/* The scrub and frame-step functions came later than the rest of the API:
 * weak references let this program link (and test everything else) against
 * a library that lacks them; their absence is then one failure. */
#pragma weak fpx_player_scrub_session
#pragma weak fpx_scrub_begin
#pragma weak fpx_scrub_update
#pragma weak fpx_scrub_end
#pragma weak fpx_scrub_cancel
#pragma weak fpx_scrub_get_state
#pragma weak fpx_scrub_set_position_throttle
#pragma weak fpx_scrub_get_position_throttle
#pragma weak fpx_player_step_frame
#pragma weak fpx_player_current_time

static int have_new_api(void)
{
    return fpx_player_scrub_session != NULL && fpx_scrub_begin != NULL && fpx_scrub_update != NULL &&
           fpx_scrub_end != NULL && fpx_scrub_cancel != NULL && fpx_scrub_get_state != NULL &&
           fpx_scrub_set_position_throttle != NULL && fpx_scrub_get_position_throttle != NULL &&
           fpx_player_step_frame != NULL && fpx_player_current_time != NULL;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int cb_calls;
static int notify_calls;

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    (void)o;
    (void)ud;
    pthread_mutex_lock(&mu);
    cb_calls++;
    pthread_mutex_unlock(&mu);
}

static void on_notify(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&mu);
    notify_calls++;
    pthread_mutex_unlock(&mu);
}

static int get(const int *v)
{
    int x;
    pthread_mutex_lock(&mu);
    x = *v;
    pthread_mutex_unlock(&mu);
    return x;
}

static fpx_time raw(int64_t value, int32_t timescale, uint32_t flags)
{
    fpx_time t;
    t.value = value;
    t.timescale = timescale;
    t.flags = flags;
    return t;
}

/* A typed error: a known negative fpx code other than INTERNAL. */
static int typed(int rc)
{
    return rc < 0 && rc >= FPX_ERROR_INTERNAL && rc != FPX_ERROR_INTERNAL &&
           strcmp(fpx_error_string(rc), "unknown error") != 0;
}
#define CHECK_TYPED(call)                                                                  \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (!CHECK(typed(rc_)))                                                            \
            NOTE("%s -> %d (%s)", #call, rc_, fpx_error_name(rc_));                        \
    } while (0)
#define CHECK_OK_OR_TYPED(call)                                                            \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (!CHECK(rc_ == FPX_OK || typed(rc_)))                                           \
            NOTE("%s -> %d (%s)", #call, rc_, fpx_error_name(rc_));                        \
    } while (0)

/* Outputs must be left untouched on failure: fill with a pattern, compare. */
#define PATTERN(x) memset(&(x), 0x5A, sizeof(x))
static int untouched(const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++)
        if (c[i] != 0x5A)
            return 0;
    return 1;
}
#define CHECK_UNTOUCHED(x) CHECK(untouched(&(x), sizeof(x)))

/* ---- every function with a bad handle ----------------------------------------- */

static void bad_handle(fpx_player *h, const char *label)
{
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    fpx_stream_info si = {.struct_size = sizeof(fpx_stream_info)};
    fpx_time s, e;
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    fpx_player_stats stats = {.struct_size = sizeof(fpx_player_stats)};
    fpx_listener li;
    fpx_scrub_session *sess;
    fpx_frame_step_result step = {.struct_size = sizeof(fpx_frame_step_result)};
    uint64_t id, n64;
    int n, fd;
    char name[128];
    const int E = FPX_ERROR_INVALID_HANDLE;

    snprintf(name, sizeof name, "every function with %s handle -> INVALID_HANDLE", label);
    SECTION(name);
    CHECK_ERR(fpx_player_open(h, fixture("mp4_bframes.mp4")), E);
    CHECK_ERR(fpx_player_close_item(h), E);
    PATTERN(st);
    CHECK_ERR(fpx_player_item_status(h, &st), E);
    CHECK_UNTOUCHED(st);
    PATTERN(st);
    CHECK_ERR(fpx_player_wait_item(h, 10, &st), E);
    CHECK_UNTOUCHED(st);
    CHECK_ERR(fpx_player_wait_item(h, -1, NULL), E);
    PATTERN(ii);
    CHECK_ERR(fpx_player_item_info(h, &ii), E);
    CHECK_UNTOUCHED(ii);
    PATTERN(si);
    CHECK_ERR(fpx_player_stream_info(h, 0, &si), E);
    CHECK_UNTOUCHED(si);
    PATTERN(s);
    PATTERN(e);
    CHECK_ERR(fpx_player_seekable_range(h, &s, &e), E);
    CHECK_UNTOUCHED(s);
    CHECK_UNTOUCHED(e);
    CHECK_ERR(fpx_player_setup_seek_manager(h), E);
    PATTERN(id);
    CHECK_ERR(fpx_player_seek(h, fpx_time_make(1, 1), fpx_precision_exact(), on_done, NULL, &id), E);
    CHECK_UNTOUCHED(id);
    CHECK_ERR(fpx_player_seek(h, fpx_time_make(1, 1), fpx_precision_default(), NULL, NULL, NULL), E);
    PATTERN(n64);
    CHECK_ERR(fpx_player_cancel_pending_seeks(h, &n64), E);
    CHECK_UNTOUCHED(n64);
    fpx_listener_init(&li);
    li.destroy_notify = on_notify;
    PATTERN(id);
    CHECK_ERR(fpx_player_add_listener(h, &li, &id), E);
    CHECK_UNTOUCHED(id);
    CHECK_ERR(fpx_player_remove_listener(h, 1), E);
    PATTERN(n);
    CHECK_ERR(fpx_player_dispatch_events(h, &n), E);
    CHECK_UNTOUCHED(n);
    PATTERN(fd);
    CHECK_ERR(fpx_player_event_fd(h, &fd), E);
    CHECK_UNTOUCHED(fd);
    PATTERN(pk);
    CHECK_ERR(fpx_player_read_packet(h, &pk), E);
    CHECK_UNTOUCHED(pk);
    PATTERN(stats);
    CHECK_ERR(fpx_player_stats_get(h, &stats), E);
    CHECK_UNTOUCHED(stats);
    if (!have_new_api())
        goto destroy;
    PATTERN(sess);
    CHECK_ERR(fpx_player_scrub_session(h, &sess), E);
    CHECK_UNTOUCHED(sess);
    PATTERN(step);
    CHECK_ERR(fpx_player_step_frame(h, FPX_STEP_FORWARD, 1, &step), E);
    CHECK_UNTOUCHED(step);
    PATTERN(s);
    CHECK_ERR(fpx_player_current_time(h, &s), E);
    CHECK_UNTOUCHED(s);
destroy:
    if (h == NULL)
        CHECK_OK(fpx_player_destroy(h)); /* documented: NULL is a no-op */
    else
        CHECK_ERR(fpx_player_destroy(h), E);
}

static void handles(void)
{
    fpx_player *p, *seen[64];
    unsigned char zeros[256], ones[256];
    int i, j, dup = 0;

    bad_handle(NULL, "a NULL");

    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_destroy(p));
    bad_handle(p, "a destroyed");

    p = make_player(FPX_DELIVERY_HOST);
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_destroy(p));
    bad_handle(p, "a destroyed HOST-mode");

    bad_handle((fpx_player *)(uintptr_t)0x1234, "a forged (0x1234)");
    bad_handle((fpx_player *)(uintptr_t)0x1001, "a forged misaligned (0x1001)");
    bad_handle((fpx_player *)(uintptr_t)UINTPTR_MAX, "a forged (all ones)");
    memset(zeros, 0, sizeof zeros);
    memset(ones, 0xFF, sizeof ones);
    bad_handle((fpx_player *)(void *)zeros, "a forged (stack buffer of zeros)");
    bad_handle((fpx_player *)(void *)ones, "a forged (stack buffer of 0xFF)");
    CHECK_EQ(get(&cb_calls), 0);
    CHECK_EQ(get(&notify_calls), 0);

    SECTION("handle values are never reused");
    for (i = 0; i < 64; i++) {
        seen[i] = make_player(i % 2 ? FPX_DELIVERY_HOST : FPX_DELIVERY_THREAD);
        if (!seen[i])
            break;
        CHECK_OK(fpx_player_destroy(seen[i]));
    }
    for (i = 0; i < 64; i++)
        for (j = i + 1; j < 64; j++)
            if (seen[i] && seen[i] == seen[j])
                dup++;
    CHECK_EQ(dup, 0);
    for (i = 0; i < 64; i++)
        if (seen[i])
            CHECK_ERR(fpx_player_setup_seek_manager(seen[i]), FPX_ERROR_INVALID_HANDLE);
}

static void on_scrub_end(const fpx_scrub_result *r, void *ud)
{
    (void)r;
    (void)ud;
    pthread_mutex_lock(&mu);
    cb_calls++;
    pthread_mutex_unlock(&mu);
}

/* Every scrub-session function with a bad session handle -> INVALID_HANDLE. */
static void bad_session(fpx_scrub_session *s, const char *label)
{
    fpx_scrub_state state;
    int active;
    fpx_time t;
    uint64_t id;
    char name[128];
    const int E = FPX_ERROR_INVALID_HANDLE;

    snprintf(name, sizeof name, "every scrub function with %s session -> INVALID_HANDLE", label);
    SECTION(name);
    CHECK_ERR(fpx_scrub_begin(s, fpx_time_make(1, 1)), E);
    CHECK_ERR(fpx_scrub_update(s, fpx_time_make(2, 1)), E);
    PATTERN(id);
    CHECK_ERR(fpx_scrub_end(s, fpx_time_make(2, 1), fpx_precision_exact(), on_scrub_end, NULL, &id), E);
    CHECK_UNTOUCHED(id);
    CHECK_ERR(fpx_scrub_cancel(s), E);
    PATTERN(state);
    PATTERN(active);
    CHECK_ERR(fpx_scrub_get_state(s, &state, &active), E);
    CHECK_UNTOUCHED(state);
    CHECK_UNTOUCHED(active);
    CHECK_ERR(fpx_scrub_set_position_throttle(s, fpx_time_make(1, 10)), E);
    PATTERN(t);
    CHECK_ERR(fpx_scrub_get_position_throttle(s, &t), E);
    CHECK_UNTOUCHED(t);
}

static void sessions(void)
{
    fpx_player *p;
    fpx_scrub_session *s = NULL, *sentinel;
    unsigned char zeros[256];

    bad_session(NULL, "a NULL");
    bad_session((fpx_scrub_session *)(uintptr_t)0x1234, "a forged (0x1234)");
    memset(zeros, 0, sizeof zeros);
    bad_session((fpx_scrub_session *)(void *)zeros, "a forged (stack buffer of zeros)");

    SECTION("scrub session: NO_SEEK_MANAGER before setup, NULL out");
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    sentinel = (fpx_scrub_session *)(void *)zeros;
    s = sentinel;
    CHECK_ERR(fpx_player_scrub_session(p, &s), FPX_ERROR_NO_SEEK_MANAGER);
    CHECK(s == sentinel);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_ERR(fpx_player_scrub_session(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    s = NULL;
    CHECK_OK(fpx_player_scrub_session(p, &s));
    CHECK(s != NULL);
    CHECK_OK(fpx_scrub_get_state(s, NULL, NULL));
    CHECK_OK(fpx_player_destroy(p));
    if (s)
        bad_session(s, "a destroyed player's");
    CHECK_EQ(get(&cb_calls), 0);
}

/* ---- NULL out pointers and bad arguments on a good player ---------------------- */

static void null_outs(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD), *h;
    fpx_time s, e;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_stream_info si = {.struct_size = sizeof(fpx_stream_info)};
    fpx_frame_step_result step = {.struct_size = sizeof(fpx_frame_step_result)};
    uint64_t id;
    int fd;

    SECTION("NULL out pointers -> INVALID_ARGUMENT");
    REQUIRE(p != NULL);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_ERR(fpx_player_item_status(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_item_info(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_stream_info(p, 0, NULL), FPX_ERROR_INVALID_ARGUMENT);
    PATTERN(e);
    CHECK_ERR(fpx_player_seekable_range(p, NULL, &e), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_UNTOUCHED(e);
    PATTERN(s);
    CHECK_ERR(fpx_player_seekable_range(p, &s, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_UNTOUCHED(s);
    CHECK_ERR(fpx_player_seekable_range(p, NULL, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_read_packet(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_stats_get(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    PATTERN(id);
    CHECK_ERR(fpx_player_add_listener(p, NULL, &id), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_UNTOUCHED(id);
    CHECK_ERR(fpx_player_open(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_open(p, ""), FPX_ERROR_INVALID_ARGUMENT);
    /* the rejected opens did not touch the current item */
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(fpx_player_item_status(p, &st));
    CHECK_EQ(st.status, FPX_ITEM_READY);
    /* optional outputs may be NULL */
    CHECK_OK(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), NULL, NULL, NULL));
    CHECK_OK(fpx_player_cancel_pending_seeks(p, NULL));
    CHECK_OK(fpx_player_wait_item(p, -5, NULL));
    CHECK_ERR(fpx_player_remove_listener(p, 0), FPX_ERROR_NOT_FOUND);
    CHECK_ERR(fpx_player_remove_listener(p, UINT64_MAX), FPX_ERROR_NOT_FOUND);
    PATTERN(si);
    CHECK_ERR(fpx_player_stream_info(p, -1, &si), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_UNTOUCHED(si);
    if (have_new_api()) {
        CHECK_ERR(fpx_player_current_time(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, NULL), FPX_ERROR_INVALID_ARGUMENT);
        PATTERN(step);
        CHECK_ERR(fpx_player_step_frame(p, FPX_STEP_FORWARD, 0, &step), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_UNTOUCHED(step);
        CHECK_ERR(fpx_player_step_frame(p, FPX_STEP_BACKWARD, -3, &step), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_UNTOUCHED(step);
        CHECK_ERR(fpx_player_step_frame(p, (fpx_frame_step_direction)7, 1, &step), FPX_ERROR_UNKNOWN_ENUM);
        CHECK_UNTOUCHED(step);
    }
    CHECK_OK(fpx_player_destroy(p));

    h = make_player(FPX_DELIVERY_HOST);
    REQUIRE(h != NULL);
    CHECK_ERR(fpx_player_event_fd(h, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_player_dispatch_events(h, NULL));
    CHECK_OK(fpx_player_event_fd(h, &fd));
    CHECK_OK(fpx_player_destroy(h));
}

/* ---- seek argument validation ---------------------------------------------------- */

static void bad_seeks(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_time bad_times[10];
    fpx_time bad_tols[6];
    int bad_kinds[4] = {99, -1, 4, 0x7fffffff}; /* 3 is FPX_PRECISION_AT_OR_AFTER */
    fpx_precision pr;
    fpx_player_stats stats = {.struct_size = sizeof(fpx_player_stats)};
    uint64_t id;
    size_t i;

    SECTION("invalid targets -> INVALID_TIME, no callback");
    REQUIRE(p != NULL);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    bad_times[0] = fpx_time_invalid();
    bad_times[1] = fpx_time_from_seconds(NAN, 1000);
    bad_times[2] = fpx_time_infinity(0);
    bad_times[3] = fpx_time_infinity(1);
    bad_times[4] = fpx_time_make(1, 0);
    bad_times[5] = raw(1, 0, FPX_TIME_FLAG_VALID);
    bad_times[6] = raw(1, -30000, FPX_TIME_FLAG_VALID);
    bad_times[7] = raw(5, 1, FPX_TIME_FLAG_VALID | FPX_TIME_FLAG_POSITIVE_INFINITY);
    bad_times[8] = raw(5, 1, FPX_TIME_FLAG_VALID | FPX_TIME_FLAG_NEGATIVE_INFINITY);
    bad_times[9] = raw(5, 1, 0);
    for (i = 0; i < 10; i++) {
        PATTERN(id);
        if (!CHECK_ERR(fpx_player_seek(p, bad_times[i], fpx_precision_exact(), on_done, NULL, &id),
                       FPX_ERROR_INVALID_TIME))
            NOTE("bad target #%zu", i);
        CHECK_UNTOUCHED(id);
        CHECK_ERR(fpx_player_seek(p, bad_times[i], fpx_precision_default(), on_done, NULL, NULL),
                  FPX_ERROR_INVALID_TIME);
    }

    SECTION("unknown precision kinds -> UNKNOWN_ENUM");
    for (i = 0; i < 4; i++) {
        pr.kind = (fpx_precision_kind)bad_kinds[i];
        pr.tolerance = fpx_time_make(1, 10);
        PATTERN(id);
        if (!CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), pr, on_done, NULL, &id), FPX_ERROR_UNKNOWN_ENUM))
            NOTE("kind %d", bad_kinds[i]);
        CHECK_UNTOUCHED(id);
    }

    SECTION("negative or non-numeric tolerance -> INVALID_ARGUMENT");
    bad_tols[0] = fpx_time_make(-1, 10);
    bad_tols[1] = fpx_time_make(-1, 1000000000);
    bad_tols[2] = fpx_time_invalid();
    bad_tols[3] = fpx_time_infinity(0);
    bad_tols[4] = fpx_time_infinity(1);
    bad_tols[5] = fpx_time_make(1, 0);
    for (i = 0; i < 6; i++) {
        PATTERN(id);
        if (!CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_nearest_keyframe(bad_tols[i]),
                                       on_done, NULL, &id),
                       FPX_ERROR_INVALID_ARGUMENT))
            NOTE("bad tolerance #%zu", i);
        CHECK_UNTOUCHED(id);
    }
    /* zero tolerance is fine */
    CHECK_OK(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_nearest_keyframe(fpx_time_make(0, 1)), NULL,
                             NULL, NULL));

    SECTION("rejected seeks never call back and are not counted as issued");
    sleep_ms(300);
    CHECK_EQ(get(&cb_calls), 0);
    memset(&stats, 0, sizeof stats); stats.struct_size = sizeof stats;
    CHECK_OK(fpx_player_stats_get(p, &stats));
    CHECK_EQ(stats.seeks_issued, 1);
    CHECK_OK(fpx_player_destroy(p));
    CHECK_EQ(get(&cb_calls), 0);
}

static void no_item(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    fpx_time s, e;
    fpx_stream_info si = {.struct_size = sizeof(fpx_stream_info)};
    uint64_t id;

    SECTION("seek with no item -> NO_ITEM");
    REQUIRE(p != NULL);
    PATTERN(id);
    CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), on_done, NULL, &id),
              FPX_ERROR_NO_ITEM);
    CHECK_UNTOUCHED(id);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), on_done, NULL, &id),
              FPX_ERROR_NO_ITEM);
    PATTERN(pk);
    CHECK_ERR(fpx_player_read_packet(p, &pk), FPX_ERROR_NO_ITEM);
    CHECK_UNTOUCHED(pk);
    PATTERN(s);
    PATTERN(e);
    CHECK_ERR(fpx_player_seekable_range(p, &s, &e), FPX_ERROR_NO_ITEM);
    CHECK_UNTOUCHED(s);
    CHECK_ERR(fpx_player_stream_info(p, 0, &si), FPX_ERROR_NO_ITEM);

    SECTION("seek after close_item -> NO_ITEM");
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_close_item(p));
    CHECK_ERR(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), on_done, NULL, &id),
              FPX_ERROR_NO_ITEM);
    CHECK_ERR(fpx_player_read_packet(p, &pk), FPX_ERROR_NO_ITEM);
    sleep_ms(200);
    CHECK_EQ(get(&cb_calls), 0);
    CHECK_OK(fpx_player_destroy(p));
}

/* ---- corrupt and unrecognised media ------------------------------------------------- */

typedef struct counter {
    pthread_mutex_t mu;
    int calls;
    int bad;
} counter;

static void on_count(const fpx_seek_outcome *o, void *ud)
{
    counter *c = (counter *)ud;
    int ok;
    if (o->reason == FPX_FINISH_COMPLETED)
        ok = o->finished == 1 && o->error == 0;
    else if (o->reason == FPX_FINISH_FAILED)
        ok = o->finished == 0 && typed(o->error);
    else
        ok = o->finished == 0 && (o->reason == FPX_FINISH_SUPERSEDED || o->reason == FPX_FINISH_CANCELLED);
    pthread_mutex_lock(&c->mu);
    c->calls++;
    if (!ok)
        c->bad++;
    pthread_mutex_unlock(&c->mu);
    if (!ok)
        NOTE("seek %" PRIu64 ": reason %s finished %d error %d (%s)", o->seek_id,
             fpx_finish_reason_name(o->reason), o->finished, o->error, fpx_error_name(o->error));
}

static void bad_media(const char *name)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_time s, e;
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    counter c;
    int rc, i, issued = 0, n;
    char title[128];

    snprintf(title, sizeof title, "%s: typed errors, never a crash", name);
    SECTION(title);
    REQUIRE(p != NULL);
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    rc = open_wait(p, fixture(name), &st);
    NOTE("open/wait -> %d (%s), status %s, av_error %d", rc, fpx_error_name(rc), fpx_item_status_name(st.status),
         st.av_error);
    CHECK(rc == FPX_OK || typed(rc));
    if (rc != FPX_OK) {
        CHECK_EQ(st.status, FPX_ITEM_FAILED);
        CHECK_EQ(st.error, rc);
        CHECK(st.av_error != 0);
    }
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK_OR_TYPED(fpx_player_seekable_range(p, &s, &e));
    for (i = 0; i < 12; i++) {
        fpx_precision pr = i % 3 == 0 ? fpx_precision_exact()
                           : i % 3 == 1 ? fpx_precision_default()
                                        : fpx_precision_nearest_keyframe(fpx_time_make(1, 2));
        int src = fpx_player_seek(p, fpx_time_make(i * 700 - 1000, 1000), pr, on_count, &c, NULL);
        if (src == FPX_OK)
            issued++;
        else if (!CHECK(typed(src)))
            NOTE("seek -> %d", src);
        if (i % 4 == 3) {
            /* let some of them land, and read after them */
            sleep_ms(100);
            for (n = 0; n < 50; n++) {
                rc = fpx_player_read_packet(p, &pk);
                if (rc != FPX_OK)
                    break;
            }
            if (!CHECK(rc == FPX_OK || typed(rc)))
                NOTE("read_packet -> %d", rc);
        }
    }
    {
        uint64_t end = now_ns() + 20000000000u;
        for (;;) {
            pthread_mutex_lock(&c.mu);
            n = c.calls;
            pthread_mutex_unlock(&c.mu);
            if (n >= issued || now_ns() > end)
                break;
            sleep_ms(5);
        }
    }
    sleep_ms(100);
    pthread_mutex_lock(&c.mu);
    CHECK_EQ(c.calls, issued);
    CHECK_EQ(c.bad, 0);
    pthread_mutex_unlock(&c.mu);
    /* read to the end (or the first error) */
    for (n = 0; n < 200000; n++) {
        rc = fpx_player_read_packet(p, &pk);
        if (rc != FPX_OK)
            break;
    }
    if (!CHECK(typed(rc)))
        NOTE("final read_packet -> %d", rc);
    CHECK_OK(fpx_player_destroy(p));
    pthread_mutex_destroy(&c.mu);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 115);
    handles();
    if (have_new_api()) {
        sessions();
    } else {
        SECTION("scrub / frame-step API");
        check_fail_(__FILE__, __LINE__, "have_new_api()",
                    "the library does not export the scrub / frame-step functions: not tested");
    }
    null_outs();
    bad_seeks();
    no_item();
    bad_media("corrupt.mp4");
    bad_media("garbage.bin");
    bad_media("no-such-file.mp4");
    return check_summary();
}
