/*
 * test_table.c -- table versions: create, append, overwrite (with a schema change), load,
 * data file listing, snapshot summaries, snapshot and metadata logs, time travel through
 * older metadata files, and the errors of loading and writing.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "iceberg/iceberg_internal.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"

static void add(wr_schema *s, const char *name, weir_type t, bool required, const char *doc) {
  wr_field f = {0};
  f.name = (char *)name;
  f.type = t;
  f.required = required;
  f.doc = (char *)doc;
  wr_schema_add(s, &f);
}

static const weir_type LONG = {WEIR_TYPE_INT64, 0, 0};
static const weir_type STR = {WEIR_TYPE_STRING, 0, 0};
static const weir_type INT = {WEIR_TYPE_INT32, 0, 0};
static const weir_type DEC = {WEIR_TYPE_DECIMAL, 10, 2};

/* A data file of `records` rows with statistics for every column of `s`. */
static void fake_file(iceberg_data_file *f, const char *dir, int n, int64_t records,
                      const wr_schema *s) {
  memset(f, 0, sizeof *f);
  f->path = wr_asprintf("%s/data/f%d.parquet", dir, n);
  f->record_count = records;
  f->file_size = records * 100;
  f->stats = calloc(s->n_fields, sizeof *f->stats);
  for (size_t i = 0; i < s->n_fields; i++) {
    iceberg_column_stats *st = &f->stats[f->n_stats++];
    st->field_id = s->fields[i].field_id;
    st->value_count = records;
    st->null_count = 0;
    st->nan_count = -1;
    st->column_size = records * 8;
    const char *lo = s->fields[i].type.id == WEIR_TYPE_STRING ? "alpha" : "1";
    const char *hi = s->fields[i].type.id == WEIR_TYPE_STRING ? "omega" : "99";
    iceberg_bound_from_text(s->fields[i].type, lo, false, &st->lower, &st->lower_len);
    iceberg_bound_from_text(s->fields[i].type, hi, true, &st->upper, &st->upper_len);
  }
}

static const char *summary_str(const iceberg_table *t, const char *key) {
  return json_string_value(json_object_get(t->summary, key));
}

static char *read_text(const char *path) {
  char *data = NULL;
  size_t len;
  weir_error err = {0};
  if (wr_fs_read(path, &data, &len, &err) != WEIR_OK) weir_error_clear(&err);
  return data;
}

static iceberg_table *write_version(const char *loc, const iceberg_table *prev, iceberg_op op,
                            const wr_schema *s, iceberg_data_file *files, size_t n,
                            const char *props, const char *summary, int64_t time_ms) {
  json_t *p = props ? json_loads(props, 0, NULL) : NULL;
  json_t *sm = summary ? json_loads(summary, 0, NULL) : NULL;
  iceberg_write_request req = {loc, prev, op, s, files, n, p, sm, time_ms, NULL, 0, NULL};
  iceberg_write_result res;
  weir_error err = {0};
  iceberg_table *t = NULL;
  CHECK_OK(iceberg_write_version(&req, &res, &err), &err);
  if (res.metadata_location) {
    CHECK_OK(iceberg_table_load(res.metadata_location, &t, &err), &err);
    if (t) {
      CHECK_INT(t->current_snapshot_id, res.snapshot_id);
      CHECK_INT(t->record_count, res.record_count);
      CHECK_STR(t->metadata_location, res.metadata_location);
    }
  }
  free(res.metadata_location);
  json_decref(p);
  json_decref(sm);
  weir_error_clear(&err);
  return t;
}

static size_t list_files(const iceberg_table *t, iceberg_data_file **files) {
  size_t n = 0;
  weir_error err = {0};
  CHECK_OK(iceberg_table_data_files(t, files, &n, &err), &err);
  weir_error_clear(&err);
  return n;
}

