/* The contract IR: exact round trips, defaults, strictness, copies and schemas. */
#include "harness.h"
#include "build.h"

static const char *FULL =
    "contract:\n"
    "  name: transactions\n"
    "  version: \"2.1\"\n"
    "  owner: payments-team\n"
    "  description: Card payments.\n"
    "  mode: warn\n"
    "  sla: {freshness: \"1 hour\", availability: 0.999}\n"
    "  columns:\n"
    "    - name: id\n"
    "      type: Int64\n"
    "      unique: {mode: fail}\n"
    "      doc: Unique payment id.\n"
    "      lineage: [raw.payments.id]\n"
    "    - name: amount\n"
    "      type: Decimal(18, 2)\n"
    "      min: {value: \"0.01\", mode: drop}\n"
    "      checks: [\"amount < 1000000\"]\n"
    "    - name: tclass\n"
    "      type: Int32\n"
    "      cast: exact\n"
    "      enum: {1st: 1, 2nd: 2}\n"
    "    - name: currency\n"
    "      type: String\n"
    "      nullable: true\n"
    "      pattern: {value: \"[A-Z]{3}\", name: iso_currency}\n"
    "    - name: at\n"
    "      type: TimestampMicroUTC\n"
    "      max: \"2030-01-01T00:00:00Z\"\n"
    "    - name: blob\n"
    "      type: Any\n"
    "  rules:\n"
    "    - {name: no_dups, sql: \"SELECT COUNT(*) - COUNT(DISTINCT id) FROM {table}\", threshold: 0}\n"
    "    - {name: share, sql: \"SELECT AVG(amount) FROM {table}\", threshold: 0.5, op: \">\", mode: fail}\n";

static json_t *ir_of(const char *yaml) {
  weir_contract *c = yaml_contract(yaml);
  if (!c) return NULL;
  json_t *ir = wr_contract_to_ir(c);
  wr_contract_free(c);
  return ir;
}

static int from_ir_text(const char *json, char **msg) {
  json_error_t je;
  json_t *ir = json_loads(json, 0, &je);
  if (!ir) {
    fprintf(stderr, "bad test JSON: %s\n", je.text);
    return -1;
  }
  weir_contract *c = NULL;
  weir_error err = {0};
  int rc = wr_contract_from_ir(ir, "ir.json", &c, &err);
  *msg = strdup(err.message ? err.message : "");
  weir_error_clear(&err);
  wr_contract_free(c);
  json_decref(ir);
  return rc;
}

TEST(ir_has_every_field) {
  json_t *ir = ir_of(FULL);
  CHECK(ir != NULL);
  if (!ir) return;
  CHECK_INT(json_integer_value(json_object_get(ir, "ir_version")), 1);
  CHECK_STR(json_string_value(json_object_get(ir, "name")), "transactions");
  CHECK_STR(json_string_value(json_object_get(ir, "mode")), "warn");
  CHECK_STR(json_string_value(json_object_get(ir, "origin")), "t.yml");
  CHECK_INT(json_integer_value(json_object_get(ir, "line")), 2);
  json_t *cols = json_object_get(ir, "columns");
  CHECK_INT(json_array_size(cols), 6);
  json_t *id = json_array_get(cols, 0);
  CHECK_STR(json_string_value(json_object_get(id, "type")), "Int64");
  CHECK(json_is_false(json_object_get(id, "nullable")));
  CHECK_STR(json_string_value(json_array_get(json_object_get(id, "lineage"), 0)), "raw.payments.id");
  CHECK_INT(json_integer_value(json_object_get(id, "line")), 9);
  json_t *r = json_array_get(json_object_get(id, "rules"), 0);
  CHECK_STR(json_string_value(json_object_get(r, "kind")), "unique");
  CHECK_STR(json_string_value(json_object_get(r, "name")), "id.unique");
  CHECK_STR(json_string_value(json_object_get(r, "mode")), "fail");
  json_t *amount = json_array_get(cols, 1);
  CHECK_STR(json_string_value(json_object_get(amount, "type")), "Decimal(18, 2)");
  json_t *range = json_array_get(json_object_get(amount, "rules"), 0);
  CHECK_STR(json_string_value(json_object_get(range, "min")), "0.01");
  CHECK(json_is_null(json_object_get(range, "max")));
  CHECK_STR(json_string_value(json_object_get(range, "mode")), "drop");
  json_t *check = json_array_get(json_object_get(amount, "rules"), 1);
  CHECK_STR(json_string_value(json_object_get(check, "name")), "amount.check[0]");
  CHECK_STR(json_string_value(json_object_get(check, "mode")), "warn"); /* the contract's default */
  json_t *en = json_array_get(json_object_get(json_array_get(cols, 2), "rules"), 0);
  CHECK_STR(json_string_value(json_array_get(json_object_get(en, "value_names"), 1)), "2nd");
  json_t *cur = json_array_get(cols, 3);
  CHECK(json_is_true(json_object_get(cur, "nullable")));
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(cur, "rules"), 0), "name")),
            "iso_currency");
  json_t *trs = json_object_get(ir, "table_rules");
  CHECK_INT(json_array_size(trs), 2);
  CHECK_INT(json_integer_value(json_object_get(json_array_get(trs, 0), "threshold")), 0);
  CHECK_STR(json_string_value(json_object_get(json_array_get(trs, 0), "op")), "<=");
  CHECK(json_real_value(json_object_get(json_array_get(trs, 1), "threshold")) == 0.5);
  json_decref(ir);
}

