/*
 * test_oom.c -- out of memory is an error, never an abort or a half-written lake
 * (src/util/error.h, docs/memory.md).
 *
 * The way SQLite proves it (its malloc tests): a WEIR_FAILPOINTS build fails the nth
 * allocation (wr_alloc_fail_after), and each operation is run for n = 1, 2, ... over the
 * public API. Every run must either succeed or return WEIR_ENOMEM "out of memory"; then
 * the lake, opened again with no failure armed, must hold either the state from before
 * the operation or the state after it, and read correctly; LeakSanitizer (this binary
 * runs in build-asan) checks at exit that each failed run freed what it had allocated.
 * The sweep of an operation ends at the first n its run never reaches.
 *
 * An operation makes thousands of allocations (DuckDB's own are not counted: they are its
 * business), so `make test` walks each with a stride that gives about STEPS runs;
 * $WEIR_OOM_STRIDE=1 (make oom) walks every allocation. The sweeps need the failure
 * counter, so they exist in WEIR_FAILPOINTS builds only (build-asan, where `make test`
 * runs them); the tests of SQLite's and DuckDB's own out-of-memory errors run in both.
 */
#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "util/buf.h"
#include "util/error.h"

#define STEPS 20

typedef struct fixture {
  char *dir;
  char lake[4200];
  char csv[4200];
  char contract[4200];
} fixture;

static void write_file(const char *path, const char *text) {
  FILE *o = fopen(path, "w");
  if (!o) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(99);
  }
  fputs(text, o);
  fclose(o);
}

static int import_csv(weir_lake *lake, const char *csv, const char *table, const char *branch,
                      weir_write_mode mode, weir_error *err) {
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = table;
  o.branch = branch;
  o.mode = mode;
  char *out = NULL;
  int rc = weir_table_import(lake, csv, &o, &out, err);
  if (rc == WEIR_OK && !out) {
    fprintf(stderr, "import returned no document\n");
    rc = WEIR_EGENERIC;
  }
  weir_free(out);
  return rc;
}

/* A lake with table `people` (3 rows) on main and a branch `dev` with 2 more appended. */
static fixture fx_new(bool with_lake) {
  fixture f = {0};
  f.dir = test_tmpdir();
  snprintf(f.lake, sizeof f.lake, "%s/lake", f.dir);
  snprintf(f.csv, sizeof f.csv, "%s/rows.csv", f.dir);
  snprintf(f.contract, sizeof f.contract, "%s/people.yaml", f.dir);
  write_file(f.csv, "id,name\n1,a\n2,b\n3,c\n");
  write_file(f.contract, "contract:\n  name: people\n  columns:\n    - {name: id, type: Int64, max: 2}\n"
                         "    - {name: name, type: String}\n");
  if (!with_lake) return f;
  weir_error err = {0};
  weir_lake *lake = NULL;
  char head[WEIR_HASH_HEX_SIZE];
  if (weir_lake_init(f.lake, NULL, &lake, &err) || import_csv(lake, f.csv, "people", NULL, WEIR_MODE_CREATE, &err) ||
      weir_branch_create(lake, "dev", "main", head, &err) ||
      import_csv(lake, f.csv, "people", "dev", WEIR_MODE_APPEND, &err)) {
    fprintf(stderr, "fixture: %s\n", err.message);
    exit(99);
  }
  weir_lake_free(lake);
  return f;
}

static void fx_free(fixture *f) {
  test_rmtree(f->dir);
  free(f->dir);
}

/* count(*) of `sql` at `ref`, or -1 with err filled. */
static int64_t count(weir_lake *lake, const char *sql, const char *ref, weir_error *err) {
  struct ArrowArrayStream out;
  if (weir_query_run(lake, sql, ref, &out, err) != WEIR_OK) return -1;
  struct ArrowSchema schema;
  int64_t v = -1;
  if (out.get_schema(&out, &schema) == 0) {
    struct ArrowArray a;
    while (out.get_next(&out, &a) == 0 && a.release) {
      if (a.length > 0) v = ((const int64_t *)a.children[0]->buffers[1])[a.children[0]->offset];
      a.release(&a);
    }
    schema.release(&schema);
  }
  out.release(&out);
  return v;
}

#ifdef WEIR_FAILPOINTS
/* The number of commits in `ref`'s log, or -1. */
static int64_t log_length(weir_lake *lake, const char *ref, weir_error *err) {
  char *out = NULL;
  if (weir_commit_log(lake, ref, 0, &out, err) != WEIR_OK) return -1;
  json_t *doc = json_loads(out, 0, NULL);
  int64_t n = json_is_array(json_object_get(doc, "commits")) ? (int64_t)json_array_size(json_object_get(doc, "commits")) : -1;
  json_decref(doc);
  weir_free(out);
  return n;
}

/* ---- the operations ------------------------------------------------------------------ */

typedef int (*op_fn)(fixture *f, weir_error *err);

static int op_init(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  int rc = weir_lake_init(f->lake, NULL, &lake, err);
  weir_lake_free(lake);
  return rc;
}

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

/* ---- the sweep ------------------------------------------------------------------------ */

typedef struct state {
  int64_t main_log, dev_log, main_rows, branches;
} state;

