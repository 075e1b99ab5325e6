"""Seek previews (issue 30.3; seek.h, "Seek previews"): a player given a spritesheet.json, a
WebVTT thumbnail track or its item's keyframe index returns the preview of any time; without
a source a typed NoPreviewError. Ground truth: sheets written by `fpx-seek sprite` read with
Python's json and the SDK's rule (the last tile whose start is at or before t), the frame
times from ffprobe, the tile pictures against ffmpeg's decode (sheetcheck), the keyframe
packets decoded with PyAV against ffmpeg's framemd5 of that frame (framecheck); URL sources
from a real HTTP server on 127.0.0.1 (rangeserver), stopped by each test."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Bindings" / "python"))

import framecheck  # noqa: E402
import groundtruth as gtm  # noqa: E402
import rangeserver  # noqa: E402
import sheetcheck as sc  # noqa: E402

import fastpix_seek as fpx  # noqa: E402
from fastpix_seek import errors as E  # noqa: E402
from fastpix_seek import PreviewField as F, PreviewKind as K  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"


def sprite(media: Path, out: Path, *opts) -> dict:
    r = subprocess.run([str(CLI), "sprite", str(media), "-o", str(out), "--json", *map(str, opts)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def sdk_tile(sheet: dict, t: float):
    """The SDK's rule, on the JSON as JavaScript reads it: the last tile whose start <= t."""
    best = None
    for tile in sheet["tiles"]:
        if tile["start"] <= t:
            best = tile
    return best


@pytest.fixture(scope="module")
def media(fixtures_dir) -> Path:
    return fixtures_dir / "mp4_bframes.mp4"


@pytest.fixture(scope="module")
def sheet_dir(media, tmp_path_factory):
    out = tmp_path_factory.mktemp("sheet")
    summary = sprite(media, out, "--interval", "0.7", "--format", "png", "--columns", "4")
    return out, summary


def player(url=None, **kw) -> fpx.Player:
    p = fpx.Player(url, **kw)
    if url is not None:
        p.wait_item(timeout=60)
    return p


def rect(tile: dict, sheet: dict):
    return (tile["x"], tile["y"], sheet["tile_width"], sheet["tile_height"])


# ---- no source ----------------------------------------------------------------------------

def test_no_source_is_a_typed_no_preview(media):
    with player(media) as p:
        with pytest.raises(E.NoPreviewError):
            p.preview(1)
        p.set_preview_source(K.NONE)
        with pytest.raises(E.NoPreviewError):
            p.preview(Fraction(1, 3))


# ---- spritesheet.json ---------------------------------------------------------------------

def test_spritesheet_boundaries_and_pictures(media, sheet_dir):
    out, summary = sheet_dir
    sheet = json.loads((out / "spritesheet.json").read_text())
    gt = gtm.load(str(media))
    frames = sc.frames_scaled(media, sheet["tile_width"], sheet["tile_height"])
    image = sc.image(out / "sprite.png")
    tick = gt.time_base
    # The exact time of each tile's frame, from ffprobe (not from the library).
    starts = [gt.to_item(d["stream_pts"]) for d in summary["tile_list"]]
    assert len(starts) == len(sheet["tiles"]) >= 5
    with player(media) as p:
        p.set_preview_source(K.SPRITESHEET, out / "spritesheet.json")
        for i, (tile, s) in enumerate(zip(sheet["tiles"], starts)):
            at = p.preview(s)  # exactly at the tile's start
            assert at.kind == K.SPRITESHEET and at.clamp == fpx.ClampKind.NONE
            assert at.rect == rect(tile, sheet), (i, s)
            assert at.image_url == str(out / "sprite.png")
            assert at.start <= s < at.start + Fraction(1, 1_000_000)
            before = p.preview(s - tick)  # a tick before
            if i == 0:
                assert before.clamp == fpx.ClampKind.TO_SEEKABLE_START and before.rect == at.rect
            else:
                assert before.rect == rect(sheet["tiles"][i - 1], sheet), (i, s)
            nxt = starts[i + 1] if i + 1 < len(starts) else Fraction(sheet["duration"]).limit_denominator(10**6)
            mid = (s + nxt) / 2  # between tiles
            between = p.preview(mid)
            assert between.rect == rect(tile, sheet)
            assert between.rect == rect(sdk_tile(sheet, float(mid)), sheet)
            assert between.end == p.preview(s).end
            # The picture under the rectangle is ffmpeg's decode of the tile's frame.
            n = gt.frame_index(summary["tile_list"][i]["stream_pts"])
            picture = sc.cell(image, *between.rect)
            best, d = sc.nearest(frames, picture, n)
            assert best == n and d < 2.0, (i, best, n, d)
        past = p.preview(10**6)
        assert past.clamp == fpx.ClampKind.TO_SEEKABLE_END and past.rect == rect(sheet["tiles"][-1], sheet)


