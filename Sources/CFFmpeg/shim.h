/* Macros and inline helpers Swift cannot import from FFmpeg, as prefixed functions, and the
 * one place where the FFmpeg versions differ (the "compatibility layer" below): the Swift code
 * calls only these, never a version-specific FFmpeg API, and holds no #if on FFmpeg's version.
 * Supported: FFmpeg 5.1 (libavformat 59, Debian 12), 6.1 (60, Ubuntu 24.04: not tested here),
 * 7.1 (61, Debian 13). Version thresholds are those of FFmpeg's doc/APIchanges. */
#ifndef FPX_CFFMPEG_SHIM_H
#define FPX_CFFMPEG_SHIM_H
#include <libavcodec/version.h>
#include <libavformat/version.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/aes.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>
#include <libavutil/mathematics.h>
#include <libavutil/pixdesc.h>
#include <libavutil/display.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <errno.h>

static inline int64_t fpx_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int fpx_averror_eof(void) { return AVERROR_EOF; }
/* The byte offset an open http(s) AVIOContext's protocol is at: before the body is read, the
 * start of the server's Content-Range (0 when it answered 200 with the whole resource); -1 for
 * a protocol without the option (file). */
static inline int64_t fpx_avio_protocol_offset(AVIOContext *io) {
    int64_t v = -1;
    if (av_opt_get_int(io, "offset", AV_OPT_SEARCH_CHILDREN, &v) < 0) return -1;
    return v;
}
static inline int fpx_averror_exit(void) { return AVERROR_EXIT; }
static inline int fpx_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int fpx_averror_enoent(void) { return AVERROR(ENOENT); }
static inline int fpx_averror_etimedout(void) { return AVERROR(ETIMEDOUT); }
static inline int fpx_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int fpx_averror_eio(void) { return AVERROR(EIO); }
static inline int fpx_averror_econnrefused(void) { return AVERROR(ECONNREFUSED); }
static inline int fpx_averror_econnreset(void) { return AVERROR(ECONNRESET); }
static inline int fpx_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int fpx_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int fpx_averror_http_server_error(void) { return AVERROR_HTTP_SERVER_ERROR; }
static inline int fpx_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int fpx_averror_protocol_not_found(void) { return AVERROR_PROTOCOL_NOT_FOUND; }
static inline int fpx_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int fpx_av_time_base(void) { return AV_TIME_BASE; }
static inline int fpx_pkt_flag_key(void) { return AV_PKT_FLAG_KEY; }
static inline int fpx_pkt_flag_corrupt(void) { return AV_PKT_FLAG_CORRUPT; }
static inline int fpx_pkt_flag_discard(void) { return AV_PKT_FLAG_DISCARD; }
static inline int fpx_pkt_flag_disposable(void) { return AV_PKT_FLAG_DISPOSABLE; }
static inline int fpx_avseek_flag_backward(void) { return AVSEEK_FLAG_BACKWARD; }
static inline int fpx_avfmtctx_unseekable(void) { return AVFMTCTX_UNSEEKABLE; }
/* FFmpeg's own logger back (av_log_default_callback cannot cross into Swift: va_list). */
static inline void fpx_av_log_restore_default(void) { av_log_set_callback(av_log_default_callback); }

/* The library's av_log callback: va_list cannot cross into Swift, so the line
 * is formatted here and handed to Swift (FFmpegLog.swift, which defines these
 * two with @_cdecl; the version script keeps them local) as text. `wants`
 * filters by level before any formatting. */
int fastpixseek_log_wants(int level);
void fastpixseek_log_line(int level, const char *text);
static void fpx_av_log_callback_(void *avcl, int level, const char *fmt, va_list vl)
{
    static int print_prefix = 1; /* a racy hint for FFmpeg's prefix: harmless */
    char buf[1024];
    int lv = level >= 0 ? (level & 0xff) : level;
    if (!fmt || !fastpixseek_log_wants(lv))
        return;
    buf[0] = 0;
    av_log_format_line2(avcl, level, fmt, vl, buf, (int)sizeof buf, &print_prefix);
    fastpixseek_log_line(lv, buf);
}
static inline void fpx_av_log_install(void) { av_log_set_callback(fpx_av_log_callback_); }

/* The FFmpeg versions this build was compiled against (AV_VERSION_INT), for the ABI check
   (FastPixSeekEngine/FFmpegVersions.swift); the loaded ones come from *_version(). */
#include <libavcodec/avcodec.h>
static inline unsigned fpx_libavformat_build_version(void) { return LIBAVFORMAT_VERSION_INT; }
static inline unsigned fpx_libavcodec_build_version(void) { return LIBAVCODEC_VERSION_INT; }
static inline unsigned fpx_libavutil_build_version(void) { return LIBAVUTIL_VERSION_INT; }
/* Index entry i of st (the container's own index): timestamp and AVINDEX_* flags; 0 when it exists. */
static inline int fpx_index_entry(AVStream *st, int i, int64_t *timestamp, int *flags) {
    const AVIndexEntry *e = avformat_index_get_entry(st, i);
    if (!e) return -1;
    *timestamp = e->timestamp;
    *flags = e->flags & (AVINDEX_KEYFRAME | AVINDEX_DISCARD_FRAME);
    return 0;
}
/* The samples a decoder skips at the start of this packet (AV_PKT_DATA_SKIP_SAMPLES: encoder
 * priming of MP3, Opus, ...), 0 when none. */
static inline int64_t fpx_packet_skip_samples(const AVPacket *p) {
    size_t size = 0;
    const uint8_t *d = av_packet_get_side_data(p, AV_PKT_DATA_SKIP_SAMPLES, &size);
    if (!d || size < 4) return 0;
    return (int64_t)((uint32_t)d[0] | ((uint32_t)d[1] << 8) | ((uint32_t)d[2] << 16) | ((uint32_t)d[3] << 24));
}
static inline int fpx_avindex_keyframe(void) { return AVINDEX_KEYFRAME; }

/* ---- compatibility layer: every difference between the supported FFmpeg versions ---------- */

/* The stream's display matrix (AV_PKT_DATA_DISPLAYMATRIX: 9 int32_t), NULL when it has none.
 * lavc 60.29.100 / lavf 60.15.100 (FFmpeg 6.1) moved stream side data to
 * AVCodecParameters.coded_side_data and deprecated AVStream.side_data and
 * av_stream_get_side_data(); libavformat 62 (FFmpeg 8) removes them. */
static inline const int32_t *fpx_stream_display_matrix(const AVStream *st)
{
    size_t size = 0;
    const uint8_t *d = NULL;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *sd = st->codecpar ? av_packet_side_data_get(st->codecpar->coded_side_data,
        st->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX) : NULL;
    if (sd) {
        d = sd->data;
        size = sd->size;
    }
#else
    d = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
#endif
    return d && size >= 9 * sizeof(int32_t) ? (const int32_t *)(const void *)d : NULL;
}
static inline int fpx_avindex_discard_frame(void) { return AVINDEX_DISCARD_FRAME; }
#endif
