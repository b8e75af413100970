/* Nulls and the buffer-level quality rules (enum, pattern, range, unique): exact
 * messages, samples and row numbers, nulls passing value rules, modes fail / drop /
 * warn, and the quarantine table. */
#include "harness.h"
#include "build.h"

static int run_i64(const char *yaml, const int64_t *vals, int64_t n, wr_validation *v, weir_error *err) {
  weir_contract *c = yaml_contract(yaml);
  wr_arrow_table t;
  table_i64(&t, "x", vals, n);
  wr_validate_options o = {.is_output = true, .subject = "s"};
  int rc = wr_contract_validate(c, &t, &o, v, err);
  wr_contract_free(c);
  return rc;
}

static int run_str(const char *yaml, const char *const *vals, int64_t n, wr_validation *v, weir_error *err) {
  weir_contract *c = yaml_contract(yaml);
  wr_arrow_table t;
  struct ArrowArray a;
  arr_str(&a, vals, n, true);
  const char *names[] = {"x"}, *formats[] = {"U"};
  table_of(&t, 1, names, formats, &a);
  wr_validate_options o = {.is_output = true, .subject = "s"};
  int rc = wr_contract_validate(c, &t, &o, v, err);
  wr_contract_free(c);
  return rc;
}

static const json_t *viol(const wr_validation *v, size_t i) {
  return json_array_get(json_object_get(v->report, "violations"), i);
}

TEST(nulls_in_required_columns) {
  wr_validation v;
  weir_error err = {0};
  int64_t vals[100];
  for (int i = 0; i < 100; i++) vals[i] = (i == 4 || i == 17 || i == 90) ? NN : i;
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64}\n", vals, 100, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 3 null values but is required (rows 4, 17, 90)");
  CHECK_STR(json_string_value(json_object_get(viol(&v, 0), "kind")), "nulls");
  CHECK_INT(json_integer_value(json_object_get(viol(&v, 0), "count")), 3);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  vals[50] = NN;
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64}\n", vals, 100, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 4 null values but is required (rows 4, 17, 50, ...)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  int64_t one[] = {1, NN};
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64}\n", one, 2, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 1 null value but is required (row 1)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* Nullable: fine. */
  CHECK_OK(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true}\n", one, 2, &v, &err),
           &err);
  wr_validation_clear(&v);
}

TEST(nulls_counted_across_batches_and_words) {
  /* 3 batches of 1000 rows; nulls at global rows 70, 1064, 2999: row numbers are global. */
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: x, type: Int32}\n");
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  for (int b = 0; b < 3; b++) {
    int32_t vals[1000];
    bool nulls[1000];
    for (int i = 0; i < 1000; i++) {
      vals[i] = i;
      int g = b * 1000 + i;
      nulls[i] = g == 70 || g == 1064 || g == 2999;
    }
    struct ArrowArray a;
    arr_fixed(&a, 4, vals, 1000, nulls);
    if (b == 0) {
      const char *names[] = {"x"}, *formats[] = {"i"};
      table_of(&t, 1, names, formats, &a);
    } else {
      table_add(&t, 1, &a);
    }
  }
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 3 null values but is required (rows 70, 1064, 2999)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(enum_on_integers) {
  wr_validation v;
  weir_error err = {0};
  int64_t vals[] = {1, 2, 3, NN, 2, 3, 7, 1};
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true, enum: [1, 2]}\n",
                    vals, 8, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 3 values outside the enum [1, 2] (e.g. 3, 7)");
  const json_t *o = viol(&v, 0);
  CHECK_STR(json_string_value(json_object_get(o, "rule")), "x.enum");
  CHECK_STR(json_string_value(json_object_get(o, "kind")), "enum");
  CHECK_INT(json_integer_value(json_array_get(json_object_get(o, "rows"), 0)), 2);
  CHECK_INT(json_integer_value(json_array_get(json_object_get(o, "rows"), 2)), 6);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* A sparse enum (no bitmap) and named values. */
  int64_t big[] = {1000000000000LL, 5, -1000000000000LL};
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, enum: {lo: -1000000000000, hi: "
                    "1000000000000}}\n",
                    big, 3, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 1 value outside the enum [-1000000000000, 1000000000000] (e.g. 5)");
  CHECK_STR(json_string_value(json_array_get(json_object_get(viol(&v, 0), "value_names"), 1)), "hi");
  wr_validation_clear(&v);
  weir_error_clear(&err);
}

