/*
 * test_time.c -- rational time: fpx_time_make/compare/from_seconds/
 * to_seconds/subtract/is_valid/is_numeric, the precision constructors and
 * the version functions. Pure functions: needs no fixtures.
 *
 * Expected values of the huge comparisons were computed with exact
 * rational arithmetic (Python fractions); see the comments next to them.
 */
#include "check.h"

#include <float.h>

static fpx_time raw(int64_t value, int32_t timescale, uint32_t flags)
{
    fpx_time t;
    t.value = value;
    t.timescale = timescale;
    t.flags = flags;
    return t;
}

#define T(v, ts) fpx_time_make((v), (ts))

static void check_numeric(fpx_time t, int64_t value, int32_t timescale, const char *what, int line)
{
    int ok = fpx_time_is_numeric(t) && t.value == value && t.timescale == timescale;
    char buf[256];
    if (ok) {
        check_pass_();
        return;
    }
    snprintf(buf, sizeof buf, "got %" PRId64 "/%" PRId32 " flags %" PRIu32 ", expected numeric %" PRId64 "/%" PRId32,
             t.value, t.timescale, t.flags, value, timescale);
    check_fail_(__FILE__, line, what, buf);
}
#define CHECK_NUMERIC(t, v, ts) check_numeric((t), (v), (ts), #t, __LINE__)

static void test_make(void)
{
    fpx_time t;
    SECTION("fpx_time_make / is_valid / is_numeric");
    t = T(1001, 30000);
    CHECK_EQ(t.value, 1001);
    CHECK_EQ(t.timescale, 30000);
    CHECK(t.flags & FPX_TIME_FLAG_VALID);
    CHECK(!(t.flags & (FPX_TIME_FLAG_POSITIVE_INFINITY | FPX_TIME_FLAG_NEGATIVE_INFINITY)));
    CHECK_EQ(fpx_time_is_valid(t), 1);
    CHECK_EQ(fpx_time_is_numeric(t), 1);

    t = T(-7, 1);
    CHECK_EQ(fpx_time_is_numeric(t), 1);
    CHECK_EQ(t.value, -7);

    t = T(INT64_MAX, INT32_MAX);
    CHECK_EQ(fpx_time_is_numeric(t), 1);
    t = T(INT64_MIN, 1);
    CHECK_EQ(fpx_time_is_numeric(t), 1);

    /* timescale 0 and negative give the invalid time (flags 0) */
    t = T(1, 0);
    CHECK_EQ(t.flags, 0);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    CHECK_EQ(fpx_time_is_numeric(t), 0);
    t = T(1, -30000);
    CHECK_EQ(t.flags, 0);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = T(0, INT32_MIN);
    CHECK_EQ(fpx_time_is_valid(t), 0);

    t = fpx_time_invalid();
    CHECK_EQ(t.flags, 0);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    CHECK_EQ(fpx_time_is_numeric(t), 0);

    /* hand-built structs: without VALID, or timescale <= 0, they are invalid */
    CHECK_EQ(fpx_time_is_valid(raw(1, 1, 0)), 0);
    CHECK_EQ(fpx_time_is_valid(raw(1, 0, FPX_TIME_FLAG_VALID)), 0);
    CHECK_EQ(fpx_time_is_valid(raw(1, -1, FPX_TIME_FLAG_VALID)), 0);
    CHECK_EQ(fpx_time_is_numeric(raw(1, 0, FPX_TIME_FLAG_VALID)), 0);
    CHECK_EQ(fpx_time_is_valid(raw(1, 1, FPX_TIME_FLAG_VALID)), 1);
    CHECK_EQ(fpx_time_is_numeric(raw(1, 1, FPX_TIME_FLAG_VALID)), 1);

    /* infinities */
    t = fpx_time_infinity(0);
    CHECK(t.flags & FPX_TIME_FLAG_VALID);
    CHECK(t.flags & FPX_TIME_FLAG_POSITIVE_INFINITY);
    CHECK(!(t.flags & FPX_TIME_FLAG_NEGATIVE_INFINITY));
    CHECK_EQ(fpx_time_is_valid(t), 1);
    CHECK_EQ(fpx_time_is_numeric(t), 0);
    t = fpx_time_infinity(1);
    CHECK(t.flags & FPX_TIME_FLAG_VALID);
    CHECK(t.flags & FPX_TIME_FLAG_NEGATIVE_INFINITY);
    CHECK(!(t.flags & FPX_TIME_FLAG_POSITIVE_INFINITY));
    CHECK_EQ(fpx_time_is_valid(t), 1);
    CHECK_EQ(fpx_time_is_numeric(t), 0);
    t = fpx_time_infinity(-42); /* negative != 0 gives -infinity */
    CHECK(t.flags & FPX_TIME_FLAG_NEGATIVE_INFINITY);
}

