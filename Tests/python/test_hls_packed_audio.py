"""Packed audio renditions (issue 28.3; RFC 8216 section 3.4; seek.h "HLS variants and
renditions"): an EXT-X-MEDIA TYPE=AUDIO rendition whose segments are raw ADTS AAC or AC-3, placed on
the item timeline by the ID3 PRIV frame com.apple.streaming.transportStreamTimestamp at the
start of each segment (Shaka Packager), or, for segments without that frame (ffmpeg's segment
muxer: ADTS behind an ID3 tag that has no PRIV frame), by the playlist (EXTINF sums).

Ground truth: ffprobe of each video segment; for Shaka's audio, FFmpeg's own hls demuxer on the
master playlist (it applies the ID3 timestamp), its packets cross-checked against ffprobe of each
audio segment; for ffmpeg's audio, ffprobe of each segment placed at its listed start. Served by
the Range server on 127.0.0.1. Checked: every packet from the start in decode order with the
audio at its place (item time never goes back across segments), exact landings (pre-roll frame,
covering frame with trim_samples, DECODE_ONLY, landed fields) after seeks and steps, no burst
of audio before the first video packet after a seek; a media playlist of packed audio alone; a
segment whose ID3 tag is malformed placed by the playlist, with a WARNING."""
from __future__ import annotations

import json
import random
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from rangeserver import serve
from test_fragmented_mp4 import shaka_packager
from test_hls_renditions import _check_landing, _decode_time, _player, _read, _truth

FF = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
RATE, SEGMENT = 48000, 2
# packager: (audio codec, its encoder arguments, the packed segments' extension)
PACKAGERS = {"shaka": ("aac", ["-c:a", "aac", "-b:a", "48k"], "aac"),
             "shaka-ac3": ("ac3", ["-c:a", "ac3", "-b:a", "96k"], "ac3"),
             "ffmpeg": ("aac", ["-c:a", "aac", "-b:a", "48k"], "aac")}


def _make(d: Path, packager: str) -> None:
    src = d / "src.mp4"
    _, encoder, ext = PACKAGERS[packager]
    subprocess.run(FF + ["-f", "lavfi", "-i", "testsrc2=size=96x72:rate=25:duration=10", "-f", "lavfi", "-i",
                         f"sine=frequency=440:sample_rate={RATE}:duration=10", "-c:v", "libx264", "-preset", "ultrafast",
                         "-g", "50", *encoder, str(src)], check=True, timeout=120)
    if packager.startswith("shaka"):
        subprocess.run([shaka_packager(),
                        f"in={src},stream=video,segment_template={d / 'v_$Number$.ts'},playlist_name=video.m3u8",
                        f"in={src},stream=audio,segment_template={d / f'a_$Number$.{ext}'},playlist_name=audio.m3u8,"
                        "hls_group_id=aud",
                        "--segment_duration", str(SEGMENT), "--hls_master_playlist_output", str(d / "master.m3u8"),
                        "--hls_playlist_type", "VOD"], check=True, capture_output=True, timeout=120)
        return
    subprocess.run(FF + ["-i", str(src), "-map", "0:v", "-c", "copy", "-f", "hls", "-hls_time", str(SEGMENT),
                         "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "v_%d.ts"), str(d / "video.m3u8"),
                         # (cut short of the end: the tail would be a segment of one frame without a timestamp)
                         "-map", "0:a", "-c", "copy", "-t", "9.9", "-f", "segment", "-segment_time", str(SEGMENT),
                         "-segment_format", "adts", "-segment_format_options", "write_id3v2=1",
                         "-segment_list", str(d / "audio.m3u8"), "-segment_list_type", "m3u8", str(d / "a_%d.aac")],
                   check=True, timeout=120)
    (d / "master.m3u8").write_text(
        "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"a\",DEFAULT=YES,URI=\"audio.m3u8\"\n"
        "#EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS=\"avc1.42c00a,mp4a.40.2\",AUDIO=\"aud\"\nvideo.m3u8\n")


def _ffprobe(path, entries: str):
    return json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "json", str(path)],
                                     check=True, capture_output=True, text=True, timeout=120).stdout)


def _segments(d: Path):
    """[(EXTINF, file)] of the audio playlist."""
    out, dur = [], None
    for ln in (d / "audio.m3u8").read_text().splitlines():
        if ln.startswith("#EXTINF:"):
            dur = Fraction(ln[8:].split(",")[0])
        elif ln and not ln.startswith("#"):
            out.append((dur, d / ln))
    return out


def _id3_seconds(f: Path) -> Fraction:
    """The transportStreamTimestamp of a segment, read from its bytes: the 8 bytes after the
    owner string and its NUL, big-endian, low 33 bits, 90 kHz."""
    b = f.read_bytes()
    owner = b"com.apple.streaming.transportStreamTimestamp\0"
    assert b[:3] == b"ID3" and b.count(owner) == 1
    i = b.index(owner) + len(owner)
    return Fraction(int.from_bytes(b[i:i + 8], "big") & ((1 << 33) - 1), 90000)


