"""DASH over the HLS segment path (issue 31, seek.h "DASH"): static MPDs as ffmpeg's dash muxer
and Shaka Packager write them, served on 127.0.0.1 by the Range-honouring test server.

Shapes (all fMP4, from one source with B-frames, a keyframe a second, 2 s segments, AAC audio):
ffmpeg SegmentTemplate + SegmentTimeline ($Number%05d$, two video representations),
ffmpeg SegmentList (`-use_template 0`), ffmpeg single file (`-single_file 1`: SegmentList with
mediaRange, Initialization@range, BaseURL), Shaka on-demand (SegmentBase, indexRange: the sidx),
Shaka SegmentTemplate + SegmentTimeline ($Number$, also published as HLS), Shaka
SegmentTemplate@duration ($Time$); an MPD of two Periods over two sources' ffmpeg output; and
ffmpeg's MPD of two audio AdaptationSets (lang eng and deu, 440 Hz at 48 kHz and 880 Hz at
22.05 kHz), listed, chosen and switched like HLS audio renditions.

Ground truth, never the library: the chosen representation's initialization followed by its
segments (or its single file) as one file, read by ffprobe (frames, keyframes, packets) and
decoded by ffmpeg (framemd5 pictures); the MPD read by Python's ElementTree (the listing); the
server's request log (what was fetched). Checked: exact landings (landed time and the decoded
picture of the packets delivered), at-or-after landings between frames, frame steps across every
segment end and over the whole stream, the packets read from the start, the same pictures at the
same times as the source file, the representations listed and chosen like HLS variants, and
that only the chosen representations' segments are fetched.
"""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from conftest import REPO
from rangeserver import recording, serve
from test_fragmented_mp4 import shaka_packager
from hlsframes import FF, at_or_after_between, Truth, check_picture, truth, walk_steps, walk_whole

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import FrameStepDirection, Player, SeekPrecision  # noqa: E402

CLI = REPO / "build" / "bin" / "fpx-seek"
SECONDS, FPS, GOP = 6, 25, 25
NS = "{urn:mpeg:dash:schema:mpd:2011}"

# name: (MPD file, the files of the first video representation in order, of the audio one).
SHAPES = ["ffmpeg_timeline", "ffmpeg_list", "ffmpeg_single", "shaka_base", "shaka_timeline", "shaka_time"]


def make_source(d: Path) -> Path:
    src = d / "src.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x120:rate={FPS}", "-f", "lavfi", "-i",
                         "sine=frequency=440:sample_rate=48000", "-t", str(SECONDS), "-c:v", "libx264", "-preset",
                         "ultrafast", "-g", str(GOP), "-bf", "2", "-c:a", "aac", "-b:a", "64k", str(src)],
                   check=True, timeout=120)
    return src


