/* Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit. */
/*
 * test_callback_safety: the header's "Callback-safe:" line of every function that
 * takes a player or a scrub session, as the library enforces it. Each is called from
 * inside a seek completion (FPX_DELIVERY_HOST, dispatched on this thread), with the
 * test's handles and zero or NULL for every other argument: a function marked
 * "Callback-safe: no" must return FPX_ERROR_IN_CALLBACK, one marked "yes" must not.
 * (fpx_player_destroy gets NULL: destroying from a callback has its own tests.)
 */
#include "check.h"

struct call { const char *name; int callback_safe; int rc; };

static struct {
    fpx_player *player;
    fpx_scrub_session *scrub;
    int ran;
    struct call calls[43];
} t;

static void in_callback(const fpx_seek_outcome *outcome, void *userdata)
{
    int i = 0;
    (void)outcome;
    (void)userdata;
    if (t.ran++)
        return;
    t.calls[i].name = "fpx_player_destroy";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_destroy(NULL);
    t.calls[i].name = "fpx_player_open";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_open(t.player, NULL);
    t.calls[i].name = "fpx_player_item_status";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_item_status(t.player, NULL);
    t.calls[i].name = "fpx_player_wait_item";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_wait_item(t.player, (int64_t)0, NULL);
    t.calls[i].name = "fpx_player_item_info";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_item_info(t.player, NULL);
    t.calls[i].name = "fpx_player_stream_info";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_stream_info(t.player, (int)0, NULL);
    t.calls[i].name = "fpx_player_seekable_range";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_seekable_range(t.player, NULL, NULL);
    t.calls[i].name = "fpx_player_setup_seek_manager";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_setup_seek_manager(t.player);
    t.calls[i].name = "fpx_player_seek";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_seek(t.player, fpx_time_make(0, 1), fpx_precision_exact(), NULL, NULL, NULL);
    t.calls[i].name = "fpx_player_seek_wait";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_seek_wait(t.player, fpx_time_make(0, 1), fpx_precision_exact(), (int64_t)0, NULL);
    t.calls[i].name = "fpx_player_cancel_pending_seeks";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_cancel_pending_seeks(t.player, NULL);
    t.calls[i].name = "fpx_player_add_listener";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_add_listener(t.player, NULL, NULL);
    t.calls[i].name = "fpx_player_remove_listener";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_remove_listener(t.player, (uint64_t)0);
    t.calls[i].name = "fpx_player_dispatch_events";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_dispatch_events(t.player, NULL);
    t.calls[i].name = "fpx_player_event_fd";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_event_fd(t.player, NULL);
    t.calls[i].name = "fpx_player_read_packet";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_read_packet(t.player, NULL);
    t.calls[i].name = "fpx_player_stats_get";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_stats_get(t.player, NULL);
    t.calls[i].name = "fpx_player_set_stream_enabled";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_set_stream_enabled(t.player, (int)0, (int)0);
    t.calls[i].name = "fpx_player_set_continuation";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_set_continuation(t.player, (int)0);
    t.calls[i].name = "fpx_player_report_decoded";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_report_decoded(t.player, (int64_t)0);
    t.calls[i].name = "fpx_player_unread_packets";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_unread_packets(t.player, (uint32_t)0);
    t.calls[i].name = "fpx_player_scrub_session";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_scrub_session(t.player, NULL);
    t.calls[i].name = "fpx_scrub_begin";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_begin(t.scrub, fpx_time_make(0, 1));
    t.calls[i].name = "fpx_scrub_update";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_update(t.scrub, fpx_time_make(0, 1));
    t.calls[i].name = "fpx_scrub_end";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_end(t.scrub, fpx_time_make(0, 1), fpx_precision_exact(), NULL, NULL, NULL);
    t.calls[i].name = "fpx_scrub_cancel";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_cancel(t.scrub);
    t.calls[i].name = "fpx_scrub_get_state";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_get_state(t.scrub, NULL, NULL);
    t.calls[i].name = "fpx_scrub_set_position_throttle";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_set_position_throttle(t.scrub, fpx_time_make(0, 1));
    t.calls[i].name = "fpx_scrub_get_position_throttle";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_scrub_get_position_throttle(t.scrub, NULL);
    t.calls[i].name = "fpx_player_step_frame";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_step_frame(t.player, (fpx_frame_step_direction)0, (int)0, NULL);
    t.calls[i].name = "fpx_player_current_time";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_current_time(t.player, NULL);
    t.calls[i].name = "fpx_player_live_seek_window";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_live_seek_window(t.player, NULL);
    t.calls[i].name = "fpx_player_seek_to_live_edge";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_seek_to_live_edge(t.player, NULL, NULL, NULL);
    t.calls[i].name = "fpx_player_seek_to_date";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_seek_to_date(t.player, (int64_t)0, fpx_precision_exact(), NULL, NULL, NULL);
    t.calls[i].name = "fpx_player_hls_variant_count";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_hls_variant_count(t.player, NULL);
    t.calls[i].name = "fpx_player_hls_variant";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_hls_variant(t.player, (int)0, NULL);
    t.calls[i].name = "fpx_player_hls_rendition_count";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_hls_rendition_count(t.player, NULL);
    t.calls[i].name = "fpx_player_hls_rendition";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_hls_rendition(t.player, (int)0, NULL);
    t.calls[i].name = "fpx_player_hls_select_audio";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_hls_select_audio(t.player, (int)0);
    t.calls[i].name = "fpx_player_hls_select_variant";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_hls_select_variant(t.player, (int)0);
    t.calls[i].name = "fpx_player_set_preview_source";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_set_preview_source(t.player, (fpx_preview_kind)0, NULL, NULL);
    t.calls[i].name = "fpx_player_preview";
    t.calls[i].callback_safe = 0;
    t.calls[i++].rc = fpx_player_preview(t.player, fpx_time_make(0, 1), NULL);
    t.calls[i].name = "fpx_player_close_item";
    t.calls[i].callback_safe = 1;
    t.calls[i++].rc = fpx_player_close_item(t.player);
}