def test_webvtt_boundaries(media, sheet_dir):
    out, _ = sheet_dir
    text = (out / "thumbnails.vtt").read_text()
    cues = []
    for m in re.finditer(r"(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> [^\n]*\n([^#\n]+)#xywh=(\d+),(\d+),(\d+),(\d+)", text):
        h, mi, s, ms = map(int, m.group(1, 2, 3, 4))
        cues.append((Fraction(((h * 60 + mi) * 60 + s) * 1000 + ms, 1000), m.group(5), tuple(map(int, m.group(6, 7, 8, 9)))))
    assert len(cues) >= 5
    with player(media) as p:
        p.set_preview_source(K.WEBVTT, out / "thumbnails.vtt")
        for i, (start, img, r) in enumerate(cues):
            at = p.preview(start)
            assert (at.kind, at.start, at.rect, at.image_url) == (K.WEBVTT, start, r, str(out / img))
            if i:
                assert p.preview(start - Fraction(1, 90000)).rect == cues[i - 1][2]
            end = cues[i + 1][0] if i + 1 < len(cues) else at.end
            assert p.preview((start + end) / 2).rect == r


def test_sources_over_http(media, sheet_dir):
    out, _ = sheet_dir
    sheet = json.loads((out / "spritesheet.json").read_text())
    with rangeserver.serve(out) as base, player(media) as p:
        p.set_preview_source(K.SPRITESHEET, base + "/spritesheet.json")
        pv = p.preview(Fraction(3, 2))
        assert pv.image_url == base + "/sprite.png"
        assert pv.rect == rect(sdk_tile(sheet, 1.5), sheet)
        p.set_preview_source(K.WEBVTT, base + "/thumbnails.vtt")
        assert p.preview(Fraction(3, 2)).image_url == base + "/sprite.png"


# ---- hostile sources ----------------------------------------------------------------------

GOOD = {"url": "sprite.jpg", "tile_width": 160, "tile_height": 90, "duration": 10.0,
        "tiles": [{"start": 0.0, "x": 0, "y": 0}, {"start": 2.5, "x": 160, "y": 0}]}


def edited(**changes):
    d = json.loads(json.dumps(GOOD))
    for k, v in changes.items():
        if k.startswith("tile_") and k[5:] in ("start", "x", "y", "url"):
            if v is None:
                del d["tiles"][1][k[5:]]
            else:
                d["tiles"][1][k[5:]] = v
        elif v is None:
            del d[k]
        else:
            d[k] = v
    return json.dumps(d)


JSON_CASES = [
    ("not json", F.SYNTAX), ("[1, 2]", F.SYNTAX), ("{" * 40 + "}" * 40, F.SYNTAX),
    (edited(url=None), F.URL), (edited(url=""), F.URL), (edited(url=5), F.URL),
    (edited(tile_width=0), F.TILE_WIDTH), (edited(tile_width=1.5), F.TILE_WIDTH), (edited(tile_width=None), F.TILE_WIDTH),
    (edited(tile_height="90"), F.TILE_HEIGHT), (edited(tile_height=16385), F.TILE_HEIGHT),
    (edited(duration=-1), F.DURATION), (edited(duration="10"), F.DURATION), (edited(duration=1e10), F.DURATION),
    (edited(tiles=[]), F.TILES), (edited(tiles={}), F.TILES), (edited(tiles=[1]), F.TILES),
    (edited(tile_start=None), F.TILE_START), (edited(tile_start=-0.5), F.TILE_START), (edited(tile_start="1"), F.TILE_START),
    (edited(tile_x=-1), F.TILE_X), (edited(tile_x=16384 - 159), F.TILE_X), (edited(tile_x=None), F.TILE_X),
    (edited(tile_y=0.5), F.TILE_Y), (edited(tile_y=16384), F.TILE_Y),
    (edited(tile_url=""), F.TILE_URL), (edited(tile_url=7), F.TILE_URL),
]


