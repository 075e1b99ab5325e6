/*
 * hostile -- a plain C99 host of libfastpixseek for the untrusted-input tests
 * (Tests/python/test_untrusted.py drives it against servers on 127.0.0.1).
 *
 *   hostile [OPTIONS] URL COMMAND [ARGS]...
 *
 * Creates a player (the options fill fpx_player_config), opens URL, runs the
 * commands in order and prints one JSON object per line on stdout:
 *
 *   wait                       fpx_player_wait_item(-1): rc, err, ms, item_error
 *   wait-ms MS                 fpx_player_wait_item(MS)
 *   read N                     up to N packets: packets, bytes, corrupt (count of packets
 *                              flagged corrupt), marker (1 when a packet held --marker), rc, err
 *   seek SECONDS               exact seek, waited for: reason, error, ms
 *   during-read DELAY_MS KIND  a thread blocks in fpx_player_read_packet; after DELAY_MS the
 *                              main thread does KIND (seek | cancel | close | open | destroy); prints
 *                              read_rc, read_err, packets, corrupt, interrupt_ms (from KINDs call to
 *                              the read's return), and for seek seek_ms (call to completion)
 *   during-wait DELAY_MS       a thread blocks in fpx_player_wait_item(-1); after DELAY_MS the
 *                              main thread destroys the player: wait_rc, wait_err, destroy_ms
 *   line                       prints {"cmd":"line"}, then waits for a line on stdin
 *   destroy                    timed fpx_player_destroy: ms
 *   rss                        VmHWM, VmRSS and VmPeak of this process, kB
 *
 * OPTIONS: --timeout MS (io_timeout_ms), --whitelist LIST (protocol_whitelist),
 *          --cap BYTES (max_buffer_bytes), --marker TEXT, --host (FPX_DELIVERY_HOST)
 *
 * Exit status 0 unless the usage or fpx_player_create fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fastpix/seek.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static fpx_player *player;
static int destroyed;
static const char *marker;
static int host_mode;

/* ---- seek completion ---- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int seek_done;
static int seek_reason, seek_error;
static double seek_done_ms;

static void on_seek(const fpx_seek_outcome *o, void *ud)
{
    (void)ud;
    pthread_mutex_lock(&mu);
    seek_done = 1;
    seek_reason = (int)o->reason;
    seek_error = o->error;
    seek_done_ms = now_ms();
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int wait_seek(double limit_ms)
{
    double end = now_ms() + limit_ms;
    for (;;) {
        int d;
        if (host_mode && !destroyed) {
            int n = 0;
            fpx_player_dispatch_events(player, &n);
        }
        pthread_mutex_lock(&mu);
        d = seek_done;
        pthread_mutex_unlock(&mu);
        if (d) return 1;
        if (now_ms() > end) return 0;
        sleep_ms(2);
    }
}

/* ---- threads ---- */
struct read_result {
    int rc;
    long packets, corrupt;
    double done_ms;
};

/* Reads until a read fails (it blocks once the server stalls). */
static void *read_thread(void *arg)
{
    struct read_result *r = arg;
    fpx_packet pkt;
    for (;;) {
        memset(&pkt, 0, sizeof pkt);
        r->rc = fpx_player_read_packet(player, &pkt);
        if (r->rc != FPX_OK) break;
        r->packets++;
        if (pkt.flags & FPX_PACKET_FLAG_CORRUPT) r->corrupt++;
    }
    r->done_ms = now_ms();
    return NULL;
}

struct wait_result {
    int rc;
    double done_ms;
};

static void *wait_thread(void *arg)
{
    struct wait_result *w = arg;
    w->rc = fpx_player_wait_item(player, -1, NULL);
    w->done_ms = now_ms();
    return NULL;
}

static int has_marker(const uint8_t *data, size_t size)
{
    size_t n;
    if (!marker || !data) return 0;
    n = strlen(marker);
    return n > 0 && size >= n && memmem(data, size, marker, n) != NULL;
}

static long vm_peak = -1;

