"""Separate audio renditions (issue 22.1, seek.h "HLS variants and renditions"): a master whose
variants are video-only and whose audio is an EXT-X-MEDIA TYPE=AUDIO rendition with its own
URI, as ffmpeg's -var_stream_map writes it (MPEG-TS and fMP4 segments, the fMP4 one with
different video and audio time bases), served over HTTP on 127.0.0.1 by the Range server.

Ground truth is ffprobe of each segment (fMP4: behind its init section), placed on the item
timeline the header defines: the variant's first frame at item time 0, every stream of the
domain at its pts distance from it. Checked: the audio stream is a stream of the item, every
packet of both feeds comes out in decode order, exact audio landings (the covering frame,
its pre-roll frame, trim_samples, DECODE_ONLY, landed fields) after random seek sequences
and frame steps, the same item time giving the same packets on a fresh player and after
other seeks, and FFmpeg's own hls demuxer's audio packets (TS, where the timelines agree)."""
from __future__ import annotations

import copy
import json
import math
import random
import subprocess
import time
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import serve  # noqa: E402

KEY, DECODE_ONLY, DISC = 0x1, 0x100, 0x200


def _make(d: Path, kind: str) -> None:
    ext = "ts" if kind == "ts" else "m4s"
    rate = 48000 if kind == "ts" else 44100
    cmd = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x72:rate=30", "-f", "lavfi",
           "-i", f"sine=frequency=440:sample_rate={rate}", "-t", "3", "-map", "0:v", "-map", "0:v", "-map", "1:a",
           "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-s:v:0", "96x72", "-s:v:1", "64x48",
           "-c:a", "aac", "-b:a", "48k", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod"]
    if kind == "fmp4":
        cmd += ["-hls_segment_type", "fmp4"]
    cmd += ["-master_pl_name", "master.m3u8",
            "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:eng,default:yes",
            "-hls_segment_filename", str(d / f"s%v_%d.{ext}"), str(d / "out_%v.m3u8")]
    subprocess.run(cmd, check=True)


def _playlist(d: Path, name: str):
    """[(segment file, init file or None)] of a media playlist."""
    out, init = [], None
    for ln in (d / name).read_text().splitlines():
        if ln.startswith("#EXT-X-MAP:"):
            init = ln.split('URI="', 1)[1].split('"', 1)[0]
        elif ln and not ln.startswith("#"):
            out.append((ln, init))
    return out


def _probe(path: Path):
    j = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                                   "stream=time_base:packet=pts,dts,duration,size,flags", "-of", "json", str(path)],
                                  check=True, capture_output=True, text=True).stdout)
    num, den = j["streams"][0]["time_base"].split("/")
    return Fraction(int(num), int(den)), j["packets"]


def _truth(d: Path, name: str, tmp: Path):
    """The playlist's packets in order: dicts with pts, dts, duration, size, key, seg."""
    tb, pk = None, []
    for k, (seg, init) in enumerate(_playlist(d, name)):
        f = d / seg
        if init:
            f = tmp / f"{name}.{k}.mp4"
            f.write_bytes((d / init).read_bytes() + (d / seg).read_bytes())
        tb, packets = _probe(f)
        for p in packets:
            dur = p.get("duration")
            pk.append(dict(pts=int(p["pts"]), dts=int(p["dts"]), size=int(p["size"]), key=p["flags"].startswith("K"),
                           duration=int(dur) if dur not in (None, "N/A") else None, seg=k))
    # ffprobe leaves the duration of a segment's first fMP4 packet out: audio frames are
    # contiguous (the next one's pts), and the video's durations are not used.
    for a, b in zip(pk, pk[1:]):
        if a["duration"] is None:
            a["duration"] = b["pts"] - a["pts"]
    if pk[-1]["duration"] is None:
        pk[-1]["duration"] = pk[-2]["duration"]
    return tb, pk


class Shape:
    def __init__(self, d: Path, base: str, kind: str):
        self.d, self.url, self.kind = d, f"{base}/master.m3u8", kind
        master = (d / "master.m3u8").read_text()
        audio_uri = next(ln.split('URI="', 1)[1].split('"', 1)[0] for ln in master.splitlines()
                         if ln.startswith("#EXT-X-MEDIA:TYPE=AUDIO"))
        self._place("out_0.m3u8", audio_uri)
        self.rate = int(1 / self.atb) if kind == "fmp4" else 48000

    def _place(self, video_pl: str, audio_pl: str) -> None:
        """ffprobe's packets of both playlists on the item timeline (seek.h "Timeline"): the
        variant's first frame (lowest pts of its first segment, listed at 0) is item time 0;
        the audio at its pts distance from it."""
        tmp = self.d / "probe"
        tmp.mkdir(exist_ok=True)
        self.vtb, self.video = _truth(self.d, video_pl, tmp)
        self.atb, self.audio = _truth(self.d, audio_pl, tmp)
        self.origin_pts = min(p["pts"] for p in self.video if p["seg"] == 0)
        self.origin = self.origin_pts * self.vtb
        for p in self.audio:
            p["t"] = p["pts"] * self.atb - self.origin
            p["end"] = (p["pts"] + p["duration"]) * self.atb - self.origin
        for p in self.video:
            p["t"] = p["pts"] * self.vtb - self.origin


