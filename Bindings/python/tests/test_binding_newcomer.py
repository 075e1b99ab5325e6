"""Issue 20, the binding side of a newcomer's first minutes: a directory is named as such, not
as an "unsupported protocol or feature"."""
from __future__ import annotations

from pathlib import Path

import pytest

from fastpix_seek import Player
from fastpix_seek.errors import UnsupportedError


@pytest.mark.parametrize("form", ["plain", "file:"])
def test_a_directory_is_named_as_a_directory(tmp_path: Path, form: str):
    url = str(tmp_path) if form == "plain" else "file:" + str(tmp_path)
    with Player(url) as p:
        with pytest.raises(UnsupportedError) as ei:
            p.wait_item(timeout=10)
    # Issue 29.7: the path opens the text, the cause is the one that fits, and it is the
    # built-in a user would catch (open() on a directory raises IsADirectoryError).
    assert isinstance(ei.value, IsADirectoryError) and ei.value.url == url
    assert ei.value.message == "a directory, not a media file"
    assert str(ei.value) == f"{url}: FPX_ERROR_UNSUPPORTED (-13): a directory, not a media file"


def test_other_unsupported_items_keep_the_library_message(tmp_path: Path):
    import os
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with Player(str(fifo)) as p:
        with pytest.raises(UnsupportedError) as ei:
            p.wait_item(timeout=10)
    assert ei.value.detail is None


def test_item_info_says_when_the_file_is_truncated(fixtures_dir: Path, tmp_path: Path):
    """fpx_item_info.seekable_range_truncated: the first 100 kB of a faststart MP4 announce
    the whole duration but hold under a second of frames; the intact file is not truncated."""
    import subprocess
    whole = tmp_path / "faststart.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(fixtures_dir / "mp4_bframes.mp4"), "-c", "copy",
                    "-movflags", "+faststart", str(whole)], check=True)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[:100_000])
    with Player(str(cut)) as p:
        p.wait_item(timeout=20)
        info = p.item_info()
        start, end = p.seekable_range()
        assert info.duration is not None and info.duration - end > 1
        assert info.seekable_range_truncated is True
    for intact in (whole, fixtures_dir / "mp4_bframes.mp4", fixtures_dir / "ts.ts", fixtures_dir / "audio.mp3"):
        with Player(str(intact)) as p:
            p.wait_item(timeout=20)
            assert p.item_info().seekable_range_truncated is False, intact
