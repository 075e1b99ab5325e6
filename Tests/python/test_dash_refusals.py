"""DASH refusals (issue 31, seek.h "DASH"): what the DASH layer does not handle is a typed error
naming it, never a fall-through to libavformat's dash demuxer, at a .mpd URL or at one without
the extension whose body is an MPD.

MPDs: Shaka Packager's own (one encrypted with a raw key for Widevine, PlayReady and the W3C
common system; its dynamic MPD, which plays as live), and ffmpeg's dash muxer's MPD
changed one element at a time (ContentProtection schemes, Periods that differ, xlink, $SubNumber$,
a dynamic MPD without its clock, with malformed timing or a bad time source (an
http-head source answering each way its rules refuse, or not at all), one whose
segments follow from the clock (played, or refused when none is available yet),
malformed XML and elements, a DOCTYPE with an internal subset, a BaseURL to a local file,
past the segment cap). Served on 127.0.0.1. Ground truth: the error code the player reports,
and the CLI's --verbose log naming the feature or the scheme.
"""
from __future__ import annotations

import email.utils
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO
import tlscerts
from rangeserver import RangeHandler, serve
from test_fragmented_mp4 import shaka_packager
from hlsframes import FF

sys.path.insert(0, str(REPO / "Bindings" / "python"))

from fastpix_seek import Player  # noqa: E402

CLI = REPO / "build" / "bin" / "fpx-seek"
UNSUPPORTED, INVALID_DATA, TOO_LARGE, ENCRYPTION, NOT_ALLOWED, TIMEOUT = -13, -12, -27, -31, -25, -11

KEY = "00112233445566778899aabbccddeeff"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("dashrefuse")
    src = d / "src.mp4"
    subprocess.run(FF + ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-t", "4", "-c:v", "libx264",
                         "-preset", "ultrafast", "-g", "25", str(src)], check=True, timeout=120)
    subprocess.run(FF + ["-i", str(src), "-c", "copy", "-f", "dash", "-seg_duration", "2", str(d / "ok.mpd")],
                   check=True, timeout=120)
    live = d / "live"
    live.mkdir()
    subprocess.run([shaka_packager(), f"in={src},stream=video,init_segment={live}/init.mp4,"
                    f"segment_template={live}/s_$Number$.m4s", "--segment_duration", "2",
                    "--mpd_output", str(live / "live.mpd")], check=True, capture_output=True, timeout=120)
    enc = d / "enc"
    enc.mkdir()
    subprocess.run([shaka_packager(), f"in={src},stream=video,init_segment={enc}/init.mp4,"
                    f"segment_template={enc}/s_$Number$.m4s", "--segment_duration", "2", "--generate_static_live_mpd",
                    "--enable_raw_key_encryption", "--keys", f"key_id={KEY}:key={KEY}",
                    "--protection_systems", "Widevine,PlayReady,CommonSystem", "--mpd_output", str(enc / "enc.mpd")],
                   check=True, capture_output=True, timeout=120)
    with serve(d) as base:
        yield d, base


def variant(d: Path, name: str, old: str, new: str) -> str:
    text = (d / "ok.mpd").read_text()
    assert old in text, old
    (d / name).write_text(text.replace(old, new, 1))
    return name


PERIOD_OPEN = '<Period id="0" start="PT0.0S">'
SET_OPEN = '<AdaptationSet id="0" contentType="video"'
WIDEVINE = '<ContentProtection schemeIdUri="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"/>'
PLAYREADY = '<ContentProtection schemeIdUri="urn:uuid:9A04F079-9840-4286-AB92-E65BE0885F95" value="2.0"/>'
CENC = '<ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cbcs"/>'