def _audio_truth(d: Path, packager: str, origin: Fraction, atb: Fraction):
    """The audio packets in order (pts in the segments' time base `atb`, size, duration), placed on the domain's
    pts timeline: by FFmpeg's hls demuxer (ID3 timestamps) for Shaka's segments, at each segment's
    listed start (EXTINF sum) for segments without the ID3 frame."""
    per_segment = []
    start = Fraction(0)
    for extinf, f in _segments(d):
        j = _ffprobe(f, "stream=time_base,codec_type:packet=pts,duration,size")
        assert Fraction(j["streams"][0]["time_base"]) == atb and j["streams"][0]["codec_type"] == "audio"
        per_segment.append((start, [(int(p["pts"]), int(p["size"]), int(p["duration"])) for p in j["packets"]]))
        start += extinf
    def placed(starts):
        out = []
        for start, (_, pk) in zip(starts, per_segment):
            shift = round(start / atb)
            out += [dict(pts=p + shift - pk[0][0], size=z, duration=du) for p, z, du in pk]
        return out
    if packager == "ffmpeg":
        # The listed start on the domain (the variant's origin plus the EXTINF sum).
        return placed([origin + s for s, _ in per_segment])
    by_id3 = placed([_id3_seconds(f) for _, f in _segments(d)])
    if packager == "shaka-ac3":
        # FFmpeg's hls demuxer runs one AC-3 parser across segments: it hands out each
        # segment's last frame with the next segment's first time (one frame late from the
        # second segment on), so each segment's own packets and ID3 time are the truth here
        # (the same rule as FFmpeg's for AAC, checked below).
        return by_id3
    j = _ffprobe(d / "master.m3u8", "stream=index,codec_type,time_base:packet=stream_index,pts,duration,size")
    a = next(s for s in j["streams"] if s["codec_type"] == "audio")
    assert a["time_base"] == "1/90000"
    got = [p for p in j["packets"] if p["stream_index"] == a["index"]]
    # The same packets as the segments hold, one by one.
    assert [int(p["size"]) for p in got] == [z for _, pk in per_segment for _, z, _ in pk]
    out = [dict(pts=round(int(p["pts"]) * Fraction(1, 90000) / atb), size=int(p["size"]),
                duration=round(int(p["duration"]) * Fraction(1, 90000) / atb)) for p in got]
    assert out == by_id3
    return out


class Packed:
    """The shape test_hls_renditions' checks take: video and audio on the item timeline."""

    def __init__(self, d: Path, base: str, packager: str):
        self.d, self.url, self.packager, self.rate = d, f"{base}/master.m3u8", packager, RATE
        tmp = d / "probe"
        tmp.mkdir(exist_ok=True)
        self.vtb, self.video = _truth(d, "video.m3u8", tmp)
        first = _ffprobe(_segments(d)[0][1], "stream=time_base,codec_name")["streams"][0]
        self.codec, self.atb = first["codec_name"], Fraction(first["time_base"])
        assert self.codec == PACKAGERS[packager][0]
        self.origin_pts = min(p["pts"] for p in self.video if p["seg"] == 0)
        self.origin = self.origin_pts * self.vtb
        self.audio = _audio_truth(d, packager, self.origin, self.atb)
        self.frame = self.audio[0]["duration"] * self.atb
        for p in self.video:
            p["t"] = p["pts"] * self.vtb - self.origin
        for p in self.audio:
            p["t"] = p["pts"] * self.atb - self.origin
            p["end"] = (p["pts"] + p["duration"]) * self.atb - self.origin


