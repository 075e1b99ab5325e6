"""Callbacks, listeners, threads and garbage collection: nothing crashes, nothing is lost,
every seek completes exactly once, and closed players leave no library thread behind."""

from __future__ import annotations

import gc
import select
import threading
import time
import weakref
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import List

import pytest

from fpx_binding_testutil import foreign_task_ids, task_ids, wait_for

import fastpix_seek
from fastpix_seek import (ClampKind, DeliveryMode, FinishReason, InCallbackError,
                          ItemStatus, Player, SeekOutcome, SeekPrecision,
                          SeekPrecisionListener)
from fastpix_seek import _delivery as player_mod  # the registry lives with the callbacks


class Recorder(SeekPrecisionListener):
    def __init__(self) -> None:
        self.events: List[tuple] = []
        self.lock = threading.Lock()

    def _add(self, *e) -> None:
        with self.lock:
            self.events.append(e)

    def on_seek_accuracy(self, accuracy, outcome):
        self._add("accuracy", outcome.seek_id, accuracy)

    def on_seek_clamped(self, clamp, seek_id):
        self._add("clamped", seek_id, clamp)

    def on_item_status(self, status):
        self._add("status", status.status)


def registry_empty(p: Player) -> bool:
    return not p._core.registry


# ------------------------------------------------------------------------------------------
# ordering and delivery
# ------------------------------------------------------------------------------------------

def test_event_order_for_one_seek(sample: Path):
    rec = Recorder()
    order: List[tuple] = []
    with Player(sample) as p:
        p.add_listener(rec)
        p.wait_item(timeout=20)
        done = threading.Event()

        def on_complete(o: SeekOutcome) -> None:
            with rec.lock:
                rec.events.append(("complete", o.seek_id, o))
            done.set()

        sid = p.seek(Fraction(-3), SeekPrecision.exact(), on_complete)
        assert done.wait(20)
        order = [e[0] for e in rec.events if e[0] != "status" and e[1] == sid]
        assert order == ["clamped", "accuracy", "complete"]
        clamp = next(e[2] for e in rec.events if e[0] == "clamped")
        assert clamp.kind == ClampKind.TO_SEEKABLE_START and clamp.requested == -3
        statuses = [e[1] for e in rec.events if e[0] == "status"]
        # The listener is added after Player() opened the item, so it may see both
        # status events, only READY, or none (READY delivered before it was added).
        assert statuses in ([], [ItemStatus.READY], [ItemStatus.LOADING, ItemStatus.READY])


def test_callbacks_run_on_a_library_thread_by_default(sample: Path):
    where = []
    with Player(sample) as p:
        p.wait_item(timeout=20)
        ev = threading.Event()
        p.seek(1, SeekPrecision.exact(), lambda o: (where.append(threading.get_ident()),
                                                   ev.set()))
        assert ev.wait(20)
    assert where and where[0] != threading.get_ident()


def test_without_seek_manager_seeks_still_complete(sample: Path):
    with Player(sample, seek_manager=False) as p:
        p.wait_item(timeout=20)
        o = p.seek_and_wait(1, SeekPrecision.exact())
        assert o.reason == FinishReason.NO_SEEK_MANAGER and not o.finished
        assert o.clamp.kind == ClampKind.SEEKABLE_RANGE_UNKNOWN
        assert o.landed_time is None and o.delta is None
        p.setup_seek_manager()
        assert p.seek_and_wait(1, SeekPrecision.exact()).finished


