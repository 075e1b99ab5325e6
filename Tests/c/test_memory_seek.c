/*
 * test_memory_seek.c -- seeks resolved from memory, and lazy positioning.
 *
 * A seek whose landing the frame grid (frames an earlier seek read) or the
 * container's keyframe index (Matroska cues, pts known at open) decides is
 * completed inside fpx_player_seek, with no I/O: the demuxer is positioned at
 * the landing's keyframe by the next fpx_player_read_packet (seek.h,
 * fpx_player_seek and fpx_player_read_packet).
 *
 * 1. Host delivery, grid: after fpx_player_seek returns, the event fd is
 *    readable and one dispatch delivers the completion (finished, packets_read
 *    0); packets_demuxed does not move until the next read; the packets from
 *    that read on are ffprobe's, in demux order, from the landing's keyframe,
 *    with DISCONTINUITY first, DECODE_ONLY exactly before the landing, and the
 *    seek's id. Thread delivery: the same landings and packets.
 * 2. Keyframe index (Matroska cues) on a fresh player: a nearest-keyframe seek
 *    whose keyframe is at or after the target completes from memory; landing
 *    and packets against ffprobe.
 * 3. Positioning error: an http item on a 127.0.0.1 server; the server is
 *    stopped after a memory seek: the seek's outcome stands, the next read
 *    returns a typed error (no crash, no hang), and once the server is back
 *    the read after that positions and returns the landing's packets.
 * 4. A busy engine (a read blocked on a stalled 127.0.0.1 server) does not
 *    block fpx_player_seek; the read is interrupted, the seek completes.
 * 5. Storms: 1000 memory seeks give 1000 completions, demux nothing, and the
 *    next read positions once, at the last landing; 1000 seeks mixing memory
 *    and worker seeks in thread delivery complete exactly once each, and a
 *    seek that lands never completes before a seek issued earlier (memory
 *    seeks do not overtake the worker).
 *
 * usage: test_memory_seek FIXTURE_DIR
 */
#include "check.h"
#include "groundtruth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

/* ---- helpers ------------------------------------------------------------------ */

typedef struct outbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int count;
    fpx_seek_outcome last;
    /* A COMPLETED outcome must come after the completion of every seek issued before it
     * (earlier ones were superseded or completed first). Superseded ones may overtake each
     * other (a queued seek completes at once, an in-flight one when its I/O stops). */
    uint64_t order_errors;
    uint64_t first_id; /* the storm's first seek id (set before issuing; 0: not tracked) */
    unsigned char done[4096];
} outbox;

static void outbox_init(outbox *b)
{
    memset(b, 0, sizeof *b);
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
}

