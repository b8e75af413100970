/* YAML contracts: the spec's example, the blog's aliases, per-rule modes, and every
 * error with its exact file:line:column. */
#include "harness.h"
#include "util/buf.h"
#include "build.h"

static const char *SPEC =
    "contract:\n"
    "  name: transactions\n"
    "  version: \"2.1\"\n"
    "  owner: payments-team\n"
    "  description: \"Card payments as the core system emits them.\"\n"
    "  mode: fail                  # default mode for rules: fail | drop | warn\n"
    "  sla: {freshness: \"1 hour\"}  # recorded and checkable (rules can use it)\n"
    "  columns:\n"
    "    - name: transaction_id\n"
    "      type: Int64\n"
    "      unique: true\n"
    "      doc: \"Unique payment id.\"\n"
    "    - name: amount\n"
    "      type: Decimal(18, 2)\n"
    "      checks: [\"amount > 0\", \"amount < 1000000\"]\n"
    "    - name: status\n"
    "      type: String\n"
    "      enum: [completed, pending, failed, reversed]\n"
    "    - name: currency\n"
    "      type: String\n"
    "      pattern: \"^[A-Z]{3}$\"\n"
    "    - name: note\n"
    "      type: String\n"
    "      nullable: true\n"
    "  rules:\n"
    "    - name: no_duplicates\n"
    "      sql: \"SELECT COUNT(*) - COUNT(DISTINCT transaction_id) FROM {table}\"\n"
    "      threshold: 0\n";

static char *load_err(const char *text) {
  weir_contract *c = NULL;
  weir_error err = {0};
  int rc = wr_contract_from_yaml(text, strlen(text), "contracts/t.yml", &c, &err);
  wr_contract_free(c);
  if (rc == WEIR_OK) return strdup("(loaded)");
  CHECK_INT(rc, WEIR_EINPUT);
  char *m = strdup(err.message ? err.message : "");
  weir_error_clear(&err);
  return m;
}

TEST(spec_example_loads) {
  weir_contract *c = yaml_contract(SPEC);
  CHECK(c != NULL);
  if (!c) return;
  CHECK_STR(c->name, "transactions");
  CHECK_STR(c->version, "2.1");
  CHECK_STR(c->owner, "payments-team");
  CHECK_STR(c->description, "Card payments as the core system emits them.");
  CHECK_STR(c->origin, "t.yml");
  CHECK_INT(c->mode, WEIR_MODE_FAIL);
  CHECK_STR(json_string_value(json_object_get(c->sla, "freshness")), "1 hour");
  CHECK_INT(c->n_columns, 5);
  CHECK_STR(c->columns[0].field.name, "transaction_id");
  CHECK_INT(c->columns[0].field.type.id, WEIR_TYPE_INT64);
  CHECK(c->columns[0].field.required);
  CHECK_STR(c->columns[0].field.doc, "Unique payment id.");
  CHECK_INT(c->columns[0].line, 9);
  CHECK_INT(c->columns[0].n_rules, 1);
  CHECK_INT(c->columns[0].rules[0].kind, WEIR_RULE_UNIQUE);
  CHECK_STR(c->columns[0].rules[0].name, "transaction_id.unique");
  CHECK_INT(c->columns[1].field.type.id, WEIR_TYPE_DECIMAL);
  CHECK_INT(c->columns[1].field.type.precision, 18);
  CHECK_INT(c->columns[1].field.type.scale, 2);
  CHECK_INT(c->columns[1].n_rules, 2);
  CHECK_STR(c->columns[1].rules[0].name, "amount.check[0]");
  CHECK_STR(c->columns[1].rules[0].sql, "amount > 0");
  CHECK_STR(c->columns[1].rules[1].name, "amount.check[1]");
  CHECK_STR(c->columns[1].rules[1].sql, "amount < 1000000");
  CHECK_INT(c->columns[2].rules[0].kind, WEIR_RULE_ENUM);
  CHECK_STR(c->columns[2].rules[0].name, "status.enum");
  CHECK_INT(json_array_size(c->columns[2].rules[0].values), 4);
  CHECK_STR(json_string_value(json_array_get(c->columns[2].rules[0].values, 3)), "reversed");
  CHECK(c->columns[2].rules[0].value_names == NULL);
  CHECK_STR(c->columns[3].rules[0].pattern, "^[A-Z]{3}$");
  CHECK_STR(c->columns[3].rules[0].name, "currency.pattern");
  CHECK(!c->columns[4].field.required);
  CHECK_INT(c->n_rules, 1);
  CHECK_STR(c->rules[0].name, "no_duplicates");
  CHECK(c->rules[0].threshold == 0);
  CHECK_STR(c->rules[0].op, "<=");
  CHECK_INT(c->rules[0].mode, WEIR_MODE_FAIL);
  wr_contract_free(c);
}

