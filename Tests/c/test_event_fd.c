/*
 * test_event_fd.c -- the sentences of seek.h "Event delivery" about the
 * event fd and the wakeup callback that test_delivery.c does not cover:
 *   - the fd is an eventfd (one descriptor per player), non-blocking and close-on-exec;
 *   - level-triggered, watched with epoll exactly as the header's example
 *     does: readable on every epoll_wait while events are queued, not after
 *     fpx_player_dispatch_events() drained them;
 *   - the same fd for the player's whole life: across opens, a replacing
 *     open and close_item;
 *   - closed by fpx_player_destroy() (also when destroy is called from inside
 *     a dispatched callback: once that dispatch returns);
 *   - the wakeup runs once per empty-to-non-empty change of the queue: many
 *     events queued without a dispatch give one wakeup; the next event after
 *     a dispatch gives the next one.
 *
 * usage: test_event_fd FIXTURE_DIR
 */
#include "check.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/stat.h>

static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static int wakeups;

static void on_wakeup(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&wmu);
    wakeups++;
    pthread_mutex_unlock(&wmu);
}

static int get_wakeups(void)
{
    int n;
    pthread_mutex_lock(&wmu);
    n = wakeups;
    pthread_mutex_unlock(&wmu);
    return n;
}

static fpx_player *host_player(int with_wakeup)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_HOST;
    if (with_wakeup)
        cfg.wakeup = on_wakeup;
    return fpx_player_create(&cfg, &p) == FPX_OK ? p : NULL;
}

static int epoll_ready(int ep, int ms)
{
    struct epoll_event ev;
    int n;
    do
        n = epoll_wait(ep, &ev, 1, ms);
    while (n < 0 && errno == EINTR);
    return n;
}

static fpx_player_stats stats(fpx_player *p)
{
    fpx_player_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    fpx_player_stats_get(p, &s);
    return s;
}

static void wait_until_decided(fpx_player *p, uint64_t n)
{
    uint64_t end = now_ns() + 20000000000ull;
    for (;;) {
        fpx_player_stats s = stats(p);
        if (s.seeks_completed + s.seeks_superseded + s.seeks_cancelled + s.seeks_failed >= n || now_ns() > end)
            break;
        sleep_ms(2);
    }
}

static void pipe_and_epoll(void)
{
    fpx_player *p = host_player(0);
    struct stat st;
    struct epoll_event ev;
    int fd = -1, ep, flags, n;
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_event_fd(p, &fd));
    REQUIRE(fd >= 0);
    CHECK(fstat(fd, &st) == 0);
    {
        char link[64], target[64] = "";
        ssize_t k;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        k = readlink(link, target, sizeof target - 1);
        if (k > 0)
            target[k] = 0;
        CHECK_STR(target, "anon_inode:[eventfd]");
    }
    flags = fcntl(fd, F_GETFL);
    CHECK(flags >= 0 && (flags & O_NONBLOCK));
    flags = fcntl(fd, F_GETFD);
    CHECK(flags >= 0 && (flags & FD_CLOEXEC));

    ep = epoll_create1(EPOLL_CLOEXEC);
    REQUIRE(ep >= 0);
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN; /* level-triggered, as in the header's example */
    ev.data.fd = fd;
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0);
    CHECK_EQ(epoll_ready(ep, 0), 0);
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_EQ(epoll_ready(ep, 5000), 1);
    CHECK_EQ(epoll_ready(ep, 0), 1); /* level: again, nothing consumed */
    CHECK_EQ(epoll_ready(ep, 0), 1);
    n = 0;
    CHECK_OK(fpx_player_dispatch_events(p, &n));
    CHECK(n >= 2);
    CHECK_EQ(epoll_ready(ep, 0), 0); /* drained */
    close(ep);
    fpx_player_destroy(p);
}

