"""packets() reads ahead in batches (issue 21, item 3): what it hands out is exactly what
read_packet() one at a time would, also across seeks, steps, scrub ends and calls that do not
move the stream, and what it read ahead but did not hand out stays with the player.

Ground truth: a second Player reading with read_packet() (one packet per call, no read-ahead)
and ffprobe's packet list of the reference stream (groundtruth.packets)."""

from __future__ import annotations

import itertools
import zlib
from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import pytest

import groundtruth as gtm

import fastpix_seek
from fastpix_seek import FrameStepDirection, Packet, Player, SeekPrecision, _lib

Row = Tuple[object, ...]


def row(p: Packet) -> Row:
    return (p.stream_index, p.pts, p.dts, p.duration, p.pos, p.flags, p.seek_id, p.landed_pts,
            p.landed_stream_index, p.landed_pts_in_stream, p.trim_samples, p.time_base,
            p.pts_time, p.dts_time, p.item_time, len(p.data), zlib.adler32(p.data))


def one_by_one(path: Path, seek_to: object = None, limit: int = 10**9) -> List[Row]:
    out: List[Row] = []
    with Player(path) as p:
        p.wait_item(timeout=20)
        if seek_to is not None:
            p.seek_and_wait(seek_to, SeekPrecision.exact())
        while len(out) < limit:
            try:
                out.append(row(p.read_packet()))
            except fastpix_seek.EndOfFile:
                break
    return out


@pytest.mark.parametrize("batch", [1, 7, 64, 1000])
def test_every_packet_is_read_packets(media: Path, batch: int):
    """Whole file: packets(batch) == read_packet() one by one, field for field and byte for
    byte; the reference stream's pts and dts are ffprobe's, in order, to the end."""
    want = one_by_one(media)
    with Player(media) as p:
        p.wait_item(timeout=20)
        got = [row(x) for x in p.packets(batch=batch)]
        with pytest.raises(fastpix_seek.EndOfFile):
            p.read_packet()
    assert got == want
    ref = gtm.reference_stream(str(media)).index
    truth = gtm.packets(str(media))
    mine = [(r[1], r[2]) for r in got if r[0] == ref]
    theirs = [(t.pts, t.dts) for t in truth]
    # ffprobe's list to the end, from the first packet the library returns (an audio
    # priming packet before it may be left out: that is read_packet()'s behaviour too)
    assert mine and mine == theirs[theirs.index(mine[0]):], media.name
    assert len(mine) >= len(theirs) - 1


