/*
 * test_oom.c -- out of memory is an error, never an abort or a half-written lake
 * (src/util/error.h, docs/memory.md): the sweeps of the core operations (the sweep itself
 * is tests/c/lake/oom_sweep.h; other test_oom_*.c files sweep other modules' operations),
 * the allocators, and SQLite's and DuckDB's own out-of-memory errors (in every build).
 */
#include <sqlite3.h>

#include "oom_sweep.h"

#ifdef WEIR_FAILPOINTS
/* ---- the operations ------------------------------------------------------------------ */



static int op_open_and_list(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  int rc = weir_lake_open(f->lake, NULL, &lake, err);
  char *out = NULL;
  if (!rc) rc = weir_table_list(lake, "main", &out, err);
  weir_free(out);
  out = NULL;
  if (!rc) rc = weir_branch_list(lake, &out, err);
  weir_free(out);
  out = NULL;
  if (!rc) rc = weir_commit_log(lake, "dev", 0, &out, err);
  weir_free(out);
  out = NULL;
  if (!rc) rc = weir_commit_show(lake, "dev", &out, err);
  weir_free(out);
  out = NULL;
  if (!rc) rc = weir_commit_diff(lake, "main", "dev", &out, err);
  weir_free(out);
  weir_lake_free(lake);
  return rc;
}

static int op_branch_create(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  char head[WEIR_HASH_HEX_SIZE];
  int rc = weir_lake_open(f->lake, NULL, &lake, err);
  if (!rc) rc = weir_branch_create(lake, "feature", "dev", head, err);
  weir_lake_free(lake);
  return rc;
}

static int op_merge(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  int rc = weir_lake_open(f->lake, NULL, &lake, err);
  char *out = NULL;
  weir_merge_options o = WEIR_MERGE_OPTIONS_INIT;
  o.no_ff = true; /* a merge commit: the catalog's three-way path, not only a ref move */
  if (!rc) rc = weir_branch_merge(lake, "dev", "main", &o, &out, err);
  weir_free(out);
  weir_lake_free(lake);
  return rc;
}

static int op_import(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  int rc = weir_lake_open(f->lake, NULL, &lake, err);
  if (!rc) rc = import_csv(lake, f->csv, "people", NULL, WEIR_MODE_APPEND, err);
  weir_lake_free(lake);
  return rc;
}

static int op_query(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  int rc = weir_lake_open(f->lake, NULL, &lake, err);
  if (!rc && count(lake, "SELECT count(*) FROM people", "dev", err) != 6) rc = err->code ? err->code : WEIR_EGENERIC;
  weir_lake_free(lake);
  return rc;
}

static int op_contract(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  weir_contract *c = NULL;
  int rc = weir_lake_open(f->lake, NULL, &lake, err);
  if (!rc) rc = weir_contract_load(f->contract, &c, err);
  char *ir = c ? weir_contract_to_json(c) : NULL;
  if (c && !ir) rc = WEIR_ENOMEM; /* weir_contract_to_json: NULL only on OOM */
  weir_free(ir);
  struct ArrowArrayStream s;
  if (!rc) rc = weir_query_run(lake, "SELECT * FROM people", "main", &s, err);
  char *report = NULL;
  if (!rc) {
    rc = weir_contract_validate(c, &s, NULL, &report, err);
    /* id 3 is above the maximum 2: a violation, whose report must be whole. */
    if (rc == WEIR_ECONTRACT) rc = report && strstr(report, "\"kind\": \"range\"") ? WEIR_OK : WEIR_EGENERIC;
    else if (rc == WEIR_OK) rc = WEIR_EGENERIC;
  }
  weir_free(report);
  weir_contract_free(c);
  weir_lake_free(lake);
  return rc;
}

TEST(oom_init) { sweep("init", op_init, false); }
TEST(oom_open_list_log_show_diff) { sweep("open/list/log/show/diff", op_open_and_list, true); }
TEST(oom_branch_create) { sweep("branch create", op_branch_create, true); }
TEST(oom_merge) { sweep("merge", op_merge, true); }
TEST(oom_import) { sweep("import", op_import, true); }
TEST(oom_query) { sweep("query", op_query, true); }
TEST(oom_contract_load_validate) { sweep("contract load/validate", op_contract, true); }