@pytest.fixture(scope="module", params=["ts", "fmp4"])
def shape(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(f"rend_{request.param}")
    _make(d, request.param)
    with serve(d) as base:
        yield Shape(d, base, request.param)


def _player(url: str, **kw):
    from fastpix_seek import Player
    p = Player(url, **kw)
    assert p.wait_item(timeout=30).status.name == "READY"
    return p


def _read(p, n_audio: int, limit: int = 400):
    """Packets until `n_audio` audio packets (stream 1) were read, or the end."""
    out, na = [], 0
    for pk in p.packets():
        out.append(pk)
        na += pk.stream_index == 1
        if na >= n_audio or len(out) >= limit:
            break
    return out


def _decode_time(pk) -> Fraction:
    origin = pk.pts_time - pk.item_time
    return (pk.dts if pk.dts is not None else pk.pts) * pk.time_base - origin


def test_the_rendition_is_a_stream_of_the_item(shape):
    from fastpix_seek import MediaType
    with _player(shape.url) as p:
        info = p.item_info()
        assert info.stream_count == 2 and info.reference_stream == 0
        assert info.start_pts == shape.origin_pts
        a = p.stream_info(1)
        assert (a.index, a.type, a.codec_name, a.time_base) == (1, MediaType.AUDIO, "aac", shape.atb)
        assert p.stream_info(0).time_base == shape.vtb
        r = p.hls_renditions()
        assert [(x.selected, x.stream_index, x.has_uri) for x in r] == [(True, 1, True)]


def test_every_packet_from_the_start_in_decode_order(shape):
    with _player(shape.url) as p:
        got = list(p.packets())
    v = [pk for pk in got if pk.stream_index == 0]
    a = [pk for pk in got if pk.stream_index == 1]
    assert [(pk.pts, pk.size, bool(pk.flags & KEY)) for pk in v] == \
        [(x["pts"], x["size"], x["key"]) for x in shape.video]
    assert [(pk.pts, pk.dts, pk.size) for pk in a] == [(x["pts"], x["dts"], x["size"]) for x in shape.audio]
    # One item timeline: the audio is placed by the variant's origin.
    assert all(pk.item_time == x["t"] for pk, x in zip(a, shape.audio))
    assert {pk.pts_time - pk.item_time for pk in got} == {shape.origin}
    times = [_decode_time(pk) for pk in got]
    assert times == sorted(times)
    assert all(pk.flags & (DECODE_ONLY | DISC) == 0 and pk.landed_pts is None for pk in got)


def _expected_audio(shape, landed: Fraction):
    """Index of the first audio packet after a landing at item time `landed`: the frame that
    covers it, one frame earlier (the pre-roll)."""
    a = shape.audio
    c = next((i for i, x in enumerate(a) if x["t"] <= landed < x["end"]), None)
    if c is None:
        c = 0 if landed < a[0]["t"] else next(i for i, x in enumerate(a) if x["t"] > landed)
    return max(c - 1, 0), c


def _check_landing(shape, outcome, pkts, step_landed=None):
    landed = outcome.landed_time if step_landed is None else step_landed
    landed_pts = outcome.landed_stream_pts if step_landed is None else None
    v = [pk for pk in pkts if pk.stream_index == 0]
    a = [pk for pk in pkts if pk.stream_index == 1]
    # The video: from the keyframe the landed frame needs.
    key = max((x for x in shape.video if x["key"] and x["t"] <= landed), key=lambda x: x["t"])
    assert v[0].pts == key["pts"] and v[0].flags & KEY
    # Only the first packet of the merged read is a DISCONTINUITY.
    assert pkts[0].flags & DISC and not any(pk.flags & DISC for pk in pkts[1:])
    first, cover = _expected_audio(shape, landed)
    want = shape.audio[first:first + len(a)]
    assert [(pk.pts, pk.size) for pk in a] == [(x["pts"], x["size"]) for x in want], landed
    lp = v[0].landed_pts
    if landed_pts is not None:
        assert lp == landed_pts
    for pk, x in zip(a, want):
        assert pk.landed_pts == lp and pk.landed_stream_index == 0
        assert bool(pk.flags & DECODE_ONLY) == (x["t"] < landed), (landed, x)
        straddles = x["t"] < landed < x["end"]
        trim = math.ceil((landed - x["t"]) * shape.rate) if straddles else 0
        assert pk.trim_samples == trim, (landed, x)
    # The landing in the audio's own time base, rounded up, on the packets of its segments.
    lis = math.ceil(lp * shape.vtb / shape.atb)
    assert a[0].landed_pts_in_stream == lis
    times = [_decode_time(pk) for pk in pkts]
    assert times == sorted(times)


def test_exact_audio_landings_after_random_seeks(shape):
    from fastpix_seek import SeekPrecision
    rnd = random.Random(22)
    end = shape.video[-1]["t"]
    targets = [Fraction(rnd.randrange(0, int(end * 1000)), 1000) for _ in range(14)] + [Fraction(0), end]
    with _player(shape.url) as p:
        for t in targets:
            o = p.seek_wait(t, SeekPrecision.exact())
            assert o.frame_covers_target, (t, o)
            _check_landing(shape, o, _read(p, 5))


def test_steps_land_the_audio_too(shape):
    from fastpix_seek import FrameStepDirection, SeekPrecision
    with _player(shape.url) as p:
        p.seek_wait(Fraction(7, 5), SeekPrecision.exact())
        _read(p, 2)
        for forward in (True, True, False, True, False):
            r = p.step_frame(FrameStepDirection.FORWARD if forward else FrameStepDirection.BACKWARD)
            assert r.did_step, r
            pk = _read(p, 4)
            _check_landing(shape, None, pk, step_landed=r.landed_media_time)


def _signature(pkts):
    return [(pk.stream_index, pk.pts, pk.dts, pk.size, pk.flags, pk.landed_pts, pk.landed_pts_in_stream,
             pk.trim_samples, pk.item_time) for pk in pkts]


def test_same_item_time_same_packets_fresh_or_after_other_seeks(shape):
    from fastpix_seek import SeekPrecision
    rnd = random.Random(7)
    targets = [Fraction(1, 3), Fraction(21, 10), Fraction(49, 50)]
    fresh = {}
    for t in targets:
        with _player(shape.url) as p:
            p.seek_wait(t, SeekPrecision.exact())
            fresh[t] = _signature(_read(p, 6))
    with _player(shape.url) as p:
        for t in targets * 2:
            for _ in range(2):
                p.seek_wait(Fraction(rnd.randrange(0, 2900), 1000), SeekPrecision.exact())
                _read(p, rnd.randrange(1, 30))
            p.seek_wait(t, SeekPrecision.exact())
            assert _signature(_read(p, 6)) == fresh[t], t


def test_ffmpeg_hls_demuxer_agrees(shape):
    """FFmpeg's hls demuxer opens the same master with the audio: the same audio packets (and,
    on MPEG-TS, where both keep the segments' timestamps, the same pts)."""
    j = json.loads(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries",
                                   "packet=pts,size", "-of", "json", shape.url],
                                  check=True, capture_output=True, text=True).stdout)
    theirs = [(int(x["pts"]), int(x["size"])) for x in j["packets"]]
    with _player(shape.url) as p:
        ours = [(pk.pts, pk.size) for pk in p.packets() if pk.stream_index == 1]
    assert [s for _, s in ours] == [s for _, s in theirs]
    if shape.kind == "ts":
        assert ours == theirs


