/* What the libavcodec hosts of Tests/c (avc_*.c) share: ffmpeg's own ground truth for a
 * file's video frames (ffprobe pts, framemd5 of a full decode), the md5 of a decoded
 * picture in framemd5's form, a decoder opened from fpx_stream_info, and the library's
 * packet as an AVPacket. One copy for all of them. */
#ifndef FPX_AVC_COMMON_H
#define FPX_AVC_COMMON_H

#include "check.h"

#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>

#ifndef MAX_FRAMES
#define MAX_FRAMES 4096
#endif

typedef struct truth {
    int64_t pts[MAX_FRAMES]; /* presentation order (sorted) */
    char md5[MAX_FRAMES][33];
    int n, nmd5;
} truth;

static inline int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static inline int load_truth(const char *path, truth *t)
{
    char cmd[2048], line[512];
    FILE *f;
    t->n = t->nmd5 = 0;
    snprintf(cmd, sizeof cmd, "ffprobe -v error -select_streams v:0 -show_entries frame=pts -of csv=p=0 '%s'", path);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f) && t->n < MAX_FRAMES) {
        char *end;
        long long v = strtoll(line, &end, 10);
        if (end != line)
            t->pts[t->n++] = v;
    }
    pclose(f);
    qsort(t->pts, (size_t)t->n, sizeof t->pts[0], cmp_i64);
    snprintf(cmd, sizeof cmd, "ffmpeg -v error -i '%s' -map 0:v:0 -fps_mode passthrough -f framemd5 -", path);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f) && t->nmd5 < MAX_FRAMES) {
        char *last;
        size_t len;
        if (line[0] == '#')
            continue;
        len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
            line[--len] = 0;
        last = strrchr(line, ',');
        if (!last)
            continue;
        last++;
        while (*last == ' ')
            last++;
        if (strlen(last) == 32)
            memcpy(t->md5[t->nmd5++], last, 33);
    }
    pclose(f);
    return t->n > 0;
}

static inline void frame_md5(const AVFrame *fr, char out[33])
{
    int size = av_image_get_buffer_size((enum AVPixelFormat)fr->format, fr->width, fr->height, 1);
    uint8_t *buf, digest[16];
    int i;
    out[0] = 0;
    if (size <= 0)
        return;
    buf = (uint8_t *)av_malloc((size_t)size);
    if (!buf)
        return;
    av_image_copy_to_buffer(buf, size, (const uint8_t *const *)fr->data, fr->linesize,
                            (enum AVPixelFormat)fr->format, fr->width, fr->height, 1);
    av_md5_sum(digest, buf, size);
    for (i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
    av_free(buf);
}

static inline AVCodecContext *open_decoder(fpx_player *p, int stream)
{
    fpx_stream_info si;
    const AVCodec *codec;
    AVCodecContext *c;
    memset(&si, 0, sizeof si);
    si.struct_size = sizeof si;
    if (fpx_player_stream_info(p, stream, &si) != FPX_OK)
        return NULL;
    codec = avcodec_find_decoder((enum AVCodecID)si.codec_id);
    if (!codec)
        return NULL;
    c = avcodec_alloc_context3(codec);
    if (!c)
        return NULL;
    if (avcodec_parameters_to_context(c, (const AVCodecParameters *)si.codecpar) < 0 ||
        avcodec_open2(c, codec, NULL) < 0) {
        avcodec_free_context(&c);
        return NULL;
    }
    c->pkt_timebase.num = si.time_base_num;
    c->pkt_timebase.den = si.time_base_den;
    return c;
}

/* An AVPacket from the fpx_packet fields only (data copied by the decoder). */
static inline void fill_packet(AVPacket *pkt, const fpx_packet *fp)
{
    pkt->data = (uint8_t *)(uintptr_t)fp->data;
    pkt->size = (int)fp->size;
    pkt->pts = fp->pts == FPX_NOPTS ? AV_NOPTS_VALUE : fp->pts;
    pkt->dts = fp->dts == FPX_NOPTS ? AV_NOPTS_VALUE : fp->dts;
    pkt->duration = fp->duration;
    pkt->flags = (int)(fp->flags & (FPX_PACKET_FLAG_KEY | FPX_PACKET_FLAG_CORRUPT | FPX_PACKET_FLAG_DISCARD));
}

static inline int64_t frame_pts(const AVFrame *f)
{
    return f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : f->pts;
}


#endif
