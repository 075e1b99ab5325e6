/*
 * test_preview.c -- seek previews (seek.h, "Seek previews"; issue 30.3), from a C host:
 *
 *   - no source: FPX_ERROR_NO_PREVIEW; a spritesheet.json and a WebVTT track (written here)
 *     give the tile of the last start at or before t, exactly at a start, a tick before,
 *     between, clamped before and after the range, and a JSON start read to the microsecond
 *     below it (a time exactly at 1001/24000 s gets the tile whose JSON start is its decimal);
 *   - every fpx_preview_field of a malformed source, FPX_ERROR_TOO_LARGE, the protocol
 *     policy (a local source the host did not allow, images a remote source may not name),
 *     FPX_ERROR_UNSUPPORTED (a directory), NOT_FOUND, NETWORK (a refused port), TIMEOUT (a
 *     server that never answers), CANCELLED (destroy while a source loads);
 *   - the keyframe index: the keyframe at or before t (ffprobe's keyframe list), FPX_ERROR_NO_ITEM,
 *     ITEM_NOT_READY (an open stalled on a server), ITEM_FAILED; HLS I-frames: NO_PREVIEW for
 *     an I-frame playlist of an MPEG-TS item (written here, byte ranges from ffprobe):
 *     ffprobe's keyframe at or before t; NO_PREVIEW for an item without an I-frame variant,
 *     the policy on the host's I-frame playlist (Shaka Packager's fMP4 playlists, and a
 *     master's I-frame variant: Tests/python/test_preview.py);
 *   - the lifetimes: image_url valid until the next fpx_player_set_preview_source, data
 *     until the next fpx_player_preview (seeks and reads in between), *preview untouched
 *     on error, *bad_field set on every return, no source after any error;
 *   - threads: a preview returns while the player's open is stalled on a server (its
 *     worker busy), and a seek completes while a preview source is stalled on a server.
 * Servers: on 127.0.0.1, started and stopped here.
 *
 * usage: test_preview FIXTURE_DIR
 */
#include "check.h"
#include "loopback_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[4096];

