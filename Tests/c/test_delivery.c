/*
 * test_delivery.c -- event delivery: FPX_DELIVERY_HOST (dispatch, wakeup,
 * event fd), FPX_DELIVERY_THREAD, callbacks never concurrent and never
 * inside the API call that caused them, callback-unsafe functions from
 * callbacks, destroy in host mode.
 *
 * usage: test_delivery FIXTURE_DIR
 */
#include "check.h"

#include <poll.h>

/* ---- callback bookkeeping ------------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t in_api_key;   /* set while this thread is inside an fpx call */
static pthread_t main_thread;
static int in_cb;                  /* a callback is running */
static int overlaps;               /* callbacks seen running concurrently */
static int inside_api;             /* callbacks run while their thread was in an fpx call */
static int in_dispatch;            /* main thread is inside fpx_player_dispatch_events */
static int outside_dispatch;       /* HOST callbacks run outside dispatch/destroy */
static int cb_total;
static int cb_not_main;            /* callbacks not on the main thread */
static int cb_on_main;
static pthread_t first_cb_thread;
static int have_first_cb_thread;
static int cb_threads_differ;
static int host_mode_checks;       /* 1: callbacks must run on main inside dispatch */

static void api_enter(void) { pthread_setspecific(in_api_key, (void *)1); }
static void api_leave(void) { pthread_setspecific(in_api_key, NULL); }

static void reset_counters(int host)
{
    pthread_mutex_lock(&mu);
    overlaps = inside_api = outside_dispatch = cb_total = cb_not_main = cb_on_main = 0;
    have_first_cb_thread = cb_threads_differ = 0;
    host_mode_checks = host;
    pthread_mutex_unlock(&mu);
}