TEST(create_append_overwrite_load) {
  char *dir = test_tmpdir();
  char *loc = wr_path_join(dir, "warehouse/default/t");
  wr_schema s1 = {0};
  add(&s1, "id", LONG, true, "Row id.");
  add(&s1, "name", STR, false, NULL);
  add(&s1, "amount", DEC, true, "Amount in EUR.");
  int32_t last;
  iceberg_assign_field_ids(NULL, &s1, &last);
  CHECK_INT(last, 3);

  iceberg_table *t2 = NULL;
  iceberg_data_file f2 = {0};
  /* 1. create: two files. */
  iceberg_data_file f1[2];
  fake_file(&f1[0], loc, 1, 10, &s1);
  fake_file(&f1[1], loc, 2, 20, &s1);
  iceberg_table *t1 = write_version(loc, NULL, ICEBERG_OP_APPEND, &s1, f1, 2,
                            "{\"comment\": \"A table.\", \"weir.contract\": {\"name\": \"T\"}}",
                            "{\"weir.run-id\": \"r1\", \"operation\": \"hack\", \"n\": 3}",
                            1700000000000);
  if (!t1) goto out;
  CHECK_INT(strlen(t1->table_uuid), 36);
  CHECK_STR(t1->location, loc);
  CHECK_INT(strncmp(wr_path_basename(t1->metadata_location), "00001-", 6), 0);
  CHECK_INT(t1->last_sequence_number, 1);
  CHECK_INT(t1->last_column_id, 3);
  CHECK_INT(t1->current_schema_id, 0);
  CHECK_INT(t1->record_count, 30);
  CHECK_INT(t1->schema.n_fields, 3);
  CHECK_STR(t1->schema.fields[0].doc, "Row id.");
  CHECK(t1->schema.fields[0].required);
  CHECK(!t1->schema.fields[1].required);
  CHECK_INT(t1->schema.fields[2].type.precision, 10);
  CHECK_STR(json_string_value(json_object_get(t1->properties, "comment")), "A table.");
  CHECK_STR(json_string_value(json_object_get(t1->properties, "weir.contract")), "{\"name\":\"T\"}");
  CHECK_STR(summary_str(t1, "operation"), "append");
  CHECK_STR(summary_str(t1, "added-data-files"), "2");
  CHECK_STR(summary_str(t1, "added-records"), "30");
  CHECK_STR(summary_str(t1, "added-files-size"), "3000");
  CHECK_STR(summary_str(t1, "deleted-data-files"), "0");
  CHECK_STR(summary_str(t1, "deleted-records"), "0");
  CHECK_STR(summary_str(t1, "total-records"), "30");
  CHECK_STR(summary_str(t1, "total-data-files"), "2");
  CHECK_STR(summary_str(t1, "total-files-size"), "3000");
  CHECK_STR(summary_str(t1, "total-delete-files"), "0");
  CHECK_STR(summary_str(t1, "weir.run-id"), "r1");
  CHECK_STR(summary_str(t1, "n"), "3");
  json_t *m = t1->json;
  CHECK_INT(wr_json_int(m, "format-version", 0), 2);
  CHECK_INT(wr_json_int(m, "last-updated-ms", 0), 1700000000000);
  CHECK_INT(wr_json_int(m, "last-partition-id", 0), 999);
  CHECK_INT(wr_json_int(m, "default-spec-id", -1), 0);
  CHECK_INT(wr_json_int(m, "default-sort-order-id", -1), 0);
  char *specs = wr_json_compact(json_object_get(m, "partition-specs"));
  CHECK_STR(specs, "[{\"spec-id\":0,\"fields\":[]}]");
  free(specs);
  char *orders = wr_json_compact(json_object_get(m, "sort-orders"));
  CHECK_STR(orders, "[{\"order-id\":0,\"fields\":[]}]");
  free(orders);
  json_t *main_ref = json_object_get(json_object_get(m, "refs"), "main");
  CHECK_INT(wr_json_int(main_ref, "snapshot-id", 0), t1->current_snapshot_id);
  CHECK_STR(wr_json_str(main_ref, "type", ""), "branch");
  json_t *snap1 = json_array_get(json_object_get(m, "snapshots"), 0);
  CHECK(json_object_get(snap1, "parent-snapshot-id") == NULL);
  CHECK_INT(wr_json_int(snap1, "sequence-number", 0), 1);
  CHECK_INT(wr_json_int(snap1, "timestamp-ms", 0), 1700000000000);
  CHECK_INT(wr_json_int(snap1, "schema-id", -1), 0);
  /* Locations in metadata are full URIs; the loaded table holds them as paths again. */
  char *want_uri = wr_location_to_uri(t1->manifest_list);
  CHECK_STR(wr_json_str(snap1, "manifest-list", ""), want_uri);
  free(want_uri);
  CHECK_INT(strncmp(wr_json_str(m, "location", ""), "file:///", 8), 0);
  CHECK_INT(strncmp(wr_path_basename(t1->manifest_list), "snap-", 5), 0);
  CHECK_INT(json_array_size(json_object_get(m, "snapshot-log")), 1);
  CHECK_INT(json_array_size(json_object_get(m, "metadata-log")), 0);

  iceberg_data_file *files;
  size_t n = list_files(t1, &files);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_STR(files[0].path, f1[0].path);
    CHECK_STR(files[1].path, f1[1].path);
    CHECK_INT(files[1].record_count, 20);
    CHECK_INT(files[1].file_size, 2000);
    CHECK_INT(files[1].n_stats, 3);
    CHECK_INT(files[1].stats[2].field_id, 3);
    char *hi = iceberg_bound_to_text(DEC, files[1].stats[2].upper, files[1].stats[2].upper_len);
    CHECK_STR(hi, "99.00");
    free(hi);
  }
  iceberg_data_files_free(files, n);
  char *t1_text = read_text(t1->metadata_location);
  char *t1_list = read_text(t1->manifest_list);

  /* 2. append one file; properties changed (one set, one removed). */
  fake_file(&f2, loc, 3, 5, &s1);
  t2 = write_version(loc, t1, ICEBERG_OP_APPEND, &s1, &f2, 1,
                            "{\"comment\": null, \"weir.owner\": \"me\"}", NULL, 1700000001000);
  if (!t2) goto out;
  CHECK_INT(strncmp(wr_path_basename(t2->metadata_location), "00002-", 6), 0);
  {
    /* Another branch's version after t1 (issue 13): the number goes past every version in
     * the folder, not just past t1's, so no two files of the table share one. */
    iceberg_data_file fb;
    fake_file(&fb, loc, 9, 1, &s1);
    iceberg_table *other = write_version(loc, t1, ICEBERG_OP_APPEND, &s1, &fb, 1, NULL, NULL, 1700000001500);
    CHECK(other != NULL);
    if (other) {
      CHECK_INT(strncmp(wr_path_basename(other->metadata_location), "00003-", 6), 0);
      iceberg_table_free(other);
    }
    iceberg_data_file_clear(&fb);
  }
  CHECK_STR(t2->table_uuid, t1->table_uuid);
  CHECK_INT(t2->last_sequence_number, 2);
  CHECK_INT(t2->current_schema_id, 0);
  CHECK_INT(json_array_size(json_object_get(t2->json, "schemas")), 1);
  CHECK_INT(t2->record_count, 35);
  CHECK_STR(summary_str(t2, "operation"), "append");
  CHECK_STR(summary_str(t2, "added-records"), "5");
  CHECK_STR(summary_str(t2, "total-records"), "35");
  CHECK_STR(summary_str(t2, "total-data-files"), "3");
  CHECK_STR(summary_str(t2, "total-files-size"), "3500");
  CHECK(summary_str(t2, "weir.run-id") == NULL); /* summaries are per snapshot */
  CHECK(json_object_get(t2->properties, "comment") == NULL);
  CHECK_STR(json_string_value(json_object_get(t2->properties, "weir.owner")), "me");
  CHECK_STR(json_string_value(json_object_get(t2->properties, "weir.contract")), "{\"name\":\"T\"}");
  json_t *snaps = json_object_get(t2->json, "snapshots");
  CHECK_INT(json_array_size(snaps), 2);
  CHECK_INT(wr_json_int(json_array_get(snaps, 1), "parent-snapshot-id", 0), t1->current_snapshot_id);
  json_t *mlog = json_object_get(t2->json, "metadata-log");
  CHECK_INT(json_array_size(mlog), 1);
  want_uri = wr_location_to_uri(t1->metadata_location);
  CHECK_STR(wr_json_str(json_array_get(mlog, 0), "metadata-file", ""), want_uri);
  free(want_uri);
  CHECK_INT(wr_json_int(json_array_get(mlog, 0), "timestamp-ms", 0), 1700000000000);
  json_t *slog = json_object_get(t2->json, "snapshot-log");
  CHECK_INT(json_array_size(slog), 2);
  CHECK_INT(wr_json_int(json_array_get(slog, 1), "snapshot-id", 0), t2->current_snapshot_id);
  CHECK_INT(wr_json_int(json_array_get(slog, 1), "timestamp-ms", 0), 1700000001000);
  /* The previous manifest is carried forward unchanged; the new one follows. */
  iceberg_manifest_file *ml;
  size_t nml;
  weir_error err = {0};
  CHECK_OK(iceberg_manifest_list_read(t2->manifest_list, &ml, &nml, &err), &err);
  CHECK_INT(nml, 2);
  if (nml == 2) {
    CHECK_INT(ml[0].added_snapshot_id, t1->current_snapshot_id);
    CHECK_INT(ml[0].sequence_number, 1);
    CHECK_INT(ml[0].added_files, 2);
    CHECK_INT(ml[1].added_snapshot_id, t2->current_snapshot_id);
    CHECK_INT(ml[1].sequence_number, 2);
    CHECK_INT(ml[1].added_rows, 5);
  }
  iceberg_manifest_files_free(ml, nml);
  n = list_files(t2, &files);
  CHECK_INT(n, 3);
  if (n == 3) CHECK_STR(files[2].path, f2.path);
  iceberg_data_files_free(files, n);

  /* 3. overwrite with another schema: amount dropped, qty added. */
  wr_schema s2 = {0};
  add(&s2, "id", LONG, true, "Row id, unique.");
  add(&s2, "qty", INT, true, NULL);
  add(&s2, "name", STR, false, NULL);
  iceberg_assign_field_ids(t2, &s2, &last);
  CHECK_INT(s2.fields[0].field_id, 1);
  CHECK_INT(s2.fields[1].field_id, 4);
  CHECK_INT(s2.fields[2].field_id, 2);
  iceberg_data_file f3;
  fake_file(&f3, loc, 4, 7, &s2);
  iceberg_table *t3 = write_version(loc, t2, ICEBERG_OP_OVERWRITE, &s2, &f3, 1, NULL,
                            "{\"weir.run-id\": \"r3\"}", 1700000002000);
  if (!t3) goto out;
  CHECK_INT(t3->record_count, 7);
  CHECK_INT(t3->current_schema_id, 1);
  CHECK_INT(t3->last_column_id, 4);
  CHECK_INT(json_array_size(json_object_get(t3->json, "schemas")), 2);
  CHECK_INT(t3->schema.n_fields, 3);
  CHECK_STR(t3->schema.fields[1].name, "qty");
  CHECK_STR(t3->schema.fields[0].doc, "Row id, unique.");
  CHECK_STR(summary_str(t3, "operation"), "overwrite");
  CHECK_STR(summary_str(t3, "added-data-files"), "1");
  CHECK_STR(summary_str(t3, "deleted-data-files"), "3");
  CHECK_STR(summary_str(t3, "deleted-records"), "35");
  CHECK_STR(summary_str(t3, "removed-files-size"), "3500");
  CHECK_STR(summary_str(t3, "total-records"), "7");
  CHECK_STR(summary_str(t3, "total-data-files"), "1");
  CHECK_STR(summary_str(t3, "weir.run-id"), "r3");
  snaps = json_object_get(t3->json, "snapshots");
  CHECK_INT(json_array_size(snaps), 3); /* history kept */
  CHECK_INT(wr_json_int(json_array_get(snaps, 2), "schema-id", -1), 1);
  CHECK_INT(wr_json_int(json_array_get(snaps, 0), "schema-id", -1), 0);
  CHECK_INT(json_array_size(json_object_get(t3->json, "snapshot-log")), 3);
  CHECK_INT(json_array_size(json_object_get(t3->json, "metadata-log")), 2);
  n = list_files(t3, &files);
  CHECK_INT(n, 1);
  if (n == 1) CHECK_STR(files[0].path, f3.path);
  iceberg_data_files_free(files, n);

  /* Older versions are untouched and still read as they were (time travel). */
  char *t1_text_after = read_text(t1->metadata_location);
  char *t1_list_after = read_text(t1->manifest_list);
  CHECK(t1_text && t1_text_after && strcmp(t1_text, t1_text_after) == 0);
  CHECK(t1_list && t1_list_after && strcmp(t1_list, t1_list_after) == 0);
  free(t1_text);
  free(t1_text_after);
  free(t1_list);
  free(t1_list_after);
  iceberg_table *old;
  CHECK_OK(iceberg_table_load(t1->metadata_location, &old, &err), &err);
  if (old) {
    CHECK_INT(old->record_count, 30);
    n = list_files(old, &files);
    CHECK_INT(n, 2);
    iceberg_data_files_free(files, n);
    iceberg_table_free(old);
  }

  /* 4. back to the first schema: its id is reused, not a third schema. */
  iceberg_data_file f4;
  fake_file(&f4, loc, 5, 1, &s1);
  iceberg_table *t4 = write_version(loc, t3, ICEBERG_OP_OVERWRITE, &s1, &f4, 1, NULL, NULL, 0);
  if (t4) {
    CHECK_INT(t4->current_schema_id, 0);
    CHECK_INT(json_array_size(json_object_get(t4->json, "schemas")), 2);
    int64_t now_ms = wr_now_us() / 1000;
    int64_t ts = wr_json_int(t4->json, "last-updated-ms", 0);
    CHECK(ts <= now_ms && ts > now_ms - 60000); /* time_ms 0 = now */
  }

  /* 5. an empty append keeps everything; 6. an overwrite with nothing deletes all. */
  iceberg_table *t5 = t4 ? write_version(loc, t4, ICEBERG_OP_APPEND, &s1, NULL, 0, NULL, NULL, 0) : NULL;
  if (t5) {
    CHECK_INT(t5->record_count, 1);
    CHECK_STR(summary_str(t5, "added-data-files"), "0");
    CHECK_STR(summary_str(t5, "total-data-files"), "1");
    n = list_files(t5, &files);
    CHECK_INT(n, 1);
    iceberg_data_files_free(files, n);
  }
  iceberg_table *t6 = t5 ? write_version(loc, t5, ICEBERG_OP_OVERWRITE, &s1, NULL, 0, NULL, NULL, 0) : NULL;
  if (t6) {
    CHECK_INT(t6->record_count, 0);
    CHECK_STR(summary_str(t6, "operation"), "delete");
    CHECK_STR(summary_str(t6, "deleted-data-files"), "1");
    n = list_files(t6, &files);
    CHECK_INT(n, 0);
    iceberg_data_files_free(files, n);
    CHECK_INT(strncmp(wr_path_basename(t6->metadata_location), "00007-", 6), 0); /* after the other branch's 00003 */
  }
  iceberg_table_free(t6);
  iceberg_table_free(t5);
  iceberg_table_free(t4);
  iceberg_data_file_clear(&f4);
  iceberg_table_free(t3);
  iceberg_data_file_clear(&f3);
  wr_schema_clear(&s2);
  weir_error_clear(&err);
