/*
 * test_seek.c -- seeks and their outcomes.
 *
 * For every fixture the test first reads the whole item with
 * fpx_player_read_packet to learn the frame grid of the reference stream
 * (pts, key flag; DISCARD packets excluded), then checks each seek's landing
 * against that grid: exact = the frame covering the (clamped) target,
 * nearest keyframe = the nearest keyframe inside the window, else the
 * covering frame as FALLBACK. It also checks every outcome field for
 * consistency, the clamp cases, the no-seek-manager case, the per-seek event
 * order (clamped, accuracy, completion), seeking and destroying from inside
 * callbacks, and the packets read after a seek.
 *
 * usage: test_seek FIXTURE_DIR
 */
#include "check.h"

/* ---- event recorder ------------------------------------------------------- */

typedef enum ev_kind { EV_CLAMPED = 1, EV_ACCURACY = 2, EV_COMPLETION = 3 } ev_kind;

typedef struct ev {
    ev_kind kind;
    uint64_t seek_id;
    fpx_seek_outcome o; /* EV_ACCURACY, EV_COMPLETION */
    fpx_accuracy acc;   /* EV_ACCURACY */
    fpx_clamp clamp;    /* EV_CLAMPED */
    pthread_t thread;
} ev;

#define MAX_EVENTS 4096

typedef struct rec {
    pthread_mutex_t mu;
    int n;
    ev *e;
    int overflow;
} rec;

static pthread_t main_thread;

static void rec_init(rec *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    r->e = (ev *)calloc(MAX_EVENTS, sizeof(ev));
}

static void rec_free(rec *r)
{
    free(r->e);
    pthread_mutex_destroy(&r->mu);
}

static void rec_push(rec *r, const ev *x)
{
    pthread_mutex_lock(&r->mu);
    if (r->n < MAX_EVENTS)
        r->e[r->n++] = *x;
    else
        r->overflow++;
    pthread_mutex_unlock(&r->mu);
}

static void on_clamped(const fpx_clamp *c, uint64_t seek_id, void *ud)
{
    ev x;
    memset(&x, 0, sizeof x);
    x.kind = EV_CLAMPED;
    x.seek_id = seek_id;
    x.clamp = *c;
    x.thread = pthread_self();
    rec_push((rec *)ud, &x);
}

static void on_accuracy(const fpx_accuracy *a, const fpx_seek_outcome *o, void *ud)
{
    ev x;
    memset(&x, 0, sizeof x);
    x.kind = EV_ACCURACY;
    x.seek_id = o->seek_id;
    x.o = *o;
    x.acc = *a;
    x.thread = pthread_self();
    rec_push((rec *)ud, &x);
}

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    ev x;
    memset(&x, 0, sizeof x);
    x.kind = EV_COMPLETION;
    x.seek_id = o->seek_id;
    x.o = *o;
    x.thread = pthread_self();
    rec_push((rec *)ud, &x);
}

static void add_recorder(fpx_player *p, rec *r)
{
    fpx_listener li;
    fpx_listener_init(&li);
    li.userdata = r;
    li.on_seek_clamped = on_clamped;
    li.on_seek_accuracy = on_accuracy;
    CHECK_OK(fpx_player_add_listener(p, &li, NULL));
}

/* Index of the completion of seek_id, or -1. */
static int find_completion(rec *r, uint64_t id)
{
    int i, at = -1;
    pthread_mutex_lock(&r->mu);
    for (i = 0; i < r->n; i++)
        if (r->e[i].kind == EV_COMPLETION && r->e[i].seek_id == id)
            at = i;
    pthread_mutex_unlock(&r->mu);
    return at;
}

static int wait_completion(rec *r, uint64_t id, long ms)
{
    uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
    int at;
    while ((at = find_completion(r, id)) < 0 && now_ns() < end)
        sleep_ms(1);
    return at;
}

/* Checks the events of seek `id`: [CLAMPED if did_clamp] [ACCURACY if
 * finished] COMPLETION, nothing else, all on one non-main thread. */
static void check_event_order(rec *r, uint64_t id, const fpx_seek_outcome *o)
{
    int i, k = 0;
    ev seq[8];
    int want = 1 + (o->clamp.did_clamp ? 1 : 0) + (o->finished ? 1 : 0);
    pthread_mutex_lock(&r->mu);
    for (i = 0; i < r->n; i++)
        if (r->e[i].seek_id == id && k < 8)
            seq[k++] = r->e[i];
    pthread_mutex_unlock(&r->mu);
    if (!CHECK_EQ(k, want)) {
        for (i = 0; i < k; i++)
            NOTE("seek %" PRIu64 " event %d kind %d", id, i, (int)seq[i].kind);
        return;
    }
    i = 0;
    if (o->clamp.did_clamp) {
        CHECK_EQ(seq[i].kind, EV_CLAMPED);
        CHECK_EQ(seq[i].clamp.kind, o->clamp.kind);
        CHECK_EQ(seq[i].clamp.did_clamp, 1);
        CHECK_TIME_EQ(seq[i].clamp.clamped_to, o->clamp.clamped_to);
        CHECK_TIME_EQ(seq[i].clamp.requested, o->clamp.requested);
        i++;
    }
    if (o->finished) {
        CHECK_EQ(seq[i].kind, EV_ACCURACY);
        CHECK_EQ(seq[i].o.seek_id, id);
        CHECK_TIME_EQ(seq[i].acc.landed_media_time, o->accuracy.landed_media_time);
        CHECK_TIME_EQ(seq[i].acc.requested_media_time, o->accuracy.requested_media_time);
        CHECK_EQ(seq[i].acc.within_requested_tolerance, o->accuracy.within_requested_tolerance);
        CHECK_TIME_EQ(seq[i].o.accuracy.landed_media_time, o->accuracy.landed_media_time);
        i++;
    }
    CHECK_EQ(seq[i].kind, EV_COMPLETION);
    for (i = 0; i < k; i++) {
        CHECK(!pthread_equal(seq[i].thread, main_thread));
        CHECK(pthread_equal(seq[i].thread, seq[0].thread));
    }
}

