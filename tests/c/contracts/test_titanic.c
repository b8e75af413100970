/* Acceptance cases on examples/titanic/data/titanic.csv, read by the engine as an
 * import would: the contract passes as written, and each broken variant fails (or
 * drops) with the message a user would see. */
#include "harness.h"
#include "build.h"
#include "engine/engine.h"

#define TITANIC \
    "contract:\n" \
    "  name: titanic\n" \
    "  description: Passengers of the Titanic.\n" \
    "  columns:\n" \
    "    - {name: PassengerId, type: Int64, unique: true}\n" \
    "    - {name: Survived, type: Int64, enum: [0, 1]}\n" \
    "    - {name: Pclass, type: Int64, enum: {1st: 1, 2nd: 2, 3rd: 3}}\n" \
    "    - {name: Name, type: String}\n" \
    "    - {name: Sex, type: String, enum: [male, female]}\n" \
    "    - {name: Age, type: Float64, nullable: true%s}\n" \
    "    - {name: SibSp, type: Int64, min: 0}\n" \
    "    - {name: Parch, type: Int64, min: 0}\n" \
    "    - {name: Ticket, type: String}\n" \
    "    - {name: Fare, type: Float64, min: 0, checks: [\"Fare < 1000\"]}\n" \
    "    - {name: Cabin, type: String, nullable: true, pattern: \"[A-G]?[0-9 A-Z]*|T\"}\n" \
    "    - {name: Embarked, type: String, nullable: %s, enum: [S, C, Q]}\n" \
    "  rules:\n" \
    "    - {name: no_duplicates, sql: \"SELECT COUNT(*) - COUNT(DISTINCT PassengerId) FROM {table}\", threshold: 0}\n" \
    "    - {name: survivors, sql: \"SELECT AVG(Survived) FROM {table}\", threshold: 0.3, op: \">=\"}\n"

static wr_engine *eng;

static int read_titanic(wr_arrow_table *t) {
  weir_error err = {0};
  if (!eng && wr_engine_open(NULL, &eng, &err)) {
    fprintf(stderr, "engine: %s\n", err.message);
    weir_error_clear(&err);
    return -1;
  }
  int rc = wr_engine_read_file(eng, test_source_path("examples/titanic/data/titanic.csv"), WEIR_FORMAT_AUTO, t, &err);
  if (rc) fprintf(stderr, "read: %s\n", err.message);
  weir_error_clear(&err);
  return rc;
}

static weir_contract *titanic(const char *age_rules, const char *embarked_nullable) {
  char yaml[4096];
  snprintf(yaml, sizeof yaml, TITANIC, age_rules, embarked_nullable);
  return yaml_contract(yaml);
}

