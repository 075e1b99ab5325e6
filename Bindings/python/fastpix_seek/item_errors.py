"""An item's error as the answer to "why did this file or URL not open?".

The library reports a failed item as one ``fpx_error`` code plus FFmpeg's original
``AVERROR`` (``ItemStatusInfo.av_error``); the code's text lists every cause the code stands
for ("missing file, HTTP 404, unknown listener id"). :func:`item_error` turns them into the
exception :meth:`Player.wait_item` raises:

* it names the path or URL (``url``, and the text opens with it);
* its ``message`` gives only the cause that fits: the system's words for the errno of a
  local file ("No such file or directory", "Permission denied"), the HTTP status of a URL
  ("HTTP 404 Not Found"), the network errno of a URL ("Connection refused"); else the
  code's text narrowed to the kind of item (no "HTTP 404" for a local file);
* it is an instance of the code's class (:class:`~fastpix_seek.errors.NotFoundError`...) and,
  where one fits, of the built-in exception a user would catch, through the subclasses
  below: a missing local file is a ``FileNotFoundError``, a local file the process may not
  read or a URL the server refuses (HTTP 401, 403) a ``PermissionError``, a directory an
  ``IsADirectoryError``. Timeouts already
  are ``TimeoutError`` (:class:`~fastpix_seek.errors.FastPixTimeoutError`), a refused
  protocol a ``PermissionError`` and a refused connection a ``ConnectionError``.

:class:`StreamIndexError` is the ``IndexError`` for a stream, variant or rendition index the
item does not have.
"""

from __future__ import annotations

import errno
import os
from typing import Dict, Optional, Tuple, Type

from .errors import (FastPixIOError, FastPixSeekError, InvalidArgumentError, NotFoundError,
                     UnsupportedError, error_class_for)

__all__ = ["MediaNotFoundError", "MediaPermissionError", "MediaIsADirectoryError", "HTTPAccessError",
           "StreamIndexError", "item_error", "is_local"]


class MediaNotFoundError(NotFoundError, FileNotFoundError):
    """A local media file that does not exist (``errno`` ENOENT, ``filename`` its path)."""


class MediaPermissionError(NotFoundError, PermissionError):
    """A local media file this process may not open (``errno`` EACCES or EPERM; the library
    reports it as FPX_ERROR_NOT_FOUND)."""


class MediaIsADirectoryError(UnsupportedError, IsADirectoryError):
    """A local path that is a directory, not a media file (``errno`` EISDIR)."""


class HTTPAccessError(FastPixIOError, PermissionError):
    """A URL whose server refuses access (HTTP 401 Unauthorized, 403 Forbidden)."""


class StreamIndexError(InvalidArgumentError, IndexError):
    """A stream, variant or rendition index the item does not have."""


def _http_tag(status: str) -> int:
    """FFmpeg's AVERROR_HTTP_* value: FFERRTAG(0xF8, status[0], status[1], status[2])."""
    a, b, c = (ord(ch) for ch in status)
    return -(0xF8 | (a << 8) | (b << 16) | (c << 24))


#: FFmpeg's AVERROR_HTTP_* -> (the status as users read it, the refinement class or None).
_HTTP: Dict[int, Tuple[str, Optional[Type[FastPixSeekError]]]] = {
    _http_tag("400"): ("HTTP 400 Bad Request", None),
    _http_tag("401"): ("HTTP 401 Unauthorized", HTTPAccessError),
    _http_tag("403"): ("HTTP 403 Forbidden", HTTPAccessError),
    _http_tag("404"): ("HTTP 404 Not Found", None),
    _http_tag("4XX"): ("HTTP 4xx client error", None),
    _http_tag("5XX"): ("HTTP 5xx server error", None),
}

#: Errnos that name a network cause for a URL (others are FFmpeg's own and say nothing).
_NET_ERRNOS = (errno.ECONNREFUSED, errno.ECONNRESET, errno.EHOSTUNREACH, errno.ENETUNREACH,
               errno.ETIMEDOUT, errno.ECONNABORTED, errno.EPIPE)

#: The code's text narrowed to a local file and to a URL, for codes whose text lists both.
_NARROWED: Dict[int, Tuple[str, str]] = {
    NotFoundError.default_code: ("missing file", "HTTP 404 (no such resource)"),
    UnsupportedError.default_code: (
        "not a regular file (a directory, FIFO, device, socket)",
        "a protocol or feature this build cannot do"),
    FastPixIOError.default_code: ("read error", "read error, connection reset"),
}


def is_local(url: str) -> bool:
    """True for a path or a ``file:`` URL, False for ``scheme://`` URLs."""
    return "://" not in url or url.startswith("file://")


def _local_path(url: str) -> str:
    if url.startswith("file://"):
        return url[7:]
    return url[5:] if url.startswith("file:") else url


def item_error(err: FastPixSeekError, url: str, av_error: int = 0) -> FastPixSeekError:
    """``err`` (an item's error) as the exception to raise for the item ``url``: the same
    code and function, the cause that fits as its message, ``url`` set, and the refinement
    class where a built-in fits (module doc). ``av_error`` is FFmpeg's original AVERROR
    (``ItemStatusInfo.av_error``; 0 when unknown)."""
    local = is_local(url)
    cls: Type[FastPixSeekError] = type(err)
    cause: Optional[str] = None
    err_no: Optional[int] = None
    if av_error in _HTTP and not local:
        cause, refined = _HTTP[av_error]
        if refined is not None and issubclass(refined, cls):
            cls = refined
    elif av_error < 0 and -av_error < 4096 and (local or -av_error in _NET_ERRNOS):
        err_no = -av_error
        cause = os.strerror(err_no)
    if cause is None:
        pair = _NARROWED.get(err.code)
        cause = err.message if pair is None else pair[0 if local else 1]
    if local and isinstance(err, NotFoundError):
        if err_no in (errno.EACCES, errno.EPERM):
            cls = MediaPermissionError
        elif err_no in (None, errno.ENOENT, errno.ENOTDIR):
            cls = MediaNotFoundError
            err_no = err_no or errno.ENOENT
    detail = err.detail
    if local and isinstance(err, UnsupportedError) and os.path.isdir(_local_path(url)):
        cls = MediaIsADirectoryError
        err_no = errno.EISDIR
        cause, detail = "a directory, not a media file", None
    if not issubclass(cls, error_class_for(err.code)):
        cls = error_class_for(err.code)
    out = cls(err.code, cause, err.function, detail)
    out.url = url
    if isinstance(out, OSError):
        # OSError's own fields, as open() would set them for a local file.
        out.errno = err_no
        out.strerror = cause
        out.filename = _local_path(url) if local else url
    return out
