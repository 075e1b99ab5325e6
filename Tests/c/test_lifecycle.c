/*
 * test_lifecycle.c -- player create/destroy, config validation, opening
 * items (status events, wait, info), failures, close/replace, handles after
 * destroy, error strings and enum names, listener destroy_notify.
 *
 * usage: test_lifecycle FIXTURE_DIR
 */
#include "check.h"

#include <limits.h>

/* ---- a listener that records item status events ---------------------- */

#define MAX_EV 256

typedef struct status_log {
    pthread_mutex_t mu;
    int n;
    fpx_item_status_info ev[MAX_EV];
    int notify_count;
    int notify_on_main;
    int bad_userdata;
} status_log;

static pthread_t main_thread;

static void log_init(status_log *l)
{
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
}

static void on_status(const fpx_item_status_info *s, void *ud)
{
    status_log *l = (status_log *)ud;
    pthread_mutex_lock(&l->mu);
    if (l->n < MAX_EV)
        l->ev[l->n] = *s;
    l->n++;
    pthread_mutex_unlock(&l->mu);
}

static void on_notify(void *ud)
{
    status_log *l = (status_log *)ud;
    pthread_mutex_lock(&l->mu);
    l->notify_count++;
    if (pthread_equal(pthread_self(), main_thread))
        l->notify_on_main++;
    pthread_mutex_unlock(&l->mu);
}

static int log_count(status_log *l)
{
    int n;
    pthread_mutex_lock(&l->mu);
    n = l->n;
    pthread_mutex_unlock(&l->mu);
    return n;
}

static int log_notify(status_log *l)
{
    int n;
    pthread_mutex_lock(&l->mu);
    n = l->notify_count;
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* Waits up to ms for an event of item_id with the given status. */
static int wait_status(status_log *l, uint64_t item_id, fpx_item_status st, long ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    do {
        int i, found = 0;
        pthread_mutex_lock(&l->mu);
        for (i = 0; i < l->n && i < MAX_EV; i++)
            if (l->ev[i].item_id == item_id && l->ev[i].status == st)
                found = 1;
        pthread_mutex_unlock(&l->mu);
        if (found)
            return 1;
        sleep_ms(2);
    } while (now_ns() < end);
    return 0;
}

/* The statuses seen for item_id, in order, into out (max 8); returns count. */
static int statuses_of(status_log *l, uint64_t item_id, fpx_item_status_info *out)
{
    int i, k = 0;
    pthread_mutex_lock(&l->mu);
    for (i = 0; i < l->n && i < MAX_EV; i++)
        if (l->ev[i].item_id == item_id && k < 8)
            out[k++] = l->ev[i];
    pthread_mutex_unlock(&l->mu);
    return k;
}

static uint64_t add_logger(fpx_player *p, status_log *l, int with_notify)
{
    fpx_listener li;
    uint64_t id = 0;
    fpx_listener_init(&li);
    li.userdata = l;
    li.on_item_status = on_status;
    if (with_notify)
        li.destroy_notify = on_notify;
    CHECK_OK(fpx_player_add_listener(p, &li, &id));
    return id;
}

/* ---- sections ------------------------------------------------------------ */

static void test_create_config(void)
{
    fpx_player_config cfg;
    fpx_player *p = NULL, *sentinel = (fpx_player *)&cfg;

    SECTION("create with NULL config / with config");
    CHECK_OK(fpx_player_create(NULL, &p));
    CHECK(p != NULL);
    CHECK_OK(fpx_player_destroy(p));

    memset(&cfg, 0xA5, sizeof cfg);
    fpx_player_config_init(&cfg);
    CHECK_EQ(cfg.size, sizeof(fpx_player_config));
    CHECK_EQ(cfg.delivery, FPX_DELIVERY_THREAD);
    CHECK_EQ(cfg.io_timeout_ms, 10000);
    CHECK(cfg.wakeup == NULL);
    CHECK(cfg.wakeup_userdata == NULL);
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    CHECK(p != NULL);
    CHECK_OK(fpx_player_destroy(p));

    cfg.delivery = FPX_DELIVERY_HOST;
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p)); /* host mode without wakeup: fd polling */
    CHECK_OK(fpx_player_destroy(p));

    fpx_player_config_init(&cfg);
    cfg.io_timeout_ms = 0; /* 0 means no bound */
    p = NULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    CHECK_OK(fpx_player_destroy(p));

    SECTION("config validation");
    CHECK_ERR(fpx_player_create(NULL, NULL), FPX_ERROR_INVALID_ARGUMENT);
    fpx_player_config_init(&cfg);
    CHECK_ERR(fpx_player_create(&cfg, NULL), FPX_ERROR_INVALID_ARGUMENT);

    fpx_player_config_init(&cfg);
    cfg.size = 0;
    p = sentinel;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(p == sentinel); /* outputs untouched on failure */
    cfg.size = 4;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(p == sentinel);

    fpx_player_config_init(&cfg);
    cfg.delivery = (fpx_delivery_mode)7;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_UNKNOWN_ENUM);
    CHECK(p == sentinel);
    cfg.delivery = (fpx_delivery_mode)-1;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_UNKNOWN_ENUM);
    CHECK(p == sentinel);

    fpx_player_config_init(&cfg);
    cfg.io_timeout_ms = -1;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(p == sentinel);
    cfg.io_timeout_ms = INT64_MIN;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(p == sentinel);
}

