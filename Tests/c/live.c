/*
 * live -- a plain C99 host of libfastpixseek for the live / DVR HLS tests.
 *
 *   live [OPTIONS] URL COMMAND [ARGS] [COMMAND [ARGS]...]
 *   live [OPTIONS] URL -            commands from stdin, one per line
 *
 * Opens URL (fpx_player_open + fpx_player_wait_item + fpx_player_setup_seek_manager), runs the
 * commands in order on the one player, destroys the player, and prints one JSON object per
 * line on stdout (flushed after each line, so a driver can react as they come):
 *
 *   (open)                    {"type":"item",...}  the item's facts, t_open_us, t_ready_us
 *   window                    {"type":"window",...}  fpx_player_live_seek_window
 *   edge                      {"type":"edge","error":..,"outcome":{..}}
 *                             fpx_player_seek_to_live_edge, waited for
 *   seek NUM/DEN PRECISION    {"type":"seek","outcome":{..}}  fpx_player_seek, waited for
 *   seek-async NUM/DEN|edge PRECISION
 *                             {"type":"seek-async","seek_id":..}  issued, not waited for
 *   date UNIX_US PRECISION    {"type":"date",...}  fpx_player_seek_to_date, waited for
 *   step forward|backward N   {"type":"step",...}  fpx_player_step_frame(direction, N)
 *   read N                    N x {"type":"packet",...}, then {"type":"read",...}: how many
 *                             were read and the error that stopped the reading (0 if none)
 *   current                   {"type":"current",...}  fpx_player_current_time
 *   sleep MS                  {"type":"sleep","ms":MS}
 *   wait-line                 blocks until a line arrives on stdin (argv mode only), then
 *                             {"type":"wait-line"}
 *   destroy                   {"type":"destroy","ms":..,...}  fpx_player_destroy, timed;
 *                             completions that arrived unwaited are printed first as
 *                             {"type":"completion",...}. Ends the command list.
 *   destroy-timing [NUM/DEN|edge] [DELAY_MS|line]
 *                             seek-async to the target (default: edge, exact), wait DELAY_MS
 *                             (default 300) or for a stdin line, then destroy as above.
 *
 *   PRECISION: exact | default | keyframe:NUM/DEN
 *
 * After the last command the player is destroyed (the "destroy" line) unless a destroy
 * command already did. Every line carries "t_us" (CLOCK_REALTIME microseconds, comparable
 * with Python's time.time()); calls also carry t_before_us / t_after_us.
 *
 * OPTIONS
 *   --timeout MS       fpx_player_config.io_timeout_ms (default: the library's)
 *   --wait-item MS     bound for fpx_player_wait_item (default 20000)
 *   --op-timeout MS    how long to wait for one completion (default 30000); when it passes
 *                      the host prints {"type":"hang",...} and exits 3
 *
 * Times are printed as {"value":V,"timescale":T,"flags":F}; FPX_NOPTS as null; doubles that
 * are NaN as null. Typed failures (a failed seek, a read error, a refused step or date seek)
 * are printed, not exit codes. Exit status: 0 when the library calls succeeded; 2 when the
 * item does not open ({"type":"open"} on stdout and one line on stderr); 3 when a library
 * call returned an unexpected error or a completion never came; 64 on bad usage.
 *
 * Build: cc -std=c99 -Wall -Wextra -Werror -pedantic -IInclude Tests/c/live.c \
 *           -Lbuild/lib -lfastpixseek -lpthread -o live
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fastpix/seek.h>

#define MAX_RECORDS 1024
#define MAX_ARGS 16

/* ------------------------------------------------------------------------------------------ */
/* Clocks and printing                                                                         */
/* ------------------------------------------------------------------------------------------ */

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms)
{
    struct timespec ts;
    if (ms <= 0)
        return;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void put_str(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (s == NULL) {
        fputs("null", stdout);
        return;
    }
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

static void put_time(fpx_time t)
{
    printf("{\"value\":%" PRId64 ",\"timescale\":%" PRId32 ",\"flags\":%" PRIu32 "}", t.value,
           t.timescale, t.flags);
}

static void put_double(double d)
{
    if (isnan(d) || isinf(d))
        fputs("null", stdout);
    else
        printf("%.9g", d);
}

static void put_pts(int64_t v)
{
    if (v == FPX_NOPTS)
        fputs("null", stdout);
    else
        printf("%" PRId64, v);
}

static void put_error(const char *key, int code)
{
    printf("\"%s\":%d,\"%s_name\":", key, code, key);
    put_str(fpx_error_name(code));
}

static void end_line(void)
{
    printf(",\"t_us\":%" PRId64 "}\n", wall_us());
    fflush(stdout);
}

/* ------------------------------------------------------------------------------------------ */
/* Completions: the callbacks run on the library's delivery thread; they copy what they get    */
/* into a record, and the main thread prints it.                                               */
/* ------------------------------------------------------------------------------------------ */

enum rec_kind { REC_SEEK = 1, REC_EDGE = 2, REC_DATE = 3 };

typedef struct record {
    int kind;
    int64_t t_us;
    int has_outcome;
    fpx_seek_outcome outcome;
    size_t outcome_bytes;   /* what the library filled (struct_size) */
    int edge_error;         /* REC_EDGE */
    fpx_date_seek_result date; /* REC_DATE; date.outcome rewired to &outcome or NULL */
    size_t date_bytes;
} record;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static record g_rec[MAX_RECORDS];
static size_t g_nrec;          /* records stored */
static uint64_t g_completions; /* callbacks received (also beyond MAX_RECORDS) */
static uint64_t g_null_outcomes;
static size_t g_printed;       /* records already printed */
static uint64_t g_issued;      /* seeks / edge / date requests the library accepted */
static uint64_t g_clamped_events, g_accuracy_events, g_step_events;
static int g_op_timeout_ms = 30000;

static record *new_record(int kind)
{
    record *r = NULL;
    g_completions++;
    if (g_nrec < MAX_RECORDS) {
        r = &g_rec[g_nrec];
        memset(r, 0, sizeof(*r));
        r->kind = kind;
        r->t_us = wall_us();
    }
    return r;
}

static void copy_outcome(record *r, const fpx_seek_outcome *o)
{
    size_t n;
    if (o == NULL) {
        r->has_outcome = 0;
        return;
    }
    n = o->struct_size;
    if (n == 0 || n > sizeof(r->outcome))
        n = sizeof(r->outcome);
    memcpy(&r->outcome, o, n);
    r->outcome_bytes = o->struct_size;
    r->has_outcome = 1;
}

static void finish_record(record *r)
{
    if (r != NULL)
        g_nrec++;
    pthread_cond_broadcast(&g_cv);
}

static void on_seek(const fpx_seek_outcome *outcome, void *userdata)
{
    record *r;
    (void)userdata;
    pthread_mutex_lock(&g_mu);
    r = new_record(REC_SEEK);
    if (outcome == NULL)
        g_null_outcomes++;
    if (r != NULL)
        copy_outcome(r, outcome);
    finish_record(r);
    pthread_mutex_unlock(&g_mu);
}

static void on_edge(const fpx_seek_outcome *outcome, int error, void *userdata)
{
    record *r;
    (void)userdata;
    pthread_mutex_lock(&g_mu);
    r = new_record(REC_EDGE);
    if (r != NULL) {
        r->edge_error = error;
        copy_outcome(r, outcome);
    }
    finish_record(r);
    pthread_mutex_unlock(&g_mu);
}

static void on_date(const fpx_date_seek_result *res, void *userdata)
{
    record *r;
    size_t n;
    (void)userdata;
    pthread_mutex_lock(&g_mu);
    r = new_record(REC_DATE);
    if (res == NULL)
        g_null_outcomes++;
    if (r != NULL && res != NULL) {
        n = res->struct_size;
        if (n == 0 || n > sizeof(r->date))
            n = sizeof(r->date);
        memcpy(&r->date, res, n);
        r->date_bytes = res->struct_size;
        copy_outcome(r, res->outcome);
        r->date.outcome = r->has_outcome ? &r->outcome : NULL;
    }
    finish_record(r);
    pthread_mutex_unlock(&g_mu);
}

static void on_clamped(const fpx_clamp *clamp, uint64_t seek_id, void *userdata)
{
    (void)clamp;
    (void)seek_id;
    (void)userdata;
    pthread_mutex_lock(&g_mu);
    g_clamped_events++;
    pthread_mutex_unlock(&g_mu);
}

static void on_accuracy(const fpx_accuracy *a, const fpx_seek_outcome *o, void *userdata)
{
    (void)a;
    (void)o;
    (void)userdata;
    pthread_mutex_lock(&g_mu);
    g_accuracy_events++;
    pthread_mutex_unlock(&g_mu);
}

static void on_step(const fpx_frame_step_result *r, void *userdata)
{
    (void)r;
    (void)userdata;
    pthread_mutex_lock(&g_mu);
    g_step_events++;
    pthread_mutex_unlock(&g_mu);
}

/* Waits until record number `index` exists. Returns 0, or -1 after the op timeout. */
static int wait_record(size_t index)
{
    struct timespec dl;
    int rc = 0;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += g_op_timeout_ms / 1000;
    dl.tv_nsec += (long)(g_op_timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g_mu);
    while (g_nrec <= index && rc == 0) {
        if (pthread_cond_timedwait(&g_cv, &g_mu, &dl) == ETIMEDOUT)
            rc = g_nrec > index ? 0 : -1;
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Printing library structs                                                                    */
/* ------------------------------------------------------------------------------------------ */

static void put_precision(fpx_precision p)
{
    printf("{\"kind\":%d,\"tolerance\":", (int)p.kind);
    put_time(p.tolerance);
    putchar('}');
}

static void put_outcome(const fpx_seek_outcome *o, size_t bytes)
{
    const fpx_accuracy *a = &o->accuracy;
    const fpx_clamp *c = &o->clamp;
    printf("{\"struct_size\":%zu,\"seek_id\":%" PRIu64 ",\"precision\":", bytes, o->seek_id);
    put_precision(o->precision);
    printf(",\"finished\":%d,\"reason\":%d,\"reason_name\":", o->finished, (int)o->reason);
    put_str(fpx_finish_reason_name((int)o->reason));
    putchar(',');
    put_error("error", o->error);
    fputs(",\"requested_time\":", stdout);
    put_double(o->requested_time);
    fputs(",\"landed_time\":", stdout);
    put_double(o->landed_time);
    printf(",\"latency_ns\":%" PRIu64, o->latency_ns);
    fputs(",\"requested_media_time\":", stdout);
    put_time(a->requested_media_time);
    fputs(",\"landed_media_time\":", stdout);
    put_time(a->landed_media_time);
    fputs(",\"tolerance_before\":", stdout);
    put_time(a->tolerance_before);
    fputs(",\"tolerance_after\":", stdout);
    put_time(a->tolerance_after);
    printf(",\"within_requested_tolerance\":%d,\"delta\":", a->within_requested_tolerance);
    put_time(a->delta);
    printf(",\"clamp\":{\"kind\":%d,\"kind_name\":", (int)c->kind);
    put_str(fpx_clamp_kind_name((int)c->kind));
    printf(",\"did_clamp\":%d,\"requested\":", c->did_clamp);
    put_time(c->requested);
    fputs(",\"clamped_to\":", stdout);
    put_time(c->clamped_to);
    fputs(",\"clamped_target\":", stdout);
    put_time(c->clamped_target);
    fputs(",\"explanation\":", stdout);
    put_str(c->explanation);
    printf("},\"resolution\":%d,\"resolution_name\":", (int)o->resolution);
    put_str(fpx_landing_resolution_name((int)o->resolution));
    printf(",\"frame_covers_target\":%d,\"landed_is_keyframe\":%d,\"stream_index\":%d,"
           "\"landed_stream_pts\":",
           o->frame_covers_target, o->landed_is_keyframe, o->stream_index);
    put_pts(o->landed_stream_pts);
    printf(",\"stream_time_base_num\":%" PRId32 ",\"stream_time_base_den\":%" PRId32
           ",\"packets_read\":%" PRIu64 ",\"landed_past_hole\":%d}",
           o->stream_time_base_num, o->stream_time_base_den, o->packets_read, (int)o->landed_past_hole);
}

static void put_counters(void)
{
    pthread_mutex_lock(&g_mu);
    printf(",\"completions\":%" PRIu64 ",\"issued\":%" PRIu64 ",\"null_outcomes\":%" PRIu64
           ",\"clamped_events\":%" PRIu64 ",\"accuracy_events\":%" PRIu64
           ",\"step_events\":%" PRIu64,
           g_completions, g_issued, g_null_outcomes, g_clamped_events, g_accuracy_events,
           g_step_events);
    pthread_mutex_unlock(&g_mu);
}

static void put_date_result(const record *r)
{
    const fpx_date_seek_result *d = &r->date;
    printf("\"struct_size\":%zu,\"seeked\":%d,\"reason\":%d,\"requested_date_us\":%" PRId64
           ",\"window_start_date_us\":%" PRId64 ",\"window_end_date_us\":%" PRId64
           ",\"explanation\":",
           r->date_bytes, d->seeked, (int)d->reason, d->requested_date_us,
           d->window_start_date_us, d->window_end_date_us);
    put_str(d->explanation);
    fputs(",\"reason_explanation\":", stdout);
    put_str(fpx_date_seek_reason_explanation((int)d->reason));
    fputs(",\"outcome\":", stdout);
    if (r->has_outcome)
        put_outcome(&r->outcome, r->outcome_bytes);
    else
        fputs("null", stdout);
}

/* The body (no braces) of one record. */
static void put_record_body(const record *r)
{
    printf("\"kind\":\"%s\",\"t_done_us\":%" PRId64 ",",
           r->kind == REC_SEEK ? "seek" : r->kind == REC_EDGE ? "edge" : "date", r->t_us);
    if (r->kind == REC_DATE) {
        put_date_result(r);
        return;
    }
    if (r->kind == REC_EDGE) {
        put_error("error", r->edge_error);
        putchar(',');
    }
    fputs("\"outcome\":", stdout);
    if (r->has_outcome)
        put_outcome(&r->outcome, r->outcome_bytes);
    else
        fputs("null", stdout);
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing                                                                                     */
/* ------------------------------------------------------------------------------------------ */

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    long long v;
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* NUM/DEN (or NUM) seconds -> fpx_time. */
static int parse_rational(const char *s, fpx_time *out)
{
    char buf[64];
    char *slash;
    int64_t num, den = 1;
    if (s == NULL || strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    slash = strchr(buf, '/');
    if (slash != NULL) {
        *slash = '\0';
        if (parse_i64(slash + 1, &den) != 0 || den <= 0 || den > INT32_MAX)
            return -1;
    }
    if (parse_i64(buf, &num) != 0)
        return -1;
    *out = fpx_time_make(num, (int32_t)den);
    return 0;
}

static int parse_precision(const char *s, fpx_precision *out)
{
    fpx_time tol;
    if (s == NULL)
        return -1;
    if (strcmp(s, "exact") == 0) {
        *out = fpx_precision_exact();
        return 0;
    }
    if (strcmp(s, "default") == 0) {
        *out = fpx_precision_default();
        return 0;
    }
    if (strncmp(s, "keyframe:", 9) == 0 && parse_rational(s + 9, &tol) == 0) {
        *out = fpx_precision_nearest_keyframe(tol);
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Commands                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static fpx_player *g_player;
static int g_destroyed;

static void die_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "live: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(64);
}

static void die_call(const char *what, int rc)
{
    printf("{\"type\":\"call-failed\",\"call\":");
    put_str(what);
    putchar(',');
    put_error("error", rc);
    end_line();
    fprintf(stderr, "live: %s failed: %s (%s)\n", what, fpx_error_name(rc), fpx_error_string(rc));
    exit(3);
}

static void die_hang(const char *what)
{
    printf("{\"type\":\"hang\",\"call\":");
    put_str(what);
    printf(",\"waited_ms\":%d", g_op_timeout_ms);
    put_counters();
    end_line();
    fprintf(stderr, "live: no completion for %s within %d ms\n", what, g_op_timeout_ms);
    exit(3);
}

static size_t current_records(void)
{
    size_t n;
    pthread_mutex_lock(&g_mu);
    n = g_nrec;
    pthread_mutex_unlock(&g_mu);
    return n;
}

static void count_issued(void)
{
    pthread_mutex_lock(&g_mu);
    g_issued++;
    pthread_mutex_unlock(&g_mu);
}

/* Prints records that arrived but were not printed by a waiting command. */
static void flush_records(void)
{
    size_t n = current_records();
    for (; g_printed < n; g_printed++) {
        fputs("{\"type\":\"completion\",", stdout);
        put_record_body(&g_rec[g_printed]);
        end_line();
    }
}

/* Call before issuing a request whose completion will be waited for: prints stray
 * completions, and returns the index the request's own completion will get. */
static size_t begin_request(void)
{
    flush_records();
    return g_printed;
}

/* Waits for record `idx` (from begin_request) and prints it as {"type":TYPE,...}. */
static void wait_and_print(size_t idx, const char *type, int64_t t_before, int64_t t_after)
{
    if (wait_record(idx) != 0)
        die_hang(type);
    printf("{\"type\":\"%s\",\"t_before_us\":%" PRId64 ",\"t_after_us\":%" PRId64 ",", type,
           t_before, t_after);
    put_record_body(&g_rec[idx]);
    put_counters();
    end_line();
    g_printed = idx + 1;
}

static void cmd_window(void)
{
    fpx_live_seek_window w = {.struct_size = sizeof(fpx_live_seek_window)};
    int64_t t0, t1;
    int rc;
    memset(&w, 0, sizeof(w)); w.struct_size = sizeof w;
    w.struct_size = sizeof(w);
    t0 = wall_us();
    rc = fpx_player_live_seek_window(g_player, &w);
    t1 = wall_us();
    if (rc != FPX_OK)
        die_call("fpx_player_live_seek_window", rc);
    printf("{\"type\":\"window\",\"t_before_us\":%" PRId64 ",\"t_after_us\":%" PRId64
           ",\"struct_size\":%zu,\"is_available\":%d,\"is_live\":%d,\"is_date_addressable\":%d,"
           "\"start\":",
           t0, t1, w.struct_size, w.is_available, w.is_live, w.is_date_addressable);
    put_time(w.start);
    fputs(",\"end\":", stdout);
    put_time(w.end);
    fputs(",\"duration\":", stdout);
    put_time(w.duration);
    fputs(",\"duration_seconds\":", stdout);
    put_double(w.duration_seconds);
    printf(",\"start_date_us\":%" PRId64 ",\"end_date_us\":%" PRId64 ",\"first_sequence\":%" PRId64
           ",\"last_sequence\":%" PRId64 ",\"target_duration\":",
           w.start_date_us, w.end_date_us, w.first_sequence, w.last_sequence);
    put_time(w.target_duration);
    fputs(",\"hold_back\":", stdout);
    put_time(w.hold_back);
    end_line();
}

static uint64_t issue_edge(void)
{
    uint64_t id = 0;
    int rc = fpx_player_seek_to_live_edge(g_player, on_edge, NULL, &id);
    if (rc != FPX_OK)
        die_call("fpx_player_seek_to_live_edge", rc);
    count_issued();
    return id;
}

static uint64_t issue_seek(fpx_time t, fpx_precision prec)
{
    uint64_t id = 0;
    int rc = fpx_player_seek(g_player, t, prec, on_seek, NULL, &id);
    if (rc != FPX_OK)
        die_call("fpx_player_seek", rc);
    count_issued();
    return id;
}

static void cmd_edge(void)
{
    int64_t t0, t1;
    size_t idx = begin_request();
    t0 = wall_us();
    issue_edge();
    t1 = wall_us();
    wait_and_print(idx, "edge", t0, t1);
}

static void cmd_seek(const char *target, const char *precision)
{
    fpx_time t;
    fpx_precision p;
    int64_t t0, t1;
    size_t idx;
    if (parse_rational(target, &t) != 0)
        die_usage("bad target (NUM/DEN)", target);
    if (parse_precision(precision, &p) != 0)
        die_usage("bad precision", precision);
    idx = begin_request();
    t0 = wall_us();
    issue_seek(t, p);
    t1 = wall_us();
    wait_and_print(idx, "seek", t0, t1);
}

static void cmd_seek_async(const char *target, const char *precision)
{
    fpx_time t;
    fpx_precision p;
    uint64_t id;
    int64_t t0 = wall_us();
    if (target != NULL && strcmp(target, "edge") == 0) {
        id = issue_edge();
    } else {
        if (parse_rational(target, &t) != 0)
            die_usage("bad target (NUM/DEN or edge)", target);
        if (parse_precision(precision ? precision : "exact", &p) != 0)
            die_usage("bad precision", precision);
        id = issue_seek(t, p);
    }
    printf("{\"type\":\"seek-async\",\"seek_id\":%" PRIu64 ",\"t_before_us\":%" PRId64, id, t0);
    end_line();
}

static void cmd_date(const char *date, const char *precision)
{
    int64_t us, t0, t1;
    fpx_precision p;
    uint64_t id = 0;
    size_t idx;
    int rc;
    if (parse_i64(date, &us) != 0)
        die_usage("bad date (Unix microseconds)", date);
    if (parse_precision(precision, &p) != 0)
        die_usage("bad precision", precision);
    idx = begin_request();
    t0 = wall_us();
    rc = fpx_player_seek_to_date(g_player, us, p, on_date, NULL, &id);
    t1 = wall_us();
    if (rc != FPX_OK)
        die_call("fpx_player_seek_to_date", rc);
    count_issued();
    wait_and_print(idx, "date", t0, t1);
}

static void cmd_step(const char *dir, const char *count)
{
    fpx_frame_step_direction d = FPX_STEP_FORWARD;
    fpx_frame_step_result r = {.struct_size = sizeof(fpx_frame_step_result)};
    int64_t n, t0, t1;
    int rc;
    if (dir != NULL && strcmp(dir, "forward") == 0)
        d = FPX_STEP_FORWARD;
    else if (dir != NULL && strcmp(dir, "backward") == 0)
        d = FPX_STEP_BACKWARD;
    else
        die_usage("bad direction (forward|backward)", dir);
    if (parse_i64(count, &n) != 0 || n < 1 || n > INT_MAX)
        die_usage("bad step count", count);
    memset(&r, 0, sizeof(r)); r.struct_size = sizeof r;
    r.struct_size = sizeof(r);
    t0 = wall_us();
    rc = fpx_player_step_frame(g_player, d, (int)n, &r);
    t1 = wall_us();
    printf("{\"type\":\"step\",\"t_before_us\":%" PRId64 ",\"t_after_us\":%" PRId64
           ",\"direction\":\"%s\",\"count\":%" PRId64 ",",
           t0, t1, d == FPX_STEP_FORWARD ? "forward" : "backward", n);
    put_error("rc", rc);
    if (rc == FPX_OK) {
        printf(",\"struct_size\":%zu,\"did_step\":%d,\"reason\":%d,\"landed_media_time\":",
               r.struct_size, r.did_step, (int)r.reason);
        put_time(r.landed_media_time);
        fputs(",\"landed_stream_pts\":", stdout);
        put_pts(r.landed_stream_pts);
        printf(",\"packets_read\":%" PRIu64 ",\"explanation\":", r.packets_read);
        put_str(r.explanation);
    }
    put_counters();
    end_line();
}

static void cmd_read(const char *count)
{
    int64_t n, i, t0;
    double m0;
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    int rc = FPX_OK;
    if (parse_i64(count, &n) != 0 || n < 0)
        die_usage("bad packet count", count);
    t0 = wall_us();
    m0 = mono_ms();
    for (i = 0; i < n; i++) {
        memset(&pk, 0, sizeof(pk)); pk.struct_size = sizeof pk;
        pk.struct_size = sizeof(pk);
        rc = fpx_player_read_packet(g_player, &pk);
        if (rc != FPX_OK)
            break;
        printf("{\"type\":\"packet\",\"i\":%" PRId64 ",\"stream_index\":%d,\"pts\":", i,
               pk.stream_index);
        put_pts(pk.pts);
        fputs(",\"dts\":", stdout);
        put_pts(pk.dts);
        printf(",\"duration\":%" PRId64 ",\"pos\":%" PRId64 ",\"size\":%zu,\"flags\":%" PRIu32
               ",\"key\":%d,\"decode_only\":%d,\"discontinuity\":%d,\"seek_id\":%" PRIu64,
               pk.duration, pk.pos, pk.size, pk.flags, (pk.flags & FPX_PACKET_FLAG_KEY) ? 1 : 0,
               (pk.flags & FPX_PACKET_FLAG_DECODE_ONLY) ? 1 : 0,
               (pk.flags & FPX_PACKET_FLAG_DISCONTINUITY) ? 1 : 0, pk.seek_id);
        end_line();
    }
    printf("{\"type\":\"read\",\"requested\":%" PRId64 ",\"got\":%" PRId64 ",", n, i);
    put_error("error", rc);
    printf(",\"elapsed_ms\":%.3f,\"t_before_us\":%" PRId64, mono_ms() - m0, t0);
    end_line();
}

static void cmd_current(void)
{
    fpx_time t = fpx_time_invalid();
    int rc = fpx_player_current_time(g_player, &t);
    printf("{\"type\":\"current\",");
    put_error("rc", rc);
    fputs(",\"playhead\":", stdout);
    put_time(t);
    end_line();
}

static void cmd_destroy(void)
{
    double m0, ms;
    int rc;
    m0 = mono_ms();
    rc = fpx_player_destroy(g_player);
    ms = mono_ms() - m0;
    g_destroyed = 1;
    /* After destroy returns no callback runs again: every completion is in. */
    flush_records();
    printf("{\"type\":\"destroy\",");
    put_error("rc", rc);
    printf(",\"ms\":%.3f", ms);
    put_counters();
    end_line();
}

static void read_line_from_stdin(void)
{
    int c;
    while ((c = getchar()) != EOF && c != '\n') {
    }
}

static void cmd_destroy_timing(const char *target, const char *delay)
{
    int64_t ms = 300;
    cmd_seek_async(target ? target : "edge", "exact");
    if (delay != NULL && strcmp(delay, "line") == 0) {
        read_line_from_stdin();
    } else {
        if (delay != NULL && (parse_i64(delay, &ms) != 0 || ms < 0))
            die_usage("bad delay (MS or line)", delay);
        sleep_ms((long)ms);
    }
    cmd_destroy();
}

/* Runs one command of argc words; returns how many words it used (for argv mode). */
static int run_command(int argc, char **argv, int from_stdin)
{
    const char *c = argv[0];
    const char *a1 = argc > 1 ? argv[1] : NULL;
    const char *a2 = argc > 2 ? argv[2] : NULL;
    if (g_destroyed)
        die_usage("command after destroy", c);
    if (strcmp(c, "window") == 0) {
        cmd_window();
        return 1;
    }
    if (strcmp(c, "edge") == 0) {
        cmd_edge();
        return 1;
    }
    if (strcmp(c, "seek") == 0) {
        if (!a1 || !a2)
            die_usage("usage: seek NUM/DEN PRECISION", NULL);
        cmd_seek(a1, a2);
        return 3;
    }
    if (strcmp(c, "seek-async") == 0) {
        if (!a1)
            die_usage("usage: seek-async NUM/DEN|edge [PRECISION]", NULL);
        if (strcmp(a1, "edge") == 0) {
            cmd_seek_async(a1, NULL);
            return 2;
        }
        if (!a2)
            die_usage("usage: seek-async NUM/DEN PRECISION", NULL);
        cmd_seek_async(a1, a2);
        return 3;
    }
    if (strcmp(c, "date") == 0) {
        if (!a1 || !a2)
            die_usage("usage: date UNIX_US PRECISION", NULL);
        cmd_date(a1, a2);
        return 3;
    }
    if (strcmp(c, "step") == 0) {
        if (!a1 || !a2)
            die_usage("usage: step forward|backward N", NULL);
        cmd_step(a1, a2);
        return 3;
    }
    if (strcmp(c, "read") == 0) {
        if (!a1)
            die_usage("usage: read N", NULL);
        cmd_read(a1);
        return 2;
    }
    if (strcmp(c, "current") == 0) {
        cmd_current();
        return 1;
    }
    if (strcmp(c, "sleep") == 0) {
        int64_t ms;
        if (parse_i64(a1, &ms) != 0 || ms < 0)
            die_usage("usage: sleep MS", a1);
        sleep_ms((long)ms);
        printf("{\"type\":\"sleep\",\"ms\":%" PRId64, ms);
        end_line();
        return 2;
    }
    if (strcmp(c, "wait-line") == 0) {
        if (from_stdin)
            die_usage("wait-line is for argv mode", NULL);
        read_line_from_stdin();
        printf("{\"type\":\"wait-line\"");
        end_line();
        return 1;
    }
    if (strcmp(c, "destroy") == 0) {
        cmd_destroy();
        return 1;
    }
    if (strcmp(c, "destroy-timing") == 0) {
        /* optional target, optional delay: `destroy-timing`, `destroy-timing edge 500`,
         * `destroy-timing 7/2 line` */
        int used = 1;
        const char *target = NULL, *delay = NULL;
        if (a1 && (strchr(a1, '/') || strcmp(a1, "edge") == 0 ||
                   (a1[0] == '-' && a1[1] >= '0' && a1[1] <= '9'))) {
            target = a1;
            used++;
            if (a2 && (strcmp(a2, "line") == 0 || (a2[0] >= '0' && a2[0] <= '9'))) {
                delay = a2;
                used++;
            }
        }
        cmd_destroy_timing(target, delay);
        return used;
    }
    die_usage("unknown command", c);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

static void open_item(const char *url, int64_t io_timeout_ms, int64_t wait_item_ms)
{
    fpx_player_config cfg;
    fpx_listener l;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_item_info info = {.struct_size = sizeof(fpx_item_info)};
    int64_t t_open, t_ready;
    double m0;
    int rc;

    fpx_player_config_init(&cfg);
    if (io_timeout_ms >= 0)
        cfg.io_timeout_ms = io_timeout_ms;
    rc = fpx_player_create(&cfg, &g_player);
    if (rc != FPX_OK)
        die_call("fpx_player_create", rc);
    fpx_listener_init(&l);
    l.on_seek_clamped = on_clamped;
    l.on_seek_accuracy = on_accuracy;
    l.on_frame_step = on_step;
    rc = fpx_player_add_listener(g_player, &l, NULL);
    if (rc != FPX_OK)
        die_call("fpx_player_add_listener", rc);
    t_open = wall_us();
    m0 = mono_ms();
    rc = fpx_player_open(g_player, url);
    if (rc != FPX_OK)
        die_call("fpx_player_open", rc);
    memset(&st, 0, sizeof(st)); st.struct_size = sizeof st;
    st.struct_size = sizeof(st);
    rc = fpx_player_wait_item(g_player, wait_item_ms, &st);
    t_ready = wall_us();
    if (rc != FPX_OK) {
        printf("{\"type\":\"open\",\"ok\":0,");
        put_error("error", rc);
        printf(",\"item_error\":%d,\"av_error\":%d,\"elapsed_ms\":%.3f", st.error, st.av_error,
               mono_ms() - m0);
        end_line();
        fprintf(stderr, "live: opening %s failed: %s (%s) after %.0f ms\n", url,
                fpx_error_name(rc), fpx_error_string(rc), mono_ms() - m0);
        m0 = mono_ms();
        rc = fpx_player_destroy(g_player);
        fprintf(stderr, "live: destroy after the failed open: %s in %.0f ms\n",
                fpx_error_name(rc), mono_ms() - m0);
        exit(2);
    }
    rc = fpx_player_setup_seek_manager(g_player);
    if (rc != FPX_OK)
        die_call("fpx_player_setup_seek_manager", rc);
    memset(&info, 0, sizeof(info)); info.struct_size = sizeof info;
    info.struct_size = sizeof(info);
    rc = fpx_player_item_info(g_player, &info);
    if (rc != FPX_OK)
        die_call("fpx_player_item_info", rc);
    printf("{\"type\":\"item\",\"t_open_us\":%" PRId64 ",\"t_ready_us\":%" PRId64
           ",\"open_ms\":%.3f,\"item_id\":%" PRIu64 ",\"stream_count\":%d,"
           "\"reference_stream\":%d,\"has_video\":%d,\"duration\":",
           t_open, t_ready, mono_ms() - m0, st.item_id, info.stream_count, info.reference_stream,
           info.has_video);
    put_time(info.duration);
    printf(",\"start_pts\":%" PRId64 ",\"time_base_num\":%" PRId32 ",\"time_base_den\":%" PRId32
           ",\"seekable\":%d,\"format_name\":",
           info.start_pts, info.time_base_num, info.time_base_den, info.seekable);
    put_str(info.format_name);
    end_line();
}

static void usage(void)
{
    fputs("usage: live [--timeout MS] [--wait-item MS] [--op-timeout MS] URL "
          "(COMMAND ARGS...)... | -\n",
          stderr);
    exit(64);
}

int main(int argc, char **argv)
{
    int64_t io_timeout = -1, wait_item = 20000, v;
    const char *url = NULL;
    int i = 1;

    while (i < argc && strncmp(argv[i], "--", 2) == 0) {
        if (i + 1 >= argc || parse_i64(argv[i + 1], &v) != 0 || v < 0)
            usage();
        if (strcmp(argv[i], "--timeout") == 0)
            io_timeout = v;
        else if (strcmp(argv[i], "--wait-item") == 0)
            wait_item = v;
        else if (strcmp(argv[i], "--op-timeout") == 0 && v <= INT_MAX)
            g_op_timeout_ms = (int)v;
        else
            usage();
        i += 2;
    }
    if (i >= argc)
        usage();
    url = argv[i++];
    if (fpx_version() < FPX_VERSION) {
        fprintf(stderr, "live: library %s is older than the header\n", fpx_version_string());
        return 3;
    }

    open_item(url, io_timeout, wait_item);

    if (i < argc && strcmp(argv[i], "-") == 0) {
        char *line = NULL;
        size_t cap = 0;
        while (!g_destroyed && getline(&line, &cap, stdin) > 0) {
            char *words[MAX_ARGS];
            int n = 0;
            char *tok = strtok(line, " \t\r\n");
            while (tok != NULL && n < MAX_ARGS) {
                words[n++] = tok;
                tok = strtok(NULL, " \t\r\n");
            }
            if (n == 0 || words[0][0] == '#')
                continue;
            run_command(n, words, 1);
        }
        free(line);
    } else {
        while (i < argc)
            i += run_command(argc - i, argv + i, 0);
    }
    if (!g_destroyed)
        cmd_destroy();
    return 0;
}