def refused_as_malformed(media, source, kind, field) -> None:
    """set_preview_source refuses `source` with PreviewMalformedError naming `field`, and the
    player is left without a source (NoPreviewError)."""
    with player(media) as p:
        with pytest.raises(E.PreviewMalformedError) as e:
            p.set_preview_source(kind, source)
        assert e.value.field == field
        with pytest.raises(E.NoPreviewError):  # on any error: no source
            p.preview(1)


@pytest.mark.parametrize("text,field", JSON_CASES)
def test_malformed_spritesheet_field(media, tmp_path, text, field):
    (tmp_path / "s.json").write_text(text)
    refused_as_malformed(media, tmp_path / "s.json", K.SPRITESHEET, field)


VTT_CASES = [
    ("WEBVTX\n\n00:00.000 --> 00:01.000\na.jpg#xywh=0,0,10,10\n", F.SYNTAX),
    ("WEBVTT\n", F.TILES),
    ("WEBVTT\n\n00:00.000 -> 00:01.000\na.jpg#xywh=0,0,10,10\n", F.CUE_TIMING),
    ("WEBVTT\n\n00:00.000 --> 00:61.000\na.jpg#xywh=0,0,10,10\n", F.CUE_TIMING),
    ("WEBVTT\n\n00:02.000 --> 00:01.000\na.jpg#xywh=0,0,10,10\n", F.CUE_TIMING),
    ("WEBVTT\n\n00:00.000 --> 00:01.000\na.jpg#xywh=0,0,10\n", F.CUE_XYWH),
    ("WEBVTT\n\n00:00.000 --> 00:01.000\na.jpg#xywh=percent:0,0,10,10\n", F.CUE_XYWH),
    ("WEBVTT\n\n00:00.000 --> 00:01.000\na.jpg#xywh=16380,0,10,10\n", F.CUE_XYWH),
    ("WEBVTT\n\n00:00.000 --> 00:01.000\na.jpg\n", F.CUE_XYWH),
    ("WEBVTT\n\n00:00.000 --> 00:01.000\n", F.CUE_XYWH),
]


@pytest.mark.parametrize("text,field", VTT_CASES)
def test_malformed_webvtt_field(media, tmp_path, text, field):
    (tmp_path / "t.vtt").write_text(text)
    refused_as_malformed(media, tmp_path / "t.vtt", K.WEBVTT, field)


def test_webvtt_notes_ids_and_pixel_unit(media, tmp_path):
    (tmp_path / "t.vtt").write_text("\ufeffWEBVTT - thumbs\n\nNOTE a note\n\nc1\n00:00.000 --> 00:01.500\n"
                                    "a.jpg#xywh=pixel:0,0,10,10\n\n01:00:01.500 --> 01:00:03.000 align:start\n"
                                    "b.jpg#xywh=10,0,10,10\n")
    with player(media) as p:
        p.set_preview_source(K.WEBVTT, tmp_path / "t.vtt")
        assert p.preview(Fraction(3, 2)).rect == (0, 0, 10, 10)
        assert p.preview(3601.5).image_url == str(tmp_path / "b.jpg")
        assert p.preview(3700).clamp == fpx.ClampKind.TO_SEEKABLE_END


def test_size_caps(media, tmp_path):
    (tmp_path / "big.json").write_text(json.dumps(GOOD) + " " * (1 << 20))
    (tmp_path / "ok.json").write_text(json.dumps(GOOD) + " " * 1000)
    with player(media) as p:
        with pytest.raises(E.TooLargeError):
            p.set_preview_source(K.SPRITESHEET, tmp_path / "big.json")
    with player(media, max_buffer_bytes=512) as p:
        with pytest.raises(E.TooLargeError):
            p.set_preview_source(K.SPRITESHEET, tmp_path / "ok.json")


