/*
 * av_bench.c -- the reference implementation for the FastPixSeek benchmarks: a hand-written
 * libavformat loop doing the correct exact seek (see ../shared/docs/ENGINEERING-NOTES.md,
 * "A correct exact landing"), demux only, no decoding.
 *
 * Usage:
 *   av_bench seek FILE TARGETS MODE PASSES REOPEN
 *       MODE   exact | key     exact: the frame covering the target (largest pts <= target);
 *                              key:   the last keyframe at or before the target.
 *       PASSES how many times the whole target list is run.
 *       REOPEN 1: close and reopen the file whenever the target's segment number changes
 *              (cold protocol; opening is never timed), 0: one context for everything.
 *     Prints "pass,idx,target,landed,ns,packets" per seek (ns: wall time of the seek;
 *     packets: av_read_frame calls it made, all streams).
 *   av_bench open FILE [TARGETS]
 *     Times avformat_open_input + avformat_find_stream_info and reports ru_maxrss before and
 *     after; with TARGETS, also runs one exact pass and reports ru_maxrss after it.
 *     Runs in a forked child, so that ru_maxrss counts this measurement only (Linux carries
 *     ru_maxrss across execve from whatever process started us).
 *     Prints "open_ns,rss_start_kb,rss_open_kb,rss_seeks_kb,hwm_open_kb,hwm_seeks_kb"
 *     (ru_maxrss, and VmHWM from /proc/self/status as a cross-check).
 *
 *   av_bench throughput FILE TARGETS PLAYERS THREADS SEEKS
 *     PLAYERS contexts of FILE, shared by THREADS host threads, SEEKS exact seeks in all (the
 *     schedule and the output of bench_threads.h).
 *
 *   av_bench readall FILE
 *     The demux floor of a full index: avformat_open_input + avformat_find_stream_info, then
 *     av_read_frame until EOF with every stream but the reference one discarded
 *     (AVDISCARD_ALL), keeping each video packet's pts and flags in an array, timed.
 *     Prints "total_ns,open_ns,read_ns,packets" (packets: of the reference stream).
 *
 * TARGETS: a text file; '#' lines are comments, every other line is "SEGMENT TICKS": an
 * absolute pts in the reference stream's time base (the best video stream).
 *
 * Build: cc -std=c99 -Wall -Wextra -O2 -pthread av_bench.c $(pkg-config --cflags --libs libavformat
 *        libavcodec libavutil)
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_threads.h"

#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/mathematics.h>

typedef struct reader {
    AVFormatContext *fmt;
    AVPacket *pkt;
    int vs;               /* reference stream index */
    int video_delay;
    AVRational tb;
    int64_t packets;      /* av_read_frame successes since the last reset */
} reader;





static void die(const char *what, int err)
{
    char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
    if (err < 0)
        av_strerror(err, buf, sizeof buf);
    fprintf(stderr, "av_bench: %s%s%s\n", what, err < 0 ? ": " : "", buf);
    exit(2);
}

