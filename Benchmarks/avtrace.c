/*
 * avtrace.c -- an LD_PRELOAD shim that counts and times the libavformat calls a process makes,
 * so the benchmark can split a seek's time into "inside FFmpeg" and "everything else".
 *
 *   LD_PRELOAD=avtrace.so AVTRACE_OUT=file program ...
 *
 * Wraps av_read_frame, av_seek_frame, avformat_seek_file and avformat_flush (each forwards
 * to the real function found with dlsym(RTLD_NEXT)). At exit it writes one line per function
 * to AVTRACE_OUT (or stderr): "name,calls,total_ns". Counters are atomic; any thread may call.
 *
 * Build: cc -std=c99 -Wall -Wextra -O2 -shared -fPIC avtrace.c -o avtrace.so -ldl
 *        $(pkg-config --cflags libavformat)
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <libavformat/avformat.h>

enum { T_READ, T_SEEK, T_SEEK_FILE, T_FLUSH, T_COUNT };
static const char *const names[T_COUNT] = {"av_read_frame", "av_seek_frame",
                                           "avformat_seek_file", "avformat_flush"};
static uint64_t calls[T_COUNT];
static uint64_t total_ns[T_COUNT];

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void account(int which, uint64_t t0)
{
    __atomic_add_fetch(&calls[which], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&total_ns[which], now_ns() - t0, __ATOMIC_RELAXED);
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "avtrace: %s not found\n", name);
        abort();
    }
    return f;
}

int av_read_frame(AVFormatContext *s, AVPacket *pkt)
{
    static int (*fn)(AVFormatContext *, AVPacket *);
    uint64_t t0;
    int r;
    if (!fn)
        *(void **)&fn = real("av_read_frame");
    t0 = now_ns();
    r = fn(s, pkt);
    account(T_READ, t0);
    return r;
}

int av_seek_frame(AVFormatContext *s, int stream_index, int64_t timestamp, int flags)
{
    static int (*fn)(AVFormatContext *, int, int64_t, int);
    uint64_t t0;
    int r;
    if (!fn)
        *(void **)&fn = real("av_seek_frame");
    t0 = now_ns();
    r = fn(s, stream_index, timestamp, flags);
    account(T_SEEK, t0);
    return r;
}

int avformat_seek_file(AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts,
                       int64_t max_ts, int flags)
{
    static int (*fn)(AVFormatContext *, int, int64_t, int64_t, int64_t, int);
    uint64_t t0;
    int r;
    if (!fn)
        *(void **)&fn = real("avformat_seek_file");
    t0 = now_ns();
    r = fn(s, stream_index, min_ts, ts, max_ts, flags);
    account(T_SEEK_FILE, t0);
    return r;
}

int avformat_flush(AVFormatContext *s)
{
    static int (*fn)(AVFormatContext *);
    uint64_t t0;
    int r;
    if (!fn)
        *(void **)&fn = real("avformat_flush");
    t0 = now_ns();
    r = fn(s);
    account(T_FLUSH, t0);
    return r;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("AVTRACE_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    int i;
    if (!f)
        f = stderr;
    fprintf(f, "name,calls,total_ns\n");
    for (i = 0; i < T_COUNT; i++)
        fprintf(f, "%s,%" PRIu64 ",%" PRIu64 "\n", names[i],
                __atomic_load_n(&calls[i], __ATOMIC_RELAXED),
                __atomic_load_n(&total_ns[i], __ATOMIC_RELAXED));
    if (f != stderr)
        fclose(f);
}
