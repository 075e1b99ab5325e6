/*
 * test_callback_matrix.c -- every exported function, called from every kind of
 * callback the library runs, either works or returns FPX_ERROR_IN_CALLBACK, and
 * nothing deadlocks (seek.h, sections 3 and 5, "Logging"). Issue 18.1.
 *
 * Contexts (the host code the library runs):
 *   log/open     the log callback on a player's worker inside an open
 *   log/read     the log callback on the host's thread inside
 *                fpx_player_read_packet (the player's engine lock held)
 *   log/seek     the log callback on the worker inside a seek (engine lock held)
 *   log/seek_wait  the log callback on the host's thread inside fpx_player_seek_wait
 *                landing its seek there (an idle player; engine lock held)
 *   log/index    the log callback on the FULL index thread
 *   log/reload   the log callback on the HLS reload thread of a live playlist
 *                served over HTTP on 127.0.0.1 by this test
 *   completion   a seek's completion (THREAD delivery, and HOST delivery
 *                inside fpx_player_dispatch_events)
 *   listener     on_item_status (THREAD and HOST delivery)
 *   wakeup       the HOST player's wakeup
 * In each context the table below is run once on the player doing the work
 * ("self") and once on another ready player ("other"). A function marked
 * "Callback-safe: yes" must not return FPX_ERROR_IN_CALLBACK (nor
 * FPX_ERROR_INTERNAL); one marked "no" must return FPX_ERROR_IN_CALLBACK;
 * fpx_player_destroy works on the player whose event is being delivered and
 * returns FPX_ERROR_IN_CALLBACK everywhere else (log callback, wakeup, another
 * player). Afterwards the player must still seek and destroy (a deadlocked
 * worker fails here), all under the watchdog.
 *
 * Last, the reproduction of issue 18.1: a log callback that calls stats_get,
 * read_packet, seekable_range, step_frame and set_stream_enabled on every line
 * while the host runs 5 synchronous seeks: all 5 land, destroy returns.
 *
 * usage: test_callback_matrix FIXTURE_DIR
 */
#define _GNU_SOURCE
#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

enum { SAFE, UNSAFE, DESTROY };

typedef struct {
    fpx_player *p;
    int is_self;
} target;

typedef int (*call_fn)(target *t);

static const char *g_url; /* what open() attaches */

static void noop_seek_cb(const fpx_seek_outcome *o, void *u) { (void)o; (void)u; }
static void noop_live_cb(const fpx_seek_outcome *o, int e, void *u) { (void)o; (void)e; (void)u; }
static void noop_date_cb(const fpx_date_seek_result *r, void *u) { (void)r; (void)u; }
static void noop_scrub_cb(const fpx_scrub_result *r, void *u) { (void)r; (void)u; }

#define MAX_CREATED 64
static pthread_mutex_t created_mu = PTHREAD_MUTEX_INITIALIZER;
static fpx_player *created[MAX_CREATED];
static int n_created;

