"""Packets, item facts, scrub sessions and frame steps through the Pythonic layer."""

from __future__ import annotations

import itertools
import threading
from fractions import Fraction
from pathlib import Path
from typing import List

import pytest

import groundtruth as gtm
from fpx_binding_testutil import wait_for

import fastpix_seek
from fastpix_seek import (FrameStepDirection, FrameStepUnavailableReason, Packet, Player,
                          ScrubState, SeekPrecision, SeekPrecisionListener, _lib)


def test_packets_after_a_seek(media: Path):
    gt = gtm.load(str(media))
    target = gt.to_item(gt.frames[len(gt.frames) // 2].pts) + Fraction(1, 1000)
    with Player(media) as p:
        p.wait_item(timeout=20)
        o = p.seek_and_wait(target, SeekPrecision.exact())
        landed = o.landed_stream_pts
        pk: List[Packet] = list(itertools.islice(p.packets(), 300))
    assert pk[0].is_discontinuity and not any(x.is_discontinuity for x in pk[1:])
    assert all(x.seek_id == o.seek_id for x in pk)
    ref = [x for x in pk if x.stream_index == gt.stream.index]
    assert ref and ref[0].is_key and ref[0].pts <= landed
    for x in ref:
        assert x.is_decode_only == (x.pts is not None and x.pts < landed)
        assert x.time_base == gt.time_base
        assert x.pts_time == x.pts * gt.time_base
        assert x.item_time == gt.to_item(x.pts)
        assert isinstance(x.data, bytes) and len(x.data) == x.size > 0
    assert any(x.pts == landed for x in ref)
    landed_pkt = next(x for x in ref if x.pts == landed)
    assert landed_pkt.item_time == o.landed_time


def test_packets_iterate_to_eof_and_are_copies(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.seek_and_wait(11, SeekPrecision.exact())
        pk = list(p.packets())
        assert pk, "no packets before EOF"
        with pytest.raises(fastpix_seek.EndOfFile):
            p.read_packet()
        first = pk[0].data
        # the library's buffer is reused; our copies must not change
        p.seek_and_wait(0, SeekPrecision.exact())
        again = list(p.packets())
    assert pk[0].data == first
    assert len(again) > len(pk)
    stream_packets = gtm.packets(str(sample))
    assert len([x for x in again if x.stream_index == 0]) == len(stream_packets)


def test_packet_is_frozen(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        x = p.read_packet()
    with pytest.raises(Exception):
        x.pts = 5  # type: ignore[misc]


def test_item_status_events_and_reopen(fixtures_dir: Path):
    seen = []

    class L(SeekPrecisionListener):
        def on_item_status(self, status):
            seen.append((status.item_id, status.status))

    with Player() as p:
        p.add_listener(L())
        p.open(fixtures_dir / "mkv.mkv")
        p.wait_item(timeout=20)
        p.open(str(fixtures_dir / "ts.ts"))
        st = p.wait_item(timeout=20)
        assert st.item_id == 2 and p.item_info().format_name == "mpegts"
        # caches are per item: packets of the new item use its time base
        p.seek_and_wait(1, SeekPrecision.exact())
        assert p.read_packet().time_base == Fraction(1, 90000)
        assert wait_for(lambda: (2, fastpix_seek.ItemStatus.READY) in seen, 5)
    first = [st for item, st in seen if item == 1]
    assert fastpix_seek.ItemStatus.READY in first
    assert [st for item, st in seen if item == 2][-1] == fastpix_seek.ItemStatus.READY


def test_stats_and_enum_names(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.seek_and_wait(1, SeekPrecision.exact())
        s = p.stats()
    assert s.seeks_issued == s.seeks_completed == 1 and s.packets_demuxed > 0
    assert s.struct_size == _lib.fpx_player_stats.__sizeof__(_lib.fpx_player_stats()) or \
        s.struct_size > 0
    for e in fastpix_seek.FinishReason:
        assert _lib.lib.fpx_finish_reason_name(e) == f"FPX_FINISH_{e.name}"
    for e in fastpix_seek.ClampKind:
        assert _lib.lib.fpx_clamp_kind_name(e) == f"FPX_CLAMP_{e.name}"
    for e in fastpix_seek.LandingResolution:
        assert _lib.lib.fpx_landing_resolution_name(e) == f"FPX_LANDING_{e.name}"
    for e in fastpix_seek.ItemStatus:
        assert _lib.lib.fpx_item_status_name(e) == f"FPX_ITEM_{e.name}"


def test_time_helpers_of_the_raw_layer():
    lib = _lib.lib
    a = lib.fpx_time_make(1, 2)
    b = lib.fpx_time_make(15000, 30000)
    assert lib.fpx_time_compare(a, b) == 0
    d = lib.fpx_time_subtract(lib.fpx_time_make(1001, 30000), lib.fpx_time_make(1, 30))
    assert fastpix_seek.from_fpx_time(d) == Fraction(1, 30000)
    assert lib.fpx_time_is_numeric(a) == 1
    assert lib.fpx_time_is_valid(lib.fpx_time_infinity(1)) == 1
    assert lib.fpx_time_is_numeric(lib.fpx_time_infinity(0)) == 0
    assert fastpix_seek.from_fpx_time(lib.fpx_time_infinity(0)) is None
    assert fastpix_seek.from_fpx_time(lib.fpx_time_invalid()) is None
    assert lib.fpx_time_to_seconds(lib.fpx_time_make(1, 4)) == 0.25
    assert fastpix_seek.from_fpx_time(lib.fpx_time_from_seconds(0.5, 1000)) == Fraction(1, 2)
    e = lib.fpx_precision_exact()
    assert e.kind == 0
    k = lib.fpx_precision_nearest_keyframe(lib.fpx_time_make(1, 5))
    assert k.kind == 1 and fastpix_seek.from_fpx_time(k.tolerance) == Fraction(1, 5)
    cfg = _lib.fpx_player_config()
    lib.fpx_player_config_init_size(cfg, _lib.ctypes.sizeof(cfg))
    assert cfg.size == _lib.ctypes.sizeof(cfg) and cfg.io_timeout_ms == 10000
    old = _lib.fpx_player_config()  # the unsized call writes the 0.3 layout (seek.h)
    lib.fpx_player_config_init(old)
    assert old.size == 64 and old.io_timeout_ms == 10000 and old.hls_audio == 0
    lst = _lib.fpx_listener()
    lib.fpx_listener_init(lst)
    assert lst.size == _lib.ctypes.sizeof(lst) and not lst.on_seek_accuracy


# ------------------------------------------------------------------------------------------
# scrub sessions and frame steps (functions added to the header during 0.1)
# ------------------------------------------------------------------------------------------

needs_scrub = pytest.mark.skipif(
    bool(set(_lib.missing_functions)),
    reason=f"the library does not export {_lib.missing_functions} (stale build)")


class ScrubRecorder(SeekPrecisionListener):
    def __init__(self):
        self.states: List[ScrubState] = []
        self.positions = []
        self.steps = []

    def on_scrub_state_changed(self, state):
        self.states.append(state)

    def on_scrub_position_changed(self, position):
        self.positions.append(position)

    def on_frame_step(self, result):
        self.steps.append(result)


@needs_scrub
def test_scrub_gesture_issues_exactly_one_seek(sample: Path):
    rec = ScrubRecorder()
    with Player(sample) as p:
        p.wait_item(timeout=20)
        p.add_listener(rec)
        s = p.scrub_session()
        assert s.state == ScrubState.IDLE and not s.is_active
        assert s.position_throttle == Fraction(1, 10)
        s.position_throttle = 0
        assert s.position_throttle == 0
        s.begin(1)
        assert s.state == ScrubState.SCRUBBING and s.is_active
        for i in range(50):
            s.update(Fraction(100 + i, 100))
        assert p.stats().seeks_issued == 0
        r = s.end_and_wait(Fraction(3, 2), SeekPrecision.exact())
        assert not r.was_cancelled and r.sample_count == 50
        assert r.outcome is not None and r.outcome.finished
        assert r.outcome.requested_time == Fraction(3, 2)
        assert p.stats().seeks_issued == 1
        assert s.state == ScrubState.IDLE
        with pytest.raises(fastpix_seek.InvalidStateError):
            s.update(2)
        with pytest.raises(fastpix_seek.InvalidTimeError):
            s.begin(float("nan"))
        assert wait_for(lambda: rec.states[-1:] == [ScrubState.IDLE], 5)
    assert rec.states == [ScrubState.SCRUBBING, ScrubState.SETTLING, ScrubState.IDLE]
    assert rec.positions and rec.positions[-1].sample_count == 50
    assert rec.positions[-1].time == Fraction(149, 100)
    with pytest.raises(fastpix_seek.InvalidHandleError):
        s.begin(1)


@needs_scrub
def test_scrub_cancel_and_callback(sample: Path):
    got = []
    ev = threading.Event()
    with Player(sample) as p:
        p.wait_item(timeout=20)
        s = p.scrub_session()
        s.begin(0)
        s.cancel()
        assert s.state == ScrubState.IDLE
        s.begin(0)
        s.update(1)
        sid = s.end(2, SeekPrecision.exact(), lambda r: (got.append(r), ev.set()))
        assert ev.wait(20)
        assert got[0].outcome is not None and got[0].outcome.seek_id == sid
    with Player(sample, seek_manager=False) as p:
        with pytest.raises(fastpix_seek.NoSeekManagerError):
            p.scrub_session()


@needs_scrub
def test_frame_steps_follow_the_frame_grid(fixtures_dir: Path):
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    rec = ScrubRecorder()
    with Player(path) as p:
        p.wait_item(timeout=20)
        p.add_listener(rec)
        i = 40
        o = p.seek_and_wait(gt.to_item(gt.frames[i].pts), SeekPrecision.exact())
        assert p.current_time() == o.landed_time
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert r.did_step and r.landed_media_time == gt.to_item(gt.frames[i + 1].pts)
        assert r.landed_stream_pts == gt.frames[i + 1].pts
        r = p.step_frame(FrameStepDirection.BACKWARD, 3)
        assert r.did_step and r.landed_stream_pts == gt.frames[i - 2].pts
        assert p.current_time() == gt.to_item(gt.frames[i - 2].pts)
        r = p.step_frame(FrameStepDirection.BACKWARD, 10 ** 6)
        assert not r.did_step
        assert r.reason == FrameStepUnavailableReason.CANNOT_STEP_IN_DIRECTION
        assert r.explanation and fastpix_seek.frame_step_reason_explanation(r.reason)
        with pytest.raises(fastpix_seek.InvalidArgumentError):
            p.step_frame(FrameStepDirection.FORWARD, 0)
        with pytest.raises(TypeError):
            p.step_frame("forward")  # type: ignore[arg-type]
        with pytest.raises(fastpix_seek.UnknownEnumError):
            p.step_frame(5)  # type: ignore[arg-type]
        assert wait_for(lambda: len(rec.steps) == 3, 5)
    assert [s.did_step for s in rec.steps] == [True, True, False]


@needs_scrub
def test_audio_only_items_are_not_steppable(fixtures_dir: Path):
    with Player(fixtures_dir / "audio.m4a") as p:
        p.wait_item(timeout=20)
        r = p.step_frame()
        assert not r.did_step and r.reason == FrameStepUnavailableReason.NO_VIDEO_TRACK
