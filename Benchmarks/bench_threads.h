/* Seek throughput with many players from a few host threads: the driver shared by
 * av_bench's and fpx_bench's "throughput" commands, so both sides run the same schedule.
 *
 * PLAYERS players (contexts) are opened first (untimed). THREADS host threads then share
 * them: thread t owns the players p with p % THREADS == t and walks them round robin, one
 * exact seek each, until the seeks run out. Seek k (0-based, in one global order) goes to
 * target k % ntargets, so with at least as many targets as seeks every (player, target) pair
 * is cold. Nothing else runs meanwhile: the clock (wall and the process's CPU) covers only
 * the seeks.
 *
 * Output: "#throughput,threads,players,seeks,wall_ns,cpu_ns" then "k,target,landed" per seek
 * (the driver checks landings against ffprobe).
 */
#ifndef FPX_BENCH_THREADS_H
#define FPX_BENCH_THREADS_H

#include <pthread.h>
#include <stdatomic.h>

#include "bench_common.h"

/* One exact seek of player `player` to `ticks`; 0 with *landed set, or non-zero to abort. */
typedef int (*throughput_seek_fn)(void *ctx, int player, int64_t ticks, int64_t *landed);

typedef struct throughput_run {
    throughput_seek_fn seek;
    void *ctx;
    const target *targets;
    size_t ntargets;
    int players, threads;
    size_t seeks;
    atomic_size_t next;   /* the next global seek number */
    int64_t *landed;      /* [seeks] */
    atomic_int failed;
} throughput_run;

typedef struct throughput_thread {
    throughput_run *run;
    int index;
} throughput_thread;

static void *throughput_worker(void *arg)
{
    throughput_thread *th = arg;
    throughput_run *r = th->run;
    int mine = 0; /* how many of this thread's players were used, for the round robin */
    int owned = (r->players - th->index + r->threads - 1) / r->threads;
    if (owned <= 0)
        return NULL;
    for (;;) {
        size_t k = atomic_fetch_add(&r->next, 1);
        int player = th->index + (mine % owned) * r->threads;
        if (k >= r->seeks || atomic_load(&r->failed))
            return NULL;
        mine++;
        if (r->seek(r->ctx, player, r->targets[k % r->ntargets].ticks, &r->landed[k]) != 0) {
            atomic_store(&r->failed, 1);
            return NULL;
        }
    }
}

static uint64_t cpu_ns_self(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

/* Runs the schedule and prints the report; returns 0, or 2 on failure. */
static int throughput_main(throughput_run *r)
{
    pthread_t tid[64];
    throughput_thread th[64];
    uint64_t w0, w1, c0, c1;
    size_t k;
    int i;
    if (r->threads < 1 || r->threads > 64 || r->players < r->threads || r->ntargets == 0) {
        fprintf(stderr, "throughput: need 1..64 threads, players >= threads, targets\n");
        return 2;
    }
    r->landed = calloc(r->seeks, sizeof *r->landed);
    if (!r->landed)
        return 2;
    atomic_init(&r->next, 0);
    atomic_init(&r->failed, 0);
    c0 = cpu_ns_self();
    w0 = now_ns();
    for (i = 0; i < r->threads; i++) {
        th[i].run = r;
        th[i].index = i;
        if (pthread_create(&tid[i], NULL, throughput_worker, &th[i]) != 0)
            return 2;
    }
    for (i = 0; i < r->threads; i++)
        pthread_join(tid[i], NULL);
    w1 = now_ns();
    c1 = cpu_ns_self();
    if (atomic_load(&r->failed))
        return 2;
    printf("#throughput,%d,%d,%zu,%" PRIu64 ",%" PRIu64 "\n", r->threads, r->players, r->seeks,
           w1 - w0, c1 - c0);
    for (k = 0; k < r->seeks; k++)
        printf("%zu,%" PRId64 ",%" PRId64 "\n", k, r->targets[k % r->ntargets].ticks, r->landed[k]);
    free(r->landed);
    return 0;
}

#endif
