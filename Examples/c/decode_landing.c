/*
 * decode_landing.c -- seek exactly with FastPixSeek, decode with libavcodec,
 * and write the frame the seek landed on as a PPM image.
 *
 * Build it against the installed packages (libfastpixseek-dev, libavcodec-dev):
 *
 *   cc -std=c99 -Wall -o decode_landing decode_landing.c \
 *      $(pkg-config --cflags --libs fastpixseek libavcodec libavutil)
 *
 * Run:
 *
 *   ./decode_landing movie.mp4 92.5 frame.ppm     (time: seconds, or num/den)
 *
 * What a player does, in order:
 *   1. open the item and wait until it is ready;
 *   2. set up a decoder for the reference stream (the stream seeks resolve on);
 *   3. seek with the exact precision and wait for the outcome: it names the
 *      landed frame by its pts (landed_stream_pts, in the stream time base);
 *   4. read packets: they start at the keyframe the landed frame needs. Feed
 *      every packet of the reference stream to the decoder; the frames
 *      before the landed one (their packets carry FPX_PACKET_FLAG_DECODE_ONLY)
 *      are decoded but not shown;
 *   5. show (here: write) the decoded frame whose pts is landed_stream_pts.
 *
 * FastPixSeek itself never links libavcodec's decoders; the host owns decoding.
 * fpx_stream_info.codecpar and fpx_packet.av_packet are FFmpeg 5.x structs
 * (libavcodec 59): this program uses them directly because it is built against
 * the same FFmpeg as the library, which fpx_player_open checks (see "FFmpeg ABI"
 * in <fastpix/seek.h>). A host with another FFmpeg would build its decoder from
 * codec_name and extradata and copy data/size/pts/dts instead.
 *
 * The PPM is 8-bit RGB, converted by hand from yuv420p/yuvj420p (BT.601), and its
 * comment line records the frame's pts and time base. Exit status 0 when the
 * landed frame was decoded and written.
 */
#include <fastpix/seek.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the seek outcome, handed from the library's delivery thread ---------- */

struct seek_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    fpx_seek_outcome outcome; /* copied: the payload lives only during the callback */
};