static void test_compare(void)
{
    const int64_t M = INT64_MAX;
    const int64_t m = INT64_MIN;
    fpx_time pinf = fpx_time_infinity(0), ninf = fpx_time_infinity(1), inv = fpx_time_invalid();

    SECTION("fpx_time_compare: 1001/30000 boundary");
    CHECK_EQ(fpx_time_compare(T(1001, 30000), T(1001, 30000)), 0);
    CHECK_EQ(fpx_time_compare(T(1001, 30000), T(1, 30)), 1);
    CHECK_EQ(fpx_time_compare(T(1, 30), T(1001, 30000)), -1);
    /* 1001/30000 = 0.0333666...; 33366667e-9 is above it, 33366666e-9 below */
    CHECK_EQ(fpx_time_compare(T(1001, 30000), T(33366667, 1000000000)), -1);
    CHECK_EQ(fpx_time_compare(T(33366667, 1000000000), T(1001, 30000)), 1);
    CHECK_EQ(fpx_time_compare(T(1001, 30000), T(33366666, 1000000000)), 1);
    CHECK_EQ(fpx_time_compare(T(1, 30), T(33366667, 1000000000)), -1);
    /* equal rationals with different timescales */
    CHECK_EQ(fpx_time_compare(T(1, 2), T(15000, 30000)), 0);
    CHECK_EQ(fpx_time_compare(T(2002, 60000), T(1001, 30000)), 0);
    CHECK_EQ(fpx_time_compare(T(3003, 90000), T(1001, 30000)), 0);
    CHECK_EQ(fpx_time_compare(T(-1001, 30000), T(-2002, 60000)), 0);
    CHECK_EQ(fpx_time_compare(T(0, 1), T(0, 90000)), 0);
    CHECK_EQ(fpx_time_compare(T(-1, 30000), T(0, 1)), -1);
    /* frame 1001 (i.e. 1001*1001/30000 s) vs its neighbours on a 1/90000 grid */
    CHECK_EQ(fpx_time_compare(T(1001 * 1001, 30000), T(3 * 1001 * 1001, 90000)), 0);
    CHECK_EQ(fpx_time_compare(T(1001 * 1001, 30000), T(3 * 1001 * 1001 - 1, 90000)), 1);
    CHECK_EQ(fpx_time_compare(T(1001 * 1001, 30000), T(3 * 1001 * 1001 + 1, 90000)), -1);

    SECTION("fpx_time_compare: huge values, overflow-safe");
    CHECK_EQ(fpx_time_compare(T(M, 1), T(M - 1, 1)), 1); /* equal as doubles */
    CHECK_EQ(fpx_time_compare(T(M, 1), T(M, 2)), 1);
    CHECK_EQ(fpx_time_compare(T(M, 2147483647), T(M, 2147483646)), -1);
    CHECK_EQ(fpx_time_compare(T(M, 2147483647), T(M - 1, 2147483646)), -1);
    CHECK_EQ(fpx_time_compare(T(M - 1, 1000000007), T(M, 1000000007)), -1);
    /* INT64_MAX = 7 * 1317624576693539401 exactly */
    CHECK_EQ(fpx_time_compare(T(M, 7), T(INT64_C(1317624576693539401), 1)), 0);
    CHECK_EQ(fpx_time_compare(T(M, 7), T(INT64_C(1317624576693539402), 1)), -1);
    CHECK_EQ(fpx_time_compare(T(M, 7), T(INT64_C(1317624576693539400), 1)), 1);
    CHECK_EQ(fpx_time_compare(T(INT64_C(1317624576693539401), 1), T(M, 7)), 0);
    /* (2^63-1)/(2^31-1) = 4294967298 + 1/(2^31-1): a double cannot see it */
    CHECK_EQ(fpx_time_compare(T(M, 2147483647), T(INT64_C(4294967298), 1)), 1);
    CHECK_EQ(fpx_time_compare(T(INT64_C(4294967298), 1), T(M, 2147483647)), -1);
    CHECK_EQ(fpx_time_compare(T(-M, 2147483647), T(INT64_C(-4294967298), 1)), -1);
    CHECK_EQ(fpx_time_compare(T(m, 3), T(m + 1, 3)), -1);
    CHECK_EQ(fpx_time_compare(T(m, 2147483647), T(m, 2147483646)), 1);
    CHECK_EQ(fpx_time_compare(T(m, 1), T(M, 1)), -1);
    CHECK_EQ(fpx_time_compare(T(M, 1), T(m, 1)), 1);
    CHECK_EQ(fpx_time_compare(T(m, 1), T(m, 1)), 0);
    CHECK_EQ(fpx_time_compare(T(M, 2147483647), T(m, 1)), 1);
    CHECK_EQ(fpx_time_compare(T(m, 2147483647), T(M, 1)), -1);

    SECTION("fpx_time_compare: infinities and invalid ordering (CMTimeCompare)");
    CHECK_EQ(fpx_time_compare(ninf, T(m, 1)), -1);
    CHECK_EQ(fpx_time_compare(T(m, 1), ninf), 1);
    CHECK_EQ(fpx_time_compare(pinf, T(M, 1)), 1);
    CHECK_EQ(fpx_time_compare(T(M, 1), pinf), -1);
    CHECK_EQ(fpx_time_compare(ninf, pinf), -1);
    CHECK_EQ(fpx_time_compare(pinf, ninf), 1);
    CHECK_EQ(fpx_time_compare(pinf, pinf), 0);
    CHECK_EQ(fpx_time_compare(ninf, ninf), 0);
    CHECK_EQ(fpx_time_compare(inv, inv), 0);
    CHECK_EQ(fpx_time_compare(inv, pinf), 1);
    CHECK_EQ(fpx_time_compare(pinf, inv), -1);
    CHECK_EQ(fpx_time_compare(inv, ninf), 1);
    CHECK_EQ(fpx_time_compare(inv, T(M, 1)), 1);
    CHECK_EQ(fpx_time_compare(T(M, 1), inv), -1);
    CHECK_EQ(fpx_time_compare(T(0, 1), inv), -1);
    /* different invalid encodings are all equal to each other */
    CHECK_EQ(fpx_time_compare(T(5, 0), inv), 0);
    CHECK_EQ(fpx_time_compare(raw(5, -3, FPX_TIME_FLAG_VALID), raw(9, 0, FPX_TIME_FLAG_VALID)), 0);
    CHECK_EQ(fpx_time_compare(raw(5, -3, FPX_TIME_FLAG_VALID), pinf), 1);
    CHECK_EQ(fpx_time_compare(raw(5, 30, 0), T(5, 30)), 1);
    CHECK_EQ(fpx_time_compare(T(1, -1), T(1, 1)), 1);
}