TEST(enum_on_strings) {
  wr_validation v;
  weir_error err = {0};
  const char *s[] = {"completed", "pending", "done", NULL, "failed", "Completed"};
  CHECK_INT(run_str("contract:\n  name: t\n  columns:\n    - {name: x, type: String, nullable: true, enum: [completed, "
                    "pending, failed, reversed]}\n",
                    s, 6, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0),
            "column \"x\" has 2 values outside the enum [\"completed\", \"pending\", \"failed\", \"reversed\"] (e.g. "
            "\"done\", \"Completed\")");
  wr_validation_clear(&v);
  weir_error_clear(&err);
}

TEST(pattern_matches_whole_values) {
  wr_validation v;
  weir_error err = {0};
  const char *s[] = {"USD", "usd", "EURO", NULL, "GBP", "xEUR", "", "usd"};
  CHECK_INT(run_str("contract:\n  name: t\n  columns:\n    - {name: x, type: String, nullable: true, pattern: "
                    "\"^[A-Z]{3}$\"}\n",
                    s, 8, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 5 values not matching the pattern \"^[A-Z]{3}$\" (e.g. \"usd\", \"EURO\", \"xEUR\")");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* Without anchors the match is still of the whole value. */
  CHECK_INT(run_str("contract:\n  name: t\n  columns:\n    - {name: x, type: String, nullable: true, pattern: "
                    "\"[A-Z]{3}\"}\n",
                    s, 8, &v, &err),
            WEIR_ECONTRACT);
  CHECK_INT(json_integer_value(json_object_get(viol(&v, 0), "count")), 5);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* UTF-8 classes and invalid bytes. */
  const char *u[] = {"Zürich", "Genève", "bad\xff"};
  CHECK_INT(run_str("contract:\n  name: t\n  columns:\n    - {name: x, type: String, pattern: \"\\\\p{L}+\"}\n", u, 3,
                    &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 1 value not matching the pattern \"\\p{L}+\" (e.g. \"bad\\xff\")");
  wr_validation_clear(&v);
  weir_error_clear(&err);
}

TEST(range_messages) {
  wr_validation v;
  weir_error err = {0};
  int64_t vals[] = {5, 62, -3, 71, NN, 80, 60, 0};
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true, min: 0, max: 60}\n",
                    vals, 8, &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 4 values outside the range [0, 60] (e.g. 62, -3, 71)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true, max: 60}\n", vals, 8,
                    &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 3 values above the maximum 60 (e.g. 62, 71, 80)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true, min: 0}\n", vals, 8,
                    &v, &err),
            WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 1 value below the minimum 0 (e.g. -3)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* Fractional bounds on integers round inward: [0.5, 60.5] is [1, 60]. */
  CHECK_INT(run_i64("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true, min: 0.5, max: "
                    "60.5}\n",
                    vals, 8, &v, &err),
            WEIR_ECONTRACT);
  CHECK_INT(json_integer_value(json_object_get(viol(&v, 0), "count")), 5);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 5 values outside the range [0.5, 60.5] (e.g. 62, -3, 71)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
}

