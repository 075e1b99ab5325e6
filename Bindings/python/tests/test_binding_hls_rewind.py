"""HLS: one packet path. After any sequence of seeks and reads, the packets from a landing
on are exactly the stream's packets in order from the keyframe that landing needs, with
fresh flags and the current seek id, across segment boundaries, including a rewind into a
segment whose reader is still open. Ground truth: ffprobe of the segment files, in order.
"""
from __future__ import annotations

import json
import random
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from fastpix_seek import EndOfFile, FrameStepDirection, Player, SeekPrecision


def make_vod(tmp: Path) -> Tuple[Path, List[Tuple[int, int, bool]]]:
    """3 s VOD, 1 s MPEG-TS segments, 25 fps, GOP 25 (B-frames); the video packets of the
    segment files in playlist order as (pts, dts, key)."""
    pl = tmp / "vod.m3u8"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25", "-keyint_min", "25",
                    "-sc_threshold", "0", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                    "-hls_segment_filename", str(tmp / "seg%d.ts"), str(pl)], check=True)
    segs = [line.strip() for line in pl.read_text().splitlines() if line.strip().endswith(".ts")]
    assert len(segs) == 3, segs
    packets = []
    for s in segs:
        j = json.loads(subprocess.check_output(
            ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts,flags",
             "-of", "json", str(tmp / s)]))
        for p in j["packets"]:
            packets.append((int(p["pts"]), int(p["dts"]), "K" in p["flags"]))
    return pl, packets


@pytest.fixture(scope="module")
def vod(tmp_path_factory):
    return make_vod(tmp_path_factory.mktemp("hls_rewind"))


def expected_from(packets, landed: int) -> int:
    """Index (decode order) of the keyframe the landing needs: the last keyframe with pts <= landed
    decoded before the landed frame."""
    at = next(i for i, p in enumerate(packets) if p[0] == landed)
    return max(i for i in range(at + 1) if packets[i][2] and packets[i][0] <= landed)


def check_read(player: Player, packets, outcome, n: int, problems: List[str], what: str,
               landed: Optional[int] = None, seek_id: Optional[int] = None) -> None:
    """Reads n packets and checks them against the segment files' packets from the keyframe
    the landing needs. The landing is the outcome's, or a step's (`landed`), whose packets
    carry the latest seek's id (`seek_id`): a step is not a seek."""
    if landed is None:
        landed = outcome.landed_stream_pts
    if seek_id is None:
        seek_id = outcome.seek_id
    k = expected_from(packets, landed)
    got = []
    for i in range(n):
        try:
            pk = player.read_packet()
        except EndOfFile:
            break
        got.append(pk)
    want = packets[k:k + len(got)]
    if len(got) < min(n, len(packets) - k):
        problems.append(f"{what}: EOF after {len(got)} packets, expected {min(n, len(packets) - k)}")
    for i, (pk, w) in enumerate(zip(got, want)):
        if (pk.pts, pk.dts, pk.is_key) != w:
            problems.append(f"{what}: packet {i}: got (pts {pk.pts}, dts {pk.dts}, key {pk.is_key}), "
                            f"want {w} (landed {landed})")
            break
        if pk.is_discontinuity != (i == 0):
            problems.append(f"{what}: packet {i} (pts {pk.pts}): DISCONTINUITY {pk.is_discontinuity}")
            break
        if pk.is_decode_only != (pk.pts < landed):
            problems.append(f"{what}: packet {i} (pts {pk.pts}): DECODE_ONLY {pk.is_decode_only}, landed {landed}")
            break
        if pk.seek_id != seek_id:
            problems.append(f"{what}: packet {i} (pts {pk.pts}): seek id {pk.seek_id}, want {seek_id}")
            break


