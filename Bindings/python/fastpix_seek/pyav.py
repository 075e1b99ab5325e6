"""A bridge to PyAV (optional): build a PyAV decoder for a stream from the facts the library
reports, and PyAV packets from :class:`~fastpix_seek.Packet` objects, so a Python host can
decode what :meth:`Player.read_packet` returns without opening the file a second time.

    from fastpix_seek import Player, SeekPrecision
    from fastpix_seek.pyav import decoder_for, to_av_packet

    with Player("movie.mp4") as p:
        p.wait_item(timeout=5)
        ref = p.item_info().reference_stream
        dec = decoder_for(p.stream_info(ref))
        p.seek_wait(12.5, SeekPrecision.exact())
        for pkt in p.packets():
            if pkt.is_discontinuity:
                dec.flush_buffers()
            if pkt.stream_index != ref:
                continue
            for frame in dec.decode(to_av_packet(pkt)):
                if frame.pts >= pkt.landed_pts_in_stream:
                    ...  # the landed frame, then the ones after it

PyAV is not a dependency of fastpix_seek: importing this module raises ImportError with
an explanation when ``av`` is not installed (``pip install av``). PyAV carries its own
FFmpeg; the codec is chosen by name and configured from the container's extradata.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

try:
    import av  # type: ignore[import-not-found]
except ImportError as e:  # pragma: no cover - exercised only without PyAV
    raise ImportError("fastpix_seek.pyav needs PyAV: pip install av") from e

from .types import MediaType, Packet, StreamInfo

__all__ = ["decoder_for", "to_av_packet"]


def decoder_for(info: StreamInfo, **options: Any) -> "av.CodecContext":
    """A PyAV decoder (``av.CodecContext``) for a stream: created from ``info.codec_name``
    and configured with its extradata, codec tag, and the video size / audio rate and
    layout the container reports. ``options`` are set as attributes on the context first
    (e.g. ``thread_count=1``). Raises ValueError for a codec PyAV does not know."""
    try:
        ctx = av.CodecContext.create(info.codec_name, "r")
    except (ValueError, av.FFmpegError) as e:  # type: ignore[attr-defined]
        raise ValueError(f"PyAV has no decoder for {info.codec_name!r}") from e
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


def to_av_packet(pkt: Packet) -> "av.Packet":
    """The packet as an ``av.Packet`` (payload copied), with its pts, dts, duration and time
    base, ready for ``decoder.decode()``."""
    p = av.Packet(pkt.data)
    p.pts = pkt.pts
    p.dts = pkt.dts
    if pkt.duration:
        p.duration = pkt.duration
    if pkt.time_base is not None:
        p.time_base = Fraction(pkt.time_base)
    return p