TEST(blog_aliases_load) {
  weir_contract *c = yaml_contract(
      "contract:\n"
      "  name: transactions\n"
      "  version: \"2.1\"\n"
      "  owner: backend-team\n"
      "  description: \"Payment transactions\"\n"
      "  sla:\n"
      "    freshness: \"1 hour\"\n"
      "    availability: \"99.9%\"\n"
      "  schema:\n"
      "    - name: transaction_id\n"
      "      type: BIGINT\n"
      "      nullable: false\n"
      "      unique: true\n"
      "      description: \"Unique transaction ID\"\n"
      "    - name: amount\n"
      "      type: DECIMAL(18,2)\n"
      "      checks:\n"
      "        - \"amount > 0\"\n"
      "    - name: transaction_date\n"
      "      type: DATE\n"
      "    - name: status\n"
      "      type: STRING\n"
      "      allowed_values: [\"completed\", \"pending\"]\n"
      "    - name: n\n"
      "      type: INT\n"
      "    - name: x\n"
      "      type: double\n"
      "    - name: ts\n"
      "      type: TIMESTAMP\n"
      "    - name: v\n"
      "      type: varchar\n"
      "  quality_rules:\n"
      "    - name: completeness\n"
      "      sql: \"SELECT COUNT(*) FILTER(WHERE amount IS NULL) / COUNT(*) FROM {table}\"\n"
      "      threshold: 0.01  # at most 1% nulls\n");
  CHECK(c != NULL);
  if (!c) return;
  CHECK_INT(c->n_columns, 8);
  CHECK_INT(c->columns[0].field.type.id, WEIR_TYPE_INT64);
  CHECK_STR(c->columns[0].field.doc, "Unique transaction ID");
  CHECK_INT(c->columns[1].field.type.id, WEIR_TYPE_DECIMAL);
  CHECK_INT(c->columns[2].field.type.id, WEIR_TYPE_DATE32);
  CHECK_INT(c->columns[3].field.type.id, WEIR_TYPE_STRING);
  CHECK_INT(c->columns[3].rules[0].kind, WEIR_RULE_ENUM);
  CHECK_INT(c->columns[4].field.type.id, WEIR_TYPE_INT32);
  CHECK_INT(c->columns[5].field.type.id, WEIR_TYPE_FLOAT64);
  CHECK_INT(c->columns[6].field.type.id, WEIR_TYPE_TS_US);
  CHECK_INT(c->columns[7].field.type.id, WEIR_TYPE_STRING);
  CHECK_INT(c->n_rules, 1);
  CHECK(c->rules[0].threshold == 0.01);
  CHECK_STR(json_string_value(json_object_get(c->sla, "availability")), "99.9%");
  wr_contract_free(c);
}

