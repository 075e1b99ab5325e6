/*
 * frames_at.c -- the frames at several times of one file: seek exactly with FastPixSeek,
 * decode with libavcodec, write each landed frame as a PPM (libswscale), and print the
 * md5 of its decoded picture (the same hash as `ffmpeg -i FILE -f framemd5 -`).
 *
 *   cc -std=c99 -Wall -o frames_at frames_at.c \
 *      $(pkg-config --cflags --libs fastpixseek libavcodec libavutil libswscale)
 *   ./frames_at movie.mp4 out 92.5 3 1001/30000     -> out-0.ppm out-1.ppm out-2.ppm
 *
 * decode_landing.c writes one frame from a fresh decoder; this is the recipe for many
 * frames from one decoder kept across seeks (fastpix_seek's Player.frames_at in Python):
 *
 *   - continuation is turned on (fpx_player_set_continuation) and, before each seek, the
 *     largest pts the decoder returned is reported (fpx_player_report_decoded): a landing
 *     ahead of what the decoder has then continues the packets instead of restarting at
 *     its keyframe (seek.h, "Continuation");
 *   - the times are visited in increasing order (so landings move forward and the library
 *     can continue); the answers keep the given order;
 *   - one fpx_player_seek_wait per time: the outcome names the landed frame;
 *   - the decoder is flushed only at a packet flagged FPX_PACKET_FLAG_DISCONTINUITY. When
 *     the library continues the packet stream after a seek instead of restarting at the
 *     keyframe (no DISCONTINUITY, DECODE_ONLY packets up to the new landing, the new seek
 *     id and landing fields), the decoder keeps its state and frames it already holds come
 *     out first: so the receive loop runs before every send, and stops right after the
 *     wanted frame, leaving the frames after it in the decoder for the next landing;
 *   - packets flagged FPX_PACKET_FLAG_DISPOSABLE (pre-roll no later frame references) are
 *     dropped before the decoder;
 *   - while packets are DECODE_ONLY the decoder's skip_frame is AVDISCARD_NONREF (it skips
 *     what no other frame references, which is never shown), else AVDISCARD_DEFAULT;
 *   - the wanted frame is the decoded frame whose pts equals the packets' landed_pts
 *     (fpx_packet.landed_pts_in_stream, = the outcome's landed_stream_pts); decoded frames
 *     before it are discarded, DECODE_ONLY or not.
 *
 * Like decode_landing.c it feeds the library's AVPacket (fpx_packet.av_packet) and builds
 * the decoder from fpx_stream_info.codecpar: it is built against the library's FFmpeg
 * (see "FFmpeg ABI" in <fastpix/seek.h>). Exit status 0 when every frame was written.
 */
#include <fastpix/seek.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- "92.5", "1001/30000" -> exact fpx_time ---------------------------- */

static int parse_time(const char *s, fpx_time *out)
{
    char *end;
    const char *slash = strchr(s, '/');
    if (slash) {
        long long num, den;
        errno = 0;
        num = strtoll(s, &end, 10);
        if (end != slash || errno)
            return -1;
        den = strtoll(slash + 1, &end, 10);
        if (*end || errno || den <= 0 || den > INT32_MAX)
            return -1;
        *out = fpx_time_make(num, (int32_t)den);
        return 0;
    } else {
        int64_t value = 0;
        int32_t scale = 1;
        int seen_dot = 0, digits = 0;
        for (; *s; s++) {
            if (*s == '.' && !seen_dot) {
                seen_dot = 1;
            } else if (*s >= '0' && *s <= '9') {
                if (value > INT64_MAX / 10 || (seen_dot && scale > INT32_MAX / 10))
                    return -1;
                value = value * 10 + (*s - '0');
                if (seen_dot)
                    scale *= 10;
                digits++;
            } else {
                return -1;
            }
        }
        if (!digits)
            return -1;
        *out = fpx_time_make(value, scale);
        return 0;
    }
}

/* ---- the decoded frame -> RGB PPM, converted by libswscale --------------- */