def package(src: Path, d: Path, shape: str) -> str:
    """Writes the shape into d/shape; returns the MPD's name there."""
    out = d / shape
    out.mkdir()
    sets = ["-adaptation_sets", "id=0,streams=v id=1,streams=a"]
    if shape == "ffmpeg_timeline":
        # Two video representations: the source's, and a smaller one.
        subprocess.run(FF + ["-i", str(src), "-map", "0:v", "-map", "0:v", "-map", "0:a", "-c:v:0", "copy",
                             "-c:v:1", "libx264", "-preset", "ultrafast", "-s:v:1", "96x72", "-b:v:1", "100k",
                             "-g", str(GOP), "-c:a", "copy", "-f", "dash", "-seg_duration", "2", *sets,
                             str(out / "v.mpd")], check=True, timeout=120)
    elif shape == "ffmpeg_list":
        subprocess.run(FF + ["-i", str(src), "-c", "copy", "-f", "dash", "-seg_duration", "2", "-use_template", "0",
                             *sets, str(out / "v.mpd")], check=True, timeout=120)
    elif shape == "ffmpeg_single":
        subprocess.run(FF + ["-i", str(src), "-c", "copy", "-f", "dash", "-seg_duration", "2", "-single_file", "1",
                             *sets, str(out / "v.mpd")], check=True, timeout=120)
    elif shape == "shaka_base":
        subprocess.run([shaka_packager(), f"in={src},stream=video,output={out / 'v.mp4'}",
                        f"in={src},stream=audio,output={out / 'a.mp4'}", "--segment_duration", "2",
                        "--mpd_output", str(out / "v.mpd")], check=True, capture_output=True, timeout=120)
    else:
        name = "$Number$" if shape == "shaka_timeline" else "$Time$"
        # The timeline shape is published as HLS too, over the same CMAF segments.
        extra = (["--hls_master_playlist_output", str(out / "v.m3u8"), "--hls_playlist_type", "VOD"]
                 if shape == "shaka_timeline" else ["--segment_template_constant_duration"])
        subprocess.run([shaka_packager(),
                        f"in={src},stream=video,init_segment={out / 'v_init.mp4'},segment_template={out}/v_{name}.m4s,"
                        "playlist_name=v_media.m3u8",
                        f"in={src},stream=audio,init_segment={out / 'a_init.mp4'},segment_template={out}/a_{name}.m4s,"
                        "playlist_name=a_media.m3u8,hls_group_id=audio",
                        "--segment_duration", "2", "--generate_static_live_mpd", "--mpd_output", str(out / "v.mpd"),
                        *extra], check=True, capture_output=True, timeout=120)
    return "v.mpd"


def representation_files(d: Path, rep: ET.Element, aset: ET.Element, period: ET.Element) -> List[Tuple[Path, str]]:
    """The (file, byte range 'a-b' or '') of a representation's initialization and segments in
    order, read from the MPD with ElementTree (the shapes above only)."""
    base = rep.find(f"{NS}BaseURL")
    tpl = rep.find(f"{NS}SegmentTemplate")
    if tpl is None:
        tpl = aset.find(f"{NS}SegmentTemplate")
    lst = rep.find(f"{NS}SegmentList")
    sbase = rep.find(f"{NS}SegmentBase")
    rid = rep.get("id")
    if sbase is not None:
        return [(d / base.text, "")]  # the whole file: ftyp, moov, sidx, the fragments
    if lst is not None:
        out = []
        init = lst.find(f"{NS}Initialization")
        if base is not None:
            out.append((d / base.text, init.get("range")))
            out += [(d / base.text, u.get("mediaRange")) for u in lst.findall(f"{NS}SegmentURL")]
        else:
            out.append((d / init.get("sourceURL"), ""))
            out += [(d / u.get("media"), "") for u in lst.findall(f"{NS}SegmentURL")]
        return out
    def fill(s: str, number: int, time: int) -> str:
        s = s.replace("$RepresentationID$", rid)
        for key, v in (("Number", number), ("Time", time)):
            s = s.replace(f"${key}$", str(v)).replace(f"${key}%05d$", f"{v:05d}")
        return s
    out = [(d / fill(tpl.get("initialization"), 0, 0), "")]
    number = int(tpl.get("startNumber", "1"))
    tl = tpl.find(f"{NS}SegmentTimeline")
    if tl is not None:
        t = 0
        for s in tl.findall(f"{NS}S"):
            t = int(s.get("t", t))
            for _ in range(int(s.get("r", "0")) + 1):
                out.append((d / fill(tpl.get("media"), number, t), ""))
                number += 1
                t += int(s.get("d"))
    else:
        dur, k = int(tpl.get("duration")), 0
        while (d / fill(tpl.get("media"), number, k * dur)).exists():
            out.append((d / fill(tpl.get("media"), number, k * dur), ""))
            number += 1
            k += 1
    return out


def concatenate(files: List[Tuple[Path, str]], out: Path) -> Path:
    data = b""
    for f, rng in files:
        b = f.read_bytes()
        if rng:
            a, z = (int(x) for x in rng.split("-"))
            b = b[a:z + 1]
        data += b
    out.write_bytes(data)
    return out


