/*
 * test_storm.c -- seek storms, in both delivery modes:
 *   - 1,000 back-to-back seeks: exactly 1,000 completions, each seek once,
 *     the last COMPLETED, the others SUPERSEDED or COMPLETED;
 *   - 500 seeks then fpx_player_cancel_pending_seeks: exactly 500
 *     completions, the cancelled ones CANCELLED, the count matches;
 *   - 8 threads x 200 concurrent seeks: 1,600 completions, once each;
 *   - destroy with 100 seeks pending: 100 completions before destroy returns;
 *   - fpx_player_stats_get adds up after every phase.
 *
 * usage: test_storm FIXTURE_DIR
 */
#include "check.h"

#include <poll.h>

#define MAXSEEKS 4096

/* One slot per issued seek; the completion callback's userdata is the slot. */
typedef struct slot {
    uint64_t id;          /* returned by fpx_player_seek */
    int issued;           /* fpx_player_seek returned FPX_OK */
    int calls;            /* completions received */
    uint64_t got_id;      /* outcome->seek_id */
    fpx_finish_reason reason;
    int finished;
    uint64_t order;       /* completion sequence number */
} slot;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot slots[MAXSEEKS];
static int completions;
static uint64_t seq;
static int bad_userdata;

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    slot *s = (slot *)ud;
    pthread_mutex_lock(&mu);
    completions++;
    if (s < slots || s >= slots + MAXSEEKS) {
        bad_userdata++;
    } else {
        s->calls++;
        s->got_id = o->seek_id;
        s->reason = o->reason;
        s->finished = o->finished;
        s->order = ++seq;
    }
    pthread_mutex_unlock(&mu);
}

static void reset_slots(void)
{
    pthread_mutex_lock(&mu);
    memset(slots, 0, sizeof slots);
    completions = 0;
    seq = 0;
    bad_userdata = 0;
    pthread_mutex_unlock(&mu);
}

static int get_completions(void)
{
    int n;
    pthread_mutex_lock(&mu);
    n = completions;
    pthread_mutex_unlock(&mu);
    return n;
}

/* ---- host-mode dispatcher thread ---------------------------------------- */

typedef struct dispatcher {
    fpx_player *p;
    int fd;
    volatile int stop;
    int errors;
    pthread_t th;
    int running;
} dispatcher;

static void *dispatch_main(void *arg)
{
    dispatcher *d = (dispatcher *)arg;
    while (!flag_get(&d->stop)) {
        struct pollfd pf;
        pf.fd = d->fd;
        pf.events = POLLIN;
        pf.revents = 0;
        poll(&pf, 1, 20);
        if (fpx_player_dispatch_events(d->p, NULL) != FPX_OK)
            d->errors++;
    }
    return NULL;
}

static void dispatcher_start(dispatcher *d, fpx_player *p)
{
    memset(d, 0, sizeof *d);
    d->p = p;
    CHECK_OK(fpx_player_event_fd(p, &d->fd));
    pthread_create(&d->th, NULL, dispatch_main, d);
    d->running = 1;
}

static void dispatcher_stop(dispatcher *d)
{
    if (!d->running)
        return;
    flag_set(&d->stop, 1);
    pthread_join(d->th, NULL);
    d->running = 0;
    CHECK_EQ(d->errors, 0);
}

/* ---- helpers -------------------------------------------------------------------- */

static fpx_precision pick_precision(unsigned r)
{
    switch (r % 4) {
    case 0: return fpx_precision_exact();
    case 1: return fpx_precision_default();
    case 2: return fpx_precision_nearest_keyframe(fpx_time_make(1, 2));
    default: return fpx_precision_nearest_keyframe(fpx_time_make(1001, 30000));
    }
}

static fpx_time pick_target(unsigned r)
{
    switch ((r >> 3) % 8) {
    case 0: return fpx_time_make(-1, 1);                       /* clamped to start */
    case 1: return fpx_time_make(3600, 1);                     /* clamped to end */
    case 2: return fpx_time_make((int64_t)(r % 200) * 1001, 30000);
    default: return fpx_time_make((int64_t)((r >> 5) % 6000), 1000);
    }
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 1;
}

static void wait_completions(int n, long ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    while (get_completions() < n && now_ns() < end)
        sleep_ms(2);
    sleep_ms(200); /* any extra completion would show up now */
}

/* Each of slots[0..n) was issued and completed exactly once with its id; ids unique. */
static void check_exactly_once(int n)
{
    int i, j, missing = 0, dup = 0, wrong_id = 0, not_issued = 0, dup_ids = 0;
    uint64_t *ids = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)n);
    pthread_mutex_lock(&mu);
    CHECK_EQ(completions, n);
    CHECK_EQ(bad_userdata, 0);
    for (i = 0; i < n; i++) {
        if (!slots[i].issued)
            not_issued++;
        if (slots[i].calls == 0)
            missing++;
        if (slots[i].calls > 1)
            dup++;
        if (slots[i].calls && slots[i].got_id != slots[i].id)
            wrong_id++;
        ids[i] = slots[i].id;
    }
    pthread_mutex_unlock(&mu);
    CHECK_EQ(not_issued, 0);
    CHECK_EQ(missing, 0);
    CHECK_EQ(dup, 0);
    CHECK_EQ(wrong_id, 0);
    /* ids unique (n is small enough for a quadratic check to stay cheap) */
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (ids[i] == ids[j])
                dup_ids++;
    CHECK_EQ(dup_ids, 0);
    free(ids);
}