static int c_pure(target *t)
{
    fpx_ffmpeg_version_info v;
    fpx_time a = fpx_time_make(1, 2), b = fpx_time_from_seconds(0.25, 1000);
    fpx_listener l;
    fpx_player_config c;
    (void)t;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    if (fpx_version() == 0 || !fpx_version_string() || !fpx_error_string(-1) || !fpx_error_name(-1))
        return FPX_ERROR_INTERNAL;
    if (fpx_time_compare(fpx_time_subtract(a, b), fpx_time_make(1, 4)) != 0)
        return FPX_ERROR_INTERNAL;
    (void)fpx_time_to_seconds(a);
    (void)fpx_time_is_valid(fpx_time_invalid());
    (void)fpx_time_is_numeric(fpx_time_infinity(0));
    (void)fpx_precision_exact();
    (void)fpx_precision_nearest_keyframe(fpx_time_make(1, 10));
    (void)fpx_precision_default();
    fpx_listener_init(&l);
    fpx_player_config_init(&c);
    if (!fpx_frame_step_reason_explanation(1) || !fpx_date_seek_reason_explanation(1) || !fpx_finish_reason_name(0) ||
        !fpx_clamp_kind_name(0) || !fpx_landing_resolution_name(0) || !fpx_item_status_name(0))
        return FPX_ERROR_INTERNAL;
    return fpx_ffmpeg_versions(&v);
}
static void matrix_log(int level, const char *msg, void *u);
static int c_set_log(target *t)
{
    (void)t;
    return fpx_set_log_callback(FPX_LOG_TRACE, matrix_log, NULL);
}
static int c_create(target *t)
{
    fpx_player *p = NULL;
    int rc;
    (void)t;
    rc = fpx_player_create(NULL, &p);
    if (rc == FPX_OK) {
        pthread_mutex_lock(&created_mu);
        if (n_created < MAX_CREATED)
            created[n_created++] = p;
        pthread_mutex_unlock(&created_mu);
    }
    return rc;
}
static int c_item_status(target *t)
{
    fpx_item_status_info i = {.struct_size = sizeof i};
    return fpx_player_item_status(t->p, &i);
}
static int c_wait_item(target *t) { return fpx_player_wait_item(t->p, 1000, NULL); }
static int c_item_info(target *t)
{
    fpx_item_info i = {.struct_size = sizeof i};
    int rc = fpx_player_item_info(t->p, &i);
    return rc == FPX_ERROR_ITEM_NOT_READY || rc == FPX_ERROR_NO_ITEM ? FPX_OK : rc;
}
static int c_stream_info(target *t)
{
    fpx_stream_info i = {.struct_size = sizeof i};
    return fpx_player_stream_info(t->p, 0, &i);
}
static int c_range(target *t)
{
    fpx_time a, b;
    return fpx_player_seekable_range(t->p, &a, &b);
}
static int c_setup(target *t) { return fpx_player_setup_seek_manager(t->p); }
static int c_seek(target *t)
{
    return fpx_player_seek(t->p, fpx_time_make(1, 1), fpx_precision_exact(), noop_seek_cb, NULL, NULL);
}
static int c_seek_wait(target *t)
{
    fpx_seek_outcome o = {.struct_size = sizeof o};
    return fpx_player_seek_wait(t->p, fpx_time_make(1, 1), fpx_precision_exact(), 1000, &o);
}
static int c_cancel(target *t)
{
    uint64_t n;
    return fpx_player_cancel_pending_seeks(t->p, &n);
}
static int c_listeners(target *t)
{
    fpx_listener l;
    uint64_t id = 0;
    int rc;
    fpx_listener_init(&l);
    rc = fpx_player_add_listener(t->p, &l, &id);
    if (rc != FPX_OK)
        return rc;
    return fpx_player_remove_listener(t->p, id);
}
static int c_dispatch(target *t)
{
    int n;
    return fpx_player_dispatch_events(t->p, &n);
}
static int c_event_fd(target *t)
{
    int fd, rc = fpx_player_event_fd(t->p, &fd);
    return rc == FPX_ERROR_WRONG_MODE ? FPX_OK : rc;
}
static int c_read(target *t)
{
    fpx_packet k = {.struct_size = sizeof k};
    return fpx_player_read_packet(t->p, &k);
}
static int c_stats(target *t)
{
    fpx_player_stats s = {.struct_size = sizeof s};
    return fpx_player_stats_get(t->p, &s);
}
static int c_stream_enable(target *t) { return fpx_player_set_stream_enabled(t->p, 1, 1); }
static int c_scrub(target *t)
{
    fpx_scrub_session *s = NULL;
    fpx_scrub_state st;
    fpx_time th;
    int active, rc = fpx_player_scrub_session(t->p, &s);
    if (rc != FPX_OK)
        return rc;
    if ((rc = fpx_scrub_begin(s, fpx_time_make(1, 1))) != FPX_OK ||
        (rc = fpx_scrub_update(s, fpx_time_make(2, 1))) != FPX_OK ||
        (rc = fpx_scrub_get_state(s, &st, &active)) != FPX_OK ||
        (rc = fpx_scrub_set_position_throttle(s, fpx_time_make(0, 1))) != FPX_OK ||
        (rc = fpx_scrub_get_position_throttle(s, &th)) != FPX_OK ||
        (rc = fpx_scrub_end(s, fpx_time_make(2, 1), fpx_precision_exact(), noop_scrub_cb, NULL, NULL)) != FPX_OK)
        return rc;
    return fpx_scrub_cancel(s);
}
static int c_step(target *t)
{
    fpx_frame_step_result r = {.struct_size = sizeof r};
    return fpx_player_step_frame(t->p, FPX_STEP_FORWARD, 1, &r);
}
static int c_current_time(target *t)
{
    fpx_time x;
    return fpx_player_current_time(t->p, &x);
}
static int c_live_window(target *t)
{
    fpx_live_seek_window w = {.struct_size = sizeof w};
    return fpx_player_live_seek_window(t->p, &w);
}
static int c_live_edge(target *t) { return fpx_player_seek_to_live_edge(t->p, noop_live_cb, NULL, NULL); }
static int c_date(target *t)
{
    return fpx_player_seek_to_date(t->p, 0, fpx_precision_exact(), noop_date_cb, NULL, NULL);
}
static int c_open(target *t)
{
    if (!t->is_self)
        return FPX_OK; /* keeps the other player's item (and its worker quiet) */
    return fpx_player_open(t->p, g_url);
}
static int c_close(target *t)
{
    if (!t->is_self)
        return FPX_OK;
    return fpx_player_close_item(t->p);
}
static int c_destroy(target *t) { return fpx_player_destroy(t->p); }