out:
  iceberg_table_free(t2);
  iceberg_data_file_clear(&f2);
  iceberg_table_free(t1);
  iceberg_data_file_clear(&f1[0]);
  iceberg_data_file_clear(&f1[1]);
  wr_schema_clear(&s1);
  test_rmtree(dir);
  free(loc);
  free(dir);
}

TEST(metadata_log_is_capped_by_the_table_property) {
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "a", LONG, true, NULL);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_table *t = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, NULL, 0,
                           "{\"write.metadata.previous-versions-max\": 2}", NULL, 0);
  char *second = NULL;
  for (int i = 0; t && i < 4; i++) {
    iceberg_table *next = write_version(dir, t, ICEBERG_OP_APPEND, &s, NULL, 0, NULL, NULL, 0);
    if (i == 2) second = wr_strdup(t->metadata_location);
    iceberg_table_free(t);
    t = next;
  }
  if (t) {
    json_t *mlog = json_object_get(t->json, "metadata-log");
    CHECK_INT(json_array_size(mlog), 2);
    /* the newest previous versions are kept */
    char *want = wr_location_to_uri(second);
    CHECK_STR(wr_json_str(json_array_get(mlog, 0), "metadata-file", ""), want);
    free(want);
    CHECK_INT(json_array_size(json_object_get(t->json, "snapshots")), 5);
  }
  free(second);
  iceberg_table_free(t);
  wr_schema_clear(&s);
  test_rmtree(dir);
  free(dir);
}

