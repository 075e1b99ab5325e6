# Generated from Include/fastpix/seek.h by python3 tools/abi_gen.py (make gen). Do not edit.
"""Exceptions raised by fastpix_seek.

Every negative ``fpx_error`` code returned by the C library becomes an instance of
:class:`FastPixSeekError` (or of the subclass registered for that code, see
:data:`ERROR_CLASSES`). The instance carries the numeric ``code``, the symbolic ``name``
(``"FPX_ERROR_TIMEOUT"``), the library's own English ``message`` (``fpx_error_string``)
and, when known, the C ``function`` that returned it.

Errors the binding detects itself before calling the library (a NaN target, a negative
tolerance, a closed player) use the same classes and codes the library would have returned,
so ``except InvalidTimeError`` catches both.

Subclasses also derive from the closest built-in exception, so generic handlers work:
``InvalidTimeError`` is a ``ValueError``, ``FastPixTimeoutError`` a ``TimeoutError``,
``FastPixIOError`` an ``OSError``, ``EndOfFile`` an ``EOFError`` and so on.

The classes, their codes and their docstrings are generated from Include/fastpix/seek.h
(tools/abi_gen.py); their names and built-in bases are kept in that generator.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Type

from ._abi import ERRORS as _ERRORS

__all__ = [
    "FastPixSeekError",
    "InvalidHandleError",
    "InvalidArgumentError",
    "InvalidTimeError",
    "UnknownEnumError",
    "FastPixMemoryError",
    "NoItemError",
    "ItemNotReadyError",
    "ItemFailedError",
    "NotFoundError",
    "FastPixIOError",
    "FastPixTimeoutError",
    "InvalidDataError",
    "UnsupportedError",
    "NoStreamError",
    "EndOfFile",
    "FastPixCancelledError",
    "InCallbackError",
    "WrongModeError",
    "NetworkError",
    "NoSeekManagerError",
    "InternalError",
    "InvalidStateError",
    "ExpiredError",
    "StalledError",
    "ProtocolNotAllowedError",
    "ReadInterruptedError",
    "TooLargeError",
    "FFmpegMismatchError",
    "ReferenceStreamError",
    "NoFileDescriptorsError",
    "EncryptionError",
    "NoPreviewError",
    "PreviewMalformedError",
    "ERROR_CLASSES",
    "ERROR_NAMES",
    "error_class_for",
]


#: fpx_error values, as in Include/fastpix/seek.h.
ERROR_NAMES: Dict[int, str] = {code: name for code, (name, _) in _ERRORS.items()}


class FastPixSeekError(Exception):
    """Base class of every error of the library and of this binding.

    Attributes:
        code: the negative ``fpx_error`` value.
        name: its symbolic name, e.g. ``"FPX_ERROR_INVALID_TIME"`` (``"FPX_UNKNOWN"`` for codes
            this binding does not know).
        message: the library's description (``fpx_error_string(code)``).
        function: the C function that returned the code, or ``None`` when the binding raised
            the error itself.
        detail: extra context added by the binding (``None`` when there is none).
        url: the item's path or URL when the error is about it (the binding names it: errors
            of ``Player.wait_item``, the frame helpers), else ``None``; the text then opens
            with it.
    """

    #: The code a subclass stands for; the base class uses whatever code it is given.
    default_code: int = 0

    code: int
    name: str
    message: str
    function: Optional[str]
    detail: Optional[str]
    url: Optional[str] = None

    def __init__(self, code: Optional[int] = None, message: Optional[str] = None,
                 function: Optional[str] = None, detail: Optional[str] = None) -> None:
        c = self.default_code if code is None else int(code)
        self.code = c
        self.name = ERROR_NAMES.get(c, "FPX_UNKNOWN")
        self.message = message if message is not None else _fallback_message(c)
        self.function = function
        self.detail = detail
        super().__init__(self._text())

    def _text(self) -> str:
        head = f"{self.url}: " if self.url else f"{self.function}: " if self.function else ""
        tail = f" ({self.detail})" if self.detail else ""
        return f"{head}{self.name} ({self.code}): {self.message}{tail}"

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]  # picklable despite the keyword-style constructor
        return (type(self), (self.code, self.message, self.function, self.detail),
                {"url": self.url})


#: fpx_error_string, installed by fastpix_seek._lib once the library is bound, so errors the
#: binding raises itself carry the library's own message too.
_message_source: Optional[Callable[[int], str]] = None


def _fallback_message(code: int) -> str:
    if _message_source is not None:
        try:
            return _message_source(code)
        except Exception:
            pass
    entry = _ERRORS.get(code)
    return entry[1] if entry else "unknown error"


class InvalidHandleError(FastPixSeekError, ValueError):
    """FPX_ERROR_INVALID_HANDLE: invalid handle: NULL, destroyed or foreign.

    Also raised for a closed Player.
    """
    default_code = -1


class InvalidArgumentError(FastPixSeekError, ValueError):
    """FPX_ERROR_INVALID_ARGUMENT: invalid argument: a NULL pointer or an out-of-range value."""
    default_code = -2


class InvalidTimeError(FastPixSeekError, ValueError):
    """FPX_ERROR_INVALID_TIME: invalid time: NaN, infinite, invalid, timescale <= 0."""
    default_code = -3


class UnknownEnumError(FastPixSeekError, ValueError):
    """FPX_ERROR_UNKNOWN_ENUM: an enum value this library does not know."""
    default_code = -4


class FastPixMemoryError(FastPixSeekError, MemoryError):
    """FPX_ERROR_NO_MEMORY: out of memory."""
    default_code = -5


class NoItemError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_NO_ITEM: nothing is attached to the player."""
    default_code = -6


