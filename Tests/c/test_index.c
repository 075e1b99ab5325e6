/*
 * test_index -- fpx_player_config.index_mode (FPX_INDEX_OFF / KEYFRAMES / FULL).
 *
 *   - config: an unknown index_mode is FPX_ERROR_UNKNOWN_ENUM; a config whose size ends
 *     before index_mode gets the default whatever lies past it; a stats struct whose size
 *     ends before index_frames gets nothing written there;
 *   - FULL on every file fixture: on_index_complete fires exactly once, the stats say
 *     complete, index_frames equals ffprobe's count of the reference stream's packets
 *     that are not discard-flagged, and the index's reads show in packets_demuxed;
 *   - after completion, exact seeks to a sample of targets land where ffprobe says (the
 *     largest non-discard reference pts <= target) and nearest-keyframe seeks on a packet
 *     ffprobe flags key, both where FPX_INDEX_OFF players' scans land, reading no more
 *     packets than those scans (video: per seek, and fewer in total; audio: in total). A seek resolved from the
 *     complete grid is decided from memory: packets_read is 0 (the demuxer is positioned by
 *     the next read; test_memory_seek.c checks those packets);
 *   - OFF and KEYFRAMES do no extra demuxing (packets_demuxed still after READY), and
 *     OFF does not use the container's keyframe index (a cold nearest-keyframe seek on
 *     an MP4 reads more packets than with KEYFRAMES);
 *   - the index thread runs at nice +10 (named fpx-index; the worker fpx-worker at 0);
 *   - destroy and close_item while the index is reading a long file return within 1 s,
 *     with no on_index_complete; an old listener (size without on_index_complete) works.
 *
 * Ground truth: ffprobe -show_packets (stream_index, pts, flags).
 */
#include "check.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

typedef struct {
    int64_t *pts; /* sorted, non-discard reference packets */
    int *key;
    size_t n;
} truth;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The reference stream's packets as ffprobe lists them, discard-flagged ones left out. */
static size_t load_truth(truth *t, const char *path, int stream)
{
    char cmd[2048], line[256];
    FILE *f;
    size_t cap = 1024, nk = 0, capk = 1024;
    int64_t *keys = malloc(capk * sizeof *keys);
    memset(t, 0, sizeof *t);
    t->pts = malloc(cap * sizeof *t->pts);
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -select_streams %d -show_entries packet=pts,flags -of csv=p=0 '%s'", stream, path);
    f = popen(cmd, "r");
    if (!f || !t->pts || !keys)
        return 0;
    while (fgets(line, sizeof line, f)) {
        long long pts;
        char flags[16] = "";
        if (sscanf(line, "%lld,%15s", &pts, flags) != 2)
            continue;
        if (strchr(flags, 'D'))
            continue;
        if (t->n == cap) {
            cap *= 2;
            t->pts = realloc(t->pts, cap * sizeof *t->pts);
        }
        t->pts[t->n++] = pts;
        if (strchr(flags, 'K')) {
            if (nk == capk) {
                capk *= 2;
                keys = realloc(keys, capk * sizeof *keys);
            }
            keys[nk++] = pts;
        }
    }
    pclose(f);
    qsort(t->pts, t->n, sizeof *t->pts, cmp_i64);
    qsort(keys, nk, sizeof *keys, cmp_i64);
    t->key = calloc(t->n + 1, sizeof *t->key);
    for (size_t i = 0, j = 0; i < t->n && j < nk; i++) {
        while (j < nk && keys[j] < t->pts[i])
            j++;
        if (j < nk && keys[j] == t->pts[i])
            t->key[i] = 1;
    }
    free(keys);
    return t->n;
}

static int is_key_pts(const truth *t, int64_t pts)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->pts[i] == pts)
            return t->key[i];
    return 0;
}

static fpx_player_stats stats(fpx_player *p)
{
    fpx_player_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    fpx_player_stats_get(p, &s);
    return s;
}