@pytest.fixture(scope="module", params=list(PACKAGERS))
def packed(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(f"packed_{request.param}")
    _make(d, request.param)
    with serve(d) as base:
        yield Packed(d, base, request.param)


def test_the_audio_is_placed_across_segments(packed):
    a = packed.audio
    # The truth itself: audio frames follow each other across segment ends (no restart at zero).
    assert all(x["t"] < y["t"] for x, y in zip(a, a[1:]))
    if packed.packager == "shaka":
        # Shaka's timestamps: the first audio frame within a frame of the video's first.
        assert abs(a[0]["t"]) < packed.frame * 3


def test_every_packet_from_the_start_in_decode_order(packed):
    with _player(packed.url) as p:
        info = p.stream_info(1)
        assert (info.codec_name, info.time_base) == (packed.codec, packed.atb)
        got = list(p.packets())
    v = [pk for pk in got if pk.stream_index == 0]
    a = [pk for pk in got if pk.stream_index == 1]
    assert [(pk.pts, pk.size) for pk in v] == [(x["pts"], x["size"]) for x in packed.video]
    assert [(pk.pts, pk.size) for pk in a] == [(x["pts"], x["size"]) for x in packed.audio]
    assert [pk.item_time for pk in a] == [x["t"] for x in packed.audio]
    times = [_decode_time(pk) for pk in got]
    assert times == sorted(times)


def test_exact_seeks_land_the_packed_audio(packed):
    from fastpix_seek import SeekPrecision
    rnd = random.Random(28)
    end = packed.video[-1]["t"]
    bounds = [Fraction(2 * k) + e for k in (1, 2, 3, 4) for e in (Fraction(-1, 50), 0, Fraction(1, 50))]
    # (the last frame when the audio reaches it: ffmpeg's is cut short of the end)
    last = [end] if packed.audio[-1]["end"] > end else []
    targets = [Fraction(5)] + bounds + [Fraction(rnd.randrange(0, int(end * 990)), 1000) for _ in range(10)] + last
    with _player(packed.url) as p:
        for t in targets:
            o = p.seek_wait(t, SeekPrecision.exact())
            assert o.frame_covers_target, (t, o)
            pk = _read(p, 6)
            _check_landing(packed, o, pk)
            # The first audio packet presents at or just before the landing (its pre-roll frame).
            a = [x for x in pk if x.stream_index == 1]
            assert a[0].item_time <= o.landed_time < a[0].item_time + 2 * packed.frame
            # No burst: the audio before the first video packet is at most a few frames.
            first_video = next(i for i, x in enumerate(pk) if x.stream_index == 0)
            assert first_video <= 3, (t, first_video)


def test_steps_land_the_packed_audio(packed):
    from fastpix_seek import FrameStepDirection, SeekPrecision
    with _player(packed.url) as p:
        p.seek_wait(Fraction(199, 50), SeekPrecision.exact())
        _read(p, 2)
        for forward in (True, True, False, False, False, True):
            r = p.step_frame(FrameStepDirection.FORWARD if forward else FrameStepDirection.BACKWARD)
            assert r.did_step, r
            _check_landing(packed, None, _read(p, 4), step_landed=r.landed_media_time)


def _shaka(tmp: Path) -> Path:
    """A fresh Shaka-packaged stream (a test may change its files)."""
    d = tmp / "shaka"
    d.mkdir()
    _make(d, "shaka")
    return d


def test_a_media_playlist_of_packed_audio_alone(tmp_path):
    """audio.m3u8 opened directly: the audio is the reference stream, its first segment's first
    frame item time 0, every segment placed by its ID3 timestamp (FFmpeg's hls demuxer's packets)."""
    from fastpix_seek import SeekPrecision
    d = _shaka(tmp_path)
    j = _ffprobe(d / "audio.m3u8", "packet=pts,size")
    truth = [(int(p["pts"]) * Fraction(1, 90000), int(p["size"])) for p in j["packets"]]
    first = truth[0][0]
    with serve(d) as base, _player(f"{base}/audio.m3u8") as p:
        assert p.item_info().reference_stream == 0 and p.stream_info(0).time_base == Fraction(1, 28224000)
        got = list(p.packets())
        assert [pk.size for pk in got] == [z for _, z in truth]
        for pk, (t, _) in zip(got, truth):
            assert abs(pk.item_time - (t - first)) <= Fraction(1, 90000), (pk.item_time, t)
        times = [pk.item_time for pk in got]
        assert times == sorted(times)
        # An exact seek into the third segment lands on the frame that covers it.
        t = Fraction(53, 10)
        o = p.seek_wait(t, SeekPrecision.exact())
        cover = max(x for x in times if x <= t)
        assert o.landed_time == cover and o.frame_covers_target
        pk = next(iter(p.packets()))
        assert pk.item_time <= cover


def test_a_malformed_id3_tag_places_its_segment_by_the_playlist(tmp_path, caplog):
    """One segment's ID3 tag made malformed (its size bytes not syncsafe): the item plays, that
    segment starts at its listed start (EXTINF sum, on the variant's placement), a WARNING names
    it; the others keep their ID3 time."""
    import logging
    d = _shaka(tmp_path)
    segs = _segments(d)
    k = 2
    b = bytearray(segs[k][1].read_bytes())
    assert b[:3] == b"ID3"
    b[6] = 0x80
    segs[k][1].write_bytes(bytes(b))
    tmp = d / "probe"
    tmp.mkdir()
    _, video = _truth(d, "video.m3u8", tmp)
    origin_pts = min(x["pts"] for x in video if x["seg"] == 0)
    listed = sum((e for e, _ in segs[:k]), Fraction(0))
    n_before = sum(len(_ffprobe(f, "packet=size")["packets"]) for _, f in segs[:k])
    caplog.set_level(logging.WARNING, logger="fastpix_seek")
    with serve(d) as base, _player(f"{base}/master.m3u8") as p:
        a = [pk for pk in p.packets() if pk.stream_index == 1]
    assert a[n_before].item_time == listed
    assert a[n_before].pts == round((origin_pts * Fraction(1, 90000) + listed) * 28224000)
    assert any(f"HLS segment {k}: its ID3 tag is malformed" in r.getMessage() for r in caplog.records)
