/*
 * avc_landing_decode.c -- a libavcodec host that decodes after exact seeks
 * using ONLY the packet stream (no completion callback, no outcome), as the
 * header's "Landing on the packet stream" recipe says, on B-frame fixtures.
 *
 * For each fixture and each target (picked between frames, on frames, at the
 * ends), it issues fpx_player_seek(exact) with no callback, reads packets,
 * flushes the decoder at DISCONTINUITY, decodes the reference stream with
 * libavcodec and presents the first decoded frame whose pts >=
 * packet.landed_pts_in_stream. Ground truth, from the ffmpeg CLI only:
 *   - ffprobe -show_frames: the presented frame's pts must be the largest
 *     frame pts <= target (the exact landing);
 *   - ffmpeg -f framemd5 (-fps_mode passthrough): the presented frame's
 *     pixels must hash to the md5 of that frame in a straight decode.
 * Audio: on the fixture with AAC, the audio packet that straddles the
 * landing carries trim_samples = ceil((landing - pts) x sample_rate),
 * computed here from ffprobe's packet list; decoding it gives a frame with
 * that pts and more samples than trim_samples, and packets wholly before
 * the landing carry 0.
 *
 * Test-only dependency: libavcodec/libavutil (pkg-config), built by
 * Tests/c/run.sh only when they are installed.
 *
 * usage: avc_landing_decode FIXTURE_DIR
 */
#include "check.h"

#define MAX_FRAMES 4096

__extension__ typedef __int128 i128; /* exact rational comparisons */

#include "avc_common.h"
/* Seeks (no callback), decodes from the packets, returns the first presented frame's pts
 * (and its md5), or FPX_NOPTS. */
static int64_t seek_and_present(fpx_player *p, AVCodecContext *dec, int ref, fpx_time target, char md5[33],
                                int64_t *landed_pts_seen)
{
    fpx_packet fp;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *fr = av_frame_alloc();
    uint64_t id = 0;
    int first = 1, n = 0, eof = 0;
    int64_t landed = FPX_NOPTS, shown = FPX_NOPTS;
    md5[0] = 0;
    *landed_pts_seen = FPX_NOPTS;
    if (!pkt || !fr || !CHECK_OK(fpx_player_seek(p, target, fpx_precision_exact(), NULL, NULL, &id)))
        goto out;
    while (shown == FPX_NOPTS && n++ < 2000) {
        int rc;
        memset(&fp, 0, sizeof fp);
        fp.struct_size = sizeof fp;
        rc = eof ? FPX_ERROR_EOF : fpx_player_read_packet(p, &fp);
        if (rc == FPX_ERROR_EOF) {
            if (eof)
                break;
            eof = 1;
            avcodec_send_packet(dec, NULL);
        } else {
            if (!CHECK_OK(rc))
                break;
            if (first) {
                CHECK(fp.flags & FPX_PACKET_FLAG_DISCONTINUITY);
                CHECK_EQ(fp.seek_id, id);
                CHECK_EQ(fp.landed_stream_index, ref);
                CHECK(fp.landed_pts != FPX_NOPTS);
                landed = fp.landed_pts;
                *landed_pts_seen = landed;
                avcodec_flush_buffers(dec);
                first = 0;
            } else {
                CHECK(!(fp.flags & FPX_PACKET_FLAG_DISCONTINUITY));
            }
            if (fp.landed_pts != landed)
                CHECK_EQ(fp.landed_pts, landed);
            if (fp.stream_index != ref)
                continue;
            if (fp.landed_pts_in_stream != landed)
                CHECK_EQ(fp.landed_pts_in_stream, landed);
            fill_packet(pkt, &fp);
            if (avcodec_send_packet(dec, pkt) < 0)
                continue;
        }
        while (avcodec_receive_frame(dec, fr) == 0) {
            int64_t t = frame_pts(fr);
            if (shown == FPX_NOPTS && t != AV_NOPTS_VALUE && t >= landed) {
                shown = t;
                frame_md5(fr, md5);
            }
            av_frame_unref(fr);
        }
    }
out:
    av_frame_free(&fr);
    av_packet_free(&pkt);
    return shown;
}

