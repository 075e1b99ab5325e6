/*
 * Tests/c/check.h -- tiny test macros for the C ABI tests of FastPixSeek.
 *
 * Include this header FIRST in every test program (it sets the POSIX feature
 * level for the system headers).
 *
 *   CHECK(cond)             count a pass, or print file:line and the expression
 *   CHECK_OK(call)          call must return FPX_OK; on failure prints the code,
 *                           its fpx_error_name and fpx_error_string
 *   CHECK_ERR(call, code)   call must return exactly `code`
 *   CHECK_EQ(a, b)          integer equality, printing both values
 *   CHECK_TIME_EQ(a, b)     fpx_time_compare(a, b) == 0, printing both times
 *   CHECK_STR(a, b)         string equality (NULL-safe)
 *   REQUIRE(cond)           like CHECK, but ends the program (with the summary)
 *                           when it fails: use it when nothing after can work
 *
 * The counters are thread-safe: checks may run inside library callbacks.
 * End main with `return check_summary();`: it prints, alone on a line,
 *
 *   N passed, N failed
 *
 * and returns 0 only when nothing failed. check_watchdog(seconds) arms an
 * alarm that prints the current SECTION, the summary (counting the hang as a
 * failure) and exits, so a hang is reported instead of silently killed.
 */
#ifndef FPX_TEST_CHECK_H
#define FPX_TEST_CHECK_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fastpix/seek.h>

static pthread_mutex_t check_mu_ = PTHREAD_MUTEX_INITIALIZER;
static long check_passed_ = 0;
static long check_failed_ = 0;
static const char *volatile check_section_ = "start";

static inline void check_pass_(void)
{
    pthread_mutex_lock(&check_mu_);
    check_passed_++;
    pthread_mutex_unlock(&check_mu_);
}

/* Prints one failure line (under the lock, so lines never interleave). */
static inline void check_fail_(const char *file, int line, const char *what, const char *detail)
{
    pthread_mutex_lock(&check_mu_);
    check_failed_++;
    fprintf(stdout, "%s:%d: FAIL [%s] %s%s%s\n", file, line, (const char *)check_section_, what,
            detail && *detail ? " -- " : "", detail ? detail : "");
    fflush(stdout);
    pthread_mutex_unlock(&check_mu_);
}

static inline int check_bool_(int ok, const char *file, int line, const char *expr)
{
    if (ok)
        check_pass_();
    else
        check_fail_(file, line, expr, NULL);
    return ok;
}

static inline int check_code_(int got, int want, const char *file, int line, const char *expr)
{
    char buf[512];
    if (got == want) {
        check_pass_();
        return 1;
    }
    snprintf(buf, sizeof buf, "expected %d (%s), got %d (%s: %s)", want, fpx_error_name(want), got,
             fpx_error_name(got), fpx_error_string(got));
    check_fail_(file, line, expr, buf);
    return 0;
}

static inline int check_eq_(long long a, long long b, const char *file, int line, const char *expr)
{
    char buf[128];
    if (a == b) {
        check_pass_();
        return 1;
    }
    snprintf(buf, sizeof buf, "got %lld, expected %lld", a, b);
    check_fail_(file, line, expr, buf);
    return 0;
}

static inline int check_time_eq_(fpx_time a, fpx_time b, const char *file, int line, const char *expr)
{
    char buf[256];
    if (fpx_time_compare(a, b) == 0) {
        check_pass_();
        return 1;
    }
    snprintf(buf, sizeof buf, "got %" PRId64 "/%" PRId32 " flags %" PRIu32 " (%.9g s), expected %" PRId64
             "/%" PRId32 " flags %" PRIu32 " (%.9g s)",
             a.value, a.timescale, a.flags, fpx_time_to_seconds(a), b.value, b.timescale, b.flags,
             fpx_time_to_seconds(b));
    check_fail_(file, line, expr, buf);
    return 0;
}

static inline int check_str_(const char *a, const char *b, const char *file, int line, const char *expr)
{
    char buf[512];
    if (a && b && strcmp(a, b) == 0) {
        check_pass_();
        return 1;
    }
    snprintf(buf, sizeof buf, "got \"%s\", expected \"%s\"", a ? a : "(null)", b ? b : "(null)");
    check_fail_(file, line, expr, buf);
    return 0;
}

static inline int check_summary(void)
{
    long p, f;
    pthread_mutex_lock(&check_mu_);
    p = check_passed_;
    f = check_failed_;
    pthread_mutex_unlock(&check_mu_);
    fflush(stdout);
    fprintf(stdout, "%ld passed, %ld failed\n", p, f);
    fflush(stdout);
    return f ? 1 : 0;
}