def test_the_host_chooses_the_audio_rendition(shape):
    from fastpix_seek.errors import InvalidArgumentError
    d = shape.d
    master = (d / "master.m3u8").read_text()
    media = next(ln for ln in master.splitlines() if ln.startswith("#EXT-X-MEDIA:TYPE=AUDIO"))
    uri = media.split('URI="', 1)[1].split('"', 1)[0]
    inf = [ln for ln in master.splitlines() if ln.startswith("#EXT-X-STREAM-INF")][0]
    # Two renditions of the group (AUTOSELECT first, DEFAULT second), one muxed (no URI), a subtitle.
    (d / "choice.m3u8").write_text(
        "#EXTM3U\n#EXT-X-VERSION:7\n"
        f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="one",AUTOSELECT=YES,URI="{uri}"\n'
        f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="two",DEFAULT=YES,AUTOSELECT=YES,URI="{uri}"\n'
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="muxed",AUTOSELECT=YES\n'
        '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="en",URI="subs.m3u8"\n'
        f"{inf}\nout_0.m3u8\n")
    url = shape.url.replace("master.m3u8", "choice.m3u8")
    for kw, selected, streams in ((dict(), 1, 2), (dict(hls_audio=0), 0, 2), (dict(hls_audio=1), 1, 2),
                                  (dict(hls_audio=2), None, 1), (dict(hls_audio=-1), None, 1)):
        with _player(url, **kw) as p:
            rs = p.hls_renditions()
            assert [r.selected for r in rs] == [i == selected for i in range(4)], kw
            assert [r.stream_index for r in rs] == [1 if i == selected else -1 for i in range(4)], kw
            assert p.item_info().stream_count == streams, kw
            if streams == 2:
                assert sum(pk.stream_index == 1 for pk in p.packets()) == len(shape.audio)
    from fastpix_seek import Player
    for bad in (3, 9):  # the subtitle rendition, past the list
        with Player(url, hls_audio=bad) as p:
            with pytest.raises(InvalidArgumentError):
                p.wait_item(timeout=30)
    with pytest.raises(InvalidArgumentError):
        Player(url, hls_audio=-2)


def test_disabling_the_audio_stream_stops_its_feed(shape):
    from fastpix_seek import SeekPrecision
    with _player(shape.url) as p:
        p.set_stream_enabled(1, False)
        p.seek_wait(Fraction(1, 2), SeekPrecision.exact())
        assert {pk.stream_index for pk in p.packets()} == {0}
        p.set_stream_enabled(1, True)
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact())
        _check_landing(shape, o, _read(p, 5))


# ---------------------------------------------------------------------------------------------
# Live: the window is the intersection of the playlists' windows, the rendition aligned on the
# variant by media sequence number, its landings right before and after reloads.
# ---------------------------------------------------------------------------------------------

def _extinf(d: Path, name: str):
    return [Fraction(ln.split(":", 1)[1].rstrip(",")) for ln in (d / name).read_text().splitlines()
            if ln.startswith("#EXTINF:")]


def _write_live(d: Path, name: str, prefix: str, first: int, last: int, durs, msn_offset: int = 0,
                dates=None) -> None:
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1",
             f"#EXT-X-MEDIA-SEQUENCE:{first + msn_offset}"]
    for k in range(first, last + 1):
        if dates is not None:
            us = dates(k)
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(us // 10 ** 6))
                         + f".{us % 10 ** 6:06d}Z")
        lines += [f"#EXTINF:{float(durs[k]):.6f},", f"{prefix}{k}.ts"]
    tmp = d / (name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(d / name)   # a reload never sees half a playlist


@pytest.fixture(scope="module")
def live_site(tmp_path_factory):
    d = tmp_path_factory.mktemp("rend_live")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x72:rate=30", "-f", "lavfi",
                    "-i", "sine=frequency=440:sample_rate=48000", "-t", "8", "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "15", "-c:a", "aac", "-b:a", "48k",
                    "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod", "-master_pl_name", "vod.m3u8",
                    "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,default:yes",
                    "-hls_segment_filename", str(d / "s%v_%d.ts"), str(d / "out_%v.m3u8")], check=True)
    (d / "live.m3u8").write_text('#EXTM3U\n#EXT-X-VERSION:3\n'
                                 '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="a",DEFAULT=YES,URI="live_a.m3u8"\n'
                                 '#EXT-X-STREAM-INF:BANDWIDTH=300000,AUDIO="aud"\nlive_v.m3u8\n')
    with serve(d) as base:
        yield d, base


