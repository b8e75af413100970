/*
 * test_lake.c -- the lake module's own machinery: the commit's retry when it loses the
 * race for the branch head, the engine pool, and the Iceberg metadata cache.
 *
 * The race is made deterministic the way tests/c/catalog/test_merge.c makes it: the
 * handle's catalog backend gets a vtable whose write-transaction begin first lets another
 * catalog handle commit to main -- exactly the window between reading the head and the
 * compare-and-swap.
 */
#include <jansson.h>
#include <stdio.h>
#include <sys/stat.h>

#include "catalog/catalog_internal.h"
#include "harness.h"
#include "lake/lake.h"
#include "util/json.h"

typedef struct fixture {
  char *dir;
  char lake_path[4200];
  char csv[4200];
  weir_lake *lake;
} fixture;

static fixture fx_new(void) {
  fixture f = {0};
  f.dir = test_tmpdir();
  snprintf(f.lake_path, sizeof f.lake_path, "%s/lake", f.dir);
  snprintf(f.csv, sizeof f.csv, "%s/rows.csv", f.dir);
  FILE *o = fopen(f.csv, "w");
  if (!o) exit(99);
  fputs("id,name\n1,a\n2,b\n3,c\n", o);
  fclose(o);
  weir_error err = {0};
  if (weir_lake_init(f.lake_path, NULL, &f.lake, &err)) {
    fprintf(stderr, "init: %s\n", err.message);
    exit(99);
  }
  return f;
}

static void fx_free(fixture *f) {
  weir_lake_free(f->lake);
  test_rmtree(f->dir);
  free(f->dir);
}

static int import(fixture *f, const char *table, weir_write_mode mode, weir_error *err) {
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = table;
  o.mode = mode;
  char *out = NULL;
  int rc = weir_table_import(f->lake, f->csv, &o, &out, err);
  weir_free(out);
  return rc;
}

static bool on_main(fixture *f, const char *table) {
  char head[WEIR_HASH_HEX_SIZE];
  weir_error err = {0};
  wr_table_entry e = {0};
  bool found = lake_resolve(f->lake, "main", head, &err) == WEIR_OK &&
               catalog_table_get(f->lake->cat, head, table, &e, &err) == WEIR_OK;
  wr_table_entry_clear(&e);
  weir_error_clear(&err);
  return found;
}

/* ---- the commit's retry ------------------------------------------------------------- */

static catalog_backend_ops race_ops;
static const catalog_backend_ops *real_ops;
static wr_catalog *racer;
static int race_left, race_n;

static int racing_begin(catalog_backend *be, bool write, weir_error *err) {
  if (write && race_left > 0) {
    race_left--;
    char head[WEIR_HASH_HEX_SIZE], out[WEIR_HASH_HEX_SIZE], name[32];
    weir_error e = {0};
    snprintf(name, sizeof name, "default.race%d", race_n++);
    wr_table_change c = {name, name, 1, 1};
    if (catalog_ref_get(racer, WEIR_REF_BRANCH, "main", head, &e) == WEIR_OK) {
      wr_commit_request req = {.branch = "main", .expected_head = head, .changes = &c, .n_changes = 1,
                               .message = "racer"};
      catalog_commit(racer, &req, out, &e);
    }
    weir_error_clear(&e);
  }
  return real_ops->begin(be, write, err);
}

static void race_setup(fixture *f, int moves) {
  weir_error err = {0};
  char db[4300];
  snprintf(db, sizeof db, "%s", f->lake->catalog_uri);
  CHECK_OK(catalog_open(db, false, "racer", &racer, &err), &err);
  real_ops = f->lake->cat->be->ops;
  race_ops = *real_ops;
  race_ops.begin = racing_begin;
  f->lake->cat->be->ops = &race_ops;
  race_left = moves;
  race_n = 0;
}

static void race_teardown(fixture *f) {
  f->lake->cat->be->ops = real_ops;
  catalog_close(racer);
  racer = NULL;
}

