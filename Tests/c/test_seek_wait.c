/*
 * test_seek_wait.c -- fpx_player_seek_wait, the synchronous seek.
 *
 * 1. Against the asynchronous path: on several fixtures, for targets inside,
 *    before and past the seekable range and three precisions, a seek with a
 *    completion callback (waited on with a condition variable, or pumped with
 *    fpx_player_dispatch_events in host mode) and fpx_player_seek_wait give
 *    the same outcome, in both delivery modes.
 * 2. Host mode: seek_wait returns without any dispatch (no deadlock on a
 *    host-pumped queue), and the seek's on_seek_accuracy is still delivered
 *    at the next dispatch, with the same seek id.
 * 3. Misuse from callbacks (completion, listener; thread and host mode):
 *    FPX_ERROR_IN_CALLBACK, *out untouched, no seek issued.
 * 4. Arguments: NULL out, a struct_size smaller than size_t, an invalid time,
 *    an invalid handle; a short struct_size writes only that prefix.
 * 5. Timeout and destroy: against a server that accepts and never answers,
 *    the seek queues behind the open: timeout_ms gives FPX_ERROR_TIMEOUT with
 *    *out untouched; with no limit, destroying the player from another thread
 *    makes seek_wait return with the seek cancelled.
 * 6. Without the seek manager it returns at once with NO_SEEK_MANAGER.
 *
 * usage: test_seek_wait FIXTURE_DIR
 */
#include "check.h"
#include <stddef.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

static char fixdir[1024];

static void fixpath(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", fixdir, name); }

/* ---- async path -------------------------------------------------------------- */

typedef struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    fpx_seek_outcome o;
} waiter;

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    waiter *w = (waiter *)ud;
    pthread_mutex_lock(&w->mu);
    w->o = *o;
    w->done = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static int async_seek(fpx_player *p, int host, fpx_time t, fpx_precision prec, fpx_seek_outcome *out)
{
    waiter w;
    int rc, n;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    rc = fpx_player_seek(p, t, prec, on_done, &w, NULL);
    if (rc == FPX_OK) {
        if (host) {
            int spins = 0;
            for (;;) {
                pthread_mutex_lock(&w.mu);
                n = w.done;
                pthread_mutex_unlock(&w.mu);
                if (n || spins++ > 30000)
                    break;
                fpx_player_dispatch_events(p, NULL);
                sleep_ms(1);
            }
        } else {
            pthread_mutex_lock(&w.mu);
            while (!w.done)
                pthread_cond_wait(&w.cv, &w.mu);
            pthread_mutex_unlock(&w.mu);
        }
        if (!w.done)
            rc = FPX_ERROR_TIMEOUT;
        *out = w.o;
    }
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return rc;
}

static fpx_player *open_player(int host, const char *path)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.delivery = host ? FPX_DELIVERY_HOST : FPX_DELIVERY_THREAD;
    if (fpx_player_create(&cfg, &p) != FPX_OK)
        return NULL;
    if (path) {
        fpx_player_open(p, path);
        fpx_player_wait_item(p, 20000, NULL);
        fpx_player_setup_seek_manager(p);
    }
    return p;
}

static void same_outcome(const fpx_seek_outcome *a, const fpx_seek_outcome *b, const char *what)
{
    int ok = 1;
    ok &= CHECK_EQ(a->finished, b->finished);
    ok &= CHECK_EQ(a->reason, b->reason);
    ok &= CHECK_EQ(a->error, b->error);
    ok &= CHECK_EQ(a->landed_stream_pts, b->landed_stream_pts);
    ok &= CHECK_TIME_EQ(a->accuracy.landed_media_time, b->accuracy.landed_media_time);
    ok &= CHECK_TIME_EQ(a->accuracy.requested_media_time, b->accuracy.requested_media_time);
    ok &= CHECK_TIME_EQ(a->accuracy.delta, b->accuracy.delta);
    ok &= CHECK_EQ(a->accuracy.within_requested_tolerance, b->accuracy.within_requested_tolerance);
    ok &= CHECK_EQ(a->frame_covers_target, b->frame_covers_target);
    ok &= CHECK_EQ(a->landed_is_keyframe, b->landed_is_keyframe);
    ok &= CHECK_EQ(a->resolution, b->resolution);
    ok &= CHECK_EQ(a->clamp.kind, b->clamp.kind);
    ok &= CHECK_EQ(a->stream_index, b->stream_index);
    ok &= CHECK_EQ(a->precision.kind, b->precision.kind);
    ok &= CHECK_EQ(b->struct_size, sizeof(fpx_seek_outcome));
    ok &= CHECK(b->seek_id > a->seek_id);
    if (!ok)
        NOTE("%s", what);
}