static void same_fd_for_life(void)
{
    fpx_player *p = host_player(0);
    int fd0 = -1, fd = -1;
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_event_fd(p, &fd0));
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_event_fd(p, &fd));
    CHECK_EQ(fd, fd0);
    CHECK_OK(fpx_player_open(p, fixture("mkv.mkv"))); /* replaces the item */
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_event_fd(p, &fd));
    CHECK_EQ(fd, fd0);
    CHECK_OK(fpx_player_close_item(p));
    CHECK_OK(fpx_player_event_fd(p, &fd));
    CHECK_EQ(fd, fd0);
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    fpx_player_destroy(p);
}

static int fd_is_open(int fd)
{
    errno = 0;
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

typedef struct destroyer {
    fpx_player *p;
    int rc;
    int called;
} destroyer;

static void destroy_from_callback(const fpx_seek_outcome *o, void *ud)
{
    destroyer *d = (destroyer *)ud;
    (void)o;
    d->called = 1;
    d->rc = fpx_player_destroy(d->p);
}

static void closed_by_destroy(void)
{
    fpx_player *p = host_player(1);
    int fd = -1;
    destroyer d;
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_event_fd(p, &fd));
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK(fd_is_open(fd));
    CHECK_OK(fpx_player_destroy(p)); /* events still queued: destroy drains them */
    CHECK(!fd_is_open(fd));

    /* From inside a dispatched callback: closed once that dispatch returns. */
    p = host_player(0);
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_event_fd(p, &fd));
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&d, 0, sizeof d);
    d.p = p;
    CHECK_OK(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), destroy_from_callback, &d, NULL));
    wait_until_decided(p, 1);
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    CHECK_EQ(d.called, 1);
    CHECK_OK(d.rc);
    CHECK(!fd_is_open(fd));
}

static void wakeup_once_per_change(void)
{
    fpx_player *p;
    int fd = -1, w0, i;
    uint64_t end;
    pthread_mutex_lock(&wmu);
    wakeups = 0; /* the previous section's player had a wakeup too */
    pthread_mutex_unlock(&wmu);
    p = host_player(1);
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_event_fd(p, &fd));
    CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    end = now_ns() + 5000000000ull;
    while (get_wakeups() < 1 && now_ns() < end)
        sleep_ms(2);
    sleep_ms(100);
    CHECK_EQ(get_wakeups(), 1); /* LOADING and READY queued: one change, one wakeup */
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    w0 = get_wakeups();

    /* Twenty seeks, twenty completions queued, no dispatch: one wakeup. */
    for (i = 0; i < 20; i++)
        CHECK_OK(fpx_player_seek(p, fpx_time_make(i, 2), fpx_precision_exact(), NULL, NULL, NULL));
    wait_until_decided(p, 20);
    end = now_ns() + 5000000000ull;
    while (get_wakeups() == w0 && now_ns() < end)
        sleep_ms(2);
    sleep_ms(200);
    CHECK_EQ(get_wakeups(), w0 + 1);

    /* Drained, then one more event: the next wakeup. */
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    sleep_ms(100);
    CHECK_EQ(get_wakeups(), w0 + 1);
    CHECK_OK(fpx_player_seek(p, fpx_time_make(3, 1), fpx_precision_exact(), NULL, NULL, NULL));
    wait_until_decided(p, 21);
    end = now_ns() + 5000000000ull;
    while (get_wakeups() == w0 + 1 && now_ns() < end)
        sleep_ms(2);
    sleep_ms(100);
    CHECK_EQ(get_wakeups(), w0 + 2);
    CHECK_OK(fpx_player_dispatch_events(p, NULL));
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 110);
    SECTION("a non-blocking, close-on-exec pipe; level-triggered under epoll");
    pipe_and_epoll();
    SECTION("the same fd across opens and close_item");
    same_fd_for_life();
    SECTION("closed by destroy (also from inside a dispatched callback)");
    closed_by_destroy();
    SECTION("wakeup once per empty-to-non-empty change");
    wakeup_once_per_change();
    return check_summary();
}