typedef struct {
    const char *name;
    int kind;
    call_fn call;
} entry;

/* Destroy last: after it (from a delivery callback) the handle is gone. */
static const entry table[] = {
    {"pure functions (version, time, names, init)", SAFE, c_pure},
    {"fpx_set_log_callback", SAFE, c_set_log},
    {"fpx_player_create", SAFE, c_create},
    {"fpx_player_item_status", SAFE, c_item_status},
    {"fpx_player_wait_item", UNSAFE, c_wait_item},
    {"fpx_player_item_info", SAFE, c_item_info},
    {"fpx_player_stream_info", SAFE, c_stream_info},
    {"fpx_player_seekable_range", UNSAFE, c_range},
    {"fpx_player_setup_seek_manager", SAFE, c_setup},
    {"fpx_player_stats_get", SAFE, c_stats},
    {"fpx_player_event_fd", SAFE, c_event_fd},
    {"fpx_player_add/remove_listener", SAFE, c_listeners},
    {"fpx_player_live_seek_window", SAFE, c_live_window},
    {"fpx_player_seek_wait", UNSAFE, c_seek_wait},
    {"fpx_player_dispatch_events", UNSAFE, c_dispatch},
    {"fpx_player_read_packet", UNSAFE, c_read},
    {"fpx_player_set_stream_enabled", UNSAFE, c_stream_enable},
    {"fpx_player_step_frame", UNSAFE, c_step},
    {"fpx_player_current_time", UNSAFE, c_current_time},
    {"fpx_player_seek", SAFE, c_seek},
    {"fpx_player_seek_to_live_edge", SAFE, c_live_edge},
    {"fpx_player_seek_to_date", SAFE, c_date},
    {"fpx_player_scrub_session + fpx_scrub_*", SAFE, c_scrub},
    {"fpx_player_cancel_pending_seeks", SAFE, c_cancel},
    {"fpx_player_open", SAFE, c_open},
    {"fpx_player_close_item", SAFE, c_close},
    {"fpx_player_destroy", DESTROY, c_destroy},
};
#define N_ENTRIES ((int)(sizeof table / sizeof table[0]))