# name: (how the ffmpeg MPD is changed: (old, new), error code, words the log says)
EDITS = {
    "widevine": ((PERIOD_OPEN + "\n\t\t" + SET_OPEN, PERIOD_OPEN + "\n\t\t" + SET_OPEN), ENCRYPTION, ["Widevine"]),
    # A second Period whose video set has two representations where the first has one.
    "periods_that_differ": (("</Period>", "</Period><Period id=\"1\" start=\"PT4S\" duration=\"PT2S\">"
                             '<AdaptationSet contentType="video"><SegmentTemplate media="x$Number$" duration="1"/>'
                             '<Representation id="a" bandwidth="1"/><Representation id="b" bandwidth="1"/>'
                             "</AdaptationSet></Period>"), UNSUPPORTED, ["Periods whose"]),
    "period_overlap": (("</Period>", '</Period><Period id="1" start="PT0S"></Period>'), INVALID_DATA,
                       ["@start is not after"]),
    "xlink_period": ((PERIOD_OPEN, '<Period id="0" xlink:href="http://127.0.0.1:9/p.xml">'), UNSUPPORTED, ["xlink"]),
    "subnumber": (("$Number%05d$", "$Number%05d$-$SubNumber$"), UNSUPPORTED, ["$SubNumber$"]),
    "dependent": (('<Representation id="0"', '<Representation id="0" dependencyId="9"'), UNSUPPORTED,
                  ["dependencyId"]),
    "dynamic_without_clock": (('type="static"', 'type="dynamic"'), INVALID_DATA, ["@availabilityStartTime"]),
    "doctype_subset": (('<?xml version="1.0" encoding="utf-8"?>',
                        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE MPD [<!ENTITY a "aaaaaaaaaa">]>'),
                       UNSUPPORTED, ["DOCTYPE"]),
    "unknown_identifier": (("$Number%05d$", "$Nmber$"), INVALID_DATA, ["$Nmber$"]),
    "bad_format_tag": (("$Number%05d$", "$Number%5x$"), INVALID_DATA, ["format tag"]),
    "unclosed": (("</AdaptationSet>", ""), INVALID_DATA, ["closes"]),
    "unknown_entity": (('lang="und"', 'lang="&und;"'), INVALID_DATA, ["&und;"]),
    "no_bandwidth": ((' bandwidth="', ' bandwidthx="'), INVALID_DATA, ["@bandwidth"]),
    "bad_duration": (('mediaPresentationDuration="', 'mediaPresentationDuration="X'), INVALID_DATA,
                     ["xs:duration"]),
    "bad_timeline": (('<S t="0" d="', '<S t="0" d="-'), INVALID_DATA, ["@d"]),
    "timeline_gap": (('<S t="0" d="25600" r="1" />', '<S t="0" d="25600" /><S t="99999999" d="25600" />'), UNSUPPORTED,
                     ["gap"]),
    "no_period": ((PERIOD_OPEN, "<Perio>"), INVALID_DATA, ["closes"]),
    "local_base_url": ((PERIOD_OPEN, PERIOD_OPEN + "<BaseURL>file:///etc/</BaseURL>"), NOT_ALLOWED, []),
}
EDITS["widevine"] = ((SET_OPEN, SET_OPEN + ">" + WIDEVINE + "<Role schemeIdUri=\"x\" value=\"main\"/></AdaptationSet>"
                      + SET_OPEN), ENCRYPTION, ["Widevine (urn:uuid:edef8ba9"])
EDITS["playready_cenc"] = ((SET_OPEN, SET_OPEN + ">" + PLAYREADY + CENC + "</AdaptationSet>" + SET_OPEN), ENCRYPTION,
                           ["PlayReady (urn:uuid:9A04F079", "cenc (urn:mpeg:dash:mp4protection:2011, value cbcs)"])


def check(url: str, code: int, words, what: str) -> None:
    with Player(url) as p:
        with pytest.raises(Exception):
            p.wait_item(timeout=30)
        st = p.item_status()
        assert st.status.name == "FAILED" and st.error == code, (what, st)
    r = subprocess.run([str(CLI), "probe", url, "--verbose"], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0, (what, r.stdout)
    for w in words:
        assert w in r.stderr, (what, w, r.stderr)
    assert "[dash @" not in r.stderr, (what, "libavformat's dash demuxer read it", r.stderr)


@pytest.mark.parametrize("case", sorted(EDITS))
def test_an_mpd_feature_not_handled_is_a_typed_error_naming_it(site, case):
    d, base = site
    (old, new), code, words = EDITS[case]
    name = variant(d, f"{case}.mpd", old, new)
    check(f"{base}/{name}", code, words, case)


def test_shakas_dynamic_mpd_is_read_as_live_dash_at_any_url(site):
    """Shaka's dynamic MPD (its default for segment templates) is a live DASH item, at a .mpd
    URL and at one without the extension (where libavformat's probe says dash). Shaka dates
    the MPD's availabilityStartTime at packaging: its two 2 s segments are available by the
    MPD's clock 4 s later (seek.h "DASH", Live), so the test waits until then."""
    d, base = site
    text = (d / "live" / "live.mpd").read_text()
    assert 'type="dynamic"' in text and "<SegmentTimeline>" in text, text
    import calendar
    import time
    ast = re.search(r'availabilityStartTime="(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)Z"', text)
    ready = calendar.timegm(tuple(int(g) for g in ast.groups())) + 4.1
    time.sleep(max(0.0, ready - time.time()))
    (d / "live" / "manifest").write_text(text)
    for url in (f"{base}/live/live.mpd", f"{base}/live/manifest"):
        with Player(url) as p:
            assert p.wait_item(timeout=30).status.name == "READY", url
            assert p.item_info().format_name == "dash (fastpixseek)", url
            w = p.live_seek_window()
            assert w.is_live and w.is_date_addressable, (url, w)


def clock_mpd(d: Path, ast: str) -> str:
    """ffmpeg's static MPD made dynamic and number-based (SegmentTemplate@duration, no
    SegmentTimeline): which segments exist follows from the clock."""
    text = (d / "ok.mpd").read_text()
    text = text.replace('type="static"', f'type="dynamic" availabilityStartTime="{ast}"', 1)
    text = re.sub(r"\s*<SegmentTimeline>.*?</SegmentTimeline>\s*", "", text, flags=re.S)
    return text.replace('startNumber="1">', 'startNumber="1" duration="25600">')


def test_a_number_based_dynamic_mpd_lists_what_its_clock_makes_available(site):
    """Number-based live (seek.h "DASH", Live): with availabilityStartTime long past, both
    2 s segments of the 4 s Period are available (none after the Period's end), dated from
    availabilityStartTime; with it an hour ahead of the host's clock, none is: typed, unless
    the MPD's own clock (UTCTiming direct) says otherwise."""
    d, base = site
    (d / "clock.mpd").write_text(clock_mpd(d, "2026-01-01T00:00:00Z"))
    with Player(f"{base}/clock.mpd") as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        w = p.live_seek_window()
        assert w.is_live and w.is_date_addressable, w
        assert (w.first_sequence, w.last_sequence) == (1, 2), w
        assert w.start_date_us == 1_767_225_600_000_000, w
    import datetime
    ahead = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    (d / "future.mpd").write_text(clock_mpd(d, ahead))
    check(f"{base}/future.mpd", INVALID_DATA, ["no segment is available by the MPD's clock"], "future")
    # The same MPD with a UTCTiming direct value 10 s after its availabilityStartTime: by the
    # MPD's clock (not the host's) both segments are available.
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1, seconds=10))
    direct = f'<UTCTiming schemeIdUri="urn:mpeg:dash:utc:direct:2014" value="{later.strftime("%Y-%m-%dT%H:%M:%SZ")}"/>'
    (d / "direct.mpd").write_text(clock_mpd(d, ahead).replace("</MPD>", direct + "</MPD>"))
    with Player(f"{base}/direct.mpd") as p:
        assert p.wait_item(timeout=30).status.name == "READY"
        w = p.live_seek_window()
        assert w.is_live and (w.first_sequence, w.last_sequence) == (1, 2), w


