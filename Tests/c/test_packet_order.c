/* Issue 26, item 1: no packet is lost silently under a seek storm. Every
 * packet fpx_player_read_packet returns is checked against the file's packets
 * as ffprobe -show_packets lists them (a csv ffprobe wrote before the test,
 * read here: never the library's word): the same stream, pts, dts, size and
 * payload checksum (found by byte position), and it must be
 *   - the next packet of the demux order after the previous one read, or
 *   - flagged DISCONTINUITY (then on a reference keyframe), or
 *   - the next of those fpx_player_unread_packets gave back;
 * packets of the audio stream may be missing from the order only while it
 * was disabled (fpx_player_set_stream_enabled: buffered packets stay without
 * it). A lost reference packet is never excused.
 *
 * Two storms on a fresh player each, then destroy in the middle of the storm:
 *   A. the reproduction: one reader, two seekers, one canceller
 *      (fpx_player_cancel_pending_seeks), continuation off;
 *   B. all of A, plus a frame stepper (both ways), a toggler (the audio
 *      stream off and on, continuation on and off) and a reader that gives
 *      packets back now and then (fpx_player_unread_packets).
 *
 * Usage: test_packet_order MEDIA CSV [SECONDS]
 *   MEDIA: a 120 s 320x180 H.264 (-bf 3 -g 50) + AAC MP4 (Tests/c/run.sh makes it);
 *   CSV: ffprobe -v error -show_entries packet=stream_index,pts,dts,size,pos,flags,data_hash
 *        -show_data_hash adler32 -of csv=p=0 MEDIA (groundtruth.h's command);
 *   SECONDS: both storms together (default 40; run.sh passes $FPX_STRESS_SECONDS).
 * Prints the figures (reads, seeks, cancels, ...) of each storm. */
#include "check.h"
#include "groundtruth.h"

static fpx_player *P;
static volatile int stop_flag;
static gt_file GT;
static const gt_packet **BY_ORDER; /* demux order -> ffprobe's packet */
static int ref_stream, audio_stream = -1;
static int full_storm;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct stats {
    long reads, disc, seeks, cancels, steps, audio_toggles, cont_toggles, unreads, unread_packets;
    long violations, bad, missing, interrupted, other_errors, eof, past_audio;
} st;
/* The packet's payload is valid until the next read or fpx_player_destroy (seek.h): the
 * reader reads it under pk_mu, and main sets destroying under pk_mu before destroying. */
static pthread_mutex_t pk_mu = PTHREAD_MUTEX_INITIALIZER;
static int destroying;

/* The audio stream as the toggler sets it: off from before it is disabled until after it
 * is enabled again; gen counts the calls (under mu). */
static int audio_off, audio_gen;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void stat_add(long *v, long n)
{
    pthread_mutex_lock(&mu);
    *v += n;
    pthread_mutex_unlock(&mu);
}

static void audio_state(int *off, int *gen)
{
    pthread_mutex_lock(&mu);
    *off = audio_off;
    *gen = audio_gen;
    pthread_mutex_unlock(&mu);
}

static void violation(const char *what, const fpx_packet *pk, long order, long prev)
{
    long n;
    pthread_mutex_lock(&mu);
    n = ++st.violations;
    pthread_mutex_unlock(&mu);
    if (n <= 10)
        NOTE("%s: packet #%ld (stream %d pts %" PRId64 " flags 0x%x seek %" PRIu64 ") after #%ld", what, order,
             pk->stream_index, pk->pts, pk->flags, pk->seek_id, prev);
}

/* Passes over the packets unread gave back that are audio ones the library may have passed
 * over (the stream was off at some time since the run began), up to the one read, got. */
static void skip_audio(const long *redeliver, int *rpos, int nre, long got, int excusable)
{
    while (*rpos < nre && redeliver[*rpos] != got && excusable && BY_ORDER[redeliver[*rpos]]->stream == audio_stream)
        (*rpos)++;
}

/* The orders of the packets read since the last DISCONTINUITY (the last HIST). */
#define HIST 64

