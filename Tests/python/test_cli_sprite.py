"""fpx-seek sprite (issue 30, items 1 and 2): sprite image(s), spritesheet.json in the
SDK's format and a WebVTT thumbnail track. The JSON is read back with the SDK's rule (the
last tile whose start is at or before t) at every boundary and between tiles; every tile's
picture is compared with ffmpeg's decode of the frame it claims (ffmpeg scales it the same
way: libswscale, bicubic), exactly up to rounding with PNG and within JPEG's error with
JPEG; the VTT parses and agrees with the JSON. Ground truth: ffprobe's frame list, ffmpeg's
pixels, an HTTP server on 127.0.0.1 for an HLS item."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import groundtruth as gtm
import sheetcheck as sc
import testmedia

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
SCHEMA = json.loads((REPO / "docs" / "fpx-seek.schema.json").read_text())
sys.path.insert(0, str(Path(__file__).resolve().parent))


def conforms(doc, definition: str):
    jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]}).validate(doc)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


def sprite(media, out: Path, *opts, code=0) -> dict:
    r = subprocess.run([str(CLI), "sprite", str(media), "-o", str(out), "--json", *map(str, opts)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == code, r.stderr
    return conforms(json.loads(r.stdout), "sprite")


# The SDK's rule and the sheet's texts: sheetcheck (shared with test_sprites_python.py).
sdk_tile, read_sheet, parse_vtt = sc.sdk_tile, sc.read_sheet, sc.parse_vtt
check_vtt, check_sdk_rule = sc.check_vtt, sc.check_sdk_rule


def check_pictures(media: Path, out: Path, sheet: dict, summary: dict, gt, tolerance):
    """Every tile is ffmpeg's picture of the frame whose time is the tile's start: the closest
    of its neighbours, within `tolerance` levels (PNG), or for JPEG (tolerance None) within
    1.5 times ffmpeg's own JPEG round trip of that picture, plus 1."""
    w, h = sheet["tile_width"], sheet["tile_height"]
    frames = sc.frames_scaled(media, w, h)
    images = {name: sc.image(out / name) for name in summary["images"]}
    times = [gt.to_item(p) for p in gt.pts_list()]
    exact = {t["stream_pts"]: t for t in summary["tile_list"]}
    for tile, detail in zip(sheet["tiles"], summary["tile_list"]):
        n = gt.frame_index(detail["stream_pts"])
        assert n is not None
        assert Fraction(detail["start"]["rational"]) == times[n]  # the landed time is the frame's own
        assert abs(tile["start"] - float(times[n])) < 1e-9
        assert detail["stream_pts"] in exact
        picture = sc.cell(images[tile.get("url", sheet["url"])], tile["x"], tile["y"], w, h)
        assert picture.shape == (h, w, 3)
        best, d = sc.nearest(frames, picture, n)
        limit = tolerance if tolerance is not None else 1.5 * sc.jpeg_error(frames[n]) + 1.0
        assert best == n and d < limit, (tile, n, best, d, limit)
    return times


@pytest.fixture(scope="module")
def gop2(tmp_path_factory) -> Path:
    """20 s, 320x180, 25 fps H.264, 3 B-frames, a keyframe every 2 s (no scene cuts)."""
    out = tmp_path_factory.mktemp("sprite") / "gop2.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "20",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "50", "-keyint_min", "50",
                    "-sc_threshold", "0", "-pix_fmt", "yuv420p", str(out)], check=True)
    return out


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "hevc_opengop.mkv"])
def test_exact_png_tiles_are_the_frames_on_screen(fixtures_dir, tmp_path, name):
    media = fixtures_dir / name
    gt = gtm.load(str(media))
    out = tmp_path / "out"
    s = sprite(media, out, "--precision", "exact", "--format", "png", "--interval", "0.4", "--width", "96",
               "--columns", "7")
    sheet = read_sheet(out)
    assert s["images"] == ["sprite.png"] and sheet["url"] == "sprite.png" and s["failed"] == 0
    assert (sheet["tile_width"], sheet["tile_height"]) == (96, s["tile_height"])
    assert sheet["duration"] == pytest.approx(s["duration"]["seconds"])
    times = check_pictures(media, out, sheet, s, gt, 2.0)
    check_sdk_rule(sheet)
    check_vtt(out, sheet, s)
    # Exact: the requested times are the first frame, then every 0.4 s; each tile is the frame
    # on screen at one of them, and the preview the rule gives at a requested time is it.
    first = times[0]
    requested = []
    k = 0
    while first + Fraction(2, 5) * k <= times[-1] + Fraction(1, 10**6):
        requested.append(Fraction(math.ceil(first * 10**6), 10**6) + Fraction(2, 5) * k)
        k += 1
    requested = [r for r in requested if r <= times[-1]]
    assert s["requested"] == len(requested)
    covering = [gt.frame_index(gt.covering(r).pts) for r in requested]
    assert [gt.frame_index(t["stream_pts"]) for t in s["tile_list"]] == sorted(set(covering))
    assert s["tiles"] + s["duplicates"] == len(requested)
    for r, n in zip(requested, covering):
        assert sdk_tile(sheet, float(r))["start"] == pytest.approx(float(times[n]), abs=1e-9), r
    # Between requested times the preview is the last tile at or before: a picture at or before t.
    for t in np.linspace(float(first), float(times[-1]), 97):
        tile = sdk_tile(sheet, float(t))
        assert tile is not None and tile["start"] <= t