TEST(a_commit_that_loses_the_race_retries_on_the_new_head) {
  fixture f = fx_new();
  race_setup(&f, 2);
  weir_error err = {0};
  CHECK_OK(import(&f, "t", WEIR_MODE_CREATE, &err), &err);
  CHECK(err.message == NULL); /* the lost races leave no message behind */
  race_teardown(&f);
  CHECK_INT(race_left, 0);
  CHECK(on_main(&f, "default.t"));
  CHECK(on_main(&f, "default.race0")); /* what the racer wrote is kept */
  CHECK(on_main(&f, "default.race1"));
  fx_free(&f);
}

TEST(a_commit_that_keeps_losing_gives_up_and_writes_nothing) {
  fixture f = fx_new();
  race_setup(&f, 1000);
  weir_error err = {0};
  CHECK_INT(import(&f, "t", WEIR_MODE_CREATE, &err), WEIR_ECONCURRENT);
  CHECK(err.message != NULL);
  weir_error_clear(&err);
  int attempts = race_n;
  race_teardown(&f);
  CHECK(attempts > 1 && attempts < 1000); /* bounded: it tried again, then stopped */
  CHECK(!on_main(&f, "default.t"));
  fx_free(&f);
}

TEST(a_write_based_on_an_older_head_lands_when_only_other_tables_changed) {
  /* expect_head names the write's base (weir.h): a racer that moves main with other
   * tables does not refuse the import, which is checked again and lands on the new head. */
  fixture f = fx_new();
  weir_error err = {0};
  char head[WEIR_HASH_HEX_SIZE];
  CHECK_OK(lake_resolve(f.lake, "main", head, &err), &err);
  race_setup(&f, 1);
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = "t";
  o.expect_head = head;
  char *out = NULL;
  CHECK_OK(weir_table_import(f.lake, f.csv, &o, &out, &err), &err);
  weir_free(out);
  race_teardown(&f);
  CHECK_INT(race_n, 1);
  CHECK(on_main(&f, "default.t"));
  CHECK(on_main(&f, "default.race0"));
  fx_free(&f);
}

/* ---- the engine pool ---------------------------------------------------------------- */

TEST(an_engine_given_back_is_lent_again) {
  fixture f = fx_new();
  weir_error err = {0};
  wr_engine *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(lake_engine_get(f.lake, LAKE_ENGINE_WAREHOUSE, &a, &err), &err);
  lake_engine_put(f.lake, a, LAKE_ENGINE_WAREHOUSE);
  CHECK_OK(lake_engine_get(f.lake, LAKE_ENGINE_WAREHOUSE, &b, &err), &err);
  CHECK(a == b);
  /* while b is lent, another get opens a second engine */
  CHECK_OK(lake_engine_get(f.lake, LAKE_ENGINE_WAREHOUSE, &c, &err), &err);
  CHECK(c != NULL && c != b);
  lake_engine_put(f.lake, b, LAKE_ENGINE_WAREHOUSE);
  lake_engine_put(f.lake, c, LAKE_ENGINE_WAREHOUSE); /* one idle engine is kept; c is closed */
  wr_engine *d = NULL;
  CHECK_OK(lake_engine_get(f.lake, LAKE_ENGINE_WAREHOUSE, &d, &err), &err);
  CHECK(d == b);
  lake_engine_put(f.lake, d, LAKE_ENGINE_WAREHOUSE);
  fx_free(&f);
}

TEST(engine_kinds_limit_the_files_sql_may_read) {
  fixture f = fx_new();
  weir_error err = {0};
  char sql[4400];
  snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM read_csv('%s')", f.csv); /* outside the warehouse */
  const lake_engine_kind kinds[] = {LAKE_ENGINE_OPEN, LAKE_ENGINE_WAREHOUSE, LAKE_ENGINE_SEALED};
  for (int i = 0; i < 3; i++) {
    wr_engine *e = NULL;
    CHECK_OK(lake_engine_get(f.lake, kinds[i], &e, &err), &err);
    int rc = wr_engine_exec(e, sql, &err);
    if (kinds[i] == LAKE_ENGINE_OPEN) CHECK_OK(rc, &err);
    else CHECK(rc != WEIR_OK);
    weir_error_clear(&err);
    lake_engine_put(f.lake, e, kinds[i]);
    /* kinds are pooled apart: a sealed engine is never lent as an open one */
  }
  wr_engine *e = NULL;
  CHECK_OK(lake_engine_get(f.lake, LAKE_ENGINE_SEALED, &e, &err), &err);
  CHECK(wr_engine_exec(e, sql, &err) != WEIR_OK);
  weir_error_clear(&err);
  lake_engine_put(f.lake, e, LAKE_ENGINE_SEALED);
  fx_free(&f);
}