static void *reader(void *arg)
{
    long prev = -1; /* demux order of the packet read last (-1: none yet: the first is #0) */
    long hist[HIST], redeliver[HIST];
    int nhist = 0, nre = 0, rpos = 0;
    /* The audio stream's state when the last read that returned a packet began, and since
     * the run began (the read before its DISCONTINUITY packet: the landing that started the
     * run, and every packet its window holds, were demuxed after that read began). */
    int prev_off, prev_gen, run_off, run_gen;
    unsigned seed = 4242;
    (void)arg;
    audio_state(&prev_off, &prev_gen);
    run_off = prev_off;
    run_gen = prev_gen;
    while (!flag_get(&stop_flag)) {
        fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
        const gt_packet *g;
        int off0, gen0, off1, gen1, excusable, rc, gone;
        uint32_t adler = 0;
        audio_state(&off0, &gen0);
        rc = fpx_player_read_packet(P, &pk);
        audio_state(&off1, &gen1);
        if (rc == FPX_ERROR_INVALID_HANDLE)
            break;
        if (rc == FPX_ERROR_EOF) {
            /* The seekers move it on. */
            stat_add(&st.eof, 1);
            sleep_ms(2);
            continue;
        }
        if (rc != FPX_OK) {
            stat_add(rc == FPX_ERROR_INTERRUPTED ? &st.interrupted : &st.other_errors, 1);
            continue;
        }
        pthread_mutex_lock(&pk_mu);
        gone = destroying;
        if (!gone)
            adler = gt_adler32(pk.data, pk.size);
        pthread_mutex_unlock(&pk_mu);
        if (gone)
            break;
        /* Packets of the audio stream demuxed while it was off are never returned, also
         * after it is on again ("packets already buffered stay without it"): they may be
         * missing from the order when it was off at any time since the run began. */
        if (pk.flags & FPX_PACKET_FLAG_DISCONTINUITY) {
            run_off = prev_off;
            run_gen = prev_gen;
        }
        run_off |= off0 | off1;
        excusable = run_off || gen1 != run_gen;
        prev_off = off0;
        prev_gen = gen0;
        g = gt_find(&GT, pk.stream_index, pk.pos);
        stat_add(&st.reads, 1);
        if (!g) {
            stat_add(&st.missing, 1);
            violation("not in ffprobe's list", &pk, -1, prev);
            prev = -1;
            continue;
        }
        if (g->pts != pk.pts || (pk.dts != FPX_NOPTS && g->dts != pk.dts) || g->size != pk.size ||
            g->adler != adler) {
            stat_add(&st.bad, 1);
            violation("not the file's packet (pts, dts, size or payload differ)", &pk, (long)g->order, prev);
        }
        if (pk.flags & FPX_PACKET_FLAG_DISCONTINUITY) {
            stat_add(&st.disc, 1);
            if (pk.stream_index != ref_stream || !g->key)
                violation("DISCONTINUITY not on a reference keyframe", &pk, (long)g->order, prev);
            prev = (long)g->order;
            nhist = 0;
            nre = rpos = 0;
        } else {
            /* Given back by unread: the next of them; audio ones may be passed over while
             * it is off (when all were, the packet after them is checked as any other). */
            if (rpos < nre)
                skip_audio(redeliver, &rpos, nre, (long)g->order, excusable);
            if (rpos < nre) {
                if (redeliver[rpos] == (long)g->order) {
                    rpos++;
                } else {
                    violation("not the packet unread gave back", &pk, (long)g->order, redeliver[rpos]);
                    nre = rpos = 0;
                    prev = (long)g->order;
                }
            } else if ((long)g->order != prev + 1) {
                long i, ok = (long)g->order > prev + 1 && excusable && audio_stream >= 0;
                for (i = prev + 1; ok && i < (long)g->order; i++)
                    ok = BY_ORDER[i]->stream == audio_stream;
                if (ok)
                    stat_add(&st.past_audio, 1);
                else
                    violation("not the next in demux order and no DISCONTINUITY", &pk, (long)g->order, prev);
                prev = (long)g->order;
            } else {
                prev = (long)g->order;
            }
        }
        if (nhist == HIST) {
            memmove(hist, hist + 1, (HIST - 1) * sizeof *hist);
            nhist--;
        }
        hist[nhist++] = (long)g->order;
        /* Storm B: a binding's read-ahead given back now and then. */
        if (full_storm && rpos >= nre && nhist > 1 && rnd(&seed) % 64 == 0) {
            int k = 1 + (int)(rnd(&seed) % 4), i;
            if (k > nhist)
                k = nhist;
            rc = fpx_player_unread_packets(P, (uint32_t)k);
            if (rc == FPX_OK) {
                for (i = 0; i < k; i++)
                    redeliver[i] = hist[nhist - k + i];
                nre = k;
                rpos = 0;
                nhist -= k;
                stat_add(&st.unreads, 1);
                stat_add(&st.unread_packets, k);
            }
        }
    }
    return NULL;
}