static void check_stats(fpx_player *p, uint64_t want_issued)
{
    fpx_player_stats st = {.struct_size = sizeof(fpx_player_stats)};
    memset(&st, 0, sizeof st); st.struct_size = sizeof st;
    if (!CHECK_OK(fpx_player_stats_get(p, &st)))
        return;
    CHECK_EQ(st.struct_size, sizeof(fpx_player_stats));
    CHECK_EQ(st.seeks_issued, want_issued);
    if (!CHECK_EQ(st.seeks_completed + st.seeks_superseded + st.seeks_cancelled + st.seeks_failed,
                  st.seeks_issued))
        NOTE("issued %" PRIu64 ": completed %" PRIu64 " superseded %" PRIu64 " cancelled %" PRIu64
             " failed %" PRIu64,
             st.seeks_issued, st.seeks_completed, st.seeks_superseded, st.seeks_cancelled, st.seeks_failed);
    CHECK(st.events_delivered >= want_issued);
    CHECK(st.packets_demuxed > 0);
    CHECK(st.bytes_read > 0);
}

/* ---- phases ------------------------------------------------------------------------ */

typedef struct tally {
    int completed, superseded, cancelled, failed, other;
} tally;

static tally count_reasons(int from, int to)
{
    tally t;
    int i;
    memset(&t, 0, sizeof t);
    pthread_mutex_lock(&mu);
    for (i = from; i < to; i++) {
        switch ((int)slots[i].reason) {
        case FPX_FINISH_COMPLETED: t.completed++; break;
        case FPX_FINISH_SUPERSEDED: t.superseded++; break;
        case FPX_FINISH_CANCELLED: t.cancelled++; break;
        case FPX_FINISH_FAILED: t.failed++; break;
        default: t.other++; break;
        }
    }
    pthread_mutex_unlock(&mu);
    return t;
}

static void storm_1000(fpx_player *p)
{
    const int N = 1000;
    unsigned s = 12345;
    int i, finished_mismatch = 0, out_of_order = 0;
    uint64_t t0;
    tally t;

    reset_slots();
    t0 = now_ns();
    for (i = 0; i < N; i++) {
        unsigned r = rnd(&s);
        uint64_t id = 0;
        int rc = fpx_player_seek(p, pick_target(r), pick_precision(r), on_done, &slots[i], &id);
        pthread_mutex_lock(&mu);
        slots[i].issued = rc == FPX_OK;
        slots[i].id = id;
        pthread_mutex_unlock(&mu);
        if (rc != FPX_OK)
            CHECK_OK(rc);
    }
    wait_completions(N, 60000);
    NOTE("1000 seeks completed in %.1f ms (incl. a 200 ms settle wait)", (double)(now_ns() - t0) / 1e6);
    check_exactly_once(N);
    t = count_reasons(0, N);
    NOTE("%d completed, %d superseded, %d cancelled, %d failed", t.completed, t.superseded, t.cancelled,
         t.failed);
    pthread_mutex_lock(&mu);
    CHECK_EQ(slots[N - 1].reason, FPX_FINISH_COMPLETED);
    CHECK_EQ(slots[N - 1].finished, 1);
    for (i = 0; i < N; i++) {
        if (slots[i].finished != (slots[i].reason == FPX_FINISH_COMPLETED))
            finished_mismatch++;
        if (i > 0 && slots[i].order < slots[i - 1].order)
            out_of_order++;
    }
    pthread_mutex_unlock(&mu);
    CHECK_EQ(t.completed + t.superseded, N);
    CHECK_EQ(finished_mismatch, 0);
    if (out_of_order)
        NOTE("completions were delivered out of issue order %d times (not a documented guarantee)",
             out_of_order);
}

static void storm_cancel(fpx_player *p)
{
    const int N = 500;
    unsigned s = 777;
    int i;
    uint64_t count = 0;
    tally t;

    reset_slots();
    for (i = 0; i < N; i++) {
        unsigned r = rnd(&s);
        uint64_t id = 0;
        int rc = fpx_player_seek(p, pick_target(r), pick_precision(r), on_done, &slots[i], &id);
        pthread_mutex_lock(&mu);
        slots[i].issued = rc == FPX_OK;
        slots[i].id = id;
        pthread_mutex_unlock(&mu);
        if (rc != FPX_OK)
            CHECK_OK(rc);
    }
    CHECK_OK(fpx_player_cancel_pending_seeks(p, &count));
    wait_completions(N, 60000);
    check_exactly_once(N);
    t = count_reasons(0, N);
    NOTE("cancel returned %" PRIu64 "; %d cancelled, %d superseded, %d completed", count, t.cancelled,
         t.superseded, t.completed);
    CHECK_EQ(t.failed + t.other, 0);
    CHECK_EQ(t.cancelled + t.superseded + t.completed, N);
    CHECK_EQ((int64_t)count, t.cancelled);
    /* every seek supersedes the ones before it: at most the last is still pending */
    CHECK(count <= 1);
    pthread_mutex_lock(&mu);
    /* the last one was either cancelled or had already completed */
    CHECK(slots[N - 1].reason == FPX_FINISH_CANCELLED || slots[N - 1].reason == FPX_FINISH_COMPLETED);
    pthread_mutex_unlock(&mu);
    /* nothing left to cancel */
    count = 99;
    CHECK_OK(fpx_player_cancel_pending_seeks(p, &count));
    CHECK_EQ(count, 0);
    CHECK_OK(fpx_player_cancel_pending_seeks(p, NULL));
}