static void on_outcome(const fpx_seek_outcome *o, void *ud)
{
    outbox *b = (outbox *)ud;
    pthread_mutex_lock(&b->mu);
    if (b->first_id != 0 && o->seek_id < b->first_id)
        b->order_errors++;
    if (b->first_id != 0 && o->seek_id - b->first_id < sizeof b->done) {
        b->done[o->seek_id - b->first_id] = 1;
        if (o->reason == FPX_FINISH_COMPLETED) {
            uint64_t i;
            for (i = 0; i < o->seek_id - b->first_id; i++)
                if (!b->done[i])
                    b->order_errors++;
        }
    }
    b->last = *o;
    b->count++;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static int outbox_wait(outbox *b, int count, int timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
    int ok;
    pthread_mutex_lock(&b->mu);
    while (b->count < count && now_ns() < end) {
        pthread_mutex_unlock(&b->mu);
        sleep_ms(1);
        pthread_mutex_lock(&b->mu);
    }
    ok = b->count >= count;
    pthread_mutex_unlock(&b->mu);
    return ok;
}

static uint64_t demuxed(fpx_player *p)
{
    fpx_player_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    if (fpx_player_stats_get(p, &s) != FPX_OK)
        return UINT64_MAX;
    return s.packets_demuxed;
}

static int fd_readable(int fd)
{
    struct pollfd pf;
    pf.fd = fd;
    pf.events = POLLIN;
    pf.revents = 0;
    return poll(&pf, 1, 0) == 1 && (pf.revents & POLLIN);
}

typedef struct item {
    int ref;
    int64_t start;
    int32_t tb_den;
} item;

static int item_get(fpx_player *p, item *it)
{
    fpx_item_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (fpx_player_item_info(p, &info) != FPX_OK)
        return 0;
    it->ref = info.reference_stream;
    it->start = info.start_pts;
    it->tb_den = info.time_base_den;
    return info.time_base_num == 1;
}

/* Item time of reference-stream pts t (time base 1/den). */
static fpx_time at(const item *it, int64_t t) { return fpx_time_make(t - it->start, it->tb_den); }

/* The keyframe of stream s whose GOP holds frame pts t (largest keyframe pts <= t), or NOPTS. */
static int64_t key_for(const gt_file *gt, int s, int64_t t)
{
    size_t i;
    int64_t k = FPX_NOPTS;
    for (i = 0; i < gt->n; i++)
        if (gt->p[i].stream == s && gt->p[i].key && gt->p[i].pts <= t && (k == FPX_NOPTS || gt->p[i].pts > k))
            k = gt->p[i].pts;
    return k;
}

/* The ffprobe packets in demux order (a copy of gt sorted by order). */
static gt_packet *demux_order(const gt_file *gt)
{
    gt_packet *o = malloc(gt->n * sizeof *o);
    size_t i;
    if (!o)
        return NULL;
    for (i = 0; i < gt->n; i++)
        o[gt->p[i].order] = gt->p[i];
    return o;
}

/*
 * Reads n packets and checks them against ffprobe: the first is the keyframe of stream ref
 * with pts key, flagged DISCONTINUITY; then they are ffprobe's packets in demux order from
 * that keyframe (stream, pts, pos, payload); reference packets carry DECODE_ONLY exactly
 * when pts < landed; every packet carries seek_id and landed_pts. Returns 1 when all hold.
 */
static int check_packets_from(fpx_player *p, const gt_file *gt, const gt_packet *ord, int ref, int64_t key,
                              int64_t landed, uint64_t seek_id, int n)
{
    size_t start = 0, j;
    int i, ok = 1;
    for (j = 0; j < gt->n; j++)
        if (ord[j].stream == ref && ord[j].key && ord[j].pts == key)
            break;
    if (!CHECK(j < gt->n))
        return 0;
    start = j;
    for (i = 0; i < n && start + (size_t)i < gt->n; i++) {
        fpx_packet pk;
        const gt_packet *want = &ord[start + (size_t)i];
        int rc;
        memset(&pk, 0, sizeof pk);
        pk.struct_size = sizeof pk;
        rc = fpx_player_read_packet(p, &pk);
        if (!CHECK_OK(rc))
            return 0;
        ok &= CHECK_EQ(pk.stream_index, want->stream);
        ok &= CHECK_EQ(pk.pts, want->pts);
        ok &= CHECK_EQ(pk.pos, want->pos);
        ok &= CHECK_EQ(gt_adler32(pk.data, pk.size), want->adler);
        ok &= CHECK_EQ(pk.seek_id, seek_id);
        ok &= CHECK_EQ(pk.landed_pts, landed);
        ok &= CHECK_EQ(!!(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY), i == 0);
        if (pk.stream_index == ref)
            ok &= CHECK_EQ(!!(pk.flags & FPX_PACKET_FLAG_DECODE_ONLY), pk.pts < landed);
        if (!ok)
            return 0;
    }
    return ok;
}

/* ---- a 127.0.0.1 http server with Range support ------------------------------- */

typedef struct server {
    const char *path;
    int port;
    int lfd;
    volatile int stop;   /* accept thread: leave */
    volatile int stall;  /* connections: stop sending while set */
    pthread_t th;
    pthread_mutex_t mu;
    int conns[64];
    int nconns;
} server;

typedef struct conn_arg {
    server *s;
    int fd;
} conn_arg;

static void send_all(int fd, const char *b, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        b += w;
        n -= (size_t)w;
    }
}

