"""wheel_probe.py CASES.json [--base URL]: run by Tests/packaging/test-wheel.sh with the Python of a virtual
environment where only the wheel of `make wheel` and PyPI's PyAV are installed (in a Debian
root without FFmpeg). For each case (a media file, a time, the pts of the frame covering it
according to ffprobe, and the md5 of ffmpeg's own decode of that frame, all computed outside
by the test), Player.frame_at(time) must return that frame with those pixels (framecheck's
md5 of the PyAV frame). Also reports where every FFmpeg library in the process came from
(/proc/self/maps) and the library's fpx_ffmpeg_versions. With --base, the files are opened
as URL/NAME (a test's http or https server) instead of next to CASES.json. Prints one JSON
object; exit 1 on any wrong frame.
"""
import json
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import framecheck  # noqa: E402  (copied next to this file; stdlib only at import)

import av  # noqa: E402
import fastpix_seek  # noqa: E402
from fastpix_seek import Player, _lib  # noqa: E402


def main() -> int:
    cases = json.load(open(sys.argv[1]))
    base = os.path.dirname(os.path.abspath(sys.argv[1]))
    if len(sys.argv) > 3 and sys.argv[2] == "--base":
        base = sys.argv[3]
    results, wrong = [], []
    by_file = {}
    for c in cases:
        by_file.setdefault(c["file"], []).append(c)
    for name, cs in by_file.items():
        with Player(base + "/" + name) as p:
            p.wait_item(timeout=20)
            for c in cs:
                r = p.frame_at(Fraction(c["time"]))
                got = {"file": name, "time": c["time"], "pts": r.pts, "md5": framecheck.frame_md5(r.frame)}
                results.append(got)
                if got["pts"] != c["pts"] or got["md5"] != c["md5"]:
                    wrong.append({"expected": c, "got": got})
    maps = sorted({line.split()[-1] for line in open("/proc/self/maps")
                   if "/lib" in line and any(k in line for k in ("libav", "libfastpixseek", "libmbed", "libz"))})
    v = fastpix_seek.ffmpeg_versions()
    print(json.dumps({"library": _lib.library_path, "found_by": _lib.library_found_by,
                      "pyav": av.__version__, "ffmpeg_versions": repr(v), "maps": maps,
                      "frames": len(results), "wrong": wrong}))
    return 1 if wrong or not results else 0


if __name__ == "__main__":
    sys.exit(main())