LIVE = 'type="dynamic" availabilityStartTime="2026-01-01T00:00:00Z"'
TIMING = {
    "depth": (LIVE + ' timeShiftBufferDepth="PT-3S"', "", INVALID_DATA, ["@timeShiftBufferDepth is not an xs:duration"]),
    "update_period": (LIVE + ' minimumUpdatePeriod="5"', "", INVALID_DATA, ["@minimumUpdatePeriod is not an xs:duration"]),
    "publish_time": (LIVE + ' publishTime="2026-01-01T00:00:00"', "", INVALID_DATA, ["@publishTime is not an xs:dateTime"]),
    "utc_direct": (LIVE, '<UTCTiming schemeIdUri="urn:mpeg:dash:utc:direct:2014" value="noon"/>', INVALID_DATA,
                   ["<UTCTiming>", "@value is not an xs:dateTime"]),
    "utc_no_value": (LIVE, '<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-iso:2014"/>', INVALID_DATA,
                     ["<UTCTiming>", "no @value"]),
    # The time source answers with a word, not a date.
    "utc_body": (LIVE, '<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="noon.txt"/>', INVALID_DATA,
                 ["the time source's body is not an xs:dateTime"]),
    # The time source answers with more than 256 bytes (an MPD).
    "utc_large": (LIVE, '<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-iso:2014" value="ok.mpd"/>', TOO_LARGE, []),
}