class Shape:
    def __init__(self, name: str, d: Path, mpd: str):
        self.name, self.dir, self.mpd = name, d, mpd
        root = ET.parse(d / mpd).getroot()
        period = root.find(f"{NS}Period")
        self.sets = period.findall(f"{NS}AdaptationSet")
        self.video = [s for s in self.sets if s.get("contentType") == "video"]
        self.audio = [s for s in self.sets if s.get("contentType") == "audio"]
        self.files: Dict[str, List[Tuple[Path, str]]] = {}
        for a in self.sets:
            for r in a.findall(f"{NS}Representation"):
                self.files[r.get("id")] = representation_files(d, r, a, period)

    def requested(self, record) -> set:
        """The files of the site a request log names (paths relative to the shape's dir)."""
        return {p.split("?")[0].lstrip("/").split("/", 1)[1] for p, _ in record if p.lstrip("/").startswith(self.name)}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("dash")
    src = make_source(d)
    shapes = {s: Shape(s, d / s, package(src, d, s)) for s in SHAPES}
    handler = recording()
    with serve(d, handler) as base:
        yield d, base, handler, shapes, truth(src)


@pytest.fixture(scope="module", params=SHAPES)
def shape(request, site, tmp_path_factory):
    d, base, handler, shapes, src_truth = site
    s = shapes[request.param]
    first_video = s.video[0].findall(f"{NS}Representation")[0].get("id")
    whole = concatenate(s.files[first_video], tmp_path_factory.mktemp("whole") / "video.mp4")
    return s, f"{base}/{s.name}/{s.mpd}", truth(whole), whole, src_truth


def targets(t: Truth) -> List[Fraction]:
    """The frames from 3 before to 2 after every keyframe but the first (segment ends), and the
    first and last frames."""
    out = [t.times[0], t.times[-1]]
    for k in t.keys[1:]:
        i = t.times.index(k)
        out += t.times[max(0, i - 3):i + 3]
    return out


def test_the_representation_is_the_source(shape):
    """The premise: the packaged video is the source's frames, pictures and keyframes."""
    s, url, t, whole, src = shape
    assert t.times == src.times and t.keys == src.keys and t.md5 == src.md5, s.name


def test_exact_seeks_land_on_the_frame_and_its_picture(shape):
    s, url, t, whole, src = shape
    with Player(url) as p:
        st = p.wait_item(timeout=30)
        assert st.status.name == "READY", st
        assert p.item_info().format_name == "dash (fastpixseek)"
        for x in targets(t):
            o = p.seek_and_wait(x, SeekPrecision.exact())
            what = f"{s.name}: exact {x}"
            assert o.finished and o.frame_covers_target and Fraction(o.landed_time) == x, (what, o)
            check_picture(p, int(o.landed_stream_pts), t.md5[x], what)


def test_at_or_after_seeks_between_frames(shape):
    s, url, t, whole, src = shape
    with Player(url) as p:
        p.wait_item(timeout=30)
        at_or_after_between(p, t, targets(t), s.name)


def test_steps_walk_across_segment_ends_with_their_pictures(shape):
    s, url, t, whole, src = shape
    with Player(url) as p:
        p.wait_item(timeout=30)
        for k in t.keys[1:]:
            i = t.times.index(k)
            walk_steps(p, t.times, i - 3, i + 2, lambda pts, x, what: check_picture(p, pts, t.md5[x], what), s.name)


def test_steps_walk_the_whole_stream_both_ways(shape):
    s, url, t, whole, src = shape
    with Player(url) as p:
        p.wait_item(timeout=30)
        walk_whole(p, t.times, s.name)


def ffprobe_packets(path: Path, stream: str) -> List[Tuple[int, int, int]]:
    out = subprocess.check_output(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries",
                                   "packet=pts,dts,size", "-of", "json", str(path)])
    return [(int(p["pts"]), int(p["dts"]), int(p["size"])) for p in json.loads(out)["packets"]]