static int64_t covering(const truth *t, int64_t ticks)
{
    int i;
    int64_t best = t->pts[0];
    for (i = 0; i < t->n; i++)
        if (t->pts[i] <= ticks)
            best = t->pts[i];
    return best;
}

static int index_of(const truth *t, int64_t pts)
{
    int i;
    for (i = 0; i < t->n; i++)
        if (t->pts[i] == pts)
            return i;
    return -1;
}

static truth T;

static void video_fixture(const char *name)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_info info;
    AVCodecContext *dec;
    int k, ok = 0, targets = 0;
    REQUIRE(p != NULL);
    REQUIRE(load_truth(fixture(name), &T));
    CHECK_EQ(T.nmd5, T.n);
    REQUIRE(open_wait(p, fixture(name), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    REQUIRE(fpx_player_item_info(p, &info) == FPX_OK);
    dec = open_decoder(p, info.reference_stream);
    REQUIRE(dec != NULL);
    /* Targets: between frames and on frames, spread over the file, plus both ends. */
    for (k = 0; k < 24; k++) {
        int i = k == 0 ? 0 : k == 23 ? T.n - 1 : (int)((long long)(T.n - 2) * k / 23);
        int64_t ticks = T.pts[i] + (k % 2 == 1 && i + 1 < T.n ? (T.pts[i + 1] - T.pts[i]) / 2 : 0);
        int64_t want = covering(&T, ticks), got, landed;
        char md5[33];
        int j;
        /* item time = (ticks - start_pts) x time base, exact */
        fpx_time target = fpx_time_make((ticks - info.start_pts) * info.time_base_num, info.time_base_den);
        targets++;
        got = seek_and_present(p, dec, info.reference_stream, target, md5, &landed);
        j = index_of(&T, want);
        if (CHECK_EQ(got, want) && CHECK_EQ(landed, want) && j >= 0 && j < T.nmd5 && CHECK_STR(md5, T.md5[j]))
            ok++;
        else
            NOTE("%s: target ticks %" PRId64 ": presented %" PRId64 ", ffprobe %" PRId64, name, ticks, got, want);
    }
    NOTE("%s: %d/%d first presented frames equal ffprobe's landing and ffmpeg's pixels", name, ok, targets);
    avcodec_free_context(&dec);
    fpx_player_destroy(p);
}

/* ---- audio: trim_samples against ffprobe's packet list ------------------------------ */

typedef struct apkt { int64_t pts, dur; } apkt;

static int load_audio_packets(const char *path, apkt *out, int max)
{
    char cmd[2048], line[256];
    int n = 0;
    FILE *f;
    snprintf(cmd, sizeof cmd, "ffprobe -v error -select_streams a:0 -show_entries packet=pts,duration -of csv=p=0 '%s'",
             path);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f) && n < max) {
        long long a, b;
        if (sscanf(line, "%lld,%lld", &a, &b) == 2) {
            out[n].pts = a;
            out[n].dur = b;
            n++;
        }
    }
    pclose(f);
    return n;
}

static apkt AP[8192];

