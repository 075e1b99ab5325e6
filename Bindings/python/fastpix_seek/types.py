"""Value types of the Pythonic layer: enums, exact times, precisions, outcomes and events.

Times
-----
Media time is rational in the library (``fpx_time`` = value/timescale seconds, exactly). Here it
is a :class:`fractions.Fraction` of seconds, converted exactly in both directions:

* ``fpx_time`` -> ``Fraction(value, timescale)``. Invalid and infinite times become ``None``.
* Times and tolerances passed *in* may be ``Fraction``/``int``/any ``numbers.Rational``,
  ``float``, ``decimal.Decimal`` or ``str`` (``"1001/30000"``, ``"9.25"``); see
  :func:`to_fraction` and :func:`to_fpx_time`:

  - a ``float`` (numpy floating scalars included) stands for the fraction with the smallest
    denominator among all the numbers that round to that float (:func:`float_to_fraction`).
    So ``0.1`` means exactly 1/10 s (what was typed), not the binary double
    3602879701896397/36028797018963968, and the float of a frame's time, say
    ``float(Fraction(2002, 30000))``, means exactly that frame's time, on any time base whose
    denominator is below about 10**7 (30000/1001, MKV's 1/1000, MPEG-TS's 1/90000, ...) for
    times up to days: a float computed from a frame's pts lands on that frame;
  - the fpx_time timescale is the Fraction's denominator when it fits in int32 (and the
    numerator in int64): exact. Otherwise the time is rounded to the nearest nanosecond
    (timescale 10**9, ties to even);
  - NaN and infinities (float or Decimal), values that do not fit, and unparsable strings raise
    the error the library would return for them: :class:`~fastpix_seek.errors.InvalidTimeError`
    for a seek target, :class:`~fastpix_seek.errors.InvalidArgumentError` for a tolerance. Both
    are ``ValueError`` subclasses. ``bool`` and other types raise ``TypeError``.

  The check happens in Python, before the library is called; the library then validates again
  (a raw :class:`~fastpix_seek._lib.fpx_time` passed as a target is handed over unchanged, so
  the library's own validation can be exercised).

Every ``*_seconds`` property is a float derived from the exact value, for display only. Never
compare or feed them back (seek.h, "Time model").
"""

from __future__ import annotations

import ctypes
import datetime
import decimal
import enum
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional, Tuple, Type, TypeVar, Union, cast

from . import _lib
from . import errors as _errors

__all__ = [
    "TimeLike", "PrecisionKind", "FinishReason", "ClampKind", "LandingResolution", "HoleReason", "ScrubState",
    "FrameStepDirection", "FrameStepUnavailableReason", "ItemStatus", "MediaType",
    "DateSeekUnavailableReason", "LiveSeekWindow", "LiveEdgeResult", "DateSeekResult",
    "unix_us_to_datetime",
    "DeliveryMode", "SeekPrecision", "SeekClamp", "SeekAccuracy", "SeekOutcome",
    "ScrubPosition", "FrameStepResult", "ScrubResult", "ItemStatusInfo", "ItemInfo",
    "StreamInfo", "Packet", "HLSVariant", "HLSRendition", "Preview", "PreviewKind", "PreviewField",
    "PlayerStats", "IndexMode", "to_fraction", "float_to_fraction", "to_fpx_time", "from_fpx_time", "INT32_MAX", "NANOSECOND",
]

#: Anything accepted where a time or tolerance is expected.
TimeLike = Union[Fraction, int, float, decimal.Decimal, str, numbers.Rational]

INT32_MAX = 2 ** 31 - 1
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
#: Timescale used when a Fraction's denominator does not fit in int32.
NANOSECOND = 10 ** 9


# ----------------------------------------------------------------------------------------
# Enums: generated from seek.h (fastpix_seek/_abi.py, tools/abi_gen.py)
# ----------------------------------------------------------------------------------------

from ._abi import (ClampKind, DateSeekUnavailableReason, DeliveryMode,  # noqa: E402
                   FinishReason, FrameStepDirection, FrameStepUnavailableReason, HoleReason, IndexMode,
                   ItemStatus, LandingResolution, MediaType, PrecisionKind, PreviewField, PreviewKind,
                   ScrubState)

_E = TypeVar("_E", bound=enum.IntEnum)


def _enum(cls: Type[_E], value: int) -> Any:
    """The member for value, or the plain int for values added by a newer library."""
    try:
        return cls(value)
    except ValueError:
        return int(value)


# ----------------------------------------------------------------------------------------
# Time conversion
# ----------------------------------------------------------------------------------------

def to_fraction(x: Any, what: str = "time",
                error: Type[_errors.FastPixSeekError] = _errors.InvalidTimeError) -> Fraction:
    """``x`` as an exact Fraction of seconds (see the module docstring for the rules).

    Raises ``TypeError`` for unsupported types (including ``bool``) and ``error`` (a
    ``ValueError`` subclass) for NaN, infinities and unparsable strings.
    """
    if isinstance(x, bool):
        raise TypeError(f"{what} must be a number (Fraction, int, float, Decimal or str), "
                        f"not bool")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, numbers.Rational):  # int, numpy integers, other rationals
        return Fraction(int(x.numerator), int(x.denominator))
    if isinstance(x, float):  # numpy.float64 is a float subclass
        if not math.isfinite(x):
            raise error(detail=f"{what} is {float(x)!r}")
        return float_to_fraction(x)
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            raise error(detail=f"{what} is Decimal({str(x)!r})")
        return Fraction(x)
    if isinstance(x, str):
        s = x.strip()
        if s.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise error(detail=f"{what} is {x!r}")
        try:
            return Fraction(s)
        except (ValueError, ZeroDivisionError) as e:
            raise error(detail=f"{what} {x!r} is not a number: {e}") from None
    if isinstance(x, numbers.Real) and hasattr(x, "as_integer_ratio"):
        # numpy floating scalars that are not float (float32, float16, longdouble)
        if not math.isfinite(x):
            raise error(detail=f"{what} is {x!r}")
        return float_to_fraction(x)
    if isinstance(x, numbers.Real):
        return to_fraction(float(x), what, error)
    raise TypeError(f"{what} must be a number (Fraction, int, float, Decimal or str), "
                    f"not {type(x).__name__}")


def _is_float(x: Any) -> bool:
    """A binary floating-point number: ``float`` (numpy.float64 included) or another numpy
    floating scalar; not an exact type (int, Fraction, Decimal, str)."""
    return isinstance(x, float) or (isinstance(x, numbers.Real)
                                    and not isinstance(x, numbers.Rational)
                                    and hasattr(x, "as_integer_ratio"))


