"""A bridge to PyAV (optional): build a PyAV decoder for a stream from the facts the library
reports, and PyAV packets from :class:`~fastpix_seek.Packet` objects, so a Python host can
decode what :meth:`Player.read_packet` returns without opening the file a second time.

    from fastpix_seek import Player, SeekPrecision
    from fastpix_seek.pyav import decoder_for, flush_decoder, to_av_packet

    with Player("movie.mp4") as p:
        p.wait_item(timeout=5)
        ref = p.item_info().reference_stream
        info = p.stream_info(ref)
        dec = decoder_for(info)
        p.seek_wait(12.5, SeekPrecision.exact())
        for pkt in p.packets():
            if pkt.is_discontinuity:
                dec = flush_decoder(dec, info)
            if pkt.stream_index != ref or pkt.is_disposable:  # no later frame needs it
                continue
            for frame in dec.decode(to_av_packet(pkt)):
                if frame.pts is not None and frame.pts >= pkt.landed_pts_in_stream:
                    ...  # the landed frame, then the ones after it

:func:`decode_landed_frame` is that loop, stopping at the landed frame (what
``Examples/python`` uses).

Supported PyAV: 10.0 (Debian 12's ``python3-av``) up to the newest release (declared in
pyproject.toml's ``pyav`` extra). PyAV 10 cannot flush a decoder (:func:`flush_decoder`
makes a new one there) nor set a packet's duration or flags (:func:`to_av_packet` leaves
them unset there: decoders do not need them for video; audio decoders on PyAV 10 output the
discarded edit-list priming samples).

PyAV is not a dependency of fastpix_seek: importing this module raises ImportError with
an explanation when ``av`` is not installed (``pip install 'av>=10'`` or Debian's
``python3-av``; ``pip install 'fastpix-seek[frames]'`` adds PyAV, numpy and Pillow). PyAV may
carry another FFmpeg than the library's: the decoder is chosen in PyAV's FFmpeg and
configured from the container's extradata, never from the library's pointers.

Which decoder. :func:`decoder_for` picks the decoder FFmpeg itself picks for the stream's
codec, as ``av.open`` does (``avcodec_find_decoder`` on the codec's id, in the libavcodec
PyAV is linked with: :func:`decoder_name`), not the decoder that has the codec's name:
FFmpeg's decoder named ``av1`` decodes only through a hardware accelerator, so an AV1
stream gets ``libdav1d`` (or ``libaom-av1``), as in ``ffmpeg -i``.
"""

from __future__ import annotations

import ctypes
import functools
import os
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Optional

try:
    import av  # type: ignore[import-not-found, unused-ignore]
except ImportError as e:  # pragma: no cover - exercised only without PyAV
    raise ImportError("fastpix_seek.pyav needs PyAV >= 10: pip install 'av>=10', "
                      "or apt install python3-av") from e

from .frame_errors import FrameNotDecodedError
from .types import MediaType, Packet, StreamInfo

if TYPE_CHECKING:
    from ._frame_player import FramePlayer as Player

__all__ = ["Decoder", "decoder_for", "decoder_name", "flush_decoder", "to_av_packet",
           "decode_landed_frame", "PYAV_VERSION"]

#: A PyAV decoder: ``av.VideoCodecContext`` or ``av.AudioCodecContext`` (typed ``Any``
#: because PyAV 10 ships no type information and newer releases type ``CodecContext.create``
#: as the base class, which has no ``decode``).
Decoder = Any

#: The PyAV version as a tuple of ints, e.g. (10, 0, 0).
PYAV_VERSION = tuple(int(x) for x in str(av.__version__).split(".")[:3] if x.isdigit())


@functools.lru_cache(maxsize=1)
def _pyav_libavcodec() -> Optional[ctypes.CDLL]:
    """The libavcodec PyAV runs on (its wheel's own copy, or the system's for Debian's
    python3-av), found among the libraries mapped into this process by its version
    (``av.library_versions``); None where it cannot be told (no /proc, no match)."""
    want = tuple(av.library_versions.get("libavcodec", ()))
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split(None, 5)[5].strip() for line in maps
                     if len(line.split(None, 5)) == 6}
    except OSError:
        return None
    home = os.path.dirname(os.path.dirname(os.path.abspath(str(av.__file__))))
    found = []
    for path in sorted(paths, key=lambda q: not q.startswith(home)):  # PyAV's own copy first
        if not os.path.basename(path).startswith("libavcodec") or not os.path.isfile(path):
            continue
        try:
            lib = ctypes.CDLL(path)  # already loaded: dlopen hands back the same copy
            lib.avcodec_version.restype = ctypes.c_uint
            v = int(lib.avcodec_version())
        except (OSError, AttributeError):
            continue
        if (v >> 16, (v >> 8) & 0xFF, v & 0xFF) == want:
            found.append(lib)
    if not found:
        return None
    lib = found[0]
    lib.avcodec_find_decoder.restype = ctypes.c_void_p
    lib.avcodec_find_decoder.argtypes = [ctypes.c_int]
    return lib


def decoder_name(codec_name: str) -> str:
    """The name of the decoder FFmpeg (PyAV's) picks for a codec, as ``av.open`` and
    ``ffmpeg -i`` do: the first non-experimental decoder registered for the codec's id
    (``avcodec_find_decoder``), e.g. ``"libdav1d"`` for ``"av1"``, ``"h264"`` for
    ``"h264"``. Falls back to ``codec_name`` itself where PyAV's libavcodec cannot be
    reached. Raises ValueError for a codec PyAV does not know."""
    try:
        codec_id = int(av.codec.Codec(codec_name, "r").id)
    except (ValueError, av.FFmpegError) as e:
        raise ValueError(f"PyAV has no decoder for {codec_name!r}") from e
    lib = _pyav_libavcodec()
    if lib is not None:
        ptr = lib.avcodec_find_decoder(codec_id)
        if ptr:
            # AVCodec.name is the struct's first member in every FFmpeg release.
            name = ctypes.c_char_p.from_address(ptr).value
            if name:
                return name.decode("ascii", "replace")
    return codec_name


