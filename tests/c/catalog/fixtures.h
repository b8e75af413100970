/*
 * fixtures.h -- helpers shared by the catalog tests: fresh catalogs in temporary folders
 * and one-line commits.
 */
#ifndef WEIR_TEST_CATALOG_FIXTURES_H
#define WEIR_TEST_CATALOG_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "harness.h"
#include "util/json.h"

typedef struct fx {
  char *dir;
  char *path;
  wr_catalog *cat;
} fx;

static inline fx fx_new(void) {
  fx f = {0};
  f.dir = test_tmpdir();
  size_t n = strlen(f.dir) + 32;
  f.path = malloc(n);
  snprintf(f.path, n, "%s/catalog.db", f.dir);
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
