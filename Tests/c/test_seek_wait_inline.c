/*
 * test_seek_wait_inline.c -- fpx_player_seek_wait lands the seek on the calling thread when
 * the player is idle, and every interleaving keeps the promises of seek.h.
 *
 * Where a landing ran is read from /proc (proc_counts.h): a player's seeks run on an
 * "fpx-worker" thread, and the pool's threads exit after 2 s idle, so a run of seek_waits
 * that starts with no fpx-worker thread and ends with none ran no job: each landed on the
 * calling thread (packets_read > 0 says the landing read packets, not memory). Landed frames
 * are checked against ffprobe's packet list (groundtruth.h): the largest pts of the
 * reference stream at or before the target (exact).
 *
 * 1. Idle: on four files, seek_waits land on the calling thread, on ffprobe's frame; the
 *    listener events come on the delivery thread ("fpx-events"), never on the caller's,
 *    one on_seek_accuracy per seek in issue order; the packets then read hold the landed
 *    frame.
 * 2. Host delivery: nothing is delivered before a dispatch; the next dispatch delivers, on
 *    the dispatching thread, on_seek_clamped then on_seek_accuracy, seek by seek.
 * 3. While landing on the calling thread, in a 120 s file of one GOP (a landing reads about
 *    3,000 packets): a cancel from another thread completes the seek cancelled, and
 *    the next seek_wait lands; a destroy from another thread makes it return cancelled and
 *    delivers the listener's destroy_notify before fpx_player_destroy returns. No job runs.
 * 4. The timeout while landing: FPX_ERROR_TIMEOUT within the timeout (and a scheduling
 *    margin), *out untouched; the seek is handed to the worker (an fpx-worker thread appears)
 *    and completes later through the listener, on ffprobe's frame.
 * 5. A seek queued (fpx_player_seek just issued): the seek_wait goes to the worker; the
 *    queued seek completes superseded, before the seek_wait's seek completes on its frame.
 * 6. A superseding fpx_player_seek from another thread during the landing: the seek_wait
 *    returns superseded, the new seek completes exactly once on its frame.
 *
 * usage: test_seek_wait_inline FIXTURE_DIR
 */
#include "check.h"
#include "groundtruth.h"
#include "proc_counts.h"

#include <sys/stat.h>

/* ---- events, as a listener and completions hear them ------------------------------ */

enum { EV_CLAMPED = 1, EV_ACCURACY, EV_COMPLETION, EV_REMOVED };

typedef struct event {
    int kind;
    uint64_t seek_id;
    int finished;
    int reason;
    int64_t landed_pts;
    int on_events_thread; /* ran on a thread named fpx-events */
    pthread_t thread;
} event;

#define MAX_EVENTS 256

typedef struct recorder {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    event ev[MAX_EVENTS];
    int n;
} recorder;

static void rec_init(recorder *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
}

static void rec_free(recorder *r)
{
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
}

static int on_thread_named(const char *prefix)
{
    char comm[64] = "";
    FILE *f = fopen("/proc/thread-self/comm", "r");
    if (!f)
        return 0;
    if (!fgets(comm, sizeof comm, f))
        comm[0] = 0;
    fclose(f);
    return strncmp(comm, prefix, strlen(prefix)) == 0;
}