static void against_async(int host)
{
    static const char *files[] = {"mp4_bframes.mp4", "ts.ts", "mkv.mkv", "mp4_opengop.mp4", "audio.m4a"};
    static const int64_t targets_ms[] = {0, 1300, 2500, 4733, 7901, 11500, -1000, 99000};
    size_t f, t, k;
    char path[1200], what[256];
    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        fpx_player *p;
        fixpath(path, sizeof path, files[f]);
        p = open_player(host, path);
        REQUIRE(p != NULL);
        for (t = 0; t < sizeof targets_ms / sizeof targets_ms[0]; t++) {
            for (k = 0; k < 3; k++) {
                fpx_precision prec = k == 0 ? fpx_precision_exact()
                                   : k == 1 ? fpx_precision_default()
                                            : fpx_precision_nearest_keyframe(fpx_time_make(1, 2));
                fpx_time target = fpx_time_make(targets_ms[t], 1000);
                fpx_seek_outcome a, b;
                memset(&a, 0, sizeof a);
                memset(&b, 0, sizeof b);
                snprintf(what, sizeof what, "%s %s target %" PRId64 " ms precision %d", host ? "host" : "thread",
                         files[f], targets_ms[t], (int)k);
                if (!CHECK_OK(async_seek(p, host, target, prec, &a)))
                    continue;
                b.struct_size = sizeof b;
                if (!CHECK_OK(fpx_player_seek_wait(p, target, prec, 30000, &b)))
                    continue;
                if (!CHECK_EQ(a.finished, 1))
                    NOTE("%s", what);
                same_outcome(&a, &b, what);
            }
        }
        if (host) /* drain the events of the seek_wait seeks */
            fpx_player_dispatch_events(p, NULL);
        fpx_player_destroy(p);
    }
}

/* ---- host mode: no dispatch needed, listeners still hear of it --------------- */

typedef struct heard {
    pthread_mutex_t mu;
    uint64_t ids[64];
    int n;
} heard;

static void heard_accuracy(const fpx_accuracy *a, const fpx_seek_outcome *o, void *ud)
{
    heard *h = (heard *)ud;
    (void)a;
    pthread_mutex_lock(&h->mu);
    if (h->n < 64)
        h->ids[h->n++] = o->seek_id;
    pthread_mutex_unlock(&h->mu);
}

static void host_mode_listeners(void)
{
    char path[1200];
    fpx_player *p;
    fpx_listener l;
    heard h;
    fpx_seek_outcome o;
    int i, found = 0;
    fixpath(path, sizeof path, "mp4_bframes.mp4");
    p = open_player(1, path);
    REQUIRE(p != NULL);
    fpx_player_dispatch_events(p, NULL);
    memset(&h, 0, sizeof h);
    pthread_mutex_init(&h.mu, NULL);
    memset(&l, 0, sizeof l);
    l.size = sizeof l;
    l.userdata = &h;
    l.on_seek_accuracy = heard_accuracy;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    /* No thread dispatches: seek_wait must still return. */
    CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(5, 2), fpx_precision_exact(), 30000, &o));
    CHECK_EQ(o.finished, 1);
    pthread_mutex_lock(&h.mu);
    CHECK_EQ(h.n, 0); /* not delivered yet: nothing dispatched */
    pthread_mutex_unlock(&h.mu);
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    pthread_mutex_lock(&h.mu);
    for (i = 0; i < h.n; i++)
        found |= h.ids[i] == o.seek_id;
    pthread_mutex_unlock(&h.mu);
    CHECK(found);
    fpx_player_destroy(p);
    pthread_mutex_destroy(&h.mu);
}

/* ---- misuse from callbacks ----------------------------------------------------- */

typedef struct misuse {
    fpx_player *p;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int rc_completion;
    int rc_listener;
    int untouched;
    uint64_t issued_before, issued_after;
} misuse;

static int try_from_callback(misuse *m)
{
    fpx_seek_outcome o;
    fpx_player_stats s0, s1;
    int rc, untouched = 1;
    size_t i;
    memset(&o, 0xAB, sizeof o);
    o.struct_size = sizeof o;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    s0.struct_size = s1.struct_size = sizeof s0;
    fpx_player_stats_get(m->p, &s0);
    rc = fpx_player_seek_wait(m->p, fpx_time_make(1, 1), fpx_precision_exact(), 1000, &o);
    fpx_player_stats_get(m->p, &s1);
    for (i = sizeof(size_t); i < sizeof o; i++)
        untouched &= ((unsigned char *)&o)[i] == 0xAB;
    m->untouched &= untouched && o.struct_size == sizeof o;
    m->issued_before += s0.seeks_issued;
    m->issued_after += s1.seeks_issued;
    return rc;
}

