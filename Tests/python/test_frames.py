"""Player.frame_at / frames_at (fastpix_seek.frames, issue 21.4): every returned frame has
ffmpeg's own pixels for that pts (framemd5 of a full decode), on B-pyramid H.264 (MP4, MKV),
an open-GOP H.264 and an open-GOP HEVC (x265), in random, sorted, repeated and backward
orders; the packet contract (flush only at DISCONTINUITY or when the reader cannot vouch for
its decoder, DISPOSABLE packets dropped before the decoder, DECODE_ONLY frames never
returned, frames before the landing discarded), also against a simulated continuation of the
packet stream; PyAV stays optional."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import pytest

from sharedfixtures import REPO
import framecheck
import testmedia
import groundtruth as gtm

sys.path.insert(0, str(REPO / "Bindings" / "python"))

av = pytest.importorskip("av")  # the venv and Debian's python3 both have it (tools/deps.sh)


@pytest.fixture(scope="session")
def hevc_opengop(tmp_path_factory) -> Path:
    return Path(testmedia.make_hevc_opengop(str(tmp_path_factory.mktemp("hevc") / "hevc_opengop.mp4")))


def media(fixtures_dir: Path, hevc: Path, name: str) -> Path:
    return hevc if name == "hevc_opengop.mp4" else fixtures_dir / name


FILES = ["mp4_bframes.mp4", "mkv.mkv", "mp4_opengop.mp4", "hevc_opengop.mp4"]


def check(path: Path, results, times) -> None:
    """Each answer: the exact landing of its time (ffprobe's grid), ffmpeg's pixels."""
    gt = gtm.load(str(path))
    md5 = framecheck.md5_by_pts(str(path))
    assert len(results) == len(times)
    wrong = []
    for t, r in zip(times, results):
        assert r.requested == Fraction(t)
        assert r.outcome.finished and r.frame.pts == r.pts
        assert r.pts == gt.covering(Fraction(t)).pts, (t, r.pts)
        if framecheck.frame_md5(r.frame) != md5[r.pts]:
            wrong.append((t, r.pts))
    assert not wrong, f"frames with other pixels than ffmpeg's: {wrong}"


def spread(path: Path, n: int, seed: int) -> List[Fraction]:
    gt = gtm.load(str(path))
    end = gt.last_time
    rnd = random.Random(seed)
    return [Fraction(rnd.randint(0, int(end * 1000)), 1000) for _ in range(n)]


@pytest.mark.parametrize("name", FILES)
def test_frames_at_random_order(fixtures_dir, hevc_opengop, library, name):
    from fastpix_seek import Player
    path = media(fixtures_dir, hevc_opengop, name)
    end = gtm.load(str(path)).last_time
    times = spread(path, 14, seed=21) + [Fraction(0), end, end + 5]  # the last frame: at EOF
    times += [times[3]]  # a repeat
    with Player(path) as p:
        p.wait_item(timeout=20)
        res = p.frames_at(times, clamp=True)  # end + 5 is out of range (test_frames_range.py)
    check(path, res, times)
    assert res[-1].frame is res[3].frame  # decoded once


@pytest.mark.parametrize("name", FILES)
def test_frame_at_backward_walk_and_cache(fixtures_dir, hevc_opengop, library, name):
    """A scrub walk forward then back in one-frame steps, one frame_at per step: right
    pixels each time; on the way back every frame comes from the cache (it was decoded on the
    way forward and the cache holds the walk)."""
    from fastpix_seek import Player
    path = media(fixtures_dir, hevc_opengop, name)
    gt = gtm.load(str(path))
    k = gt.keyframes[1] if len(gt.keyframes) > 1 else gt.keyframes[0]
    i0 = gt.frame_index(k.pts) - 3  # straddle a GOP boundary
    walk = [gt.to_item(gt.frames[i].pts) for i in range(i0, i0 + 6)]
    times = walk + walk[::-1]
    with Player(path) as p:
        p.wait_item(timeout=20)
        p.frame_reader(cache_size=6)
        res = [p.frame_at(t) for t in times]
        check(path, res, times)
        assert [r.from_cache for r in res[6:]] == [True] * 6
        assert all(r.decoded == 0 and r.packets == 0 for r in res[6:])
        # A reader without a cache decodes again, with the same pixels.
        p.frame_reader(cache_size=0)
        again = [p.frame_at(t) for t in walk[::-1]]
        check(path, again, walk[::-1])
        assert not any(r.from_cache for r in again)


@pytest.mark.parametrize("skip_nonref", [True, False])
def test_skip_nonref_same_pixels(fixtures_dir, library, skip_nonref):
    """skip_frame=NONREF while packets are DECODE_ONLY: the landed frames are ffmpeg's, and
    the decoder never produces more frames than with it off (continuation off, so that every
    landing decodes its GOP prefix; on H.264 the library's DISPOSABLE flag already drops the
    non-reference pre-roll before the decoder, so the two may produce as many)."""
    from fastpix_seek import Player
    path = fixtures_dir / "mp4_bframes.mp4"
    times = spread(path, 10, seed=5)
    with Player(path) as p:
        p.wait_item(timeout=20)
        reader = p.frame_reader(cache_size=0, skip_nonref=skip_nonref, continuation=False)
        res = p.frames_at(times)
        check(path, res, times)
        decoded = reader.frames_decoded
        dropped = reader.packets_dropped
    with Player(path) as p:
        p.wait_item(timeout=20)
        other = p.frame_reader(cache_size=0, skip_nonref=not skip_nonref, continuation=False)
        check(path, p.frames_at(times), times)
    assert dropped > 0 and other.packets_dropped == dropped
    if skip_nonref:
        assert decoded <= other.frames_decoded
    else:
        assert decoded >= other.frames_decoded


def _h264_nal_ref_idc(data: bytes) -> int:
    """nal_ref_idc of the first slice NAL of an AVCC (4-byte length) H.264 packet."""
    i = 0
    while i + 5 <= len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        t = data[i + 4] & 0x1F
        if t in (1, 5):
            return (data[i + 4] >> 5) & 3
        i += 4 + n
    return 3


def _rewrite(packets: Iterator[Any], fn) -> Iterator[Any]:
    from fastpix_seek import Packet
    for p in packets:
        flags = fn(p)
        if flags == p.flags:
            yield p
        else:
            yield Packet(p.data, p.stream_index, p.pts, p.dts, p.duration, p.pos, flags, p.seek_id,
                         p.time_base, p.pts_time, p.dts_time, p.item_time, p.landed_pts,
                         p.landed_stream_index, p.landed_pts_in_stream, p.trim_samples)


def test_disposable_packets_are_dropped(fixtures_dir, library, monkeypatch):
    """Packets flagged FPX_PACKET_FLAG_DISPOSABLE never reach the decoder. Flagging the
    DECODE_ONLY packets that really are disposable (H.264 nal_ref_idc 0, what the library
    will flag) leaves the landed pixels ffmpeg's; flagging the keyframe too leaves the
    decoder nothing to start from."""
    from fastpix_seek import Player
    from fastpix_seek._abi import (FPX_PACKET_FLAG_DECODE_ONLY, FPX_PACKET_FLAG_DISPOSABLE,
                                   FPX_PACKET_FLAG_KEY)
    from fastpix_seek.frames import FrameNotDecodedError
    path = fixtures_dir / "mp4_bframes.mp4"
    times = spread(path, 8, seed=7)

    def disposable(p):
        if p.stream_index == 0 and p.flags & FPX_PACKET_FLAG_DECODE_ONLY and \
                _h264_nal_ref_idc(p.data) == 0:
            return p.flags | FPX_PACKET_FLAG_DISPOSABLE
        return p.flags

    with Player(path) as p:
        p.wait_item(timeout=20)
        real = p.packets
        monkeypatch.setattr(p, "packets", lambda batch=64: _rewrite(real(batch), disposable))
        r = p.frame_reader(cache_size=0, skip_nonref=False)
        res = p.frames_at(times)
        check(path, res, times)
        assert r.packets_dropped > 0 and sum(x.dropped for x in res) == r.packets_dropped

        def all_video(q):
            return q.flags | FPX_PACKET_FLAG_DISPOSABLE if q.stream_index == 0 and \
                q.flags & (FPX_PACKET_FLAG_DECODE_ONLY | FPX_PACKET_FLAG_KEY) else q.flags
        monkeypatch.setattr(p, "packets", lambda batch=64: _rewrite(real(batch), all_video))
        gt = gtm.load(str(path))
        late = gt.to_item(gt.frames[gt.frame_index(gt.keyframes[2].pts) + 4].pts)
        with pytest.raises(FrameNotDecodedError):
            p.frame_at(late)


class ContinuingPlayer:
    """A stand-in for a Player whose library continues the packet stream (issue 21.1, not
    yet merged on this branch): packets from PyAV's demuxer; a seek landing ahead of the read
    position in the same GOP goes on from the read position without DISCONTINUITY, DECODE_ONLY
    up to the new landing, with the new seek id and landing fields; anything else restarts at
    the landing's keyframe with DISCONTINUITY. Only the reference (video) stream."""

    def __init__(self, path: Path) -> None:
        from fastpix_seek import Player
        self.gt = gtm.load(str(path))
        with Player(path) as p:
            p.wait_item(timeout=20)
            self._item = p.item_info()
            self._info = p.stream_info(self._item.reference_stream)
        c = av.open(str(path))
        s = c.streams.video[0]
        self.packets_list = [(bytes(pk), pk.pts, pk.dts, pk.is_keyframe)
                             for pk in c.demux(s) if pk.size]
        self.tb = Fraction(s.time_base)
        c.close()
        self.pos = 0           # next packet to hand out
        self.seek_id = 0
        self.landing = None
        self.pending_discontinuity = False
        self.continued = 0

    def item_info(self):
        return self._item

    def seekable_range(self):
        return self.gt.first_time, self.gt.last_time

    def stream_info(self, i):
        return self._info

    def set_continuation(self, enabled):
        self.continuation = enabled

    def report_decoded(self, pts):
        self.reported = pts

    def _key_before(self, pts) -> int:
        # the last keyframe packet (decode order) whose pts <= the landing
        return max(i for i, p in enumerate(self.packets_list) if p[3] and p[1] <= pts)

    def seek_wait(self, t, precision=None, timeout=None):
        from types import SimpleNamespace
        from fastpix_seek import FinishReason
        f = self.gt.covering(Fraction(t))
        self.seek_id += 1
        k = self._key_before(f.pts)
        # Continue when the host has fed this GOP from its keyframe up to pos and the new
        # landing is ahead of the last one (its frame is then still in the host's decoder, or
        # was put out after the last landed frame, which the reader keeps).
        if self.landing is not None and not self.pending_discontinuity and \
                self._key_before(self.landing) == k and self.pos > k and f.pts > self.landing:
            self.continued += 1
        else:
            self.pos = k
            self.pending_discontinuity = True
        self.landing = f.pts
        return SimpleNamespace(finished=True, landed_stream_pts=f.pts, seek_id=self.seek_id,
                               landed_time=self.gt.to_item(f.pts), reason=FinishReason.COMPLETED)

    def packets(self, batch=64):
        from fastpix_seek import Packet
        from fastpix_seek._abi import (FPX_PACKET_FLAG_DECODE_ONLY, FPX_PACKET_FLAG_DISCONTINUITY,
                                       FPX_PACKET_FLAG_KEY)
        while self.pos < len(self.packets_list):
            data, pts, dts, key = self.packets_list[self.pos]
            self.pos += 1
            flags = (FPX_PACKET_FLAG_KEY if key else 0) | \
                (FPX_PACKET_FLAG_DECODE_ONLY if pts < self.landing else 0)
            if self.pending_discontinuity:
                flags |= FPX_PACKET_FLAG_DISCONTINUITY
                self.pending_discontinuity = False
            yield Packet(data, 0, pts, dts, 0, None, flags, self.seek_id, self.tb, None, None, None,
                         self.landing, 0, self.landing, 0)


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "mp4_opengop.mp4", "hevc_opengop.mp4"])
def test_right_under_continuation(fixtures_dir, hevc_opengop, library, name):
    """With packets that continue (no DISCONTINUITY) from the host's read position, the reader
    keeps its decoder, decodes only what lies between the landings, and returns ffmpeg's
    pixels; a forward step of one frame decodes at most 2 frames."""
    from fastpix_seek.frames import FrameReader
    path = media(fixtures_dir, hevc_opengop, name)
    gt = gtm.load(str(path))
    k = gt.keyframes[1]
    i0 = gt.frame_index(k.pts)
    steps = [gt.to_item(gt.frames[i].pts) for i in range(i0 + 2, i0 + 12)]
    rnd = spread(path, 8, seed=3)
    fake = ContinuingPlayer(path)
    reader = FrameReader(cache_size=0)
    res = [reader.frame_at(fake, t) for t in steps]  # type: ignore[arg-type]
    check(path, res, steps)
    assert fake.continued == len(steps) - 1
    # Stepping by one frame: each step decodes at most 2 frames or comes from the cache.
    assert all(r.from_cache or r.decoded <= 2 for r in res[1:]), [r.decoded for r in res]
    res2 = FrameReader().frames_at(fake, rnd + steps[::-1])  # type: ignore[arg-type]
    check(path, res2, rnd + steps[::-1])


