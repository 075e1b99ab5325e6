"""Stream facts (fpx_stream_info 0.3 fields, StreamInfo attributes) against
`ffprobe -show_streams`, for every stream of every fixture, plus a generated file with a
10-bit HDR video stream (BT.2020 / PQ, tv range, SAR 4:3, a display matrix) and stereo
audio with a language tag, in MP4 and Matroska."""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Optional

import pytest

from groundtruth import MEDIA_FIXTURES
from fastpix_seek import MediaType, Player

FIELD_ORDER = {0: "unknown", 1: "progressive", 2: "tt", 3: "bb", 4: "tb", 5: "bt"}


def ffprobe_streams(path: Path):
    out = subprocess.check_output(["ffprobe", "-v", "error", "-show_streams", "-of", "json", str(path)])
    return json.loads(out)["streams"]


def opt(v) -> Optional[str]:
    return None if v in (None, "unknown", "unspecified", "N/A") else v


def ratio(s: Optional[str], sep: str) -> Optional[Fraction]:
    if not s or s in ("0/0", "0:1", "N/A"):
        return None
    n, d = s.split(sep)
    return Fraction(int(n), int(d)) if int(d) else None


def check_stream(info, s: dict):
    assert info.codec_name == s["codec_name"]
    assert info.profile_name == opt(s.get("profile")), "profile"
    tag = int(s["codec_tag"], 16)
    assert info.codec_tag == tag
    if tag and all(32 <= b < 127 for b in tag.to_bytes(4, "little")):
        assert info.codec_tag_string == s["codec_tag_string"]
    assert info.bit_rate == (int(s["bit_rate"]) if "bit_rate" in s else None)
    assert info.start_pts == s.get("start_pts")
    assert info.duration_ts == s.get("duration_ts")
    assert info.frame_count == (int(s["nb_frames"]) if "nb_frames" in s else None)
    assert bool(info.disposition & 1) == bool(s["disposition"]["default"])
    assert info.language == s.get("tags", {}).get("language")
    raw = s.get("bits_per_raw_sample")
    assert info.bits_per_raw_sample == (int(raw) if raw not in (None, "N/A") else 0)
    if s["codec_type"] == "video":
        assert info.type == MediaType.VIDEO
        assert info.level == s["level"]
        assert info.pixel_format == opt(s.get("pix_fmt"))
        # Bit depth: ffprobe names it through bits_per_raw_sample and the pixel format.
        assert info.bit_depth == (10 if "10" in s["pix_fmt"] else 8)
        if raw not in (None, "N/A"):
            assert info.bit_depth == int(raw)
        assert info.sample_aspect_ratio == ratio(s.get("sample_aspect_ratio"), ":")
        assert info.frame_rate == ratio(s["avg_frame_rate"], "/")
        assert info.real_frame_rate == ratio(s["r_frame_rate"], "/")
        assert info.color_range == opt(s.get("color_range"))
        assert info.color_space == opt(s.get("color_space"))
        assert info.color_transfer == opt(s.get("color_transfer"))
        assert info.color_primaries == opt(s.get("color_primaries"))
        assert info.chroma_location == opt(s.get("chroma_location"))
        assert FIELD_ORDER[info.field_order] == s.get("field_order", "unknown")
        rot = [d["rotation"] for d in s.get("side_data_list", []) if d.get("side_data_type") == "Display Matrix"]
        if rot:
            assert info.rotation is not None and int(info.rotation) == rot[0]
        else:
            assert info.rotation is None
        assert info.channel_layout is None and info.sample_format is None
    elif s["codec_type"] == "audio":
        assert info.type == MediaType.AUDIO
        assert info.sample_format == s["sample_fmt"]
        assert info.sample_rate == int(s["sample_rate"]) and info.channels == s["channels"]
        assert info.channel_layout == s.get("channel_layout")
        assert info.bit_depth == {"fltp": 32, "flt": 32, "s16": 16, "s16p": 16, "s32": 32, "s32p": 32}[s["sample_fmt"]]
        if "initial_padding" in s:
            assert info.initial_padding == s["initial_padding"]
        else:
            assert info.initial_padding == 0
        assert info.pixel_format is None and info.frame_rate is None and info.rotation is None
        if s["codec_name"] == "aac":
            assert info.frame_size == 1024  # AAC: 1024 samples per packet
    assert len(repr(info)) < 200


