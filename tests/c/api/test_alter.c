/* weir_table_alter through the public API: the versioned options, a rename that keeps the
 * field id (the old name at the older commit, the new one at head, the same rows), an added
 * column with a new id, and bad changes refused before anything is written. Run under
 * ASan/UBSan too (build-asan): every path frees what it allocates. */
#include "harness.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static char *head_of(weir_lake *lake) {
  char *out = NULL;
  weir_error err = {0};
  CHECK_OK(weir_commit_show(lake, "main", &out, &err), &err);
  json_t *doc = json_loads(out, 0, NULL);
  weir_free(out);
  char *h = strdup(json_string_value(json_object_get(doc, "hash")));
  json_decref(doc);
  return h;
}

/* The field id of column `name` in `table`'s schema at `ref`, or -1 when it has none. */
static long field_id(weir_lake *lake, const char *table, const char *ref, const char *name) {
  char *out = NULL;
  weir_error err = {0};
  CHECK_OK(weir_table_describe(lake, table, ref, &out, &err), &err);
  json_t *doc = json_loads(out, 0, NULL);
  weir_free(out);
  long id = -1;
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(doc, "columns"), i, c) if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
      id = (long)json_integer_value(json_object_get(c, "field_id"));
  json_decref(doc);
  return id;
}

