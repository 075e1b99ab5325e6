/*
 * landings -- a plain C99 host of libfastpixseek that reports where seeks land.
 *
 *   landings FILE PRECISION  < targets
 *       Reads targets from stdin, one per line as NUM/DEN seconds on the item timeline
 *       (NUM may be negative; DEN a positive 32-bit integer; blank lines and lines starting
 *       with '#' are skipped). Seeks to each in turn, waits for the completion, and prints
 *       one JSON object per line (see print_outcome).
 *
 *   landings FILE --read-after NUM/DEN N PRECISION
 *       Seeks once to NUM/DEN, prints the outcome, then reads N packets with
 *       fpx_player_read_packet and prints one JSON object per packet.
 *
 *   landings --reference-stream N FILE ...
 *       Either form with fpx_player_config.reference_stream = N (0 automatic, N > 0 the
 *       stream of index N - 1).
 *
 *   PRECISION: exact | at_or_after | default | default-kind | keyframe:NUM/DEN
 *       at_or_after  fpx_precision_at_or_after()
 *       default      fpx_precision_default()
 *       default-kind {FPX_PRECISION_DEFAULT, invalid tolerance} (the raw enum value)
 *       keyframe:N/D fpx_precision_nearest_keyframe(N/D s)
 *
 * The first line printed is {"type":"item",...} with the item's facts; in the first form the
 * last line is {"type":"range",...}, the fpx_player_seekable_range result (asked for only
 * after the seeks, so that they run cold). Times are printed as
 * {"value":V,"timescale":T,"flags":F}. Exit status: 0 on success, 2 when the item does not
 * open (with a one-line reason on stderr), 3 on an unexpected library failure or timeout,
 * 64 on bad usage or input.
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -pedantic -IInclude Tests/c/landings.c \
 *           -Lbuild/lib -lfastpixseek -lpthread -o landings
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fastpix/seek.h>

#define WAIT_ITEM_MS 20000
#define WAIT_SEEK_S 60

/* ------------------------------------------------------------------------------------------ */
/* Completion hand-off: the callback runs on the library's delivery thread.                   */
/* ------------------------------------------------------------------------------------------ */

typedef struct completion {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    uint64_t total;       /* every completion ever received */
    fpx_seek_outcome outcome;
    size_t copied;        /* bytes of outcome the library filled */
    int null_outcomes;    /* completions with a NULL outcome (a library bug) */
} completion;

static uint64_t g_issued; /* seeks fpx_player_seek accepted */

static completion g_done;

static void on_seek_done(const fpx_seek_outcome *outcome, void *userdata)
{
    completion *c = (completion *)userdata;
    size_t n;
    pthread_mutex_lock(&c->mutex);
    c->total++;
    if (outcome == NULL) {
        c->null_outcomes++;
    } else {
        n = outcome->struct_size;
        if (n > sizeof(c->outcome) || n == 0)
            n = sizeof(c->outcome);
        memset(&c->outcome, 0, sizeof(c->outcome));
        memcpy(&c->outcome, outcome, n);
        c->copied = n;
        c->done = 1;
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mutex);
}

/* ------------------------------------------------------------------------------------------ */
/* JSON helpers                                                                                */
/* ------------------------------------------------------------------------------------------ */

