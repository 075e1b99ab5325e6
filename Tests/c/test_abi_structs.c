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
 * Usage: test_abi_structs FIXTURE_DIR */
#include "check.h"

#include <stddef.h>

#define GUARD 64
#define MAXS 512
#define G_BYTE 0xA5
#define R_BYTE 0xCC

typedef struct field {
    size_t off, len;
    int volatile_; /* differs between two players (pointers into the item) */
} field;

#define F(T, m) {offsetof(T, m), sizeof(((T *)0)->m), 0}
#define FV(T, m) {offsetof(T, m), sizeof(((T *)0)->m), 1}
/* The 0.2.0 layout: the struct as it ended at member m, padded to its alignment
 * (every struct here is 8-byte aligned). Frozen: fields appended later do not
 * change it. */
#define LEGACY(T, m) ((offsetof(T, m) + sizeof(((T *)0)->m) + 7) / 8 * 8)

static const field f_status[] = {F(fpx_item_status_info, item_id), F(fpx_item_status_info, status),
                                 F(fpx_item_status_info, error), F(fpx_item_status_info, av_error)};
static const field f_info[] = {F(fpx_item_info, stream_count), F(fpx_item_info, reference_stream),
                               F(fpx_item_info, has_video), F(fpx_item_info, duration),
                               F(fpx_item_info, start_pts), F(fpx_item_info, time_base_num),
                               F(fpx_item_info, time_base_den), F(fpx_item_info, seekable),
                               F(fpx_item_info, format_name), F(fpx_item_info, seekable_range_truncated)};
static const field f_stream[] = {F(fpx_stream_info, index), F(fpx_stream_info, type),
                                 F(fpx_stream_info, codec_id), F(fpx_stream_info, codec_name),
                                 F(fpx_stream_info, time_base_num), F(fpx_stream_info, time_base_den),
                                 F(fpx_stream_info, width), F(fpx_stream_info, height),
                                 F(fpx_stream_info, sample_rate), F(fpx_stream_info, channels),
                                 F(fpx_stream_info, video_delay), F(fpx_stream_info, extradata),
                                 F(fpx_stream_info, extradata_size), F(fpx_stream_info, codecpar),
                                 F(fpx_stream_info, profile), F(fpx_stream_info, level),
                                 F(fpx_stream_info, pixel_format), F(fpx_stream_info, bit_depth),
                                 F(fpx_stream_info, frame_rate_num), F(fpx_stream_info, color_space),
                                 F(fpx_stream_info, rotation_degrees), F(fpx_stream_info, sample_format),
                                 F(fpx_stream_info, channel_layout), F(fpx_stream_info, codec_tag),
                                 F(fpx_stream_info, bit_rate), F(fpx_stream_info, language)};
static const field f_packet[] = {FV(fpx_packet, data), F(fpx_packet, size), F(fpx_packet, stream_index),
                                 F(fpx_packet, pts), F(fpx_packet, dts), F(fpx_packet, duration),
                                 F(fpx_packet, pos), F(fpx_packet, flags), F(fpx_packet, seek_id),
                                 FV(fpx_packet, av_packet), F(fpx_packet, landed_pts),
                                 F(fpx_packet, landed_pts_in_stream), F(fpx_packet, trim_samples),
                                 F(fpx_packet, landed_stream_index)};
static const field f_stats[] = {F(fpx_player_stats, seeks_issued), F(fpx_player_stats, seeks_completed),
                                F(fpx_player_stats, seeks_superseded), F(fpx_player_stats, seeks_cancelled),
                                F(fpx_player_stats, seeks_failed), F(fpx_player_stats, packets_demuxed),
                                F(fpx_player_stats, bytes_read), F(fpx_player_stats, events_delivered)};
static const field f_step[] = {F(fpx_frame_step_result, did_step), F(fpx_frame_step_result, direction),
                               F(fpx_frame_step_result, landed_media_time), F(fpx_frame_step_result, reason),
                               F(fpx_frame_step_result, explanation),
                               F(fpx_frame_step_result, landed_stream_pts),
                               F(fpx_frame_step_result, packets_read)};
static const field f_window[] = {F(fpx_live_seek_window, is_available), F(fpx_live_seek_window, is_live),
                                 F(fpx_live_seek_window, is_date_addressable), F(fpx_live_seek_window, start),
                                 F(fpx_live_seek_window, end), F(fpx_live_seek_window, duration),
                                 F(fpx_live_seek_window, duration_seconds),
                                 F(fpx_live_seek_window, start_date_us), F(fpx_live_seek_window, end_date_us),
                                 F(fpx_live_seek_window, first_sequence),
                                 F(fpx_live_seek_window, last_sequence),
                                 F(fpx_live_seek_window, target_duration), F(fpx_live_seek_window, hold_back)};

