/*
 * test_bounds.c -- Iceberg single-value serialisation of bounds: golden bytes for every
 * weir type from the text DuckDB reports, truncation of strings and binary, refusals of
 * text that is not exact, and the reverse rendering.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iceberg/iceberg.h"

static weir_type T(wr_type_id id) { return (weir_type){id, 0, 0}; }
static weir_type DEC(int p, int s) { return (weir_type){WEIR_TYPE_DECIMAL, p, s}; }

static int hexv(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

/* Checks that `text` encodes to the bytes spelled in hex (spaces ignored). */
#define CHECK_BOUND(type, text, upper, hex)                                                 \
  do {                                                                                      \
    uint8_t *b_ = NULL;                                                                     \
    size_t n_ = 0;                                                                          \
    bool ok_ = iceberg_bound_from_text((type), (text), (upper), &b_, &n_);                  \
    if (!ok_) {                                                                             \
      TEST_FAIL_("bound of \"%s\" refused, expected %s", (text), (hex));                   \
    } else {                                                                                \
      uint8_t exp_[64];                                                                     \
      size_t en_ = 0;                                                                       \
      for (const char *h_ = (hex); *h_; h_++) {                                             \
        if (*h_ == ' ') continue;                                                           \
        exp_[en_++] = (uint8_t)(hexv(h_[0]) << 4 | hexv(h_[1]));                            \
        h_++;                                                                               \
      }                                                                                     \
      char got_[200] = "";                                                                  \
      for (size_t i_ = 0; i_ < n_ && i_ < 64; i_++)                                         \
        snprintf(got_ + 3 * i_, 4, "%02x ", b_[i_]);                                        \
      if (n_ != en_ || memcmp(b_, exp_, n_) != 0)                                           \
        TEST_FAIL_("bound of \"%s\" is %s, expected %s", (text), got_, (hex));              \
    }                                                                                       \
    free(b_);                                                                               \
  } while (0)

#define CHECK_NO_BOUND(type, text, upper)                                                   \
  do {                                                                                      \
    uint8_t *b_ = NULL;                                                                     \
    size_t n_ = 0;                                                                          \
    if (iceberg_bound_from_text((type), (text), (upper), &b_, &n_))                         \
      TEST_FAIL_("bound of \"%s\" accepted, expected none", (text));                       \
    CHECK(b_ == NULL);                                                                      \
    free(b_);                                                                               \
  } while (0)

/* Encodes then renders: the text comes back as `expected`. */
#define CHECK_ROUND_TRIP(type, text, upper, expected)                                       \
  do {                                                                                      \
    uint8_t *b_ = NULL;                                                                     \
    size_t n_ = 0;                                                                          \
    CHECK(iceberg_bound_from_text((type), (text), (upper), &b_, &n_));                      \
    char *s_ = iceberg_bound_to_text((type), b_, n_);                                       \
    CHECK_STR(s_, (expected));                                                              \
    free(s_);                                                                               \
    free(b_);                                                                               \
  } while (0)

TEST(booleans) {
  CHECK_BOUND(T(WEIR_TYPE_BOOL), "true", false, "01");
  CHECK_BOUND(T(WEIR_TYPE_BOOL), "1", true, "01");  /* DuckDB's Parquet stats say 1/0 */
  CHECK_BOUND(T(WEIR_TYPE_BOOL), "0", false, "00");
  CHECK_BOUND(T(WEIR_TYPE_BOOL), "false", true, "00");
  CHECK_NO_BOUND(T(WEIR_TYPE_BOOL), "yes", false);
  CHECK_ROUND_TRIP(T(WEIR_TYPE_BOOL), "1", false, "true");
}

