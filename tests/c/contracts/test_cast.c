/* Every widening cast the types module allows, with exact values, nulls, sliced inputs
 * and the buffers a cast must reuse instead of copying; and the narrowing casts of a
 * column declared cast "exact", which convert values that fit and report the others. */
#include "harness.h"
#include "build.h"

static bool valid_at(const struct ArrowArray *a, int64_t i) {
  const uint8_t *v = a->buffers[0];
  return !v || wr_bit_get(v, a->offset + i);
}
#define VAL(T, a, i) (((const T *)(a)->buffers[1])[(a)->offset + (i)])

static const char *str_at(const struct ArrowArray *a, int64_t i, char *buf, size_t size) {
  const int64_t *o = a->buffers[1];
  int64_t b = o[a->offset + i], e = o[a->offset + i + 1];
  snprintf(buf, size, "%.*s", (int)(e - b), (const char *)a->buffers[2] + b);
  return buf;
}

/* Validates one column `x` of format `fmt` against declared type `type`; the result's
 * column is returned through *out (owned by v). */
static int run1(const char *type, const char *fmt, struct ArrowArray *col, wr_validation *v, weir_error *err) {
  char yaml[256];
  snprintf(yaml, sizeof yaml, "contract:\n  name: t\n  columns:\n    - {name: x, type: \"%s\", nullable: true}\n", type);
  weir_contract *c = yaml_contract(yaml);
  wr_arrow_table t;
  const char *names[] = {"x"}, *formats[] = {fmt};
  table_of(&t, 1, names, formats, col);
  int rc = wr_contract_validate(c, &t, NULL, v, err);
  wr_contract_free(c);
  return rc;
}

TEST(integers_widen) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  int8_t i8[] = {-128, 0, 127, 5};
  bool nulls[] = {false, false, false, true};
  arr_fixed(&a, 1, i8, 4, nulls);
  CHECK_OK(run1("Int32", "c", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  CHECK_STR(v.valid.schema.children[0]->format, "i");
  CHECK_INT(VAL(int32_t, o, 0), -128);
  CHECK_INT(VAL(int32_t, o, 2), 127);
  CHECK(!valid_at(o, 3));
  CHECK_INT(o->null_count, 1);
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(v.report, "casts"), 0), "from")), "int8");
  wr_validation_clear(&v);

  uint16_t u16[] = {0, 65535};
  arr_fixed(&a, 2, u16, 2, NULL);
  CHECK_OK(run1("Int32", "S", &a, &v, &err), &err);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 1), 65535);
  wr_validation_clear(&v);

  int16_t i16[] = {-32768, 32767};
  arr_fixed(&a, 2, i16, 2, NULL);
  CHECK_OK(run1("Int64", "s", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), -32768);
  wr_validation_clear(&v);

  uint32_t u32[] = {4294967295u, 7};
  arr_fixed(&a, 4, u32, 2, NULL);
  CHECK_OK(run1("Int64", "I", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 4294967295LL);
  wr_validation_clear(&v);

  int32_t i32[] = {-2147483647 - 1, 2147483647, 3};
  arr_fixed(&a, 4, i32, 3, NULL);
  CHECK_OK(run1("Float64", "i", &a, &v, &err), &err);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 0) == -2147483648.0);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 1) == 2147483647.0);
  wr_validation_clear(&v);

  uint8_t u8[] = {255, 1};
  arr_fixed(&a, 1, u8, 2, NULL);
  CHECK_OK(run1("Float32", "C", &a, &v, &err), &err);
  CHECK(VAL(float, tcol(&v.valid, 0, 0), 0) == 255.0f);
  CHECK_STR(v.valid.schema.children[0]->format, "f");
  wr_validation_clear(&v);
}

