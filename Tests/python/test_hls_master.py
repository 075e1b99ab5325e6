"""HLS master playlists as ffmpeg's -var_stream_map writes them (two video-only variants and
a separate audio group), plus an I-frame variant: the variants and renditions are listed
(seek.h, fpx_hls_variant, fpx_hls_rendition; Python hls_variants/hls_renditions; fpx-seek
probe), the highest-bandwidth non-I-frame variant plays; the DEFAULT audio rendition is the
item's second stream (test_hls_renditions.py checks its packets). Over HTTP on 127.0.0.1."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import serve  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("master")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30", "-f", "lavfi",
                    "-i", "sine=frequency=440:sample_rate=48000", "-t", "3", "-map", "0:v", "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-s:v:0", "160x120", "-s:v:1", "96x72",
                    "-b:v:0", "300k", "-b:v:1", "100k", "-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
                    "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,language:eng,name:English,default:yes",
                    "-hls_segment_filename", str(d / "s%v_%d.ts"), str(d / "out_%v.m3u8")], check=True)
    master = (d / "master.m3u8").read_text()
    assert "TYPE=AUDIO" in master and master.count("#EXT-X-STREAM-INF") == 2, master
    (d / "master.m3u8").write_text(master + '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=900000,RESOLUTION=160x120,'
                                   'CODECS="avc1.64000b",URI="iframes.m3u8"\n')
    with serve(d) as base:
        yield d, base


def test_variants_and_renditions_are_listed(site):
    from fastpix_seek import MediaType, Player
    d, base = site
    with Player(f"{base}/master.m3u8") as p:
        assert p.wait_item(timeout=20).status.name == "READY"
        vs = p.hls_variants()
        assert [v.is_iframe for v in vs] == [False, False, True]
        assert [v.resolution for v in vs] == [(160, 120), (96, 72), (160, 120)]
        playing = [v for v in vs if v.selected]
        assert len(playing) == 1 and playing[0].index == 0  # the highest bandwidth, never the I-frame one
        assert vs[0].bandwidth > vs[1].bandwidth and vs[2].bandwidth == 900000
        assert vs[0].audio_group == "group_aud" and vs[2].codecs == "avc1.64000b"
        rs = p.hls_renditions()
        assert len(rs) == 1
        r = rs[0]
        # Ground truth: the EXT-X-MEDIA line ffmpeg wrote.
        line = next(ln for ln in (d / "master.m3u8").read_text().splitlines() if ln.startswith("#EXT-X-MEDIA:"))
        attrs = dict(re.findall(r'([A-Z-]+)=("[^"]*"|[^,]*)', line.split(":", 1)[1]))
        assert (r.type, r.group_id, r.name, r.language, r.is_default, r.has_uri, r.in_selected_group) == \
            (MediaType.AUDIO, attrs["GROUP-ID"].strip('"'), attrs["NAME"].strip('"'), "eng",
             attrs["DEFAULT"] == "YES", True, True)
        # The DEFAULT audio rendition is played: the item's stream 1.
        assert (r.selected, r.stream_index) == (True, 1)
        assert p.item_info().stream_count == 2
        assert p.stream_info(0).type == MediaType.VIDEO
        assert p.stream_info(0).width == 160
        assert (p.stream_info(1).type, p.stream_info(1).sample_rate) == (MediaType.AUDIO, 48000)
    # A media playlist lists nothing.
    with Player(f"{base}/out_1.m3u8") as p:
        p.wait_item(timeout=20)
        assert p.hls_variants() == [] and p.hls_renditions() == []


def test_probe_lists_them(site):
    d, base = site
    r = subprocess.run([str(CLI), "probe", f"{base}/master.m3u8", "--json"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert [v["iframe"] for v in j["variants"]] == [False, False, True]
    assert [v["selected"] for v in j["variants"]] == [True, False, False]
    assert j["renditions"][0]["language"] == "eng" and j["renditions"][0]["demuxed"] is True
    assert j["renditions"][0]["stream_index"] == 1 and [s["type"] for s in j["streams"]] == ["video", "audio"]
    t = subprocess.run([str(CLI), "probe", f"{base}/master.m3u8"], capture_output=True, text=True, timeout=60)
    assert "variant #2" in t.stdout and "(I-frame)" in t.stdout and "(playing: stream #1)" in t.stdout
    # --audio -1: no separate audio, the rendition listed only.
    r = subprocess.run([str(CLI), "probe", f"{base}/master.m3u8", "--json", "--audio", "-1"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["renditions"][0]["demuxed"] is False and [s["type"] for s in j["streams"]] == ["video"]
    t = subprocess.run([str(CLI), "probe", f"{base}/master.m3u8", "--audio", "-1"], capture_output=True, text=True,
                       timeout=60)
    assert "listed, not demuxed" in t.stdout


def test_the_host_chooses_the_variant(site):
    from fastpix_seek import Player
    from fastpix_seek.errors import InvalidArgumentError
    d, base = site
    url = f"{base}/master.m3u8"
    for kw, want in ((dict(hls_variant=1), 1), (dict(hls_max_height=100), 1), (dict(hls_max_bandwidth=1), 1),
                     (dict(hls_variant=0), 0), (dict(), 0)):
        with Player(url, **kw) as p:
            assert p.wait_item(timeout=20).status.name == "READY"
            assert [v.index for v in p.hls_variants() if v.selected] == [want], kw
            assert p.stream_info(0).width == (160, 96)[want], kw
    with Player(url, hls_variant=2) as p:  # the I-frame variant is never played
        with pytest.raises(InvalidArgumentError):
            p.wait_item(timeout=20)
    r = subprocess.run([str(CLI), "probe", url, "--json", "--variant", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert [v["selected"] for v in j["variants"]] == [False, True, False]
    assert j["streams"][0]["width"] == 96


def test_cli_seek_takes_an_audio_rendition(site):
    d, base = site
    url = f"{base}/master.m3u8"
    for audio in ("0", "-1"):
        r = subprocess.run([str(CLI), "seek", url, "1.5", "--json", "--audio", audio], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["frame_covers_target"] is True
    r = subprocess.run([str(CLI), "seek", url, "1.5", "--audio", "x"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--audio" in r.stderr
    r = subprocess.run([str(CLI), "probe", url, "--audio", "5"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "INVALID_ARGUMENT" in r.stderr


def test_a_switch_to_an_iframe_variant_is_refused(site):
    """fpx_player_hls_select_variant: an I-frame variant and an index past the list are
    InvalidArgumentError; the variant playing stays selected (test_hls_renditions.py checks
    the switch itself against ffprobe)."""
    from fastpix_seek import Player
    from fastpix_seek.errors import InvalidArgumentError
    d, base = site
    with Player(f"{base}/master.m3u8") as p:
        assert p.wait_item(timeout=20).status.name == "READY"
        for bad in (2, 3, -1):
            with pytest.raises(InvalidArgumentError):
                p.hls_select_variant(bad)
        p.hls_select_variant(0)   # the one playing
        assert [v.selected for v in p.hls_variants()] == [True, False, False]
