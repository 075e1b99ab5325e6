/* One check per lifetime sentence of seek.h, section 5 ("Ownership and
 * lifetimes"). Meant to run under AddressSanitizer too (make test-asan), where
 * a pointer used past its promised lifetime is a heap-use-after-free report;
 * without ASan the byte comparisons catch most of the same.
 *
 *  1. handles: a destroyed handle gives FPX_ERROR_INVALID_HANDLE, twice;
 *  2. input pointers are borrowed: a url freed right after fpx_player_open;
 *  3. event payloads: explanation strings are static (read after destroy);
 *  4. userdata / destroy_notify: exactly once, after the last callback;
 *  5. packets belong to the player: seeks (HLS: a 20-segment VOD playlist,
 *     whose segment engines the seeks evict), steps, close_item and open of
 *     another item leave the bytes intact until the next read;
 *  6. item facts: format_name, codec_name, extradata and codecpar survive
 *     another thread's open and close_item, until destroy;
 *  7. every seek gets exactly one completion, also through destroy;
 *  8. destroy: no callback runs after it returns.
 * Usage: test_lifetimes FIXTURE_DIR */
#include "check.h"

#include <sys/stat.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- 1 ---------------------------------------------------------------- */
static void handles(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_status_info st = {.struct_size = sizeof st};
    SECTION("1. a destroyed handle is refused, never dereferenced");
    REQUIRE(p != NULL);
    CHECK_OK(fpx_player_destroy(p));
    CHECK_ERR(fpx_player_destroy(p), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_item_status(p, &st), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_open(p, fixture("mp4_bframes.mp4")), FPX_ERROR_INVALID_HANDLE);
}

/* ---- 2 ---------------------------------------------------------------- */
static void borrowed_inputs(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    const char *path = fixture("mp4_bframes.mp4");
    char *url = malloc(strlen(path) + 1);
    fpx_listener *l = malloc(sizeof *l);
    SECTION("2. input pointers are borrowed for the call only");
    REQUIRE(url != NULL && l != NULL);
    strcpy(url, path);
    CHECK_OK(fpx_player_open(p, url));
    memset(url, 'x', strlen(url));
    free(url);
    fpx_listener_init(l);
    CHECK_OK(fpx_player_add_listener(p, l, NULL));
    memset(l, 0xEE, sizeof *l);
    free(l);
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_destroy(p));
}

/* ---- 3, 4, 7, 8 ------------------------------------------------------- */
typedef struct evlog {
    const char *clamp_expl;
    const char *step_expl;
    int notifies;
    int completions;
    int after_destroy;
    volatile int destroyed;
} evlog;

static void on_clamped(const fpx_clamp *c, uint64_t id, void *ud)
{
    evlog *e = ud;
    (void)id;
    pthread_mutex_lock(&mu);
    e->clamp_expl = c->explanation;
    if (e->destroyed)
        e->after_destroy++;
    pthread_mutex_unlock(&mu);
}

static void on_step(const fpx_frame_step_result *r, void *ud)
{
    evlog *e = ud;
    pthread_mutex_lock(&mu);
    e->step_expl = r->explanation;
    if (e->destroyed)
        e->after_destroy++;
    pthread_mutex_unlock(&mu);
}

static void on_notify(void *ud)
{
    evlog *e = ud;
    pthread_mutex_lock(&mu);
    e->notifies++;
    if (e->destroyed)
        e->after_destroy++;
    pthread_mutex_unlock(&mu);
}

static void on_done(const fpx_seek_outcome *o, void *ud)
{
    evlog *e = ud;
    (void)o;
    pthread_mutex_lock(&mu);
    e->completions++;
    if (e->destroyed)
        e->after_destroy++;
    pthread_mutex_unlock(&mu);
}

