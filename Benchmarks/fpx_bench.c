/*
 * fpx_bench.c -- FastPixSeek through its C API, for the benchmarks (see bench.py).
 *
 * Players use FPX_DELIVERY_THREAD. A seek is timed from just before fpx_player_seek() to the
 * entry of its completion callback (CLOCK_MONOTONIC); the main thread waits on a condvar and
 * issues the next seek only after the previous one completed, so nothing is superseded.
 *
 * Usage:
 *   fpx_bench seek FILE TARGETS MODE PASSES REOPEN [TOL_NUM TOL_DEN]
 *       MODE   exact | key | exact-wait (key: FPX_PRECISION_NEAREST_KEYFRAME, tolerance
 *              TOL_NUM/TOL_DEN s, default 5/1; exact-wait: exact, with fpx_player_seek_wait,
 *              timed from the call to its return, which lands on the calling thread when
 *              the player is idle)
 *       PASSES how many times the whole target list is run on the player.
 *       REOPEN 1: destroy the player and create a new one whenever the target's segment
 *              number changes (cold protocol; opening is never timed), 0: one player.
 *     Prints "pass,idx,target,landed,ns,latency_ns,cb_delay_ns,packets,covers,resolution,
 *     is_key,demuxed" per seek: landed is landed_stream_pts; latency_ns the outcome's;
 *     cb_delay_ns = (callback entry, or the return of exact-wait, - seek call) - latency_ns; packets the outcome's
 *     packets_read; demuxed the growth of fpx_player_stats.packets_demuxed across the seek
 *     (read outside the timed interval).
 *   fpx_bench scrub FILE N
 *     N fpx_scrub_update calls, each timed alone, then N more timed as one batch.
 *     Prints "calls,median_ns,p95_ns,mean_ns_batch,timer_overhead_ns".
 *   fpx_bench preview FILE SHEET N
 *     Seek previews against the scrub session they serve: N fpx_scrub_update calls, then
 *     the load of SHEET (a spritesheet.json, fpx_player_set_preview_source), N
 *     fpx_player_preview calls on it, and 200 on the keyframe index (its own demuxer, opened
 *     by the first), each call timed alone, along the same drag. Prints
 *     "kind,calls,median_ns,p95_ns,first_ns" per kind (scrub_update, sheet_load, sheet,
 *     keyframe).
 *   fpx_bench step FILE TICKS COUNT
 *     Exact seek to TICKS (cold player), then COUNT fpx_player_step_frame(BACKWARD).
 *     Prints "step,landed,ns,packets_read" per step (step 0 = the seek), then a summary line
 *     "#summary,seek_packets_demuxed,step_packets_demuxed,step_total_ns".
 *   fpx_bench open FILE [TARGETS|-] [off|keyframes|full]
 *     fpx_player_create + fpx_player_open + fpx_player_wait_item(READY), timed; ru_maxrss
 *     before and after; with TARGETS (not "-"), one exact pass and ru_maxrss after it. The
 *     last argument is the player's index_mode (default: the library's default,
 *     FPX_INDEX_KEYFRAMES); with full, READY is what is timed, not the background index.
 *     Runs in a forked child, so that ru_maxrss counts this measurement only (Linux carries
 *     ru_maxrss across execve from whatever process started us).
 *     Prints "open_ns,create_ns,rss_start_kb,rss_open_kb,rss_seeks_kb,hwm_open_kb,
 *     hwm_seeks_kb" (ru_maxrss, and VmHWM from /proc/self/status as a cross-check).
 *
 *   fpx_bench throughput FILE TARGETS PLAYERS THREADS SEEKS
 *     PLAYERS players of FILE (FPX_DELIVERY_THREAD), shared by THREADS host threads, SEEKS
 *     exact seeks in all, each with fpx_player_seek_wait (the schedule and the output of
 *     bench_threads.h, the same as av_bench's).
 *
 * TARGETS: '#' lines are comments, other lines "SEGMENT TICKS", TICKS an absolute pts in the
 * reference stream's time base. The item timeline starts at fpx_item_info.start_pts, so a
 * target is passed as (TICKS - start_pts) * time_base.
 *
 * Build: cc -std=c99 -Wall -Wextra -O2 -I../Include fpx_bench.c -L<lib> -lfastpixseek -pthread
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_threads.h"

#include <fastpix/seek.h>

typedef struct waiter {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    uint64_t t_callback;
    fpx_seek_outcome outcome;
} waiter;

typedef struct bench_player {
    fpx_player *player;
    int64_t start_pts;
    int32_t tb_num, tb_den;
} bench_player;





static void check(int err, const char *what)
{
    if (err != FPX_OK) {
        fprintf(stderr, "fpx_bench: %s: %s (%s)\n", what, fpx_error_name(err),
                fpx_error_string(err));
        exit(2);
    }
}

static void on_seek_done(const fpx_seek_outcome *outcome, void *userdata)
{
    uint64_t t = now_ns();
    waiter *w = userdata;
    size_t size = outcome->struct_size < sizeof w->outcome ? outcome->struct_size
                                                            : sizeof w->outcome;
    pthread_mutex_lock(&w->mutex);
    w->t_callback = t;
    memset(&w->outcome, 0, sizeof w->outcome);
    memcpy(&w->outcome, outcome, size);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->mutex);
}

static void player_open(bench_player *bp, const char *path)
{
    fpx_player_config cfg;
    fpx_item_info info = {.struct_size = sizeof(fpx_item_info)};
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_THREAD;
    check(fpx_player_create(&cfg, &bp->player), "fpx_player_create");
    check(fpx_player_open(bp->player, path), "fpx_player_open");
    check(fpx_player_wait_item(bp->player, 60000, NULL), "fpx_player_wait_item");
    check(fpx_player_setup_seek_manager(bp->player), "fpx_player_setup_seek_manager");
    memset(&info, 0, sizeof info); info.struct_size = sizeof info;
    info.struct_size = sizeof info;
    check(fpx_player_item_info(bp->player, &info), "fpx_player_item_info");
    bp->start_pts = info.start_pts;
    bp->tb_num = info.time_base_num;
    bp->tb_den = info.time_base_den;
}

static void player_close(bench_player *bp)
{
    check(fpx_player_destroy(bp->player), "fpx_player_destroy");
    bp->player = NULL;
}

/* An absolute stream pts as a time on the item timeline. */
static fpx_time item_time(const bench_player *bp, int64_t ticks)
{
    return fpx_time_make((ticks - bp->start_pts) * bp->tb_num, bp->tb_den);
}

