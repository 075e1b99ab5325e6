/* libFuzzer harness (b): API call sequences decoded from the input.
 *
 * Two byte per call: an opcode and an argument. Up to two players (thread or
 * host delivery, chosen by the input) on small files of the fuzz corpus
 * (FPX_FUZZ_MEDIA_DIR, default Tests/fuzz/files) and a missing one.
 * Calls: create, destroy, open, close, setup_seek_manager, seek (exact,
 * keyframe with odd tolerances, unknown precision kinds, invalid times),
 * cancel, scrub begin/update/end/cancel/throttle, step, dispatch, event_fd,
 * add/remove listener, read, stats, item/stream info, live window,
 * current_time, seek to live edge and to a date, seek_wait. See fuzz_common.h for the
 * invariants; also every scrub end callback runs once. */
#include "fuzz_common.h"

static const char *const FILES[] = {"tiny.mp4", "tiny.mkv", "tiny.ts", "missing.mp4"};

typedef struct slot {
    fpx_player *p;
    fz_counts c;
    fpx_delivery_mode mode;
    uint64_t listener;
} slot;

static pthread_mutex_t ev_mu = PTHREAD_MUTEX_INITIALIZER;
static long ev_count, notify_count, listeners_added;

static void on_any(const fpx_item_status_info *s, void *ud)
{
    (void)s;
    (void)ud;
    pthread_mutex_lock(&ev_mu);
    ev_count++;
    pthread_mutex_unlock(&ev_mu);
}

static void on_notify(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&ev_mu);
    notify_count++;
    pthread_mutex_unlock(&ev_mu);
}

static void on_scrub_end(const fpx_scrub_result *r, void *ud)
{
    fz_on_seek(r->outcome, ud);
}

static void on_edge(const fpx_seek_outcome *o, int err, void *ud)
{
    (void)err;
    fz_on_seek(o, ud);
}

static void on_date(const fpx_date_seek_result *r, void *ud)
{
    fz_on_seek(r->outcome, ud);
}

static const char *media_dir(void)
{
    const char *d = getenv("FPX_FUZZ_MEDIA_DIR");
    return d ? d : "Tests/fuzz/files";
}

static fpx_time weird_time(uint8_t a)
{
    switch (a & 7) {
    case 0: return fpx_time_make(a >> 3, 2);
    case 1: return fpx_time_invalid();
    case 2: return fpx_time_infinity(a & 8);
    case 3: return fpx_time_make(INT64_MAX, 1);
    case 4: return fpx_time_make(-(int64_t)(a >> 3), 3);
    case 5: { fpx_time t = fpx_time_make(a, 7); t.flags |= 0x40u; return t; }
    case 6: return fpx_time_make(a, 0);
    default: return fpx_time_make((int64_t)a * 1001, 30000);
    }
}

static fpx_precision weird_precision(uint8_t a)
{
    fpx_precision p;
    switch (a % 5) {
    case 0: return fpx_precision_exact();
    case 1: return fpx_precision_default();
    case 2: return fpx_precision_nearest_keyframe(weird_time(a >> 1));
    case 3: p = fpx_precision_exact(); p.kind = (fpx_precision_kind)(3 + (a >> 4)); return p;
    default: return fpx_precision_nearest_keyframe(fpx_time_make(a, 10));
    }
}

