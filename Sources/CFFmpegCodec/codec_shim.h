/* libavcodec + libswscale for `fpx-seek frame` and `fpx-seek sprite` only (never linked
 * into libfastpixseek): decoding the landed frame the way Examples/c/frames_at.c does,
 * scaling it into an RGB picture (one frame, or a cell of a contact sheet or sprite) and
 * writing that as PNG or JPEG with libavcodec's png / mjpeg encoder. Static inline C so that the tool needs no C target: Swift
 * calls these prefixed functions. Every function returns 0 / a pointer on success and a
 * negative AVERROR / NULL on failure. */
#ifndef FPX_CFFMPEG_CODEC_SHIM_H
#define FPX_CFFMPEG_CODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A decoder for the stream whose AVCodecParameters the library reports (same FFmpeg).
   threads: libavcodec's thread_count (1: decode on the caller's thread; 0: one per core,
   frame and slice threads, bit-exact with one thread but holding more frames in flight). */
static inline AVCodecContext *fpx_cli_decoder_open(const void *codecpar, int tb_num, int tb_den, int threads)
{
    const AVCodecParameters *par = (const AVCodecParameters *)codecpar;
    const AVCodec *c = par ? avcodec_find_decoder(par->codec_id) : NULL;
    AVCodecContext *d = c ? avcodec_alloc_context3(c) : NULL;
    if (!d)
        return NULL;
    if (avcodec_parameters_to_context(d, par) < 0) {
        avcodec_free_context(&d);
        return NULL;
    }
    d->pkt_timebase = (AVRational){tb_num, tb_den};
    d->thread_count = threads < 0 ? 1 : threads;
    if (avcodec_open2(d, c, NULL) < 0)
        avcodec_free_context(&d);
    return d;
}

static inline void fpx_cli_decoder_free(AVCodecContext *d) { avcodec_free_context(&d); }
static inline void fpx_cli_decoder_flush(AVCodecContext *d) { avcodec_flush_buffers(d); }
static inline AVFrame *fpx_cli_frame_alloc(void) { return av_frame_alloc(); }
static inline void fpx_cli_frame_free(AVFrame *f) { av_frame_free(&f); }
static inline int fpx_cli_frame_width(const AVFrame *f) { return f->width; }
static inline int fpx_cli_frame_height(const AVFrame *f) { return f->height; }
/* Shrinks a picture's height (the rows below are left out when it is written). */
static inline void fpx_cli_frame_crop_height(AVFrame *f, int h) { if (h > 0 && h < f->height) f->height = h; }

/* Frames until the one with pts `want` (1: in `out`), 0 when the decoder wants input,
   negative when it is drained or fails. Frames before it are discarded; the ones after
   it stay in the decoder (the packets may continue, see seek.h). *max_out is the largest
   pts returned (INT64_MIN: none yet), *decoded counts the frames returned. */
static inline int fpx_cli_receive(AVCodecContext *d, int64_t want, AVFrame *out, int64_t *max_out, uint64_t *decoded)
{
    for (;;) {
        int rc = avcodec_receive_frame(d, out);
        if (rc == AVERROR(EAGAIN))
            return 0;
        if (rc < 0)
            return rc;
        (*decoded)++;
        if (out->best_effort_timestamp != AV_NOPTS_VALUE && out->best_effort_timestamp > *max_out)
            *max_out = out->best_effort_timestamp;
        if (out->best_effort_timestamp == want)
            return 1;
        av_frame_unref(out);
    }
}

/* Sends one packet (the library's AVPacket, or NULL to drain); while `decode_only` the
   decoder skips non-reference frames (never shown). A damaged packet is not an error. */
static inline int fpx_cli_send(AVCodecContext *d, const void *avpkt, int decode_only)
{
    int rc;
    d->skip_frame = decode_only ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
    rc = avcodec_send_packet(d, (const AVPacket *)avpkt);
    return rc == AVERROR_INVALIDDATA ? 0 : rc;
}

/* An RGB24 picture of w x h (a frame, or a contact sheet), dark grey. */
static inline AVFrame *fpx_cli_rgb_new(int w, int h)
{
    AVFrame *f = av_frame_alloc();
    if (!f)
        return NULL;
    f->format = AV_PIX_FMT_RGB24;
    f->width = w;
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    for (int y = 0; y < h; y++)
        memset(f->data[0] + (size_t)y * (size_t)f->linesize[0], 32, (size_t)w * 3);
    return f;
}

