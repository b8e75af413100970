/* Column-level checks: missing, unknown and uncastable columns, with their exact
 * messages; the error header; ordering; projection; the output schema; and zero-copy
 * passthrough of columns that need no cast. */
#include "harness.h"
#include "build.h"

/* A table with columns pid int64, tclass large_string, fare_usd double (3 rows). */
static void sample_table(wr_arrow_table *t) {
  int64_t pid[] = {1, 2, 3};
  const char *cls[] = {"1", "2", "3"};
  double fare[] = {7.25, 71.28, 8.05};
  struct ArrowArray cols[3];
  arr_fixed(&cols[0], 8, pid, 3, NULL);
  arr_str(&cols[1], cls, 3, true);
  arr_fixed(&cols[2], 8, fare, 3, NULL);
  const char *names[] = {"pid", "tclass", "fare_usd"}, *formats[] = {"l", "U", "g"};
  table_of(t, 3, names, formats, cols);
}

TEST(spec_messages_missing_type_unknown) {
  weir_contract *c = yaml_contract(
      "contract:\n"
      "  name: ExpensiveWomenCabins\n"
      "  columns:\n"
      "    - {name: pid, type: Int64}\n"
      "    - {name: tclass, type: Int64}\n"
      "    - {name: Fare, type: Float64}\n");
  wr_arrow_table t;
  sample_table(&t);
  wr_validate_options o = {.is_output = true, .subject = "model h (output, schema ExpensiveWomenCabins)"};
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK(v.failed);
  CHECK_INT(vcount(&v), 3);
  /* Ordered by declared column, then the columns the contract does not declare. */
  CHECK_STR(vmsg(&v, 0), "column \"tclass\" has type large_string, expected int64");
  CHECK_STR(vmsg(&v, 1), "missing column \"Fare\" (expected double)");
  CHECK_STR(vmsg(&v, 2), "unknown column \"fare_usd\" (has type double)");
  CHECK_STR(err.message,
            "contract violation in model h (output, schema ExpensiveWomenCabins):\n"
            "  - column \"tclass\" has type large_string, expected int64\n"
            "  - missing column \"Fare\" (expected double)\n"
            "  - unknown column \"fare_usd\" (has type double)");
  json_t *details = json_loads(err.details, 0, NULL);
  CHECK_INT(json_array_size(details), 3);
  json_t *d0 = json_array_get(details, 0);
  CHECK_STR(json_string_value(json_object_get(d0, "kind")), "type");
  CHECK_STR(json_string_value(json_object_get(d0, "column")), "tclass");
  CHECK_STR(json_string_value(json_object_get(d0, "expected")), "int64");
  CHECK_STR(json_string_value(json_object_get(d0, "found")), "large_string");
  CHECK_STR(json_string_value(json_object_get(d0, "mode")), "fail");
  json_decref(details);
  /* A table of the wrong shape offers nothing to write. */
  CHECK_INT(v.valid.n_rows, 0);
  CHECK(json_is_false(json_object_get(v.report, "ok")));
  CHECK_INT(json_integer_value(json_object_get(v.report, "rows_in")), 3);
  CHECK_INT(t.n_batches, 0); /* the input was consumed */
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(narrowing_is_named) {
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: pid, type: Int32}\n");
  int64_t pid[] = {1, 2};
  wr_arrow_table t;
  table_i64(&t, "pid", pid, 2);
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"pid\" has type int64, expected int32" NARROWING_HINT);
  CHECK_STR(err.message,
            "contract violation in t:\n  - column \"pid\" has type int64, expected int32" NARROWING_HINT);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* Float64 -> Int64 is refused too, saying how to get it (an exact cast exists); a
   * timestamp zone change is refused with no such hint (a zone is meaning). */
  wr_contract_free(c);
  c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: x, type: Int64}\n    - {name: ts, type: TimestampMicroUTC}\n");
  double x[] = {1.5};
  int64_t ts[] = {0};
  struct ArrowArray cols[2];
  arr_fixed(&cols[0], 8, x, 1, NULL);
  arr_fixed(&cols[1], 8, ts, 1, NULL);
  const char *names[] = {"x", "ts"}, *formats[] = {"g", "tsu:"};
  table_of(&t, 2, names, formats, cols);
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"x\" has type double, expected int64" NARROWING_HINT);
  CHECK_STR(vmsg(&v, 1), "column \"ts\" has type timestamp[us], expected timestamp[us, tz=UTC]");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(inputs_drop_or_keep_undeclared_columns) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n    - {name: fare_usd, type: Float64}\n    - {name: pid, type: Int64}\n");
  wr_arrow_table t;
  wr_validation v;
  weir_error err = {0};
  /* A projected input: declared columns only, in declared order. */
  sample_table(&t);
  wr_validate_options o = {.is_output = false, .project = true};
  CHECK_OK(wr_contract_validate(c, &t, &o, &v, &err), &err);
  CHECK_INT(v.valid.schema.n_children, 2);
  CHECK_STR(v.valid.schema.children[0]->name, "fare_usd");
  CHECK_STR(v.valid.schema.children[1]->name, "pid");
  CHECK_INT(((const int64_t *)tcol(&v.valid, 0, 1)->buffers[1])[2], 3);
  CHECK_INT(vcount(&v), 0);
  wr_validation_clear(&v);
  /* An input read without a projection keeps the other columns after the declared ones. */
  sample_table(&t);
  o.project = false;
  CHECK_OK(wr_contract_validate(c, &t, &o, &v, &err), &err);
  CHECK_INT(v.valid.schema.n_children, 3);
  CHECK_STR(v.valid.schema.children[2]->name, "tclass");
  CHECK_STR(v.valid.schema.children[2]->format, "U");
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(output_schema_is_the_declared_one) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: tclass, type: String}\n"
      "    - {name: fare_usd, type: Float64, nullable: true}\n"
      "    - {name: pid, type: Any}\n");
  wr_arrow_table t;
  sample_table(&t);
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  const struct ArrowSchema *s = &v.valid.schema;
  CHECK_STR(s->format, "+s");
  CHECK_INT(s->n_children, 3);
  CHECK_STR(s->children[0]->name, "tclass");
  CHECK_STR(s->children[0]->format, "U");
  CHECK_INT(s->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
  CHECK_STR(s->children[1]->format, "g");
  CHECK_INT(s->children[1]->flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
  CHECK_STR(s->children[2]->format, "l"); /* Any: as it came */
  CHECK(json_is_true(json_object_get(v.report, "ok")));
  CHECK_INT(json_array_size(json_object_get(v.report, "casts")), 0);
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(passthrough_is_zero_copy) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: pid, type: Int64, unique: true, min: 0}\n"
      "    - {name: tclass, type: String, enum: [\"1\", \"2\", \"3\"]}\n"
      "    - {name: fare_usd, type: Float64}\n");
  wr_arrow_table t;
  sample_table(&t);
  const struct ArrowArray *in = wr_arrow_batch_array(t.batches[0]);
  const void *b_pid = in->children[0]->buffers[1];
  const void *b_cls_off = in->children[1]->buffers[1];
  const void *b_cls_data = in->children[1]->buffers[2];
  const void *b_fare = in->children[2]->buffers[1];
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK(tcol(&v.valid, 0, 0)->buffers[1] == b_pid);
  CHECK(tcol(&v.valid, 0, 1)->buffers[1] == b_cls_off);
  CHECK(tcol(&v.valid, 0, 1)->buffers[2] == b_cls_data);
  CHECK(tcol(&v.valid, 0, 2)->buffers[1] == b_fare);
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(sliced_batches_keep_their_offsets) {
  /* A batch whose struct and children both have offsets (a slice of a slice). */
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, max: 100}\n");
  int64_t vals[] = {500, 501, 1, 2, 300, 4};
  struct ArrowArray a;
  arr_fixed(&a, 8, vals, 6, NULL);
  a.offset = 1;
  a.length = 5;
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  struct ArrowSchema s, cs;
  wr_arrow_schema_init(&s, "+s", "", 0, 1);
  wr_arrow_schema_init(&cs, "l", "a", 0, 0);
  wr_arrow_schema_set_child(&s, 0, &cs);
  wr_arrow_table_set_schema(&t, &s);
  struct ArrowArray b;
  wr_arrow_array_init(&b, 4, 1, 1);
  b.offset = 1; /* logical rows: vals[2..5] = 1, 2, 300, 4 */
  wr_arrow_array_set_child(&b, 0, &a);
  wr_arrow_table_append(&t, &b);
  wr_validation v;
  weir_error err = {0};
  wr_validate_options o = {.is_output = true, .subject = "s"};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"a\" has 1 value above the maximum 100 (e.g. 300)");
  json_t *rows = json_object_get(json_array_get(json_object_get(v.report, "violations"), 0), "rows");
  CHECK_INT(json_integer_value(json_array_get(rows, 0)), 2);
  /* The output column, shared, reads the same four values. */
  const struct ArrowArray *oc = tcol(&v.valid, 0, 0);
  const struct ArrowArray *ob = wr_arrow_batch_array(v.valid.batches[0]);
  CHECK_INT(ob->length, 4);
  CHECK_INT(((const int64_t *)oc->buffers[1])[oc->offset + ob->offset + 0], 1);
  CHECK_INT(((const int64_t *)oc->buffers[1])[oc->offset + ob->offset + 3], 4);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(empty_and_schemaless_inputs) {
  weir_contract *c = yaml_contract("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64}\n");
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, NULL, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "missing column \"a\" (expected int64)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  /* A schema and no rows: valid, empty. */
  wr_arrow_table_init(&t);
  struct ArrowSchema s, cs;
  wr_arrow_schema_init(&s, "+s", "", 0, 1);
  wr_arrow_schema_init(&cs, "i", "a", 0, 0);
  wr_arrow_schema_set_child(&s, 0, &cs);
  wr_arrow_table_set_schema(&t, &s);
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 0);
  CHECK_STR(v.valid.schema.children[0]->format, "l");
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(v.report, "casts"), 0), "from")), "int32");
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(violation_message_function) {
  json_t *v = json_pack("{s:s, s:s, s:s, s:I, s:[I,I,I], s:[]}", "kind", "nulls", "column", "pid", "mode", "fail",
                        "count", (json_int_t)5, "rows", (json_int_t)4, (json_int_t)17, (json_int_t)90, "samples");
  char *m = wr_violation_message(v);
  CHECK_STR(m, "column \"pid\" has 5 null values but is required (rows 4, 17, 90, ...)");
  free(m);
  json_decref(v);
  v = json_pack("{s:s, s:s, s:n, s:f, s:s, s:i}", "kind", "table_rule", "rule", "share", "value", "threshold", 0.5, "op",
                ">", "count", 0);
  m = wr_violation_message(v);
  CHECK_STR(m, "rule \"share\" returned NULL, expected > 0.5");
  free(m);
  json_decref(v);
}

TEST_MAIN()
