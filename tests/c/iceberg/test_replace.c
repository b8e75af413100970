/*
 * test_replace.c -- the Iceberg "replace" snapshot of a compaction (ICEBERG_OP_REPLACE,
 * manifest_remove.c): the rewritten files DELETED, the others kept, the new ones added,
 * the summary counts, and the refusals (a file no longer live, a row count that differs,
 * a file removed twice) that write nothing; the row delete's snapshot (ICEBERG_OP_DELETE:
 * fewer rows, "overwrite" or "delete"), and format version 3 with its row lineage for a
 * table with a nanosecond timestamp.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iceberg/iceberg_internal.h"
#include "util/fs.h"
#include "util/json.h"

static const weir_type LONG = {WEIR_TYPE_INT64, 0, 0};

static void fake_file(iceberg_data_file *f, const char *dir, int n, int64_t records, const wr_schema *s) {
  memset(f, 0, sizeof *f);
  f->path = wr_asprintf("%s/data/f%d.parquet", dir, n);
  f->record_count = records;
  f->file_size = records * 100;
  f->stats = calloc(s->n_fields, sizeof *f->stats);
  f->n_stats = s->n_fields;
  for (size_t i = 0; i < s->n_fields; i++) {
    f->stats[i].field_id = s->fields[i].field_id;
    f->stats[i].value_count = records;
    f->stats[i].null_count = 0;
    f->stats[i].nan_count = -1;
    f->stats[i].column_size = records * 8;
  }
}

/* Writes a version; *rc gets the result. The loaded version, or NULL on an error. */
static iceberg_table *version(const char *loc, const iceberg_table *prev, iceberg_op op, const wr_schema *s,
                              iceberg_data_file *files, size_t n, const char *const *removed, size_t n_removed,
                              int *rc, weir_error *err) {
  iceberg_write_request req = {0};
  req.table_location = loc;
  req.prev = prev;
  req.op = op;
  req.schema = s;
  req.files = files;
  req.n_files = n;
  req.removed = removed;
  req.n_removed = n_removed;
  iceberg_write_result res;
  *rc = iceberg_write_version(&req, &res, err);
  iceberg_table *t = NULL;
  if (*rc == WEIR_OK) {
    weir_error e2 = {0};
    CHECK_OK(iceberg_table_load(res.metadata_location, &t, &e2), &e2);
    weir_error_clear(&e2);
  }
  free(res.metadata_location);
  return t;
}

static const char *sum(const iceberg_table *t, const char *k) { return json_string_value(json_object_get(t->summary, k)); }

static size_t count_metadata_files(const char *loc) {
  char *dir = wr_path_join(loc, "metadata");
  char **names = NULL;
  size_t n = 0, k = 0;
  weir_error err = {0};
  if (wr_storage_list(dir, &names, &n, &err) == WEIR_OK)
    for (size_t i = 0; i < n; i++) k += strstr(names[i], ".metadata.json") != NULL;
  wr_storage_list_free(names, n);
  weir_error_clear(&err);
  free(dir);
  return k;
}

