/*
 * test_destroy_events.c -- listener events queued before fpx_player_destroy()
 * reach the listeners before destroy returns (seek.h section 5: "the remaining
 * events are delivered ... before destroy returns"; fpx_player_step_frame:
 * every FPX_OK call reaches on_frame_step), and destroy_notify comes after
 * all of them.
 *
 * The defect this guards against: listener events looked the listener list up
 * when they were delivered, and destroy empties that list at once, so an event
 * still queued when destroy ran (a step's on_frame_step, a seek's
 * on_seek_accuracy) reached nobody. In FPX_DELIVERY_THREAD mode that needed a
 * busy delivery thread (it made Tests/python/test_live.py::
 * test_step_forward_at_live_edge flaky under CPU load); here it is forced:
 *   - HOST mode: nothing is delivered until destroy, so every queued listener
 *     event is in the window;
 *   - THREAD mode: a seek completion callback holds the delivery thread until
 *     destroy has started, while a step's on_frame_step waits behind it.
 *
 * usage: test_destroy_events FIXTURE_DIR
 */
#include "check.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int steps, accuracies, statuses, notifies, done;
static int late;             /* listener events after destroy_notify */
static int blocking;         /* 1: the completion callback holds the delivery thread */
static int holding;          /* the completion callback is holding it now */
static int gate_open;

static void reset(int block)
{
    pthread_mutex_lock(&mu);
    steps = accuracies = statuses = notifies = done = late = 0;
    blocking = block;
    holding = gate_open = 0;
    pthread_mutex_unlock(&mu);
}

static int get(const int *v)
{
    int x;
    pthread_mutex_lock(&mu);
    x = *v;
    pthread_mutex_unlock(&mu);
    return x;
}

static void on_step(const fpx_frame_step_result *r, void *ud)
{
    (void)r;
    (void)ud;
    pthread_mutex_lock(&mu);
    steps++;
    late += notifies;
    pthread_mutex_unlock(&mu);
}

static void on_accuracy(const fpx_accuracy *a, const fpx_seek_outcome *o, void *ud)
{
    (void)a;
    (void)o;
    (void)ud;
    pthread_mutex_lock(&mu);
    accuracies++;
    late += notifies;
    pthread_mutex_unlock(&mu);
}

static void on_status(const fpx_item_status_info *s, void *ud)
{
    (void)s;
    (void)ud;
    pthread_mutex_lock(&mu);
    statuses++;
    late += notifies;
    pthread_mutex_unlock(&mu);
}

static void on_notify(void *ud)
{
    (void)ud;
    pthread_mutex_lock(&mu);
    notifies++;
    pthread_mutex_unlock(&mu);
}

/* The seek's completion. With `blocking`, it holds the delivery thread until the gate opens. */
static void on_done(const fpx_seek_outcome *o, void *ud)
{
    (void)o;
    (void)ud;
    pthread_mutex_lock(&mu);
    done++;
    if (blocking) {
        struct timespec dl;
        holding = 1;
        pthread_cond_broadcast(&cv);
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 20; /* a bound, so a broken test cannot hang */
        while (!gate_open)
            if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT)
                break;
    }
    pthread_mutex_unlock(&mu);
}

static void add_listener(fpx_player *p)
{
    fpx_listener li;
    fpx_listener_init(&li);
    li.on_frame_step = on_step;
    li.on_seek_accuracy = on_accuracy;
    li.on_item_status = on_status;
    li.destroy_notify = on_notify;
    CHECK_OK(fpx_player_add_listener(p, &li, NULL));
}

/* Opens the gate once destroy has begun: the handle is unregistered (any call gives
 * INVALID_HANDLE) at the start of destroy; the extra 300 ms let destroy run on to where it
 * stops the listeners, which it does before it waits for the delivery thread. */
static void *gate_thread(void *arg)
{
    fpx_player *p = arg;
    uint64_t end = now_ns() + 20000000000ull;
    while (fpx_player_remove_listener(p, UINT64_MAX) != FPX_ERROR_INVALID_HANDLE && now_ns() < end)
        sleep_ms(1);
    sleep_ms(300);
    pthread_mutex_lock(&mu);
    gate_open = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void check_after_destroy(int want_steps)
{
    CHECK_EQ(get(&done), 1);
    CHECK_EQ(get(&accuracies), 1);
    CHECK_EQ(get(&steps), want_steps);
    CHECK_EQ(get(&statuses), 2); /* LOADING, READY */
    CHECK_EQ(get(&notifies), 1);
    CHECK_EQ(get(&late), 0);
}

static void host_mode(void)
{
    fpx_player *p;
    fpx_frame_step_result r;

    SECTION("host mode: events queued before destroy (status, accuracy, step) reach the listener in destroy");
    p = make_player(FPX_DELIVERY_HOST);
    REQUIRE(p != NULL);
    reset(0);
    add_listener(p);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_seek(p, fpx_time_make(2, 1), fpx_precision_exact(), on_done, NULL, NULL));
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r)); /* waits for the seek */
    CHECK_EQ(r.did_step, 1);
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_BACKWARD, 1, &r));
    CHECK_EQ(get(&steps), 0); /* nothing dispatched yet */
    CHECK_EQ(get(&statuses), 0);
    CHECK_OK(fpx_player_destroy(p));
    check_after_destroy(2);
}

static void thread_mode(void)
{
    fpx_player *p;
    fpx_frame_step_result r;
    pthread_t gate;
    struct timespec dl;
    int held;

    SECTION("thread mode: a step queued behind a busy callback still reaches on_frame_step before destroy returns");
    p = make_player(FPX_DELIVERY_THREAD);
    REQUIRE(p != NULL);
    reset(1);
    add_listener(p);
    CHECK_OK(open_wait(p, fixture("mp4_bframes.mp4"), NULL));
    CHECK_OK(fpx_player_setup_seek_manager(p));
    CHECK_OK(fpx_player_seek(p, fpx_time_make(2, 1), fpx_precision_exact(), on_done, NULL, NULL));
    /* Wait until the completion holds the delivery thread. */
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 20;
    pthread_mutex_lock(&mu);
    while (!holding)
        if (pthread_cond_timedwait(&cv, &mu, &dl) == ETIMEDOUT)
            break;
    held = holding;
    pthread_mutex_unlock(&mu);
    REQUIRE(held);
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    CHECK_OK(fpx_player_step_frame(p, FPX_STEP_FORWARD, 1, &r));
    CHECK_EQ(r.did_step, 1);
    CHECK_EQ(get(&steps), 0); /* queued behind the held completion */
    REQUIRE(pthread_create(&gate, NULL, gate_thread, p) == 0);
    CHECK_OK(fpx_player_destroy(p));
    pthread_join(gate, NULL);
    check_after_destroy(1);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 110);
    host_mode();
    thread_mode();
    return check_summary();
}