class ItemNotReadyError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_ITEM_NOT_READY: the item is still loading."""
    default_code = -7


class ItemFailedError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_ITEM_FAILED: the item failed to load; see its status."""
    default_code = -8


class NotFoundError(FastPixSeekError):
    """FPX_ERROR_NOT_FOUND: missing file, HTTP 404, unknown listener id."""
    default_code = -9


class FastPixIOError(FastPixSeekError, OSError):
    """FPX_ERROR_IO: I/O error: read error, connection reset."""
    default_code = -10


class FastPixTimeoutError(FastPixSeekError, TimeoutError):
    """FPX_ERROR_TIMEOUT: timed out: the player's I/O timeout, or the call's own time limit
    (timeout_ms), expired.

    The binding raises it too when one of its own waits (timeout=...) expires.
    """
    default_code = -11


class InvalidDataError(FastPixSeekError, ValueError):
    """FPX_ERROR_INVALID_DATA: corrupt, truncated or unrecognised media."""
    default_code = -12


class UnsupportedError(FastPixSeekError):
    """FPX_ERROR_UNSUPPORTED: a protocol or feature this build cannot do, or a local path that is
    no regular file (a directory, FIFO, device, socket).
    """
    default_code = -13


class NoStreamError(FastPixSeekError):
    """FPX_ERROR_NO_STREAM: no audio or video stream to seek on."""
    default_code = -14


class EndOfFile(FastPixSeekError, EOFError):
    """FPX_ERROR_EOF: end of the item's packets."""
    default_code = -15


class FastPixCancelledError(FastPixSeekError):
    """FPX_ERROR_CANCELLED: cancelled: the item was closed or replaced, or the player destroyed.

    Deliberately *not* a subclass of ``asyncio.CancelledError`` (a ``BaseException``).
    """
    default_code = -16


class InCallbackError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_IN_CALLBACK: not callable from inside a callback."""
    default_code = -17


class WrongModeError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_WRONG_MODE: not available in this delivery mode (e.g. dispatch on a
    FPX_DELIVERY_THREAD player).
    """
    default_code = -18


class NetworkError(FastPixSeekError, ConnectionError):
    """FPX_ERROR_NETWORK: connection refused, unreachable host."""
    default_code = -19


class NoSeekManagerError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_NO_SEEK_MANAGER: the operation needs fpx_player_setup_seek_manager."""
    default_code = -20


class InternalError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_INTERNAL: internal error: a bug, please report it."""
    default_code = -21