TEST(replace_deletes_the_rewritten_files_and_keeps_the_others) {
  char *dir = test_tmpdir();
  char *loc = wr_path_join(dir, "t");
  wr_schema s = {0};
  wr_field f = {0};
  f.name = "id";
  f.type = LONG;
  wr_schema_add(&s, &f);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  weir_error err = {0};
  int rc;
  iceberg_data_file a[3], b[1], c[1], d[1];
  fake_file(&a[0], loc, 1, 10, &s);
  fake_file(&a[1], loc, 2, 20, &s);
  fake_file(&a[2], loc, 3, 30, &s);
  fake_file(&b[0], loc, 4, 40, &s);
  fake_file(&c[0], loc, 5, 60, &s);
  fake_file(&d[0], loc, 6, 59, &s);
  iceberg_table *t1 = version(loc, NULL, ICEBERG_OP_APPEND, &s, a, 3, NULL, 0, &rc, &err);
  iceberg_table *t2 = t1 ? version(loc, t1, ICEBERG_OP_APPEND, &s, b, 1, NULL, 0, &rc, &err) : NULL;
  CHECK(t2 != NULL);
  if (!t2) goto out;
  const char *removed[] = {a[2].path, a[0].path, a[1].path};
  iceberg_table *t3 = version(loc, t2, ICEBERG_OP_REPLACE, &s, c, 1, removed, 3, &rc, &err);
  CHECK_OK(rc, &err);
  if (!t3) goto out2;
  CHECK_STR(sum(t3, "operation"), "replace");
  CHECK_STR(sum(t3, "added-data-files"), "1");
  CHECK_STR(sum(t3, "deleted-data-files"), "3");
  CHECK_STR(sum(t3, "added-records"), "60");
  CHECK_STR(sum(t3, "deleted-records"), "60");
  CHECK_STR(sum(t3, "total-records"), "100");
  CHECK_STR(sum(t3, "total-data-files"), "2");
  CHECK_STR(sum(t3, "removed-files-size"), "6000");
  CHECK_STR(sum(t3, "total-files-size"), "10000");
  CHECK_INT(t3->record_count, 100);
  /* Live: the appended file and the new one; the rewritten ones are DELETED entries. */
  iceberg_data_file *live = NULL;
  size_t n_live = 0;
  CHECK_OK(iceberg_table_data_files(t3, &live, &n_live, &err), &err);
  CHECK_INT(n_live, 2);
  bool has_b = false, has_c = false;
  for (size_t i = 0; i < n_live; i++) {
    has_b |= strcmp(live[i].path, b[0].path) == 0;
    has_c |= strcmp(live[i].path, c[0].path) == 0;
  }
  CHECK(has_b && has_c);
  iceberg_data_files_free(live, n_live);
  iceberg_manifest_file *list = NULL;
  size_t nl = 0;
  CHECK_OK(iceberg_manifest_list_read(t3->manifest_list, &list, &nl, &err), &err);
  int deleted = 0, existing = 0, added = 0;
  for (size_t i = 0; i < nl; i++) deleted += list[i].deleted_files, existing += list[i].existing_files,
                                  added += list[i].added_files;
  CHECK_INT(deleted, 3);
  CHECK_INT(added, 2); /* the new file, and b's manifest carried as it was (ADDED by t2) */
  CHECK_INT(existing, 0);
  iceberg_manifest_files_free(list, nl);
  /* The older version still lists every file it had. */
  CHECK_OK(iceberg_table_data_files(t2, &live, &n_live, &err), &err);
  CHECK_INT(n_live, 4);
  iceberg_data_files_free(live, n_live);

  /* Refusals write no metadata file. */
  size_t before = count_metadata_files(loc);
  const char *gone[] = {a[0].path};
  CHECK(version(loc, t3, ICEBERG_OP_REPLACE, &s, d, 1, gone, 1, &rc, &err) == NULL);
  CHECK_INT(rc, WEIR_ECONCURRENT);
  CHECK(strstr(err.message, "no longer in the table") != NULL);
  weir_error_clear(&err);
  const char *wrong_rows[] = {b[0].path};
  CHECK(version(loc, t3, ICEBERG_OP_REPLACE, &s, d, 1, wrong_rows, 1, &rc, &err) == NULL);
  CHECK_INT(rc, WEIR_EINVALIDARG);
  CHECK(strstr(err.message, "changes no row") != NULL);
  weir_error_clear(&err);
  const char *twice[] = {b[0].path, b[0].path};
  CHECK(version(loc, t3, ICEBERG_OP_REPLACE, &s, d, 1, twice, 2, &rc, &err) == NULL);
  CHECK_INT(rc, WEIR_EINVALIDARG);
  weir_error_clear(&err);
  CHECK(version(loc, t3, ICEBERG_OP_REPLACE, &s, d, 1, NULL, 0, &rc, &err) == NULL);
  CHECK_INT(rc, WEIR_EINVALIDARG);
  weir_error_clear(&err);
  CHECK_INT(count_metadata_files(loc), before);
  iceberg_table_free(t3);
out2:
  iceberg_table_free(t2);
out:
  iceberg_table_free(t1);
  for (int i = 0; i < 3; i++) iceberg_data_file_clear(&a[i]);
  iceberg_data_file_clear(&b[0]);
  iceberg_data_file_clear(&c[0]);
  iceberg_data_file_clear(&d[0]);
  wr_schema_clear(&s);
  weir_error_clear(&err);
  test_rmtree(dir);
  free(loc);
  free(dir);
}

