/*
 * fuzz_metadata_json.c -- Iceberg table metadata files (iceberg_table_parse,
 * src/iceberg/metadata.c, with the schema JSON of src/iceberg/schema_json.c), as weir
 * reads every table version, including ones written by pyiceberg, Spark or DuckDB.
 *
 * Promises checked: an error names the file and is valid UTF-8; a table that loads has a
 * location, a uuid, field ids and names for every column, and can be extended the way a
 * write extends it (field ids assigned to its own schema keep every id; the schema JSON
 * of the next version builds).
 */
#include "fuzz.h"

#include "iceberg/iceberg_internal.h"

#define LOCATION "/fuzz/t/metadata/00001-fuzz.metadata.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  iceberg_table *t = NULL;
  weir_error err = {0};
  int rc = iceberg_table_parse((const char *)data, size, LOCATION, &t, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, NULL);
    if (!strstr(err.message, LOCATION) && !strstr(err.message, "manifest"))
      fuzz_fail("error does not name the file: %s", err.message);
    if (t) fuzz_fail("an error left a table");
    weir_error_clear(&err);
    return 0;
  }
  if (!t->location || !t->table_uuid || !t->metadata_location) fuzz_fail("a table without location or uuid");
  if (!json_is_object(t->properties)) fuzz_fail("properties are not an object");
  for (size_t i = 0; i < t->schema.n_fields; i++)
    if (!t->schema.fields[i].name) fuzz_fail("column %zu has no name", i);
  /* What a write does with the previous version: ids for the same schema, then its JSON. */
  wr_schema next;
  wr_schema_copy(&next, &t->schema);
  for (size_t i = 0; i < next.n_fields; i++) next.fields[i].field_id = 0;
  int32_t last = 0;
  iceberg_assign_field_ids(t, &next, &last);
  for (size_t i = 0; i < next.n_fields; i++) {
    if (next.fields[i].field_id <= 0 && last < INT32_MAX) fuzz_fail("column %zu got no field id", i);
    for (size_t k = 0; k < i; k++)
      if (next.fields[k].field_id == next.fields[i].field_id && next.fields[i].field_id > 0)
        fuzz_fail("columns %zu and %zu got id %d", k, i, (int)next.fields[i].field_id);
  }
  json_t *sj = NULL;
  const json_t *prev = iceberg_metadata_schema(t->json, t->current_schema_id);
  if (iceberg_schema_json_build(&next, t->current_schema_id + 1, prev, &sj, &err) == WEIR_OK) {
    wr_schema back = {0};
    if (iceberg_schema_from_json(sj, &back, &err) != WEIR_OK)
      fuzz_fail("the next version's schema JSON does not load: %s", err.message);
    if (back.n_fields != next.n_fields) fuzz_fail("the next version's schema lost columns");
    wr_schema_clear(&back);
    json_decref(sj);
  } else {
    fuzz_check_error(err.code, &err, NULL);
    weir_error_clear(&err);
  }
  wr_schema_clear(&next);
  int64_t x;
  (void)iceberg_summary_int(t->summary, "total-records", &x);
  iceberg_table *r = iceberg_table_ref(t);
  iceberg_table_free(r);
  iceberg_table_free(t);
  return 0;
}
