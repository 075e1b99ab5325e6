/* Many threads on one player: seeks (exact and keyframe), cancels, scrub
 * gestures, steps and reads, mixed. Every seek accepted (fpx_player_seek and
 * fpx_scrub_end returning FPX_OK) must complete exactly once: completions are
 * counted per seek id, and after destroy every id has exactly one. RSS is read
 * from /proc/self/statm after a warm-up (20% of the seeks) and at the end.
 *
 *   test_stress_seeks FIXTURE_DIR [TOTAL_SEEKS [THREADS [MAX_RSS_GROWTH_PERCENT]]]
 *
 * CI runs the default (40,000 seeks, 8 threads, growth <= 25%, generous for a
 * short run on a loaded box); RELIABILITY.md records the long run
 * (1,000,000 seeks, 8 threads, 5%). */
#include "check.h"

static fpx_player *P;
static fpx_scrub_session *S;
static long total_seeks;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long issued, completed, cancels, scrubs, steps, reads, rc_errors;
static long warm_rss_kb = -1;
static uint8_t *per_id; /* completions per seek id (ids are small and dense) */
static long max_id;
static long dup_completions, unknown_ids;

/* Under ASan or TSan freed memory sits in a quarantine and shadow memory
 * grows with use: RSS says nothing about the library there. */
extern void __asan_init(void) __attribute__((weak));
extern void __tsan_init(void) __attribute__((weak));
static int sanitized(void) { return &__asan_init != NULL || &__tsan_init != NULL; }

static long rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void note_completion(uint64_t id)
{
    pthread_mutex_lock(&mu);
    completed++;
    if (id == 0 || (long)id > max_id) {
        unknown_ids++;
    } else if (per_id[id]++ != 0) {
        dup_completions++;
    }
    pthread_mutex_unlock(&mu);
}

static void on_seek(const fpx_seek_outcome *o, void *ud)
{
    (void)ud;
    note_completion(o->seek_id);
}

static void on_scrub(const fpx_scrub_result *r, void *ud)
{
    /* the scrub end id is passed as userdata: a cancelled result has no outcome */
    (void)r;
    note_completion((uint64_t)(uintptr_t)ud);
}

static int take_seek(void)
{
    int ok;
    pthread_mutex_lock(&mu);
    ok = issued < total_seeks;
    if (ok)
        issued++;
    if (issued == total_seeks / 5 && warm_rss_kb == -1)
        warm_rss_kb = -2; /* the thread that sees this samples it */
    pthread_mutex_unlock(&mu);
    return ok;
}

static void give_back(void)
{
    pthread_mutex_lock(&mu);
    issued--;
    rc_errors++;
    pthread_mutex_unlock(&mu);
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;
    int role = (int)(uintptr_t)arg;
    for (;;) {
        unsigned r = rnd(&seed);
        int sample = 0;
        pthread_mutex_lock(&mu);
        if (warm_rss_kb == -2) {
            warm_rss_kb = -3;
            sample = 1;
        }
        pthread_mutex_unlock(&mu);
        if (sample) {
            long kb = rss_kb();
            pthread_mutex_lock(&mu);
            warm_rss_kb = kb;
            pthread_mutex_unlock(&mu);
        }
        if (role == 0 && r % 4 == 0) {
            /* one thread also steps and reads */
            fpx_frame_step_result st = {.struct_size = sizeof st};
            fpx_packet pk = {.struct_size = sizeof pk};
            fpx_player_step_frame(P, r % 8 == 0 ? FPX_STEP_BACKWARD : FPX_STEP_FORWARD, 1, &st);
            fpx_player_read_packet(P, &pk);
            pthread_mutex_lock(&mu);
            steps++;
            reads++;
            pthread_mutex_unlock(&mu);
        }
        if (!take_seek())
            break;
        if (r % 50 == 1) {
            /* a scrub gesture: its end is one seek */
            uint64_t id = 0;
            fpx_scrub_begin(S, fpx_time_make(r % 40, 10));
            fpx_scrub_update(S, fpx_time_make((r + 3) % 40, 10));
            /* the id is known only after the call: count the completion by the
             * outcome instead when there is one */
            if (fpx_scrub_end(S, fpx_time_make((r + 7) % 40, 10), fpx_precision_exact(), NULL, NULL, &id) != FPX_OK)
                give_back();
            else {
                pthread_mutex_lock(&mu);
                scrubs++;
                pthread_mutex_unlock(&mu);
            }
        } else {
            fpx_precision prec = r % 2 ? fpx_precision_exact() : fpx_precision_default();
            if (fpx_player_seek(P, fpx_time_make((int64_t)(r % 4000), 1000), prec, on_seek, NULL, NULL) != FPX_OK)
                give_back();
        }
        /* about the rate a UI drives: most seeks still run, many are superseded */
        if (r % 4 == 0)
            sleep_ms(1);
        if (r % 16 == 3) {
            fpx_player_cancel_pending_seeks(P, NULL);
            pthread_mutex_lock(&mu);
            cancels++;
            pthread_mutex_unlock(&mu);
        }
    }
    return NULL;
}

