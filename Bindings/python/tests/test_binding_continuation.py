"""Continuation and packets()' read-ahead (issue 21, item 1): with continuation on, a seek,
step or scrub end may continue the packet stream from where the library thinks the host is.
packets() reads ahead in batches, so before any call that may move the stream it gives the
packets it read ahead but did not hand out back to the library (fpx_player_unread_packets);
nothing the user never saw is counted as delivered, and nothing is lost.

Ground truth: the demux order of a second Player reading with read_packet() one at a time
from the same landing (no read-ahead, continuation off)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import fastpix_seek
from fastpix_seek import FrameStepDirection, Packet, Player, SeekPrecision

Key = Tuple[int, object, object, int]


def key(p: Packet) -> Key:
    return (p.stream_index, p.pts, p.dts, len(p.data))


def demux_order(path: Path, at: Fraction, n: int) -> List[Key]:
    with Player(path) as p:
        p.wait_item(timeout=20)
        p.seek_and_wait(at, SeekPrecision.exact())
        return [key(p.read_packet()) for _ in range(n)]


def test_read_ahead_goes_back_before_a_continued_landing(sample: Path):
    at = Fraction(2)
    truth = demux_order(sample, at, 200)
    continued = 0
    for move in ("step", "seek"):
        with Player(sample) as p:
            p.wait_item(timeout=20)
            p.set_continuation(True)
            p.seek_and_wait(at, SeekPrecision.exact())
            got: List[Packet] = []
            it = p.packets(batch=64)
            for pkt in it:  # 5 packets handed out, ~59 read ahead
                got.append(pkt)
                if len(got) == 5:
                    break
            first_id = got[0].seek_id
            if move == "step":
                r = p.step_frame(FrameStepDirection.FORWARD, 1)
                assert r.did_step
            else:
                p.seek_and_wait(at + Fraction(1, 10), SeekPrecision.exact())
            after = [x for _, x in zip(range(60), p.packets(batch=64))]
            assert after, "packets after the move"
            if after[0].is_discontinuity:
                continue  # restarted: nothing to check here
            continued += 1
            # Continued: the packets go on exactly after the last one the user got, none
            # lost, none twice, the read-ahead ones stamped again for the new landing.
            seq = [key(x) for x in got + after]
            assert seq == truth[:len(seq)], move
            if move == "seek":
                assert all(x.seek_id != first_id for x in after)
            assert all(x.landed_pts == after[0].landed_pts for x in after)
            assert after[0].landed_pts != got[0].landed_pts
    assert continued >= 1, "at least one of the moves continued"


def test_off_by_default_and_the_old_rule_holds(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.seek_and_wait(Fraction(2), SeekPrecision.exact())
        for i, pkt in enumerate(p.packets(batch=64)):
            if i == 4:
                break
        r = p.step_frame(FrameStepDirection.FORWARD, 1)
        assert r.did_step
        nxt = next(iter(p.packets(batch=64)))
        assert nxt.is_discontinuity
        assert nxt.is_key


def test_report_decoded_is_accepted(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.set_continuation(True)
        p.seek_and_wait(Fraction(1), SeekPrecision.exact())
        pkt = p.read_packet()
        assert pkt.landed_pts is not None
        p.report_decoded(pkt.landed_pts)
        p.set_continuation(False)
