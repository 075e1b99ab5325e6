"""Test media made with the ffmpeg CLI (the tests' inputs, never their ground truth): each
maker writes one file or stream folder and returns its path.
"""
from __future__ import annotations

import subprocess
from pathlib import Path


def make_hevc_opengop(out: str) -> str:
    """3 s of 160x96 HEVC with x265's open GOPs (CRA + RASL pictures), B-pyramid, GOP of 24:
    the open-GOP HEVC case of the frame tests (about a second to encode)."""
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=160x96:rate=25:duration=3", "-c:v", "libx265",
                    "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-x265-params",
                    "log-level=error:keyint=24:min-keyint=24:scenecut=0:open-gop=1:bframes=3:"
                    "b-pyramid=1:pools=1:frame-threads=1", out], check=True, timeout=120)
    return out


def make_two_videos(out: str) -> str:
    """Audio, a 25 fps 160x120 video and a 30000/1001 fps 96x72 video (other GOP, other size),
    4 s, by ffmpeg -map (streams 0: audio, 1 and 2: video): the reference-stream case of the
    conventions tests. The container follows `out`'s extension (mkv, mp4)."""
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25",
                    "-f", "lavfi", "-i", "testsrc=size=96x72:rate=30000/1001",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "4",
                    "-map", "2:a", "-map", "0:v", "-map", "1:v",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g:v:0", "12", "-g:v:1", "20",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "48k", out],
                   check=True, capture_output=True, timeout=120)
    return out


def make_early_audio(out: str) -> str:
    """A 3 s 29.97 fps H.264 MKV whose audio starts before its video (-itsoffset -0.007 plus
    AAC's priming, negative timestamps kept): item time 0 (the container's start, -29 ms of the
    streams' clock) is not pts 0."""
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y",
                    "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001",
                    "-itsoffset", "-0.007", "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "3",
                    "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-avoid_negative_ts", "disabled", out],
                   check=True, capture_output=True, timeout=120)
    return out


def make_gap_hls(d: Path) -> Path:
    """6 s of 128x96 30 fps H.264 (GOP 30, 2 B-frames) as ffmpeg's 1 s TS segments s0..s5.ts in
    `d`, listed by `d/gap.m3u8` (VOD) with segment 2 marked EXT-X-GAP; returns that playlist."""
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=30", "-t", "6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "s%d.ts"), str(d / "orig.m3u8")],
                   check=True)
    lines = ["#EXTM3U", "#EXT-X-VERSION:8", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0",
             "#EXT-X-PLAYLIST-TYPE:VOD"]
    for i in range(6):
        lines += (["#EXT-X-GAP"] if i == 2 else []) + ["#EXTINF:1.000000,", f"s{i}.ts"]
    (d / "gap.m3u8").write_text("\n".join(lines + ["#EXT-X-ENDLIST"]) + "\n")
    return d / "gap.m3u8"
