/*
 * oom_sweep.h -- the out-of-memory sweep of tests/c/lake/test_oom*.c (docs/memory.md).
 *
 * The way SQLite proves it (its malloc tests): a WEIR_FAILPOINTS build fails the nth
 * allocation (wr_alloc_fail_after), and each operation is run for n = 1, 2, ... over the
 * public API. Every run must either succeed or return WEIR_ENOMEM "out of memory"; then
 * the lake, opened again with no failure armed, must hold either the state from before
 * the operation or the state after it, and read correctly; LeakSanitizer (these binaries
 * run in build-asan) checks at exit that each failed run freed what it had allocated.
 * The sweep of an operation ends at the first n its run never reaches.
 *
 * An operation makes thousands of allocations (DuckDB's own are not counted: they are its
 * business), so `make test` walks each with a stride that gives about STEPS runs;
 * $WEIR_OOM_STRIDE=1 (make oom) walks every allocation. The sweeps need the failure
 * counter, so they exist in WEIR_FAILPOINTS builds only.
 *
 * The fixture: a lake with table `people` (3 rows, id/name) on main and a branch `dev`
 * with 3 more appended; people.yaml a contract on it (id max 2). A test file includes this
 * header once, defines its operations (op_fn) and calls sweep / sweep_prepared from TESTs.
 */
#ifndef WEIR_TEST_OOM_SWEEP_H
#define WEIR_TEST_OOM_SWEEP_H

#include <errno.h>
#include <jansson.h>
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
  char extra[4200]; /* for a sweep's own files: <dir>/extra, made by its prepare hook */
} fixture;

static inline void write_file(const char *path, const char *text) {
  FILE *o = fopen(path, "w");
  if (!o) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    exit(99);
  }
  fputs(text, o);
  fclose(o);
}

static inline int import_csv(weir_lake *lake, const char *csv, const char *table, const char *branch,
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
static inline fixture fx_new(bool with_lake) {
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

static inline void fx_free(fixture *f) {
  test_rmtree(f->dir);
  free(f->dir);
}

/* count(*) of `sql` at `ref`, or -1 with err filled. */
static inline int64_t count(weir_lake *lake, const char *sql, const char *ref, weir_error *err) {
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
static inline int64_t log_length(weir_lake *lake, const char *ref, weir_error *err) {
  char *out = NULL;
  if (weir_commit_log(lake, ref, 0, &out, err) != WEIR_OK) return -1;
  json_t *doc = json_loads(out, 0, NULL);
  int64_t n = json_is_array(json_object_get(doc, "commits")) ? (int64_t)json_array_size(json_object_get(doc, "commits")) : -1;
  json_decref(doc);
  weir_free(out);
  return n;
}

static inline int op_init(fixture *f, weir_error *err) {
  weir_lake *lake = NULL;
  int rc = weir_lake_init(f->lake, NULL, &lake, err);
  weir_lake_free(lake);
  return rc;
}

typedef int (*op_fn)(fixture *f, weir_error *err);

/* ---- the sweep ------------------------------------------------------------------------ */

typedef struct state {
  int64_t main_log, dev_log, main_rows, branches;
} state;

/* What a lake holds, read with no failure armed; fails the test when it cannot be read. */
static inline state read_state(fixture *f, const char *op, long n) {
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

static inline bool same(state a, state b) {
  return a.main_log == b.main_log && a.dev_log == b.dev_log && a.main_rows == b.main_rows &&
         a.branches == b.branches;
}

static inline long stride_for(long total) {
  const char *e = getenv("WEIR_OOM_STRIDE");
  if (e && *e) return atol(e) > 0 ? atol(e) : 1;
  return total / STEPS > 0 ? total / STEPS : 1;
}

/* Runs `op` once without failures (the state after it is `after`; `before` is the
 * fixture's), then for n = 1, 1 + stride, ... with the nth allocation failing. */
static inline void sweep_prepared(const char *name, op_fn prepare, op_fn op, bool with_lake);

static inline void sweep(const char *name, op_fn op, bool with_lake) { sweep_prepared(name, NULL, op, with_lake); }

/* fx_new, then `prepare` (if any) with no failure armed: the fixture a sweep's operation
 * starts from. A prepare that fails ends the test binary (exit 99), as fx_new does. */
static inline fixture fx_prepared(op_fn prepare, bool with_lake) {
  fixture f = fx_new(with_lake);
  snprintf(f.extra, sizeof f.extra, "%s/extra", f.dir);
  if (prepare) {
    weir_error err = {0};
    if (prepare(&f, &err) != WEIR_OK) {
      fprintf(stderr, "prepare: %s\n", err.message ? err.message : "(no message)");
      exit(99);
    }
  }
  return f;
}

/* As sweep, with `prepare` run on every fresh fixture before the operation (unarmed). */
static inline void sweep_prepared(const char *name, op_fn prepare, op_fn op, bool with_lake) {
  fixture f = fx_prepared(prepare, with_lake);
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
    f = fx_prepared(prepare, with_lake);
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
#endif /* WEIR_FAILPOINTS */

#endif
