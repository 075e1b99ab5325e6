/* A 5-thread storm on one player: a reader, two steppers (forward and
 * backward), a seeker that also cancels, and a thread polling current_time.
 * Every packet read must be the file's own packet, as ffprobe -show_packets
 * lists it: same stream, pts, dts, size and payload checksum (adler32),
 * found by its byte position (a dts may be unknown after a seek, where
 * the demuxer has not seen enough to derive it; a known one must match). A packet flagged DISCONTINUITY must be a
 * keyframe of the reference stream (a decoder restarts on it), and a packet
 * without it must follow the previous one in the file's demux order.
 *
 * Issue 9, defect 9: a read racing a step returned the file's payload and dts
 * with the pts of a stepped-to frame, flagged DISCONTINUITY, not a keyframe.
 * Usage: test_storm_packets FIXTURE_DIR [SECONDS_PER_FILE] */
#include "check.h"
#include "groundtruth.h"

static fpx_player *P;
static volatile int stop_flag;
static int ref_stream;
static gt_file GT;
static pthread_mutex_t stat_mu = PTHREAD_MUTEX_INITIALIZER;
static long n_jumps, n_reads, n_bad, n_disc, n_disc_bad, n_steps, n_seeks, n_times, n_step_errors, n_missing;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void *reader(void *arg)
{
    long prev = -1; /* demux-order index of the previous packet read */
    (void)arg;
    while (!flag_get(&stop_flag)) {
        fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
        const gt_packet *g;
        int rc = fpx_player_read_packet(P, &pk);
        if (rc == FPX_ERROR_EOF) {
            prev = -1;
            fpx_player_seek(P, fpx_time_make(0, 1), fpx_precision_exact(), NULL, NULL, NULL);
            continue;
        }
        if (rc != FPX_OK) {
            sleep_ms(1);
            continue;
        }
        g = gt_find(&GT, pk.stream_index, pk.pos);
        pthread_mutex_lock(&stat_mu);
        n_reads++;
        if (!g) {
            n_missing++;
            if (n_missing <= 3)
                NOTE("packet of stream %d at pos %" PRId64 " is not in ffprobe's list", pk.stream_index, pk.pos);
        } else if (g->pts != pk.pts || (pk.dts != FPX_NOPTS && g->dts != pk.dts) || g->size != pk.size ||
                   g->adler != gt_adler32(pk.data, pk.size)) {
            n_bad++;
            if (n_bad <= 5)
                NOTE("stream %d pos %" PRId64 ": got pts %" PRId64 " dts %" PRId64 " size %zu adler %08x, "
                     "ffprobe pts %" PRId64 " dts %" PRId64 " size %zu adler %08x",
                     pk.stream_index, pk.pos, pk.pts, pk.dts, pk.size, gt_adler32(pk.data, pk.size), g->pts,
                     g->dts, g->size, g->adler);
        }
        /* Without DISCONTINUITY, a packet follows the previous one in the file. */
        if (g && !(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY) && prev >= 0 && (long)g->order != prev + 1) {
            n_jumps++;
            if (n_jumps <= 5)
                NOTE("packet #%ld (stream %d pts %" PRId64 ") read after packet #%ld without DISCONTINUITY",
                     (long)g->order, pk.stream_index, pk.pts, prev);
        }
        prev = g ? (long)g->order : -1;
        if (pk.flags & FPX_PACKET_FLAG_DISCONTINUITY) {
            n_disc++;
            if (pk.stream_index != ref_stream || !(pk.flags & FPX_PACKET_FLAG_KEY) || (g && !g->key)) {
                n_disc_bad++;
                if (n_disc_bad <= 5)
                    NOTE("DISCONTINUITY on a packet that is not a reference keyframe: stream %d pts %" PRId64
                         " flags 0x%x", pk.stream_index, pk.pts, pk.flags);
            }
        }
        pthread_mutex_unlock(&stat_mu);
    }
    return NULL;
}

static void *stepper(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    fpx_frame_step_direction dir = ((uintptr_t)arg & 1) ? FPX_STEP_BACKWARD : FPX_STEP_FORWARD;
    while (!flag_get(&stop_flag)) {
        fpx_frame_step_result r = {.struct_size = sizeof r};
        int rc = fpx_player_step_frame(P, dir, 1 + (int)(rnd(&seed) % 3), &r);
        pthread_mutex_lock(&stat_mu);
        n_steps++;
        if (rc == FPX_ERROR_INTERNAL)
            n_step_errors++;
        pthread_mutex_unlock(&stat_mu);
        sleep_ms(rnd(&seed) % 3);
    }
    return NULL;
}

static void *seeker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!flag_get(&stop_flag)) {
        int64_t ms = (int64_t)(rnd(&seed) % 4000);
        fpx_precision prec = rnd(&seed) % 2 ? fpx_precision_exact() : fpx_precision_default();
        fpx_player_seek(P, fpx_time_make(ms, 1000), prec, NULL, NULL, NULL);
        if (rnd(&seed) % 4 == 0)
            fpx_player_cancel_pending_seeks(P, NULL);
        pthread_mutex_lock(&stat_mu);
        n_seeks++;
        pthread_mutex_unlock(&stat_mu);
        sleep_ms(2 + rnd(&seed) % 10);
    }
    return NULL;
}

static void *poller(void *arg)
{
    (void)arg;
    while (!flag_get(&stop_flag)) {
        fpx_time t;
        fpx_player_current_time(P, &t);
        pthread_mutex_lock(&stat_mu);
        n_times++;
        pthread_mutex_unlock(&stat_mu);
        sleep_ms(1);
    }
    return NULL;
}

static void storm(const char *name, long ms)
{
    pthread_t th[5];
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    int i;
    SECTION(name);
    REQUIRE(gt_load(&GT, fixture(name)) > 0);
    P = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(P != NULL);
    REQUIRE(open_wait(P, fixture(name), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(P));
    CHECK_OK(fpx_player_item_info(P, &ii));
    ref_stream = ii.reference_stream;
    n_jumps = n_reads = n_bad = n_disc = n_disc_bad = n_steps = n_seeks = n_times = n_step_errors = n_missing = 0;
    flag_set(&stop_flag, 0);
    pthread_create(&th[0], NULL, reader, NULL);
    pthread_create(&th[1], NULL, stepper, (void *)(uintptr_t)2);
    pthread_create(&th[2], NULL, stepper, (void *)(uintptr_t)3);
    pthread_create(&th[3], NULL, seeker, (void *)(uintptr_t)7);
    pthread_create(&th[4], NULL, poller, NULL);
    sleep_ms(ms);
    flag_set(&stop_flag, 1);
    for (i = 0; i < 5; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(fpx_player_destroy(P));
    NOTE("%s: %ld reads (%ld with DISCONTINUITY), %ld steps, %ld seeks, %ld current_time", name, n_reads, n_disc,
         n_steps, n_seeks, n_times);
    CHECK(n_reads > 100);
    CHECK(n_disc > 0);
    CHECK_EQ(n_missing, 0);
    CHECK_EQ(n_bad, 0);
    CHECK_EQ(n_disc_bad, 0);
    CHECK_EQ(n_jumps, 0);
    CHECK_EQ(n_step_errors, 0);
    gt_free(&GT);
}

int main(int argc, char **argv)
{
    long ms = argc > 2 ? atol(argv[2]) * 1000 : 2500;
    check_init(argc, argv, 110);
    storm("mp4_bframes.mp4", ms);
    storm("mkv.mkv", ms);
    storm("mp4_opengop.mp4", ms);
    storm("ts.ts", ms);
    return check_summary();
}