class InvalidStateError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_INVALID_STATE: invalid state (e.g. fpx_scrub_update without fpx_scrub_begin)."""
    default_code = -22


class ExpiredError(FastPixSeekError):
    """FPX_ERROR_EXPIRED: the live segment being read left the playlist window."""
    default_code = -23


class StalledError(FastPixSeekError, TimeoutError):
    """FPX_ERROR_STALLED: a live playlist stopped updating."""
    default_code = -24


class ProtocolNotAllowedError(FastPixSeekError, PermissionError):
    """FPX_ERROR_PROTOCOL_NOT_ALLOWED: refused by the protocol policy (see "Untrusted media").

    The policy is ``Player(protocols=...)``.
    """
    default_code = -25


class ReadInterruptedError(FastPixSeekError):
    """FPX_ERROR_INTERRUPTED: a blocked read stopped by a seek, cancel, close or destroy.

    No packet was consumed; read again after the seek.
    """
    default_code = -26


class TooLargeError(FastPixSeekError, MemoryError):
    """FPX_ERROR_TOO_LARGE: media exceeds the player's buffer cap (max_buffer_bytes).

    The cap is ``Player(max_buffer_bytes=...)``.
    """
    default_code = -27


class FFmpegMismatchError(FastPixSeekError, RuntimeError):
    """FPX_ERROR_FFMPEG_MISMATCH: loaded FFmpeg majors differ from the build's; see "FFmpeg ABI".

    See ``fastpix_seek.ffmpeg_versions()``.
    """
    default_code = -28


class ReferenceStreamError(FastPixSeekError, ValueError):
    """FPX_ERROR_REFERENCE_STREAM: the reference stream cannot be disabled."""
    default_code = -29


class NoFileDescriptorsError(FastPixSeekError, OSError):
    """FPX_ERROR_NO_FILE_DESCRIPTORS: the process (EMFILE) or system (ENFILE) is out of file
    descriptors.
    """
    default_code = -30


class EncryptionError(FastPixSeekError):
    """FPX_ERROR_ENCRYPTION: HLS encryption that cannot be applied: an EXT-X-KEY METHOD other than
    NONE or AES-128 (SAMPLE-AES...), a KEYFORMAT other than identity, a key that cannot be
    fetched or is not 16 bytes, or a segment that does not decrypt; a DASH MPD with
    ContentProtection (added in 0.4.0).
    """
    default_code = -31


class NoPreviewError(FastPixSeekError):
    """FPX_ERROR_NO_PREVIEW: the player has no preview source: show a timestamp-only preview (added
    in 0.4.0).
    """
    default_code = -32


class PreviewMalformedError(FastPixSeekError):
    """FPX_ERROR_PREVIEW_MALFORMED: a preview source (spritesheet.json, WebVTT track) with a field
    that does not parse; fpx_player_set_preview_source names the field (added in 0.4.0).
    """
    default_code = -33


#: code -> exception class. Unknown codes map to FastPixSeekError itself.
ERROR_CLASSES: Dict[int, Type[FastPixSeekError]] = {
    InvalidHandleError.default_code: InvalidHandleError,
    InvalidArgumentError.default_code: InvalidArgumentError,
    InvalidTimeError.default_code: InvalidTimeError,
    UnknownEnumError.default_code: UnknownEnumError,
    FastPixMemoryError.default_code: FastPixMemoryError,
    NoItemError.default_code: NoItemError,
    ItemNotReadyError.default_code: ItemNotReadyError,
    ItemFailedError.default_code: ItemFailedError,
    NotFoundError.default_code: NotFoundError,
    FastPixIOError.default_code: FastPixIOError,
    FastPixTimeoutError.default_code: FastPixTimeoutError,
    InvalidDataError.default_code: InvalidDataError,
    UnsupportedError.default_code: UnsupportedError,
    NoStreamError.default_code: NoStreamError,
    EndOfFile.default_code: EndOfFile,
    FastPixCancelledError.default_code: FastPixCancelledError,
    InCallbackError.default_code: InCallbackError,
    WrongModeError.default_code: WrongModeError,
    NetworkError.default_code: NetworkError,
    NoSeekManagerError.default_code: NoSeekManagerError,
    InternalError.default_code: InternalError,
    InvalidStateError.default_code: InvalidStateError,
    ExpiredError.default_code: ExpiredError,
    StalledError.default_code: StalledError,
    ProtocolNotAllowedError.default_code: ProtocolNotAllowedError,
    ReadInterruptedError.default_code: ReadInterruptedError,
    TooLargeError.default_code: TooLargeError,
    FFmpegMismatchError.default_code: FFmpegMismatchError,
    ReferenceStreamError.default_code: ReferenceStreamError,
    NoFileDescriptorsError.default_code: NoFileDescriptorsError,
    EncryptionError.default_code: EncryptionError,
    NoPreviewError.default_code: NoPreviewError,
    PreviewMalformedError.default_code: PreviewMalformedError,
}


def error_class_for(code: int) -> Type[FastPixSeekError]:
    """The exception class for an fpx_error code (FastPixSeekError for unknown codes)."""
    return ERROR_CLASSES.get(int(code), FastPixSeekError)