static const int64_t HOT_MS[] = {3000, 17500, 31020, 44000, 58960, 71000, 86480, 99000, 110000, 118000};

static void *seeker(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!flag_get(&stop_flag)) {
        /* Half anywhere, half near a few places the grid soon knows (decided from memory,
         * positioned lazily by the next read: the path). */
        int64_t ms = rnd(&seed) % 2 ? (int64_t)(rnd(&seed) * 4u % 120000u)
                                    : HOT_MS[rnd(&seed) % 10] + (int64_t)(rnd(&seed) % 2000);
        fpx_precision prec = rnd(&seed) % 3 ? fpx_precision_exact() : fpx_precision_default();
        int rc = fpx_player_seek(P, fpx_time_make(ms, 1000), prec, NULL, NULL, NULL);
        if (rc == FPX_ERROR_INVALID_HANDLE)
            break;
        stat_add(rc == FPX_OK ? &st.seeks : &st.other_errors, 1);
        /* Bursts (a seek supersedes the last one mid-positioning) and pauses (seeks land). */
        sleep_ms(rnd(&seed) % 3 ? 0 : 1 + rnd(&seed) % 12);
    }
    return NULL;
}

static void *canceller(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!flag_get(&stop_flag)) {
        if (fpx_player_cancel_pending_seeks(P, NULL) == FPX_ERROR_INVALID_HANDLE)
            break;
        stat_add(&st.cancels, 1);
        sleep_ms(rnd(&seed) % 3 ? 0 : 1 + rnd(&seed) % 16);
    }
    return NULL;
}

static void *stepper(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!flag_get(&stop_flag)) {
        fpx_frame_step_result r = {.struct_size = sizeof r};
        fpx_frame_step_direction dir = rnd(&seed) % 3 ? FPX_STEP_FORWARD : FPX_STEP_BACKWARD;
        if (fpx_player_step_frame(P, dir, 1 + (int)(rnd(&seed) % 3), &r) == FPX_ERROR_INVALID_HANDLE)
            break;
        stat_add(&st.steps, 1);
        sleep_ms(1 + rnd(&seed) % 5);
    }
    return NULL;
}

static void *toggler(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    int cont = 0;
    while (!flag_get(&stop_flag)) {
        if (audio_stream >= 0 && rnd(&seed) % 2) {
            int rc;
            pthread_mutex_lock(&mu);
            audio_off = 1;
            audio_gen++;
            pthread_mutex_unlock(&mu);
            rc = fpx_player_set_stream_enabled(P, audio_stream, 0);
            sleep_ms(rnd(&seed) % 40);
            if (rc != FPX_ERROR_INVALID_HANDLE)
                rc = fpx_player_set_stream_enabled(P, audio_stream, 1);
            pthread_mutex_lock(&mu);
            audio_gen++;
            audio_off = 0;
            st.audio_toggles++;
            pthread_mutex_unlock(&mu);
            if (rc == FPX_ERROR_INVALID_HANDLE)
                break;
        } else {
            cont = !cont;
            if (fpx_player_set_continuation(P, cont) == FPX_ERROR_INVALID_HANDLE)
                break;
            stat_add(&st.cont_toggles, 1);
        }
        sleep_ms(5 + rnd(&seed) % 40);
    }
    return NULL;
}