static void cb_enter(void)
{
    pthread_mutex_lock(&mu);
    if (in_cb)
        overlaps++;
    in_cb = 1;
    cb_total++;
    if (pthread_getspecific(in_api_key) != NULL)
        inside_api++;
    if (pthread_equal(pthread_self(), main_thread))
        cb_on_main++;
    else
        cb_not_main++;
    if (host_mode_checks && !in_dispatch)
        outside_dispatch++;
    /* THREAD mode: callbacks run on the shared delivery pool's threads (named
     * fpx-events), one at a time per player, not always on the same thread. */
    if (!host_mode_checks) {
        char comm[32] = "";
        FILE *f = fopen("/proc/thread-self/comm", "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                comm[0] = 0;
            fclose(f);
        }
        if (strncmp(comm, "fpx-events", 10) != 0)
            cb_threads_differ++;
    }
    (void)first_cb_thread;
    (void)have_first_cb_thread;
    pthread_mutex_unlock(&mu);
    {
        /* widen the window in which an overlap would be seen */
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

static void cb_leave(void)
{
    pthread_mutex_lock(&mu);
    in_cb = 0;
    pthread_mutex_unlock(&mu);
}

static int get_int(const int *v)
{
    int x;
    pthread_mutex_lock(&mu);
    x = *v;
    pthread_mutex_unlock(&mu);
    return x;
}

/* Calls dispatch on the main thread with the in_dispatch flag set. */
static int dispatch(fpx_player *p, int *n)
{
    int rc;
    pthread_mutex_lock(&mu);
    in_dispatch++;
    pthread_mutex_unlock(&mu);
    rc = fpx_player_dispatch_events(p, n);
    pthread_mutex_lock(&mu);
    in_dispatch--;
    pthread_mutex_unlock(&mu);
    return rc;
}

/* ---- listener ---------------------------------------------------------------- */

#define MAXLOG 8192
typedef struct logent {
    char kind;      /* 'S' status, 'C' clamped, 'A' accuracy, 'D' done, 'N' notify */
    uint64_t id;    /* seek id or item id */
    int value;      /* status or reason */
} logent;

static logent evlog[MAXLOG];
static int nlog;

static void log_push(char kind, uint64_t id, int value)
{
    pthread_mutex_lock(&mu);
    if (nlog < MAXLOG) {
        evlog[nlog].kind = kind;
        evlog[nlog].id = id;
        evlog[nlog].value = value;
        nlog++;
    }
    pthread_mutex_unlock(&mu);
}

static int count_kind(char kind)
{
    int i, n = 0;
    pthread_mutex_lock(&mu);
    for (i = 0; i < nlog; i++)
        n += evlog[i].kind == kind;
    pthread_mutex_unlock(&mu);
    return n;
}

static void on_status(const fpx_item_status_info *s, void *ud)
{
    (void)ud;
    cb_enter();
    log_push('S', s->item_id, (int)s->status);
    cb_leave();
}

static void on_clamped(const fpx_clamp *c, uint64_t id, void *ud)
{
    (void)ud;
    (void)c;
    cb_enter();
    log_push('C', id, 0);
    cb_leave();
}

static void on_accuracy(const fpx_accuracy *a, const fpx_seek_outcome *o, void *ud)
{
    (void)ud;
    (void)a;
    cb_enter();
    log_push('A', o->seek_id, 0);
    cb_leave();
}

static int notify_count;
static int notify_on_main;

static void on_notify(void *ud)
{
    (void)ud;
    cb_enter();
    pthread_mutex_lock(&mu);
    notify_count++;
    if (pthread_equal(pthread_self(), main_thread))
        notify_on_main++;
    pthread_mutex_unlock(&mu);
    log_push('N', 0, 0);
    cb_leave();
}

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    (void)ud;
    cb_enter();
    log_push('D', o->seek_id, (int)o->reason);
    cb_leave();
}

static uint64_t add_full_listener(fpx_player *p)
{
    fpx_listener li;
    uint64_t id = 0;
    fpx_listener_init(&li);
    li.on_item_status = on_status;
    li.on_seek_clamped = on_clamped;
    li.on_seek_accuracy = on_accuracy;
    li.destroy_notify = on_notify;
    api_enter();
    CHECK_OK(fpx_player_add_listener(p, &li, &id));
    api_leave();
    return id;
}

/* ---- wakeup ---------------------------------------------------------------- */

static int wakeups;
static int wakeups_on_main;
static pthread_cond_t wake_cv = PTHREAD_COND_INITIALIZER;

static void on_wakeup(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&mu);
    wakeups++;
    if (pthread_equal(pthread_self(), main_thread))
        wakeups_on_main++;
    pthread_cond_broadcast(&wake_cv);
    pthread_mutex_unlock(&mu);
}

static fpx_player *make_host_player(void)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_HOST;
    cfg.wakeup = on_wakeup;
    cfg.wakeup_userdata = &wakeups;
    if (!CHECK_OK(fpx_player_create(&cfg, &p)))
        return NULL;
    return p;
}

static int poll_fd(int fd, int ms)
{
    struct pollfd pf;
    int r;
    pf.fd = fd;
    pf.events = POLLIN;
    pf.revents = 0;
    do {
        r = poll(&pf, 1, ms);
    } while (r < 0 && errno == EINTR);
    return r > 0 && (pf.revents & POLLIN);
}

/* Dispatches (polling the fd) until pred count of kind reaches n or ms pass. */
static void pump_until(fpx_player *p, int fd, char kind, int n, long ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    while (count_kind(kind) < n && now_ns() < end) {
        poll_fd(fd, 20);
        dispatch(p, NULL);
    }
}

/* ---- sections -------------------------------------------------------------- */