TEST(round_trip_is_exact) {
  json_t *ir = ir_of(FULL);
  CHECK(ir != NULL);
  if (!ir) return;
  weir_contract *c = NULL;
  weir_error err = {0};
  CHECK_OK(wr_contract_from_ir(ir, "ir", &c, &err), &err);
  json_t *ir2 = wr_contract_to_ir(c);
  CHECK(json_equal(ir, ir2));
  /* Through text too, as the IR travels in Iceberg properties. */
  char *text = json_dumps(ir2, JSON_COMPACT);
  json_t *ir3 = json_loads(text, 0, NULL);
  weir_contract *c3 = NULL;
  CHECK_OK(wr_contract_from_ir(ir3, "ir", &c3, &err), &err);
  json_t *ir4 = wr_contract_to_ir(c3);
  CHECK(json_equal(ir, ir4));
  /* A copy is equal and independent. */
  weir_contract *cp = wr_contract_copy(c);
  json_t *ir5 = wr_contract_to_ir(cp);
  CHECK(json_equal(ir, ir5));
  wr_contract_free(cp);
  free(text);
  json_decref(ir);
  json_decref(ir2);
  json_decref(ir3);
  json_decref(ir4);
  json_decref(ir5);
  wr_contract_free(c);
  wr_contract_free(c3);
}

TEST(minimal_ir_gets_defaults) {
  json_t *ir = json_pack("{s:s, s:[{s:s, s:s, s:[{s:s}, {s:s, s:s}]}, {s:s, s:s, s:b}]}", "name", "m", "columns",
                         "name", "a", "type", "BIGINT", "rules", "kind", "unique", "kind", "check", "sql", "a > 0",
                         "name", "b", "type", "String", "nullable", 1);
  weir_contract *c = NULL;
  weir_error err = {0};
  CHECK_OK(wr_contract_from_ir(ir, "ir", &c, &err), &err);
  if (c) {
    CHECK(c->columns[0].field.required); /* required unless nullable */
    CHECK(!c->columns[1].field.required);
    CHECK_INT(c->columns[0].field.type.id, WEIR_TYPE_INT64);
    CHECK_STR(c->columns[0].rules[0].name, "a.unique");
    CHECK_STR(c->columns[0].rules[1].name, "a.check[0]");
    CHECK_INT(c->columns[0].rules[1].mode, WEIR_MODE_FAIL);
    CHECK_INT(c->mode, WEIR_MODE_FAIL);
    json_t *out = wr_contract_to_ir(c);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(out, "columns"), 0), "type")), "Int64");
    CHECK(json_is_null(json_object_get(out, "owner")));
    json_decref(out);
  }
  wr_contract_free(c);
  json_decref(ir);
}

