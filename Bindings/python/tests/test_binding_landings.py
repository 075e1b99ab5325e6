"""Seeks through the binding land where ffprobe says they must (groundtruth.py), compared as
exact Fractions, and every outcome is internally consistent."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import List, Optional

import pytest

import groundtruth as gtm
from fpx_binding_testutil import random_targets, seed_for, show

from fastpix_seek import (ClampKind, FinishReason, LandingResolution, Player, PrecisionKind,
                          SeekOutcome, SeekPrecision)

N_RANDOM = 60
CLAMPS = {
    "FPX_CLAMP_NONE": ClampKind.NONE,
    "FPX_CLAMP_TO_SEEKABLE_START": ClampKind.TO_SEEKABLE_START,
    "FPX_CLAMP_TO_SEEKABLE_END": ClampKind.TO_SEEKABLE_END,
}


class Problems:
    def __init__(self, title: str) -> None:
        self.title = title
        self.lines: List[str] = []

    def check(self, t: Fraction, what: str, expected, got, extra: str = "") -> None:
        if expected != got:
            self.lines.append(f"target {show(t)}: {what}: expected {show(expected)}, "
                              f"got {show(got)}{extra}")

    def __bool__(self) -> bool:
        return bool(self.lines)

    def message(self, n: int) -> str:
        return f"{self.title}: {len(self.lines)} problems over {n} targets\n" + "\n".join(
            self.lines[:60])


def exact_targets(gt: gtm.GroundTruth, name: str) -> List[Fraction]:
    rng = random.Random(seed_for("binding-exact", name))
    ts = random_targets(rng, Fraction(-1), gtm.media_duration(gt) + 1, N_RANDOM)
    # frame boundaries: on a frame, one tick before the next, half a tick after
    for i in rng.sample(range(len(gt.frames) - 1), 8):
        a, b = gt.frames[i], gt.frames[i + 1]
        ts += [gt.to_item(a.pts), gt.to_item(b.pts - 1), gt.to_item(a.pts) + gt.time_base / 2]
    ts += [gt.first_time, gt.last_time, gt.first_time - Fraction(1, 10**6),
           gt.last_time + Fraction(1, 1000), Fraction(0), Fraction(-5), gtm.media_duration(gt) + 7]
    out, seen = [], set()
    for t in ts:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def check_common(p: Problems, gt: gtm.GroundTruth, t: Fraction, o: SeekOutcome,
                 tol: Fraction, kind: PrecisionKind) -> Optional[Fraction]:
    """Checks shared by every precision; returns the landed time or None."""
    p.check(t, "reason", FinishReason.COMPLETED, o.reason)
    p.check(t, "finished", True, o.finished)
    p.check(t, "error", 0, o.error)
    p.check(t, "precision.kind", kind, o.precision.kind)
    p.check(t, "precision.tolerance", tol, o.precision.tolerance)
    p.check(t, "requested_time", t, o.requested_time)
    p.check(t, "accuracy.requested_media_time", t, o.accuracy.requested_media_time)
    p.check(t, "tolerance_before", tol, o.accuracy.tolerance_before)
    p.check(t, "tolerance_after", tol, o.accuracy.tolerance_after)
    p.check(t, "stream_index", gt.stream.index, o.stream_index)
    p.check(t, "stream_time_base", gt.time_base, o.stream_time_base)
    # clamp
    kind_name, ct = gt.clamp(t)
    c = o.clamp
    p.check(t, "clamp.kind", CLAMPS[kind_name], c.kind)
    p.check(t, "clamp.did_clamp", kind_name != "FPX_CLAMP_NONE", c.did_clamp)
    p.check(t, "clamp.requested", t, c.requested)
    p.check(t, "clamp.clamped_target", ct, c.clamped_target)
    p.check(t, "clamp.clamped_to", ct if c.did_clamp else None, c.clamped_to)
    if not c.explanation:
        p.lines.append(f"target {show(t)}: empty clamp explanation")
    if o.landed_time is None or o.landed_stream_pts is None:
        p.lines.append(f"target {show(t)}: did not land: {o}")
        return None
    landed = o.landed_time
    # internal consistency, exact
    p.check(t, "landed_time vs landed_stream_pts", gt.to_item(o.landed_stream_pts), landed)
    p.check(t, "accuracy.landed_media_time", landed, o.accuracy.landed_media_time)
    p.check(t, "delta == landed - requested", landed - t, o.delta)
    p.check(t, "within_requested_tolerance", t - tol <= landed <= t + tol,
            o.accuracy.within_requested_tolerance)
    p.check(t, "landed_is_keyframe", gt.is_keyframe_pts(o.landed_stream_pts),
            o.landed_is_keyframe)
    # display doubles are derived from the exact values
    if abs(o.accuracy.delta_seconds - float(landed - t)) > 1e-9:
        p.lines.append(f"target {show(t)}: delta_seconds {o.accuracy.delta_seconds}")
    return landed


@pytest.fixture(scope="module")
def gt_cache():
    return {}


def load_gt(path: Path) -> gtm.GroundTruth:
    return gtm.load(str(path))


def test_exact_landings_match_ffprobe(media: Path):
    gt = load_gt(media)
    targets = exact_targets(gt, media.name)
    assert len(targets) >= 50
    p = Problems(f"{media.name} exact")
    with Player(media) as player:
        player.wait_item(timeout=20)
        for t in targets:
            o = player.seek_and_wait(t, SeekPrecision.exact(), timeout=60)
            assert o.seek_id > 0
            landed = check_common(p, gt, t, o, Fraction(0), PrecisionKind.EXACT)
            if landed is None:
                continue
            _, ct = gt.clamp(t)
            want = gt.covering(ct)
            p.check(t, "landed frame (stream pts)", want.pts, o.landed_stream_pts,
                    f" (clamped target {show(ct)})")
            p.check(t, "landed_time", gt.to_item(want.pts), landed)
            p.check(t, "resolution", LandingResolution.COVERING_FRAME, o.resolution)
            p.check(t, "frame_covers_target", True, o.frame_covers_target)
            # an exact landing is within its zero tolerance only when it hits the target
            p.check(t, "exact verdict", landed == t, o.within_tolerance)
        stats = player.stats()
    assert not p, p.message(len(targets))
    assert stats.seeks_completed == len(targets) == stats.seeks_issued


@pytest.mark.parametrize("tolerance", [Fraction(1, 2), "1/10"])
def test_keyframe_landings_match_ffprobe(media: Path, tolerance):
    gt = load_gt(media)
    tol = Fraction(tolerance)
    rng = random.Random(seed_for("binding-keyframe", media.name, str(tol)))
    targets = random_targets(rng, Fraction(-1), gtm.media_duration(gt) + 1, 20)
    targets += [gt.to_item(k.pts) for k in gt.keyframes[:3]]
    precision = SeekPrecision.nearest_keyframe(tolerance)
    assert precision.tolerance == tol
    p = Problems(f"{media.name} nearest keyframe +/-{tol}")
    with Player(media) as player:
        player.wait_item(timeout=20)
        for t in targets:
            o = player.seek_and_wait(t, precision, timeout=60)
            landed = check_common(p, gt, t, o, tol, PrecisionKind.NEAREST_KEYFRAME)
            if landed is None:
                continue
            _, ct = gt.clamp(t)
            k = gt.nearest_keyframe(ct, tol)
            cover = gt.covering(ct)
            if k is not None:
                p.check(t, "landed keyframe", k.pts, o.landed_stream_pts)
                p.check(t, "resolution", LandingResolution.KEYFRAME, o.resolution)
                p.check(t, "frame_covers_target", cover.pts == k.pts, o.frame_covers_target)
            else:
                p.check(t, "fallback landing", cover.pts, o.landed_stream_pts)
                p.check(t, "resolution", LandingResolution.FALLBACK_COVERING_FRAME,
                        o.resolution)
    assert not p, p.message(len(targets))


def test_default_precision_is_keyframe_tenth(sample: Path):
    d = SeekPrecision.default()
    assert d.kind == PrecisionKind.NEAREST_KEYFRAME and d.tolerance == Fraction(1, 10)
    with Player(sample) as player:
        player.wait_item(timeout=20)
        o = player.seek_and_wait(Fraction(5))  # precision omitted: the default
        assert o.precision == d
        assert o.finished


def test_time_input_types_are_exact(sample: Path):
    """float, Decimal, str, int and Fraction inputs name the same exact target."""
    from decimal import Decimal
    gt = load_gt(sample)
    with Player(sample) as player:
        player.wait_item(timeout=20)
        results = {}
        for t in (Fraction(37, 4), 9.25, Decimal("9.25"), "9.25", "37/4"):
            o = player.seek_and_wait(t, SeekPrecision.exact())
            results[repr(t)] = (o.requested_time, o.landed_stream_pts)
        assert set(results.values()) == {(Fraction(37, 4),
                                          gt.covering(Fraction(37, 4)).pts)}, results
        # 0.1 is read as the decimal the user typed: exactly 1/10
        assert player.seek_and_wait(0.1, SeekPrecision.exact()).requested_time == \
            Fraction(1, 10)
        # an int
        assert player.seek_and_wait(3, SeekPrecision.exact()).requested_time == 3
        # a denominator beyond int32 is rounded to the nearest nanosecond
        t = Fraction(1, 3 * 10**10) + 2
        o = player.seek_and_wait(t, SeekPrecision.exact())
        assert o.requested_time == Fraction(round(t * 10**9), 10**9)


def test_seekable_range_and_item_info_match_ffprobe(media: Path):
    gt = load_gt(media)
    with Player(media) as player:
        st = player.wait_item(timeout=20)
        assert st.status.name == "READY" and st.item_id == 1
        info = player.item_info()
        assert info.reference_stream == gt.stream.index
        assert info.time_base == gt.time_base
        assert info.start_pts == gt.origin_ticks
        assert info.has_video == (gt.stream.codec_type == "video")
        assert info.stream_count == len(gtm.probe(gt.path)["streams"])
        assert player.seekable_range() == (gt.first_time, gt.last_time)
        s = player.stream_info(gt.stream.index)
        assert s.index == gt.stream.index and s.time_base == gt.time_base
        assert s.codec_name == gt.stream.codec_name