static void check_status_sequence(status_log *l, uint64_t item_id, fpx_item_status final_status,
                                  int final_error)
{
    fpx_item_status_info seq[8];
    int k;
    CHECK(wait_status(l, item_id, final_status, 5000));
    sleep_ms(50);
    k = statuses_of(l, item_id, seq);
    if (!CHECK_EQ(k, 2)) {
        int i;
        for (i = 0; i < k; i++)
            NOTE("item %" PRIu64 " event %d: %s", item_id, i, fpx_item_status_name(seq[i].status));
        if (k < 2)
            return;
    }
    CHECK_EQ(seq[0].status, FPX_ITEM_LOADING);
    CHECK_EQ(seq[0].error, 0);
    CHECK_EQ(seq[0].struct_size, sizeof(fpx_item_status_info));
    CHECK_EQ(seq[1].status, final_status);
    CHECK_EQ(seq[1].error, final_error);
    if (final_status == FPX_ITEM_READY)
        CHECK_EQ(seq[1].av_error, 0);
    else
        CHECK(seq[1].av_error < 0);
}

static void check_mp4_info(fpx_player *p)
{
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    fpx_stream_info si = {.struct_size = sizeof(fpx_stream_info)};
    int i;

    memset(&ii, 0, sizeof ii); ii.struct_size = sizeof ii;
    CHECK_OK(fpx_player_item_info(p, &ii));
    CHECK_EQ(ii.struct_size, sizeof(fpx_item_info));
    CHECK(ii.stream_count >= 1);
    CHECK(ii.reference_stream >= 0 && ii.reference_stream < ii.stream_count);
    CHECK_EQ(ii.has_video, 1);
    CHECK_EQ(fpx_time_is_numeric(ii.duration), 1);
    CHECK_EQ(fpx_time_compare(ii.duration, fpx_time_make(0, 1)), 1);
    CHECK(ii.time_base_num > 0);
    CHECK(ii.time_base_den > 0);
    CHECK_EQ(ii.seekable, 1);
    CHECK(ii.format_name != NULL && strstr(ii.format_name, "mp4") != NULL);
    if (ii.format_name)
        NOTE("format %s, %d streams, ref %d, tb %d/%d, start_pts %" PRId64 ", duration %.3f s",
             ii.format_name, ii.stream_count, ii.reference_stream, (int)ii.time_base_num,
             (int)ii.time_base_den, ii.start_pts, fpx_time_to_seconds(ii.duration));

    memset(&si, 0, sizeof si); si.struct_size = sizeof si;
    CHECK_OK(fpx_player_stream_info(p, ii.reference_stream, &si));
    CHECK_EQ(si.struct_size, sizeof(fpx_stream_info));
    CHECK_EQ(si.index, ii.reference_stream);
    CHECK_EQ(si.type, FPX_MEDIA_VIDEO);
    CHECK_STR(si.codec_name, "h264");
    CHECK_EQ(si.time_base_num, ii.time_base_num);
    CHECK_EQ(si.time_base_den, ii.time_base_den);
    CHECK(si.width > 0 && si.height > 0);
    CHECK(si.video_delay >= 1); /* the fixture has B-frames */
    CHECK(si.extradata != NULL && si.extradata_size > 0); /* avcC */
    CHECK(si.codecpar != NULL);
    NOTE("video %dx%d, codec_id %d, video_delay %d, extradata %zu bytes", si.width, si.height,
         si.codec_id, si.video_delay, si.extradata_size);

    for (i = 0; i < ii.stream_count; i++) {
        memset(&si, 0, sizeof si); si.struct_size = sizeof si;
        CHECK_OK(fpx_player_stream_info(p, i, &si));
        CHECK_EQ(si.index, i);
        CHECK(si.codec_name != NULL);
        CHECK(si.time_base_num > 0 && si.time_base_den > 0);
        CHECK(si.type >= FPX_MEDIA_UNKNOWN && si.type <= FPX_MEDIA_DATA);
        if (si.type == FPX_MEDIA_AUDIO)
            CHECK(si.sample_rate > 0 && si.channels > 0);
    }
    CHECK_ERR(fpx_player_stream_info(p, -1, &si), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_stream_info(p, ii.stream_count, &si), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_stream_info(p, INT_MAX, &si), FPX_ERROR_INVALID_ARGUMENT);
}