enum ctx {
    CTX_LOG_OPEN, CTX_LOG_READ, CTX_LOG_SEEK, CTX_LOG_SEEK_WAIT, CTX_LOG_INDEX, CTX_LOG_RELOAD,
    CTX_COMPLETION_THREAD, CTX_LISTENER_THREAD, CTX_COMPLETION_HOST, CTX_LISTENER_HOST, CTX_WAKEUP,
    N_CTX
};
static const char *ctx_name[N_CTX] = {
    "log/open", "log/read", "log/seek", "log/seek_wait", "log/index", "log/reload",
    "completion (thread)", "listener (thread)", "completion (host)", "listener (host)", "wakeup",
};
static int ctx_is_log(int c) { return c <= CTX_LOG_RELOAD; }

static int results[N_CTX][2][N_ENTRIES];
static volatile int done_ctx[N_CTX];
static int armed = -1;             /* the context to run the table in next (__atomic) */
static pthread_t armed_thread;        /* log/read, log/seek_wait: the host thread reading, seeking */
static fpx_player *g_self, *g_other; /* set before arm(), read after claim() */

/* Runs the table in context c (once). */
static void run_table(int c)
{
    int i, w;
    for (w = 1; w >= 0; w--) { /* other first: destroy(self) comes last */
        target t;
        t.p = w ? g_self : g_other;
        t.is_self = w;
        for (i = 0; i < N_ENTRIES; i++) {
            /* The self destroy from a delivery callback: last of all. */
            results[c][w][i] = table[i].call(&t);
        }
    }
    flag_set(&done_ctx[c], 1);
}

static int claim(int c)
{
    return __sync_bool_compare_and_swap(&armed, c, -1);
}

static void arm(int c) { __atomic_store_n(&armed, c, __ATOMIC_SEQ_CST); }

static int thread_named(const char *name)
{
    char buf[32] = "";
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    return strcmp(buf, name) == 0;
}

static void matrix_log(int level, const char *msg, void *u)
{
    int c = __atomic_load_n(&armed, __ATOMIC_SEQ_CST);
    (void)level; (void)msg; (void)u;
    if (c < 0 || !ctx_is_log(c))
        return;
    switch (c) {
    case CTX_LOG_OPEN: case CTX_LOG_SEEK:
        if (!thread_named("fpx-worker")) return;
        break;
    case CTX_LOG_READ: case CTX_LOG_SEEK_WAIT:
        if (!pthread_equal(pthread_self(), armed_thread)) return;
        break;
    case CTX_LOG_INDEX:
        if (!thread_named("fpx-index")) return;
        break;
    case CTX_LOG_RELOAD:
        /* Live reloads are jobs on the shared network pool (the player's own jobs are idle by now). */
        if (!thread_named("fpx-net")) return;
        break;
    }
    if (claim(c))
        run_table(c);
}

static void ctx_seek_cb(const fpx_seek_outcome *o, void *u)
{
    int c = (int)(intptr_t)u;
    (void)o;
    if (claim(c))
        run_table(c);
}
static void ctx_status_cb(const fpx_item_status_info *s, void *u)
{
    int c = (int)(intptr_t)u;
    (void)s;
    if (claim(c))
        run_table(c);
}
static void ctx_wakeup(void *u)
{
    (void)u;
    if (claim(CTX_WAKEUP))
        run_table(CTX_WAKEUP);
}

static fpx_player *new_player(fpx_delivery_mode mode, fpx_index_mode index, int wakeup)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.delivery = mode;
    cfg.index_mode = index;
    if (wakeup)
        cfg.wakeup = ctx_wakeup;
    if (fpx_player_create(&cfg, &p) != FPX_OK)
        return NULL;
    return p;
}

static int wait_done(int c, int seconds, fpx_player *host_dispatch)
{
    uint64_t end = now_ns() + (uint64_t)seconds * 1000000000ull;
    while (!flag_get(&done_ctx[c]) && now_ns() < end) {
        if (host_dispatch)
            fpx_player_dispatch_events(host_dispatch, NULL);
        sleep_ms(2);
    }
    return flag_get(&done_ctx[c]);
}

