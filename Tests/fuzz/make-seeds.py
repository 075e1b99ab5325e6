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