/* The allocators themselves: NULL, never an abort, and wr_buf's sticky failure. */
TEST(allocators_return_null_and_buffers_stay_failed) {
  wr_alloc_fail_after(1);
  void *p = wr_malloc(16);
  CHECK(p == NULL);
  p = wr_malloc(16);
  CHECK(p != NULL);
  free(p);
  wr_alloc_fail_after(1);
  CHECK(wr_strdup("x") == NULL);
  CHECK(wr_strdup(NULL) == NULL);
  wr_alloc_fail_after(1);
  CHECK(json_object() == NULL); /* jansson allocates through weir */
  weir_error err = {0};
  CHECK_INT(wr_oom(&err), WEIR_ENOMEM);
  CHECK_STR(err.message, "out of memory");
  weir_error_clear(&err);
  /* A message that cannot be allocated makes the error WEIR_ENOMEM. */
  wr_json_mark();
  wr_alloc_fail_after(1);
  CHECK_INT(wr_seterr(&err, WEIR_ENOTFOUND, "table %s not found", "t"), WEIR_ENOMEM);
  CHECK_INT(err.code, WEIR_ENOMEM);
  CHECK_STR(err.message, "out of memory");
  weir_error_clear(&err);
  /* And so does any error raised after an allocation failed in the same call (the
   * mallocFailed rule): here the failure above, since the mark. */
  CHECK_INT(wr_seterr(&err, WEIR_EINPUT, "not JSON"), WEIR_ENOMEM);
  CHECK_STR(err.message, "out of memory");
  weir_error_clear(&err);
  wr_json_mark();
  CHECK_INT(wr_seterr(&err, WEIR_EINPUT, "not JSON"), WEIR_EINPUT);
  weir_error_clear(&err);
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, "SELECT 1");
  wr_alloc_fail_after(1);
  wr_buf_printf(&b, "%0100d", 7); /* must grow past the first 64 bytes: fails */
  wr_buf_puts(&b, " FROM t");     /* then nothing is appended: no truncated statement */
  CHECK_INT(wr_buf_status(&b), WEIR_ENOMEM);
  CHECK_STR(wr_buf_cstr(&b), "");
  CHECK(wr_buf_detach(&b) == NULL);
  CHECK_INT(wr_buf_status(&b), WEIR_OK); /* detached: empty and usable again */
  wr_buf_puts(&b, "x");
  char *s = wr_buf_detach(&b);
  CHECK_STR(s, "x");
  free(s);
}
#endif /* WEIR_FAILPOINTS */

/* ---- the engines' own out of memory ----------------------------------------------------- */

/* SQLite reports its own out of memory (SQLITE_NOMEM) as weir's: a heap limit this
 * process sets makes the catalog's allocations fail inside SQLite. */
TEST(sqlite_nomem_is_weir_enomem) {
  fixture f = fx_new(true);
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_open(f.lake, NULL, &lake, &err), &err);
  sqlite3_int64 old = sqlite3_hard_heap_limit64(-1);
  sqlite3_hard_heap_limit64(sqlite3_memory_used() + 1024);
  char head[WEIR_HASH_HEX_SIZE];
  int rc = WEIR_OK;
  for (int i = 0; i < 200 && rc == WEIR_OK; i++) {
    char name[32];
    snprintf(name, sizeof name, "b%d", i);
    rc = weir_branch_create(lake, name, "main", head, &err);
  }
  sqlite3_hard_heap_limit64(old);
  CHECK_INT(rc, WEIR_ENOMEM);
  CHECK_STR(err.message, "out of memory");
  weir_error_clear(&err);
  CHECK_OK(weir_branch_create(lake, "after", "main", head, &err), &err);
  weir_lake_free(lake);
  fx_free(&f);
}

/* DuckDB's out-of-memory error (its memory_limit reached) is weir's too. */
TEST(duckdb_out_of_memory_is_weir_enomem) {
  fixture f = fx_new(true);
  weir_error err = {0};
  weir_lake *lake = NULL;
  weir_lake_options o = WEIR_LAKE_OPTIONS_INIT;
  o.memory_limit = "32MB";
  o.threads = 1;
  CHECK_OK(weir_lake_open(f.lake, &o, &lake, &err), &err);
  struct ArrowArrayStream s;
  int rc = weir_query_run(lake, "SELECT string_agg(repeat('x', 100), ',') FROM range(2000000)", NULL, &s, &err);
  if (rc == WEIR_OK) s.release(&s);
  CHECK_INT(rc, WEIR_ENOMEM);
  CHECK(err.message && strstr(err.message, "out of memory") == err.message);
  CHECK_CONTAINS(err.message, "Out of Memory Error");
  CHECK_INT(weir_error_exit_code(rc), 1);
  CHECK_STR(weir_error_name(rc), "OutOfMemory");
  weir_error_clear(&err);
  CHECK_INT(count(lake, "SELECT count(*) FROM people", "main", &err), 3);
  weir_lake_free(lake);
  fx_free(&f);
}
TEST_MAIN()