def test_superseded_and_cancelled_complete_once(sample: Path):
    got: Counter = Counter()
    reasons = {}
    lock = threading.Lock()

    def cb(o: SeekOutcome) -> None:
        with lock:
            got[o.seek_id] += 1
            reasons[o.seek_id] = o.reason

    with Player(sample) as p:
        p.wait_item(timeout=20)
        ids = [p.seek(Fraction(i, 3), SeekPrecision.exact(), cb) for i in range(30)]
        p.cancel_pending_seeks()
        ids += [p.seek(Fraction(i, 7), SeekPrecision.exact(), cb) for i in range(10)]
        assert wait_for(lambda: len(got) == len(ids), 20)
    assert all(got[i] == 1 for i in ids) and set(got) == set(ids)
    assert reasons[ids[-1]] == FinishReason.COMPLETED
    assert {reasons[i] for i in ids[:-1]} <= {FinishReason.SUPERSEDED, FinishReason.CANCELLED,
                                             FinishReason.COMPLETED}


# ------------------------------------------------------------------------------------------
# gc: objects dropped by the user while events are in flight
# ------------------------------------------------------------------------------------------

def test_user_drops_callbacks_and_listeners_while_events_in_flight(sample: Path):
    calls = Counter()

    class Big(SeekPrecisionListener):
        def __init__(self, n):
            self.n = n
            self.payload = bytearray(1 << 16)

        def on_seek_accuracy(self, accuracy, outcome):
            calls["accuracy"] += 1

        def on_seek_clamped(self, clamp, seek_id):
            calls["clamped"] += 1

    with Player(sample) as p:
        p.wait_item(timeout=20)
        ids = []
        alive = []
        for i in range(200):
            lst = Big(i)
            alive.append(weakref.ref(lst))
            lid = p.add_listener(lst)
            del lst  # only the binding holds it now

            def cb(o, _i=i, _junk=bytearray(1 << 12)):
                calls["complete"] += 1

            ids.append(p.seek(Fraction(i - 20, 10), SeekPrecision.exact(), cb))
            del cb
            if i % 3 == 0:
                p.remove_listener(lid)  # while its events may be queued
            if i % 17 == 0:
                gc.collect()
        gc.collect()
        assert wait_for(lambda: calls["complete"] == len(ids), 30), calls
    # after close: every listener was released (destroy_notify), every seek completed once
    gc.collect()
    assert calls["complete"] == len(ids)
    assert all(r() is None for r in alive), "listeners still referenced after close"
    assert registry_empty(p)


def test_player_dropped_without_close_is_collected_and_closed(sample: Path):
    before = foreign_task_ids()
    done = []
    p = Player(sample)
    p.wait_item(timeout=20)
    p.add_listener(Recorder())
    p.seek(2, SeekPrecision.exact(), lambda o: done.append(o.reason))
    ref = weakref.ref(p)
    handle = p.handle.value
    del p
    gc.collect()
    assert ref() is None, "the Player must be collectable (callbacks reference no Player)"
    # __del__ destroyed it: its seek completed (landed or cancelled), its threads are gone
    assert len(done) == 1
    assert wait_for(lambda: foreign_task_ids() <= before, 10), \
        f"threads left: {foreign_task_ids() - before}"
    from fastpix_seek import _lib
    with pytest.raises(fastpix_seek.InvalidHandleError):
        _lib.lib.fpx_player_destroy(_lib.PlayerHandle(handle))


