"""fastpix_seek.sprites.make_sprite_sheet (issue 30.1, "the same from Python"): the sprite
image(s), spritesheet.json and the WebVTT track `fpx-seek sprite` writes, made from Python with
PyAV. Ground truth: ffprobe's frame list (exact mode: every tile is the frame on screen at a
requested time; keyframe mode: every tile is the keyframe nearest a requested time within the
tolerance, and a keyframe per ffprobe), ffmpeg's decode of each tile's frame, scaled by ffmpeg
as PyAV's libswscale scales (sheetcheck.frames_scaled_by_pyav: PNG cells equal to it up to
rounding, JPEG within JPEG's error), the SDK's last-start rule on the JSON at every boundary and
between tiles. Consistency: the library's own reader (Player.set_preview_source on the JSON and
the VTT) agrees with the rule, and the tool writes the same texts for the same options."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
import sheetcheck as sc
import testmedia
from sharedfixtures import REPO

sys.path.insert(0, str(REPO / "Bindings" / "python"))
pytest.importorskip("av")

CLI = REPO / "build" / "bin" / "fpx-seek"


def make(media: Path, out: Path, **options):
    from fastpix_seek.sprites import make_sprite_sheet
    return make_sprite_sheet(media, out, **options)


def cli(media: Path, out: Path, *opts) -> dict:
    r = subprocess.run([str(CLI), "sprite", str(media), "-o", str(out), "--json", *map(str, opts)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def same_as_cli(media: Path, out: Path, s, tmp_path: Path, *opts) -> None:
    """The tool, given the same options, lands on the same frames and writes the same texts."""
    c = cli(media, tmp_path / "cli", *opts)
    assert [t["stream_pts"] for t in c["tile_list"]] == [t.stream_pts for t in s.tiles]
    assert c["images"] == [p.name for p in s.images]
    assert (c["tile_width"], c["tile_height"]) == (s.tile_width, s.tile_height)
    for name in ("spritesheet.json", "thumbnails.vtt"):
        assert (tmp_path / "cli" / name).read_text() == (out / name).read_text(), name


def library_reads_it_back(media: Path, out: Path, sheet: dict) -> None:
    """Player.set_preview_source on the written JSON and VTT gives, at each tile's start and
    just before it, the tile the SDK's rule gives (a consistency check)."""
    from fastpix_seek import Player, PreviewKind
    w, h = sheet["tile_width"], sheet["tile_height"]
    with Player(media) as p:
        p.wait_item(timeout=30)
        for kind, name in ((PreviewKind.SPRITESHEET, "spritesheet.json"),
                           (PreviewKind.WEBVTT, "thumbnails.vtt")):
            p.set_preview_source(kind, out / name)
            for k, tile in enumerate(sheet["tiles"]):
                # The VTT's cues start at the millisecond after the frame's time.
                at = Fraction(tile["start"]) + (Fraction(1, 1000) if name.endswith("vtt") else 0)
                for t in (at, at + Fraction(1, 10**4)):
                    want = sc.sdk_tile(sheet, float(t))
                    pv = p.preview(t)
                    assert pv.rect == (want["x"], want["y"], w, h), (name, t)
                    assert pv.image_url is not None and \
                        pv.image_url.endswith(want.get("url", sheet["url"]))
                if k:
                    prev = sheet["tiles"][k - 1]
                    pv = p.preview(Fraction(tile["start"]) - Fraction(1, 10**4))
                    assert pv.rect[:2] == (prev["x"], prev["y"]), (name, tile)


