"""Ground truth for the pictures `fpx-seek frame` and `fpx-seek sprite` (and
fastpix_seek.sprites) write: ffmpeg's own decode of a file's frames, scaled by ffmpeg
(libswscale, bicubic) to a cell's size and converted to rgb24, compared with a cell cut out of
the written image (decoded by ffmpeg too); and the checks of a sheet's texts (the SDK's
last-start rule on spritesheet.json, the WebVTT track against the JSON). Used by
test_cli_frame.py, test_cli_sprite.py, test_sprites_python.py and Benchmarks/sprite_bench.py."""
from __future__ import annotations

import json
import math
import re
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import List

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


def check_sprite(media: Path, out: Path, summary: dict, jpeg: bool, frames: np.ndarray = None,
                 png_limit: float = 2.0) -> int:
    """Every tile of an `fpx-seek sprite` run (its --json summary) is ffmpeg's picture of the
    frame it claims (by stream pts, through ffprobe's frame list): the closest of its
    neighbours, within `png_limit` levels (PNG; 2 by default) or 1.5 times ffmpeg's own JPEG
    round trip of that picture plus 1 (JPEG). Returns the number of tiles checked; raises AssertionError."""
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
        limit = 1.5 * jpeg_error(frames[n]) + 1.0 if jpeg else png_limit
        assert best == n and d < limit, (media.name, tile, n, best, d, limit)
    return len(sheet["tiles"])


def sdk_tile(sheet: dict, t: float):
    """The SDK's rule: the last tile whose start is at or before t (None: no preview)."""
    best = None
    for tile in sheet["tiles"]:
        if tile["start"] <= t:
            best = tile
    return best


def read_sheet(out: Path) -> dict:
    """out/spritesheet.json, validated against docs/fpx-seek.schema.json's spritesheet_json
    (the SDK's keys and no others; a tile's own url only with several images)."""
    import jsonschema
    sheet = json.loads((out / "spritesheet.json").read_text())
    schema = json.loads((Path(__file__).resolve().parents[2] / "docs" / "fpx-seek.schema.json").read_text())
    jsonschema.Draft202012Validator({"$ref": "#/$defs/spritesheet_json", "$defs": schema["$defs"]}).validate(sheet)
    assert set(sheet) == {"url", "tile_width", "tile_height", "duration", "tiles"}
    urls = {"url" in tile for tile in sheet["tiles"]}
    assert len(urls) == 1, "every tile names its url, or none does"
    return sheet


def parse_vtt(text: str) -> List[tuple]:
    assert text.startswith("WEBVTT\n")
    def sec(s: str) -> Fraction:
        h, m, rest = s.split(":")
        return int(h) * 3600 + int(m) * 60 + Fraction(rest)
    cues = []
    for block in text.split("\n\n")[1:]:
        lines = block.strip().splitlines()
        m = re.fullmatch(r"(\d\d:\d\d:\d\d\.\d\d\d) --> (\d\d:\d\d:\d\d\.\d\d\d)", lines[0])
        assert m and len(lines) == 2, block
        u = re.fullmatch(r"(.+)#xywh=(\d+),(\d+),(\d+),(\d+)", lines[1])
        assert u, lines[1]
        cues.append((sec(m.group(1)), sec(m.group(2)), u.group(1), *map(int, u.groups()[1:])))
    return cues


def check_vtt(out: Path, sheet: dict, summary: dict):
    cues = parse_vtt((out / "thumbnails.vtt").read_text())
    tiles = sheet["tiles"]
    assert len(cues) == len(tiles)
    for k, (cue, tile, detail) in enumerate(zip(cues, tiles, summary["tile_list"])):
        start, end, url, x, y, w, h = cue
        # Cue times are the exact tile starts rounded up to the millisecond: a cue never
        # begins before its frame.
        exact = Fraction(detail["start"]["rational"])
        assert start == Fraction(math.ceil(exact * 1000), 1000), (cue, tile)
        assert 0 <= start - exact < Fraction(1, 1000) and abs(float(exact) - tile["start"]) < 1e-9
        if k + 1 < len(tiles):
            assert end == cues[k + 1][0]
        else:
            assert end >= Fraction(sheet["duration"]) - Fraction(1, 1000)
        assert (url, x, y, w, h) == (tile.get("url", sheet["url"]), tile["x"], tile["y"], sheet["tile_width"],
                                     sheet["tile_height"])


def check_sdk_rule(sheet: dict):
    """At each start, just before it and between tiles, the rule picks the right tile."""
    tiles = sheet["tiles"]
    starts = [t["start"] for t in tiles]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
    assert sdk_tile(sheet, starts[0] - 1e-6) is None
    for k, tile in enumerate(tiles):
        assert sdk_tile(sheet, tile["start"]) is tile
        if k:
            assert sdk_tile(sheet, tile["start"] - 1e-6) is tiles[k - 1]
            assert sdk_tile(sheet, (tiles[k - 1]["start"] + tile["start"]) / 2) is tiles[k - 1]
    assert sdk_tile(sheet, sheet["duration"]) is tiles[-1]


#: ffprobe's chroma_location -> libswscale's chroma position (in_h_chr_pos, in_v_chr_pos; 1/256
#: of a luma sample, as the scale filter takes them).
CHROMA_POS = {"left": (0, 128), "center": (128, 128), "topleft": (0, 0), "top": (128, 0),
              "bottomleft": (0, 256), "bottom": (128, 256)}


def frames_scaled_by_pyav(path: Path, w: int, h: int) -> np.ndarray:
    """The pictures fastpix_seek.sprites' tiles must be: ffmpeg's decode of every frame scaled
    by ffmpeg as PyAV's libswscale scales a decoded frame. From libswscale 9 (FFmpeg 8, in
    PyAV's own wheels) the scaler takes the chroma siting from the frame (H.264 and HEVC
    4:2:0: "left"); the system ffmpeg's scale filter is told it (in_h_chr_pos, in_v_chr_pos:
    the same pixels then, measured). Older libswscale ignores it (Debian's PyAV 10 shares the
    system's): frames_scaled as is."""
    import av
    if av.library_versions["libswscale"][0] < 9:
        return frames_scaled(path, w, h)
    where = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                     "stream=chroma_location", "-of", "csv=p=0", str(path)], text=True)
    pos = CHROMA_POS.get(where.strip().splitlines()[0] if where.strip() else "", CHROMA_POS["left"])
    raw = rgb(path, f"scale={w}:{h}:flags=bicubic:in_h_chr_pos={pos[0]}:in_v_chr_pos={pos[1]}")
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3)


def summary_of(sheet) -> dict:
    """The parts of `fpx-seek sprite --json`'s summary check_sprite and check_vtt read, from
    a fastpix_seek.sprites.SpriteSheet (what make_sprite_sheet returns)."""
    return {"tiles": len(sheet.tiles), "images": [p.name for p in sheet.images],
            "tile_list": [{"start": {"rational": str(t.start)}, "stream_pts": t.stream_pts}
                          for t in sheet.tiles]}