static void events(void)
{
    evlog e;
    fpx_listener l;
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_frame_step_result r = {.struct_size = sizeof r};
    int i;
    memset(&e, 0, sizeof e);
    SECTION("3/4/7/8. static explanations, destroy_notify once, one completion each, nothing after destroy");
    fpx_listener_init(&l);
    l.userdata = &e;
    l.on_seek_clamped = on_clamped;
    l.on_frame_step = on_step;
    l.destroy_notify = on_notify;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_seek(p, fpx_time_make(1000, 1), fpx_precision_exact(), on_done, &e, NULL));
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 1, &r));
    for (i = 0; i < 2000; i++) {
        int got;
        pthread_mutex_lock(&mu);
        got = e.clamp_expl != NULL && e.step_expl != NULL;
        pthread_mutex_unlock(&mu);
        if (got)
            break;
        sleep_ms(5);
    }
    for (i = 0; i < 50; i++)
        CHECK_OK(fpx_player_seek(p, fpx_time_make(i, 10), fpx_precision_exact(), on_done, &e, NULL));
    CHECK_OK(fpx_player_destroy(p));
    pthread_mutex_lock(&mu);
    e.destroyed = 1;
    pthread_mutex_unlock(&mu);
    sleep_ms(200);
    pthread_mutex_lock(&mu);
    CHECK_EQ(e.completions, 51);
    CHECK_EQ(e.notifies, 1);
    CHECK_EQ(e.after_destroy, 0);
    /* 3: the pointers kept from inside the callbacks are static */
    CHECK(e.clamp_expl != NULL && strlen(e.clamp_expl) > 10);
    CHECK(e.step_expl != NULL && strlen(e.step_expl) > 5);
    pthread_mutex_unlock(&mu);
}

/* ---- 5 ---------------------------------------------------------------- */
typedef struct held {
    const uint8_t *data;
    size_t size;
    uint8_t *copy;
} held;

static void hold(held *h, const fpx_packet *pk)
{
    h->data = pk->data;
    h->size = pk->size;
    h->copy = malloc(pk->size ? pk->size : 1);
    if (h->copy)
        memcpy(h->copy, pk->data, pk->size);
}

static int intact(held *h)
{
    int ok = h->copy && memcmp(h->data, h->copy, h->size) == 0;
    free(h->copy);
    h->copy = NULL;
    return ok;
}

static void seek_wait(fpx_player *p, double seconds)
{
    fpx_seek_outcome o;
    volatile int done = 0;
    (void)o;
    CHECK_OK(fpx_player_seek(p, fpx_time_from_seconds(seconds, 1000), fpx_precision_exact(), NULL, NULL, NULL));
    /* read_packet waits for pending seeks; current_time too once settled */
    (void)done;
    sleep_ms(1);
}

static void remove_dir(const char *dir)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        NOTE("could not remove %s", dir);
}