/* ---- frame grid --------------------------------------------------------- */

typedef struct frame {
    int64_t pts;
    int key;
} frame;

typedef struct grid {
    const char *name;
    frame *f;
    int n;
    int ref;
    int64_t start_pts;
    int32_t num, den;
    fpx_time first, last;
    int has_video;
} grid;

static int cmp_frame(const void *a, const void *b)
{
    const frame *x = (const frame *)a, *y = (const frame *)b;
    return x->pts < y->pts ? -1 : x->pts > y->pts;
}

static fpx_time item_time(const grid *g, int64_t pts)
{
    return fpx_time_make((pts - g->start_pts) * g->num, g->den);
}

static fpx_time ftime(const grid *g, int i)
{
    return item_time(g, g->f[i].pts);
}

/* Reads the whole item from the start; fills g. Returns 1 on success. */
static int build_grid(fpx_player *p, grid *g, const char *name)
{
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    int cap = 1024, count = 0, rc = FPX_OK, dups = 0, i;

    memset(g, 0, sizeof *g);
    g->name = name;
    memset(&ii, 0, sizeof ii); ii.struct_size = sizeof ii;
    if (!CHECK_OK(fpx_player_item_info(p, &ii)))
        return 0;
    g->ref = ii.reference_stream;
    g->start_pts = ii.start_pts;
    g->num = ii.time_base_num;
    g->den = ii.time_base_den;
    g->has_video = ii.has_video;
    g->f = (frame *)malloc(sizeof(frame) * (size_t)cap);
    for (count = 0; count < 500000; count++) {
        memset(&pk, 0, sizeof pk); pk.struct_size = sizeof pk;
        rc = fpx_player_read_packet(p, &pk);
        if (rc != FPX_OK)
            break;
        if (count == 0) {
            CHECK_EQ(pk.struct_size, sizeof(fpx_packet));
            CHECK_EQ(pk.seek_id, 0);
        }
        CHECK(pk.size == 0 || pk.data != NULL);
        if (pk.stream_index != g->ref || pk.pts == FPX_NOPTS || (pk.flags & FPX_PACKET_FLAG_DISCARD))
            continue;
        if (g->n == cap) {
            cap *= 2;
            g->f = (frame *)realloc(g->f, sizeof(frame) * (size_t)cap);
        }
        g->f[g->n].pts = pk.pts;
        g->f[g->n].key = (pk.flags & FPX_PACKET_FLAG_KEY) != 0;
        g->n++;
    }
    CHECK_ERR(rc, FPX_ERROR_EOF);
    CHECK_ERR(fpx_player_read_packet(p, &pk), FPX_ERROR_EOF); /* stays at EOF */
    if (!CHECK(g->n >= 10))
        return 0;
    qsort(g->f, (size_t)g->n, sizeof(frame), cmp_frame);
    for (i = 1; i < g->n; i++)
        if (g->f[i].pts == g->f[i - 1].pts)
            dups++;
    CHECK_EQ(dups, 0);
    /* (the first frame need not be a keyframe: an edit list may start mid-GOP) */
    g->first = ftime(g, 0);
    g->last = ftime(g, g->n - 1);
    {
        int keys = 0;
        for (i = 0; i < g->n; i++)
            keys += g->f[i].key;
        NOTE("%s: %d packets, %d frames on stream %d (%d keyframes), tb %d/%d, start_pts %" PRId64
             ", frames %.6f .. %.6f s",
             name, count, g->n, g->ref, keys, (int)g->num, (int)g->den, g->start_pts,
             fpx_time_to_seconds(g->first), fpx_time_to_seconds(g->last));
    }
    return 1;
}