TEST(integers) {
  CHECK_BOUND(T(WEIR_TYPE_INT32), "42", false, "2a000000");
  CHECK_BOUND(T(WEIR_TYPE_INT32), "-1", false, "ffffffff");
  CHECK_BOUND(T(WEIR_TYPE_INT32), "2147483647", true, "ffffff7f");
  CHECK_NO_BOUND(T(WEIR_TYPE_INT32), "2147483648", true);
  CHECK_NO_BOUND(T(WEIR_TYPE_INT32), "4.5", true);
  CHECK_NO_BOUND(T(WEIR_TYPE_INT32), " 4", true);
  CHECK_NO_BOUND(T(WEIR_TYPE_INT32), "", true);
  CHECK_BOUND(T(WEIR_TYPE_INT64), "891", true, "7b03000000000000");
  CHECK_BOUND(T(WEIR_TYPE_INT64), "-7", false, "f9ffffffffffffff");
  CHECK_BOUND(T(WEIR_TYPE_INT64), "-9223372036854775808", false, "0000000000000080");
  CHECK_NO_BOUND(T(WEIR_TYPE_INT64), "9223372036854775808", false);
  CHECK_ROUND_TRIP(T(WEIR_TYPE_INT64), "-42", false, "-42");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_INT32), "123", false, "123");
}

TEST(floats) {
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "2.5", false, "00002040");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "0.1", false, "cdcccc3d");  /* shortest form of 0.1f */
  /* DuckDB sometimes prints a float widened to double: the exact value. */
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "1.1754943508222875e-38", true, "00008000");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "3.4028235e+38", true, "ffff7f7f");
  /* A float printed with rounding is neither exact nor shortest: no bound. */
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT32), "0.3333333333", false);
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT32), "nan", false);
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT32), "1e40", true);
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "-inf", false, "000080ff");
  /* Zero: -0.0 as a lower bound (DuckDB prints -0.0 as 0.0), +0.0 as an upper bound. */
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "0.0", false, "00000080");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT32), "0.0", true, "00000000");

  CHECK_BOUND(T(WEIR_TYPE_FLOAT64), "80.0", true, "0000000000005440");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT64), "0.42", false, "e17a14ae47e1da3f");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT64), "1e-05", false, "f168e388b5f8e43e");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT64), "inf", true, "000000000000f07f");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT64), "0.0", false, "0000000000000080");
  CHECK_BOUND(T(WEIR_TYPE_FLOAT64), "0.0", true, "0000000000000000");
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT64), "NaN", true);
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT64), "-nan", true);
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT64), "0x1p3", true);
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT64), "1e-400", true); /* underflows to zero */
  CHECK_NO_BOUND(T(WEIR_TYPE_FLOAT64), "1e400", true);
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "512.3292", true, "512.3292");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT32), "0.1", true, "0.1");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "1.5e+300", true, "1.5e+300");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "80.0", true, "80");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "-1e+20", true, "-1e+20");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "1e-05", true, "0.00001");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "1e-07", true, "1e-07");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT64), "0.0", false, "-0");
  CHECK_ROUND_TRIP(T(WEIR_TYPE_FLOAT32), "1.1754943508222875e-38", true, "1.1754944e-38");
}

