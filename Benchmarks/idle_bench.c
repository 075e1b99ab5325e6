/*
 * idle_bench.c -- N open, idle players in one process (issue 17's scale targets):
 * threads, file descriptors, open time and memory, against N bare AVFormatContexts.
 *
 * Usage:
 *   idle_bench bare N FILE         N x (avformat_open_input + avformat_find_stream_info),
 *                                  one after the other, all kept open
 *   idle_bench fpx N FILE thread|host
 *                                  N x fpx_player_create, then fpx_player_open on all,
 *                                  then fpx_player_wait_item on all (the opens run
 *                                  concurrently on the library's pool)
 * Prints one CSV line:
 *   "mode,n,open_ms,threads_busy_max,threads_idle,fds_per,rss_per_kb"
 *   open_ms          wall time of the N opens (fpx: from the first open to the last READY;
 *                    creating the players is not included)
 *   threads_busy_max library threads (fpx: named fpx-*) seen at most while opening
 *   threads_idle     library threads 3 s after the last open (the pools' idle timeout is 2 s)
 *   fds_per          file descriptors added per player/context (/proc/self/fd), by the
 *                    creates and opens
 *   rss_per_kb       VmRSS added per player/context, KiB (after the opens, /proc/self/status)
 *
 * Build: cc -std=c99 -O2 idle_bench.c -I../Include -I../Tests/c -lfastpixseek -pthread
 *        $(pkg-config --cflags --libs libavformat libavutil)
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "proc_counts.h" /* Tests/c */

#include <fastpix/seek.h>
#include <libavformat/avformat.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int n, i, fds0, busy = 0, idle;
    long rss0;
    uint64_t t0, t1;
    struct rlimit rl;
    if (argc < 4) {
        fprintf(stderr, "usage: idle_bench bare|fpx N FILE [thread|host]\n");
        return 2;
    }
    n = atoi(argv[2]);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)(3 * n + 64)) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)(3 * n + 64) ? rl.rlim_max : (rlim_t)(3 * n + 64);
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    av_log_set_level(AV_LOG_QUIET);
    if (strcmp(argv[1], "bare") == 0) {
        AVFormatContext **c = calloc((size_t)n, sizeof *c);
        fds0 = proc_open_fds();
        rss0 = rss_kb();
        t0 = now_ns();
        for (i = 0; i < n; i++) {
            if (avformat_open_input(&c[i], argv[3], NULL, NULL) < 0 || avformat_find_stream_info(c[i], NULL) < 0) {
                fprintf(stderr, "open %d failed\n", i);
                return 1;
            }
        }
        t1 = now_ns();
        busy = (proc_threads("") - 1);
        sleep(3);
        idle = (proc_threads("") - 1);
        printf("bare,%d,%.1f,%d,%d,%.2f,%.1f\n", n, (double)(t1 - t0) / 1e6, busy, idle,
               (double)(proc_open_fds() - fds0) / n, (double)(rss_kb() - rss0) / n);
        for (i = 0; i < n; i++)
            avformat_close_input(&c[i]);
        free(c);
        return 0;
    } else {
        fpx_player **p = calloc((size_t)n, sizeof *p);
        fpx_player_config cfg;
        int host = argc > 4 && strcmp(argv[4], "host") == 0;
        fpx_player_config_init(&cfg);
        cfg.delivery = host ? FPX_DELIVERY_HOST : FPX_DELIVERY_THREAD;
        fds0 = proc_open_fds(); /* before the creates: a HOST player's eventfd is made there */
        for (i = 0; i < n; i++)
            if (fpx_player_create(&cfg, &p[i]) != FPX_OK) {
                fprintf(stderr, "create %d failed\n", i);
                return 1;
            }
        sleep(3); /* nothing of the creates left running */
        rss0 = rss_kb();
        t0 = now_ns();
        for (i = 0; i < n; i++) {
            if (fpx_player_open(p[i], argv[3]) != FPX_OK)
                return 1;
            if (i % 50 == 0) {
                int b = proc_threads("fpx-");
                if (b > busy)
                    busy = b;
            }
        }
        for (i = 0; i < n; i++) {
            if (fpx_player_wait_item(p[i], 120000, NULL) != FPX_OK) {
                fprintf(stderr, "open %d failed\n", i);
                return 1;
            }
            if (i % 50 == 0) {
                int b = proc_threads("fpx-");
                if (b > busy)
                    busy = b;
            }
        }
        t1 = now_ns();
        if (host)
            for (i = 0; i < n; i++)
                fpx_player_dispatch_events(p[i], NULL);
        sleep(3);
        idle = proc_threads("fpx-");
        printf("fpx-%s,%d,%.1f,%d,%d,%.2f,%.1f\n", host ? "host" : "thread", n, (double)(t1 - t0) / 1e6, busy,
               idle, (double)(proc_open_fds() - fds0) / n, (double)(rss_kb() - rss0) / n);
        for (i = 0; i < n; i++)
            fpx_player_destroy(p[i]);
        free(p);
        return 0;
    }
}
