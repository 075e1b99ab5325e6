"""HLS segments across the 33-bit MPEG-TS timestamp wrap (seek.h, "Timestamp wrap").

MPEG-TS timestamps are 33 bits of a 90 kHz clock: they wrap every 2^33 / 90000 s (26.5 h).
A live stream running past the wrap, or a VOD whose timestamps start near it (ffmpeg's
-output_ts_offset, broadcast captures), has segments inside one discontinuity domain whose
first pts is far below its predecessor's. Each segment is demuxed on its own, so FFmpeg's
own unwrapping (pts_wrap_reference, per file) cannot carry across segments: for a file whose
first timestamp lies within 60 s of the wrap it even *subtracts* 2^33 (negative pts), for one
further from it it keeps them (and adds 2^33 past the wrap).

The stream: 80 s, 10 fps H.264 (a keyframe every 2 s) with AAC muxed, cut into 4 s TS
segments by ffmpeg's hls muxer with -output_ts_offset so that the first pts is ~70 s before
the wrap. ffprobe of each segment (the premise, checked first): the first segment's pts lie
just below 2^33, the next ones within 60 s of the wrap come out negative, the ones after the
wrap small. ffprobe of the playlist (FFmpeg's hls demuxer, one mpegts demuxer fed every
segment in turn) does unwrap: its pts run on past 2^33 from the first segment's. Ground truth:
the source file (frames and ffmpeg's decoded pictures by time from the first frame), each
segment's ffprobe pts unwrapped by this test checked against it, and the playlist's ffprobe
pts checked against both; the library's delivered pts must be those.

Packed audio (test_packed_audio_across_the_wrap): Shaka Packager's ADTS segments with their ID3
transportStreamTimestamps moved across the wrap by the test (Shaka itself refuses offsets that
large).

Before the fix every segment within 60 s of the wrap or past it was placed 26.5 h away: the
item's seeks there failed or landed on other frames.
"""
from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import List

import pytest

from sharedfixtures import REPO
from groundtruth import packets as gt_packets
from rangeserver import serve
from hlsframes import FF, Truth, check_picture, truth, walk_steps

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402
from fastpix_seek.errors import EndOfFile  # noqa: E402

FPS, SECONDS, GOP, SEGMENT = 10, 80, 20, 4
WRAP = 1 << 33
WRAP_S = Fraction(WRAP, 90000)
# The first pts ~70 s before the wrap: FFmpeg's per-file rule keeps the first segment's pts
# (ADD_OFFSET); the segments starting within 60 s of the wrap come out negative (SUB_OFFSET).
OFFSET = WRAP_S - 70


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("ptswrap")
    src = d / "src.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x96:rate={FPS}:duration={SECONDS}",
                         "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={SECONDS}",
                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2",
                         "-x264-params", f"keyint={GOP}:min-keyint={GOP}:scenecut=0",
                         "-c:a", "aac", "-b:a", "64k", str(src)], check=True, timeout=300)
    out = d / "wrap"
    out.mkdir()
    subprocess.run(FF + ["-i", str(src), "-c", "copy", "-output_ts_offset", f"{float(OFFSET):.6f}",
                         "-f", "hls", "-hls_time", str(SEGMENT), "-hls_playlist_type", "vod",
                         "-hls_segment_filename", str(out / "seg_%d.ts"), str(out / "index.m3u8")],
                   check=True, timeout=120)
    with serve(d) as base:
        yield d, f"{base}/wrap/index.m3u8"


def segments(d: Path) -> List[Path]:
    return [d / "wrap" / line for line in (d / "wrap" / "index.m3u8").read_text().splitlines()
            if line and not line.startswith("#")]


def extinf_sum(d: Path) -> Fraction:
    return sum((Fraction(m) for m in re.findall(r"#EXTINF:([0-9.]+)", (d / "wrap" / "index.m3u8").read_text())),
               Fraction(0))


def video_pts(path: Path) -> List[int]:
    return sorted(p.pts for p in gt_packets(str(path)) if p.pts is not None)