TEST(per_rule_modes) {
  weir_contract *c = yaml_contract(
      "contract:\n"
      "  name: t\n"
      "  mode: warn\n"
      "  columns:\n"
      "    - name: pid\n"
      "      type: Int64\n"
      "      unique: {mode: fail, name: pid_is_key}\n"
      "    - name: age\n"
      "      type: Float64\n"
      "      nullable: true\n"
      "      mode: drop\n"
      "      min: {value: 0}\n"
      "      max: 60\n"
      "      checks: [\"age <> 13\", {sql: \"age <> 14\", mode: fail, name: not14}]\n"
      "    - name: cls\n"
      "      type: Int64\n"
      "      enum: {values: [1, 2], mode: fail}\n"
      "  rules:\n"
      "    - {name: r1, sql: \"SELECT 1 FROM {table}\"}\n"
      "    - {name: r2, sql: \"SELECT 1 FROM {table}\", mode: fail, op: \">=\", threshold: 2}\n");
  CHECK(c != NULL);
  if (!c) return;
  CHECK_STR(c->columns[0].rules[0].name, "pid_is_key");
  CHECK_INT(c->columns[0].rules[0].mode, WEIR_MODE_FAIL);
  CHECK_INT(c->columns[1].n_rules, 3);
  CHECK_INT(c->columns[1].rules[0].kind, WEIR_RULE_RANGE);
  CHECK_STR(c->columns[1].rules[0].name, "age.range");
  CHECK_INT(c->columns[1].rules[0].mode, WEIR_MODE_DROP);
  CHECK_INT(json_integer_value(c->columns[1].rules[0].min), 0);
  CHECK_INT(json_integer_value(c->columns[1].rules[0].max), 60);
  CHECK_INT(c->columns[1].rules[1].mode, WEIR_MODE_DROP);
  CHECK_STR(c->columns[1].rules[1].name, "age.check[0]");
  CHECK_INT(c->columns[1].rules[2].mode, WEIR_MODE_FAIL);
  CHECK_STR(c->columns[1].rules[2].name, "not14");
  CHECK_INT(c->columns[2].rules[0].mode, WEIR_MODE_FAIL);
  CHECK_INT(c->rules[0].mode, WEIR_MODE_WARN);
  CHECK_INT(c->rules[1].mode, WEIR_MODE_FAIL);
  CHECK_STR(c->rules[1].op, ">=");
  CHECK(c->rules[1].threshold == 2);
  wr_contract_free(c);
}

TEST(enum_with_named_values) {
  weir_contract *c = yaml_contract(
      "contract:\n"
      "  name: t\n"
      "  columns:\n"
      "    - name: tclass\n"
      "      type: Int64\n"
      "      enum: {1st: 1, 2nd: 2}\n");
  CHECK(c != NULL);
  if (!c) return;
  const wr_column_rule *r = &c->columns[0].rules[0];
  CHECK_INT(json_integer_value(json_array_get(r->values, 0)), 1);
  CHECK_INT(json_integer_value(json_array_get(r->values, 1)), 2);
  CHECK_STR(json_string_value(json_array_get(r->value_names, 0)), "1st");
  CHECK_STR(json_string_value(json_array_get(r->value_names, 1)), "2nd");
  wr_contract_free(c);
}

TEST(lineage_and_drop_default_for_table_rules) {
  weir_contract *c = yaml_contract(
      "contract:\n"
      "  name: t\n"
      "  mode: drop\n"
      "  columns:\n"
      "    - {name: pid, type: Int64, lineage: WomenByClass.pid}\n"
      "    - {name: fare, type: Float64, lineage: [a.fare, b.fare]}\n"
      "  rules:\n"
      "    - {name: r, sql: \"SELECT 0 FROM {table}\"}\n");
  CHECK(c != NULL);
  if (!c) return;
  CHECK_INT(c->columns[0].field.n_lineage, 1);
  CHECK_STR(c->columns[0].field.lineage[0], "WomenByClass.pid");
  CHECK_INT(c->columns[1].field.n_lineage, 2);
  CHECK_STR(c->columns[1].field.lineage[1], "b.fare");
  /* A table rule cannot drop rows: under a drop-by-default contract it fails. */
  CHECK_INT(c->rules[0].mode, WEIR_MODE_FAIL);
  json_t *lin = wr_contract_lineage_json(c);
  CHECK_STR(json_string_value(json_array_get(json_object_get(lin, "fare"), 0)), "a.fare");
  json_decref(lin);
  wr_contract_free(c);
}