static void test_from_to_seconds(void)
{
    fpx_time t;
    SECTION("fpx_time_from_seconds");
    CHECK_NUMERIC(fpx_time_from_seconds(1.5, 1000), 1500, 1000);
    CHECK_NUMERIC(fpx_time_from_seconds(0.0333666, 30000), 1001, 30000);
    CHECK_NUMERIC(fpx_time_from_seconds(0.0333, 30000), 999, 30000);
    CHECK_NUMERIC(fpx_time_from_seconds(-2.5, 10), -25, 10);
    CHECK_NUMERIC(fpx_time_from_seconds(-0.0333666, 30000), -1001, 30000);
    CHECK_NUMERIC(fpx_time_from_seconds(92.4, 1), 92, 1);
    CHECK_NUMERIC(fpx_time_from_seconds(92.6, 10), 926, 10);
    CHECK_NUMERIC(fpx_time_from_seconds(0.0, 90000), 0, 90000);
    CHECK_NUMERIC(fpx_time_from_seconds(1.0 / 3.0, 3), 1, 3);
    CHECK_NUMERIC(fpx_time_from_seconds(9.2e18, 1), INT64_C(9200000000000000000), 1);
    t = fpx_time_from_seconds(NAN, 1000);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(-NAN, 1000);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(1.0, 0);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(1.0, -5);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(NAN, 0);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(INFINITY, 1000);
    CHECK_EQ(fpx_time_is_valid(t), 1);
    CHECK_EQ(fpx_time_is_numeric(t), 0);
    CHECK(t.flags & FPX_TIME_FLAG_POSITIVE_INFINITY);
    CHECK_EQ(fpx_time_compare(t, fpx_time_infinity(0)), 0);
    t = fpx_time_from_seconds(-INFINITY, 1000);
    CHECK_EQ(fpx_time_is_valid(t), 1);
    CHECK(t.flags & FPX_TIME_FLAG_NEGATIVE_INFINITY);
    CHECK_EQ(fpx_time_compare(t, fpx_time_infinity(1)), 0);
    /* magnitudes that do not fit int64 give an invalid time */
    t = fpx_time_from_seconds(1e300, 1000);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(-1e300, 1000);
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(9223372036854775808.0, 1); /* 2^63: one past INT64_MAX */
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(1e10, 1000000000); /* 1e19 ticks */
    CHECK_EQ(fpx_time_is_valid(t), 0);
    t = fpx_time_from_seconds(DBL_MAX, INT32_MAX);
    CHECK_EQ(fpx_time_is_valid(t), 0);

    SECTION("fpx_time_to_seconds");
    CHECK(fpx_time_to_seconds(T(1, 2)) == 0.5);
    CHECK(fpx_time_to_seconds(T(-3, 4)) == -0.75);
    CHECK(fabs(fpx_time_to_seconds(T(1001, 30000)) - 1001.0 / 30000.0) < 1e-15);
    CHECK(fabs(fpx_time_to_seconds(T(INT64_MAX, 1)) - 9223372036854775807.0) < 1e4);
    CHECK(isnan(fpx_time_to_seconds(fpx_time_invalid())));
    CHECK(isnan(fpx_time_to_seconds(T(1, 0))));
    CHECK(isnan(fpx_time_to_seconds(raw(1, -1, FPX_TIME_FLAG_VALID))));
    CHECK(isinf(fpx_time_to_seconds(fpx_time_infinity(0))) && fpx_time_to_seconds(fpx_time_infinity(0)) > 0);
    CHECK(isinf(fpx_time_to_seconds(fpx_time_infinity(1))) && fpx_time_to_seconds(fpx_time_infinity(1)) < 0);
}