static volatile int completions;
static volatile long long completed_frames;

static void on_index_complete(uint64_t frames, void *ud)
{
    (void)ud;
    completed_frames = (long long)frames;
    flag_set(&completions, flag_get(&completions) + 1);
}

static fpx_player *make_indexed(fpx_index_mode mode)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    fpx_player_config_init(&cfg);
    cfg.index_mode = mode;
    if (fpx_player_create(&cfg, &p) != FPX_OK)
        return NULL;
    return p;
}

/* Item time of stream pts `pts` as an fpx_time (exact when time_base_num divides nothing away). */
static fpx_time item_time(const fpx_item_info *info, int64_t pts)
{
    return fpx_time_make((pts - info->start_pts) * info->time_base_num, info->time_base_den);
}

static int wait_complete(fpx_player *p, int seconds)
{
    for (int i = 0; i < seconds * 100; i++) {
        if (stats(p).index_complete)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

static void full_fixture(const char *name)
{
    char sect[128];
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_item_info info;
    fpx_listener l;
    truth t;
    fpx_player *p, *off, *off2;
    snprintf(sect, sizeof sect, "FULL %s", name);
    SECTION(sect);
    p = make_indexed(FPX_INDEX_FULL);
    off = make_indexed(FPX_INDEX_OFF);
    off2 = make_indexed(FPX_INDEX_OFF);
    REQUIRE(p && off && off2);
    flag_set(&completions, 0);
    fpx_listener_init(&l);
    l.on_index_complete = on_index_complete;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_setup_seek_manager(off));
    CHECK_OK(fpx_player_setup_seek_manager(off2));
    REQUIRE(open_wait(p, fixture(name), &st) == FPX_OK && st.status == FPX_ITEM_READY);
    REQUIRE(open_wait(off, fixture(name), &st) == FPX_OK && st.status == FPX_ITEM_READY);
    REQUIRE(open_wait(off2, fixture(name), &st) == FPX_OK && st.status == FPX_ITEM_READY);
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_OK(fpx_player_item_info(p, &info));
    REQUIRE(load_truth(&t, fixture(name), info.reference_stream) > 0);
    CHECK(wait_complete(p, 60));
    sleep_ms(200); /* an event delivered twice would show by now */
    fpx_player_stats s = stats(p);
    CHECK_EQ(flag_get(&completions), 1);
    CHECK_EQ(completed_frames, (long long)t.n);
    CHECK_EQ(s.index_complete, 1);
    CHECK_EQ(s.index_frames, t.n);
    CHECK(s.packets_demuxed >= t.n);
    NOTE("%s: %llu frames indexed, %llu packets demuxed", name, (unsigned long long)s.index_frames,
         (unsigned long long)s.packets_demuxed);

    /* A sample of targets: midway between consecutive frames, across the item. Each is
     * sought on the FULL player and on two OFF players (exact, keyframe) that scan. */
    size_t samples = t.n < 12 ? t.n : 12;
    unsigned long long full_read = 0, off_read = 0;
    for (size_t k = 0; k + 1 < samples; k++) {
        size_t i = (t.n - 1) * k / (samples - 1) + (k > 0 ? 0 : 1);
        if (i + 1 >= t.n)
            i = t.n - 2;
        int64_t tgt = t.pts[i] + (t.pts[i + 1] - t.pts[i]) / 2;
        fpx_precision precs[2] = {fpx_precision_exact(), fpx_precision_nearest_keyframe(fpx_time_make(1, 1))};
        for (int q = 0; q < 2; q++) {
            fpx_seek_outcome o, oo;
            memset(&o, 0, sizeof o);
            memset(&oo, 0, sizeof oo);
            CHECK_OK(fpx_player_seek_wait(p, item_time(&info, tgt), precs[q], 10000, &o));
            CHECK_OK(fpx_player_seek_wait(q == 0 ? off : off2, item_time(&info, tgt), precs[q], 10000, &oo));
            int ok = CHECK_EQ(o.landed_stream_pts, oo.landed_stream_pts);
            if (q == 0)
                ok &= CHECK_EQ(o.landed_stream_pts, t.pts[i]);
            else if (o.resolution == FPX_LANDING_KEYFRAME)
                ok &= CHECK(is_key_pts(&t, o.landed_stream_pts));
            /* From the grid: at most what the scan reads (only the positioning at the keyframe).
             * Audio: every packet is a keyframe, so the scan is a positioning too (and Ogg's
             * positioning at a known keyframe reads a few more than its scan): totals only. */
            if (info.has_video)
                ok &= CHECK(o.packets_read <= oo.packets_read);
            /* Decided from memory: nothing read by the seek itself. */
            ok &= CHECK_EQ(o.packets_read, 0);
            if (!ok)
                NOTE("%s %s target pts %lld: read %llu, OFF read %llu", name, q ? "keyframe" : "exact",
                     (long long)tgt, (unsigned long long)o.packets_read, (unsigned long long)oo.packets_read);
            full_read += o.packets_read;
            off_read += oo.packets_read;
        }
    }
    NOTE("%s: packets read by the sample's seeks: FULL %llu, OFF %llu", name, full_read, off_read);
    CHECK(full_read <= off_read);
    if (info.has_video)
        CHECK(full_read < off_read);
    CHECK_EQ(flag_get(&completions), 1);
    fpx_player_destroy(p);
    fpx_player_destroy(off);
    fpx_player_destroy(off2);
    free(t.pts);
    free(t.key);
}

static void no_extra_demux(fpx_index_mode mode, const char *label)
{
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_player *p = make_indexed(mode);
    fpx_listener l;
    SECTION(label);
    REQUIRE(p);
    flag_set(&completions, 0);
    fpx_listener_init(&l);
    l.on_index_complete = on_index_complete;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), &st) == FPX_OK && st.status == FPX_ITEM_READY);
    uint64_t before = stats(p).packets_demuxed;
    sleep_ms(500);
    fpx_player_stats s = stats(p);
    CHECK_EQ(s.packets_demuxed, before);
    CHECK_EQ(s.index_frames, 0);
    CHECK_EQ(s.index_complete, 0);
    CHECK_EQ(flag_get(&completions), 0);
    fpx_player_destroy(p);
}

