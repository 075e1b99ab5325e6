"""read_packet() on one Player from 16 threads: every packet carries its own bytes.

Issue 9, defect 5: the binding copied the payload after the C call returned, when another
thread's read had already invalidated it (232,300 wrong packets of 788,471 with 16 threads).
Each packet read is looked up in ffprobe's list by (stream, byte position) and its pts, dts,
size and adler32 must match.
"""

from __future__ import annotations

import subprocess
import threading
import zlib
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import fastpix_seek
from fastpix_seek import Player


def ffprobe_packets(path: Path) -> Dict[Tuple[int, int], Tuple[Optional[int], Optional[int], int, int]]:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries",
         "packet=stream_index,pts,dts,size,pos,flags,data_hash", "-show_data_hash", "adler32",
         "-of", "csv=p=0", str(path)],
        check=True, capture_output=True, text=True).stdout
    table = {}
    record: List[str] = []
    for line in out.splitlines():
        if line[:1].isdigit():
            record = line.split(",")
        elif not record:
            continue
        else:
            record += line.split(",")
        h = [f for f in record if f.startswith("adler32:")]
        if not h:
            continue
        s, pts, dts, size, pos = record[:5]
        ts = lambda v: None if v == "N/A" else int(v)  # noqa: E731
        table[(int(s), int(pos))] = (ts(pts), ts(dts), int(size), int(h[0][8:], 16))
        record = []
    return table


def test_sixteen_readers_get_their_own_bytes(fixtures_dir: Path) -> None:
    path = fixtures_dir / "mp4_bframes.mp4"
    truth = ffprobe_packets(path)
    assert truth
    stop = threading.Event()
    lock = threading.Lock()
    counts = {"reads": 0, "bad": 0, "missing": 0, "interrupted": 0}
    bad: List[str] = []
    crashed: List[BaseException] = []

    with Player(path) as p:
        p.wait_item(10)

        def reader() -> None:
            try:
                read_until_stopped()
            except BaseException as e:  # a reader thread that dies must fail the test
                crashed.append(e)

        def read_until_stopped() -> None:
            while not stop.is_set():
                try:
                    pkt = p.read_packet()
                except fastpix_seek.errors.EndOfFile:
                    p.seek(0)
                    continue
                except fastpix_seek.errors.ReadInterruptedError:
                    # Another reader's seek at the end of the file interrupted this read
                    # (seek.h: a new seek interrupts a blocked read); nothing was consumed.
                    with lock:
                        counts["interrupted"] += 1
                    continue
                t = truth.get((pkt.stream_index, pkt.pos if pkt.pos is not None else -1))
                with lock:
                    counts["reads"] += 1
                    if t is None:
                        counts["missing"] += 1
                        continue
                    pts, dts, size, adler = t
                    if (pkt.pts != pts or (pkt.dts is not None and pkt.dts != dts)
                            or len(pkt.data) != size or zlib.adler32(pkt.data) != adler):
                        counts["bad"] += 1
                        if len(bad) < 5:
                            bad.append(f"stream {pkt.stream_index} pos {pkt.pos} pts {pkt.pts}")

        threads = [threading.Thread(target=reader) for _ in range(16)]
        for t in threads:
            t.start()
        stop.wait(3.0)
        stop.set()
        for t in threads:
            t.join()
    assert not crashed, crashed
    assert counts["reads"] > 1000, counts
    assert counts["missing"] == 0, counts
    assert counts["bad"] == 0, (counts, bad)