def test_live_window_is_the_intersection_and_landings_hold_across_reloads(live_site):
    from fastpix_seek import SeekPrecision
    d, base = live_site
    vdur, adur = _extinf(d, "out_0.m3u8"), _extinf(d, "out_1.m3u8")
    # At open: video segments 0..5, audio 1..5 (its window starts one segment later).
    _write_live(d, "live_v.m3u8", "s0_", 0, 5, vdur)
    _write_live(d, "live_a.m3u8", "s1_", 1, 5, adur)
    shape = _shape_of(d, f"{base}/live.m3u8", "out_0.m3u8", "out_1.m3u8", 48000)   # video segment 0 at item 0

    def vstart(k):
        return sum(vdur[:k], Fraction(0))

    def astart(k):   # the rendition's first segment (1) sits at the variant's segment 1
        return vstart(1) + sum(adur[1:k], Fraction(0))

    rnd = random.Random(5)
    with _player(f"{base}/live.m3u8") as p:
        assert p.item_info().stream_count == 2
        w = p.live_seek_window()
        assert w.is_live
        # Intersection: the audio's later start; the video's edge (3 target durations back).
        assert (w.start, w.end) == (astart(1), min(vstart(6), astart(6)) - 3), w
        for t in [Fraction(rnd.randrange(1200, 3000), 1000) for _ in range(5)]:
            o = p.seek_wait(t, SeekPrecision.exact())
            assert o.frame_covers_target, (t, o)
            _check_landing(shape, o, _read(p, 4))
        # The window slides by two segments; the reloads (one a target duration) pick it up.
        _write_live(d, "live_v.m3u8", "s0_", 2, 7, vdur)
        _write_live(d, "live_a.m3u8", "s1_", 3, 7, adur)
        # Window times are the nearest reference tick when not exact (seek.h, fpx_live_seek_window).
        def tick(x):
            return Fraction(round(x * 90000), 90000)
        want = (tick(max(vstart(2), astart(3))), tick(min(vstart(8), astart(8)) - 3))
        for _ in range(60):
            w = p.live_seek_window()
            if (w.start, w.end) == want:
                break
            time.sleep(0.1)
        assert (w.start, w.end) == want, w
        for t in [Fraction(rnd.randrange(3300, 5000), 1000) for _ in range(5)]:
            o = p.seek_wait(t, SeekPrecision.exact())
            assert o.frame_covers_target, (t, o)
            _check_landing(shape, o, _read(p, 4))


# ---------------------------------------------------------------------------------------------
# A switch on an open player (fpx_player_hls_select_audio): at the next landing.
# ---------------------------------------------------------------------------------------------

def _shape_of(d: Path, url: str, video_pl: str, audio_pl: str, rate: int) -> Shape:
    s = Shape.__new__(Shape)
    s.d, s.url, s.kind, s.rate = d, url, "ts", rate
    s._place(video_pl, audio_pl)
    return s


@pytest.fixture(scope="module")
def two_audio(tmp_path_factory):
    d = tmp_path_factory.mktemp("rend_two")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x72:rate=30",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=22050", "-t", "3",
                    "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast", "-g", "15",
                    "-c:a", "aac", "-b:a", "32k", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                    "-master_pl_name", "master.m3u8",
                    "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,language:eng,default:yes a:1,agroup:aud,language:deu",
                    "-hls_segment_filename", str(d / "s%v_%d.ts"), str(d / "out_%v.m3u8")], check=True)
    with serve(d) as base:
        url = f"{base}/master.m3u8"
        yield [_shape_of(d, url, "out_0.m3u8", f"out_{k}.m3u8", r) for k, r in ((1, 48000), (2, 22050))]


def test_switch_takes_effect_at_the_next_landing(two_audio):
    from fastpix_seek import FrameStepDirection, SeekPrecision
    from fastpix_seek.errors import InvalidArgumentError
    eng, deu = two_audio
    with _player(eng.url) as p:
        rs = p.hls_renditions()
        assert [(r.language, r.selected, r.stream_index) for r in rs] == [("eng", True, 1), ("deu", False, -1)]
        assert p.stream_info(1).sample_rate == 48000
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        _check_landing(eng, o, _read(p, 3))
        p.hls_select_audio(1)
        # Until the next landing: the old rendition plays on.
        assert [r.selected for r in p.hls_renditions()] == [True, False]
        more = [pk for pk in _read(p, 3) if pk.stream_index == 1]
        keys = [(x["pts"], x["size"]) for x in eng.audio]
        k = keys.index((more[0].pts, more[0].size))
        assert [(pk.pts, pk.size) for pk in more] == keys[k:k + len(more)]
        o = p.seek_wait(Fraction(21, 10), SeekPrecision.exact())
        assert [(r.selected, r.stream_index) for r in p.hls_renditions()] == [(False, -1), (True, 1)]
        assert p.stream_info(1).sample_rate == 22050 and p.stream_info(1).time_base == deu.atb
        _check_landing(deu, o, _read(p, 4))
        # Asking for the one playing cancels a switch not made yet.
        p.hls_select_audio(0)
        p.hls_select_audio(1)
        o = p.seek_wait(Fraction(1, 2), SeekPrecision.exact())
        _check_landing(deu, o, _read(p, 4))
        # A frame step is a landing too.
        p.hls_select_audio(0)
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert r.did_step
        _check_landing(eng, None, _read(p, 4), step_landed=r.landed_media_time)
        assert p.stream_info(1).sample_rate == 48000
        # A step that finds no frame is no landing: the switch waits for the next one.
        p.seek_wait(Fraction(0), SeekPrecision.exact())
        p.hls_select_audio(1)
        r = p.step_frame(FrameStepDirection.BACKWARD)
        assert not r.did_step
        assert p.stream_info(1).sample_rate == 48000 and [x.selected for x in p.hls_renditions()] == [True, False]
        o = p.seek_wait(Fraction(6, 5), SeekPrecision.exact())
        assert p.stream_info(1).sample_rate == 22050
        _check_landing(deu, o, _read(p, 4))
        for bad in (2, -1, 99):
            with pytest.raises(InvalidArgumentError):
                p.hls_select_audio(bad)


