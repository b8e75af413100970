/* weir_lake_gc and weir_branch_prune through the public API: versioned options, what gc
 * deletes from a lake's warehouse (an old orphan) and what it keeps (a young one, every
 * file a ref reaches), dry runs, and the report's shape. */
#include "harness.h"

#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static void write_file(const char *path, const char *text, long age_s) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
  if (age_s > 0) {
    struct timeval now;
    gettimeofday(&now, NULL);
    struct timeval tv[2] = {{now.tv_sec - age_s, 0}, {now.tv_sec - age_s, 0}};
    CHECK(utimes(path, tv) == 0);
  }
}

static json_int_t count_of(json_t *doc, const char *kind) {
  return json_integer_value(json_object_get(json_object_get(json_object_get(doc, "deleted"), kind), "files"));
}

TEST(gc_deletes_an_old_orphan_and_keeps_what_is_reached) {
  char *dir = test_tmpdir();
  char path[2048], csv[2048], old_orphan[4096], young_orphan[4096];
  snprintf(path, sizeof path, "%s/lake", dir);
  snprintf(csv, sizeof csv, "%s/t.csv", dir);
  write_file(csv, "a,b\n1,x\n2,y\n", 0);
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  weir_import_options io = WEIR_IMPORT_OPTIONS_INIT;
  io.table = "t";
  char *out = NULL;
  CHECK_OK(weir_table_import(lake, csv, &io, &out, &err), &err);
  weir_free(out);
  snprintf(old_orphan, sizeof old_orphan, "%s/warehouse/default/t/data/orphan-old.parquet", path);
  snprintf(young_orphan, sizeof young_orphan, "%s/warehouse/default/t/data/orphan-young.parquet", path);
  write_file(old_orphan, "PAR1", 7200);
  write_file(young_orphan, "PAR1", 0);

  /* Versions: a zeroed struct is refused, the macro and the init function agree. */
  weir_gc_options bad = {0};
  CHECK_INT(weir_lake_gc(lake, &bad, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_gc_options has version 0");
  weir_error_clear(&err);
  weir_gc_options o;
  CHECK_OK(weir_gc_options_init(&o, WEIR_GC_OPTIONS_VERSION), &err);
  weir_gc_options by_macro = WEIR_GC_OPTIONS_INIT;
  CHECK(memcmp(&o, &by_macro, sizeof o) == 0);
  o.grace_us = -5;
  CHECK_INT(weir_lake_gc(lake, &o, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "grace_us");
  weir_error_clear(&err);

  /* A dry run with the default grace: the old orphan would go, nothing does. */
  o.grace_us = 0;
  o.dry_run = 1;
  CHECK_OK(weir_lake_gc(lake, &o, &out, &err), &err);
  json_t *doc = json_loads(out, 0, NULL);
  weir_free(out);
  CHECK_STR(json_object_iter_key(json_object_iter(doc)), "schema_version");
  CHECK(json_is_true(json_object_get(doc, "dry_run")));
  CHECK_INT(count_of(doc, "data"), 1);
  CHECK_INT(json_integer_value(json_object_get(json_object_get(doc, "kept"), "young")), 1);
  CHECK_INT(json_integer_value(json_object_get(json_object_get(doc, "kept"), "reachable")), 4);
  json_decref(doc);
  CHECK(access(old_orphan, F_OK) == 0);

  /* The real one: exactly the old orphan. */
  o.dry_run = 0;
  CHECK_OK(weir_lake_gc(lake, &o, &out, &err), &err);
  doc = json_loads(out, 0, NULL);
  weir_free(out);
  CHECK_INT(json_array_size(json_object_get(doc, "files")), 1);
  CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(doc, "files"), 0), "location")),
            old_orphan);
  CHECK_INT(json_integer_value(json_object_get(json_object_get(doc, "total"), "bytes")), 4);
  json_decref(doc);
  CHECK(access(old_orphan, F_OK) != 0);
  CHECK(access(young_orphan, F_OK) == 0);

  /* Without grace the young one goes too; the table still reads. */
  o.grace_us = WEIR_GC_NO_GRACE;
  CHECK_OK(weir_lake_gc(lake, &o, &out, &err), &err);
  weir_free(out);
  CHECK(access(young_orphan, F_OK) != 0);
  CHECK_OK(weir_table_describe(lake, "t", NULL, &out, &err), &err);
  weir_free(out);

  /* NULL options: every default. */
  CHECK_OK(weir_lake_gc(lake, NULL, &out, &err), &err);
  weir_free(out);
  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

TEST(prune_needs_runs_and_checks_its_version) {
  char *dir = test_tmpdir();
  char path[4096];
  snprintf(path, sizeof path, "%s/lake", dir);
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  char *out = NULL;
  weir_prune_options p = {0};
  CHECK_INT(weir_branch_prune(lake, &p, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_prune_options has version 0");
  weir_error_clear(&err);
  CHECK_OK(weir_prune_options_init(&p, WEIR_PRUNE_OPTIONS_VERSION), &err);
  CHECK_INT(weir_branch_prune(lake, &p, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "--runs");
  weir_error_clear(&err);
  CHECK_INT(weir_branch_prune(lake, NULL, &out, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  p.runs = 1;
  CHECK_OK(weir_branch_create(lake, "dev", NULL, NULL, &err), &err);
  CHECK_OK(weir_branch_prune(lake, &p, &out, &err), &err);
  json_t *doc = json_loads(out, 0, NULL);
  weir_free(out);
  CHECK_INT(json_array_size(json_object_get(doc, "branches")), 0); /* dev is no run branch */
  json_decref(doc);
  CHECK_OK(weir_branch_list(lake, &out, &err), &err);
  CHECK_CONTAINS(out, "\"dev\"");
  weir_free(out);
  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