def test_the_packets_from_the_start_are_the_representations(shape, tmp_path):
    """Video from the video representation, audio (the item's stream 1) from the audio one:
    every packet, in order, against ffprobe of each with its initialization."""
    s, url, t, whole, src = shape
    audio_rep = s.audio[0].findall(f"{NS}Representation")[0].get("id")
    audio = concatenate(s.files[audio_rep], tmp_path / "audio.mp4")
    with Player(url) as p:
        p.wait_item(timeout=30)
        assert p.item_info().stream_count == 2
        got = [(x.stream_index, x.pts, x.dts, x.size) for x in p.packets()]
    assert [g[1:] for g in got if g[0] == 0] == ffprobe_packets(whole, "v:0"), s.name
    assert [g[1:] for g in got if g[0] == 1] == ffprobe_packets(audio, "a:0"), s.name


def test_only_the_chosen_representations_are_fetched(site):
    """ffmpeg's timeline MPD has two video representations and an audio one: playing one video
    representation (by default the highest bandwidth; by index; by height) fetches none of the
    other's files; with the audio off, no audio file either."""
    d, base, handler, shapes, src = site
    s = shapes["ffmpeg_timeline"]
    reps = s.video[0].findall(f"{NS}Representation")
    ids = [r.get("id") for r in reps]
    files = {i: {str(f.relative_to(s.dir)) for f, _ in s.files[i]} for i in s.files}
    audio_id = s.audio[0].findall(f"{NS}Representation")[0].get("id")
    for kw, playing, audio in ((dict(), 0, True), (dict(hls_variant=1), 1, True), (dict(hls_max_height=100), 1, True),
                               (dict(hls_audio=-1), 0, False)):
        handler.record.clear()
        with Player(f"{base}/{s.name}/{s.mpd}", **kw) as p:
            assert p.wait_item(timeout=30).status.name == "READY"
            assert [v.index for v in p.hls_variants() if v.selected] == [playing], kw
            assert p.stream_info(0).width == int(reps[playing].get("width"))
            for x in (Fraction(1), Fraction(5), Fraction(3)):
                o = p.seek_and_wait(x, SeekPrecision.exact())
                assert o.finished and o.frame_covers_target, o
            list(p.packets())
        asked = s.requested(handler.record)
        other = files[ids[1 - playing]]
        assert not (asked & other), (kw, sorted(asked & other))
        assert asked & files[ids[playing]] == files[ids[playing]], kw  # every segment read once at least
        if audio:
            assert files[audio_id] <= asked, kw
        else:
            assert not (asked & files[audio_id]), (kw, sorted(asked & files[audio_id]))


def test_byte_ranges_are_fetched_exactly(site):
    """Single-file shapes: every request for the media file is one closed range the MPD names
    (the init range, a mediaRange, or for SegmentBase the indexRange and the sidx's ranges)."""
    d, base, handler, shapes, src = site
    s = shapes["ffmpeg_single"]
    rep = s.video[0].findall(f"{NS}Representation")[0]
    lst = rep.find(f"{NS}SegmentList")
    wanted = {lst.find(f"{NS}Initialization").get("range")} | {u.get("mediaRange") for u in lst.findall(f"{NS}SegmentURL")}
    media = rep.find(f"{NS}BaseURL").text
    handler.record.clear()
    with Player(f"{base}/{s.name}/{s.mpd}", hls_audio=-1) as p:
        p.wait_item(timeout=30)
        list(p.packets())
    asked = [r for path, r in handler.record if path.endswith("/" + media)]
    assert asked and {r.replace("bytes=", "") for r in asked} == wanted, (asked, wanted)