static void reader_open(reader *r, const char *path)
{
    int err;
    memset(r, 0, sizeof *r);
    err = avformat_open_input(&r->fmt, path, NULL, NULL);
    if (err < 0)
        die("avformat_open_input", err);
    err = avformat_find_stream_info(r->fmt, NULL);
    if (err < 0)
        die("avformat_find_stream_info", err);
    r->vs = av_find_best_stream(r->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (r->vs < 0)
        die("no video stream", r->vs);
    r->tb = r->fmt->streams[r->vs]->time_base;
    r->video_delay = r->fmt->streams[r->vs]->codecpar->video_delay;
    r->pkt = av_packet_alloc();
    if (!r->pkt)
        die("out of memory", 0);
}

static void reader_close(reader *r)
{
    av_packet_free(&r->pkt);
    avformat_close_input(&r->fmt);
}

/* Next packet of the reference stream; 0 or AVERROR_EOF (or another error). */
static int next_video(reader *r)
{
    for (;;) {
        int err = av_read_frame(r->fmt, r->pkt);
        if (err < 0)
            return err;
        r->packets++;
        if (r->pkt->stream_index == r->vs)
            return 0;
        av_packet_unref(r->pkt);
    }
}

/*
 * Positions the demuxer so that the next packet of the reference stream is a keyframe K
 * with K.pts <= target, and returns 0 with K in r->pkt. Backs off 1 s, doubling, while the
 * first keyframe after the seek is after the target, or EOF comes before any keyframe.
 * *backed_off is set when the first attempt was not good enough.
 */
static int seek_to_keyframe_before(reader *r, int64_t target, int *backed_off)
{
    int64_t one_s = av_rescale_q(1, (AVRational){1, 1}, r->tb);
    int64_t backoff = 0;
    int attempt;
    *backed_off = 0;
    for (attempt = 0; attempt < 40; attempt++) {
        int err = av_seek_frame(r->fmt, r->vs, target - backoff, AVSEEK_FLAG_BACKWARD);
        if (err < 0 && backoff > 0) /* before everything: go to the first byte */
            err = av_seek_frame(r->fmt, -1, 0, AVSEEK_FLAG_BYTE);
        if (err >= 0) {
            for (;;) {
                err = next_video(r);
                if (err < 0)
                    break;
                if (r->pkt->flags & AV_PKT_FLAG_KEY)
                    break;
                av_packet_unref(r->pkt);
            }
            if (err == 0 && (r->pkt->pts == AV_NOPTS_VALUE || r->pkt->pts <= target))
                return 0;
            if (err == 0)
                av_packet_unref(r->pkt);
            else if (err != AVERROR_EOF)
                return err;
        }
        /* the keyframe is after the target, EOF came first, or nothing to seek to: back off */
        backoff = backoff ? backoff * 2 : one_s;
        *backed_off = 1;
    }
    return AVERROR_EOF;
}

/*
 * The exact seek: the largest non-discard pts <= target, reading in decode order from the
 * keyframe, until dts > target (or, without dts, video_delay + 1 packets with pts > target).
 * With keys_only, the candidate set is keyframes only (the last keyframe at or before).
 */
static int hand_seek(reader *r, int64_t target, int keys_only, int64_t *landed)
{
    int backed_off = 0;
    int err = seek_to_keyframe_before(r, target, &backed_off);
    int64_t best = AV_NOPTS_VALUE;
    int after = 0;
    if (err < 0)
        return err;
    if (keys_only && !backed_off) {
        /* The seek put us on the keyframe at or before the target (checked: pts <= target). */
        *landed = r->pkt->pts;
        av_packet_unref(r->pkt);
        return 0;
    }
    for (;;) {
        AVPacket *p = r->pkt;
        int stop = 0;
        if (!(p->flags & AV_PKT_FLAG_DISCARD) && p->pts != AV_NOPTS_VALUE && p->pts <= target &&
            (!keys_only || (p->flags & AV_PKT_FLAG_KEY)) &&
            (best == AV_NOPTS_VALUE || p->pts > best))
            best = p->pts;
        if (p->dts != AV_NOPTS_VALUE) {
            if (p->dts > target)
                stop = 1;
        } else if (p->pts != AV_NOPTS_VALUE && p->pts > target) {
            if (++after >= r->video_delay + 1)
                stop = 1;
        }
        av_packet_unref(p);
        if (stop)
            break;
        err = next_video(r);
        if (err == AVERROR_EOF)
            break;
        if (err < 0)
            return err;
    }
    if (best == AV_NOPTS_VALUE)
        return AVERROR_INVALIDDATA;
    *landed = best;
    return 0;
}

static int cmd_seek(int argc, char **argv)
{
    const char *path, *mode;
    target *t;
    size_t n, i;
    int passes, reopen, keys, pass;
    reader r;
    long seg = -1;
    if (argc != 7) {
        fprintf(stderr, "usage: av_bench seek FILE TARGETS exact|key PASSES REOPEN\n");
        return 2;
    }
    path = argv[2];
    t = read_targets("av_bench", argv[3], &n);
    mode = argv[4];
    keys = strcmp(mode, "key") == 0;
    if (!keys && strcmp(mode, "exact") != 0) {
        fprintf(stderr, "av_bench: unknown mode %s\n", mode);
        return 2;
    }
    passes = atoi(argv[5]);
    reopen = atoi(argv[6]);
    reader_open(&r, path);
    printf("pass,idx,target,landed,ns,packets\n");
    for (pass = 0; pass < passes; pass++) {
        for (i = 0; i < n; i++) {
            int64_t landed = AV_NOPTS_VALUE;
            uint64_t t0, t1;
            int err;
            if (reopen && pass == 0 && t[i].segment != seg && seg != -1) {
                reader_close(&r);
                reader_open(&r, path);
            }
            seg = t[i].segment;
            r.packets = 0;
            t0 = now_ns();
            err = hand_seek(&r, t[i].ticks, keys, &landed);
            t1 = now_ns();
            if (err < 0)
                die("seek failed", err);
            printf("%d,%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRId64 "\n", pass, i,
                   t[i].ticks, landed, t1 - t0, r.packets);
        }
    }
    reader_close(&r);
    free(t);
    return 0;
}

static int open_child(int argc, char **argv)
{
    long rss0, rss1, rss2 = -1, hwm1, hwm2 = -1;
    uint64_t t0, t1;
    AVFormatContext *fmt = NULL;
    int err;
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: av_bench open FILE [TARGETS]\n");
        return 2;
    }
    rss0 = max_rss_kb();
    t0 = now_ns();
    err = avformat_open_input(&fmt, argv[2], NULL, NULL);
    if (err >= 0)
        err = avformat_find_stream_info(fmt, NULL);
    t1 = now_ns();
    if (err < 0)
        die("open", err);
    rss1 = max_rss_kb();
    hwm1 = vm_hwm_kb();
    if (argc == 4) {
        /* hand the context to a reader and run the targets once */
        reader r;
        size_t n, i;
        target *t = read_targets("av_bench", argv[3], &n);
        memset(&r, 0, sizeof r);
        r.fmt = fmt;
        r.vs = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (r.vs < 0)
            die("no video stream", r.vs);
        r.tb = fmt->streams[r.vs]->time_base;
        r.video_delay = fmt->streams[r.vs]->codecpar->video_delay;
        r.pkt = av_packet_alloc();
        if (!r.pkt)
            die("out of memory", 0);
        for (i = 0; i < n; i++) {
            int64_t landed;
            err = hand_seek(&r, t[i].ticks, 0, &landed);
            if (err < 0)
                die("seek failed", err);
        }
        rss2 = max_rss_kb();
        hwm2 = vm_hwm_kb();
        av_packet_free(&r.pkt);
        free(t);
    }
    printf("open_ns,rss_start_kb,rss_open_kb,rss_seeks_kb,hwm_open_kb,hwm_seeks_kb\n"
           "%" PRIu64 ",%ld,%ld,%ld,%ld,%ld\n", t1 - t0, rss0, rss1, rss2, hwm1, hwm2);
    avformat_close_input(&fmt);
    return 0;
}