TEST(unknown_type_names_file_line_column) {
  char *m = load_err(
      "contract:\n"
      "  name: t\n"
      "  columns:\n"
      "    - name: id\n"
      "      type: Int64\n"
      "    - name: amount\n"
      "      type: Int65\n");
  CHECK_STR(m,
            "contracts/t.yml:7:13: unknown type \"Int65\" for column \"amount\" (weir types: Bool, Int32, Int64, "
            "Float32, Float64, Decimal(p, s), String, Binary, Date32, Date64, TimestampMicro, TimestampNano, "
            "TimestampMicroUTC, TimestampNanoUTC, Any)");
  free(m);
}

TEST(bad_decimal_type) {
  char *m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: \"Decimal(40, 2)\"}\n");
  CHECK_STR(m, "contracts/t.yml:4:23: bad type \"Decimal(40, 2)\" for column \"a\": decimal precision must be 1 to 38, not 40");
  free(m);
}

TEST(syntax_error_names_line_column) {
  char *m = load_err("contract:\n  name: t\n  columns: [\n    - name: a\n");
  CHECK_CONTAINS(m, "contracts/t.yml:");
  CHECK_CONTAINS(m, "invalid YAML");
  free(m);
  m = load_err("contract:\n  name: t\n   owner: x\n");
  CHECK_STR(m, "contracts/t.yml:3:9: invalid YAML: mapping values are not allowed in this context");
  free(m);
}

TEST(invalid_utf8_names_its_line_and_column) {
  /* libyaml reports bytes that are not UTF-8 with an offset, not a mark: the message used
   * to say 1:1 whatever the line (found by fuzz_contract_yaml). */
  char *m = load_err("contract:\n  name: t\n  owner: caf\xe9\n");
  CHECK_STR(
      m, "contracts/t.yml:3:13: invalid UTF-8: incomplete UTF-8 octet sequence (a contract is UTF-8 text)");
  free(m);
  /* Columns count characters, not bytes; CRLF is one line break. */
  m = load_err("contract:\r\n  owner: \xc3\xa9t\xc3\xa9 \xff\r\n");
  CHECK_STR(m,
            "contracts/t.yml:2:14: invalid UTF-8: invalid leading UTF-8 octet (byte 0xFF; a contract is "
            "UTF-8 text)");
  free(m);
  /* A sequence cut by the end of the input. */
  m = load_err("contract:\n  name: \xe2\x82");
  CHECK_CONTAINS(m, "contracts/t.yml:2:9: invalid UTF-8: ");
  free(m);
}

TEST(errors_at_the_end_of_the_input_name_a_line_it_has) {
  /* libyaml adds a line break to input that lacks one and marks errors and empty nodes
   * there, a line past the end of the file. */
  char *m = load_err(" [");
  CHECK_STR(
      m, "contracts/t.yml:1:3: invalid YAML: did not find expected node content while parsing a flow node");
  free(m);
  m = load_err("---");
  CHECK_STR(m, "contracts/t.yml:1:4: a contract file is a mapping with one key, contract:");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:");
  CHECK_STR(m, "contracts/t.yml:3:11: the contract needs columns: a list of columns");
  free(m);
}

TEST(aliases_that_expand_without_end_are_refused) {
  /* Eight levels of ten aliases: 10^8 values from 300 bytes. It used to hang; now the
   * contract's values have a budget (found while fuzzing contract_yaml). */
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, "contract:\n  name: t\n  sla:\n    l0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n");
  for (int i = 1; i < 8; i++) {
    wr_buf_printf(&b, "    l%d: &a%d [", i, i);
    for (int k = 0; k < 10; k++) wr_buf_printf(&b, "%s*a%d", k ? ", " : "", i - 1);
    wr_buf_puts(&b, "]\n");
  }
  wr_buf_puts(&b, "  columns:\n    - {name: a, type: Int64}\n");
  char *m = load_err(wr_buf_cstr(&b));
  CHECK_CONTAINS(m, "contracts/t.yml:");
  CHECK_CONTAINS(m, ": the contract expands to more than 100000 values (aliases of aliases?)");
  free(m);
  wr_buf_free(&b);
  /* Anchors and aliases of ordinary size still load. */
  m = load_err(
      "contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, enum: &v [1, 2]}\n"
      "    - {name: b, type: Int64, enum: *v}\n");
  CHECK_STR(m, "(loaded)");
  free(m);
}