typedef struct worker {
    fpx_player *p;
    int base, n;
    unsigned seed;
    int errors;
} worker;

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    int i;
    for (i = 0; i < w->n; i++) {
        unsigned r = rnd(&w->seed);
        uint64_t id = 0;
        slot *sl = &slots[w->base + i];
        int rc = fpx_player_seek(w->p, pick_target(r), pick_precision(r), on_done, sl, &id);
        pthread_mutex_lock(&mu);
        sl->issued = rc == FPX_OK;
        sl->id = id;
        pthread_mutex_unlock(&mu);
        if (rc != FPX_OK)
            w->errors++;
    }
    return NULL;
}

static void storm_threads(fpx_player *p)
{
    const int T = 8, PER = 200;
    worker w[8];
    pthread_t th[8];
    int i;
    tally t;

    reset_slots();
    for (i = 0; i < T; i++) {
        w[i].p = p;
        w[i].base = i * PER;
        w[i].n = PER;
        w[i].seed = 1000u + (unsigned)i * 31u;
        w[i].errors = 0;
        pthread_create(&th[i], NULL, worker_main, &w[i]);
    }
    for (i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(w[i].errors, 0);
    }
    wait_completions(T * PER, 60000);
    check_exactly_once(T * PER);
    t = count_reasons(0, T * PER);
    NOTE("%d completed, %d superseded, %d cancelled", t.completed, t.superseded, t.cancelled);
    CHECK_EQ(t.completed + t.superseded, T * PER);
    CHECK(t.completed >= 1); /* the seek issued last is never superseded */
}

static void storm_destroy(fpx_delivery_mode mode)
{
    const int N = 100;
    fpx_player *p = make_player(mode);
    int i, n_after;
    tally t;

    if (!p)
        return;
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    reset_slots();
    for (i = 0; i < N; i++) {
        uint64_t id = 0;
        int rc = fpx_player_seek(p, fpx_time_make(i * 50, 1000),
                                 i % 2 ? fpx_precision_exact() : fpx_precision_default(), on_done, &slots[i],
                                 &id);
        pthread_mutex_lock(&mu);
        slots[i].issued = rc == FPX_OK;
        slots[i].id = id;
        pthread_mutex_unlock(&mu);
        if (rc != FPX_OK)
            CHECK_OK(rc);
    }
    CHECK_OK(fpx_player_destroy(p));
    n_after = get_completions();
    CHECK_EQ(n_after, N); /* all delivered before destroy returned */
    sleep_ms(200);
    check_exactly_once(N);
    t = count_reasons(0, N);
    NOTE("destroy with %d pending: %d cancelled, %d superseded, %d completed", N, t.cancelled, t.superseded,
         t.completed);
    CHECK_EQ(t.cancelled + t.superseded + t.completed, N);
}

static void run_mode(fpx_delivery_mode mode)
{
    fpx_player *p;
    dispatcher d;
    int host = mode == FPX_DELIVERY_HOST;
    char name[96];

    memset(&d, 0, sizeof d);
    snprintf(name, sizeof name, "%s: 1,000 back-to-back seeks", host ? "HOST" : "THREAD");
    SECTION(name);
    p = make_player(mode);
    REQUIRE(p != NULL);
    if (host)
        dispatcher_start(&d, p);
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    storm_1000(p);
    check_stats(p, 1000);

    snprintf(name, sizeof name, "%s: 500 seeks + cancel_pending_seeks", host ? "HOST" : "THREAD");
    SECTION(name);
    storm_cancel(p);
    check_stats(p, 1500);

    snprintf(name, sizeof name, "%s: 8 threads x 200 seeks", host ? "HOST" : "THREAD");
    SECTION(name);
    storm_threads(p);
    check_stats(p, 3100);

    if (host)
        dispatcher_stop(&d);
    CHECK_OK(fpx_player_destroy(p));

    snprintf(name, sizeof name, "%s: destroy with 100 seeks pending", host ? "HOST" : "THREAD");
    SECTION(name);
    storm_destroy(mode);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 115);
    run_mode(FPX_DELIVERY_THREAD);
    run_mode(FPX_DELIVERY_HOST);
    return check_summary();
}
