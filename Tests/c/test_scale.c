/*
 * test_scale.c -- 1,000 players in one process on the shared executor
 * (seek.h, section 3 "Threads"; issue 17.3):
 *
 *   1. 1,000 FPX_DELIVERY_THREAD players open the same MP4: while they work,
 *      no pool has more threads than its cap (FPX_MAX_THREADS, default 64);
 *      once they are idle, no library thread remains (at most 2 x cores + 4
 *      is the target; the pools shrink to none), and each player holds one
 *      descriptor (its media file), counted from /proc/self/fd;
 *   1b. a scrub gesture with a trailing position on each: one shared timer
 *      thread at most, none once idle;
 *   2. 1,000 FPX_DELIVERY_HOST players: one descriptor each beyond their
 *      media (the eventfd), no library thread once idle;
 *   3. a storm: 3 seeks on each of the 2,000 players, while another thread
 *      destroys them in an interleaved order: every seek that fpx_player_seek
 *      accepted gets exactly one completion, by the time its player's destroy
 *      returned (HOST players' completions run inside destroy);
 *   4. afterwards no library thread and no descriptor of the players remain.
 *
 * Thread and descriptor counts come from /proc/self/task and /proc/self/fd.
 * FPX_SCALE_PLAYERS (environment) changes the 1,000 (sanitizer runs).
 *
 * usage: test_scale FIXTURE_DIR
 */
#include "check.h"
#include "proc_counts.h"

#include <dirent.h>
#include <sys/resource.h>

static int n_players = 1000;

static int max_threads_seen[3];
static void sample_pools(void)
{
    static const char *names[3] = {"fpx-worker", "fpx-events", "fpx-index"};
    int i;
    for (i = 0; i < 3; i++) {
        int n = proc_threads(names[i]);
        if (n > max_threads_seen[i])
            max_threads_seen[i] = n;
    }
}

/* Waits (up to `seconds`) until no library thread remains; returns how many do. */
static int wait_no_threads(int seconds)
{
    uint64_t end = now_ns() + (uint64_t)seconds * 1000000000ull;
    int n;
    while ((n = proc_threads("fpx-")) > 0 && now_ns() < end)
        sleep_ms(50);
    return n;
}

static fpx_player **make_players(fpx_delivery_mode mode, const char *url)
{
    fpx_player **ps = calloc((size_t)n_players, sizeof *ps);
    int i, ready = 0, fds0 = proc_open_fds();
    char note[256];
    REQUIRE(ps != NULL);
    for (i = 0; i < n_players; i++) {
        ps[i] = make_player(mode);
        REQUIRE(ps[i] != NULL);
        CHECK_OK(fpx_player_setup_seek_manager(ps[i]));
        CHECK_OK(fpx_player_open(ps[i], url));
        if (i % 50 == 0)
            sample_pools();
    }
    for (i = 0; i < n_players; i++) {
        if (fpx_player_wait_item(ps[i], 120000, NULL) == FPX_OK)
            ready++;
        if (i % 50 == 0)
            sample_pools();
    }
    CHECK_EQ(ready, n_players);
    {
        int per = (proc_open_fds() - fds0 + n_players / 2) / n_players;
        snprintf(note, sizeof note, "%s: %d players, %d descriptors (%.2f per player)",
                 mode == FPX_DELIVERY_HOST ? "HOST" : "THREAD", n_players, proc_open_fds() - fds0,
                 (double)(proc_open_fds() - fds0) / n_players);
        NOTE("%s", note);
        /* the media file; HOST: plus the eventfd */
        CHECK(per <= (mode == FPX_DELIVERY_HOST ? 2 : 1));
        CHECK(proc_open_fds() - fds0 <= n_players * (mode == FPX_DELIVERY_HOST ? 2 : 1) + 8);
    }
    return ps;
}

/* ---- the storm ---------------------------------------------------------------------------- */
typedef struct {
    int calls;
    int issued;
} slot;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    slot *s = ud;
    (void)o;
    pthread_mutex_lock(&mu);
    s->calls++;
    pthread_mutex_unlock(&mu);
}

typedef struct {
    fpx_player **ps;
    int n;
    int destroyed_ok;
} destroyer_arg;

static void *destroyer(void *arg)
{
    destroyer_arg *a = arg;
    int i, k;
    sleep_ms(5);
    /* an interleaved order: every 7th from 0, then from 1, ... */
    for (k = 0; k < 7; k++)
        for (i = k; i < a->n; i += 7)
            if (fpx_player_destroy(a->ps[i]) == FPX_OK)
                a->destroyed_ok++;
    return NULL;
}