static void write_file(const char *name, const char *text, size_t pad)
{
    char path[4200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs(text, f);
    while (pad--)
        fputc(' ', f);
    fclose(f);
}

static const char *path_of(const char *name)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static int set_sheet(fpx_player *p, fpx_preview_kind kind, const char *name, fpx_preview_field *field)
{
    return fpx_player_set_preview_source(p, kind, path_of(name), field);
}

static fpx_preview preview_at(fpx_player *p, fpx_time t, int *rc)
{
    fpx_preview v;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    *rc = fpx_player_preview(p, t, &v);
    return v;
}

/* A port nothing listens on (bound, then closed). */
static int refused_port(void)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    REQUIRE(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static fpx_player *player_with(const char *protocols, int64_t io_timeout_ms, int64_t max_buffer)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_THREAD;
    if (protocols)
        cfg.protocol_whitelist = protocols;
    if (io_timeout_ms)
        cfg.io_timeout_ms = io_timeout_ms;
    if (max_buffer)
        cfg.max_buffer_bytes = max_buffer;
    REQUIRE(fpx_player_create(&cfg, &p) == FPX_OK);
    REQUIRE(fpx_player_setup_seek_manager(p) == FPX_OK);
    return p;
}

struct previewer {
    fpx_player *p;
    int rc, done, entering;
};

static void *preview_main(void *arg)
{
    struct previewer *w = arg;
    fpx_preview v;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    flag_set(&w->entering, 1);
    w->rc = fpx_player_preview(w->p, fpx_time_make(1, 1), &v);
    flag_set(&w->done, 1);
    return NULL;
}

struct loader {
    fpx_player *p;
    char url[256];
    int rc, done;
};

static void *load_main(void *arg)
{
    struct loader *l = arg;
    l->rc = fpx_player_set_preview_source(l->p, FPX_PREVIEW_SPRITESHEET, l->url, NULL);
    flag_set(&l->done, 1);
    return NULL;
}

/* The last keyframe pts at or before `ticks` in ffprobe's packet list of FILE's stream 0. */
static long long ffprobe_keyframe_at_or_before(const char *file, long long ticks)
{
    char cmd[8400], line[256];
    long long best = FPX_NOPTS;
    FILE *f;
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -select_streams v:0 -show_entries packet=pts,flags -of csv=p=0 '%s'", file);
    f = popen(cmd, "r");
    REQUIRE(f != NULL);
    while (fgets(line, sizeof line, f)) {
        long long pts;
        char flags[64];
        if (sscanf(line, "%lld,%63s", &pts, flags) == 2 && flags[0] == 'K' && pts <= ticks &&
            (best == (long long)FPX_NOPTS || pts > best))
            best = pts;
    }
    pclose(f);
    return best;
}

static const char *SHEET =
    "{\"url\":\"img/sprite.jpg\",\"tile_width\":160,\"tile_height\":90,\"duration\":10,"
    "\"tiles\":[{\"start\":0,\"x\":0,\"y\":0},{\"start\":0.041708333333333333,\"x\":160,\"y\":0},"
    "{\"start\":1.5,\"x\":320,\"y\":0},{\"start\":3e0,\"x\":0,\"y\":90,\"url\":\"second.jpg\"}]}";

int main(int argc, char **argv)
{
    fpx_player *p;
    fpx_preview v, keep;
    fpx_preview_field field;
    int rc;
    check_init(argc, argv, 110);
    snprintf(dir, sizeof dir, "%s/fpx-preview-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    REQUIRE(mkdtemp(dir) != NULL);
    write_file("s.json", SHEET, 0);

    SECTION("no source: FPX_ERROR_NO_PREVIEW; bad handles, times and structs");
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    v = preview_at(p, fpx_time_make(1, 1), &rc);
    CHECK_EQ(rc, FPX_ERROR_NO_PREVIEW);
    CHECK_OK(fpx_player_set_preview_source(p, FPX_PREVIEW_NONE, NULL, NULL));
    v = preview_at(p, fpx_time_make(1, 1), &rc);
    CHECK_EQ(rc, FPX_ERROR_NO_PREVIEW);
    CHECK_ERR(fpx_player_set_preview_source(NULL, FPX_PREVIEW_NONE, NULL, NULL), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_preview(NULL, fpx_time_make(1, 1), &v), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_set_preview_source(p, (fpx_preview_kind)99, NULL, NULL), FPX_ERROR_UNKNOWN_ENUM);
    CHECK_ERR(fpx_player_set_preview_source(p, FPX_PREVIEW_SPRITESHEET, NULL, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_set_preview_source(p, FPX_PREVIEW_KEYFRAME_INDEX, "x", NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_set_preview_source(p, FPX_PREVIEW_NONE, "x", NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(set_sheet(p, FPX_PREVIEW_SPRITESHEET, "s.json", NULL));
    CHECK_ERR(fpx_player_preview(p, fpx_time_make(1, 1), NULL), FPX_ERROR_INVALID_ARGUMENT);
    {
        unsigned char raw[sizeof(fpx_preview)];
        size_t n;
        for (n = 1; n < sizeof(size_t); n++) {
            memset(raw, 0xAB, sizeof raw);
            memcpy(raw, &n, sizeof n);
            CHECK_ERR(fpx_player_preview(p, fpx_time_make(1, 1), (fpx_preview *)(void *)raw), FPX_ERROR_INVALID_ARGUMENT);
        }
    }
    /* "*preview is untouched on error" */
    memset(&v, 0x5A, sizeof v);
    v.struct_size = sizeof v;
    keep = v;
    CHECK_ERR(fpx_player_preview(p, fpx_time_make(1, 0), &v), FPX_ERROR_INVALID_TIME);
    CHECK(memcmp(&v, &keep, sizeof v) == 0);
    CHECK_ERR(fpx_player_preview(p, fpx_time_invalid(), &v), FPX_ERROR_INVALID_TIME);
    CHECK_ERR(fpx_player_preview(p, fpx_time_infinity(1), &v), FPX_ERROR_INVALID_TIME);
    CHECK(memcmp(&v, &keep, sizeof v) == 0);

    SECTION("spritesheet.json: the last start at or before t, clamps, image URLs");
    {
        const char *img = NULL;
        fpx_time tick = fpx_time_make(1, 90000);
        v = preview_at(p, fpx_time_make(0, 1), &rc);
        CHECK_OK(rc);
        CHECK_EQ(v.kind, FPX_PREVIEW_SPRITESHEET);
        CHECK_EQ(v.clamp, FPX_CLAMP_NONE);
        CHECK_EQ(v.x, 0);
        CHECK_EQ(v.width, 160);
        CHECK_EQ(v.height, 90);
        CHECK_EQ(v.stream_index, -1);
        CHECK(v.data == NULL);
        CHECK_EQ(v.pts, (long long)FPX_NOPTS);
        CHECK_STR(v.image_url, path_of("img/sprite.jpg"));
        img = v.image_url;
        /* 1001/24000 s: its JSON decimal 0.041708333... is read as 41708 us, at or before it */
        v = preview_at(p, fpx_time_make(1001, 24000), &rc);
        CHECK_OK(rc);
        CHECK_EQ(v.x, 160);
        CHECK_TIME_EQ(v.start, fpx_time_make(41708, 1000000));
        v = preview_at(p, fpx_time_make(41707, 1000000), &rc);
        CHECK_EQ(v.x, 0);
        v = preview_at(p, fpx_time_make(3, 2), &rc); /* exactly at a start */
        CHECK_EQ(v.x, 320);
        CHECK_TIME_EQ(v.start, fpx_time_make(3, 2));
        CHECK_TIME_EQ(v.end, fpx_time_make(3, 1));
        v = preview_at(p, fpx_time_subtract(fpx_time_make(3, 2), tick), &rc); /* a tick before */
        CHECK_EQ(v.x, 160);
        v = preview_at(p, fpx_time_make(9, 4), &rc); /* between */
        CHECK_EQ(v.x, 320);
        CHECK_TIME_EQ(v.requested_time, fpx_time_make(9, 4));
        CHECK_TIME_EQ(v.time, fpx_time_make(9, 4));
        v = preview_at(p, fpx_time_make(7, 1), &rc); /* the last tile, with its own url */
        CHECK_EQ(v.y, 90);
        CHECK_STR(v.image_url, path_of("second.jpg"));
        CHECK_TIME_EQ(v.end, fpx_time_make(10, 1));
        v = preview_at(p, fpx_time_make(11, 1), &rc); /* past the end: clamped */
        CHECK_OK(rc);
        CHECK_EQ(v.clamp, FPX_CLAMP_TO_SEEKABLE_END);
        CHECK_TIME_EQ(v.time, fpx_time_make(10, 1));
        CHECK_EQ(v.y, 90);
        v = preview_at(p, fpx_time_make(-1, 1), &rc);
        CHECK_EQ(v.clamp, FPX_CLAMP_TO_SEEKABLE_START);
        CHECK_TIME_EQ(v.time, fpx_time_make(0, 1));
        CHECK_EQ(v.x, 0);
        /* image_url stays valid (and the same) across previews until the next source */
        CHECK_STR(img, path_of("img/sprite.jpg"));
    }

    SECTION("smaller struct_size: only the prefix is written");
    {
        unsigned char raw[sizeof(fpx_preview) + 16];
        size_t n = offsetof(fpx_preview, image_url), i;
        int clean = 1;
        memset(raw, 0xEE, sizeof raw);
        memcpy(raw, &n, sizeof n);
        CHECK_OK(fpx_player_preview(p, fpx_time_make(2, 1), (fpx_preview *)(void *)raw));
        for (i = n; i < sizeof raw; i++)
            clean &= raw[i] == 0xEE;
        CHECK(clean);
        CHECK_EQ(((fpx_preview *)(void *)raw)->struct_size, (long long)n);
    }

    SECTION("WebVTT: cues, the same rule; ids, notes, hours");
    write_file("t.vtt",
               "WEBVTT\n\nNOTE made here\n\n00:00.000 --> 00:01.500\nsprite.jpg#xywh=0,0,160,90\n\n"
               "id-2\n00:00:01.500 --> 00:00:03.000\nsprite.jpg#xywh=160,0,160,90\n\n"
               "01:00:00.000 --> 01:00:05.000\nhttp://h/x.jpg#xywh=pixel:320,0,160,90\n",
               0);
    field = (fpx_preview_field)77;
    CHECK_OK(set_sheet(p, FPX_PREVIEW_WEBVTT, "t.vtt", &field));
    CHECK_EQ(field, FPX_PREVIEW_FIELD_NONE); /* set on every return */
    v = preview_at(p, fpx_time_make(3, 2), &rc);
    CHECK_EQ(v.kind, FPX_PREVIEW_WEBVTT);
    CHECK_EQ(v.x, 160);
    v = preview_at(p, fpx_time_make(1499, 1000), &rc);
    CHECK_EQ(v.x, 0);
    v = preview_at(p, fpx_time_make(3601, 1), &rc);
    CHECK_EQ(v.x, 320);
    CHECK_STR(v.image_url, "http://h/x.jpg");
    CHECK_TIME_EQ(v.end, fpx_time_make(3605, 1));

    SECTION("every malformed field is typed; no source after an error");
    {
        static const struct {
            fpx_preview_kind kind;
            const char *text;
            fpx_preview_field field;
        } bad[] = {
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":", FPX_PREVIEW_FIELD_SYNTAX},
            {FPX_PREVIEW_SPRITESHEET, "{\"tile_width\":1}", FPX_PREVIEW_FIELD_URL},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":0}", FPX_PREVIEW_FIELD_TILE_WIDTH},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":16385}", FPX_PREVIEW_FIELD_TILE_HEIGHT},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":1,\"duration\":\"x\"}", FPX_PREVIEW_FIELD_DURATION},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,\"tiles\":[]}", FPX_PREVIEW_FIELD_TILES},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,\"tiles\":[{\"start\":-1,\"x\":0,\"y\":0}]}", FPX_PREVIEW_FIELD_TILE_START},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,\"tiles\":[{\"start\":0,\"x\":16384,\"y\":0}]}", FPX_PREVIEW_FIELD_TILE_X},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,\"tiles\":[{\"start\":0,\"x\":0,\"y\":null}]}", FPX_PREVIEW_FIELD_TILE_Y},
            {FPX_PREVIEW_SPRITESHEET, "{\"url\":\"a\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,\"tiles\":[{\"start\":0,\"x\":0,\"y\":0,\"url\":\"\"}]}", FPX_PREVIEW_FIELD_TILE_URL},
            {FPX_PREVIEW_WEBVTT, "WEBVTT\n\n0:00.000 --> 00:01.000\na#xywh=0,0,1,1\n", FPX_PREVIEW_FIELD_CUE_TIMING},
            {FPX_PREVIEW_WEBVTT, "WEBVTT\n\n00:00.000 --> 00:01.000\na#xywh=0,0,0,1\n", FPX_PREVIEW_FIELD_CUE_XYWH},
            {FPX_PREVIEW_WEBVTT, "not a track\n", FPX_PREVIEW_FIELD_SYNTAX},
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            write_file("bad", bad[i].text, 0);
            field = FPX_PREVIEW_FIELD_NONE;
            CHECK_ERR(set_sheet(p, bad[i].kind, "bad", &field), FPX_ERROR_PREVIEW_MALFORMED);
            if (!CHECK_EQ(field, bad[i].field))
                NOTE("case %zu: %s", i, bad[i].text);
            preview_at(p, fpx_time_make(0, 1), &rc);
            CHECK_EQ(rc, FPX_ERROR_NO_PREVIEW);
        }
        CHECK_EQ(FPX_PREVIEW_FIELD_CUE_XYWH, 12); /* the last field: every one is covered above */
    }

    SECTION("caps, files, the protocol policy");
    write_file("big.json", SHEET, FPX_PREVIEW_MAX_SOURCE_BYTES);
    CHECK_ERR(set_sheet(p, FPX_PREVIEW_SPRITESHEET, "big.json", NULL), FPX_ERROR_TOO_LARGE);
    CHECK_ERR(set_sheet(p, FPX_PREVIEW_SPRITESHEET, "missing.json", NULL), FPX_ERROR_NOT_FOUND);
    CHECK_ERR(fpx_player_set_preview_source(p, FPX_PREVIEW_SPRITESHEET, dir, NULL), FPX_ERROR_UNSUPPORTED);
    write_file("ftp.json", "{\"url\":\"ftp://h/a.jpg\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,"
                           "\"tiles\":[{\"start\":0,\"x\":0,\"y\":0}]}", 0);
    field = FPX_PREVIEW_FIELD_NONE;
    CHECK_ERR(set_sheet(p, FPX_PREVIEW_SPRITESHEET, "ftp.json", &field), FPX_ERROR_PROTOCOL_NOT_ALLOWED);
    CHECK_EQ(field, FPX_PREVIEW_FIELD_URL);
    write_file("nosuch.json", "{\"url\":\"a.jpg\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,"
                              "\"tiles\":[{\"start\":0,\"x\":0,\"y\":0},{\"start\":1,\"x\":0,\"y\":0,"
                              "\"url\":\"nosuchproto://h/b.jpg\"}]}", 0);
    field = FPX_PREVIEW_FIELD_NONE;
    CHECK_ERR(set_sheet(p, FPX_PREVIEW_SPRITESHEET, "nosuch.json", &field), FPX_ERROR_UNSUPPORTED);
    CHECK_EQ(field, FPX_PREVIEW_FIELD_TILE_URL);
    write_file("first.json", "{\"url\":\"a.jpg\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,"
                             "\"tiles\":[{\"start\":0,\"x\":0,\"y\":0,\"url\":\"ftp://h/b.jpg\"}]}", 0);
    field = FPX_PREVIEW_FIELD_NONE;
    CHECK_ERR(set_sheet(p, FPX_PREVIEW_SPRITESHEET, "first.json", &field), FPX_ERROR_PROTOCOL_NOT_ALLOWED);
    CHECK_EQ(field, FPX_PREVIEW_FIELD_TILE_URL); /* the first tile's own url, not the sheet's */
    {
        fpx_player *h = player_with("http", 0, 0), *small = player_with(NULL, 0, 64);
        CHECK_ERR(set_sheet(h, FPX_PREVIEW_SPRITESHEET, "s.json", NULL), FPX_ERROR_PROTOCOL_NOT_ALLOWED);
        CHECK_ERR(set_sheet(small, FPX_PREVIEW_SPRITESHEET, "s.json", NULL), FPX_ERROR_TOO_LARGE);
        fpx_player_destroy(h);
        fpx_player_destroy(small);
    }
    fpx_player_destroy(p);

    SECTION("servers: refused, never answering (TIMEOUT), a remote sheet's images, destroy while loading");
    {
        loopback_server srv;
        pthread_t lt;
        int port;
        char url[256];
        struct loader l;
        fpx_player *q = player_with(NULL, 400, 0);
        loopback_server_start(&srv, 64, 256, 0);
        port = srv.port;
        snprintf(url, sizeof url, "http://127.0.0.1:%d/s.json", refused_port());
        CHECK_ERR(fpx_player_set_preview_source(q, FPX_PREVIEW_SPRITESHEET, url, NULL), FPX_ERROR_NETWORK);
        /* a remote sheet may name http(s) images only: file:// is refused, field URL */
        write_file("remote.json", "{\"url\":\"file:///etc/passwd\",\"tile_width\":1,\"tile_height\":1,\"duration\":1,"
                                  "\"tiles\":[{\"start\":0,\"x\":0,\"y\":0}]}", 0);
        srv.serve_path = path_of("remote.json");
        snprintf(url, sizeof url, "http://127.0.0.1:%d/remote.json", port);
        field = FPX_PREVIEW_FIELD_NONE;
        CHECK_ERR(fpx_player_set_preview_source(q, FPX_PREVIEW_SPRITESHEET, url, &field), FPX_ERROR_PROTOCOL_NOT_ALLOWED);
        CHECK_EQ(field, FPX_PREVIEW_FIELD_URL);
        srv.serve_path = path_of("s.json");
        snprintf(url, sizeof url, "http://127.0.0.1:%d/dir/s.json", port);
        CHECK_OK(fpx_player_set_preview_source(q, FPX_PREVIEW_SPRITESHEET, url, NULL));
        v = preview_at(q, fpx_time_make(7, 1), &rc);
        snprintf(url, sizeof url, "http://127.0.0.1:%d/dir/second.jpg", port);
        CHECK_STR(v.image_url, url);
        flag_set(&srv.stall, 1);
        snprintf(url, sizeof url, "http://127.0.0.1:%d/s.json", port);
        CHECK_ERR(fpx_player_set_preview_source(q, FPX_PREVIEW_SPRITESHEET, url, NULL), FPX_ERROR_TIMEOUT);
        fpx_player_destroy(q);

        /* destroy while a source loads from a server that never answers: CANCELLED */
        memset(&l, 0, sizeof l);
        l.p = player_with(NULL, 60000, 0);
        snprintf(l.url, sizeof l.url, "http://127.0.0.1:%d/s.json", port);
        REQUIRE(pthread_create(&lt, NULL, load_main, &l) == 0);
        while (flag_get(&srv.n_held) < 2)
            sleep_ms(5);
        /* meanwhile the player's own work is not held up: open, seek, read */
        CHECK_OK(open_wait(l.p, fixture("mp4_bframes.mp4"), NULL));
        {
            fpx_seek_outcome o;
            fpx_packet pk;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            CHECK_OK(fpx_player_seek_wait(l.p, fpx_time_make(2, 1), fpx_precision_exact(), 30000, &o));
            if (!CHECK_EQ(o.finished, 1))
                NOTE("reason %d error %d", (int)o.reason, o.error);
            memset(&pk, 0, sizeof pk);
            pk.struct_size = sizeof pk;
            CHECK_OK(fpx_player_read_packet(l.p, &pk));
        }
        CHECK(!flag_get(&l.done));
        {
            /* previews of one player are serialised: one waits while a source loads */
            struct previewer w;
            pthread_t wt;
            memset(&w, 0, sizeof w);
            w.p = l.p;
            fpx_seek_outcome o;
            REQUIRE(pthread_create(&wt, NULL, preview_main, &w) == 0);
            while (!flag_get(&w.entering))
                sleep_ms(1);
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            CHECK_OK(fpx_player_seek_wait(l.p, fpx_time_make(1, 1), fpx_precision_exact(), 30000, &o));
            CHECK(!flag_get(&w.done) && !flag_get(&l.done));
            fpx_player_destroy(l.p);
            pthread_join(wt, NULL);
            /* it got the lock after destroy dropped the source (INVALID_HANDLE only if that
             * thread had not yet entered the call when destroy ran: a scheduling accident) */
            if (!CHECK(w.rc == FPX_ERROR_NO_PREVIEW || w.rc == FPX_ERROR_INVALID_HANDLE))
                NOTE("preview returned %d", w.rc);
        }
        pthread_join(lt, NULL);
        CHECK_EQ(l.rc, FPX_ERROR_CANCELLED);

        /* the keyframe index of an item whose open is stalled: ITEM_NOT_READY, and a sheet
         * preview returns while the player's worker is held by that open */
        q = player_with(NULL, 60000, 0);
        snprintf(url, sizeof url, "http://127.0.0.1:%d/m.mp4", port);
        CHECK_OK(fpx_player_open(q, url));
        CHECK_OK(set_sheet(q, FPX_PREVIEW_SPRITESHEET, "s.json", NULL));
        v = preview_at(q, fpx_time_make(2, 1), &rc);
        CHECK_OK(rc);
        CHECK_EQ(v.x, 320);
        CHECK_OK(fpx_player_set_preview_source(q, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL));
        v = preview_at(q, fpx_time_make(2, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_ITEM_NOT_READY);
        fpx_player_destroy(q);

        /* a READY item whose server then stops answering: the keyframe preview's own open
         * times out (TIMEOUT), and destroy interrupts one in progress (CANCELLED) */
        flag_set(&srv.stall, 0);
        srv.serve_path = fixture("mp4_bframes.mp4");
        q = player_with(NULL, 400, 0);
        snprintf(url, sizeof url, "http://127.0.0.1:%d/m.mp4", port);
        CHECK_OK(open_wait(q, url, NULL));
        CHECK_OK(fpx_player_set_preview_source(q, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL));
        flag_set(&srv.stall, 1);
        v = preview_at(q, fpx_time_make(1, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_TIMEOUT);
        fpx_player_destroy(q);
        {
            struct previewer w;
            pthread_t wt;
            int before;
            flag_set(&srv.stall, 0);
            q = player_with(NULL, 60000, 0);
            CHECK_OK(open_wait(q, url, NULL));
            CHECK_OK(fpx_player_set_preview_source(q, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL));
            before = flag_get(&srv.n_held);
            flag_set(&srv.stall, 1);
            memset(&w, 0, sizeof w);
            w.p = q;
            REQUIRE(pthread_create(&wt, NULL, preview_main, &w) == 0);
            while (flag_get(&srv.n_held) == before)
                sleep_ms(5);
            CHECK(!flag_get(&w.done));
            fpx_player_destroy(q);
            pthread_join(wt, NULL);
            CHECK_EQ(w.rc, FPX_ERROR_CANCELLED);
        }
        loopback_server_stop(&srv);
    }

    SECTION("the keyframe index: ffprobe's keyframe at or before t; lifetimes of data");
    {
        const char *file = fixture("mp4_bframes.mp4");
        fpx_stream_info si;
        fpx_item_info ii;
        long long want;
        unsigned char *copy;
        size_t size;
        int i;
        p = make_player(FPX_DELIVERY_THREAD);
        REQUIRE(p != NULL && fpx_player_setup_seek_manager(p) == FPX_OK);
        CHECK_OK(fpx_player_set_preview_source(p, FPX_PREVIEW_HLS_IFRAMES, NULL, NULL));
        v = preview_at(p, fpx_time_make(1, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_NO_ITEM); /* the item's I-frame variant: needs an item */
        CHECK_OK(fpx_player_set_preview_source(p, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL));
        v = preview_at(p, fpx_time_make(1, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_NO_ITEM);
        REQUIRE(open_wait(p, file, NULL) == FPX_OK);
        memset(&ii, 0, sizeof ii);
        ii.struct_size = sizeof ii;
        CHECK_OK(fpx_player_item_info(p, &ii));
        memset(&si, 0, sizeof si);
        si.struct_size = sizeof si;
        CHECK_OK(fpx_player_stream_info(p, ii.reference_stream, &si));
        for (i = 0; i <= 8; i++) {
            fpx_time t = fpx_time_make(i * 3, 4);
            long long ticks = ii.start_pts + (long long)i * 3 * si.time_base_den / (4LL * si.time_base_num);
            v = preview_at(p, t, &rc);
            CHECK_OK(rc);
            want = ffprobe_keyframe_at_or_before(file, ticks);
            CHECK_EQ(v.pts, want);
            CHECK_EQ(v.kind, FPX_PREVIEW_KEYFRAME_INDEX);
            CHECK_EQ(v.stream_index, ii.reference_stream);
            CHECK(v.flags & FPX_PACKET_FLAG_KEY);
            CHECK(v.data != NULL && v.size > 0 && v.av_packet != NULL);
            CHECK(v.image_url == NULL);
        }
        /* data stays valid across seeks and reads until the next preview */
        v = preview_at(p, fpx_time_make(5, 2), &rc);
        size = v.size;
        copy = malloc(size);
        REQUIRE(copy != NULL);
        memcpy(copy, v.data, size);
        for (i = 0; i < 3; i++) {
            fpx_seek_outcome o;
            fpx_packet pk;
            int k;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(i, 1), fpx_precision_exact(), 30000, &o));
            for (k = 0; k < 20; k++) {
                memset(&pk, 0, sizeof pk);
                pk.struct_size = sizeof pk;
                CHECK_OK(fpx_player_read_packet(p, &pk));
            }
        }
        CHECK(memcmp(copy, v.data, size) == 0);
        free(copy);
        fpx_player_destroy(p);

        /* an HLS item (MPEG-TS, 1 s segments each opening with a keyframe) and an I-frame
         * playlist written here: each entry the byte range of its segment up to the second
         * video packet (ffprobe's positions); the preview is the I-frame at or before t,
         * ffprobe's keyframe of the item, at its item time */
        {
            char hls[4096], iframes[4300], line[256], cmd[8400];
            FILE *f, *pf;
            int s;
            long long first = -1;
            REQUIRE(make_hls_vod(hls, sizeof hls, "preview", 4));
            snprintf(iframes, sizeof iframes, "%s/iframes.m3u8", hls);
            f = fopen(iframes, "w");
            REQUIRE(f != NULL);
            fputs("#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                  "#EXT-X-I-FRAMES-ONLY\n", f);
            for (s = 0; s < 4; s++) {
                long long pos[2] = {-1, -1};
                int k = 0;
                snprintf(cmd, sizeof cmd, "ffprobe -v error -select_streams v:0 -show_entries packet=pos "
                                          "-of csv=p=0 '%s/seg%03d.ts'", hls, s);
                pf = popen(cmd, "r");
                REQUIRE(pf != NULL);
                while (k < 2 && fgets(line, sizeof line, pf))
                    if (line[0] >= '0' && line[0] <= '9') /* ffprobe puts blank lines between */
                        pos[k++] = atoll(line);
                pclose(pf);
                REQUIRE(pos[1] > 0);
                fprintf(f, "#EXTINF:1.000000,\n#EXT-X-BYTERANGE:%lld@0\nseg%03d.ts\n", pos[1], s);
            }
            fputs("#EXT-X-ENDLIST\n", f);
            fclose(f);
            snprintf(cmd, sizeof cmd, "%s/vod.m3u8", hls);
            p = make_player(FPX_DELIVERY_THREAD);
            REQUIRE(open_wait(p, cmd, NULL) == FPX_OK);
            CHECK_OK(fpx_player_set_preview_source(p, FPX_PREVIEW_HLS_IFRAMES, iframes, NULL));
            for (s = 0; s <= 7; s++) { /* t = 0, 0.5, ..., 3.5 s */
                long long want;
                v = preview_at(p, fpx_time_make(s, 2), &rc);
                CHECK_OK(rc);
                if (first < 0)
                    first = v.pts; /* t = 0: the item's first frame, a keyframe */
                want = ffprobe_keyframe_at_or_before(cmd, first + (long long)s * 45000);
                CHECK_EQ(v.kind, FPX_PREVIEW_HLS_IFRAMES);
                CHECK_EQ(v.pts, want);
                CHECK_TIME_EQ(v.start, fpx_time_make((want - first) / 90, 1000));
                CHECK(v.flags & FPX_PACKET_FLAG_KEY);
                CHECK(v.data != NULL && v.size > 0);
            }
            CHECK_EQ(first, ffprobe_keyframe_at_or_before(cmd, first));
            fpx_player_destroy(p);
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", hls);
            if (system(cmd) != 0)
                NOTE("could not remove %s", hls);
        }

        /* an I-frame variant of the item: a file lists none (NO_PREVIEW); a host's I-frame
         * playlist the policy refuses (PROTOCOL_NOT_ALLOWED, no source after it) */
        p = make_player(FPX_DELIVERY_THREAD);
        REQUIRE(open_wait(p, file, NULL) == FPX_OK);
        CHECK_OK(fpx_player_set_preview_source(p, FPX_PREVIEW_HLS_IFRAMES, NULL, NULL));
        v = preview_at(p, fpx_time_make(1, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_NO_PREVIEW);
        fpx_player_destroy(p);
        p = player_with("http", 0, 0);
        CHECK_ERR(fpx_player_set_preview_source(p, FPX_PREVIEW_HLS_IFRAMES, path_of("x_i.m3u8"), NULL),
                  FPX_ERROR_PROTOCOL_NOT_ALLOWED);
        v = preview_at(p, fpx_time_make(1, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_NO_PREVIEW);
        fpx_player_destroy(p);

        p = make_player(FPX_DELIVERY_THREAD);
        CHECK_OK(fpx_player_open(p, fixture("garbage.bin")));
        fpx_player_wait_item(p, 10000, NULL);
        CHECK_OK(fpx_player_set_preview_source(p, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL));
        v = preview_at(p, fpx_time_make(1, 1), &rc);
        CHECK_EQ(rc, FPX_ERROR_ITEM_FAILED);
        fpx_player_destroy(p);
    }

    {
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            NOTE("could not remove %s", dir);
    }
    return check_summary();
}