TEST(range_on_floats_decimals_dates_strings) {
  wr_validation v;
  weir_error err = {0};
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: f, type: Float64, nullable: true, min: 0, max: 60}\n"
      "    - {name: d, type: \"Decimal(10, 2)\", min: \"0.01\", max: \"99.99\"}\n"
      "    - {name: day, type: Date32, min: \"2020-01-01\", max: \"2024-12-31\"}\n"
      "    - {name: s, type: String, min: b, max: d}\n"
      "    - {name: ts, type: TimestampMicroUTC, max: \"2024-01-01T00:00:00Z\"}\n");
  double f[] = {0.42, 60.0, 62.5, 0.0 / 0.0, -0.0};
  bool fnull[] = {false, false, false, false, true};
  __int128 d[] = {1, 0, 9999, 10000, 500};
  int32_t days[] = {18262, 18261, 20088, 20089, 19000}; /* 2020-01-01, 2019-12-31, 2024-12-31, 2025-01-01 */
  const char *s[] = {"b", "a", "c", "d", "da"};
  int64_t ts[] = {1704067200000000LL, 1704067200000001LL, 0, 0, 0};
  struct ArrowArray cols[5];
  arr_fixed(&cols[0], 8, f, 5, fnull);
  arr_fixed(&cols[1], 16, d, 5, NULL);
  arr_fixed(&cols[2], 4, days, 5, NULL);
  arr_str(&cols[3], s, 5, true);
  arr_fixed(&cols[4], 8, ts, 5, NULL);
  const char *names[] = {"f", "d", "day", "s", "ts"}, *formats[] = {"g", "d:10,2", "tdD", "U", "tsu:UTC"};
  wr_arrow_table t;
  table_of(&t, 5, names, formats, cols);
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_INT(vcount(&v), 5);
  CHECK_STR(vmsg(&v, 0), "column \"f\" has 2 values outside the range [0, 60] (e.g. 62.5, NaN)");
  CHECK_STR(vmsg(&v, 1), "column \"d\" has 2 values outside the range [0.01, 99.99] (e.g. 0.00, 100.00)");
  CHECK_STR(vmsg(&v, 2), "column \"day\" has 2 values outside the range [2020-01-01, 2024-12-31] (e.g. 2019-12-31, 2025-01-01)");
  CHECK_STR(vmsg(&v, 3), "column \"s\" has 2 values outside the range [\"b\", \"d\"] (e.g. \"a\", \"da\")");
  CHECK_STR(vmsg(&v, 4), "column \"ts\" has 1 value above the maximum 2024-01-01T00:00:00Z (e.g. 2024-01-01T00:00:00.000001Z)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(unique_across_batches) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, nullable: true, unique: true}\n"
      "    - {name: s, type: String, unique: true}\n");
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  int64_t b1[] = {17, 1, 2, NN};
  int64_t b2[] = {3, 17, NN, 4};
  int64_t b3[] = {17, 2, 5, 6};
  const char *s1[] = {"a", "b", "c", "d"}, *s2[] = {"e", "f", "g", "h"}, *s3[] = {"i", "j", "a", "k"};
  int64_t *bs[] = {b1, b2, b3};
  const char **ss[] = {s1, s2, s3};
  for (int b = 0; b < 3; b++) {
    struct ArrowArray cols[2];
    bool nulls[4];
    for (int i = 0; i < 4; i++) nulls[i] = bs[b][i] == NN;
    arr_fixed(&cols[0], 8, bs[b], 4, nulls);
    arr_str(&cols[1], ss[b], 4, true);
    if (b == 0) {
      const char *names[] = {"x", "s"}, *formats[] = {"l", "U"};
      table_of(&t, 2, names, formats, cols);
    } else {
      table_add(&t, 2, cols);
    }
  }
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  /* 17 repeats twice, 2 once; the two nulls are not duplicates. */
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 3 duplicate values (e.g. 17, 2)");
  json_t *rows = json_object_get(viol(&v, 0), "rows");
  CHECK_INT(json_integer_value(json_array_get(rows, 0)), 5);
  CHECK_INT(json_integer_value(json_array_get(rows, 1)), 8);
  CHECK_INT(json_integer_value(json_array_get(rows, 2)), 9);
  CHECK_STR(vmsg(&v, 1), "column \"s\" has 1 duplicate value (e.g. \"a\")");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(unique_on_floats_and_decimals) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n    - {name: f, type: Float64, unique: true}\n"
      "    - {name: d, type: \"Decimal(20, 0)\", unique: true}\n");
  double f[] = {0.0, -0.0, 1.5, 2.5};
  __int128 d[] = {(__int128)1 << 100, 2, ((__int128)1 << 100) + 1, (__int128)1 << 100};
  struct ArrowArray cols[2];
  arr_fixed(&cols[0], 8, f, 4, NULL);
  arr_fixed(&cols[1], 16, d, 4, NULL);
  const char *names[] = {"f", "d"}, *formats[] = {"g", "d:20,0"};
  wr_arrow_table t;
  table_of(&t, 2, names, formats, cols);
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"f\" has 1 duplicate value (e.g. -0)");
  CHECK_STR(vmsg(&v, 1), "column \"d\" has 1 duplicate value (e.g. 1267650600228229401496703205376)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(drop_mode_quarantines_exactly_the_violating_rows) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: id, type: Int64, unique: {mode: drop}}\n"
      "    - {name: age, type: Float64, nullable: true, max: {value: 60, mode: drop}}\n"
      "    - {name: cls, type: String, enum: {values: [a, b], mode: drop, name: cls_ok}}\n");
  int64_t id[] = {1, 2, 3, 2, 5, 6};
  double age[] = {10, 70, 0, 30, 61, 20};
  bool agenull[] = {false, false, true, false, false, false};
  const char *cls[] = {"a", "b", "a", "z", "z", "b"};
  struct ArrowArray cols[3];
  arr_fixed(&cols[0], 8, id, 6, NULL);
  arr_fixed(&cols[1], 8, age, 6, agenull);
  arr_str(&cols[2], cls, 6, false);
  const char *names[] = {"id", "age", "cls"}, *formats[] = {"l", "g", "u"};
  wr_arrow_table t;
  table_of(&t, 3, names, formats, cols);
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK(!v.failed);
  CHECK_INT(v.valid.n_rows, 3); /* rows 0, 2 (null age passes), 5 */
  CHECK_INT(v.quarantine.n_rows, 3);
  const struct ArrowArray *vid = tcol(&v.valid, 0, 0);
  CHECK_INT(((const int64_t *)vid->buffers[1])[0], 1);
  CHECK_INT(((const int64_t *)vid->buffers[1])[1], 3);
  CHECK_INT(((const int64_t *)vid->buffers[1])[2], 6);
  CHECK(!wr_bit_get(tcol(&v.valid, 0, 1)->buffers[0], 1)); /* the null age kept as null */
  /* The quarantine: same columns (after the cast of cls to large_string), plus _weir_rule. */
  const struct ArrowSchema *qs = &v.quarantine.schema;
  CHECK_INT(qs->n_children, 4);
  CHECK_STR(qs->children[2]->format, "U");
  CHECK_STR(qs->children[3]->name, "_weir_rule");
  CHECK_STR(qs->children[3]->format, "U");
  const struct ArrowArray *qid = tcol(&v.quarantine, 0, 0);
  CHECK_INT(((const int64_t *)qid->buffers[1])[0], 2);
  CHECK_INT(((const int64_t *)qid->buffers[1])[1], 2);
  CHECK_INT(((const int64_t *)qid->buffers[1])[2], 5);
  const struct ArrowArray *qr = tcol(&v.quarantine, 0, 3);
  const int64_t *o = qr->buffers[1];
  const char *d = qr->buffers[2];
  char buf[64];
  snprintf(buf, sizeof buf, "%.*s", (int)(o[1] - o[0]), d + o[0]);
  CHECK_STR(buf, "age.range");
  /* Row 3 repeats id 2, but row 1 (the first id 2) is dropped by age.range, so row 3 is
   * the first occurrence that would be written: not a duplicate. */
  snprintf(buf, sizeof buf, "%.*s", (int)(o[2] - o[1]), d + o[1]);
  CHECK_STR(buf, "cls_ok");
  snprintf(buf, sizeof buf, "%.*s", (int)(o[3] - o[2]), d + o[2]);
  CHECK_STR(buf, "age.range,cls_ok");
  const struct ArrowArray *qcls = tcol(&v.quarantine, 0, 2);
  snprintf(buf, sizeof buf, "%.*s", (int)(((const int64_t *)qcls->buffers[1])[3] - ((const int64_t *)qcls->buffers[1])[2]),
           (const char *)qcls->buffers[2] + ((const int64_t *)qcls->buffers[1])[2]);
  CHECK_STR(buf, "z");
  /* Drops are reported with their mode, and do not fail the contract. */
  CHECK_INT(vcount(&v), 2);
  CHECK_STR(json_string_value(json_object_get(viol(&v, 0), "mode")), "drop");
  CHECK(json_is_true(json_object_get(v.report, "ok")));
  CHECK_INT(json_integer_value(json_object_get(v.report, "rows_valid")), 3);
  CHECK_INT(json_integer_value(json_object_get(v.report, "rows_quarantined")), 3);
  json_t *rules = json_object_get(v.report, "rules");
  CHECK_INT(json_array_size(rules), 3);
  CHECK_STR(json_string_value(json_object_get(json_array_get(rules, 2), "rule")), "cls_ok");
  CHECK_INT(json_integer_value(json_object_get(json_array_get(rules, 2), "rows_affected")), 2);
  CHECK(json_is_false(json_object_get(json_array_get(rules, 2), "passed")));
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(drop_across_batches_and_any_columns) {
  /* A passthrough Any column of list type is filtered too. */
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, min: {value: 0, mode: drop}}\n"
      "    - {name: tags, type: Any, nullable: true}\n");
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  for (int b = 0; b < 2; b++) {
    int64_t x[] = {b ? -1 : 1, b ? 2 : -2, 3};
    struct ArrowArray cols[2];
    arr_fixed(&cols[0], 8, x, 3, NULL);
    /* list<int32>: [0], [1, 1], [] */
    struct ArrowArray items;
    int32_t iv[] = {0, 1, 1};
    arr_fixed(&items, 4, iv, 3, NULL);
    wr_arrow_array_init(&cols[1], 3, 2, 1);
    int32_t *off = wr_arrow_array_alloc_buffer(&cols[1], 1, 16);
    off[0] = 0;
    off[1] = 1;
    off[2] = 3;
    off[3] = 3;
    wr_arrow_array_set_child(&cols[1], 0, &items);
    if (b == 0) {
      wr_arrow_table_init(&t);
      struct ArrowSchema s, sx, sl, si;
      wr_arrow_schema_init(&s, "+s", "", 0, 2);
      wr_arrow_schema_init(&sx, "l", "x", 0, 0);
      wr_arrow_schema_init(&sl, "+l", "tags", ARROW_FLAG_NULLABLE, 1);
      wr_arrow_schema_init(&si, "i", "item", ARROW_FLAG_NULLABLE, 0);
      wr_arrow_schema_set_child(&sl, 0, &si);
      wr_arrow_schema_set_child(&s, 0, &sx);
      wr_arrow_schema_set_child(&s, 1, &sl);
      wr_arrow_table_set_schema(&t, &s);
    }
    table_add(&t, 2, cols);
  }
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 4);
  CHECK_INT(v.quarantine.n_rows, 2);
  CHECK_INT(v.quarantine.n_batches, 2);
  /* Batch 0 kept rows 0 and 2: lists [0] and []. */
  const struct ArrowArray *l = tcol(&v.valid, 0, 1);
  const int32_t *lo = l->buffers[1];
  CHECK_INT(lo[1] - lo[0], 1);
  CHECK_INT(lo[2] - lo[1], 0);
  /* Quarantine batch 1 holds row 0 (x = -1) with list [0]. */
  const struct ArrowArray *q = tcol(&v.quarantine, 1, 1);
  CHECK_INT(((const int32_t *)q->children[0]->buffers[1])[0], 0);
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(v.report, "violations"), 0), "message")),
            "column \"x\" has 2 values below the minimum 0 (e.g. -2, -1)");
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(warn_mode_writes_everything) {
  wr_validation v;
  weir_error err = {0};
  int64_t vals[] = {1, 5, 9};
  CHECK_OK(run_i64("contract:\n  name: t\n  mode: warn\n  columns:\n    - {name: x, type: Int64, max: 4, unique: true}\n",
                   vals, 3, &v, &err),
           &err);
  CHECK(!v.failed);
  CHECK_INT(v.valid.n_rows, 3);
  CHECK_INT(v.quarantine.n_rows, 0);
  CHECK_INT(vcount(&v), 1);
  CHECK_STR(json_string_value(json_object_get(viol(&v, 0), "mode")), "warn");
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 2 values above the maximum 4 (e.g. 5, 9)");
  wr_validation_clear(&v);
}

