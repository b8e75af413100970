/* SQL rules through the engine: per-row checks (one scan for all of them, row numbers
 * as the data arrived, NULL passes) and table rules (threshold, comparison, NULL
 * results, modes), plus checks in drop mode. */
#include "harness.h"
#include "build.h"
#include "engine/engine.h"

static wr_engine *engine(void) {
  wr_engine *e = NULL;
  weir_error err = {0};
  if (wr_engine_open(NULL, &e, &err)) {
    fprintf(stderr, "cannot open the engine: %s\n", err.message);
    weir_error_clear(&err);
  }
  return e;
}

/* Two batches: amount int64 {5, -4, 0, 7, NN} and {-3, 2, NN, 9, -8}; note large_string. */
static void amounts(wr_arrow_table *t) {
  int64_t a1[] = {5, -4, 0, 7, NN}, a2[] = {-3, 2, NN, 9, -8};
  const char *n1[] = {"a", "b", "c", "d", "e"}, *n2[] = {"f", "g", "h", "i", "j"};
  for (int b = 0; b < 2; b++) {
    int64_t *a = b ? a2 : a1;
    bool nulls[5];
    for (int i = 0; i < 5; i++) nulls[i] = a[i] == NN;
    struct ArrowArray cols[2];
    arr_fixed(&cols[0], 8, a, 5, nulls);
    arr_str(&cols[1], b ? n2 : n1, 5, true);
    if (!b) {
      const char *names[] = {"amount", "note"}, *formats[] = {"l", "U"};
      table_of(t, 2, names, formats, cols);
    } else {
      table_add(t, 2, cols);
    }
  }
}

TEST(checks_report_rows_as_they_arrived) {
  wr_engine *e = engine();
  if (!e) return;
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: amount, type: Int64, nullable: true, checks: [\"amount > 0\", \"amount <> 7\"]}\n"
      "    - {name: note, type: String, checks: [\"note <> 'zz'\"]}\n");
  wr_arrow_table t;
  amounts(&t);
  wr_validate_options o = {.is_output = true, .subject = "s", .engine = e};
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  /* amount > 0 fails on -4, 0, -3, -8 (rows 1, 2, 5, 9); NULLs pass. */
  CHECK_INT(vcount(&v), 2);
  CHECK_STR(vmsg(&v, 0), "check \"amount > 0\" fails for 4 rows (rows 1, 2, 5, ...)");
  CHECK_STR(vmsg(&v, 1), "check \"amount <> 7\" fails for 1 row (row 3)");
  json_t *o0 = json_array_get(json_object_get(v.report, "violations"), 0);
  CHECK_STR(json_string_value(json_object_get(o0, "rule")), "amount.check[0]");
  CHECK_STR(json_string_value(json_object_get(o0, "kind")), "check");
  CHECK_STR(json_string_value(json_object_get(o0, "column")), "amount");
  json_t *rules = json_object_get(v.report, "rules");
  CHECK_INT(json_array_size(rules), 3);
  CHECK(json_is_true(json_object_get(json_array_get(rules, 2), "passed")));
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
  wr_engine_close(e);
}

