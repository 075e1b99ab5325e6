/*
 * index_bench -- FPX_INDEX_FULL: how long the background index takes, what it holds, and
 * what later seeks cost once it is complete (see bench.py).
 *
 *   index_bench FILE
 *     Index only: a FPX_INDEX_FULL player opens FILE and waits for on_index_complete.
 *     Prints one line "#summary ready_ms=.. index_ms=.. open_to_index_ms=.. frames=..
 *     complete=.. index_packets=..": ready_ms = open to READY (the earlier of the
 *     on_item_status(READY) callback and fpx_player_wait_item's return), index_ms = READY to
 *     on_index_complete (the background index build: it opens its own demux context and
 *     reads every video packet once), open_to_index_ms = open to on_index_complete,
 *     frames = index_frames, index_packets = packets_demuxed growth after wait_item returned
 *     (a lower bound: packets the index read before that are not counted).
 *   index_bench FILE TARGETS N TOL_NUM TOL_DEN
 *     As above, then for the first N targets of TARGETS ("SEGMENT TICKS" lines, absolute
 *     pts in the video stream's time base; the segment is ignored), in order, four seeks each:
 *       full-exact   the FULL player, fpx_precision_exact()
 *       full-default the FULL player, fpx_precision_default() (nearest keyframe, 1/10 s)
 *       full-key     the FULL player, nearest keyframe with tolerance TOL_NUM/TOL_DEN s
 *       kf-exact     a FPX_INDEX_KEYFRAMES player (one player, so its grid warms as its
 *                    seeks read), fpx_precision_exact()
 *       host-exact, host-default, host-key
 *                    as full-*, on a second FULL player with FPX_DELIVERY_HOST: this thread
 *                    waits on fpx_player_event_fd() (poll) and calls
 *                    fpx_player_dispatch_events() until the callback has run, as an
 *                    event-loop host does, so no thread hand-off is timed
 *     each timed from just before fpx_player_seek() to the entry of its completion callback
 *     (full-* and kf-exact: FPX_DELIVERY_THREAD; one seek at a time), like fpx_bench.c. Prints the summary line,
 *     then "kind,idx,target,landed,ns,latency_ns,packets,resolution" per seek (landed =
 *     landed_stream_pts). The driver checks every landing against ffprobe. Exits 1 when
 *     full-exact and kf-exact land differently.
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -O2 -IInclude Benchmarks/index_bench.c
 *        -Lbuild/lib -lfastpixseek -pthread
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* not every helper of the shared header is used here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "bench_common.h"

#include <fastpix/seek.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int index_done;
static uint64_t index_done_at, ready_cb_at;

typedef struct waiter {
    int done;
    uint64_t t_callback;
    fpx_seek_outcome outcome;
} waiter;

typedef struct bench_player {
    fpx_player *player;
    int64_t start_pts;
    int32_t tb_num, tb_den;
    int host; /* FPX_DELIVERY_HOST: seek_wait dispatches the events itself */
} bench_player;

static void check(int err, const char *what)
{
    if (err != FPX_OK) {
        fprintf(stderr, "index_bench: %s: %s (%s)\n", what, fpx_error_name(err),
                fpx_error_string(err));
        exit(2);
    }
}