TEST(fail_message_lists_only_failures_in_order) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: a, type: Int64, max: {value: 1, mode: warn}, enum: [1, 2]}\n"
      "    - {name: b, type: Int64, unique: true}\n");
  int64_t a[] = {1, 3, NN}, b[] = {7, 7, 7};
  bool an[] = {false, false, true};
  struct ArrowArray cols[2];
  arr_fixed(&cols[0], 8, a, 3, an);
  arr_fixed(&cols[1], 8, b, 3, NULL);
  const char *names[] = {"a", "b"}, *formats[] = {"l", "l"};
  wr_arrow_table t;
  table_of(&t, 2, names, formats, cols);
  wr_validation v;
  weir_error err = {0};
  wr_validate_options o = {.is_output = true, .subject = "model m (output, schema t)"};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_INT(vcount(&v), 4);
  CHECK_STR(vmsg(&v, 0), "column \"a\" has 1 null value but is required (row 2)");
  CHECK_STR(vmsg(&v, 1), "column \"a\" has 1 value above the maximum 1 (e.g. 3)");
  CHECK_STR(vmsg(&v, 2), "column \"a\" has 1 value outside the enum [1, 2] (e.g. 3)");
  CHECK_STR(vmsg(&v, 3), "column \"b\" has 2 duplicate values (e.g. 7)");
  CHECK_STR(err.message, "contract violation in model m (output, schema t):\n"
                         "  - column \"a\" has 1 null value but is required (row 2)\n"
                         "  - column \"a\" has 1 value outside the enum [1, 2] (e.g. 3)\n"
                         "  - column \"b\" has 2 duplicate values (e.g. 7)");
  json_t *details = json_loads(err.details, 0, NULL);
  CHECK_INT(json_array_size(details), 4); /* the warning too, with its mode */
  CHECK_STR(json_string_value(json_object_get(json_array_get(details, 1), "mode")), "warn");
  json_decref(details);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(sample_limit_option) {
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, max: 0}\n");
  int64_t vals[] = {1, 2, 3, 4, 5, 6};
  wr_arrow_table t;
  table_i64(&t, "x", vals, 6);
  wr_validation v;
  weir_error err = {0};
  wr_validate_options o = {.is_output = true, .sample_limit = 5};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has 6 values above the maximum 0 (e.g. 1, 2, 3, 4, 5)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(bool_enum_and_bad_hand_built_contract) {
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: b, type: Bool, enum: [true]}\n");
  bool vals[] = {true, false, true};
  struct ArrowArray a;
  arr_bool(&a, vals, 3, NULL);
  const char *names[] = {"b"}, *formats[] = {"b"};
  wr_arrow_table t;
  table_of(&t, 1, names, formats, &a);
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"b\" has 1 value outside the enum [true] (e.g. false)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* A rule that does not fit its column, made by hand, is refused before any work. */
  c->columns[0].rules[0].kind = WEIR_RULE_PATTERN;
  c->columns[0].rules[0].pattern = strdup("x");
  arr_bool(&a, vals, 3, NULL);
  table_of(&t, 1, names, formats, &a);
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_EINVALIDARG);
  CHECK_STR(err.message, "contract t: rule \"b.enum\" of column \"b\": pattern applies to String columns, not Bool");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(float32_samples_print_as_written) {
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: f, type: Float32, max: 0.05}\n");
  float f[] = {0.1f, 0.01f, 2.5f};
  struct ArrowArray a;
  arr_fixed(&a, 4, f, 3, NULL);
  const char *names[] = {"f"}, *formats[] = {"f"};
  wr_arrow_table t;
  table_of(&t, 1, names, formats, &a);
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"f\" has 2 values above the maximum 0.05 (e.g. 0.1, 2.5)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(drop_keeps_dictionary_any_columns_encoded) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n    - {name: x, type: Int64, max: {value: 5, mode: drop}}\n"
      "    - {name: port, type: Any, nullable: true}\n");
  int64_t x[] = {1, 9, 3, 7};
  const char *words[] = {"S", "C", "Q"};
  struct ArrowArray cols[2], dict;
  arr_fixed(&cols[0], 8, x, 4, NULL);
  arr_str(&dict, words, 3, false);
  int32_t idx[] = {2, 0, NN, 1};
  arr_dict(&cols[1], idx, 4, &dict);
  const char *names[] = {"x", "port"}, *formats[] = {"l", "dict:u"};
  wr_arrow_table t;
  table_of(&t, 2, names, formats, cols);
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 2);
  CHECK_INT(v.quarantine.n_rows, 2);
  const struct ArrowArray *kept = tcol(&v.valid, 0, 1);
  CHECK(kept->dictionary != NULL);
  CHECK_INT(((const int32_t *)kept->buffers[1])[0], 2);
  CHECK(!wr_bit_get(kept->buffers[0], 1));
  const struct ArrowArray *q = tcol(&v.quarantine, 0, 1);
  CHECK_INT(((const int32_t *)q->buffers[1])[1], 1);
  CHECK(v.valid.schema.children[1]->dictionary != NULL);
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST_MAIN()
