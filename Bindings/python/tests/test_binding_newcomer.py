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
    assert ei.value.detail == f"{tmp_path} is a directory, not a media file"
    assert str(ei.value).endswith(f"({tmp_path} is a directory, not a media file)")


def test_other_unsupported_items_keep_the_library_message(tmp_path: Path):
    import os
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with Player(str(fifo)) as p:
        with pytest.raises(UnsupportedError) as ei:
            p.wait_item(timeout=10)
    assert ei.value.detail is None
