"""Player(index_mode=...) (fpx_player_config.index_mode): the binding passes the mode, reads
the new stats fields and delivers on_index_complete. Ground truth: ffprobe's packets."""

from __future__ import annotations

import subprocess
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

from fastpix_seek import IndexMode, Player, SeekPrecision, UnknownEnumError


def ffprobe_frames(path: Path, stream: int) -> int:
    """Reference-stream packets ffprobe lists that are not discard-flagged."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", str(stream), "-show_entries",
                          "packet=flags", "-of", "csv=p=0", str(path)],
                         check=True, capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if line.strip() and "D" not in line)


class Completions:
    def __init__(self) -> None:
        self.frames: list[int] = []
        self.event = threading.Event()

    def on_index_complete(self, frames: int) -> None:
        self.frames.append(frames)
        self.event.set()


@pytest.mark.parametrize("name", ["mkv.mkv", "audio.m4a"])
def test_full_index_completes_once_with_ffprobes_count(fixtures_dir: Path, name: str):
    path = fixtures_dir / name
    seen = Completions()
    with Player(index_mode=IndexMode.FULL) as p, Player(index_mode=IndexMode.OFF) as off:
        p.add_listener(seen)
        p.open(path)
        off.open(path)
        p.wait_item(timeout=20)
        off.wait_item(timeout=20)
        want = ffprobe_frames(path, p.item_info().reference_stream)
        assert seen.event.wait(60), "no on_index_complete"
        time.sleep(0.2)
        s = p.stats()
        assert seen.frames == [want]
        assert (s.index_frames, s.index_complete) == (want, 1)
        for t in (Fraction(1, 3), Fraction(21, 10), Fraction(37, 10)):
            for prec in (SeekPrecision.exact(), SeekPrecision.default()):
                a, b = p.seek_wait(t, prec, timeout=30), off.seek_wait(t, prec, timeout=30)
                assert (a.landed_stream_pts, a.resolution) == (b.landed_stream_pts, b.resolution)


@pytest.mark.parametrize("mode", [IndexMode.OFF, IndexMode.KEYFRAMES])
def test_other_modes_do_not_index(sample: Path, mode: IndexMode):
    seen = Completions()
    with Player(index_mode=mode) as p:
        p.add_listener(seen)
        p.open(sample)
        p.wait_item(timeout=20)
        before = p.stats().packets_demuxed
        time.sleep(0.3)
        s = p.stats()
        assert (s.index_frames, s.index_complete, s.packets_demuxed) == (0, 0, before)
        assert seen.frames == []


def test_default_is_keyframes_and_unknown_mode_is_refused():
    import inspect
    assert inspect.signature(Player).parameters["index_mode"].default is IndexMode.KEYFRAMES
    with pytest.raises(UnknownEnumError):
        Player(index_mode=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Player(index_mode="full")  # type: ignore[arg-type]


def test_hls_full_behaves_as_keyframes(tmp_path: Path):
    """HLS items have no background index: FULL reads nothing more and lands as KEYFRAMES."""
    playlist = tmp_path / "v.m3u8"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=25", "-t", "6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-f", "hls", "-hls_time", "2",
                    "-hls_playlist_type", "vod", str(playlist)], check=True)
    seen = Completions()
    with Player(index_mode=IndexMode.FULL) as p, Player(index_mode=IndexMode.KEYFRAMES) as k:
        p.add_listener(seen)
        p.open(playlist)
        k.open(playlist)
        p.wait_item(timeout=20)
        k.wait_item(timeout=20)
        before = p.stats().packets_demuxed
        time.sleep(0.5)
        s = p.stats()
        assert (s.index_frames, s.index_complete, s.packets_demuxed) == (0, 0, before)
        for t in (Fraction(7, 10), Fraction(33, 10), Fraction(51, 10)):
            for prec in (SeekPrecision.exact(), SeekPrecision.default()):
                a, b = p.seek_wait(t, prec, timeout=30), k.seek_wait(t, prec, timeout=30)
                assert (a.landed_time, a.resolution) == (b.landed_time, b.resolution)
        assert seen.frames == []