static void json_str(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    putchar('"');
    for (; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_time(const char *key, fpx_time t)
{
    printf("\"%s\":{\"value\":%" PRId64 ",\"timescale\":%" PRId32 ",\"flags\":%" PRIu32 "}",
           key, t.value, t.timescale, t.flags);
}

static void json_pts(const char *key, int64_t v)
{
    if (v == FPX_NOPTS)
        printf("\"%s\":null", key);
    else
        printf("\"%s\":%" PRId64, key, v);
}

static void json_double(const char *key, double d)
{
    if (d != d || d > 1e300 || d < -1e300)
        printf("\"%s\":null", key);
    else
        printf("\"%s\":%.17g", key, d);
}

static void print_precision(const fpx_precision *p)
{
    printf("\"precision\":{\"kind\":%d,", (int)p->kind);
    json_time("tolerance", p->tolerance);
    printf("}");
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* NUM/DEN with NUM int64, DEN in [1, INT32_MAX]. Returns 0 on success. */
static int parse_rational(const char *s, int64_t *num, int32_t *den)
{
    char *end;
    long long n;
    long long d;
    while (*s == ' ' || *s == '\t')
        s++;
    errno = 0;
    n = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '/')
        return -1;
    s = end + 1;
    errno = 0;
    d = strtoll(s, &end, 10);
    if (errno != 0 || end == s || d <= 0 || d > INT32_MAX)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end != '\0')
        return -1;
    *num = (int64_t)n;
    *den = (int32_t)d;
    return 0;
}

static int parse_precision(const char *s, fpx_precision *out)
{
    int64_t n;
    int32_t d;
    if (strcmp(s, "exact") == 0) {
        *out = fpx_precision_exact();
        return 0;
    }
    if (strcmp(s, "default") == 0) {
        *out = fpx_precision_default();
        return 0;
    }
    if (strcmp(s, "at_or_after") == 0) {
        *out = fpx_precision_at_or_after();
        return 0;
    }
    if (strcmp(s, "default-kind") == 0) {
        out->kind = FPX_PRECISION_DEFAULT;
        out->tolerance = fpx_time_invalid();
        return 0;
    }
    if (strncmp(s, "keyframe:", 9) == 0 && parse_rational(s + 9, &n, &d) == 0) {
        *out = fpx_precision_nearest_keyframe(fpx_time_make(n, d));
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Seeking                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static void print_outcome(const char *target_text, const fpx_seek_outcome *o, size_t copied)
{
    const fpx_accuracy *a = &o->accuracy;
    const fpx_clamp *c = &o->clamp;
    printf("{\"type\":\"seek\",\"target\":");
    json_str(target_text);
    printf(",\"struct_size\":%zu,\"seek_id\":%" PRIu64 ",", copied, o->seek_id);
    print_precision(&o->precision);
    printf(",\"finished\":%s,\"reason\":", o->finished ? "true" : "false");
    json_str(fpx_finish_reason_name((int)o->reason));
    printf(",\"error\":%d,\"error_name\":", o->error);
    json_str(fpx_error_name(o->error));
    printf(",\"stream_index\":%d,", o->stream_index);
    json_pts("landed_stream_pts", o->landed_stream_pts);
    printf(",\"stream_time_base\":{\"num\":%" PRId32 ",\"den\":%" PRId32 "},",
           o->stream_time_base_num, o->stream_time_base_den);
    json_time("landed_media_time", a->landed_media_time);
    printf(",");
    json_time("requested", a->requested_media_time);
    printf(",\"within_requested_tolerance\":%s,\"frame_covers_target\":%s,"
           "\"landed_is_keyframe\":%s,\"resolution\":",
           a->within_requested_tolerance ? "true" : "false",
           o->frame_covers_target ? "true" : "false",
           o->landed_is_keyframe ? "true" : "false");
    json_str(fpx_landing_resolution_name((int)o->resolution));
    printf(",\"clamp\":{\"kind\":");
    json_str(fpx_clamp_kind_name((int)c->kind));
    printf(",\"did_clamp\":%s,", c->did_clamp ? "true" : "false");
    json_time("requested", c->requested);
    printf(",");
    json_time("clamped_to", c->clamped_to);
    printf(",");
    json_time("clamped_target", c->clamped_target);
    printf(",\"explanation\":");
    json_str(c->explanation);
    printf("},");
    json_time("clamped_to", c->clamped_to);
    printf(",");
    json_time("tolerance_before", a->tolerance_before);
    printf(",");
    json_time("tolerance_after", a->tolerance_after);
    printf(",");
    json_time("delta", a->delta);
    printf(",");
    json_double("requested_time", o->requested_time);
    printf(",");
    json_double("landed_time", o->landed_time);
    printf(",\"latency_ns\":%" PRIu64 ",\"packets_read\":%" PRIu64 "}\n", o->latency_ns,
           o->packets_read);
}

/* Issues one seek and waits for its completion. Returns 0, or 3 on a timeout. The outcome
 * (or the call error) is printed. *landed_pts receives the landed pts or FPX_NOPTS. */
static int seek_and_wait(fpx_player *p, const char *target_text, fpx_time target,
                         fpx_precision prec, int64_t *landed_pts, uint64_t *out_id)
{
    uint64_t id = 0;
    int rc;
    struct timespec deadline;

    pthread_mutex_lock(&g_done.mutex);
    g_done.done = 0;
    pthread_mutex_unlock(&g_done.mutex);

    rc = fpx_player_seek(p, target, prec, on_seek_done, &g_done, &id);
    if (landed_pts)
        *landed_pts = FPX_NOPTS;
    if (rc != FPX_OK) {
        printf("{\"type\":\"seek\",\"target\":");
        json_str(target_text);
        printf(",\"call_error\":%d,\"call_error_name\":", rc);
        json_str(fpx_error_name(rc));
        printf(",\"finished\":false}\n");
        fflush(stdout);
        return 0;
    }
    g_issued++;
    if (out_id)
        *out_id = id;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_SEEK_S;
    pthread_mutex_lock(&g_done.mutex);
    while (!g_done.done) {
        if (pthread_cond_timedwait(&g_done.cond, &g_done.mutex, &deadline) == ETIMEDOUT)
            break;
    }
    if (!g_done.done) {
        pthread_mutex_unlock(&g_done.mutex);
        fprintf(stderr, "landings: seek to %s (id %" PRIu64 ") did not complete within %d s\n",
                target_text, id, WAIT_SEEK_S);
        return 3;
    }
    print_outcome(target_text, &g_done.outcome, g_done.copied);
    if (g_done.outcome.seek_id != id)
        fprintf(stderr, "landings: completion carries seek_id %" PRIu64 ", expected %" PRIu64
                "\n", g_done.outcome.seek_id, id);
    if (landed_pts)
        *landed_pts = g_done.outcome.landed_stream_pts;
    pthread_mutex_unlock(&g_done.mutex);
    fflush(stdout);
    return 0;
}

static void print_item(fpx_player *p)
{
    fpx_item_info info = {.struct_size = sizeof(fpx_item_info)};
    int rc;
    memset(&info, 0, sizeof(info)); info.struct_size = sizeof info;
    info.struct_size = sizeof(info);
    rc = fpx_player_item_info(p, &info);
    printf("{\"type\":\"item\",\"item_info_rc\":%d", rc);
    if (rc == FPX_OK) {
        printf(",\"stream_count\":%d,\"reference_stream\":%d,\"has_video\":%d,",
               info.stream_count, info.reference_stream, info.has_video);
        json_time("duration", info.duration);
        printf(",\"start_pts\":%" PRId64 ",\"time_base\":{\"num\":%" PRId32 ",\"den\":%" PRId32
               "},\"seekable\":%d,\"format_name\":",
               info.start_pts, info.time_base_num, info.time_base_den, info.seekable);
        json_str(info.format_name);
    }
    printf(",\"library_version\":");
    json_str(fpx_version_string());
    printf("}\n");
    fflush(stdout);
}

/* Printed after the seeks, so that the seeks run without a range computed beforehand. */
static void print_range(fpx_player *p)
{
    fpx_time s = fpx_time_invalid(), e = fpx_time_invalid();
    int rc = fpx_player_seekable_range(p, &s, &e);
    printf("{\"type\":\"range\",\"rc\":%d,\"rc_name\":", rc);
    json_str(fpx_error_name(rc));
    printf(",");
    json_time("start", s);
    printf(",");
    json_time("end", e);
    printf("}\n");
    fflush(stdout);
}

static int usage(void)
{
    fprintf(stderr,
            "usage: landings [--reference-stream N] FILE PRECISION < targets\n"
            "       landings [--reference-stream N] FILE --read-after NUM/DEN N PRECISION\n"
            "PRECISION: exact | at_or_after | default | default-kind | keyframe:NUM/DEN\n");
    return 64;
}

int main(int argc, char **argv)
{
    const char *file;
    fpx_precision prec;
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    int rc, status = 0;
    int read_after = 0;
    int64_t ra_num = 0;
    int32_t ra_den = 1;
    long npackets = 0;
    long reference = 0;

    if (argc >= 3 && strcmp(argv[1], "--reference-stream") == 0) {
        char *end;
        reference = strtol(argv[2], &end, 10);
        if (*end != '\0' || reference < INT32_MIN || reference > INT32_MAX)
            return usage();
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    if (argc == 3) {
        file = argv[1];
        if (parse_precision(argv[2], &prec) != 0)
            return usage();
    } else if (argc == 6 && strcmp(argv[2], "--read-after") == 0) {
        char *end;
        file = argv[1];
        read_after = 1;
        if (parse_rational(argv[3], &ra_num, &ra_den) != 0)
            return usage();
        npackets = strtol(argv[4], &end, 10);
        if (*end != '\0' || npackets < 0)
            return usage();
        if (parse_precision(argv[5], &prec) != 0)
            return usage();
    } else {
        return usage();
    }

    if (fpx_version() < FPX_VERSION) {
        fprintf(stderr, "landings: library %s is older than the header (%u.%u.%u)\n",
                fpx_version_string(), FPX_VERSION_MAJOR, FPX_VERSION_MINOR, FPX_VERSION_PATCH);
        return 3;
    }

    pthread_mutex_init(&g_done.mutex, NULL);
    pthread_cond_init(&g_done.cond, NULL);

    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_THREAD;
    cfg.reference_stream = (int32_t)reference;
    rc = fpx_player_create(&cfg, &p);
    if (rc != FPX_OK) {
        fprintf(stderr, "landings: fpx_player_create: %s (%s)\n", fpx_error_name(rc),
                fpx_error_string(rc));
        return 3;
    }
    rc = fpx_player_open(p, file);
    if (rc != FPX_OK) {
        fprintf(stderr, "landings: cannot open %s: fpx_player_open: %s (%s)\n", file,
                fpx_error_name(rc), fpx_error_string(rc));
        fpx_player_destroy(p);
        return 2;
    }
    memset(&st, 0, sizeof(st)); st.struct_size = sizeof st;
    st.struct_size = sizeof(st);
    rc = fpx_player_wait_item(p, WAIT_ITEM_MS, &st);
    if (rc != FPX_OK) {
        fprintf(stderr, "landings: cannot open %s: %s (%s), av_error %d\n", file,
                fpx_error_name(rc), fpx_error_string(rc), st.av_error);
        fpx_player_destroy(p);
        return 2;
    }
    rc = fpx_player_setup_seek_manager(p);
    if (rc != FPX_OK) {
        fprintf(stderr, "landings: fpx_player_setup_seek_manager: %s\n", fpx_error_name(rc));
        fpx_player_destroy(p);
        return 3;
    }
    print_item(p);

    if (!read_after) {
        char line[256];
        while (fgets(line, sizeof(line), stdin) != NULL) {
            int64_t n;
            int32_t d;
            char *nl = strchr(line, '\n');
            if (nl)
                *nl = '\0';
            if (line[0] == '\0' || line[0] == '#')
                continue;
            if (parse_rational(line, &n, &d) != 0) {
                fprintf(stderr, "landings: bad target line: %s\n", line);
                status = 64;
                break;
            }
            status = seek_and_wait(p, line, fpx_time_make(n, d), prec, NULL, NULL);
            if (status != 0)
                break;
        }
        if (status == 0)
            print_range(p);
    } else {
        char text[64];
        int64_t landed;
        uint64_t id = 0;
        long i;
        snprintf(text, sizeof(text), "%" PRId64 "/%" PRId32, ra_num, ra_den);
        status = seek_and_wait(p, text, fpx_time_make(ra_num, ra_den), prec, &landed, &id);
        for (i = 0; status == 0 && i < npackets; i++) {
            fpx_packet pkt = {.struct_size = sizeof(fpx_packet)};
            memset(&pkt, 0, sizeof(pkt)); pkt.struct_size = sizeof pkt;
            pkt.struct_size = sizeof(pkt);
            rc = fpx_player_read_packet(p, &pkt);
            if (rc == FPX_ERROR_EOF) {
                printf("{\"type\":\"eof\",\"index\":%ld}\n", i);
                break;
            }
            if (rc != FPX_OK) {
                printf("{\"type\":\"read_error\",\"index\":%ld,\"error\":%d,\"error_name\":", i,
                       rc);
                json_str(fpx_error_name(rc));
                printf("}\n");
                status = 3;
                break;
            }
            printf("{\"type\":\"packet\",\"index\":%ld,\"stream_index\":%d,", i,
                   pkt.stream_index);
            json_pts("pts", pkt.pts);
            printf(",");
            json_pts("dts", pkt.dts);
            printf(",\"duration\":%" PRId64 ",\"pos\":%" PRId64 ",\"size\":%zu,"
                   "\"flags\":%" PRIu32 ",\"seek_id\":%" PRIu64 "}\n",
                   pkt.duration, pkt.pos, pkt.size, pkt.flags, pkt.seek_id);
        }
        fflush(stdout);
    }

    rc = fpx_player_destroy(p);
    if (rc != FPX_OK) {
        fprintf(stderr, "landings: fpx_player_destroy: %s\n", fpx_error_name(rc));
        if (status == 0)
            status = 3;
    }
    pthread_mutex_lock(&g_done.mutex);
    /* destroy has returned: every callback has run. One completion per accepted seek. */
    if (g_done.total != g_issued || g_done.null_outcomes) {
        fprintf(stderr, "landings: %" PRIu64 " completion(s) (%d with a NULL outcome) for %"
                PRIu64 " seek(s)\n", g_done.total, g_done.null_outcomes, g_issued);
        if (status == 0)
            status = 3;
    }
    pthread_mutex_unlock(&g_done.mutex);
    fflush(stdout);
    return status;
}