def first_packet_skip_samples(path: Path, index: int) -> int:
    """The skip-samples side data of a stream's first packet (ffprobe), 0 when none."""
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", str(index),
                                   "-read_intervals", "%+#1", "-show_entries",
                                   "packet_side_data=skip_samples", "-of", "json", str(path)])
    for pk in json.loads(out).get("packets", []):
        for sd in pk.get("side_data_list", []):
            if "skip_samples" in sd:
                return int(sd["skip_samples"])
    return 0


def check_file(path: Path):
    streams = ffprobe_streams(path)
    for s in streams:
        # ffprobe 5.1 does not print initial_padding; for Opus it is the pre-skip, which
        # libavformat also puts on the first packet as skip samples.
        if s.get("codec_name") == "opus" and "initial_padding" not in s:
            s["initial_padding"] = first_packet_skip_samples(path, s["index"])
    with Player(path) as p:
        p.wait_item(timeout=20)
        assert p.item_info().stream_count == len(streams)
        for s in streams:
            check_stream(p.stream_info(s["index"]), s)
    return streams


@pytest.mark.parametrize("name", MEDIA_FIXTURES)
def test_facts_match_ffprobe(fixtures_dir: Path, name):
    check_file(fixtures_dir / name)


@pytest.fixture(scope="module")
def hdr_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("facts")
    enc = d / "enc.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "2",
                    # setparams: FFmpeg 7's ffmpeg takes the colour properties from the frames
                    # (the -color_* options alone are lost there); 5.1 takes either.
                    "-filter_complex", "[0:v]setsar=4/3,setparams=color_primaries=bt2020:color_trc=smpte2084:"
                    "colorspace=bt2020nc:range=tv[v];[1:a]pan=stereo|c0=c0|c1=c0[a]", "-map", "[v]", "-map", "[a]",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
                    "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc",
                    "-color_range", "tv", "-c:a", "aac", "-metadata:s:a", "language=fra", str(enc)], check=True)
    mp4, mkv = d / "hdr.mp4", d / "hdr.mkv"
    # The display matrix survives only a stream copy. FFmpeg 7.1's ffmpeg sets it with the
    # input option -display_rotation (it ignores the "rotate" tag); 5.1's has no such option
    # and turns the "rotate" tag into the matrix.
    if subprocess.run(["ffmpeg", "-v", "error", "-display_rotation:v:0", "90", "-i", str(enc), "-c", "copy",
                       str(mp4)]).returncode != 0:
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(enc), "-c", "copy", "-metadata:s:v:0", "rotate=90",
                        str(mp4)], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(enc), "-c", "copy", str(mkv)], check=True)
    return mp4, mkv


def test_facts_of_a_10_bit_hdr_rotated_stream(hdr_files):
    mp4, mkv = hdr_files
    streams = check_file(mp4)
    v = next(s for s in streams if s["codec_type"] == "video")
    assert v["pix_fmt"] == "yuv420p10le" and v["color_transfer"] == "smpte2084"
    assert any(d.get("side_data_type") == "Display Matrix" for d in v.get("side_data_list", []))
    with Player(mp4) as p:
        p.wait_item(timeout=20)
        info = p.stream_info(0)
        assert (info.bit_depth, info.profile_name, info.sample_aspect_ratio) == (10, "High 10", Fraction(4, 3))
        assert (info.color_primaries, info.color_space, info.color_range) == ("bt2020", "bt2020nc", "tv")
        assert info.rotation is not None and abs(info.rotation) == 90
        a = p.stream_info(1)
        assert (a.channel_layout, a.channel_mask, a.language) == ("stereo", 3, "fra")
    check_file(mkv)
