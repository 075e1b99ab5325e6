"""The frame helpers on every codec the decoder has (issue 29.4, deliverable 3): AV1 and HEVC
files made here with Debian's ffmpeg (libaom-av1 in MP4, SVT-AV1 in MKV, x265 with B-frames in
MKV and MPEG-TS).

* The decoder is the one FFmpeg itself picks for the stream, as ``av.open`` does (compared with
  PyAV's own ``av.open(path)``), so AV1 gets a software decoder (libdav1d / libaom-av1), never
  FFmpeg's hardware-only decoder named ``av1``.
* Every frame ``frames_at`` returns is the exact landing of its time (ffprobe's frame grid)
  with ffmpeg's own pixels (framemd5 of ffmpeg's full decode).
* Every decode failure is :class:`fastpix_seek.frames.FrameNotDecodedError` (PyAV's own error
  is its ``__cause__``), here with the decoder forced to the hardware-only ``av1``: with PyAV
  10 that failure used to escape as ``av.error.InvalidDataError``.
* The same checks run under Debian's /usr/bin/python3 with python3-av (PyAV 10) in a
  subprocess, so a run of this file with the venv's newest PyAV covers both ends.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Dict, List

import pytest

from sharedfixtures import REPO
import framecheck
import groundtruth as gtm

sys.path.insert(0, str(REPO / "Bindings" / "python"))

av = pytest.importorskip("av")  # the venv and Debian's python3 both have it (tools/deps.sh)

DEBIAN_PYTHON = "/usr/bin/python3"


def _encoders() -> str:
    return subprocess.run(["ffmpeg", "-hide_banner", "-encoders"], capture_output=True,
                          text=True, check=True).stdout


#: name -> (encoder, container file name, encoder arguments). 2 s of 160x96 at 25 fps with a
#: GOP of 12, so the times below cross several keyframes.
FILES: Dict[str, List[str]] = {
    "av1_aom.mp4": ["-c:v", "libaom-av1", "-cpu-used", "8", "-g", "12", "-threads", "1"],
    "av1_svt.mkv": ["-c:v", "libsvtav1", "-preset", "12", "-g", "12", "-svtav1-params",
                    "lp=1"],
    "hevc_bframes.mkv": ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                         "log-level=error:keyint=12:min-keyint=12:scenecut=0:bframes=3:"
                         "b-pyramid=1:pools=1:frame-threads=1"],
    "hevc_bframes.ts": ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                        "log-level=error:keyint=12:min-keyint=12:scenecut=0:bframes=3:"
                        "b-pyramid=1:pools=1:frame-threads=1"],
}


@pytest.fixture(scope="session")
def codec_files(tmp_path_factory) -> Dict[str, Path]:
    encoders = _encoders()
    # Debian 12's ffmpeg has all three AV1 encoders; the test insists on the two it uses.
    for enc in ("libaom-av1", "libsvtav1", "libx265"):
        assert f" {enc} " in encoders, f"Debian's ffmpeg lost the {enc} encoder"
    d = tmp_path_factory.mktemp("codecs")
    out = {}
    for name, args in FILES.items():
        path = d / name
        subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f",
                        "lavfi", "-i", "testsrc2=size=160x96:rate=25:duration=2", *args,
                        "-pix_fmt", "yuv420p", str(path)], check=True, timeout=300)
        out[name] = path
    return out


def _times(path: Path, n: int, seed: int) -> List[Fraction]:
    gt = gtm.load(str(path))
    rnd = random.Random(seed)
    start, end = gt.first_time, gt.last_time
    span = int((end - start) * 1000)
    times = [start + Fraction(rnd.randint(0, span), 1000) for _ in range(n)]
    # The first and last frames' own times and the middle of the last frame too.
    return times + [start, end, end + Fraction(1, 100)]


def _check(path: Path, results, times) -> None:
    gt = gtm.load(str(path))
    md5 = framecheck.md5_by_pts(str(path))
    assert len(results) == len(times)
    wrong = []
    for t, r in zip(times, results):
        assert r.outcome.finished and r.frame.pts == r.pts
        assert r.pts == gt.covering(min(Fraction(t), gt.last_time)).pts, (t, r.pts)
        if framecheck.frame_md5(r.frame) != md5[r.pts]:
            wrong.append((t, r.pts))
    assert not wrong, f"{path.name}: frames with other pixels than ffmpeg's: {wrong}"


@pytest.mark.parametrize("name", list(FILES))
def test_decoder_is_ffmpegs_own_pick(codec_files, library, name):
    """decoder_for / the FrameReader use the decoder av.open picks for the stream."""
    from fastpix_seek import Player
    from fastpix_seek.pyav import decoder_for, decoder_name
    path = codec_files[name]
    with av.open(str(path)) as c:
        picked = c.streams.video[0].codec_context.codec.name
    if name.startswith("av1"):
        assert picked != "av1", "av.open picked FFmpeg's hardware-only av1 decoder"
    with Player(path) as p:
        p.wait_item(timeout=20)
        info = p.stream_info(p.item_info().reference_stream)
        assert decoder_name(info.codec_name) == picked
        assert decoder_for(info).codec.name == picked
        f = p.frame_at(Fraction(1))
        assert f.outcome.finished
        reader = p.__dict__["_fpx_frame_reader"]
        assert reader._dec.codec.name == picked


@pytest.mark.parametrize("name", list(FILES))
def test_every_frame_from_a_fresh_reader(codec_files, library, name):
    """Each frame's own time, each from a new player and decoder, whose first packet is then
    usually a DECODE_ONLY pre-roll one: libdav1d reads skip_frame only when it opens, so a
    decoder opened while skipping non-reference frames would skip them for good (SVT-AV1's
    non-reference frames: 16 of 50 lost here, and Debian 13's SVT-AV1 2.3 packs them so that
    frame 1.0 s is one). Every frame must come out, with ffmpeg's pixels."""
    from fastpix_seek import Player
    path = codec_files[name]
    gt = gtm.load(str(path))
    times = [gt.to_item(q) for q in gt.pts_list()]
    results = []
    for t in times:
        with Player(path) as p:
            p.wait_item(timeout=20)
            results.append(p.frame_at(t, timeout=30))
    _check(path, results, times)


