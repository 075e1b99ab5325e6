"""HLS segments that do not start with a keyframe (issue 28: streams as packagers publish them).

ffmpeg's hls muxer with `-hls_flags split_by_time` cuts a segment every `-hls_time` seconds
whatever the frame: with a 2 s GOP (x264 closed GOP, or x265's open GOP, B-frames) and 1 s segments every other
segment starts mid-GOP and holds no keyframe at all; with 0.6 s segments a frame may need a
keyframe two or three segments back. Its frames are decodable only from that earlier
keyframe. Served over HTTP on 127.0.0.1 by a server that honours Range. The premise is checked
first (ffprobe of each segment, with its init section: segments whose first frame in decode
order is no keyframe).

Ground truth is the source file: ffprobe's frames and keyframes, ffmpeg's decoded pictures
(framemd5). Targets: the frames from 2 before to 2 after every segment boundary (the playlist's
EXTINF starts) and the middle frame of every segment that starts mid-GOP:

* exact seeks land on the frame shown at the target, the packets delivered decode to that
  frame's picture (PyAV), every reference packet presenting before it is DECODE_ONLY and the
  landed one is not;
* nearest-keyframe seeks (tolerance 1 s and 0.3 s) land on the nearest ffprobe keyframe inside
  the tolerance (ties to the earlier), else on the frame shown at the target, and the packets
  produce it;
* at-or-after seeks between two frames land on the later one, and its packets produce it;
* frame steps walk one frame at a time across every segment end, forward and backward, and
  each step's packets produce its frame; and walk the whole stream both ways.

Where no earlier segment with a keyframe can be read on the frame's timeline, seek.h says the
seek or step fails with FPX_ERROR_INVALID_DATA: a playlist whose window starts at a segment
without a keyframe, an EXT-X-DISCONTINUITY before one, and one keyframe in 7 s (a 10 s GOP)
cut into 0.5 s segments (the keyframe 8 segments back is used, 9 back is past the budget).

Before this, an exact seek or a step into such a segment failed with FPX_ERROR_INVALID_DATA.

fMP4 segments (`-hls_segment_type fmp4`, and Shaka Packager with --segment_sap_aligned=false
--fragment_sap_aligned=false, which cuts on time too; by default it cuts at keyframes only): the
mov demuxer refuses to seek a fragment without a keyframe, even to its start (libavformat's -1,
AVERROR(EPERM)), which reached the host as FPX_ERROR_IO ("connection reset"); such a fragment
is now read from its first sample in decode order. ffmpeg's fMP4 muxer (FFmpeg 5.1) with
split_by_time writes each mid-GOP fragment's first sample at another frame's time (ffprobe of
the segment with its init section: two packets at an earlier frame's time, none at its own): the
frames are those ffprobe states (`as_published`), pictures from the source where one packet
states the time; where two do, the landing's time is checked, not its picture (no ground
truth). Shaka's timestamps are the source's. A fragment that lists no sample is
FPX_ERROR_INVALID_DATA. GStreamer's hlssink2, Bento4 and GPAC are not among the test packages.
"""
from __future__ import annotations

import bisect
import collections
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import pytest

from sharedfixtures import REPO
from groundtruth import packets as gt_packets, reference_stream
from rangeserver import serve
from test_fragmented_mp4 import shaka_packager
from hlsframes import FF, Truth, check_picture, encode_sources, segment_files, truth, walk_steps, walk_whole
from test_hls_opengop import FPS, FRAME

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import FrameStepDirection, Player, SeekPrecision  # noqa: E402
from fastpix_seek.errors import InvalidDataError  # noqa: E402

INVALID_DATA = -12  # FPX_ERROR_INVALID_DATA