static void test_open(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    status_log log;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)}, st2 = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    uint64_t first_id;
    int rc, seen;

    REQUIRE(p != NULL);
    log_init(&log);
    add_logger(p, &log, 0);

    SECTION("no item yet");
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(fpx_player_item_status(p, &st));
    CHECK_EQ(st.status, FPX_ITEM_NONE);
    CHECK_ERR(fpx_player_wait_item(p, 100, NULL), FPX_ERROR_NO_ITEM);
    CHECK_ERR(fpx_player_item_info(p, &ii), FPX_ERROR_NO_ITEM);
    CHECK_OK(fpx_player_close_item(p)); /* OK even when nothing is attached */

    SECTION("open mp4_bframes.mp4: LOADING then READY");
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    /* immediately: loading or (fast machine) already ready */
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(fpx_player_item_status(p, &st));
    CHECK(st.status == FPX_ITEM_LOADING || st.status == FPX_ITEM_READY);
    rc = fpx_player_wait_item(p, 0, NULL);
    CHECK(rc == FPX_OK || rc == FPX_ERROR_TIMEOUT);
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(fpx_player_wait_item(p, 10000, &st));
    CHECK_EQ(st.status, FPX_ITEM_READY);
    CHECK_EQ(st.error, 0);
    CHECK_EQ(st.av_error, 0);
    CHECK_EQ(st.struct_size, sizeof(fpx_item_status_info));
    CHECK(st.item_id >= 1);
    first_id = st.item_id;
    check_status_sequence(&log, first_id, FPX_ITEM_READY, 0);
    memset(&st2, 0, sizeof st2); st2.struct_size = sizeof st2;
    CHECK_OK(fpx_player_item_status(p, &st2));
    CHECK_EQ(st2.status, FPX_ITEM_READY);
    CHECK_EQ(st2.item_id, first_id);
    CHECK_OK(fpx_player_wait_item(p, -1, NULL)); /* already ready: returns at once */

    SECTION("item_info / stream_info");
    check_mp4_info(p);

    SECTION("replace item with mkv.mkv");
    CHECK_OK(fpx_player_open(p, fixture("mkv.mkv")));
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(fpx_player_wait_item(p, 10000, &st));
    CHECK_EQ(st.status, FPX_ITEM_READY);
    CHECK(st.item_id > first_id);
    check_status_sequence(&log, st.item_id, FPX_ITEM_READY, 0);
    memset(&ii, 0, sizeof ii); ii.struct_size = sizeof ii;
    CHECK_OK(fpx_player_item_info(p, &ii));
    CHECK(ii.format_name != NULL && strstr(ii.format_name, "matroska") != NULL);
    first_id = st.item_id;

    SECTION("close_item");
    seen = log_count(&log);
    CHECK_OK(fpx_player_close_item(p));
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(fpx_player_item_status(p, &st));
    CHECK_EQ(st.status, FPX_ITEM_NONE);
    CHECK_ERR(fpx_player_wait_item(p, 100, NULL), FPX_ERROR_NO_ITEM);
    CHECK_ERR(fpx_player_item_info(p, &ii), FPX_ERROR_NO_ITEM);
    CHECK_OK(fpx_player_close_item(p));
    {
        /* the READY -> NONE change reaches on_item_status */
        uint64_t end = now_ns() + 3000000000u;
        int got_none = 0, i;
        while (!got_none && now_ns() < end) {
            pthread_mutex_lock(&log.mu);
            for (i = seen; i < log.n && i < MAX_EV; i++)
                if (log.ev[i].status == FPX_ITEM_NONE)
                    got_none = 1;
            pthread_mutex_unlock(&log.mu);
            if (!got_none)
                sleep_ms(5);
        }
        CHECK(got_none);
    }

    SECTION("open a missing file -> FAILED, FPX_ERROR_NOT_FOUND");
    CHECK_OK(fpx_player_open(p, fixture("no-such-file-here.mp4")));
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_ERR(fpx_player_wait_item(p, 10000, &st), FPX_ERROR_NOT_FOUND);
    CHECK_EQ(st.status, FPX_ITEM_FAILED);
    CHECK_EQ(st.error, FPX_ERROR_NOT_FOUND);
    CHECK_EQ(st.av_error, -ENOENT); /* AVERROR(ENOENT) */
    CHECK(st.item_id > first_id);
    check_status_sequence(&log, st.item_id, FPX_ITEM_FAILED, FPX_ERROR_NOT_FOUND);
    memset(&st2, 0, sizeof st2); st2.struct_size = sizeof st2;
    CHECK_OK(fpx_player_item_status(p, &st2));
    CHECK_EQ(st2.status, FPX_ITEM_FAILED);
    CHECK_EQ(st2.error, FPX_ERROR_NOT_FOUND);
    CHECK_ERR(fpx_player_item_info(p, &ii), FPX_ERROR_ITEM_FAILED);
    first_id = st.item_id;

    SECTION("open garbage.bin -> FAILED, FPX_ERROR_INVALID_DATA");
    CHECK_OK(fpx_player_open(p, fixture("garbage.bin")));
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_ERR(fpx_player_wait_item(p, 10000, &st), FPX_ERROR_INVALID_DATA);
    CHECK_EQ(st.status, FPX_ITEM_FAILED);
    CHECK_EQ(st.error, FPX_ERROR_INVALID_DATA);
    CHECK(st.av_error < 0);
    check_status_sequence(&log, st.item_id, FPX_ITEM_FAILED, FPX_ERROR_INVALID_DATA);

    SECTION("a failed item can be replaced by a good one");
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), &st));
    CHECK_EQ(st.status, FPX_ITEM_READY);
    check_status_sequence(&log, st.item_id, FPX_ITEM_READY, 0);

    SECTION("destroy; use after destroy; double destroy; destroy(NULL)");
    CHECK_OK(fpx_player_destroy(p));
    CHECK_ERR(fpx_player_item_status(p, &st), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_open(p, fixture("mp4_bframes.mp4")), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_close_item(p), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_destroy(p), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_destroy(p), FPX_ERROR_INVALID_HANDLE);
    CHECK_OK(fpx_player_destroy(NULL));
    /* nothing reaches the listener after destroy returned */
    seen = log_count(&log);
    sleep_ms(100);
    CHECK_EQ(log_count(&log), seen);
    pthread_mutex_destroy(&log.mu);
}