TEST(snapshots_are_capped_by_the_table_property) {
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "a", LONG, true, NULL);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_table *t = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, NULL, 0,
                                   "{\"weir.metadata.snapshots-max\": 3}", NULL, 0);
  char *first = t ? wr_strdup(t->metadata_location) : NULL;
  int64_t first_id = t ? t->current_snapshot_id : -1;
  int64_t ids[6] = {first_id};
  for (int i = 1; t && i < 6; i++) {
    iceberg_table *next = write_version(dir, t, ICEBERG_OP_APPEND, &s, NULL, 0, NULL, NULL, 0);
    iceberg_table_free(t);
    t = next;
    if (t) ids[i] = t->current_snapshot_id;
  }
  if (t) {
    /* The newest three, oldest first, the current one last; the log follows them. */
    json_t *snaps = json_object_get(t->json, "snapshots");
    json_t *log = json_object_get(t->json, "snapshot-log");
    CHECK_INT(json_array_size(snaps), 3);
    CHECK_INT(json_array_size(log), 3);
    for (int k = 0; k < 3; k++) {
      CHECK_INT(wr_json_int(json_array_get(snaps, k), "snapshot-id", -1), ids[3 + k]);
      CHECK_INT(wr_json_int(json_array_get(log, k), "snapshot-id", -1), ids[3 + k]);
    }
    CHECK_INT(t->current_snapshot_id, ids[5]);
    CHECK_INT(json_array_size(json_object_get(t->json, "metadata-log")), 5);
  }
  /* The first version is still whole in its own file. */
  weir_error err = {0};
  iceberg_table *old = NULL;
  if (first) CHECK_OK(iceberg_table_load(first, &old, &err), &err);
  if (old) CHECK_INT(old->current_snapshot_id, first_id);
  iceberg_table_free(old);
  weir_error_clear(&err);
  free(first);
  iceberg_table_free(t);
  wr_schema_clear(&s);
  test_rmtree(dir);
  free(dir);
}