def test_switch_needs_a_second_feed(two_audio):
    from fastpix_seek.errors import UnsupportedError
    eng, _ = two_audio
    with _player(eng.url, hls_audio=-1) as p:
        assert p.item_info().stream_count == 1
        with pytest.raises(UnsupportedError):
            p.hls_select_audio(1)
    with _player(eng.url.replace("master.m3u8", "out_0.m3u8")) as p:
        with pytest.raises(UnsupportedError):
            p.hls_select_audio(0)


def test_a_hole_in_the_audio_rendition(two_audio):
    """A missing (404) segment of the audio rendition is a hole of the item (seek.h "Gaps"):
    reads skip it with a DISCONTINUITY on the audio's next packet, the video plays on, it is
    counted once, and a seek into it lands the audio on the first frame after it."""
    from fastpix_seek import HoleReason, SeekPrecision
    eng, _ = two_audio
    d = eng.d
    text = (d / "out_1.m3u8").read_text().replace("s1_1.ts", "missing_1.ts")
    (d / "gap_a.m3u8").write_text(text)
    master = (d / "master.m3u8").read_text()
    (d / "gap.m3u8").write_text(master.replace('URI="out_1.m3u8"', 'URI="gap_a.m3u8"'))
    url = eng.url.replace("master.m3u8", "gap.m3u8")
    kept = [x for x in eng.audio if x["seg"] != 1]
    with _player(url) as p:
        got = list(p.packets())
        a = [pk for pk in got if pk.stream_index == 1]
        v = [pk for pk in got if pk.stream_index == 0]
        assert [(pk.pts, pk.size) for pk in a] == [(x["pts"], x["size"]) for x in kept]
        assert [(pk.pts, pk.size) for pk in v] == [(x["pts"], x["size"]) for x in eng.video]
        after = next(i for i, x in enumerate(kept) if x["seg"] == 2)
        assert [i for i, pk in enumerate(a) if pk.flags & DISC] == [after]
        assert not any(pk.flags & DISC for pk in v)
        times = [_decode_time(pk) for pk in got]
        assert times == sorted(times)
        st = p.item_status()
        assert (st.segments_skipped, st.last_skipped_sequence, st.last_skip_reason) == (1, 1, HoleReason.FAILED)
        assert p.stats().segments_skipped == 1
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact())
        assert o.frame_covers_target
        pk = _read(p, 3)
        first = [x for x in pk if x.stream_index == 1][0]
        assert (first.pts, first.size) == (kept[after]["pts"], kept[after]["size"])
        assert first.flags & (DECODE_ONLY | DISC) == 0 and first.trim_samples == 0
        assert pk[0].flags & DISC
        assert p.item_status().segments_skipped == 1


def test_ext_x_start_starts_the_audio_with_the_video(two_audio):
    """EXT-X-START in the variant's playlist: reading with no seek starts both feeds there (the
    audio at the frame covering the variant's first frame of its start segment, one frame
    earlier), with no landing and no DISCONTINUITY."""
    eng, _ = two_audio
    d = eng.d
    (d / "start_v.m3u8").write_text((d / "out_0.m3u8").read_text().replace(
        "#EXT-X-TARGETDURATION", "#EXT-X-START:TIME-OFFSET=1.5\n#EXT-X-TARGETDURATION"))
    (d / "start.m3u8").write_text((d / "master.m3u8").read_text().replace("out_0.m3u8", "start_v.m3u8"))
    with _player(eng.url.replace("master.m3u8", "start.m3u8")) as p:
        pk = _read(p, 4)
    v = [x for x in pk if x.stream_index == 0]
    a = [x for x in pk if x.stream_index == 1]
    start = min((x for x in eng.video if x["seg"] == 1), key=lambda x: x["pts"])
    assert v[0].pts == start["pts"]
    first, _ = _expected_audio(eng, start["t"])
    want = eng.audio[first:first + len(a)]
    assert [(x.pts, x.size) for x in a] == [(w["pts"], w["size"]) for w in want]
    assert all(x.flags & (DISC | DECODE_ONLY) == 0 and x.landed_pts is None and x.trim_samples == 0 for x in pk)
    times = [_decode_time(x) for x in pk]
    assert times == sorted(times)


def test_a_rendition_that_cannot_be_opened(two_audio):
    """Its playlist missing: the open fails with its error (as the variant's would); a switch to
    it fails the next landing, and the old rendition plays on."""
    from fastpix_seek import Player, SeekPrecision
    from fastpix_seek.errors import FastPixSeekError
    eng, _ = two_audio
    d = eng.d
    master = (d / "master.m3u8").read_text()
    (d / "lost.m3u8").write_text(master.replace('URI="out_1.m3u8"', 'URI="nowhere.m3u8"'))
    with Player(eng.url.replace("master.m3u8", "lost.m3u8")) as p:
        with pytest.raises(FastPixSeekError) as e:
            p.wait_item(timeout=30)
        assert type(e.value).__name__ == "NotFoundError", e.value
    (d / "lost2.m3u8").write_text(master.replace('URI="out_2.m3u8"', 'URI="nowhere.m3u8"'))
    with _player(eng.url.replace("master.m3u8", "lost2.m3u8")) as p:
        p.hls_select_audio(1)
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        assert o.reason.name == "FAILED" and o.exception is not None and \
            type(o.exception).__name__ == "NotFoundError", o
        assert [r.selected for r in p.hls_renditions()] == [True, False]
        _check_old_rendition_landed(eng, p, Fraction(1))
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact())
        _check_landing(eng, o, _read(p, 3))


