#!/usr/bin/env python3
"""check_landed_frame.py MEDIA TARGET IMAGE [--pts N]

Checks an image written by Examples/c/decode_landing or Examples/python/decode_landing.py
against ground truth that the library had no part in:

* the frame time: the pts recorded in the image's comment (PPM "# fastpixseek pts=N ...")
  or given with --pts must be the pts of the frame covering TARGET according to
  `ffprobe -show_frames` (groundtruth.py; TARGET is item-timeline seconds, "2.5" or "n/d");
* the pixels: the image must match the ffmpeg CLI's own decode of that frame (selected by
  its index in ffprobe's frame list) much better than the decodes of the frames just
  before and after it. Pixel values may differ by a few levels (the examples convert to
  RGB with libswscale or PyAV's reformat, with other scaler settings than the ffmpeg CLI):
  a pixel counts as different above 40 levels.

Stdlib only (any python3). Exit 0 when both hold; prints one line per check.
"""
import argparse
import os
import subprocess
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import groundtruth  # noqa: E402

FFMPEG = os.environ.get("FFMPEG", "ffmpeg")
LEVELS = 40


def parse_ppm(data: bytes, offset: int = 0):
    """-> (width, height, comment, pixels bytes, next offset)."""
    tokens, comment, i = [], "", offset
    while len(tokens) < 4:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            j = data.index(b"\n", i)
            comment += data[i + 1:j].decode("ascii", "replace").strip() + " "
            i = j + 1
            continue
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        tokens.append(data[i:j].decode("ascii"))
        i = j
    i += 1  # one whitespace byte after maxval
    if tokens[0] != "P6" or tokens[3] != "255":
        raise ValueError(f"not an 8-bit P6 PPM: {tokens}")
    w, h = int(tokens[1]), int(tokens[2])
    n = w * h * 3
    return w, h, comment, data[i:i + n], i + n


def ffmpeg_frames(media: str, stream: int, first: int, last: int):
    """The ffmpeg CLI's decodes of frames first..last (display order) as RGB PPMs."""
    cmd = [FFMPEG, "-v", "error", "-nostdin", "-i", media, "-map", f"0:{stream}",
           "-vf", f"select='between(n\\,{first}\\,{last})'", "-fps_mode", "passthrough",
           "-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "-"]
    data = subprocess.run(cmd, check=True, capture_output=True).stdout
    out, off = [], 0
    while off < len(data):
        w, h, _, px, off = parse_ppm(data, off)
        out.append((w, h, px))
    return out


def differing(a: bytes, b: bytes) -> float:
    bad = 0
    for i in range(0, len(a), 3):
        if (abs(a[i] - b[i]) > LEVELS or abs(a[i + 1] - b[i + 1]) > LEVELS
                or abs(a[i + 2] - b[i + 2]) > LEVELS):
            bad += 1
    return bad / (len(a) // 3)


def check(media: str, target: str, image: str, pts=None):
    """[(ok, message)] for the frame-time and pixel checks (see the module doc)."""
    gt = groundtruth.load(media)
    expect = gt.covering(Fraction(target))
    with open(image, "rb") as f:
        w, h, comment, px, _ = parse_ppm(f.read())
    if pts is None:
        fields = dict(t.split("=", 1) for t in comment.split() if "=" in t)
        pts = int(fields["pts"])
    results = []
    if pts == expect.pts:
        results.append((True, f"frame time: pts {pts} = ffprobe's frame covering {target} s "
                              f"({float(gt.to_item(pts)):.6f} s on the item timeline)"))
    else:
        results.append((False, f"frame time: image pts {pts}, ffprobe's frame covering {target} s "
                               f"has pts {expect.pts}"))
    idx = gt.frame_index(expect.pts)
    first = max(idx - 1, 0)
    refs = ffmpeg_frames(media, gt.stream.index, first, idx + 1)
    scores = []
    for k, (rw, rh, rpx) in enumerate(refs):
        if (rw, rh) != (w, h):
            results.append((False, f"image is {w}x{h}, ffmpeg's frame {first + k} is {rw}x{rh}"))
            return results
        scores.append((first + k, differing(px, rpx)))
    mine = dict(scores).get(idx, 1.0)
    others = [s for n, s in scores if n != idx]
    detail = ", ".join(f"frame {n}: {s:.2%}" for n, s in scores)
    if mine < 0.01 and others and all(s > mine for s in others):
        results.append((True, f"pixels match ffmpeg's decode of frame {idx}, not its neighbours "
                              f"(pixels off by >{LEVELS} levels: {detail})"))
    else:
        results.append((False, f"pixels: expected the best match with frame {idx} ({detail})"))
    return results


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("media")
    ap.add_argument("target")
    ap.add_argument("image")
    ap.add_argument("--pts", type=int)
    a = ap.parse_args()
    results = check(a.media, a.target, a.image, a.pts)
    for ok, msg in results:
        print(("ok   - " if ok else "FAIL - ") + msg)
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
