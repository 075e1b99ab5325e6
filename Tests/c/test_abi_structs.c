/* The output-struct rule (seek.h, section 7): "old hosts" built against
 * truncated copies of every struct the library fills, inside guard bytes.
 *
 * For each output struct and for every caller size from 0 to sizeof + 24, the
 * struct is placed between 64 guard bytes on each side, its first size_t set
 * to that size, and the export called. Checked:
 *   - no guard byte changes, and no byte at or past the caller's size changes;
 *   - sizes 1..7 give FPX_ERROR_INVALID_ARGUMENT and change nothing at all;
 *   - size 0 fills the legacy layout (the whole struct, except
 *     fpx_frame_step_result: 48 bytes); a larger size fills min(size, sizeof);
 *   - struct_size reads back what was filled;
 *   - the filled bytes of every field equal a full-size call's (the reference).
 * Then named old hosts: a 0.1 host's 48-byte fpx_frame_step_result and a host
 * whose structs stop after struct_size, and a refused read/step that must not
 * consume a packet or move the playhead.
 * The member lists come from the header (Tests/c/abi_fields.h, generated), and every
 * output struct of the header must be filled by some call here (or be named as
 * library memory, a callback argument).
 * Usage: test_abi_structs FIXTURE_DIR */
#include "check.h"

#include <stddef.h>
#include <stdio.h>

#include "abi_fields.h"

#define GUARD 64
#define MAXS 512
#define G_BYTE 0xA5
#define R_BYTE 0xCC

typedef struct field {
    const char *name; /* "struct.member.path" */
    size_t off, len;
} field;

/* Every member of every output struct, generated from the header (tools/abi_gen.py). */
#define F(T, path) {#T "." #path, offsetof(T, path), sizeof(((T *)0)->path)},
#define FIELDS(T) static const field f_##T[] = {FPX_FIELDS_##T(F)};
FPX_OUTPUT_STRUCTS(FIELDS)
#define TABLE(T) {#T, f_##T, sizeof f_##T / sizeof f_##T[0]},
static const struct output_struct {
    const char *type;
    const field *fields;
    size_t nfields;
} output_structs[] = {FPX_OUTPUT_STRUCTS(TABLE)};

/* Members that differ between two calls or two players: pointers into the item
 * (compared as present/absent) and latencies (not compared). */
static const char *const volatile_fields[] = {"fpx_packet.data", "fpx_packet.av_packet",
                                              "fpx_seek_outcome.latency", "fpx_seek_outcome.latency_ns",
                                              "fpx_preview.data", "fpx_preview.av_packet"};

static int is_volatile(const field *f)
{
    size_t i;
    for (i = 0; i < sizeof volatile_fields / sizeof volatile_fields[0]; i++)
        if (strcmp(f->name, volatile_fields[i]) == 0)
            return 1;
    return 0;
}

/* The 0.2.0 layout: the struct as it ended at member m, padded to its alignment
 * (every struct here is 8-byte aligned). Frozen: fields appended later do not
 * change it. */
#define LEGACY(T, m) ((offsetof(T, m) + sizeof(((T *)0)->m) + 7) / 8 * 8)

/* The players: `a` gets the old hosts' calls, `b` the reference calls. For
 * calls that consume (packets, steps) a and b are two players on the same
 * file doing the same thing; for the others b == a. */
static fpx_player *pa, *pb, *pa_keep, *pb_keep;