TEST(strict_errors) {
  char *m;
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[],\"colums\":[]}", &m), WEIR_EINPUT);
  CHECK_STR(m, "ir.json: unknown key \"colums\" (did you mean columns?)");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"nulable\":true}]}", &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: columns[0]: unknown key \"nulable\" (did you mean nullable?)");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int65\"}]}", &m), WEIR_EINPUT);
  CHECK_CONTAINS(m, "ir.json: column \"a\": unknown type \"Int65\" (weir types: Bool,");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"rules\":[{\"kind\":\"unique\","
                         "\"pattern\":\"x\"}]}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: column \"a\" rules[0]: unknown key \"pattern\"");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"rules\":[{\"kind\":\"regex\"}]}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: column \"a\" rules[0]: unknown rule kind \"regex\" (kinds: unique, enum, pattern, range, check)");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"rules\":[{\"kind\":\"enum\","
                         "\"values\":[1,\"x\"]}]}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: column \"a\" rules[0]: rule \"a.enum\": \"x\" is not a value of type Int64");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"line\":3},{\"name\":\"a\","
                         "\"type\":\"String\",\"line\":9}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: duplicate column \"a\" (lines 3 and 9)");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\"},{\"name\":\"a\",\"type\":\"Int64\"}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: duplicate column \"a\" (columns[0] and columns[1])");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\"},{\"name\":\"A\",\"type\":\"Int64\"}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: columns \"a\" and \"A\" differ only in case, which SQL engines cannot tell apart: rename one");
  free(m);
  CHECK_INT(from_ir_text("{\"ir_version\":2,\"name\":\"t\",\"columns\":[]}", &m), WEIR_EINPUT);
  CHECK_STR(m, "ir.json: IR version 2 is newer than this weir reads (1): upgrade weir");
  free(m);
  CHECK_INT(from_ir_text("{\"name\":\"t\",\"columns\":[],\"table_rules\":[{\"name\":\"r\",\"sql\":\"SELECT 1 FROM {table}\","
                         "\"mode\":\"drop\"}]}",
                         &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: table rule \"r\": a table rule cannot drop rows: its mode is fail or warn");
  free(m);
  CHECK_INT(from_ir_text("{\"columns\":[]}", &m), WEIR_EINPUT);
  CHECK_STR(m, "ir.json: \"name\" is required");
  free(m);
  CHECK_INT(from_ir_text("[]", &m), WEIR_EINPUT);
  CHECK_STR(m, "ir.json: a contract IR must be a JSON object");
  free(m);
}

TEST(huge_whole_numbers_are_not_cast_to_int64) {
  /* 1e300 as an Int64 enum value was checked by casting it to int64_t: undefined
   * behaviour (found by fuzz_contract_ir under UBSan). It is not a whole int64. */
  char *msg = NULL;
  CHECK_INT(from_ir_text("{\"name\":\"x\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\","
                         "\"rules\":[{\"kind\":\"enum\",\"values\":[1e300]}]}]}",
                         &msg),
            WEIR_EINPUT);
  CHECK_CONTAINS(msg, "ir.json: column \"a\" rules[0]: rule \"a.enum\": ");
  free(msg);
  /* A whole double that fits is an integer value. */
  CHECK_INT(from_ir_text("{\"name\":\"x\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\","
                         "\"rules\":[{\"kind\":\"enum\",\"values\":[2.0, -4e18]}]}]}",
                         &msg),
            WEIR_OK);
  free(msg);
}

