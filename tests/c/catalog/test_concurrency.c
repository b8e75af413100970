/* Several processes writing one branch, and processes killed mid-write. */
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>

#include "catalog/catalog_internal.h"
#include "fixtures.h"

#define WRITERS 8
#define COMMITS 25

/* One writer process: COMMITS commits to main, re-reading and retrying on
 * WEIR_ECONCURRENT. Exit status 0 when all landed. */
static int writer(const char *path, int id) {
  wr_catalog *cat = NULL;
  weir_error err = {0};
  if (catalog_open(path, false, "writer", &cat, &err) != WEIR_OK) {
    fprintf(stderr, "writer %d: open: %s\n", id, test_err_message_(&err));
    return 1;
  }
  int retries = 0;
  for (int j = 0; j < COMMITS; j++) {
    char table[32], loc[48], head[65], out[65];
    snprintf(table, sizeof table, "w%d.t%d", id, j);
    snprintf(loc, sizeof loc, "/w/%d/%d.json", id, j);
    wr_table_change c = {table, loc, j, j};
    for (;;) {
      if (catalog_ref_get(cat, WEIR_REF_BRANCH, "main", head, &err) != WEIR_OK) return 2;
      wr_commit_request req = {.branch = "main", .expected_head = head, .changes = &c,
                                 .n_changes = 1, .message = table};
      int rc = catalog_commit(cat, &req, out, &err);
      if (rc == WEIR_OK) break;
      if (rc != WEIR_ECONCURRENT || ++retries > 100000) {
        fprintf(stderr, "writer %d: commit: %s\n", id, test_err_message_(&err));
        return 3;
      }
    }
  }
  weir_error_clear(&err);
  catalog_close(cat);
  return 0;
}

TEST(concurrent_writers_lose_no_update) {
  fx f = fx_new();
  catalog_close(f.cat);
  f.cat = NULL;
  pid_t pids[WRITERS];
  for (int i = 0; i < WRITERS; i++) {
    pids[i] = fork();
    if (pids[i] == 0) _exit(writer(f.path, i));
  }
  for (int i = 0; i < WRITERS; i++) {
    int st = 0;
    waitpid(pids[i], &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 0);
  }
  fx_reopen(&f);
  CHECK_INT(fx_count(&f, "main"), 1 + WRITERS * COMMITS);
  wr_table_entry *t = NULL;
  size_t n = 0;
  weir_error err = {0};
  CHECK_OK(catalog_tables(f.cat, fx_head(&f, "main"), &t, &n, &err), &err);
  CHECK_INT(n, WRITERS * COMMITS);
  wr_table_entries_free(t, n);
  /* generations are a chain 1..201 along main */
  wr_commit_rec c;
  CHECK_OK(catalog_commit_get(f.cat, fx_head(&f, "main"), &c, &err), &err);
  CHECK_INT(c.generation, 1 + WRITERS * COMMITS);
  wr_commit_rec_clear(&c);
  fx_free(&f);
}

#define MERGERS 4
#define MERGES 8

/* Branch, commit, merge into main; the caller retries merges that gave up. */
static int merger(const char *path, int id) {
  wr_catalog *cat = NULL;
  weir_error err = {0};
  if (catalog_open(path, false, "merger", &cat, &err) != WEIR_OK) return 1;
  for (int j = 0; j < MERGES; j++) {
    char br[32], table[32], head[65], out[65];
    snprintf(br, sizeof br, "m%d-%d", id, j);
    snprintf(table, sizeof table, "m%d.t%d", id, j);
    if (catalog_resolve(cat, "main", head, &err) ||
        catalog_ref_create(cat, WEIR_REF_BRANCH, br, head, &err))
      return 2;
    wr_table_change c = {table, table, 1, 1};
    wr_commit_request req = {.branch = br, .expected_head = head, .changes = &c,
                               .n_changes = 1, .message = table};
    if (catalog_commit(cat, &req, out, &err)) return 3;
    wr_merge_request mr = {.source = br, .into = "main"};
    int rc;
    do {
      json_t *o = NULL;
      rc = catalog_merge(cat, &mr, &o, &err);
      json_decref(o);
    } while (rc == WEIR_ECONCURRENT);
    if (rc) {
      fprintf(stderr, "merger %d: %s\n", id, test_err_message_(&err));
      return 4;
    }
  }
  weir_error_clear(&err);
  catalog_close(cat);
  return 0;
}