static void rec_add(recorder *r, int kind, uint64_t id, const fpx_seek_outcome *o)
{
    event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.seek_id = id;
    e.landed_pts = FPX_NOPTS;
    if (o) {
        e.finished = o->finished;
        e.reason = (int)o->reason;
        e.landed_pts = o->landed_stream_pts;
    }
    e.on_events_thread = on_thread_named("fpx-events");
    e.thread = pthread_self();
    pthread_mutex_lock(&r->mu);
    if (r->n < MAX_EVENTS)
        r->ev[r->n++] = e;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void l_accuracy(const fpx_accuracy *a, const fpx_seek_outcome *o, void *ud)
{
    (void)a;
    rec_add((recorder *)ud, EV_ACCURACY, o->seek_id, o);
}

static void l_clamped(const fpx_clamp *c, uint64_t id, void *ud)
{
    (void)c;
    rec_add((recorder *)ud, EV_CLAMPED, id, NULL);
}

static void l_removed(void *ud) { rec_add((recorder *)ud, EV_REMOVED, 0, NULL); }

static void on_completion(const fpx_seek_outcome *o, void *ud) { rec_add((recorder *)ud, EV_COMPLETION, o->seek_id, o); }

/* Waits until r holds at least n events, at most ms. Returns the count. */
static int rec_wait(recorder *r, int n, long ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    int got;
    pthread_mutex_lock(&r->mu);
    while (r->n < n && now_ns() < end) {
        pthread_mutex_unlock(&r->mu);
        sleep_ms(2);
        pthread_mutex_lock(&r->mu);
    }
    got = r->n;
    pthread_mutex_unlock(&r->mu);
    return got;
}

static int rec_count(recorder *r)
{
    int n;
    pthread_mutex_lock(&r->mu);
    n = r->n;
    pthread_mutex_unlock(&r->mu);
    return n;
}

static void add_recorder(fpx_player *p, recorder *r)
{
    fpx_listener l;
    fpx_listener_init(&l);
    l.userdata = r;
    l.on_seek_accuracy = l_accuracy;
    l.on_seek_clamped = l_clamped;
    l.destroy_notify = l_removed;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
}

/* ---- players and ground truth --------------------------------------------------------- */

static fpx_player *open_player(fpx_delivery_mode mode, const char *path)
{
    fpx_player *p = make_player(mode);
    fpx_item_status_info st;
    if (!p)
        return NULL;
    memset(&st, 0, sizeof st);
    if (!CHECK_OK(fpx_player_open(p, path)) || !CHECK_OK(fpx_player_wait_item(p, 20000, &st)) ||
        !CHECK_EQ(st.status, FPX_ITEM_READY) || !CHECK_OK(fpx_player_setup_seek_manager(p))) {
        NOTE("cannot open %s", path);
        fpx_player_destroy(p);
        return NULL;
    }
    return p;
}

/* Waits (up to 8 s) until the fpx-worker pool has no thread: its threads exit after 2 s idle. */
static int wait_no_worker(void)
{
    int i;
    for (i = 0; i < 400; i++) {
        if (proc_threads("fpx-worker") == 0)
            return 1;
        sleep_ms(20);
    }
    return 0;
}

/* ffprobe's frame an exact seek to target_ms lands on: the largest pts of the reference
 * stream at or before the target, on the item timeline (item time 0 == start_pts). */
static int64_t truth_exact(const gt_file *gt, fpx_player *p, int64_t target_ms)
{
    fpx_item_info info;
    int64_t t, best = FPX_NOPTS;
    size_t i;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (!CHECK_OK(fpx_player_item_info(p, &info)) || info.time_base_num <= 0)
        return FPX_NOPTS;
    t = info.start_pts + (target_ms * info.time_base_den) / (1000 * (int64_t)info.time_base_num);
    for (i = 0; i < gt->n; i++) {
        const gt_packet *k = &gt->p[i];
        if (k->stream != info.reference_stream || k->pts == FPX_NOPTS || k->pts < info.start_pts || k->pts > t)
            continue;
        if (best == FPX_NOPTS || k->pts > best)
            best = k->pts;
    }
    return best;
}

static int seek_wait_ms(fpx_player *p, int64_t target_ms, int64_t timeout_ms, fpx_seek_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    return fpx_player_seek_wait(p, fpx_time_make(target_ms, 1000), fpx_precision_exact(), timeout_ms, o);
}

static char longgop[1100];
static gt_file gt_long;
/* Targets in the long GOP: each landing reads from the keyframe at 0 (about 25 packets a
 * second of target). */
#define LONG_TARGET_MS 119000
#define LONG_OTHER_MS 21000

/* ---- 1. idle: landed on the calling thread ------------------------------------------- */

static void idle_inline(void)
{
    static const char *files[] = {"mp4_bframes.mp4", "mkv.mkv", "ts.ts", NULL};
    static const int64_t targets[] = {7300, 2100, 9100};
    fpx_player *ps[4];
    gt_file gts[4];
    recorder rs[4];
    uint64_t ids[4][3];
    int64_t landed[4][3];
    size_t f, t;
    int read_packets = 0;
    SECTION("idle: the landing runs on the calling thread");
    for (f = 0; f < 4; f++) {
        const char *path = files[f] ? fixture(files[f]) : longgop;
        rec_init(&rs[f]);
        memset(&gts[f], 0, sizeof gts[f]);
        ps[f] = open_player(FPX_DELIVERY_THREAD, path);
        REQUIRE(ps[f] != NULL);
        add_recorder(ps[f], &rs[f]);
        if (files[f])
            REQUIRE(gt_load(&gts[f], path) > 0);
    }
    REQUIRE(wait_no_worker());
    for (f = 0; f < 4; f++) {
        const gt_file *gt = files[f] ? &gts[f] : &gt_long;
        for (t = 0; t < (files[f] ? 3u : 1u); t++) {
            int64_t target = files[f] ? targets[t] : LONG_TARGET_MS;
            fpx_seek_outcome o;
            ids[f][t] = 0;
            landed[f][t] = FPX_NOPTS;
            if (!CHECK_OK(seek_wait_ms(ps[f], target, 20000, &o)))
                continue;
            CHECK_EQ(o.finished, 1);
            CHECK_EQ(o.landed_stream_pts, truth_exact(gt, ps[f], target));
            if (t == 0)
                CHECK(o.packets_read > 0); /* a cold landing: it read packets */
            ids[f][t] = o.seek_id;
            landed[f][t] = o.landed_stream_pts;
        }
    }
    CHECK_EQ(proc_threads("fpx-worker"), 0); /* no job ran: every landing was the caller's */
    for (f = 0; f < 4; f++) {
        int n = files[f] ? 3 : 1, i;
        /* One on_seek_accuracy per seek, in issue order, on the delivery thread. */
        if (!CHECK_EQ(rec_wait(&rs[f], n, 10000), n))
            continue;
        pthread_mutex_lock(&rs[f].mu);
        CHECK_EQ(rs[f].n, n);
        for (i = 0; i < n && i < rs[f].n; i++) {
            CHECK_EQ(rs[f].ev[i].kind, EV_ACCURACY);
            CHECK_EQ(rs[f].ev[i].seek_id, ids[f][i]);
            CHECK_EQ(rs[f].ev[i].landed_pts, landed[f][i]);
            CHECK(rs[f].ev[i].on_events_thread);
            CHECK(!pthread_equal(rs[f].ev[i].thread, pthread_self()));
        }
        pthread_mutex_unlock(&rs[f].mu);
    }
    /* The packets after the last landing hold the landed frame. */
    for (f = 0; f < 4; f++) {
        int n = files[f] ? 3 : 1, k, found = 0;
        fpx_item_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (!CHECK_OK(fpx_player_item_info(ps[f], &info)))
            continue;
        for (k = 0; k < 4000 && !found; k++) {
            fpx_packet pk;
            memset(&pk, 0, sizeof pk);
            pk.struct_size = sizeof pk;
            if (fpx_player_read_packet(ps[f], &pk) != FPX_OK)
                break;
            found = pk.stream_index == info.reference_stream && pk.pts == landed[f][n - 1];
        }
        CHECK(found);
        read_packets += found;
    }
    for (f = 0; f < 4; f++) {
        fpx_player_destroy(ps[f]);
        rec_free(&rs[f]);
        if (files[f])
            gt_free(&gts[f]);
    }
    NOTE("landed on the calling thread on 4 files; the landed frame read back on %d", read_packets);
}

/* ---- 2. host delivery ---------------------------------------------------------------- */

static void host_delivery(void)
{
    fpx_player *p;
    recorder r;
    fpx_seek_outcome a, b;
    int dispatched = 0;
    SECTION("host delivery: the events wait for the next dispatch, in order");
    rec_init(&r);
    p = open_player(FPX_DELIVERY_HOST, fixture("mkv.mkv"));
    REQUIRE(p != NULL);
    add_recorder(p, &r);
    fpx_player_dispatch_events(p, NULL); /* the open's status events */
    REQUIRE(wait_no_worker());
    CHECK_OK(seek_wait_ms(p, 99000, 20000, &a)); /* past the end: clamped */
    CHECK_OK(seek_wait_ms(p, 5300, 20000, &b));
    CHECK_EQ(a.finished, 1);
    CHECK_EQ(b.finished, 1);
    CHECK(a.clamp.kind != FPX_CLAMP_NONE);
    CHECK_EQ(proc_threads("fpx-worker"), 0);
    sleep_ms(50);
    CHECK_EQ(rec_count(&r), 0); /* nothing runs without a dispatch */
    CHECK_OK(fpx_player_dispatch_events(p, &dispatched));
    pthread_mutex_lock(&r.mu);
    if (CHECK_EQ(r.n, 3)) {
        CHECK_EQ(r.ev[0].kind, EV_CLAMPED);
        CHECK_EQ(r.ev[0].seek_id, a.seek_id);
        CHECK_EQ(r.ev[1].kind, EV_ACCURACY);
        CHECK_EQ(r.ev[1].seek_id, a.seek_id);
        CHECK_EQ(r.ev[2].kind, EV_ACCURACY);
        CHECK_EQ(r.ev[2].seek_id, b.seek_id);
        CHECK_EQ(r.ev[2].landed_pts, b.landed_stream_pts);
        CHECK(pthread_equal(r.ev[0].thread, pthread_self()) && pthread_equal(r.ev[2].thread, pthread_self()));
    }
    pthread_mutex_unlock(&r.mu);
    fpx_player_destroy(p);
    rec_free(&r);
}

/* ---- 3, 4. cancel, destroy and the timeout while landing on the calling thread -------- */

typedef struct racer {
    fpx_player *p;
    volatile int go;
    int action; /* 0 cancel, 1 destroy, 2 seek */
    long delay_ms;
    uint64_t cancelled;
    int rc;
    uint64_t seek_id;
    recorder *rec;
    pthread_t thread;
} racer;

static void *racer_main(void *arg)
{
    racer *x = arg;
    while (!flag_get(&x->go))
        sleep_ms(1);
    sleep_ms(x->delay_ms);
    if (x->action == 0)
        x->rc = fpx_player_cancel_pending_seeks(x->p, &x->cancelled);
    else if (x->action == 1)
        x->rc = fpx_player_destroy(x->p);
    else
        x->rc = fpx_player_seek(x->p, fpx_time_make(LONG_OTHER_MS, 1000), fpx_precision_exact(), on_completion,
                                x->rec, &x->seek_id);
    return NULL;
}

static void racer_start(racer *x, fpx_player *p, int action, recorder *rec)
{
    memset(x, 0, sizeof *x);
    x->p = p;
    x->action = action;
    x->delay_ms = 3; /* a landing in the long GOP takes longer (ms) */
    x->rec = rec;
    REQUIRE(pthread_create(&x->thread, NULL, racer_main, x) == 0);
}

/* A seek_wait to LONG_TARGET_MS on p while another thread does `action` 3 ms after the
 * call starts (the racer joined on return). Returns the seek_wait's result. */
static int race_seek_wait(racer *x, fpx_player *p, int action, recorder *rec, fpx_seek_outcome *o)
{
    int rc;
    racer_start(x, p, action, rec);
    flag_set(&x->go, 1);
    rc = seek_wait_ms(p, LONG_TARGET_MS, 20000, o);
    pthread_join(x->thread, NULL);
    return rc;
}

#define ROUNDS 3

static void cancel_destroy_timeout(void)
{
    fpx_player *cp[ROUNDS], *dp[ROUNDS], *tp;
    recorder cr[ROUNDS], dr[ROUNDS], tr;
    int i, cancelled = 0, destroyed = 0;
    int64_t truth;
    SECTION("cancel and destroy from another thread while landing on the calling thread");
    for (i = 0; i < ROUNDS; i++) {
        rec_init(&cr[i]);
        rec_init(&dr[i]);
        cp[i] = open_player(FPX_DELIVERY_THREAD, longgop);
        dp[i] = open_player(FPX_DELIVERY_THREAD, longgop);
        REQUIRE(cp[i] != NULL && dp[i] != NULL);
        add_recorder(cp[i], &cr[i]);
        add_recorder(dp[i], &dr[i]);
    }
    rec_init(&tr);
    tp = open_player(FPX_DELIVERY_THREAD, longgop);
    REQUIRE(tp != NULL);
    add_recorder(tp, &tr);
    truth = truth_exact(&gt_long, tp, LONG_TARGET_MS);
    REQUIRE(wait_no_worker());
    for (i = 0; i < ROUNDS; i++) {
        racer x;
        fpx_seek_outcome o;
        CHECK_OK(race_seek_wait(&x, cp[i], 0, NULL, &o));
        CHECK_OK(x.rc);
        if (o.reason == FPX_FINISH_CANCELLED) {
            cancelled++;
            CHECK_EQ(x.cancelled, 1);
            CHECK_EQ(o.finished, 0);
        } else {
            /* The landing ended before the cancel: nothing was pending to cancel. */
            CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
            CHECK_EQ(x.cancelled, 0);
            CHECK_EQ(o.landed_stream_pts, truth);
        }
        /* The engine lands again after the interrupted landing. */
        CHECK_OK(seek_wait_ms(cp[i], LONG_TARGET_MS, 20000, &o));
        CHECK_EQ(o.finished, 1);
        CHECK_EQ(o.landed_stream_pts, truth);
    }
    for (i = 0; i < ROUNDS; i++) {
        racer x;
        fpx_seek_outcome o;
        int rc = race_seek_wait(&x, dp[i], 1, NULL, &o);
        CHECK_OK(x.rc);
        /* The handle dies with the destroy: a seek_wait that had not looked it up yet
         * finds it invalid (the 3 ms head start makes that rare). */
        if (rc == FPX_ERROR_INVALID_HANDLE) {
            NOTE("round %d: the destroy came before the seek_wait", i);
        } else if (CHECK_OK(rc)) {
            if (o.reason == FPX_FINISH_CANCELLED)
                destroyed++;
            else
                CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
        }
        /* destroy_notify ran before fpx_player_destroy returned, once, last. */
        pthread_mutex_lock(&dr[i].mu);
        CHECK(dr[i].n >= 1 && dr[i].ev[dr[i].n - 1].kind == EV_REMOVED);
        pthread_mutex_unlock(&dr[i].mu);
    }
    CHECK(cancelled >= 1);
    CHECK(destroyed >= 1);
    NOTE("%d of %d landings cancelled, %d of %d ended by destroy", cancelled, ROUNDS, destroyed, ROUNDS);
    /* No job ran: every one of those landings was the caller's. */
    CHECK_EQ(proc_threads("fpx-worker"), 0);

    SECTION("the timeout while landing on the calling thread: handed to the worker");
    {
        fpx_seek_outcome o, before;
        uint64_t t0, took;
        int rc, n;
        memset(&o, 0x5a, sizeof o);
        o.struct_size = sizeof o;
        before = o;
        t0 = now_ns();
        rc = fpx_player_seek_wait(tp, fpx_time_make(LONG_TARGET_MS, 1000), fpx_precision_exact(), 1, &o);
        took = now_ns() - t0;
        CHECK_ERR(rc, FPX_ERROR_TIMEOUT);
        CHECK(memcmp(&o, &before, sizeof o) == 0); /* *out untouched */
        /* 1 ms, and a margin for a loaded machine or a sanitizer: far below the landing. */
        if (!CHECK(took < 250000000u))
            NOTE("returned after %.1f ms", (double)took / 1e6);
        /* It completes later, through the listener, on the worker. */
        n = rec_wait(&tr, 1, 20000);
        pthread_mutex_lock(&tr.mu);
        if (CHECK_EQ(n, 1)) {
            CHECK_EQ(tr.ev[0].kind, EV_ACCURACY);
            CHECK_EQ(tr.ev[0].finished, 1);
            CHECK_EQ(tr.ev[0].landed_pts, truth);
        }
        pthread_mutex_unlock(&tr.mu);
        CHECK(proc_threads("fpx-worker") >= 1);
        NOTE("timed out after %.2f ms", (double)took / 1e6);
    }
    for (i = 0; i < ROUNDS; i++) {
        fpx_player_destroy(cp[i]);
        rec_free(&cr[i]);
        rec_free(&dr[i]);
    }
    fpx_player_destroy(tp);
    rec_free(&tr);
}

/* ---- 5. a seek queued: the wait goes to the worker ----------------------------------- */

static void queued_falls_back(void)
{
    int i;
    SECTION("a seek queued: the seek_wait goes to the worker, after it");
    for (i = 0; i < ROUNDS; i++) {
        recorder r;
        fpx_player *p;
        fpx_seek_outcome o;
        uint64_t first = 0;
        int n;
        rec_init(&r);
        p = open_player(FPX_DELIVERY_THREAD, longgop);
        REQUIRE(p != NULL);
        CHECK_OK(fpx_player_seek(p, fpx_time_make(LONG_TARGET_MS, 1000), fpx_precision_exact(), on_completion, &r,
                                 &first));
        CHECK_OK(seek_wait_ms(p, LONG_OTHER_MS, 20000, &o));
        CHECK_EQ(o.finished, 1);
        CHECK_EQ(o.landed_stream_pts, truth_exact(&gt_long, p, LONG_OTHER_MS));
        CHECK(o.seek_id > first);
        n = rec_wait(&r, 1, 10000);
        pthread_mutex_lock(&r.mu);
        if (CHECK_EQ(n, 1)) {
            CHECK_EQ(r.ev[0].seek_id, first);
            CHECK_EQ(r.ev[0].reason, FPX_FINISH_SUPERSEDED);
        }
        pthread_mutex_unlock(&r.mu);
        fpx_player_destroy(p);
        rec_free(&r);
    }
}

/* ---- 6. a superseding fpx_player_seek from another thread ---------------------------- */

static void superseded_inline(void)
{
    int i, superseded = 0;
    SECTION("a seek from another thread supersedes the landing on the calling thread");
    for (i = 0; i < ROUNDS; i++) {
        recorder r;
        fpx_player *p;
        fpx_seek_outcome o;
        racer x;
        int n;
        rec_init(&r);
        p = open_player(FPX_DELIVERY_THREAD, longgop);
        REQUIRE(p != NULL);
        add_recorder(p, &r);
        CHECK_OK(race_seek_wait(&x, p, 2, &r, &o));
        CHECK_OK(x.rc);
        /* The new seek: one on_seek_accuracy, then its completion, on its frame; the
         * seek_wait's seek has an accuracy event only if it landed first. */
        n = rec_wait(&r, o.finished ? 3 : 2, 20000);
        if (o.reason == FPX_FINISH_SUPERSEDED) {
            superseded++;
            CHECK_EQ(o.finished, 0);
            CHECK(o.seek_id < x.seek_id);
        } else {
            CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
        }
        pthread_mutex_lock(&r.mu);
        if (CHECK_EQ(n, o.finished ? 3 : 2)) {
            int k = o.finished ? 1 : 0;
            if (o.finished)
                CHECK_EQ(r.ev[0].seek_id, o.seek_id); /* completions keep the order of issue */
            CHECK_EQ(r.ev[k].kind, EV_ACCURACY);
            CHECK_EQ(r.ev[k].seek_id, x.seek_id);
            CHECK_EQ(r.ev[k + 1].kind, EV_COMPLETION);
            CHECK_EQ(r.ev[k + 1].seek_id, x.seek_id);
            CHECK_EQ(r.ev[k + 1].finished, 1);
            CHECK_EQ(r.ev[k + 1].landed_pts, truth_exact(&gt_long, p, LONG_OTHER_MS));
        }
        pthread_mutex_unlock(&r.mu);
        sleep_ms(50);
        CHECK_EQ(rec_count(&r), n); /* exactly once */
        fpx_player_destroy(p);
        rec_free(&r);
    }
    CHECK(superseded >= 1);
    NOTE("%d of %d landings superseded", superseded, ROUNDS);
}

int main(int argc, char **argv)
{
    char dir[1024], cmd[2048];
    check_init(argc, argv, 600);
    /* 120 s of 640x360 in one GOP: a landing near the end reads about 3,000 packets (several ms
     * even on a fast machine, so the racers act 3 ms in while it runs). */
    snprintf(dir, sizeof dir, "%s/fpx-inline-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(longgop, sizeof longgop, "%s/longgop.mp4", dir);
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=640x360:rate=25 -t 120 -c:v libx264 "
             "-preset ultrafast -g 3000 -keyint_min 3000 -sc_threshold 0 -pix_fmt yuv420p '%s' >/dev/null 2>&1",
             longgop);
    REQUIRE(system(cmd) == 0);
    REQUIRE(gt_load(&gt_long, longgop) > 2900);

    idle_inline();
    host_delivery();
    cancel_destroy_timeout();
    queued_falls_back();
    superseded_inline();

    gt_free(&gt_long);
    remove(longgop);
    rmdir(dir);
    return check_summary();
}
