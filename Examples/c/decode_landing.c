/*
 * decode_landing.c -- seek exactly with FastPixSeek, decode with libavcodec,
 * and write the frame the seek landed on as a PPM image.
 *
 * Build it against the installed packages (libfastpixseek-dev, libavcodec-dev,
 * libswscale-dev):
 *
 *   cc -std=c99 -Wall -o decode_landing decode_landing.c \
 *      $(pkg-config --cflags --libs fastpixseek libavcodec libavutil libswscale)
 *
 * Run:
 *
 *   ./decode_landing movie.mp4 92.5 frame.ppm     (time: seconds, or num/den)
 *
 * What a player does, in order:
 *   1. open the item and wait until it is ready;
 *   2. set up a decoder for the reference stream (the stream seeks resolve on);
 *   3. seek with the exact precision and wait for the outcome
 *      (fpx_player_seek_wait): it names the landed frame by its pts
 *      (landed_stream_pts, in the stream time base);
 *   4. read packets: they start at the keyframe the landed frame needs. Feed
 *      every packet of the reference stream to the decoder; the frames
 *      before the landed one (their packets carry FPX_PACKET_FLAG_DECODE_ONLY)
 *      are decoded but not shown, and those also flagged
 *      FPX_PACKET_FLAG_DISPOSABLE are not even decoded;
 *   5. show (here: write) the decoded frame whose pts is landed_stream_pts.
 *
 * FastPixSeek itself never links libavcodec's decoders; the host owns decoding.
 * fpx_stream_info.codecpar and fpx_packet.av_packet are FFmpeg 5.x structs
 * (libavcodec 59): this program uses them directly because it is built against
 * the same FFmpeg as the library, which fpx_player_open checks (see "FFmpeg ABI"
 * in <fastpix/seek.h>). A host with another FFmpeg would build its decoder from
 * codec_name and extradata and copy data/size/pts/dts instead.
 *
 * The PPM is 8-bit RGB, converted by libswscale from whatever pixel format the
 * decoder gives, and its comment line records the frame's pts and time base.
 * Exit status 0 when the landed frame was decoded and written.
 *
 * This is the "thumbnail at t" recipe of <fastpix/seek.h>: scale the frame in
 * write_ppm() (sws_getContext with another size) for a thumbnail.
 */
#include <fastpix/seek.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
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
        fprintf(stderr, "decode_landing: libswscale cannot convert pixel format %d\n", f->format);
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
    fpx_packet pkt;
    fpx_seek_outcome outcome;
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

    /* 3. seek exactly and wait for the outcome (at most 30 s) */
    memset(&outcome, 0, sizeof outcome);
    outcome.struct_size = sizeof outcome;
    if ((rc = fpx_player_setup_seek_manager(player)) != FPX_OK ||
        (rc = fpx_player_seek_wait(player, target, fpx_precision_exact(), 30000, &outcome)) != FPX_OK) {
        fail("seek", rc);
        goto out;
    }
    if (!outcome.finished) {
        fprintf(stderr, "decode_landing: the seek did not land (%s, %s)\n",
                fpx_finish_reason_name(outcome.reason), fpx_error_name(outcome.error));
        goto out;
    }
    landed = outcome.landed_stream_pts;

    /* 4. read and decode until the landed frame comes out */
    while (!written) {
        if (!draining) {
            pkt.struct_size = sizeof pkt;
            rc = fpx_player_read_packet(player, &pkt);
            if (rc == FPX_ERROR_EOF) {
                draining = 1;
                avcodec_send_packet(dec, NULL); /* flush: the landed frame may be held back */
            } else if (rc != FPX_OK) {
                fail("read", rc);
                goto out;
            } else if (pkt.stream_index != item.reference_stream) {
                continue;
            } else if (pkt.flags & FPX_PACKET_FLAG_DISPOSABLE) {
                continue; /* decode-only and no later frame references it: skip it */
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
           argv[2], landed, tb.num, tb.den, fpx_time_to_seconds(outcome.accuracy.landed_media_time),
           outcome.landed_is_keyframe, outcome.frame_covers_target, fed, out_path, dec->width, dec->height);
    status = 0;
out:
    av_frame_free(&frame);
    avcodec_free_context(&dec);
    fpx_player_destroy(player);
    return status;
}