/* OFF never uses the container's index: a cold nearest-keyframe seek scans. */
static void off_scans(void)
{
    SECTION("OFF: no container keyframe index");
    uint64_t read[2] = {0, 0};
    int64_t landed[2] = {0, 0};
    fpx_index_mode modes[2] = {FPX_INDEX_OFF, FPX_INDEX_KEYFRAMES};
    for (int m = 0; m < 2; m++) {
        fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
        fpx_seek_outcome o;
        fpx_player *p = make_indexed(modes[m]);
        REQUIRE(p);
        CHECK_OK(fpx_player_setup_seek_manager(p));
        REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), &st) == FPX_OK && st.status == FPX_ITEM_READY);
        memset(&o, 0, sizeof o);
        CHECK_OK(fpx_player_seek_wait(p, fpx_time_make(37, 10), fpx_precision_nearest_keyframe(fpx_time_make(2, 1)),
                                      10000, &o));
        read[m] = o.packets_read;
        landed[m] = o.landed_stream_pts;
        fpx_player_destroy(p);
    }
    NOTE("packets read: OFF %llu, KEYFRAMES %llu", (unsigned long long)read[0], (unsigned long long)read[1]);
    CHECK_EQ(landed[0], landed[1]);
    CHECK(read[0] > read[1]);
}