TEST(appends_merge_manifests_at_the_configured_count) {
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "a", LONG, true, NULL);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_data_file f[6];
  for (int i = 0; i < 6; i++) fake_file(&f[i], dir, i, 10 + i, &s);
  iceberg_table *t = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, &f[0], 1,
                                   "{\"commit.manifest.min-count-to-merge\": 3}", NULL, 0);
  int64_t snaps[6] = {t ? t->current_snapshot_id : 0};
  size_t manifests[6] = {1};
  for (int i = 1; t && i < 6; i++) {
    iceberg_table *next = write_version(dir, t, ICEBERG_OP_APPEND, &s, &f[i], 1, NULL, NULL, 0);
    iceberg_table_free(t);
    t = next;
    if (!t) break;
    snaps[i] = t->current_snapshot_id;
    iceberg_manifest_file *ml;
    weir_error err = {0};
    CHECK_OK(iceberg_manifest_list_read(t->manifest_list, &ml, &manifests[i], &err), &err);
    if (i == 2) {
      /* 2 carried + 1 new reach 3: the carried two become one manifest of EXISTING
       * entries, added by this snapshot; the new file keeps its own manifest. */
      CHECK_INT(manifests[i], 2);
      CHECK_INT(ml[0].added_snapshot_id, snaps[2]);
      CHECK_INT(ml[0].existing_files, 2);
      CHECK_INT(ml[0].added_files, 0);
      CHECK_INT(ml[0].existing_rows, 10 + 11);
      CHECK_INT(ml[0].sequence_number, 3);
      CHECK_INT(ml[0].min_sequence_number, 1);
      CHECK_INT(ml[1].added_files, 1);
      /* Entries keep the snapshot and sequence numbers that added them. */
      iceberg_data_file *files = NULL;
      iceberg_entry_meta *meta = NULL;
      size_t n = 0;
      CHECK_OK(iceberg_manifest_read(ml[0].path, false, &files, &n, &meta, &err), &err);
      CHECK_INT(n, 2);
      if (n == 2) {
        CHECK_STR(files[0].path, f[0].path);
        CHECK_INT(meta[0].status, ICEBERG_STATUS_EXISTING);
        CHECK_INT(meta[0].snapshot_id, snaps[0]);
        CHECK_INT(meta[0].sequence_number, 1);
        CHECK_INT(meta[0].file_sequence_number, 1);
        CHECK_INT(meta[1].snapshot_id, snaps[1]);
        CHECK_INT(meta[1].sequence_number, 2);
        CHECK_INT(files[1].n_stats, 1); /* statistics are carried over */
        CHECK(files[1].stats[0].upper != NULL);
      }
      iceberg_data_files_free(files, n);
      free(meta);
    }
    iceberg_manifest_files_free(ml, manifests[i]);
    weir_error_clear(&err);
  }
  /* From the second append on, two manifests are carried and merged again: two remain. */
  CHECK_INT(manifests[1], 2);
  CHECK_INT(manifests[3], 2);
  CHECK_INT(manifests[4], 3 - 1);
  if (t) {
    CHECK_INT(t->record_count, 10 + 11 + 12 + 13 + 14 + 15);
    iceberg_data_file *files;
    size_t n = list_files(t, &files);
    CHECK_INT(n, 6);
    for (size_t i = 0; i < n && i < 6; i++) CHECK_STR(files[i].path, f[i].path); /* order kept */
    iceberg_data_files_free(files, n);
  }
  iceberg_table_free(t);
  for (int i = 0; i < 6; i++) iceberg_data_file_clear(&f[i]);
  wr_schema_clear(&s);
  test_rmtree(dir);
  free(dir);
}