def _check_old_rendition_landed(eng, p, t):
    """After a switch that failed at an exact seek to `t`: the variant landed there and the old
    rendition (`eng`) with it, as at any landing (FeedSwitch: the new feed is landed before the
    old one is retired)."""
    assert p.stream_info(1).sample_rate == eng.rate
    landed = max(x["t"] for x in eng.video if x["t"] <= t)
    _check_landing(eng, SimpleNamespace(landed_time=landed, landed_stream_pts=None), _read(p, 4))


def test_a_rendition_that_cannot_be_landed(two_audio):
    """The new rendition's playlist opens but the segment its landing needs is no media: the
    switch fails that seek with a typed error, the switch is dropped, and the old rendition,
    landed with the variant, plays on."""
    from fastpix_seek import SeekPrecision
    eng, deu = two_audio
    d = eng.d
    pl = (d / "out_2.m3u8").read_text()
    assert "s2_1.ts" in pl
    (d / "junk_1.ts").write_bytes(bytes(range(256)) * 64)
    (d / "junk.m3u8").write_text(pl.replace("s2_1.ts", "junk_1.ts"))
    (d / "junk_master.m3u8").write_text((d / "master.m3u8").read_text().replace('URI="out_2.m3u8"', 'URI="junk.m3u8"'))
    with _player(eng.url.replace("master.m3u8", "junk_master.m3u8")) as p:
        p.hls_select_audio(1)
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact())
        assert o.reason.name == "FAILED" and o.exception is not None, o
        assert type(o.exception).__name__ == "InvalidDataError", o.exception
        assert [r.selected for r in p.hls_renditions()] == [True, False]
        _check_old_rendition_landed(eng, p, Fraction(3, 2))
        # Dropped: the next seek lands on the old rendition without trying again.
        o = p.seek_wait(Fraction(1, 2), SeekPrecision.exact())
        _check_landing(eng, o, _read(p, 3))


def test_a_landing_past_the_renditions_end(two_audio):
    """An audio rendition that ends early (its playlist lists the first segment only): a landing
    past its end gives at most its last frames, decode-only, then no audio until the next
    landing, while the video plays on."""
    from fastpix_seek import SeekPrecision
    eng, _ = two_audio
    d = eng.d
    lines = (d / "out_1.m3u8").read_text().splitlines()
    cut = lines.index(next(ln for ln in lines if ln.endswith("_1.ts"))) - 1
    (d / "short_a.m3u8").write_text("\n".join(lines[:cut] + ["#EXT-X-ENDLIST"]) + "\n")
    (d / "short.m3u8").write_text((d / "master.m3u8").read_text().replace('URI="out_1.m3u8"', 'URI="short_a.m3u8"'))
    seg0 = [x for x in eng.audio if x["seg"] == 0]
    with _player(eng.url.replace("master.m3u8", "short.m3u8")) as p:
        o = p.seek_wait(Fraction(2), SeekPrecision.exact())
        assert o.frame_covers_target
        got = list(p.packets())
        a = [pk for pk in got if pk.stream_index == 1]
        v = [pk for pk in got if pk.stream_index == 0]
        assert len(a) <= 2 and all(pk.flags & DECODE_ONLY for pk in a)
        assert [(pk.pts, pk.size) for pk in a] == [(x["pts"], x["size"]) for x in seg0[len(seg0) - len(a):]]
        assert v[-1].pts == eng.video[-1]["pts"]
        o = p.seek_wait(Fraction(1, 2), SeekPrecision.exact())
        assert [pk.stream_index for pk in _read(p, 2)].count(1) == 2


def test_the_rendition_is_read_like_the_variant_aes_and_protocols(two_audio):
    """The rendition's segments go through the variant's machinery: AES-128 (its own EXT-X-KEY,
    IV from the media sequence number, key over HTTP) decrypts to ffprobe's clear packets; a
    remote master's rendition may name only http/https (a file: URI is refused)."""
    from fastpix_seek import Player, SeekPrecision
    from fastpix_seek.errors import ProtocolNotAllowedError
    eng, _ = two_audio
    d = eng.d
    key = bytes(range(0x40, 0x50))
    (d / "a.key").write_bytes(key)
    lines = []
    for ln in (d / "out_1.m3u8").read_text().splitlines():
        if ln.startswith("#EXT-X-MEDIA-SEQUENCE"):
            lines += [ln, '#EXT-X-KEY:METHOD=AES-128,URI="a.key"']
        elif ln.endswith(".ts"):
            k = int(ln.rsplit("_", 1)[1][:-3])   # MSN = segment number (EXT-X-MEDIA-SEQUENCE:0)
            subprocess.run(["openssl", "aes-128-cbc", "-K", key.hex(), "-iv", f"{k:032x}", "-in", str(d / ln),
                            "-out", str(d / f"enc_{ln}")], check=True)
            lines.append(f"enc_{ln}")
        else:
            lines.append(ln)
    (d / "enc_a.m3u8").write_text("\n".join(lines) + "\n")
    master = (d / "master.m3u8").read_text()
    (d / "enc.m3u8").write_text(master.replace('URI="out_1.m3u8"', 'URI="enc_a.m3u8"'))
    with _player(eng.url.replace("master.m3u8", "enc.m3u8")) as p:
        a = [(pk.pts, pk.size) for pk in p.packets() if pk.stream_index == 1]
        assert a == [(x["pts"], x["size"]) for x in eng.audio]
        o = p.seek_wait(Fraction(17, 10), SeekPrecision.exact())
        _check_landing(eng, o, _read(p, 4))
    (d / "local.m3u8").write_text(master.replace('URI="out_1.m3u8"', f'URI="file://{d}/out_1.m3u8"'))
    with Player(eng.url.replace("master.m3u8", "local.m3u8")) as p:
        with pytest.raises(ProtocolNotAllowedError):
            p.wait_item(timeout=30)