def test_variants_are_listed_from_the_mpd(site):
    d, base, handler, shapes, src = site
    s = shapes["ffmpeg_timeline"]
    reps = s.video[0].findall(f"{NS}Representation")
    with Player(f"{base}/{s.name}/{s.mpd}") as p:
        p.wait_item(timeout=30)
        vs = p.hls_variants()
        assert [(v.bandwidth, v.resolution, v.codecs) for v in vs] == \
            [(int(r.get("bandwidth")), (int(r.get("width")), int(r.get("height"))), r.get("codecs")) for r in reps]
        rs = p.hls_renditions()
        assert len(rs) == 1 and rs[0].selected and rs[0].stream_index == 1
    r = subprocess.run([str(CLI), "probe", f"{base}/{s.name}/{s.mpd}", "--json"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert [v["bandwidth"] for v in j["variants"]] == [int(x.get("bandwidth")) for x in reps]
    assert [v["selected"] for v in j["variants"]] == [True, False]


def test_an_mpd_without_the_extension_and_a_local_one(site):
    """A body that is an MPD at a URL without .mpd is read by the DASH layer too (never by
    libavformat's dash demuxer), and so is a local .mpd file."""
    d, base, handler, shapes, src = site
    s = shapes["ffmpeg_list"]
    (s.dir / "manifest").write_bytes((s.dir / s.mpd).read_bytes())
    for url in (f"{base}/{s.name}/manifest", str(s.dir / s.mpd)):
        with Player(url) as p:
            assert p.wait_item(timeout=30).status.name == "READY", url
            assert p.item_info().format_name == "dash (fastpixseek)", url
            o = p.seek_and_wait(Fraction(2), SeekPrecision.exact())
            assert o.finished and Fraction(o.landed_time) == 2, o


def test_the_same_cmaf_as_hls_and_as_dash_gives_the_same_frames(site, tmp_path):
    """Shaka's one run publishes the same segments as an HLS master and an MPD: the two items
    start at the same pts, land every target on the same frame at the same item time, step
    alike, and read the same packets (issue 31: libavformat's dash demuxer started 21 ms
    earlier than HLS over the same files)."""
    d, base, handler, shapes, src = site
    s = shapes["shaka_timeline"]
    assert (s.dir / "v.m3u8").exists()
    with Player(f"{base}/{s.name}/v.m3u8") as h, Player(f"{base}/{s.name}/{s.mpd}") as m:
        h.wait_item(timeout=30)
        m.wait_item(timeout=30)
        assert h.item_info().format_name.startswith("hls") and m.item_info().format_name.startswith("dash")
        assert h.item_info().start_pts == m.item_info().start_pts
        assert h.item_info().stream_count == m.item_info().stream_count == 2
        assert h.seekable_range() == m.seekable_range()
        for x in targets(src):
            for prec in (SeekPrecision.exact(), SeekPrecision.nearest_keyframe(Fraction(1, 2))):
                a, b = h.seek_and_wait(x, prec), m.seek_and_wait(x, prec)
                assert a.finished and b.finished, (x, a, b)
                assert (Fraction(a.landed_time), a.landed_stream_pts) == (Fraction(b.landed_time), b.landed_stream_pts), x
            ra, rb = h.step_frame(FrameStepDirection.FORWARD), m.step_frame(FrameStepDirection.FORWARD)
            assert (ra.did_step, ra.landed_media_time) == (rb.did_step, rb.landed_media_time), x
        h.seek_and_wait(0, SeekPrecision.exact())
        m.seek_and_wait(0, SeekPrecision.exact())
        pa = [(x.stream_index, x.pts, x.dts, x.size) for x in h.packets()]
        pb = [(x.stream_index, x.pts, x.dts, x.size) for x in m.packets()]
    assert pa == pb and len(pa) > 2 * SECONDS * FPS // 2


@pytest.fixture(scope="module")
def two_periods(site, tmp_path_factory):
    """An MPD of two Periods over ffmpeg's output of two sources (6 s of testsrc2, then 4 s of
    testsrc, each with its audio): each Period its own BaseURL, initialization and timeline.
    Ground truth: each source's packaged video as one file (ffprobe, ffmpeg's pictures); the
    second Period's frames at 6 s plus their time in their own source (seek.h, "DASH": a
    Period is a discontinuity domain, placed like an HLS one)."""
    d, base, handler, shapes, src = site
    top = d / "periods"
    top.mkdir()
    second = top / "src_b.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc=size=160x120:rate={FPS}", "-f", "lavfi", "-i",
                         "sine=frequency=880:sample_rate=48000", "-t", "4", "-c:v", "libx264", "-preset", "ultrafast",
                         "-g", str(GOP), "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", str(second)],
                   check=True, timeout=120)
    inner = []
    truths = []
    for name, source in (("a", d / "src.mp4"), ("b", second)):
        (top / name).mkdir()
        subprocess.run(FF + ["-i", str(source), "-c", "copy", "-f", "dash", "-seg_duration", "2", "-adaptation_sets",
                             "id=0,streams=v id=1,streams=a", str(top / name / "v.mpd")], check=True, timeout=120)
        root = ET.parse(top / name / "v.mpd").getroot()
        period = root.find(f"{NS}Period")
        rep = period.find(f"{NS}AdaptationSet").find(f"{NS}Representation")
        files = representation_files(top / name, rep, period.find(f"{NS}AdaptationSet"), period)
        truths.append(truth(concatenate(files, tmp_path_factory.mktemp("p" + name) / "video.mp4")))
        text = (top / name / "v.mpd").read_text()
        inner.append(text[text.index(">", text.index("<Period")) + 1:text.index("</Period>")])
    (top / "v.mpd").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" '
        'profiles="urn:mpeg:dash:profile:isoff-live:2011" mediaPresentationDuration="PT10.0S" minBufferTime="PT4S">\n'
        f'<Period id="0" start="PT0S"><BaseURL>a/</BaseURL>{inner[0]}</Period>\n'
        f'<Period id="1" start="PT6S"><BaseURL>b/</BaseURL>{inner[1]}</Period>\n</MPD>\n')
    a, b = truths
    assert a.times[-1] < 6
    times = a.times + [6 + t for t in b.times]
    md5 = dict(a.md5)
    md5.update({6 + t: m for t, m in b.md5.items()})
    return f"{base}/periods/v.mpd", times, md5, len(a.times)