@pytest.mark.parametrize("name", FILES)
def test_one_frame_steps_with_the_library_continuing(fixtures_dir, hevc_opengop, library, name):
    """The real library with continuation on (the reader turns it on): forward requests one
    frame apart, deep in a GOP, keep the decoder; each decodes at most 2 frames, and every
    frame has ffmpeg's pixels. Then random, backward and repeated requests on the same reader:
    still ffmpeg's pixels (continuation where it is right, a restart elsewhere)."""
    from fastpix_seek import Player
    from fastpix_seek.frames import FrameReader
    path = media(fixtures_dir, hevc_opengop, name)
    gt = gtm.load(str(path))
    i0 = gt.frame_index(gt.keyframes[1].pts)
    steps = [gt.to_item(gt.frames[i].pts) for i in range(i0 + 5, i0 + 25)]
    with Player(path) as p:
        p.wait_item(timeout=20)
        reader = FrameReader(cache_size=0)
        res = [reader.frame_at(p, t) for t in steps]
        check(path, res, steps)
        assert all(r.decoded <= 2 for r in res[1:]), [r.decoded for r in res]
        rnd = spread(path, 10, seed=11)
        mixed = rnd + steps[::-3] + rnd[:3]
        check(path, reader.frames_at(p, mixed), mixed)
        check(path, [reader.frame_at(p, t) for t in mixed], mixed)
    with Player(path) as p:  # the same requests without continuation decode the GOP prefix
        p.wait_item(timeout=20)
        off = FrameReader(cache_size=0, continuation=False)
        res_off = [off.frame_at(p, t) for t in steps]
        check(path, res_off, steps)
        assert sum(r.decoded for r in res_off) > 3 * sum(r.decoded for r in res)