/* Seeks and waits; returns the wall time from the call to the callback's entry. */
static uint64_t seek_wait(bench_player *bp, waiter *w, int64_t ticks, fpx_precision prec)
{
    uint64_t t0;
    w->done = 0;
    t0 = now_ns();
    check(fpx_player_seek(bp->player, item_time(bp, ticks), prec, on_seek_done, w, NULL),
          "fpx_player_seek");
    pthread_mutex_lock(&w->mutex);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->mutex);
    pthread_mutex_unlock(&w->mutex);
    if (!w->outcome.finished) {
        fprintf(stderr, "fpx_bench: seek to %" PRId64 " did not finish: %s (%s)\n", ticks,
                fpx_finish_reason_name(w->outcome.reason), fpx_error_name(w->outcome.error));
        exit(2);
    }
    return w->t_callback - t0;
}

/* fpx_player_seek_wait; returns the wall time of the call (the outcome into w->outcome). */
static uint64_t seek_block(bench_player *bp, waiter *w, int64_t ticks, fpx_precision prec)
{
    uint64_t t0, t1;
    memset(&w->outcome, 0, sizeof w->outcome);
    w->outcome.struct_size = sizeof w->outcome;
    t0 = now_ns();
    check(fpx_player_seek_wait(bp->player, item_time(bp, ticks), prec, 60000, &w->outcome),
          "fpx_player_seek_wait");
    t1 = now_ns();
    if (!w->outcome.finished) {
        fprintf(stderr, "fpx_bench: seek to %" PRId64 " did not finish: %s (%s)\n", ticks,
                fpx_finish_reason_name(w->outcome.reason), fpx_error_name(w->outcome.error));
        exit(2);
    }
    return t1 - t0;
}