/* The players: `a` gets the old hosts' calls, `b` the reference calls. For
 * calls that consume (packets, steps) a and b are two players on the same
 * file doing the same thing; for the others b == a. */
static fpx_player *pa, *pb;

typedef int (*fill_fn)(fpx_player *p, void *out);
static int fill_status(fpx_player *p, void *o) { return fpx_player_item_status(p, o); }
static int fill_wait(fpx_player *p, void *o) { return fpx_player_wait_item(p, 1000, o); }
static int fill_info(fpx_player *p, void *o) { return fpx_player_item_info(p, o); }
static int fill_stream(fpx_player *p, void *o) { return fpx_player_stream_info(p, 0, o); }
static int fill_packet(fpx_player *p, void *o) { return fpx_player_read_packet(p, o); }
static int fill_stats(fpx_player *p, void *o) { return fpx_player_stats_get(p, o); }
static int fill_step(fpx_player *p, void *o) { return fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, o); }
static int fill_window(fpx_player *p, void *o) { return fpx_player_live_seek_window(p, o); }
static int fill_seekwait(fpx_player *p, void *o)
{
    return fpx_player_seek_wait(p, fpx_time_make(3, 2), fpx_precision_exact(), 10000, o);
}

/* Member `sub` (of type S) of member `m` of T, compared on its own: nested structs are
 * compared member by member, never with their padding, which no copy keeps. */
#define FN(T, m, S, sub) {offsetof(T, m) + offsetof(S, sub), sizeof(((S *)0)->sub), 0}

/* Latencies differ between two calls; everything else of the same seek is equal. */
static const field f_outcome[] = {
    F(fpx_seek_outcome, seek_id), FN(fpx_seek_outcome, precision, fpx_precision, kind),
    FN(fpx_seek_outcome, precision, fpx_precision, tolerance), F(fpx_seek_outcome, finished),
    F(fpx_seek_outcome, reason), F(fpx_seek_outcome, error), F(fpx_seek_outcome, requested_time),
    F(fpx_seek_outcome, landed_time), FV(fpx_seek_outcome, latency), FV(fpx_seek_outcome, latency_ns),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, requested_media_time),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, landed_media_time),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, tolerance_before),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, tolerance_after),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, within_requested_tolerance),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, delta),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, delta_seconds),
    FN(fpx_seek_outcome, accuracy, fpx_accuracy, absolute_delta_seconds),
    F(fpx_seek_outcome, clamp), F(fpx_seek_outcome, resolution),
    F(fpx_seek_outcome, frame_covers_target), F(fpx_seek_outcome, landed_is_keyframe),
    F(fpx_seek_outcome, stream_index), F(fpx_seek_outcome, landed_stream_pts),
    F(fpx_seek_outcome, stream_time_base_num), F(fpx_seek_outcome, stream_time_base_den),
    F(fpx_seek_outcome, packets_read)};

typedef struct kind {
    const char *name;
    size_t size, legacy;
    const field *fields;
    size_t nfields;
    fill_fn fill;
    int two_players;
} kind;

#define K(name, T, legacy, fields, fn, two) \
    {name, sizeof(T), legacy, fields, sizeof fields / sizeof fields[0], fn, two}

static const kind kinds[] = {
    K("fpx_player_item_status", fpx_item_status_info, LEGACY(fpx_item_status_info, av_error), f_status, fill_status, 0),
    K("fpx_player_wait_item", fpx_item_status_info, LEGACY(fpx_item_status_info, av_error), f_status, fill_wait, 0),
    K("fpx_player_item_info", fpx_item_info, LEGACY(fpx_item_info, format_name), f_info, fill_info, 0),
    K("fpx_player_stream_info", fpx_stream_info, LEGACY(fpx_stream_info, codecpar), f_stream, fill_stream, 0),
    K("fpx_player_read_packet", fpx_packet, LEGACY(fpx_packet, av_packet), f_packet, fill_packet, 1),
    K("fpx_player_stats_get", fpx_player_stats, LEGACY(fpx_player_stats, events_delivered), f_stats, fill_stats, 0),
    K("fpx_player_step_frame", fpx_frame_step_result, 48, f_step, fill_step, 1),
    K("fpx_player_live_seek_window", fpx_live_seek_window, LEGACY(fpx_live_seek_window, hold_back), f_window,
      fill_window, 0),
    K("fpx_player_seek_wait", fpx_seek_outcome, LEGACY(fpx_seek_outcome, packets_read), f_outcome, fill_seekwait, 1),
};

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
        if (f->volatile_) {
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
            NOTE("%s size %zu: field at offset %zu differs from the full-size call", k->name, n, f->off);
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
    for (ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        const kind *k = &kinds[ki];
        REQUIRE(k->size + 24 <= MAXS);
        for (n = 0; n <= k->size + 24; n++)
            one(k, n);
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
