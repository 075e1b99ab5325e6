"""Where FastPixSeek seeks land, checked against ffprobe.

Every expected value comes from groundtruth.py (ffprobe + exact Fractions), following the
definitions in Include/fastpix/seek.h. The library is only ever the thing under test, driven
through the plain C host Tests/c/landings.c.

Run:  make lib && python3 -m pytest -q Tests/python
"""

from __future__ import annotations

import random
import zlib
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Optional

import pytest

import groundtruth as gtm
from abi import C
from groundtruth import ERROR_FIXTURES, MEDIA_FIXTURES

FLAG_KEY = C["FPX_PACKET_FLAG_KEY"]
FLAG_DISCARD = C["FPX_PACKET_FLAG_DISCARD"]
FLAG_DECODE_ONLY = C["FPX_PACKET_FLAG_DECODE_ONLY"]
FLAG_DISCONTINUITY = C["FPX_PACKET_FLAG_DISCONTINUITY"]

TIME_VALID = C["FPX_TIME_FLAG_VALID"]
TIME_POS_INF = C["FPX_TIME_FLAG_POSITIVE_INFINITY"]
TIME_NEG_INF = C["FPX_TIME_FLAG_NEGATIVE_INFINITY"]

INT32_MAX = 2**31 - 1

CLAMP_NONE = "FPX_CLAMP_NONE"
CLAMP_START = "FPX_CLAMP_TO_SEEKABLE_START"
CLAMP_END = "FPX_CLAMP_TO_SEEKABLE_END"

KIND_NEAREST_KEYFRAME = C["FPX_PRECISION_NEAREST_KEYFRAME"]

# precision argument for landings -> tolerance in seconds
KEYFRAME_PRECISIONS = {
    "default": Fraction(1, 10),
    "keyframe:1/2": Fraction(1, 2),
    "keyframe:0/1": Fraction(0),
    "keyframe:3/1": Fraction(3),
    # The raw FPX_PRECISION_DEFAULT enum value (tolerance left invalid): the header says it is
    # exactly NEAREST_KEYFRAME 1/10 s and that outcomes report it in that normalized form.
    "default-kind": Fraction(1, 10),
}


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------

def ftime(obj) -> Optional[Fraction]:
    """A printed fpx_time as an exact Fraction; None unless valid and numeric."""
    if not isinstance(obj, dict):
        return None
    flags = obj.get("flags", 0)
    if not flags & TIME_VALID or flags & (TIME_POS_INF | TIME_NEG_INF) or obj["timescale"] <= 0:
        return None
    return Fraction(obj["value"], obj["timescale"])


def rat(x: Fraction) -> str:
    x = Fraction(x)
    assert 0 < x.denominator <= INT32_MAX, x
    return f"{x.numerator}/{x.denominator}"


def show(x) -> str:
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator} (~{float(x):.6f} s)"
    return repr(x)


def seed_for(*parts: str) -> int:
    return zlib.crc32("|".join(parts).encode())


def random_targets(gt: gtm.GroundTruth, rng: random.Random, n: int) -> List[Fraction]:
    """n random item times in [-1 s, duration + 1 s], with assorted timescales."""
    dur = gtm.media_duration(gt)
    out = []
    for _ in range(n):
        den = rng.choice([1, 10, 1000, 1001, 7, 30000, 48000, 90000, 1000000, 15360])
        lo = -den
        hi = int((dur + 1) * den)
        out.append(Fraction(rng.randint(lo, hi), den))
    return out


def dedupe(ts) -> List[Fraction]:
    seen, out = set(), []
    for t in ts:
        t = Fraction(t)
        if t.denominator > INT32_MAX or t in seen:
            continue
        seen.add(t)
        out.append(t)
    return out


