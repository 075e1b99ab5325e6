"""seek_async under a running asyncio loop: results arrive through call_soon_threadsafe and the
loop is never blocked."""

from __future__ import annotations

import asyncio
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from fastpix_seek import (DeliveryMode, FinishReason, Player, SeekPrecision,
                          SeekPrecisionListener)


def run(coro):
    return asyncio.run(coro)


def test_seek_async_returns_the_outcome(sample: Path):
    async def main():
        with Player(sample) as p:
            p.wait_item(timeout=20)
            loop_thread = threading.get_ident()
            o = await p.seek_async(Fraction(37, 4), SeekPrecision.exact())
            assert threading.get_ident() == loop_thread
            return o

    o = run(main())
    assert o.finished and o.requested_time == Fraction(37, 4)
    assert o.delta == o.landed_time - o.requested_time


def test_loop_keeps_running_while_seeks_are_in_flight(sample: Path):
    async def main():
        ticks = 0
        stop = asyncio.Event()

        async def ticker():
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0)

        with Player(sample) as p:
            p.wait_item(timeout=20)
            t = asyncio.create_task(ticker())
            outcomes = []
            for i in range(20):
                outcomes.append(await p.seek_async(Fraction(i, 2), SeekPrecision.exact()))
            stop.set()
            await t
        return ticks, outcomes

    ticks, outcomes = run(main())
    assert ticks > 20, "the loop was blocked while awaiting seeks"
    assert all(o.finished for o in outcomes)


def test_concurrent_seek_async_supersede(sample: Path):
    async def main():
        with Player(sample) as p:
            p.wait_item(timeout=20)
            return await asyncio.gather(*(p.seek_async(Fraction(i, 3), SeekPrecision.exact())
                                          for i in range(10)))

    outs = run(main())
    assert len({o.seek_id for o in outs}) == 10
    assert outs[-1].reason == FinishReason.COMPLETED
    assert all(o.reason in (FinishReason.COMPLETED, FinishReason.SUPERSEDED) for o in outs)


def test_seek_async_raises_listener_exception(sample: Path, captured_errors):
    class Raising(SeekPrecisionListener):
        def on_seek_accuracy(self, accuracy, outcome):
            raise KeyError("from listener")

    async def main():
        with Player(sample) as p:
            p.wait_item(timeout=20)
            p.add_listener(Raising())
            with pytest.raises(KeyError, match="from listener"):
                await p.seek_async(2, SeekPrecision.exact())
            assert p.callback_errors == []

    run(main())
    assert captured_errors == []


def test_cancelled_await_does_not_lose_the_completion(sample: Path):
    async def main():
        with Player(sample) as p:
            p.wait_item(timeout=20)
            task = asyncio.ensure_future(p.seek_async(5, SeekPrecision.exact()))
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # the player is still fine
            o = await p.seek_async(6, SeekPrecision.exact())
            assert o.finished

    run(main())


def test_seek_async_in_host_mode_dispatches_from_the_loop(sample: Path):
    async def main():
        with Player(sample, delivery=DeliveryMode.HOST) as p:
            p.wait_item(timeout=20)
            where = []
            seen = asyncio.Event()
            p.seek(1, SeekPrecision.exact(),
                   lambda o: (where.append(threading.get_ident()), seen.set()))
            o = await asyncio.wait_for(p.seek_async(3, SeekPrecision.exact()), 20)
            assert o.finished
            assert where == [threading.get_ident()], "callbacks must run on the loop thread"
            p.attach_event_loop()  # idempotent
            o2 = await asyncio.wait_for(p.seek_async(4, SeekPrecision.exact()), 20)
            assert o2.finished

    run(main())


def test_close_from_another_thread_while_awaiting(sample: Path):
    async def main():
        p = Player(sample, delivery=DeliveryMode.HOST)
        p.wait_item(timeout=20)
        fut = asyncio.ensure_future(p.seek_async(1000, SeekPrecision.exact()))
        await asyncio.sleep(0)
        th = threading.Thread(target=p.close)
        th.start()
        th.join(20)
        o = await asyncio.wait_for(fut, 20)
        assert o.reason in (FinishReason.COMPLETED, FinishReason.CANCELLED)
        await asyncio.sleep(0.05)  # the loop detaches its duplicate fd

    run(main())