TEST(the_contract_holds_and_shares_every_buffer) {
  wr_arrow_table t;
  if (read_titanic(&t)) return;
  const struct ArrowArray *in = wr_arrow_batch_array(t.batches[0]);
  const void *names = in->children[3]->buffers[2];
  weir_contract *c = titanic("", "true");
  wr_validate_options o = {.is_output = true, .subject = "import of titanic.csv into default.titanic", .engine = eng};
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, &o, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 891);
  CHECK_INT(vcount(&v), 0);
  CHECK(tcol(&v.valid, 0, 3)->buffers[2] == names);
  CHECK_INT(json_array_size(json_object_get(v.report, "casts")), 0);
  CHECK_INT(json_array_size(json_object_get(v.report, "rules")), 12);
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(embarked_required_fails_on_its_two_nulls) {
  wr_arrow_table t;
  if (read_titanic(&t)) return;
  weir_contract *c = titanic("", "false");
  wr_validate_options o = {.is_output = true, .subject = "import of titanic.csv into default.titanic (contract titanic)",
                             .engine = eng};
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_CONTAINS(err.message, "contract violation in import of titanic.csv into default.titanic (contract titanic):\n");
  CHECK_CONTAINS(err.message, "column \"Embarked\" has 2 null values but is required");
  CHECK_STR(vmsg(&v, 0), "column \"Embarked\" has 2 null values but is required (rows 61, 829)");
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(passenger_id_int32_is_narrowing) {
  wr_arrow_table t;
  if (read_titanic(&t)) return;
  char yaml[4096];
  snprintf(yaml, sizeof yaml, TITANIC, "", "true");
  char *p = strstr(yaml, "PassengerId, type: Int64");
  memcpy(p + strlen("PassengerId, type: Int"), "32", 2);
  weir_contract *c = yaml_contract(yaml);
  wr_validate_options o = {.is_output = true, .engine = eng};
  wr_validation v;
  weir_error err = {0};
  CHECK_INT(wr_contract_validate(c, &t, &o, &v, &err), WEIR_ECONTRACT);
  CHECK_STR(vmsg(&v, 0), "column \"PassengerId\" has type int64, expected int32" NARROWING_HINT);
  CHECK_INT(vcount(&v), 1);
  wr_validation_clear(&v);
  weir_error_clear(&err);
  wr_contract_free(c);
}

TEST(int32_data_casts_to_int64) {
  wr_arrow_table t, q;
  if (read_titanic(&t)) return;
  weir_error err = {0};
  CHECK_OK(wr_engine_register_arrow(eng, "titanic_raw", &t, &err), &err);
  wr_arrow_table_init(&q);
  CHECK_OK(wr_engine_query_table(eng,
                                   "SELECT CAST(PassengerId AS INTEGER) AS PassengerId, Age FROM titanic_raw "
                                   "ORDER BY PassengerId",
                                   &q, &err),
           &err);
  wr_engine_unregister(eng, "titanic_raw", &err);
  wr_arrow_table_release(&t);
  CHECK_STR(q.schema.children[0]->format, "i");
  weir_contract *c = yaml_contract(
      "contract:\n  name: ids\n  columns:\n    - {name: PassengerId, type: Int64, unique: true}\n"
      "    - {name: Age, type: Float64, nullable: true}\n");
  wr_validation v;
  CHECK_OK(wr_contract_validate(c, &q, NULL, &v, &err), &err);
  CHECK_STR(v.valid.schema.children[0]->format, "l");
  CHECK_INT(v.valid.n_rows, 891);
  const struct ArrowArray *ids = tcol(&v.valid, 0, 0);
  CHECK_INT(((const int64_t *)ids->buffers[1])[ids->offset + 0], 1);
  json_t *cast = json_array_get(json_object_get(v.report, "casts"), 0);
  CHECK_STR(json_string_value(json_object_get(cast, "from")), "int32");
  CHECK_STR(json_string_value(json_object_get(cast, "to")), "int64");
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(age_range_drop_mode) {
  wr_arrow_table t;
  if (read_titanic(&t)) return;
  weir_contract *c = titanic(", min: 0, max: 60, mode: drop", "true");
  wr_validate_options o = {.is_output = true, .engine = eng};
  wr_validation v;
  weir_error err = {0};
  CHECK_OK(wr_contract_validate(c, &t, &o, &v, &err), &err);
  CHECK_INT(v.valid.n_rows, 869);
  CHECK_INT(v.quarantine.n_rows, 22);
  CHECK_STR(vmsg(&v, 0), "column \"Age\" has 22 values outside the range [0, 60] (e.g. 66, 65, 71)");
  /* The 177 passengers of unknown age pass: nulls pass value rules. */
  int64_t nulls = 0;
  for (size_t b = 0; b < v.valid.n_batches; b++) nulls += wr_arrow_null_count(tcol(&v.valid, b, 5));
  CHECK_INT(nulls, 177);
  /* Every quarantined row names the rule and has an age over 60. */
  for (size_t b = 0; b < v.quarantine.n_batches; b++) {
    const struct ArrowArray *age = tcol(&v.quarantine, b, 5), *rule = tcol(&v.quarantine, b, 12);
    const int64_t *ro = rule->buffers[1];
    for (int64_t i = 0; i < age->length; i++) {
      CHECK(((const double *)age->buffers[1])[age->offset + i] > 60);
      char buf[32];
      snprintf(buf, sizeof buf, "%.*s", (int)(ro[i + 1] - ro[i]), (const char *)rule->buffers[2] + ro[i]);
      CHECK_STR(buf, "Age.range");
    }
  }
  CHECK_STR(v.quarantine.schema.children[12]->name, "_weir_rule");
  wr_validation_clear(&v);
  wr_contract_free(c);
}

TEST(zz_close_engine) {
  wr_engine_close(eng);
  eng = NULL;
}

TEST_MAIN()