int main(int argc, char **argv)
{
    size_t i;
    fpx_item_status_info st = {.struct_size = sizeof(fpx_item_status_info)};
    int dispatched = 0;
    check_init(argc, argv, 60);
    SECTION("every player function from inside a callback: IN_CALLBACK exactly when not callback-safe");
    t.player = make_player(FPX_DELIVERY_HOST);
    REQUIRE(t.player != NULL);
    REQUIRE(open_wait(t.player, fixture("mp4_bframes.mp4"), &st) == FPX_OK);
    CHECK_OK(fpx_player_setup_seek_manager(t.player));
    CHECK_OK(fpx_player_scrub_session(t.player, &t.scrub));
    CHECK_OK(fpx_player_seek(t.player, fpx_time_make(1, 1), fpx_precision_exact(), in_callback, NULL, NULL));
    while (!t.ran && dispatched < 1000) {
        int n = 0;
        CHECK_OK(fpx_player_dispatch_events(t.player, &n));
        dispatched++;
        if (!t.ran)
            sleep_ms(5);
    }
    REQUIRE(t.ran);
    for (i = 0; i < sizeof t.calls / sizeof t.calls[0]; i++) {
        const struct call *c = &t.calls[i];
        if (c->callback_safe) {
            if (!CHECK(c->rc != FPX_ERROR_IN_CALLBACK))
                NOTE("%s is Callback-safe: yes but returned FPX_ERROR_IN_CALLBACK", c->name);
        } else if (!CHECK_EQ(c->rc, FPX_ERROR_IN_CALLBACK)) {
            NOTE("%s is Callback-safe: no but returned %d (%s)", c->name, c->rc, fpx_error_name(c->rc));
        }
    }
    CHECK_OK(fpx_player_destroy(t.player));
    return check_summary();
}