def test_keyframe_mode_decodes_only_the_keyframes(gop2, tmp_path):
    """Default: JPEG, keyframe mode with tolerance half the interval; each tile a keyframe,
    one frame decoded per tile, pictures within JPEG's error of ffmpeg's."""
    gt = gtm.load(str(gop2))
    out = tmp_path / "out"
    s = sprite(gop2, out, "--interval", "1")
    sheet = read_sheet(out)
    assert s["format"] == "jpeg" and s["images"] == ["sprite.jpg"] and sheet["url"] == "sprite.jpg"
    assert s["precision"]["kind"] == "nearest_keyframe" and s["precision"]["tolerance"] == "1/2"
    assert subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                    str(out / "sprite.jpg")], text=True).strip() == "mjpeg"
    keys = [gt.frame_index(k.pts) for k in gt.keyframes]
    assert len(keys) == 10
    assert [gt.frame_index(t["stream_pts"]) for t in s["tile_list"]] == keys
    assert all(t["keyframe"] for t in s["tile_list"]) and s["keyframe_tiles"] == 10
    assert s["requested"] == 20 and s["no_keyframe"] == 10 and s["failed"] == 0
    assert s["frames_decoded"] == 10 and s["packets_decoded"] == 10  # only what each keyframe needs
    check_pictures(gop2, out, sheet, s, gt, None)
    check_sdk_rule(sheet)
    check_vtt(out, sheet, s)