TEST(floats_widen) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  float f[] = {1.5f, -0.1f, 3.4028235e38f};
  arr_fixed(&a, 4, f, 3, NULL);
  CHECK_OK(run1("Float64", "f", &a, &v, &err), &err);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 0) == 1.5);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 1) == (double)-0.1f);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 2) == (double)3.4028235e38f);
  wr_validation_clear(&v);

  /* Half floats: 1.0, -2.0, 65504 (largest), the smallest subnormal, infinity. */
  uint16_t h[] = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x7C00};
  arr_fixed(&a, 2, h, 5, NULL);
  CHECK_OK(run1("Float32", "e", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  CHECK(VAL(float, o, 0) == 1.0f);
  CHECK(VAL(float, o, 1) == -2.0f);
  CHECK(VAL(float, o, 2) == 65504.0f);
  CHECK(VAL(float, o, 3) == 5.9604644775390625e-8f);
  CHECK(VAL(float, o, 4) > 3.4e38f);
  wr_validation_clear(&v);
  arr_fixed(&a, 2, h, 2, NULL);
  CHECK_OK(run1("Float64", "e", &a, &v, &err), &err);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 1) == -2.0);
  wr_validation_clear(&v);
}

TEST(decimals_rescale_exactly) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  __int128 d[] = {12345, -1, (__int128)99999999 * 100000000 + 99999999}; /* 123.45, -0.01, 10^16 - 0.01 */
  bool nulls[] = {false, false, false};
  arr_fixed(&a, 16, d, 3, nulls);
  CHECK_OK(run1("Decimal(22, 6)", "d:18,2", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  CHECK_STR(v.valid.schema.children[0]->format, "d:22,6");
  CHECK(VAL(__int128, o, 0) == (__int128)123450000);
  CHECK(VAL(__int128, o, 1) == (__int128)-10000);
  CHECK(VAL(__int128, o, 2) == ((__int128)99999999 * 100000000 + 99999999) * 10000);
  wr_validation_clear(&v);

  /* Same scale, more precision: the same bytes, shared. */
  arr_fixed(&a, 16, d, 3, NULL);
  const void *buf = a.buffers[1];
  CHECK_OK(run1("Decimal(20, 2)", "d:18,2", &a, &v, &err), &err);
  CHECK(tcol(&v.valid, 0, 0)->buffers[1] == buf);
  CHECK_STR(v.valid.schema.children[0]->format, "d:20,2");
  wr_validation_clear(&v);

  /* Fewer integer digits would lose values: refused as narrowing. */
  arr_fixed(&a, 16, d, 3, NULL);
  CHECK_INT(run1("Decimal(18, 4)", "d:18,2", &a, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0),
            "column \"x\" has type decimal128(18, 2), expected decimal128(18, 4)" NARROWING_HINT);
  wr_validation_clear(&v);
  weir_error_clear(&err);
}

TEST(dates_and_timestamps_widen) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  int32_t days[] = {0, 19723, -1}; /* 1970-01-01, 2024-01-01, 1969-12-31 */
  arr_fixed(&a, 4, days, 3, NULL);
  CHECK_OK(run1("Date64", "tdD", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 1), 19723LL * 86400000);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 2), -86400000);
  CHECK_STR(v.valid.schema.children[0]->format, "tdm");
  wr_validation_clear(&v);

  int64_t secs[] = {1700000000, -5};
  arr_fixed(&a, 8, secs, 2, NULL);
  CHECK_OK(run1("TimestampMicro", "tss:", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 1700000000000000LL);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 1), -5000000);
  wr_validation_clear(&v);

  int64_t ms[] = {1700000000123};
  arr_fixed(&a, 8, ms, 1, NULL);
  CHECK_OK(run1("TimestampNano", "tsm:", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 1700000000123000000LL);
  wr_validation_clear(&v);

  int64_t us[] = {1700000000123456};
  arr_fixed(&a, 8, us, 1, NULL);
  CHECK_OK(run1("TimestampNanoUTC", "tsu:UTC", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 1700000000123456000LL);
  CHECK_STR(v.valid.schema.children[0]->format, "tsn:UTC");
  wr_validation_clear(&v);

  /* A date past 2262 does not fit nanoseconds: reported, never wrapped. */
  int64_t far[] = {1, 10000000000LL, 3};
  bool nulls[] = {false, false, true};
  arr_fixed(&a, 8, far, 3, nulls);
  CHECK_INT(run1("TimestampNano", "tss:", &a, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 1 value of type timestamp[s] outside the range of timestamp[ns] (row 1)");
  CHECK_STR(json_string_value(json_array_get(json_object_get(json_array_get(json_object_get(v.report, "violations"), 0),
                                                             "samples"),
                                             0)),
            "2286-11-20T17:46:40");
  CHECK_INT(v.valid.n_rows, 0);
  wr_validation_clear(&v);
  weir_error_clear(&err);
}

TEST(strings_rebuild_only_offsets) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  const char *s[] = {"alpha", NULL, "", "δέλτα"};
  arr_str(&a, s, 4, false);
  const void *data = a.buffers[2];
  CHECK_OK(run1("String", "u", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  char buf[64];
  CHECK_STR(str_at(o, 0, buf, sizeof buf), "alpha");
  CHECK(!valid_at(o, 1));
  CHECK_STR(str_at(o, 2, buf, sizeof buf), "");
  CHECK_STR(str_at(o, 3, buf, sizeof buf), "δέλτα");
  CHECK(o->buffers[2] == data); /* the characters are not copied */
  CHECK_STR(v.valid.schema.children[0]->format, "U");
  wr_validation_clear(&v);

  /* large_string as Binary: every buffer shared. */
  arr_str(&a, s, 4, true);
  const void *offs = a.buffers[1];
  data = a.buffers[2];
  CHECK_OK(run1("Binary", "U", &a, &v, &err), &err);
  CHECK(tcol(&v.valid, 0, 0)->buffers[1] == offs);
  CHECK(tcol(&v.valid, 0, 0)->buffers[2] == data);
  CHECK_STR(v.valid.schema.children[0]->format, "Z");
  wr_validation_clear(&v);

  arr_str(&a, s, 4, false);
  CHECK_OK(run1("Binary", "z", &a, &v, &err), &err);
  CHECK_STR(str_at(tcol(&v.valid, 0, 0), 3, buf, sizeof buf), "δέλτα");
  wr_validation_clear(&v);
  arr_str(&a, s, 4, false);
  CHECK_OK(run1("Binary", "u", &a, &v, &err), &err);
  CHECK_STR(str_at(tcol(&v.valid, 0, 0), 0, buf, sizeof buf), "alpha");
  wr_validation_clear(&v);
}

TEST(views_and_fixed_binary_decode) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  const char *s[] = {"short", "a value longer than twelve bytes", NULL, "exactly12byt"};
  arr_view(&a, s, 4);
  CHECK_OK(run1("String", "vu", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  char buf[64];
  CHECK_STR(str_at(o, 0, buf, sizeof buf), "short");
  CHECK_STR(str_at(o, 1, buf, sizeof buf), "a value longer than twelve bytes");
  CHECK(!valid_at(o, 2));
  CHECK_STR(str_at(o, 3, buf, sizeof buf), "exactly12byt");
  wr_validation_clear(&v);
  arr_view(&a, s, 4);
  CHECK_OK(run1("Binary", "vz", &a, &v, &err), &err);
  CHECK_STR(str_at(tcol(&v.valid, 0, 0), 1, buf, sizeof buf), "a value longer than twelve bytes");
  wr_validation_clear(&v);

  char fixed[] = "abcdefghi";
  arr_fixed(&a, 3, fixed, 3, NULL);
  CHECK_OK(run1("Binary", "w:3", &a, &v, &err), &err);
  CHECK_STR(str_at(tcol(&v.valid, 0, 0), 2, buf, sizeof buf), "ghi");
  wr_validation_clear(&v);
}

TEST(dictionaries_decode) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray dict, a;
  const char *words[] = {"S", "C", "Q"};
  arr_str(&dict, words, 3, false);
  int32_t idx[] = {0, 2, NN, 1, 0};
  arr_dict(&a, idx, 5, &dict);
  CHECK_OK(run1("String", "dict:u", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  char buf[16];
  CHECK_STR(str_at(o, 1, buf, sizeof buf), "Q");
  CHECK(!valid_at(o, 2));
  CHECK_STR(str_at(o, 3, buf, sizeof buf), "C");
  CHECK_INT(o->null_count, 1);
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(v.report, "casts"), 0), "from")),
            "dictionary<values=string, indices=int32>");
  wr_validation_clear(&v);

  int32_t codes[] = {10, 20, 30};
  arr_fixed(&dict, 4, codes, 3, NULL);
  int32_t idx2[] = {2, 2, 0};
  arr_dict(&a, idx2, 3, &dict);
  CHECK_OK(run1("Int64", "dict:i", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 30);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 2), 10);
  wr_validation_clear(&v);
}

TEST(sliced_input_with_nulls) {
  /* int32 -> Int64 on a column sliced at an odd offset, so the borrowed validity bitmap
   * starts mid-byte. */
  int32_t vals[20];
  bool nulls[20];
  for (int i = 0; i < 20; i++) {
    vals[i] = i * 10;
    nulls[i] = i % 3 == 0;
  }
  struct ArrowArray a;
  arr_fixed(&a, 4, vals, 20, nulls);
  a.offset = 5;
  a.length = 13;
  a.null_count = -1;
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(run1("Int64", "i", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  int64_t nn = 0;
  for (int i = 0; i < 13; i++) {
    int src = i + 5;
    CHECK_INT(valid_at(o, i), src % 3 != 0);
    if (src % 3) CHECK_INT(VAL(int64_t, o, i), src * 10);
    else nn++;
  }
  CHECK_INT(o->null_count, nn);
  wr_validation_clear(&v);
}

/* ---- exact casts ----------------------------------------------------------------------- */

/* As run1, for a column declared `cast: exact`. */
static int run1x(const char *type, const char *fmt, struct ArrowArray *col, wr_validation *v,
                 weir_error *err) {
  char yaml[256];
  snprintf(yaml, sizeof yaml,
           "contract:\n  name: t\n  columns:\n    - {name: x, type: \"%s\", nullable: true, cast: exact}\n",
           type);
  weir_contract *c = yaml_contract(yaml);
  wr_arrow_table t;
  const char *names[] = {"x"}, *formats[] = {fmt};
  table_of(&t, 1, names, formats, col);
  int rc = wr_contract_validate(c, &t, NULL, v, err);
  wr_contract_free(c);
  return rc;
}

static const char *cast_of(const wr_validation *v) {
  const char *s =
      json_string_value(json_object_get(json_array_get(json_object_get(v->report, "casts"), 0), "cast"));
  return s ? s : "";
}

TEST(exact_casts_convert_what_fits) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  /* Integral doubles to Int64, to the edges of its range; -0.0 is 0; a null's slot may
   * hold anything (here 0.5, which would not convert). */
  double d[] = {1.0, -2.0, -0.0, 0.5, 9007199254740992.0, -9223372036854775808.0, 11646.0};
  bool dn[] = {false, false, false, true, false, false, false};
  arr_fixed(&a, 8, d, 7, dn);
  CHECK_OK(run1x("Int64", "g", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  CHECK_STR(v.valid.schema.children[0]->format, "l");
  CHECK_INT(VAL(int64_t, o, 0), 1);
  CHECK_INT(VAL(int64_t, o, 1), -2);
  CHECK_INT(VAL(int64_t, o, 2), 0);
  CHECK(!valid_at(o, 3));
  CHECK_INT(VAL(int64_t, o, 4), 9007199254740992LL);
  CHECK_INT(VAL(int64_t, o, 5), INT64_MIN);
  CHECK_INT(VAL(int64_t, o, 6), 11646);
  CHECK_INT(o->null_count, 1);
  CHECK_STR(cast_of(&v), "exact");
  wr_validation_clear(&v);

  double d32[] = {2147483647.0, -2147483648.0};
  arr_fixed(&a, 8, d32, 2, NULL);
  CHECK_OK(run1x("Int32", "g", &a, &v, &err), &err);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 0), 2147483647);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 1), -2147483647 - 1);
  wr_validation_clear(&v);

  float f[] = {3.0f, -16777216.0f};
  arr_fixed(&a, 4, f, 2, NULL);
  CHECK_OK(run1x("Int32", "f", &a, &v, &err), &err);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 1), -16777216);
  wr_validation_clear(&v);

  /* Integers to narrower integers, and to floats that hold them. */
  int64_t i64[] = {2147483647, -2147483647 - 1, 0};
  arr_fixed(&a, 8, i64, 3, NULL);
  CHECK_OK(run1x("Int32", "l", &a, &v, &err), &err);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 1), -2147483647 - 1);
  wr_validation_clear(&v);
  uint64_t u64[] = {9223372036854775807ULL, 0};
  arr_fixed(&a, 8, u64, 2, NULL);
  CHECK_OK(run1x("Int64", "L", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), INT64_MAX);
  wr_validation_clear(&v);
  int64_t big[] = {9007199254740992LL, -9007199254740992LL, INT64_MIN};
  arr_fixed(&a, 8, big, 3, NULL);
  CHECK_OK(run1x("Float64", "l", &a, &v, &err), &err);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 0) == 9007199254740992.0);
  CHECK(VAL(double, tcol(&v.valid, 0, 0), 2) == -9223372036854775808.0);
  wr_validation_clear(&v);
  double df[] = {0.5, -0x1p100, 0.0};
  df[2] = 0.0 / 0.0; /* NaN stays NaN */
  arr_fixed(&a, 8, df, 3, NULL);
  CHECK_OK(run1x("Float32", "g", &a, &v, &err), &err);
  CHECK(VAL(float, tcol(&v.valid, 0, 0), 0) == 0.5f);
  CHECK(VAL(float, tcol(&v.valid, 0, 0), 2) != VAL(float, tcol(&v.valid, 0, 0), 2));
  wr_validation_clear(&v);

  /* Decimals without lost digits: 1.20 at one digit, 99.9 in fewer integer digits, a
   * whole decimal(38, 0) (what SUM of a BIGINT gives in DuckDB) to Int64. */
  __int128 dec[] = {120, -9990, 0};
  arr_fixed(&a, 16, dec, 3, NULL);
  CHECK_OK(run1x("Decimal(3, 1)", "d:18,2", &a, &v, &err), &err);
  CHECK_STR(v.valid.schema.children[0]->format, "d:3,1");
  CHECK(VAL(__int128, tcol(&v.valid, 0, 0), 0) == 12);
  CHECK(VAL(__int128, tcol(&v.valid, 0, 0), 1) == -999);
  wr_validation_clear(&v);
  __int128 whole[] = {11646, -(__int128)INT64_MAX - 1};
  arr_fixed(&a, 16, whole, 2, NULL);
  CHECK_OK(run1x("Int64", "d:38,0", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 11646);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 1), INT64_MIN);
  wr_validation_clear(&v);
  __int128 scaled[] = {1200, -300};
  arr_fixed(&a, 16, scaled, 2, NULL);
  CHECK_OK(run1x("Int32", "d:10,2", &a, &v, &err), &err); /* 12.00 -> 12 (0.05 fails: below) */
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 0), 12);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 1), -3);
  wr_validation_clear(&v);

  /* Timestamps to a coarser unit; date64 at midnight to date32. */
  int64_t ns[] = {1700000000123456000LL, -1000};
  arr_fixed(&a, 8, ns, 2, NULL);
  CHECK_OK(run1x("TimestampMicro", "tsn:", &a, &v, &err), &err);
  CHECK_STR(v.valid.schema.children[0]->format, "tsu:");
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 1700000000123456LL);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 1), -1);
  wr_validation_clear(&v);
  int64_t nsz[] = {5000};
  arr_fixed(&a, 8, nsz, 1, NULL);
  CHECK_OK(run1x("TimestampMicroUTC", "tsn:UTC", &a, &v, &err), &err);
  CHECK_INT(VAL(int64_t, tcol(&v.valid, 0, 0), 0), 5);
  wr_validation_clear(&v);
  int64_t ms[] = {1704067200000LL, -86400000LL};
  arr_fixed(&a, 8, ms, 2, NULL);
  CHECK_OK(run1x("Date32", "tdm", &a, &v, &err), &err);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 0), 19723);
  CHECK_INT(VAL(int32_t, tcol(&v.valid, 0, 0), 1), -1);
  wr_validation_clear(&v);

  /* A cast that widens is the widening cast, exact or not. */
  int32_t i32[] = {7};
  arr_fixed(&a, 4, i32, 1, NULL);
  CHECK_OK(run1x("Int64", "i", &a, &v, &err), &err);
  CHECK_STR(cast_of(&v), "widen");
  wr_validation_clear(&v);
}