static void *conn_main(void *arg)
{
    conn_arg *a = (conn_arg *)arg;
    server *s = a->s;
    int fd = a->fd;
    char req[4096], hdr[512], buf[16384];
    size_t got = 0;
    long long from = 0, to = -1, size;
    struct stat st;
    FILE *f;
    char *r;
    free(a);
    while (got < sizeof req - 1) {
        ssize_t n = recv(fd, req + got, sizeof req - 1 - got, 0);
        if (n <= 0)
            goto out;
        got += (size_t)n;
        req[got] = 0;
        if (strstr(req, "\r\n\r\n"))
            break;
    }
    /* A stalled server accepts, then answers nothing until it is released. */
    while (flag_get(&s->stall) && !flag_get(&s->stop))
        sleep_ms(5);
    if (stat(s->path, &st) != 0 || !(f = fopen(s->path, "rb")))
        goto out;
    size = (long long)st.st_size;
    r = strstr(req, "Range: bytes=");
    if (r) {
        from = strtoll(r + 13, &r, 10);
        if (*r == '-' && r[1] >= '0' && r[1] <= '9')
            to = strtoll(r + 1, NULL, 10);
    }
    if (to < 0 || to >= size)
        to = size - 1;
    if (from >= size) {
        snprintf(hdr, sizeof hdr, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */%lld\r\n"
                                  "Content-Length: 0\r\nConnection: close\r\n\r\n", size);
        send_all(fd, hdr, strlen(hdr));
        fclose(f);
        goto out;
    }
    snprintf(hdr, sizeof hdr,
             "HTTP/1.1 206 Partial Content\r\nContent-Type: application/octet-stream\r\nAccept-Ranges: bytes\r\n"
             "Content-Range: bytes %lld-%lld/%lld\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
             from, to, size, to - from + 1);
    send_all(fd, hdr, strlen(hdr));
    fseek(f, (long)from, SEEK_SET);
    while (from <= to && !flag_get(&s->stop)) {
        size_t want = (size_t)(to - from + 1 < (long long)sizeof buf ? to - from + 1 : (long long)sizeof buf);
        size_t n;
        while (flag_get(&s->stall) && !flag_get(&s->stop))
            sleep_ms(5);
        n = fread(buf, 1, want, f);
        if (n == 0)
            break;
        send_all(fd, buf, n);
        from += (long long)n;
    }
    fclose(f);
out:
    pthread_mutex_lock(&s->mu);
    {
        int i;
        for (i = 0; i < s->nconns; i++)
            if (s->conns[i] == fd) {
                s->conns[i] = s->conns[--s->nconns];
                break;
            }
    }
    pthread_mutex_unlock(&s->mu);
    close(fd);
    return NULL;
}

static void *accept_main(void *arg)
{
    server *s = (server *)arg;
    while (!flag_get(&s->stop)) {
        struct pollfd pf;
        pthread_t t;
        conn_arg *a;
        int fd;
        pf.fd = s->lfd;
        pf.events = POLLIN;
        if (poll(&pf, 1, 20) != 1)
            continue;
        fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        a = malloc(sizeof *a);
        pthread_mutex_lock(&s->mu);
        if (!a || s->nconns == 64) {
            pthread_mutex_unlock(&s->mu);
            free(a);
            close(fd);
            continue;
        }
        s->conns[s->nconns++] = fd;
        pthread_mutex_unlock(&s->mu);
        a->s = s;
        a->fd = fd;
        if (pthread_create(&t, NULL, conn_main, a) == 0)
            pthread_detach(t);
    }
    return NULL;
}

/* Starts serving s->path on s->port (0: any free port, stored back). */
static int server_start(server *s)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    int one = 1;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (s->lfd < 0)
        return 0;
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)s->port);
    if (bind(s->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->lfd, 16) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&a, &al) != 0) {
        close(s->lfd);
        return 0;
    }
    s->port = ntohs(a.sin_port);
    flag_set(&s->stop, 0);
    return pthread_create(&s->th, NULL, accept_main, s) == 0;
}

