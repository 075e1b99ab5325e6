"""Raw PCM: the seekable range and every landing are a function of the file, never of what
was read before (issue 26.3).

libavformat cuts raw PCM packets wherever it starts reading (after a seek, at the seek's
sample), so PCM has no frame grid of its own. Every sample is a frame: an exact seek lands
on the sample whose interval holds the target, the host's reads start at whichever packet
holds it (DISCONTINUITY; DECODE_ONLY with trim_samples = the samples before the landing
when it is inside the packet), and the range ends at the last sample.

Ground truth is ffmpeg's and ffprobe's: the packets of a read from the start
(`ffprobe -show_packets`: first pts, last end), the file's duration, and the file's sample
bytes (`ffmpeg -c copy -f data`), which every packet's payload must equal at its pts. Each
target near the end (the start, a third of a sample in, and the last sample of each of the
last packets ffprobe shows, the file's last sample, past the end) is sought by a fresh
player and by players that read packets near the end and elsewhere first.
"""
from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import pytest

from sharedfixtures import REPO

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player, SeekPrecision  # noqa: E402
from fastpix_seek.errors import EndOfFile  # noqa: E402

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
DISCONTINUITY, DECODE_ONLY = 0x200, 0x100

# name: (sample rate, channels, encoder, extension)
FILES = {
    "wav_s16_16k": (16000, 1, "pcm_s16le", "wav"),
    "wav_s32_8k": (8000, 1, "pcm_s32le", "wav"),
    "wav_s24_stereo_48k": (48000, 2, "pcm_s24le", "wav"),
    "aiff_s16_8k": (8000, 1, "pcm_s16be", "aiff"),
    "caf_s16_8k": (8000, 1, "pcm_s16le", "caf"),
    "mov_s16_8k": (8000, 1, "pcm_s16le", "mov"),
}


class Truth:
    def __init__(self, path: Path, rate: int):
        out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                              "packet=pts,duration:format=duration", "-of", "csv=p=0", str(path)],
                             capture_output=True, text=True, check=True).stdout.split()
        rows = [line.split(",") for line in out if line.count(",") == 1]
        self.packets = [(int(a), int(b)) for a, b in rows]
        self.duration = Fraction(next(line for line in out if "," not in line))
        self.rate = rate
        self.first = self.packets[0][0]
        self.end = self.packets[-1][0] + self.packets[-1][1]  # one past the last sample
        for (p, d), (q, _) in zip(self.packets, self.packets[1:]):
            assert p + d == q, f"{path.name}: ffprobe's packets are not contiguous at {p}"
        self.raw = subprocess.run(FF + ["-i", str(path), "-map", "0:a:0", "-c", "copy", "-f", "data", "-"],
                                  capture_output=True, check=True).stdout
        samples = self.end - self.first
        assert len(self.raw) % samples == 0, f"{path.name}: {len(self.raw)} bytes for {samples} samples"
        self.block = len(self.raw) // samples

    def bytes_at(self, pts: int, n: int) -> bytes:
        i = (pts - self.first) * self.block
        return self.raw[i:i + n * self.block]

    def landing(self, target: Fraction) -> int:
        """The sample an exact seek to `target` (seconds from the first sample) lands on."""
        return min(max(self.first + math.floor(target * self.rate), self.first), self.end - 1)

    def targets(self) -> List[Fraction]:
        out = []
        for p, d in self.packets[-6:] + self.packets[:2]:
            for s in (Fraction(p), p + Fraction(1, 3), Fraction(p + d - 1)):
                out.append((s - self.first) / self.rate)
        out += [Fraction(self.end - 1 - self.first, self.rate), Fraction(self.end - self.first, self.rate) - Fraction(1, 10**6),
                Fraction(self.end - self.first, self.rate) + 1, Fraction(3980, 1000)]
        return out


@pytest.fixture(scope="module", params=sorted(FILES))
def pcm(request, tmp_path_factory) -> Tuple[Path, Truth]:
    rate, channels, codec, ext = FILES[request.param]
    out = tmp_path_factory.mktemp("pcm") / f"{request.param}.{ext}"
    layout = "stereo" if channels == 2 else "mono"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={rate}:duration=4",
                         "-af", f"aformat=channel_layouts={layout}", "-c:a", codec, str(out)], check=True)
    return out, Truth(out, rate)