/* Checks one context's row and that `self` (unless destroyed) still works. */
static void verify(int c, int self_destroyed_ok)
{
    int w, i;
    char msg[256];
    snprintf(msg, sizeof msg, "the table ran in context %s", ctx_name[c]);
    if (!flag_get(&done_ctx[c])) {
        check_fail_(__FILE__, __LINE__, msg, "the callback never ran in that context");
        return;
    }
    for (w = 0; w < 2; w++)
        for (i = 0; i < N_ENTRIES; i++) {
            int rc = results[c][w][i], ok;
            char what[256];
            if (table[i].kind == SAFE)
                ok = rc != FPX_ERROR_IN_CALLBACK && rc != FPX_ERROR_INTERNAL;
            else if (table[i].kind == UNSAFE)
                ok = rc == FPX_ERROR_IN_CALLBACK;
            else
                ok = (w && self_destroyed_ok) ? rc == FPX_OK : rc == FPX_ERROR_IN_CALLBACK;
            snprintf(what, sizeof what, "%s: %s on %s -> %d (%s)", ctx_name[c], table[i].name,
                     w ? "self" : "other", rc, fpx_error_name(rc));
            if (ok)
                check_pass_();
            else
                check_fail_(__FILE__, __LINE__, what, NULL);
        }
}

/* After the context: the player seeks and is destroyed (a deadlock fails here). */
static void still_works(fpx_player *p, const char *url)
{
    fpx_seek_outcome o = {.struct_size = sizeof o};
    int rc;
    fpx_player_close_item(p);
    rc = open_wait(p, url, NULL);
    CHECK_OK(rc);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(2, 1), fpx_precision_exact(), 10000, &o));
    CHECK_OK(fpx_player_destroy(p));
}

/* ---- a tiny HTTP server on 127.0.0.1 serving one directory --------------------------------- */
static int srv_fd = -1;
static volatile int srv_stop;
static char srv_dir[1024];
static pthread_t srv_thread;

static void *srv_loop(void *arg)
{
    (void)arg;
    while (!flag_get(&srv_stop)) {
        char req[2048], path[2048], *sp, *ep;
        int c = accept(srv_fd, NULL, NULL);
        ssize_t n;
        FILE *f;
        if (c < 0)
            continue;
        n = recv(c, req, sizeof req - 1, 0);
        req[n > 0 ? n : 0] = 0;
        sp = strchr(req, ' ');
        ep = sp ? strchr(sp + 1, ' ') : NULL;
        if (sp && ep) {
            *ep = 0;
            snprintf(path, sizeof path, "%s%s", srv_dir, sp + 1);
            f = fopen(path, "rb");
            if (f) {
                char hdr[256], buf[65536];
                size_t k;
                long len;
                fseek(f, 0, SEEK_END);
                len = ftell(f);
                fseek(f, 0, SEEK_SET);
                snprintf(hdr, sizeof hdr, "HTTP/1.1 200 OK\r\nContent-Length: %ld\r\nConnection: close\r\n\r\n", len);
                (void)!send(c, hdr, strlen(hdr), MSG_NOSIGNAL);
                while ((k = fread(buf, 1, sizeof buf, f)) > 0)
                    if (send(c, buf, k, MSG_NOSIGNAL) < 0)
                        break;
                fclose(f);
            } else {
                const char *nf = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                (void)!send(c, nf, strlen(nf), MSG_NOSIGNAL);
            }
        }
        close(c);
    }
    return NULL;
}

static int srv_start(const char *dir)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int one = 1;
    snprintf(srv_dir, sizeof srv_dir, "%s", dir);
    srv_fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(srv_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(srv_fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(srv_fd, 16) != 0)
        return -1;
    getsockname(srv_fd, (struct sockaddr *)&a, &al);
    pthread_create(&srv_thread, NULL, srv_loop, NULL);
    return ntohs(a.sin_port);
}

static void srv_stop_join(void)
{
    flag_set(&srv_stop, 1);
    shutdown(srv_fd, SHUT_RDWR);
    close(srv_fd);
    pthread_join(srv_thread, NULL);
}