TEST(merging_can_be_turned_off) {
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "a", LONG, true, NULL);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_data_file f;
  fake_file(&f, dir, 0, 1, &s);
  iceberg_table *t = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, &f, 1,
                                   "{\"commit.manifest.min-count-to-merge\": 2, "
                                   "\"commit.manifest-merge.enabled\": \"false\"}", NULL, 0);
  for (int i = 0; t && i < 3; i++) {
    iceberg_table *next = write_version(dir, t, ICEBERG_OP_APPEND, &s, &f, 1, NULL, NULL, 0);
    iceberg_table_free(t);
    t = next;
  }
  if (t) {
    iceberg_manifest_file *ml;
    size_t n;
    weir_error err = {0};
    CHECK_OK(iceberg_manifest_list_read(t->manifest_list, &ml, &n, &err), &err);
    CHECK_INT(n, 4);
    iceberg_manifest_files_free(ml, n);
  }
  iceberg_table_free(t);
  iceberg_data_file_clear(&f);
  wr_schema_clear(&s);
  test_rmtree(dir);
  free(dir);
}

/* Writes `text` as a metadata file and loads it; returns the status. */
static int load_text(const char *dir, const char *name, const char *text, iceberg_table **t,
                     weir_error *err) {
  char *path = wr_path_join(dir, name);
  weir_error ignore = {0};
  wr_fs_write_atomic(path, text, strlen(text), false, &ignore);
  int rc = iceberg_table_load(path, t, err);
  free(path);
  return rc;
}

TEST(load_errors_name_the_file) {
  char *dir = test_tmpdir();
  iceberg_table *t = NULL;
  weir_error err = {0};
  CHECK_INT(iceberg_table_load("/nonexistent/weir/v1.metadata.json", &t, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "/nonexistent/weir/v1.metadata.json");
  CHECK_INT(load_text(dir, "bad.json", "{\"format-version\": 2,", &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "bad.json");
  CHECK_INT(load_text(dir, "v1.json", "{\"format-version\": 1}", &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "v1.json");
  CHECK_CONTAINS(err.message, "format-version 1");
  CHECK_INT(load_text(dir, "nouuid.json", "{\"format-version\": 2}", &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "table-uuid");
  const char *noschema =
      "{\"format-version\": 2, \"table-uuid\": \"u\", \"location\": \"/x\", "
      "\"last-sequence-number\": 0, \"last-column-id\": 1, \"current-schema-id\": 3, "
      "\"schemas\": [{\"type\": \"struct\", \"schema-id\": 0, \"fields\": []}]}";
  CHECK_INT(load_text(dir, "noschema.json", noschema, &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "noschema.json");
  CHECK_CONTAINS(err.message, "current-schema-id 3");
  const char *nosnap =
      "{\"format-version\": 2, \"table-uuid\": \"u\", \"location\": \"/x\", "
      "\"last-sequence-number\": 0, \"last-column-id\": 1, \"current-schema-id\": 0, "
      "\"schemas\": [{\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\":"
      " \"a\", \"required\": true, \"type\": \"int\"}]}], \"current-snapshot-id\": 5, "
      "\"snapshots\": []}";
  CHECK_INT(load_text(dir, "nosnap.json", nosnap, &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "current snapshot 5");
  /* No snapshot at all (null or -1): a table with no data yet. */
  const char *empty =
      "{\"format-version\": 2, \"table-uuid\": \"u\", \"location\": \"file:/x\", "
      "\"last-sequence-number\": 0, \"last-column-id\": 1, \"current-schema-id\": 0, "
      "\"schemas\": [{\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\":"
      " \"a\", \"required\": true, \"type\": \"int\"}]}], \"current-snapshot-id\": null}";
  CHECK_OK(load_text(dir, "empty.json", empty, &t, &err), &err);
  if (t) {
    CHECK_INT(t->current_snapshot_id, -1);
    CHECK(t->manifest_list == NULL);
    CHECK_STR(t->location, "/x");
    CHECK(json_is_object(t->properties));
    iceberg_data_file *files;
    size_t n;
    CHECK_OK(iceberg_table_data_files(t, &files, &n, &err), &err);
    CHECK_INT(n, 0);
    iceberg_table_free(t);
  }
  weir_error_clear(&err);
  test_rmtree(dir);
  free(dir);
}

TEST(write_errors) {
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "a", LONG, true, NULL);
  add(&s, "b", LONG, true, NULL);
  iceberg_write_request req = {dir, NULL, ICEBERG_OP_APPEND, &s, NULL, 0, NULL, NULL, 0, NULL, 0, NULL};
  iceberg_write_result res;
  weir_error err = {0};
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "column \"a\" has no field id");
  s.fields[0].field_id = 1;
  s.fields[1].field_id = 1;
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "share field id 1");
  s.fields[1].field_id = 2;
  free(s.fields[1].name);
  s.fields[1].name = wr_strdup("a");
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "two columns are named \"a\"");
  free(s.fields[1].name);
  s.fields[1].name = wr_strdup("b");
  req.table_location = "relative/t";
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "neither an absolute path nor an s3:// URI");
  req.table_location = dir;
  iceberg_data_file f;
  fake_file(&f, dir, 1, 3, &s);
  f.stats[1].field_id = 9;
  req.files = &f;
  req.n_files = 1;
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "field id 9");
  f.stats[1].field_id = 2;
  f.record_count = -1;
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "f1.parquet");
  f.record_count = 3;
  char *abs_path = f.path;
  f.path = "data/f1.parquet";
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "neither absolute nor a URI");
  f.path = abs_path;
  s.fields[1].type.id = WEIR_TYPE_DATE64;
  CHECK_INT(iceberg_write_version(&req, &res, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "Date64");
  CHECK_CONTAINS(err.message, dir);
  s.fields[1].type.id = WEIR_TYPE_INT64;
  /* None of the failed writes left a file behind. */
  char *meta = wr_path_join(dir, "metadata");
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s' 2>/dev/null)\"", meta);
  CHECK_INT(system(cmd), 0);
  free(meta);

  /* An unpartitioned write to a table partitioned by another tool is partition
   * evolution: spec 0 stays (its files keep it), the new unpartitioned spec 1 becomes
   * the default. */
  CHECK_OK(iceberg_write_version(&req, &res, &err), &err);
  iceberg_table *t = NULL;
  CHECK_OK(iceberg_table_load(res.metadata_location, &t, &err), &err);
  free(res.metadata_location);
  if (t) {
    json_t *spec = json_array_get(json_object_get(t->json, "partition-specs"), 0);
    json_array_append_new(json_object_get(spec, "fields"),
                          json_pack("{s:i,s:i,s:s,s:s}", "source-id", 1, "field-id", 1000,
                                    "name", "a", "transform", "identity"));
    req.prev = t;
    CHECK_OK(iceberg_write_version(&req, &res, &err), &err);
    iceberg_table *t2 = NULL;
    CHECK_OK(iceberg_table_load(res.metadata_location, &t2, &err), &err);
    if (t2) {
      json_t *specs = json_object_get(t2->json, "partition-specs");
      CHECK_INT(json_array_size(specs), 2);
      CHECK_INT(json_array_size(json_object_get(json_array_get(specs, 0), "fields")), 1);
      CHECK_INT(json_integer_value(json_object_get(json_array_get(specs, 1), "spec-id")), 1);
      CHECK_INT(json_array_size(json_object_get(json_array_get(specs, 1), "fields")), 0);
      CHECK_INT(json_integer_value(json_object_get(t2->json, "default-spec-id")), 1);
      iceberg_table_free(t2);
    }
    free(res.metadata_location);
    iceberg_table_free(t);
  }
  iceberg_data_file_clear(&f);
  wr_schema_clear(&s);
  weir_error_clear(&err);
  test_rmtree(dir);
  free(dir);
}

