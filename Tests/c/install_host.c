/* A C host built only with `cc host.c $(pkg-config --cflags --libs fastpixseek)`
 * against an installed copy: it seeks and reads packets. Exit 0 on success. */
#include <fastpix/seek.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done = 0;
static fpx_seek_outcome result;

static void on_done(const fpx_seek_outcome *o, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    result = *o;
    done = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

int main(int argc, char **argv) {
    fpx_player *p = NULL;
    fpx_packet pkt = {.struct_size = sizeof(fpx_packet)};
    int rc, i, key_first = 0, landed_seen = 0;
    if (argc < 2) { fprintf(stderr, "usage: install_host FILE\n"); return 2; }
    if (fpx_version() < FPX_VERSION) { fprintf(stderr, "library older than header\n"); return 1; }
    if ((rc = fpx_player_create(NULL, &p)) != FPX_OK) { fprintf(stderr, "create: %s\n", fpx_error_string(rc)); return 1; }
    fpx_player_open(p, argv[1]);
    if ((rc = fpx_player_wait_item(p, 10000, NULL)) != FPX_OK) { fprintf(stderr, "open: %s\n", fpx_error_string(rc)); return 1; }
    fpx_player_setup_seek_manager(p);
    rc = fpx_player_seek(p, fpx_time_make(5, 2), fpx_precision_exact(), on_done, NULL, NULL);
    if (rc != FPX_OK) { fprintf(stderr, "seek: %s\n", fpx_error_string(rc)); return 1; }
    pthread_mutex_lock(&mu);
    while (!done) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    if (!result.finished) { fprintf(stderr, "seek did not finish: %s\n", fpx_finish_reason_name(result.reason)); return 1; }
    for (i = 0; i < 200; i++) {
        if (fpx_player_read_packet(p, &pkt) != FPX_OK) break;
        if (pkt.stream_index != result.stream_index) continue;
        if (!key_first) key_first = (pkt.flags & FPX_PACKET_FLAG_KEY) ? 1 : -1;
        if (pkt.pts == result.landed_stream_pts) { landed_seen = 1; break; }
    }
    printf("landed %.6f s (pts %lld), first packet key: %d, landed packet read: %d\n", result.landed_time,
           (long long)result.landed_stream_pts, key_first, landed_seen);
    fpx_player_destroy(p);
    return (key_first == 1 && landed_seen) ? 0 : 1;
}