static void misuse_completion(const fpx_seek_outcome *o, void *ud)
{
    misuse *m = (misuse *)ud;
    (void)o;
    m->rc_completion = try_from_callback(m);
    pthread_mutex_lock(&m->mu);
    m->done = 1;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

static void misuse_listener(const fpx_accuracy *a, const fpx_seek_outcome *o, void *ud)
{
    misuse *m = (misuse *)ud;
    (void)a;
    (void)o;
    if (m->rc_listener == 1)
        m->rc_listener = try_from_callback(m);
}

static void from_callbacks(int host)
{
    char path[1200];
    misuse m;
    fpx_listener l;
    int spins = 0;
    fixpath(path, sizeof path, "mp4_bframes.mp4");
    memset(&m, 0, sizeof m);
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cv, NULL);
    m.rc_listener = 1;
    m.untouched = 1;
    m.p = open_player(host, path);
    REQUIRE(m.p != NULL);
    memset(&l, 0, sizeof l);
    l.size = sizeof l;
    l.userdata = &m;
    l.on_seek_accuracy = misuse_listener;
    CHECK_OK(fpx_player_add_listener(m.p, &l, NULL));
    CHECK_OK(fpx_player_seek(m.p, fpx_time_make(3, 1), fpx_precision_exact(), misuse_completion, &m, NULL));
    for (;;) {
        int d;
        pthread_mutex_lock(&m.mu);
        d = m.done;
        pthread_mutex_unlock(&m.mu);
        if (d || spins++ > 30000)
            break;
        if (host)
            fpx_player_dispatch_events(m.p, NULL);
        sleep_ms(1);
    }
    CHECK_EQ(m.done, 1);
    CHECK_ERR(m.rc_completion, FPX_ERROR_IN_CALLBACK);
    CHECK_ERR(m.rc_listener, FPX_ERROR_IN_CALLBACK);
    CHECK(m.untouched);                          /* *out untouched */
    CHECK_EQ(m.issued_after, m.issued_before);   /* and no seek issued */
    fpx_player_destroy(m.p);
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
}

/* ---- arguments -------------------------------------------------------------------- */

static void arguments(void)
{
    char path[1200];
    fpx_player *p;
    fpx_seek_outcome o;
    fpx_player_stats s0, s1;
    unsigned char buf[sizeof(fpx_seek_outcome) + 64];
    size_t prefix = offsetof(fpx_seek_outcome, finished), i;
    int untouched = 1;
    fixpath(path, sizeof path, "mp4_bframes.mp4");
    p = open_player(0, path);
    REQUIRE(p != NULL);
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    s0.struct_size = s1.struct_size = sizeof s0;
    CHECK_OK(fpx_player_stats_get(p, &s0));
    CHECK_ERR(fpx_player_seek_wait(p, fpx_time_make(1, 1), fpx_precision_exact(), 1000, NULL),
              FPX_ERROR_INVALID_ARGUMENT);
    memset(&o, 0, sizeof o);
    o.struct_size = 3;
    CHECK_ERR(fpx_player_seek_wait(p, fpx_time_make(1, 1), fpx_precision_exact(), 1000, &o),
              FPX_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(o.struct_size, 3);
    o.struct_size = sizeof o;
    CHECK_ERR(fpx_player_seek_wait(p, fpx_time_invalid(), fpx_precision_exact(), 1000, &o), FPX_ERROR_INVALID_TIME);
    CHECK_ERR(fpx_player_seek_wait(p, fpx_time_make(1, 1), fpx_precision_nearest_keyframe(fpx_time_make(-1, 1)),
                                   1000, &o), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_player_stats_get(p, &s1));
    CHECK_EQ(s1.seeks_issued, s0.seeks_issued); /* refused calls issue nothing */
    CHECK_ERR(fpx_player_seek_wait(NULL, fpx_time_make(1, 1), fpx_precision_exact(), 1000, &o),
              FPX_ERROR_INVALID_HANDLE);

    /* A short struct_size: only that prefix is written, and struct_size says so. */
    memset(buf, 0xCD, sizeof buf);
    memcpy(buf, &prefix, sizeof prefix);
    CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(2, 1), fpx_precision_exact(), 30000, (fpx_seek_outcome *)(void *)buf));
    {
        fpx_seek_outcome got;
        memcpy(&got, buf, sizeof got);
        CHECK_EQ(got.struct_size, prefix);
        CHECK(got.seek_id > 0);
    }
    for (i = prefix; i < sizeof buf; i++)
        untouched &= buf[i] == 0xCD;
    CHECK(untouched);

    /* struct_size 0 reads as the 0.2 layout (a host that predates struct_size): up to
     * packets_read; landed_past_hole (0.4.0) is not written. */
    memset(&o, 0, sizeof o);
    o.landed_past_hole = (fpx_hole_reason)77;
    CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(2, 1), fpx_precision_exact(), 30000, &o));
    CHECK_EQ(o.struct_size, offsetof(fpx_seek_outcome, packets_read) + sizeof o.packets_read);
    CHECK_EQ((int)o.landed_past_hole, 77);
    CHECK_EQ(o.finished, 1);
    fpx_player_destroy(p);
    CHECK_ERR(fpx_player_seek_wait(p, fpx_time_make(1, 1), fpx_precision_exact(), 1000, &o), FPX_ERROR_INVALID_HANDLE);
}

