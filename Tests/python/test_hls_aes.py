"""HLS AES-128 (EXT-X-KEY METHOD=AES-128, written by ffmpeg's -hls_key_info_file) over HTTP
on 127.0.0.1 with the key served there too: packets and exact landings against ffprobe of
the same playlist (FFmpeg's hls demuxer decrypts); the IV from the media sequence number
or from the tag. A key that cannot be fetched, a key that is not 16 bytes, SAMPLE-AES and a
foreign KEYFORMAT are FPX_ERROR_ENCRYPTION, named in the log, which never shows the key."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "bin" / "fpx-seek"
sys.path.insert(0, str(REPO / "Bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rangeserver import serve  # noqa: E402

KEY = bytes(range(0x30, 0x40))
IV = "0x000102030405060708090a0b0c0d0e0f"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """ffmpeg's -hls_key_info_file output (one EXT-X-KEY with an explicit IV, "iv"), and the
    same media encrypted per segment with the IV from the media sequence number (openssl,
    RFC 8216 5.2: no IV attribute, EXT-X-MEDIA-SEQUENCE 5, "msn")."""
    d = tmp_path_factory.mktemp("aes")
    (d / "enc.key").write_bytes(KEY)
    (d / "short.key").write_bytes(KEY[:15])
    info = d / "iv.keyinfo"
    info.write_text("enc.key\n" + str(d / "enc.key") + "\n" + IV[2:] + "\n")
    common = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=30", "-t", "4",
              "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-bf", "2", "-f", "hls",
              "-hls_time", "1", "-hls_playlist_type", "vod"]
    subprocess.run(common + ["-hls_key_info_file", str(info), "-hls_segment_filename", str(d / "iv%d.ts"),
                             str(d / "iv.m3u8")], check=True)
    assert f"iv={IV}" in (d / "iv.m3u8").read_text().lower()
    subprocess.run(common + ["-hls_segment_filename", str(d / "clear%d.ts"), str(d / "clear.m3u8")], check=True)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:5",
             "#EXT-X-PLAYLIST-TYPE:VOD", '#EXT-X-KEY:METHOD=AES-128,URI="enc.key"']
    for i in range(4):
        subprocess.run(["openssl", "aes-128-cbc", "-K", KEY.hex(), "-iv", f"{5 + i:032x}", "-in",
                        str(d / f"clear{i}.ts"), "-out", str(d / f"msn{i}.ts")], check=True)
        lines += ["#EXTINF:1.000000,", f"msn{i}.ts"]
    (d / "msn.m3u8").write_text("\n".join(lines + ["#EXT-X-ENDLIST"]) + "\n")
    with serve(d) as base:
        yield d, base


def ffprobe_packets(pl: Path):
    out = subprocess.check_output(["ffprobe", "-v", "error", "-allowed_extensions", "ALL", "-select_streams", "v:0",
                                   "-show_entries", "packet=pts,dts,size", "-of", "json", str(pl)])
    return [(int(p["pts"]), int(p["dts"]), int(p["size"])) for p in json.loads(out)["packets"]]


@pytest.mark.parametrize("name", ["msn", "iv"])
def test_aes128_plays_packets_and_landings(site, name):
    from fastpix_seek import Player, SeekPrecision
    d, base = site
    want = ffprobe_packets(d / ("clear.m3u8" if name == "msn" else "iv.m3u8"))
    assert len(want) == 120
    with Player(f"{base}/{name}.m3u8") as p:
        st = p.wait_item(timeout=20)
        assert st.status.name == "READY", st
        got = [(x.pts, x.dts, x.size) for x in p.packets() if x.stream_index == 0]
        assert got == want
        frames = sorted(w[0] for w in want)
        rng = random.Random(name)
        for _ in range(8):
            t = Fraction(rng.randrange(0, 3_900), 1000)
            o = p.seek_and_wait(t, SeekPrecision.exact())
            assert o.finished, o
            target = frames[0] + t * 90000
            assert o.landed_stream_pts == max(f for f in frames if f <= target), t


def write(d: Path, name: str, key_line: str) -> str:
    src = (d / "msn.m3u8").read_text().splitlines()
    out = [key_line if ln.startswith("#EXT-X-KEY") else ln for ln in src]
    (d / name).write_text("\n".join(out) + "\n")
    return name


@pytest.mark.parametrize("case,key_line,words", [
    ("missing", '#EXT-X-KEY:METHOD=AES-128,URI="nope.key"', ["EXT-X-KEY METHOD=AES-128", "could not be fetched"]),
    ("short", '#EXT-X-KEY:METHOD=AES-128,URI="short.key"', ["EXT-X-KEY METHOD=AES-128", "15 bytes, not 16"]),
    ("sample", '#EXT-X-KEY:METHOD=SAMPLE-AES,URI="enc.key"', ["EXT-X-KEY METHOD=SAMPLE-AES"]),
    ("keyformat", '#EXT-X-KEY:METHOD=AES-128,URI="enc.key",KEYFORMAT="com.apple.streamingkeydelivery"',
     ["EXT-X-KEY METHOD=AES-128 KEYFORMAT=com.apple.streamingkeydelivery"]),
])
def test_key_errors_are_typed_and_named(site, case, key_line, words):
    from fastpix_seek import Player
    from fastpix_seek.errors import EncryptionError
    d, base = site
    name = write(d, f"bad_{case}.m3u8", key_line)
    url = f"{base}/{name}"
    with Player(url) as p:
        with pytest.raises(EncryptionError):
            p.wait_item(timeout=20)
        st = p.item_status()
        assert st.status.name == "FAILED" and st.error == -31, st
        assert isinstance(st.exception, EncryptionError)
    r = subprocess.run([str(CLI), "live", url, "window", "--verbose"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "FPX_ERROR_ENCRYPTION" in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, (w, r.stderr)
    assert KEY.hex() not in r.stderr.lower() and KEY.decode() not in r.stderr


def test_the_key_is_never_logged(site):
    d, base = site
    r = subprocess.run([str(CLI), "seek", f"{base}/msn.m3u8", "1.5", "--precision", "exact", "--verbose"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert KEY.hex() not in (r.stderr + r.stdout).lower() and KEY.decode() not in r.stderr + r.stdout