static void stats_get(const bench_player *bp, fpx_player_stats *st)
{
    memset(st, 0, sizeof *st);
    st->struct_size = sizeof *st;
    check(fpx_player_stats_get(bp->player, st), "fpx_player_stats_get");
}

static void waiter_init(waiter *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->cond, NULL);
}

static int cmd_seek(int argc, char **argv)
{
    const char *path;
    target *t;
    size_t n, i;
    int passes, reopen, pass, keys, block;
    int64_t tol_num = 5, tol_den = 1;
    fpx_precision prec;
    bench_player bp;
    waiter w;
    long seg = -1;
    if (argc != 7 && argc != 9) {
        fprintf(stderr, "usage: fpx_bench seek FILE TARGETS exact|key|exact-wait PASSES REOPEN "
                        "[TOL_NUM TOL_DEN]\n");
        return 2;
    }
    path = argv[2];
    t = read_targets("fpx_bench", argv[3], &n);
    keys = strcmp(argv[4], "key") == 0;
    block = strcmp(argv[4], "exact-wait") == 0;
    if (!keys && !block && strcmp(argv[4], "exact") != 0) {
        fprintf(stderr, "fpx_bench: unknown mode %s\n", argv[4]);
        return 2;
    }
    passes = atoi(argv[5]);
    reopen = atoi(argv[6]);
    if (argc == 9) {
        tol_num = strtoll(argv[7], NULL, 10);
        tol_den = strtoll(argv[8], NULL, 10);
    }
    prec = keys ? fpx_precision_nearest_keyframe(fpx_time_make(tol_num, (int32_t)tol_den))
                : fpx_precision_exact();
    waiter_init(&w);
    player_open(&bp, path);
    printf("pass,idx,target,landed,ns,latency_ns,cb_delay_ns,packets,covers,resolution,"
           "is_key,demuxed\n");
    for (pass = 0; pass < passes; pass++) {
        for (i = 0; i < n; i++) {
            uint64_t ns;
            fpx_player_stats st0 = {.struct_size = sizeof(fpx_player_stats)}, st1 = {.struct_size = sizeof(fpx_player_stats)};
            if (reopen && pass == 0 && t[i].segment != seg && seg != -1) {
                player_close(&bp);
                player_open(&bp, path);
            }
            seg = t[i].segment;
            stats_get(&bp, &st0);
            ns = block ? seek_block(&bp, &w, t[i].ticks, prec) : seek_wait(&bp, &w, t[i].ticks, prec);
            stats_get(&bp, &st1);
            printf("%d,%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64
                   ",%" PRIu64 ",%d,%d,%d,%" PRIu64 "\n",
                   pass, i, t[i].ticks, w.outcome.landed_stream_pts, ns, w.outcome.latency_ns,
                   (int64_t)ns - (int64_t)w.outcome.latency_ns, w.outcome.packets_read,
                   w.outcome.frame_covers_target, (int)w.outcome.resolution,
                   w.outcome.landed_is_keyframe, st1.packets_demuxed - st0.packets_demuxed);
        }
    }
    player_close(&bp);
    free(t);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}


/* Begins a drag on `s` and times each of `n` fpx_scrub_update calls alone into v[]: one
   30000/1001 fps frame per call, over the first `span` frames and round again. */
static void time_scrub_updates(fpx_scrub_session *s, uint64_t *v, long n, long span)
{
    long i;
    check(fpx_scrub_begin(s, fpx_time_make(0, 30000)), "fpx_scrub_begin");
    for (i = 0; i < n; i++) {
        fpx_time to = fpx_time_make((int64_t)(i % span) * 1001, 30000);
        uint64_t t0 = now_ns();
        int err = fpx_scrub_update(s, to);
        uint64_t t1 = now_ns();
        check(err, "fpx_scrub_update");
        v[i] = t1 - t0;
    }
}