static void storm(const char *media, int full, long ms)
{
    pthread_t th[8];
    int n = 0, i;
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    uint64_t t0;
    SECTION(full ? "storm B: seeks, cancels, steps, stream toggles, continuation, unread"
                 : "storm A: one reader, two seekers, one canceller, continuation off");
    memset(&st, 0, sizeof st);
    full_storm = full;
    P = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(P != NULL);
    REQUIRE(open_wait(P, media, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(P));
    CHECK_OK(fpx_player_item_info(P, &ii));
    ref_stream = ii.reference_stream;
    audio_stream = -1;
    for (i = 0; i < ii.stream_count; i++) {
        fpx_stream_info si = {.struct_size = sizeof si};
        if (i != ref_stream && fpx_player_stream_info(P, i, &si) == FPX_OK && si.type == FPX_MEDIA_AUDIO)
            audio_stream = i;
    }
    CHECK(audio_stream >= 0);
    CHECK_OK(fpx_player_set_continuation(P, 0));
    flag_set(&stop_flag, 0);
    destroying = 0;
    t0 = now_ns();
    pthread_create(&th[n++], NULL, reader, NULL);
    pthread_create(&th[n++], NULL, seeker, (void *)(uintptr_t)7);
    pthread_create(&th[n++], NULL, seeker, (void *)(uintptr_t)11);
    pthread_create(&th[n++], NULL, canceller, (void *)(uintptr_t)13);
    if (full) {
        pthread_create(&th[n++], NULL, stepper, (void *)(uintptr_t)17);
        pthread_create(&th[n++], NULL, toggler, (void *)(uintptr_t)19);
    }
    sleep_ms(ms);
    /* Destroy in the middle of the storm: every thread then sees INVALID_HANDLE. */
    pthread_mutex_lock(&pk_mu);
    destroying = 1;
    pthread_mutex_unlock(&pk_mu);
    CHECK_OK(fpx_player_destroy(P));
    flag_set(&stop_flag, 1);
    for (i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    NOTE("%s: %.1f s, %ld reads (%ld DISCONTINUITY, %ld INTERRUPTED, %ld EOF, %ld other errors), %ld seeks, "
         "%ld cancels, %ld steps, %ld audio toggles, %ld continuation toggles, %ld unreads (%ld packets), "
         "%ld reads past audio packets while it was off; %ld violations, %ld not the file's, %ld unknown",
         full ? "storm B" : "storm A", (double)(now_ns() - t0) / 1e9, st.reads, st.disc, st.interrupted, st.eof,
         st.other_errors, st.seeks, st.cancels, st.steps, st.audio_toggles, st.cont_toggles, st.unreads,
         st.unread_packets, st.past_audio, st.violations, st.bad, st.missing);
    CHECK(st.reads > 1000);
    CHECK(st.disc > 10);
    CHECK(st.seeks > 100);
    CHECK(st.cancels > 100);
    if (full) {
        CHECK(st.steps > 10);
        CHECK(st.cont_toggles > 2);
        CHECK(st.audio_toggles > 2);
    }
    CHECK_EQ(st.violations, 0);
    CHECK_EQ(st.bad, 0);
    CHECK_EQ(st.missing, 0);
}

int main(int argc, char **argv)
{
    long secs = argc > 3 ? atol(argv[3]) : 40;
    size_t i;
    if (secs < 2)
        secs = 2;
    check_init(argc, argv, (unsigned)secs + 90);
    REQUIRE(argc > 2);
    SECTION("ground truth");
    REQUIRE(gt_load_csv(&GT, argv[2]) > 1000);
    BY_ORDER = calloc(GT.n, sizeof *BY_ORDER);
    REQUIRE(BY_ORDER != NULL);
    for (i = 0; i < GT.n; i++)
        if (GT.p[i].order < GT.n)
            BY_ORDER[GT.p[i].order] = &GT.p[i];
    for (i = 0; i < GT.n; i++)
        REQUIRE(BY_ORDER[i] != NULL);
    storm(argv[1], 0, secs * 1000 / 2);
    storm(argv[1], 1, secs * 1000 - secs * 1000 / 2);
    free(BY_ORDER);
    gt_free(&GT);
    return check_summary();
}
