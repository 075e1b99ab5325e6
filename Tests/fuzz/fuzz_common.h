/*
 * Tests/fuzz/fuzz_common.h -- shared by the libFuzzer harnesses of FastPixSeek.
 *
 * Each harness defines LLVMFuzzerTestOneInput. Built two ways:
 *   - `make fuzz`: with clang -fsanitize=fuzzer,address against a library built
 *     with ASan and sanitizer coverage (build/fuzz/lib);
 *   - Tests/fuzz/replay.sh: with FPX_FUZZ_REPLAY defined, a plain main() that
 *     runs every file of the harness's corpus once (ordinary CI).
 *
 * Invariants checked on every input (a violation aborts: libFuzzer saves the
 * input as a crash): no call returns FPX_ERROR_INTERNAL or a code the library
 * does not name; every seek accepted gets exactly one completion; no callback
 * runs after fpx_player_destroy returns.
 */
#ifndef FPX_FUZZ_COMMON_H
#define FPX_FUZZ_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fastpix/seek.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fz_fail(const char *what, int rc, int line)
{
    fprintf(stderr, "fuzz invariant violated at line %d: %s (rc %d %s)\n", line, what, rc, fpx_error_name(rc));
    abort();
}

/* A return code must be FPX_OK or a named error, never INTERNAL. */
#define FZ_RC(call)                                                          \
    do {                                                                     \
        int fz_rc_ = (call);                                                 \
        if (fz_rc_ == FPX_ERROR_INTERNAL)                                    \
            fz_fail(#call " returned FPX_ERROR_INTERNAL", fz_rc_, __LINE__); \
        if (fz_rc_ > 0 || strcmp(fpx_error_name(fz_rc_), "FPX_UNKNOWN") == 0) \
            fz_fail(#call " returned an unnamed code", fz_rc_, __LINE__);    \
    } while (0)

/* A private scratch directory per process (tmpfs when available). */
static inline const char *fz_dir(void)
{
    static char dir[512];
    if (!dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        snprintf(dir, sizeof dir, "%s/fpx-fuzz-%ld", base, (long)getpid());
        mkdir(dir, 0700);
    }
    return dir;
}

static inline int fz_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    if (n && fwrite(data, 1, n, f) != n) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

/* Seek completions and callbacks, counted. */
typedef struct fz_counts {
    pthread_mutex_t mu;
    long issued, completed;
    int destroyed; /* set after destroy returned: no callback may run after */
    long late;
} fz_counts;

static inline void fz_counts_init(fz_counts *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
}

static inline void fz_on_seek(const fpx_seek_outcome *o, void *ud)
{
    fz_counts *c = ud;
    (void)o;
    pthread_mutex_lock(&c->mu);
    c->completed++;
    if (c->destroyed)
        c->late++;
    pthread_mutex_unlock(&c->mu);
}

static inline void fz_seek(fpx_player *p, fz_counts *c, fpx_time t, fpx_precision prec)
{
    int rc = fpx_player_seek(p, t, prec, fz_on_seek, c, NULL);
    FZ_RC(rc);
    if (rc == FPX_OK) {
        pthread_mutex_lock(&c->mu);
        c->issued++;
        pthread_mutex_unlock(&c->mu);
    }
}

/* Destroys p and checks: one completion per accepted seek, none afterwards. */
static inline void fz_destroy_check(fpx_player *p, fz_counts *c)
{
    FZ_RC(fpx_player_destroy(p));
    pthread_mutex_lock(&c->mu);
    c->destroyed = 1;
    if (c->completed != c->issued) {
        fprintf(stderr, "%ld seeks accepted, %ld completions\n", c->issued, c->completed);
        abort();
    }
    pthread_mutex_unlock(&c->mu);
}

static inline void fz_after_destroy_check(fz_counts *c)
{
    pthread_mutex_lock(&c->mu);
    if (c->late)
        fz_fail("a callback ran after fpx_player_destroy returned", 0, __LINE__);
    pthread_mutex_unlock(&c->mu);
    pthread_mutex_destroy(&c->mu);
}

static inline fpx_player *fz_player(fpx_delivery_mode mode, int64_t io_timeout_ms)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.delivery = mode;
    cfg.io_timeout_ms = io_timeout_ms;
    FZ_RC(fpx_player_create(&cfg, &p));
    return p;
}

#ifdef FPX_FUZZ_REPLAY
/* Replay driver: runs every file named on the command line once. */
int main(int argc, char **argv)
{
    int i, n = 0;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *buf;
        long len;
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf || (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)len);
        free(buf);
        n++;
    }
    printf("replayed %d inputs\n", n);
    return 0;
}
#endif

#endif /* FPX_FUZZ_COMMON_H */