/* Scales `src` into the w x h rectangle of `dst` at (x, y) (libswscale, bicubic). */
static inline int fpx_cli_blit(AVFrame *dst, const AVFrame *src, int x, int y, int w, int h)
{
    struct SwsContext *s;
    uint8_t *planes[4] = {NULL};
    int strides[4] = {0};
    int rc;
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > dst->width || y + h > dst->height)
        return AVERROR(EINVAL);
    s = sws_getContext(src->width, src->height, (enum AVPixelFormat)src->format, w, h, AV_PIX_FMT_RGB24,
                       SWS_BICUBIC, NULL, NULL, NULL);
    if (!s)
        return AVERROR(EINVAL);
    planes[0] = dst->data[0] + (size_t)y * (size_t)dst->linesize[0] + (size_t)x * 3;
    strides[0] = dst->linesize[0];
    rc = sws_scale(s, (const uint8_t *const *)src->data, src->linesize, 0, src->height, planes, strides);
    sws_freeContext(s);
    return rc == h ? 0 : AVERROR(EINVAL);
}

/* Writes an RGB24 picture as PNG (jpeg_quality 0) or as JPEG with libavcodec's mjpeg
   encoder at qscale jpeg_quality (2 best ... 31; full-range 4:2:0, converted by
   libswscale). */
static inline int fpx_cli_write_image(const AVFrame *rgb, const char *path, int jpeg_quality)
{
    const AVCodec *c = avcodec_find_encoder(jpeg_quality ? AV_CODEC_ID_MJPEG : AV_CODEC_ID_PNG);
    AVCodecContext *e = c ? avcodec_alloc_context3(c) : NULL;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *yuv = NULL;
    const AVFrame *in = rgb;
    FILE *fp = NULL;
    int rc = AVERROR(ENOMEM);
    if (!e || !pkt)
        goto out;
    e->width = rgb->width;
    e->height = rgb->height;
    e->pix_fmt = AV_PIX_FMT_RGB24;
    e->time_base = (AVRational){1, 25};
    if (jpeg_quality) {
        struct SwsContext *s;
        yuv = av_frame_alloc();
        if (!yuv)
            goto out;
        yuv->format = AV_PIX_FMT_YUVJ420P;
        yuv->width = rgb->width;
        yuv->height = rgb->height;
        if ((rc = av_frame_get_buffer(yuv, 0)) < 0)
            goto out;
        s = sws_getContext(rgb->width, rgb->height, AV_PIX_FMT_RGB24, rgb->width, rgb->height, AV_PIX_FMT_YUVJ420P,
                           SWS_BICUBIC, NULL, NULL, NULL);
        rc = AVERROR(EINVAL);
        if (!s)
            goto out;
        if (sws_scale(s, (const uint8_t *const *)rgb->data, rgb->linesize, 0, rgb->height, yuv->data, yuv->linesize) !=
            rgb->height) {
            sws_freeContext(s);
            goto out;
        }
        sws_freeContext(s);
        e->pix_fmt = AV_PIX_FMT_YUVJ420P;
        e->color_range = AVCOL_RANGE_JPEG;
        e->flags |= AV_CODEC_FLAG_QSCALE;
        e->global_quality = FF_QP2LAMBDA * jpeg_quality;
        yuv->quality = e->global_quality;
        yuv->pict_type = AV_PICTURE_TYPE_I;
        in = yuv;
    }
    if ((rc = avcodec_open2(e, c, NULL)) < 0 || (rc = avcodec_send_frame(e, in)) < 0 ||
        (rc = avcodec_send_frame(e, NULL)) < 0 || (rc = avcodec_receive_packet(e, pkt)) < 0)
        goto out;
    fp = fopen(path, "wb");
    if (!fp) {
        rc = AVERROR(errno);
        goto out;
    }
    rc = fwrite(pkt->data, 1, (size_t)pkt->size, fp) == (size_t)pkt->size ? 0 : AVERROR(EIO);
    if (fclose(fp) != 0 && rc == 0)
        rc = AVERROR(EIO);
out:
    av_frame_free(&yuv);
    av_packet_free(&pkt);
    avcodec_free_context(&e);
    return rc;
}

static inline int fpx_cli_write_png(const AVFrame *rgb, const char *path) { return fpx_cli_write_image(rgb, path, 0); }
#endif
