/*
 * test_stream_enable.c -- fpx_player_set_stream_enabled.
 *
 * On the video + audio fixtures (MP4, Matroska), with ffprobe's packet list
 * as ground truth (count and payload bytes per stream):
 *   - all streams enabled: a full read returns every packet of both streams;
 *   - audio disabled before reading: no audio packet is ever returned, every
 *     video packet is, and the demux counters prove the audio was skipped in
 *     the demuxer: packets_demuxed and bytes_read grow by exactly the audio
 *     packets and bytes less than in the enabled run;
 *   - disabled after a seek whose window already holds audio packets: none of
 *     them is returned, and the first packet still says DISCONTINUITY;
 *   - enabled again: audio comes back after the next seek;
 *   - the reference stream: FPX_ERROR_REFERENCE_STREAM (enabling it is a
 *     no-op); bad indexes FPX_ERROR_INVALID_ARGUMENT; no item
 *     FPX_ERROR_NO_ITEM; from a callback FPX_ERROR_IN_CALLBACK; a newly
 *     opened item has every stream enabled.
 *
 * usage: test_stream_enable FIXTURE_DIR
 */
#include "check.h"

typedef struct counts {
    long n[8];
    long long bytes[8];
} counts;

static int probe_counts(const char *path, counts *c)
{
    char cmd[2048], line[256];
    FILE *f;
    memset(c, 0, sizeof *c);
    snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries packet=stream_index,size -of csv=p=0 '%s'", path);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        int s;
        long long b;
        if (sscanf(line, "%d,%lld", &s, &b) == 2 && s >= 0 && s < 8) {
            c->n[s]++;
            c->bytes[s] += b;
        }
    }
    pclose(f);
    return c->n[0] > 0;
}

static fpx_player_stats stats(fpx_player *p)
{
    fpx_player_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    fpx_player_stats_get(p, &s);
    return s;
}

/* Seeks to 0 (exact, no callback) and reads everything; returns per-stream counts. */
static void read_all(fpx_player *p, counts *got, int *first_discontinuity)
{
    fpx_packet pkt;
    int first = 1;
    memset(got, 0, sizeof *got);
    *first_discontinuity = 0;
    CHECK_OK(fpx_player_seek(p, fpx_time_make(0, 1), fpx_precision_exact(), NULL, NULL, NULL));
    for (;;) {
        int rc;
        memset(&pkt, 0, sizeof pkt);
        pkt.struct_size = sizeof pkt;
        rc = fpx_player_read_packet(p, &pkt);
        if (rc == FPX_ERROR_EOF)
            break;
        if (!CHECK_OK(rc))
            break;
        if (first) {
            *first_discontinuity = (pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY) != 0;
            first = 0;
        }
        if (pkt.stream_index >= 0 && pkt.stream_index < 8) {
            got->n[pkt.stream_index]++;
            got->bytes[pkt.stream_index] += (long long)pkt.size;
        }
    }
}

static fpx_player *opened(const char *name)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    if (!p)
        return NULL;
    if (open_wait(p, fixture(name), NULL) != FPX_OK) {
        fpx_player_destroy(p);
        return NULL;
    }
    fpx_player_setup_seek_manager(p);
    return p;
}

typedef struct cbstate {
    fpx_player *p;
    int rc;
    int done;
    pthread_mutex_t mu;
} cbstate;

static void from_callback(const fpx_seek_outcome *o, void *ud)
{
    cbstate *c = (cbstate *)ud;
    (void)o;
    pthread_mutex_lock(&c->mu);
    c->rc = fpx_player_set_stream_enabled(c->p, 1, 0);
    c->done = 1;
    pthread_mutex_unlock(&c->mu);
}

