/*
 * test_schema.c -- Iceberg schema JSON <-> wr_schema, and field id assignment across
 * table versions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iceberg/iceberg_internal.h"
#include "util/json.h"

static void add(wr_schema *s, const char *name, wr_type_id id, bool required, const char *doc,
                int32_t field_id) {
  wr_field f = {0};
  f.name = (char *)name;
  f.type = (weir_type){id, 0, 0};
  f.required = required;
  f.doc = (char *)doc;
  f.field_id = field_id;
  wr_schema_add(s, &f);
}

static void add_decimal(wr_schema *s, const char *name, int p, int sc, int32_t field_id) {
  wr_field f = {0};
  f.name = (char *)name;
  f.type = (weir_type){WEIR_TYPE_DECIMAL, p, sc};
  f.field_id = field_id;
  wr_schema_add(s, &f);
}

TEST(to_json_has_ids_required_docs_types) {
  wr_schema s = {0};
  add(&s, "id", WEIR_TYPE_INT64, true, "Row id.", 1);
  add(&s, "name", WEIR_TYPE_STRING, false, NULL, 2);
  add_decimal(&s, "amount", 18, 2, 3);
  add(&s, "at", WEIR_TYPE_TS_US_UTC, true, "When.", 4);
  json_t *j = iceberg_schema_to_json(&s, 7);
  char *text = wr_json_compact(j);
  CHECK_STR(text,
            "{\"type\":\"struct\",\"schema-id\":7,\"fields\":["
            "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\",\"doc\":\"Row id.\"},"
            "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
            "{\"id\":3,\"name\":\"amount\",\"required\":false,\"type\":\"decimal(18, 2)\"},"
            "{\"id\":4,\"name\":\"at\",\"required\":true,\"type\":\"timestamptz\",\"doc\":\"When.\"}]}");
  free(text);
  json_decref(j);
  wr_schema_clear(&s);
}

TEST(round_trip_every_type) {
  wr_schema s = {0};
  static const wr_type_id ids[] = {WEIR_TYPE_BOOL,   WEIR_TYPE_INT32,    WEIR_TYPE_INT64,
                                     WEIR_TYPE_FLOAT32, WEIR_TYPE_FLOAT64, WEIR_TYPE_STRING,
                                     WEIR_TYPE_BINARY, WEIR_TYPE_DATE32,   WEIR_TYPE_TS_US,
                                     WEIR_TYPE_TS_NS,  WEIR_TYPE_TS_US_UTC, WEIR_TYPE_TS_NS_UTC};
  char name[32];
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    snprintf(name, sizeof name, "c%zu", i);
    add(&s, name, ids[i], i % 2 == 0, i % 3 == 0 ? "a doc with \"quotes\" and é" : NULL,
        (int32_t)(10 + i));
  }
  add_decimal(&s, "d", 38, 10, 99);
  json_t *j = iceberg_schema_to_json(&s, 0);
  wr_schema back;
  weir_error err = {0};
  CHECK_OK(iceberg_schema_from_json(j, &back, &err), &err);
  CHECK_INT(back.n_fields, s.n_fields);
  for (size_t i = 0; i < s.n_fields && i < back.n_fields; i++) {
    CHECK_STR(back.fields[i].name, s.fields[i].name);
    CHECK(wr_type_equal(back.fields[i].type, s.fields[i].type));
    CHECK_INT(back.fields[i].required, s.fields[i].required);
    CHECK_INT(back.fields[i].field_id, s.fields[i].field_id);
    if (s.fields[i].doc) CHECK_STR(back.fields[i].doc, s.fields[i].doc);
    else CHECK(back.fields[i].doc == NULL);
  }
  json_decref(j);
  wr_schema_clear(&back);
  wr_schema_clear(&s);
  weir_error_clear(&err);
}

TEST(from_json_other_types_load_as_any) {
  const char *text =
      "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
      "{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"uuid\"},"
      "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":3,"
      "\"element\":\"int\",\"element-required\":true}},"
      "{\"id\":4,\"name\":\"c\",\"required\":false,\"type\":\"decimal(9,3)\"}]}";
  json_t *j = json_loads(text, 0, NULL);
  wr_schema s;
  weir_error err = {0};
  CHECK_OK(iceberg_schema_from_json(j, &s, &err), &err);
  CHECK_INT(s.n_fields, 3);
  CHECK_INT(s.fields[0].type.id, WEIR_TYPE_ANY);
  CHECK_INT(s.fields[1].type.id, WEIR_TYPE_ANY);
  CHECK_INT(s.fields[2].type.id, WEIR_TYPE_DECIMAL);
  CHECK_INT(s.fields[2].type.precision, 9);
  CHECK_INT(s.fields[2].type.scale, 3);

  /* Written again, an Any column keeps the type of the same field id in the previous
   * schema; without one it cannot be stored. */
  json_t *built;
  CHECK_OK(iceberg_schema_json_build(&s, 1, j, &built, &err), &err);
  json_t *bf = json_object_get(built, "fields");
  CHECK(json_equal(json_object_get(json_array_get(bf, 1), "type"),
                   json_object_get(json_array_get(json_object_get(j, "fields"), 1), "type")));
  CHECK_STR(json_string_value(json_object_get(json_array_get(bf, 0), "type")), "uuid");
  json_decref(built);
  CHECK_INT(iceberg_schema_json_build(&s, 1, NULL, &built, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "column \"a\" has type Any");
  CHECK(built == NULL);
  /* The public rendering names it "unknown". */
  json_t *shown = iceberg_schema_to_json(&s, 0);
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(shown, "fields"), 0), "type")),
            "unknown");
  json_decref(shown);
  json_decref(j);
  wr_schema_clear(&s);
  weir_error_clear(&err);
}