def float_to_fraction(x: Any) -> Fraction:
    """The fraction with the smallest denominator among the numbers that round to ``x``.

    Every real number strictly inside the half-ulp interval around ``x`` (between the midpoints
    with the neighbouring values of its own type: a numpy ``float32`` has a wider interval than
    a ``float``) reads back as ``x``, so they all equally are "what the float means"; the simplest
    of them is what a person typed (``0.1`` is 1/10, ``12.34`` is 617/50) or the rational a
    program computed the float from (a frame's ``pts * time_base`` with a small denominator):
    two fractions with denominators up to ``q`` are at least ``1/q**2`` apart, far more than
    the interval is wide. ``x`` must be finite.
    """
    if x == 0:
        return Fraction(0)
    if x < 0:
        return -float_to_fraction(-x)
    if isinstance(x, float):
        below, above = math.nextafter(x, 0.0), math.nextafter(x, math.inf)
    else:  # a numpy floating scalar: its neighbours in its own precision
        import numpy  # x is a numpy value, so numpy is there
        below, above = numpy.nextafter(x, type(x)(0)), numpy.nextafter(x, type(x)(math.inf))
    exact = Fraction(*x.as_integer_ratio())
    lo = (exact + Fraction(*below.as_integer_ratio())) / 2
    if math.isinf(above):  # the largest value has no finite neighbour above
        hi = exact + (exact - lo)
    else:
        hi = (exact + Fraction(*above.as_integer_ratio())) / 2
    return _simplest_between(lo.numerator, lo.denominator, hi.numerator, hi.denominator)