static int cmd_scrub(int argc, char **argv)
{
    bench_player bp;
    fpx_scrub_session *s;
    long n, i;
    uint64_t *v, t0, t1, overhead;
    if (argc != 4) {
        fprintf(stderr, "usage: fpx_bench scrub FILE N\n");
        return 2;
    }
    n = atol(argv[3]);
    if (n < 1)
        return 2;
    v = malloc((size_t)n * sizeof *v);
    if (!v)
        return 2;
    player_open(&bp, argv[2]);
    check(fpx_player_scrub_session(bp.player, &s), "fpx_player_scrub_session");
    /* the cost of the timer pair itself */
    for (i = 0; i < n; i++) {
        t0 = now_ns();
        t1 = now_ns();
        v[i] = t1 - t0;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    overhead = v[n / 2];
    time_scrub_updates(s, v, n, 9000); /* a drag over the first ~5 minutes */
    t0 = now_ns();
    for (i = 0; i < n; i++)
        check(fpx_scrub_update(s, fpx_time_make((int64_t)(i % 9000) * 1001, 30000)),
              "fpx_scrub_update");
    t1 = now_ns();
    check(fpx_scrub_cancel(s), "fpx_scrub_cancel");
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    printf("calls,median_ns,p95_ns,mean_ns_batch,timer_overhead_ns\n");
    printf("%ld,%" PRIu64 ",%" PRIu64 ",%.1f,%" PRIu64 "\n", n, v[n / 2],
           v[(size_t)((double)n * 0.95)], (double)(t1 - t0) / (double)n, overhead);
    player_close(&bp);
    free(v);
    return 0;
}

/* Each call timed alone: median, p95 and the first one, as a CSV line. */
static void report(const char *kind, uint64_t *v, long n)
{
    uint64_t first = v[0];
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    printf("%s,%ld,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", kind, n, v[n / 2],
           v[(size_t)((double)n * 0.95)], first);
}

static int cmd_preview(int argc, char **argv)
{
    bench_player bp;
    fpx_scrub_session *s;
    fpx_preview pv;
    uint64_t *v, t0, t1;
    long n, i, k = 200;
    if (argc != 5) {
        fprintf(stderr, "usage: fpx_bench preview FILE SHEET N\n");
        return 2;
    }
    n = atol(argv[4]);
    if (n < 1)
        return 2;
    v = malloc((size_t)(n > k ? n : k) * sizeof *v);
    if (!v)
        return 2;
    player_open(&bp, argv[2]);
    check(fpx_player_scrub_session(bp.player, &s), "fpx_player_scrub_session");
    time_scrub_updates(s, v, n, 1800); /* a drag over the first minute */
    check(fpx_scrub_cancel(s), "fpx_scrub_cancel");
    printf("kind,calls,median_ns,p95_ns,first_ns\n");
    report("scrub_update", v, n);
    t0 = now_ns();
    check(fpx_player_set_preview_source(bp.player, FPX_PREVIEW_SPRITESHEET, argv[3], NULL),
          "fpx_player_set_preview_source");
    v[0] = now_ns() - t0;
    report("sheet_load", v, 1);
    for (i = 0; i < n; i++) {
        int err;
        pv.struct_size = sizeof pv;
        t0 = now_ns();
        err = fpx_player_preview(bp.player, fpx_time_make((int64_t)(i % 1800) * 1001, 30000), &pv);
        t1 = now_ns();
        check(err, "fpx_player_preview");
        v[i] = t1 - t0;
    }
    report("sheet", v, n);
    check(fpx_player_set_preview_source(bp.player, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL),
          "fpx_player_set_preview_source");
    for (i = 0; i < k; i++) {
        int err;
        pv.struct_size = sizeof pv;
        t0 = now_ns();
        err = fpx_player_preview(bp.player, fpx_time_make((int64_t)((i * 37) % 1800) * 1001, 30000), &pv);
        t1 = now_ns();
        check(err, "fpx_player_preview (keyframe index)");
        v[i] = t1 - t0;
    }
    report("keyframe", v, k);
    player_close(&bp);
    free(v);
    return 0;
}

static int cmd_step(int argc, char **argv)
{
    bench_player bp;
    waiter w;
    fpx_player_stats st0 = {.struct_size = sizeof(fpx_player_stats)}, st1 = {.struct_size = sizeof(fpx_player_stats)}, st2 = {.struct_size = sizeof(fpx_player_stats)};
    int64_t ticks;
    int count, i;
    uint64_t seek_ns, total = 0;
    if (argc != 5) {
        fprintf(stderr, "usage: fpx_bench step FILE TICKS COUNT\n");
        return 2;
    }
    ticks = strtoll(argv[3], NULL, 10);
    count = atoi(argv[4]);
    waiter_init(&w);
    player_open(&bp, argv[2]);
    memset(&st0, 0, sizeof st0); st0.struct_size = sizeof st0;
    st0.struct_size = sizeof st0;
    st1 = st0;
    st2 = st0;
    check(fpx_player_stats_get(bp.player, &st0), "fpx_player_stats_get");
    seek_ns = seek_wait(&bp, &w, ticks, fpx_precision_exact());
    check(fpx_player_stats_get(bp.player, &st1), "fpx_player_stats_get");
    printf("step,landed,ns,packets_read\n0,%" PRId64 ",%" PRIu64 ",%" PRIu64 "\n",
           w.outcome.landed_stream_pts, seek_ns, w.outcome.packets_read);
    for (i = 1; i <= count; i++) {
        fpx_frame_step_result r = {.struct_size = sizeof(fpx_frame_step_result)};
        uint64_t t0, t1;
        memset(&r, 0, sizeof r); r.struct_size = sizeof r;
        r.struct_size = sizeof r;
        t0 = now_ns();
        check(fpx_player_step_frame(bp.player, FPX_STEP_BACKWARD, 1, &r),
              "fpx_player_step_frame");
        t1 = now_ns();
        total += t1 - t0;
        if (!r.did_step) {
            fprintf(stderr, "fpx_bench: step %d refused: %s\n", i, r.explanation);
            exit(2);
        }
        printf("%d,%" PRId64 ",%" PRIu64 ",%" PRIu64 "\n", i, r.landed_stream_pts, t1 - t0,
               r.packets_read);
    }
    check(fpx_player_stats_get(bp.player, &st2), "fpx_player_stats_get");
    printf("#summary,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
           st1.packets_demuxed - st0.packets_demuxed, st2.packets_demuxed - st1.packets_demuxed,
           total);
    player_close(&bp);
    return 0;
}

static int open_child(int argc, char **argv)
{
    fpx_player_config cfg;
    fpx_player *p;
    long rss0, rss1, rss2 = -1, hwm1, hwm2 = -1;
    uint64_t t0, t1, t2;
    int seeks = argc >= 4 && strcmp(argv[3], "-") != 0;
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: fpx_bench open FILE [TARGETS|-] [off|keyframes|full]\n");
        return 2;
    }
    rss0 = max_rss_kb();
    fpx_player_config_init(&cfg);
    if (argc == 5) {
        if (strcmp(argv[4], "off") == 0)
            cfg.index_mode = FPX_INDEX_OFF;
        else if (strcmp(argv[4], "keyframes") == 0)
            cfg.index_mode = FPX_INDEX_KEYFRAMES;
        else if (strcmp(argv[4], "full") == 0)
            cfg.index_mode = FPX_INDEX_FULL;
        else {
            fprintf(stderr, "fpx_bench: unknown index mode %s\n", argv[4]);
            return 2;
        }
    }
    t0 = now_ns();
    check(fpx_player_create(&cfg, &p), "fpx_player_create");
    t1 = now_ns();
    check(fpx_player_open(p, argv[2]), "fpx_player_open");
    check(fpx_player_wait_item(p, 60000, NULL), "fpx_player_wait_item");
    t2 = now_ns();
    rss1 = max_rss_kb();
    hwm1 = vm_hwm_kb();
    if (seeks) {
        bench_player bp;
        fpx_item_info info = {.struct_size = sizeof(fpx_item_info)};
        waiter w;
        size_t n, i;
        target *t = read_targets("fpx_bench", argv[3], &n);
        waiter_init(&w);
        check(fpx_player_setup_seek_manager(p), "fpx_player_setup_seek_manager");
        memset(&info, 0, sizeof info); info.struct_size = sizeof info;
        info.struct_size = sizeof info;
        check(fpx_player_item_info(p, &info), "fpx_player_item_info");
        bp.player = p;
        bp.start_pts = info.start_pts;
        bp.tb_num = info.time_base_num;
        bp.tb_den = info.time_base_den;
        for (i = 0; i < n; i++)
            seek_wait(&bp, &w, t[i].ticks, fpx_precision_exact());
        rss2 = max_rss_kb();
        hwm2 = vm_hwm_kb();
        free(t);
    }
    printf("open_ns,create_ns,rss_start_kb,rss_open_kb,rss_seeks_kb,hwm_open_kb,hwm_seeks_kb\n");
    printf("%" PRIu64 ",%" PRIu64 ",%ld,%ld,%ld,%ld,%ld\n", t2 - t1, t1 - t0, rss0, rss1, rss2,
           hwm1, hwm2);
    check(fpx_player_destroy(p), "fpx_player_destroy");
    return 0;
}