static void audio_trim(const char *name)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_info info;
    fpx_stream_info vs, as;
    AVCodecContext *adec;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *fr = av_frame_alloc();
    int na, k, aidx = -1, s, straddles = 0;
    REQUIRE(p != NULL && pkt && fr);
    REQUIRE(load_truth(fixture(name), &T));
    na = load_audio_packets(fixture(name), AP, 8192);
    REQUIRE(na > 10);
    REQUIRE(open_wait(p, fixture(name), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    REQUIRE(fpx_player_item_info(p, &info) == FPX_OK);
    for (s = 0; s < info.stream_count; s++) {
        memset(&as, 0, sizeof as);
        as.struct_size = sizeof as;
        if (fpx_player_stream_info(p, s, &as) == FPX_OK && as.type == FPX_MEDIA_AUDIO) {
            aidx = s;
            break;
        }
    }
    REQUIRE(aidx >= 0);
    memset(&vs, 0, sizeof vs);
    vs.struct_size = sizeof vs;
    REQUIRE(fpx_player_stream_info(p, info.reference_stream, &vs) == FPX_OK);
    adec = open_decoder(p, aidx);
    REQUIRE(adec != NULL);
    for (k = 1; k < 20; k++) {
        int i = (int)((long long)(T.n - 2) * k / 20);
        int64_t ticks = T.pts[i] + (T.pts[i + 1] - T.pts[i]) / 3;
        int64_t L = covering(&T, ticks); /* the landing, video ticks */
        fpx_time target = fpx_time_make((ticks - info.start_pts) * info.time_base_num, info.time_base_den);
        fpx_packet fp;
        int first = 1, n = 0, done = 0, j;
        CHECK_OK(fpx_player_seek(p, target, fpx_precision_exact(), NULL, NULL, NULL));
        while (!done && n++ < 3000) {
            memset(&fp, 0, sizeof fp);
            fp.struct_size = sizeof fp;
            if (fpx_player_read_packet(p, &fp) != FPX_OK)
                break;
            if (first) {
                avcodec_flush_buffers(adec);
                first = 0;
            }
            if (fp.stream_index != aidx)
                continue;
            /* Expected, from ffprobe's packet with this pts: the landing L x vtb in
             * audio ticks is L * vn * ad / (vd * an); exact comparisons in 128 bits. */
            {
                i128 lnum = (i128)L * vs.time_base_num * as.time_base_den;
                i128 lden = (i128)vs.time_base_den * as.time_base_num;
                i128 pnum = (i128)fp.pts * lden;
                int64_t want = 0, dur = -1;
                for (j = 0; j < na; j++)
                    if (AP[j].pts == fp.pts)
                        dur = AP[j].dur;
                CHECK(dur > 0);
                if (pnum < lnum && lnum < (i128)(fp.pts + dur) * lden) {
                    i128 tn = (lnum - pnum) * as.time_base_num * as.sample_rate;
                    i128 td = lden * as.time_base_den;
                    want = (int64_t)(tn / td + (tn % td ? 1 : 0));
                }
                if (!CHECK_EQ(fp.trim_samples, want))
                    NOTE("%s: audio pts %" PRId64 " landing %" PRId64, name, fp.pts, L);
                /* landed_pts_in_stream: ceil of the landing in audio ticks */
                CHECK_EQ(fp.landed_pts_in_stream, (int64_t)(lnum / lden + (lnum % lden ? 1 : 0)));
                if (want > 0) {
                    straddles++;
                    CHECK(fp.flags & FPX_PACKET_FLAG_DECODE_ONLY);
                }
                fill_packet(pkt, &fp);
                if (avcodec_send_packet(adec, pkt) == 0) {
                    while (avcodec_receive_frame(adec, fr) == 0) {
                        if (want > 0 && frame_pts(fr) == fp.pts)
                            CHECK(fr->nb_samples > want);
                        av_frame_unref(fr);
                    }
                }
                if (pnum >= lnum || want > 0) {
                    /* At or after the landing: nothing later straddles it. */
                    done = pnum >= lnum;
                    if (want > 0)
                        done = 1;
                }
            }
        }
    }
    CHECK(straddles >= 10); /* AAC 1024-sample packets straddle most video landings */
    NOTE("%s: %d straddling audio packets checked", name, straddles);
    avcodec_free_context(&adec);
    av_frame_free(&fr);
    av_packet_free(&pkt);
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    static const char *videos[] = {"mp4_bframes.mp4", "mkv.mkv", "ts.ts", "mp4_opengop.mp4",
                                   "mp4_vfr.mp4", "fmp4.mp4", "mp4_editlist.mp4", "mp4_tb12288.mp4"};
    size_t i;
    check_init(argc, argv, 110);
    av_log_set_level(AV_LOG_QUIET); /* open-GOP leading frames make h264 warn; not ours */
    setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 0); /* run.sh runs us with env -i */
    for (i = 0; i < sizeof videos / sizeof videos[0]; i++) {
        SECTION(videos[i]);
        video_fixture(videos[i]);
    }
    SECTION("audio trim_samples (mp4_bframes.mp4)");
    audio_trim("mp4_bframes.mp4");
    return check_summary();
}