@pytest.fixture(scope="module")
def ground(site):
    """The source's frames and pictures (item time: seconds from the first frame), and the
    first frame's pts as the stream starts it (the first segment's, below 2^33)."""
    d, _ = site
    segs = segments(d)
    raw = [video_pts(s) for s in segs]
    # The premise: the first segment just below the wrap, some later ones negative (FFmpeg's
    # per-file rule within 60 s of the wrap), the last ones past it (small).
    assert WRAP - 90 * 90000 < raw[0][0] < WRAP, raw[0][:3]
    assert any(r[0] < 0 for r in raw[1:]), [r[0] for r in raw]
    assert 0 <= raw[-1][0] < 60 * 90000, raw[-1][:3]
    # Each segment unwrapped by the test (33 bits, then the nearest to its predecessor's end):
    # the frames are the source's, 1/FPS apart, on one line.
    t = truth(d / "src.mp4")
    prev = None
    unwrapped: List[int] = []
    for r in raw:
        first = r[0] % WRAP
        if prev is not None:
            while first < prev - WRAP // 2:
                first += WRAP
        shift = first - r[0]
        unwrapped += [p + shift for p in r]
        prev = unwrapped[-1]
    assert [Fraction(p - unwrapped[0], 90000) for p in unwrapped] == t.times
    # FFmpeg's hls demuxer on the playlist unwraps the same way.
    assert video_pts(d / "wrap" / "index.m3u8") == unwrapped
    return t, unwrapped[0]