def test_protocol_policy(media, tmp_path, sheet_dir):
    out, _ = sheet_dir
    (tmp_path / "s.json").write_text(json.dumps(GOOD))
    p = fpx.Player(protocols=["http"])
    try:
        with pytest.raises(E.ProtocolNotAllowedError):
            p.set_preview_source(K.SPRITESHEET, tmp_path / "s.json")  # a local file the host did not allow
    finally:
        p.close()
    # A remote sheet may name only http(s) images; a local one what the policy allows.
    remote = dict(GOOD, url="file:///etc/passwd")
    (tmp_path / "remote.json").write_text(json.dumps(remote))
    two = json.loads(json.dumps(GOOD))
    two["tiles"][1]["url"] = "file:///etc/hostname"
    (tmp_path / "two.json").write_text(json.dumps(two))
    (tmp_path / "r.vtt").write_text("WEBVTT\n\n00:00.000 --> 00:01.000\nfile:///etc/passwd#xywh=0,0,10,10\n")
    with rangeserver.serve(tmp_path) as base, player(media) as p:
        for name, kind, field in [("remote.json", K.SPRITESHEET, F.URL), ("two.json", K.SPRITESHEET, F.TILE_URL),
                                  ("r.vtt", K.WEBVTT, F.CUE_XYWH)]:
            with pytest.raises(E.ProtocolNotAllowedError) as e:
                p.set_preview_source(kind, f"{base}/{name}")
            assert e.value.field == field, name
        with pytest.raises(E.NotFoundError):
            p.set_preview_source(K.SPRITESHEET, base + "/missing.json")
    with player(media) as p:  # the same sheet from a local file: local images are allowed
        p.set_preview_source(K.SPRITESHEET, tmp_path / "two.json")
        assert p.preview(3).image_url == "file:///etc/hostname"
        with pytest.raises(E.UnsupportedError):
            p.set_preview_source(K.SPRITESHEET, tmp_path)  # a directory


def test_bad_arguments(media, tmp_path):
    with player(media) as p:
        with pytest.raises(E.InvalidArgumentError):
            p.set_preview_source(K.SPRITESHEET)
        with pytest.raises(E.InvalidArgumentError):
            p.set_preview_source(K.KEYFRAME_INDEX, tmp_path / "x.json")
        with pytest.raises(E.UnknownEnumError):
            p.set_preview_source(99)


# ---- the keyframe index -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "hevc_opengop.mkv"])
def test_keyframe_packets_decode_to_ffmpegs_frame(fixtures_dir, name):
    import av  # noqa: F401
    from fastpix_seek import pyav
    path = fixtures_dir / name
    gt = gtm.load(str(path))
    md5 = framecheck.md5_by_pts(str(path))
    keys = gt.keyframes
    assert len(keys) >= 2
    with player(path) as p:
        p.set_preview_source(K.KEYFRAME_INDEX)
        info = p.stream_info(gt.stream.index)
        times = []
        for k in keys[:6]:
            t = gt.to_item(k.pts)
            times += [t, t - gt.time_base, t + gt.time_base / 2]
        times += [Fraction(-5), Fraction(10**6)]
        first, last = gt.to_item(gt.frames[0].pts), gt.to_item(gt.frames[-1].pts)
        for t in times:
            pv = p.preview(t)
            clamped = min(max(t, first), last)
            want = [k for k in keys if gt.to_item(k.pts) <= clamped][-1]
            assert pv.kind == K.KEYFRAME_INDEX and pv.pts == want.pts, (t, pv.pts, want.pts)
            assert pv.start == gt.to_item(want.pts) and pv.stream_index == gt.stream.index
            assert pv.clamp == (fpx.ClampKind.TO_SEEKABLE_START if t < first else
                                fpx.ClampKind.TO_SEEKABLE_END if t > last else fpx.ClampKind.NONE)
            dec = pyav.decoder_for(info, thread_count=1)
            pkt = av.Packet(len(pv.data))
            pkt.update(pv.data)
            pkt.pts, pkt.dts = pv.pts, pv.dts
            got = list(dec.decode(pkt)) + list(dec.decode(None))
            assert [f.pts for f in got][:1] == [want.pts]
            assert framecheck.frame_md5(got[0]) == md5[want.pts], (name, t)


def test_keyframe_preview_never_disturbs_the_packet_stream(fixtures_dir):
    path = fixtures_dir / "mp4_bframes.mp4"

    def packets(with_previews: bool):
        with player(path) as p:
            p.set_preview_source(K.KEYFRAME_INDEX)
            p.seek_wait(Fraction(1), fpx.SeekPrecision.exact())
            seen = []
            for i in range(40):
                if with_previews and i % 5 == 0:
                    p.preview(Fraction(i, 7))
                pk = p.read_packet()
                seen.append((pk.stream_index, pk.pts, pk.dts, bytes(pk.data)))
            return seen

    assert packets(True) == packets(False)