int main(int argc, char **argv)
{
    fpx_player **thr, **host, **all;
    struct rlimit rl;
    const char *mp4;
    const char *env;
    int i, j, accepted = 0, once = 0, fds_start, cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t t;
    destroyer_arg da;

    check_init(argc, argv, 900);
    env = getenv("FPX_SCALE_PLAYERS");
    if (env && atoi(env) > 0)
        n_players = atoi(env);
    mp4 = fixture("mp4_bframes.mp4");
    /* 2,000 players hold about 3,000 descriptors: raise the soft limit if it is lower. */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)(3 * n_players + 256)) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)(3 * n_players + 256) ? rl.rlim_max : (rlim_t)(3 * n_players + 256);
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    fds_start = proc_open_fds();

    SECTION("1. 1,000 THREAD players: pools within their caps, no thread once idle, one fd each");
    thr = make_players(FPX_DELIVERY_THREAD, mp4);
    NOTE("threads at most: fpx-worker %d, fpx-events %d, fpx-index %d (cores %d)", max_threads_seen[0],
         max_threads_seen[1], max_threads_seen[2], cores);
    for (i = 0; i < 3; i++)
        CHECK(max_threads_seen[i] <= 64);
    CHECK(wait_no_threads(10) <= 2 * cores + 4);
    CHECK_EQ(proc_threads("fpx-"), 0);

    SECTION("1b. a scrub gesture with a trailing position on every player: one shared timer thread");
    {
        int timers_max = 0, idle_after_cancel = 0;
        for (i = 0; i < n_players; i++) {
            fpx_scrub_session *s = NULL;
            CHECK_OK(fpx_player_scrub_session(thr[i], &s));
            CHECK_OK(fpx_scrub_begin(s, fpx_time_make(1, 1)));
            CHECK_OK(fpx_scrub_update(s, fpx_time_make(2, 1)));
            CHECK_OK(fpx_scrub_update(s, fpx_time_make(3, 1))); /* inside the throttle: trailing */
            if (i % 100 == 0) {
                int n = proc_threads("fpx-timer");
                if (n > timers_max)
                    timers_max = n;
            }
        }
        NOTE("fpx-timer threads at most: %d", timers_max);
        CHECK(timers_max <= 1);
        sleep_ms(300); /* the trailing positions (throttle 100 ms) are due */
        for (i = 0; i < n_players; i++) {
            fpx_scrub_session *s = NULL;
            fpx_scrub_state st;
            int active = 0;
            CHECK_OK(fpx_player_scrub_session(thr[i], &s));
            CHECK_OK(fpx_scrub_cancel(s));
            if (fpx_scrub_get_state(s, &st, &active) == FPX_OK && !active)
                idle_after_cancel++;
        }
        CHECK_EQ(idle_after_cancel, n_players);
        CHECK_EQ(wait_no_threads(10), 0);
    }

    SECTION("2. 1,000 HOST players: one eventfd each beyond the media, no thread once idle");
    host = make_players(FPX_DELIVERY_HOST, mp4);
    for (i = 0; i < n_players; i++)
        fpx_player_dispatch_events(host[i], NULL);
    CHECK_EQ(wait_no_threads(10), 0);

    SECTION("3. a storm of seeks on 2,000 players with destroys in flight: one completion each");
    all = calloc((size_t)(2 * n_players), sizeof *all);
    slots = calloc((size_t)(2 * n_players * 3), sizeof *slots);
    REQUIRE(all != NULL && slots != NULL);
    for (i = 0; i < n_players; i++) {
        all[2 * i] = thr[i];
        all[2 * i + 1] = host[i];
    }
    da.ps = all;
    da.n = 2 * n_players;
    da.destroyed_ok = 0;
    REQUIRE(pthread_create(&t, NULL, destroyer, &da) == 0);
    for (j = 0; j < 3; j++)
        for (i = 0; i < 2 * n_players; i++) {
            slot *s = &slots[i * 3 + j];
            int rc = fpx_player_seek(all[i], fpx_time_make(1 + (i + j) % 8, 1), fpx_precision_exact(), on_done, s,
                                     NULL);
            if (rc == FPX_OK) {
                s->issued = 1;
                accepted++;
            } else if (rc != FPX_ERROR_INVALID_HANDLE) {
                CHECK_ERR(rc, FPX_ERROR_INVALID_HANDLE);
            }
            if ((i & 1) && rc == FPX_OK && j == 2)
                fpx_player_dispatch_events(all[i], NULL);
        }
    pthread_join(t, NULL);
    CHECK_EQ(da.destroyed_ok, 2 * n_players);
    /* Every destroy has returned: every accepted seek has had its completion. */
    pthread_mutex_lock(&mu);
    for (i = 0; i < 2 * n_players * 3; i++) {
        if (slots[i].issued && slots[i].calls == 1)
            once++;
        if (!slots[i].issued)
            CHECK_EQ(slots[i].calls, 0);
    }
    pthread_mutex_unlock(&mu);
    NOTE("%d seeks accepted before their player's destroy, %d completed exactly once", accepted, once);
    CHECK(accepted > 0);
    CHECK_EQ(once, accepted);

    SECTION("4. afterwards: no library thread, no descriptor of the players");
    CHECK_EQ(wait_no_threads(10), 0);
    CHECK(proc_open_fds() <= fds_start + 2);
    free(all);
    free(slots);
    free(thr);
    free(host);
    return check_summary();
}