typedef int (*fill_fn)(fpx_player *p, void *out);
static int fill_status(fpx_player *p, void *o) { return fpx_player_item_status(p, o); }
static int fill_wait(fpx_player *p, void *o) { return fpx_player_wait_item(p, 1000, o); }
static int fill_info(fpx_player *p, void *o) { return fpx_player_item_info(p, o); }
static int fill_stream(fpx_player *p, void *o) { return fpx_player_stream_info(p, 0, o); }
static int fill_packet(fpx_player *p, void *o) { return fpx_player_read_packet(p, o); }
static int fill_stats(fpx_player *p, void *o) { return fpx_player_stats_get(p, o); }
static int fill_step(fpx_player *p, void *o) { return fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, o); }
static int fill_window(fpx_player *p, void *o) { return fpx_player_live_seek_window(p, o); }
static int fill_versions(fpx_player *p, void *o)
{
    (void)p;
    return fpx_ffmpeg_versions(o);
}
static int fill_variant(fpx_player *p, void *o) { return fpx_player_hls_variant(p, 1, o); }
static int fill_rendition(fpx_player *p, void *o) { return fpx_player_hls_rendition(p, 0, o); }
/* A keyframe-index preview fills every member but image_url (its source is set in main). */
static int fill_preview(fpx_player *p, void *o) { return fpx_player_preview(p, fpx_time_make(3, 2), o); }
static int fill_seekwait(fpx_player *p, void *o)
{
    return fpx_player_seek_wait(p, fpx_time_make(3, 2), fpx_precision_exact(), 10000, o);
}

typedef struct kind {
    const char *name, *type;
    size_t size, legacy;
    const field *fields;
    size_t nfields;
    fill_fn fill;
    int two_players;
} kind;

#define K(name, T, legacy, fn, two) {name, #T, sizeof(T), legacy, f_##T, sizeof f_##T / sizeof f_##T[0], fn, two}

static const kind kinds[] = {
    K("fpx_player_item_status", fpx_item_status_info, LEGACY(fpx_item_status_info, av_error), fill_status, 0),
    K("fpx_player_wait_item", fpx_item_status_info, LEGACY(fpx_item_status_info, av_error), fill_wait, 0),
    K("fpx_player_item_info", fpx_item_info, LEGACY(fpx_item_info, format_name), fill_info, 0),
    K("fpx_player_stream_info", fpx_stream_info, LEGACY(fpx_stream_info, codecpar), fill_stream, 0),
    K("fpx_player_read_packet", fpx_packet, LEGACY(fpx_packet, av_packet), fill_packet, 1),
    K("fpx_player_stats_get", fpx_player_stats, LEGACY(fpx_player_stats, events_delivered), fill_stats, 0),
    K("fpx_player_step_frame", fpx_frame_step_result, 48, fill_step, 1),
    K("fpx_player_live_seek_window", fpx_live_seek_window, LEGACY(fpx_live_seek_window, hold_back), fill_window, 0),
    K("fpx_player_seek_wait", fpx_seek_outcome, LEGACY(fpx_seek_outcome, packets_read), fill_seekwait, 1),
    /* new in 0.4: their legacy layout (struct_size 0) is the whole 0.4 struct */
    K("fpx_ffmpeg_versions", fpx_ffmpeg_version_info, sizeof(fpx_ffmpeg_version_info), fill_versions, 0),
    K("fpx_player_preview", fpx_preview, sizeof(fpx_preview), fill_preview, 0),
};

/* The same, on the HLS master player (variants and renditions exist only there). */
static const kind hls_kinds[] = {
    K("fpx_player_hls_variant", fpx_hls_variant, sizeof(fpx_hls_variant), fill_variant, 0),
    K("fpx_player_hls_rendition", fpx_hls_rendition, sizeof(fpx_hls_rendition), fill_rendition, 0),
};

/* Output structs the library fills only in its own memory (callback arguments):
 * their struct_size is the library's sizeof, there is no caller size to honour. */
static const char *const library_memory_structs[] = {"fpx_date_seek_result", "fpx_scrub_result"};

/* A union keeps the buffer aligned for every struct (C99 has no _Alignas). */
static union {
    unsigned char b[GUARD + MAXS + GUARD];
    long double ld;
    void *p;
    int64_t i;
} bufu;
#define buf bufu.b