def test_live_rendition_aligned_by_dates_and_a_date_seek(live_site):
    """Both playlists carry EXT-X-PROGRAM-DATE-TIME and the rendition numbers its segments on
    its own (MSN 100 on): it is aligned on the variant by date, and a date seek lands both."""
    from fastpix_seek import SeekPrecision
    d, base = live_site
    vdur, adur = _extinf(d, "out_0.m3u8"), _extinf(d, "out_1.m3u8")
    t0 = 1_767_225_600 * 10 ** 6   # 2026-01-01T00:00:00Z, Unix microseconds

    def vstart(k):
        return sum(vdur[:k], Fraction(0))

    def astart(k):
        return vstart(1) + sum(adur[1:k], Fraction(0))

    _write_live(d, "live_v.m3u8", "s0_", 0, 5, vdur, dates=lambda k: t0 + int(vstart(k) * 10 ** 6))
    _write_live(d, "live_a.m3u8", "s1_", 1, 5, adur, msn_offset=99, dates=lambda k: t0 + int(astart(k) * 10 ** 6))
    shape = _shape_of(d, f"{base}/live.m3u8", "out_0.m3u8", "out_1.m3u8", 48000)
    with _player(f"{base}/live.m3u8") as p:
        w = p.live_seek_window()
        assert w.is_live and w.is_date_addressable
        assert (w.start, w.end) == (astart(1), min(vstart(6), astart(6)) - 3), w
        r = p.seek_to_date_and_wait(t0 + 2_200_000, SeekPrecision.exact())
        assert r.seeked and r.outcome is not None and r.outcome.frame_covers_target, r
        assert r.outcome.requested_time == Fraction(11, 5)
        _check_landing(shape, r.outcome, _read(p, 4))


# ---------------------------------------------------------------------------------------------
# A variant switch on an open player (fpx_player_hls_select_variant): at the next seek, on the
# new variant's frames at the same item time (every variant placed by the one opened with).
# ---------------------------------------------------------------------------------------------

def _variant(shape, name: str):
    """A copy of `shape` whose video is variant playlist `name` (ffprobe per segment), placed
    by the origin of the variant the item opened with (seek.h, fpx_player_hls_select_variant)."""
    s = copy.copy(shape)
    s.vtb, s.video = _truth(shape.d, name, shape.d / "probe")
    for p in s.video:
        p["t"] = p["pts"] * s.vtb - shape.origin
    return s


def _check_video_landing(s, o, pkts, target):
    """An exact landing at `target` on `s`'s frames, and its packets from the keyframe on."""
    frame = max((x for x in s.video if x["t"] <= target), key=lambda x: x["t"])
    assert (o.landed_time, o.landed_stream_pts) == (frame["t"], frame["pts"]), target
    v = [pk for pk in pkts if pk.stream_index == 0]
    k = max((i for i, x in enumerate(s.video) if x["key"] and x["t"] <= frame["t"]), key=lambda i: s.video[i]["t"])
    assert [(pk.pts, pk.size) for pk in v] == [(x["pts"], x["size"]) for x in s.video[k:k + len(v)]], target


def test_variant_switch_at_the_next_seek(shape):
    from fastpix_seek import FrameStepDirection, SeekPrecision
    from fastpix_seek.errors import InvalidArgumentError
    small = _variant(shape, "out_1.m3u8")
    assert small.vtb == shape.vtb and small.video[0]["size"] != shape.video[0]["size"]
    with _player(shape.url) as p:
        assert [v.selected for v in p.hls_variants()] == [True, False]
        start_pts = p.item_info().start_pts
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        _check_video_landing(shape, o, _read(p, 3), Fraction(1))
        p.hls_select_variant(1)
        # Until the next seek the variant playing goes on, frame steps included.
        assert [v.selected for v in p.hls_variants()] == [True, False]
        r = p.step_frame(FrameStepDirection.FORWARD)
        assert r.did_step and p.stream_info(0).width == 96
        more = [pk for pk in _read(p, 3) if pk.stream_index == 0]
        keys = [(x["pts"], x["size"]) for x in shape.video]
        k = keys.index((more[0].pts, more[0].size))
        assert [(pk.pts, pk.size) for pk in more] == keys[k:k + len(more)]
        # The switch in place: a seek to the current time lands on the new variant's frame there.
        t = p.current_time()
        o = p.seek_wait(t, SeekPrecision.exact())
        assert [v.selected for v in p.hls_variants()] == [False, True]
        info = p.stream_info(0)
        assert (info.width, info.height, info.time_base) == (64, 48, small.vtb)
        assert p.item_info().start_pts == start_pts and p.item_info().stream_count == 2
        pkts = _read(p, 4)
        _check_video_landing(small, o, pkts, t)
        _check_landing(small, o, pkts)   # the audio rendition, reopened, lands with it
        for t in (Fraction(21, 10), Fraction(1, 2), Fraction(13, 10), Fraction(0)):
            o = p.seek_wait(t, SeekPrecision.exact())
            pkts = _read(p, 3)
            _check_video_landing(small, o, pkts, t)
            _check_landing(small, o, pkts)
        # Asking for the one playing cancels a switch not made yet.
        p.hls_select_variant(0)
        p.hls_select_variant(1)
        o = p.seek_wait(Fraction(8, 5), SeekPrecision.exact())
        _check_video_landing(small, o, _read(p, 3), Fraction(8, 5))
        # And back: the same item time is the same frame as before the switch.
        p.hls_select_variant(0)
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        assert p.stream_info(0).width == 96 and [v.selected for v in p.hls_variants()] == [True, False]
        pkts = _read(p, 3)
        _check_video_landing(shape, o, pkts, Fraction(1))
        _check_landing(shape, o, pkts)
        for bad in (2, -1, 99):
            with pytest.raises(InvalidArgumentError):
                p.hls_select_variant(bad)
    # Without separate audio (the variant's own streams only).
    with _player(shape.url, hls_audio=-1) as p:
        p.hls_select_variant(1)
        for t in (Fraction(7, 5), Fraction(1, 3)):
            o = p.seek_wait(t, SeekPrecision.exact())
            _check_video_landing(small, o, [pk for pk, _ in zip(p.packets(), range(12))], t)
        assert p.stream_info(0).width == 64 and p.item_info().stream_count == 1