static void packets_file(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_packet pk = {.struct_size = sizeof pk};
    fpx_frame_step_result r = {.struct_size = sizeof r};
    fpx_time t;
    held h;
    SECTION("5. a packet survives seeks, steps, close_item and another open until the next read");
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_read_packet(p, &pk));
    hold(&h, &pk);
    seek_wait(p, 3.0);
    CHECK_OK(fpx_player_current_time(p, &t));
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 2, &r));
    seek_wait(p, 0.5);
    CHECK_OK(fpx_player_current_time(p, &t));
    CHECK(intact(&h));
    CHECK_OK(fpx_player_read_packet(p, &pk));
    hold(&h, &pk);
    CHECK_OK(fpx_player_close_item(p));
    CHECK(intact(&h));
    CHECK_OK(fpx_player_read_packet(p, &pk) == FPX_ERROR_NO_ITEM ? FPX_OK : -1);
    REQUIRE(open_wait(p, fixture("mkv.mkv"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_read_packet(p, &pk));
    hold(&h, &pk);
    REQUIRE(open_wait(p, fixture("ts.ts"), NULL) == FPX_OK);
    CHECK(intact(&h));
    CHECK_OK(fpx_player_destroy(p));
}

static void packets_hls(void)
{
    char dir[1024], url[1200];
    fpx_player *p;
    fpx_packet pk = {.struct_size = sizeof pk};
    fpx_time t;
    held h;
    SECTION("5. HLS: seeks that evict segment engines do not free the host's packet");
    if (!make_hls_vod(dir, sizeof dir, "lifetimes", 20)) {
        CHECK(!"ffmpeg could not write the 20-segment VOD playlist");
        return;
    }
    snprintf(url, sizeof url, "%s/vod.m3u8", dir);
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(open_wait(p, url, NULL) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_read_packet(p, &pk));
    hold(&h, &pk);
    seek_wait(p, 5.0);
    CHECK_OK(fpx_player_current_time(p, &t));
    seek_wait(p, 10.0);
    CHECK_OK(fpx_player_current_time(p, &t));
    seek_wait(p, 15.0);
    CHECK_OK(fpx_player_current_time(p, &t));
    /* current_time does not wait for seeks: make sure the three landed */
    {
        fpx_player_stats st = {.struct_size = sizeof st};
        int i;
        for (i = 0; i < 2000; i++) {
            CHECK_OK(fpx_player_stats_get(p, &st));
            if (st.seeks_completed + st.seeks_superseded >= 3)
                break;
            sleep_ms(5);
        }
        CHECK_EQ(st.seeks_completed + st.seeks_superseded, 3);
    }
    CHECK(intact(&h));
    CHECK_OK(fpx_player_destroy(p));
    remove_dir(dir);
}

/* ---- 6 ---------------------------------------------------------------- */
static volatile int churn_stop;
static void *churn(void *arg)
{
    fpx_player *p = arg;
    int i = 0;
    while (!flag_get(&churn_stop)) {
        fpx_player_open(p, fixture(i % 2 ? "mkv.mkv" : "ts.ts"));
        fpx_player_wait_item(p, 5000, NULL);
        if (i % 3 == 0)
            fpx_player_close_item(p);
        i++;
    }
    return NULL;
}

static void item_facts(void)
{
    fpx_player *p = make_player(FPX_DELIVERY_THREAD);
    fpx_item_info ii = {.struct_size = sizeof ii};
    fpx_stream_info si = {.struct_size = sizeof si};
    char fmt[64], codec[64];
    uint8_t *extra = NULL, par[16];
    size_t extra_n;
    pthread_t th;
    int i, reads = 0;
    SECTION("6. item facts survive another thread's open and close_item, until destroy");
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), NULL) == FPX_OK);
    CHECK_OK(fpx_player_item_info(p, &ii));
    CHECK_OK(fpx_player_stream_info(p, ii.reference_stream, &si));
    REQUIRE(si.extradata != NULL && si.extradata_size > 0 && si.codecpar != NULL);
    snprintf(fmt, sizeof fmt, "%s", ii.format_name);
    snprintf(codec, sizeof codec, "%s", si.codec_name);
    extra_n = si.extradata_size;
    extra = malloc(extra_n);
    REQUIRE(extra != NULL);
    memcpy(extra, si.extradata, extra_n);
    memcpy(par, si.codecpar, sizeof par);
    flag_set(&churn_stop, 0);
    pthread_create(&th, NULL, churn, p);
    for (i = 0; i < 200; i++) {
        fpx_stream_info s2 = {.struct_size = sizeof s2};
        fpx_item_info i2 = {.struct_size = sizeof i2};
        /* the facts handed out before the churn */
        if (strcmp(fmt, ii.format_name) != 0 || strcmp(codec, si.codec_name) != 0 ||
            memcmp(extra, si.extradata, extra_n) != 0 || memcmp(par, si.codecpar, sizeof par) != 0) {
            CHECK(!"item facts changed under another thread's open");
            break;
        }
        /* and the facts of whatever item is current now, read while it changes */
        if (fpx_player_item_info(p, &i2) == FPX_OK &&
            fpx_player_stream_info(p, i2.reference_stream, &s2) == FPX_OK) {
            volatile uint8_t sink = 0;
            size_t k;
            for (k = 0; k < s2.extradata_size; k++)
                sink ^= s2.extradata[k];
            (void)sink;
            CHECK(strlen(i2.format_name) > 0);
            reads++;
        }
        sleep_ms(2);
    }
    flag_set(&churn_stop, 1);
    pthread_join(th, NULL);
    CHECK(memcmp(extra, si.extradata, extra_n) == 0);
    NOTE("%d reads of the current item's facts during the churn", reads);
    CHECK_OK(fpx_player_destroy(p));
    free(extra);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 115);
    handles();
    borrowed_inputs();
    events();
    packets_file();
    packets_hls();
    item_facts();
    return check_summary();
}