def test_unvouched_decoder_never_gives_a_wrong_frame(fixtures_dir, library):
    """When the reader cannot vouch for its decoder (here: marked so by hand) and the packets
    continue without DISCONTINUITY, it starts over at a keyframe: a landing before the next
    keyframe is reported missing (FrameNotDecodedError), never decoded from mid-GOP."""
    from fastpix_seek.frames import FrameNotDecodedError, FrameReader
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    i0 = gt.frame_index(gt.keyframes[1].pts)
    t1, t2 = (gt.to_item(gt.frames[i0 + k].pts) for k in (2, 20))
    fake = ContinuingPlayer(path)
    reader = FrameReader(cache_size=0)
    check(path, [reader.frame_at(fake, t1)], [t1])  # type: ignore[arg-type]
    reader._clean = False
    with pytest.raises(FrameNotDecodedError):
        reader.frame_at(fake, t2)  # type: ignore[arg-type]
    assert fake.continued == 1


def test_threads_share_one_reader(fixtures_dir, library):
    """Two threads asking one player for frames: each gets ffmpeg's frame for its times."""
    import threading
    from fastpix_seek import Player
    path = fixtures_dir / "mp4_bframes.mp4"
    a, b = spread(path, 6, seed=1), spread(path, 6, seed=2)
    out: dict = {}
    with Player(path) as p:
        p.wait_item(timeout=20)

        def work(name, times):
            out[name] = (times, p.frames_at(times) if name == "a" else [p.frame_at(t) for t in times])
        ts = [threading.Thread(target=work, args=(n, t)) for n, t in (("a", a), ("b", b))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
    for times, res in out.values():
        check(path, res, times)
    assert len(out) == 2


def test_errors_and_no_pyav(fixtures_dir, library, tmp_path):
    from fastpix_seek import Player
    from fastpix_seek.frames import FrameReader
    with pytest.raises(ValueError):
        FrameReader(cache_size=-1)
    with Player(fixtures_dir / "audio.m4a") as p:
        p.wait_item(timeout=20)
        with pytest.raises(ValueError, match="video"):
            p.frame_at(1)
    # Without PyAV: importing fastpix_seek works, frame_at raises ImportError saying what to do
    # (the `frames` extra, issue 29.9, or Debian's python3-av). The one copy of this check: it
    # runs under build/venv's python and Debian's /usr/bin/python3 (tools/test-all.sh).
    code = ("import sys; sys.modules['av'] = None\n"
            f"sys.path.insert(0, {str(REPO / 'Bindings' / 'python')!r})\n"
            "import fastpix_seek\n"
            f"p = fastpix_seek.Player({str(fixtures_dir / 'mp4_bframes.mp4')!r}); p.wait_item(timeout=20)\n"
            "try:\n    p.frame_at(1)\nexcept ImportError as e:\n    print('IMPORTERROR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "IMPORTERROR" in out.stdout and "python3-av" in out.stdout
    assert "fastpix-seek[frames]" in out.stdout, out.stdout


@pytest.fixture(scope="module")
def c_frames_at(library, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("c-frames-at")
    env = {**os.environ, "PKG_CONFIG_PATH": str(library.parent)}
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "fastpixseek", "libavcodec", "libavutil",
                            "libswscale"], env=env, capture_output=True, text=True, check=True).stdout.split()
    exe = d / "frames_at"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                    str(REPO / "Examples" / "c" / "frames_at.c"), "-o", str(exe), *flags],
                   check=True, capture_output=True, text=True)
    return exe