TEST(checks_in_drop_mode_and_own_engine) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: amount, type: Int64, nullable: true, mode: drop, checks: [{sql: \"amount > 0\", name: positive}]}\n"
      "    - {name: note, type: String}\n");
  wr_arrow_table t;
  amounts(&t);
  wr_validation v;
  weir_error err = {0};
  /* No engine in the options: the validator opens its own. */
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 6);
  CHECK_INT(v.quarantine.n_rows, 4);
  const struct ArrowArray *qn = tcol(&v.quarantine, 0, 1);
  const int64_t *o = qn->buffers[1];
  CHECK_INT(o[2] - o[1], 1);
  CHECK(((const char *)qn->buffers[2])[o[1]] == 'c');
  const struct ArrowArray *qr = tcol(&v.quarantine, 1, 2);
  const int64_t *ro = qr->buffers[1];
  char buf[32];
  snprintf(buf, sizeof buf, "%.*s", (int)(ro[1] - ro[0]), (const char *)qr->buffers[2] + ro[0]);
  CHECK_STR(buf, "positive");
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(bad_check_sql_names_the_check) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: amount, type: Int64, nullable: true, checks: [\"amount > 0\", \"amont < 10\"]}\n"
      "    - {name: note, type: String}\n");
  wr_arrow_table t;
  amounts(&t);
  wr_validation v;
  weir_error err = {0};
  int rc = wr_contract_validate(c, &t, NULL, &v, &err);
  CHECK_INT(rc, WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "check \"amont < 10\" of column \"amount\" (rule amount.check[1]) does not run: ");
  CHECK_CONTAINS(err.message, "amont");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(table_rules_threshold_and_op) {
  wr_engine *e = engine();
  if (!e) return;
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: amount, type: Int64, nullable: true}\n"
      "    - {name: note, type: String}\n"
      "  rules:\n"
      "    - name: no_duplicates\n"
      "      sql: \"SELECT COUNT(*) - COUNT(DISTINCT note) FROM {table}\"\n"
      "      threshold: 0\n"
      "    - name: nulls\n"
      "      sql: \"SELECT COUNT(*) FILTER (WHERE amount IS NULL) FROM {table}\"\n"
      "      threshold: 1\n"
      "    - name: enough_rows\n"
      "      sql: \"SELECT COUNT(*) FROM {table}\"\n"
      "      threshold: 100\n"
      "      op: \">=\"\n"
      "      mode: warn\n"
      "    - name: share\n"
      "      sql: \"SELECT AVG(amount) FROM {table} WHERE amount > 100\"\n"
      "      threshold: 0.5\n"
      "      mode: warn\n");
  wr_arrow_table t;
  amounts(&t);
  wr_validate_options o = {.is_output = true, .subject = "model m", .engine = e};
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_INT(vcount(&v), 3);
  CHECK_STR(vmsg(&v, 0), "rule \"nulls\" returned 2, expected <= 1");
  CHECK_STR(vmsg(&v, 1), "rule \"enough_rows\" returned 10, expected >= 100");
  CHECK_STR(vmsg(&v, 2), "rule \"share\" returned NULL, expected <= 0.5");
  CHECK_STR(err.message, "contract violation in model m:\n  - rule \"nulls\" returned 2, expected <= 1");
  json_t *rules = json_object_get(v.report, "rules");
  CHECK_INT(json_array_size(rules), 4);
  json_t *r0 = json_array_get(rules, 0);
  CHECK_STR(json_string_value(json_object_get(r0, "rule")), "no_duplicates");
  CHECK_INT(json_integer_value(json_object_get(r0, "value")), 0);
  CHECK(json_is_true(json_object_get(r0, "passed")));
  CHECK_STR(json_string_value(json_object_get(json_array_get(rules, 2), "op")), ">=");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
  wr_engine_close(e);
}

TEST(table_rules_see_the_data_after_drops) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: amount, type: Int64, nullable: true, min: {value: 0, mode: drop}}\n"
      "    - {name: note, type: String}\n"
      "  rules:\n"
      "    - {name: none_negative, sql: \"SELECT COUNT(*) FROM {table} WHERE amount < 0\", threshold: 0}\n");
  wr_arrow_table t;
  amounts(&t);
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, NULL, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 7);
  json_t *rules = json_object_get(v.report, "rules");
  CHECK(json_is_true(json_object_get(json_array_get(rules, 1), "passed")));
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(sql_rules_skipped_when_shape_is_broken) {
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n"
      "    - {name: amount, type: Int64, nullable: true, checks: [\"amount > 0\"]}\n"
      "    - {name: missing, type: String}\n"
      "  rules:\n"
      "    - {name: r, sql: \"SELECT COUNT(missing) FROM {table}\"}\n");
  wr_arrow_table t;
  amounts(&t);
  wr_validate_options o = {.is_output = false, .project = true};
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_INT(vcount(&v), 1);
  CHECK_STR(vmsg(&v, 0), "missing column \"missing\" (expected large_string)");
  json_t *rules = json_object_get(v.report, "rules");
  CHECK_INT(json_array_size(rules), 2);
  CHECK(json_is_null(json_object_get(json_array_get(rules, 0), "passed")));
  CHECK_STR(json_string_value(json_object_get(json_array_get(rules, 1), "skipped")),
            "the table's columns do not match the contract");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST_MAIN()
