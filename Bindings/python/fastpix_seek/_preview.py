"""Seek previews (seek.h, "Seek previews"): a spritesheet.json, a WebVTT thumbnail track or
the item's keyframe index as a player's preview source, and the preview of any time, as a
mixin of :class:`~fastpix_seek.Player`."""

from __future__ import annotations

import ctypes
import os
from typing import Optional, Union

from . import _lib
from . import errors as _errors
from ._base import PathLike, _PlayerBase
from .types import Preview, PreviewField, PreviewKind, TimeLike, _enum, to_fpx_time


class _PreviewMixin(_PlayerBase):
    """The seek-preview methods of :class:`~fastpix_seek.Player`."""

    def set_preview_source(self, kind: Union[PreviewKind, int], url: Optional[PathLike] = None) -> None:
        """Gives the player a preview source (seek.h, "Seek previews"), replacing the one it
        had: ``PreviewKind.SPRITESHEET`` or ``WEBVTT`` with the path or URL of a
        spritesheet.json or a WebVTT thumbnail track (read and parsed now, on this thread,
        under the player's protocol policy), ``KEYFRAME_INDEX`` (the item's keyframes, read by
        the preview's own demuxer) or ``NONE`` without a url. A malformed source raises
        ``PreviewMalformedError`` whose ``field`` (a ``PreviewField``) names the field; a URL
        the policy refuses, ``ProtocolNotAllowedError`` with ``field`` too. On any error the
        player has no preview source. The C function is ``fpx_player_set_preview_source``."""
        raw = None if url is None else os.fsencode(url)
        field = ctypes.c_int(0)
        rc = _lib.lib.fpx_player_set_preview_source(self._hq(), int(kind), raw, ctypes.byref(field))
        if rc < 0:
            e = _lib.make_error(rc, "fpx_player_set_preview_source")
            setattr(e, "field", _enum(PreviewField, field.value))
            raise e

    def preview(self, t: TimeLike) -> Preview:
        """The preview of time ``t`` (exact; clamped into the source's range as a seek's
        target is). ``NoPreviewError`` without a source: show a timestamp-only preview.
        Sheets and tracks never block; the keyframe index reads on this thread, with its own
        demuxer (never the player's packet stream). The C function is ``fpx_player_preview``."""
        out = _lib.fpx_preview()
        _lib.lib.fpx_player_preview(self._hq(), to_fpx_time(t, "preview time", _errors.InvalidTimeError),
                                    ctypes.byref(out))
        return Preview._from_c(out)