def requested_times(gt, interval: Fraction):
    """The times the tool and make_sprite_sheet ask for: the first frame's time rounded up to
    the microsecond, then every interval up to the last frame's time."""
    first = Fraction(math.ceil(gt.to_item(gt.frames[0].pts) * 10**6), 10**6)
    last = gt.to_item(gt.frames[-1].pts)
    out, k = [], 0
    while first + interval * k <= last:
        out.append(first + interval * k)
        k += 1
    return out


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "hevc_opengop.mkv", "mkv.mkv"])
def test_exact_png_tiles_are_the_frames_on_screen(fixtures_dir, tmp_path, name):
    media = fixtures_dir / name
    gt = gtm.load(str(media))
    out = tmp_path / "py"
    s = make(media, out, interval=Fraction(2, 5), precision="exact", image_format="png",
             tile_width=96, columns=7)
    assert [p.name for p in s.images] == ["sprite.png"] and s.image_format == "png"
    sheet = sc.read_sheet(out)
    assert sheet["url"] == "sprite.png" and (sheet["tile_width"], sheet["tile_height"]) == (96, s.tile_height)
    assert sc.check_sprite(media, out, sc.summary_of(s), jpeg=False,
                           frames=sc.frames_scaled_by_pyav(media, s.tile_width, s.tile_height),
                           png_limit=0.5) == len(s.tiles)
    sc.check_sdk_rule(sheet)
    sc.check_vtt(out, sheet, sc.summary_of(s))
    # Each tile's start is its frame's time per ffprobe; the tiles are the frames on screen at
    # the requested times (duplicates merged), and the rule gives that frame at each of them.
    for t in s.tiles:
        n = gt.frame_index(t.stream_pts)
        assert n is not None and t.start == gt.to_item(t.stream_pts)
    req = requested_times(gt, Fraction(2, 5))
    assert s.requested == len(req)
    covering = [gt.covering(r).pts for r in req]
    assert [t.stream_pts for t in s.tiles] == sorted(set(covering), key=gt.frame_index)
    assert len(s.tiles) + s.duplicates == len(req)
    for r, pts in zip(req, covering):
        assert sc.sdk_tile(sheet, float(r))["start"] == pytest.approx(float(gt.to_item(pts)), abs=1e-9)
        assert gt.to_item(pts) <= r
    library_reads_it_back(media, out, sheet)
    same_as_cli(media, out, s, tmp_path, "--interval", "0.4", "--precision", "exact", "--format", "png",
                "--width", "96", "--columns", "7")


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "hevc_opengop.mkv"])
def test_keyframe_mode_tiles_are_keyframes(fixtures_dir, tmp_path, name):
    """The default: JPEG, the keyframe nearest each time within half the interval; a time with
    none that near has no tile (nothing decoded for it)."""
    media = fixtures_dir / name
    gt = gtm.load(str(media))
    out = tmp_path / "py"
    s = make(media, out, interval=1)
    assert s.image_format == "jpeg" and [p.name for p in s.images] == ["sprite.jpg"]
    assert subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of",
                                    "csv=p=0", str(out / "sprite.jpg")], text=True).strip() == "mjpeg"
    sheet = sc.read_sheet(out)
    keys = {k.pts for k in gt.keyframes}
    assert s.tiles and all(t.stream_pts in keys and t.keyframe for t in s.tiles)
    want, none = [], 0
    req = requested_times(gt, Fraction(1))
    for r in req:
        k = gt.nearest_keyframe(r, Fraction(1, 2))
        none += k is None
        if k is not None and k.pts not in want:
            want.append(k.pts)
    assert [t.stream_pts for t in s.tiles] == sorted(want, key=gt.frame_index)
    assert (s.requested, s.no_keyframe, s.duplicates) == (len(req), none, len(req) - none - len(want))
    # Nothing is decoded for a time without a keyframe, and a keyframe needs itself only.
    assert s.frames_decoded == len(s.tiles)
    assert all(t.start == gt.to_item(t.stream_pts) for t in s.tiles)
    assert sc.check_sprite(media, out, sc.summary_of(s), jpeg=True,
                           frames=sc.frames_scaled_by_pyav(media, s.tile_width, s.tile_height)) == len(s.tiles)
    sc.check_sdk_rule(sheet)
    sc.check_vtt(out, sheet, sc.summary_of(s))
    library_reads_it_back(media, out, sheet)
    same_as_cli(media, out, s, tmp_path, "--interval", "1")


