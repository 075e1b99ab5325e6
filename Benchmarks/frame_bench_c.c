/*
 * frame_bench_c.c -- the C peers of the time-to-frame benchmark (frame_bench.py, issue 21.6).
 *
 *   frame_bench_c hand FILE TASKS     the hand-written libavformat + libavcodec loop
 *                                     (av_bench.c style): av_seek_frame(BACKWARD) to the
 *                                     target, flush, decode forward, answer the last frame
 *                                     whose pts <= target
 *   frame_bench_c fpx FILE TASKS      FastPixSeek + libavcodec: Examples/c/frames_at.c's
 *                                     recipe (fpx_player_seek_wait exact, one decoder kept
 *                                     across seeks and flushed only at DISCONTINUITY,
 *                                     DISPOSABLE dropped, skip_frame=NONREF in the pre-roll)
 *   frame_bench_c ffms2 FILE TASKS    ffms2 (only when built with -DWITH_FFMS2): index
 *                                     (untimed, once per open), FFMS_GetFrame(n)
 *
 * TASKS lines: "O" (re)opens the file (timed: added to the next frame), "F IDX PTS TARGET"
 * asks for the frame at TARGET (stream ticks, inside frame IDX whose pts is PTS; the peers
 * use TARGET, ffms2 uses IDX). Output per F: "IDX,NS,MD5,PTS_OUT,DECODED,OPEN_NS,DECODE_NS"
 * where MD5 is framemd5's hash of the decoded picture (decoder's format, no conversion),
 * DECODED the frames the decoder put out for it (-1 unknown), OPEN_NS the part of NS spent
 * opening (T1), DECODE_NS the part inside avcodec_send_packet/avcodec_receive_frame (0 for
 * ffms2). Single-threaded decoders everywhere.
 */
#define _POSIX_C_SOURCE 200809L
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/pixdesc.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WITH_FPX
#include <fastpix/seek.h>
#endif
#ifdef WITH_FFMS2
#include <ffms.h>
#endif

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time inside the decoder (avcodec_send_packet and avcodec_receive_frame) for the current
 * answer, printed after each answer's row with the open's time: the breakdown of issue 33.2.
 * Two clock reads per call, tens of nanoseconds against the decoding's milliseconds. */
static uint64_t decode_ns;

static int timed_send(AVCodecContext *c, const AVPacket *p)
{
    uint64_t t0 = now_ns();
    int rc = avcodec_send_packet(c, p);
    decode_ns += now_ns() - t0;
    return rc;
}

static int timed_receive(AVCodecContext *c, AVFrame *f)
{
    uint64_t t0 = now_ns();
    int rc = avcodec_receive_frame(c, f);
    decode_ns += now_ns() - t0;
    return rc;
}

static void die(const char *what)
{
    fprintf(stderr, "frame_bench_c: %s\n", what);
    exit(2);
}

static void md5_planes(const uint8_t *const data[4], const int linesize[4], int format, int w, int h, char out[33])
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get((enum AVPixelFormat)format);
    struct AVMD5 *m = av_md5_alloc();
    uint8_t sum[16];
    int p, y, i, planes = av_pix_fmt_count_planes((enum AVPixelFormat)format);
    if (!m || !d)
        die("md5");
    av_md5_init(m);
    for (p = 0; p < planes; p++) {
        int bytes = av_image_get_linesize((enum AVPixelFormat)format, w, p);
        int ph = (p == 1 || p == 2) ? -((-h) >> d->log2_chroma_h) : h;
        for (y = 0; y < ph; y++)
            av_md5_update(m, data[p] + (size_t)y * (size_t)linesize[p], (size_t)bytes);
    }
    av_md5_final(m, sum);
    for (i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", sum[i]);
    av_free(m);
}

static void frame_md5(const AVFrame *f, char out[33])
{
    md5_planes((const uint8_t *const *)f->data, f->linesize, f->format, f->width, f->height, out);
}

/* ---- the hand loop ---------------------------------------------------------------- */

typedef struct hand {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame, *prev;
    int vs;
} hand;

static void hand_close(hand *h)
{
    av_frame_free(&h->frame);
    av_frame_free(&h->prev);
    av_packet_free(&h->pkt);
    avcodec_free_context(&h->dec);
    avformat_close_input(&h->fmt);
}