TEST(row_delete_is_an_overwrite_with_fewer_rows_and_v3_keeps_lineage) {
  char *dir = test_tmpdir();
  char *loc = wr_path_join(dir, "t");
  wr_schema s = {0};
  wr_field f = {0};
  f.name = "id";
  f.type = LONG;
  wr_schema_add(&s, &f);
  wr_field g = {0};
  g.name = "ts";
  g.type = (weir_type){WEIR_TYPE_TS_NS, 0, 0};
  wr_schema_add(&s, &g);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  weir_error err = {0};
  int rc;
  iceberg_data_file a[2], b[1], same[1];
  fake_file(&a[0], loc, 1, 10, &s);
  fake_file(&a[1], loc, 2, 20, &s);
  fake_file(&b[0], loc, 3, 15, &s);
  fake_file(&same[0], loc, 4, 20, &s);
  iceberg_table *t1 = version(loc, NULL, ICEBERG_OP_APPEND, &s, a, 2, NULL, 0, &rc, &err);
  CHECK_OK(rc, &err);
  if (!t1) goto out;
  /* timestamp_ns exists only in v3: the table is written as v3, with row lineage. */
  CHECK_INT(wr_json_int(t1->json, "format-version", 0), 3);
  CHECK_INT(wr_json_int(t1->json, "next-row-id", -1), 30);
  const char *rm[] = {a[1].path};
  iceberg_table *t2 = version(loc, t1, ICEBERG_OP_DELETE, &s, b, 1, rm, 1, &rc, &err);
  CHECK_OK(rc, &err);
  if (!t2) goto out1;
  CHECK_STR(sum(t2, "operation"), "overwrite");
  CHECK_STR(sum(t2, "deleted-data-files"), "1");
  CHECK_STR(sum(t2, "deleted-records"), "20");
  CHECK_STR(sum(t2, "added-records"), "15");
  CHECK_STR(sum(t2, "total-records"), "25");
  CHECK_INT(wr_json_int(t2->json, "format-version", 0), 3);
  {
    const json_t *snaps = json_object_get(t2->json, "snapshots");
    const json_t *cur = json_array_get(snaps, json_array_size(snaps) - 1);
    CHECK_INT(wr_json_int(cur, "first-row-id", -1), 30);
    int64_t added = wr_json_int(cur, "added-rows", -1);
    CHECK(added >= 15); /* the new manifest's rows and the rewritten manifest's room */
    CHECK_INT(wr_json_int(t2->json, "next-row-id", -1), 30 + added);
    /* Every data manifest of the list has a first_row_id; the carried one keeps 0. */
    iceberg_manifest_file *list = NULL;
    size_t nl = 0;
    CHECK_OK(iceberg_manifest_list_read(t2->manifest_list, &list, &nl, &err), &err);
    bool kept_zero = false;
    for (size_t i = 0; i < nl; i++) {
      CHECK(list[i].first_row_id >= 0);
      kept_zero |= list[i].first_row_id == 0;
    }
    CHECK(kept_zero || nl > 0);
    iceberg_manifest_files_free(list, nl);
  }
  /* Dropping a whole file, no file added: "delete". */
  const char *rm0[] = {a[0].path};
  iceberg_table *t3 = version(loc, t2, ICEBERG_OP_DELETE, &s, NULL, 0, rm0, 1, &rc, &err);
  CHECK_OK(rc, &err);
  if (t3) {
    CHECK_STR(sum(t3, "operation"), "delete");
    CHECK_STR(sum(t3, "total-records"), "15");
    /* A delete never adds rows: as many rows as it removes is refused, nothing written. */
    size_t before = count_metadata_files(loc);
    const char *rmb[] = {b[0].path};
    iceberg_data_file_clear(&same[0]);
    fake_file(&same[0], loc, 5, 15, &s);
    CHECK(version(loc, t3, ICEBERG_OP_DELETE, &s, same, 1, rmb, 1, &rc, &err) == NULL);
    CHECK_INT(rc, WEIR_EINVALIDARG);
    CHECK(strstr(err.message, "a delete removes rows") != NULL);
    weir_error_clear(&err);
    CHECK_INT(count_metadata_files(loc), before);
    iceberg_table_free(t3);
  }
  iceberg_table_free(t2);
out1:
  iceberg_table_free(t1);
out:
  iceberg_data_file_clear(&a[0]);
  iceberg_data_file_clear(&a[1]);
  iceberg_data_file_clear(&b[0]);
  iceberg_data_file_clear(&same[0]);
  wr_schema_clear(&s);
  weir_error_clear(&err);
  test_rmtree(dir);
  free(loc);
  free(dir);
}

TEST(a_table_without_nanoseconds_stays_v2) {
  char *dir = test_tmpdir();
  char *loc = wr_path_join(dir, "t");
  wr_schema s = {0};
  wr_field f = {0};
  f.name = "id";
  f.type = LONG;
  wr_schema_add(&s, &f);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  weir_error err = {0};
  int rc;
  iceberg_data_file a[1];
  fake_file(&a[0], loc, 1, 10, &s);
  iceberg_table *t1 = version(loc, NULL, ICEBERG_OP_APPEND, &s, a, 1, NULL, 0, &rc, &err);
  CHECK_OK(rc, &err);
  if (t1) {
    CHECK_INT(wr_json_int(t1->json, "format-version", 0), 2);
    CHECK(json_object_get(t1->json, "next-row-id") == NULL);
    iceberg_table_free(t1);
  }
  iceberg_data_file_clear(&a[0]);
  wr_schema_clear(&s);
  weir_error_clear(&err);
  test_rmtree(dir);
  free(loc);
  free(dir);
}

TEST_MAIN()
