"""Player.seek_wait (fpx_player_seek_wait): same landings as the asynchronous path, in both
delivery modes; refused from inside a callback."""

from __future__ import annotations

import threading
from fractions import Fraction
from pathlib import Path

import pytest

from fastpix_seek import DeliveryMode, InCallbackError, Player, SeekPrecision

TARGETS = [Fraction(0), Fraction(13, 10), Fraction(5, 2), Fraction(7901, 1000), Fraction(-1), Fraction(99)]


@pytest.mark.parametrize("delivery", [DeliveryMode.THREAD, DeliveryMode.HOST])
@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv"])
def test_seek_wait_equals_seek_and_wait(fixtures_dir: Path, name, delivery):
    with Player(fixtures_dir / name, delivery=delivery) as p:
        p.wait_item(timeout=20)
        for t in TARGETS:
            for prec in (SeekPrecision.exact(), SeekPrecision.default()):
                a = p.seek_and_wait(t, prec, timeout=30)
                b = p.seek_wait(t, prec, timeout=30)
                assert b.seek_id > a.seek_id and a.finished and b.finished
                assert (b.landed_time, b.landed_stream_pts, b.frame_covers_target, b.resolution, b.clamp.kind) == \
                    (a.landed_time, a.landed_stream_pts, a.frame_covers_target, a.resolution, a.clamp.kind)
        if delivery == DeliveryMode.HOST:
            p.dispatch_events()


def test_seek_wait_from_a_callback_raises(sample: Path):
    got = []
    done = threading.Event()
    with Player(sample) as p:
        p.wait_item(timeout=20)

        def on_complete(o):
            try:
                p.seek_wait(1, SeekPrecision.exact(), timeout=1)
            except InCallbackError as e:
                got.append(e)
            done.set()

        p.seek(2, SeekPrecision.exact(), on_complete=on_complete)
        assert done.wait(20)
    assert len(got) == 1 and got[0].code == -17


def test_set_stream_enabled(sample: Path):
    from fastpix_seek import ReferenceStreamError, InvalidArgumentError
    with Player(sample) as p:
        p.wait_item(timeout=20)
        info = p.item_info()
        audio = next(i for i in range(info.stream_count) if i != info.reference_stream)
        p.set_stream_enabled(audio, False)
        p.seek_wait(0, SeekPrecision.exact())
        seen = {pkt.stream_index for pkt in p.packets()}
        assert seen == {info.reference_stream}
        with pytest.raises(ReferenceStreamError) as e:
            p.set_stream_enabled(info.reference_stream, False)
        assert e.value.code == -29 and e.value.name == "FPX_ERROR_REFERENCE_STREAM"
        with pytest.raises(InvalidArgumentError):
            p.set_stream_enabled(info.stream_count, False)
        p.set_stream_enabled(audio, True)
        p.seek_wait(0, SeekPrecision.exact())
        assert {pkt.stream_index for pkt in p.packets()} == {info.reference_stream, audio}