TEST(foreign_types_and_missing_totals) {
  /* A table another writer made: a list column weir cannot name, no summary totals. */
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "a", LONG, true, NULL);
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_data_file f;
  fake_file(&f, dir, 1, 4, &s);
  iceberg_table *t = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, &f, 1, NULL, NULL, 0);
  if (!t) goto out;
  json_t *j = json_deep_copy(t->json);
  json_t *fields = json_object_get(json_array_get(json_object_get(j, "schemas"), 0), "fields");
  json_array_append_new(fields, json_loads("{\"id\": 2, \"name\": \"tags\", \"required\": false, "
                                           "\"type\": {\"type\": \"list\", \"element-id\": 3, "
                                           "\"element\": \"string\", \"element-required\": false}}",
                                           0, NULL));
  json_object_set_new(j, "last-column-id", json_integer(3));
  json_t *summary = json_object_get(json_array_get(json_object_get(j, "snapshots"), 0), "summary");
  json_object_del(summary, "total-records");
  json_object_del(summary, "total-data-files");
  char *text = wr_json_pretty(j);
  iceberg_table *foreign = NULL;
  weir_error err = {0};
  CHECK_OK(load_text(dir, "00007-foreign.metadata.json", text, &foreign, &err), &err);
  free(text);
  json_decref(j);
  if (foreign) {
    CHECK_INT(foreign->record_count, 4); /* counted from the manifest list */
    CHECK_INT(foreign->schema.fields[1].type.id, WEIR_TYPE_ANY);
    /* Written again, the list column keeps its Iceberg type; totals come from the files. */
    iceberg_data_file f2;
    fake_file(&f2, dir, 2, 6, &s);
    iceberg_table *next = write_version(dir, foreign, ICEBERG_OP_APPEND, &foreign->schema, &f2, 1, NULL,
                                NULL, 0);
    if (next) {
      CHECK_STR(summary_str(next, "total-records"), "10");
      CHECK_STR(summary_str(next, "total-data-files"), "2");
      CHECK_INT(next->current_schema_id, 0); /* same fields as the foreign schema 0 */
      CHECK_INT(next->last_column_id, 3);
      CHECK_INT(strncmp(wr_path_basename(next->metadata_location), "00008-", 6), 0);
      json_t *tags = json_array_get(json_object_get(iceberg_metadata_schema(next->json, 0), "fields"), 1);
      CHECK_STR(wr_json_str(json_object_get(tags, "type"), "type", ""), "list");
    }
    iceberg_table_free(next);
    iceberg_data_file_clear(&f2);
    iceberg_table_free(foreign);
  }
  weir_error_clear(&err);
out:
  iceberg_table_free(t);
  iceberg_data_file_clear(&f);
  wr_schema_clear(&s);
  test_rmtree(dir);
  free(dir);
}

