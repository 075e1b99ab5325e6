/*
 * manyplayers -- opens one URL in N players at once (a plain C99 host of libfastpixseek for
 * Tests/python/test_hls_bounds.py).
 *
 *   manyplayers URL N thread|host
 *
 * Creates N players in the given delivery mode, calls fpx_player_open on each, polls
 * fpx_player_item_status every 2 ms until every item is READY or FAILED, and prints one JSON
 * line: ready_ms (from the first open call to the last item settled), the per-player
 * settle times, and failed (items that did not reach READY). Destroys every player.
 * Exit status 0 unless the usage or a create fails.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fastpix/seek.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    int n, host, i, left, failed = 0;
    fpx_player **p;
    double *settled, t0;

    if (argc != 4) return 64;
    n = atoi(argv[2]);
    host = strcmp(argv[3], "host") == 0;
    if (n <= 0 || (!host && strcmp(argv[3], "thread") != 0)) return 64;
    p = calloc((size_t)n, sizeof *p);
    settled = calloc((size_t)n, sizeof *settled);
    if (!p || !settled) return 1;
    for (i = 0; i < n; i++) {
        fpx_player_config c;
        int rc;
        fpx_player_config_init(&c);
        c.delivery = host ? FPX_DELIVERY_HOST : FPX_DELIVERY_THREAD;
        rc = fpx_player_create(&c, &p[i]);
        if (rc != FPX_OK) {
            printf("{\"create_rc\":%d,\"err\":\"%s\",\"at\":%d}\n", rc, fpx_error_name(rc), i);
            return 1;
        }
    }
    t0 = now_ms();
    for (i = 0; i < n; i++) fpx_player_open(p[i], argv[1]);
    left = n;
    while (left > 0) {
        struct timespec ts = {0, 2000000L};
        for (i = 0; i < n; i++) {
            fpx_item_status_info st;
            if (settled[i] > 0) continue;
            memset(&st, 0, sizeof st);
            st.struct_size = sizeof st;
            if (fpx_player_item_status(p[i], &st) != FPX_OK) continue;
            if (st.status == FPX_ITEM_READY || st.status == FPX_ITEM_FAILED) {
                settled[i] = now_ms() - t0;
                if (st.status != FPX_ITEM_READY) failed++;
                left--;
            }
        }
        nanosleep(&ts, NULL);
    }
    printf("{\"mode\":\"%s\",\"n\":%d,\"failed\":%d,\"settled_ms\":[", argv[3], n, failed);
    {
        double worst = 0;
        for (i = 0; i < n; i++) {
            printf("%s%.1f", i ? "," : "", settled[i]);
            if (settled[i] > worst) worst = settled[i];
        }
        printf("],\"ready_ms\":%.1f}\n", worst);
    }
    for (i = 0; i < n; i++) fpx_player_destroy(p[i]);
    free(p);
    free(settled);
    return 0;
}