/* One old host: caller size n. */
static void one(const kind *k, size_t n)
{
    unsigned char ref[MAXS];
    size_t want, i, j, got_size;
    int rc, rrc, bad = 0;
    unsigned char *s = buf + GUARD;

    memset(buf, G_BYTE, sizeof buf);
    memset(s, R_BYTE, n);
    memset(ref, 0, sizeof ref);
    /* The size field comes first. A caller struct of 1..7 bytes cannot hold
     * it; such a host still declares its size in the first size_t. */
    memcpy(s, &n, sizeof n);
    if (n > 0 && n < sizeof(size_t)) {
        CHECK_ERR(k->fill(pa, s), FPX_ERROR_INVALID_ARGUMENT);
        for (i = 0; i < sizeof buf; i++) {
            unsigned char w = (i >= GUARD && i < GUARD + sizeof(size_t)) ? ((unsigned char *)&n)[i - GUARD]
                                                                         : G_BYTE;
            if (buf[i] != w)
                bad++;
        }
        if (!CHECK_EQ(bad, 0))
            NOTE("%s size %zu: %d bytes changed by a refused call", k->name, n, bad);
        return;
    }
    ((size_t *)(void *)ref)[0] = k->size;
    rrc = k->fill(k->two_players ? pb : pa, ref);
    if (!CHECK_OK(rrc))
        return;
    rc = k->fill(pa, s);
    if (!CHECK_OK(rc)) {
        NOTE("%s size %zu", k->name, n);
        return;
    }
    want = n == 0 ? k->legacy : (n < k->size ? n : k->size);
    memcpy(&got_size, s, sizeof got_size);
    if (!CHECK_EQ(got_size, want))
        NOTE("%s size %zu: struct_size reads %zu", k->name, n, got_size);
    /* guards and everything past the caller's size (or the filled bytes, when
     * the caller's struct is larger than the library's) */
    for (i = 0; i < GUARD; i++)
        if (buf[i] != G_BYTE)
            bad++;
    for (i = GUARD + (n == 0 ? want : n); i < sizeof buf; i++)
        if (buf[i] != (i < GUARD + n ? R_BYTE : G_BYTE))
            bad++;
    for (i = GUARD + want; i < GUARD + n; i++)
        if (buf[i] != R_BYTE)
            bad++;
    if (!CHECK_EQ(bad, 0))
        NOTE("%s size %zu: %d guard or unfilled bytes changed", k->name, n, bad);
    /* the filled prefix of each field equals the reference call's */
    for (j = 0; j < k->nfields; j++) {
        const field *f = &k->fields[j];
        size_t end = f->off + f->len, cmp;
        if (f->off >= want) {
            for (i = f->off; i < end && i < (n == 0 ? want : n); i++)
                if (s[i] != R_BYTE)
                    bad++;
            continue;
        }
        cmp = (end <= want ? end : want) - f->off;
        if (is_volatile(f)) {
            /* pointers: present whenever the reference's is */
            int zero_a = 1, zero_r = 1;
            for (i = 0; i < cmp; i++) {
                zero_a &= s[f->off + i] == 0;
                zero_r &= ref[f->off + i] == 0;
            }
            if (cmp == f->len && zero_a != zero_r)
                bad++;
        } else if (memcmp(s + f->off, ref + f->off, cmp) != 0) {
            bad++;
            NOTE("%s size %zu: %s differs from the full-size call", k->name, n, f->name);
        }
    }
    CHECK_EQ(bad, 0);
}

/* A 0.1 host: fpx_frame_step_result ended at `explanation` (48 bytes). */
typedef struct old_step_result_0_1 {
    size_t struct_size;
    int did_step;
    fpx_frame_step_direction direction;
    fpx_time landed_media_time;
    fpx_frame_step_unavailable_reason reason;
    const char *explanation;
} old_step_result_0_1;

typedef struct guarded_old_step {
    unsigned char before[32];
    old_step_result_0_1 r;
    unsigned char after[32];
} guarded_old_step;