static void test_subtract(void)
{
    fpx_time r;
    const int64_t M = INT64_MAX;
    fpx_time pinf = fpx_time_infinity(0), ninf = fpx_time_infinity(1), inv = fpx_time_invalid();

    SECTION("fpx_time_subtract: exact in lcm timescale");
    CHECK_NUMERIC(fpx_time_subtract(T(1001, 30000), T(1, 30)), 1, 30000);
    CHECK_NUMERIC(fpx_time_subtract(T(1, 30), T(1001, 30000)), -1, 30000);
    CHECK_NUMERIC(fpx_time_subtract(T(1, 3), T(1, 2)), -1, 6);
    CHECK_NUMERIC(fpx_time_subtract(T(0, 1), T(5, 1)), -5, 1);
    CHECK_NUMERIC(fpx_time_subtract(T(7, 10), T(7, 10)), 0, 10);
    CHECK_NUMERIC(fpx_time_subtract(T(2002, 30000), T(1001, 90000)), 5005, 90000);
    /* 90000 and 30000/1001 style grids: lcm(90000, 30000) = 90000 */
    CHECK_NUMERIC(fpx_time_subtract(T(3003, 90000), T(1001, 30000)), 0, 90000);
    /* intermediate 2*INT64_MAX overflows, the result INT64_MAX/4 fits */
    CHECK_NUMERIC(fpx_time_subtract(T(M, 2), T(M, 4)), M, 4);
    CHECK_NUMERIC(fpx_time_subtract(T(M, 7), T(M - 7, 7)), 7, 7);
    CHECK_NUMERIC(fpx_time_subtract(T(-1, 1), T(M, 1)), INT64_MIN, 1);

    SECTION("fpx_time_subtract: lcm does not fit 32 bits -> larger timescale, nearest");
    /* 3/1000000007 - 1/3 = -999999998/3000000021 = -333333332.67/1000000007 */
    CHECK_NUMERIC(fpx_time_subtract(T(3, 1000000007), T(1, 3)), -333333333, 1000000007);
    /* 1/(2^31-1) - 1/(2^31-2) = -1/4611686011984936962: rounds to 0 */
    r = fpx_time_subtract(T(1, 2147483647), T(1, 2147483646));
    CHECK_EQ(fpx_time_is_numeric(r), 1);
    CHECK_EQ(r.timescale, 2147483647);
    CHECK_EQ(r.value, 0);

    SECTION("fpx_time_subtract: value overflow is never a wrap-around");
    r = fpx_time_subtract(T(M, 1), T(-1, 1)); /* 2^63 does not fit */
    CHECK(!fpx_time_is_numeric(r) ? !(r.flags & FPX_TIME_FLAG_NEGATIVE_INFINITY)
                                  : fpx_time_compare(r, T(M, 1)) >= 0);
    r = fpx_time_subtract(T(INT64_MIN, 1), T(1, 1));
    CHECK(!fpx_time_is_numeric(r) ? !(r.flags & FPX_TIME_FLAG_POSITIVE_INFINITY)
                                  : fpx_time_compare(r, T(INT64_MIN, 1)) <= 0);

    SECTION("fpx_time_subtract: infinities and invalid");
    r = fpx_time_subtract(pinf, T(1, 1));
    CHECK_EQ(fpx_time_compare(r, pinf), 0);
    CHECK_EQ(fpx_time_is_valid(r), 1);
    r = fpx_time_subtract(T(1, 1), pinf);
    CHECK_EQ(fpx_time_compare(r, ninf), 0);
    CHECK_EQ(fpx_time_is_valid(r), 1);
    r = fpx_time_subtract(ninf, T(1, 1));
    CHECK_EQ(fpx_time_compare(r, ninf), 0);
    r = fpx_time_subtract(T(1, 1), ninf);
    CHECK_EQ(fpx_time_compare(r, pinf), 0);
    r = fpx_time_subtract(pinf, ninf);
    CHECK_EQ(fpx_time_compare(r, pinf), 0);
    CHECK_EQ(fpx_time_is_valid(r), 1);
    r = fpx_time_subtract(ninf, pinf);
    CHECK_EQ(fpx_time_compare(r, ninf), 0);
    CHECK_EQ(fpx_time_is_valid(r), 1);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(pinf, pinf)), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(ninf, ninf)), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(inv, T(1, 1))), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(T(1, 1), inv)), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(inv, inv)), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(T(1, 0), T(1, 1))), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(T(1, 1), raw(1, -5, FPX_TIME_FLAG_VALID))), 0);
    CHECK_EQ(fpx_time_is_valid(fpx_time_subtract(pinf, inv)), 0);
}

