/*
 * packet_bench.c -- reading every packet of a file through the C API, for
 * Benchmarks/packet_bench.py (the C side of "Packets in Python").
 *
 * Usage: packet_bench FILE ROUNDS
 *   One player (FPX_DELIVERY_THREAD, seek manager on). Each round: an exact
 *   fpx_player_seek_wait to 0 (not timed), then fpx_player_read_packet until
 *   FPX_ERROR_EOF, timed as a whole with CLOCK_MONOTONIC. The payload is touched
 *   (its first and last byte summed) so the read is not cheaper than a real
 *   host's. Prints "round,packets,ns,bytes" per round.
 *
 * Build: cc -std=c99 -Wall -Wextra -O2 -I../Include packet_bench.c -L<lib> -lfastpixseek
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <fastpix/seek.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: packet_bench FILE ROUNDS\n");
        return 2;
    }
    int rounds = atoi(argv[2]);
    fpx_player_config cfg;
    fpx_player_config_init(&cfg);
    fpx_player *p = NULL;
    if (fpx_player_create(&cfg, &p) != FPX_OK || fpx_player_setup_seek_manager(p) != FPX_OK ||
        fpx_player_open(p, argv[1]) != FPX_OK) {
        fprintf(stderr, "packet_bench: cannot create/open\n");
        return 1;
    }
    fpx_item_status_info st = {.struct_size = sizeof(st)};
    if (fpx_player_wait_item(p, 60000, &st) != FPX_OK || st.status != FPX_ITEM_READY) {
        fprintf(stderr, "packet_bench: %s is not READY\n", argv[1]);
        return 1;
    }
    unsigned sink = 0;
    for (int r = 0; r < rounds; r++) {
        fpx_seek_outcome o = {.struct_size = sizeof(o)};
        int rc = fpx_player_seek_wait(p, fpx_time_make(0, 1), fpx_precision_exact(), 60000, &o);
        if (rc != FPX_OK) {
            fprintf(stderr, "packet_bench: seek_wait: %s\n", fpx_error_name(rc));
            return 1;
        }
        fpx_packet pkt = {.struct_size = sizeof(pkt)};
        uint64_t n = 0, bytes = 0, t0 = now_ns();
        while ((rc = fpx_player_read_packet(p, &pkt)) == FPX_OK) {
            n++;
            bytes += pkt.size;
            if (pkt.size)
                sink += pkt.data[0] + pkt.data[pkt.size - 1];
        }
        uint64_t ns = now_ns() - t0;
        if (rc != FPX_ERROR_EOF) {
            fprintf(stderr, "packet_bench: read: %s\n", fpx_error_name(rc));
            return 1;
        }
        printf("%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r, n, ns, bytes);
    }
    fpx_player_destroy(p);
    return sink == 0xFFFFFFFFu ? 3 : 0; /* keeps sink alive */
}