def test_callback_keys_are_integers_not_object_pointers(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        lid = p.add_listener(Recorder())
        keys = list(p._core.registry)
        assert keys and all(isinstance(k, int) and 0 < k < 2 ** 32 for k in keys)
        assert all(player_mod._owners[k] is p._core for k in keys)
        p.remove_listener(lid)


# ------------------------------------------------------------------------------------------
# threads
# ------------------------------------------------------------------------------------------

def test_eight_threads_seeking_one_player(sample: Path):
    n_threads, per_thread = 8, 40
    counts: Counter = Counter()
    outcomes = {}
    lock = threading.Lock()
    issued: List[int] = []
    errors: List[BaseException] = []

    def cb(o: SeekOutcome) -> None:
        with lock:
            counts[o.seek_id] += 1
            outcomes[o.seek_id] = o

    with Player(sample) as p:
        p.wait_item(timeout=20)
        start = threading.Barrier(n_threads)

        def worker(k: int) -> None:
            try:
                start.wait()
                mine = []
                for i in range(per_thread):
                    t = Fraction(k * per_thread + i, 23)
                    if i % 10 == 9:
                        o = p.seek_and_wait(t, SeekPrecision.exact(), timeout=30)
                        mine.append(o.seek_id)
                        with lock:
                            counts[o.seek_id] += 1
                            outcomes[o.seek_id] = o
                    else:
                        mine.append(p.seek(t, SeekPrecision.exact(), cb))
                with lock:
                    issued.extend(mine)
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not errors, errors
        assert len(issued) == n_threads * per_thread == len(set(issued))
        assert wait_for(lambda: len(counts) == len(issued), 30)
        stats = p.stats()
    assert set(counts) == set(issued)
    dup = {k: v for k, v in counts.items() if v != 1}
    assert not dup, f"seeks completed more than once: {dup}"
    assert stats.seeks_issued == len(issued)
    assert (stats.seeks_completed + stats.seeks_superseded + stats.seeks_cancelled
            + stats.seeks_failed) == len(issued)
    for o in outcomes.values():
        assert o.finished == (o.reason == FinishReason.COMPLETED)
        assert (o.error != 0) == (o.reason == FinishReason.FAILED)
        if o.finished:
            assert o.delta == o.landed_time - o.requested_time


# Regression: an interrupted av_seek_frame of a superseded seek used to leave AVERROR_EXIT
# sticky in the AVIOContext, failing the next (unsuperseded) seek with FPX_ERROR_CANCELLED.
def test_unsuperseded_seek_does_not_fail_cancelled(fixtures_dir: Path):
    failures = []
    for rep in range(15):
        outs: List[SeekOutcome] = []
        with Player(fixtures_dir / "ts.ts") as p:
            p.wait_item(timeout=20)
            for i in range(300):
                last = p.seek(Fraction(i, 23), SeekPrecision.exact(), outs.append)
            assert wait_for(lambda: len(outs) == 300, 30)
        final = next(o for o in outs if o.seek_id == last)
        if final.reason != FinishReason.COMPLETED:
            failures.append((rep, final.reason, final.error, final.clamp.kind))
    assert not failures, f"the last, never superseded seek did not complete: {failures}"


def _fpx_threads() -> set:
    """The library's threads (named fpx-*: the shared pools, HLS reload, scrub timers)."""
    out = set()
    for t in Path("/proc/self/task").iterdir():
        try:
            if (t / "comm").read_text().startswith("fpx-"):
                out.add(int(t.name))
        except OSError:
            pass
    return out


def test_players_own_no_threads_and_idle_pool_threads_exit(sample: Path):
    """seek.h section 3: players own no threads; the shared pools start threads for work and
    each exits after 2 s idle, so once every player is idle (or closed) none remains."""
    gc.collect()
    assert wait_for(lambda: not _fpx_threads(), 10), f"idle library threads: {_fpx_threads()}"
    p = Player(sample)
    p.wait_item(timeout=20)
    p.seek_and_wait(3, SeekPrecision.exact())
    assert _fpx_threads(), "expected pool threads while working"
    p.close()
    assert wait_for(lambda: not _fpx_threads(), 10), \
        f"library threads left after close and idle: {_fpx_threads()}"
    p.close()  # idempotent


def test_many_players_created_and_closed_leave_no_threads(sample: Path):
    foreign_before = foreign_task_ids()
    for i in range(20):
        with Player(sample, delivery=DeliveryMode.HOST if i % 2 else DeliveryMode.THREAD) as p:
            p.seek(Fraction(i, 2), SeekPrecision.exact())  # queued behind the open
    # The pools' threads exit after 2 s idle (seek.h, section 3).
    assert wait_for(lambda: foreign_task_ids() <= foreign_before, 10)


def test_close_from_inside_a_callback(sample: Path):
    got: Counter = Counter()
    reasons = {}
    closed = threading.Event()
    p = Player(sample)
    p.wait_item(timeout=20)
    first = {}
    issued = threading.Event()

    def cb(o: SeekOutcome) -> None:
        got[o.seek_id] += 1
        reasons[o.seek_id] = o.reason
        if o.seek_id == first.get("id"):
            issued.wait(10)  # every seek below is queued or in flight
            p.close()  # from inside: returns at once, the rest is delivered after us
            closed.set()

    first["id"] = p.seek(1, SeekPrecision.exact(), cb)
    more = [p.seek(Fraction(i, 2), SeekPrecision.exact(), cb) for i in range(2, 12)]
    issued.set()
    assert closed.wait(20)
    ids = [first["id"]] + more
    assert wait_for(lambda: len(got) == len(ids), 10)
    assert all(got[i] == 1 for i in ids)
    assert p.closed
    with pytest.raises(fastpix_seek.InvalidHandleError):
        p.seek(1)


def test_closing_another_player_inside_a_callback_is_refused_and_keeps_it(sample: Path):
    result = {}
    done = threading.Event()
    with Player(sample) as a, Player(sample) as b:
        a.wait_item(timeout=20)
        b.wait_item(timeout=20)

        def cb(o: SeekOutcome) -> None:
            try:
                b.close()
            except InCallbackError as e:
                result["error"] = e
            result["closed_inside"] = b.closed
            done.set()

        a.seek(1, SeekPrecision.exact(), cb)
        assert done.wait(20)
        assert isinstance(result["error"], InCallbackError)
        assert result["closed_inside"] is False
        # b is whole: it still seeks, and closes normally outside the callback
        assert b.seek_and_wait(2, SeekPrecision.exact()).finished
        b.close()
        assert b.closed


def test_listener_removing_itself_inside_a_callback(sample: Path):
    class Once(SeekPrecisionListener):
        def __init__(self):
            self.calls = 0
            self.lid = None

        def on_seek_accuracy(self, accuracy, outcome):
            self.calls += 1
            player.remove_listener(self.lid)

    with Player(sample) as player:
        player.wait_item(timeout=20)
        once = Once()
        once.lid = player.add_listener(once)
        for i in range(5):
            player.seek_and_wait(i, SeekPrecision.exact())
        assert once.calls == 1
        assert wait_for(lambda: all(not isinstance(e, player_mod._ListenerEntry)
                                    for e in player._core.registry.values()), 5)


def test_seek_from_inside_a_callback_and_wait_is_refused(sample: Path):
    result = {}
    ev = threading.Event()
    with Player(sample) as p:
        p.wait_item(timeout=20)

        def cb(o: SeekOutcome) -> None:
            try:
                p.seek_and_wait(2, SeekPrecision.exact())
            except InCallbackError as e:
                result["wait"] = e
            try:
                p.wait_item(timeout=1)
            except InCallbackError as e:
                result["wait_item"] = e
            # seeking (not waiting) is callback-safe
            result["chained"] = p.seek(3, SeekPrecision.exact(),
                                       lambda o2: (result.setdefault("o2", o2), ev.set()))

        p.seek(1, SeekPrecision.exact(), cb)
        assert ev.wait(20)
    assert isinstance(result["wait"], InCallbackError)
    assert result["wait_item"].function == "fpx_player_wait_item"
    assert result["o2"].seek_id == result["chained"] and result["o2"].finished


# ------------------------------------------------------------------------------------------
# exceptions in callbacks are never lost
# ------------------------------------------------------------------------------------------

class Boom(Exception):
    pass


def test_listener_exception_is_reraised_by_seek_and_wait(sample: Path, captured_errors):
    class Raising(SeekPrecisionListener):
        def on_seek_accuracy(self, accuracy, outcome):
            raise Boom(f"accuracy {outcome.seek_id}")

    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.add_listener(Raising())
        with pytest.raises(Boom, match="accuracy"):
            p.seek_and_wait(2, SeekPrecision.exact())
        # the player keeps working, and nothing was reported twice
        assert captured_errors == []
        assert p.callback_errors == []


def test_on_complete_exception_is_collected_and_reported(sample: Path, captured_errors):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        ev = threading.Event()

        def bad(o):
            ev.set()
            raise Boom("on_complete")

        p.seek(1, SeekPrecision.exact(), bad)
        assert ev.wait(20)
        assert wait_for(lambda: len(p.callback_errors) == 1, 5)
        assert isinstance(p.callback_errors[0], Boom)
        exc, who, where = captured_errors[0]
        assert exc is p.callback_errors[0] and who is p and "on_complete" in where


def test_item_status_listener_exception_goes_to_handler(sample: Path, captured_errors):
    class Raising(SeekPrecisionListener):
        def on_item_status(self, status):
            raise Boom(str(status.status))

    with Player() as p:
        p.add_listener(Raising())
        p.open(sample)
        p.wait_item(timeout=20)
        assert wait_for(lambda: len(captured_errors) >= 1, 5)
    assert all(isinstance(e, Boom) for e, _, _ in captured_errors)
    assert "on_item_status" in captured_errors[0][2]


def test_default_handler_prints_like_unraisablehook(sample: Path, capfd):
    prev = fastpix_seek.set_callback_exception_handler(None)
    try:
        with Player(sample) as p:
            p.wait_item(timeout=20)
            ev = threading.Event()
            p.seek(1, SeekPrecision.exact(), lambda o: (ev.set(), 1 / 0))
            assert ev.wait(20)
            assert wait_for(lambda: len(p.callback_errors) == 1, 5)
    finally:
        fastpix_seek.set_callback_exception_handler(prev)
    err = capfd.readouterr().err
    assert "Exception ignored in fastpix_seek on_complete callback" in err
    assert "ZeroDivisionError" in err


def test_failing_handler_does_not_escape(sample: Path, capfd):
    def handler(exc, player, where):
        raise RuntimeError("handler broke")

    prev = fastpix_seek.set_callback_exception_handler(handler)
    try:
        with Player(sample) as p:
            p.wait_item(timeout=20)
            p.seek_and_wait(1, SeekPrecision.exact())
            ev = threading.Event()
            p.seek(1, SeekPrecision.exact(), lambda o: (ev.set(), 1 / 0))
            assert ev.wait(20)
            assert wait_for(lambda: len(p.callback_errors) == 1, 5)
            assert p.seek_and_wait(2, SeekPrecision.exact()).finished
    finally:
        fastpix_seek.set_callback_exception_handler(prev)
    assert "handler broke" in capfd.readouterr().err
    with pytest.raises(TypeError):
        fastpix_seek.set_callback_exception_handler(42)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------
# host-pumped delivery
# ------------------------------------------------------------------------------------------

def test_host_delivery_runs_callbacks_only_in_dispatch(sample: Path):
    wakeups = []
    with Player(sample, delivery=DeliveryMode.HOST,
                wakeup=lambda: wakeups.append(threading.get_ident())) as p:
        assert p.delivery == DeliveryMode.HOST
        fd = p.event_fd()
        assert fd >= 0
        p.wait_item(timeout=20)
        got = []
        sid = p.seek(2, SeekPrecision.exact(), lambda o: got.append((o, threading.get_ident())))
        time.sleep(0.3)
        assert got == [], "a HOST-mode callback ran outside dispatch_events"
        r, _, _ = select.select([fd], [], [], 5)
        assert r == [fd]
        n = p.dispatch_events()
        assert n >= 1
        assert got and got[0][0].seek_id == sid and got[0][1] == threading.get_ident()
        assert wakeups, "the wakeup callback was not called"
        # seek_and_wait pumps events itself
        o = p.seek_and_wait(3, SeekPrecision.exact(), timeout=20)
        assert o.finished


def test_host_close_delivers_remaining_events(sample: Path):
    got = []
    p = Player(sample, delivery=DeliveryMode.HOST)
    p.wait_item(timeout=20)
    ids = [p.seek(i, SeekPrecision.exact(), lambda o: got.append(o.seek_id)) for i in range(5)]
    p.close()  # delivers on this thread
    assert sorted(got) == sorted(ids)


def test_dispatch_on_thread_player_is_wrong_mode(sample: Path):
    with Player(sample) as p:
        with pytest.raises(fastpix_seek.WrongModeError):
            p.dispatch_events()
        with pytest.raises(fastpix_seek.WrongModeError):
            p.event_fd()
        with pytest.raises(fastpix_seek.WrongModeError):
            p.attach_event_loop()


def test_seek_and_wait_timeout_then_late_completion_is_not_lost(sample: Path, captured_errors):
    release = threading.Event()

    class SlowThenRaising(SeekPrecisionListener):
        def on_seek_clamped(self, clamp, seek_id):
            release.wait(10)  # holds the delivery thread past the caller's timeout

        def on_seek_accuracy(self, accuracy, outcome):
            raise Boom("late")

    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.add_listener(SlowThenRaising())
        with pytest.raises(fastpix_seek.FastPixTimeoutError, match="did not complete"):
            p.seek_and_wait(1000, SeekPrecision.exact(), timeout=0.2)  # clamped to the end
        release.set()
        # nobody waits any more: the listener's error is reported, not lost
        assert wait_for(lambda: any(isinstance(e, Boom) for e, _, _ in captured_errors), 10)
        assert any(isinstance(e, Boom) for e in p.callback_errors)


def test_last_reference_dropped_inside_its_own_callback(sample: Path):
    """The Player is collected on its own delivery thread, inside a callback: __del__ closes
    it from inside (destroy returns at once; the rest is delivered after the callback)."""
    before = foreign_task_ids()
    holder = [Player(sample)]
    holder[0].wait_item(timeout=20)
    ref = weakref.ref(holder[0])
    done = threading.Event()
    got: Counter = Counter()

    def cb(o: SeekOutcome) -> None:
        got[o.seek_id] += 1
        if holder:
            holder.clear()  # last reference: __del__ runs right here
            gc.collect()
            done.set()

    p = holder[0]
    ids = [p.seek(Fraction(i, 4), SeekPrecision.exact(), cb) for i in range(1, 6)]
    del p
    assert done.wait(20)
    assert wait_for(lambda: len(got) == len(ids), 10), got
    assert all(got[i] == 1 for i in ids)
    assert wait_for(lambda: ref() is None, 5)
    assert wait_for(lambda: foreign_task_ids() <= before, 10), \
        f"threads left: {foreign_task_ids() - before}"


def test_gc_inside_callbacks_and_host_mode_listener_churn(sample: Path):
    calls = Counter()

    class L(SeekPrecisionListener):
        def on_seek_accuracy(self, accuracy, outcome):
            calls["acc"] += 1
            if calls["acc"] % 25 == 0:
                gc.collect()

    with Player(sample, delivery=DeliveryMode.HOST) as p:
        p.wait_item(timeout=20)
        lids = []
        for i in range(60):
            lids.append(p.add_listener(L()))
            p.seek(Fraction(i, 5), SeekPrecision.exact(), lambda o: calls.update(["done"]))
            if i % 4 == 0:
                p.dispatch_events()
            if i % 5 == 0:
                p.remove_listener(lids.pop(0))
            if i % 10 == 0:
                gc.collect()
        while calls["done"] < 60:
            p.dispatch_events()
            time.sleep(0.001)
    assert calls["done"] == 60
    assert registry_empty(p)