static int write_ppm(const char *path, const AVFrame *f, int64_t pts, AVRational tb)
{
    struct SwsContext *sws;
    uint8_t *rgb[4] = {NULL};
    int stride[4] = {0};
    int y, ok = 0;
    FILE *fp;

    sws = sws_getContext(f->width, f->height, (enum AVPixelFormat)f->format, f->width, f->height,
                         AV_PIX_FMT_RGB24, SWS_BICUBIC, NULL, NULL, NULL);
    if (!sws) {
        fprintf(stderr, "frames_at: libswscale cannot convert pixel format %d\n", f->format);
        return -1;
    }
    stride[0] = f->width * 3;
    rgb[0] = malloc((size_t)stride[0] * (size_t)f->height);
    if (rgb[0] && sws_scale(sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, rgb, stride) == f->height) {
        fp = fopen(path, "wb");
        if (!fp) {
            perror(path);
        } else {
            fprintf(fp, "P6\n# fastpixseek pts=%" PRId64 " time_base=%d/%d\n%d %d\n255\n", pts, tb.num, tb.den,
                    f->width, f->height);
            for (y = 0; y < f->height; y++)
                fwrite(rgb[0] + (size_t)y * (size_t)stride[0], 3, (size_t)f->width, fp);
            ok = fclose(fp) == 0;
            if (!ok)
                perror(path);
        }
    }
    free(rgb[0]);
    sws_freeContext(sws);
    return ok ? 0 : -1;
}

/* ---- framemd5's hash of a decoded picture: its planes, row by row, no padding ---- */

static void picture_md5(const AVFrame *f, char out[33])
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get((enum AVPixelFormat)f->format);
    struct AVMD5 *md5 = av_md5_alloc();
    uint8_t sum[16];
    int p, y, i, planes = av_pix_fmt_count_planes((enum AVPixelFormat)f->format);

    out[0] = 0;
    if (!md5 || !d)
        goto done;
    av_md5_init(md5);
    for (p = 0; p < planes; p++) {
        int bytes = av_image_get_linesize((enum AVPixelFormat)f->format, f->width, p);
        int h = f->height;
        if (p == 1 || p == 2)
            h = -((-f->height) >> d->log2_chroma_h); /* AV_CEIL_RSHIFT */
        for (y = 0; y < h; y++)
            av_md5_update(md5, f->data[p] + (size_t)y * (size_t)f->linesize[p], (size_t)bytes);
    }
    av_md5_final(md5, sum);
    for (i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", sum[i]);
done:
    av_free(md5);
}

/* ---- main ------------------------------------------------------------------ */

static int fail(const char *what, int code)
{
    fprintf(stderr, "frames_at: %s: %s (%s)\n", what, fpx_error_string(code), fpx_error_name(code));
    return 1;
}

typedef struct target {
    fpx_time t;
    const char *text;
    int index; /* position on the command line */
} target;

static int by_time(const void *a, const void *b)
{
    const target *x = a, *y = b;
    /* (the order of visits only; each seek gets its exact time) */
    double dx = fpx_time_to_seconds(x->t), dy = fpx_time_to_seconds(y->t);
    return dx < dy ? -1 : dx > dy ? 1 : x->index - y->index;
}

/* The reader's state across landings: one decoder, flushed only at DISCONTINUITY. */
typedef struct reader {
    fpx_player *player;
    int stream;
    AVCodecContext *dec;
    AVFrame *frame;
    int eof;         /* the library said EOF and the decoder was drained */
    int64_t max_out; /* the largest pts the decoder returned since its last flush, or FPX_NOPTS */
    uint64_t fed, dropped, decoded;
} reader;

/* Receives frames until the one with pts `want` (returned in r->frame, 1), or until the
   decoder wants input (0), or it is drained / fails (-1). Frames before `want` are
   discarded; frames after it stay in the decoder for the next landing. */