static void fixture_run(const char *name)
{
    counts truth, all, vid;
    fpx_player_stats s0, s1, t0, t1;
    fpx_player *p;
    int disc, audio = 1, video = 0;
    REQUIRE(probe_counts(fixture(name), &truth));
    REQUIRE(truth.n[1] > 0);

    /* 1. Everything enabled. */
    p = opened(name);
    REQUIRE(p != NULL);
    s0 = stats(p);
    read_all(p, &all, &disc);
    s1 = stats(p);
    CHECK(disc);
    CHECK_EQ(all.n[video], truth.n[video]);
    CHECK_EQ(all.n[audio], truth.n[audio]);
    CHECK_EQ(all.bytes[audio], truth.bytes[audio]);
    fpx_player_destroy(p);

    /* 2. Audio disabled before reading. */
    p = opened(name);
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_set_stream_enabled(p, audio, 0));
    CHECK_OK(fpx_player_set_stream_enabled(p, audio, 0)); /* idempotent */
    t0 = stats(p);
    read_all(p, &vid, &disc);
    t1 = stats(p);
    CHECK(disc);
    CHECK_EQ(vid.n[audio], 0);
    CHECK_EQ(vid.n[video], truth.n[video]);
    CHECK_EQ(vid.bytes[video], truth.bytes[video]);
    /* The counters: the demuxer read exactly the audio packets and bytes fewer. */
    if (!CHECK_EQ((long long)((s1.packets_demuxed - s0.packets_demuxed) - (t1.packets_demuxed - t0.packets_demuxed)),
                  (long long)truth.n[audio]))
        NOTE("%s: demuxed %llu enabled, %llu with audio disabled, %ld audio packets", name,
             (unsigned long long)(s1.packets_demuxed - s0.packets_demuxed),
             (unsigned long long)(t1.packets_demuxed - t0.packets_demuxed), truth.n[audio]);
    CHECK_EQ((long long)((s1.bytes_read - s0.bytes_read) - (t1.bytes_read - t0.bytes_read)), truth.bytes[audio]);

    /* 3. Enabled again: audio comes back after a seek. */
    CHECK_OK(fpx_player_set_stream_enabled(p, audio, 1));
    read_all(p, &all, &disc);
    CHECK_EQ(all.n[audio], truth.n[audio]);
    CHECK_EQ(all.n[video], truth.n[video]);

    /* 4. Disabled while the window holds audio packets. */
    {
        fpx_packet pkt;
        int first = 1, n = 0, audio_seen = 0, rc;
        CHECK_OK(fpx_player_seek(p, fpx_time_make(5, 1), fpx_precision_exact(), NULL, NULL, NULL));
        /* Reading waits for the seek; the window now holds the packets from the keyframe. */
        CHECK_OK(fpx_player_set_stream_enabled(p, audio, 0));
        for (;;) {
            memset(&pkt, 0, sizeof pkt);
            pkt.struct_size = sizeof pkt;
            rc = fpx_player_read_packet(p, &pkt);
            if (rc != FPX_OK)
                break;
            if (first)
                CHECK(pkt.flags & FPX_PACKET_FLAG_DISCONTINUITY);
            first = 0;
            audio_seen += pkt.stream_index == audio;
            n++;
        }
        CHECK_ERR(rc, FPX_ERROR_EOF);
        CHECK_EQ(audio_seen, 0);
        CHECK(n > 0);
    }

    /* 5. The reference stream and bad indexes. */
    {
        fpx_item_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK_OK(fpx_player_item_info(p, &info));
        CHECK_EQ(info.reference_stream, video);
        CHECK_ERR(fpx_player_set_stream_enabled(p, info.reference_stream, 0), FPX_ERROR_REFERENCE_STREAM);
        CHECK_OK(fpx_player_set_stream_enabled(p, info.reference_stream, 1));
        CHECK_ERR(fpx_player_set_stream_enabled(p, -1, 0), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(fpx_player_set_stream_enabled(p, info.stream_count, 0), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_ERR(fpx_player_set_stream_enabled(p, 1 << 30, 0), FPX_ERROR_INVALID_ARGUMENT);
    }

    /* 6. From a callback. */
    {
        cbstate c;
        memset(&c, 0, sizeof c);
        c.p = p;
        pthread_mutex_init(&c.mu, NULL);
        CHECK_OK(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), from_callback, &c, NULL));
        for (;;) {
            int d;
            pthread_mutex_lock(&c.mu);
            d = c.done;
            pthread_mutex_unlock(&c.mu);
            if (d)
                break;
            sleep_ms(2);
        }
        CHECK_ERR(c.rc, FPX_ERROR_IN_CALLBACK);
        pthread_mutex_destroy(&c.mu);
    }

    /* 7. A new item starts with every stream enabled. */
    CHECK_OK(fpx_player_open(p, fixture(name)));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    read_all(p, &all, &disc);
    CHECK_EQ(all.n[audio], truth.n[audio]);
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    fpx_player *p;
    check_init(argc, argv, 110);
    setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 0); /* run.sh runs us with env -i */
    SECTION("mp4_bframes.mp4");
    fixture_run("mp4_bframes.mp4");
    SECTION("mkv.mkv");
    fixture_run("mkv.mkv");
    SECTION("no item, invalid handle");
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    CHECK_ERR(fpx_player_set_stream_enabled(p, 1, 0), FPX_ERROR_NO_ITEM);
    fpx_player_destroy(p);
    CHECK_ERR(fpx_player_set_stream_enabled(p, 1, 0), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_set_stream_enabled(NULL, 1, 0), FPX_ERROR_INVALID_HANDLE);
    return check_summary();
}