/* Stops accepting and cuts every open connection: any I/O on the item fails from now on. */
static void server_stop(server *s)
{
    int i;
    flag_set(&s->stop, 1);
    pthread_join(s->th, NULL);
    close(s->lfd);
    pthread_mutex_lock(&s->mu);
    for (i = 0; i < s->nconns; i++)
        shutdown(s->conns[i], SHUT_RDWR);
    pthread_mutex_unlock(&s->mu);
    /* let the connection threads leave */
    for (i = 0; i < 200; i++) {
        int n;
        pthread_mutex_lock(&s->mu);
        n = s->nconns;
        pthread_mutex_unlock(&s->mu);
        if (n == 0)
            break;
        sleep_ms(5);
    }
}

/* ---- 1. grid, both delivery modes ---------------------------------------------- */

static void grid_seeks(const char *path, fpx_delivery_mode mode)
{
    fpx_player *p = make_player(mode);
    fpx_item_status_info st = {sizeof(fpx_item_status_info), 0, 0, 0, 0, 0, 0, 0};
    gt_file gt;
    gt_packet *ord;
    item it;
    int fd = -1, round;
    /* GOPs of the fixture, by ffprobe: the frames at 2.0 s and 10.0 s (and their GOPs). */
    if (!p)
        return;
    REQUIRE(gt_load(&gt, path) > 0);
    ord = demux_order(&gt);
    REQUIRE(ord != NULL);
    CHECK_OK(open_wait(p, path, &st));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    REQUIRE(item_get(p, &it));
    if (mode == FPX_DELIVERY_HOST)
        CHECK_OK(fpx_player_event_fd(p, &fd));
    for (round = 0; round < 2; round++) {
        /* Frames A (early GOP) and B (late GOP) of the reference stream, picked from ffprobe. */
        int64_t A = FPX_NOPTS, B = FPX_NOPTS, kA, target, landed = FPX_NOPTS;
        size_t i;
        fpx_seek_outcome o;
        outbox box;
        uint64_t id = 0, d0;
        int dispatched = 0;
        for (i = 0; i < gt.n; i++) {
            const gt_packet *g = &gt.p[i];
            if (g->stream != it.ref)
                continue;
            if (g->pts - it.start >= (round ? 5 : 2) * it.tb_den && (A == FPX_NOPTS || g->pts < A))
                A = g->pts;
            if (g->pts - it.start >= 10 * it.tb_den && (B == FPX_NOPTS || g->pts < B))
                B = g->pts;
        }
        REQUIRE(A != FPX_NOPTS && B != FPX_NOPTS);
        kA = key_for(&gt, it.ref, A);
        REQUIRE(kA != FPX_NOPTS && kA < A);
        /* Teach the grid A's GOP, then move the reads to B's. */
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        CHECK_OK(fpx_player_seek_wait(p, at(&it, A), fpx_precision_exact(), 5000, &o));
        CHECK_EQ(o.landed_stream_pts, A);
        CHECK_OK(fpx_player_seek_wait(p, at(&it, B), fpx_precision_exact(), 5000, &o));
        CHECK_EQ(o.landed_stream_pts, B);
        if (mode == FPX_DELIVERY_HOST)
            fpx_player_dispatch_events(p, NULL);
        /* The frame before A, in A's GOP: the grid knows it covers A - 1 tick. */
        target = A - 1;
        for (i = 0; i < gt.n; i++)
            if (gt.p[i].stream == it.ref && gt.p[i].pts <= target && gt.p[i].pts >= kA &&
                (landed == FPX_NOPTS || gt.p[i].pts > landed))
                landed = gt.p[i].pts;
        REQUIRE(landed != FPX_NOPTS);
        outbox_init(&box);
        d0 = demuxed(p);
        CHECK_OK(fpx_player_seek(p, at(&it, target), fpx_precision_exact(), on_outcome, &box, &id));
        if (mode == FPX_DELIVERY_HOST) {
            /* Decided inside fpx_player_seek: queued before it returned. */
            CHECK(fd_readable(fd));
            CHECK_OK(fpx_player_dispatch_events(p, &dispatched));
            CHECK_EQ(dispatched, 1);
            CHECK_EQ(box.count, 1);
        } else {
            CHECK(outbox_wait(&box, 1, 5000));
        }
        CHECK_EQ(box.last.seek_id, id);
        CHECK_EQ(box.last.finished, 1);
        CHECK_EQ(box.last.landed_stream_pts, landed);
        CHECK_EQ(box.last.frame_covers_target, 1);
        CHECK_EQ(box.last.packets_read, 0);
        /* Nothing demuxed until the host reads. */
        CHECK_EQ(demuxed(p), d0);
        CHECK(check_packets_from(p, &gt, ord, it.ref, kA, landed, id, 40));
        CHECK(demuxed(p) > d0);
    }
    fpx_player_destroy(p);
    free(ord);
    gt_free(&gt);
}