@pytest.mark.parametrize("name", FILES)
def test_c_frames_at(c_frames_at, fixtures_dir, hevc_opengop, library, tmp_path, name):
    """Examples/c/frames_at.c: random and backward orders; each line's pts is the exact
    landing and its md5 ffmpeg's framemd5 of that frame; the PPMs are written."""
    path = media(fixtures_dir, hevc_opengop, name)
    gt = gtm.load(str(path))
    md5 = framecheck.md5_by_pts(str(path))
    times = spread(path, 8, seed=11)
    i = gt.frame_index(gt.keyframes[1].pts)
    times += [gt.to_item(gt.frames[j].pts) for j in (i + 3, i + 2, i + 1, i, i - 1)]  # backward
    texts = [f"{t.numerator}/{t.denominator}" for t in times]
    proc = subprocess.run([str(c_frames_at), str(path), str(tmp_path / "f"), *texts],
                          env={"LD_LIBRARY_PATH": str(library.parent), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(times) + 1
    for n, (t, text, line) in enumerate(zip(times, texts, lines)):
        m = re.match(r"(\S+) s -> pts (-?\d+) \(\S+ s\) md5 ([0-9a-f]{32}), \d+ frames decoded; wrote (\S+)$", line)
        assert m, line
        assert m.group(1) == text and int(m.group(2)) == gt.covering(t).pts, line
        assert m.group(3) == md5[int(m.group(2))], line
        assert Path(m.group(4)) == tmp_path / f"f-{n}.ppm" and Path(m.group(4)).stat().st_size > 0
    assert re.match(r"\d+ packets decoded, \d+ disposable dropped, \d+ frames decoded$", lines[-1])


CLI = REPO / "build" / "bin" / "fpx-seek"


def _rgb(path: Path, vf: str) -> bytes:
    return subprocess.check_output(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-vf", vf,
                                    "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])


def _mad(a: bytes, b: bytes) -> float:
    import numpy as np
    return float(np.abs(np.frombuffer(a, np.uint8).astype(np.int16) - np.frombuffer(b, np.uint8)).mean())


def _nearest(media: Path, n: int, picture: bytes, w: int, h: int) -> Tuple[int, float]:
    """Which of ffmpeg's frames n-2..n+2 (rgb24, scaled to w x h) the picture is closest to."""
    lo = max(0, n - 2)
    raw = _rgb(media, f"select='between(n\\,{lo}\\,{n + 2})',scale={w}:{h}:flags=bicubic")
    size = w * h * 3
    d = {lo + k: _mad(raw[k * size:(k + 1) * size], picture) for k in range(len(raw) // size)}
    best = min(d, key=lambda k: d[k])
    return best, d[best]


def _check_cli_frame_png(path: Path, t: Fraction, tmp_path: Path) -> None:
    """fpx-seek frame FILE T -o x.png: a PNG of the frame covering T, ffmpeg's pixels (its
    rgb24 conversion of that frame is the closest of its neighbours, within 2 levels)."""
    gt = gtm.load(str(path))
    png = tmp_path / "f.png"
    proc = subprocess.run([str(CLI), "frame", str(path), f"{t.numerator}/{t.denominator}", "-o", str(png)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    pts = gt.covering(t).pts
    assert f"stream pts {pts})" in proc.stdout and "hit" in proc.stdout
    probe = subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height",
                                     "-of", "csv=p=0", str(png)], text=True).strip()
    w, h = (int(x) for x in probe.split(",")[1:])
    assert probe.startswith("png,")
    picture = _rgb(png, "null")
    best, mad = _nearest(path, gt.frame_index(pts), picture, w, h)
    assert best == gt.frame_index(pts) and mad < 2.0, (best, mad)


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "hevc_opengop.mp4"])
def test_cli_frame_png(fixtures_dir, hevc_opengop, library, tmp_path, name):
    path = media(fixtures_dir, hevc_opengop, name)
    _check_cli_frame_png(path, spread(path, 1, seed=17)[0], tmp_path)


@pytest.mark.parametrize("name", ["sample.mp4", "mp4_bframes.mp4", "hevc_opengop.mp4"])
@pytest.mark.parametrize("back", [0, 1, 2])
def test_cli_frame_png_at_the_last_frames(fixtures_dir, hevc_opengop, library, tmp_path, name, back):
    """The last frames of a stream with B-frames come out of the decoder only when it is
    drained at the end of the packets (issue 29.1: README's example failed on the bundled
    sample at or past its last frame)."""
    path = REPO / "samples" / name if name == "sample.mp4" else media(fixtures_dir, hevc_opengop, name)
    gt = gtm.load(str(path))
    _check_cli_frame_png(path, gt.to_item(gt.frames[-1 - back].pts), tmp_path)


def test_cli_frame_contact_sheet(fixtures_dir, library, tmp_path):
    """Several times (backward and random order) make a contact sheet: each cell is the
    frame covering its time, in the order given."""
    path = fixtures_dir / "mp4_opengop.mp4"
    gt = gtm.load(str(path))
    times = [Fraction(71, 10), Fraction(1, 2), Fraction(3), Fraction(29, 10), Fraction(11)]
    png = tmp_path / "sheet.png"
    proc = subprocess.run([str(CLI), "frame", str(path), *[f"{t.numerator}/{t.denominator}" for t in times],
                           "-o", str(png), "--width", "160", "--columns", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == f"wrote {png} (5 frames, 2 per row, 160x120 each)"
    for t, line in zip(times, lines):
        assert f"stream pts {gt.covering(t).pts})" in line, line
    import numpy as np
    sheet = np.frombuffer(_rgb(png, "null"), np.uint8).reshape(4 + 3 * 124, 4 + 2 * 164, 3)
    for k, t in enumerate(times):
        x, y = 4 + (k % 2) * 164, 4 + (k // 2) * 124
        cell = np.ascontiguousarray(sheet[y:y + 120, x:x + 160]).tobytes()
        n = gt.frame_index(gt.covering(t).pts)
        best, mad = _nearest(path, n, cell, 160, 120)
        assert best == n and mad < 2.0, (t, best, mad)


def test_cli_frame_errors(fixtures_dir, library, tmp_path):
    def run(*a: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(CLI), "frame", *a], capture_output=True, text=True, timeout=60)
    f = str(fixtures_dir / "mp4_bframes.mp4")
    assert run(f, "1").returncode == 2                                   # no -o
    assert run(f, "-o", str(tmp_path / "x.png")).returncode == 2          # no TIME
    assert run(f, "x", "-o", str(tmp_path / "x.png")).returncode == 2     # not a time
    assert run(f, "1", "-o", str(tmp_path / "x.png"), "--width", "3").returncode == 2
    r = run(str(fixtures_dir / "audio.m4a"), "1", "-o", str(tmp_path / "x.png"))
    assert r.returncode == 1 and "no video" in r.stderr
    r = run(f, "1", "-o", str(tmp_path / "no" / "such" / "dir.png"))
    assert r.returncode == 1 and "cannot write" in r.stderr
    assert "frame FILE|URL TIME" in subprocess.run([str(CLI), "--help"], capture_output=True, text=True).stdout


def test_cli_frame_precision(fixtures_dir, library, tmp_path):
    """--precision keyframe:TOL lands on the nearest keyframe (exact is the default)."""
    path = fixtures_dir / "mp4_bframes.mp4"
    gt = gtm.load(str(path))
    t = Fraction(5, 2)
    k = gt.nearest_keyframe(t, Fraction(2))
    assert k is not None and k.pts != gt.covering(t).pts
    out = subprocess.run([str(CLI), "frame", str(path), "5/2", "--precision", "keyframe:2", "-o",
                          str(tmp_path / "k.png")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert f"stream pts {k.pts})" in out.stdout and "within the requested tolerance" in out.stdout