def live_mpd(d: Path, name: str, utc: str, root: str = LIVE) -> str:
    """ffmpeg's MPD made dynamic (`root`) with the element `utc` added; written as `name`."""
    text = (d / "ok.mpd").read_text().replace('type="static"', root, 1).replace("</MPD>", utc + "</MPD>")
    (d / name).write_text(text)
    return name


def utc(scheme: str, value: str) -> str:
    return f'<UTCTiming schemeIdUri="urn:mpeg:dash:utc:{scheme}:2014" value="{value}"/>'


@pytest.mark.parametrize("case", sorted(TIMING))
def test_malformed_live_timing_is_a_typed_error_naming_it(site, case):
    """A dynamic MPD's timing attributes and UTCTiming elements, malformed: FPX_ERROR_INVALID_DATA
    naming the attribute; a time source whose body is no xs:dateTime likewise; one past 256
    bytes FPX_ERROR_TOO_LARGE."""
    d, base = site
    (d / "noon.txt").write_text("noon\n")
    root, element, code, words = TIMING[case]
    check(f"{base}/{live_mpd(d, f'timing_{case}.mpd', element, root)}", code, words, case)


@pytest.mark.parametrize("scheme", ["http-xsdate", "http-head"])
def test_a_time_source_outside_the_protocol_policy_is_refused(site, scheme):
    """UTCTiming's URL is fetched (or asked, http-head) under the protocol policy of the MPD's
    URIs: a file: URL from an MPD on the network is FPX_ERROR_PROTOCOL_NOT_ALLOWED, before any
    connection."""
    d, base = site
    name = live_mpd(d, f"timing_file_{scheme}.mpd", utc(scheme, "file:///etc/hostname"))
    check(f"{base}/{name}", NOT_ALLOWED, [], f"file time source, {scheme}")


def test_shakas_encrypted_mpd_names_every_scheme(site):
    d, base = site
    check(f"{base}/enc/enc.mpd", ENCRYPTION,
          ["cenc (urn:mpeg:dash:mp4protection:2011, value cenc)", "Widevine (urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed)",
           "PlayReady (urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95", "W3C Common PSSH"], "encrypted")