/* ---- 2. keyframe index (Matroska cues) --------------------------------------------- */

static void index_seeks(const char *path)
{
    gt_file gt;
    gt_packet *ord;
    int64_t keys[64];
    int nk = 0, k;
    size_t i;
    REQUIRE(gt_load(&gt, path) > 0);
    ord = demux_order(&gt);
    REQUIRE(ord != NULL);
    for (i = 0; i < gt.n && nk < 64; i++)
        if (gt.p[i].stream == 0 && gt.p[i].key)
            keys[nk++] = gt.p[i].pts;
    REQUIRE(nk >= 4);
    for (k = 1; k + 1 < nk; k++) {
        /* Fresh player, nothing read but the open's: the cues decide. Targets: on the keyframe,
         * and just before it (the keyframe after the target is nearer). */
        int v;
        for (v = 0; v < 2; v++) {
            fpx_player *p = make_player(FPX_DELIVERY_HOST);
            fpx_item_status_info st = {sizeof(fpx_item_status_info), 0, 0, 0, 0, 0, 0, 0};
            item it;
            outbox box;
            uint64_t id = 0, d0;
            int fd = -1, dispatched = 0;
            int64_t target = keys[k] - v;
            if (!p)
                break;
            CHECK_OK(open_wait(p, path, &st));
            CHECK_OK(fpx_player_setup_seek_manager(p));
            REQUIRE(item_get(p, &it));
            REQUIRE(it.ref == 0);
            CHECK_OK(fpx_player_event_fd(p, &fd));
            fpx_player_dispatch_events(p, NULL);
            outbox_init(&box);
            d0 = demuxed(p);
            CHECK_ERR(fpx_player_seek(p, at(&it, target), fpx_precision_nearest_keyframe(fpx_time_make(1, 2)),
                                       on_outcome, &box, &id), FPX_OK);
            CHECK(fd_readable(fd));
            CHECK_OK(fpx_player_dispatch_events(p, &dispatched));
            CHECK_EQ(box.count, 1);
            CHECK_EQ(box.last.finished, 1);
            CHECK_EQ(box.last.landed_stream_pts, keys[k]);
            CHECK_EQ(box.last.landed_is_keyframe, 1);
            CHECK_EQ(box.last.frame_covers_target, v == 0);
            CHECK_EQ(box.last.packets_read, 0);
            CHECK_EQ(demuxed(p), d0);
            CHECK(check_packets_from(p, &gt, ord, it.ref, keys[k], keys[k], id, 20));
            fpx_player_destroy(p);
        }
    }
    free(ord);
    gt_free(&gt);
}

/* ---- 3. positioning error over http ------------------------------------------------ */