#define CHECK(cond) check_bool_(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_OK(call) check_code_((call), FPX_OK, __FILE__, __LINE__, #call)
#define CHECK_ERR(call, code) check_code_((call), (code), __FILE__, __LINE__, #call " == " #code)
#define CHECK_EQ(a, b) check_eq_((long long)(a), (long long)(b), __FILE__, __LINE__, #a " == " #b)
#define CHECK_TIME_EQ(a, b) check_time_eq_((a), (b), __FILE__, __LINE__, #a " == " #b)
#define CHECK_STR(a, b) check_str_((a), (b), __FILE__, __LINE__, #a " == " #b)
#define REQUIRE(cond)                                                   \
    do {                                                                \
        if (!check_bool_(!!(cond), __FILE__, __LINE__, "REQUIRE " #cond)) { \
            fprintf(stdout, "cannot continue after this failure\n");    \
            check_summary();                                            \
            exit(1);                                                    \
        }                                                               \
    } while (0)
/* Prints an informational line (never a pass or a failure). */
#define NOTE(...)                                         \
    do {                                                  \
        pthread_mutex_lock(&check_mu_);                   \
        fprintf(stdout, "note [%s]: ", (const char *)check_section_); \
        fprintf(stdout, __VA_ARGS__);                     \
        fprintf(stdout, "\n");                            \
        fflush(stdout);                                   \
        pthread_mutex_unlock(&check_mu_);                 \
    } while (0)
#define SECTION(name)                          \
    do {                                       \
        check_section_ = (name);               \
        fprintf(stdout, "== %s\n", (name));    \
        fflush(stdout);                        \
    } while (0)

/* ---- watchdog ---------------------------------------------------------- */

static inline void check_write_(const char *s)
{
    ssize_t r = write(1, s, strlen(s));
    (void)r;
}

static inline void check_ltoa_(long v, char *buf)
{
    char tmp[32];
    int n = 0, i = 0;
    if (v == 0)
        tmp[n++] = '0';
    while (v > 0) {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    }
    while (n > 0)
        buf[i++] = tmp[--n];
    buf[i] = 0;
}

static unsigned check_watchdog_seconds_;

static inline void check_alarm_(int sig)
{
    char num[32];
    (void)sig;
    /* Async-signal-safe: write(2) only; the counters are read without the
     * lock (a torn read only affects the printed number). */
    check_write_("\nFAIL [");
    check_write_((const char *)check_section_);
    check_write_("] watchdog: the whole test did not finish within its budget of ");
    check_ltoa_((long)check_watchdog_seconds_, num);
    check_write_(num);
    check_write_(" s (a hang -- a deadlock or a call that never returned -- or a machine too loaded to run it in time)\n");
    check_ltoa_(check_passed_, num);
    check_write_(num);
    check_write_(" passed, ");
    check_ltoa_(check_failed_ + 1, num);
    check_write_(num);
    check_write_(" failed\n");
    _exit(1);
}

static inline void check_watchdog(unsigned seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = check_alarm_;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    check_watchdog_seconds_ = seconds;
    alarm(seconds);
}

/* ---- small helpers shared by the tests ---------------------------------- */

/* Flags shared between a test's threads (stop flags), read and written under
 * a lock so that ThreadSanitizer (make test-tsan) sees no race in the tests. */
static pthread_mutex_t check_flag_mu_ = PTHREAD_MUTEX_INITIALIZER;
static inline int flag_get(volatile int *f)
{
    int v;
    pthread_mutex_lock(&check_flag_mu_);
    v = *f;
    pthread_mutex_unlock(&check_flag_mu_);
    return v;
}
static inline void flag_set(volatile int *f, int v)
{
    pthread_mutex_lock(&check_flag_mu_);
    *f = v;
    pthread_mutex_unlock(&check_flag_mu_);
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static const char *check_fixture_dir_ = ".";

/* "<fixture dir>/<name>" in one of 8 rotating static buffers. */
static inline const char *fixture(const char *name)
{
    static char bufs[8][4096];
    static int next = 0;
    char *b;
    pthread_mutex_lock(&check_mu_);
    b = bufs[next];
    next = (next + 1) % 8;
    pthread_mutex_unlock(&check_mu_);
    snprintf(b, 4096, "%s/%s", check_fixture_dir_, name);
    return b;
}

/* Parses argv (fixture dir), arms the watchdog. */
static inline void check_init(int argc, char **argv, unsigned watchdog_seconds)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1)
        check_fixture_dir_ = argv[1];
    check_watchdog(watchdog_seconds);
}

/* ---- player helpers ------------------------------------------------------ */

/* Creates a player with the given delivery mode (wakeup NULL). */
static inline fpx_player *make_player(fpx_delivery_mode mode)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    int rc;
    fpx_player_config_init(&cfg);
    cfg.delivery = mode;
    rc = fpx_player_create(&cfg, &p);
    if (rc != FPX_OK || p == NULL) {
        char buf[256];
        snprintf(buf, sizeof buf, "fpx_player_create -> %d (%s)", rc, fpx_error_name(rc));
        check_fail_(__FILE__, __LINE__, "make_player", buf);
        return NULL;
    }
    return p;
}

/* Writes a VOD HLS playlist of `seconds` 1 s H.264 segments (25 fps, GOP 25) with the
 * ffmpeg CLI into a new directory under $TMPDIR named fpx-<tag>-XXXXXX (its path in dir).
 * Returns 1 on success. The caller removes the directory. */
static inline int make_hls_vod(char *dir, size_t n, const char *tag, int seconds)
{
    char cmd[4096];
    snprintf(dir, n, "%s/fpx-%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", tag);
    if (!mkdtemp(dir))
        return 0;
    snprintf(cmd, sizeof cmd,
             "ffmpeg -nostdin -v error -y -f lavfi -i testsrc=size=160x120:rate=25 -t %d "
             "-c:v libx264 -g 25 -keyint_min 25 -sc_threshold 0 -pix_fmt yuv420p "
             "-f hls -hls_time 1 -hls_list_size 0 -hls_playlist_type vod "
             "-hls_segment_filename '%s/seg%%03d.ts' '%s/vod.m3u8' >/dev/null 2>&1",
             seconds, dir, dir);
    return system(cmd) == 0;
}

/* Opens path and waits (10 s) for READY; returns the fpx code of the wait. */
static inline int open_wait(fpx_player *p, const char *path, fpx_item_status_info *info)
{
    int rc = fpx_player_open(p, path);
    if (rc != FPX_OK)
        return rc;
    return fpx_player_wait_item(p, 10000, info);
}

#endif /* FPX_TEST_CHECK_H */