SECONDS, GOP = 6, 50
ENCODERS = {
    "h264": ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", str(GOP),
             "-x264-params", f"keyint={GOP}:min-keyint={GOP}:scenecut=0"],
    # x265's default open GOP: CRA keyframes whose leading frames reference the GOP before.
    "hevc": ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params",
             f"log-level=error:keyint={GOP}:min-keyint={GOP}:scenecut=0:bframes=3:pools=1:frame-threads=1"],
}
# name: (codec, -hls_time, -hls_segment_type); "shaka-": Shaka Packager, --segment_duration,
# its cuts on time (--segment_sap_aligned=false --fragment_sap_aligned=false).
STREAMS = {
    "ts-h264-1s": ("h264", "1", "mpegts"),
    "ts-h264-0.6s": ("h264", "0.6", "mpegts"),
    "ts-hevc-1s": ("hevc", "1", "mpegts"),
    "fmp4-h264-1s": ("h264", "1", "fmp4"),
    "fmp4-hevc-1s": ("hevc", "1", "fmp4"),
    "shaka-fmp4-h264-1s": ("h264", "1", "fmp4"),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("midgop")
    encode_sources(d, ENCODERS, FPS, SECONDS)
    for name, (codec, seconds, kind) in STREAMS.items():
        out = d / name
        out.mkdir()
        if name.startswith("shaka-"):
            desc = (f"in={d / f'{codec}.mp4'},stream=video,segment_template={out / 'seg_$Number$.m4s'},"
                    f"playlist_name=index.m3u8,init_segment={out / 'init.mp4'}")
            subprocess.run([shaka_packager(), desc, "--segment_duration", seconds, "--segment_sap_aligned=false",
                            "--fragment_sap_aligned=false", "--hls_master_playlist_output", str(out / "master.m3u8"),
                            "--hls_playlist_type", "VOD"], check=True, capture_output=True, timeout=120)
            continue
        seg = "seg_%d.ts" if kind == "mpegts" else "seg_%d.m4s"
        subprocess.run(FF + ["-i", str(d / f"{codec}.mp4"), "-c", "copy", "-f", "hls", "-hls_time", seconds,
                             "-hls_flags", "split_by_time", "-hls_playlist_type", "vod", "-hls_segment_type", kind,
                             "-hls_segment_filename", str(out / seg), str(out / "index.m3u8")],
                       check=True, timeout=120)
    with serve(d) as base:
        yield d, base, {codec: truth(d / f"{codec}.mp4") for codec in ENCODERS}


def whole_segments(d: Path, tmp: Path) -> List[Path]:
    """Each playlist entry as one file ffprobe reads: the segment, after its init section if any."""
    out = []
    for k, (init, seg) in enumerate(segment_files(d)):
        f = seg
        if init is not None:
            f = tmp / f"whole_{k}.mp4"
            f.write_bytes(init.read_bytes() + seg.read_bytes())
        out.append(f)
    return out


def midgop_segments(d: Path, tmp: Path) -> List[bool]:
    """For each playlist entry: whether its first video packet in decode order is no keyframe (ffprobe)."""
    out = []
    for f in whole_segments(d, tmp):
        pk = gt_packets(str(f))
        out.append(bool(pk) and not pk[0].key)
    return out


def as_published(d: Path, src: Truth, tmp: Path) -> Truth:
    """The frames as the stream states them (ffprobe of each segment with its init section), item
    time 0 at its first frame, with the source's pictures (ffmpeg's decode) at the times one
    packet states. ffmpeg's fMP4 muxer writes a mid-GOP fragment's first sample at another
    frame's time: that time has two packets (no picture is its truth: no md5 here) and the
    sample's own time none (not a frame of the stream)."""
    files = whole_segments(d, tmp)
    tb = reference_stream(str(files[0])).time_base
    pk = [p for f in files for p in gt_packets(str(f)) if p.pts is not None]
    first = min(p.pts for p in pk)
    count = collections.Counter((p.pts - first) * tb for p in pk)
    assert set(count) <= set(src.times), f"{d.name}: frames the source does not have"
    assert len(pk) == len(src.times), f"{d.name}: not the source's packets"
    keys = sorted((p.pts - first) * tb for p in pk if p.key)
    return Truth(sorted(count), keys, {x: m for x, m in src.md5.items() if count[x] == 1})


def check(p: Player, landed_pts: int, t: Truth, x: Fraction, what: str) -> None:
    """check_picture of the frame at `x`, whose picture is known unless two packets state `x`."""
    if x in t.md5:
        check_picture(p, landed_pts, t.md5[x], what)


def boundaries(d: Path) -> List[Fraction]:
    """Each segment's listed start (item seconds): the EXTINFs summed."""
    starts, t = [], Fraction(0)
    for line in (d / "index.m3u8").read_text().splitlines():
        if line.startswith("#EXTINF:"):
            starts.append(t)
            t += Fraction(line[8:].split(",")[0])
    return starts


class Stream:
    def __init__(self, name: str, url: str, t: Truth, starts: List[Fraction], mid: List[bool]):
        self.name, self.url, self.t, self.starts, self.mid = name, url, t, starts, mid

    def targets(self) -> List[Fraction]:
        """Frames 2 before to 2 after each segment start, and each mid-GOP segment's middle frame."""
        times = self.t.times
        out = set()
        for k, s in enumerate(self.starts):
            i = bisect.bisect_left(times, s)
            out.update(times[max(0, i - 2):i + 3])
            if self.mid[k]:
                end = self.starts[k + 1] if k + 1 < len(self.starts) else times[-1]
                j = bisect.bisect_left(times, (s + end) / 2)
                out.add(times[min(j, len(times) - 1)])
        return sorted(out)


@pytest.fixture(scope="module", params=sorted(STREAMS))
def stream(request, site, tmp_path_factory):
    d, base, truths = site
    tmp = tmp_path_factory.mktemp("whole")
    t = as_published(d / request.param, truths[STREAMS[request.param][0]], tmp)
    mid = midgop_segments(d / request.param, tmp)
    assert sum(mid) >= 2, f"{request.param}: no segments start mid-GOP ({mid})"
    return Stream(request.param, f"{base}/{request.param}/index.m3u8", t, boundaries(d / request.param), mid)


def test_exact_seeks_land_inside_midgop_segments(stream):
    t = stream.t
    with Player(stream.url) as p:
        p.wait_item(timeout=30)
        for x in stream.targets():
            o = p.seek_and_wait(x, SeekPrecision.exact())
            what = f"{stream.name}: exact {x}"
            assert o.finished and Fraction(o.landed_time) == x, (what, o)
            check(p, int(o.landed_stream_pts), t, x, what)


@pytest.mark.parametrize("tolerance", [Fraction(1), Fraction(3, 10)])
def test_nearest_keyframe_seeks_land_on_keyframes(stream, tolerance):
    t = stream.t
    with Player(stream.url) as p:
        p.wait_item(timeout=30)
        for x in stream.targets():
            o = p.seek_and_wait(x, SeekPrecision.nearest_keyframe(tolerance))
            near = [k for k in t.keys if abs(k - x) <= tolerance]
            want = min(near, key=lambda k: (abs(k - x), k)) if near else t.times[bisect.bisect_right(t.times, x) - 1]
            what = f"{stream.name}: nearest keyframe {x} +- {tolerance}"
            assert o.finished and Fraction(o.landed_time) == want, (what, o, want)
            check(p, int(o.landed_stream_pts), t, want, what)


def test_at_or_after_seeks_between_frames(stream):
    t = stream.t
    with Player(stream.url) as p:
        p.wait_item(timeout=30)
        for x in stream.targets():
            i = t.times.index(x)
            if i + 1 == len(t.times):
                continue
            want = t.times[i + 1]
            o = p.seek_and_wait((x + want) / 2, SeekPrecision.at_or_after())
            what = f"{stream.name}: at or after {(x + want) / 2}"
            assert o.finished and Fraction(o.landed_time) == want, (what, o, want)
            check(p, int(o.landed_stream_pts), t, want, what)


def test_steps_walk_frame_by_frame_across_segment_ends(stream):
    t = stream.t
    with Player(stream.url) as p:
        p.wait_item(timeout=30)
        for s in stream.starts[1:]:
            i = bisect.bisect_left(t.times, s)
            walk_steps(p, t.times, i - 3, i + 2, lambda pts, x, what: check(p, pts, t, x, what), stream.name)


def test_steps_walk_the_whole_stream_both_ways(stream):
    t = stream.t
    with Player(stream.url) as p:
        p.wait_item(timeout=30)
        walk_whole(p, t.times, stream.name)


# ---- Frames no earlier keyframe can reach -------------------------------------------------

def playlist_variant(d: Path, name: str, edit) -> str:
    """Writes `name` next to d/index.m3u8, its text changed by `edit`; returns the file name."""
    (d / name).write_text(edit((d / "index.m3u8").read_text()))
    return name


def second_segment(text: str) -> Tuple[str, str]:
    """The EXTINF line and URI of the playlist's second segment."""
    entries = re.findall(r"(#EXTINF:[^\n]*)\n([^#\n][^\n]*)", text)
    return entries[1]


@pytest.mark.parametrize("name", ["ts-h264-1s", "fmp4-h264-1s"])
def test_no_earlier_keyframe_on_the_timeline_is_invalid_data(site, tmp_path_factory, name):
    """Segment 1 of the 1 s stream has no keyframe: after an EXT-X-DISCONTINUITY, or first in
    the window, its frames cannot be produced; the other segments still land right."""
    d, base, truths = site
    src = d / name
    tmp = tmp_path_factory.mktemp("whole")
    t = as_published(src, truths["h264"], tmp)
    mid = midgop_segments(src, tmp)
    assert mid[1], "segment 1 has a keyframe"
    starts = boundaries(src)
    inside = t.times[bisect.bisect_left(t.times, (starts[1] + starts[2]) / 2)]

    def with_discontinuity(text: str) -> str:
        extinf, uri = second_segment(text)
        return text.replace(f"{extinf}\n{uri}\n", f"#EXT-X-DISCONTINUITY\n{extinf}\n{uri}\n", 1)

    def from_segment_1(text: str) -> str:
        extinf, uri = second_segment(text)
        head, rest = text.split("#EXTINF:", 1)
        rest = rest.split(f"{extinf}\n", 1)[1]
        return head.replace("#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-MEDIA-SEQUENCE:1") + f"{extinf}\n" + rest

    with Player(f"{base}/{name}/index.m3u8") as p:
        p.wait_item(timeout=30)
        info = p.item_info()   # the source's frames by stream pts

    def shown(o) -> Fraction:
        """The source's time of the landed frame."""
        return (int(o.landed_stream_pts) - info.start_pts) * info.time_base

    disc = playlist_variant(src, "disc.m3u8", with_discontinuity)
    with Player(f"{base}/{name}/{disc}") as p:
        p.wait_item(timeout=30)
        o = p.seek_and_wait(inside, SeekPrecision.exact())
        assert not o.finished and o.error == INVALID_DATA, o
        # Before the discontinuity and from segment 2's keyframe on, frames land and decode.
        # (Past it the domain is placed anew, its first frame at segment 1's listed start: its
        # frames move on the item timeline (3 frames here), so the picture is that of the
        # landed stream pts.)
        for x in (t.times[5], starts[2] + FRAME * 3):
            o = p.seek_and_wait(x, SeekPrecision.exact())
            assert o.finished and shown(o) in t.md5, o
            check_picture(p, int(o.landed_stream_pts), t.md5[shown(o)], f"disc: exact {x}")
        # A step back from segment 2's keyframe, its first frame, into segment 1: refused, typed.
        o = p.seek_and_wait(starts[2] + FRAME * 3, SeekPrecision.nearest_keyframe(Fraction(1, 2)))
        assert o.finished and shown(o) == 2, o
        with pytest.raises(InvalidDataError):
            p.step_frame(FrameStepDirection.BACKWARD)
    late = playlist_variant(src, "late.m3u8", from_segment_1)
    with Player(f"{base}/{name}/{late}") as p:
        p.wait_item(timeout=30)
        o = p.seek_and_wait(inside - starts[1], SeekPrecision.exact())
        assert not o.finished and o.error == INVALID_DATA, o
        x = starts[2] + FRAME * 3 - starts[1]
        o = p.seek_and_wait(x, SeekPrecision.exact())
        assert o.finished and Fraction(o.landed_time) == x and shown(o) in t.md5, o
        check_picture(p, int(o.landed_stream_pts), t.md5[shown(o)], f"late: exact {x}")


def test_the_walk_back_is_bounded(tmp_path_factory):
    """One keyframe in 7 s (a 10 s GOP), 0.5 s segments: a frame of segment 8 lands (its keyframe 8
    segments back, the budget), segment 9's is FPX_ERROR_INVALID_DATA."""
    d = tmp_path_factory.mktemp("midgop-long")
    src = d / "long.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", f"testsrc2=size=160x96:rate={FPS}:duration=7",
                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "250",
                         "-x264-params", "keyint=250:min-keyint=250:scenecut=0", str(src)], check=True, timeout=300)
    out = d / "long"
    out.mkdir()
    subprocess.run(FF + ["-i", str(src), "-c", "copy", "-f", "hls", "-hls_time", "0.5", "-hls_flags", "split_by_time",
                         "-hls_playlist_type", "vod", "-hls_segment_filename", str(out / "seg_%d.ts"),
                         str(out / "index.m3u8")], check=True, timeout=120)
    t = truth(src)
    assert t.keys == [0], t.keys
    mid = midgop_segments(out, tmp_path_factory.mktemp("whole"))
    starts = boundaries(out)
    assert len(starts) >= 11 and all(mid[1:11]), mid
    with serve(d) as base, Player(f"{base}/long/index.m3u8") as p:
        p.wait_item(timeout=30)
        for k in (7, 8):
            x = t.times[bisect.bisect_left(t.times, (starts[k] + starts[k + 1]) / 2)]
            o = p.seek_and_wait(x, SeekPrecision.exact())
            assert o.finished and Fraction(o.landed_time) == x, (k, o)
            check_picture(p, int(o.landed_stream_pts), t.md5[x], f"segment {k}: exact {x}")
        for k in (9, 10):
            x = t.times[bisect.bisect_left(t.times, (starts[k] + starts[k + 1]) / 2)]
            o = p.seek_and_wait(x, SeekPrecision.exact())
            assert not o.finished and o.error == INVALID_DATA, (k, o)


