/*
 * fixtures.h -- helpers shared by the catalog tests: fresh catalogs in temporary folders
 * and one-line commits.
 */
#ifndef WEIR_TEST_CATALOG_FIXTURES_H
#define WEIR_TEST_CATALOG_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "harness.h"
#include "util/json.h"

typedef struct fx {
  char *dir;
  char *path; /* the catalog's location: a SQLite file, or a PostgreSQL URI with its schema */
  wr_catalog *cat;
} fx;

/* ---- the backend under test ------------------------------------------------------------
 * Every catalog test runs twice under CTest (CMakeLists.txt): on SQLite, and with
 * WEIR_TEST_CATALOG=postgresql on a PostgreSQL server that the CTest fixture pg_server
 * started (tests/pgserver.py), whose base URI is in $WEIR_BUILD_DIR/pgtest/uri and whose
 * password libpq finds in $PGPASSFILE. WEIR_TEST_CATALOG may also be a postgresql:// URI
 * of a server of one's own. Each catalog then gets a schema of its own. */

/* The base URI of the PostgreSQL server under test, or NULL when testing SQLite. */
static inline const char *fx_pg_base(void) {
  static char base[1024];
  const char *mode = getenv("WEIR_TEST_CATALOG");
  if (!mode || !*mode || strcmp(mode, "sqlite") == 0) return NULL;
  if (base[0]) return base;
  if (strncmp(mode, "postgresql://", 13) == 0) {
    snprintf(base, sizeof base, "%s", mode);
    return base;
  }
  const char *build = getenv("WEIR_BUILD_DIR");
  char file[4096];
  snprintf(file, sizeof file, "%s/pgtest/uri", build ? build : ".");
  FILE *fp = fopen(file, "r");
  if (!fp || !fgets(base, sizeof base, fp)) {
    fprintf(stderr, "WEIR_TEST_CATALOG=%s but no server URI in %s (the pg_server CTest fixture starts one)\n",
            mode, file);
    exit(99);
  }
  fclose(fp);
  base[strcspn(base, "\r\n")] = 0;
  return base;
}

static inline bool fx_is_pg(void) { return fx_pg_base() != NULL; }

/* A fresh catalog location named `name` (malloc'd): DIR/NAME.db, or the test server's
 * database with a new schema. */
static inline char *fx_location(const char *dir, const char *name) {
  static int seq;
  const char *base = fx_pg_base();
  size_t n = strlen(dir) + strlen(name) + 1200;
  char *out = malloc(n);
  if (base)
    snprintf(out, n, "%s%sschema=t%ld_%d_%s", base, strchr(base, '?') ? "&" : "?", (long)getpid(), ++seq, name);
  else snprintf(out, n, "%s/%s.db", dir, name);
  return out;
}

/* Runs SQL directly on the catalog's database (in its schema), bypassing weir: for tests
 * that forge states weir would not write or count rows. Returns 0 on success; with `out`,
 * the first column of the first row (malloc'd; "" when there is none). */
static inline int fx_query(const char *location, const char *sql, char **out) {
  if (out) *out = NULL;
  if (strncmp(location, "postgresql://", 13) != 0) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open(location, &db);
    sqlite3_stmt *s = NULL;
    if (rc == SQLITE_OK && out) {
      rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
      if (rc == SQLITE_OK) {
        int st = sqlite3_step(s);
        *out = strdup(st == SQLITE_ROW && sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "");
        rc = st == SQLITE_ROW || st == SQLITE_DONE ? SQLITE_OK : st;
      }
      sqlite3_finalize(s);
    } else if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
  }
  char uri[2048];
  snprintf(uri, sizeof uri, "%s", location);
  char *q = strstr(uri, "schema=");
  char schema[128] = "public";
  if (q) {
    snprintf(schema, sizeof schema, "%.*s", (int)strcspn(q + 7, "&"), q + 7);
    char *start = q - 1; /* the ? or & before it */
    char *end = q + 7 + strcspn(q + 7, "&");
    if (*end == '&') memmove(q, end + 1, strlen(end + 1) + 1);
    else *start = 0;
  }
  PGconn *c = PQconnectdb(uri);
  int rc = PQstatus(c) == CONNECTION_OK ? 0 : 1;
  if (!rc) {
    char set[256];
    snprintf(set, sizeof set, "SET search_path TO \"%s\"", schema);
    PQclear(PQexec(c, set));
    PGresult *r = PQexec(c, sql);
    rc = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : 1;
    if (rc) fprintf(stderr, "fx_query: %s", PQerrorMessage(c));
    else if (out) *out = strdup(PQntuples(r) > 0 && PQnfields(r) > 0 ? PQgetvalue(r, 0, 0) : "");
    PQclear(r);
  } else fprintf(stderr, "fx_query: %s", PQerrorMessage(c));
  PQfinish(c);
  return rc;
}

