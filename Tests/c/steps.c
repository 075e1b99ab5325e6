/* Frame-stepping host: `steps FILE MODE [N]`, one JSON line per step.
 *   forward N    step forward by N from the first frame until refused
 *   backward N   seek exact past the end (clamped to the last frame), then step
 *                backward by N until refused
 *   huge DIR START_NUM/START_DEN [COUNT]  seek exact to START, then one step of COUNT
 *                (default INT_MAX) frames in DIR
 *   gop START_NUM/START_DEN STEPS   seek exact to START, then step backward
 *                STEPS times by 1; prints the packets demuxed in total.
 * Each line: {"did_step":..,"pts":..,"reason":..,"packets":..,"demuxed":..} (demuxed: the
 * player's packets_demuxed after the step). */
#include <fastpix/seek.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done;

static void on_done(const fpx_seek_outcome *o, void *ud) {
    (void)o; (void)ud;
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static void seek_wait(fpx_player *p, fpx_time t) {
    done = 0;
    if (fpx_player_seek(p, t, fpx_precision_exact(), on_done, NULL, NULL) != FPX_OK) exit(3);
    pthread_mutex_lock(&mu);
    while (!done) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

/* "demuxed": the player's packets_demuxed counter after the step (all packets the player read). */
static void print_step(fpx_player *p, const fpx_frame_step_result *r) {
    fpx_player_stats st = {.struct_size = sizeof(fpx_player_stats)};
    fpx_player_stats_get(p, &st);
    printf("{\"did_step\":%s,\"pts\":%lld,\"reason\":%d,\"direction\":%d,\"packets\":%llu,\"demuxed\":%llu,"
           "\"explanation\":\"%s\"}\n",
           r->did_step ? "true" : "false", (long long)r->landed_stream_pts, (int)r->reason, (int)r->direction,
           (unsigned long long)r->packets_read, (unsigned long long)st.packets_demuxed, r->explanation);
}

int main(int argc, char **argv) {
    fpx_player *p = NULL;
    fpx_frame_step_result r = {.struct_size = sizeof(fpx_frame_step_result)};
    fpx_player_stats st = {.struct_size = sizeof(fpx_player_stats)};
    int rc, n = argc > 3 ? atoi(argv[3]) : 1, i;
    if (argc < 3) { fprintf(stderr, "usage: steps FILE forward|backward|gop ...\n"); return 2; }
    if (fpx_player_create(NULL, &p) != FPX_OK) return 1;
    fpx_player_open(p, argv[1]);
    if ((rc = fpx_player_wait_item(p, 10000, NULL)) != FPX_OK) { fprintf(stderr, "open: %s\n", fpx_error_string(rc)); return 1; }
    fpx_player_setup_seek_manager(p);
    if (strcmp(argv[2], "forward") == 0 || strcmp(argv[2], "backward") == 0) {
        fpx_frame_step_direction d = argv[2][0] == 'f' ? FPX_STEP_FORWARD : FPX_STEP_BACKWARD;
        if (d == FPX_STEP_BACKWARD) seek_wait(p, fpx_time_make(1000000, 1));
        for (i = 0; i < 100000; i++) {
            if ((rc = fpx_player_step_frame(p, d, n, &r)) != FPX_OK) { fprintf(stderr, "step: %s\n", fpx_error_string(rc)); return 1; }
            print_step(p, &r);
            if (!r.did_step) break;
        }
    } else if (strcmp(argv[2], "huge") == 0 && argc > 4) {
        /* prints the packets demuxed before the step, then the step */
        long long num, den;
        fpx_frame_step_direction d = argv[3][0] == 'f' ? FPX_STEP_FORWARD : FPX_STEP_BACKWARD;
        if (sscanf(argv[4], "%lld/%lld", &num, &den) != 2) return 2;
        seek_wait(p, fpx_time_make(num, (int32_t)den));
        fpx_player_stats_get(p, &st);
        printf("{\"demuxed_before\":%llu}\n", (unsigned long long)st.packets_demuxed);
        if ((rc = fpx_player_step_frame(p, d, argc > 5 ? atoi(argv[5]) : 2147483647, &r)) != FPX_OK) return 1;
        print_step(p, &r);
    } else if (strcmp(argv[2], "gop") == 0 && argc > 4) {
        long long num, den;
        uint64_t before;
        if (sscanf(argv[3], "%lld/%lld", &num, &den) != 2) return 2;
        seek_wait(p, fpx_time_make(num, (int32_t)den));
        fpx_player_stats_get(p, &st);
        before = st.packets_demuxed;
        for (i = 0; i < atoi(argv[4]); i++) {
            if ((rc = fpx_player_step_frame(p, FPX_STEP_BACKWARD, 1, &r)) != FPX_OK) return 1;
            print_step(p, &r);
        }
        fpx_player_stats_get(p, &st);
        printf("{\"total_packets\":%llu}\n", (unsigned long long)(st.packets_demuxed - before));
    } else {
        return 2;
    }
    fpx_player_destroy(p);
    return 0;
}