@pytest.mark.parametrize("name", list(FILES))
def test_frames_match_ffmpeg(codec_files, library, name):
    """Random, sorted and repeated times, then a backward walk: ffprobe's landing, ffmpeg's
    pixels."""
    from fastpix_seek import Player
    path = codec_files[name]
    times = _times(path, 24, seed=len(name))
    with Player(path) as p:
        p.wait_item(timeout=20)
        _check(path, p.frames_at(times, timeout=30), times)
        back = sorted(times, reverse=True)[:10]
        _check(path, [p.frame_at(t, timeout=30) for t in back], back)
        _check(path, list(p.iter_frames_at(times, window=5)), times)


def test_decode_failure_is_the_typed_error(codec_files, library, monkeypatch):
    """A decoder that cannot decode the stream (FFmpeg's hardware-only ``av1``, forced here)
    gives FrameNotDecodedError, with PyAV's error as its cause, naming the file; the reader
    still works once the right decoder is back; decode_landed_frame likewise."""
    import fastpix_seek.pyav as bridge
    from fastpix_seek import FastPixSeekError, Player, SeekPrecision
    from fastpix_seek.frames import FrameNotDecodedError
    path = codec_files["av1_aom.mp4"]
    real = bridge.decoder_name
    monkeypatch.setattr(bridge, "decoder_name", lambda codec: "av1")
    with Player(path) as p:
        p.wait_item(timeout=20)
        with pytest.raises(FrameNotDecodedError) as ei:
            p.frame_at(Fraction(1))
        assert isinstance(ei.value, RuntimeError) and isinstance(ei.value, FastPixSeekError)
        assert str(path) in str(ei.value) and ei.value.url == str(path)
        assert ei.value.outcome is not None and ei.value.outcome.finished
        out = p.seek_wait(Fraction(1), SeekPrecision.exact())
        with pytest.raises(FrameNotDecodedError):
            bridge.decode_landed_frame(p, int(out.landed_stream_pts))
        monkeypatch.setattr(bridge, "decoder_name", real)
        p.frame_reader()  # a new reader: the right decoder
        _check(path, [p.frame_at(Fraction(1))], [Fraction(1)])


_PYAV10_SCRIPT = r"""
import json, sys
from fractions import Fraction
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import av, framecheck, groundtruth as gtm
import fastpix_seek.pyav as bridge
from fastpix_seek import Player
from fastpix_seek.frames import FrameNotDecodedError
report = {"pyav": av.__version__, "files": {}}
real = bridge.decoder_name
for path in sys.argv[3:]:
    bridge.decoder_name = real
    gt = gtm.load(path)
    md5 = framecheck.md5_by_pts(path)
    times = [gt.first_time + (gt.last_time - gt.first_time) * Fraction(k, 7) for k in range(8)]
    with Player(path) as p:
        p.wait_item(timeout=20)
        res = p.frames_at(times, timeout=30)
        ok = [r.pts == gt.covering(t).pts and framecheck.frame_md5(r.frame) == md5[r.pts]
              for t, r in zip(times, res)]
        dec = p.__dict__["_fpx_frame_reader"]._dec.codec.name
    with av.open(path) as c:
        picked = c.streams.video[0].codec_context.codec.name
    bridge.decoder_name = lambda codec: "av1"
    with Player(path) as p:
        p.wait_item(timeout=20)
        try:
            p.frame_at(Fraction(1))
            failure = "no error"
        except FrameNotDecodedError as e:
            failure = "FrameNotDecodedError"
        except Exception as e:
            failure = type(e).__module__ + "." + type(e).__name__
    report["files"][path] = {"ok": ok, "decoder": dec, "av_open": picked, "failure": failure}
print(json.dumps(report))
"""


def test_debian_pyav10(codec_files, library):
    """Under Debian's python3 with python3-av (PyAV 10): the AV1 files decode with av.open's
    decoder and ffmpeg's pixels, and a failing decoder raises FrameNotDecodedError."""
    probe = subprocess.run([DEBIAN_PYTHON, "-c", "import av; print(av.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"{DEBIAN_PYTHON} has no PyAV (apt install python3-av)")
    env = dict(os.environ, FASTPIX_SEEK_LIBRARY=str(library))
    files = [str(codec_files[n]) for n in ("av1_aom.mp4", "av1_svt.mkv")]
    out = subprocess.run([DEBIAN_PYTHON, "-c", _PYAV10_SCRIPT, str(REPO / "Bindings" / "python"),
                          str(REPO / "Tests" / "python"), *files],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["pyav"].split(".")[0] == probe.stdout.strip().split(".")[0]
    for path, r in report["files"].items():
        assert all(r["ok"]) and len(r["ok"]) == 8, (path, r)
        assert r["decoder"] == r["av_open"] != "av1", (path, r)
        assert r["failure"] == "FrameNotDecodedError", (path, r)