static int cmd_readall(int argc, char **argv)
{
    reader r;
    uint64_t t0, t1, t2;
    size_t n = 0, cap = 0;
    int64_t *pts = NULL;
    unsigned char *key = NULL;
    int err;
    if (argc != 3) {
        fprintf(stderr, "usage: av_bench readall FILE\n");
        return 2;
    }
    t0 = now_ns();
    reader_open(&r, argv[2]);
    for (unsigned i = 0; i < r.fmt->nb_streams; i++)
        if ((int)i != r.vs)
            r.fmt->streams[i]->discard = AVDISCARD_ALL;
    t1 = now_ns();
    while ((err = next_video(&r)) == 0) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            pts = realloc(pts, cap * sizeof *pts);
            key = realloc(key, cap);
            if (!pts || !key)
                die("out of memory", 0);
        }
        pts[n] = r.pkt->pts;
        key[n] = (r.pkt->flags & AV_PKT_FLAG_KEY) != 0;
        n++;
        av_packet_unref(r.pkt);
    }
    t2 = now_ns();
    if (err != AVERROR_EOF)
        die("av_read_frame", err);
    printf("total_ns,open_ns,read_ns,packets\n%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%zu\n",
           t2 - t0, t1 - t0, t2 - t1, n);
    free(pts);
    free(key);
    reader_close(&r);
    return 0;
}

static int throughput_seek(void *ctx, int player, int64_t ticks, int64_t *landed)
{
    reader *r = (reader *)ctx + player;
    r->packets = 0;
    return hand_seek(r, ticks, 0, landed) < 0;
}

static int cmd_throughput(int argc, char **argv)
{
    throughput_run run;
    reader *readers;
    int i, rc;
    if (argc != 7) {
        fprintf(stderr, "usage: av_bench throughput FILE TARGETS PLAYERS THREADS SEEKS\n");
        return 2;
    }
    memset(&run, 0, sizeof run);
    run.targets = read_targets("av_bench", argv[3], &run.ntargets);
    run.players = atoi(argv[4]);
    run.threads = atoi(argv[5]);
    run.seeks = (size_t)atol(argv[6]);
    if (run.players < 1)
        return 2;
    readers = calloc((size_t)run.players, sizeof *readers);
    if (!readers)
        die("out of memory", 0);
    for (i = 0; i < run.players; i++)
        reader_open(&readers[i], argv[2]);
    run.seek = throughput_seek;
    run.ctx = readers;
    rc = throughput_main(&run);
    for (i = 0; i < run.players; i++)
        reader_close(&readers[i]);
    free(readers);
    free((void *)run.targets);
    return rc;
}

int main(int argc, char **argv)
{
    av_log_set_level(AV_LOG_ERROR);
    if (argc >= 2 && strcmp(argv[1], "throughput") == 0)
        return cmd_throughput(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "seek") == 0)
        return cmd_seek(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "open") == 0)
        return in_child(open_child, argc, argv);
    if (argc >= 2 && strcmp(argv[1], "readall") == 0)
        return cmd_readall(argc, argv);
    fprintf(stderr, "usage: av_bench seek|open|readall|throughput ...\n");
    return 2;
}