TEST(decimals) {
  CHECK_BOUND(DEC(10, 2), "12.50", false, "04e2");  /* 1250 */
  CHECK_BOUND(DEC(10, 2), "12.5", false, "04e2");   /* fewer digits than the scale */
  CHECK_BOUND(DEC(10, 2), "12.500", false, "04e2"); /* more, but zero */
  CHECK_BOUND(DEC(10, 2), "-12.50", true, "fb1e");
  CHECK_BOUND(DEC(10, 2), "0.01", true, "01");
  CHECK_BOUND(DEC(10, 2), "0.00", true, "00");
  CHECK_BOUND(DEC(10, 2), "-1.00", true, "9c");
  CHECK_BOUND(DEC(10, 2), "1.28", true, "0080");    /* sign byte needed */
  CHECK_BOUND(DEC(10, 2), "-1.28", true, "80");
  CHECK_BOUND(DEC(10, 2), "-1.29", true, "ff7f");
  CHECK_BOUND(DEC(3, 0), "999", true, "03e7");
  CHECK_NO_BOUND(DEC(3, 0), "1000", true);          /* exceeds the precision */
  CHECK_NO_BOUND(DEC(10, 2), "12.501", false);      /* finer than the scale */
  CHECK_NO_BOUND(DEC(10, 2), "1e3", false);
  CHECK_NO_BOUND(DEC(10, 2), "1.2.3", false);
  CHECK_BOUND(DEC(38, 2), "123456789012345678901234567890.12", true,
              "009bd30a3c645943dd1690a03a14"); /* a 0x00 sign byte: 0x9b has its top bit */
  CHECK_BOUND(DEC(38, 0), "99999999999999999999999999999999999999", true,
              "4b3b4ca85a86c47a098a223fffffffff");
  CHECK_BOUND(DEC(38, 0), "-99999999999999999999999999999999999999", true,
              "b4c4b357a5793b85f675ddc000000001");
  CHECK_ROUND_TRIP(DEC(10, 2), "-12.5", false, "-12.50");
  CHECK_ROUND_TRIP(DEC(10, 2), "0.01", false, "0.01");
  CHECK_ROUND_TRIP(DEC(10, 0), "-128", false, "-128");
  CHECK_ROUND_TRIP(DEC(38, 6), "-123456789012345678901234567890.123456", false,
                   "-123456789012345678901234567890.123456");
}

TEST(strings_and_truncation) {
  weir_type s = T(WEIR_TYPE_STRING);
  CHECK_BOUND(s, "A10", false, "413130");
  CHECK_BOUND(s, "", false, "");
  /* 16 code points exactly: kept whole. */
  CHECK_BOUND(s, "abcdefghijklmnop", true, "6162636465666768696a6b6c6d6e6f70");
  /* Longer: lower is the 16 code point prefix, upper increments its last code point. */
  CHECK_BOUND(s, "abcdefghijklmnopq", false, "6162636465666768696a6b6c6d6e6f70");
  CHECK_BOUND(s, "abcdefghijklmnopq", true, "6162636465666768696a6b6c6d6e6f71");
  CHECK_ROUND_TRIP(s, "van Melkebeke, Mr. Philemon", true, "van Melkebeke, N");
  CHECK_ROUND_TRIP(s, "van Melkebeke, Mr. Philemon", false, "van Melkebeke, M");
  /* Code points, not bytes: 20 x U+00E9 keeps 16 of them (32 bytes). */
  CHECK_ROUND_TRIP(s, "éééééééééééééééééééé", false, "éééééééééééééééé");
  CHECK_ROUND_TRIP(s, "éééééééééééééééééééé", true, "éééééééééééééééê");
  /* The last kept code point is U+10FFFF: it cannot grow, the one before does. */
  CHECK_ROUND_TRIP(s, "aaaaaaaaaaaaaaa\xf4\x8f\xbf\xbfzz", true, "aaaaaaaaaaaaaab");
  /* U+D7FF + 1 skips the surrogates to U+E000. */
  CHECK_ROUND_TRIP(s, "aaaaaaaaaaaaaaa\xed\x9f\xbfzz", true, "aaaaaaaaaaaaaaa\xee\x80\x80");
  /* Nothing can be incremented: no upper bound, but a lower one. */
  CHECK_NO_BOUND(s, "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
                    "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
                    "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
                    "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf!",
                 true);
  /* Not UTF-8 (anywhere, even past the truncation point): no bound. */
  CHECK_NO_BOUND(s, "ab\xff", false);
  CHECK_NO_BOUND(s, "abcdefghijklmnopqrst\xc3", false);
  CHECK_NO_BOUND(s, "\xc0\xaf", false); /* overlong */
  CHECK_NO_BOUND(s, "\xed\xa0\x80", false); /* surrogate */
}