def test_periods_are_discontinuity_domains_on_one_timeline(two_periods):
    url, times, md5, n = two_periods
    with Player(url) as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        lo, hi = p.seekable_range()
        assert (Fraction(lo), Fraction(hi)) == (times[0], times[-1])
        for x in times[n - 3:n + 3] + [times[n // 2], times[n + 40]]:
            o = p.seek_and_wait(x, SeekPrecision.exact())
            what = f"two periods: exact {x}"
            assert o.finished and Fraction(o.landed_time) == x, (what, o)
            check_picture(p, int(o.landed_stream_pts), md5[x], what)
        # Frame steps across the Period boundary, both ways, with their pictures.
        o = p.seek_and_wait(times[n - 3], SeekPrecision.exact())
        for j in range(n - 2, n + 3):
            r = p.step_frame(FrameStepDirection.FORWARD)
            assert r.did_step and r.landed_media_time == times[j], (r, times[j])
            check_picture(p, int(r.landed_stream_pts), md5[times[j]], f"forward step to {times[j]}")
        for j in range(n + 1, n - 4, -1):
            r = p.step_frame(FrameStepDirection.BACKWARD)
            assert r.did_step and r.landed_media_time == times[j], (r, times[j])
            check_picture(p, int(r.landed_stream_pts), md5[times[j]], f"backward step to {times[j]}")


def test_periods_step_through_the_whole_item(two_periods):
    url, times, md5, n = two_periods
    with Player(url) as p:
        p.wait_item(timeout=30)
        o = p.seek_and_wait(0, SeekPrecision.exact())
        assert o.finished and Fraction(o.landed_time) == times[0], o
        for want in times[1:]:
            r = p.step_frame(FrameStepDirection.FORWARD)
            assert r.did_step and r.landed_media_time == want, (r, want)
        assert not p.step_frame(FrameStepDirection.FORWARD).did_step
        for want in reversed(times[:-1]):
            r = p.step_frame(FrameStepDirection.BACKWARD)
            assert r.did_step and r.landed_media_time == want, (r, want)


def test_a_switch_of_representation_lands_on_the_other_one(site, tmp_path):
    """fpx_player_hls_select_variant on a DASH item: the next seek lands on the other video
    representation's frame at the same item time, with its picture (ffmpeg's decode of that
    representation), and only its files are fetched from then on."""
    d, base, handler, shapes, src = site
    s = shapes["ffmpeg_timeline"]
    reps = s.video[0].findall(f"{NS}Representation")
    small = truth(concatenate(s.files[reps[1].get("id")], tmp_path / "small.mp4"))
    with Player(f"{base}/{s.name}/{s.mpd}") as p:
        p.wait_item(timeout=30)
        assert p.stream_info(0).width == 160
        p.hls_select_variant(1)
        handler.record.clear()
        for x in (small.times[60], small.keys[2], small.times[-1]):
            o = p.seek_and_wait(x, SeekPrecision.exact())
            assert o.finished and Fraction(o.landed_time) == x, (x, o)
            check_picture(p, int(o.landed_stream_pts), small.md5[x], f"switched: exact {x}")
        assert p.stream_info(0).width == 96
        assert [v.selected for v in p.hls_variants()] == [False, True]
    big = {str(f.relative_to(s.dir)) for f, _ in s.files[reps[0].get("id")]}
    assert not (s.requested(handler.record) & big)


def test_an_audio_only_mpd_plays_its_representations_as_variants(site, tmp_path):
    d, base, handler, shapes, src = site
    out = d / "audio_only"
    out.mkdir()
    subprocess.run(FF + ["-i", str(d / "src.mp4"), "-map", "0:a", "-c", "copy", "-f", "dash", "-seg_duration", "2",
                         str(out / "a.mpd")], check=True, timeout=120)
    root = ET.parse(out / "a.mpd").getroot()
    period = root.find(f"{NS}Period")
    aset = period.find(f"{NS}AdaptationSet")
    rep = aset.find(f"{NS}Representation")
    whole = concatenate(representation_files(out, rep, aset, period), tmp_path / "audio.mp4")
    want = ffprobe_packets(whole, "a:0")
    with Player(f"{base}/audio_only/a.mpd") as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        info = p.item_info()
        assert not info.has_video and info.stream_count == 1
        assert [v.bandwidth for v in p.hls_variants()] == [int(rep.get("bandwidth"))] and p.hls_renditions() == []
        assert [(x.pts, x.dts, x.size) for x in p.packets()] == want
        o = p.seek_and_wait(Fraction(3), SeekPrecision.exact())
        assert o.finished and o.frame_covers_target, o


@pytest.fixture(scope="module")
def two_audio_sets(site, tmp_path_factory):
    """ffmpeg's MPD of the source's video and two audio AdaptationSets (-adaptation_sets
    "id=0,streams=v id=1,streams=1 id=2,streams=2"): the source's 440 Hz AAC at 48 kHz,
    lang="eng", and an 880 Hz AAC at 22.05 kHz, lang="deu". Ground truth: ffprobe's packets
    of each set's initialization and segments as one file."""
    d, base, handler, shapes, src = site
    out = d / "two_audio"
    out.mkdir()
    subprocess.run(FF + ["-i", str(d / "src.mp4"), "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=22050",
                         "-t", str(SECONDS), "-map", "0:v", "-map", "0:a", "-map", "1:a", "-c:v", "copy", "-c:a:0",
                         "copy", "-c:a:1", "aac", "-b:a:1", "32k", "-metadata:s:a:0", "language=eng",
                         "-metadata:s:a:1", "language=deu", "-f", "dash", "-seg_duration", "2", "-adaptation_sets",
                         "id=0,streams=v id=1,streams=1 id=2,streams=2", str(out / "v.mpd")], check=True, timeout=120)
    s = Shape("two_audio", out, "v.mpd")
    assert [a.get("lang") for a in s.audio] == ["eng", "deu"]
    ids = [a.find(f"{NS}Representation").get("id") for a in s.audio]
    files = [{str(f.relative_to(out)) for f, _ in s.files[i]} for i in ids]
    packets = [ffprobe_packets(concatenate(s.files[i], tmp_path_factory.mktemp("aset") / "a.mp4"), "a:0")
               for i in ids]
    assert packets[0] != packets[1] and not (files[0] & files[1])
    return s, f"{base}/two_audio/v.mpd", handler, files, packets


def test_two_audio_adaptation_sets_are_renditions_chosen_at_open(two_audio_sets):
    """Both audio sets listed as AUDIO renditions of group "audio" named by lang, the first
    DEFAULT and played; hls_audio=1 plays the other; each open reads every packet of its set
    (ffprobe's, in order) and fetches none of the other set's files."""
    s, url, handler, files, packets = two_audio_sets
    for kw, chosen, rate in ((dict(), 0, 48000), (dict(hls_audio=0), 0, 48000), (dict(hls_audio=1), 1, 22050)):
        handler.record.clear()
        with Player(url, **kw) as p:
            assert p.wait_item(timeout=30).status.name == "READY", kw
            rs = p.hls_renditions()
            assert [(r.type.name, r.group_id, r.name, r.language, r.is_default, r.has_uri) for r in rs] == \
                [("AUDIO", "audio", "eng", "eng", True, True), ("AUDIO", "audio", "deu", "deu", False, True)], rs
            assert [(r.selected, r.stream_index) for r in rs] == [(k == chosen, 1 if k == chosen else -1)
                                                                   for k in range(2)], (kw, rs)
            assert p.item_info().stream_count == 2 and p.stream_info(1).sample_rate == rate, kw
            got = [(x.pts, x.dts, x.size) for x in p.packets() if x.stream_index == 1]
        assert got == packets[chosen], kw
        asked = s.requested(handler.record)
        assert files[chosen] <= asked and not (asked & files[1 - chosen]), (kw, sorted(asked & files[1 - chosen]))
    # The CLI's --audio chooses the same way (probe lists both, the chosen one demuxed).
    for args, chosen, rate in (([], 0, 48000), (["--audio", "1"], 1, 22050)):
        r = subprocess.run([str(CLI), "probe", url, "--json", *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        j = json.loads(r.stdout)
        assert [(x["language"], x["demuxed"]) for x in j["renditions"]] == [("eng", chosen == 0), ("deu", chosen == 1)]
        assert j["streams"][1]["sample_rate"] == rate, args


def test_a_switch_of_audio_adaptation_set_at_a_seek(two_audio_sets):
    """fpx_player_hls_select_audio on a DASH item: at the next landing the audio stream is the
    other set's (its rate, its packets: a run of ffprobe's to the end), and from the switch on
    only that set's files are fetched."""
    s, url, handler, files, packets = two_audio_sets
    with Player(url) as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        o = p.seek_and_wait(Fraction(1), SeekPrecision.exact())
        assert o.finished and o.frame_covers_target, o
        assert p.stream_info(1).sample_rate == 48000
        p.hls_select_audio(1)
        handler.record.clear()
        o = p.seek_and_wait(Fraction(3), SeekPrecision.exact())
        assert o.finished and Fraction(o.landed_time) == 3, o
        assert [(r.selected, r.stream_index) for r in p.hls_renditions()] == [(False, -1), (True, 1)]
        assert p.stream_info(1).sample_rate == 22050
        pkts = [x for x in p.packets() if x.stream_index == 1]
        got = [(x.pts, x.dts, x.size) for x in pkts]
        want = packets[1]
        assert got and got[0] in want, got[:3]
        k = want.index(got[0])
        assert got == want[k:], (k, got[:3], want[k:k + 3])
        # The run starts at the landing: the frame covering 3 s (1024 samples) after one frame
        # of pre-roll, as for an HLS rendition.
        assert Fraction(pkts[1].item_time) <= 3 < Fraction(pkts[1].item_time) + Fraction(1024, 22050), \
            [x.item_time for x in pkts[:3]]
    asked = s.requested(handler.record)
    assert files[1] & asked and not (asked & files[0]), sorted(asked & files[0])