/* Largest i with frame time <= t, or -1. */
static int covering(const grid *g, fpx_time t)
{
    int lo = 0, hi = g->n - 1, ans = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (fpx_time_compare(ftime(g, mid), t) <= 0) {
            ans = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return ans;
}

static fpx_time tabs(fpx_time d)
{
    if (fpx_time_compare(d, fpx_time_make(0, 1)) < 0)
        return fpx_time_subtract(fpx_time_make(0, 1), d);
    return d;
}

static fpx_time neg(fpx_time d)
{
    return fpx_time_subtract(fpx_time_make(0, 1), d);
}

static int index_of_time(const grid *g, fpx_time t)
{
    int i = covering(g, t);
    if (i >= 0 && fpx_time_compare(ftime(g, i), t) == 0)
        return i;
    return -1;
}

/* ---- one seek, fully checked ---------------------------------------------- */

typedef struct ctx {
    fpx_player *p;
    rec *r;
    grid *g;
} ctx;

static int seek_wait(ctx *c, fpx_time target, fpx_precision prec, fpx_seek_outcome *out, uint64_t *id_out)
{
    uint64_t id = 0;
    int at;
    if (!CHECK_OK(fpx_player_seek(c->p, target, prec, on_done, c->r, &id)))
        return 0;
    CHECK(id != 0);
    at = wait_completion(c->r, id, 15000);
    if (!CHECK(at >= 0)) {
        NOTE("no completion for seek %" PRIu64 " within 15 s", id);
        return 0;
    }
    pthread_mutex_lock(&c->r->mu);
    *out = c->r->e[at].o;
    pthread_mutex_unlock(&c->r->mu);
    if (id_out)
        *id_out = id;
    CHECK_EQ(out->seek_id, id);
    return 1;
}

static const char *prec_label(fpx_precision p)
{
    switch ((int)p.kind) {
    case FPX_PRECISION_EXACT: return "exact";
    case FPX_PRECISION_NEAREST_KEYFRAME: return "nearest";
    case FPX_PRECISION_DEFAULT: return "default";
    default: return "?";
    }
}

/* Seeks and checks everything about a seek expected to complete. */
static void seek_and_verify(ctx *c, fpx_time target, fpx_precision prec)
{
    grid *g = c->g;
    fpx_seek_outcome o;
    uint64_t id = 0;
    fpx_time ct, zero = fpx_time_make(0, 1), tol_req, landed, lo, hi, d;
    fpx_clamp_kind want_clamp = FPX_CLAMP_NONE;
    int is_exact = prec.kind == FPX_PRECISION_EXACT;
    int li, want_i, within, ok_landing = 0, covers;
    char what[160];

    snprintf(what, sizeof what, "%s seek %s to %" PRId64 "/%d (%.6f s)", g->name, prec_label(prec),
             target.value, (int)target.timescale, fpx_time_to_seconds(target));
    SECTION(what);
    memset(&o, 0, sizeof o);
    if (!seek_wait(c, target, prec, &o, &id))
        return;

    /* expected clamp */
    ct = target;
    if (fpx_time_compare(target, g->first) < 0) {
        want_clamp = FPX_CLAMP_TO_SEEKABLE_START;
        ct = g->first;
    } else if (fpx_time_compare(target, g->last) > 0) {
        want_clamp = FPX_CLAMP_TO_SEEKABLE_END;
        ct = g->last;
    }

    CHECK_EQ(o.struct_size, sizeof(fpx_seek_outcome));
    CHECK_EQ(o.finished, 1);
    CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
    CHECK_EQ(o.error, 0);
    if (o.reason != FPX_FINISH_COMPLETED) {
        NOTE("reason %s error %d (%s)", fpx_finish_reason_name(o.reason), o.error, fpx_error_name(o.error));
        return;
    }

    /* precision, normalized */
    if (is_exact) {
        CHECK_EQ(o.precision.kind, FPX_PRECISION_EXACT);
        tol_req = zero;
    } else {
        CHECK_EQ(o.precision.kind, FPX_PRECISION_NEAREST_KEYFRAME);
        tol_req = prec.kind == FPX_PRECISION_DEFAULT ? fpx_time_make(1, 10) : prec.tolerance;
        CHECK_TIME_EQ(o.precision.tolerance, tol_req);
    }

    /* clamp */
    CHECK_EQ(o.clamp.kind, want_clamp);
    CHECK_EQ(o.clamp.did_clamp, want_clamp != FPX_CLAMP_NONE);
    CHECK_TIME_EQ(o.clamp.requested, target);
    CHECK(o.clamp.explanation != NULL && o.clamp.explanation[0] != 0);
    if (want_clamp == FPX_CLAMP_NONE) {
        CHECK_EQ(fpx_time_is_valid(o.clamp.clamped_to), 0);
    } else {
        CHECK_TIME_EQ(o.clamp.clamped_to, ct);
    }
    CHECK_TIME_EQ(o.clamp.clamped_target, ct);

    /* accuracy */
    CHECK_TIME_EQ(o.accuracy.requested_media_time, target);
    landed = o.accuracy.landed_media_time;
    if (!CHECK_EQ(fpx_time_is_numeric(landed), 1))
        return;
    /* tolerances actually applied: within one stream tick of the request */
    {
        fpx_time tick = fpx_time_make(g->num, g->den);
        CHECK(fpx_time_compare(tabs(fpx_time_subtract(o.accuracy.tolerance_before, tol_req)), tick) <= 0);
        CHECK(fpx_time_compare(tabs(fpx_time_subtract(o.accuracy.tolerance_after, tol_req)), tick) <= 0);
        if (is_exact) {
            CHECK_TIME_EQ(o.accuracy.tolerance_before, zero);
            CHECK_TIME_EQ(o.accuracy.tolerance_after, zero);
        }
    }
    d = fpx_time_subtract(landed, target);
    CHECK_TIME_EQ(o.accuracy.delta, d);
    within = fpx_time_compare(d, neg(o.accuracy.tolerance_before)) >= 0 &&
             fpx_time_compare(d, o.accuracy.tolerance_after) <= 0;
    CHECK_EQ(o.accuracy.within_requested_tolerance, within);
    CHECK(fabs(o.accuracy.delta_seconds - fpx_time_to_seconds(d)) <= 1e-6);
    CHECK(fabs(o.accuracy.absolute_delta_seconds - fabs(o.accuracy.delta_seconds)) <= 1e-9);
    CHECK(fabs(o.requested_time - fpx_time_to_seconds(target)) <= 1e-6);
    CHECK(fabs(o.landed_time - fpx_time_to_seconds(landed)) <= 1e-6);

    /* latency */
    CHECK(o.latency_ns > 0);
    CHECK(fabs(o.latency - (double)o.latency_ns / 1e9) <= 1e-3 + 1e-6 * o.latency);

    /* landed frame vs the stream */
    CHECK_EQ(o.stream_index, g->ref);
    CHECK_EQ(o.stream_time_base_num, g->num);
    CHECK_EQ(o.stream_time_base_den, g->den);
    CHECK(o.landed_stream_pts != FPX_NOPTS);
    CHECK_TIME_EQ(item_time(g, o.landed_stream_pts), landed);

    /* landed frame vs the grid */
    li = index_of_time(g, landed);
    if (!CHECK(li >= 0)) {
        NOTE("landed %.6f s is not a frame of the reference stream", fpx_time_to_seconds(landed));
        return;
    }
    CHECK_EQ(o.landed_is_keyframe, g->f[li].key);
    {
        int ci = covering(g, ct);
        covers = ci == li;
    }
    CHECK_EQ(o.frame_covers_target, covers);

    want_i = covering(g, ct);
    if (is_exact) {
        CHECK_EQ(o.resolution, FPX_LANDING_COVERING_FRAME);
        ok_landing = li == want_i;
        CHECK_EQ(o.frame_covers_target, 1);
        CHECK(fpx_time_compare(d, zero) <= 0 || want_clamp == FPX_CLAMP_TO_SEEKABLE_START);
    } else {
        /* nearest keyframe inside [ct - tol_before, ct + tol_after] */
        int i, best = -1, alt = -1;
        fpx_time bestd = fpx_time_invalid();
        lo = fpx_time_subtract(ct, o.accuracy.tolerance_before);
        hi = fpx_time_subtract(ct, neg(o.accuracy.tolerance_after));
        for (i = 0; i < g->n; i++) {
            fpx_time t = ftime(g, i), dd;
            int cmp;
            if (!g->f[i].key || fpx_time_compare(t, lo) < 0 || fpx_time_compare(t, hi) > 0)
                continue;
            dd = tabs(fpx_time_subtract(t, ct));
            cmp = best < 0 ? -1 : fpx_time_compare(dd, bestd);
            if (cmp < 0) {
                best = i;
                alt = -1;
                bestd = dd;
            } else if (cmp == 0) {
                alt = i; /* a tie: either is a right answer */
            }
        }
        if (best >= 0) {
            CHECK_EQ(o.resolution, FPX_LANDING_KEYFRAME);
            CHECK_EQ(o.landed_is_keyframe, 1);
            ok_landing = li == best || li == alt;
        } else {
            CHECK_EQ(o.resolution, FPX_LANDING_FALLBACK_COVERING_FRAME);
            CHECK_EQ(o.frame_covers_target, 1);
            ok_landing = li == want_i;
        }
        if (best >= 0)
            want_i = best;
    }
    if (!CHECK(ok_landing))
        NOTE("landed frame #%d (%.6f s), expected frame #%d (%.6f s)", li, fpx_time_to_seconds(landed),
             want_i, want_i >= 0 ? fpx_time_to_seconds(ftime(g, want_i)) : -1.0);

    check_event_order(c->r, id, &o);
}

/* ---- sections ------------------------------------------------------------ */

static void verify_range(fpx_player *p, grid *g)
{
    fpx_time s = fpx_time_invalid(), e = fpx_time_invalid();
    SECTION("seekable range == [first frame, last frame]");
    CHECK_OK(fpx_player_seekable_range(p, &s, &e));
    CHECK_TIME_EQ(s, g->first);
    CHECK_TIME_EQ(e, g->last);
    CHECK(fpx_time_compare(s, fpx_time_make(0, 1)) >= 0);
}

static void seek_suite(ctx *c)
{
    grid *g = c->g;
    fpx_precision precs[3];
    fpx_time targets[12];
    int nt = 0, i, j, mid = g->n / 2, k;
    fpx_precision dflt_raw;

    precs[0] = fpx_precision_exact();
    precs[1] = fpx_precision_nearest_keyframe(fpx_time_make(1, 2));
    dflt_raw.kind = FPX_PRECISION_DEFAULT;
    dflt_raw.tolerance = fpx_time_invalid(); /* ignored for DEFAULT */
    precs[2] = dflt_raw;

    targets[nt++] = fpx_time_make(0, 1);
    targets[nt++] = ftime(g, mid);                              /* exactly on a frame */
    targets[nt++] = item_time(g, g->f[mid].pts + 1);            /* one tick after it */
    targets[nt++] = item_time(g, g->f[mid + 1].pts - 1);        /* one tick before the next */
    targets[nt++] = fpx_time_make(1001 * 7, 30000);             /* 0.2336 s */
    targets[nt++] = fpx_time_from_seconds(fpx_time_to_seconds(g->last) * 0.37, 7919);
    targets[nt++] = fpx_time_from_seconds(fpx_time_to_seconds(g->last) * 0.81, 1000);
    for (k = g->n / 3; k < g->n && !g->f[k].key; k++) {
    }
    if (k < g->n && k > 0) {
        targets[nt++] = item_time(g, g->f[k].pts - 1); /* one tick before a keyframe */
        targets[nt++] = ftime(g, k);                    /* on a keyframe */
    }
    targets[nt++] = g->last;                                    /* the last frame: no clamp */
    targets[nt++] = item_time(g, g->f[g->n - 1].pts - 1);

    for (i = 0; i < nt; i++)
        for (j = 0; j < 3; j++)
            seek_and_verify(c, targets[i], precs[j]);
}

static void clamp_suite(ctx *c)
{
    fpx_seek_outcome o;
    uint64_t id;
    grid *g = c->g;
    fpx_time minus5 = fpx_time_make(-5, 1);
    fpx_time past = fpx_time_subtract(g->last, fpx_time_make(-100, 1));

    seek_and_verify(c, minus5, fpx_precision_exact());
    seek_and_verify(c, minus5, fpx_precision_default());
    seek_and_verify(c, past, fpx_precision_exact());
    seek_and_verify(c, past, fpx_precision_default());
    seek_and_verify(c, fpx_time_make(-1, 1000000000), fpx_precision_exact());

    /* landed 0 and delta +5 when the first frame is at item time 0 (mp4,
     * m4a; checked in fixture_suite); in general landed = first frame */
    SECTION("seek to -5 s: TO_SEEKABLE_START, landed first frame, delta +5 + first");
    memset(&o, 0, sizeof o);
    if (seek_wait(c, minus5, fpx_precision_exact(), &o, &id)) {
        CHECK_EQ(o.clamp.kind, FPX_CLAMP_TO_SEEKABLE_START);
        CHECK_EQ(o.clamp.did_clamp, 1);
        CHECK_TIME_EQ(o.clamp.clamped_to, g->first);
        CHECK_TIME_EQ(o.accuracy.landed_media_time, g->first);
        CHECK_TIME_EQ(o.accuracy.delta, fpx_time_subtract(g->first, minus5));
        if (fpx_time_compare(g->first, fpx_time_make(0, 1)) == 0)
            CHECK_TIME_EQ(o.accuracy.delta, fpx_time_make(5, 1));
        CHECK_TIME_EQ(o.accuracy.requested_media_time, minus5);
        CHECK_EQ(o.accuracy.within_requested_tolerance, 0);
        CHECK(fabs(o.accuracy.delta_seconds - (5.0 + fpx_time_to_seconds(g->first))) < 1e-9);
        check_event_order(c->r, id, &o);
    }
    SECTION("seek past the end: TO_SEEKABLE_END");
    memset(&o, 0, sizeof o);
    if (seek_wait(c, past, fpx_precision_nearest_keyframe(fpx_time_make(1, 2)), &o, &id)) {
        CHECK_EQ(o.clamp.kind, FPX_CLAMP_TO_SEEKABLE_END);
        CHECK_EQ(o.clamp.did_clamp, 1);
        CHECK_TIME_EQ(o.clamp.clamped_to, g->last);
        CHECK_EQ(o.finished, 1);
        CHECK(fpx_time_compare(o.accuracy.delta, fpx_time_make(0, 1)) < 0);
        check_event_order(c->r, id, &o);
    }
}

/* After an exact seek to a non-key frame: the packets start at its keyframe. */
static void read_after_seek(ctx *c)
{
    grid *g = c->g;
    int k, key = -1, i, n, seen_landed = 0, discontinuities = 0, rc = FPX_OK;
    fpx_seek_outcome o;
    uint64_t id = 0;
    fpx_packet pk = {.struct_size = sizeof(fpx_packet)};
    int64_t landed_pts;

    SECTION("read_packet after an exact seek");
    /* a frame that is not a keyframe (video), else the middle frame (audio) */
    for (k = g->n / 2; k < g->n && g->f[k].key; k++) {
    }
    if (k == g->n) {
        CHECK(!g->has_video);
        k = g->n / 2;
    }
    for (i = 0; i <= k; i++)
        if (g->f[i].key)
            key = i;
    memset(&o, 0, sizeof o);
    if (!seek_wait(c, ftime(g, k), fpx_precision_exact(), &o, &id))
        return;
    CHECK_EQ(o.finished, 1);
    landed_pts = o.landed_stream_pts;
    CHECK_EQ(landed_pts, g->f[k].pts);
    CHECK_EQ(o.landed_is_keyframe, g->f[k].key);

    for (n = 0; n < 5000; n++) {
        memset(&pk, 0, sizeof pk); pk.struct_size = sizeof pk;
        rc = fpx_player_read_packet(c->p, &pk);
        if (rc != FPX_OK)
            break;
        CHECK_EQ(pk.struct_size, sizeof(fpx_packet));
        CHECK_EQ(pk.seek_id, id);
        if (pk.flags & FPX_PACKET_FLAG_DISCONTINUITY)
            discontinuities++;
        if (n == 0) {
            CHECK(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY);
            CHECK_EQ(pk.stream_index, g->ref);
            CHECK(pk.flags & FPX_PACKET_FLAG_KEY);
            CHECK(pk.pts != FPX_NOPTS && pk.pts <= landed_pts);
            if (g->has_video && strstr(g->name, "mp4"))
                CHECK_EQ(pk.pts, g->f[key].pts); /* the keyframe the landed frame needs */
            CHECK(pk.av_packet != NULL);
            CHECK(pk.data != NULL && pk.size > 0);
        }
        if (pk.stream_index == g->ref && pk.pts != FPX_NOPTS) {
            int want = pk.pts < landed_pts;
            if (!CHECK_EQ((pk.flags & FPX_PACKET_FLAG_DECODE_ONLY) != 0, want))
                NOTE("packet %d pts %" PRId64 " landed pts %" PRId64 " flags 0x%x", n, pk.pts, landed_pts,
                     (unsigned)pk.flags);
            if (pk.pts == landed_pts)
                seen_landed = 1;
        }
        if (seen_landed && n > 200)
            break;
    }
    CHECK(rc == FPX_OK || rc == FPX_ERROR_EOF);
    if (rc != FPX_OK && rc != FPX_ERROR_EOF)
        NOTE("read_packet -> %d (%s)", rc, fpx_error_name(rc));
    CHECK(seen_landed);
    CHECK_EQ(discontinuities, 1);

    SECTION("read to EOF");
    for (n = 0; n < 500000 && rc == FPX_OK; n++) {
        rc = fpx_player_read_packet(c->p, &pk);
        if (rc != FPX_OK)
            break;
        CHECK(!(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY));
    }
    CHECK_ERR(rc, FPX_ERROR_EOF);
    CHECK_ERR(fpx_player_read_packet(c->p, &pk), FPX_ERROR_EOF);

    SECTION("a new seek after EOF rewinds");
    memset(&o, 0, sizeof o);
    if (seek_wait(c, fpx_time_make(0, 1), fpx_precision_exact(), &o, &id)) {
        memset(&pk, 0, sizeof pk); pk.struct_size = sizeof pk;
        CHECK_OK(fpx_player_read_packet(c->p, &pk));
        CHECK(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY);
        CHECK_EQ(pk.seek_id, id);
    }
}

static void fixture_suite(const char *name, int expect_video)
{
    ctx c;
    rec r;
    grid g;
    fpx_item_info ii = {.struct_size = sizeof(fpx_item_info)};
    char what[128];

    snprintf(what, sizeof what, "%s: open and read the frame grid", name);
    SECTION(what);
    rec_init(&r);
    c.p = make_player(FPX_DELIVERY_THREAD);
    c.r = &r;
    c.g = &g;
    if (!c.p)
        return;
    add_recorder(c.p, &r);
    if (!CHECK_OK(open_wait(c.p, fixture(name), NULL)) || !build_grid(c.p, &g, name)) {
        fpx_player_destroy(c.p);
        rec_free(&r);
        return;
    }
    memset(&ii, 0, sizeof ii); ii.struct_size = sizeof ii;
    CHECK_OK(fpx_player_item_info(c.p, &ii));
    CHECK_EQ(ii.has_video, expect_video);
    CHECK_OK(fpx_player_setup_seek_manager(c.p));
    verify_range(c.p, &g);
    if (strcmp(name, "mp4_bframes.mp4") == 0 || strcmp(name, "audio.m4a") == 0)
        CHECK_TIME_EQ(g.first, fpx_time_make(0, 1)); /* item time 0 is the first frame */
    seek_suite(&c);
    clamp_suite(&c);
    read_after_seek(&c);
    CHECK_EQ(r.overflow, 0);
    CHECK_OK(fpx_player_destroy(c.p));
    free(g.f);
    rec_free(&r);
}

static void no_seek_manager(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    rec r;
    ctx c;
    fpx_seek_outcome o;
    uint64_t id = 0;
    fpx_time t = fpx_time_make(1, 1);

    SECTION("no seek manager: finished 0, NO_SEEK_MANAGER, RANGE_UNKNOWN");
    if (!p)
        return;
    rec_init(&r);
    add_recorder(p, &r);
    c.p = p;
    c.r = &r;
    c.g = NULL;
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    memset(&o, 0, sizeof o);
    if (seek_wait(&c, t, fpx_precision_exact(), &o, &id)) {
        CHECK_EQ(o.struct_size, sizeof(fpx_seek_outcome));
        CHECK_EQ(o.finished, 0);
        CHECK_EQ(o.reason, FPX_FINISH_NO_SEEK_MANAGER);
        CHECK_EQ(o.error, 0);
        CHECK_EQ(o.clamp.kind, FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN);
        CHECK_EQ(o.clamp.did_clamp, 0);
        CHECK_TIME_EQ(o.clamp.requested, t);
        CHECK_TIME_EQ(o.clamp.clamped_target, t);
        CHECK_EQ(fpx_time_is_valid(o.clamp.clamped_to), 0);
        CHECK(o.clamp.explanation != NULL);
        CHECK_TIME_EQ(o.accuracy.requested_media_time, t);
        CHECK_EQ(fpx_time_is_valid(o.accuracy.landed_media_time), 0);
        CHECK_EQ(fpx_time_is_valid(o.accuracy.delta), 0);
        CHECK_EQ(o.accuracy.within_requested_tolerance, 0);
        CHECK(isnan(o.landed_time));
        CHECK_EQ(o.resolution, FPX_LANDING_NONE);
        CHECK_EQ(o.stream_index, -1);
        CHECK_EQ(o.landed_stream_pts, FPX_NOPTS);
        CHECK_EQ(o.seek_id, id);
        check_event_order(&r, id, &o); /* completion only: no clamp, no accuracy */
    }
    /* a clamping target is not moved either */
    memset(&o, 0, sizeof o);
    if (seek_wait(&c, fpx_time_make(-5, 1), fpx_precision_default(), &o, &id)) {
        CHECK_EQ(o.reason, FPX_FINISH_NO_SEEK_MANAGER);
        CHECK_EQ(o.clamp.kind, FPX_CLAMP_SEEKABLE_RANGE_UNKNOWN);
        CHECK_EQ(o.clamp.did_clamp, 0);
        CHECK_EQ(o.precision.kind, FPX_PRECISION_NEAREST_KEYFRAME);
        CHECK_TIME_EQ(o.precision.tolerance, fpx_time_make(1, 10));
        check_event_order(&r, id, &o);
    }
    {
        fpx_player_stats st = {.struct_size = sizeof(fpx_player_stats)};
        memset(&st, 0, sizeof st); st.struct_size = sizeof st;
        CHECK_OK(fpx_player_stats_get(p, &st));
        CHECK_EQ(st.seeks_failed, 2);
        CHECK_EQ(st.seeks_completed, 0);
    }
    CHECK_OK(fpx_player_destroy(p));
    rec_free(&r);
}

/* ---- seeking and destroying from inside callbacks ------------------------- */

typedef struct chain {
    fpx_player *p;
    rec *r;
    int rc;
    uint64_t id2;
    int calls;
    pthread_mutex_t mu;
} chain;

static void on_chain(const fpx_seek_outcome *o, void *ud)
{
    chain *ch = (chain *)ud;
    uint64_t id2 = 0;
    int rc = fpx_player_seek(ch->p, fpx_time_make(2, 1), fpx_precision_exact(), on_done, ch->r, &id2);
    pthread_mutex_lock(&ch->mu);
    ch->rc = rc;
    ch->id2 = id2;
    ch->calls++;
    pthread_mutex_unlock(&ch->mu);
    on_done(o, ch->r);
}

static void seek_from_callback(void)
{
    chain ch;
    rec r;
    uint64_t id = 0;
    int at = -1, calls;
    fpx_seek_outcome o;

    SECTION("seek from inside a completion callback");
    memset(&ch, 0, sizeof ch);
    pthread_mutex_init(&ch.mu, NULL);
    rec_init(&r);
    ch.p = make_player(FPX_DELIVERY_THREAD);
    ch.r = &r;
    if (!ch.p)
        return;
    CHECK_OK(open_wait(ch.p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(ch.p));
    CHECK_OK(fpx_player_seek(ch.p, fpx_time_make(1, 1), fpx_precision_exact(), on_chain, &ch, &id));
    if (CHECK(wait_completion(&r, id, 15000) >= 0)) {
        pthread_mutex_lock(&ch.mu);
        CHECK_OK(ch.rc);
        CHECK(ch.id2 != 0 && ch.id2 != id);
        pthread_mutex_unlock(&ch.mu);
        at = wait_completion(&r, ch.id2, 15000);
        if (CHECK(at >= 0)) {
            pthread_mutex_lock(&r.mu);
            o = r.e[at].o;
            pthread_mutex_unlock(&r.mu);
            CHECK_EQ(o.reason, FPX_FINISH_COMPLETED);
            CHECK_EQ(o.finished, 1);
            CHECK_TIME_EQ(o.accuracy.requested_media_time, fpx_time_make(2, 1));
        }
    }
    CHECK_OK(fpx_player_destroy(ch.p));
    pthread_mutex_lock(&ch.mu);
    calls = ch.calls;
    pthread_mutex_unlock(&ch.mu);
    CHECK_EQ(calls, 1);
    pthread_mutex_destroy(&ch.mu);
    rec_free(&r);
}

typedef struct killer {
    fpx_player *p;
    pthread_mutex_t mu;
    int calls;
    int destroy_rc;
    int after_rc;
    pthread_t thread;
    int b_calls;
    fpx_finish_reason b_reason;
    pthread_t b_thread;
    uint64_t b_order; /* event sequence numbers */
    uint64_t a_order;
    uint64_t seq;
} killer;

static void on_kill(const fpx_seek_outcome *o, void *ud)
{
    killer *k = (killer *)ud;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    int rc, rc2;
    (void)o;
    rc = fpx_player_destroy(k->p);
    rc2 = fpx_player_item_status(k->p, &st);
    pthread_mutex_lock(&k->mu);
    k->calls++;
    k->destroy_rc = rc;
    k->after_rc = rc2;
    k->thread = pthread_self();
    k->a_order = ++k->seq;
    pthread_mutex_unlock(&k->mu);
}

static void on_b(const fpx_seek_outcome *o, void *ud)
{
    killer *k = (killer *)ud;
    pthread_mutex_lock(&k->mu);
    k->b_calls++;
    k->b_reason = o->reason;
    k->b_thread = pthread_self();
    k->b_order = ++k->seq;
    pthread_mutex_unlock(&k->mu);
}

static void destroy_from_callback(void)
{
    killer k;
    int rc_b, calls = 0;
    uint64_t end;

    SECTION("destroy from inside a completion callback");
    memset(&k, 0, sizeof k);
    pthread_mutex_init(&k.mu, NULL);
    k.p = make_player(FPX_DELIVERY_THREAD);
    if (!k.p)
        return;
    CHECK_OK(open_wait(k.p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(k.p));
    CHECK_OK(fpx_player_seek(k.p, fpx_time_make(1, 1), fpx_precision_exact(), on_kill, &k, NULL));
    rc_b = fpx_player_seek(k.p, fpx_time_make(3, 1), fpx_precision_exact(), on_b, &k, NULL);
    /* B may find the player already destroyed if A completed first */
    CHECK(rc_b == FPX_OK || rc_b == FPX_ERROR_INVALID_HANDLE);
    end = now_ns() + 15000000000u;
    while (now_ns() < end) {
        pthread_mutex_lock(&k.mu);
        calls = k.calls + (rc_b == FPX_OK ? k.b_calls : 1);
        pthread_mutex_unlock(&k.mu);
        if (calls >= 2)
            break;
        sleep_ms(2);
    }
    sleep_ms(200);
    pthread_mutex_lock(&k.mu);
    CHECK_EQ(k.calls, 1);
    CHECK_OK(k.destroy_rc);
    CHECK_ERR(k.after_rc, FPX_ERROR_INVALID_HANDLE);
    if (rc_b == FPX_OK) {
        CHECK_EQ(k.b_calls, 1);
        CHECK(k.b_reason == FPX_FINISH_CANCELLED || k.b_reason == FPX_FINISH_COMPLETED);
        if (k.b_calls == 1 && k.calls == 1 && k.b_order > k.a_order)
            CHECK(pthread_equal(k.b_thread, k.thread)); /* delivered on the same thread */
    } else {
        NOTE("seek B raced with the destroy (INVALID_HANDLE): allowed");
    }
    pthread_mutex_unlock(&k.mu);
    CHECK_ERR(fpx_player_destroy(k.p), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_seek(k.p, fpx_time_make(1, 1), fpx_precision_exact(), on_b, &k, NULL),
              FPX_ERROR_INVALID_HANDLE);
    pthread_mutex_destroy(&k.mu);
}

static void seek_while_loading(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    rec r;
    uint64_t id = 0;
    int at;
    SECTION("seek issued while the item is loading is queued behind the open");
    if (!p)
        return;
    rec_init(&r);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_open(p, fixture("ts.ts")));
    CHECK_OK(fpx_player_seek(p, fpx_time_make(1, 1), fpx_precision_exact(), on_done, &r, &id));
    at = wait_completion(&r, id, 15000);
    if (CHECK(at >= 0)) {
        pthread_mutex_lock(&r.mu);
        CHECK_EQ(r.e[at].o.reason, FPX_FINISH_COMPLETED);
        CHECK(fpx_time_compare(r.e[at].o.accuracy.landed_media_time, fpx_time_make(1, 1)) <= 0);
        pthread_mutex_unlock(&r.mu);
    }
    CHECK_OK(fpx_player_destroy(p));
    rec_free(&r);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 115);
    main_thread = pthread_self();
    fixture_suite("mp4_bframes.mp4", 1);
    fixture_suite("ts.ts", 1);
    fixture_suite("mkv.mkv", 1);
    fixture_suite("audio.m4a", 0);
    /* further fixtures of make-fixtures.sh, when present */
    {
        static const char *const more[] = {"mp4_opengop.mp4", "mp4_vfr.mp4", "mp4_editlist.mp4", "fmp4.mp4"};
        size_t i;
        for (i = 0; i < sizeof more / sizeof more[0]; i++) {
            if (access(fixture(more[i]), R_OK) == 0)
                fixture_suite(more[i], 1);
            else
                NOTE("optional fixture %s not present: skipped", more[i]);
        }
    }
    no_seek_manager();
    seek_from_callback();
    destroy_from_callback();
    seek_while_loading();
    return check_summary();
}