def decoder_for(info: StreamInfo, **options: Any) -> Decoder:
    """A PyAV decoder for a stream: the decoder FFmpeg picks for ``info.codec_name``
    (:func:`decoder_name`, as ``av.open`` does), configured with its extradata, codec tag,
    and the video size / audio rate and layout the container reports. ``options`` are set
    as attributes on the context first (e.g. ``thread_count=1``). Raises ValueError for a
    codec PyAV does not know."""
    name = decoder_name(info.codec_name)
    try:
        ctx: Decoder = av.CodecContext.create(name, "r")
    except (ValueError, av.FFmpegError) as e:
        raise ValueError(f"PyAV has no decoder for {info.codec_name!r} ({name!r})") from e
    for k, v in options.items():
        setattr(ctx, k, v)
    if info.extradata:
        ctx.extradata = info.extradata
    if info.codec_tag:
        ctx.codec_tag = info.codec_tag_string or ctx.codec_tag
    if info.type == MediaType.VIDEO:
        ctx.width, ctx.height = info.width, info.height
        if info.pixel_format:
            try:
                ctx.pix_fmt = info.pixel_format
            except (ValueError, AttributeError):
                pass  # the decoder will tell from the bitstream
    elif info.type == MediaType.AUDIO:
        if info.sample_rate:
            ctx.sample_rate = info.sample_rate
        if info.channel_layout:
            try:
                ctx.layout = info.channel_layout
            except (ValueError, AttributeError):
                pass
    return ctx


def flush_decoder(dec: Decoder, info: StreamInfo, **options: Any) -> Decoder:
    """Drops the frames a decoder holds (at a packet flagged ``is_discontinuity``, i.e. after
    a seek or a backward step) and returns the decoder to go on with: ``dec`` itself, flushed,
    on PyAV >= 11 (``flush_buffers``); on PyAV 10, which cannot flush, a new decoder for
    ``info`` made with the same ``options``."""
    flush = getattr(dec, "flush_buffers", None)
    if flush is not None:
        flush()
        return dec
    return decoder_for(info, **options)


def _try_set(p: Any, name: str, value: Any) -> None:
    """Sets a packet attribute that PyAV 10 has read-only (or lacks)."""
    try:
        setattr(p, name, value)
    except AttributeError:
        pass


def to_av_packet(pkt: Packet) -> Any:
    """The packet as an ``av.Packet`` (payload copied), with its pts, dts and time base, and
    where the PyAV version allows it (>= 11) its duration and key/discard flags, ready for
    ``decoder.decode()``."""
    # The payload goes into a buffer FFmpeg allocates (av_new_packet), never one wrapping the
    # Python bytes: freeing such a buffer takes the GIL, and a threaded decoder (libdav1d)
    # frees packets on its own threads, so freeing the decoder from Python (which holds the
    # GIL and waits for those threads in dav1d_flush) deadlocked (seen: a FrameReader dropped
    # with AV1 packets still in libdav1d).
    data = pkt.data
    p = av.Packet(len(data))
    if data:
        p.update(data)
    p.pts = pkt.pts
    p.dts = pkt.dts
    if pkt.time_base is not None:
        p.time_base = Fraction(pkt.time_base)
    if pkt.duration:
        _try_set(p, "duration", pkt.duration)
    if pkt.is_key:
        _try_set(p, "is_keyframe", True)
    if pkt.is_discard:
        _try_set(p, "is_discard", True)  # edit-list pre-roll: decoded, never output
    return p


def decode_landed_frame(player: "Player", landed_pts: int,
                        stream_index: Optional[int] = None, **options: Any) -> Any:
    """Reads packets from the player's current position (right after a seek or a frame step)
    and decodes the stream ``stream_index`` (default: the reference stream) until the frame
    with pts ``landed_pts`` comes out; returns that frame (``av.VideoFrame`` for video).
    ``options`` go to :func:`decoder_for`. Raises
    :class:`~fastpix_seek.frames.FrameNotDecodedError` (a RuntimeError) if that frame never
    comes, whatever the decoder raised on the way (its ``__cause__``)."""
    ref = player.item_info().reference_stream if stream_index is None else stream_index
    info = player.stream_info(ref)
    failure: Optional[BaseException] = None
    try:
        dec = decoder_for(info, **options)
    except ValueError as e:
        raise FrameNotDecodedError(str(e), url=_url(player)) from e
    for p in player.packets():
        if p.is_discontinuity:
            dec = flush_decoder(dec, info, **options)
        if p.stream_index != ref or p.is_disposable:  # no later frame needs a disposable one
            continue
        try:
            frames = dec.decode(to_av_packet(p))
        except av.FFmpegError as e:
            failure = failure or e
            continue  # a damaged packet: go on with the next one, as ffmpeg does
        for frame in frames:
            if frame.pts == landed_pts:
                return frame
    try:
        for frame in dec.decode(None):  # end of file: drain the reorder buffer
            if frame.pts == landed_pts:
                return frame
    except av.FFmpegError as e:
        failure = failure or e
    why = "" if failure is None else f" ({failure})"
    raise FrameNotDecodedError(f"the landed frame (pts {landed_pts}) was never decoded{why}",
                               url=_url(player)) from failure


def _url(player: "Player") -> Optional[str]:
    raw = getattr(player, "_opened", None)
    return None if raw is None else os.fsdecode(raw)