def test_a_variant_that_cannot_be_opened(shape):
    """Its playlist missing (404): the switch fails that seek with a typed error, the old
    variant plays on and stays selected."""
    from fastpix_seek import SeekPrecision
    from fastpix_seek.errors import UnsupportedError
    d = shape.d
    (d / "lostv.m3u8").write_text((d / "master.m3u8").read_text().replace("out_1.m3u8", "nowhere.m3u8"))
    with _player(shape.url.replace("master.m3u8", "lostv.m3u8")) as p:
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        _read(p, 2)
        p.hls_select_variant(1)
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact())
        assert o.reason.name == "FAILED" and o.exception is not None and \
            type(o.exception).__name__ == "NotFoundError", o
        assert [v.selected for v in p.hls_variants()] == [True, False] and p.stream_info(0).width == 96
        o = p.seek_wait(Fraction(3, 2), SeekPrecision.exact())
        pkts = _read(p, 3)
        _check_video_landing(shape, o, pkts, Fraction(3, 2))
        _check_landing(shape, o, pkts)
    with _player(shape.url.replace("master.m3u8", "out_0.m3u8")) as p:
        with pytest.raises(UnsupportedError):
            p.hls_select_variant(0)


def test_a_switch_to_a_variant_that_starts_later(shape):
    """The new variant's playlist starts a segment later (EXT-X-MEDIA-SEQUENCE 1): its segments
    are aligned on the item timeline by media sequence number and its frames placed by the
    variant the item opened with, so a seek still lands on its frame at the item time asked
    (a playlist read on its own would put its first frame at item time 0, a second early)."""
    from fastpix_seek import SeekPrecision
    d = shape.d
    lines = (d / "out_1.m3u8").read_text().splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("#EXTINF"))
    late = [ln.replace("#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-MEDIA-SEQUENCE:1") for ln in lines[:first]] + lines[first + 2:]
    assert "#EXT-X-MEDIA-SEQUENCE:1" in late
    (d / "late_1.m3u8").write_text("\n".join(late) + "\n")
    (d / "late.m3u8").write_text((d / "master.m3u8").read_text().replace("out_1.m3u8", "late_1.m3u8"))
    small = _variant(shape, "out_1.m3u8")
    with _player(shape.url.replace("master.m3u8", "late.m3u8")) as p:
        p.hls_select_variant(1)
        for t in (Fraction(3, 2), Fraction(21, 10), Fraction(11, 10)):
            o = p.seek_wait(t, SeekPrecision.exact())
            assert p.stream_info(0).width == 64
            pkts = _read(p, 3)
            _check_video_landing(small, o, pkts, t)
            _check_landing(small, o, pkts)


def test_a_switch_keeps_disabled_streams_and_counts_holes(shape):
    """A stream disabled before the switch stays disabled on the new variant's feeds; a hole of
    the new variant's playlist (a 404 segment) is counted in the item's segments_skipped."""
    from fastpix_seek import SeekPrecision
    d = shape.d
    (d / "hole_1.m3u8").write_text((d / "out_1.m3u8").read_text().replace("s1_1.", "missing_1."))
    (d / "holev.m3u8").write_text((d / "master.m3u8").read_text().replace("out_1.m3u8", "hole_1.m3u8"))
    with _player(shape.url.replace("master.m3u8", "holev.m3u8")) as p:
        p.set_stream_enabled(1, False)
        p.hls_select_variant(1)
        p.seek_wait(Fraction(0), SeekPrecision.exact())
        assert p.stream_info(0).width == 64 and p.item_status().segments_skipped == 0
        got = list(p.packets())
        assert got and all(pk.stream_index == 0 for pk in got)
        assert p.item_status().segments_skipped == 1


def test_a_variant_the_item_cannot_change_to(shape):
    """A "variant" whose playlist is the audio rendition's (no video: the reference stream's kind
    differs): the switch fails that seek with UnsupportedError and the old variant plays on."""
    from fastpix_seek import SeekPrecision
    d = shape.d
    (d / "odd.m3u8").write_text((d / "master.m3u8").read_text().replace("out_1.m3u8", "out_2.m3u8"))
    with _player(shape.url.replace("master.m3u8", "odd.m3u8"), hls_audio=-1) as p:
        p.hls_select_variant(1)
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        assert o.reason.name == "FAILED" and type(o.exception).__name__ == "UnsupportedError", o
        assert [v.selected for v in p.hls_variants()] == [True, False]
        o = p.seek_wait(Fraction(1), SeekPrecision.exact())
        _check_video_landing(shape, o, [pk for pk, _ in zip(p.packets(), range(8))], Fraction(1))