/* What a lake holds, read with no failure armed; fails the test when it cannot be read. */
static state read_state(fixture *f, const char *op, long n) {
  state s = {-1, -1, -1, -1};
  weir_error err = {0};
  weir_lake *lake = NULL;
  if (weir_lake_open(f->lake, NULL, &lake, &err) != WEIR_OK) {
    TEST_FAIL_("%s, allocation %ld failed: the lake no longer opens: %s", op, n, err.message);
    weir_error_clear(&err);
    return s;
  }
  s.main_log = log_length(lake, "main", &err);
  s.dev_log = log_length(lake, "dev", &err);
  char *out = NULL;
  if (weir_branch_list(lake, &out, &err) == WEIR_OK) {
    json_t *doc = json_loads(out, 0, NULL);
    s.branches = (int64_t)json_array_size(json_object_get(doc, "branches"));
    json_decref(doc);
  }
  weir_free(out);
  weir_error_clear(&err);
  s.main_rows = count(lake, "SELECT count(*) FROM people", "main", &err);
  if (s.main_rows < 0 && err.code != WEIR_ENOTFOUND)
    TEST_FAIL_("%s, allocation %ld failed: main no longer reads: %s", op, n, err.message);
  weir_error_clear(&err);
  weir_lake_free(lake);
  return s;
}

static bool same(state a, state b) {
  return a.main_log == b.main_log && a.dev_log == b.dev_log && a.main_rows == b.main_rows &&
         a.branches == b.branches;
}

static long stride_for(long total) {
  const char *e = getenv("WEIR_OOM_STRIDE");
  if (e && *e) return atol(e) > 0 ? atol(e) : 1;
  return total / STEPS > 0 ? total / STEPS : 1;
}

/* Runs `op` once without failures (the state after it is `after`; `before` is the
 * fixture's), then for n = 1, 1 + stride, ... with the nth allocation failing. */
static void sweep(const char *name, op_fn op, bool with_lake) {
  fixture f = fx_new(with_lake);
  state before = with_lake ? read_state(&f, name, 0) : (state){0};
  weir_error err = {0};
  long a0 = wr_alloc_count();
  int rc = op(&f, &err);
  long total = wr_alloc_count() - a0;
  if (rc != WEIR_OK) TEST_FAIL_("%s fails with no failure injected: %s", name, err.message);
  weir_error_clear(&err);
  state after = read_state(&f, name, 0);
  fx_free(&f);
  long stride = stride_for(total), runs = 0, failed = 0;
  for (long n = 1;; n += stride) {
    f = fx_new(with_lake);
    long f0 = wr_alloc_failures();
    wr_alloc_fail_after(n);
    rc = op(&f, &err);
    wr_alloc_fail_after(0);
    bool injected = wr_alloc_failures() > f0;
    runs++;
    if (!injected) {
      if (rc != WEIR_OK) TEST_FAIL_("%s, nothing failed at allocation %ld, yet: %s", name, n, err.message);
      weir_error_clear(&err);
      fx_free(&f);
      break;
    }
    if (rc == WEIR_ENOMEM) {
      failed++;
      if (!err.message || strstr(err.message, "out of memory") != err.message)
        TEST_FAIL_("%s, allocation %ld: WEIR_ENOMEM with message \"%s\"", name, n, err.message ? err.message : "");
    } else if (rc != WEIR_OK) {
      TEST_FAIL_("%s, allocation %ld failed: %s %s (expected WEIR_ENOMEM)", name, n, weir_error_name(rc),
                 err.message ? err.message : "");
    }
    weir_error_clear(&err);
    if (with_lake || rc == WEIR_OK) {
      state s = read_state(&f, name, n);
      if (!same(s, after) && !(rc != WEIR_OK && same(s, before)))
        TEST_FAIL_("%s, allocation %ld failed (%s): the lake holds log %lld/%lld, %lld rows, %lld branches; "
                   "expected the state before (%lld/%lld, %lld, %lld) or after (%lld/%lld, %lld, %lld)",
                   name, n, weir_error_name(rc), (long long)s.main_log, (long long)s.dev_log,
                   (long long)s.main_rows, (long long)s.branches, (long long)before.main_log,
                   (long long)before.dev_log, (long long)before.main_rows, (long long)before.branches,
                   (long long)after.main_log, (long long)after.dev_log, (long long)after.main_rows,
                   (long long)after.branches);
    } else {
      /* A failed init leaves no lake behind that cannot be opened or made again. */
      weir_lake *lake = NULL;
      int orc = weir_lake_open(f.lake, NULL, &lake, &err);
      if (orc != WEIR_OK && orc != WEIR_ENOTFOUND)
        TEST_FAIL_("init, allocation %ld failed: what it left does not open: %s", n, err.message);
      weir_error_clear(&err);
      weir_lake_free(lake);
      if (orc == WEIR_ENOTFOUND) {
        test_rmtree(f.lake);
        if (op_init(&f, &err) != WEIR_OK) TEST_FAIL_("init, allocation %ld failed: init again fails: %s", n, err.message);
        weir_error_clear(&err);
      }
    }
    fx_free(&f);
    if (test_failed_current_) break;
  }
  fprintf(stderr, "  %s: %ld allocations, %ld runs (stride %ld), %ld reported out of memory\n", name, total, runs,
          stride, failed);
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