def exact_targets(gt: gtm.GroundTruth, name: str) -> List[Fraction]:
    rng = random.Random(seed_for("exact", name))
    ts: List[Fraction] = random_targets(gt, rng, 220)
    frames = gt.frames
    tb = gt.time_base
    # every 7th frame's exact pts, and the midpoint to the next frame
    for i in range(0, len(frames), 7):
        ts.append(gt.to_item(frames[i].pts))
        if i + 1 < len(frames):
            ts.append(gt.to_item(Fraction(frames[i].pts + frames[i + 1].pts, 2)))
    # one tick either side of every 13th frame (a tick of the stream time base)
    for i in range(3, len(frames), 13):
        ts.append(gt.to_item(frames[i].pts) - tb)
        ts.append(gt.to_item(frames[i].pts) + tb)
    # the 1001/30000 grid: exact boundaries and a hair (1/30030000 s) before them
    eps = Fraction(1, 30000 * 1001)
    n_grid = int(gtm.media_duration(gt) / Fraction(1001, 30000)) + 2
    for k in range(0, n_grid, 3):
        b = Fraction(1001 * k, 30000)
        ts += [b, b - eps]
    # the range edges
    ts += [gt.first_time, gt.first_time - eps, gt.first_time + eps, gt.last_time,
           gt.last_time - eps, gt.last_time + eps, Fraction(0), Fraction(-1),
           gtm.media_duration(gt) + 1, Fraction(-1, 10**6)]
    return dedupe(ts)


