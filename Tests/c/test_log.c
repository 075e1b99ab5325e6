/* The log (fpx_set_log_callback): by default nothing reaches stderr (fd 2 captured);
 * the callback gets FFmpeg's messages from corrupt.mp4 and the library's own (a refused
 * protocol); NULL silences; bad levels are refused; FPX_LOG_KEEP_FFMPEG_CALLBACK leaves a
 * host's own av_log callback in place (in a child process: FFmpeg's logger is process-wide).
 * Usage: test_log FIXTURE_DIR */
#include "check.h"

#include <dlfcn.h>
#include <fastpix/seek.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int lines, moov_lines, refused_lines, max_level = -100, null_messages;

static void on_log(int level, const char *msg, void *ud) {
    pthread_mutex_lock(&mu);
    if (ud != (void *)&lines) null_messages++;
    if (msg == NULL) null_messages++;
    lines++;
    if (level > max_level) max_level = level;
    if (msg && strstr(msg, "moov atom not found")) moov_lines++;
    if (msg && strstr(msg, "not allowed")) refused_lines++;
    pthread_mutex_unlock(&mu);
}

static void reset(void) {
    pthread_mutex_lock(&mu);
    lines = moov_lines = refused_lines = null_messages = 0;
    max_level = -100;
    pthread_mutex_unlock(&mu);
}

static int open_one(const char *url) {
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_status_info st = {.struct_size = sizeof st};
    int rc;
    if (!p) return -1000;
    fpx_player_open(p, url);
    rc = fpx_player_wait_item(p, 10000, &st);
    fpx_player_destroy(p);
    return rc;
}

/* ---- the child for FPX_LOG_KEEP_FFMPEG_CALLBACK ---- */
static int host_av_lines;
static void host_av_log(void *avcl, int level, const char *fmt, va_list vl) {
    (void)avcl;
    (void)level;
    (void)fmt;
    (void)vl;
    __atomic_add_fetch(&host_av_lines, 1, __ATOMIC_SEQ_CST);
}

static int keep_child(const char *corrupt) {
    void *self = dlopen(NULL, RTLD_NOW);
    void (*set_cb)(void (*)(void *, int, const char *, va_list));
    int ok = 1;
    if (!self) return 2;
    *(void **)&set_cb = dlsym(self, "av_log_set_callback");
    if (!set_cb) return 3;
    set_cb(host_av_log);
    if (fpx_set_log_callback(FPX_LOG_WARNING | FPX_LOG_KEEP_FFMPEG_CALLBACK, on_log, &lines) != FPX_OK) return 4;
    if (open_one(corrupt) != FPX_ERROR_INVALID_DATA) ok = 0;
    /* The host's av_log callback still gets FFmpeg's lines; the library's callback does not. */
    if (__atomic_load_n(&host_av_lines, __ATOMIC_SEQ_CST) < 1) ok = 0;
    if (moov_lines != 0) ok = 0;
    return ok ? 0 : 5;
}

int main(int argc, char **argv) {
    char corrupt[4096], errfile[] = "/tmp/fpx-test-log.XXXXXX";
    int saved, fd, status;
    struct stat st;
    pid_t pid;

    check_init(argc, argv, 120);
    snprintf(corrupt, sizeof corrupt, "%s", fixture("corrupt.mp4"));

    SECTION("FPX_LOG_KEEP_FFMPEG_CALLBACK keeps a host's av_log callback (child process)");
    pid = fork();
    if (pid == 0) _exit(keep_child(corrupt));
    REQUIRE(pid > 0);
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);

    SECTION("by default nothing reaches stderr (fd 2 captured)");
    fd = mkstemp(errfile);
    REQUIRE(fd >= 0);
    fflush(stderr);
    saved = dup(2);
    REQUIRE(saved >= 0);
    dup2(fd, 2);
    CHECK_ERR(open_one(corrupt), FPX_ERROR_INVALID_DATA);
    CHECK_ERR(open_one(fixture("garbage.bin")), FPX_ERROR_INVALID_DATA);
    CHECK_ERR(open_one("gopher://127.0.0.1:1/x"), FPX_ERROR_PROTOCOL_NOT_ALLOWED);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    REQUIRE(fstat(fd, &st) == 0);
    if (!CHECK_EQ(st.st_size, 0)) {
        char buf[512];
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = 0;
        NOTE("stderr got: %s", buf);
    }
    close(fd);
    unlink(errfile);

    SECTION("the callback gets FFmpeg's messages from corrupt.mp4, at or below its level");
    reset();
    CHECK_OK(fpx_set_log_callback(FPX_LOG_WARNING, on_log, &lines));
    CHECK_ERR(open_one(corrupt), FPX_ERROR_INVALID_DATA);
    pthread_mutex_lock(&mu);
    CHECK(moov_lines >= 1);
    CHECK(max_level <= FPX_LOG_WARNING);
    CHECK_EQ(null_messages, 0);
    pthread_mutex_unlock(&mu);

    SECTION("the library's own messages: a refused protocol");
    reset();
    CHECK_ERR(open_one("gopher://127.0.0.1:1/x"), FPX_ERROR_PROTOCOL_NOT_ALLOWED);
    pthread_mutex_lock(&mu);
    CHECK(refused_lines >= 1);
    pthread_mutex_unlock(&mu);

    SECTION("a more verbose level gets more; NULL silences");
    reset();
    CHECK_OK(fpx_set_log_callback(FPX_LOG_DEBUG, on_log, &lines));
    CHECK_ERR(open_one(corrupt), FPX_ERROR_INVALID_DATA);
    pthread_mutex_lock(&mu);
    CHECK(max_level > FPX_LOG_WARNING);
    pthread_mutex_unlock(&mu);
    CHECK_OK(fpx_set_log_callback(FPX_LOG_DEBUG, NULL, NULL));
    reset();
    CHECK_ERR(open_one(corrupt), FPX_ERROR_INVALID_DATA);
    CHECK_EQ(lines, 0);

    SECTION("bad levels");
    CHECK_ERR(fpx_set_log_callback(FPX_LOG_TRACE + 1, on_log, &lines), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_set_log_callback(FPX_LOG_QUIET - 1, on_log, &lines), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_set_log_callback(FPX_LOG_QUIET, on_log, &lines));
    reset();
    CHECK_ERR(open_one(corrupt), FPX_ERROR_INVALID_DATA);
    CHECK_EQ(lines, 0);
    CHECK_OK(fpx_set_log_callback(FPX_LOG_QUIET, NULL, NULL));
    return check_summary();
}