static void on_seek_done(const fpx_seek_outcome *o, void *userdata)
{
    struct seek_wait *w = userdata;
    pthread_mutex_lock(&w->lock);
    w->outcome = *o;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

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

/* ---- yuv420p -> RGB PPM ---------------------------------------------------- */

static unsigned char clamp8(int v)
{
    return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static int write_ppm(const char *path, const AVFrame *f, int64_t pts, AVRational tb)
{
    int full_range = f->format == AV_PIX_FMT_YUVJ420P || f->color_range == AVCOL_RANGE_JPEG;
    int x, y;
    unsigned char *row;
    FILE *fp;

    if (f->format != AV_PIX_FMT_YUV420P && f->format != AV_PIX_FMT_YUVJ420P) {
        fprintf(stderr, "decode_landing: pixel format %d: this example converts yuv420p only\n", f->format);
        return -1;
    }
    fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        return -1;
    }
    row = malloc((size_t)f->width * 3);
    if (!row) {
        fclose(fp);
        return -1;
    }
    fprintf(fp, "P6\n# fastpixseek pts=%" PRId64 " time_base=%d/%d\n%d %d\n255\n", pts, tb.num, tb.den,
            f->width, f->height);
    for (y = 0; y < f->height; y++) {
        const uint8_t *Y = f->data[0] + (size_t)y * f->linesize[0];
        const uint8_t *U = f->data[1] + (size_t)(y / 2) * f->linesize[1];
        const uint8_t *V = f->data[2] + (size_t)(y / 2) * f->linesize[2];
        for (x = 0; x < f->width; x++) {
            /* BT.601 in 8.8 fixed point: limited range (16..235), or full range (JPEG). */
            int c = Y[x], d = U[x / 2] - 128, e = V[x / 2] - 128;
            if (full_range) {
                row[3 * x + 0] = clamp8(c + ((359 * e + 128) >> 8));
                row[3 * x + 1] = clamp8(c - ((88 * d + 183 * e - 128) >> 8));
                row[3 * x + 2] = clamp8(c + ((454 * d + 128) >> 8));
            } else {
                c = 298 * (c - 16);
                row[3 * x + 0] = clamp8((c + 409 * e + 128) >> 8);
                row[3 * x + 1] = clamp8((c - 100 * d - 208 * e + 128) >> 8);
                row[3 * x + 2] = clamp8((c + 516 * d + 128) >> 8);
            }
        }
        fwrite(row, 3, (size_t)f->width, fp);
    }
    free(row);
    if (fclose(fp) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------ */

static int fail(const char *what, int code)
{
    fprintf(stderr, "decode_landing: %s: %s (%s)\n", what, fpx_error_string(code), fpx_error_name(code));
    return 1;
}

int main(int argc, char **argv)
{
    const char *path, *out_path;
    fpx_time target;
    fpx_player *player = NULL;
    fpx_item_info item;
    fpx_stream_info si;
    fpx_packet pkt = {.struct_size = sizeof pkt}; /* the output-struct rule: size set by the caller */
    struct seek_wait w;
    const AVCodec *codec;
    AVCodecContext *dec = NULL;
    AVFrame *frame = NULL;
    AVRational tb;
    int rc, status = 1, written = 0, draining = 0;
    int64_t landed;
    uint64_t fed = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE TIME [OUT.ppm]\n  TIME: seconds on the item timeline (92.5 or 1001/30000)\n",
                argv[0]);
        return 2;
    }
    path = argv[1];
    out_path = argc > 3 ? argv[3] : "landed.ppm";
    if (parse_time(argv[2], &target) != 0) {
        fprintf(stderr, "decode_landing: bad time '%s'\n", argv[2]);
        return 2;
    }

    /* 1. open */
    if ((rc = fpx_player_create(NULL, &player)) != FPX_OK)
        return fail("create", rc);
    if ((rc = fpx_player_open(player, path)) != FPX_OK ||
        (rc = fpx_player_wait_item(player, 10000, NULL)) != FPX_OK) {
        fail(path, rc);
        goto out;
    }
    item.struct_size = sizeof item;
    if ((rc = fpx_player_item_info(player, &item)) != FPX_OK) {
        fail("item info", rc);
        goto out;
    }
    si.struct_size = sizeof si;
    if ((rc = fpx_player_stream_info(player, item.reference_stream, &si)) != FPX_OK) {
        fail("stream info", rc);
        goto out;
    }
    if (si.type != FPX_MEDIA_VIDEO) {
        fprintf(stderr, "decode_landing: %s has no video stream\n", path);
        goto out;
    }
    tb.num = si.time_base_num;
    tb.den = si.time_base_den;

    /* 2. decoder for the reference stream */
    codec = avcodec_find_decoder((enum AVCodecID)si.codec_id);
    dec = codec ? avcodec_alloc_context3(codec) : NULL;
    frame = av_frame_alloc();
    if (!dec || !frame || avcodec_parameters_to_context(dec, si.codecpar) < 0) {
        fprintf(stderr, "decode_landing: no decoder for %s\n", si.codec_name);
        goto out;
    }
    dec->pkt_timebase = tb;
    if (avcodec_open2(dec, codec, NULL) < 0) {
        fprintf(stderr, "decode_landing: cannot open the %s decoder\n", si.codec_name);
        goto out;
    }

    /* 3. seek exactly and wait for the outcome */
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    if ((rc = fpx_player_setup_seek_manager(player)) != FPX_OK ||
        (rc = fpx_player_seek(player, target, fpx_precision_exact(), on_seek_done, &w, NULL)) != FPX_OK) {
        fail("seek", rc);
        goto out;
    }
    pthread_mutex_lock(&w.lock);
    while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    if (!w.outcome.finished) {
        fprintf(stderr, "decode_landing: the seek did not land (%s, %s)\n",
                fpx_finish_reason_name(w.outcome.reason), fpx_error_name(w.outcome.error));
        goto out;
    }
    landed = w.outcome.landed_stream_pts;

    /* 4. read and decode until the landed frame comes out */
    while (!written) {
        if (!draining) {
            rc = fpx_player_read_packet(player, &pkt);
            if (rc == FPX_ERROR_EOF) {
                draining = 1;
                avcodec_send_packet(dec, NULL); /* flush: the landed frame may be held back */
            } else if (rc != FPX_OK) {
                fail("read", rc);
                goto out;
            } else if (pkt.stream_index != item.reference_stream) {
                continue;
            } else {
                if (pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY)
                    avcodec_flush_buffers(dec);
                /* av_packet is the library's AVPacket (flags, side data included);
                   avcodec_send_packet references or copies what it keeps. */
                if (avcodec_send_packet(dec, pkt.av_packet) < 0) {
                    fprintf(stderr, "decode_landing: the decoder refused a packet\n");
                    goto out;
                }
                fed++;
            }
        }
        for (;;) {
            int64_t pts;
            rc = avcodec_receive_frame(dec, frame);
            if (rc == AVERROR(EAGAIN))
                break;
            if (rc < 0) { /* AVERROR_EOF after the flush, or a decode error */
                fprintf(stderr, "decode_landing: the landed frame (pts %" PRId64 ") was never decoded\n", landed);
                goto out;
            }
            pts = frame->best_effort_timestamp;
            if (pts == landed) {
                /* 5. the landed frame */
                if (write_ppm(out_path, frame, pts, tb) != 0)
                    goto out;
                written = 1;
                av_frame_unref(frame);
                break;
            }
            av_frame_unref(frame);
        }
    }

    printf("requested %s s: landed on frame pts %" PRId64 " (time base %d/%d) = %.6f s on the item timeline, "
           "keyframe %d, covers target %d, %" PRIu64 " packets decoded; wrote %s (%dx%d)\n",
           argv[2], landed, tb.num, tb.den, fpx_time_to_seconds(w.outcome.accuracy.landed_media_time),
           w.outcome.landed_is_keyframe, w.outcome.frame_covers_target, fed, out_path, dec->width, dec->height);
    status = 0;
out:
    av_frame_free(&frame);
    avcodec_free_context(&dec);
    fpx_player_destroy(player);
    return status;
}