def test_keyframe_preview_needs_a_ready_item(fixtures_dir):
    p = fpx.Player()
    try:
        p.set_preview_source(K.KEYFRAME_INDEX)
        with pytest.raises(E.NoItemError):
            p.preview(1)
    finally:
        p.close()
    p = fpx.Player(fixtures_dir / "garbage.bin")
    try:
        p.wait_item(timeout=60)
    except E.FastPixSeekError:
        pass
    try:
        p.set_preview_source(K.KEYFRAME_INDEX)
        with pytest.raises(E.ItemFailedError):
            p.preview(1)
    finally:
        p.close()


# ---- threads: a preview never waits for a seek, a seek never for a preview -----------------

class Gate(rangeserver.RangeHandler):
    """Requests for MEDIA block while `stall` is set (at most 60 s)."""
    stall = threading.Event()
    release = threading.Event()

    def send_head(self):
        if self.path.endswith(".mp4") and Gate.stall.is_set():
            Gate.release.wait(60)
        return super().send_head()


def test_preview_while_a_seek_is_stalled_on_a_server(media, sheet_dir, tmp_path):
    out, summary = sheet_dir
    sheet = json.loads((out / "spritesheet.json").read_text())
    (tmp_path / "m.mp4").symlink_to(media)
    Gate.stall.clear()
    Gate.release.clear()
    with rangeserver.serve(tmp_path, Gate) as base:
        p = player(base + "/m.mp4", io_timeout=60)
        try:
            p.set_preview_source(K.SPRITESHEET, out / "spritesheet.json")
            Gate.stall.set()
            # The player's worker is now stuck on the server: a seek (and a read) in flight.
            p.seek(Fraction(5), fpx.SeekPrecision.exact())
            def read():
                try:
                    p.read_packet()
                except E.FastPixSeekError:
                    pass  # interrupted by the close below
            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            results = []
            for t in (Fraction(0), Fraction(3, 2), Fraction(4)):
                results.append((p.preview(t).rect, Gate.release.is_set()))
            # Every preview returned while the server still held the seek and the read.
            assert [r for r, released in results] == [rect(sdk_tile(sheet, float(t)), sheet)
                                                      for t in (0, 1.5, 4)]
            assert not any(released for _, released in results)
            assert reader.is_alive()
        finally:
            Gate.release.set()
            p.close()


def test_a_seek_never_waits_for_a_stalled_preview(media, tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(GOOD))

    class Stall(rangeserver.RangeHandler):
        arrived = threading.Event()
        release = threading.Event()

        def send_head(self):
            Stall.arrived.set()
            Stall.release.wait(60)
            return super().send_head()

    with rangeserver.serve(tmp_path, Stall) as base, player(media, io_timeout=60) as p:
        loading = threading.Thread(target=lambda: p.set_preview_source(K.SPRITESHEET, base + "/s.json"),
                                   daemon=True)
        loading.start()
        assert Stall.arrived.wait(60)  # the source's request is held by the server
        try:
            outcome = p.seek_wait(Fraction(2), fpx.SeekPrecision.exact())
            assert outcome.finished
            assert p.read_packet() is not None
            assert loading.is_alive() and not Stall.release.is_set()
        finally:
            Stall.release.set()
            loading.join(60)
        assert p.preview(3).rect == (160, 0, 160, 90)


# ---- HLS I-frame playlists ----------------------------------------------------------------

from test_hls_iframes import SECONDS, SEGMENT, keyframes, site  # noqa: E402,F401  (the fixture: Shaka's I-frame playlists on 127.0.0.1)


