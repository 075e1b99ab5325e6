"""Live and DVR HLS through the binding: the seek window, seeking to the live edge and to a
date. A real sliding-window HLS stream (ffmpeg + a local HTTP server, Tests/python/livehls.py)
for the live cases; file fixtures for the file and error cases."""

from __future__ import annotations

import asyncio
import datetime
from fractions import Fraction
from pathlib import Path

import pytest

import fastpix_seek
from fastpix_seek import (ClampKind, DateSeekUnavailableReason, Player, PrecisionKind,
                          SeekPrecision)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    from livehls import LiveStream
    ls = LiveStream(tmp_path_factory.mktemp("binding-live"))
    with ls:
        ls.wait_segments(6, timeout=30)
        yield ls


def test_live_window(live):
    with Player(live.url) as p:
        p.wait_item(timeout=20)
        w = p.live_seek_window()
    assert w.is_available and w.is_live and w.is_date_addressable
    assert w.start is not None and w.end is not None and w.start < w.end
    assert w.duration == w.end - w.start
    assert w.target_duration == 1
    assert w.first_sequence <= w.last_sequence
    assert w.hold_back is not None and w.hold_back > 0
    # dates span the same interval, to the microsecond
    assert abs(Fraction(w.end_date_us - w.start_date_us, 10 ** 6) - w.duration) <= \
        Fraction(1, 10 ** 6)
    assert w.start_date is not None and w.start_date.tzinfo is not None
    assert w.end_date - w.start_date == datetime.timedelta(
        microseconds=w.end_date_us - w.start_date_us)


def test_seek_to_live_edge(live):
    with Player(live.url) as p:
        p.wait_item(timeout=20)
        w = p.live_seek_window()
        o = p.seek_to_live_edge_and_wait(timeout=30)
        assert o.finished and o.precision.kind == PrecisionKind.EXACT
        assert o.clamp.kind in (ClampKind.NONE, ClampKind.TO_SEEKABLE_END)
        assert w.start <= o.landed_time <= w.end + 2 * w.target_duration
        assert o.delta == o.landed_time - o.requested_time
        async def edge_async():
            return await p.seek_to_live_edge_async()

        o2 = asyncio.run(edge_async())
        assert o2.finished and o2.seek_id > o.seek_id


def test_seek_to_date_inside_and_outside_the_window(live):
    with Player(live.url) as p:
        p.wait_item(timeout=20)
        w = p.live_seek_window()
        date = w.start_date_us + (w.end_date_us - w.start_date_us) // 2
        r = p.seek_to_date_and_wait(date, SeekPrecision.exact(), timeout=30)
        assert r.seeked and r.reason == DateSeekUnavailableReason.OK, r.explanation
        assert r.requested_date_us == date
        assert r.outcome is not None and r.outcome.finished
        # an aware datetime names the same instant
        when = fastpix_seek.unix_us_to_datetime(date)
        r2 = p.seek_to_date_and_wait(when, SeekPrecision.exact(), timeout=30)
        assert r2.requested_date_us == date and r2.seeked
        # outside: reported, not clamped
        r3 = p.seek_to_date_and_wait(w.start_date_us - 10_000_000, SeekPrecision.exact())
        assert not r3.seeked and r3.outcome is None
        assert r3.reason == DateSeekUnavailableReason.OUTSIDE_WINDOW
        assert r3.explanation and r3.window_start_date_us and r3.window_end_date_us
        assert r3.explanation == fastpix_seek.date_seek_reason_explanation(r3.reason) or \
            r3.explanation

        async def date_async():
            return await p.seek_to_date_async(date, SeekPrecision.exact())

        assert asyncio.run(date_async()).seeked


def test_file_items(sample: Path):
    with Player(sample) as p:
        w = p.live_seek_window()
        assert w.is_available in (False, True)
        p.wait_item(timeout=20)
        w = p.live_seek_window()
        start, end = p.seekable_range()
        assert w.is_available and not w.is_live and not w.is_date_addressable
        assert w.start == start and w.end is not None and w.end >= end
        assert w.start_date is None
        o = p.seek_to_live_edge_and_wait()
        assert o.finished and o.landed_time == end  # a file's "edge" is its last frame
        r = p.seek_to_date_and_wait(1_700_000_000_000_000)
        assert not r.seeked and r.reason == DateSeekUnavailableReason.NOT_DATE_ADDRESSABLE


def test_no_item_and_bad_dates(sample: Path):
    with Player() as p:
        w = p.live_seek_window()
        assert not w.is_available
        with pytest.raises(fastpix_seek.NoItemError):
            p.seek_to_live_edge_and_wait()
        r = p.seek_to_date_and_wait(0)
        assert not r.seeked and r.reason == DateSeekUnavailableReason.NO_CURRENT_ITEM
        with pytest.raises(fastpix_seek.InvalidArgumentError):
            p.seek_to_date(datetime.datetime(2026, 1, 1))  # naive: ambiguous
        for bad in (1.5, "2026-01-01", None, True):
            with pytest.raises(TypeError):
                p.seek_to_date(bad)  # type: ignore[arg-type]
        with pytest.raises(fastpix_seek.InvalidArgumentError):
            p.seek_to_date(2 ** 63)
        with pytest.raises(TypeError):
            p.seek_to_date(0, "exact")  # type: ignore[arg-type]


def test_live_packets_are_not_read_ahead(live, sample: Path):
    """packets() on a live item reads one packet per hop (a read may wait for the next
    segment; packets read before it must not wait with it); on a file it reads ahead."""
    with Player(live.url) as p:
        p.wait_item(timeout=20)
        it = p.packets()
        for _ in range(5):
            next(it)
            assert not p._pre
        it.close()
    with Player(sample) as p:
        p.wait_item(timeout=20)
        it = p.packets()
        next(it)
        assert p._pre
        it.close()