def test_a_truncated_mpd_is_invalid_data(site):
    d, base = site
    text = (d / "ok.mpd").read_text()
    (d / "truncated.mpd").write_text(text[:len(text) // 2])
    check(f"{base}/truncated.mpd", INVALID_DATA, ["malformed MPD XML"], "truncated")


def test_an_xml_document_that_is_no_mpd_is_invalid_data(site):
    d, base = site
    (d / "page.mpd").write_text('<?xml version="1.0"?>\n<html><body>not a manifest</body></html>\n')
    check(f"{base}/page.mpd", INVALID_DATA, ["the root element is not MPD"], "not an MPD")


def test_past_the_segment_cap_is_too_large(site):
    d, base = site
    name = variant(d, "huge.mpd", 'mediaPresentationDuration="PT4.0S"', 'mediaPresentationDuration="PT100000000S"')
    text = (d / name).read_text()
    # A template with @duration: 1 ms segments for 10^8 s, past the 1,000,000 segment cap.
    text = re.sub(r"<SegmentTimeline>.*?</SegmentTimeline>", "", text, flags=re.S)
    text = text.replace('startNumber="1">', 'startNumber="1" duration="1">').replace("</SegmentTemplate>", "")
    text = text.replace('startNumber="1" duration="1">', 'startNumber="1" duration="1"/>')
    (d / name).write_text(text)
    check(f"{base}/{name}", TOO_LARGE, ["more than 1000000 segments"], "huge")


def test_the_unchanged_mpd_plays(site):
    """The control: the MPD every case above changes opens."""
    d, base = site
    with Player(f"{base}/ok.mpd") as p:
        assert p.wait_item(timeout=30).status.name == "READY"


def test_the_xml_element_cap_follows_the_buffer_cap(site):
    """At most max_buffer_bytes / 256 elements: 3,000 SegmentURLs are past a 400,000-byte cap
    (1,562 elements), FPX_ERROR_TOO_LARGE before anything else is fetched; under the default
    cap the same MPD is read (and fails only at its first segment, which does not exist)."""
    d, base = site
    urls = "".join(f'<SegmentURL media="none-{k}.m4s"/>' for k in range(3000))
    (d / "many.mpd").write_text(
        '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" '
        'mediaPresentationDuration="PT6000S"><Period><AdaptationSet contentType="video">'
        '<Representation id="0" bandwidth="1"><SegmentList timescale="1" duration="2">'
        f'<Initialization sourceURL="none-init.mp4"/>{urls}</SegmentList></Representation></AdaptationSet>'
        '</Period></MPD>')
    with Player(f"{base}/many.mpd", max_buffer_bytes=400_000) as p:
        with pytest.raises(Exception):
            p.wait_item(timeout=30)
        assert p.item_status().error == TOO_LARGE
    with Player(f"{base}/many.mpd") as p:
        with pytest.raises(Exception):
            p.wait_item(timeout=30)
        assert p.item_status().error not in (TOO_LARGE, 0)


def head_source(answers):
    """A RangeHandler class whose HEAD of /t/NAME answers the raw bytes `answers[NAME]` (a
    callable: called for them) and closes; `heads` gets (method, path, headers) of each."""
    class Source(RangeHandler):
        heads: list = []

        def do_HEAD(self):
            if not self.path.startswith("/t/"):
                return super().do_HEAD()
            self.heads.append((self.command, self.path, dict(self.headers)))
            raw = answers[self.path[3:].split("?")[0]]
            self.wfile.write(raw() if callable(raw) else raw)
            self.wfile.flush()
            self.close_connection = True
    return Source


def imf(unix: float) -> str:
    return email.utils.formatdate(unix, usegmt=True)


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_an_http_head_time_source_is_the_mpds_clock(site, scheme, tmp_path):
    """UTCTiming http-head (ISO/IEC 23009-1 5.8.5.7): the Date of the source's answer to a HEAD
    request is the MPD's clock. The number-based MPD an hour ahead of the host (no segment by the
    host's clock) opens with both segments when the source's Date is an hour and 10 s ahead; the
    request the server got is one HEAD of the URL's path, with Host and Connection: close, over
    tcp for http and tls for https (a certificate for 127.0.0.1 from a CA made by openssl, which
    the player trusts: tls_ca_file)."""
    d, base = site
    ahead = time.time() + 3600
    mpd = clock_mpd(d, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ahead)))
    handler = head_source({"skewed": lambda: f"HTTP/1.1 200 OK\r\nDate: {imf(ahead + 10)}\r\n"
                                             "Content-Length: 0\r\n\r\n".encode()})
    certs = tlscerts.make(tmp_path) if scheme == "https" else None
    with serve(d, handler, tls=certs.server if certs else None) as clock:
        port = clock.rsplit(":", 1)[1]
        source = f"{scheme}://user:secret@127.0.0.1:{port}/t/skewed?x=1#frag"
        (d / "head.mpd").write_text(mpd.replace("</MPD>", utc("http-head", source) + "</MPD>"))
        with Player(f"{clock}/head.mpd", tls_ca_file=certs.ca if certs else None) as p:
            assert p.wait_item(timeout=30).status.name == "READY"
            w = p.live_seek_window()
            assert w.is_live and (w.first_sequence, w.last_sequence) == (1, 2), w
        assert handler.heads, "no HEAD reached the time source"
        method, path, headers = handler.heads[0]
        assert (method, path) == ("HEAD", "/t/skewed?x=1"), handler.heads[0]
        assert headers.get("Host") == f"127.0.0.1:{port}" and headers.get("Connection") == "close", headers
        assert "Authorization" not in headers, headers