def test_keyframe_tolerance_and_tile_count(gop2, tmp_path):
    """--tiles N spreads N requests over the item; keyframe:TOL takes keyframes within TOL,
    and a keyframe nearest to two requests makes one tile."""
    gt = gtm.load(str(gop2))
    out = tmp_path / "out"
    s = sprite(gop2, out, "--tiles", "40", "--precision", "keyframe:1.5", "--width", "64", "--columns", "4")
    sheet = read_sheet(out)
    assert s["requested"] == 40 and s["interval"]["rational"] == "1/2"
    assert s["tiles"] == 10 and s["duplicates"] == 30 and s["no_keyframe"] == 0
    assert [gt.frame_index(t["stream_pts"]) for t in s["tile_list"]] == [gt.frame_index(k.pts) for k in gt.keyframes]
    assert {(t["x"], t["y"]) for t in sheet["tiles"]} == {(64 * (k % 4), 36 * (k // 4)) for k in range(10)}
    check_pictures(gop2, out, sheet, s, gt, None)
    check_sdk_rule(sheet)


def test_several_images(gop2, tmp_path):
    """More tiles than --max-rows rows hold: sprite.jpg, sprite-1.jpg, ...; every tile names
    its image in the JSON and the VTT."""
    gt = gtm.load(str(gop2))
    out = tmp_path / "out"
    s = sprite(gop2, out, "--precision", "exact", "--interval", "1.3", "--columns", "3", "--max-rows", "2",
               "--width", "80", "--base-url", "https://cdn.example/v/")
    sheet = read_sheet(out)
    assert s["tiles"] == 16 and s["images"] == ["sprite.jpg", "sprite-1.jpg", "sprite-2.jpg"]
    assert sheet["url"] == "https://cdn.example/v/sprite.jpg"
    assert [t["url"] for t in sheet["tiles"]] == ["https://cdn.example/v/" + s["images"][k // 6] for k in range(16)]
    sizes = [subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of",
                                      "csv=p=0", str(out / n)], text=True).strip() for n in s["images"]]
    assert sizes == ["240,90"] * 3  # 3 columns, 2 rows each (the last: 4 tiles)
    check_vtt(out, sheet, s)
    check_sdk_rule(sheet)
    for tile in sheet["tiles"]:
        tile["url"] = tile["url"].rsplit("/", 1)[1]
    sheet["url"] = "sprite.jpg"
    check_pictures(gop2, out, sheet, s, gt, None)


def test_text_output_and_errors(fixtures_dir, tmp_path):
    media = fixtures_dir / "mp4_bframes.mp4"
    r = subprocess.run([str(CLI), "sprite", str(media), "-o", str(tmp_path / "o")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"wrote {tmp_path / 'o'}/: ") and "spritesheet.json, thumbnails.vtt" in r.stdout
    assert r.stderr == ""  # no progress bar when stderr is not a terminal
    def run(*a):
        return subprocess.run([str(CLI), "sprite", *map(str, a)], capture_output=True, text=True, timeout=60)
    assert run(media).returncode == 2                                                # no -o
    assert run(media, "-o", tmp_path / "x", "--format", "gif").returncode == 2
    assert run(media, "-o", tmp_path / "x", "--interval", "1", "--tiles", "3").returncode == 2
    assert run(media, "-o", tmp_path / "x", "--precision", "sideways").returncode == 2
    assert run(media, "-o", tmp_path / "x", "--width", "3").returncode == 2
    assert run(media, "-o", tmp_path / "x", "--width", "400", "--columns", "50").returncode == 2   # > 16384 px
    assert run(media, "-o", tmp_path / "x", "--max-rows", "0").returncode == 2
    r = run(fixtures_dir / "audio.m4a", "-o", tmp_path / "x")
    assert r.returncode == 1 and "no video" in r.stderr
    (tmp_path / "file").write_text("")
    r = run(media, "-o", tmp_path / "file")
    assert r.returncode == 1 and "cannot" in r.stderr
    assert "sprite FILE|URL -o DIR" in subprocess.run([str(CLI), "--help"], capture_output=True, text=True).stdout


def test_hls_item_over_http(tmp_path):
    """An HLS item served on 127.0.0.1, with an EXT-X-GAP segment: exact tiles are ffmpeg's
    pictures of the playlist's frames; a time in the hole lands on the first frame after it."""
    from rangeserver import serve
    d = tmp_path / "hls"
    d.mkdir()
    testmedia.make_gap_hls(d)
    out = tmp_path / "out"
    with serve(d) as base:
        s = sprite(f"{base}/gap.m3u8", out, "--precision", "exact", "--interval", "0.5", "--format", "png",
                   "--width", "64")
    sheet = read_sheet(out)
    starts = [Fraction(t["start"]["rational"]) for t in s["tile_list"]]
    # Requested 0, 0.5, ..., 5.5: 2.0 and 2.5 are in the hole and land on 3.0 (one tile).
    assert starts == [Fraction(k, 2) for k in range(12) if k not in (4, 5)]
    assert s["duplicates"] == 2  # 2.0, 2.5 and 3.0 all land on 3.0
    assert s["holes"]["segments_skipped"] == 1 and s["holes"]["last_skip_reason"] == "gap"
    frames = sc.frames_scaled(d / "orig.m3u8", 64, 48)
    img = sc.image(out / "sprite.png")
    for tile, start in zip(sheet["tiles"], starts):
        n = int(start * 30)
        best, dist = sc.nearest(frames, sc.cell(img, tile["x"], tile["y"], 64, 48), n)
        assert best == n and dist < 2.0, (start, best, dist)
    check_sdk_rule(sheet)
    check_vtt(out, sheet, s)


def test_progress_only_on_a_terminal(fixtures_dir, tmp_path):
    """With standard error on a terminal (a pty) a progress bar is drawn there, and erased;
    test_text_output_and_errors checks that a pipe gets none."""
    import os
    import pty
    media = fixtures_dir / "mp4_bframes.mp4"
    master, slave = pty.openpty()
    try:
        r = subprocess.run([str(CLI), "sprite", str(media), "-o", str(tmp_path / "o"), "--interval", "0.5"],
                           stdout=subprocess.PIPE, stderr=slave, text=True, timeout=120)
        os.close(slave)
        slave = -1
        err = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert r.returncode == 0
    text = err.decode()
    assert "sprite [" in text and "] 24/24" in text, text
    assert "wrote" in r.stdout and "sprite [" not in r.stdout


@pytest.fixture(scope="module")
def gop10(tmp_path_factory) -> Path:
    """20 s, 320x180, 25 fps H.264, 3 B-frames, a keyframe every 10 s."""
    out = tmp_path_factory.mktemp("sprite10") / "gop10.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "20",
                    "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "250", "-keyint_min", "250",
                    "-sc_threshold", "0", "-pix_fmt", "yuv420p", str(out)], check=True)
    return out


def test_exact_mode_continues_across_a_long_gop(gop10, tmp_path):
    """Tiles 2.5 s apart inside 10 s GOPs: exact mode reads the packets once first (the full
    index), so each seek continues the packets from the tile before instead of restarting at
    the keyframe: about the frames up to the last tile are decoded once, not a keyframe's
    pre-roll per tile."""
    gt = gtm.load(str(gop10))
    out = tmp_path / "out"
    s = sprite(gop10, out, "--precision", "exact", "--interval", "2.5", "--format", "png", "--width", "80")
    assert s["tiles"] == 8 and s["failed"] == 0
    idx = [gt.frame_index(t["stream_pts"]) for t in s["tile_list"]]
    assert idx == [int(Fraction(5, 2) * 25 * k) for k in range(8)]  # the frames on screen
    keys = [gt.frame_index(k.pts) for k in gt.keyframes]
    restart = sum(n - max(k for k in keys if k <= n) + 1 for n in idx)
    assert s["frames_decoded"] <= idx[-1] + 1 + 8, (s["frames_decoded"], idx[-1])
    assert s["frames_decoded"] * 3 < restart, (s["frames_decoded"], restart)  # restarting: 384 of 756 here
    sheet = read_sheet(out)
    check_pictures(gop10, out, sheet, s, gt, 2.0)
    check_sdk_rule(sheet)
    check_vtt(out, sheet, s)
