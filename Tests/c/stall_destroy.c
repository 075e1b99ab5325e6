#define _POSIX_C_SOURCE 200809L
/* Opens URL (a server that accepts and never answers) with a long I/O timeout,
 * then destroys the player while the open is blocked. Prints the destroy time in
 * milliseconds; exits 0 when destroy returned within one second. */
#include <fastpix/seek.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    struct timespec nap = {0, 300 * 1000 * 1000};
    double t0, ms;
    int rc;
    if (argc < 2) return 2;
    fpx_player_config_init(&cfg);
    cfg.io_timeout_ms = 60000;
    if (fpx_player_create(&cfg, &p) != FPX_OK) return 1;
    fpx_player_open(p, argv[1]);
    nanosleep(&nap, NULL);
    fpx_player_item_status(p, &st);
    if (st.status != FPX_ITEM_LOADING) { fprintf(stderr, "expected LOADING, got %d\n", (int)st.status); return 1; }
    t0 = now_ms();
    rc = fpx_player_destroy(p);
    ms = now_ms() - t0;
    printf("destroy rc=%d in %.1f ms\n", rc, ms);
    if (fpx_player_destroy(p) != FPX_ERROR_INVALID_HANDLE) { fprintf(stderr, "double destroy not rejected\n"); return 1; }
    return (rc == FPX_OK && ms < 1000.0) ? 0 : 1;
}