/* Timing: one version with many files, an append on top, and listing them back. */
TEST(many_files_timing) {
  enum { N = 5000, COLS = 12 };
  char *dir = test_tmpdir();
  wr_schema s = {0};
  char name[16];
  for (int c = 0; c < COLS; c++) {
    snprintf(name, sizeof name, "c%d", c);
    add(&s, name, c % 2 ? STR : LONG, c == 0, NULL);
  }
  int32_t last;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_data_file *files = calloc(N, sizeof *files);
  for (int i = 0; i < N; i++) fake_file(&files[i], dir, i, 1000, &s);
  int64_t t0 = wr_mono_us();
  iceberg_table *t = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, files, N, NULL, NULL, 0);
  int64_t t1 = wr_mono_us();
  iceberg_table *t2 = t ? write_version(dir, t, ICEBERG_OP_APPEND, &s, files, 1, NULL, NULL, 0) : NULL;
  int64_t t2_us = wr_mono_us();
  iceberg_data_file *back = NULL;
  size_t n = t2 ? list_files(t2, &back) : 0;
  int64_t t3 = wr_mono_us();
  CHECK_INT(n, N + 1);
  if (t2) CHECK_INT(t2->record_count, (int64_t)(N + 1) * 1000);
  fprintf(stderr, "  timing: write %d files x %d columns: %.1f ms; append 1 file on top: %.1f ms; "
          "list %zu files: %.1f ms\n", N, COLS, (t1 - t0) / 1000.0, (t2_us - t1) / 1000.0, n,
          (t3 - t2_us) / 1000.0);
  iceberg_data_files_free(back, n);
  iceberg_table_free(t2);
  iceberg_table_free(t);
  iceberg_data_files_free(files, N);
  wr_schema_clear(&s);
  test_rmtree(dir);
  free(dir);
}

/* A schema-only version (weir alter): a new schema id, the old schema kept, no snapshot,
 * last-column-id never lowered, properties applied; an equal schema reuses its id. */
TEST(schema_change_adds_a_schema_and_no_snapshot) {
  char *dir = test_tmpdir();
  wr_schema s = {0};
  add(&s, "id", LONG, true, NULL);
  add(&s, "col", INT, false, "c");
  int32_t last = 0;
  iceberg_assign_field_ids(NULL, &s, &last);
  iceberg_data_file f;
  fake_file(&f, dir, 0, 3, &s);
  iceberg_table *v1 = write_version(dir, NULL, ICEBERG_OP_APPEND, &s, &f, 1, NULL, NULL, 0);
  iceberg_data_file_clear(&f);
  CHECK(v1 != NULL);
  if (!v1) return;
  wr_schema s2 = {0};
  wr_schema_copy(&s2, &s);
  free(s2.fields[1].name);
  s2.fields[1].name = strdup("value");
  s2.fields[1].type = LONG; /* int -> long: a promotion */
  json_t *props = json_pack("{s:s}", "weir.x", "1");
  iceberg_write_result r;
  weir_error err = {0};
  CHECK_OK(iceberg_write_schema_change(dir, v1, &s2, last, props, &r, &err), &err);
  iceberg_table *v2 = NULL;
  CHECK_OK(iceberg_table_load(r.metadata_location, &v2, &err), &err);
  CHECK_INT(r.snapshot_id, v1->current_snapshot_id);
  CHECK_INT(v2->current_snapshot_id, v1->current_snapshot_id);
  CHECK_INT(v2->current_schema_id, 1);
  CHECK_INT(json_array_size(json_object_get(v2->json, "schemas")), 2);
  CHECK_INT(v2->last_column_id, 2);
  CHECK_STR(v2->schema.fields[1].name, "value");
  CHECK_INT(v2->schema.fields[1].field_id, 2);
  CHECK_STR(json_string_value(json_object_get(v2->properties, "weir.x")), "1");
  /* Back to the first schema: its id is reused, nothing is appended to `schemas`. */
  iceberg_write_result r2;
  CHECK_OK(iceberg_write_schema_change(dir, v2, &s, last, NULL, &r2, &err), &err);
  iceberg_table *v3 = NULL;
  CHECK_OK(iceberg_table_load(r2.metadata_location, &v3, &err), &err);
  CHECK_INT(v3->current_schema_id, 0);
  CHECK_INT(json_array_size(json_object_get(v3->json, "schemas")), 2);
  /* A column without an id is refused. */
  s2.fields[1].field_id = 0;
  iceberg_write_result r3;
  CHECK_INT(iceberg_write_schema_change(dir, v3, &s2, last, NULL, &r3, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "\"value\" has no field id");
  weir_error_clear(&err);
  /* The promotions: Iceberg's, and nothing else. */
  CHECK(iceberg_type_promotion(INT, LONG));
  CHECK(!iceberg_type_promotion(LONG, INT));
  CHECK(!iceberg_type_promotion(INT, INT));
  CHECK(!iceberg_type_promotion(INT, STR));
  weir_type dec12 = {WEIR_TYPE_DECIMAL, 12, 2}, dec12s3 = {WEIR_TYPE_DECIMAL, 12, 3};
  CHECK(iceberg_type_promotion(DEC, dec12));
  CHECK(!iceberg_type_promotion(dec12, DEC));
  CHECK(!iceberg_type_promotion(DEC, dec12s3));
  json_decref(props);
  free(r.metadata_location);
  free(r2.metadata_location);
  iceberg_table_free(v1);
  iceberg_table_free(v2);
  iceberg_table_free(v3);
  wr_schema_clear(&s);
  wr_schema_clear(&s2);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