static inline int fx_sql(const char *location, const char *sql) { return fx_query(location, sql, NULL); }

static inline fx fx_new(void) {
  fx f = {0};
  f.dir = test_tmpdir();
  f.path = fx_location(f.dir, "catalog");
  weir_error err = {0};
  if (catalog_open(f.path, true, "tester", &f.cat, &err) != WEIR_OK) {
    fprintf(stderr, "cannot create catalog %s: %s\n", f.path, test_err_message_(&err));
    exit(99);
  }
  return f;
}

static inline void fx_reopen(fx *f) {
  catalog_close(f->cat);
  weir_error err = {0};
  if (catalog_open(f->path, false, "tester", &f->cat, &err) != WEIR_OK) {
    fprintf(stderr, "cannot reopen catalog %s: %s\n", f->path, test_err_message_(&err));
    exit(99);
  }
}

static inline void fx_free(fx *f) {
  catalog_close(f->cat);
  test_rmtree(f->dir);
  free(f->dir);
  free(f->path);
  memset(f, 0, sizeof *f);
}

/* Head of a branch ("" if it does not exist). Static buffer rotated over 8 calls. */
static inline const char *fx_head(fx *f, const char *branch) {
  static char bufs[8][WEIR_HASH_LEN + 1];
  static int k;
  char *b = bufs[k++ % 8];
  weir_error err = {0};
  if (catalog_ref_get(f->cat, WEIR_REF_BRANCH, branch, b, &err) != WEIR_OK) b[0] = 0;
  weir_error_clear(&err);
  return b;
}

/* Commits changes on `branch` at its current head; returns the status, hash in out. */
static inline int fx_commit_n(fx *f, const char *branch, const wr_table_change *c, size_t n,
                              const char *run_id, char out[WEIR_HASH_LEN + 1], weir_error *err) {
  char head[WEIR_HASH_LEN + 1];
  int rc = catalog_ref_get(f->cat, WEIR_REF_BRANCH, branch, head, err);
  if (rc) return rc;
  wr_commit_request req = {.branch = branch, .expected_head = head, .changes = c,
                             .n_changes = n, .message = "test commit", .run_id = run_id};
  char tmp[WEIR_HASH_LEN + 1];
  return catalog_commit(f->cat, &req, out ? out : tmp, err);
}

/* Sets one table (loc NULL drops it) on `branch`; fails the test on error. */
static inline void fx_set(fx *f, const char *branch, const char *table, const char *loc,
                          const char *run_id) {
  wr_table_change c = {table, loc, loc ? 1 : -1, loc ? 10 : 0};
  weir_error err = {0};
  CHECK_OK(fx_commit_n(f, branch, &c, 1, run_id, NULL, &err), &err);
  weir_error_clear(&err);
}

/* metadata_location of `table` at ref, or NULL (static buffer). */
static inline const char *fx_loc(fx *f, const char *ref, const char *table) {
  static char buf[4096];
  char h[WEIR_HASH_LEN + 1];
  weir_error err = {0};
  if (catalog_resolve(f->cat, ref, h, &err) != WEIR_OK) {
    weir_error_clear(&err);
    return NULL;
  }
  wr_table_entry e = {0};
  if (catalog_table_get(f->cat, h, table, &e, &err) != WEIR_OK) {
    weir_error_clear(&err);
    return NULL;
  }
  snprintf(buf, sizeof buf, "%s", e.metadata_location);
  wr_table_entry_clear(&e);
  return buf;
}

static inline void fx_branch(fx *f, const char *name, const char *from) {
  char h[WEIR_HASH_LEN + 1];
  weir_error err = {0};
  CHECK_OK(catalog_resolve(f->cat, from, h, &err), &err);
  CHECK_OK(catalog_ref_create(f->cat, WEIR_REF_BRANCH, name, h, &err), &err);
  weir_error_clear(&err);
}

/* Number of commits reachable from ref. */
static inline size_t fx_count(fx *f, const char *ref) {
  char h[WEIR_HASH_LEN + 1];
  weir_error err = {0};
  if (catalog_resolve(f->cat, ref, h, &err) != WEIR_OK) {
    weir_error_clear(&err);
    return 0;
  }
  wr_commit_rec *v = NULL;
  size_t n = 0;
  if (catalog_log(f->cat, h, 0, &v, &n, &err) != WEIR_OK) n = 0;
  wr_commit_recs_free(v, n);
  weir_error_clear(&err);
  return n;
}

#endif