def test_rewind_into_an_open_segment(vod):
    """The two sequences from issue 11: exact 1.96 s then 0.5 s; 1.0 s, 40 packets, 0.5 s."""
    pl, packets = vod
    problems: List[str] = []
    with Player(pl) as p:
        p.wait_item(timeout=30)
        o = p.seek_wait(Fraction(196, 100), SeekPrecision.exact(), timeout=30)
        o = p.seek_wait(Fraction(1, 2), SeekPrecision.exact(), timeout=30)
        check_read(p, packets, o, 75, problems, "1.96 -> 0.5")
        o = p.seek_wait(1, SeekPrecision.exact(), timeout=30)
        check_read(p, packets, o, 40, problems, "1.0, 40 packets")
        o = p.seek_wait(Fraction(1, 2), SeekPrecision.exact(), timeout=30)
        check_read(p, packets, o, 75, problems, "then 0.5")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_seek_sequences(vod, seed: int):
    pl, packets = vod
    rng = random.Random(seed)
    problems: List[str] = []
    frames = sorted(p[0] for p in packets)
    with Player(pl) as p:
        p.wait_item(timeout=30)
        o = None
        for step in range(25):
            if o is not None and rng.random() < 0.4:
                # Frame steps (across segment boundaries too), then reads.
                forward = rng.random() < 0.5
                count = rng.choice([1, 2, 7, 30])
                r = p.step_frame(FrameStepDirection.FORWARD if forward else FrameStepDirection.BACKWARD, count)
                n = rng.choice([0, 1, 5, 40])
                what = f"step {step}: {'forward' if forward else 'backward'} {count}, read {n}"
                if not r.did_step:
                    continue
                if r.landed_stream_pts not in frames:
                    problems.append(f"{what}: landed {r.landed_stream_pts}, no frame of the stream")
                    break
                check_read(p, packets, o, n, problems, what, landed=r.landed_stream_pts, seek_id=o.seek_id)
            else:
                t = Fraction(rng.randrange(0, 2960), 1000)
                prec = rng.choice([SeekPrecision.exact(), SeekPrecision.default(),
                                   SeekPrecision.nearest_keyframe(Fraction(1, 2))])
                o = p.seek_wait(t, prec, timeout=30)
                n = rng.choice([0, 1, 5, 20, 40, 80])
                check_read(p, packets, o, n, problems, f"step {step}: seek {t} {prec}, read {n}")
            if problems:
                break
    assert not problems, "\n".join(problems)


def test_steps_across_segment_boundaries_count_frames(vod):
    """Stepping from the first frame to the last one frame at a time visits every frame of
    the segment files in presentation order (ffprobe), and back again."""
    pl, packets = vod
    frames = sorted(p[0] for p in packets)
    with Player(pl) as p:
        p.wait_item(timeout=30)
        o = p.seek_wait(0, SeekPrecision.exact(), timeout=30)
        assert o.landed_stream_pts == frames[0]
        got = [frames[0]]
        while True:
            r = p.step_frame(FrameStepDirection.FORWARD)
            if not r.did_step:
                break
            got.append(r.landed_stream_pts)
        assert got == frames
        back = [frames[-1]]
        while True:
            r = p.step_frame(FrameStepDirection.BACKWARD)
            if not r.did_step:
                break
            back.append(r.landed_stream_pts)
        assert back == frames[::-1]