static void config_checks(void)
{
    fpx_player_config cfg;
    fpx_player *p = NULL;
    SECTION("config");
    fpx_player_config_init(&cfg);
    CHECK_EQ(cfg.index_mode, FPX_INDEX_KEYFRAMES);
    cfg.index_mode = (fpx_index_mode)3;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_UNKNOWN_ENUM);
    cfg.index_mode = (fpx_index_mode)-1;
    CHECK_ERR(fpx_player_create(&cfg, &p), FPX_ERROR_UNKNOWN_ENUM);
    /* An older host's struct ends before index_mode: whatever follows is not read. */
    cfg.index_mode = (fpx_index_mode)77;
    cfg.size = offsetof(fpx_player_config, index_mode);
    CHECK_OK(fpx_player_create(&cfg, &p));
    if (p) {
        fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
        REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), &st) == FPX_OK);
        sleep_ms(300);
        CHECK_EQ(stats(p).index_frames, 0); /* the default, KEYFRAMES */
        fpx_player_destroy(p);
        p = NULL;
    }
    cfg.size = offsetof(fpx_player_config, index_mode) + sizeof(fpx_index_mode);
    cfg.index_mode = FPX_INDEX_FULL;
    CHECK_OK(fpx_player_create(&cfg, &p));
    if (p) {
        fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
        REQUIRE(open_wait(p, fixture("mp4_bframes.mp4"), &st) == FPX_OK);
        CHECK(wait_complete(p, 30));
        /* An older host's stats struct ends before the new fields: they are not written. */
        fpx_player_stats s;
        memset(&s, 0, sizeof s);
        s.struct_size = offsetof(fpx_player_stats, index_frames);
        s.index_frames = 777;
        s.index_complete = 777;
        CHECK_OK(fpx_player_stats_get(p, &s));
        CHECK_EQ(s.struct_size, offsetof(fpx_player_stats, index_frames));
        CHECK_EQ(s.index_frames, 777);
        CHECK_EQ(s.index_complete, 777);
        CHECK(s.packets_demuxed > 0);
        fpx_player_destroy(p);
    }
}

/* Makes a long MPEG-TS file (many small packets) so the index is still reading when stopped. */
static const char *long_file(char *path, size_t n)
{
    char cmd[1024];
    snprintf(path, n, "/tmp/fpx-index-long-%ld.ts", (long)getpid());
    snprintf(cmd, sizeof cmd,
             "ffmpeg -v error -y -f lavfi -i testsrc=size=32x32:rate=50 -t 2400 -c:v mpeg2video -g 50 -q:v 31 "
             "'%s' </dev/null",
             path);
    if (system(cmd) != 0)
        return NULL;
    return path;
}

/* The nice value of this process's thread named `name` (/proc/self/task/<tid>/comm and
 * stat's 19th field), or -100 when there is none. */
static int thread_nice(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int nice = -100;
    if (!d)
        return nice;
    while ((e = readdir(d)) != NULL && nice == -100) {
        char path[300], comm[64] = {0}, stat[1024] = {0};
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
        comm[strcspn(comm, "\n")] = 0;
        if (strcmp(comm, name) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        if (fgets(stat, sizeof stat, f)) {
            /* Fields after the ")" that ends comm: state is field 3, nice is field 19. */
            char *q = strrchr(stat, ')');
            long v[20];
            if (q && sscanf(q + 2, "%*c %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", &v[4], &v[5],
                            &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15], &v[16],
                            &v[17], &v[18], &v[19]) == 16)
                nice = (int)v[19];
        }
        fclose(f);
    }
    closedir(d);
    return nice;
}