static void http_position_error(const char *path)
{
    server s;
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_item_status_info st = {sizeof(fpx_item_status_info), 0, 0, 0, 0, 0, 0, 0};
    fpx_seek_outcome o;
    fpx_packet pk;
    gt_file gt;
    gt_packet *ord;
    item it;
    char url[256];
    int64_t A = 2000, B = 10000, kA, landed = FPX_NOPTS;
    uint64_t id = 0;
    outbox box;
    size_t i;
    int rc, dispatched = 0;
    uint64_t t0;
    memset(&s, 0, sizeof s);
    s.path = path;
    pthread_mutex_init(&s.mu, NULL);
    REQUIRE(server_start(&s));
    REQUIRE(gt_load(&gt, path) > 0);
    ord = demux_order(&gt);
    REQUIRE(ord != NULL);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/item.mkv", s.port);
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_HOST;
    cfg.io_timeout_ms = 3000;
    REQUIRE(fpx_player_create(&cfg, &p) == FPX_OK);
    CHECK_OK(open_wait(p, url, &st));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    REQUIRE(item_get(p, &it));
    REQUIRE(it.ref == 0 && it.tb_den == 1000);
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    CHECK_OK(fpx_player_seek_wait(p, at(&it, A), fpx_precision_exact(), 5000, &o));
    A = o.landed_stream_pts;
    CHECK_OK(fpx_player_seek_wait(p, at(&it, B), fpx_precision_exact(), 5000, &o));
    CHECK_EQ(o.finished, 1);
    fpx_player_dispatch_events(p, NULL);
    kA = key_for(&gt, 0, A);
    for (i = 0; i < gt.n; i++)
        if (gt.p[i].stream == 0 && gt.p[i].pts <= A - 1 && (landed == FPX_NOPTS || gt.p[i].pts > landed))
            landed = gt.p[i].pts;
    REQUIRE(kA != FPX_NOPTS && kA < A);
    /* The seek decides from memory; then the server goes away. */
    outbox_init(&box);
    CHECK_OK(fpx_player_seek(p, at(&it, A - 1), fpx_precision_exact(), on_outcome, &box, &id));
    CHECK_OK(fpx_player_dispatch_events(p, &dispatched));
    CHECK_EQ(box.count, 1);
    CHECK_EQ(box.last.finished, 1);
    CHECK_EQ(box.last.landed_stream_pts, landed);
    CHECK_EQ(box.last.packets_read, 0);
    server_stop(&s);
    memset(&pk, 0, sizeof pk);
    pk.struct_size = sizeof pk;
    t0 = now_ns();
    rc = fpx_player_read_packet(p, &pk);
    printf("note: read after the server stopped: %d (%s)\n", rc, fpx_error_name(rc));
    /* The positioning's own error, typed; not a packet, not a hang. */
    CHECK(rc == FPX_ERROR_NETWORK || rc == FPX_ERROR_IO || rc == FPX_ERROR_TIMEOUT);
    CHECK(now_ns() - t0 < 10000000000ull);
    CHECK_EQ(pk.struct_size, sizeof pk); /* untouched */
    CHECK(pk.data == NULL);
    /* Still failing while the server is down. */
    rc = fpx_player_read_packet(p, &pk);
    CHECK(rc == FPX_ERROR_NETWORK || rc == FPX_ERROR_IO || rc == FPX_ERROR_TIMEOUT);
    /* The server is back on the same port: the next read positions and reads the landing. */
    REQUIRE(server_start(&s));
    CHECK(check_packets_from(p, &gt, ord, 0, kA, landed, id, 30));
    fpx_player_destroy(p);
    server_stop(&s);
    free(ord);
    gt_free(&gt);
}

/* ---- 4. a busy engine does not block fpx_player_seek -------------------------------- */

typedef struct reader {
    fpx_player *p;
    volatile int packets;
    volatile int rc;
    volatile int done;
} reader;

static void *read_until_error(void *arg)
{
    reader *r = (reader *)arg;
    for (;;) {
        fpx_packet pk;
        int rc;
        memset(&pk, 0, sizeof pk);
        pk.struct_size = sizeof pk;
        rc = fpx_player_read_packet(r->p, &pk);
        if (rc != FPX_OK) {
            flag_set(&r->rc, rc);
            break;
        }
        flag_set(&r->packets, flag_get(&r->packets) + 1);
    }
    flag_set(&r->done, 1);
    return NULL;
}

