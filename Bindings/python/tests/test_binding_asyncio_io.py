"""open_async / wait_item_async, packets_async / read_packet_async, step_frame_async and
seek_wait_async never block the event loop, in both delivery modes: a ticker task keeps
advancing (no gap near the server's delay) while the library waits on a deliberately slow
HTTP server on 127.0.0.1 (every response delayed, bodies throttled)."""

from __future__ import annotations

import asyncio
import time
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
from rangeserver import RangeHandler, serve
from fastpix_seek import DeliveryMode, FrameStepDirection, ItemStatus, Player, SeekPrecision

DELAY = 0.3  # seconds before every response


class SlowRangeHandler(RangeHandler):
    """Single-range HTTP (FFmpeg needs it to seek), slow on purpose: every response delayed,
    bodies throttled to about 2 MB/s."""

    delay = DELAY
    chunk_pause = 0.004


@pytest.fixture(scope="module")
def slow_url(fixtures_dir: Path):
    with serve(fixtures_dir, SlowRangeHandler) as base:
        yield f"{base}/mp4_bframes.mp4"


class Ticker:
    """Ticks every 5 ms on the loop; records the loop's longest stall."""

    def __init__(self) -> None:
        self.times = []
        self.stop = asyncio.Event()

    async def run(self) -> None:
        while not self.stop.is_set():
            self.times.append(time.monotonic())
            await asyncio.sleep(0.005)

    def during(self, t0: float, t1: float):
        inside = [t for t in self.times if t0 <= t <= t1]
        pts = [t0] + inside + [t1]
        return len(inside), max(b - a for a, b in zip(pts, pts[1:]))


async def timed(coro):
    t0 = time.monotonic()
    r = await coro
    return r, t0, time.monotonic()


def check_not_blocked(ticker: Ticker, t0: float, t1: float, what: str):
    n, gap = ticker.during(t0, t1)
    assert t1 - t0 >= DELAY * 0.9, f"{what} took {t1 - t0:.3f} s: the slow server was not hit"
    assert n >= 5, f"{what}: the ticker ran {n} times in {t1 - t0:.3f} s"
    # A blocked loop would stall at least one whole server delay.
    assert gap < DELAY * 0.8, f"{what}: the loop stalled {gap:.3f} s"


@pytest.mark.parametrize("delivery", [DeliveryMode.THREAD, DeliveryMode.HOST])
def test_open_read_step_never_block_the_loop(slow_url, fixtures_dir: Path, delivery):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    pts = gt.pts_list()

    async def main():
        ticker = Ticker()
        task = asyncio.create_task(ticker.run())
        await asyncio.sleep(0.02)
        p = Player(delivery=delivery, io_timeout=30)
        try:
            status, t0, t1 = await timed(p.open_async(slow_url, timeout=60))
            check_not_blocked(ticker, t0, t1, "open_async")
            assert status.status == ItemStatus.READY

            async def first_packets(n):
                out = []
                async for pkt in p.packets_async(batch=8):
                    out.append(pkt)
                    if len(out) == n:
                        break
                return out

            pkts, t0, t1 = await timed(first_packets(300))
            check_not_blocked(ticker, t0, t1, "packets_async")
            assert len(pkts) == 300 and pkts[0].stream_index in (0, 1)

            o, t0, t1 = await timed(p.seek_wait_async(Fraction(9, 1), SeekPrecision.exact(), timeout=60))
            check_not_blocked(ticker, t0, t1, "seek_wait_async")
            assert o.finished and o.landed_stream_pts == gt.covering(Fraction(9)).pts
            pkt, t0, t1 = await timed(p.read_packet_async())
            assert pkt.is_discontinuity

            async def steps():
                results = []
                for _ in range(4):  # backward across the GOP boundary at 8.008 s
                    results.append(await p.step_frame_async(FrameStepDirection.BACKWARD, 12))
                return results

            o = await p.seek_async(Fraction(9, 1), SeekPrecision.exact())
            results, t0, t1 = await timed(steps())
            check_not_blocked(ticker, t0, t1, "step_frame_async")
            i = pts.index(o.landed_stream_pts)
            assert [r.landed_stream_pts for r in results] == [pts[i - 12 * k] for k in range(1, 5)]
        finally:
            p.close()
            ticker.stop.set()
            await task

    asyncio.run(main())


def test_async_calls_on_a_closed_player_raise(sample: Path):
    from fastpix_seek import InvalidHandleError

    async def main():
        p = Player(sample)
        await p.wait_item_async(timeout=20)
        p.close()
        with pytest.raises(InvalidHandleError):
            await p.read_packet_async()
        with pytest.raises(InvalidHandleError):
            await p.step_frame_async()

    asyncio.run(main())


def test_packets_async_reads_everything_in_order(sample: Path):
    async def main():
        with Player(sample) as p:
            await p.wait_item_async(timeout=20)
            a = [(x.stream_index, x.pts) async for x in p.packets_async(batch=5)]
        with Player(sample) as p:
            p.wait_item(timeout=20)
            b = [(x.stream_index, x.pts) for x in p.packets()]
        return a, b

    a, b = asyncio.run(main())
    assert a == b and len(a) > 900
