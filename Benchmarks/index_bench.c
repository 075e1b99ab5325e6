/*
 * index_bench -- FPX_INDEX_FULL: how long the background index takes, what it holds, and
 * what later exact seeks cost, against FPX_INDEX_KEYFRAMES on the same targets.
 *
 *   index_bench FILE [N_TARGETS]
 *
 * Prints one line of key=value: ready_ms (open to READY), index_ms (READY to
 * on_index_complete), frames (index_frames), index_packets (packets_demuxed growth while
 * indexing: every stream's packets the demuxer returned... only the reference stream's are
 * read, others are discarded), then for N seeded random exact targets (uniform over the
 * item's seekable range, item time in microseconds), the median and p95 seek_wait latency in
 * microseconds and the mean packets_read, for the FULL player after completion and for a
 * KEYFRAMES player (one player, targets in the same order: its grid warms as it reads).
 * Landings of the two players are compared; any difference is printed and exits 1.
 *
 * Build: cc -std=c99 -O2 -IInclude Benchmarks/index_bench.c -Lbuild/lib -lfastpixseek -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <fastpix/seek.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;
static uint64_t done_at;

static void on_complete(uint64_t frames, void *ud)
{
    (void)frames;
    (void)ud;
    pthread_mutex_lock(&mu);
    done = 1;
    done_at = now_ns();
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static fpx_player *make(fpx_index_mode mode)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.index_mode = mode;
    cfg.io_timeout_ms = 60000;
    if (fpx_player_create(&cfg, &p) != FPX_OK)
        exit(2);
    fpx_player_setup_seek_manager(p);
    return p;
}

static fpx_player_stats stats(fpx_player *p)
{
    fpx_player_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    fpx_player_stats_get(p, &s);
    return s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 64;
    int n = argc > 2 ? atoi(argv[2]) : 200;
    fpx_item_status_info st;
    fpx_listener l;
    fpx_player *full = make(FPX_INDEX_FULL), *keys = make(FPX_INDEX_KEYFRAMES);
    fpx_listener_init(&l);
    l.on_index_complete = on_complete;
    fpx_player_add_listener(full, &l, NULL);
    uint64_t t0 = now_ns();
    fpx_player_open(full, argv[1]);
    if (fpx_player_wait_item(full, 60000, &st) != FPX_OK || st.status != FPX_ITEM_READY)
        return 2;
    uint64_t ready = now_ns();
    uint64_t before = stats(full).packets_demuxed;
    pthread_mutex_lock(&mu);
    while (!done)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    fpx_player_stats s = stats(full);
    fpx_player_open(keys, argv[1]);
    if (fpx_player_wait_item(keys, 60000, &st) != FPX_OK)
        return 2;
    fpx_time start, end;
    if (fpx_player_seekable_range(full, &start, &end) != FPX_OK)
        return 2;
    double a = fpx_time_to_seconds(start), b = fpx_time_to_seconds(end);
    uint64_t *lat[2];
    unsigned long long pk[2] = {0, 0};
    lat[0] = calloc((size_t)n, sizeof(uint64_t));
    lat[1] = calloc((size_t)n, sizeof(uint64_t));
    srand(20240601);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        double u = (double)rand() / RAND_MAX;
        fpx_time t = fpx_time_make((int64_t)((a + u * (b - a)) * 1e6), 1000000);
        fpx_seek_outcome o[2];
        fpx_player *ps[2] = {full, keys};
        for (int k = 0; k < 2; k++) {
            memset(&o[k], 0, sizeof o[k]);
            uint64_t s0 = now_ns();
            if (fpx_player_seek_wait(ps[k], t, fpx_precision_exact(), 60000, &o[k]) != FPX_OK)
                return 3;
            lat[k][i] = (now_ns() - s0) / 1000;
            pk[k] += o[k].packets_read;
        }
        if (o[0].landed_stream_pts != o[1].landed_stream_pts) {
            fprintf(stderr, "target %lld us: FULL %lld, KEYFRAMES %lld\n", (long long)t.value,
                    (long long)o[0].landed_stream_pts, (long long)o[1].landed_stream_pts);
            bad = 1;
        }
    }
    qsort(lat[0], (size_t)n, sizeof(uint64_t), cmp_u64);
    qsort(lat[1], (size_t)n, sizeof(uint64_t), cmp_u64);
    printf("ready_ms=%.1f index_ms=%.1f frames=%llu complete=%d index_packets=%llu "
           "full_median_us=%llu full_p95_us=%llu full_packets=%.2f "
           "keyframes_median_us=%llu keyframes_p95_us=%llu keyframes_packets=%.2f\n",
           (ready - t0) / 1e6, (done_at - ready) / 1e6, (unsigned long long)s.index_frames, s.index_complete,
           (unsigned long long)(s.packets_demuxed - before), (unsigned long long)lat[0][n / 2],
           (unsigned long long)lat[0][n * 95 / 100], (double)pk[0] / n, (unsigned long long)lat[1][n / 2],
           (unsigned long long)lat[1][n * 95 / 100], (double)pk[1] / n);
    fpx_player_destroy(full);
    fpx_player_destroy(keys);
    return bad;
}
