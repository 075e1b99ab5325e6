"""The library's own seekable range on a file cut short (issue 29.6, library part), through
the C ABI (the ctypes Player: fpx_player_seekable_range, fpx_item_info, fpx_player_seek_wait).

An MP4 (index up front), a fragmented MP4 and an MKV of the same H.264 (B-frames) + AAC, cut
with ``head -c`` at several points, one of them inside the last video packet:

* the seekable range ends at the last *complete* frame: the largest pts of the video packets
  read, in decode order, before the first one the cut left incomplete. Ground truth from
  tools we did not write: ffprobe's packets of the whole file (pos, size) against the cut
  file's size, and ffprobe's packets of the cut file (a packet libavformat read short or
  dropped is not complete); ffmpeg's decode of the cut file gives that frame the whole
  file's pixels (framemd5);
* ``seekable_range_truncated`` is 1 for every MP4 and fragmented MP4 cut (libavformat flags
  the packet it read short AV_PKT_FLAG_CORRUPT), and for the MKV cuts far enough from the end for the duration
  rule (libavformat's Matroska demuxer drops a cut block without a trace, so a cut near the
  end of an MKV is not flagged: only its range end is checked there);
* an exact seek past the new end, up to the container's duration, clamps to it
  (TO_SEEKABLE_END) and lands on that last complete frame;
* the untouched files are not reported truncated and their range ends at their last frame.
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List

import pytest

from sharedfixtures import REPO
import framecheck

sys.path.insert(0, str(REPO / "Bindings" / "python"))


def _packets(path: Path) -> List[Dict[str, int]]:
    """The video packets in demux (decode) order: pts, pos, size (ffprobe)."""
    out = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "packet=pts,pos,size", "-of", "json", str(path)], text=True))
    return [{"pts": int(p["pts"]), "pos": int(p["pos"]), "size": int(p["size"])}
            for p in out["packets"]]


def _duration(path: Path) -> Fraction:
    out = subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "format=duration",
                                   "-of", "csv=p=0", str(path)], text=True)
    return Fraction(out.strip())


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Dict[str, Path]:
    d = tmp_path_factory.mktemp("trunc")
    mp4 = d / "full.mp4"
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=10",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=10",
                    "-c:v", "libx264", "-g", "25", "-bf", "2", "-pix_fmt", "yuv420p",
                    "-c:a", "aac", "-movflags", "+faststart", str(mp4)], check=True, timeout=120)
    mkv = d / "full.mkv"
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i",
                    str(mp4), "-map", "0", "-c", "copy", str(mkv)], check=True, timeout=60)
    fmp4 = d / "frag.mp4"
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i",
                    str(mp4), "-map", "0", "-c", "copy", "-movflags",
                    "frag_keyframe+empty_moov+default_base_moof", str(fmp4)], check=True, timeout=60)
    return {"mp4": mp4, "mkv": mkv, "fmp4": fmp4}


def _last_complete(full: Path, cut: Path) -> int:
    """The pts of the last complete frame of `cut` (a prefix of `full`): the largest pts of
    the video packets, in decode order, before the first one whose bytes the cut left
    incomplete: past the cut file's size by ffprobe's positions in the whole file, or not
    read whole from the cut file by ffprobe (read short, or dropped by the demuxer)."""
    size = cut.stat().st_size
    in_cut = {p["pts"]: p["size"] for p in _packets(cut)}
    best = None
    for p in _packets(full):
        if p["pos"] + p["size"] > size or in_cut.get(p["pts"]) != p["size"]:
            break
        best = p["pts"] if best is None else max(best, p["pts"])
    assert best is not None
    return best


def _cut_points(full: Path) -> Dict[str, int]:
    size = full.stat().st_size
    last = max(_packets(full), key=lambda q: q["pos"])  # the video packet nearest the end
    return {"30%": size * 30 // 100, "45%": size * 45 // 100, "60%": size * 60 // 100,
            "80%": size * 80 // 100, "95%": size * 95 // 100,
            "in-last-video-packet": last["pos"] + last["size"] // 2}


@pytest.mark.parametrize("kind", ["mp4", "fmp4", "mkv"])
def test_untouched_file_not_truncated(sources, library, kind):
    from fastpix_seek import Player, SeekPrecision
    full = sources[kind]
    last = max(p["pts"] for p in _packets(full))
    with Player(full) as p:
        p.wait_item(timeout=20)
        assert not p.item_info().seekable_range_truncated
        _, end = p.seekable_range()
        out = p.seek_wait(end, SeekPrecision.exact())
        assert out.landed_stream_pts == last


@pytest.mark.parametrize("kind", ["mp4", "fmp4", "mkv"])
@pytest.mark.parametrize("point", ["30%", "45%", "60%", "80%", "95%", "in-last-video-packet"])
def test_cut_range_ends_at_last_complete_frame(sources, library, tmp_path, kind, point):
    from fastpix_seek import ClampKind, Player, SeekPrecision
    full = sources[kind]
    at = _cut_points(full)[point]
    cut = tmp_path / f"cut{full.suffix}"
    cut.write_bytes(full.read_bytes()[:at])
    want = _last_complete(full, cut)
    whole_md5 = framecheck.md5_by_pts(str(full))
    # ffmpeg decodes the last complete frame from the cut file with the whole file's pixels.
    cut_md5 = framecheck.md5_by_pts(str(cut))
    assert cut_md5.get(want) == whole_md5[want]
    # The frame the old range ended on (the largest pts libavformat returns at all) is not it.
    returned = max(q["pts"] for q in _packets(cut))
    duration = _duration(full)
    with Player(cut) as p:
        p.wait_item(timeout=20)
        info = p.item_info()
        start, end = p.seekable_range()
        out = p.seek_wait(end, SeekPrecision.exact())
        assert out.finished and out.landed_stream_pts == want, (point, returned)
        assert out.landed_time == end
        if kind != "mkv" or point in ("30%", "45%", "60%", "80%"):
            assert info.seekable_range_truncated
        # Exact seeks past the new end, up to the duration: clamped to it, landing on it.
        for t in (end + Fraction(1, 100), (end + duration) / 2, duration):
            o = p.seek_wait(t, SeekPrecision.exact())
            assert o.finished and o.clamp.kind == ClampKind.TO_SEEKABLE_END, t
            assert o.landed_stream_pts == want and o.landed_time == end


def test_cli_probe_says_the_data_ends_inside_a_packet(sources, tmp_path):
    """fpx-seek probe and seek warn on a cut MP4 with the library's own rule (the data ends
    inside a packet, the range at the last frame read whole), not only the duration rule, and
    say nothing of the untouched file."""
    cli = REPO / "build" / "bin" / "fpx-seek"
    full = sources["mp4"]
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(full.read_bytes()[:_cut_points(full)["in-last-video-packet"]])
    for cmd in (["probe", str(cut)], ["seek", str(cut), "1"]):
        r = subprocess.run([str(cli), *cmd], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert "the file's data ends inside a packet" in r.stderr and "truncated" in r.stderr, (cmd, r.stderr)
    r = subprocess.run([str(cli), "probe", str(full)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "truncated" not in r.stderr, r.stderr