static void stop_while_indexing(const char *path)
{
    SECTION("destroy and close_item during indexing");
    for (int round = 0; round < 2; round++) {
        fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
        fpx_listener l;
        fpx_player *p = make_indexed(FPX_INDEX_FULL);
        REQUIRE(p);
        flag_set(&completions, 0);
        fpx_listener_init(&l);
        l.on_index_complete = on_index_complete;
        CHECK_OK(fpx_player_add_listener(p, &l, NULL));
        REQUIRE(open_wait(p, path, &st) == FPX_OK && st.status == FPX_ITEM_READY);
        /* Until the index has visibly started. */
        for (int i = 0; i < 1000 && stats(p).index_frames == 0; i++)
            sleep_ms(5);
        fpx_player_stats s = stats(p);
        CHECK(s.index_frames > 0);
        CHECK_EQ(s.index_complete, 0);
        if (round == 0) {
            /* The index yields the CPU: its thread runs at nice +10 relative to the host's
             * (capped at 19; never an absolute 10, which would raise a niced host's index
             * above the host), the worker and event threads at the host's (all named, as
             * top -H and gdb show them). The host's nice is whatever this test was run at. */
            int host_nice = getpriority(PRIO_PROCESS, 0);
            NOTE("host thread nice %d", host_nice);
            CHECK_EQ(thread_nice("fpx-index"), host_nice + 10 > 19 ? 19 : host_nice + 10);
            CHECK_EQ(thread_nice("fpx-worker"), host_nice);
            CHECK_EQ(thread_nice("fpx-events"), host_nice);
        }
        uint64_t t0 = now_ns();
        if (round == 0) {
            CHECK_OK(fpx_player_destroy(p));
            uint64_t ms = (now_ns() - t0) / 1000000;
            NOTE("destroy took %llu ms", (unsigned long long)ms);
            CHECK(ms < 1000);
        } else {
            CHECK_OK(fpx_player_close_item(p));
            /* The close runs on the worker: a new open after it is READY only when the index stopped. */
            CHECK_OK(fpx_player_open(p, fixture("mp4_bframes.mp4")));
            CHECK_OK(fpx_player_wait_item(p, 10000, &st));
            uint64_t ms = (now_ns() - t0) / 1000000;
            NOTE("close_item + reopen took %llu ms", (unsigned long long)ms);
            CHECK(ms < 1000);
            CHECK(wait_complete(p, 30)); /* the new item's own index */
            sleep_ms(100);
            CHECK_EQ(flag_get(&completions), 1);
            fpx_player_destroy(p);
            continue;
        }
        CHECK_EQ(flag_get(&completions), 0);
    }
}

/* A listener from a host built before on_index_complete: its size ends before it. */
static void old_listener(void)
{
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    fpx_listener l;
    fpx_player *p = make_indexed(FPX_INDEX_FULL);
    SECTION("old listener without on_index_complete");
    REQUIRE(p);
    flag_set(&completions, 0);
    fpx_listener_init(&l);
    l.on_index_complete = on_index_complete; /* past size: must never be called */
    l.size = offsetof(fpx_listener, on_index_complete);
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    REQUIRE(open_wait(p, fixture("mkv.mkv"), &st) == FPX_OK && st.status == FPX_ITEM_READY);
    CHECK(wait_complete(p, 30));
    sleep_ms(200);
    CHECK_EQ(flag_get(&completions), 0);
    fpx_player_destroy(p);
}

int main(int argc, char **argv)
{
    static const char *files[] = {"mp4_bframes.mp4", "mkv.mkv", "ts.ts", "audio.m4a", "audio.mp3", "audio.opus",
                                  "fmp4.mp4", "mp4_editlist.mp4", "mp4_opengop.mp4", "mp4_tb12288.mp4",
                                  "mp4_vfr.mp4"};
    char path[256];
    check_init(argc, argv, 110);
    config_checks();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        full_fixture(files[i]);
    no_extra_demux(FPX_INDEX_OFF, "OFF: no extra demuxing");
    no_extra_demux(FPX_INDEX_KEYFRAMES, "KEYFRAMES: no extra demuxing");
    off_scans();
    old_listener();
    if (long_file(path, sizeof path)) {
        stop_while_indexing(path);
        unlink(path);
    } else {
        CHECK(!"ffmpeg could not make the long fixture");
    }
    return check_summary();
}