def test_several_images_name_each_tiles_url(fixtures_dir, tmp_path):
    media = fixtures_dir / "mp4_bframes.mp4"
    out = tmp_path / "py"
    s = make(media, out, tiles=10, precision="exact", columns=3, max_rows=1, tile_width=64,
             tile_height=48, image_format="png", base_url="https://cdn.example/x/")
    assert len(s.tiles) == 10 and [p.name for p in s.images] == ["sprite.png", "sprite-1.png", "sprite-2.png",
                                                                 "sprite-3.png"]
    sheet = sc.read_sheet(out)
    assert sheet["url"] == "https://cdn.example/x/sprite.png" and sheet["tile_height"] == 48
    names = [t["url"].rsplit("/", 1)[-1] for t in sheet["tiles"]]
    assert names == ["sprite.png"] * 3 + ["sprite-1.png"] * 3 + ["sprite-2.png"] * 3 + ["sprite-3.png"]
    assert [(t["x"], t["y"]) for t in sheet["tiles"]] == [(0, 0), (64, 0), (128, 0)] * 3 + [(0, 0)]
    assert sc.image(out / "sprite-3.png").shape == (48, 64, 3)
    assert sc.check_sprite(media, out, sc.summary_of(s), jpeg=False,
                           frames=sc.frames_scaled_by_pyav(media, s.tile_width, s.tile_height),
                           png_limit=0.5) == 10
    sc.check_sdk_rule(sheet)
    same_as_cli(media, out, s, tmp_path, "--tiles", "10", "--precision", "exact", "--columns", "3",
                "--max-rows", "1", "--width", "64", "--height", "48", "--format", "png",
                "--base-url", "https://cdn.example/x/")


def test_failures_raise_typed_errors(fixtures_dir, tmp_path):
    import fastpix_seek as fpx
    from fastpix_seek.item_errors import MediaNotFoundError
    with pytest.raises(MediaNotFoundError):
        make(tmp_path / "missing.mp4", tmp_path / "a")
    with pytest.raises(fpx.FastPixSeekError):
        make(fixtures_dir / "garbage.bin", tmp_path / "b")
    with pytest.raises(ValueError, match="no video"):
        make(fixtures_dir / "audio.m4a", tmp_path / "c")
    media = fixtures_dir / "mp4_bframes.mp4"
    for bad in ({"interval": 1, "tiles": 3}, {"tile_width": 8}, {"columns": 200, "tile_width": 160},
                {"image_format": "gif"}, {"precision": "nearest"}, {"quality": 1},
                {"precision": "exact", "keyframe_tolerance": 1}):
        with pytest.raises(ValueError):
            make(media, tmp_path / "d", **bad)
    assert not (tmp_path / "a").exists() and not (tmp_path / "d").exists()


def test_hls_item_over_http(tmp_path):
    """An HLS item served on 127.0.0.1 with an EXT-X-GAP segment (the tool's test, from
    Python): exact tiles are ffmpeg's pictures of the playlist's frames, a time in the hole
    lands on the first frame after it, and the tool writes the same texts."""
    from rangeserver import serve
    d = tmp_path / "hls"
    d.mkdir()
    testmedia.make_gap_hls(d)
    out = tmp_path / "py"
    with serve(d) as base:
        s = make(f"{base}/gap.m3u8", out, precision="exact", interval=Fraction(1, 2), image_format="png",
                 tile_width=64)
        same_as_cli(f"{base}/gap.m3u8", out, s, tmp_path, "--precision", "exact", "--interval", "0.5",
                    "--format", "png", "--width", "64")
    # Requested 0, 0.5, ..., 5.5: 2.0 and 2.5 are in the hole and land on 3.0 (one tile).
    assert [t.start for t in s.tiles] == [Fraction(k, 2) for k in range(12) if k not in (4, 5)]
    assert s.duplicates == 2
    sheet = sc.read_sheet(out)
    frames = sc.frames_scaled_by_pyav(d / "orig.m3u8", 64, 48)
    img = sc.image(out / "sprite.png")
    for tile, t in zip(sheet["tiles"], s.tiles):
        n = int(t.start * 30)
        best, dist = sc.nearest(frames, sc.cell(img, tile["x"], tile["y"], 64, 48), n)
        assert best == n and dist < 0.5, (t.start, best, dist)
    sc.check_sdk_rule(sheet)
    sc.check_vtt(out, sheet, sc.summary_of(s))