static const json_t *violation(const wr_validation *v, size_t i) {
  return json_array_get(json_object_get(v->report, "violations"), i);
}

TEST(exact_casts_report_what_does_not_fit) {
  wr_validation v;
  weir_error err = {0};
  struct ArrowArray a;
  double d[] = {1.5, 9223372036854775808.0, 0.0, 1e300, 3.0, -0.25};
  d[2] = 0.0 / 0.0;
  arr_fixed(&a, 8, d, 6, NULL);
  CHECK_INT(run1x("Int64", "g", &a, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0),
            "column \"x\" has 5 values of type double that do not convert exactly to int64 (row 0: 1.5, "
            "row 1: 9.223372036854776e+18, row 2: NaN, ...)");
  const json_t *o = violation(&v, 0);
  CHECK_STR(json_string_value(json_object_get(o, "kind")), "type");
  CHECK_STR(json_string_value(json_object_get(o, "cast")), "exact");
  CHECK_INT(json_integer_value(json_object_get(o, "count")), 5);
  CHECK_INT(json_array_size(json_object_get(o, "rows")), 3);
  CHECK_INT(json_array_size(json_object_get(o, "samples")), 3);
  CHECK_INT(v.valid.n_rows, 0); /* nothing is offered for writing */
  CHECK(v.failed);
  wr_validation_clear(&v);
  weir_error_clear(&err);

  /* One value: singular, its row and value. */
  double one[] = {11645.5542};
  arr_fixed(&a, 8, one, 1, NULL);
  CHECK_INT(run1x("Int64", "g", &a, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0),
            "column \"x\" has 1 value of type double that does not convert exactly to int64 (row 0: "
            "11645.5542)");
  wr_validation_clear(&v);
  weir_error_clear(&err);

  /* Row numbers count across batches and from a sliced array's first row; the same value
   * on two rows is listed twice (each row with its value). */
  {
    double b1[] = {1.0, 2.0, 7.5, 7.5, 4.0};
    double b2[] = {0.5, 6.0};
    struct ArrowArray c1, c2;
    arr_fixed(&c1, 8, b1, 5, NULL);
    c1.offset = 1;
    c1.length = 4; /* 2.0, 7.5, 7.5, 4.0 */
    arr_fixed(&c2, 8, b2, 2, NULL);
    weir_contract *c =
        yaml_contract("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, cast: exact}\n");
    wr_arrow_table t;
    const char *names[] = {"x"}, *formats[] = {"g"};
    table_of(&t, 1, names, formats, &c1);
    table_add(&t, 1, &c2);
    CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
    CHECK_STR(vmsg(&v, 0),
              "column \"x\" has 3 values of type double that do not convert exactly to int64 (row 1: "
              "7.5, row 2: 7.5, row 4: 0.5)");
    wr_validation_clear(&v);
    weir_error_clear(&err);
    wr_contract_free(c);
  }

  /* Every other kind. */
  struct {
    const char *type, *fmt;
    size_t width;
    const void *values;
    const char *msg;
  } cases[] = {
      {"Int32", "l", 8, (int64_t[]){2147483648LL},
       "column \"x\" has 1 value of type int64 that does not convert exactly to int32 (row 0: 2147483648)"},
      {"Int64", "L", 8, (uint64_t[]){9223372036854775808ULL},
       "column \"x\" has 1 value of type uint64 that does not convert exactly to int64 (row 0: "
       "9223372036854775808)"},
      {"Float64", "l", 8, (int64_t[]){9007199254740993LL},
       "column \"x\" has 1 value of type int64 that does not convert exactly to double (row 0: "
       "9007199254740993)"},
      {"Float32", "g", 8, (double[]){0.1},
       "column \"x\" has 1 value of type double that does not convert exactly to float (row 0: 0.1)"},
      {"Decimal(3, 1)", "d:18,2", 16, (__int128[]){125},
       "column \"x\" has 1 value of type decimal128(18, 2) that does not convert exactly to decimal128(3, 1) "
       "(row "
       "0: 1.25)"},
      {"Decimal(3, 1)", "d:18,2", 16, (__int128[]){100000},
       "column \"x\" has 1 value of type decimal128(18, 2) that does not convert exactly to decimal128(3, 1) "
       "(row "
       "0: 1000.00)"},
      {"Int32", "d:10,2", 16, (__int128[]){5},
       "column \"x\" has 1 value of type decimal128(10, 2) that does not convert exactly to int32 (row 0: "
       "0.05)"},
      {"TimestampMicro", "tsn:", 8, (int64_t[]){1500},
       "column \"x\" has 1 value of type timestamp[ns] that does not convert exactly to timestamp[us] (row "
       "0: "
       "1970-01-01T00:00:00.0000015)"},
      {"Date32", "tdm", 8, (int64_t[]){86400001LL},
       "column \"x\" has 1 value of type date64 that does not convert exactly to date32 (row 0: "
       "1970-01-02T00:00:00.001)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    arr_fixed(&a, cases[i].width, cases[i].values, 1, NULL);
    CHECK_INT(run1x(cases[i].type, cases[i].fmt, &a, &v, &err), WEIR_ECONTRACT);
    CHECK_STR(vmsg(&v, 0), cases[i].msg);
    wr_validation_clear(&v);
    weir_error_clear(&err);
  }

  /* Pairs with no exact cast are refused as before: text is no number, a zone is
   * meaning, and dictionaries are not cast exactly. */
  const char *s[] = {"12"};
  arr_str(&a, s, 1, true);
  CHECK_INT(run1x("Int64", "U", &a, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has type large_string, expected int64");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  int64_t tz[] = {1000};
  arr_fixed(&a, 8, tz, 1, NULL);
  CHECK_INT(run1x("TimestampMicroUTC", "tsn:", &a, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has type timestamp[ns], expected timestamp[us, tz=UTC]");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  {
    double dv[] = {1.0};
    struct ArrowArray dict;
    arr_fixed(&dict, 8, dv, 1, NULL);
    int32_t idx[] = {0};
    arr_dict(&a, idx, 1, &dict);
    CHECK_INT(run1x("Int64", "dict:g", &a, &v, &err), WEIR_ECONTRACT);
    CHECK_STR(vmsg(&v, 0), "column \"x\" has type dictionary<values=double, indices=int32>, expected int64");
    wr_validation_clear(&v);
    weir_error_clear(&err);
  }
}

/* Many rows, as the kernel sees them in practice: whole 64-row words, a tail, nulls whose
 * slots hold values that would not convert, and one bad value far in. */
TEST(exact_cast_words_and_tails) {
  int64_t n = 64 * 40 + 17;
  double *d = malloc((size_t)n * sizeof *d);
  bool *nulls = calloc((size_t)n, 1);
  for (int64_t i = 0; i < n; i++) {
    d[i] = (double)(i - 1000);
    if (i % 7 == 3) {
      nulls[i] = true;
      d[i] = 0.5;
    }
  }
  struct ArrowArray a;
  arr_fixed(&a, 8, d, n, nulls);
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(run1x("Int64", "g", &a, &v, &err), &err);
  const struct ArrowArray *o = tcol(&v.valid, 0, 0);
  for (int64_t i = 0; i < n; i++) {
    CHECK_INT(valid_at(o, i), i % 7 != 3);
    if (i % 7 != 3 && VAL(int64_t, o, i) != i - 1000) CHECK_INT(VAL(int64_t, o, i), i - 1000);
  }
  wr_validation_clear(&v);
  d[n - 2] = 2.5; /* in the tail, valid */
  d[64 * 20] = -1.5;
  nulls[64 * 20] = false;
  arr_fixed(&a, 8, d, n, nulls);
  CHECK_INT(run1x("Int64", "g", &a, &v, &err), WEIR_ECONTRACT);
  char want[200];
  snprintf(want, sizeof want,
           "column \"x\" has 2 values of type double that do not convert exactly to int64 (row %lld: -1.5, "
           "row %lld: "
           "2.5)",
           (long long)(64 * 20), (long long)(n - 2));
  CHECK_STR(vmsg(&v, 0), want);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  free(d);
  free(nulls);
}

TEST_MAIN()
