"""Bad input raises clear Python exceptions and never crashes the interpreter."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import fastpix_seek
from fastpix_seek import (InvalidArgumentError, InvalidHandleError,
                          InvalidTimeError, Player, PrecisionKind, SeekPrecision, _lib)
from fastpix_seek.types import to_fpx_time, to_fraction


@pytest.fixture
def ready(sample: Path):
    with Player(sample) as p:
        p.wait_item(timeout=20)
        yield p


# ------------------------------------------------------------------------------------------
# times
# ------------------------------------------------------------------------------------------

NON_FINITE = [math.nan, math.inf, -math.inf, float("-nan"), Decimal("NaN"), Decimal("Infinity"),
              Decimal("-Infinity"), Decimal("sNaN"), "nan", "inf", "-Infinity"]


@pytest.mark.parametrize("bad", NON_FINITE, ids=repr)
def test_non_finite_targets_raise_invalid_time(ready: Player, bad):
    with pytest.raises(InvalidTimeError) as ei:
        ready.seek(bad, SeekPrecision.exact())
    e = ei.value
    assert isinstance(e, ValueError) and e.code == -3 and e.name == "FPX_ERROR_INVALID_TIME"
    assert e.message == _lib.lib.fpx_error_string(-3)
    with pytest.raises(InvalidTimeError):
        ready.seek_and_wait(bad, SeekPrecision.exact())
    assert ready.stats().seeks_issued == 0, "nothing may be queued for a rejected seek"


@pytest.mark.parametrize("raw", [
    _lib.fpx_time(1, 0, 1),                       # timescale 0
    _lib.fpx_time(1, -5, 1),                      # negative timescale
    _lib.fpx_time(1, 10, 0),                      # not VALID
    _lib.fpx_time(0, 0, 0),                       # fpx_time_invalid()
], ids=["ts0", "ts-5", "noflag", "invalid"])
def test_library_validates_raw_times(ready: Player, raw):
    """A raw fpx_time goes to the library unchanged: its own validation answers."""
    with pytest.raises(InvalidTimeError) as ei:
        ready.seek(raw, SeekPrecision.exact())
    assert ei.value.function == "fpx_player_seek"


def test_library_rejects_infinite_raw_times(ready: Player):
    for neg in (0, 1):
        t = _lib.lib.fpx_time_infinity(neg)
        with pytest.raises(InvalidTimeError) as ei:
            ready.seek(t, SeekPrecision.exact())
        assert ei.value.function == "fpx_player_seek"
    nan = _lib.lib.fpx_time_from_seconds(math.nan, 1000)
    assert not _lib.lib.fpx_time_is_valid(nan)
    with pytest.raises(InvalidTimeError):
        ready.seek(nan, SeekPrecision.exact())


@pytest.mark.parametrize("bad", [None, [1], (1, 2), b"1", 1 + 2j, True, False, object(),
                                 {"t": 1}], ids=lambda v: "object()" if type(v) is object else repr(v))
def test_wrong_target_types_raise_type_error(ready: Player, bad):
    with pytest.raises(TypeError):
        ready.seek(bad, SeekPrecision.exact())


@pytest.mark.parametrize("bad", ["", "abc", "1/0", "1/2/3"])
def test_unparsable_strings_raise_invalid_time(ready: Player, bad):
    with pytest.raises(InvalidTimeError):
        ready.seek(bad, SeekPrecision.exact())


def test_times_that_do_not_fit(ready: Player):
    with pytest.raises(InvalidTimeError):
        ready.seek(Fraction(10 ** 30), SeekPrecision.exact())
    with pytest.raises(InvalidTimeError):
        ready.seek(2 ** 63, SeekPrecision.exact())
    # the largest exact value still works (clamped to the end)
    o = ready.seek_and_wait(Fraction(2 ** 63 - 1, 1), SeekPrecision.exact())
    assert o.clamp.did_clamp and o.requested_time == 2 ** 63 - 1


def test_conversion_rules():
    assert to_fraction(0.1) == Fraction(1, 10)
    assert to_fraction(Decimal("0.1")) == Fraction(1, 10)
    assert to_fraction("1001/30000") == Fraction(1001, 30000)
    assert to_fraction(7) == 7
    t = to_fpx_time(Fraction(1001, 30000))
    assert (t.value, t.timescale, t.flags) == (1001, 30000, 1)
    t = to_fpx_time(Fraction(1, 2 ** 40))  # denominator too big: nanoseconds
    assert (t.value, t.timescale) == (0, 10 ** 9)
    t = to_fpx_time(Fraction(1, 2 ** 31))  # just past int32: nanoseconds, nearest
    assert (t.value, t.timescale) == (0, 10 ** 9)
    t = to_fpx_time(Fraction(10 ** 9 + 1, 2 ** 31))
    assert (t.value, t.timescale) == (round(Fraction(10 ** 9 + 1, 2 ** 31) * 10 ** 9), 10 ** 9)
    # every conversion round-trips through the library's own comparison exactly
    for f in (Fraction(1, 3), Fraction(-7, 2), Fraction(2 ** 62, 3), Fraction(1, 2 ** 31 - 1)):
        c = to_fpx_time(f)
        assert _lib.lib.fpx_time_compare(c, _lib.lib.fpx_time_make(f.numerator,
                                                                     f.denominator)) == 0


# ------------------------------------------------------------------------------------------
# precision
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [-1, Fraction(-1, 30000), -0.001, "-1/10", Decimal("-0.5"),
                                 math.nan, math.inf, -math.inf, Decimal("NaN")], ids=repr)
def test_bad_tolerances_raise_invalid_argument(bad):
    with pytest.raises(InvalidArgumentError) as ei:
        SeekPrecision.nearest_keyframe(bad)
    assert isinstance(ei.value, ValueError) and ei.value.code == -2


@pytest.mark.parametrize("bad", [None, [0.1], b"0.1", True, 1j], ids=repr)
def test_wrong_tolerance_types_raise_type_error(bad):
    with pytest.raises(TypeError):
        SeekPrecision.nearest_keyframe(bad)


def test_tolerance_inputs_are_exact():
    assert SeekPrecision.nearest_keyframe(0.1).tolerance == Fraction(1, 10)
    assert SeekPrecision.nearest_keyframe("1/10").tolerance == Fraction(1, 10)
    assert SeekPrecision.nearest_keyframe(Decimal("0.1")).tolerance == Fraction(1, 10)
    assert SeekPrecision.nearest_keyframe(0).tolerance == 0
    assert SeekPrecision.exact().tolerance == 0


def test_library_validates_raw_precisions(ready: Player):
    # built directly, bypassing nearest_keyframe's check: the library rejects it
    with pytest.raises(InvalidArgumentError) as ei:
        ready.seek(1, SeekPrecision(PrecisionKind.NEAREST_KEYFRAME, Fraction(-1)))
    assert ei.value.function == "fpx_player_seek"
    with pytest.raises(fastpix_seek.UnknownEnumError) as ei:
        ready.seek(1, SeekPrecision(7, Fraction(0)))  # type: ignore[arg-type]
    assert ei.value.function == "fpx_player_seek"
    assert ready.stats().seeks_issued == 0


@pytest.mark.parametrize("bad", ["exact", 0, PrecisionKind.EXACT, 0.1], ids=repr)
def test_wrong_precision_types_raise_type_error(ready: Player, bad):
    with pytest.raises(TypeError):
        ready.seek(1, bad)


# ------------------------------------------------------------------------------------------
# players
# ------------------------------------------------------------------------------------------

def test_closed_player_raises_invalid_handle(sample: Path):
    p = Player(sample)
    p.close()
    p.close()  # idempotent
    assert p.closed and p.handle is None
    calls = [
        lambda: p.seek(1), lambda: p.seek_and_wait(1), lambda: p.open(sample),
        lambda: p.close_item(), lambda: p.wait_item(1), lambda: p.item_info(),
        lambda: p.item_status(), lambda: p.stream_info(0), lambda: p.seekable_range(),
        lambda: p.setup_seek_manager(), lambda: p.cancel_pending_seeks(),
        lambda: p.add_listener(fastpix_seek.SeekPrecisionListener()),
        lambda: p.remove_listener(1), lambda: p.dispatch_events(), lambda: p.event_fd(),
        lambda: p.stats(), lambda: p.read_packet(), lambda: list(p.packets()),
    ]
    for call in calls:
        with pytest.raises(InvalidHandleError, match="closed"):
            call()
    with Player() as q:
        pass
    with pytest.raises(InvalidHandleError):
        q.seek(0)


def test_destroyed_raw_handle_is_reported_not_crashing():
    h = _lib.PlayerHandle()
    _lib.lib.fpx_player_create(None, h)
    _lib.lib.fpx_player_destroy(h)
    with pytest.raises(InvalidHandleError):
        _lib.lib.fpx_player_destroy(h)
    with pytest.raises(InvalidHandleError):
        _lib.lib.fpx_player_open(_lib.PlayerHandle(0xDEAD5), b"x.mp4")
    assert _lib.lib.fpx_player_destroy(None) == 0  # NULL is a no-op


def test_wrong_constructor_arguments():
    with pytest.raises(TypeError):
        Player(delivery="host")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Player(io_timeout="10")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Player(wakeup=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Player(url=42)  # type: ignore[arg-type]
    with pytest.raises(fastpix_seek.UnknownEnumError) as ei:
        Player(delivery=7)  # type: ignore[arg-type]
    assert ei.value.function == "fpx_player_create"
    with pytest.raises(InvalidArgumentError) as ei:
        Player(io_timeout=-1)
    assert ei.value.function == "fpx_player_create"
    with pytest.raises(InvalidArgumentError):
        Player(io_timeout=math.nan)


def test_wrong_method_arguments(ready: Player):
    with pytest.raises(TypeError):
        ready.wait_item("5")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ready.wait_item(math.nan)
    with pytest.raises(TypeError):
        ready.stream_info("0")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        ready.stream_info(99)
    with pytest.raises(InvalidArgumentError):
        ready.stream_info(-1)
    with pytest.raises(InvalidArgumentError):
        ready.stream_info(2 ** 40)
    with pytest.raises(TypeError):
        ready.open(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        ready.open("")
    with pytest.raises(InvalidArgumentError):
        ready.open("a\0b")
    with pytest.raises(TypeError):
        ready.add_listener(None)
    with pytest.raises(TypeError):
        ready.seek(1, SeekPrecision.exact(), on_complete=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ready.remove_listener("1")  # type: ignore[arg-type]
    with pytest.raises(fastpix_seek.NotFoundError):
        ready.remove_listener(123456)
    with pytest.raises(fastpix_seek.NotFoundError):
        ready.remove_listener(-1)
    with pytest.raises(TypeError):
        ready.seek_and_wait(1, SeekPrecision.exact(), timeout="1")  # type: ignore[arg-type]


def test_no_item_and_not_ready(sample: Path):
    with Player() as p:
        with pytest.raises(fastpix_seek.NoItemError):
            p.seek(1)
        with pytest.raises(fastpix_seek.NoItemError):
            p.item_info()
        with pytest.raises(fastpix_seek.NoItemError):
            p.wait_item(1)
        with pytest.raises(fastpix_seek.NoItemError):
            p.read_packet()
        assert p.item_status().status == fastpix_seek.ItemStatus.NONE
        p.open(sample)
        p.wait_item(20)
        p.close_item()
        with pytest.raises(fastpix_seek.NoItemError):
            p.seek(1)


@pytest.mark.parametrize("name,exc", [("corrupt.mp4", fastpix_seek.InvalidDataError),
                                      ("garbage.bin", fastpix_seek.InvalidDataError),
                                      ("does-not-exist.mp4", fastpix_seek.NotFoundError)])
def test_open_failures(fixtures_dir: Path, name, exc):
    with Player(fixtures_dir / name) as p:
        with pytest.raises(exc) as ei:
            p.wait_item(timeout=20)
        assert ei.value.function == "fpx_player_wait_item"
        st = p.item_status()
        assert st.status == fastpix_seek.ItemStatus.FAILED and st.error == ei.value.code
        assert isinstance(st.exception, exc)
        with pytest.raises(fastpix_seek.ItemFailedError):
            p.seek(1)
        with pytest.raises(fastpix_seek.ItemFailedError):
            p.item_info()


@pytest.fixture
def stalled_server():
    """An HTTP 'server' that accepts connections and never answers."""
    import socket
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/stall.mp4"
    srv.close()


def test_wait_item_timeout_and_close_interrupts_stalled_io(stalled_server):
    import time
    with Player(stalled_server, io_timeout=30) as p:
        with pytest.raises(fastpix_seek.FastPixTimeoutError) as ei:
            p.wait_item(timeout=0.2)
        assert ei.value.function == "fpx_player_wait_item"
        assert p.item_status().status == fastpix_seek.ItemStatus.LOADING
        t0 = time.monotonic()
    # close() interrupted the in-flight open instead of waiting out the 30 s I/O timeout
    assert time.monotonic() - t0 < 5


def test_io_timeout_bounds_a_stalled_open(stalled_server):
    with Player(stalled_server, io_timeout=0.5) as p:
        with pytest.raises((fastpix_seek.FastPixTimeoutError, fastpix_seek.NetworkError,
                            fastpix_seek.FastPixIOError)) as ei:
            p.wait_item(timeout=10)
        assert ei.value.function == "fpx_player_wait_item"
        assert p.item_status().status == fastpix_seek.ItemStatus.FAILED