def targets(t: Truth) -> List[Fraction]:
    """Frames around every segment start (the last before it, the first two of it)."""
    out = []
    for k in range(1, SECONDS // SEGMENT):
        i = t.times.index(Fraction(k * SEGMENT))
        out += t.times[i - 1:i + 2]
    return out


def test_duration_and_range_are_the_playlists(site, ground):
    d, url = site
    t, first = ground
    with Player(url) as p:
        p.wait_item(timeout=30)
        info = p.item_info()
        assert info.duration == extinf_sum(d), info
        lo, hi = p.seekable_range()
        assert lo == 0 and hi == t.times[-1], (lo, hi)
        # start_pts: the first frame's pts as the stream starts it (below the wrap).
        assert info.start_pts == first, info


def test_exact_seeks_across_the_wrap_land_on_the_frame_shown(site, ground):
    _, url = site
    t, first = ground
    with Player(url) as p:
        p.wait_item(timeout=30)
        for x in targets(t):
            o = p.seek_and_wait(x, SeekPrecision.exact())
            what = f"exact {x}"
            assert o.finished and Fraction(o.landed_time) == x, (what, o)
            # The stream pts delivered are unwrapped: continuous from the first frame's.
            assert o.landed_stream_pts == first + x * 90000, (what, o)
            check_picture(p, int(o.landed_stream_pts), t.md5[x], what)


def test_at_or_after_and_nearest_keyframe_seeks_across_the_wrap(site, ground):
    """Between two frames around each segment start: at-or-after lands on the later one; a
    nearest-keyframe seek (0.3 s) on the keyframe starting the segment (every segment
    starts with one) when within reach, else on the frame shown."""
    _, url = site
    t, first = ground
    with Player(url) as p:
        p.wait_item(timeout=30)
        for x in targets(t):
            i = t.times.index(x)
            want = t.times[i + 1]
            o = p.seek_and_wait((x + want) / 2, SeekPrecision.at_or_after())
            assert o.finished and Fraction(o.landed_time) == want, ("at or after", x, o)
            check_picture(p, int(o.landed_stream_pts), t.md5[want], f"at or after {x}")
            tol = Fraction(3, 10)
            near = [k for k in t.keys if abs(k - x) <= tol]
            want = min(near, key=lambda k: (abs(k - x), k)) if near else x
            o = p.seek_and_wait(x, SeekPrecision.nearest_keyframe(tol))
            assert o.finished and Fraction(o.landed_time) == want, ("nearest keyframe", x, o, want)
            assert o.landed_stream_pts == first + want * 90000, o
            check_picture(p, int(o.landed_stream_pts), t.md5[want], f"nearest keyframe {x}")


def test_steps_across_the_wrap_walk_one_frame(site, ground):
    _, url = site
    t, first = ground
    wrap_time = (WRAP - first) / Fraction(90000)
    i = next(k for k, x in enumerate(t.times) if x >= wrap_time)
    with Player(url) as p:
        p.wait_item(timeout=30)
        walk_steps(p, t.times, i - 3, i + 3, lambda pts, x, what: check_picture(p, pts, t.md5[x], what))


def test_packet_timestamps_never_go_back_across_the_wrap(site, ground):
    """From the start to the end: every stream's dts (video and muxed audio) only grows, past
    2^33 after the wrap, and item times follow the stream's."""
    _, url = site
    t, first = ground
    with Player(url) as p:
        p.wait_item(timeout=30)
        o = p.seek_and_wait(0, SeekPrecision.exact())
        assert o.finished, o
        last = {}
        seen_past = set()
        ref = p.item_info().reference_stream
        n = 0
        while True:
            try:
                pkt = p.read_packet()
            except EndOfFile:
                break
            n += 1
            assert not pkt.is_discontinuity or n == 1, pkt
            ts = pkt.dts if pkt.dts is not None else pkt.pts
            if ts is None:
                continue
            s = pkt.stream_index
            assert s not in last or ts >= last[s], (s, last[s], pkt)
            last[s] = ts
            if ts >= WRAP:
                seen_past.add(s)
            if s == ref and pkt.pts is not None:
                assert pkt.item_time == Fraction(pkt.pts - first, 90000), pkt
        assert len(last) == 2 and seen_past == set(last), (last, seen_past)
        assert last[ref] >= first + t.times[-1] * 90000 - 3 * 9000


def test_packed_audio_across_the_wrap(tmp_path):
    """A media playlist of packed audio (Shaka Packager's ADTS segments) whose ID3
    transportStreamTimestamps cross the wrap. Shaka refuses offsets that large
    (--transport_stream_timestamp_offset_ms near 2^33 / 90 s fails to package), so this test
    moves each segment's 33-bit timestamp by the same amount, modulo 2^33, in its bytes (the
    PRIV frame's 8 bytes, as test_hls_packed_audio reads them): the first segment's first
    sample 3 s before the wrap. Ground truth: FFmpeg's hls demuxer on the playlist as Shaka
    wrote it (it applies the ID3 timestamps), packets by size and item time."""
    from test_hls_packed_audio import _ffprobe, _make, _segments
    d = tmp_path / "shaka"
    d.mkdir()
    _make(d, "shaka")
    j = _ffprobe(d / "audio.m3u8", "packet=pts,size")
    truth = [(int(p["pts"]) * Fraction(1, 90000), int(p["size"])) for p in j["packets"]]
    owner = b"com.apple.streaming.transportStreamTimestamp\0"
    segs = [f for _, f in _segments(d)]
    first = None
    stamps = []
    for f in segs:
        b = bytearray(f.read_bytes())
        i = b.index(owner) + len(owner)
        v = int.from_bytes(b[i:i + 8], "big") & (WRAP - 1)
        if first is None:
            first = v
        moved = (v - first + WRAP - 3 * 90000) % WRAP
        b[i:i + 8] = moved.to_bytes(8, "big")
        f.write_bytes(bytes(b))
        stamps.append(moved)
    # The premise: the first segments just below the wrap, the last ones past it (small).
    assert stamps[0] > WRAP - 4 * 90000 and stamps[-1] < 10 * 90000, stamps
    with serve(d) as base, Player(f"{base}/audio.m3u8") as p:
        p.wait_item(timeout=30)
        t0 = truth[0][0]
        got = list(p.packets())
        assert [pk.size for pk in got] == [z for _, z in truth]
        for pk, (t, _) in zip(got, truth):
            assert abs(pk.item_time - (t - t0)) <= Fraction(1, 90000), (pk.item_time, t)
        pts = [pk.pts for pk in got]
        assert pts == sorted(pts), "packet pts go back across the wrap"
        assert pts[-1] * got[-1].time_base > WRAP_S, "the packets' pts are not unwrapped"
        # An exact seek past the wrap lands on the frame that covers it.
        x = Fraction(8)
        o = p.seek_and_wait(x, SeekPrecision.exact())
        times = [pk.item_time for pk in got]
        cover = max(v for v in times if v <= x)
        assert o.finished and o.landed_time == cover and o.frame_covers_target, o