static int receive(reader *r, int64_t want)
{
    for (;;) {
        int rc = avcodec_receive_frame(r->dec, r->frame);
        if (rc == AVERROR(EAGAIN))
            return 0;
        if (rc < 0)
            return -1;
        r->decoded++;
        if (r->frame->best_effort_timestamp != AV_NOPTS_VALUE &&
            (r->max_out == FPX_NOPTS || r->frame->best_effort_timestamp > r->max_out))
            r->max_out = r->frame->best_effort_timestamp;
        if (r->frame->best_effort_timestamp == want)
            return 1;
        av_frame_unref(r->frame); /* pre-roll, or before the landing: never shown */
    }
}

/* Reads and decodes until the frame with pts `want` comes out (1) or cannot (-1). */
static int decode_to(reader *r, int64_t want)
{
    fpx_packet pkt;
    int rc;
    for (;;) {
        memset(&pkt, 0, sizeof pkt);
        pkt.struct_size = sizeof pkt;
        rc = fpx_player_read_packet(r->player, &pkt);
        if (rc == FPX_ERROR_EOF) {
            /* the landed frame may be held back in the reorder buffer */
            r->dec->skip_frame = AVDISCARD_DEFAULT;
            avcodec_send_packet(r->dec, NULL);
            r->eof = 1;
            return receive(r, want) == 1 ? 1 : -1;
        }
        if (rc != FPX_OK)
            return fail("read", rc), -1;
        if (pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY || r->eof) {
            avcodec_flush_buffers(r->dec); /* a new run: drop what the decoder holds */
            r->eof = 0;
            r->max_out = FPX_NOPTS;
        } else if ((rc = receive(r, want)) != 0) {
            return rc; /* continued: a frame the decoder already held */
        }
        if (pkt.stream_index != r->stream)
            continue;
        if (pkt.flags & FPX_PACKET_FLAG_DISPOSABLE) {
            r->dropped++; /* no later frame references it */
            continue;
        }
        if (pkt.landed_pts_in_stream != FPX_NOPTS)
            want = pkt.landed_pts_in_stream; /* the landing the packets carry */
        r->dec->skip_frame = pkt.flags & FPX_PACKET_FLAG_DECODE_ONLY ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
        for (;;) {
            rc = avcodec_send_packet(r->dec, pkt.av_packet);
            if (rc != AVERROR(EAGAIN))
                break;
            if ((rc = receive(r, want)) != 0) /* output first, then the packet again */
                return rc == 1 ? -1 : rc; /* (cannot happen: receive ran just before) */
        }
        if (rc < 0 && rc != AVERROR_INVALIDDATA)
            return -1; /* (a damaged packet is skipped, as ffmpeg does) */
        r->fed++;
        if ((rc = receive(r, want)) != 0)
            return rc;
    }
}