TEST(bad_syntax_after_the_document_is_an_error) {
  char *m = load_err("contract:\n  name: t\n  columns: [{name: a, type: Int64}]\n---\n[\n");
  CHECK_CONTAINS(m, "contracts/t.yml:6:1: invalid YAML: ");
  free(m);
}

TEST(unknown_key_with_suggestion) {
  char *m = load_err(
      "contract:\n"
      "  name: t\n"
      "  columns:\n"
      "    - name: a\n"
      "      type: Int64\n"
      "      nullabel: true\n");
  CHECK_STR(m, "contracts/t.yml:6:7: unknown key \"nullabel\" in column \"a\" (did you mean nullable?)");
  free(m);
  m = load_err("contract:\n  name: t\n  ownr: me\n  columns: []\n");
  CHECK_STR(m, "contracts/t.yml:3:3: unknown key \"ownr\" in contract (did you mean owner?)");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, frobnicate: 1}\n");
  CHECK_STR(m, "contracts/t.yml:4:30: unknown key \"frobnicate\" in column \"a\"");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, unique: {mdoe: warn}}\n");
  CHECK_STR(m, "contracts/t.yml:4:39: unknown key \"mdoe\" in unique of column \"a\" (did you mean mode?)");
  free(m);
  m = load_err("contract:\n  name: t\n  columns: []\n  rules:\n    - {name: r, sql: \"SELECT 1 FROM {table}\", treshold: 1}\n");
  CHECK_STR(m, "contracts/t.yml:5:47: unknown key \"treshold\" in rule \"r\" (did you mean threshold?)");
  free(m);
}

TEST(duplicate_column_names_both_lines) {
  char *m = load_err(
      "contract:\n"
      "  name: t\n"
      "  columns:\n"
      "    - name: a\n"
      "      type: Int64\n"
      "    - name: b\n"
      "      type: Int64\n"
      "    - name: a\n"
      "      type: String\n");
  CHECK_STR(m, "contracts/t.yml:8:13: duplicate column \"a\" (first declared at line 4)");
  free(m);
}

/* Issue 13: SQL names are case-insensitive, so a contract cannot hold both. */
TEST(column_names_differing_only_in_case) {
  char *m = load_err(
      "contract:\n"
      "  name: t\n"
      "  columns:\n"
      "    - name: amount\n"
      "      type: Int64\n"
      "    - name: Amount\n"
      "      type: Int64\n");
  CHECK_STR(m, "contracts/t.yml:6:13: columns \"Amount\" and \"amount\" (line 4) differ only in case, which SQL "
               "engines cannot tell apart: rename one");
  free(m);
}

TEST(duplicate_keys_and_rule_names) {
  char *m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, type: String}\n");
  CHECK_STR(m, "contracts/t.yml:4:30: duplicate key \"type\" in column \"a\" (first at line 4)");
  free(m);
  m = load_err(
      "contract:\n"
      "  name: t\n"
      "  columns:\n"
      "    - {name: a, type: Int64, unique: {name: k}}\n"
      "    - {name: b, type: Int64, unique: {name: k}}\n");
  CHECK_STR(m, "contracts/t.yml:5:30: two rules are named \"k\" (the other at line 4)");
  free(m);
}