static int throughput_seek(void *ctx, int player, int64_t ticks, int64_t *landed)
{
    bench_player *bp = (bench_player *)ctx + player;
    fpx_seek_outcome o;
    int err;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    err = fpx_player_seek_wait(bp->player, item_time(bp, ticks), fpx_precision_exact(), 60000, &o);
    if (err != FPX_OK || !o.finished) {
        fprintf(stderr, "fpx_bench: throughput seek to %" PRId64 ": %s\n", ticks,
                fpx_error_name(err != FPX_OK ? err : o.error));
        return 1;
    }
    *landed = o.landed_stream_pts;
    return 0;
}

static int cmd_throughput(int argc, char **argv)
{
    throughput_run run;
    bench_player *players;
    int i, rc;
    if (argc != 7) {
        fprintf(stderr, "usage: fpx_bench throughput FILE TARGETS PLAYERS THREADS SEEKS\n");
        return 2;
    }
    memset(&run, 0, sizeof run);
    run.targets = read_targets("fpx_bench", argv[3], &run.ntargets);
    run.players = atoi(argv[4]);
    run.threads = atoi(argv[5]);
    run.seeks = (size_t)atol(argv[6]);
    if (run.players < 1)
        return 2;
    players = calloc((size_t)run.players, sizeof *players);
    if (!players)
        return 2;
    for (i = 0; i < run.players; i++)
        player_open(&players[i], argv[2]);
    run.seek = throughput_seek;
    run.ctx = players;
    rc = throughput_main(&run);
    for (i = 0; i < run.players; i++)
        player_close(&players[i]);
    free(players);
    free((void *)run.targets);
    return rc;
}

int main(int argc, char **argv)
{
    if (fpx_version() < FPX_VERSION) {
        fprintf(stderr, "fpx_bench: library %s is older than the header\n",
                fpx_version_string());
        return 2;
    }
    if (argc >= 2 && strcmp(argv[1], "seek") == 0)
        return cmd_seek(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "scrub") == 0)
        return cmd_scrub(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "step") == 0)
        return cmd_step(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "preview") == 0)
        return cmd_preview(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "open") == 0)
        return in_child(open_child, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "throughput") == 0)
        return cmd_throughput(argc, argv);
    fprintf(stderr, "usage: fpx_bench seek|scrub|preview|step|open|throughput ...\n");
    return 2;
}