static void hand_open(hand *h, const char *path)
{
    const AVCodec *c;
    hand_close(h);
    if (avformat_open_input(&h->fmt, path, NULL, NULL) < 0 || avformat_find_stream_info(h->fmt, NULL) < 0)
        die("open");
    h->vs = av_find_best_stream(h->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (h->vs < 0)
        die("no video");
    c = avcodec_find_decoder(h->fmt->streams[h->vs]->codecpar->codec_id);
    h->dec = c ? avcodec_alloc_context3(c) : NULL;
    if (!h->dec || avcodec_parameters_to_context(h->dec, h->fmt->streams[h->vs]->codecpar) < 0)
        die("decoder");
    h->dec->thread_count = 1;
    h->dec->pkt_timebase = h->fmt->streams[h->vs]->time_base;
    if (avcodec_open2(h->dec, c, NULL) < 0)
        die("avcodec_open2");
    h->pkt = av_packet_alloc();
    h->frame = av_frame_alloc();
    h->prev = av_frame_alloc();
    if (!h->pkt || !h->frame || !h->prev)
        die("oom");
}

/* The last frame with pts <= target, decoding forward from the keyframe av_seek_frame finds. */
static int hand_frame(hand *h, int64_t target, int *decoded)
{
    int have_prev = 0, eof = 0, rc;
    *decoded = 0;
    if (av_seek_frame(h->fmt, h->vs, target, AVSEEK_FLAG_BACKWARD) < 0)
        av_seek_frame(h->fmt, h->vs, target, 0);
    avcodec_flush_buffers(h->dec);
    for (;;) {
        if (!eof) {
            rc = av_read_frame(h->fmt, h->pkt);
            if (rc < 0) {
                eof = 1;
                timed_send(h->dec, NULL);
            } else {
                if (h->pkt->stream_index == h->vs)
                    timed_send(h->dec, h->pkt);
                av_packet_unref(h->pkt);
            }
        }
        for (;;) {
            rc = timed_receive(h->dec, h->frame);
            if (rc == AVERROR(EAGAIN))
                break;
            if (rc < 0)
                return have_prev ? 0 : -1;
            (*decoded)++;
            if (h->frame->best_effort_timestamp > target) {
                if (!have_prev) { /* nothing before: the first frame */
                    av_frame_unref(h->prev);
                    av_frame_move_ref(h->prev, h->frame);
                }
                return 0;
            }
            av_frame_unref(h->prev);
            av_frame_move_ref(h->prev, h->frame);
            have_prev = 1;
        }
    }
}

/* ---- FastPixSeek + libavcodec ----------------------------------------------------- */

#ifdef WITH_FPX
typedef struct fpx {
    fpx_player *p;
    AVCodecContext *dec;
    AVFrame *frame;
    int vs, eof;
    int64_t start_pts;
    int64_t max_out; /* the largest pts the decoder returned since its last flush, or FPX_NOPTS */
    AVRational tb;
} fpx;

static void fpx_close(fpx *f)
{
    av_frame_free(&f->frame);
    avcodec_free_context(&f->dec);
    fpx_player_destroy(f->p);
    f->p = NULL;
}

static void fpx_open(fpx *f, const char *path)
{
    fpx_item_info item;
    fpx_stream_info si;
    const AVCodec *c;
    fpx_close(f);
    if (fpx_player_create(NULL, &f->p) != FPX_OK || fpx_player_open(f->p, path) != FPX_OK ||
        fpx_player_wait_item(f->p, 30000, NULL) != FPX_OK || fpx_player_setup_seek_manager(f->p) != FPX_OK ||
        fpx_player_set_continuation(f->p, 1) != FPX_OK)
        die("fpx open");
    item.struct_size = sizeof item;
    si.struct_size = sizeof si;
    if (fpx_player_item_info(f->p, &item) != FPX_OK || fpx_player_stream_info(f->p, item.reference_stream, &si) != FPX_OK)
        die("fpx info");
    f->vs = item.reference_stream;
    f->start_pts = item.start_pts;
    f->tb.num = si.time_base_num;
    f->tb.den = si.time_base_den;
    c = avcodec_find_decoder((enum AVCodecID)si.codec_id);
    f->dec = c ? avcodec_alloc_context3(c) : NULL;
    if (!f->dec || avcodec_parameters_to_context(f->dec, si.codecpar) < 0)
        die("decoder");
    f->dec->thread_count = 1;
    f->dec->pkt_timebase = f->tb;
    if (avcodec_open2(f->dec, c, NULL) < 0)
        die("avcodec_open2");
    f->frame = av_frame_alloc();
    f->eof = 0;
    f->max_out = FPX_NOPTS;
    if (!f->frame)
        die("oom");
}

static int fpx_receive(fpx *f, int64_t want, int *decoded)
{
    for (;;) {
        int rc = timed_receive(f->dec, f->frame);
        if (rc == AVERROR(EAGAIN))
            return 0;
        if (rc < 0)
            return -1;
        (*decoded)++;
        if (f->frame->best_effort_timestamp != AV_NOPTS_VALUE &&
            (f->max_out == FPX_NOPTS || f->frame->best_effort_timestamp > f->max_out))
            f->max_out = f->frame->best_effort_timestamp;
        if (f->frame->best_effort_timestamp == want)
            return 1;
        av_frame_unref(f->frame);
    }
}

static int fpx_frame(fpx *f, int64_t target, int *decoded)
{
    fpx_seek_outcome o;
    fpx_packet pkt;
    int64_t want;
    int rc;
    *decoded = 0;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    /* what the decoder returned: lets landings whose frame it still holds continue */
    if (f->max_out != FPX_NOPTS && !f->eof && fpx_player_report_decoded(f->p, f->max_out) != FPX_OK)
        return -1;
    /* target ticks -> item time, exactly */
    if (fpx_player_seek_wait(f->p, fpx_time_make((target - f->start_pts) * f->tb.num, f->tb.den), fpx_precision_exact(),
                             30000, &o) != FPX_OK || !o.finished)
        return -1;
    want = o.landed_stream_pts;
    for (;;) {
        memset(&pkt, 0, sizeof pkt);
        pkt.struct_size = sizeof pkt;
        rc = fpx_player_read_packet(f->p, &pkt);
        if (rc == FPX_ERROR_EOF) {
            f->dec->skip_frame = AVDISCARD_DEFAULT;
            timed_send(f->dec, NULL);
            f->eof = 1;
            return fpx_receive(f, want, decoded) == 1 ? 0 : -1;
        }
        if (rc != FPX_OK)
            return -1;
        if (pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY || f->eof) {
            avcodec_flush_buffers(f->dec);
            f->eof = 0;
            f->max_out = FPX_NOPTS;
        } else if ((rc = fpx_receive(f, want, decoded)) != 0) {
            return rc == 1 ? 0 : -1;
        }
        if (pkt.stream_index != f->vs || pkt.flags & FPX_PACKET_FLAG_DISPOSABLE)
            continue;
        if (pkt.landed_pts_in_stream != FPX_NOPTS)
            want = pkt.landed_pts_in_stream;
        f->dec->skip_frame = pkt.flags & FPX_PACKET_FLAG_DECODE_ONLY ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
        timed_send(f->dec, pkt.av_packet);
        if ((rc = fpx_receive(f, want, decoded)) != 0)
            return rc == 1 ? 0 : -1;
    }
}
#endif

/* ---- ffms2 ------------------------------------------------------------------------ */

#ifdef WITH_FFMS2
typedef struct ffms {
    FFMS_VideoSource *src;
    int track;
} ffms;

static char errmsg[1024];

static void ffms_close(ffms *s)
{
    if (s->src)
        FFMS_DestroyVideoSource(s->src);
    s->src = NULL;
}

static void ffms_open(ffms *s, const char *path)
{
    FFMS_ErrorInfo e = {0, 0, (int)sizeof errmsg, errmsg};
    FFMS_Indexer *ix;
    FFMS_Index *index;
    int i, n;
    ffms_close(s);
    ix = FFMS_CreateIndexer(path, &e);
    if (!ix)
        die(errmsg);
    n = FFMS_GetNumTracksI(ix);
    s->track = -1;
    for (i = 0; i < n; i++) {
        int video = FFMS_GetTrackTypeI(ix, i) == FFMS_TYPE_VIDEO && s->track < 0;
        if (video)
            s->track = i;
        FFMS_TrackIndexSettings(ix, i, video, 0);
    }
    index = FFMS_DoIndexing2(ix, FFMS_IEH_ABORT, &e);
    if (!index)
        die(errmsg);
    s->src = FFMS_CreateVideoSource(path, s->track, index, 1, FFMS_SEEK_NORMAL, &e);
    FFMS_DestroyIndex(index);
    if (!s->src)
        die(errmsg);
}
#endif

int main(int argc, char **argv)
{
    const char *mode, *path;
    FILE *tasks;
    char line[256];
    uint64_t open_ns = 0;
    int opened = 0;
    hand h;
#ifdef WITH_FPX
    fpx f;
    memset(&f, 0, sizeof f);
#endif
#ifdef WITH_FFMS2
    ffms s;
    memset(&s, 0, sizeof s);
    FFMS_Init(0, 0);
#endif
    memset(&h, 0, sizeof h);
    av_log_set_level(AV_LOG_QUIET);
    if (argc != 4)
        die("usage: frame_bench_c hand|fpx|ffms2 FILE TASKS");
    mode = argv[1];
    path = argv[2];
    tasks = fopen(argv[3], "r");
    if (!tasks)
        die("tasks");
    while (fgets(line, sizeof line, tasks)) {
        long long idx, pts, target;
        char md5[33] = "-";
        int decoded = -1, rc = -1;
        int64_t pts_out = -1;
        uint64_t t0;
        if (line[0] == 'O') {
            t0 = now_ns();
            if (!strcmp(mode, "hand"))
                hand_open(&h, path);
#ifdef WITH_FPX
            else if (!strcmp(mode, "fpx"))
                fpx_open(&f, path);
#endif
#ifdef WITH_FFMS2
            else if (!strcmp(mode, "ffms2"))
                ffms_open(&s, path);
#endif
            else
                die("unknown mode (or not built in)");
            open_ns += now_ns() - t0;
            opened = 1;
            continue;
        }
        if (sscanf(line, "F %lld %lld %lld", &idx, &pts, &target) != 3 || !opened)
            die("bad task line");
        decode_ns = 0;
        t0 = now_ns();
        if (!strcmp(mode, "hand")) {
            rc = hand_frame(&h, target, &decoded);
            if (rc == 0) {
                frame_md5(h.prev, md5);
                pts_out = h.prev->best_effort_timestamp;
            }
        }
#ifdef WITH_FPX
        else if (!strcmp(mode, "fpx")) {
            rc = fpx_frame(&f, target, &decoded);
            if (rc == 0) {
                frame_md5(f.frame, md5);
                pts_out = f.frame->best_effort_timestamp;
                av_frame_unref(f.frame);
            }
        }
#endif
#ifdef WITH_FFMS2
        else if (!strcmp(mode, "ffms2")) {
            FFMS_ErrorInfo e = {0, 0, (int)sizeof errmsg, errmsg};
            const FFMS_Frame *fr = FFMS_GetFrame(s.src, (int)idx, &e);
            if (fr) {
                const FFMS_FrameInfo *fi = FFMS_GetFrameInfo(FFMS_GetTrackFromVideo(s.src), (int)idx);
                md5_planes((const uint8_t *const *)fr->Data, fr->Linesize, fr->EncodedPixelFormat, fr->EncodedWidth,
                           fr->EncodedHeight, md5);
                pts_out = fi ? fi->PTS : -1;
                rc = 0;
            }
        }
#endif
        {
            uint64_t ns = now_ns() - t0 + open_ns;
            printf("%lld,%" PRIu64 ",%s,%" PRId64 ",%d,%" PRIu64 ",%" PRIu64 "\n", idx, ns, rc == 0 ? md5 : "-",
                   pts_out, decoded, open_ns, decode_ns);
            open_ns = 0;
        }
    }
    fflush(stdout);
    hand_close(&h);
#ifdef WITH_FPX
    fpx_close(&f);
#endif
#ifdef WITH_FFMS2
    ffms_close(&s);
#endif
    fclose(tasks);
    return 0;
}
