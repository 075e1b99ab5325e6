#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer harnesses (deterministic; re-run after
changing an input format). Tests/fuzz/files/ holds the media they start from:
tiny files made with the ffmpeg CLI and the two mutated files of issue 9."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
CORPUS = os.path.join(HERE, "corpus")


def op(kind, arg):
    return bytes([(kind << 5) | (arg & 31)])


# fuzz_media: mode byte, 15 operation bytes, media.
OPS = {
    # issue 9: seek exactly to 0.75 s, then forward 3, backward 2, alternating
    "repro": op(0, 3) + (op(2, 2) + op(3, 1)) * 7,
    "mixed": op(4, 3) + op(0, 4) + op(4, 2) + op(3, 0) + op(1, 5) + op(7, 0) + op(5, 0)
    + op(6, 0) + op(2, 0) + op(4, 8) + op(0, 31) + op(3, 3) + op(7, 1) + op(4, 1) + op(5, 0),
    "reads": op(4, 31) * 3 + op(0, 2) + op(4, 31) * 3 + op(1, 1) + op(4, 31) * 3 + op(3, 0) + op(4, 31) * 3,
}


def write(sub, name, data):
    d = os.path.join(CORPUS, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


for fname in sorted(os.listdir(FILES)):
    media = open(os.path.join(FILES, fname), "rb").read()
    base = fname.replace(".", "_")
    for key, ops in OPS.items():
        assert len(ops) == 15
        write("media", f"{base}-{key}-file", b"\x00" + ops + media)
        if fname.endswith(".ts") or key == "mixed":
            write("media", f"{base}-{key}-hls", b"\x01" + ops + media)


# fuzz_api: (opcode, argument) pairs; opcode bit 7 picks player 0 or 1.
def api(*pairs):
    return b"".join(bytes([o & 0xFF, a & 0xFF]) for o, a in pairs)


write("api", "open-seek-read", api((0, 0), (2, 0), (8, 100), (4, 0), (5, 8), (6, 9), (20, 1), (14, 4), (15, 5), (20, 3), (1, 0)))
write("api", "host-dispatch", api((0, 1), (18, 1), (2, 1), (8, 50), (4, 0), (5, 3), (16, 0), (7, 0), (16, 0), (19, 1), (16, 0)))
write("api", "scrub", api((0, 0), (2, 2), (8, 100), (4, 0), (9, 0), (10, 8), (10, 16), (11, 24), (12, 0), (9, 1), (11, 2), (13, 0)))
write("api", "two-players", api((0, 0), (0x80, 1), (2, 0), (0x82, 1), (4, 0), (0x84, 0), (5, 0), (0x85, 1), (1, 0), (0x90, 0), (0x81, 0)))
write("api", "misuse", api((0, 0), (20, 0), (21, 3), (29, 5), (23, 200), (5, 1), (5, 2), (5, 3), (5, 5), (5, 6), (26, 0), (27, 0), (2, 3), (8, 50), (3, 0), (25, 0), (28, 0), (1, 0)))
# found by fuzz_api: a listener whose size (58) cuts on_item_status after two bytes
write("api", "crash-partial-listener", api((0, 0), (18, 58), (2, 0), (8, 100), (1, 0)))
write("api", "seek-wait", api((0, 0), (2, 0), (8, 100), (4, 0), (30, 9), (30, 2), (30, 3), (1, 0)))
write("api", "live-edge-date", api((0, 0), (2, 0), (8, 100), (4, 0), (26, 0), (27, 9), (24, 0), (22, 0), (23, 0), (25, 0)))

# fuzz_hls: playlists (segments s0.ts and s1.ts exist beside them).
HLS = {
    "vod": "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
           "#EXTINF:1.5,\ns0.ts\n#EXTINF:1.5,\ns1.ts\n#EXT-X-ENDLIST\n",
    "live-dates": "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n"
                  "#EXT-X-SERVER-CONTROL:HOLD-BACK=3.0\n"
                  "#EXT-X-PROGRAM-DATE-TIME:2024-05-01T10:00:00.000Z\n#EXTINF:1.5,\ns0.ts\n"
                  "#EXT-X-PROGRAM-DATE-TIME:2024-05-01T10:00:01.500Z\n#EXTINF:1.5,\ns1.ts\n",
    "discontinuity": "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:1.5,\ns0.ts\n"
                     "#EXT-X-DISCONTINUITY\n#EXTINF:1.5,\ns1.ts\n#EXT-X-START:TIME-OFFSET=-1.0,PRECISE=YES\n",
    "byterange": "#EXTM3U\n#EXT-X-VERSION:4\n#EXT-X-TARGETDURATION:2\n#EXTINF:1.0,\n#EXT-X-BYTERANGE:5640@0\ns0.ts\n"
                 "#EXTINF:0.5,\n#EXT-X-BYTERANGE:6204\ns0.ts\n#EXT-X-ENDLIST\n",
    "map": "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"s0.ts\",BYTERANGE=\"188@0\"\n"
           "#EXTINF:1.5,\ns1.ts\n#EXT-X-ENDLIST\n",
    "master": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000,RESOLUTION=64x48,CODECS=\"avc1.42e00a\"\nvod.m3u8\n"
              "#EXT-X-STREAM-INF:BANDWIDTH=200000\nfz.m3u8\n",
    "odd-numbers": "#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999\n#EXT-X-MEDIA-SEQUENCE:-5\n"
                   "#EXTINF:-1,\ns0.ts\n#EXTINF:1e308,\ns1.ts\n#EXT-X-ENDLIST\n",
}
for name, text in HLS.items():
    write("hls", name, text.encode())


# fuzz_nal: mode byte (bit 0 HEVC; bits 1-2 framing: Annex B, 1-, 2-, 4-byte lengths; bits 3-5
# the HEVC top TemporalId, 7 unknown; bit 6: bytes 1-2 = extradata length (big-endian), then the extradata),
# then one packet. Hand-made packets, then real ones (ffprobe -show_data) with their extradata.
import shutil
import subprocess
import tempfile


def nal_mode(hevc, framing, tid=0, extradata=False):
    return bytes([(1 if hevc else 0) | (framing << 1) | (tid << 3) | (0x40 if extradata else 0)])


def lp(units, n=4):
    return b"".join(len(u).to_bytes(n, "big") + u for u in units)


def annexb(units):
    return b"".join((b"\0\0\0\1" if i == 0 else b"\0\0\1") + u for i, u in enumerate(units))


SLICE = b"\x88\x84\x21\xa0"
H264 = {
    "h264-nonref-b": lp([b"\x09\x30", b"\x01" + SLICE]),
    "h264-ref-b": lp([b"\x21" + SLICE]),
    "h264-idr-sps-pps": lp([b"\x67\x64\x00\x1e", b"\x68\xeb\xe3", b"\x65" + SLICE]),
    "h264-mixed-fields": lp([b"\x01" + SLICE, b"\x41" + SLICE]),
    "h264-sei-nonref": lp([b"\x06\x05\x01\x80", b"\x01" + SLICE, b"\x01" + SLICE]),
}
for name, pkt in H264.items():
    write("nal", name, nal_mode(False, 3) + pkt)
write("nal", "h264-annexb-nonref", nal_mode(False, 0) + annexb([b"\x09\x30", b"\x01" + SLICE + b"\0\0\3\1"]) + b"\0\0")
write("nal", "h264-len2", nal_mode(False, 2) + lp([b"\x01" + SLICE], 2))
write("nal", "h264-truncated", nal_mode(False, 3) + lp([b"\x01" + SLICE])[:-1])
HEVC = {
    "hevc-trail-n": lp([bytes([35 << 1, 1, 0x50]), bytes([0, 1]) + SLICE]),
    "hevc-trail-r": lp([bytes([1 << 1, 1]) + SLICE]),
    "hevc-cra-vps-sps-pps": lp([bytes([32 << 1, 1, 0x0c, 1]), bytes([33 << 1, 1, 1 | (2 << 1), 1, 0x60]),
                                bytes([34 << 1, 1, 0xc1]), bytes([21 << 1, 1]) + SLICE]),
    "hevc-rasl-n-sei": lp([bytes([39 << 1, 1, 5, 1, 0x80]), bytes([8 << 1, 1]) + SLICE, bytes([40 << 1, 1, 0x80])]),
    "hevc-tid2": lp([bytes([0, 3]) + SLICE]),
}
for name, pkt in HEVC.items():
    write("nal", name, nal_mode(True, 3, 0 if "tid2" not in name else 2) + pkt)
write("nal", "hevc-annexb-tsa-n", nal_mode(True, 0, 1) + annexb([bytes([2 << 1, 2]) + SLICE]))
write("nal", "hevc-unknown-tid", nal_mode(True, 3, 7) + lp([bytes([0, 1]) + SLICE]))
hvcc = bytearray(23)
hvcc[0], hvcc[21], hvcc[22] = 1, (1 << 3) | 3, 1
hvcc += bytes([0x80 | 33, 0, 1, 0, 5]) + bytes([33 << 1, 1, 1, 1, 0x60])
write("nal", "hevc-hvcc-extradata", nal_mode(True, 3, 0, True) + len(hvcc).to_bytes(2, "big") + bytes(hvcc)
      + lp([bytes([0, 1]) + SLICE]))
avcc = b"\x01\x64\x00\x1e\xff\xe1\x00\x04\x67\x64\x00\x1e\x01\x00\x03\x68\xeb\xe3"
write("nal", "h264-avcc-extradata", nal_mode(False, 3, 0, True) + len(avcc).to_bytes(2, "big") + avcc + lp([b"\x01" + SLICE]))


def ffprobe_hex(args):
    """The hex dumps of ffprobe -show_data output, one bytes object per dump."""
    out = subprocess.run(["ffprobe", "-v", "error"] + args, capture_output=True, text=True).stdout
    dumps, cur = [], None
    for line in out.splitlines():
        if line in ("data=", "extradata="):
            cur = bytearray()
            dumps.append((line[:-1], cur))
        elif cur is not None and len(line) > 10 and line[8] == ":":
            cur += bytes.fromhex("".join(line[10:50].split()))
        else:
            cur = None
    return dumps


def real_seeds(path, hevc, tag, packets=8):
    if shutil.which("ffprobe") is None:
        return
    ex = [d for k, d in ffprobe_hex(["-select_streams", "v:0", "-show_streams", "-show_data", path]) if k == "extradata"]
    e = bytes(ex[0]) if ex else b""
    annex = not e or e[0] != 1
    length = 4 if annex else (((e[21] if hevc else e[4]) & 3) + 1)
    framing = 0 if annex else {1: 1, 2: 2, 4: 3}.get(length, 3)
    pk = [d for k, d in ffprobe_hex(["-select_streams", "v:0", "-show_packets", "-show_data",
                                     "-read_intervals", "%+#" + str(packets), path]) if k == "data"]
    for i, d in enumerate(pk[:packets]):
        if len(d) <= 4096:
            write("nal", f"real-{tag}-{i}", nal_mode(hevc, framing, 0, True) + len(e).to_bytes(2, "big") + e + bytes(d))


real_seeds(os.path.join(FILES, "tiny.mp4"), False, "tiny_mp4")
real_seeds(os.path.join(FILES, "tiny.ts"), False, "tiny_ts")
if shutil.which("ffmpeg"):
    with tempfile.TemporaryDirectory() as tmp:
        for ext in ("mkv", "ts"):
            out = os.path.join(tmp, "hevc." + ext)
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25:duration=0.5",
                            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                            "bframes=4:b-pyramid=1:keyint=6:open-gop=1:pools=1:frame-threads=1:log-level=error",
                            out], check=False)
            if os.path.exists(out):
                real_seeds(out, True, "hevc_" + ext, packets=10)


# fuzz_preview: a kind byte (even: spritesheet.json, odd: WebVTT), then the source.
write("preview", "sheet", b"\x00" + b'{"url":"sprite.jpg","tile_width":160,"tile_height":90,"duration":6.006,'
      b'"tiles":[{"start":0.0,"x":0,"y":0},{"start":1.6016,"x":160,"y":0},{"start":3.2032,"x":320,"y":0,'
      b'"url":"sprite-1.jpg"}]}')
write("preview", "sheet-ties", b"\x02" + b'{"url":"a","tile_width":1,"tile_height":1,"duration":0,'
      b'"tiles":[{"start":2,"x":1,"y":0},{"start":2,"x":2,"y":0},{"start":1e-6,"x":0,"y":0}]}')
write("preview", "vtt", b"\x01" + b"WEBVTT\n\nNOTE n\n\nc1\n00:00.000 --> 00:01.602\nsprite.jpg#xywh=0,0,160,90\n\n"
      b"00:00:01.602 --> 01:00:03.204 align:start\nhttp://h/x.jpg#xywh=pixel:160,0,160,90\n")
write("preview", "malformed", b"\x00" + b'{"url":"a","tile_width":1,"tile_height":1,"duration":1,"tiles":[{"start":"x"}]}')