static void on_complete(uint64_t frames, void *ud)
{
    (void)frames;
    (void)ud;
    pthread_mutex_lock(&mu);
    index_done = 1;
    index_done_at = now_ns();
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void on_status(const fpx_item_status_info *status, void *ud)
{
    uint64_t t = now_ns();
    (void)ud;
    pthread_mutex_lock(&mu);
    if (status->status == FPX_ITEM_READY && !ready_cb_at)
        ready_cb_at = t;
    pthread_mutex_unlock(&mu);
}

static void on_seek_done(const fpx_seek_outcome *outcome, void *userdata)
{
    uint64_t t = now_ns();
    waiter *w = userdata;
    size_t size = outcome->struct_size < sizeof w->outcome ? outcome->struct_size
                                                            : sizeof w->outcome;
    pthread_mutex_lock(&mu);
    w->t_callback = t;
    memset(&w->outcome, 0, sizeof w->outcome);
    memcpy(&w->outcome, outcome, size);
    w->done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void make_with(bench_player *bp, fpx_index_mode mode, fpx_delivery_mode delivery)
{
    fpx_player_config cfg;
    fpx_player_config_init(&cfg);
    cfg.delivery = delivery;
    cfg.index_mode = mode;
    cfg.io_timeout_ms = 60000;
    memset(bp, 0, sizeof *bp);
    bp->host = delivery == FPX_DELIVERY_HOST;
    check(fpx_player_create(&cfg, &bp->player), "fpx_player_create");
}

static void make(bench_player *bp, fpx_index_mode mode)
{
    make_with(bp, mode, FPX_DELIVERY_THREAD);
}

static void item_info(bench_player *bp)
{
    fpx_item_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    check(fpx_player_item_info(bp->player, &info), "fpx_player_item_info");
    bp->start_pts = info.start_pts;
    bp->tb_num = info.time_base_num;
    bp->tb_den = info.time_base_den;
}

static fpx_player_stats stats(const bench_player *bp)
{
    fpx_player_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    check(fpx_player_stats_get(bp->player, &s), "fpx_player_stats_get");
    return s;
}

/* FPX_DELIVERY_HOST: runs the player's events on this thread until `w` is done, waiting on
 * the event fd between dispatches (the callback runs inside fpx_player_dispatch_events). */
static void dispatch_until_done(bench_player *bp, waiter *w)
{
    int fd = -1;
    check(fpx_player_event_fd(bp->player, &fd), "fpx_player_event_fd");
    for (;;) {
        pthread_mutex_lock(&mu);
        int done = w->done;
        pthread_mutex_unlock(&mu);
        if (done)
            return;
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, 60000) <= 0) {
            fprintf(stderr, "index_bench: no event within 60 s\n");
            exit(2);
        }
        check(fpx_player_dispatch_events(bp->player, NULL), "fpx_player_dispatch_events");
    }
}

/* Seeks to an absolute stream pts and waits; returns the time from the call to the
 * callback's entry. */
static uint64_t seek_wait(bench_player *bp, waiter *w, int64_t ticks, fpx_precision prec)
{
    uint64_t t0;
    w->done = 0;
    t0 = now_ns();
    check(fpx_player_seek(bp->player,
                          fpx_time_make((ticks - bp->start_pts) * bp->tb_num, bp->tb_den), prec,
                          on_seek_done, w, NULL),
          "fpx_player_seek");
    if (bp->host) {
        dispatch_until_done(bp, w);
    } else {
        pthread_mutex_lock(&mu);
        while (!w->done)
            pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
    }
    if (!w->outcome.finished) {
        fprintf(stderr, "index_bench: seek to %" PRId64 " did not finish: %s (%s)\n", ticks,
                fpx_finish_reason_name(w->outcome.reason), fpx_error_name(w->outcome.error));
        exit(2);
    }
    return w->t_callback - t0;
}

