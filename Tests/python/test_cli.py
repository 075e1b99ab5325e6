"""fpx-seek, every subcommand on generated media, JSON parsed and checked against
ffprobe ground truth, and bad arguments."""
from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
import jsonschema

import groundtruth as gtm

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
SCHEMA = json.loads((REPO / "docs" / "fpx-seek.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(SCHEMA)


def conforms(doc, definition: str):
    """Validates one --json output against a definition of docs/fpx-seek.schema.json, and
    against the whole schema (which must accept every output)."""
    jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": SCHEMA["$defs"]}).validate(doc)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


def run(*args, input=None, timeout=120):
    assert CLI.is_file(), f"{CLI} missing: run `make` first"
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, input=input, timeout=timeout)


def frac(t) -> Fraction:
    return Fraction(t["value"], t["timescale"])


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv", "audio.m4a"])
def test_probe_json(fixtures_dir: Path, name):
    gt = gtm.load(str(fixtures_dir / name))
    p = run("probe", fixtures_dir / name, "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "probe")
    assert j["frames"] == len(gt.frames)
    assert j["keyframes"] == len([f for f in gt.frames if f.key])
    assert j["start_pts"] == gt.origin_ticks
    assert frac(j["seekable_range"]["start"]) == gt.to_item(gt.frames[0].pts)
    assert frac(j["seekable_range"]["end"]) == gt.to_item(gt.frames[-1].pts)
    # Stream details, as ffprobe -show_streams has them.
    probe = json.loads(subprocess.check_output(["ffprobe", "-v", "error", "-show_streams", "-of", "json",
                                                str(fixtures_dir / name)]))["streams"]
    for s, f in zip(j["streams"], probe):
        assert s["profile"] == f.get("profile")
        if f["codec_type"] == "video":
            assert (s["pixel_format"], s["level"]) == (f["pix_fmt"], f["level"])
            assert Fraction(s["frame_rate"]) == Fraction(f["avg_frame_rate"])
        else:
            assert (s["sample_format"], s["channel_layout"]) == (f["sample_fmt"], f["channel_layout"])


def test_probe_human(fixtures_dir: Path):
    p = run("probe", fixtures_dir / "mp4_bframes.mp4")
    assert p.returncode == 0 and "keyframes" in p.stdout and "h264" in p.stdout


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv"])
@pytest.mark.parametrize("time", ["2.5", "1001/30000", "7"])
def test_seek_json_exact(fixtures_dir: Path, name, time):
    gt = gtm.load(str(fixtures_dir / name))
    p = run("seek", fixtures_dir / name, time, "--precision", "exact", "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "seek_outcome")
    target = Fraction(time)
    _, ct = gt.clamp(target)
    assert j["landed_stream_pts"] == gt.covering(ct).pts
    assert frac(j["requested"]) == target
    assert frac(j["delta"]) == frac(j["landed"]) - target
    assert j["finished"] is True and j["frame_covers_target"] is True
    assert j["reason"] == "completed" and j["resolution"] == "covering_frame"
    assert j["precision"] == {"kind": "exact", "tolerance": "0/1", "tolerance_seconds": 0.0}
    assert Fraction(j["landed"]["rational"]) == frac(j["landed"])
    # Zero tolerance: the verdict is true only when the frame starts exactly at the target.
    assert j["within_requested_tolerance"] == (frac(j["delta"]) == 0)


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts", "mkv.mkv"])
def test_exact_seek_reads_as_a_hit(fixtures_dir: Path, name):
    """An exact landing that covers the target leads with 'hit', never with the zero-tolerance
    verdict (which says 'outside' whenever the frame starts before the target)."""
    p = run("seek", fixtures_dir / name, "2.5", "--precision", "exact")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[2].split() == ["result", "hit:", "the", "landed", "frame", "covers", "the", "target"]
    assert "outside" not in p.stdout and "verdict" not in p.stdout
    j = json.loads(run("seek", fixtures_dir / name, "2.5", "--precision", "exact", "--json").stdout)
    assert j["frame_covers_target"] is True and frac(j["delta"]) < 0
    assert j["within_requested_tolerance"] is False  # kept in the JSON, as the outcome says


def test_precision_json_is_exact_rational(fixtures_dir: Path):
    j = conforms(json.loads(run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--json").stdout), "seek_outcome")
    assert j["precision"] == {"kind": "nearest_keyframe", "tolerance": "1/10", "tolerance_seconds": 0.1}
    j = json.loads(run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--precision", "keyframe:1001/30000", "--json").stdout)
    assert j["precision"]["tolerance"] == "1001/30000"
    human = run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--precision", "keyframe:0.5").stdout
    assert "precision   keyframe:1/2" in human and "nearestKeyframe" not in human


@pytest.mark.parametrize("argv", [["--", "-3"], ["-3"], ["--json", "--", "-3"], ["-3", "--json"]])
def test_negative_times(fixtures_dir: Path, argv):
    p = run("seek", fixtures_dir / "mp4_bframes.mp4", *argv)
    assert p.returncode == 0, p.stderr
    if "--json" in argv:
        j = conforms(json.loads(p.stdout), "seek_outcome")
        assert frac(j["requested"]) == -3 and j["clamp"]["kind"] == "to_seekable_start"
    else:
        assert "(-3/1)" in p.stdout.splitlines()[0]


def test_directory_error_names_the_problem(tmp_path: Path):
    for cmd in (["probe", tmp_path], ["seek", tmp_path, "1"], ["report", tmp_path]):
        p = run(*cmd)
        assert p.returncode == 1
        assert p.stderr == f"fpx-seek: cannot open {tmp_path}: is a directory, not a media file\n"


def test_live_on_a_file_says_it_is_not_hls(fixtures_dir: Path):
    for action in ([], ["window"], ["edge"], ["date", "1764437000"]):
        p = run("live", fixtures_dir / "mp4_bframes.mp4", *action)
        assert p.returncode == 1 and p.stdout == ""
        assert p.stderr.count("\n") == 1 and "is not an HLS item" in p.stderr, p.stderr


def test_seek_keyframe_and_clamp(fixtures_dir: Path):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    p = run("seek", fixtures_dir / "mp4_bframes.mp4", "-5", "--precision", "keyframe:0.5", "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "seek_outcome")
    assert j["clamp"]["kind"] == "to_seekable_start" and j["clamp"]["did_clamp"] is True
    assert j["landed_stream_pts"] == gt.frames[0].pts
    assert frac(j["delta"]) == Fraction(5)
    human = run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--precision", "keyframe:0.5")
    assert human.returncode == 0
    assert human.stdout.splitlines()[2] == "result      within the requested tolerance (+/- 1/2 s)"


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "ts.ts"])
def test_step_json(fixtures_dir: Path, name):
    gt = gtm.load(str(fixtures_dir / name))
    pts = gt.pts_list()
    p = run("step", fixtures_dir / name, "--from", "2", "--times", "5", "--count", "2", "--json")
    assert p.returncode == 0, p.stderr
    steps = conforms(json.loads(p.stdout), "step")
    start = gt.covering(Fraction(2)).pts
    i = pts.index(start)
    assert [s["stream_pts"] for s in steps] == pts[i + 2:i + 12:2]
    p = run("step", fixtures_dir / name, "--times", "1", "--backward", "--json")
    assert p.returncode == 3  # refused: documented exit status
    back = conforms(json.loads(p.stdout), "step")
    # From the first frame the seekable range proves the refusal: nothing demuxed.
    assert back == [{"did_step": False, "direction": "backward", "reason": "cannot_step_in_direction",
                     "explanation": back[0]["explanation"], "packets_read": 0}]


def test_step_refusal_after_steps_exits_3(fixtures_dir: Path):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    n = len(gt.frames)
    p = run("step", fixtures_dir / "mp4_bframes.mp4", "--from", str(gt.to_item(gt.frames[-3].pts)), "--times", "5", "--json")
    assert p.returncode == 3, p.stderr
    steps = conforms(json.loads(p.stdout), "step")
    assert [s["did_step"] for s in steps] == [True, True, False] and n > 3
    human = run("step", fixtures_dir / "mp4_bframes.mp4", "--backward")
    assert human.returncode == 3 and "refused" in human.stdout


def test_step_audio_refuses(fixtures_dir: Path):
    p = run("step", fixtures_dir / "audio.m4a", "--json")
    assert p.returncode == 3
    j = conforms(json.loads(p.stdout), "step")
    assert j[0]["did_step"] is False and j[0]["reason"] == "no_video_track"


def test_scrub_coalesces(fixtures_dir: Path, tmp_path: Path):
    gt = gtm.load(str(fixtures_dir / "mkv.mkv"))
    samples = "".join(f"{i / 100}\n" for i in range(1, 501))
    p = run("scrub", fixtures_dir / "mkv.mkv", "-", "--precision", "exact", "--json", input=samples)
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "scrub")
    assert j["samples"] == 500 and j["seeks_issued"] == 1 and j["was_cancelled"] is False
    assert j["states"] == ["scrubbing", "settling", "idle"]
    assert j["positions"][-1]["sample_count"] == 500
    assert frac(j["positions"][-1]["time"]) == Fraction(5)
    assert j["outcome"]["landed_stream_pts"] == gt.covering(Fraction(5)).pts


def test_report_json_and_svg(fixtures_dir: Path, tmp_path: Path):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    svg = tmp_path / "r.svg"
    p = run("report", fixtures_dir / "mp4_bframes.mp4", "--targets", "30", "--json", "--svg", svg)
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "report")
    assert j["frames"] == len(gt.frames) and j["keyframes"] == len([f for f in gt.frames if f.key])
    rows = {r["label"]: r for r in j["precisions"]}
    assert rows["keyframe:0.5"]["precision"] == {"kind": "nearest_keyframe", "tolerance": "1/2", "tolerance_seconds": 0.5}
    assert rows["default"]["precision"]["tolerance"] == "1/10" and rows["exact"]["precision"]["kind"] == "exact"
    assert set(rows) == {"exact", "default", "keyframe:0.5", "keyframe:2"}
    assert all(r["landed"] == 30 for r in rows.values())
    assert rows["keyframe:2"]["within_tolerance"] == 30  # GOP 1.6 s: a keyframe is always within 2 s
    assert rows["exact"]["cost_packets"]["max"] >= rows["keyframe:2"]["cost_packets"]["max"]
    # Skipping the disposable pre-roll (x264 -bf 3: non-reference B-frames) costs less, never more.
    for r in rows.values():
        assert r["cost_packets_without_disposable"]["max"] <= r["cost_packets"]["max"]
    assert rows["exact"]["cost_packets_without_disposable"]["median"] < rows["exact"]["cost_packets"]["median"]
    assert len(j["worst_spots"]) == 5
    # Exact seeks count as hits when the frame covers the target, whatever the zero-tolerance verdict.
    assert rows["exact"]["hit_measure"] == "frame_covers_target"
    assert rows["exact"]["hits"] == rows["exact"]["frame_covers_target"] == 30 and rows["exact"]["hit_rate"] == 1.0
    assert rows["keyframe:2"]["hits"] == rows["keyframe:2"]["within_tolerance"]
    text = svg.read_text()
    assert text.startswith("<svg") and "mp4_bframes.mp4" in text
    human = run("report", fixtures_dir / "mp4_bframes.mp4", "--targets", "10")
    assert human.returncode == 0 and "worst spots" in human.stdout and "disposable packets skipped" in human.stdout
    exact_row = [l for l in human.stdout.splitlines() if l.strip().startswith("exact")][0]
    assert exact_row.split()[1] == "100.0%"


@pytest.mark.parametrize("args,needle", [
    ([], "usage"),
    (["bogus"], "unknown command"),
    (["seek"], "needs"),
    (["seek", "x.mp4"], "needs"),
    (["seek", "x.mp4", "abc"], "TIME"),
    (["seek", "x.mp4", "1", "--precision", "keyframe:-1"], "--precision"),
    (["seek", "x.mp4", "1", "--frobnicate"], "unknown option"),
    (["step", "x.mp4", "--count", "0"], "--count"),
    (["report", "x.mp4", "--targets", "0"], "--targets"),
    (["scrub", "x.mp4"], "needs"),
])
def test_bad_arguments_exit_2_with_one_line(args, needle):
    p = run(*args)
    assert p.returncode == 2
    assert needle in p.stderr
    if args:
        assert p.stderr.count("\n") == 1, p.stderr


def test_missing_file_exits_1():
    p = run("seek", "/nonexistent/x.mp4", "1")
    assert p.returncode == 1 and "FPX_ERROR_NOT_FOUND" in p.stderr


@pytest.mark.parametrize("cmd", ["probe", "seek", "step", "scrub", "report", "live", "frame", "sprite"])
def test_every_subcommand_has_help(cmd):
    p = run(cmd, "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: fpx-seek " + cmd)


@pytest.fixture(scope="module")
def vod_hls(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("vodhls")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-t", "6",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_flags", "program_date_time",
                    "-hls_segment_filename", str(d / "s%03d.ts"), str(d / "vod.m3u8")], check=True)
    return d / "vod.m3u8"


def test_live_window_edge_and_date_on_a_vod_playlist(vod_hls: Path):
    w = conforms(json.loads(run("live", vod_hls, "window", "--json").stdout), "live_window")
    assert w["is_live"] is False and w["is_date_addressable"] is True
    # Six 1 s segments at 30 fps: the seekable end is the last frame, as for files.
    assert frac(w["start"]) == 0 and frac(w["end"]) == Fraction(179, 30)
    pdt = [l for l in vod_hls.read_text().splitlines() if l.startswith("#EXT-X-PROGRAM-DATE-TIME")]
    assert len(pdt) >= 1 and w["start_date_us"] is not None
    inside = (w["start_date_us"] + 2_500_000) / 1e6
    p = run("live", vod_hls, "date", f"{inside:.6f}", "--precision", "exact", "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "date_seek")
    assert j["seeked"] is True
    # 2.5 s after the first segment's date is 2.5 s into the item: frame 75 at 30 fps.
    assert frac(j["outcome"]["landed"]) == Fraction(75, 30)
    before = (w["start_date_us"] - 10_000_000) / 1e6
    p = run("live", vod_hls, "date", f"{before:.6f}", "--json")
    assert p.returncode == 3  # refused with a typed reason
    r = conforms(json.loads(p.stdout), "date_seek")
    assert r["seeked"] is False and r["reason"] == "outside_window"
    assert r["window_start_date_us"] == w["start_date_us"]
    e = conforms(json.loads(run("live", vod_hls, "edge", "--json").stdout), "seek_outcome")
    assert e["finished"] is True and frac(e["landed"]) == Fraction(179, 30)  # the last frame


def test_probe_live_json(vod_hls: Path):
    """probe on a live playlist (no ENDLIST) prints the window, in the probe_live shape."""
    live = vod_hls.parent / "live.m3u8"
    live.write_text("\n".join(l for l in vod_hls.read_text().splitlines()
                              if not l.startswith(("#EXT-X-ENDLIST", "#EXT-X-PLAYLIST-TYPE"))) + "\n")
    p = run("probe", live, "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "probe_live")
    assert j["live"] is True and j["window"]["first_sequence"] == 0 and j["window"]["last_sequence"] == 5
    assert frac(j["window"]["start"]) == 0


def png_gray(png: Path):
    """The PNG's pixels as 8-bit gray through ffmpeg (width, height, bytes)."""
    probe = json.loads(subprocess.check_output(["ffprobe", "-v", "error", "-show_entries", "stream=width,height",
                                                "-of", "json", str(png)]))["streams"][0]
    raw = subprocess.check_output(["ffmpeg", "-v", "error", "-i", str(png), "-f", "rawvideo", "-pix_fmt", "gray", "-"])
    assert len(raw) == probe["width"] * probe["height"]
    return probe["width"], probe["height"], raw


def ink(w, raw, x0, y0, x1, y1) -> float:
    """Fraction of pixels darker than light grey inside a box."""
    n = dark = 0
    for y in range(y0, y1):
        row = raw[y * w + x0:y * w + x1]
        n += len(row)
        dark += sum(1 for v in row if v < 200)
    return dark / max(1, n)


@pytest.mark.parametrize("name", ["mp4_bframes.mp4", "mp4_vfr.mp4"])  # constant GOP, irregular GOP
def test_report_svg_renders(fixtures_dir: Path, tmp_path: Path, name):
    """The SVG renders with rsvg-convert (librsvg2-bin) to a PNG that is not blank: a title with the
    file name, three panels with ink in each, labelled axes with ticks in seconds, a legend; and the
    keyframe-interval panel of a constant GOP is a line, not a solid block."""
    svg, png = tmp_path / "r.svg", tmp_path / "r.png"
    p = run("report", fixtures_dir / name, "--targets", "40", "--svg", svg)
    assert p.returncode == 0, p.stderr
    text = svg.read_text()
    assert f">{name}</text>" in text
    for label in ("keyframe interval (s)", "exact-seek cost (packets)", "landing delta (s)", "time (s)",
                  "exact seek: packets to decode from the keyframe", "delta, default precision", "delta, keyframe:2"):
        assert f">{label}</text>" in text, label
    gt = gtm.load(str(fixtures_dir / name))
    duration = float(gt.to_item(gt.frames[-1].pts))
    ticks = [int(t) for t in __import__("re").findall(r'text-anchor="middle">(\d+)</text>', text)]
    assert sorted(set(ticks)) == list(range(0, int(duration) + 1, 2))  # every 2 s on a 12 s file
    r = subprocess.run(["rsvg-convert", "-o", str(png), str(svg)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    w, h, raw = png_gray(png)
    assert (w, h) == (960, 736)
    assert 0.02 < ink(w, raw, 0, 0, w, h) < 0.5
    # Inside each panel (x 90..920; panels at y 76, 276, 476, 140 high) something is drawn.
    panels = [ink(w, raw, 90, top + 2, 920, top + 138) for top in (76, 276, 476)]
    assert all(v > 0.005 for v in panels), panels
    assert panels[0] < 0.25, panels  # the interval panel is a step line, not a solid block
    assert ink(w, raw, 84, 0, 600, 32) > 0.01  # the title


def test_live_bad_arguments(vod_hls: Path):
    assert run("live").returncode == 2
    assert run("live", vod_hls, "frobnicate").returncode == 2
    assert run("live", vod_hls, "date").returncode == 2


# ---- issue 20: words that mean what they say ---------------------------------------------

@pytest.mark.parametrize("spelling,kind,tolerance", [
    ("exact", "exact", "0/1"), ("default", "nearest_keyframe", "1/10"),
    ("nearest_keyframe:1/2", "nearest_keyframe", "1/2"), ("keyframe:0.5", "nearest_keyframe", "1/2"),
    ("nearest_keyframe", "nearest_keyframe", "2147483648/1"), ("keyframe", "nearest_keyframe", "2147483648/1")])
def test_precision_names_of_the_api(fixtures_dir: Path, spelling, kind, tolerance):
    """--precision takes the API's names (exact, nearest_keyframe, default) and the short forms."""
    p = run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--precision", spelling, "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "seek_outcome")
    assert (j["precision"]["kind"], j["precision"]["tolerance"]) == (kind, tolerance)


def test_options_parse_after_double_dash(fixtures_dir: Path):
    p = run("seek", fixtures_dir / "mp4_bframes.mp4", "--", "-3", "--precision", "nearest_keyframe:1/2", "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "seek_outcome")
    assert frac(j["requested"]) == -3 and j["precision"]["tolerance"] == "1/2"
    p = run("step", fixtures_dir / "mp4_bframes.mp4", "--", "--from", "2", "--json")
    assert p.returncode == 0, p.stderr
    assert "--" in run("seek", "--help").stdout and "options still parse after" in run("--help").stdout


def test_clamped_target_says_clamped(fixtures_dir: Path):
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    end = gt.to_item(gt.frames[-1].pts)
    p = run("seek", fixtures_dir / "mp4_bframes.mp4", "92.5", "--precision", "exact")
    assert p.returncode == 0, p.stderr
    result = next(l for l in p.stdout.splitlines() if l.startswith("result"))
    assert result.startswith("result      clamped to ") and "(past the seekable end), then hit" in result, result
    assert f"clamped to {float(end):.6f} s" in result
    j = conforms(json.loads(run("seek", fixtures_dir / "mp4_bframes.mp4", "92.5", "--precision", "exact", "--json").stdout),
                 "seek_outcome")
    assert j["clamped"] is True and j["clamp"]["did_clamp"] is True and frac(j["clamp"]["clamped_to"]) == end
    assert "clamped" in j["within_requested_tolerance_note"]
    j = conforms(json.loads(run("seek", fixtures_dir / "mp4_bframes.mp4", "3", "--json").stdout), "seek_outcome")
    assert j["clamped"] is False and j["within_requested_tolerance_note"] is None  # keyframe precision
    assert not any(l.startswith("result      clamped") for l in run("seek", fixtures_dir / "mp4_bframes.mp4", "3").stdout.splitlines())


def test_exact_verdict_is_explained_next_to_it(fixtures_dir: Path):
    """2.5 s falls inside a frame: the zero-tolerance verdict is false, and the note says why."""
    gt = gtm.load(str(fixtures_dir / "mp4_bframes.mp4"))
    landed = gt.to_item(gt.covering(Fraction(5, 2)).pts)
    assert landed < Fraction(5, 2)
    j = conforms(json.loads(run("seek", fixtures_dir / "mp4_bframes.mp4", "2.5", "--precision", "exact", "--json").stdout),
                 "seek_outcome")
    assert j["within_requested_tolerance"] is False and j["frame_covers_target"] is True
    assert j["within_requested_tolerance_note"].startswith("expected for exact: it asks for zero tolerance")
    assert f"{float(Fraction(5, 2) - landed):.6f} s before it" in j["within_requested_tolerance_note"]
    human = run("seek", fixtures_dir / "mp4_bframes.mp4", "2.5", "--precision", "exact").stdout
    assert "result      hit: the landed frame covers the target" in human  # the text leads with the hit
    # A target exactly on a frame start is inside zero tolerance.
    on = gt.to_item(gt.frames[10].pts)
    j = json.loads(run("seek", fixtures_dir / "mp4_bframes.mp4", f"{on.numerator}/{on.denominator}", "--precision",
                       "exact", "--json").stdout)
    assert j["within_requested_tolerance"] is True
    assert j["within_requested_tolerance_note"] == "the landed frame starts exactly at the target"


def test_help_says_how_exact_relates_to_ffmpeg_ss():
    h = " ".join(run("--help").stdout.split())
    assert "at_or_after (seek, frame, step --from, scrub; files only) on the first frame at or after TIME, as `ffmpeg -ss TIME -i FILE`" in h
    assert "ffmpeg -ss t -i F -frames:v 1 smallest pts >= t, item t --precision at_or_after" in h
    assert "--timeline stream" in h and "--reference-stream N" in h


def test_truncated_file_is_reported(fixtures_dir: Path, tmp_path: Path):
    """The first 100 kB of a faststart MP4: the header announces the whole duration, the
    seekable range ends after a second. probe warns in one line on stderr and says
    "truncated": true; seek warns too; an intact file gets neither."""
    whole = tmp_path / "faststart.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(fixtures_dir / "mp4_bframes.mp4"), "-c", "copy",
                    "-movflags", "+faststart", str(whole)], check=True)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[:100_000])
    p = run("probe", cut, "--json")
    assert p.returncode == 0, p.stderr
    j = conforms(json.loads(p.stdout), "probe")
    assert j["truncated"] is True
    assert p.stderr.count("\n") == 1 and "truncated or damaged" in p.stderr and p.stderr.startswith("fpx-seek: ")
    assert frac(j["seekable_range"]["end"]) < frac(j["duration"]) - 1
    human = run("probe", cut)
    assert "truncated or damaged" in human.stdout and "truncated or damaged" in human.stderr
    s = run("seek", cut, "5")
    assert "truncated or damaged" in s.stderr
    ok = run("probe", whole, "--json")
    assert json.loads(ok.stdout)["truncated"] is False and ok.stderr == ""
    assert run("seek", whole, "5").stderr == ""


def test_plurals_and_reduced_rationals(fixtures_dir: Path):
    out = run("step", fixtures_dir / "mp4_bframes.mp4", "--from", "1", "--times", "3").stdout
    assert "1 packets" not in out and "samples" not in out
    for line in out.splitlines():
        if "(" in line:
            num, _, den = line.split("(", 1)[1].split(",")[0].rstrip(")").partition("/")
            assert Fraction(int(num), int(den)).denominator == int(den), line  # reduced
    seek = run("seek", fixtures_dir / "mp4_bframes.mp4", "0").stdout
    cost = next(l for l in seek.splitlines() if l.startswith("cost"))
    n = int(cost.split()[1])
    assert cost.split()[2] == ("packet," if n == 1 else "packets,"), cost


def test_scrub_text_shows_every_position_or_says_it_elides(fixtures_dir: Path):
    few = "".join(f"{i}\n" for i in (1, 2, 3))
    p = run("scrub", fixtures_dir / "mkv.mkv", "-", "--throttle", "0", input=few)
    assert p.returncode == 0, p.stderr
    j = json.loads(run("scrub", fixtures_dir / "mkv.mkv", "-", "--throttle", "0", "--json", input=few).stdout)
    positions = [l for l in p.stdout.splitlines() if l.startswith("position")]
    assert len(positions) == len(j["positions"]) and "more not shown" not in p.stdout
    assert "after 1 samples" not in p.stdout and " 1 updates" not in p.stdout
    for pos, line in zip(j["positions"], positions):
        n = pos["sample_count"]
        assert line.endswith(f"after {n} sample" + ("" if n == 1 else "s")), line
    many = "".join(f"{i / 100}\n" for i in range(1, 301))
    p = run("scrub", fixtures_dir / "mkv.mkv", "-", "--throttle", "0", input=many)
    n = int(p.stdout.split("update")[0].split()[-1])
    events = int(p.stdout.splitlines()[0].split(", ")[1].split()[0])
    assert n == 300
    lines = [l for l in p.stdout.splitlines() if l.startswith("position")]
    if events > 10:
        assert len(lines) == 9 and f"... {events - 8} more not shown (--json lists every position)" in p.stdout
    else:
        assert len(lines) == events
