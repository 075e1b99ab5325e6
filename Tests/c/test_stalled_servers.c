/*
 * test_stalled_servers.c -- players stalled on a server never hold up another player's
 * work (seek.h, section 3 "Threads"; issue 26.5):
 *
 *   1,000 players open a URL on 127.0.0.1 whose server accepts and never answers (their
 *   opens stay pending: io_timeout_ms 60 s). Meanwhile a player on a local file opens and
 *   makes exact seeks: its open and each seek complete within 1 s (0.4: 4.46 s with 64
 *   stalled players, the default pool cap, until their opens timed out). Every pool stays
 *   within its cap (fpx-net, the pool of jobs that read over a protocol, holds the stalled
 *   ones; fpx-worker the local player's), counted from /proc/self/task; destroying the
 *   stalled players interrupts them, and afterwards no library thread remains.
 *
 * FPX_STALL_PLAYERS (environment) changes the 1,000 (sanitizer runs).
 *
 * usage: test_stalled_servers FIXTURE_DIR
 */
#include "check.h"
#include "proc_counts.h"
#include "loopback_server.h"

#include <sys/resource.h>
#include <unistd.h>

#define MAX_CONNS 8192

static int max_seen[3];
static const char *pools[3] = {"fpx-net", "fpx-worker", "fpx-"};
static void sample(void)
{
    int i;
    for (i = 0; i < 3; i++) {
        int n = proc_threads(pools[i]);
        if (n > max_seen[i])
            max_seen[i] = n;
    }
}

static double ms_since(uint64_t t0) { return (double)(now_ns() - t0) / 1e6; }

#define DESTROYERS 16
typedef struct {
    fpx_player **ps;
    int n, first, ok;
} destroyer_arg;

static void *destroyer(void *arg)
{
    destroyer_arg *a = arg;
    int i;
    for (i = a->first; i < a->n; i += DESTROYERS)
        if (fpx_player_destroy(a->ps[i]) == FPX_OK)
            a->ok++;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = 1000, i, port, pending = 0, destroyed = 0;
    const char *env = getenv("FPX_STALL_PLAYERS");
    char url[128];
    fpx_player **ps;
    fpx_player *local;
    loopback_server server;
    struct rlimit rl;
    double open_ms, seek_ms_max = 0, destroy_ms;
    uint64_t t0;
    /* exact seeks spread over the file, none on a frame the player read before */
    static const int64_t targets_ms[] = {7300, 1500, 9120, 4040, 2720, 8480, 660, 5560};

    check_init(argc, argv, 300);
    if (env && atoi(env) > 0)
        n = atoi(env);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)(n + 1024)) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)(n + 1024) ? rl.rlim_max : (rlim_t)(n + 1024);
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    loopback_server_start(&server, 4096, MAX_CONNS, 1); /* connections held, never answered */
    port = server.port;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/stalled.mp4", port);

    SECTION("1,000 players opening on a server that never answers");
    ps = calloc((size_t)n, sizeof *ps);
    REQUIRE(ps != NULL);
    for (i = 0; i < n; i++) {
        fpx_player_config cfg;
        fpx_player_config_init(&cfg);
        cfg.io_timeout_ms = 60000;
        REQUIRE(fpx_player_create(&cfg, &ps[i]) == FPX_OK);
        CHECK_OK(fpx_player_setup_seek_manager(ps[i]));
        CHECK_OK(fpx_player_open(ps[i], url));
        if (i % 50 == 0)
            sample();
    }
    sleep_ms(500); /* the stalled opens hold their pool's threads now */
    sample();
    NOTE("connections the server holds: %d", flag_get(&server.n_held));

    SECTION("a player on a local file opens and seeks exactly, each within 1 s");
    local = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(local != NULL);
    CHECK_OK(fpx_player_setup_seek_manager(local));
    t0 = now_ns();
    CHECK_OK(fpx_player_open(local, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(local, 30000, NULL));
    open_ms = ms_since(t0);
    CHECK(open_ms < 1000);
    for (i = 0; i < (int)(sizeof targets_ms / sizeof targets_ms[0]); i++) {
        fpx_seek_outcome o;
        double ms;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        t0 = now_ns();
        CHECK_OK(fpx_player_seek_wait(local, fpx_time_make(targets_ms[i], 1000), fpx_precision_exact(), 30000, &o));
        ms = ms_since(t0);
        CHECK_EQ(o.finished, 1);
        CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
        CHECK(ms < 1000);
        if (ms > seek_ms_max)
            seek_ms_max = ms;
        sample();
    }
    NOTE("local player: open %.1f ms, exact seeks at most %.1f ms, with %d players stalled", open_ms,
         seek_ms_max, n);
    for (i = 0; i < n; i++)
        if (fpx_player_wait_item(ps[i], 0, NULL) == FPX_ERROR_TIMEOUT)
            pending++;
    NOTE("stalled opens still pending: %d of %d", pending, n);
    CHECK_EQ(pending, n);

    SECTION("every pool within its cap (64), and none left once the players are gone");
    sample();
    NOTE("threads at most: fpx-net %d, fpx-worker %d, all fpx- %d", max_seen[0], max_seen[1], max_seen[2]);
    CHECK(max_seen[0] <= 64);
    CHECK(max_seen[1] <= 64);
    CHECK(max_seen[2] <= 4 * 64 + 1);
    t0 = now_ns();
    {
        /* Each destroy returns within about 100 ms of interrupting its open (FFmpeg polls the
         * interrupt callback every 100 ms): 16 threads destroy them, an interleaved share each. */
        pthread_t d[DESTROYERS];
        destroyer_arg a[DESTROYERS];
        for (i = 0; i < DESTROYERS; i++) {
            a[i].ps = ps;
            a[i].n = n;
            a[i].first = i;
            a[i].ok = 0;
            REQUIRE(pthread_create(&d[i], NULL, destroyer, &a[i]) == 0);
        }
        for (i = 0; i < DESTROYERS; i++) {
            pthread_join(d[i], NULL);
            destroyed += a[i].ok;
        }
    }
    destroy_ms = ms_since(t0);
    NOTE("destroying %d stalled players (16 threads) took %.1f ms", n, destroy_ms);
    CHECK_EQ(destroyed, n);
    CHECK_OK(fpx_player_destroy(local));
    t0 = now_ns();
    while (proc_threads("fpx-") > 0 && ms_since(t0) < 10000)
        sleep_ms(50);
    CHECK_EQ(proc_threads("fpx-"), 0);

    loopback_server_stop(&server);
    free(ps);
    return check_summary();
}