static void host_basics(void)
{
    fpx_player *p;
    int fd = -1, n = -1, w0, rc, i;
    uint64_t lid, id = 0;

    SECTION("host mode: nothing runs until dispatch; wakeup; event fd");
    reset_counters(1);
    p = make_host_player();
    REQUIRE(p != NULL);
    api_enter();
    CHECK_OK(fpx_player_event_fd(p, &fd));
    api_leave();
    CHECK(fd >= 0);
    CHECK(!poll_fd(fd, 0)); /* nothing queued yet */

    lid = add_full_listener(p);
    (void)lid;
    api_enter();
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    api_leave();
    sleep_ms(150);
    CHECK_EQ(get_int(&cb_total), 0); /* nothing delivered without dispatch */
    {
        uint64_t end = now_ns() + 3000000000u;
        while (get_int(&wakeups) == 0 && now_ns() < end)
            sleep_ms(2);
    }
    CHECK(get_int(&wakeups) >= 1);
    CHECK_EQ(get_int(&wakeups_on_main), 0); /* called from a library thread */
    CHECK(poll_fd(fd, 2000));                /* readable while events are queued */
    CHECK(poll_fd(fd, 0));                   /* level-triggered: still readable */
    CHECK_EQ(get_int(&cb_total), 0);

    CHECK_OK(dispatch(p, &n));
    CHECK(n >= 2);
    CHECK_EQ(count_kind('S'), 2);
    pthread_mutex_lock(&mu);
    if (nlog >= 2) {
        CHECK_EQ(evlog[0].value, FPX_ITEM_LOADING);
        CHECK_EQ(evlog[1].value, FPX_ITEM_READY);
    }
    pthread_mutex_unlock(&mu);
    CHECK_EQ(get_int(&cb_not_main), 0);
    CHECK_EQ(get_int(&outside_dispatch), 0);
    CHECK(!poll_fd(fd, 0)); /* drained: not readable after dispatch */
    n = -1;
    CHECK_OK(dispatch(p, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(dispatch(p, NULL)); /* dispatched is optional */

    SECTION("host mode: a seek completes only in dispatch, accuracy before completion");
    api_enter();
    CHECK_OK(fpx_player_setup_seek_manager(p));
    w0 = get_int(&wakeups);
    CHECK_OK(fpx_player_seek(p, fpx_time_make(2, 1), fpx_precision_exact(), on_done, NULL, &id));
    api_leave();
    /* the event becomes readable without any dispatch */
    CHECK(poll_fd(fd, 10000));
    {
        uint64_t end = now_ns() + 3000000000u;
        while (get_int(&wakeups) == w0 && now_ns() < end)
            sleep_ms(2);
    }
    CHECK(get_int(&wakeups) > w0);
    sleep_ms(50);
    CHECK_EQ(count_kind('D'), 0);
    CHECK_EQ(count_kind('A'), 0);
    pump_until(p, fd, 'D', 1, 10000);
    CHECK_EQ(count_kind('D'), 1);
    CHECK_EQ(count_kind('A'), 1);
    pthread_mutex_lock(&mu);
    {
        int ia = -1, id_ = -1;
        for (i = 0; i < nlog; i++) {
            if (evlog[i].kind == 'A' && evlog[i].id == id)
                ia = i;
            if (evlog[i].kind == 'D' && evlog[i].id == id)
                id_ = i;
        }
        CHECK(ia >= 0 && id_ > ia);
    }
    pthread_mutex_unlock(&mu);
    CHECK(!poll_fd(fd, 0));
    CHECK_EQ(get_int(&cb_not_main), 0);
    CHECK_EQ(get_int(&outside_dispatch), 0);
    CHECK_EQ(get_int(&inside_api), 0);
    CHECK_EQ(get_int(&overlaps), 0);

    SECTION("host mode: remove_listener -> destroy_notify in dispatch, on the dispatching thread");
    api_enter();
    CHECK_OK(fpx_player_remove_listener(p, lid));
    api_leave();
    CHECK_EQ(get_int(&notify_count), 0); /* not inside the API call */
    {
        uint64_t end = now_ns() + 3000000000u;
        while (get_int(&notify_count) == 0 && now_ns() < end) {
            poll_fd(fd, 20);
            dispatch(p, NULL);
        }
    }
    CHECK_EQ(get_int(&notify_count), 1);
    CHECK_EQ(get_int(&notify_on_main), 1);
    CHECK_EQ(get_int(&outside_dispatch), 0);

    SECTION("dispatch / event_fd on a THREAD player -> WRONG_MODE");
    {
        fpx_player *t = make_player(FPX_DELIVERY_THREAD);
        int tfd = -7;
        if (t) {
            n = -7;
            CHECK_ERR(fpx_player_dispatch_events(t, &n), FPX_ERROR_WRONG_MODE);
            CHECK_EQ(n, -7);
            rc = fpx_player_event_fd(t, &tfd);
            CHECK_ERR(rc, FPX_ERROR_WRONG_MODE);
            CHECK_EQ(tfd, -7);
            CHECK_OK(fpx_player_destroy(t));
        }
    }
    reset_counters(1);
    api_enter();
    CHECK_OK(fpx_player_destroy(p));
    api_leave();
    CHECK_EQ(get_int(&inside_api), 0);
}

/* ---- functions called from inside callbacks ------------------------------------ */

typedef struct inner {
    fpx_player *p;
    int started;
    int done;
    int rc_dispatch, rc_wait, rc_read, rc_range, rc_status, rc_stats, rc_info, rc_seek, rc_cancel;
} inner;

static void on_inner(const fpx_seek_outcome *o, void *ud)
{
    inner *in = (inner *)ud;
    fpx_time s, e;
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_player_stats stats = {.struct_size = sizeof(fpx_player_stats)};
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    int n = 0;
    (void)o;
    if (in->started++)
        return; /* only the first completion does this */
    in->rc_dispatch = fpx_player_dispatch_events(in->p, &n);
    in->rc_wait = fpx_player_wait_item(in->p, 100, NULL);
    in->rc_read = fpx_player_read_packet(in->p, &pk);
    in->rc_range = fpx_player_seekable_range(in->p, &s, &e);
    in->rc_status = fpx_player_item_status(in->p, &st);
    in->rc_stats = fpx_player_stats_get(in->p, &stats);
    in->rc_info = fpx_player_item_info(in->p, &ii);
    in->rc_seek = fpx_player_seek(in->p, fpx_time_make(1, 1), fpx_precision_default(), NULL, NULL, NULL);
    in->rc_cancel = fpx_player_cancel_pending_seeks(in->p, NULL);
    pthread_mutex_lock(&mu);
    in->done = 1;
    pthread_mutex_unlock(&mu);
}

static void callback_unsafe(fpx_delivery_mode mode)
{
    inner in;
    int fd = -1;
    uint64_t end;
    SECTION(mode == FPX_DELIVERY_HOST ? "host mode: callback-unsafe calls from a callback -> IN_CALLBACK"
                                      : "thread mode: callback-unsafe calls from a callback -> IN_CALLBACK");
    memset(&in, 0, sizeof in);
    in.p = mode == FPX_DELIVERY_HOST ? make_host_player() : make_player(mode);
    if (!in.p)
        return;
    if (mode == FPX_DELIVERY_HOST)
        CHECK_OK(fpx_player_event_fd(in.p, &fd));
    CHECK_OK(open_wait(in.p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(in.p));
    CHECK_OK(fpx_player_seek(in.p, fpx_time_make(1, 1), fpx_precision_exact(), on_inner, &in, NULL));
    end = now_ns() + 10000000000u;
    while (now_ns() < end) {
        pthread_mutex_lock(&mu);
        if (in.done) {
            pthread_mutex_unlock(&mu);
            break;
        }
        pthread_mutex_unlock(&mu);
        if (mode == FPX_DELIVERY_HOST) {
            poll_fd(fd, 20);
            dispatch(in.p, NULL);
        } else {
            sleep_ms(2);
        }
    }
    sleep_ms(50);
    CHECK_EQ(get_int(&in.done), 1);
    CHECK_EQ(in.started, 1);
    if (mode == FPX_DELIVERY_HOST)
        CHECK_ERR(in.rc_dispatch, FPX_ERROR_IN_CALLBACK);
    else
        CHECK(in.rc_dispatch == FPX_ERROR_IN_CALLBACK || in.rc_dispatch == FPX_ERROR_WRONG_MODE);
    CHECK_ERR(in.rc_wait, FPX_ERROR_IN_CALLBACK);
    CHECK_ERR(in.rc_read, FPX_ERROR_IN_CALLBACK);
    CHECK_ERR(in.rc_range, FPX_ERROR_IN_CALLBACK);
    CHECK_OK(in.rc_status);
    CHECK_OK(in.rc_stats);
    CHECK_OK(in.rc_info);
    CHECK_OK(in.rc_seek);
    CHECK_OK(in.rc_cancel);
    CHECK_OK(fpx_player_destroy(in.p));
}

/* ---- concurrency: THREAD and HOST ----------------------------------------------- */

typedef struct issuer {
    fpx_player *p;
    int n;
    int seed;
    int errors;
} issuer;

static void *issue_thread(void *arg)
{
    issuer *is = (issuer *)arg;
    int i, rc;
    unsigned s = (unsigned)is->seed;
    for (i = 0; i < is->n; i++) {
        fpx_precision pr;
        s = s * 1103515245u + 12345u;
        pr = (s >> 8) % 3 == 0 ? fpx_precision_exact()
             : (s >> 8) % 3 == 1 ? fpx_precision_default()
                                 : fpx_precision_nearest_keyframe(fpx_time_make(1, 4));
        api_enter();
        rc = fpx_player_seek(is->p, fpx_time_make((int64_t)((s >> 4) % 7000) - 500, 1000), pr, on_done, NULL,
                             NULL);
        api_leave();
        if (rc != FPX_OK)
            is->errors++;
        if (i % 10 == 0)
            sleep_ms(1);
    }
    return NULL;
}

static volatile int stop_dispatchers;

typedef struct dispatcher {
    fpx_player *p;
    int fd;
    int use_wakeup;
    int errors;
    long rounds;
} dispatcher;

static void *dispatch_thread(void *arg)
{
    dispatcher *d = (dispatcher *)arg;
    for (;;) {
        int rc, stop;
        pthread_mutex_lock(&mu);
        stop = stop_dispatchers;
        if (!stop && d->use_wakeup) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 20000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&wake_cv, &mu, &ts);
        }
        pthread_mutex_unlock(&mu);
        if (stop)
            break;
        if (!d->use_wakeup)
            poll_fd(d->fd, 20);
        rc = fpx_player_dispatch_events(d->p, NULL);
        if (rc != FPX_OK)
            d->errors++;
        d->rounds++;
    }
    return NULL;
}

static void concurrency(fpx_delivery_mode mode)
{
    fpx_player *p;
    issuer is[4];
    dispatcher ds[2];
    pthread_t it[4], dt[2];
    int i, fd = -1, total = 4 * 60;
    uint64_t end;

    SECTION(mode == FPX_DELIVERY_HOST ? "host mode, 4 issuers + 2 dispatchers: never concurrent, never inside API"
                                      : "thread mode, 4 issuers: never concurrent, never inside API, on the delivery pool");
    pthread_mutex_lock(&mu);
    nlog = 0;
    pthread_mutex_unlock(&mu);
    p = mode == FPX_DELIVERY_HOST ? make_host_player() : make_player(mode);
    if (!p)
        return;
    add_full_listener(p);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    if (mode == FPX_DELIVERY_HOST) {
        CHECK_OK(fpx_player_event_fd(p, &fd));
        /* drain the item events first */
        dispatch(p, NULL);
    } else {
        sleep_ms(100);
    }
    reset_counters(0);
    pthread_mutex_lock(&mu);
    nlog = 0;
    pthread_mutex_unlock(&mu);

    stop_dispatchers = 0;
    if (mode == FPX_DELIVERY_HOST)
        for (i = 0; i < 2; i++) {
            ds[i].p = p;
            ds[i].fd = fd;
            ds[i].use_wakeup = i;
            ds[i].errors = 0;
            ds[i].rounds = 0;
            pthread_create(&dt[i], NULL, dispatch_thread, &ds[i]);
        }
    for (i = 0; i < 4; i++) {
        is[i].p = p;
        is[i].n = total / 4;
        is[i].seed = 17 + i * 7919;
        is[i].errors = 0;
        pthread_create(&it[i], NULL, issue_thread, &is[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(it[i], NULL);
        CHECK_EQ(is[i].errors, 0);
    }
    end = now_ns() + 30000000000u;
    while (count_kind('D') < total && now_ns() < end)
        sleep_ms(5);
    if (mode == FPX_DELIVERY_HOST) {
        pthread_mutex_lock(&mu);
        stop_dispatchers = 1;
        pthread_cond_broadcast(&wake_cv);
        pthread_mutex_unlock(&mu);
        for (i = 0; i < 2; i++) {
            pthread_join(dt[i], NULL);
            CHECK_EQ(ds[i].errors, 0);
        }
    }
    sleep_ms(100);
    CHECK_EQ(count_kind('D'), total);
    CHECK_EQ(get_int(&overlaps), 0);
    CHECK_EQ(get_int(&inside_api), 0);
    CHECK_EQ(get_int(&cb_on_main), 0);
    if (mode == FPX_DELIVERY_THREAD)
        CHECK_EQ(get_int(&cb_threads_differ), 0); /* the delivery pool's threads run them all */
    /* every completed seek had its accuracy event before its completion */
    pthread_mutex_lock(&mu);
    {
        int j, bad = 0;
        for (i = 0; i < nlog; i++) {
            if (evlog[i].kind != 'D' || evlog[i].value != FPX_FINISH_COMPLETED)
                continue;
            for (j = i - 1; j >= 0; j--)
                if (evlog[j].kind == 'A' && evlog[j].id == evlog[i].id)
                    break;
            if (j < 0)
                bad++;
        }
        CHECK_EQ(bad, 0);
    }
    pthread_mutex_unlock(&mu);
    reset_counters(0);
    CHECK_OK(fpx_player_destroy(p));
    CHECK_EQ(get_int(&overlaps), 0);
}

static void host_destroy(void)
{
    fpx_player *p;
    int i, w, done, cancelled = 0, completed = 0, superseded = 0, other = 0;
    const int N = 20;

    SECTION("host mode: destroy delivers the remaining (cancelled) completions before returning");
    p = make_host_player();
    if (!p)
        return;
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    add_full_listener(p);
    pthread_mutex_lock(&mu);
    nlog = 0;
    notify_count = notify_on_main = 0;
    pthread_mutex_unlock(&mu);
    reset_counters(0);
    for (i = 0; i < N; i++)
        CHECK_OK(fpx_player_seek(p, fpx_time_make(i * 250, 1000), fpx_precision_exact(), on_done, NULL, NULL));
    CHECK_EQ(count_kind('D'), 0);
    CHECK_OK(fpx_player_destroy(p));
    done = count_kind('D');
    CHECK_EQ(done, N);
    CHECK_EQ(get_int(&cb_not_main), 0); /* delivered by destroy, on the calling thread */
    CHECK_EQ(get_int(&notify_count), 1);
    CHECK_EQ(get_int(&notify_on_main), 1);
    pthread_mutex_lock(&mu);
    for (i = 0; i < nlog; i++) {
        if (evlog[i].kind != 'D')
            continue;
        if (evlog[i].value == FPX_FINISH_CANCELLED)
            cancelled++;
        else if (evlog[i].value == FPX_FINISH_COMPLETED)
            completed++;
        else if (evlog[i].value == FPX_FINISH_SUPERSEDED)
            superseded++;
        else
            other++;
    }
    pthread_mutex_unlock(&mu);
    NOTE("destroy delivered: %d cancelled, %d superseded, %d completed", cancelled, superseded, completed);
    CHECK_EQ(other, 0);
    CHECK(cancelled + completed >= 1);
    w = get_int(&wakeups);
    sleep_ms(200);
    CHECK_EQ(get_int(&wakeups), w); /* no wakeup after destroy returned */
    CHECK_EQ(count_kind('D'), N);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 115);
    main_thread = pthread_self();
    pthread_key_create(&in_api_key, NULL);
    host_basics();
    callback_unsafe(FPX_DELIVERY_HOST);
    callback_unsafe(FPX_DELIVERY_THREAD);
    concurrency(FPX_DELIVERY_THREAD);
    concurrency(FPX_DELIVERY_HOST);
    host_destroy();
    return check_summary();
}