static void no_seek_manager(void)
{
    char path[1200];
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_seek_outcome o;
    fixpath(path, sizeof path, "mp4_bframes.mp4");
    fpx_player_config_init(&cfg);
    REQUIRE(fpx_player_create(&cfg, &p) == FPX_OK);
    CHECK_OK(fpx_player_open(p, path));
    CHECK_OK(fpx_player_wait_item(p, 20000, NULL));
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(1, 1), fpx_precision_exact(), 0, &o));
    CHECK_EQ(o.finished, 0);
    CHECK_EQ(o.reason, FPX_FINISH_NO_SEEK_MANAGER);
    fpx_player_destroy(p);
}

/* ---- timeout and destroy against a silent server ----------------------------------- */

typedef struct blocked {
    fpx_player *p;
    int rc;
    fpx_seek_outcome o;
    int returned;
} blocked;

static void *wait_forever(void *arg)
{
    blocked *b = (blocked *)arg;
    b->rc = fpx_player_seek_wait(b->p, fpx_time_make(1, 1), fpx_precision_exact(), -1, &b->o);
    b->returned = 1;
    return NULL;
}

static void timeout_and_destroy(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int s = socket(AF_INET, SOCK_STREAM, 0), i, untouched = 1;
    char url[128];
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_seek_outcome o;
    blocked b;
    pthread_t th;
    REQUIRE(s >= 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
    REQUIRE(listen(s, 8) == 0);
    REQUIRE(getsockname(s, (struct sockaddr *)&a, &len) == 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/silent.mp4", ntohs(a.sin_port));

    fpx_player_config_init(&cfg);
    cfg.io_timeout_ms = 60000;
    REQUIRE(fpx_player_create(&cfg, &p) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_open(p, url)); /* loading: the server never answers */
    memset(&o, 0xAB, sizeof o);
    o.struct_size = sizeof o;
    CHECK_ERR(fpx_player_seek_wait(p, fpx_time_make(1, 1), fpx_precision_exact(), 300, &o), FPX_ERROR_TIMEOUT);
    for (i = (int)sizeof(size_t); i < (int)sizeof o; i++)
        untouched &= ((unsigned char *)&o)[i] == 0xAB;
    CHECK(untouched);

    memset(&b, 0, sizeof b);
    b.p = p;
    b.o.struct_size = sizeof b.o;
    REQUIRE(pthread_create(&th, NULL, wait_forever, &b) == 0);
    sleep_ms(300);
    CHECK_EQ(b.returned, 0); /* still blocked */
    CHECK_OK(fpx_player_destroy(p));
    pthread_join(th, NULL);
    CHECK_OK(b.rc);
    CHECK_EQ(b.o.finished, 0);
    CHECK_EQ(b.o.reason, FPX_FINISH_CANCELLED);
    close(s);
}

int main(int argc, char **argv)
{
    REQUIRE(argc >= 2);
    snprintf(fixdir, sizeof fixdir, "%s", argv[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_watchdog(110);
    SECTION("seek_wait equals the async path (thread delivery)");
    against_async(0);
    SECTION("seek_wait equals the async path (host delivery)");
    against_async(1);
    SECTION("host mode: returns without a dispatch; listeners hear of it at the next dispatch");
    host_mode_listeners();
    SECTION("misuse from callbacks (thread delivery)");
    from_callbacks(0);
    SECTION("misuse from callbacks (host delivery)");
    from_callbacks(1);
    SECTION("arguments and the output-struct rule");
    arguments();
    SECTION("no seek manager");
    no_seek_manager();
    SECTION("timeout, and destroy while waiting");
    timeout_and_destroy();
    return check_summary();
}