TEST(bad_rules) {
  char *m = load_err("contract:\n  name: t\n  columns:\n    - name: a\n      type: Int64\n      pattern: \"^x$\"\n");
  CHECK_STR(m, "contracts/t.yml:6:7: column \"a\": pattern applies to String columns, not Int64");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: String, pattern: \"([a-z\"}\n");
  CHECK_CONTAINS(m, "contracts/t.yml:4:31: column \"a\": invalid pattern \"([a-z\": missing terminating ]");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, min: 10, max: 5}\n");
  CHECK_STR(m, "contracts/t.yml:4:30: column \"a\": min 10 is greater than max 5");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, enum: [1, x]}\n");
  CHECK_STR(m, "contracts/t.yml:4:30: column \"a\": \"x\" is not a value of type Int64");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: d, type: Date32, min: \"2024-13-01\"}\n");
  CHECK_STR(m, "contracts/t.yml:4:31: column \"d\": \"2024-13-01\" is not a value of type Date32 (expected e.g. \"2024-01-31\")");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, unique: maybe}\n");
  CHECK_STR(m, "contracts/t.yml:4:38: unique must be true or false");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a, type: Int64, mode: soft}\n");
  CHECK_STR(m, "contracts/t.yml:4:36: mode must be fail, drop or warn, not \"soft\"");
  free(m);
  m = load_err("contract:\n  name: t\n  columns: []\n  rules:\n    - {name: r, sql: \"SELECT 1 FROM {table}\", mode: drop}\n");
  CHECK_STR(m, "contracts/t.yml:5:53: rule \"r\" judges the whole table and cannot drop rows: its mode is fail or warn");
  free(m);
  m = load_err("contract:\n  name: t\n  columns: []\n  rules:\n    - {name: r, sql: \"SELECT 1 FROM t\"}\n");
  CHECK_STR(m, "contracts/t.yml:5:22: the SQL of rule \"r\" does not mention {table}");
  free(m);
  m = load_err("contract:\n  name: t\n  columns: []\n  rules:\n    - {name: r, sql: \"SELECT 1 FROM {table}\", op: \"=<\"}\n");
  CHECK_STR(m, "contracts/t.yml:5:51: op of rule \"r\" must be one of <=, <, >=, >, ==, !=");
  free(m);
}

TEST(shape_errors) {
  char *m = load_err("");
  CHECK_STR(m, "contracts/t.yml:1:1: the file is empty: expected a mapping with key contract:");
  free(m);
  m = load_err("name: t\n");
  CHECK_STR(m, "contracts/t.yml:1:1: a contract file is a mapping with one key, contract:");
  free(m);
  m = load_err("contract:\n  columns: []\n");
  CHECK_STR(m, "contracts/t.yml:2:3: the contract has no name");
  free(m);
  m = load_err("contract:\n  name: t\n  columns:\n    - {name: a}\n");
  CHECK_STR(m, "contracts/t.yml:4:7: column \"a\" has no type");
  free(m);
  m = load_err("contract:\n  name: t\n  columns: []\n  schema: []\n");
  CHECK_STR(m, "contracts/t.yml:4:3: contract has both \"columns\" and \"schema\" (they are the same key)");
  free(m);
  m = load_err("contract:\n  name: t\n  columns: []\n---\ncontract: {}\n");
  CHECK_STR(m, "contracts/t.yml:5:1: a contract file holds one YAML document");
  free(m);
}

TEST(load_file_by_extension) {
  char *dir = test_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/c.yml", dir);
  FILE *f = fopen(path, "w");
  fputs(SPEC, f);
  fclose(f);
  weir_contract *c = NULL;
  weir_error err = {0};
  CHECK_OK(wr_contract_load_file(path, &c, &err), &err);
  CHECK(c && c->n_columns == 5);
  CHECK_STR(c ? c->origin : NULL, path);
  /* The same contract as IR JSON. */
  char jpath[4200];
  snprintf(jpath, sizeof jpath, "%s/c.json", dir);
  json_t *ir = wr_contract_to_ir(c);
  json_dump_file(ir, jpath, 0);
  weir_contract *c2 = NULL;
  CHECK_OK(wr_contract_load_file(jpath, &c2, &err), &err);
  json_t *ir2 = wr_contract_to_ir(c2);
  CHECK(json_equal(ir, ir2));
  json_decref(ir);
  json_decref(ir2);
  wr_contract_free(c);
  wr_contract_free(c2);
  snprintf(path, sizeof path, "%s/c.txt", dir);
  CHECK_INT(wr_contract_load_file(path, &c, &err), WEIR_EINPUT);
  snprintf(path, sizeof path, "%s/missing.yml", dir);
  CHECK_INT(wr_contract_load_file(path, &c, &err), WEIR_ENOTFOUND);
  weir_error_clear(&err);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
