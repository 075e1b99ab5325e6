"""Ground truth for the pictures `fpx-seek frame` and `fpx-seek sprite` write: ffmpeg's own
decode of a file's frames, scaled by ffmpeg (libswscale, bicubic) to a cell's size and
converted to rgb24, compared with a cell cut out of the written image (decoded by ffmpeg
too). Used by test_cli_frame.py, test_cli_sprite.py and Benchmarks/sprite_bench.py."""
from __future__ import annotations

import json
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


def jpeg_error(picture: np.ndarray, quality: int = 3) -> float:
    """What JPEG costs this picture when ffmpeg itself writes it (mjpeg at qscale `quality`,
    4:2:0 full range, as `fpx-seek sprite` does by default) and reads it back: the yardstick
    of a JPEG tile."""
    h, w, _ = picture.shape
    jpg = subprocess.run(["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-i", "-",
                          "-pix_fmt", "yuvj420p", "-q:v", str(quality), "-f", "mjpeg", "-"],
                         input=np.ascontiguousarray(picture).tobytes(), capture_output=True, check=True).stdout
    back = subprocess.run(["ffmpeg", "-v", "error", "-f", "mjpeg", "-i", "-", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                          input=jpg, capture_output=True, check=True).stdout
    return mad(np.frombuffer(back, np.uint8).reshape(h, w, 3), picture)


def check_sprite(media: Path, out: Path, summary: dict, jpeg: bool, frames: np.ndarray = None) -> int:
    """Every tile of an `fpx-seek sprite` run (its --json summary) is ffmpeg's picture of the
    frame it claims (by stream pts, through ffprobe's frame list): the closest of its
    neighbours, within 2 levels (PNG) or 1.5 times ffmpeg's own JPEG round trip of that
    picture plus 1 (JPEG). Returns the number of tiles checked; raises AssertionError."""
    import groundtruth as gtm
    gt = gtm.load(str(media))
    sheet = json.loads((out / "spritesheet.json").read_text())
    w, h = sheet["tile_width"], sheet["tile_height"]
    if frames is None:
        frames = frames_scaled(media, w, h)
    images = {name: image(out / name) for name in summary["images"]}
    for tile, detail in zip(sheet["tiles"], summary["tile_list"]):
        n = gt.frame_index(detail["stream_pts"])
        assert n is not None, detail
        name = tile.get("url", sheet["url"]).rsplit("/", 1)[-1]
        picture = cell(images[name], tile["x"], tile["y"], w, h)
        best, d = nearest(frames, picture, n)
        limit = 1.5 * jpeg_error(frames[n]) + 1.0 if jpeg else 2.0
        assert best == n and d < limit, (media.name, tile, n, best, d, limit)
    return len(sheet["tiles"])