TEST(alter_renames_by_field_id_and_refuses_bad_changes) {
  char *dir = test_tmpdir();
  char path[2048], csv[2048];
  snprintf(path, sizeof path, "%s/lake", dir);
  snprintf(csv, sizeof csv, "%s/t.csv", dir);
  write_file(csv, "id,col\n1,2.0\n2,3.0\n");
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  weir_import_options io = WEIR_IMPORT_OPTIONS_INIT;
  io.table = "t";
  char *out = NULL;
  CHECK_OK(weir_table_import(lake, csv, &io, &out, &err), &err);
  weir_free(out);
  char *first = head_of(lake);
  long col_id = field_id(lake, "t", "main", "col");
  CHECK(col_id > 0);

  /* Versions: a zeroed struct is refused; the macro and the init function agree. */
  weir_alter_options bad = {0};
  CHECK_INT(weir_table_alter(lake, "t", &bad, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_alter_options has version 0");
  weir_error_clear(&err);
  weir_alter_options o;
  CHECK_OK(weir_alter_options_init(&o, WEIR_ALTER_OPTIONS_VERSION), &err);
  weir_alter_options by_macro = WEIR_ALTER_OPTIONS_INIT;
  CHECK(memcmp(&o, &by_macro, sizeof o) == 0);
  CHECK_INT(weir_table_alter(lake, "t", &o, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "no change given");
  weir_error_clear(&err);

  /* Bad changes: each names the column, and nothing is committed. */
  weir_alter_change onto = {WEIR_ALTER_RENAME, "col", "ID", 0};
  o.changes = &onto;
  o.n_changes = 1;
  CHECK_INT(weir_table_alter(lake, "t", &o, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "already has a column \"id\"");
  weir_error_clear(&err);
  weir_alter_change missing = {WEIR_ALTER_DROP, "nosuch", NULL, 0};
  o.changes = &missing;
  CHECK_INT(weir_table_alter(lake, "t", &o, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "no column \"nosuch\"");
  weir_error_clear(&err);
  weir_alter_change narrow = {WEIR_ALTER_WIDEN, "col", "Float32", 0};
  o.changes = &narrow;
  CHECK_INT(weir_table_alter(lake, "t", &o, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "Float64 to Float32 is a narrowing");
  weir_error_clear(&err);
  char *still = head_of(lake);
  CHECK_STR(still, first);
  free(still);

  /* A rename and an add, one commit. */
  weir_alter_change two[2] = {{WEIR_ALTER_RENAME, "col", "value", 0}, {WEIR_ALTER_ADD, "note", "String", 0}};
  o.changes = two;
  o.n_changes = 2;
  CHECK_OK(weir_table_alter(lake, "t", &o, &out, &err), &err);
  json_t *doc = json_loads(out, 0, NULL);
  weir_free(out);
  CHECK_STR(json_object_iter_key(json_object_iter(doc)), "schema_version");
  CHECK_INT(json_integer_value(json_object_get(doc, "schema_id")), 1);
  CHECK_INT(json_integer_value(json_object_get(doc, "previous_schema_id")), 0);
  CHECK_INT(json_array_size(json_object_get(doc, "changes")), 2);
  json_decref(doc);
  CHECK_INT(field_id(lake, "t", "main", "value"), col_id);
  CHECK_INT(field_id(lake, "t", "main", "col"), -1);
  CHECK_INT(field_id(lake, "t", first, "col"), col_id);
  CHECK(field_id(lake, "t", "main", "note") > col_id);

  /* The rows at head under the new name are those the old commit has under the old one. */
  struct ArrowArrayStream s;
  CHECK_OK(weir_query_run(lake, "SELECT id FROM t WHERE value = 2.0 AND note IS NULL", "main", &s, &err), &err);
  struct ArrowArray a;
  int64_t rows = 0;
  while (s.get_next(&s, &a) == 0 && a.release) {
    rows += a.length;
    a.release(&a);
  }
  s.release(&s);
  CHECK_INT(rows, 1);
  CHECK_INT(weir_query_run(lake, "SELECT value FROM t", first, &s, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "value");
  weir_error_clear(&err);

  free(first);
  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

static int64_t count_rows(weir_lake *lake, const char *sql, const char *ref) {
  struct ArrowArrayStream s;
  weir_error err = {0};
  CHECK_OK(weir_query_run(lake, sql, ref, &s, &err), &err);
  struct ArrowArray a;
  int64_t rows = 0;
  while (s.get_next(&s, &a) == 0 && a.release) {
    rows += a.length;
    a.release(&a);
  }
  s.release(&s);
  return rows;
}

/* A rename on one branch and an append on the other merge into one version (the append's
 * files read under the new name by field id); then an import with `evolve` adds a column
 * through a contract in the same commit as its rows. */
TEST(alter_merges_with_appends_and_evolve_adds_through_a_contract) {
  char *dir = test_tmpdir();
  char path[2048], csv[2048], more[2048], evolved[2048], yml[2048];
  snprintf(path, sizeof path, "%s/lake", dir);
  snprintf(csv, sizeof csv, "%s/t.csv", dir);
  snprintf(more, sizeof more, "%s/more.csv", dir);
  snprintf(evolved, sizeof evolved, "%s/evolved.csv", dir);
  snprintf(yml, sizeof yml, "%s/c.yml", dir);
  write_file(csv, "id,col\n1,2.0\n2,3.0\n");
  write_file(more, "id,col\n3,4.0\n");
  write_file(evolved, "id,value,note\n4,5.0,hi\n");
  write_file(yml, "contract:\n  name: t\n  columns:\n    - {name: id, type: Int64, nullable: true}\n"
                  "    - {name: value, type: Float64, nullable: true}\n"
                  "    - {name: note, type: String, nullable: true}\n");
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  weir_import_options io = WEIR_IMPORT_OPTIONS_INIT;
  io.table = "t";
  char *out = NULL;
  CHECK_OK(weir_table_import(lake, csv, &io, &out, &err), &err);
  weir_free(out);
  CHECK_OK(weir_branch_create(lake, "dev", NULL, NULL, &err), &err);
  weir_alter_options o = WEIR_ALTER_OPTIONS_INIT;
  weir_alter_change rename = {WEIR_ALTER_RENAME, "col", "value", 0};
  o.changes = &rename;
  o.n_changes = 1;
  o.branch = "dev";
  CHECK_OK(weir_table_alter(lake, "t", &o, &out, &err), &err);
  weir_free(out);
  io.mode = WEIR_MODE_APPEND;
  CHECK_OK(weir_table_import(lake, more, &io, &out, &err), &err);
  weir_free(out);
  weir_merge_options mo = WEIR_MERGE_OPTIONS_INIT;
  CHECK_OK(weir_branch_merge(lake, "dev", "main", &mo, &out, &err), &err);
  CHECK_CONTAINS(out, "merged: appends");
  weir_free(out);
  CHECK_INT(count_rows(lake, "SELECT value FROM t WHERE value IS NOT NULL", "main"), 3);

  /* Without evolve the contract's new column is refused; with it, the schema evolves. */
  io.contract_path = yml;
  CHECK_INT(weir_table_import(lake, evolved, &io, &out, &err), WEIR_ECONTRACT);
  weir_error_clear(&err);
  io.evolve = 1;
  CHECK_OK(weir_table_import(lake, evolved, &io, &out, &err), &err);
  weir_free(out);
  CHECK_INT(count_rows(lake, "SELECT id FROM t WHERE note IS NULL", "main"), 3);
  CHECK_INT(count_rows(lake, "SELECT id FROM t WHERE note = 'hi'", "main"), 1);
  /* An optional column (inferred from the CSV) made required by a contract is no evolution. */
  write_file(yml, "contract:\n  name: t\n  columns:\n    - {name: id, type: Int64}\n"
                  "    - {name: value, type: Float64, nullable: true}\n"
                  "    - {name: note, type: String, nullable: true}\n");
  CHECK_INT(weir_table_import(lake, evolved, &io, &out, &err), WEIR_ECONTRACT);
  CHECK_CONTAINS(err.message, "column \"id\"");
  weir_error_clear(&err);

  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