def check_landing(p: Player, truth: Truth, target: Fraction, to_end: bool, what: str) -> List[str]:
    o = p.seek_wait(target, SeekPrecision.exact())
    want = truth.landing(target)
    problems = []
    if o.landed_stream_pts != want:
        problems.append(f"{what}: target {target} ({float(target):.6f} s) landed on sample {o.landed_stream_pts}, "
                        f"want {want}")
        return problems
    # A target past the range's end (the last sample's start) is clamped to it (the outcome
    # says so), which it covers.
    clamped = target > Fraction(truth.end - 1 - truth.first, truth.rate)
    if not o.frame_covers_target or (o.clamp.kind != 0) != clamped:
        problems.append(f"{what}: target {float(target):.6f} s: covers_target {o.frame_covers_target}, {o.clamp}")
    k = p.read_packet()
    if not (k.flags & DISCONTINUITY and k.pts <= want < k.pts + k.duration):
        problems.append(f"{what}: target {float(target):.6f}: first packet pts {k.pts} duration {k.duration} "
                        f"flags {k.flags:#x} does not hold sample {want}")
        return problems
    trim = want - k.pts
    if k.trim_samples != trim or bool(k.flags & DECODE_ONLY) != (trim > 0) or k.landed_pts != want:
        problems.append(f"{what}: target {float(target):.6f}: packet {k.pts}+{k.duration} trim {k.trim_samples} "
                        f"(want {trim}) flags {k.flags:#x} landed_pts {k.landed_pts}")
    n = 1
    while True:
        if k.data != truth.bytes_at(k.pts, k.duration) or k.duration <= 0:
            problems.append(f"{what}: packet {k.pts}+{k.duration}: not the file's samples")
            break
        if not to_end and n >= 3:
            break
        nxt = k.pts + k.duration
        try:
            k = p.read_packet()
        except EndOfFile:
            if nxt != truth.end:
                problems.append(f"{what}: the packets end at {nxt}, the file at {truth.end}")
            break
        n += 1
        if k.pts != nxt or k.trim_samples != 0 or k.flags & DECODE_ONLY:
            problems.append(f"{what}: after sample {nxt - 1} came packet {k.pts} flags {k.flags:#x}")
            break
    return problems


def read_some(p: Player, target: Fraction, n: int) -> None:
    p.seek_wait(target, SeekPrecision.exact())
    for _ in range(n):
        try:
            p.read_packet()
        except EndOfFile:
            break


def test_range_ends_at_the_last_sample(pcm):
    path, truth = pcm
    assert truth.end - truth.first == truth.duration * truth.rate, "the fixture's header and packets disagree"
    ranges = set()
    for history in ([], [Fraction(39, 10), Fraction(7, 2)], [Fraction(1, 3)]):
        with Player(str(path)) as p:
            p.wait_item()
            for t in history:
                read_some(p, t, 4)
            ranges.add(p.seekable_range())
    want = (Fraction(0), Fraction(truth.end - 1 - truth.first, truth.rate))
    assert ranges == {want}, f"{path.name}: ranges {ranges}, want {want}"


@pytest.mark.parametrize("history", ["fresh", "read_near_end", "read_everywhere"])
def test_landing_does_not_depend_on_history(pcm, history: str):
    path, truth = pcm
    problems: List[str] = []
    if history == "fresh":
        for t in truth.targets():
            with Player(str(path)) as p:
                p.wait_item()
                problems += check_landing(p, truth, t, to_end=True, what=f"{path.name} fresh")
    else:
        with Player(str(path)) as p:
            p.wait_item()
            first = [Fraction(39, 10), Fraction(3896, 1000)] if history == "read_near_end" else \
                [Fraction(1, 7), Fraction(2), Fraction(3, 1) + Fraction(1, 9), Fraction(3, 1) + Fraction(7, 9)]
            for t in first:
                read_some(p, t, 5)
            for t in truth.targets():
                problems += check_landing(p, truth, t, to_end=False, what=f"{path.name} {history}")
    assert not problems, "\n".join(problems)