/* A host whose structs stop after the size field (the smallest legal one). */
typedef struct tiny_out {
    size_t struct_size;
} tiny_out;

typedef struct guarded_tiny {
    unsigned char before[32];
    tiny_out t;
    unsigned char after[32];
} guarded_tiny;

static int guards_intact(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (a[i] != G_BYTE || b[i] != G_BYTE)
            return 0;
    return 1;
}

static fpx_player *open_player(const char *path)
{
    fpx_player *p = make_player(FPX_DELIVERY_HOST); /* nothing moves the stats behind our back */
    REQUIRE(p != NULL);
    REQUIRE(open_wait(p, path, NULL) == FPX_OK);
    REQUIRE(fpx_player_setup_seek_manager(p) == FPX_OK);
    return p;
}

int main(int argc, char **argv)
{
    size_t ki, n;
    fpx_time t0, t1;
    check_init(argc, argv, 110);

    SECTION("every output struct, every caller size, inside guard bytes");
    pa = open_player(fixture("mp4_bframes.mp4"));
    pb = open_player(fixture("mp4_bframes.mp4"));
    pa_keep = pa;
    pb_keep = pb;
    REQUIRE(fpx_player_set_preview_source(pa, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL) == FPX_OK);
    REQUIRE(fpx_player_set_preview_source(pb, FPX_PREVIEW_KEYFRAME_INDEX, NULL, NULL) == FPX_OK);
    for (ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        const kind *k = &kinds[ki];
        REQUIRE(k->size + 24 <= MAXS);
        for (n = 0; n <= k->size + 24; n++)
            one(k, n);
    }

    SECTION("every output struct is covered here: the header's list (abi_fields.h)");
    {
        size_t i, j;
        for (i = 0; i < sizeof output_structs / sizeof output_structs[0]; i++) {
            const char *t = output_structs[i].type;
            int covered = 0;
            for (j = 0; j < sizeof kinds / sizeof kinds[0]; j++)
                covered |= strcmp(kinds[j].type, t) == 0;
            for (j = 0; j < sizeof hls_kinds / sizeof hls_kinds[0]; j++)
                covered |= strcmp(hls_kinds[j].type, t) == 0;
            for (j = 0; j < sizeof library_memory_structs / sizeof library_memory_structs[0]; j++)
                covered |= strcmp(library_memory_structs[j], t) == 0;
            if (!CHECK(covered))
                NOTE("%s: an output struct of the header (%zu members) that no call here fills", t,
                     output_structs[i].nfields);
        }
    }

    SECTION("fpx_hls_variant and fpx_hls_rendition, every caller size, on a local master playlist");
    {
        char dir[4096], path[4200], cmd[8400];
        FILE *m;
        fpx_player *h;
        REQUIRE(make_hls_vod(dir, sizeof dir, "abi", 2));
        snprintf(path, sizeof path, "%s/master.m3u8", dir);
        m = fopen(path, "w");
        REQUIRE(m != NULL);
        fputs("#EXTM3U\n"
              "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"English\",LANGUAGE=\"en\",CHANNELS=\"2\","
              "DEFAULT=YES,AUTOSELECT=YES\n"
              "#EXT-X-STREAM-INF:BANDWIDTH=300000,AVERAGE-BANDWIDTH=250000,RESOLUTION=160x120,"
              "FRAME-RATE=25.000,CODECS=\"avc1.64000c\",AUDIO=\"aud\"\nvod.m3u8\n"
              "#EXT-X-STREAM-INF:BANDWIDTH=200000,RESOLUTION=160x120,FRAME-RATE=25.000,"
              "CODECS=\"avc1.64000c\",HDCP-LEVEL=NONE,AUDIO=\"aud\"\nvod.m3u8\n",
              m);
        fclose(m);
        h = make_player(FPX_DELIVERY_HOST);
        REQUIRE(h != NULL);
        REQUIRE(open_wait(h, path, NULL) == FPX_OK);
        pa = pb = h;
        for (ki = 0; ki < sizeof hls_kinds / sizeof hls_kinds[0]; ki++) {
            const kind *k = &hls_kinds[ki];
            REQUIRE(k->size + 24 <= MAXS);
            for (n = 0; n <= k->size + 24; n++)
                one(k, n);
        }
        CHECK_OK(fpx_player_destroy(h));
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK_EQ(system(cmd), 0);
        pa = pa_keep;
        pb = pb_keep;
    }

    SECTION("fpx_player_config: a 0.3 host's init writes 64 bytes; init_size never writes past its size");
    {
        size_t req = offsetof(fpx_player_config, wakeup), full = sizeof(fpx_player_config);
        fpx_player_config ref;
        unsigned char *s = buf + GUARD;
        fpx_player *p = NULL;
        int bad = 0;
        size_t i;
        CHECK_OK(fpx_player_config_init_size(&ref, sizeof ref));
        CHECK_EQ(ref.size, full);
        CHECK_EQ(ref.delivery, FPX_DELIVERY_THREAD);
        CHECK_EQ(ref.io_timeout_ms, 10000);
        CHECK_EQ(ref.index_mode, FPX_INDEX_KEYFRAMES);
        CHECK_EQ(ref.hls_audio, 0);
        /* the macro is the sized call */
        memset(&ref, 0x5A, sizeof ref);
        fpx_player_config_init(&ref);
        CHECK_EQ(ref.size, full);
        CHECK_EQ(ref.hls_variant, 0);
        /* a binary built against the 0.3 header: the function itself, 64 bytes */
        memset(buf, G_BYTE, sizeof buf);
        (fpx_player_config_init)((fpx_player_config *)(void *)s);
        for (i = 64; i < sizeof buf - GUARD; i++)
            bad += s[i] != G_BYTE;
        for (i = 0; i < GUARD; i++)
            bad += buf[i] != G_BYTE;
        if (!CHECK_EQ(bad, 0))
            NOTE("fpx_player_config_init: %d bytes past a 0.3 host's 64-byte struct changed", bad);
        CHECK_EQ(((fpx_player_config *)(void *)s)->size, 64);
        CHECK(memcmp(s + sizeof(size_t), (unsigned char *)&ref + sizeof(size_t), 64 - sizeof(size_t)) == 0);
        CHECK_OK(fpx_player_create((fpx_player_config *)(void *)s, &p));
        CHECK_OK(fpx_player_destroy(p));
        /* every size: nothing at or past it changes, too small is refused untouched */
        for (n = 0; n <= full + 24; n++) {
            size_t want = n < req ? 0 : (n < full ? n / 8 * 8 : full);
            memset(buf, G_BYTE, sizeof buf);
            bad = 0;
            if (n < req) {
                CHECK_ERR(fpx_player_config_init_size((fpx_player_config *)(void *)s, n), FPX_ERROR_INVALID_ARGUMENT);
            } else {
                CHECK_OK(fpx_player_config_init_size((fpx_player_config *)(void *)s, n));
                CHECK_EQ(((fpx_player_config *)(void *)s)->size, want);
                bad += memcmp(s + sizeof(size_t), (unsigned char *)&ref + sizeof(size_t), want - sizeof(size_t)) != 0;
            }
            for (i = 0; i < sizeof buf; i++)
                if (i < GUARD || i >= GUARD + want)
                    bad += buf[i] != G_BYTE;
            if (!CHECK_EQ(bad, 0))
                NOTE("fpx_player_config_init_size(%zu): wrote past its size or other bytes than the defaults", n);
        }
        CHECK_ERR(fpx_player_config_init_size(NULL, full), FPX_ERROR_INVALID_ARGUMENT);
    }

    SECTION("a 0.1 host's 48-byte fpx_frame_step_result");
    {
        guarded_old_step g;
        fpx_frame_step_result full = {.struct_size = sizeof(fpx_frame_step_result)};
        CHECK_EQ(sizeof(old_step_result_0_1), 48);
        memset(&g, G_BYTE, sizeof g);
        memset(&g.r, 0, sizeof g.r);
        g.r.struct_size = sizeof g.r;
        CHECK_OK(fpx_player_step_frame(pa, FPX_STEP_BACKWARD, 1, (fpx_frame_step_result *)(void *)&g.r));
        CHECK_OK(fpx_player_step_frame(pb, FPX_STEP_BACKWARD, 1, &full));
        CHECK(guards_intact(g.before, g.after, sizeof g.before));
        CHECK_EQ(g.r.struct_size, 48);
        CHECK_EQ(g.r.did_step, full.did_step);
        CHECK_TIME_EQ(g.r.landed_media_time, full.landed_media_time);
        CHECK(g.r.explanation == full.explanation);
        /* the same host, zeroed and never told about struct_size */
        memset(&g, G_BYTE, sizeof g);
        memset(&g.r, 0, sizeof g.r);
        CHECK_OK(fpx_player_step_frame(pa, FPX_STEP_FORWARD, 1, (fpx_frame_step_result *)(void *)&g.r));
        CHECK(guards_intact(g.before, g.after, sizeof g.before));
        CHECK_EQ(g.r.struct_size, 48);
        CHECK_EQ(g.r.did_step, 1);
    }

    SECTION("a host whose structs end after struct_size");
    {
        guarded_tiny g;
        for (ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
            memset(&g, G_BYTE, sizeof g);
            g.t.struct_size = sizeof g.t;
            CHECK_OK(kinds[ki].fill(pa, &g.t));
            CHECK(guards_intact(g.before, g.after, sizeof g.before));
            CHECK_EQ(g.t.struct_size, sizeof(size_t));
        }
    }

    SECTION("a refused size consumes no packet and moves no playhead");
    {
        fpx_packet a = {.struct_size = 3}, ra = {.struct_size = sizeof(fpx_packet)},
                   rb = {.struct_size = sizeof(fpx_packet)};
        fpx_frame_step_result s = {.struct_size = 7};
        CHECK_OK(fpx_player_current_time(pa, &t0));
        CHECK_ERR(fpx_player_step_frame(pa, FPX_STEP_FORWARD, 1, &s), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_EQ(s.struct_size, 7);
        CHECK_OK(fpx_player_current_time(pa, &t1));
        CHECK_TIME_EQ(t1, t0);
        /* bring both players to the same place, then refuse one read on a */
        CHECK_OK(fpx_player_setup_seek_manager(pa));
        CHECK_OK(fpx_player_setup_seek_manager(pb));
        CHECK_OK(fpx_player_seek(pa, fpx_time_make(1, 1), fpx_precision_exact(), NULL, NULL, NULL));
        CHECK_OK(fpx_player_seek(pb, fpx_time_make(1, 1), fpx_precision_exact(), NULL, NULL, NULL));
        CHECK_ERR(fpx_player_read_packet(pa, &a), FPX_ERROR_INVALID_ARGUMENT);
        CHECK_EQ(a.struct_size, 3);
        CHECK_OK(fpx_player_read_packet(pa, &ra));
        CHECK_OK(fpx_player_read_packet(pb, &rb));
        CHECK_EQ(ra.pts, rb.pts);
        CHECK_EQ(ra.dts, rb.dts);
        CHECK_EQ(ra.size, rb.size);
        CHECK_EQ(ra.flags, rb.flags);
        CHECK(ra.size == rb.size && memcmp(ra.data, rb.data, ra.size) == 0);
    }

    SECTION("NULL output pointers");
    CHECK_ERR(fpx_player_item_info(pa, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_read_packet(pa, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_OK(fpx_player_wait_item(pa, 1000, NULL));

    CHECK_OK(fpx_player_destroy(pa));
    CHECK_OK(fpx_player_destroy(pb));
    return check_summary();
}