TEST(binary) {
  weir_type b = T(WEIR_TYPE_BINARY);
  /* DuckDB reports BLOB min/max as hex. */
  CHECK_BOUND(b, "61626300FF27225C", false, "61626300ff27225c");
  CHECK_BOUND(b, "7a7a", true, "7a7a");
  CHECK_BOUND(b, "", true, "");
  CHECK_NO_BOUND(b, "7A7", true);
  CHECK_NO_BOUND(b, "zz", true);
  /* 17 bytes: truncated to 16; upper increments the last byte that is not 0xff. */
  CHECK_BOUND(b, "000102030405060708090A0B0C0D0E0F10", false,
              "000102030405060708090a0b0c0d0e0f");
  CHECK_BOUND(b, "000102030405060708090A0B0C0D0E0F10", true,
              "000102030405060708090a0b0c0d0e10");
  CHECK_BOUND(b, "0001020304050607080900FFFFFFFFFFFF", true, "0001020304050607080901");
  CHECK_BOUND(b, "000102030405060708090A0BFFFFFFFFFF", true, "000102030405060708090a0c");
  CHECK_NO_BOUND(b, "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", true);
  CHECK_ROUND_TRIP(b, "00ff7a", false, "00FF7A");
}

TEST(dates) {
  weir_type d = T(WEIR_TYPE_DATE32);
  CHECK_BOUND(d, "2024-01-31", false, "294d0000"); /* 19753 days */
  CHECK_BOUND(d, "1970-01-01", false, "00000000");
  CHECK_BOUND(d, "1969-12-31", false, "ffffffff");
  CHECK_BOUND(d, "2000-02-29", false, "082b0000");
  CHECK_BOUND(d, "0044-03-15 (BC)", false, "48c8f4ff"); /* -735160, as DuckDB counts */
  CHECK_NO_BOUND(d, "2023-02-29", false);
  CHECK_NO_BOUND(d, "2024-13-01", false);
  CHECK_NO_BOUND(d, "2024-01-31 12:00:00", false);
  CHECK_NO_BOUND(d, "infinity", false);
  CHECK_ROUND_TRIP(d, "2024-01-31", false, "2024-01-31");
  CHECK_ROUND_TRIP(d, "0044-03-15 (BC)", false, "0044-03-15 (BC)");
  CHECK_ROUND_TRIP(d, "0001-12-31 (BC)", false, "0001-12-31 (BC)");
}

TEST(timestamps) {
  weir_type us = T(WEIR_TYPE_TS_US), ns = T(WEIR_TYPE_TS_NS);
  weir_type tz = T(WEIR_TYPE_TS_US_UTC), nstz = T(WEIR_TYPE_TS_NS_UTC);
  /* 1706702400000000 us */
  CHECK_BOUND(us, "2024-01-31 12:00:00", false, "00104a9e3c100600");
  CHECK_BOUND(us, "2024-01-31 12:00:00.123456", false, "40f24b9e3c100600");
  CHECK_BOUND(us, "2024-01-31 12:00:00.1234560", false, "40f24b9e3c100600");
  CHECK_BOUND(us, "1969-12-31 23:59:59.999999", false, "ffffffffffffffff");
  CHECK_NO_BOUND(us, "2024-01-31 12:00:00.1234567", false); /* finer than micros */
  CHECK_NO_BOUND(us, "2024-01-31 12:00:00+00", false);      /* an offset on a naive ts */
  CHECK_NO_BOUND(us, "2024-01-31 24:00:00", false);
  CHECK_NO_BOUND(us, "infinity", false);
  CHECK_BOUND(us, "0044-03-15 (BC) 12:00:00", false, "00b07e36ea561eff");
  /* With a time zone: the UTC instant. */
  CHECK_BOUND(tz, "2024-01-31 12:00:00+00", false, "00104a9e3c100600");
  CHECK_BOUND(tz, "2024-01-31 07:00:00-05", false, "00104a9e3c100600");
  CHECK_BOUND(tz, "2024-01-31 17:30:00+05:30", false, "00104a9e3c100600");
  CHECK_BOUND(tz, "2024-01-31 12:00:00Z", false, "00104a9e3c100600");
  CHECK_BOUND(tz, "2024-01-31 12:00:00", false, "00104a9e3c100600"); /* no offset: UTC */
  /* Nanoseconds: 1706702400123456789 */
  CHECK_BOUND(ns, "2024-01-31 12:00:00.123456789", false, "154daa58ca6caf17");
  CHECK_BOUND(nstz, "2024-01-31 12:00:00.123456789+00", true, "154daa58ca6caf17");
  CHECK_NO_BOUND(ns, "2500-01-01 00:00:00", false); /* beyond int64 nanoseconds */
  CHECK_ROUND_TRIP(us, "2024-01-31 12:00:00.1", false, "2024-01-31 12:00:00.1");
  CHECK_ROUND_TRIP(us, "1969-12-31 23:59:59.999999", false, "1969-12-31 23:59:59.999999");
  CHECK_ROUND_TRIP(tz, "2024-01-31 07:00:00-05", false, "2024-01-31 12:00:00+00");
  CHECK_ROUND_TRIP(ns, "2024-01-31 12:00:00.123456789", false, "2024-01-31 12:00:00.123456789");
  CHECK_ROUND_TRIP(us, "0044-03-15 (BC) 12:00:00", false, "0044-03-15 (BC) 12:00:00");
}