def test_a_fragment_with_no_sample_is_invalid_data(site, tmp_path_factory):
    """An fMP4 segment whose fragment lists no sample (segment 1's trun, sample_count 0; ffprobe of
    it with the init section: no packet): the mov demuxer finds no position in it, not even its
    start (libavformat's -1, AVERROR(EPERM)). Over the segment's bytes in memory that is no I/O
    error: seeks into it fail with FPX_ERROR_INVALID_DATA (before: FPX_ERROR_IO, "connection
    reset"), and the segments around it still land."""
    d, base, truths = site
    src = d / "fmp4-h264-1s"
    tmp = tmp_path_factory.mktemp("nosamples")
    t = as_published(src, truths["h264"], tmp)
    (init, seg), = segment_files(src)[1:2]
    b = bytearray(seg.read_bytes())
    i = b.index(b"trun")
    b[i + 8:i + 12] = bytes(4)   # after the box type: version and flags, then sample_count
    (src / "nosamples.m4s").write_bytes(b)
    (tmp / "whole.mp4").write_bytes(init.read_bytes() + bytes(b))
    assert gt_packets(str(tmp / "whole.mp4")) == [], "the edited fragment still has samples"
    name = playlist_variant(src, "nosamples.m3u8", lambda text: text.replace(f"\n{seg.name}\n", "\nnosamples.m4s\n"))
    starts = boundaries(src)
    with Player(f"{base}/fmp4-h264-1s/{name}") as p:
        p.wait_item(timeout=30)
        o = p.seek_and_wait((starts[1] + starts[2]) / 2, SeekPrecision.exact())
        assert not o.finished and o.error == INVALID_DATA, o
        for x in (t.times[5], t.times[bisect.bisect_left(t.times, starts[2]) + 3]):
            o = p.seek_and_wait(x, SeekPrecision.exact())
            assert o.finished and Fraction(o.landed_time) == x, (x, o)
            check(p, int(o.landed_stream_pts), t, x, f"nosamples: exact {x}")