/* Scrub end seeks complete through the listener's view: count them from
 * fpx_player_stats (seeks_completed + superseded + cancelled + failed), and
 * the plain seeks per id. */
int main(int argc, char **argv)
{
    long threads = argc > 3 ? atol(argv[3]) : 8;
    long growth_limit = argc > 4 ? atol(argv[4]) : 25;
    pthread_t th[64];
    fpx_player_stats st = {.struct_size = sizeof st};
    long i, end_kb, missing = 0;
    uint64_t t0;
    total_seeks = argc > 2 ? atol(argv[2]) : 40000;
    check_init(argc, argv, argc > 2 ? 3600 : 110);
    (void)on_scrub;
    if (threads < 1 || threads > 64)
        threads = 8;
    max_id = total_seeks + 16;
    per_id = calloc((size_t)max_id + 1, 1);
    REQUIRE(per_id != NULL);
    SECTION("seeks, cancels, scrubs and steps from many threads: one completion each");
    P = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(P != NULL);
    REQUIRE(open_wait(P, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(P));
    CHECK_OK(fpx_player_scrub_session(P, &S));
    t0 = now_ns();
    for (i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
    for (i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    /* let the last seeks finish, then read the counters */
    for (i = 0; i < 6000; i++) {
        CHECK_OK(fpx_player_stats_get(P, &st));
        if (st.seeks_completed + st.seeks_superseded + st.seeks_cancelled + st.seeks_failed >= st.seeks_issued)
            break;
        sleep_ms(5);
    }
    end_kb = rss_kb();
    CHECK_OK(fpx_player_destroy(P));
    NOTE("%ld seeks accepted (%ld by scrub end) on %ld threads in %.1f s, %ld cancels, %ld steps, %ld reads",
         issued, scrubs, threads, (double)(now_ns() - t0) / 1e9, cancels, steps, reads);
    NOTE("stats: issued %" PRIu64 " completed %" PRIu64 " superseded %" PRIu64 " cancelled %" PRIu64
         " failed %" PRIu64,
         st.seeks_issued, st.seeks_completed, st.seeks_superseded, st.seeks_cancelled, st.seeks_failed);
    NOTE("RSS after warm-up %ld kB, at the end %ld kB (%+.1f%%)", warm_rss_kb, end_kb,
         warm_rss_kb > 0 ? 100.0 * (double)(end_kb - warm_rss_kb) / (double)warm_rss_kb : 0.0);
    /* plain seeks: exactly one completion per id, none unknown or repeated */
    CHECK_EQ(dup_completions, 0);
    CHECK_EQ(unknown_ids, 0);
    /* every accepted seek (plain and scrub end) is accounted for once in the stats */
    CHECK_EQ(st.seeks_issued, (uint64_t)issued);
    CHECK_EQ(st.seeks_completed + st.seeks_superseded + st.seeks_cancelled + st.seeks_failed, st.seeks_issued);
    CHECK_EQ(completed, issued - scrubs);
    for (i = 1; i <= max_id; i++)
        if (per_id[i] > 1)
            missing++;
    CHECK_EQ(missing, 0);
    CHECK(warm_rss_kb > 0 && end_kb > 0);
    if (warm_rss_kb > 0 && !sanitized())
        CHECK(end_kb <= warm_rss_kb + warm_rss_kb * growth_limit / 100);
    free(per_id);
    return check_summary();
}
