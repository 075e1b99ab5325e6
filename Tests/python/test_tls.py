"""https checked (fpx_player_config.tls_ca_file, tls_insecure; seek.h): real https servers on
127.0.0.1 (Python's ssl) with certificates made by the openssl CLI (tlscerts.py). A server the
trusted CA vouches for opens and lands (ffprobe's frame); a self-signed certificate, one for
another host and an unreadable CA file fail the open with FPX_ERROR_IO before any HTTP request
reaches the server, the log saying why; `tls_verify=False` checks nothing; $SSL_CERT_FILE names
the trusted CAs when the player names none. Both the file path (avformat_open_input) and the
HLS path (the playlist's and segments' own fetches) are checked. Every server started here is
stopped here."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import groundtruth as gtm
import tlscerts
from conftest import REPO
from sharedfixtures import compile_host
from rangeserver import recording, serve

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player  # noqa: E402
from fastpix_seek._abi import FPX_ERROR_IO as IO  # noqa: E402
from fastpix_seek.errors import InvalidArgumentError  # noqa: E402

CLI = REPO / "build" / "bin" / "fpx-seek"
ITEMS = {"file": "mp4_bframes.mp4", "hls": "index.m3u8"}


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> tlscerts.Certs:
    return tlscerts.make(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def site(fixtures_dir: Path, tmp_path_factory) -> Path:
    """A copy of mp4_bframes.mp4 and ffmpeg's 3 s HLS VOD of 1 s TS segments."""
    d = tmp_path_factory.mktemp("tls_site")
    shutil.copy(fixtures_dir / ITEMS["file"], d / ITEMS["file"])
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=128x96:rate=25", "-t", "3",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-f", "hls", "-hls_time", "1",
                    "-hls_playlist_type", "vod", "-hls_segment_filename", str(d / "s%d.ts"), str(d / ITEMS["hls"])],
                   check=True, timeout=120)
    return d


@pytest.mark.parametrize("kind", sorted(ITEMS))
def test_a_server_the_trusted_ca_vouches_for_opens_and_lands(site, certs, kind):
    with serve(site, tls=certs.server) as base:
        with Player(f"{base}/{ITEMS[kind]}", tls_ca_file=certs.ca) as p:
            assert p.wait_item(timeout=30).status.name == "READY"
            o = p.seek_wait(Fraction(6, 5))
            assert o.finished, o
            if kind == "file":
                gt = gtm.load(str(site / ITEMS["file"]))
                _, ct = gt.clamp(Fraction(6, 5))
                assert o.landed_stream_pts == gt.covering(ct).pts, o


@pytest.mark.parametrize("kind", sorted(ITEMS))
@pytest.mark.parametrize("cert,words", [("self_signed", "Peer certificate failed verification"),
                                        ("wrong_host", "does not match hostname 127.0.0.1")])
def test_an_unverified_server_fails_the_open_before_any_request(site, certs, cert, words, kind):
    handler = recording()
    with serve(site, handler, tls=getattr(certs, cert)) as base:
        url = f"{base}/{ITEMS[kind]}"
        with Player(url, tls_ca_file=certs.ca) as p:
            with pytest.raises(Exception):
                p.wait_item(timeout=30)
            st = p.item_status()
            assert st.status.name == "FAILED" and st.error == IO, st
        r = subprocess.run([str(CLI), "probe", url, "--verbose", "--tls-ca-file", str(certs.ca)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and "FPX_ERROR_IO" in r.stderr, r.stderr
        assert words in r.stderr, r.stderr
    assert handler.record == [], f"an HTTP request crossed an unverified connection: {handler.record}"


def test_an_unreadable_ca_file_trusts_nobody(site, certs, tmp_path):
    with serve(site, tls=certs.server) as base:
        with Player(f"{base}/{ITEMS['file']}", tls_ca_file=tmp_path / "missing.pem") as p:
            with pytest.raises(Exception):
                p.wait_item(timeout=30)
            assert p.item_status().error == IO


@pytest.mark.parametrize("kind", sorted(ITEMS))
def test_tls_verify_false_checks_nothing(site, certs, kind):
    with serve(site, tls=certs.self_signed) as base:
        with Player(f"{base}/{ITEMS[kind]}", tls_verify=False) as p:
            assert p.wait_item(timeout=30).status.name == "READY"
            assert p.seek_wait(1).finished
        r = subprocess.run([str(CLI), "seek", f"{base}/{ITEMS[kind]}", "1", "--tls-insecure"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr


def test_ssl_cert_file_names_the_trusted_cas(site, certs):
    """Without tls_ca_file: $SSL_CERT_FILE (read at each open), else the system's bundle, which
    does not hold the test CA."""
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    with serve(site, tls=certs.server) as base:
        url = f"{base}/{ITEMS['hls']}"
        trusted = subprocess.run([str(CLI), "seek", url, "1"], capture_output=True, text=True, timeout=60,
                                 env={**env, "SSL_CERT_FILE": str(certs.ca)})
        assert trusted.returncode == 0, trusted.stderr
        system = subprocess.run([str(CLI), "seek", url, "1"], capture_output=True, text=True, timeout=60, env=env)
        assert system.returncode == 1 and "FPX_ERROR_IO" in system.stderr, system.stderr


def test_the_ca_path_is_copied_at_create(site, certs, library, tmp_path):
    """A C host overwrites and frees its tls_ca_file buffer right after create; the open still
    trusts that CA (Tests/c/tls_ca_copy.c)."""
    exe = compile_host(REPO / "Tests" / "c" / "tls_ca_copy.c", library, tmp_path / "tls_ca_copy")
    with serve(site, tls=certs.server) as base:
        r = subprocess.run([str(exe), f"{base}/{ITEMS['file']}", str(certs.ca)], capture_output=True, text=True,
                           timeout=60, env={"LD_LIBRARY_PATH": str(library.parent)})
    assert r.returncode == 0, r.stdout + r.stderr


def test_tls_arguments_are_checked():
    with pytest.raises(InvalidArgumentError, match="tls_ca_file"):
        Player(tls_ca_file="")
    with pytest.raises(TypeError, match="tls_verify must be a bool"):
        Player(tls_verify=1)  # type: ignore[arg-type]
    r = subprocess.run([str(CLI), "seek", "x.mp4", "1", "--tls-ca-file"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "--tls-ca-file needs a PEM file" in r.stderr, r.stderr