TEST(date64_is_refused) {
  wr_schema s = {0};
  add(&s, "d", WEIR_TYPE_DATE64, true, NULL, 1);
  json_t *built;
  weir_error err = {0};
  CHECK_INT(iceberg_schema_json_build(&s, 0, NULL, &built, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "Date64");
  CHECK_CONTAINS(err.message, "use Date32");
  wr_schema_clear(&s);
  weir_error_clear(&err);
}

TEST(from_json_errors) {
  static const char *bad[] = {
      "[]",
      "{\"fields\": 3}",
      "{\"fields\": [{\"id\": 1, \"name\": \"a\", \"type\": \"int\"}]}", /* no required */
      "{\"fields\": [{\"id\": 0, \"name\": \"a\", \"type\": \"int\", \"required\": true}]}",
      "{\"fields\": [{\"id\": 1, \"name\": \"a\", \"type\": \"int\", \"required\": true},"
      " {\"id\": 2, \"name\": \"a\", \"type\": \"int\", \"required\": true}]}",
      /* two columns with one id (fuzz_metadata_json) */
      "{\"fields\": [{\"id\": 1, \"name\": \"a\", \"type\": \"int\", \"required\": true},"
      " {\"id\": 1, \"name\": \"b\", \"type\": \"int\", \"required\": true}]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *j = json_loads(bad[i], 0, NULL);
    wr_schema s;
    weir_error err = {0};
    CHECK_INT(iceberg_schema_from_json(j, &s, &err), WEIR_EINPUT);
    CHECK_CONTAINS(err.message, "Iceberg schema");
    CHECK_INT(s.n_fields, 0);
    json_decref(j);
    weir_error_clear(&err);
  }
}

/* A previous version with columns a(1) b(2) c(3), last-column-id 5 (4 and 5 were dropped
 * earlier). */
static iceberg_table *prev_table(void) {
  iceberg_table *t = calloc(1, sizeof *t);
  add(&t->schema, "a", WEIR_TYPE_INT64, true, NULL, 1);
  add(&t->schema, "b", WEIR_TYPE_INT32, false, NULL, 2);
  add(&t->schema, "c", WEIR_TYPE_STRING, false, NULL, 3);
  t->last_column_id = 5;
  return t;
}

TEST(assign_ids_new_table) {
  wr_schema s = {0};
  add(&s, "x", WEIR_TYPE_INT64, true, NULL, 0);
  add(&s, "y", WEIR_TYPE_STRING, true, NULL, 0);
  int32_t last = -1;
  iceberg_assign_field_ids(NULL, &s, &last);
  CHECK_INT(s.fields[0].field_id, 1);
  CHECK_INT(s.fields[1].field_id, 2);
  CHECK_INT(last, 2);
  wr_schema_clear(&s);
}

TEST(assign_ids_stop_at_int32_max) {
  /* A last-column-id of INT32_MAX leaves a new column without an id (which the writer
   * refuses) instead of overflowing int32 (fuzz_metadata_json, under UBSan). */
  iceberg_table *prev = prev_table();
  prev->last_column_id = INT32_MAX;
  wr_schema s = {0};
  add(&s, "a", WEIR_TYPE_INT64, true, NULL, 0);
  add(&s, "new", WEIR_TYPE_STRING, true, NULL, 0);
  int32_t last = 0;
  iceberg_assign_field_ids(prev, &s, &last);
  CHECK_INT(s.fields[0].field_id, 1);
  CHECK_INT(s.fields[1].field_id, 0);
  CHECK_INT(last, INT32_MAX);
  wr_schema_clear(&s);
  wr_schema_clear(&prev->schema);
  free(prev);
}

TEST(assign_ids_reuse_by_name_and_new_after_last_column_id) {
  iceberg_table *prev = prev_table();
  wr_schema s = {0};
  add(&s, "new1", WEIR_TYPE_STRING, true, NULL, 0);
  add(&s, "c", WEIR_TYPE_STRING, false, NULL, 0); /* reordered: keeps 3 */
  add(&s, "a", WEIR_TYPE_INT64, true, NULL, 0);   /* keeps 1 */
  add(&s, "new2", WEIR_TYPE_BOOL, true, NULL, 0);
  int32_t last = 0;
  iceberg_assign_field_ids(prev, &s, &last);
  CHECK_INT(s.fields[0].field_id, 6); /* after last-column-id 5, not after max id 3 */
  CHECK_INT(s.fields[1].field_id, 3);
  CHECK_INT(s.fields[2].field_id, 1);
  CHECK_INT(s.fields[3].field_id, 7);
  CHECK_INT(last, 7);
  wr_schema_clear(&s);
  wr_schema_clear(&prev->schema);
  free(prev);
}

TEST(assign_ids_promotions_keep_ids_incompatible_types_do_not) {
  iceberg_table *prev = prev_table();
  wr_schema s = {0};
  add(&s, "a", WEIR_TYPE_STRING, true, NULL, 0);  /* long -> string: a new column */
  add(&s, "b", WEIR_TYPE_INT64, false, NULL, 0);  /* int -> long: promotion, keeps 2 */
  add(&s, "c", WEIR_TYPE_STRING, true, NULL, 0);  /* required now: same column, keeps 3 */
  int32_t last = 0;
  iceberg_assign_field_ids(prev, &s, &last);
  CHECK_INT(s.fields[0].field_id, 6);
  CHECK_INT(s.fields[1].field_id, 2);
  CHECK_INT(s.fields[2].field_id, 3);
  CHECK_INT(last, 6);
  wr_schema_clear(&s);
  wr_schema_clear(&prev->schema);
  free(prev);
}

TEST(assign_ids_explicit_ids_are_kept) {
  iceberg_table *prev = prev_table();
  wr_schema s = {0};
  add(&s, "z", WEIR_TYPE_INT64, true, NULL, 42); /* given: kept, and raises the next id */
  add(&s, "a", WEIR_TYPE_INT64, true, NULL, 0);
  add(&s, "q", WEIR_TYPE_INT64, true, NULL, 0);
  add(&s, "b", WEIR_TYPE_INT32, true, NULL, 1); /* given 1 explicitly */
  int32_t last = 0;
  iceberg_assign_field_ids(prev, &s, &last);
  CHECK_INT(s.fields[0].field_id, 42);
  /* "a" would take 1, but 1 is already used by "b" in this schema: a fresh id. */
  CHECK_INT(s.fields[1].field_id, 43);
  CHECK_INT(s.fields[2].field_id, 44);
  CHECK_INT(s.fields[3].field_id, 1);
  CHECK_INT(last, 44);
  wr_schema_clear(&s);
  wr_schema_clear(&prev->schema);
  free(prev);
}

TEST_MAIN()
