/*
 * test_thread_stacks.c -- the threads the library starts have 1 MiB stacks, whatever
 * RLIMIT_STACK says (seek.h section 6, "Memory exhaustion"; issue 26.6). glibc gives a thread
 * made without a stack size RLIMIT_STACK's soft limit as read at process start (8 MiB by
 * default): 193 such threads reserved 1.5 GiB of address space, what `ulimit -v` counts.
 *
 * The test re-executes itself with RLIMIT_STACK's soft limit at 256 MiB (or the hard limit,
 * if lower, at least 64 MiB), then opens the same MP4 in 48 players at once so that the work
 * pool starts many threads, and, while at least 16 fpx-worker threads are alive, reads
 * /proc/self/maps: no mapping is as large as the limit (a thread stack sized by RLIMIT_STACK
 * would be one), and there are at least as many mappings of 1 MiB (4 KiB either way, the
 * guard page) as library threads.
 *
 * usage: test_thread_stacks FIXTURE_DIR
 */
#include "check.h"
#include "proc_counts.h"

#include <sys/resource.h>
#include <unistd.h>

#define PLAYERS 48
#define MiB (1024L * 1024L)

/* Mappings of /proc/self/maps of at least `min` bytes, and of 1 MiB within 4 KiB. */
static void count_maps(long min, int *large, int *one_mib)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    *large = *one_mib = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        long size;
        if (sscanf(line, "%lx-%lx", &a, &b) != 2)
            continue;
        size = (long)(b - a);
        if (size >= min)
            (*large)++;
        if (size >= MiB - 4096 && size <= MiB + 4096)
            (*one_mib)++;
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    struct rlimit rl;
    fpx_player *p[PLAYERS];
    long limit;
    int i, seen = 0, large = -1, one_mib = 0, threads = 0;

    if (!getenv("FPX_STACK_TEST_CHILD")) {
        /* The limit glibc reads at start: set it, then start again. */
        REQUIRE(getrlimit(RLIMIT_STACK, &rl) == 0);
        rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)(256 * MiB)) ? (rlim_t)(256 * MiB)
                                                                                         : rl.rlim_max;
        REQUIRE(rl.rlim_cur >= (rlim_t)(64 * MiB));
        REQUIRE(setrlimit(RLIMIT_STACK, &rl) == 0);
        setenv("FPX_STACK_TEST_CHILD", "1", 1);
        execv("/proc/self/exe", argv);
        REQUIRE(!"execv failed");
    }
    check_init(argc, argv, 300);
    REQUIRE(getrlimit(RLIMIT_STACK, &rl) == 0);
    limit = (long)rl.rlim_cur;
    NOTE("RLIMIT_STACK soft limit %ld MiB", limit / MiB);

    SECTION("library threads: 1 MiB stacks under a 256 MiB RLIMIT_STACK");
    for (i = 0; i < PLAYERS; i++) {
        p[i] = make_player(FPX_DELIVERY_THREAD);
        REQUIRE(p[i] != NULL);
    }
    for (i = 0; i < PLAYERS; i++)
        CHECK_OK(fpx_player_open(p[i], fixture("mp4_bframes.mp4")));
    /* Sample while the opens run: the moment with the most worker threads counts. */
    {
        uint64_t end = now_ns() + 20ull * 1000000000ull;
        while (now_ns() < end) {
            int n = proc_threads("fpx-");
            if (n > threads) {
                int l, o;
                count_maps(limit, &l, &o);
                threads = n;
                large = l;
                one_mib = o;
            }
            if (proc_threads("fpx-worker") >= 16)
                seen = 1;
            if (seen && threads >= 16)
                break;
            sleep_ms(1);
        }
    }
    NOTE("%d library threads at most; then %d mappings of >= %ld MiB, %d of 1 MiB", threads, large,
         limit / MiB, one_mib);
    CHECK(threads >= 16);
    CHECK_EQ(large, 0);
    CHECK(one_mib >= threads);
    for (i = 0; i < PLAYERS; i++)
        CHECK_OK(fpx_player_wait_item(p[i], 60000, NULL));
    for (i = 0; i < PLAYERS; i++)
        fpx_player_destroy(p[i]);
    return check_summary();
}