/* Writes dir/live.m3u8: vod.m3u8 without its end (a live playlist, reloaded). */
static int write_live(const char *dir)
{
    char in[1200], out[1200], line[1024];
    FILE *f, *g;
    snprintf(in, sizeof in, "%s/vod.m3u8", dir);
    snprintf(out, sizeof out, "%s/live.m3u8", dir);
    f = fopen(in, "r");
    g = fopen(out, "w");
    if (!f || !g)
        return 0;
    while (fgets(line, sizeof line, f))
        if (!strstr(line, "ENDLIST") && !strstr(line, "PLAYLIST-TYPE"))
            fputs(line, g);
    fclose(f);
    fclose(g);
    return 1;
}

/* ---- the reproduction of issue 18.1 ------------------------------------------------------ */
static fpx_player *repro_p; /* __atomic */
static int repro_calls;
static void repro_log(int level, const char *msg, void *u)
{
    fpx_player *p = __atomic_load_n(&repro_p, __ATOMIC_SEQ_CST);
    fpx_player_stats s = {.struct_size = sizeof s};
    fpx_packet k = {.struct_size = sizeof k};
    fpx_time a, b;
    fpx_frame_step_result r = {.struct_size = sizeof r};
    (void)level; (void)msg; (void)u;
    if (!p)
        return;
    if (fpx_player_stats_get(p, &s) != FPX_OK)
        check_fail_(__FILE__, __LINE__, "stats_get from the log callback", NULL);
    if (fpx_player_read_packet(p, &k) != FPX_ERROR_IN_CALLBACK ||
        fpx_player_seekable_range(p, &a, &b) != FPX_ERROR_IN_CALLBACK ||
        fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r) != FPX_ERROR_IN_CALLBACK ||
        fpx_player_set_stream_enabled(p, 1, 0) != FPX_ERROR_IN_CALLBACK)
        check_fail_(__FILE__, __LINE__, "a blocking call from the log callback did not return IN_CALLBACK", NULL);
    __sync_fetch_and_add(&repro_calls, 1);
}

static void repro(void)
{
    int i, ok = 0;
    fpx_player *p;
    SECTION("issue 18.1: a log callback calling stats_get and the blocking calls; 5 seeks land");
    p = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
    REQUIRE(p != NULL);
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    __atomic_store_n(&repro_p, p, __ATOMIC_SEQ_CST);
    CHECK_OK(fpx_set_log_callback(FPX_LOG_TRACE, repro_log, NULL));
    for (i = 0; i < 5; i++) {
        fpx_seek_outcome o = {.struct_size = sizeof o};
        fpx_packet k = {.struct_size = sizeof k};
        if (fpx_player_seek_wait(p, fpx_time_make(1 + i, 1), fpx_precision_exact(), 10000, &o) == FPX_OK &&
            o.reason == FPX_FINISH_COMPLETED)
            ok++;
        CHECK_OK(fpx_player_read_packet(p, &k));
    }
    CHECK_EQ(ok, 5);
    CHECK(__atomic_load_n(&repro_calls, __ATOMIC_SEQ_CST) > 0);
    __atomic_store_n(&repro_p, NULL, __ATOMIC_SEQ_CST);
    CHECK_OK(fpx_set_log_callback(FPX_LOG_QUIET, NULL, NULL));
    CHECK_OK(fpx_player_destroy(p));
}

