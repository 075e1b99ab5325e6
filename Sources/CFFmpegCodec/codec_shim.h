/* libavcodec + libswscale for `fpx-seek frame` only (never linked into libfastpixseek):
 * decoding the landed frame the way Examples/c/frames_at.c does, scaling it into an RGB
 * picture (one frame, or a cell of a contact sheet) and writing that as PNG with
 * libavcodec's png encoder. Static inline C so that the tool needs no C target: Swift
 * calls these prefixed functions. Every function returns 0 / a pointer on success and a
 * negative AVERROR / NULL on failure. */
#ifndef FPX_CFFMPEG_CODEC_SHIM_H
#define FPX_CFFMPEG_CODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A decoder for the stream whose AVCodecParameters the library reports (same FFmpeg). */
static inline AVCodecContext *fpx_cli_decoder_open(const void *codecpar, int tb_num, int tb_den)
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

/* Frames until the one with pts `want` (1: in `out`), 0 when the decoder wants input,
   negative when it is drained or fails. Frames before it are discarded; the ones after
   it stay in the decoder (the packets may continue, see seek.h). */
static inline int fpx_cli_receive(AVCodecContext *d, int64_t want, AVFrame *out)
{
    for (;;) {
        int rc = avcodec_receive_frame(d, out);
        if (rc == AVERROR(EAGAIN))
            return 0;
        if (rc < 0)
            return rc;
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

/* Writes an RGB24 picture as PNG with libavcodec's png encoder. */
static inline int fpx_cli_write_png(const AVFrame *rgb, const char *path)
{
    const AVCodec *c = avcodec_find_encoder(AV_CODEC_ID_PNG);
    AVCodecContext *e = c ? avcodec_alloc_context3(c) : NULL;
    AVPacket *pkt = av_packet_alloc();
    FILE *fp = NULL;
    int rc = AVERROR(ENOMEM);
    if (!e || !pkt)
        goto out;
    e->width = rgb->width;
    e->height = rgb->height;
    e->pix_fmt = AV_PIX_FMT_RGB24;
    e->time_base = (AVRational){1, 25};
    if ((rc = avcodec_open2(e, c, NULL)) < 0 || (rc = avcodec_send_frame(e, rgb)) < 0 ||
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
    av_packet_free(&pkt);
    avcodec_free_context(&e);
    return rc;
}
#endif