def test_live_rewinds_read_the_segments_in_order(tmp_path: Path):
    """The same on a live sliding-window playlist (1 s segments, GOP = segment): seeks (exact,
    nearest keyframe, by date), and frame steps back and forth inside the window, each
    followed by reads across segment boundaries, against ffprobe of the segment files as
    served."""
    from livehls import LiveStream

    with LiveStream(tmp_path, list_size=10) as ls:
        pl = ls.wait_segments(10, timeout=60)
        tl = ls.timeline(pl.first_msn)
        problems: List[str] = []
        rng = random.Random(11)
        kinds: set = set()
        with Player(ls.url) as p:
            p.wait_item(timeout=30)
            for step in range(16):
                start, end = p.seekable_range()
                if step > 0 and rng.random() < 0.4:
                    # A frame step from the last landing (across a boundary sometimes), and reads.
                    count = rng.choice([1, 3, 30])
                    fwd = rng.random() < 0.5
                    r = p.step_frame(FrameStepDirection.FORWARD if fwd else FrameStepDirection.BACKWARD, count)
                    if not r.did_step:
                        continue
                    t = f"step {'forward' if fwd else 'backward'} {count}"
                    landed = r.landed_stream_pts
                    kinds.add("step")
                elif rng.random() < 0.3 and p.live_seek_window().is_date_addressable:
                    # A date seek (EXT-X-PROGRAM-DATE-TIME) into the newer half of the window.
                    w = p.live_seek_window()
                    when = w.start_date_us + (w.end_date_us - w.start_date_us) * rng.randrange(50, 95) // 100
                    d = p.seek_to_date_and_wait(when, SeekPrecision.exact(), timeout=30)
                    if not d.seeked:
                        continue
                    o = d.outcome
                    t = f"date {when}"
                    landed = o.landed_stream_pts
                    kinds.add("date")
                else:
                    # the newer half of the window, so that reads do not outrun its sliding start
                    span = end - start
                    t = start + span / 2 + Fraction(rng.randrange(0, max(1, int(span * 500))), 1000)
                    prec = rng.choice([SeekPrecision.exact(), SeekPrecision.nearest_keyframe(Fraction(1, 2))])
                    o = p.seek_wait(t, prec, timeout=30)
                    landed = o.landed_stream_pts
                    kinds.add("seek")
                n = rng.choice([5, 30, 60])
                got = [p.read_packet() for _ in range(n)]
                where = tl.frame_of_pts(landed)
                if where is None:
                    problems.append(f"step {step}: landed pts {landed} is no frame of the stream")
                    break
                msn = where[0]
                want = [pk for _, pk in tl.packets_from(msn, n)]
                for i, (pk, w) in enumerate(zip(got, want)):
                    if (pk.pts, pk.dts) != (w.pts, w.dts):
                        problems.append(f"step {step}: seek {t} landed {landed} (segment {msn}): "
                                        f"packet {i} is ({pk.pts}, {pk.dts}), want ({w.pts}, {w.dts})")
                        break
                    if pk.is_discontinuity != (i == 0) or pk.seek_id != o.seek_id \
                            or pk.is_decode_only != (pk.pts < landed):
                        problems.append(f"step {step}: packet {i} (pts {pk.pts}): flags "
                                        f"disc={pk.is_discontinuity} decode_only={pk.is_decode_only} "
                                        f"seek id {pk.seek_id} (want {o.seek_id}), landed {landed}")
                        break
                if problems:
                    break
        assert not problems, "\n".join(problems)
        assert kinds == {"seek", "step", "date"}, f"the random sequence did not mix every kind: {kinds}"


@pytest.mark.parametrize("kind", ["file", "hls"])
def test_a_step_keeps_the_latest_seek_id(vod, fixtures_dir: Path, kind: str):
    """A packet carries "the latest seek this packet follows" (seek.h): a frame step is not
    a seek, so the packets after one carry the seek's id, in a file as in HLS (one rule,
    PacketStamp), with DISCONTINUITY on the first and DECODE_ONLY before the stepped-to frame."""
    src = fixtures_dir / "mp4_bframes.mp4" if kind == "file" else vod[0]
    with Player(src) as p:
        p.wait_item(timeout=30)
        o = p.seek_wait(Fraction(1, 2), SeekPrecision.exact(), timeout=30)
        assert o.seek_id != 0
        r = p.step_frame(FrameStepDirection.FORWARD, 3)
        assert r.did_step
        ref = o.stream_index
        got = [p.read_packet() for _ in range(20)]
        assert all(pk.seek_id == o.seek_id for pk in got), [(pk.pts, pk.seek_id) for pk in got]
        assert got[0].is_discontinuity and not any(pk.is_discontinuity for pk in got[1:])
        for pk in got:
            if pk.stream_index == ref and pk.pts is not None:
                assert pk.is_decode_only == (pk.pts < r.landed_stream_pts), (pk.pts, r.landed_stream_pts)