int main(int argc, char **argv)
{
    bench_player full, keys, host;
    fpx_item_status_info st = {.struct_size = sizeof st}; /* output structs: set struct_size */
    fpx_listener l;
    target *tg = NULL;
    size_t n = 0, i;
    int64_t tol_num = 5, tol_den = 1;
    int bad = 0;
    if (argc != 2 && argc != 6) {
        fprintf(stderr, "usage: index_bench FILE [TARGETS N TOL_NUM TOL_DEN]\n");
        return 64;
    }
    if (argc == 6) {
        size_t limit = (size_t)strtoul(argv[3], NULL, 10);
        tg = read_targets("index_bench", argv[2], &n);
        if (limit < n)
            n = limit;
        tol_num = strtoll(argv[4], NULL, 10);
        tol_den = strtoll(argv[5], NULL, 10);
    }
    make(&full, FPX_INDEX_FULL);
    fpx_listener_init(&l);
    l.on_index_complete = on_complete;
    l.on_item_status = on_status;
    check(fpx_player_add_listener(full.player, &l, NULL), "fpx_player_add_listener");
    uint64_t t0 = now_ns();
    check(fpx_player_open(full.player, argv[1]), "fpx_player_open");
    check(fpx_player_wait_item(full.player, 60000, &st), "fpx_player_wait_item");
    if (st.status != FPX_ITEM_READY) {
        fprintf(stderr, "index_bench: %s: item not READY\n", argv[1]);
        return 2;
    }
    uint64_t ready = now_ns();
    uint64_t before = stats(&full).packets_demuxed;
    pthread_mutex_lock(&mu);
    while (!index_done)
        pthread_cond_wait(&cv, &mu);
    /* READY as the status listener saw it, or wait_item's return when that came first; on
     * a tiny file the index can complete before either, and index_ms is then 0 */
    uint64_t ready_at = ready_cb_at && ready_cb_at < ready ? ready_cb_at : ready;
    uint64_t done_at = index_done_at > ready_at ? index_done_at : ready_at;
    pthread_mutex_unlock(&mu);
    fpx_player_stats s = stats(&full);
    printf("#summary ready_ms=%.3f index_ms=%.3f open_to_index_ms=%.3f frames=%" PRIu64
           " complete=%d index_packets=%" PRIu64 "\n",
           (double)(ready_at - t0) / 1e6, (double)(done_at - ready_at) / 1e6,
           (double)(done_at - t0) / 1e6, s.index_frames, s.index_complete,
           s.packets_demuxed - before);
    if (tg) {
        enum { KINDS = 7 };
        static const char *kinds[KINDS] = {"full-exact", "full-default", "full-key", "kf-exact",
                                           "host-exact", "host-default", "host-key"};
        fpx_precision prec[KINDS];
        bench_player *who[KINDS] = {&full, &full, &full, &keys, &host, &host, &host};
        waiter w;
        memset(&w, 0, sizeof w);
        prec[0] = fpx_precision_exact();
        prec[1] = fpx_precision_default();
        prec[2] = fpx_precision_nearest_keyframe(fpx_time_make(tol_num, (int32_t)tol_den));
        prec[3] = fpx_precision_exact();
        prec[4] = prec[0];
        prec[5] = prec[1];
        prec[6] = prec[2];
        check(fpx_player_setup_seek_manager(full.player), "fpx_player_setup_seek_manager");
        item_info(&full);
        make(&keys, FPX_INDEX_KEYFRAMES);
        check(fpx_player_open(keys.player, argv[1]), "fpx_player_open");
        check(fpx_player_wait_item(keys.player, 60000, NULL), "fpx_player_wait_item");
        check(fpx_player_setup_seek_manager(keys.player), "fpx_player_setup_seek_manager");
        item_info(&keys);
        /* the HOST player: FULL too, its index complete before its seeks */
        make_with(&host, FPX_INDEX_FULL, FPX_DELIVERY_HOST);
        check(fpx_player_open(host.player, argv[1]), "fpx_player_open");
        check(fpx_player_wait_item(host.player, 60000, NULL), "fpx_player_wait_item");
        for (;;) {
            fpx_player_stats hs = stats(&host);
            if (hs.index_complete)
                break;
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        check(fpx_player_setup_seek_manager(host.player), "fpx_player_setup_seek_manager");
        item_info(&host);
        check(fpx_player_dispatch_events(host.player, NULL), "fpx_player_dispatch_events");
        printf("kind,idx,target,landed,ns,latency_ns,packets,resolution\n");
        for (i = 0; i < n; i++) {
            int64_t landed[KINDS];
            for (int k = 0; k < KINDS; k++) {
                uint64_t ns = seek_wait(who[k], &w, tg[i].ticks, prec[k]);
                landed[k] = w.outcome.landed_stream_pts;
                printf("%s,%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
                       kinds[k], i, tg[i].ticks, landed[k], ns, w.outcome.latency_ns,
                       w.outcome.packets_read, (int)w.outcome.resolution);
            }
            if (landed[0] != landed[3]) {
                fprintf(stderr, "index_bench: target %" PRId64 ": FULL %" PRId64
                        ", KEYFRAMES %" PRId64 "\n", tg[i].ticks, landed[0], landed[3]);
                bad = 1;
            }
        }
        check(fpx_player_destroy(keys.player), "fpx_player_destroy");
        check(fpx_player_destroy(host.player), "fpx_player_destroy");
        free(tg);
    }
    check(fpx_player_destroy(full.player), "fpx_player_destroy");
    return bad;
}