static void busy_engine(const char *path)
{
    server s;
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_item_status_info st = {sizeof(fpx_item_status_info), 0, 0, 0, 0, 0, 0, 0};
    fpx_seek_outcome o;
    reader r;
    pthread_t th;
    item it;
    char url[256];
    outbox box;
    uint64_t t0, took, id = 0;
    int64_t near, far;
    int k;
    memset(&s, 0, sizeof s);
    s.path = path;
    pthread_mutex_init(&s.mu, NULL);
    REQUIRE(server_start(&s));
    snprintf(url, sizeof url, "http://127.0.0.1:%d/item.mkv", s.port);
    fpx_player_config_init(&cfg);
    cfg.delivery = FPX_DELIVERY_THREAD;
    cfg.io_timeout_ms = 8000;
    REQUIRE(fpx_player_create(&cfg, &p) == FPX_OK);
    CHECK_OK(open_wait(p, url, &st));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    REQUIRE(item_get(p, &it));
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    /* The grid learns a late GOP and an early one; the reads stand at the early one. */
    CHECK_OK(fpx_player_seek_wait(p, at(&it, it.start + 10 * it.tb_den), fpx_precision_exact(), 5000, &o));
    far = o.landed_stream_pts;
    CHECK_OK(fpx_player_seek_wait(p, at(&it, it.start + 2 * it.tb_den), fpx_precision_exact(), 5000, &o));
    near = o.landed_stream_pts;
    CHECK_EQ(o.finished, 1);
    /* A memory seek to the late GOP: its positioning, at the next read, needs a new request,
     * which the stalled server never answers: the reader blocks in I/O holding the engine. */
    CHECK_OK(fpx_player_seek(p, at(&it, far), fpx_precision_exact(), NULL, NULL, NULL));
    flag_set(&s.stall, 1);
    memset(&r, 0, sizeof r);
    r.p = p;
    REQUIRE(pthread_create(&th, NULL, read_until_error, &r) == 0);
    sleep_ms(300);
    CHECK(!flag_get(&r.done));
    CHECK_EQ(flag_get(&r.packets), 0);
    /* A seek the grid decides, while the engine is held by the blocked read. */
    outbox_init(&box);
    t0 = now_ns();
    CHECK_OK(fpx_player_seek(p, at(&it, near), fpx_precision_exact(), on_outcome, &box, &id));
    took = now_ns() - t0;
    /* Never waits for the engine (a wait would last until the read's 8 s I/O timeout). */
    CHECK(took < 500000000ull);
    /* The read is interrupted, and the seek completes through the worker. */
    for (k = 0; k < 300 && !flag_get(&r.done); k++)
        sleep_ms(10);
    CHECK(flag_get(&r.done));
    CHECK_ERR(flag_get(&r.rc), FPX_ERROR_INTERRUPTED);
    pthread_join(th, NULL);
    flag_set(&s.stall, 0);
    CHECK(outbox_wait(&box, 1, 5000));
    CHECK_EQ(box.last.seek_id, id);
    CHECK_EQ(box.last.finished, 1);
    CHECK_EQ(box.last.landed_stream_pts, near);
    fpx_player_destroy(p);
    server_stop(&s);
}

/* ---- 5. storms ------------------------------------------------------------------------ */