int main(int argc, char **argv)
{
    fpx_player *player = NULL;
    fpx_item_info item;
    fpx_stream_info si;
    const AVCodec *codec;
    reader r;
    target *targets = NULL;
    char **lines = NULL;
    AVRational tb;
    int i, n, rc, status = 1;

    if (argc < 4) {
        fprintf(stderr, "usage: %s FILE OUT_PREFIX TIME...\n  TIME: seconds on the item timeline (92.5 or 1001/30000);"
                        " writes OUT_PREFIX-N.ppm for the N-th TIME\n", argv[0]);
        return 2;
    }
    n = argc - 3;
    targets = calloc((size_t)n, sizeof *targets);
    lines = calloc((size_t)n, sizeof *lines);
    memset(&r, 0, sizeof r);
    if (!targets || !lines)
        goto out;
    for (i = 0; i < n; i++) {
        targets[i].text = argv[3 + i];
        targets[i].index = i;
        if (parse_time(argv[3 + i], &targets[i].t) != 0) {
            fprintf(stderr, "frames_at: bad time '%s'\n", argv[3 + i]);
            status = 2;
            goto out;
        }
    }
    qsort(targets, (size_t)n, sizeof *targets, by_time);

    if ((rc = fpx_player_create(NULL, &player)) != FPX_OK) {
        fail("create", rc);
        goto out;
    }
    if ((rc = fpx_player_open(player, argv[1])) != FPX_OK || (rc = fpx_player_wait_item(player, 10000, NULL)) != FPX_OK ||
        (rc = fpx_player_setup_seek_manager(player)) != FPX_OK ||
        /* continue the packets (and this decoder) where a landing lies ahead: seek.h, "Continuation" */
        (rc = fpx_player_set_continuation(player, 1)) != FPX_OK) {
        fail(argv[1], rc);
        goto out;
    }
    item.struct_size = sizeof item;
    si.struct_size = sizeof si;
    if ((rc = fpx_player_item_info(player, &item)) != FPX_OK ||
        (rc = fpx_player_stream_info(player, item.reference_stream, &si)) != FPX_OK) {
        fail("stream info", rc);
        goto out;
    }
    if (si.type != FPX_MEDIA_VIDEO) {
        fprintf(stderr, "frames_at: %s has no video stream\n", argv[1]);
        goto out;
    }
    tb.num = si.time_base_num;
    tb.den = si.time_base_den;
    r.player = player;
    r.max_out = FPX_NOPTS;
    r.stream = item.reference_stream;
    codec = avcodec_find_decoder((enum AVCodecID)si.codec_id);
    r.dec = codec ? avcodec_alloc_context3(codec) : NULL;
    r.frame = av_frame_alloc();
    if (!r.dec || !r.frame || avcodec_parameters_to_context(r.dec, si.codecpar) < 0) {
        fprintf(stderr, "frames_at: no decoder for %s\n", si.codec_name);
        goto out;
    }
    r.dec->pkt_timebase = tb;
    if (avcodec_open2(r.dec, codec, NULL) < 0) {
        fprintf(stderr, "frames_at: cannot open the %s decoder\n", si.codec_name);
        goto out;
    }

    for (i = 0; i < n; i++) {
        fpx_seek_outcome o;
        char path[4096], md5[33], line[8192];
        uint64_t before = r.decoded;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        /* what the decoder returned already: landings whose packet was read but whose frame
           is still in the decoder may then continue too */
        if (r.max_out != FPX_NOPTS && !r.eof && (rc = fpx_player_report_decoded(player, r.max_out)) != FPX_OK) {
            fail("report_decoded", rc);
            goto out;
        }
        if ((rc = fpx_player_seek_wait(player, targets[i].t, fpx_precision_exact(), 30000, &o)) != FPX_OK) {
            fail("seek", rc);
            goto out;
        }
        if (!o.finished) {
            fprintf(stderr, "frames_at: the seek to %s did not land (%s)\n", targets[i].text,
                    fpx_finish_reason_name(o.reason));
            goto out;
        }
        if (decode_to(&r, o.landed_stream_pts) != 1) {
            fprintf(stderr, "frames_at: the landed frame (pts %" PRId64 ") was never decoded\n", o.landed_stream_pts);
            goto out;
        }
        snprintf(path, sizeof path, "%s-%d.ppm", argv[2], targets[i].index);
        picture_md5(r.frame, md5);
        if (write_ppm(path, r.frame, o.landed_stream_pts, tb) != 0)
            goto out;
        snprintf(line, sizeof line, "%s s -> pts %" PRId64 " (%.6f s) md5 %s, %" PRIu64 " frames decoded; wrote %s",
                 targets[i].text, o.landed_stream_pts, fpx_time_to_seconds(o.accuracy.landed_media_time), md5,
                 r.decoded - before, path);
        lines[targets[i].index] = malloc(strlen(line) + 1);
        if (!lines[targets[i].index])
            goto out;
        memcpy(lines[targets[i].index], line, strlen(line) + 1);
        av_frame_unref(r.frame);
    }
    for (i = 0; i < n; i++)
        printf("%s\n", lines[i] ? lines[i] : "?");
    printf("%" PRIu64 " packets decoded, %" PRIu64 " disposable dropped, %" PRIu64 " frames decoded\n", r.fed,
           r.dropped, r.decoded);
    status = 0;
out:
    if (lines)
        for (i = 0; i < n; i++)
            free(lines[i]);
    free(lines);
    free(targets);
    av_frame_free(&r.frame);
    avcodec_free_context(&r.dec);
    fpx_player_destroy(player);
    return status;
}
