"""Ground truth for the pictures `fpx-seek frame` and `fpx-seek sprite` write: ffmpeg's own
decode of a file's frames, scaled by ffmpeg (libswscale, bicubic) to a cell's size and
converted to rgb24, compared with a cell cut out of the written image (decoded by ffmpeg
too). Used by test_cli_frame.py, test_cli_sprite.py and Benchmarks/sprite_bench.py."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np


def rgb(path: Path, vf: str = "null") -> bytes:
    """Every frame of the first video stream (or the one picture of an image) as rgb24."""
    return subprocess.check_output(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v:0", "-vf", vf,
                                    "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])


def image(path: Path) -> np.ndarray:
    """An image file (PNG, JPEG) as an h x w x 3 array, decoded by ffmpeg."""
    size = subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of",
                                    "csv=p=0", str(path)], text=True).strip().split(",")
    w, h = int(size[0]), int(size[1])
    return np.frombuffer(rgb(path), np.uint8).reshape(h, w, 3)


def frames_scaled(path: Path, w: int, h: int) -> np.ndarray:
    """ffmpeg's decode of every frame, in presentation order, scaled to w x h: n x h x w x 3."""
    raw = rgb(path, f"scale={w}:{h}:flags=bicubic")
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)


def cell(img: np.ndarray, x: int, y: int, w: int, h: int) -> np.ndarray:
    return img[y:y + h, x:x + w]


def mad(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference, in levels of 0..255."""
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


def nearest(frames: np.ndarray, picture: np.ndarray, n: int, span: int = 3):
    """Which of frames n-span..n+span the picture is closest to, and its distance."""
    lo, hi = max(0, n - span), min(len(frames) - 1, n + span)
    d = {k: mad(frames[k], picture) for k in range(lo, hi + 1)}
    best = min(d, key=lambda k: d[k])
    return best, d[best]
