/* Opening, creating and migrating catalogs; durability settings; the first commit. */
#include <sqlite3.h>

#include "catalog/catalog_internal.h"
#include "catalog/migrations.h"
#include "fixtures.h"

TEST(create_makes_initial_commit_on_main) {
  fx f = fx_new();
  weir_error err = {0};
  char head[WEIR_HASH_LEN + 1];
  CHECK_OK(catalog_ref_get(f.cat, WEIR_REF_BRANCH, "main", head, &err), &err);
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, head, &c, &err), &err);
  CHECK_STR(c.message, "initial commit");
  CHECK_STR(c.author, "tester");
  CHECK_INT(c.n_parents, 0);
  CHECK_INT(c.generation, 1);
  CHECK(json_object_size(c.properties) == 0);
  wr_table_entry *t = NULL;
  size_t n = 99;
  CHECK_OK(catalog_tables(f.cat, head, &t, &n, &err), &err);
  CHECK_INT(n, 0);
  wr_table_entries_free(t, n);
  wr_commit_rec_clear(&c);
  CHECK_INT(catalog_schema_version(f.cat), catalog_schema_latest());
  fx_free(&f);
}

TEST(create_refuses_existing_and_open_requires_one) {
  fx f = fx_new();
  weir_error err = {0};
  wr_catalog *c2 = NULL;
  CHECK_INT(catalog_open(f.path, true, NULL, &c2, &err), WEIR_EEXISTS);
  CHECK_CONTAINS(err.message, "already exists");
  if (!fx_is_pg()) CHECK_CONTAINS(err.message, f.path);
  CHECK(c2 == NULL);
  char *missing = fx_location(f.dir, "nope");
  CHECK_INT(catalog_open(missing, false, NULL, &c2, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nope");
  if (!fx_is_pg()) {
    /* sqlite: prefix works too */
    char *uri = wr_asprintf("sqlite:%s", f.path);
    CHECK_OK(catalog_open(uri, false, NULL, &c2, &err), &err);
    catalog_close(c2);
    free(uri);
  }
  free(missing);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(foreign_files_are_refused) {
  char *dir = test_tmpdir();
  wr_catalog *c = NULL;
  weir_error err = {0};
  if (!fx_is_pg()) {
    char *junk = wr_asprintf("%s/junk.db", dir);
    FILE *fp = fopen(junk, "w");
    fputs("this is not a database at all, just some text that is long enough ....................................", fp);
    fclose(fp);
    CHECK_INT(catalog_open(junk, false, NULL, &c, &err), WEIR_ECATALOG);
    CHECK_CONTAINS(err.message, "junk.db");
    free(junk);
  }
  /* a database (for PostgreSQL: a schema) of someone else's */
  char *other = fx_location(dir, "other");
  if (fx_is_pg()) {
    char *q = strstr(other, "schema=");
    char *sql = wr_asprintf("CREATE SCHEMA %s; CREATE TABLE %s.t (x int)", q + 7, q + 7);
    CHECK_INT(fx_sql(other, sql), 0);
    free(sql);
  } else CHECK_INT(fx_sql(other, "CREATE TABLE t (x)"), 0);
  CHECK_INT(catalog_open(other, false, NULL, &c, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "not a weir catalog");
  CHECK_INT(catalog_open(other, true, NULL, &c, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "not a weir catalog");
  weir_error_clear(&err);
  free(other);
  test_rmtree(dir);
  free(dir);
}

TEST(newer_schema_is_refused) {
  fx f = fx_new();
  catalog_close(f.cat);
  f.cat = NULL;
  CHECK_INT(fx_sql(f.path, "INSERT INTO weir_schema_migrations VALUES (999, 'future', 0)"), 0);
  weir_error err = {0};
  CHECK_INT(catalog_open(f.path, false, NULL, &f.cat, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "schema version 999");
  CHECK_CONTAINS(err.message, "upgrade weir");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(older_schema_is_migrated_forward) {
  char *dir = test_tmpdir();
  char *path = fx_location(dir, "old");
  wr_catalog *c = NULL;
  weir_error err = {0};
  CHECK_OK(catalog_open_at_version(path, true, "old", NULL, 1, 0, &c, &err), &err);
  CHECK_INT(catalog_schema_version(c), 1);
  catalog_close(c);
  CHECK_OK(catalog_open(path, false, NULL, &c, &err), &err);
  CHECK_INT(catalog_schema_version(c), catalog_schema_latest());
  /* the step-2 tables exist and work */
  CHECK_OK(catalog_run_create(c, "r1", "p", "d", "main", NULL, "run/r1", &err), &err);
  wr_run_status st;
  CHECK_OK(catalog_run_status(c, "r1", &st, &err), &err);
  CHECK_INT(st, WEIR_RUN_RUNNING);
  catalog_close(c);
  weir_error_clear(&err);
  free(path);
  test_rmtree(dir);
  free(dir);
}

TEST(migrations_are_ordered_and_complete) {
  size_t n = 0;
  const catalog_migration *m = catalog_migrations(&n);
  CHECK(n >= 2);
  for (size_t i = 0; i < n; i++) {
    CHECK_INT(m[i].version, (int)i + 1);
    CHECK(m[i].statements && m[i].statements[0]);
  }
  CHECK_INT(catalog_schema_latest(), m[n - 1].version);
}

TEST(migrations_have_one_list_with_per_dialect_forms) {
  size_t n = 0;
  const catalog_migration *m = catalog_migrations(&n);
  /* Step 1's commits table has a PostgreSQL form (byte-order hashes); SQLite runs the
   * neutral statement; other statements are the same for both. */
  CHECK_CONTAINS(catalog_migration_sql(&m[0], 1, "postgresql"), "COLLATE \"C\"");
  CHECK(catalog_migration_sql(&m[0], 1, "sqlite") == m[0].statements[1]);
  CHECK(strstr(catalog_migration_sql(&m[0], 1, "sqlite"), "COLLATE") == NULL);
  CHECK(catalog_migration_sql(&m[0], 0, "postgresql") == m[0].statements[0]);
  CHECK(catalog_migration_sql(&m[n - 1], 0, "postgresql") == m[n - 1].statements[0]);
}

static char *pragma(const char *path, const char *sql) {
  sqlite3 *db = NULL;
  sqlite3_open(path, &db);
  sqlite3_stmt *s = NULL;
  char *out = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    out = wr_strdup((const char *)sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

TEST(wal_mode_and_sync_setting) {
  if (fx_is_pg()) return; /* SQLite's own settings */
  fx f = fx_new();
  char *mode = pragma(f.path, "PRAGMA journal_mode");
  CHECK_STR(mode, "wal");
  free(mode);
  wr_catalog *c = NULL;
  weir_error err = {0};
  wr_catalog_settings bogus = {.sync = 7};
  CHECK_INT(catalog_open_with(f.path, false, NULL, &bogus, &c, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "catalog_sync is 7");
  wr_catalog_settings negative = {.busy_timeout_ms = -1};
  CHECK_INT(catalog_open_with(f.path, false, NULL, &negative, &c, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "busy_timeout_ms is -1");
  wr_catalog_settings full = {.sync = WEIR_SYNC_FULL, .busy_timeout_ms = 500};
  CHECK_OK(catalog_open_with(f.path, false, NULL, &full, &c, &err), &err);
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  catalog_close(c);
  weir_error_clear(&err);
  fx_free(&f);
}

/* The library reads no environment: the author is what the caller (the lake) passes. */
TEST(author_is_the_callers_not_the_environment) {
  setenv("WEIR_AUTHOR", "env-author", 1);
  char *dir = test_tmpdir();
  char *path = fx_location(dir, "c");
  wr_catalog *c = NULL;
  weir_error err = {0};
  CHECK_OK(catalog_open(path, true, NULL, &c, &err), &err);
  char head[WEIR_HASH_LEN + 1];
  CHECK_OK(catalog_ref_get(c, WEIR_REF_BRANCH, "main", head, &err), &err);
  wr_commit_rec rec;
  CHECK_OK(catalog_commit_get(c, head, &rec, &err), &err);
  CHECK_STR(rec.author, "weir");
  wr_commit_rec_clear(&rec);
  catalog_close(c);
  unsetenv("WEIR_AUTHOR");
  free(path);
  test_rmtree(dir);
  free(dir);
}

TEST(data_survives_reopen) {
  fx f = fx_new();
  fx_set(&f, "main", "default.a", "/w/a1", NULL);
  fx_reopen(&f);
  CHECK_STR(fx_loc(&f, "main", "default.a"), "/w/a1");
  CHECK_INT(fx_count(&f, "main"), 2);
  fx_free(&f);
}

TEST_MAIN()