TEST(schema_and_from_schema) {
  weir_contract *c = yaml_contract(FULL);
  CHECK(c != NULL);
  if (!c) return;
  wr_schema s;
  wr_contract_schema(c, &s);
  CHECK_INT(s.n_fields, 6);
  CHECK_STR(s.fields[1].name, "amount");
  CHECK(s.fields[0].required);
  CHECK(!s.fields[3].required);
  CHECK_STR(s.fields[0].doc, "Unique payment id.");
  weir_contract *c2 = wr_contract_from_schema(&s, "copy");
  CHECK_STR(c2->name, "copy");
  CHECK_INT(c2->n_columns, 6);
  CHECK_INT(c2->columns[0].n_rules, 0);
  CHECK_INT(c2->n_rules, 0);
  CHECK_STR(c2->columns[0].field.lineage[0], "raw.payments.id");
  wr_contract_free(c2);
  wr_schema_clear(&s);
  wr_contract_free(c);
  CHECK_STR(wr_rule_mode_name(WEIR_MODE_DROP), "drop");
}

TEST(cast_mode_in_ir_and_yaml) {
  /* YAML cast: exact is the IR's "cast": "exact"; widen, the default, is not written (a
   * contract without exact casts stays readable by a weir that predates the key). */
  json_t *ir = ir_of(FULL);
  CHECK(ir != NULL);
  if (!ir) return;
  json_t *cols = json_object_get(ir, "columns");
  CHECK_STR(json_string_value(json_object_get(json_array_get(cols, 2), "cast")), "exact");
  CHECK(json_object_get(json_array_get(cols, 0), "cast") == NULL);
  json_decref(ir);
  weir_contract *c = yaml_contract(
      "contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, cast: widen}\n"
      "    - {name: b, type: Int64, cast: exact}\n");
  CHECK(c != NULL);
  if (c) {
    CHECK_INT(c->columns[0].cast, WEIR_CAST_MODE_WIDEN);
    CHECK_INT(c->columns[1].cast, WEIR_CAST_MODE_EXACT);
    weir_contract *cp = wr_contract_copy(c);
    CHECK_INT(cp->columns[1].cast, WEIR_CAST_MODE_EXACT);
    wr_contract_free(cp);
  }
  wr_contract_free(c);
  char *m;
  CHECK_INT(from_ir_text(
                "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"cast\":\"exact\"}]}", &m),
            WEIR_OK);
  free(m);
  CHECK_INT(from_ir_text(
                "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"cast\":\"lossy\"}]}", &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: column \"a\": \"cast\" must be \"widen\" or \"exact\"");
  free(m);
  CHECK_INT(from_ir_text(
                "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"String\",\"cast\":\"exact\"}]}", &m),
            WEIR_EINPUT);
  CHECK_STR(
      m,
      "ir.json: column \"a\": cast exact applies to numbers, decimals, dates and timestamps, not String (no "
      "narrowing cast leads to it)");
  free(m);
  CHECK_INT(from_ir_text(
                "{\"name\":\"t\",\"columns\":[{\"name\":\"a\",\"type\":\"Int64\",\"cats\":\"exact\"}]}", &m),
            WEIR_EINPUT);
  CHECK_STR(m, "ir.json: columns[0]: unknown key \"cats\" (did you mean cast?)");
  free(m);
  /* YAML errors name the file, line and column. */
  weir_error err = {0};
  const char *bad = "contract:\n  name: t\n  columns:\n    - name: a\n      type: Int64\n      cast: lossy\n";
  CHECK_INT(wr_contract_from_yaml(bad, strlen(bad), "t.yml", &c, &err), WEIR_EINPUT);
  CHECK_STR(err.message, "t.yml:6:13: cast of column \"a\" must be widen or exact, not \"lossy\"");
  weir_error_clear(&err);
  const char *bool_exact =
      "contract:\n  name: t\n  columns:\n    - name: a\n      type: Bool\n      cast: exact\n";
  CHECK_INT(wr_contract_from_yaml(bool_exact, strlen(bool_exact), "t.yml", &c, &err), WEIR_EINPUT);
  CHECK_STR(err.message,
            "t.yml:6:13: column \"a\": cast exact applies to numbers, decimals, dates and timestamps, not "
            "Bool (no narrowing cast leads to it)");
  weir_error_clear(&err);
}

TEST_MAIN()