static void test_precision_and_version(void)
{
    fpx_precision p;
    char buf[64];
    unsigned v;
    SECTION("precision constructors");
    p = fpx_precision_exact();
    CHECK_EQ(p.kind, FPX_PRECISION_EXACT);
    p = fpx_precision_nearest_keyframe(T(1, 2));
    CHECK_EQ(p.kind, FPX_PRECISION_NEAREST_KEYFRAME);
    CHECK_EQ(p.tolerance.value, 1);
    CHECK_EQ(p.tolerance.timescale, 2);
    CHECK_EQ(p.tolerance.flags, T(1, 2).flags);
    p = fpx_precision_nearest_keyframe(T(-1, 2)); /* validated when used, not here */
    CHECK_EQ(p.kind, FPX_PRECISION_NEAREST_KEYFRAME);
    CHECK_EQ(p.tolerance.value, -1);
    p = fpx_precision_default();
    CHECK_EQ(p.kind, FPX_PRECISION_NEAREST_KEYFRAME);
    CHECK_TIME_EQ(p.tolerance, T(1, 10));

    SECTION("version");
    v = fpx_version();
    CHECK(v >= FPX_VERSION);
    CHECK_EQ(v >> 24, 0);
    CHECK(fpx_version_string() != NULL);
    snprintf(buf, sizeof buf, "%u.%u.%u", (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
    CHECK_STR(fpx_version_string(), buf);
}

int main(int argc, char **argv)
{
    check_init(argc, argv, 110);
    test_make();
    test_compare();
    test_from_to_seconds();
    test_subtract();
    test_precision_and_version();
    return check_summary();
}