TEST(types_without_bounds) {
  CHECK_NO_BOUND(T(WEIR_TYPE_ANY), "1", false);
  CHECK_NO_BOUND(T(WEIR_TYPE_DATE64), "2024-01-31", false);
  uint8_t *b = NULL;
  size_t n = 0;
  CHECK(!iceberg_bound_from_text(T(WEIR_TYPE_INT64), NULL, false, &b, &n));
  uint8_t three[3] = {1, 2, 3};
  CHECK(iceberg_bound_to_text(T(WEIR_TYPE_INT32), three, 3) == NULL); /* wrong length */
  CHECK(iceberg_bound_to_text(T(WEIR_TYPE_ANY), three, 3) == NULL);
  /* A bound written while a long column was an int (promotion) has 4 bytes. */
  char *s = iceberg_bound_to_text(T(WEIR_TYPE_INT64), (const uint8_t *)"\xfe\xff\xff\xff", 4);
  CHECK_STR(s, "-2");
  free(s);
}

TEST(stats_from_duckdb_text) {
  wr_field age = {.name = "Age", .type = {WEIR_TYPE_FLOAT64, 0, 0}, .field_id = 6};
  iceberg_stats_text t = {"0.42", "80.0", "177", "891", "1222", "false"};
  iceberg_column_stats st;
  iceberg_column_stats_from_text(&age, &t, &st);
  CHECK_INT(st.field_id, 6);
  CHECK_INT(st.value_count, 891);
  CHECK_INT(st.null_count, 177);
  CHECK_INT(st.nan_count, 0);
  CHECK_INT(st.column_size, 1222);
  char *lo = iceberg_bound_to_text(age.type, st.lower, st.lower_len);
  char *hi = iceberg_bound_to_text(age.type, st.upper, st.upper_len);
  CHECK_STR(lo, "0.42");
  CHECK_STR(hi, "80");
  free(lo);
  free(hi);
  free(st.lower);
  free(st.upper);

  /* has_nan true: no NaN count; an all-null column: no bounds; junk counts: unknown. */
  iceberg_stats_text t2 = {"1.0", "1.0", "x", NULL, "", "true"};
  iceberg_column_stats_from_text(&age, &t2, &st);
  CHECK_INT(st.nan_count, -1);
  CHECK_INT(st.null_count, -1);
  CHECK_INT(st.value_count, -1);
  CHECK_INT(st.column_size, -1);
  CHECK(st.lower && st.upper);
  free(st.lower);
  free(st.upper);
  wr_field name = {.name = "Cabin", .type = {WEIR_TYPE_STRING, 0, 0}, .field_id = 11};
  iceberg_stats_text t3 = {NULL, NULL, "5", "5", "40", NULL};
  iceberg_column_stats_from_text(&name, &t3, &st);
  CHECK(st.lower == NULL && st.upper == NULL);
  CHECK_INT(st.nan_count, -1); /* not a float column */
}

TEST_MAIN()
