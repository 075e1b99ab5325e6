/*
 * ffms2_bench.c -- ffms2 (Debian's libffms2-dev), the third-party frame-accurate indexer, for
 * the benchmarks (see bench.py).
 *
 * Usage:
 *   ffms2_bench index FILE
 *     FFMS_CreateIndexer + FFMS_DoIndexing2 (FFMS_IEH_ABORT) with only the first video track
 *     selected for indexing (FFMS_TrackIndexSettings: every other track off), timed; the
 *     resulting index is not written anywhere. FFMS_Init is not timed.
 *     Prints "total_ns,create_ns,index_ns,frames,track,version": total = create + index
 *     (create opens the file: avformat_open_input + avformat_find_stream_info; index reads
 *     every packet of the file once), frames = FFMS_GetNumFrames of the indexed track.
 *   ffms2_bench getframe FILE TARGETS N
 *     Indexes as above (untimed), creates a video source (1 decoding thread,
 *     FFMS_SEEK_NORMAL, untimed), then for the first N targets: the frame covering the target
 *     (largest FFMS_GetFrameInfo PTS <= target, looked up untimed), and FFMS_GetFrame(n) timed.
 *     FFMS_GetFrame DECODES: it returns the picture, so this is a decoded exact seek, not the
 *     demux-only landing the other programs measure.
 *     Prints "pass,idx,target,landed,ns,packets" per target (landed = the frame's PTS from the
 *     index, in the stream's time base; packets = -1, not known).
 *
 * TARGETS: '#' lines are comments, other lines "SEGMENT TICKS", TICKS an absolute pts in the
 * video stream's time base (the segment is ignored).
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -O2 ffms2_bench.c $(pkg-config --cflags --libs ffms2)
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* not every helper of the shared header is used here */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "bench_common.h"

#include <ffms.h>

static char errmsg[1024];

static void err_init(FFMS_ErrorInfo *e)
{
    memset(e, 0, sizeof *e);
    errmsg[0] = 0;
    e->Buffer = errmsg;
    e->BufferSize = (int)sizeof errmsg;
}

static void fail(const char *what)
{
    fprintf(stderr, "ffms2_bench: %s: %s\n", what, errmsg[0] ? errmsg : "unknown error");
    exit(2);
}

/* Indexes only the first video track of path; returns the index and that track number, and
 * the creation and indexing times. */
static FFMS_Index *index_video(const char *path, int *track, uint64_t *create_ns,
                               uint64_t *index_ns)
{
    FFMS_ErrorInfo e;
    FFMS_Indexer *ix;
    FFMS_Index *index;
    int i, n, video = -1;
    uint64_t t0, t1, t2;
    err_init(&e);
    t0 = now_ns();
    ix = FFMS_CreateIndexer(path, &e);
    if (!ix)
        fail("FFMS_CreateIndexer");
    n = FFMS_GetNumTracksI(ix);
    for (i = 0; i < n; i++) {
        int on = 0;
        if (video < 0 && FFMS_GetTrackTypeI(ix, i) == FFMS_TYPE_VIDEO) {
            video = i;
            on = 1;
        }
        FFMS_TrackIndexSettings(ix, i, on, 0);
    }
    if (video < 0) {
        FFMS_CancelIndexing(ix);
        snprintf(errmsg, sizeof errmsg, "no video track");
        fail(path);
    }
    t1 = now_ns();
    index = FFMS_DoIndexing2(ix, FFMS_IEH_ABORT, &e); /* frees the indexer */
    t2 = now_ns();
    if (!index)
        fail("FFMS_DoIndexing2");
    *track = video;
    *create_ns = t1 - t0;
    *index_ns = t2 - t1;
    return index;
}

static int cmd_index(int argc, char **argv)
{
    FFMS_ErrorInfo e;
    FFMS_Index *index;
    FFMS_Track *t;
    int track, v;
    uint64_t create_ns, index_ns;
    if (argc != 3) {
        fprintf(stderr, "usage: ffms2_bench index FILE\n");
        return 2;
    }
    index = index_video(argv[2], &track, &create_ns, &index_ns);
    err_init(&e);
    t = FFMS_GetTrackFromIndex(index, track);
    if (!t)
        fail("FFMS_GetTrackFromIndex");
    v = FFMS_GetVersion();
    printf("total_ns,create_ns,index_ns,frames,track,version\n");
    printf("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%d,%d.%d.%d.%d\n", create_ns + index_ns,
           create_ns, index_ns, FFMS_GetNumFrames(t), track, (v >> 24) & 0xff, (v >> 16) & 0xff,
           (v >> 8) & 0xff, v & 0xff);
    FFMS_DestroyIndex(index);
    return 0;
}

static int cmd_getframe(int argc, char **argv)
{
    FFMS_ErrorInfo e;
    FFMS_Index *index;
    FFMS_VideoSource *vs;
    FFMS_Track *t;
    target *tg;
    size_t n, i, limit;
    int track, frames;
    uint64_t create_ns, index_ns;
    int64_t *pts;
    if (argc != 5) {
        fprintf(stderr, "usage: ffms2_bench getframe FILE TARGETS N\n");
        return 2;
    }
    tg = read_targets("ffms2_bench", argv[3], &n);
    limit = (size_t)strtoul(argv[4], NULL, 10);
    if (limit < n)
        n = limit;
    index = index_video(argv[2], &track, &create_ns, &index_ns);
    err_init(&e);
    vs = FFMS_CreateVideoSource(argv[2], track, index, 1, FFMS_SEEK_NORMAL, &e);
    if (!vs)
        fail("FFMS_CreateVideoSource");
    t = FFMS_GetTrackFromVideo(vs);
    frames = FFMS_GetNumFrames(t);
    if (frames <= 0) {
        snprintf(errmsg, sizeof errmsg, "no frames");
        fail(argv[2]);
    }
    pts = malloc((size_t)frames * sizeof *pts);
    if (!pts)
        return 2;
    for (int k = 0; k < frames; k++)
        pts[k] = FFMS_GetFrameInfo(t, k)->PTS;
    printf("pass,idx,target,landed,ns,packets\n");
    for (i = 0; i < n; i++) {
        /* the covering frame: the largest pts <= target (frames are in presentation order) */
        int lo = 0, hi = frames - 1, k = 0;
        uint64_t t0, t1;
        const FFMS_Frame *f;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (pts[mid] <= tg[i].ticks) {
                k = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        err_init(&e);
        t0 = now_ns();
        f = FFMS_GetFrame(vs, k, &e);
        t1 = now_ns();
        if (!f)
            fail("FFMS_GetFrame");
        printf("0,%zu,%" PRId64 ",%" PRId64 ",%" PRIu64 ",-1\n", i, tg[i].ticks, pts[k], t1 - t0);
    }
    free(pts);
    free(tg);
    FFMS_DestroyVideoSource(vs);
    FFMS_DestroyIndex(index);
    return 0;
}

int main(int argc, char **argv)
{
    int r = 2;
    FFMS_Init(0, 0);
    FFMS_SetLogLevel(FFMS_LOG_QUIET);
    if (argc >= 2 && strcmp(argv[1], "index") == 0)
        r = cmd_index(argc, argv);
    else if (argc >= 2 && strcmp(argv[1], "getframe") == 0)
        r = cmd_getframe(argc, argv);
    else
        fprintf(stderr, "usage: ffms2_bench index|getframe ...\n");
#if FFMS_VERSION < (5 << 24) /* ffms2 5 (Debian 13) has no FFMS_Deinit */
    FFMS_Deinit();
#endif
    return r;
}