def _simplest_between(ln: int, ld: int, hn: int, hd: int) -> Fraction:
    """The fraction with the smallest denominator strictly between ln/ld and hn/hd
    (0 < ln/ld < hn/hd), from the continued fraction both bounds share (the Stern-Brocot
    descent), in integers only. The bounds are left out: a midpoint between two doubles
    rounds to the one with the even mantissa, which need not be ``x``."""
    terms = []
    while True:
        whole, rest = divmod(ln, ld)
        if (whole + 1) * hd < hn:  # a whole number lies between the bounds
            terms.append(whole + 1)
            break
        terms.append(whole)
        if rest == 0:  # (whole, hi): whole + 1/n for the smallest n above 1/(hi - whole)
            terms.append(hd // (hn - whole * hd) + 1)
            break
        # Both bounds lie in (whole, whole + 1]: go on with the reciprocals of their
        # fractional parts (the order of the bounds swaps).
        ln, ld, hn, hd = hd, hn - whole * hd, ld, rest
    num, den = 1, 0
    for a in reversed(terms):
        num, den = a * num + den, num
    return Fraction(num, den)


def _fraction_to_fpx(f: Fraction, what: str,
                     error: Type[_errors.FastPixSeekError]) -> "_lib.fpx_time":
    if f.denominator <= INT32_MAX and INT64_MIN <= f.numerator <= INT64_MAX:
        return _lib.fpx_time(f.numerator, f.denominator, _lib.FPX_TIME_FLAG_VALID)
    ns = round(f * NANOSECOND)  # Fraction.__round__: nearest, ties to even
    if not INT64_MIN <= ns <= INT64_MAX:
        raise error(detail=f"{what} {f} s does not fit an fpx_time")
    return _lib.fpx_time(ns, NANOSECOND, _lib.FPX_TIME_FLAG_VALID)


def to_fpx_time(x: Any, what: str = "time",
                error: Type[_errors.FastPixSeekError] = _errors.InvalidTimeError
                ) -> "_lib.fpx_time":
    """``x`` as an ``fpx_time`` (exact when the denominator fits int32, else nanoseconds).

    A raw ``fpx_time`` is returned unchanged (the library validates it).
    """
    if isinstance(x, _lib.fpx_time):
        return x
    return _fraction_to_fpx(to_fraction(x, what, error), what, error)


def from_fpx_time(t: "_lib.fpx_time") -> Optional[Fraction]:
    """Exact seconds of a valid, finite fpx_time; ``None`` for invalid or infinite times."""
    if (not t.flags & _lib.FPX_TIME_FLAG_VALID or t.timescale <= 0
            or t.flags & (_lib.FPX_TIME_FLAG_POSITIVE_INFINITY
                          | _lib.FPX_TIME_FLAG_NEGATIVE_INFINITY)):
        return None
    return Fraction(t.value, t.timescale)


def _seconds(f: Optional[Fraction]) -> float:
    return float(f) if f is not None else math.nan


def _text(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


def _time_base(num: int, den: int) -> Optional[Fraction]:
    return Fraction(num, den) if den > 0 else None


def _pts(v: int) -> Optional[int]:
    return None if v == _lib.FPX_NOPTS else int(v)


# ----------------------------------------------------------------------------------------
# Precision
# ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeekPrecision:
    """How precisely a seek lands (``fpx_precision``). Build it with the class methods."""

    kind: PrecisionKind
    #: Seconds; 0 for EXACT. Validated (finite, >= 0) by nearest_keyframe().
    tolerance: Fraction = Fraction(0)

    @classmethod
    def exact(cls) -> "SeekPrecision":
        """Zero tolerance: the frame whose presentation interval holds the target."""
        return cls(PrecisionKind.EXACT, Fraction(0))

    @classmethod
    def nearest_keyframe(cls, tolerance: TimeLike) -> "SeekPrecision":
        """The keyframe nearest the target within +/- ``tolerance`` seconds.

        ``tolerance`` is converted exactly (a float as :func:`float_to_fraction` reads it, so
        ``0.1`` is 1/10). Negative, NaN or infinite tolerances raise
        :class:`~fastpix_seek.errors.InvalidArgumentError` (the library's code for them);
        other types raise ``TypeError``.
        """
        tol = to_fraction(tolerance, "tolerance", _errors.InvalidArgumentError)
        if tol < 0:
            raise _errors.InvalidArgumentError(detail=f"tolerance {tol} s is negative")
        # Fails early when it cannot be represented.
        _fraction_to_fpx(tol, "tolerance", _errors.InvalidArgumentError)
        return cls(PrecisionKind.NEAREST_KEYFRAME, tol)

    @classmethod
    def default(cls) -> "SeekPrecision":
        """What FPX_PRECISION_DEFAULT means: nearest keyframe within 1/10 s (from the library)."""
        return cls._from_c(_lib.lib.fpx_precision_default())

    @classmethod
    def at_or_after(cls) -> "SeekPrecision":
        """The first frame at or after the target (smallest pts >= target): what
        ``ffmpeg -ss t``, PyAV's seek-decode-and-skip recipe and frame-index APIs return
        (``fpx_precision_at_or_after``; seek.h section 2, "Conventions"). Whenever the
        target falls inside a frame this is the frame after :meth:`exact`'s; when a frame
        starts exactly at the target both are that frame. Its outcome is within tolerance
        when ``landed >= requested`` (``tolerance_before`` 0, ``tolerance_after`` infinite,
        which reads None here); past the last frame it lands on the last frame, clamped and
        not within tolerance. Files and HLS items (a target after a segment's last frame
        lands on the next segment's first)."""
        return cls._from_c(_lib.lib.fpx_precision_at_or_after())

    @property
    def tolerance_seconds(self) -> float:
        """Display only."""
        return float(self.tolerance)

    def _to_c(self) -> "_lib.fpx_precision":
        if not isinstance(self.kind, int) or isinstance(self.kind, bool):
            raise TypeError(f"SeekPrecision.kind must be a PrecisionKind, not "
                            f"{type(self.kind).__name__}")
        tol = (to_fpx_time(self.tolerance, "tolerance", _errors.InvalidArgumentError)
               if self.kind == PrecisionKind.NEAREST_KEYFRAME
               else _lib.fpx_time(0, 1, _lib.FPX_TIME_FLAG_VALID))
        return _lib.fpx_precision(int(self.kind), tol)

    @classmethod
    def _from_c(cls, p: "_lib.fpx_precision") -> "SeekPrecision":
        return cls(_enum(PrecisionKind, p.kind), from_fpx_time(p.tolerance) or Fraction(0))

    def __str__(self) -> str:
        if self.kind == PrecisionKind.EXACT:
            return "exact"
        if self.kind == PrecisionKind.AT_OR_AFTER:
            return "at or after"
        return f"nearest keyframe +/-{self.tolerance} s"


# ----------------------------------------------------------------------------------------
# Outcome
# ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeekClamp:
    """Whether and where a target was moved into the seekable range (``fpx_clamp``)."""

    kind: ClampKind
    did_clamp: bool
    requested: Optional[Fraction]
    #: None unless did_clamp.
    clamped_to: Optional[Fraction]
    #: The target actually used: clamped_to, else requested.
    clamped_target: Optional[Fraction]
    explanation: str

    def __repr__(self) -> str:
        kind = self.kind.name if isinstance(self.kind, ClampKind) else self.kind
        moved = f" {self.requested} -> {self.clamped_to}" if self.did_clamp else ""
        return f"SeekClamp({kind}{moved})"

    @classmethod
    def _from_c(cls, c: "_lib.fpx_clamp") -> "SeekClamp":
        return cls(_enum(ClampKind, c.kind), bool(c.did_clamp), from_fpx_time(c.requested),
                   from_fpx_time(c.clamped_to), from_fpx_time(c.clamped_target),
                   _text(c.explanation))


@dataclass(frozen=True)
class SeekAccuracy:
    """Where a seek landed relative to the request (``fpx_accuracy``), exactly."""

    requested_media_time: Optional[Fraction]
    #: None when the seek did not land.
    landed_media_time: Optional[Fraction]
    tolerance_before: Optional[Fraction]
    tolerance_after: Optional[Fraction]
    #: requested - before <= landed <= requested + after, by exact comparison.
    within_requested_tolerance: bool
    #: landed - requested, exact; None when not landed.
    delta: Optional[Fraction]

    @property
    def delta_seconds(self) -> float:
        """Display only; NaN when not landed."""
        return _seconds(self.delta)

    @property
    def absolute_delta_seconds(self) -> float:
        """Display only; NaN when not landed."""
        return abs(_seconds(self.delta))

    def __repr__(self) -> str:
        return (f"SeekAccuracy(requested={self.requested_media_time}, landed={self.landed_media_time}, "
                f"delta={self.delta}, tolerance={self.tolerance_before}, "
                f"within={self.within_requested_tolerance})")

    @classmethod
    def _from_c(cls, a: "_lib.fpx_accuracy") -> "SeekAccuracy":
        return cls(from_fpx_time(a.requested_media_time), from_fpx_time(a.landed_media_time),
                   from_fpx_time(a.tolerance_before), from_fpx_time(a.tolerance_after),
                   bool(a.within_requested_tolerance), from_fpx_time(a.delta))


@dataclass(frozen=True)
class SeekOutcome:
    """Everything about one finished (or cancelled, superseded, failed) seek.

    ``requested_time`` and ``landed_time`` are exact Fractions of seconds on the item timeline
    (in the C struct they are display doubles; those are the ``*_seconds`` properties here).
    """

    struct_size: int
    seek_id: int
    #: Normalized: DEFAULT reads NEAREST_KEYFRAME 1/10.
    precision: SeekPrecision
    finished: bool
    reason: FinishReason
    #: fpx_error code when reason is FAILED, else 0. See ``exception``.
    error: int
    requested_time: Optional[Fraction]
    landed_time: Optional[Fraction]
    latency_ns: int
    accuracy: SeekAccuracy
    clamp: SeekClamp
    resolution: LandingResolution
    frame_covers_target: bool
    landed_is_keyframe: bool
    #: The reference stream; -1 when not landed.
    stream_index: int
    #: In the stream time base; None when not landed.
    landed_stream_pts: Optional[int]
    stream_time_base: Optional[Fraction]
    packets_read: int
    #: HLS: the target was in a hole (a GAP or failed segment) and the seek landed on the
    #: first frame after it (seek.h, "Gaps"); HoleReason.NONE otherwise.
    landed_past_hole: HoleReason = HoleReason.NONE

    @property
    def delta(self) -> Optional[Fraction]:
        """landed - requested, exact (accuracy.delta)."""
        return self.accuracy.delta

    @property
    def within_tolerance(self) -> bool:
        """The tolerance verdict (accuracy.within_requested_tolerance). For exact seeks prefer
        frame_covers_target: zero tolerance makes this False whenever the covering frame starts
        before the target. For at-or-after seeks it is ``landed >= requested`` (False only
        when a target past the last frame was clamped to it)."""
        return self.accuracy.within_requested_tolerance

    @property
    def requested_seconds(self) -> float:
        """Display only."""
        return _seconds(self.requested_time)

    @property
    def landed_seconds(self) -> float:
        """Display only; NaN when not landed."""
        return _seconds(self.landed_time)

    @property
    def latency(self) -> float:
        """Seconds from request to completion (monotonic); display only."""
        return self.latency_ns / 1e9

    @property
    def exception(self) -> Optional[_errors.FastPixSeekError]:
        """The error of a FAILED seek as an exception instance (not raised), else None."""
        return _lib.make_error(self.error) if self.error < 0 else None

    @property
    def verdict(self) -> str:
        """A one-word summary for reports: the finish reason when it did not land; for an
        exact seek ``ok`` when the landed frame covers the target, else ``miss`` (its
        zero-tolerance verdict is not the measure of an exact seek); for an at-or-after seek
        ``ok`` when the landed frame starts at or after the target (within tolerance), else
        ``miss`` (a target past the last frame, clamped to it); for a keyframe precision
        ``ok`` within the tolerance, else ``outside``."""
        if not self.finished:
            r = self.reason
            return r.name.lower() if isinstance(r, FinishReason) else f"reason{r}"
        if self.precision.kind == PrecisionKind.EXACT:
            return "ok" if self.frame_covers_target else "miss"
        if self.precision.kind == PrecisionKind.AT_OR_AFTER:
            return "ok" if self.within_tolerance else "miss"
        return "ok" if self.within_tolerance else "outside"

    def __repr__(self) -> str:
        """Short: the id, the precision, and for a landed seek the hit (exact: the frame
        covers the target; at or after: it starts at or after the target) or the tolerance
        verdict, the times and the cost."""
        if not self.finished:
            r = self.reason.name if isinstance(self.reason, FinishReason) else self.reason
            err = f", error={self.error}" if self.error else ""
            return f"SeekOutcome(#{self.seek_id} {self.precision}: {r}{err}, requested={self.requested_time})"
        if self.precision.kind == PrecisionKind.EXACT:
            judged = "hit" if self.frame_covers_target else "MISS"
        elif self.precision.kind == PrecisionKind.AT_OR_AFTER:
            judged = "hit" if self.within_tolerance else "MISS"
        else:
            judged = "within" if self.within_tolerance else "outside"
        clamp = "" if not self.clamp.did_clamp else f", clamped to {self.clamp.clamped_to}"
        return (f"SeekOutcome(#{self.seek_id} {self.precision}: {judged}, requested={self.requested_time}, "
                f"landed={self.landed_time} (pts {self.landed_stream_pts}){clamp}, "
                f"{self.packets_read} packets)")

    @classmethod
    def _from_c(cls, o: "_lib.fpx_seek_outcome") -> "SeekOutcome":
        acc = SeekAccuracy._from_c(o.accuracy)
        return cls(
            struct_size=int(o.struct_size), seek_id=int(o.seek_id),
            precision=SeekPrecision._from_c(o.precision), finished=bool(o.finished),
            reason=_enum(FinishReason, o.reason), error=int(o.error),
            requested_time=acc.requested_media_time, landed_time=acc.landed_media_time,
            latency_ns=int(o.latency_ns), accuracy=acc, clamp=SeekClamp._from_c(o.clamp),
            resolution=_enum(LandingResolution, o.resolution),
            frame_covers_target=bool(o.frame_covers_target),
            landed_is_keyframe=bool(o.landed_is_keyframe), stream_index=int(o.stream_index),
            landed_stream_pts=_pts(o.landed_stream_pts),
            stream_time_base=_time_base(o.stream_time_base_num, o.stream_time_base_den),
            packets_read=int(o.packets_read),
            landed_past_hole=_enum(HoleReason, o.landed_past_hole)
            if o.struct_size >= _lib.fpx_seek_outcome.landed_past_hole.offset + 4 else HoleReason.NONE)


# ----------------------------------------------------------------------------------------
# Events and facts
# ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScrubPosition:
    time: Optional[Fraction]
    sample_count: int

    @classmethod
    def _from_c(cls, p: "_lib.fpx_scrub_position") -> "ScrubPosition":
        return cls(from_fpx_time(p.time), int(p.sample_count))


@dataclass(frozen=True)
class FrameStepResult:
    struct_size: int
    did_step: bool
    direction: FrameStepDirection
    #: Valid when did_step.
    landed_media_time: Optional[Fraction]
    reason: FrameStepUnavailableReason
    explanation: str
    #: In the reference stream's time base; None unless did_step.
    landed_stream_pts: Optional[int] = None
    #: Packets demuxed by this step.
    packets_read: int = 0

    def __repr__(self) -> str:
        d = self.direction.name.lower() if isinstance(self.direction, FrameStepDirection) else self.direction
        if self.did_step:
            return (f"FrameStepResult({d} -> {self.landed_media_time} (pts {self.landed_stream_pts}), "
                    f"{self.packets_read} packets)")
        r = self.reason.name if isinstance(self.reason, FrameStepUnavailableReason) else self.reason
        return f"FrameStepResult({d} refused: {r})"

    @classmethod
    def _from_c(cls, r: "_lib.fpx_frame_step_result") -> "FrameStepResult":
        # Fields appended to the struct are read only when the library filled them.
        n = int(r.struct_size)
        has_pts = n >= _lib.fpx_frame_step_result.landed_stream_pts.offset + 8
        has_count = n >= _lib.fpx_frame_step_result.packets_read.offset + 8
        return cls(n, bool(r.did_step), _enum(FrameStepDirection, r.direction),
                   from_fpx_time(r.landed_media_time),
                   _enum(FrameStepUnavailableReason, r.reason), _text(r.explanation),
                   _pts(r.landed_stream_pts) if has_pts else None,
                   int(r.packets_read) if has_count else 0)


@dataclass(frozen=True)
class ScrubResult:
    """How a scrub gesture's one seek ended (``fpx_scrub_result``)."""

    #: None when the settling seek was cancelled.
    outcome: Optional[SeekOutcome]
    #: Updates in the gesture.
    sample_count: int
    was_cancelled: bool

    def __repr__(self) -> str:
        o = "cancelled" if self.outcome is None else repr(self.outcome)
        return f"ScrubResult({self.sample_count} samples, {o})"

    @classmethod
    def _from_c(cls, r: "_lib.fpx_scrub_result") -> "ScrubResult":
        outcome = SeekOutcome._from_c(r.outcome.contents) if r.outcome else None
        return cls(outcome, int(r.sample_count), bool(r.was_cancelled))


@dataclass(frozen=True)
class ItemStatusInfo:
    struct_size: int
    #: Increments with every open().
    item_id: int
    status: ItemStatus
    #: fpx_error code when FAILED, else 0.
    error: int
    #: FFmpeg's original AVERROR when FAILED, else 0.
    av_error: int
    #: HLS holes met by the item so far (seek.h, "Gaps"): each segment once, the latest named.
    segments_skipped: int = 0
    last_skipped_sequence: int = -1
    last_skip_reason: HoleReason = HoleReason.NONE

    @property
    def exception(self) -> Optional[_errors.FastPixSeekError]:
        """The item's error as an exception when FAILED, else None."""
        return _lib.make_error(self.error) if self.error < 0 else None

    @classmethod
    def _from_c(cls, s: "_lib.fpx_item_status_info") -> "ItemStatusInfo":
        if s.struct_size < _lib.fpx_item_status_info.last_skip_reason.offset + 4:
            return cls(int(s.struct_size), int(s.item_id), _enum(ItemStatus, s.status),
                       int(s.error), int(s.av_error))
        return cls(int(s.struct_size), int(s.item_id), _enum(ItemStatus, s.status),
                   int(s.error), int(s.av_error), int(s.segments_skipped), int(s.last_skipped_sequence),
                   _enum(HoleReason, s.last_skip_reason))


def _s(b: Optional[bytes]) -> Optional[str]:
    return None if b is None else b.decode("utf-8", "replace")


@dataclass(frozen=True)
class Preview:
    """The preview of a time (fpx_preview, 0.4.0; seek.h, "Seek previews"), from
    ``Player.preview``. Sheets and tracks: ``image_url`` and ``rect`` (x, y, width, height in
    pixels), shown for [``start``, ``end``). Keyframe index: ``data`` (a copy of the keyframe's
    packet, for a decoder of stream ``stream_index``), ``pts``, ``dts``, ``flags``; ``start`` is
    the keyframe's item time. ``clamp`` says whether ``time`` is ``requested_time`` moved into
    the source's range, as a seek's target is."""
    kind: PreviewKind
    clamp: ClampKind
    requested_time: Fraction
    time: Fraction
    start: Fraction
    end: Optional[Fraction]
    image_url: Optional[str]
    rect: Optional[Tuple[int, int, int, int]]
    stream_index: Optional[int]
    data: Optional[bytes]
    pts: Optional[int]
    dts: Optional[int]
    flags: int

    @classmethod
    def _from_c(cls, p: "_lib.fpx_preview") -> "Preview":
        keyframe = p.stream_index >= 0
        nopts = _lib.FPX_NOPTS
        return cls(_enum(PreviewKind, p.kind), _enum(ClampKind, p.clamp),
                   cast(Fraction, from_fpx_time(p.requested_time)), cast(Fraction, from_fpx_time(p.time)),
                   cast(Fraction, from_fpx_time(p.start)), from_fpx_time(p.end),
                   p.image_url.decode("utf-8", "surrogateescape") if p.image_url else None,
                   None if keyframe else (int(p.x), int(p.y), int(p.width), int(p.height)),
                   int(p.stream_index) if keyframe else None,
                   ctypes.string_at(p.data, p.size) if keyframe and p.data else None,
                   None if p.pts == nopts else int(p.pts), None if p.dts == nopts else int(p.dts),
                   int(p.flags))


@dataclass(frozen=True)
class HLSVariant:
    """A variant of an HLS master playlist (fpx_hls_variant, 0.4.0): EXT-X-STREAM-INF, or
    EXT-X-I-FRAME-STREAM-INF (``is_iframe``: listed, never played). ``selected``: the one the
    item plays."""
    index: int
    is_iframe: bool
    selected: bool
    bandwidth: int
    average_bandwidth: Optional[int]
    resolution: Optional[Tuple[int, int]]
    frame_rate: Optional[Fraction]
    codecs: Optional[str]
    hdcp_level: Optional[str]
    audio_group: Optional[str]

    @classmethod
    def _from_c(cls, i: int, v: "_lib.fpx_hls_variant") -> "HLSVariant":
        return cls(i, bool(v.is_iframe), bool(v.selected), int(v.bandwidth),
                   int(v.average_bandwidth) or None,
                   (int(v.width), int(v.height)) if v.width or v.height else None,
                   Fraction(v.frame_rate_num, v.frame_rate_den) if v.frame_rate_den > 0 else None,
                   _s(v.codecs), _s(v.hdcp_level), _s(v.audio_group))


@dataclass(frozen=True)
class HLSRendition:
    """An EXT-X-MEDIA rendition (fpx_hls_rendition, 0.4.0). The audio rendition the item plays
    (``selected``) is a stream of the item (``stream_index``, else -1) when it has its own URI
    (``has_uri``); subtitles, closed captions and the other renditions are listed only."""
    index: int
    type: MediaType
    group_id: Optional[str]
    name: Optional[str]
    language: Optional[str]
    channels: Optional[str]
    is_default: bool
    autoselect: bool
    has_uri: bool
    in_selected_group: bool
    selected: bool = False
    stream_index: int = -1

    @classmethod
    def _from_c(cls, i: int, r: "_lib.fpx_hls_rendition") -> "HLSRendition":
        return cls(i, _enum(MediaType, r.type), _s(r.group_id), _s(r.name), _s(r.language), _s(r.channels),
                   bool(r.is_default), bool(r.autoselect), bool(r.has_uri), bool(r.in_selected_group),
                   bool(r.selected), int(r.stream_index))


@dataclass(frozen=True)
class ItemInfo:
    stream_count: int
    reference_stream: int
    has_video: bool
    #: None when unknown.
    duration: Optional[Fraction]
    #: Item time 0 on the reference stream's timeline, in its time base.
    start_pts: int
    time_base: Optional[Fraction]
    seekable: bool
    format_name: str
    #: A truncated or damaged file: the file's data ends inside a packet (the seekable range
    #: then ends at the last frame read whole), or the range ends well before the duration
    #: (``fpx_item_info.seekable_range_truncated``, 0.4.0; False from older libraries).
    seekable_range_truncated: bool = False

    def __repr__(self) -> str:
        d = "?" if self.duration is None else str(self.duration)
        return (f"ItemInfo({self.format_name!r}, {self.stream_count} streams, reference #{self.reference_stream}"
                f"{' (video)' if self.has_video else ''}, duration {d} s, start_pts {self.start_pts}, "
                f"time_base {self.time_base}{'' if self.seekable else ', not seekable'}"
                f"{', TRUNCATED (the data ends inside a packet, or the range well before the duration)' if self.seekable_range_truncated else ''})")

    @property
    def origin(self) -> Fraction:
        """Item time 0 in seconds of the reference stream's timeline (start_pts * time_base)."""
        return self.start_pts * (self.time_base or Fraction(0))

    @property
    def duration_seconds(self) -> float:
        """The duration in seconds as a float, for display (NaN when unknown)."""
        return _seconds(self.duration)

    def _stream_clock(self, what: str) -> Fraction:
        tb = self.time_base
        if tb is None or self.start_pts == _lib.FPX_NOPTS:
            raise _errors.InvalidStateError(
                detail=f"{what}: the item's start on its reference stream's timeline is "
                       f"unknown (an HLS item whose first segment could not be read), so "
                       f"stream seconds have no item time")
        return tb

    def item_time(self, stream_seconds: TimeLike) -> Fraction:
        """A time in the reference stream's own pts seconds (ffprobe's ``pts_time``, PyAV's
        ``frame.time``, ``pts * time_base``) as item time, exactly: ``stream_seconds -
        start_pts * time_base`` (seek.h section 2, "Conventions"; the two clocks differ by
        the container's start: an MKV whose audio starts 7 ms before its video, an MPEG-TS
        stamped from 1.4 s).

        A float (numpy floating scalars included) is read as the nearest tick of the
        reference stream's time base: ``round(stream_seconds / time_base)`` ticks, so any
        float printed or computed from a frame's pts -- ffprobe prints ``pts_time`` to the
        microsecond -- is exactly that frame's pts, on any time base whose tick is longer than
        a microsecond (1/90000, 1/30000 of 30000/1001 fps, 1/1000...). Exact types (``Fraction``,
        ``int``, ``Decimal``, ``str``) keep their exact value. For files, and HLS before its
        first discontinuity (seek.h, ``fpx_packet.item_origin_pts``)."""
        tb = self._stream_clock("item_time")
        x = to_fraction(stream_seconds, "stream time")
        if _is_float(stream_seconds):
            return (round(x / tb) - self.start_pts) * tb
        return x - self.start_pts * tb

    def stream_seconds(self, item_time: TimeLike) -> Fraction:
        """An item time in the reference stream's own pts seconds, exactly (the inverse of
        :meth:`item_time`): ``item_time + start_pts * time_base``."""
        tb = self._stream_clock("stream_seconds")
        return to_fraction(item_time) + self.start_pts * tb

    @classmethod
    def _from_c(cls, i: "_lib.fpx_item_info") -> "ItemInfo":
        return cls(int(i.stream_count), int(i.reference_stream), bool(i.has_video),
                   from_fpx_time(i.duration), int(i.start_pts),
                   _time_base(i.time_base_num, i.time_base_den), bool(i.seekable),
                   _text(i.format_name), bool(i.seekable_range_truncated))


@dataclass(frozen=True)
class StreamInfo:
    """Facts of one stream (``fpx_stream_info``), read from the container as
    ``ffprobe -show_streams`` reads them. Names are FFmpeg's (``"yuv420p"``, ``"bt709"``);
    None means unknown or not applicable. See :func:`fastpix_seek.pyav.decoder_for` to
    build a PyAV decoder from it."""

    index: int
    type: MediaType
    codec_id: int
    codec_name: str
    time_base: Optional[Fraction]
    width: int
    height: int
    sample_rate: int
    channels: int
    video_delay: int
    #: Copied.
    extradata: bytes
    #: Address of the const AVCodecParameters (for FFmpeg-based hosts), valid only until the
    #: item is closed or replaced; None when NULL. Prefer the typed fields below.
    codecpar: Optional[int]
    # -- 0.3: stream facts ----------------------------------------------------------------
    #: FFmpeg's profile value and name ("High", "LC"); None unknown.
    profile: Optional[int] = None
    profile_name: Optional[str] = None
    #: Codec level (H.264: 31 = 3.1); None unknown.
    level: Optional[int] = None
    #: Video pixel format ("yuv420p10le"); audio sample format ("fltp").
    pixel_format: Optional[str] = None
    sample_format: Optional[str] = None
    #: Bits per component (video) or per sample (audio); None unknown.
    bit_depth: Optional[int] = None
    #: Sample (pixel) aspect ratio; None unknown.
    sample_aspect_ratio: Optional[Fraction] = None
    #: Average frame rate and r_frame_rate; None unknown.
    frame_rate: Optional[Fraction] = None
    real_frame_rate: Optional[Fraction] = None
    #: Colour: FFmpeg's names ("tv"/"pc", "bt709", "smpte2084", "bt2020nc"); None unspecified.
    color_range: Optional[str] = None
    color_primaries: Optional[str] = None
    color_transfer: Optional[str] = None
    color_space: Optional[str] = None
    chroma_location: Optional[str] = None
    #: AVFieldOrder value (1 progressive); 0 unknown.
    field_order: int = 0
    #: Degrees counterclockwise to rotate the decoded picture for display (display matrix);
    #: None when the stream has no display matrix.
    rotation: Optional[float] = None
    #: Audio channel layout ("mono", "stereo", "5.1(side)") and its AV_CH_* mask.
    channel_layout: Optional[str] = None
    channel_mask: int = 0
    #: Audio samples per packet (None variable/unknown), priming and trailing padding.
    frame_size: Optional[int] = None
    initial_padding: int = 0
    trailing_padding: int = 0
    #: Container fourcc as an int and as text ("avc1"); None when absent.
    codec_tag: int = 0
    codec_tag_string: Optional[str] = None
    #: Bits per second; None unknown.
    bit_rate: Optional[int] = None
    bits_per_coded_sample: int = 0
    bits_per_raw_sample: int = 0
    #: Stream start and duration in the stream time base; None unknown.
    start_pts: Optional[int] = None
    duration_ts: Optional[int] = None
    #: nb_frames from the container; None unknown.
    frame_count: Optional[int] = None
    #: AV_DISPOSITION_* bits (1 = default).
    disposition: int = 0
    #: ISO 639-2 "language" tag; None when absent.
    language: Optional[str] = None

    def __repr__(self) -> str:
        kind = self.type.name.lower() if isinstance(self.type, MediaType) else str(self.type)
        if self.type == MediaType.VIDEO:
            what = (f"{self.width}x{self.height} {self.pixel_format or '?'}"
                    + (f" {float(self.frame_rate):.3f} fps" if self.frame_rate else ""))
        elif self.type == MediaType.AUDIO:
            what = f"{self.sample_rate} Hz {self.channel_layout or self.channels} {self.sample_format or '?'}"
        else:
            what = ""
        return f"StreamInfo(#{self.index} {kind} {self.codec_name} {what}, time_base={self.time_base})"

    @classmethod
    def _from_c(cls, s: "_lib.fpx_stream_info") -> "StreamInfo":
        import ctypes
        extra = (ctypes.string_at(s.extradata, s.extradata_size)
                 if s.extradata and s.extradata_size else b"")
        has_facts = int(s.struct_size) >= _lib.fpx_stream_info.language.offset + ctypes.sizeof(ctypes.c_char_p)
        base = (int(s.index), _enum(MediaType, s.type), int(s.codec_id), _text(s.codec_name),
                _time_base(s.time_base_num, s.time_base_den), int(s.width), int(s.height),
                int(s.sample_rate), int(s.channels), int(s.video_delay), extra,
                s.codecpar or None)
        if not has_facts:  # a library older than 0.3 filled only the fields through codecpar
            return cls(*base)

        def name(b: Optional[bytes]) -> Optional[str]:
            return b.decode("utf-8", "replace") if b else None

        def rate(n: int, d: int) -> Optional[Fraction]:
            return Fraction(n, d) if n > 0 and d > 0 else None

        def colour(v: int, b: Optional[bytes], unspecified: int) -> Optional[str]:
            return None if v == unspecified else name(b)

        tag = int(s.codec_tag)
        tag_text = None
        if tag:
            raw = tag.to_bytes(4, "little")
            tag_text = raw.decode("latin-1") if all(32 <= c < 127 for c in raw) else None
        return cls(*base,
                   profile=None if s.profile == -99 else int(s.profile),
                   profile_name=name(s.profile_name),
                   level=None if s.level == -99 else int(s.level),
                   pixel_format=name(s.pixel_format), sample_format=name(s.sample_format),
                   bit_depth=int(s.bit_depth) or None,
                   sample_aspect_ratio=rate(s.sample_aspect_num, s.sample_aspect_den),
                   frame_rate=rate(s.frame_rate_num, s.frame_rate_den),
                   real_frame_rate=rate(s.real_frame_rate_num, s.real_frame_rate_den),
                   color_range=colour(s.color_range, s.color_range_name, 0),
                   color_primaries=colour(s.color_primaries, s.color_primaries_name, 2),
                   color_transfer=colour(s.color_transfer, s.color_transfer_name, 2),
                   color_space=colour(s.color_space, s.color_space_name, 2),
                   chroma_location=colour(s.chroma_location, s.chroma_location_name, 0),
                   field_order=int(s.field_order),
                   rotation=float(s.rotation_degrees) if s.has_display_matrix else None,
                   channel_layout=name(s.channel_layout), channel_mask=int(s.channel_mask),
                   frame_size=int(s.frame_size) or None, initial_padding=int(s.initial_padding),
                   trailing_padding=int(s.trailing_padding), codec_tag=tag, codec_tag_string=tag_text,
                   bit_rate=int(s.bit_rate) or None, bits_per_coded_sample=int(s.bits_per_coded_sample),
                   bits_per_raw_sample=int(s.bits_per_raw_sample), start_pts=_pts(s.start_pts),
                   duration_ts=_pts(s.duration_ts), frame_count=int(s.frame_count) or None,
                   disposition=int(s.disposition), language=name(s.language))


_PACKET_FIELDS = ("data", "stream_index", "pts", "dts", "duration", "pos", "flags", "seek_id",
                  "time_base", "pts_time", "dts_time", "item_time", "landed_pts",
                  "landed_stream_index", "landed_pts_in_stream", "trim_samples")
_UNSET: Any = object()


class Packet:
    """One demuxed packet, its payload copied out of the library's buffer. Immutable (setting
    an attribute raises ``dataclasses.FrozenInstanceError``), compared and hashed by its
    fields.

    Fields: ``data`` (bytes); ``stream_index``; ``pts``, ``dts``: the packet's timestamps in
    the stream time base (HLS: unwrapped across the 33-bit MPEG-TS wrap, seek.h "Timestamp
    wrap"), None for FPX_NOPTS; ``duration``: stream time base, 0 if unknown;
    ``pos``: byte position, None if unknown; ``flags``; ``seek_id``: the latest seek this
    packet follows, 0 if none; ``time_base``; ``pts_time``, ``dts_time``: pts and dts as
    exact seconds on the stream's timeline (pts * time_base); ``item_time``: pts as exact
    seconds on the item timeline (pts_time - item origin); ``landed_pts``: the landed frame
    of the seek this packet follows, in the reference stream's time base
    (``landed_stream_index``), None before any landed seek; ``landed_pts_in_stream``: the
    landing in this packet's stream time base, rounded up: present decoded frames of this
    stream whose pts >= it (the B-frame recipe in seek.h); ``trim_samples``: audio packet
    straddling the landing: samples at the start of its decoded frame to drop before
    presenting the rest (exact), 0 otherwise.

    A packet keeps the library's fields as read and decodes each one when it is accessed;
    the three Fractions (pts_time, dts_time, item_time) are computed on first access. So a
    packet that is only fed to a decoder costs no Fraction arithmetic.
    """

    __slots__ = ("_r", "time_base", "_origin", "_pt", "_dt", "_it")

    _r: Tuple[bytes, Tuple[Any, ...]]
    time_base: Optional[Fraction]
    _origin: Any
    _pt: Optional[Fraction]
    _dt: Optional[Fraction]
    _it: Optional[Fraction]

    def __init__(self, data: bytes, stream_index: int, pts: Optional[int], dts: Optional[int],
                 duration: int, pos: Optional[int], flags: int, seek_id: int,
                 time_base: Optional[Fraction], pts_time: Optional[Fraction],
                 dts_time: Optional[Fraction], item_time: Optional[Fraction],
                 landed_pts: Optional[int] = None, landed_stream_index: int = -1,
                 landed_pts_in_stream: Optional[int] = None, trim_samples: int = 0) -> None:
        def ts(v: Optional[int]) -> int:
            return _NOPTS if v is None else int(v)
        u = (0, None, len(data), int(stream_index), ts(pts), ts(dts), int(duration),
             -1 if pos is None else int(pos), int(flags), int(seek_id), None, ts(landed_pts),
             ts(landed_pts_in_stream), int(trim_samples), int(landed_stream_index))
        st = object.__setattr__
        st(self, "_r", (bytes(data), u))
        st(self, "time_base", time_base)
        st(self, "_origin", None)
        st(self, "_pt", pts_time)
        st(self, "_dt", dts_time)
        st(self, "_it", item_time)

    def __setattr__(self, name: str, value: Any) -> None:
        import dataclasses
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        import dataclasses
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    @property
    def data(self) -> bytes:
        """The payload (a copy: it stays valid after later reads)."""
        return self._r[0]

    @property
    def stream_index(self) -> int:
        """The stream this packet belongs to."""
        return cast(int, self._r[1][3])

    @property
    def pts(self) -> Optional[int]:
        """Raw pts in the stream time base; None for FPX_NOPTS."""
        v = self._r[1][4]
        return None if v == _NOPTS else cast(int, v)

    @property
    def dts(self) -> Optional[int]:
        """Raw dts in the stream time base; None for FPX_NOPTS."""
        v = self._r[1][5]
        return None if v == _NOPTS else cast(int, v)

    @property
    def duration(self) -> int:
        """Stream time base; 0 if unknown."""
        return cast(int, self._r[1][6])

    @property
    def pos(self) -> Optional[int]:
        """Byte position; None if unknown."""
        v = self._r[1][7]
        return None if v < 0 else cast(int, v)

    @property
    def flags(self) -> int:
        """FPX_PACKET_FLAG_*."""
        return cast(int, self._r[1][8])

    @property
    def seek_id(self) -> int:
        """The latest seek this packet follows, 0 if none."""
        return cast(int, self._r[1][9])

    @property
    def landed_pts(self) -> Optional[int]:
        """The landed frame of the seek this packet follows, in the reference stream's time
        base (landed_stream_index); None before any landed seek."""
        v = self._r[1][11]
        return None if v == _NOPTS else cast(int, v)

    @property
    def landed_pts_in_stream(self) -> Optional[int]:
        """The landing in this packet's stream time base, rounded up."""
        v = self._r[1][12]
        return None if v == _NOPTS else cast(int, v)

    @property
    def trim_samples(self) -> int:
        """Audio packet straddling the landing: samples to drop at its start; else 0."""
        return cast(int, self._r[1][13])

    @property
    def landed_stream_index(self) -> int:
        """The stream of landed_pts; -1 before any landed seek."""
        return cast(int, self._r[1][14])

    @property
    def pts_time(self) -> Optional[Fraction]:
        """pts as exact seconds on the stream's timeline (pts * time_base)."""
        try:
            return self._pt
        except AttributeError:
            pts, tb = self.pts, self.time_base
            v = pts * tb if pts is not None and tb is not None else None
            object.__setattr__(self, "_pt", v)
            return v

    @property
    def dts_time(self) -> Optional[Fraction]:
        """dts as exact seconds on the stream's timeline (dts * time_base)."""
        try:
            return self._dt
        except AttributeError:
            dts, tb = self.dts, self.time_base
            v = dts * tb if dts is not None and tb is not None else None
            object.__setattr__(self, "_dt", v)
            return v

    @property
    def item_time(self) -> Optional[Fraction]:
        """pts as exact seconds on the item timeline (pts_time - item origin; the origin is
        fpx_packet.item_origin_pts, per discontinuity domain for HLS, else start_pts)."""
        try:
            return self._it
        except AttributeError:
            pt = self.pts_time
            v = pt - self._origin if pt is not None and self._origin is not None else None
            object.__setattr__(self, "_it", v)
            return v

    def _key(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, f) for f in _PACKET_FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Packet)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> Any:
        return (Packet, self._key())

    @property
    def is_key(self) -> bool:
        """A keyframe (FPX_PACKET_FLAG_KEY)."""
        return bool(self.flags & _lib.FPX_PACKET_FLAG_KEY)

    @property
    def is_corrupt(self) -> bool:
        """The demuxer flagged the packet corrupt (FPX_PACKET_FLAG_CORRUPT)."""
        return bool(self.flags & _lib.FPX_PACKET_FLAG_CORRUPT)

    @property
    def is_discard(self) -> bool:
        """The container marks it discard (edit-list pre-roll, audio priming): decode it, never
        present it."""
        return bool(self.flags & _lib.FPX_PACKET_FLAG_DISCARD)

    @property
    def is_decode_only(self) -> bool:
        """Decode it, but do not present it: its pts is before the landed frame."""
        return bool(self.flags & _lib.FPX_PACKET_FLAG_DECODE_ONLY)

    @property
    def is_discontinuity(self) -> bool:
        """The first packet after a seek: flush the decoder."""
        return bool(self.flags & _lib.FPX_PACKET_FLAG_DISCONTINUITY)

    @property
    def is_disposable(self) -> bool:
        """A decode-only video packet no later frame references (FPX_PACKET_FLAG_DISPOSABLE):
        drop it before the decoder and the landed frame and those after it decode the same
        (seek.h, "Disposable packets")."""
        return bool(self.flags & _lib.FPX_PACKET_FLAG_DISPOSABLE)

    @property
    def size(self) -> int:
        """The payload size in bytes."""
        return len(self._r[0])

    def __repr__(self) -> str:
        return (f"Packet(stream_index={self.stream_index}, pts={self.pts}, dts={self.dts}, "
                f"size={len(self.data)}, flags={self.flags:#x}, seek_id={self.seek_id}"
                + (f", landed_pts={self.landed_pts}" if self.landed_pts is not None else "")
                + (f", trim_samples={self.trim_samples}" if self.trim_samples else "") + ")")

    @classmethod
    def _from_raw(cls, raw: Tuple[Any, ...], time_base: Optional[Fraction],
                  origin: Optional[Fraction]) -> "Packet":
        """From (payload, fpx_packet unpacked in field order), the readers' tuple: three
        stores, no __init__, no Fraction arithmetic (the fast path of read_packet and
        packets). The fields are decoded when accessed."""
        o = _new(cls)
        _SET_R(o, raw)
        _SET_TB(o, time_base)
        _SET_ORIGIN(o, origin)
        return o

    @classmethod
    def _from_c(cls, p: "_lib.fpx_packet", time_base: Optional[Fraction],
                origin: Optional[Fraction], data: Optional[bytes] = None) -> "Packet":
        import ctypes
        if data is None:
            data = ctypes.string_at(p.data, p.size) if p.data and p.size else b""
        u = (int(p.struct_size), p.data, int(p.size), int(p.stream_index), int(p.pts),
             int(p.dts), int(p.duration), int(p.pos), int(p.flags), int(p.seek_id),
             p.av_packet, int(p.landed_pts), int(p.landed_pts_in_stream),
             int(p.trim_samples), int(p.landed_stream_index))
        return cls._from_raw((data, u), time_base, origin)


_NOPTS = _lib.FPX_NOPTS
_new = object.__new__
_SET_R, _SET_TB, _SET_ORIGIN = (getattr(Packet, n).__set__ for n in ("_r", "time_base", "_origin"))


def unix_us_to_datetime(us: int) -> "datetime.datetime":
    """Unix microseconds as an aware UTC datetime (exact: datetime has microseconds)."""
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return epoch + datetime.timedelta(microseconds=int(us))


@dataclass(frozen=True)
class LiveSeekWindow:
    """The seekable window of a live/DVR HLS item, or a file's seekable range
    (``fpx_live_seek_window``). Times are exact item-timeline seconds."""

    struct_size: int
    #: False when there is no ready item.
    is_available: bool
    #: Live or DVR: no ENDLIST.
    is_live: bool
    #: The playlist publishes EXT-X-PROGRAM-DATE-TIME.
    is_date_addressable: bool
    start: Optional[Fraction]
    #: The live edge (live), or the last frame itself (VOD and files).
    end: Optional[Fraction]
    duration: Optional[Fraction]
    #: Unix microseconds of start/end; 0 unless date addressable.
    start_date_us: int
    end_date_us: int
    first_sequence: int
    last_sequence: int
    target_duration: Optional[Fraction]
    hold_back: Optional[Fraction]

    @property
    def duration_seconds(self) -> float:
        """Display only."""
        return _seconds(self.duration)

    @property
    def start_date(self) -> "Optional[datetime.datetime]":
        """The window's start as an aware UTC datetime; None when not date-addressable."""
        return unix_us_to_datetime(self.start_date_us) if self.is_date_addressable else None

    @property
    def end_date(self) -> "Optional[datetime.datetime]":
        """The window's end (the live edge) as an aware UTC datetime; None when not
        date-addressable."""
        return unix_us_to_datetime(self.end_date_us) if self.is_date_addressable else None

    def __repr__(self) -> str:
        if not self.is_available:
            return "LiveSeekWindow(unavailable)"
        kind = "live" if self.is_live else "vod"
        dates = f", dates {self.start_date_us}..{self.end_date_us} us" if self.is_date_addressable else ""
        return (f"LiveSeekWindow({kind} [{self.start}, {self.end}] s, segments "
                f"{self.first_sequence}..{self.last_sequence}{dates})")

    @classmethod
    def _from_c(cls, w: "_lib.fpx_live_seek_window") -> "LiveSeekWindow":
        return cls(int(w.struct_size), bool(w.is_available), bool(w.is_live),
                   bool(w.is_date_addressable), from_fpx_time(w.start), from_fpx_time(w.end),
                   from_fpx_time(w.duration), int(w.start_date_us), int(w.end_date_us),
                   int(w.first_sequence), int(w.last_sequence),
                   from_fpx_time(w.target_duration), from_fpx_time(w.hold_back))


@dataclass(frozen=True)
class LiveEdgeResult:
    """The one completion of a seek to the live edge."""

    #: None when nothing was attached (error is then FPX_ERROR_NO_ITEM).
    outcome: Optional[SeekOutcome]
    #: 0, or an fpx_error code when there is no outcome.
    error: int

    @property
    def exception(self) -> Optional[_errors.FastPixSeekError]:
        """The error as an exception (None when the seek was issued)."""
        return _lib.make_error(self.error, "fpx_player_seek_to_live_edge") \
            if self.error < 0 else None

    def __repr__(self) -> str:
        return f"LiveEdgeResult({self.outcome!r})" if self.outcome is not None else \
            f"LiveEdgeResult(error={self.error})"


@dataclass(frozen=True)
class DateSeekResult:
    """The one completion of a seek to a wall-clock date (``fpx_date_seek_result``)."""

    struct_size: int
    #: True: outcome is set.
    seeked: bool
    outcome: Optional[SeekOutcome]
    reason: DateSeekUnavailableReason
    requested_date_us: int
    #: Set for OUTSIDE_WINDOW.
    window_start_date_us: int
    window_end_date_us: int
    explanation: str

    @property
    def requested_date(self) -> "datetime.datetime":
        """The requested date as an aware UTC datetime."""
        return unix_us_to_datetime(self.requested_date_us)

    def __repr__(self) -> str:
        if self.seeked:
            return f"DateSeekResult({self.requested_date_us} us: {self.outcome!r})"
        r = self.reason.name if isinstance(self.reason, DateSeekUnavailableReason) else self.reason
        return f"DateSeekResult({self.requested_date_us} us refused: {r})"

    @classmethod
    def _from_c(cls, r: "_lib.fpx_date_seek_result") -> "DateSeekResult":
        outcome = SeekOutcome._from_c(r.outcome.contents) if r.outcome else None
        return cls(int(r.struct_size), bool(r.seeked), outcome,
                   _enum(DateSeekUnavailableReason, r.reason), int(r.requested_date_us),
                   int(r.window_start_date_us), int(r.window_end_date_us), _text(r.explanation))


@dataclass(frozen=True)
class PlayerStats:
    struct_size: int
    seeks_issued: int
    seeks_completed: int
    seeks_superseded: int
    seeks_cancelled: int
    seeks_failed: int
    packets_demuxed: int
    bytes_read: int
    events_delivered: int
    #: IndexMode.FULL: reference-stream frames the background index has read, and 1 once
    #: it reached the end of the item (see IndexMode).
    index_frames: int
    index_complete: int
    #: HLS holes of the current item (seek.h, "Gaps").
    segments_skipped: int = 0

    def __repr__(self) -> str:
        # Short (< 200 characters): the counters, without struct_size.
        idx = f", index {self.index_frames}{' complete' if self.index_complete else ''}" \
            if self.index_frames or self.index_complete else ""
        return (f"PlayerStats(seeks {self.seeks_issued} issued/{self.seeks_completed} completed/"
                f"{self.seeks_superseded} superseded/{self.seeks_cancelled} cancelled/"
                f"{self.seeks_failed} failed, {self.packets_demuxed} packets, {self.bytes_read} bytes, "
                f"{self.events_delivered} events{idx})")

    @classmethod
    def _from_c(cls, s: "_lib.fpx_player_stats") -> "PlayerStats":
        return cls(*(int(getattr(s, f[0])) for f in _lib.fpx_player_stats._fields_))