def keyframe_targets(gt: gtm.GroundTruth, name: str, tol: Fraction) -> List[Fraction]:
    rng = random.Random(seed_for("keyframe", name, str(tol)))
    ts: List[Fraction] = random_targets(gt, rng, 120)
    eps = Fraction(1, 30000 * 1001)
    kf = gt.keyframes
    step = max(1, len(kf) // 12)  # audio: every packet is a keyframe; sample them
    for j in range(0, len(kf), step):
        k = gt.to_item(kf[j].pts)
        ts += [k, k - eps, k + eps]
        # the window edges: keyframe exactly at t - tol / t + tol, and just outside
        ts += [k + tol, k - tol, k + tol + eps, k - tol - eps]
        if j + 1 < len(kf):
            k2 = gt.to_item(kf[j + 1].pts)
            mid = (k + k2) / 2  # equidistant: the earlier keyframe wins
            ts += [mid, mid - eps, mid + eps]
    # frames right after keyframes (nearest keyframe behind), and mid-GOP
    for i in range(1, len(gt.frames), 17):
        ts.append(gt.to_item(gt.frames[i].pts))
    ts += [gt.first_time, gt.last_time, gt.last_time + 1, Fraction(-1), Fraction(0),
           gtm.media_duration(gt) + 1]
    return dedupe(ts)


class Mismatches:
    """Collects every mismatch; the assertion lists them all."""

    def __init__(self, title: str):
        self.title = title
        self.lines: List[str] = []
        self.fields: Dict[str, int] = {}
        self.targets = set()

    def check(self, target: Fraction, fld: str, expected, got, extra: str = ""):
        if expected != got:
            self.add(target, fld, f"expected {show(expected)}, got {show(got)}{extra}")

    def add(self, target, fld: str, text: str):
        self.fields[fld] = self.fields.get(fld, 0) + 1
        self.targets.add(target)
        t = show(target) if isinstance(target, Fraction) else str(target)
        self.lines.append(f"  target {t}: {fld}: {text}")

    def __bool__(self):
        return bool(self.lines)

    def message(self, total: int) -> str:
        summary = ", ".join(f"{k} x{v}" for k, v in sorted(self.fields.items()))
        return (f"{self.title}: {len(self.targets)} of {total} targets wrong ({summary})\n"
                + "\n".join(self.lines))


def check_common(m: Mismatches, gt: gtm.GroundTruth, t: Fraction, o: dict, tol: Fraction,
                 kind_expected: int) -> Optional[Fraction]:
    """Checks shared by every precision. Returns the landed item time (or None)."""
    if "call_error" in o:
        m.add(t, "fpx_player_seek", f"returned {o['call_error_name']}")
        return None
    m.check(t, "finished", True, o["finished"])
    m.check(t, "reason", "FPX_FINISH_COMPLETED", o["reason"])
    m.check(t, "error", 0, o["error"])
    m.check(t, "stream_index", gt.stream.index, o["stream_index"])
    tbo = o["stream_time_base"]
    got_tb = Fraction(tbo["num"], tbo["den"]) if tbo["den"] > 0 else None
    m.check(t, "stream_time_base", gt.time_base, got_tb)
    m.check(t, "accuracy.requested_media_time", t, ftime(o["requested"]))
    m.check(t, "clamp.requested", t, ftime(o["clamp"]["requested"]))
    prec = o["precision"]
    m.check(t, "precision.kind", kind_expected, prec["kind"])
    if kind_expected == KIND_NEAREST_KEYFRAME:
        m.check(t, "precision.tolerance", tol, ftime(prec["tolerance"]))
    m.check(t, "tolerance_before", tol, ftime(o["tolerance_before"]))
    m.check(t, "tolerance_after", tol, ftime(o["tolerance_after"]))

    # clamping: the seekable range is [first frame, last frame] on the item timeline
    kind, ct = gt.clamp(t)
    c = o["clamp"]
    m.check(t, "clamp.kind", kind, c["kind"])
    m.check(t, "clamp.did_clamp", kind != CLAMP_NONE, c["did_clamp"])
    m.check(t, "clamp.clamped_target", ct, ftime(c["clamped_target"]))
    if kind != CLAMP_NONE:
        m.check(t, "clamp.clamped_to", ct, ftime(c["clamped_to"]))
    elif ftime(c["clamped_to"]) is not None:
        m.add(t, "clamp.clamped_to", f"should be invalid when not clamped, got "
                                     f"{show(ftime(c['clamped_to']))}")

    pts = o["landed_stream_pts"]
    landed_item = ftime(o["landed_media_time"])
    if pts is None:
        m.add(t, "landed_stream_pts", "null (did not land)")
        return None
    m.check(t, "landed_media_time (vs landed_stream_pts on the item timeline)",
            gt.to_item(pts), landed_item)
    if gt.frame_index(pts) is None:
        m.add(t, "landed_stream_pts", f"{pts} is not the pts of any ffprobe frame")
    m.check(t, "landed_is_keyframe", gt.is_keyframe_pts(pts), o["landed_is_keyframe"])
    landed = gt.to_item(pts)
    m.check(t, "delta", landed - t, ftime(o["delta"]))
    within = (t - tol) <= landed <= (t + tol)
    m.check(t, "within_requested_tolerance", within, o["within_requested_tolerance"],
            f" (landed {show(landed)}, requested {show(t)}, tolerance {tol})")
    return landed


# --------------------------------------------------------------------------------------------
# fixture sanity: the media really have the properties they are named for (ffprobe only)
# --------------------------------------------------------------------------------------------

def _leading_pictures(pk: List[gtm.Packet]) -> int:
    n, kp, seen_key = 0, None, 0
    for p in pk:
        if p.key and not p.discard:
            seen_key += 1
            kp = p.pts if seen_key > 1 else None
            continue
        if kp is not None and p.pts is not None and p.pts < kp:
            n += 1
    return n


def _reordered(pk: List[gtm.Packet]) -> int:
    n, mx = 0, None
    for p in pk:
        if p.pts is None:
            continue
        if mx is not None and p.pts < mx:
            n += 1
        mx = p.pts if mx is None else max(mx, p.pts)
    return n


@pytest.mark.parametrize("name", MEDIA_FIXTURES)
def test_fixture_properties(fixtures_dir: Path, name: str):
    path = str(fixtures_dir / name)
    gt = gtm.load(path)
    pk = gtm.packets(path)
    durations = {b.pts - a.pts for a, b in zip(gt.frames, gt.frames[1:])}
    assert len(gt.frames) > 100
    if not name.startswith("audio."):
        assert gt.stream.codec_type == "video" and gt.stream.codec_name == "h264"
        assert _reordered(pk) > 0, "no B-frame reordering"
    if name == "mp4_bframes.mp4":
        assert _leading_pictures(pk) == 0, "GOP should be closed"
        assert durations == {1001} and gt.time_base == Fraction(1, 30000)
        assert any(s["codec_type"] == "audio" for s in gtm.probe(path)["streams"])
    if name == "mp4_opengop.mp4":
        assert _leading_pictures(pk) > 0, "no leading B-frames after keyframes: not open GOP"
    if name == "mp4_vfr.mp4":
        assert len(durations) >= 3, f"frame durations {durations}: not VFR"
    if name == "mp4_editlist.mp4":
        assert any(p.discard and p.pts is not None and p.pts < 0 for p in pk), \
            "no discard-flagged packets with negative pts"
        assert not gt.first.key, "the first presented frame should not be a keyframe"
    if name == "fmp4.mp4":
        assert gt.stream.start_pts == 2002 and gt.time_base == Fraction(1, 30000)
        assert gt.origin_ticks == 2002
    if name == "ts.ts":
        assert Fraction(14, 10) < gt.format_start_us / Fraction(10**6) < Fraction(15, 10)
        assert gt.origin_ticks == gt.stream.start_pts
    if name == "mkv.mkv":
        assert gt.time_base == Fraction(1, 1000)
        # audio starts 21 ms before video: item time 0 is the container start, not the
        # video's, and the first video frame is after item time 0. FFmpeg 5.1's muxer shifts
        # both (audio at 0, video at 21 ms); 7.1's keeps the AAC priming negative (audio at
        # -21 ms, video at 0).
        assert gt.origin_ticks <= 0 and gt.first_time > 0
    if name == "mp4_tb12288.mp4":
        # 1/10 s is 1228.8 ticks: tolerance windows do not fall on ticks
        assert gt.time_base == Fraction(1, 12288) and durations == {512}
        assert all(k.pts % 12288 == 0 for k in gt.keyframes) and len(gt.keyframes) >= 10
    if name in gtm.PRIMED_AUDIO:
        # The first packet starts before the first decoded sample (priming): ffprobe's first
        # frame is later than the first packet, and nothing is flagged discard.
        assert gt.stream.codec_type == "audio"
        assert pk[0].pts is not None and pk[0].pts < gt.first.pts
        assert not any(p.discard for p in pk)
        assert gt.first_time == 0, "the first real sample is item time 0"
    if name == "audio.m4a":
        assert gt.stream.codec_type == "audio"
        assert any(p.discard for p in pk), "no discard-flagged priming packet"


# --------------------------------------------------------------------------------------------
# exact seeks
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", MEDIA_FIXTURES)
def test_exact_landings(fixtures_dir: Path, run_landings, name: str):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    targets = exact_targets(gt, name)
    assert len(targets) >= 200
    res = run_landings(path, "exact", [rat(t) for t in targets])
    assert res.returncode == 0, res.describe()
    assert len(res.seeks) == len(targets), \
        f"{len(res.seeks)} outcomes for {len(targets)} targets; {res.describe()}"

    m = Mismatches(f"{name} exact")
    for t, o in zip(targets, res.seeks):
        assert o["target"] == rat(t)
        landed = check_common(m, gt, t, o, Fraction(0), 0)
        if landed is None:
            continue
        kind, ct = gt.clamp(t)
        want = gt.covering(ct)
        m.check(t, "landed_stream_pts", want.pts, o["landed_stream_pts"],
                f" (clamped target {show(ct)} = stream tick {gt.to_ticks(ct)})")
        m.check(t, "resolution", "FPX_LANDING_COVERING_FRAME", o["resolution"])
        m.check(t, "frame_covers_target", True, o["frame_covers_target"])
    assert not m, m.message(len(targets))


@pytest.mark.parametrize("name", MEDIA_FIXTURES)
def test_item_timeline(fixtures_dir: Path, run_landings, name: str):
    """Item info and seekable range agree with the header's definitions."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    res = run_landings(path, "exact", ["0/1"])
    assert res.returncode == 0, res.describe()
    it = res.item
    assert it is not None and it["item_info_rc"] == 0, res.describe()
    problems = []

    def chk(what, exp, got):
        if exp != got:
            problems.append(f"{what}: expected {show(exp)}, got {show(got)}")

    chk("reference_stream", gt.stream.index, it["reference_stream"])
    chk("time_base", gt.time_base, Fraction(it["time_base"]["num"], it["time_base"]["den"])
        if it["time_base"]["den"] > 0 else None)
    chk("start_pts (item time 0 in stream ticks)", gt.origin_ticks, it["start_pts"])
    chk("has_video", 1 if gt.stream.codec_type == "video" else 0, it["has_video"])
    r = res.range
    if r is None:
        problems.append("no seekable range line")
    else:
        chk("seekable_range rc", 0, r["rc"])
        chk("seekable_range start", gt.first_time, ftime(r["start"]))
        chk("seekable_range end", gt.last_time, ftime(r["end"]))
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


# --------------------------------------------------------------------------------------------
# nearest-keyframe seeks
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("precision", list(KEYFRAME_PRECISIONS))
@pytest.mark.parametrize("name", MEDIA_FIXTURES)
def test_keyframe_landings(fixtures_dir: Path, run_landings, name: str, precision: str):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    tol = KEYFRAME_PRECISIONS[precision]
    targets = keyframe_targets(gt, name, tol)
    res = run_landings(path, precision, [rat(t) for t in targets])
    assert res.returncode == 0, res.describe()
    assert len(res.seeks) == len(targets), \
        f"{len(res.seeks)} outcomes for {len(targets)} targets; {res.describe()}"

    m = Mismatches(f"{name} {precision} (tolerance {tol} s)")
    for t, o in zip(targets, res.seeks):
        landed = check_common(m, gt, t, o, tol, KIND_NEAREST_KEYFRAME)
        if landed is None:
            continue
        _, ct = gt.clamp(t)
        covering = gt.covering(ct)
        k = gt.nearest_keyframe(ct, tol)
        if k is not None:
            m.check(t, "landed_stream_pts", k.pts, o["landed_stream_pts"],
                    f" (nearest keyframe within +/-{tol} s of clamped target {show(ct)})")
            m.check(t, "resolution", "FPX_LANDING_KEYFRAME", o["resolution"])
            m.check(t, "frame_covers_target", covering.pts == k.pts, o["frame_covers_target"])
        else:
            m.check(t, "landed_stream_pts", covering.pts, o["landed_stream_pts"],
                    f" (no keyframe within +/-{tol} s of clamped target {show(ct)}: "
                    f"covering frame)")
            m.check(t, "resolution", "FPX_LANDING_FALLBACK_COVERING_FRAME", o["resolution"])
            m.check(t, "frame_covers_target", True, o["frame_covers_target"])
    assert not m, m.message(len(targets))


# --------------------------------------------------------------------------------------------
# packets after a seek
# --------------------------------------------------------------------------------------------

def packet_targets(gt: gtm.GroundTruth, name: str) -> List[Fraction]:
    rng = random.Random(seed_for("packets", name))
    ts = random_targets(gt, rng, 8)
    kf = gt.keyframes
    k1 = kf[min(1, len(kf) - 1)]
    i1 = gt.frame_index(k1.pts)
    ts += [gt.to_item(k1.pts)]                                   # on a keyframe
    if i1 is not None and i1 > 0:
        ts.append(gt.to_item(gt.frames[i1 - 1].pts))            # the frame before it
    if i1 is not None and i1 + 3 < len(gt.frames):
        ts.append(gt.to_item(gt.frames[i1 + 3].pts))            # a few frames after it
    ts += [gt.to_item(gt.frames[len(gt.frames) // 2].pts) + Fraction(1, 1000),
           gt.first_time, gt.last_time, Fraction(-1), gtm.media_duration(gt) + 1]
    return dedupe(ts)


READ_PACKETS = 600


@pytest.mark.parametrize("name", MEDIA_FIXTURES)
def test_packets_after_exact_seek(fixtures_dir: Path, run_landings, name: str):
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    ref = gt.stream.index
    targets = packet_targets(gt, name)
    m = Mismatches(f"{name} packets after an exact seek")
    for t in targets:
        res = run_landings(path, "exact", read_after=(rat(t), READ_PACKETS))
        if res.returncode != 0 or len(res.seeks) != 1:
            m.add(t, "landings", res.describe())
            continue
        o = res.seeks[0]
        if "call_error" in o or o["landed_stream_pts"] is None:
            m.add(t, "seek", f"did not land: {o}")
            continue
        landed = o["landed_stream_pts"]
        _, ct = gt.clamp(t)
        m.check(t, "landed_stream_pts", gt.covering(ct).pts, landed)
        pk = res.packets
        if not pk:
            m.add(t, "packets", f"none read; other lines {res.other}")
            continue
        if not pk[0]["flags"] & FLAG_DISCONTINUITY:
            m.add(t, "first packet", f"lacks DISCONTINUITY (0x200): {pk[0]}")
        later_disc = [p["index"] for p in pk[1:] if p["flags"] & FLAG_DISCONTINUITY]
        if later_disc:
            m.add(t, "DISCONTINUITY", f"also on later packets {later_disc[:10]}")
        bad_ids = [p["index"] for p in pk if p["seek_id"] != o["seek_id"]]
        if bad_ids:
            m.add(t, "packet seek_id", f"!= {o['seek_id']} on packets {bad_ids[:10]}")
        refpk = [dict(p) for p in pk if p["stream_index"] == ref]
        # A primed audio packet (skip samples) presents from the first real sample: ffprobe's
        # first decoded frame starts there, later than the packet's own pts.
        first_real = gt.first.pts
        for p in refpk:
            if p["pts"] is not None and p["pts"] < first_real < p["pts"] + p.get("duration", 0):
                p["pts"] = first_real
        if not refpk:
            m.add(t, "packets", f"no reference-stream packet in {len(pk)} read")
            continue
        first = refpk[0]
        if not first["flags"] & FLAG_KEY:
            m.add(t, "first reference packet", f"not a keyframe: {first}")
        if first["pts"] is None or first["pts"] > landed:
            m.add(t, "first reference packet", f"pts {first['pts']} > landed pts {landed}")
        for p in refpk:
            if p["pts"] is None:
                continue
            dec_only = bool(p["flags"] & FLAG_DECODE_ONLY)
            if p["pts"] < landed and not dec_only:
                m.add(t, "DECODE_ONLY", f"missing on packet #{p['index']} pts {p['pts']} "
                                        f"< landed {landed} (flags {p['flags']:#x})")
            if p["pts"] >= landed and dec_only:
                m.add(t, "DECODE_ONLY", f"set on packet #{p['index']} pts {p['pts']} "
                                        f">= landed {landed} (flags {p['flags']:#x})")
        if not any(p["pts"] == landed for p in refpk):
            eof = any(x.get("type") == "eof" for x in res.other)
            m.add(t, "landed packet", f"pts {landed} not among the {len(refpk)} reference "
                                      f"packets read ({'EOF' if eof else 'limit'} reached)")
    assert not m, m.message(len(targets))


# --------------------------------------------------------------------------------------------
# open errors
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,error", [(n, "FPX_ERROR_INVALID_DATA") for n in ERROR_FIXTURES]
                         + [("does-not-exist.mp4", "FPX_ERROR_NOT_FOUND")])
def test_open_errors(fixtures_dir: Path, run_landings, name: str, error: str):
    res = run_landings(fixtures_dir / name, "exact", ["0/1"])
    assert res.returncode == 2, f"expected exit 2 (open failed); {res.describe()}"
    assert "cannot open" in res.stderr and error in res.stderr, res.describe()


@pytest.mark.parametrize("name", ["audio.mp3", "audio.opus"])
def test_priming_is_never_a_landing(fixtures_dir: Path, run_landings, name: str):
    """MP3/Opus priming: the seekable range starts at 0, and an exact seek to 0 lands at 0 (the
    first real sample, ffprobe's first decoded frame) with the verdict true."""
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    res = run_landings(path, "exact", ["0/1", "-1/100", "1/1000000"])
    assert res.returncode == 0 and len(res.seeks) == 3, res.describe()
    assert ftime(res.range["start"]) == 0, res.range
    for o in res.seeks:
        assert ftime(o["landed_media_time"]) == 0, o
        assert o["landed_stream_pts"] == gt.first.pts, o
    assert res.seeks[0]["within_requested_tolerance"] == 1
    assert res.seeks[0]["frame_covers_target"] == 1
