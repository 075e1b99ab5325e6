/*
 * test_fd_exhaustion.c -- running out of file descriptors is reported as
 * FPX_ERROR_NO_FILE_DESCRIPTORS, never as NO_MEMORY or IO (seek.h, section 6;
 * issue 18.2). The test lowers its own RLIMIT_NOFILE with setrlimit and fills
 * the table with dup(2) until EMFILE, then:
 *
 *   1. fpx_player_create of a FPX_DELIVERY_HOST player (its event fd needs
 *      descriptors) -> FPX_ERROR_NO_FILE_DESCRIPTORS, *out untouched; a
 *      THREAD player (no descriptor) is still created;
 *   2. fpx_player_open of a file -> the item FAILED with
 *      FPX_ERROR_NO_FILE_DESCRIPTORS (wait_item's result, status error,
 *      av_error AVERROR(EMFILE));
 *   3. later calls: a seek of a ready HLS item into a segment not fetched
 *      yet -> the outcome's error; fpx_player_read_packet reading on into a
 *      segment that needs a fetch -> FPX_ERROR_NO_FILE_DESCRIPTORS;
 *   4. once descriptors are free again, create, open, seek and read work.
 *
 * usage: test_fd_exhaustion FIXTURE_DIR
 */
#include "check.h"
#include "proc_counts.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>

#define MAX_FILL 4096
static int fill[MAX_FILL];
static int n_fill;

/* Takes every free descriptor; returns the errno that stopped it. */
static int exhaust(void)
{
    int err = 0;
    while (n_fill < MAX_FILL) {
        int fd = dup(0);
        if (fd < 0) {
            err = errno;
            break;
        }
        fill[n_fill++] = fd;
    }
    return err;
}

static void release(int n)
{
    while (n-- > 0 && n_fill > 0)
        close(fill[--n_fill]);
}

static void release_all(void) { release(n_fill); }

int main(int argc, char **argv)
{
    struct rlimit rl;
    fpx_player_config cfg;
    fpx_player *host = (fpx_player *)0x1, *thr = NULL, *hls = NULL;
    fpx_item_status_info info = {.struct_size = sizeof info};
    char dir[1024], url[1200], cmd[1300];
    int rc, have_hls;

    check_init(argc, argv, 120);
    /* fd 0 must be open for dup(0) */
    if (fcntl(0, F_GETFD) < 0)
        REQUIRE(open("/dev/null", O_RDONLY) == 0);

    SECTION("setup: an HLS VOD item opened while descriptors are free");
    have_hls = make_hls_vod(dir, sizeof dir, "fdexhaust", 12);
    CHECK(have_hls);
    if (have_hls) {
        snprintf(url, sizeof url, "%s/vod.m3u8", dir);
        hls = make_player(FPX_DELIVERY_THREAD);
        REQUIRE(hls != NULL);
        REQUIRE(open_wait(hls, url, NULL) == FPX_OK);
        CHECK_OK(fpx_player_setup_seek_manager(hls));
    }
    thr = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(thr != NULL);

    SECTION("lower RLIMIT_NOFILE and fill the table");
    REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    rl.rlim_cur = (rlim_t)proc_open_fds() + 16;
    REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    CHECK_EQ(exhaust(), EMFILE);
    CHECK(n_fill > 0);

    SECTION("1. create: a HOST player needs descriptors -> NO_FILE_DESCRIPTORS");
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_HOST;
    CHECK_ERR(fpx_player_create(&cfg, &host), FPX_ERROR_NO_FILE_DESCRIPTORS);
    CHECK(host == (fpx_player *)0x1); /* *out untouched */
    CHECK_STR(fpx_error_name(FPX_ERROR_NO_FILE_DESCRIPTORS), "FPX_ERROR_NO_FILE_DESCRIPTORS");
    CHECK(strstr(fpx_error_string(FPX_ERROR_NO_FILE_DESCRIPTORS), "file descriptors") != NULL);
    {
        fpx_player *t = NULL;
        cfg.delivery = FPX_DELIVERY_THREAD;
        CHECK_OK(fpx_player_create(&cfg, &t));
        CHECK_OK(fpx_player_destroy(t));
    }

    SECTION("2. open: the item fails with NO_FILE_DESCRIPTORS");
    CHECK_OK(fpx_player_open(thr, fixture("mp4_bframes.mp4")));
    CHECK_ERR(fpx_player_wait_item(thr, 10000, &info), FPX_ERROR_NO_FILE_DESCRIPTORS);
    CHECK_EQ(info.status, FPX_ITEM_FAILED);
    CHECK_EQ(info.error, FPX_ERROR_NO_FILE_DESCRIPTORS);
    CHECK(info.av_error == -EMFILE);

    if (have_hls) {
        fpx_seek_outcome o = {.struct_size = sizeof o};
        fpx_packet k = {.struct_size = sizeof k};
        SECTION("3. later calls: a seek into an unfetched HLS segment, then a read");
        CHECK_OK(fpx_player_seek_wait(hls, fpx_time_make(10, 1), fpx_precision_exact(), 10000, &o));
        CHECK_EQ(o.reason, FPX_FINISH_FAILED);
        CHECK_EQ(o.error, FPX_ERROR_NO_FILE_DESCRIPTORS);
        /* The failed seek left the read position where it was (segment 0, fetched at
         * open): reading on reaches a segment that needs a fetch, and fails typed. */
        {
            int i;
            for (i = 0; i < 1000; i++)
                if ((rc = fpx_player_read_packet(hls, &k)) != FPX_OK)
                    break;
            CHECK(i > 0);
            CHECK_EQ(rc, FPX_ERROR_NO_FILE_DESCRIPTORS);
            if (rc != FPX_ERROR_NO_FILE_DESCRIPTORS)
                NOTE("read_packet %d -> %d (%s)", i, rc, fpx_error_name(rc));
        }
    }

    SECTION("4. with descriptors free again, everything works");
    release_all();
    cfg.delivery = FPX_DELIVERY_HOST;
    host = NULL;
    CHECK_OK(fpx_player_create(&cfg, &host));
    CHECK_OK(fpx_player_destroy(host));
    CHECK_OK(open_wait(thr, fixture("mp4_bframes.mp4"), NULL));
    if (have_hls) {
        fpx_seek_outcome o = {.struct_size = sizeof o};
        fpx_packet k = {.struct_size = sizeof k};
        CHECK_OK(fpx_player_seek_wait(hls, fpx_time_make(10, 1), fpx_precision_exact(), 10000, &o));
        CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
        CHECK_OK(fpx_player_read_packet(hls, &k));
        CHECK_OK(fpx_player_destroy(hls));
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        (void)!system(cmd);
    }
    CHECK_OK(fpx_player_destroy(thr));
    return check_summary();
}
