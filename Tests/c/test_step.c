/* Frame stepping through the C API: results, listener events and misuse.
 * (Landings against ffprobe are in Tests/python/test_steps.py.) Usage: test_step FIXTURE_DIR */
#include "check.h"

#include <fastpix/seek.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int events, last_reason = -1, last_did;

static void on_step(const fpx_frame_step_result *r, void *ud) {
    (void)ud;
    pthread_mutex_lock(&mu);
    events++;
    last_reason = (int)r->reason;
    last_did = r->did_step;
    pthread_mutex_unlock(&mu);
}

static int event_count(void) {
    int n;
    pthread_mutex_lock(&mu);
    n = events;
    pthread_mutex_unlock(&mu);
    return n;
}

int main(int argc, char **argv) {
    char video[4096], audio[4096];
    fpx_player *p = NULL, *gone = NULL;
    fpx_frame_step_result r = {.struct_size = sizeof(fpx_frame_step_result)};
    fpx_listener l;
    fpx_time t, first, second;
    if (argc < 2) { fprintf(stderr, "usage: test_step FIXTURE_DIR\n"); return 2; }
    snprintf(video, sizeof video, "%s/mp4_bframes.mp4", argv[1]);
    snprintf(audio, sizeof audio, "%s/audio.m4a", argv[1]);

    SECTION("no item");
    REQUIRE(fpx_player_create(NULL, &p) == FPX_OK);
    fpx_listener_init(&l);
    l.on_frame_step = on_step;
    CHECK_OK(fpx_player_add_listener(p, &l, NULL));
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r));
    CHECK_EQ(r.did_step, 0);
    CHECK_EQ(r.reason, FPX_STEP_NO_CURRENT_ITEM);
    CHECK(r.explanation != NULL);
    CHECK_EQ(r.struct_size, sizeof r);

    SECTION("steps move the playhead and reach the listener");
    CHECK_OK(fpx_player_open(p, video));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_current_time(p, &first));
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r));
    CHECK_EQ(r.did_step, 1);
    CHECK_EQ(r.reason, FPX_STEP_OK);
    CHECK_EQ(r.direction, FPX_STEP_FORWARD);
    CHECK(fpx_time_compare(r.landed_media_time, first) > 0);
    CHECK_OK(fpx_player_current_time(p, &second));
    CHECK_TIME_EQ(second, r.landed_media_time);
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 1, &r));
    CHECK_EQ(r.did_step, 1);
    CHECK_EQ(fpx_time_compare(r.landed_media_time, first), 0);
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 1, &r));
    CHECK_EQ(r.did_step, 0);
    CHECK_EQ(r.reason, FPX_STEP_CANNOT_STEP_IN_DIRECTION);
    CHECK_EQ(r.direction, FPX_STEP_BACKWARD);
    CHECK_OK(fpx_player_current_time(p, &t));
    CHECK_TIME_EQ(t, first); /* a refused step does not move the playhead */
    sleep_ms(100);
    CHECK_EQ(event_count(), 4); /* refusals included */
    pthread_mutex_lock(&mu);
    CHECK_EQ(last_reason, FPX_STEP_CANNOT_STEP_IN_DIRECTION);
    CHECK_EQ(last_did, 0);
    pthread_mutex_unlock(&mu);

    SECTION("misuse");
    CHECK_ERR(fpx_player_step_frame(p, FPX_STEP_FORWARD, 0, &r), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_step_frame(p, FPX_STEP_FORWARD, -3, &r), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(fpx_player_step_frame(p, (fpx_frame_step_direction)9, 1, &r), FPX_ERROR_UNKNOWN_ENUM);
    CHECK_ERR(fpx_player_step_frame(NULL, FPX_STEP_FORWARD, 1, &r), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_current_time(p, NULL), FPX_ERROR_INVALID_ARGUMENT);
    CHECK(fpx_frame_step_reason_explanation(3) != NULL);
    CHECK(fpx_frame_step_reason_explanation(12345) != NULL);

    SECTION("audio only: no video track");
    CHECK_OK(fpx_player_open(p, audio));
    CHECK_OK(fpx_player_wait_item(p, 10000, NULL));
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r));
    CHECK_EQ(r.did_step, 0);
    CHECK_EQ(r.reason, FPX_STEP_NO_VIDEO_TRACK);

    SECTION("destroyed handle");
    gone = p;
    CHECK_OK(fpx_player_destroy(p));
    CHECK_ERR(fpx_player_step_frame(gone, FPX_STEP_FORWARD, 1, &r), FPX_ERROR_INVALID_HANDLE);
    CHECK_ERR(fpx_player_current_time(gone, &t), FPX_ERROR_INVALID_HANDLE);
    return check_summary();
}