@pytest.mark.parametrize("item,iframes", [("m1.m3u8", None), ("one.m3u8", "one_i.m3u8"), ("m2.m3u8", "many_i.m3u8")])
def test_hls_iframe_playlist_previews(site, item, iframes):  # noqa: F811
    import hashlib
    d, base = site
    tb, keys = keyframes(d / "one.m3u8")
    by_pts = {k[0]: k for k in keys}
    text = (d / (iframes or "one_i.m3u8")).read_text()
    assert "#EXT-X-I-FRAMES-ONLY" in text
    with player(f"{base}/{item}") as p:
        p.set_preview_source(K.HLS_IFRAMES, None if iframes is None else f"{base}/{iframes}")
        first = p.preview(0)
        assert first.kind == K.HLS_IFRAMES and first.start == 0
        iframe_pts = sorted(q for q in by_pts if q >= first.pts)
        seen = set()
        for ms in range(0, SECONDS * 1000 + 1, 1500):
            t = Fraction(ms, 1000)
            pv = p.preview(t)
            # The I-frames listed are one per segment: the last one at or before t.
            # One I-frame per segment (Shaka lists each segment's first keyframe): the last at or before t.
            want = first.pts + min(t // SEGMENT, SECONDS // SEGMENT - 1) * SEGMENT / tb
            assert pv.pts in by_pts and pv.pts == want, (t, pv.pts, want)
            assert hashlib.md5(pv.data).hexdigest() == by_pts[pv.pts][2]
            assert pv.start == (pv.pts - first.pts) * tb
            seen.add(pv.pts)
        assert len(seen) == SECONDS // 6 and min(seen) == iframe_pts[0]
        assert p.preview(-1).clamp == fpx.ClampKind.TO_SEEKABLE_START


def test_hls_iframes_need_an_iframe_variant(media):
    with player(media) as p:
        p.set_preview_source(K.HLS_IFRAMES)
        with pytest.raises(E.NoPreviewError):
            p.preview(1)
    q = fpx.Player(protocols=["http"])
    try:
        with pytest.raises(E.ProtocolNotAllowedError):
            q.set_preview_source(K.HLS_IFRAMES, "/tmp/x_i.m3u8")
    finally:
        q.close()


def test_keyframe_index_of_an_hls_item(tmp_path):
    """An MPEG-TS HLS item (its pts start at 1.4 s): the preview's own HLS engine gives the
    keyframe at or before t, byte for byte ffprobe's packet, at its item time."""
    import hashlib
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25",
                    "-t", "6", "-c:v", "libx264", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
                    "-pix_fmt", "yuv420p", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(tmp_path / "seg%03d.ts"),
                    str(tmp_path / "vod.m3u8")], check=True)
    j = json.loads(subprocess.check_output(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5", "-show_entries",
         "packet=pts,flags,data_hash:stream=time_base", "-of", "json", str(tmp_path / "vod.m3u8")]))
    tb = Fraction(j["streams"][0]["time_base"])
    keys = [(int(k["pts"]), k["data_hash"].split(":")[1]) for k in j["packets"] if "K" in k["flags"]]
    first = min(int(k["pts"]) for k in j["packets"])
    assert len(keys) == 6 and first == keys[0][0] and first > 0
    with rangeserver.serve(tmp_path) as base, player(f"{base}/vod.m3u8") as p:
        p.set_preview_source(K.KEYFRAME_INDEX)
        for t in (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(74, 25), Fraction(3), Fraction(11, 2), Fraction(100)):
            pv = p.preview(t)
            want = [k for k in keys if (k[0] - first) * tb <= t][-1]
            assert (pv.pts, hashlib.md5(pv.data).hexdigest()) == want, (t, pv.pts)
            assert pv.start == (want[0] - first) * tb, (t, pv.start)


def test_previews_under_asyncio_never_block_the_loop(media, sheet_dir, tmp_path):
    """preview_async / set_preview_source_async: a keyframe preview stalled on a server (its
    own demuxer's open) leaves the event loop running; the sheet's previews equal preview()."""
    import asyncio
    out, _ = sheet_dir
    (tmp_path / "m.mp4").symlink_to(media)
    Gate.stall.clear()
    Gate.release.clear()

    async def scenario(p: fpx.Player):
        await p.set_preview_source_async(K.SPRITESHEET, out / "spritesheet.json")
        assert (await p.preview_async(Fraction(3, 2))) == p.preview(Fraction(3, 2))
        await p.set_preview_source_async(K.KEYFRAME_INDEX)
        Gate.stall.set()
        task = asyncio.ensure_future(p.preview_async(Fraction(2)))
        ticks = 0
        while ticks < 20:  # the loop runs while the preview waits on the server
            await asyncio.sleep(0.01)
            ticks += 1
        assert not task.done()
        Gate.release.set()
        pv = await task
        assert pv.kind == K.KEYFRAME_INDEX and pv.flags & 1

    with rangeserver.serve(tmp_path, Gate) as base:
        p = player(base + "/m.mp4", io_timeout=60)
        try:
            asyncio.run(scenario(p))
        finally:
            Gate.release.set()
            p.close()