static void call(slot *s, uint8_t op, uint8_t a)
{
    fpx_player *p = s->p;
    char path[1024];
    if (!p && op % 32 != 0)
        return;
    switch (op % 32) {
    case 0:
        if (!p) {
            s->mode = (a & 1) ? FPX_DELIVERY_HOST : FPX_DELIVERY_THREAD;
            fz_counts_init(&s->c);
            s->p = fz_player(s->mode, 2000);
        }
        break;
    case 1:
        fz_destroy_check(p, &s->c);
        fz_after_destroy_check(&s->c);
        s->p = NULL;
        break;
    case 2:
        snprintf(path, sizeof path, "%s/%s", media_dir(), FILES[a % 4]);
        FZ_RC(fpx_player_open(p, path));
        break;
    case 3: FZ_RC(fpx_player_close_item(p)); break;
    case 4: FZ_RC(fpx_player_setup_seek_manager(p)); break;
    case 5: case 6: fz_seek(p, &s->c, weird_time(a), weird_precision(a * 7u)); break;
    case 7: FZ_RC(fpx_player_cancel_pending_seeks(p, NULL)); break;
    case 8: FZ_RC(fpx_player_wait_item(p, a * 10, NULL)); break;
    case 9: case 10: case 11: case 12: case 13: {
        fpx_scrub_session *ss;
        int rc = fpx_player_scrub_session(p, &ss);
        FZ_RC(rc);
        if (rc != FPX_OK)
            break;
        if (op % 32 == 9) FZ_RC(fpx_scrub_begin(ss, weird_time(a)));
        else if (op % 32 == 10) FZ_RC(fpx_scrub_update(ss, weird_time(a)));
        else if (op % 32 == 11) {
            rc = fpx_scrub_end(ss, weird_time(a), weird_precision(a), on_scrub_end, &s->c, NULL);
            FZ_RC(rc);
            if (rc == FPX_OK) { pthread_mutex_lock(&s->c.mu); s->c.issued++; pthread_mutex_unlock(&s->c.mu); }
        } else if (op % 32 == 12) FZ_RC(fpx_scrub_cancel(ss));
        else FZ_RC(fpx_scrub_set_position_throttle(ss, weird_time(a)));
        break;
    }
    case 14: case 15: {
        fpx_frame_step_result r = {.struct_size = sizeof r};
        FZ_RC(fpx_player_step_frame(p, (fpx_frame_step_direction)(a % 3), (int)(a >> 2) - 2, &r));
        break;
    }
    case 16: FZ_RC(fpx_player_dispatch_events(p, NULL)); break;
    case 17: { int fd; FZ_RC(fpx_player_event_fd(p, &fd)); break; }
    case 18: {
        fpx_listener l;
        fpx_listener_init(&l);
        l.on_item_status = on_any;
        l.destroy_notify = on_notify;
        l.size = (a & 1) ? sizeof l : (size_t)a;
        {
            int rc = fpx_player_add_listener(p, &l, &s->listener);
            FZ_RC(rc);
            if (rc == FPX_OK) { pthread_mutex_lock(&ev_mu); listeners_added++; pthread_mutex_unlock(&ev_mu); }
        }
        break;
    }
    case 19: FZ_RC(fpx_player_remove_listener(p, (a & 1) ? s->listener : a)); break;
    case 20: {
        fpx_packet pk = {.struct_size = (a & 3) ? sizeof pk : (size_t)(a >> 2)};
        int rc = fpx_player_read_packet(p, &pk);
        FZ_RC(rc);
        if (rc == FPX_OK && pk.size && pk.struct_size >= sizeof pk) {
            volatile uint8_t x = pk.data[pk.size - 1];
            (void)x;
        }
        break;
    }
    case 21: { fpx_player_stats st = {.struct_size = (size_t)a}; FZ_RC(fpx_player_stats_get(p, &st)); break; }
    case 22: { fpx_item_info ii = {.struct_size = sizeof ii}; FZ_RC(fpx_player_item_info(p, &ii)); break; }
    case 23: { fpx_stream_info si = {.struct_size = sizeof si}; FZ_RC(fpx_player_stream_info(p, (int)a - 3, &si)); break; }
    case 24: { fpx_live_seek_window w = {.struct_size = sizeof w}; FZ_RC(fpx_player_live_seek_window(p, &w)); break; }
    case 25: { fpx_time t; FZ_RC(fpx_player_current_time(p, &t)); break; }
    case 26: {
        int rc = fpx_player_seek_to_live_edge(p, on_edge, &s->c, NULL);
        FZ_RC(rc);
        if (rc == FPX_OK) { pthread_mutex_lock(&s->c.mu); s->c.issued++; pthread_mutex_unlock(&s->c.mu); }
        break;
    }
    case 27: {
        int rc = fpx_player_seek_to_date(p, (int64_t)a * 1000000, weird_precision(a), on_date, &s->c, NULL);
        FZ_RC(rc);
        if (rc == FPX_OK) { pthread_mutex_lock(&s->c.mu); s->c.issued++; pthread_mutex_unlock(&s->c.mu); }
        break;
    }
    case 28: { fpx_time a0, b0; FZ_RC(fpx_player_seekable_range(p, &a0, &b0)); break; }
    case 29: { fpx_item_status_info st = {.struct_size = (size_t)a}; FZ_RC(fpx_player_item_status(p, &st)); break; }
    case 30: {
        /* the synchronous seek: its outcome is written into our struct (odd sizes too),
         * and it still completes once through the queue (counted: no callback) */
        fpx_seek_outcome o;
        memset(&o, 0, sizeof o);
        o.struct_size = (a & 1) ? sizeof o : (size_t)(a >> 1);
        FZ_RC(fpx_player_seek_wait(p, weird_time(a), weird_precision(a >> 2), (int64_t)(a % 8) * 50, &o));
        break;
    }
    default:
        if (s->mode == FPX_DELIVERY_HOST)
            FZ_RC(fpx_player_dispatch_events(p, NULL));
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slot s[2];
    size_t i;
    memset(s, 0, sizeof s);
    for (i = 0; i + 1 < size && i < 2 * 64; i += 2) {
        uint8_t op = data[i], a = data[i + 1];
        call(&s[op >> 7], op & 0x7f, a);
    }
    for (i = 0; i < 2; i++) {
        if (s[i].p) {
            fz_destroy_check(s[i].p, &s[i].c);
            fz_after_destroy_check(&s[i].c);
        }
    }
    return 0;
}