HEAD_ANSWERS = {
    "no_date": (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", INVALID_DATA, ["the answer has no Date field"]),
    "rfc850": (b"HTTP/1.1 200 OK\r\nDate: Sunday, 06-Nov-94 08:49:37 GMT\r\n\r\n", INVALID_DATA,
               ["the answer's Date is not an IMF-fixdate"]),
    "redirect": (b"HTTP/1.1 302 Found\r\nLocation: /t/no_date\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
                 INVALID_DATA, ["the answer's status is 302, not 2xx"]),
    "not_found": (b"HTTP/1.1 404 Not Found\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n", INVALID_DATA,
                  ["the answer's status is 404, not 2xx"]),
    "not_http": (b"SSH-2.0-OpenSSH_9.2\r\n\r\n", INVALID_DATA, ["the answer is not an HTTP/1.x head"]),
    "endless": (b"HTTP/1.1 200 OK\r\n" + b"X-Pad: " + b"a" * 9000 + b"\r\n\r\n", INVALID_DATA,
                ["did not end within 8192 bytes"]),
    "cut": (b"HTTP/1.1 200 OK\r\nDate: Sun, 06 No", INVALID_DATA, ["did not end within 8192 bytes"]),
}


@pytest.mark.parametrize("case", sorted(HEAD_ANSWERS))
def test_an_http_head_time_source_that_answers_wrong_is_a_typed_error(site, case):
    """Each rule of the http-head answer broken: FPX_ERROR_INVALID_DATA, the log naming the rule
    (never the URL)."""
    d, _ = site
    raw, code, words = HEAD_ANSWERS[case]
    with serve(d, head_source({case: raw})) as clock:
        name = live_mpd(d, f"head_{case}.mpd", utc("http-head", f"/t/{case}"))
        check(f"{clock}/{name}", code, words + ["UTCTiming refused"], case)


def test_an_http_head_time_source_that_never_answers_times_out(site):
    """A source that takes the request and says nothing for 5 s: the load fails with
    FPX_ERROR_TIMEOUT after the player's I/O timeout (0.5 s), never waiting for the server."""
    d, _ = site
    release = threading.Event()

    def silent():
        release.wait(5)
        return b""
    with serve(d, head_source({"silent": silent})) as clock:
        name = live_mpd(d, "head_silent.mpd", utc("http-head", "/t/silent"))
        try:
            with Player(f"{clock}/{name}", io_timeout=0.5) as p:
                with pytest.raises(Exception):
                    p.wait_item(timeout=4)
                st = p.item_status()
                assert st.status.name == "FAILED" and st.error == TIMEOUT, st
        finally:
            release.set()