/* A pending seek when the item is replaced completes exactly once. */
static pthread_mutex_t seek_mu = PTHREAD_MUTEX_INITIALIZER;
static int seek_calls;
static fpx_finish_reason seek_reason;

static void on_seek_done(const fpx_seek_outcome *o, void *ud)
{
    (void)ud;
    pthread_mutex_lock(&seek_mu);
    seek_calls++;
    seek_reason = o->reason;
    pthread_mutex_unlock(&seek_mu);
}

static void test_replace_with_pending_seek(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    uint64_t id = 0;
    int calls;
    fpx_finish_reason reason;
    SECTION("replace item while a seek is pending");
    REQUIRE(p != NULL);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_setup_seek_manager(p)); /* idempotent */
    CHECK_OK(fpx_player_seek(p, fpx_time_make(3, 2), fpx_precision_exact(), on_seek_done, NULL, &id));
    CHECK(id != 0);
    CHECK_OK(fpx_player_open(p, fixture("ts.ts")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    {
        uint64_t end = now_ns() + 5000000000u;
        do {
            pthread_mutex_lock(&seek_mu);
            calls = seek_calls;
            pthread_mutex_unlock(&seek_mu);
            if (calls)
                break;
            sleep_ms(2);
        } while (now_ns() < end);
    }
    sleep_ms(100);
    pthread_mutex_lock(&seek_mu);
    calls = seek_calls;
    reason = seek_reason;
    pthread_mutex_unlock(&seek_mu);
    CHECK_EQ(calls, 1);
    CHECK(reason == FPX_FINISH_CANCELLED || reason == FPX_FINISH_COMPLETED);
    CHECK_OK(fpx_player_destroy(p));
    pthread_mutex_lock(&seek_mu);
    CHECK_EQ(seek_calls, 1);
    pthread_mutex_unlock(&seek_mu);
}

static void test_listener_notify(void)
{
    fpx_player *p;
    status_log a, b, c;
    uint64_t ida, idc;
    fpx_listener li;

    SECTION("listener destroy_notify on remove: exactly once, on the delivery thread");
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    log_init(&a);
    log_init(&b);
    log_init(&c);
    ida = add_logger(p, &a, 1);
    CHECK_OK(fpx_player_remove_listener(p, ida));
    {
        uint64_t end = now_ns() + 3000000000u;
        while (log_notify(&a) == 0 && now_ns() < end)
            sleep_ms(2);
    }
    sleep_ms(100);
    CHECK_EQ(log_notify(&a), 1);
    CHECK_EQ(a.notify_on_main, 0);
    CHECK_ERR(fpx_player_remove_listener(p, ida), FPX_ERROR_NOT_FOUND);
    CHECK_ERR(fpx_player_remove_listener(p, UINT64_C(0xdeadbeef12345)), FPX_ERROR_NOT_FOUND);
    CHECK_EQ(log_notify(&a), 1);

    /* a listener without destroy_notify, removed */
    idc = add_logger(p, &c, 0);
    CHECK_OK(fpx_player_remove_listener(p, idc));

    SECTION("removed listeners hear nothing more");
    (void)add_logger(p, &b, 1);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    sleep_ms(100);
    CHECK_EQ(log_count(&a), 0);
    CHECK_EQ(log_count(&c), 0);
    CHECK(log_count(&b) >= 2);

    SECTION("listener destroy_notify on destroy: exactly once, before destroy returns");
    CHECK_EQ(log_notify(&b), 0);
    CHECK_OK(fpx_player_destroy(p));
    CHECK_EQ(log_notify(&b), 1);
    CHECK_EQ(b.notify_on_main, 0); /* THREAD mode: delivered by the event thread */
    sleep_ms(100);
    CHECK_EQ(log_notify(&b), 1);
    CHECK_EQ(log_notify(&a), 1);

    SECTION("add_listener argument checks");
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    CHECK_ERR(fpx_player_add_listener(p, NULL, &ida), FPX_ERROR_INVALID_ARGUMENT);
    fpx_listener_init(&li);
    CHECK_EQ(li.size, sizeof(fpx_listener));
    CHECK(li.userdata == NULL && li.on_item_status == NULL && li.destroy_notify == NULL);
    CHECK_OK(fpx_player_add_listener(p, &li, NULL)); /* id is optional; all-NULL listener ok */
    CHECK_OK(fpx_player_destroy(p));
}

/* Every code of the header's fpx_error enum, in order (0, -1, -2, ...). */
static const char *const error_names[] = {
    "FPX_OK",
    "FPX_ERROR_INVALID_HANDLE",
    "FPX_ERROR_INVALID_ARGUMENT",
    "FPX_ERROR_INVALID_TIME",
    "FPX_ERROR_UNKNOWN_ENUM",
    "FPX_ERROR_NO_MEMORY",
    "FPX_ERROR_NO_ITEM",
    "FPX_ERROR_ITEM_NOT_READY",
    "FPX_ERROR_ITEM_FAILED",
    "FPX_ERROR_NOT_FOUND",
    "FPX_ERROR_IO",
    "FPX_ERROR_TIMEOUT",
    "FPX_ERROR_INVALID_DATA",
    "FPX_ERROR_UNSUPPORTED",
    "FPX_ERROR_NO_STREAM",
    "FPX_ERROR_EOF",
    "FPX_ERROR_CANCELLED",
    "FPX_ERROR_IN_CALLBACK",
    "FPX_ERROR_WRONG_MODE",
    "FPX_ERROR_NETWORK",
    "FPX_ERROR_NO_SEEK_MANAGER",
    "FPX_ERROR_INTERNAL",
    "FPX_ERROR_INVALID_STATE",
    "FPX_ERROR_EXPIRED",
    "FPX_ERROR_STALLED",
    "FPX_ERROR_PROTOCOL_NOT_ALLOWED",
    "FPX_ERROR_INTERRUPTED",
    "FPX_ERROR_TOO_LARGE",
    "FPX_ERROR_FFMPEG_MISMATCH",
    "FPX_ERROR_REFERENCE_STREAM",
    "FPX_ERROR_NO_FILE_DESCRIPTORS",
    "FPX_ERROR_ENCRYPTION",
    "FPX_ERROR_NO_PREVIEW",
    "FPX_ERROR_PREVIEW_MALFORMED",
};
#define LAST_CODE (-(int)(sizeof error_names / sizeof error_names[0]) + 1)

static void test_strings(void)
{
    int code, j;
    /* The codes are contiguous (0 .. LAST_CODE); everything past them is unknown. */
    const int unknown[] = {1, 2, LAST_CODE - 1, LAST_CODE - 2, -100, 1000, INT_MIN, INT_MAX, -1000000};
    size_t u;

    SECTION("error strings and names, 0 .. the last code");
    CHECK_EQ(FPX_ERROR_INTERNAL, -21);
    CHECK_EQ(FPX_ERROR_INVALID_STATE, -22);
    CHECK_EQ(FPX_ERROR_PREVIEW_MALFORMED, LAST_CODE);
    for (code = 0; code >= LAST_CODE; code--) {
        const char *s = fpx_error_string(code);
        const char *n = fpx_error_name(code);
        CHECK(s != NULL);
        CHECK(n != NULL);
        if (!s || !n)
            continue;
        CHECK(s[0] != 0);
        if (strcmp(s, "unknown error") == 0) {
            char buf[64];
            snprintf(buf, sizeof buf, "known code %d", code);
            check_fail_(__FILE__, __LINE__, "fpx_error_string(code) != \"unknown error\"", buf);
        } else {
            check_pass_();
        }
        CHECK_STR(n, error_names[-code]);
        for (j = code + 1; j <= 0; j++) {
            const char *t = fpx_error_string(j);
            if (t && strcmp(s, t) == 0) {
                char buf[128];
                snprintf(buf, sizeof buf, "codes %d and %d share the string \"%s\"", code, j, s);
                check_fail_(__FILE__, __LINE__, "distinct fpx_error_string", buf);
            }
        }
    }
    CHECK(fpx_error_string(FPX_OK) != fpx_error_string(FPX_ERROR_INTERNAL));

    SECTION("unknown codes");
    for (u = 0; u < sizeof unknown / sizeof unknown[0]; u++) {
        CHECK_STR(fpx_error_string(unknown[u]), "unknown error");
        CHECK_STR(fpx_error_name(unknown[u]), "FPX_UNKNOWN");
    }

    SECTION("enum names");
    CHECK_STR(fpx_finish_reason_name(FPX_FINISH_COMPLETED), "FPX_FINISH_COMPLETED");
    CHECK_STR(fpx_finish_reason_name(FPX_FINISH_CANCELLED), "FPX_FINISH_CANCELLED");
    CHECK_STR(fpx_finish_reason_name(FPX_FINISH_SUPERSEDED), "FPX_FINISH_SUPERSEDED");
    CHECK_STR(fpx_finish_reason_name(FPX_FINISH_NO_SEEK_MANAGER), "FPX_FINISH_NO_SEEK_MANAGER");
    CHECK_STR(fpx_finish_reason_name(FPX_FINISH_FAILED), "FPX_FINISH_FAILED");
    CHECK_STR(fpx_finish_reason_name(5), "FPX_UNKNOWN");
    CHECK_STR(fpx_finish_reason_name(-1), "FPX_UNKNOWN");
    CHECK_STR(fpx_clamp_kind_name(FPX_CLAMP_NONE), "FPX_CLAMP_NONE");
    CHECK_STR(fpx_clamp_kind_name(FPX_CLAMP_TO_SEEKABLE_START), "FPX_CLAMP_TO_SEEKABLE_START");
    CHECK_STR(fpx_clamp_kind_name(FPX_CLAMP_TO_SEEKABLE_END), "FPX_CLAMP_TO_SEEKABLE_END");
    CHECK_STR(fpx_clamp_kind_name(FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN), "FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN");
    CHECK_STR(fpx_clamp_kind_name(4), "FPX_UNKNOWN");
    CHECK_STR(fpx_landing_resolution_name(FPX_LANDING_NONE), "FPX_LANDING_NONE");
    CHECK_STR(fpx_landing_resolution_name(FPX_LANDING_COVERING_FRAME), "FPX_LANDING_COVERING_FRAME");
    CHECK_STR(fpx_landing_resolution_name(FPX_LANDING_KEYFRAME), "FPX_LANDING_KEYFRAME");
    CHECK_STR(fpx_landing_resolution_name(FPX_LANDING_FALLBACK_COVERING_FRAME),
              "FPX_LANDING_FALLBACK_COVERING_FRAME");
    CHECK_STR(fpx_landing_resolution_name(99), "FPX_UNKNOWN");
    CHECK_STR(fpx_item_status_name(FPX_ITEM_NONE), "FPX_ITEM_NONE");
    CHECK_STR(fpx_item_status_name(FPX_ITEM_LOADING), "FPX_ITEM_LOADING");
    CHECK_STR(fpx_item_status_name(FPX_ITEM_READY), "FPX_ITEM_READY");
    CHECK_STR(fpx_item_status_name(FPX_ITEM_FAILED), "FPX_ITEM_FAILED");
    CHECK_STR(fpx_item_status_name(INT_MIN), "FPX_UNKNOWN");
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 110);
    main_thread = pthread_self();
    test_strings();
    test_create_config();
    test_open();
    test_replace_with_pending_seek();
    test_listener_notify();
    return check_summary();
}