static void rss(long *hwm, long *cur)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    *hwm = *cur = -1;
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) *hwm = strtol(line + 6, NULL, 10);
        if (strncmp(line, "VmRSS:", 6) == 0) *cur = strtol(line + 6, NULL, 10);
        if (strncmp(line, "VmPeak:", 7) == 0) vm_peak = strtol(line + 7, NULL, 10);
    }
    fclose(f);
}

static void do_destroy(void)
{
    double t0 = now_ms();
    int rc = fpx_player_destroy(player);
    destroyed = 1;
    printf("{\"cmd\":\"destroy\",\"rc\":%d,\"ms\":%.1f}\n", rc, now_ms() - t0);
}

int main(int argc, char **argv)
{
    fpx_player_config cfg;
    const char *url;
    int i = 1, rc;
    double t_open;

    setvbuf(stdout, NULL, _IOLBF, 0);
    fpx_player_config_init(&cfg);
    while (i < argc && strncmp(argv[i], "--", 2) == 0) {
        if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            cfg.io_timeout_ms = strtoll(argv[i + 1], NULL, 10);
            i += 2;
        } else if (strcmp(argv[i], "--whitelist") == 0 && i + 1 < argc) {
            cfg.protocol_whitelist = argv[i + 1];
            i += 2;
        } else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc) {
            cfg.max_buffer_bytes = strtoll(argv[i + 1], NULL, 10);
            i += 2;
        } else if (strcmp(argv[i], "--marker") == 0 && i + 1 < argc) {
            marker = argv[i + 1];
            i += 2;
        } else if (strcmp(argv[i], "--host") == 0) {
            cfg.delivery = FPX_DELIVERY_HOST;
            host_mode = 1;
            i += 1;
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 64;
        }
    }
    if (i >= argc) return 64;
    url = argv[i++];
    rc = fpx_player_create(&cfg, &player);
    printf("{\"cmd\":\"create\",\"rc\":%d,\"err\":\"%s\"}\n", rc, fpx_error_name(rc));
    if (rc != FPX_OK) return 1;
    fpx_player_setup_seek_manager(player);
    t_open = now_ms();
    rc = fpx_player_open(player, url);
    printf("{\"cmd\":\"open\",\"rc\":%d}\n", rc);

    while (i < argc && !destroyed) {
        const char *cmd = argv[i++];
        if (strcmp(cmd, "wait") == 0 || strcmp(cmd, "wait-ms") == 0) {
            fpx_item_status_info st = {.struct_size = sizeof st};
            int64_t ms = -1;
            memset(&st, 0, sizeof st);
            if (strcmp(cmd, "wait-ms") == 0 && i < argc) ms = strtoll(argv[i++], NULL, 10);
            rc = fpx_player_wait_item(player, ms, &st);
            printf("{\"cmd\":\"wait\",\"rc\":%d,\"err\":\"%s\",\"ms\":%.1f,\"status\":%d,\"item_error\":\"%s\"}\n", rc,
                   fpx_error_name(rc), now_ms() - t_open, (int)st.status, fpx_error_name(st.error));
        } else if (strcmp(cmd, "read") == 0 && i < argc) {
            long n = strtol(argv[i++], NULL, 10), k = 0, corrupt = 0;
            uint64_t bytes = 0;
            int found = 0;
            double t0 = now_ms();
            fpx_packet pkt;
            rc = FPX_OK;
            while (k < n) {
                memset(&pkt, 0, sizeof pkt);
                rc = fpx_player_read_packet(player, &pkt);
                if (rc != FPX_OK) break;
                k++;
                bytes += pkt.size;
                if (pkt.flags & FPX_PACKET_FLAG_CORRUPT) corrupt++;
                if (has_marker(pkt.data, pkt.size)) found = 1;
            }
            printf("{\"cmd\":\"read\",\"packets\":%ld,\"bytes\":%" PRIu64 ",\"corrupt\":%ld,\"marker\":%d,\"rc\":%d,"
                   "\"err\":\"%s\",\"ms\":%.1f}\n",
                   k, bytes, corrupt, found, rc, fpx_error_name(rc), now_ms() - t0);
        } else if (strcmp(cmd, "seek") == 0 && i < argc) {
            double secs = strtod(argv[i++], NULL);
            fpx_time t = fpx_time_make((int64_t)(secs * 1000), 1000);
            double t0 = now_ms();
            seek_done = 0;
            rc = fpx_player_seek(player, t, fpx_precision_exact(), on_seek, NULL, NULL);
            if (rc == FPX_OK && !wait_seek(30000)) rc = -1000;
            printf("{\"cmd\":\"seek\",\"rc\":%d,\"reason\":%d,\"error\":\"%s\",\"ms\":%.1f}\n", rc, seek_reason,
                   fpx_error_name(seek_error), now_ms() - t0);
        } else if (strcmp(cmd, "during-read") == 0 && i + 1 < argc) {
            int delay = atoi(argv[i]);
            const char *kind = argv[i + 1];
            struct read_result r;
            pthread_t th;
            double t_act, act_ms = 0, seek_ms = -1;
            int act_rc = 0;
            i += 2;
            memset(&r, 0, sizeof r);
            seek_done = 0;
            pthread_create(&th, NULL, read_thread, &r);
            sleep_ms(delay);
            t_act = now_ms();
            if (strcmp(kind, "seek") == 0) {
                act_rc = fpx_player_seek(player, fpx_time_make(0, 1), fpx_precision_exact(), on_seek, NULL, NULL);
            } else if (strcmp(kind, "cancel") == 0) {
                act_rc = fpx_player_cancel_pending_seeks(player, NULL);
            } else if (strcmp(kind, "close") == 0) {
                act_rc = fpx_player_close_item(player);
            } else if (strcmp(kind, "open") == 0) {
                act_rc = fpx_player_open(player, url);
            } else {
                act_rc = fpx_player_destroy(player);
                destroyed = 1;
            }
            act_ms = now_ms() - t_act;
            pthread_join(th, NULL);
            if (strcmp(kind, "seek") == 0 && act_rc == FPX_OK && wait_seek(30000)) seek_ms = seek_done_ms - t_act;
            printf("{\"cmd\":\"during-read\",\"kind\":\"%s\",\"act_rc\":%d,\"act_ms\":%.1f,\"read_rc\":%d,"
                   "\"read_err\":\"%s\",\"packets\":%ld,\"corrupt\":%ld,\"interrupt_ms\":%.1f,\"blocked_ms\":%.1f,"
                   "\"seek_ms\":%.1f,\"seek_reason\":%d,\"seek_error\":\"%s\"}\n",
                   kind, act_rc, act_ms, r.rc, fpx_error_name(r.rc), r.packets, r.corrupt, r.done_ms - t_act,
                   r.done_ms - (t_act - delay), seek_ms, seek_reason, fpx_error_name(seek_error));
        } else if (strcmp(cmd, "during-wait") == 0 && i < argc) {
            int delay = atoi(argv[i++]);
            struct wait_result w;
            pthread_t th;
            double t0, d_ms;
            memset(&w, 0, sizeof w);
            pthread_create(&th, NULL, wait_thread, &w);
            sleep_ms(delay);
            t0 = now_ms();
            rc = fpx_player_destroy(player);
            d_ms = now_ms() - t0;
            destroyed = 1;
            pthread_join(th, NULL);
            printf("{\"cmd\":\"during-wait\",\"destroy_rc\":%d,\"destroy_ms\":%.1f,\"wait_rc\":%d,\"wait_err\":\"%s\","
                   "\"wait_after_destroy_ms\":%.1f}\n",
                   rc, d_ms, w.rc, fpx_error_name(w.rc), w.done_ms - t0);
        } else if (strcmp(cmd, "line") == 0) {
            char buf[64];
            printf("{\"cmd\":\"line\"}\n");
            if (!fgets(buf, sizeof buf, stdin)) buf[0] = 0;
        } else if (strcmp(cmd, "destroy") == 0) {
            do_destroy();
        } else if (strcmp(cmd, "rss") == 0) {
            long hwm, cur;
            rss(&hwm, &cur);
            printf("{\"cmd\":\"rss\",\"hwm_kb\":%ld,\"rss_kb\":%ld,\"vm_peak_kb\":%ld}\n", hwm, cur, vm_peak);
        } else {
            fprintf(stderr, "unknown command %s\n", cmd);
            return 64;
        }
    }
    if (!destroyed) do_destroy();
    return 0;
}