def test_a_seek_mid_iteration_yields_the_new_landing(media: Path):
    """After 5 packets of a 64-packet batch, a seek: the next packet is the new landing's
    keyframe (DISCONTINUITY, the new seek id), never one read ahead before the seek, and
    what follows is what a fresh player reads after the same seek."""
    gt = gtm.load(str(media))
    target = gt.to_item(gt.frames[(2 * len(gt.frames)) // 3].pts)
    want = one_by_one(media, target, limit=200)
    with Player(media) as p:
        p.wait_item(timeout=20)
        it = p.packets(batch=64)
        first = list(itertools.islice(it, 5))
        assert len(first) == 5 and len(p._pre) > 0  # packets are read ahead: the case tested
        o = p.seek_and_wait(target, SeekPrecision.exact())
        after = list(itertools.islice(it, 200))
    assert after[0].is_discontinuity and after[0].seek_id == o.seek_id
    assert all(x.seek_id == o.seek_id for x in after)
    ref = [x for x in after if x.stream_index == gt.stream.index]
    assert ref[0].is_key and ref[0].pts <= o.landed_stream_pts
    assert any(x.pts == o.landed_stream_pts for x in ref)
    # the reference stream continues as ffprobe lists it, from the landing's keyframe on
    truth = [t.pts for t in gtm.packets(str(media))]
    k = truth.index(ref[0].pts)
    assert [x.pts for x in ref] == truth[k:k + len(ref)]
    # seek ids differ between the two players; everything else is the same
    strip = lambda r: r[:6] + r[7:]  # noqa: E731
    assert [strip(row(x)) for x in after] == [strip(r) for r in want]


def test_seeks_steps_and_scrub_ends_between_every_few_packets(sample: Path):
    """Many moves, each a few packets into a batch: after each, the first packet is its
    landing's (DISCONTINUITY, its seek id), as read_packet() would give."""
    gt = gtm.load(str(sample))
    with Player(sample) as p:
        p.wait_item(timeout=20)
        for i in range(6):
            it = p.packets(batch=64)  # (what the last one read ahead comes first)
            list(itertools.islice(it, 3 + i))
            assert p._pre  # packets are read ahead: the case tested
            t = gt.to_item(gt.frames[(i * 37 + 11) % (len(gt.frames) // 2)].pts)
            if i % 3 == 0:
                o = p.seek_and_wait(t, SeekPrecision.exact())
                sid, landed = o.seek_id, o.landed_stream_pts
            elif i % 3 == 1:
                r = p.step_frame(FrameStepDirection.FORWARD, 1)
                assert r.did_step
                sid, landed = None, gt.to_ticks(p.current_time())
            else:
                s = p.scrub_session()
                s.begin(t)
                s.update(t)
                res = s.end_and_wait(t, SeekPrecision.exact())
                assert res.outcome is not None
                sid, landed = res.outcome.seek_id, res.outcome.landed_stream_pts
            nxt = next(it)
            assert nxt.is_discontinuity, (i, nxt)
            if sid is not None:
                assert nxt.seek_id == sid
            rest = [nxt]
            while not any(x.stream_index == gt.stream.index and x.pts == landed
                          for x in rest[-1:]) and len(rest) < 700:
                rest.append(next(it))
            ref = [x for x in rest if x.stream_index == gt.stream.index]
            assert ref[0].is_key and ref[0].pts <= landed
            assert any(x.pts == landed for x in ref), (i, landed)
            truth = [t.pts for t in gtm.packets(str(sample))]
            k = truth.index(ref[0].pts)
            assert [x.pts for x in ref] == truth[k:k + len(ref)]


def test_calls_that_do_not_move_the_stream_lose_nothing(sample: Path):
    """Calls between packets that could move the stream but do not (a cancel with nothing
    pending: it counts as a possible move, so the read-ahead packets are checked against
    the next read) and getters: the sequence is the uninterrupted one, no packet dropped or
    repeated."""
    want = one_by_one(sample)
    got: List[Row] = []
    with Player(sample) as p:
        p.wait_item(timeout=20)
        for i, x in enumerate(p.packets(batch=16)):
            got.append(row(x))
            if i % 5 == 0:
                p.cancel_pending_seeks()
            if i % 7 == 0:
                p.stats()
                p.item_info()
                p.current_time()
    assert got == want


def test_read_ahead_packets_stay_with_the_player(sample: Path):
    """Stopping an iteration leaves nothing behind: read_packet() and a new packets() go on
    with the very next packet."""
    want = one_by_one(sample)
    with Player(sample) as p:
        p.wait_item(timeout=20)
        got = [row(x) for x in itertools.islice(p.packets(batch=64), 10)]
        got.append(row(p.read_packet()))
        got += [row(x) for x in itertools.islice(p.packets(batch=5), 30)]
        got += [row(x) for x in p.packets()]
    assert got == want


def test_disabling_a_stream_drops_its_read_ahead_packets(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        info = p.item_info()
        ref = info.reference_stream
        other = next(i for i in range(info.stream_count) if i != ref)
        it = p.packets(batch=200)
        head = list(itertools.islice(it, 3))
        assert any(r[1][3] == other for r in p._pre)  # read ahead: the case tested
        p.set_stream_enabled(other, False)
        rest = list(it)
    assert head and rest and all(x.stream_index != other for x in rest)


def test_opening_another_item_drops_the_old_items_packets(fixtures_dir: Path):
    with Player(fixtures_dir / "mp4_bframes.mp4") as p:
        p.wait_item(timeout=20)
        it = p.packets(batch=64)
        list(itertools.islice(it, 3))
        p.open(fixtures_dir / "ts.ts")
        p.wait_item(timeout=20)
        x = next(it)
    assert x.time_base == Fraction(1, 90000)


def test_in_callback_packets_raise_in_callback_error(sample: Path):
    seen: List[BaseException] = []

    class L(fastpix_seek.SeekPrecisionListener):
        def on_seek_accuracy(self, accuracy, outcome):
            try:
                next(p.packets())
            except BaseException as e:  # noqa: BLE001
                seen.append(e)

    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.add_listener(L())
        p.seek_and_wait(1, SeekPrecision.exact())
    assert seen and isinstance(seen[0], fastpix_seek.errors.InCallbackError), seen


def test_packet_api_is_unchanged():
    tb = Fraction(1, 30000)
    a = Packet(b"ab", 0, 3003, None, 1001, None, _lib.FPX_PACKET_FLAG_KEY, 2, tb,
               Fraction(3003, 30000), None, Fraction(1, 10), landed_pts=3003,
               landed_stream_index=0, landed_pts_in_stream=3003, trim_samples=0)
    b = Packet(b"ab", 0, 3003, None, 1001, None, _lib.FPX_PACKET_FLAG_KEY, 2, tb,
               Fraction(3003, 30000), None, Fraction(1, 10), 3003, 0, 3003, 0)
    assert a == b and hash(a) == hash(b) and a.is_key and a.size == 2
    assert (a.pts, a.dts, a.pos, a.item_time, a.landed_pts) == (3003, None, None,
                                                                Fraction(1, 10), 3003)
    with pytest.raises(AttributeError):
        a.pts = 1  # type: ignore[misc]