TEST(an_engine_lent_out_outlives_the_lake_handle) {
  fixture f = fx_new();
  weir_error err = {0};
  wr_engine *e = NULL;
  CHECK_OK(lake_engine_get(f.lake, LAKE_ENGINE_SEALED, &e, &err), &err);
  lake_engine_pool *pool = f.lake->engines;
  weir_lake_free(f.lake); /* the pool stays while e is lent */
  f.lake = NULL;
  CHECK_OK(wr_engine_exec(e, "SELECT 1", &err), &err);
  lake_engine_put_pool(pool, e, LAKE_ENGINE_SEALED); /* the last reference: freed (ASan) */
  fx_free(&f);
}

/* ---- the metadata cache ------------------------------------------------------------- */

static char *metadata_of(fixture *f, const char *table) {
  char head[WEIR_HASH_HEX_SIZE];
  weir_error err = {0};
  wr_table_entry e = {0};
  char *loc = NULL;
  if (lake_resolve(f->lake, "main", head, &err) == WEIR_OK &&
      catalog_table_get(f->lake->cat, head, table, &e, &err) == WEIR_OK)
    loc = wr_strdup(e.metadata_location);
  wr_table_entry_clear(&e);
  weir_error_clear(&err);
  return loc;
}

TEST(metadata_is_parsed_once_per_version) {
  fixture f = fx_new();
  weir_error err = {0};
  CHECK_OK(import(&f, "t", WEIR_MODE_CREATE, &err), &err);
  char *loc = metadata_of(&f, "default.t");
  CHECK(loc != NULL);
  iceberg_table *a = NULL, *b = NULL;
  CHECK_OK(lake_metadata(f.lake, loc, &a, &err), &err);
  CHECK(a && a->record_count == 3);
  /* The files are immutable, so the cache may keep them: with the file gone the cached
   * version is still served, which proves the second read did not touch the disk. */
  CHECK_INT(unlink(loc), 0);
  CHECK_OK(lake_metadata(f.lake, loc, &b, &err), &err);
  CHECK(b && b->record_count == 3);
  iceberg_table_free(a);
  iceberg_table_free(b);
  free(loc);
  fx_free(&f);
}

TEST(the_metadata_cache_keeps_the_most_recently_used) {
  fixture f = fx_new();
  weir_error err = {0};
  enum { N = 18 }; /* more versions than the cache holds (16) */
  char *locs[N];
  CHECK_OK(import(&f, "t", WEIR_MODE_CREATE, &err), &err);
  locs[0] = metadata_of(&f, "default.t");
  for (int i = 1; i < N; i++) {
    CHECK_OK(import(&f, "t", WEIR_MODE_APPEND, &err), &err);
    locs[i] = metadata_of(&f, "default.t");
  }
  for (int i = 0; i < N; i++) { /* oldest first: the first two fall out */
    iceberg_table *t = NULL;
    CHECK_OK(lake_metadata(f.lake, locs[i], &t, &err), &err);
    CHECK(t && t->record_count == 3 * (i + 1));
    iceberg_table_free(t);
  }
  for (int i = 0; i < N; i++) CHECK_INT(unlink(locs[i]), 0);
  iceberg_table *t = NULL;
  CHECK_OK(lake_metadata(f.lake, locs[N - 1], &t, &err), &err); /* recent: cached */
  iceberg_table_free(t);
  t = NULL;
  CHECK(lake_metadata(f.lake, locs[0], &t, &err) != WEIR_OK); /* evicted, and gone from disk */
  CHECK(err.message != NULL);
  weir_error_clear(&err);
  iceberg_table_free(t);
  for (int i = 0; i < N; i++) free(locs[i]);
  fx_free(&f);
}

TEST_MAIN()