static void storm(const char *path)
{
    fpx_player *p = make_player(FPX_DELIVERY_HOST);
    fpx_item_status_info st = {sizeof(fpx_item_status_info), 0, 0, 0, 0, 0, 0, 0};
    fpx_seek_outcome o;
    fpx_packet pk;
    item it;
    outbox box;
    uint64_t d0, last = 0;
    int i, dispatched = 0, finished = 0;
    int64_t A, B, landedA, landedB;
    if (!p)
        return;
    CHECK_OK(open_wait(p, path, &st));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    REQUIRE(item_get(p, &it));
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    A = it.start + 2 * it.tb_den;
    B = it.start + 10 * it.tb_den;
    CHECK_OK(fpx_player_seek_wait(p, at(&it, A), fpx_precision_exact(), 5000, &o));
    landedA = o.landed_stream_pts;
    CHECK_OK(fpx_player_seek_wait(p, at(&it, B), fpx_precision_exact(), 5000, &o));
    landedB = o.landed_stream_pts;
    fpx_player_dispatch_events(p, NULL);
    outbox_init(&box);
    box.first_id = o.seek_id + 1;
    d0 = demuxed(p);
    for (i = 0; i < 1000; i++) {
        uint64_t id = 0;
        CHECK_ERR(fpx_player_seek(p, at(&it, i % 2 ? landedB : landedA), fpx_precision_exact(), on_outcome, &box,
                                   &id), FPX_OK);
        last = id;
    }
    CHECK_EQ(demuxed(p), d0);
    CHECK_OK(fpx_player_dispatch_events(p, &dispatched));
    CHECK_EQ(dispatched, 1000);
    CHECK_EQ(box.count, 1000);
    CHECK_EQ(box.order_errors, 0);
    CHECK_EQ(box.last.seek_id, last);
    CHECK_EQ(box.last.finished, 1);
    CHECK_EQ(box.last.landed_stream_pts, landedB);
    /* One positioning, at the last landing: a handful of packets, not one per seek. */
    memset(&pk, 0, sizeof pk);
    pk.struct_size = sizeof pk;
    CHECK_OK(fpx_player_read_packet(p, &pk));
    CHECK_EQ(pk.seek_id, last);
    CHECK(pk.flags & FPX_PACKET_FLAG_DISCONTINUITY);
    CHECK(pk.flags & FPX_PACKET_FLAG_KEY);
    CHECK_EQ(pk.landed_pts, landedB);
    CHECK(demuxed(p) - d0 < 100);
    fpx_player_destroy(p);

    /* Thread delivery, memory seeks mixed with seeks the worker must scan (not yet in the
     * grid): every seek completes exactly once, in the order issued. */
    p = make_player(FPX_DELIVERY_THREAD);
    if (!p)
        return;
    CHECK_OK(open_wait(p, path, &st));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_seek_wait(p, at(&it, A), fpx_precision_exact(), 5000, &o));
    outbox_init(&box);
    box.first_id = o.seek_id + 1;
    for (i = 0; i < 1000; i++) {
        int64_t t = i % 7 == 3 ? it.start + (int64_t)(i % 11 + 1) * it.tb_den : landedA;
        CHECK_ERR(fpx_player_seek(p, at(&it, t), i % 5 == 1 ? fpx_precision_nearest_keyframe(fpx_time_make(1, 1))
                                                             : fpx_precision_exact(),
                                   on_outcome, &box, &last), FPX_OK);
    }
    CHECK(outbox_wait(&box, 1000, 20000));
    sleep_ms(50);
    CHECK_EQ(box.count, 1000);
    CHECK_EQ(box.order_errors, 0);
    CHECK_EQ(box.last.seek_id, last);
    finished = box.last.finished;
    CHECK_EQ(finished, 1);
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    char mkv[1024], mp4[1024];
    check_init(argc, argv, 240);
    snprintf(mkv, sizeof mkv, "%s", fixture("mkv.mkv"));
    snprintf(mp4, sizeof mp4, "%s", fixture("mp4_bframes.mp4"));
    SECTION("grid: host delivery (mkv, mp4)");
    grid_seeks(mkv, FPX_DELIVERY_HOST);
    grid_seeks(mp4, FPX_DELIVERY_HOST);
    SECTION("grid: thread delivery (mkv, mp4)");
    grid_seeks(mkv, FPX_DELIVERY_THREAD);
    grid_seeks(mp4, FPX_DELIVERY_THREAD);
    SECTION("keyframe index: Matroska cues");
    index_seeks(mkv);
    SECTION("positioning error on the next read (http)");
    http_position_error(mkv);
    SECTION("busy engine: fpx_player_seek does not block");
    busy_engine(mkv);
    SECTION("storms");
    storm(mkv);
    return check_summary();
}