TEST(concurrent_merges_all_land) {
  fx f = fx_new();
  catalog_close(f.cat);
  f.cat = NULL;
  pid_t pids[MERGERS];
  for (int i = 0; i < MERGERS; i++) {
    pids[i] = fork();
    if (pids[i] == 0) _exit(merger(f.path, i));
  }
  for (int i = 0; i < MERGERS; i++) {
    int st = 0;
    waitpid(pids[i], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  fx_reopen(&f);
  wr_table_entry *t = NULL;
  size_t n = 0;
  weir_error err = {0};
  CHECK_OK(catalog_tables(f.cat, fx_head(&f, "main"), &t, &n, &err), &err);
  CHECK_INT(n, MERGERS * MERGES);
  wr_table_entries_free(t, n);
  fx_free(&f);
}

/* ---- crashes ------------------------------------------------------------------------ */

/* Writes forever: commits with a few tables, branches and merges. */
/* Writes one byte to `ready` after its first commit on main (the parent kills it only
 * after that, so each round commits something whatever the backend's speed). */
static void crash_writer(const char *path, int ready) {
  wr_catalog *cat = NULL;
  weir_error err = {0};
  if (catalog_open(path, false, "crasher", &cat, &err) != WEIR_OK) _exit(1);
  bool told = false;
  for (int i = 0;; i++) {
    char head[65], out[65], t[3][32], br[32];
    wr_table_change c[3];
    for (int k = 0; k < 3; k++) {
      snprintf(t[k], sizeof t[k], "c.t%d", (i * 3 + k) % 500);
      c[k] = (wr_table_change){t[k], t[k], i, k};
    }
    if (i % 5 == 4) {
      snprintf(br, sizeof br, "b%d-%d", getpid(), i);
      if (catalog_resolve(cat, "main", head, &err) == WEIR_OK &&
          catalog_ref_create(cat, WEIR_REF_BRANCH, br, head, &err) == WEIR_OK) {
        wr_commit_request req = {.branch = br, .expected_head = head, .changes = c,
                                   .n_changes = 3, .message = "b"};
        catalog_commit(cat, &req, out, &err);
        wr_merge_request mr = {.source = br, .into = "main", .no_ff = true};
        json_t *o = NULL;
        catalog_merge(cat, &mr, &o, &err);
        json_decref(o);
      }
      continue;
    }
    if (catalog_ref_get(cat, WEIR_REF_BRANCH, "main", head, &err) != WEIR_OK) continue;
    wr_commit_request req = {.branch = "main", .expected_head = head, .changes = c,
                               .n_changes = 3, .message = "crash loop"};
    if (catalog_commit(cat, &req, out, &err) == WEIR_OK && !told) {
      told = write(ready, "x", 1) == 1;
    }
    weir_error_clear(&err);
  }
}

static void check_whole_history(fx *f) {
  weir_error err = {0};
  char head[65];
  CHECK_OK(catalog_resolve(f->cat, "main", head, &err), &err);
  wr_commit_rec *v = NULL;
  size_t n = 0;
  CHECK_OK(catalog_log(f->cat, head, 0, &v, &n, &err), &err);
  CHECK(n > 1);
  for (size_t i = 0; i < n; i++) {
    wr_table_entry *t = NULL;
    size_t nt = 0;
    CHECK_OK(catalog_tables(f->cat, v[i].hash, &t, &nt, &err), &err);
    wr_table_entries_free(t, nt);
  }
  wr_commit_recs_free(v, n);
  weir_error_clear(&err);
}

static char *db_query(const char *path, const char *sql) {
  sqlite3 *db = NULL;
  sqlite3_open(path, &db);
  sqlite3_stmt *s = NULL;
  char *out = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
    int rc = sqlite3_step(s);
    out = rc == SQLITE_ROW ? wr_strdup((const char *)sqlite3_column_text(s, 0)) : wr_strdup("");
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

TEST(killed_writers_leave_a_valid_catalog) {
  fx f = fx_new();
  catalog_close(f.cat);
  f.cat = NULL;
  for (int round = 0; round < 4; round++) {
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t a = fork();
    if (a == 0) crash_writer(f.path, ready[1]);
    pid_t b = fork();
    if (b == 0) crash_writer(f.path, ready[1]);
    char got[2];
    CHECK(read(ready[0], got, 1) == 1 && read(ready[0], got + 1, 1) == 1); /* both committed once */
    close(ready[0]);
    close(ready[1]);
    struct timespec ts = {0, (150 + 70 * round) * 1000000L};
    nanosleep(&ts, NULL);
    kill(a, SIGKILL);
    ts.tv_nsec = 13 * 1000000L * (round + 1);
    nanosleep(&ts, NULL);
    kill(b, SIGKILL);
    waitpid(a, NULL, 0);
    waitpid(b, NULL, 0);
    fx_reopen(&f);
    check_whole_history(&f);
    catalog_close(f.cat);
    f.cat = NULL;
  }
  if (!fx_is_pg()) {
    /* PostgreSQL checks foreign keys at every statement and has no file to corrupt: a
     * killed client's transaction is rolled back by the server (and its lock freed). */
    char *ic = db_query(f.path, "PRAGMA integrity_check");
    CHECK_STR(ic, "ok");
    free(ic);
    char *fk = db_query(f.path, "PRAGMA foreign_key_check");
    CHECK_STR(fk, "");
    free(fk);
  }
  fx_reopen(&f);
  size_t total = fx_count(&f, "main");
  fprintf(stderr, "  %zu commits on main after the crashes\n", total);
  CHECK(total > 5);
  fx_free(&f);
}

TEST_MAIN()