int main(int argc, char **argv)
{
    fpx_player *self;
    fpx_listener l;
    char dir[1024], url[1200];
    int c, i, port;
    const char *mp4;
    check_init(argc, argv, 400);
    mp4 = fixture("mp4_bframes.mp4");
    g_url = mp4;

    repro();

    g_other = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
    REQUIRE(g_other != NULL);
    REQUIRE(open_wait(g_other, fixture("mkv.mkv"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(g_other));
    CHECK_OK(fpx_set_log_callback(FPX_LOG_TRACE, matrix_log, NULL));

    SECTION("log callback inside an open (worker)");
    self = g_self = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
    REQUIRE(self != NULL);
    arm(CTX_LOG_OPEN);
    CHECK_OK(fpx_player_open(self, mp4));
    wait_done(CTX_LOG_OPEN, 30, NULL);
    verify(CTX_LOG_OPEN, 0);
    still_works(self, mp4);

    SECTION("log callback inside a seek (worker, engine lock held)");
    self = g_self = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
    REQUIRE(open_wait(self, mp4, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(self));
    arm(CTX_LOG_SEEK);
    for (i = 0; i < 20 && !flag_get(&done_ctx[CTX_LOG_SEEK]); i++) {
        fpx_seek_outcome o = {.struct_size = sizeof o};
        /* A seek queued first: the seek_wait's seek goes to the worker too (an idle player's
           would land on this thread: log/seek_wait below). */
        fpx_player_seek(self, fpx_time_make(3 + i % 5, 1), fpx_precision_exact(), NULL, NULL, NULL);
        fpx_player_seek_wait(self, fpx_time_make(3 + i % 5, 1), fpx_precision_exact(), 10000, &o);
    }
    wait_done(CTX_LOG_SEEK, 10, NULL);
    arm(-1);
    verify(CTX_LOG_SEEK, 0);
    still_works(self, mp4);

    SECTION("log callback inside seek_wait landing on the host thread (engine lock held)");
    self = g_self = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
    REQUIRE(open_wait(self, mp4, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(self));
    armed_thread = pthread_self();
    arm(CTX_LOG_SEEK_WAIT);
    for (i = 0; i < 20 && !flag_get(&done_ctx[CTX_LOG_SEEK_WAIT]); i++) {
        fpx_seek_outcome o = {.struct_size = sizeof o};
        fpx_player_seek_wait(self, fpx_time_make(3 + i % 5, 1), fpx_precision_exact(), 10000, &o);
    }
    arm(-1);
    verify(CTX_LOG_SEEK_WAIT, 0);
    still_works(self, mp4);

    SECTION("log callback inside read_packet (host thread, engine lock held)");
    self = g_self = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
    REQUIRE(open_wait(self, mp4, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(self));
    armed_thread = pthread_self();
    arm(CTX_LOG_READ);
    for (i = 0; i < 2000 && !flag_get(&done_ctx[CTX_LOG_READ]); i++) {
        fpx_packet k = {.struct_size = sizeof k};
        int rc = fpx_player_read_packet(self, &k);
        if (rc == FPX_ERROR_EOF)
            break;
    }
    arm(-1);
    verify(CTX_LOG_READ, 0);
    still_works(self, mp4);

    SECTION("log callback on the FULL index thread");
    self = g_self = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_FULL, 0);
    arm(CTX_LOG_INDEX);
    {
        /* 30 s, as the index wait below: the sanitizer builds are slow on a loaded machine.
           On failure, say what the wait returned and what the item's status was. */
        fpx_item_status_info st = {.struct_size = sizeof st};
        int rc = fpx_player_open(self, mp4);
        if (rc == FPX_OK)
            rc = fpx_player_wait_item(self, 30000, &st);
        /* The index starts with the open and may log before the wait returns: the table
           then runs on the index thread, and its fpx_player_open and fpx_player_close_item
           replace and close this item (callback-safe calls doing what they say), so the wait
           may see no item. Only then is a failed wait no failure. */
        if (rc != FPX_OK && __atomic_load_n(&armed, __ATOMIC_SEQ_CST) != CTX_LOG_INDEX) {
            NOTE("the table ran on the index thread before the open's wait returned (%s)", fpx_error_name(rc));
            rc = FPX_OK;
        }
        if (rc != FPX_OK)
            fprintf(stderr, "    open with the FULL index: %s, item status %s, error %s, av_error %d\n",
                    fpx_error_name(rc), fpx_item_status_name(st.status), fpx_error_name(st.error), st.av_error);
        REQUIRE(rc == FPX_OK);
    }
    wait_done(CTX_LOG_INDEX, 30, NULL);
    arm(-1);
    verify(CTX_LOG_INDEX, 0);
    still_works(self, mp4);

    SECTION("log callback on the HLS reload thread (live playlist over 127.0.0.1)");
    if (!make_hls_vod(dir, sizeof dir, "cbmatrix", 6) || !write_live(dir)) {
        CHECK(!"ffmpeg could not write the HLS playlist");
    } else {
        port = srv_start(dir);
        REQUIRE(port > 0);
        snprintf(url, sizeof url, "http://127.0.0.1:%d/live.m3u8", port);
        g_url = url;
        self = g_self = new_player(FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES, 0);
        REQUIRE(open_wait(self, url, NULL) == FPX_OK);
        arm(CTX_LOG_RELOAD);
        wait_done(CTX_LOG_RELOAD, 30, NULL);
        arm(-1);
        verify(CTX_LOG_RELOAD, 0);
        still_works(self, url);
        g_url = mp4;
        srv_stop_join();
        {
            char cmd[1200];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            (void)!system(cmd);
        }
    }
    CHECK_OK(fpx_set_log_callback(FPX_LOG_QUIET, NULL, NULL));

    for (c = CTX_COMPLETION_THREAD; c <= CTX_WAKEUP; c++) {
        int host = c == CTX_COMPLETION_HOST || c == CTX_LISTENER_HOST || c == CTX_WAKEUP;
        SECTION(ctx_name[c]);
        self = g_self = new_player(host ? FPX_DELIVERY_HOST : FPX_DELIVERY_THREAD, FPX_INDEX_KEYFRAMES,
                                   c == CTX_WAKEUP);
        REQUIRE(self != NULL);
        if (c == CTX_LISTENER_THREAD || c == CTX_LISTENER_HOST) {
            fpx_listener_init(&l);
            l.on_item_status = ctx_status_cb;
            l.userdata = (void *)(intptr_t)c;
            CHECK_OK(fpx_player_add_listener(self, &l, NULL));
        }
        arm(c);
        if (c == CTX_WAKEUP) {
            CHECK_OK(fpx_player_open(self, mp4));
            wait_done(c, 10, NULL);
        } else if (c == CTX_LISTENER_THREAD || c == CTX_LISTENER_HOST) {
            CHECK_OK(fpx_player_open(self, mp4)); /* LOADING reaches on_item_status */
            wait_done(c, 10, host ? self : NULL);
        } else {
            CHECK_OK(fpx_player_open(self, mp4));
            CHECK_EQ(fpx_player_wait_item(self, 10000, NULL), FPX_OK);
            CHECK_OK(fpx_player_setup_seek_manager(self));
            if (c == CTX_COMPLETION_THREAD || c == CTX_COMPLETION_HOST)
                CHECK_OK(fpx_player_seek(self, fpx_time_make(1, 1), fpx_precision_exact(), ctx_seek_cb,
                                         (void *)(intptr_t)c, NULL));
            wait_done(c, 10, host ? self : NULL);
        }
        arm(-1);
        verify(c, c != CTX_WAKEUP);
        if (c == CTX_WAKEUP) {
            fpx_player_dispatch_events(self, NULL);
            still_works(self, mp4);
        } else {
            /* destroyed from inside its own callback: the handle is gone */
            CHECK_ERR(fpx_player_destroy(self), FPX_ERROR_INVALID_HANDLE);
        }
    }

    SECTION("the other player and the players created from callbacks still work");
    {
        fpx_seek_outcome o = {.struct_size = sizeof o};
        CHECK_OK(fpx_player_seek_wait(g_other, fpx_time_make(1, 1), fpx_precision_exact(), 10000, &o));
        CHECK_OK(fpx_player_destroy(g_other));
        pthread_mutex_lock(&created_mu);
        for (i = 0; i < n_created; i++)
            CHECK_OK(fpx_player_destroy(created[i]));
        n_created = 0;
        pthread_mutex_unlock(&created_mu);
    }
    return check_summary();
}
