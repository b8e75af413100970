/*
 * backend_sqlite.c -- the embedded catalog backend: one SQLite file in WAL mode.
 *
 * Configuration, on every open:
 *   - journal_mode=WAL: readers never block the writer and see a fixed snapshot.
 *   - busy_timeout (30 s; weir_lake_options.busy_timeout_ms): a writer that finds the write
 *     lock taken waits its turn instead of failing, so concurrent processes queue.
 *   - synchronous=NORMAL (weir_lake_options.catalog_sync WEIR_SYNC_FULL for FULL): in WAL mode a commit is
 *     durable across process crashes; on power loss the last transactions before the
 *     crash may roll back (never corrupting the database). FULL syncs the WAL on every
 *     commit.
 *   - foreign_keys=ON.
 *   - cache_size of 16 MiB per handle (SQLite's default is 2 MiB): the hash-keyed indexes
 *     are read at random places, so a larger page cache saves reads in big catalogs.
 * Write transactions start with BEGIN IMMEDIATE so the write lock is taken before any
 * read of the transaction. Statements are prepared once per handle and reused.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/backend.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/json.h"

enum {
  ST_BEGIN_READ,
  ST_BEGIN_WRITE,
  ST_COMMIT,
  ST_NODE_GET,
  ST_NODE_PUT,
  ST_COMMIT_GET,
  ST_COMMIT_PUT,
  ST_PARENT_PUT,
  ST_COMMIT_PREFIX,
  ST_CHANGE_PUT,
  ST_CHANGES_GET,
  ST_REF_GET,
  ST_REF_LIST,
  ST_REF_CREATE,
  ST_REF_DELETE,
  ST_REF_CAS,
  ST_VERSION_PUT,
  ST_VERSION_GET,
  ST_RUN_VERSIONS,
  ST_RUN_TABLES,
  ST_RUN_CREATE,
  ST_RUN_MODEL_PUT,
  ST_RUN_FINISH,
  ST_RUN_GET,
  ST_RUN_MODELS,
  ST_RUN_LIST,
  ST_TOKEN_PUT,
  ST_TOKEN_FIND,
  ST_TOKEN_LIST,
  ST_TOKEN_REVOKE,
  ST_PROTECT_ON,
  ST_PROTECT_OFF,
  ST_PROTECT_GET,
  ST_CHECKS_CLEAR,
  ST_CHECKS_ADD,
  ST_CHECKS_GET,
  ST_NS_INSERT,
  ST_NS_UPDATE,
  ST_NS_GET,
  ST_NS_LIST,
  ST_NS_DELETE,
  ST_COMMIT_ALL,
  ST_EXPIRY_PUT,
  ST_EXPIRY_GET,
  ST_COUNT
};

static const char *const SQL[ST_COUNT] = {
    [ST_BEGIN_READ] = "BEGIN",
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_NODE_GET] = "SELECT body FROM tree_nodes WHERE hash = ?1",
    [ST_NODE_PUT] = "INSERT INTO tree_nodes (hash, body) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
    [ST_COMMIT_GET] =
        "SELECT c.tables_root, c.author, c.message, c.time_us, c.properties, c.generation,"
        " c.run_id,"
        " (SELECT parent_hash FROM commit_parents p WHERE p.commit_hash = c.hash AND p.position = 0),"
        " (SELECT parent_hash FROM commit_parents p WHERE p.commit_hash = c.hash AND p.position = 1)"
        " FROM commits c WHERE c.hash = ?1",
    [ST_COMMIT_PUT] =
        "INSERT INTO commits (hash, tables_root, author, message, time_us, properties,"
        " generation, run_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING",
    [ST_PARENT_PUT] = "INSERT INTO commit_parents (commit_hash, position, parent_hash)"
                      " VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    [ST_COMMIT_PREFIX] =
        "SELECT hash FROM commits WHERE hash >= ?1 AND hash < ?2 ORDER BY hash LIMIT ?3",
    [ST_CHANGE_PUT] = "INSERT INTO commit_changes (commit_hash, table_name, change)"
                      " VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    [ST_CHANGES_GET] = "SELECT table_name, change FROM commit_changes WHERE commit_hash = ?1"
                       " ORDER BY table_name",
    [ST_REF_GET] = "SELECT target FROM refs WHERE kind = ?1 AND name = ?2",
    [ST_REF_LIST] = "SELECT name, target, updated_us FROM refs WHERE kind = ?1 ORDER BY name",
    [ST_REF_CREATE] = "INSERT INTO refs (kind, name, target, updated_us) VALUES (?1, ?2, ?3, ?4)"
                      " ON CONFLICT DO NOTHING",
    [ST_REF_DELETE] = "DELETE FROM refs WHERE kind = ?1 AND name = ?2",
    [ST_REF_CAS] = "UPDATE refs SET target = ?1, updated_us = ?2"
                   " WHERE kind = 0 AND name = ?3 AND target = ?4",
    [ST_VERSION_PUT] = "INSERT INTO table_versions (metadata_location, table_name, commit_hash,"
                       " run_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
    [ST_VERSION_GET] = "SELECT table_name, commit_hash, run_id FROM table_versions"
                       " WHERE metadata_location = ?1",
    [ST_RUN_VERSIONS] = "SELECT metadata_location, table_name, commit_hash FROM table_versions"
                        " WHERE run_id = ?1 ORDER BY table_name, metadata_location",
    [ST_RUN_TABLES] = "SELECT table_name FROM table_versions WHERE run_id = ?1"
                      " UNION SELECT cc.table_name FROM commit_changes cc"
                      " JOIN commits c ON c.hash = cc.commit_hash WHERE c.run_id = ?1"
                      " ORDER BY 1",
    [ST_RUN_CREATE] = "INSERT INTO runs (run_id, status, project, project_digest, branch,"
                      " run_branch, base_commit, started_us, owner)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT DO NOTHING",
    [ST_RUN_MODEL_PUT] =
        "INSERT INTO run_models (run_id, model, position, body) VALUES (?1, ?2,"
        " (SELECT COALESCE(MAX(position), 0) + 1 FROM run_models WHERE run_id = ?1), ?3)"
        " ON CONFLICT (run_id, model) DO UPDATE SET body = excluded.body",
    [ST_RUN_FINISH] = "UPDATE runs SET status = ?1, result_commit = ?2, error = ?3,"
                      " ended_us = ?4 WHERE run_id = ?5",
    [ST_RUN_GET] = "SELECT status, project, project_digest, branch, run_branch, base_commit,"
                   " result_commit, started_us, ended_us, error, owner FROM runs WHERE run_id = ?1",
    [ST_RUN_MODELS] = "SELECT body FROM run_models WHERE run_id = ?1 ORDER BY position",
    [ST_RUN_LIST] = "SELECT run_id FROM runs ORDER BY started_us DESC, run_id DESC LIMIT ?1",
    [ST_TOKEN_PUT] = "INSERT INTO access_tokens (name, secret_sha256, read_only, branches, created_us)"
                     " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
    [ST_TOKEN_FIND] = "SELECT name, read_only, branches, created_us, revoked_us FROM access_tokens"
                      " WHERE secret_sha256 = ?1",
    [ST_TOKEN_LIST] = "SELECT name, secret_sha256, read_only, branches, created_us, revoked_us"
                      " FROM access_tokens ORDER BY name",
    [ST_TOKEN_REVOKE] = "UPDATE access_tokens SET revoked_us = ?1 WHERE name = ?2 AND revoked_us IS NULL",
    [ST_PROTECT_ON] = "INSERT INTO protected_branches (name, created_us) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
    [ST_PROTECT_OFF] = "DELETE FROM protected_branches WHERE name = ?1",
    [ST_PROTECT_GET] = "SELECT 1 FROM protected_branches WHERE name = ?1",
    [ST_CHECKS_CLEAR] = "DELETE FROM branch_checks WHERE branch = ?1",
    [ST_CHECKS_ADD] = "INSERT INTO branch_checks (branch, project, position, created_us) VALUES (?1, ?2, ?3, ?4)"
                      " ON CONFLICT DO NOTHING",
    [ST_CHECKS_GET] = "SELECT project FROM branch_checks WHERE branch = ?1 ORDER BY position",
    [ST_NS_INSERT] = "INSERT INTO namespaces (name, properties, created_us) VALUES (?1, ?2, ?3)"
                     " ON CONFLICT DO NOTHING",
    [ST_NS_UPDATE] = "UPDATE namespaces SET properties = ?2 WHERE name = ?1",
    [ST_NS_GET] = "SELECT properties FROM namespaces WHERE name = ?1",
    [ST_NS_LIST] = "SELECT name FROM namespaces ORDER BY name",
    [ST_NS_DELETE] = "DELETE FROM namespaces WHERE name = ?1",
    [ST_COMMIT_ALL] = "SELECT hash FROM commits",
    [ST_EXPIRY_PUT] = "INSERT INTO expired_commits (hash, expired_us, reason) VALUES (?1, ?2, ?3)"
                      " ON CONFLICT DO NOTHING",
    [ST_EXPIRY_GET] = "SELECT expired_us, reason FROM expired_commits WHERE hash = ?1",
};

typedef struct sqlite_backend {
  catalog_backend base;
  sqlite3 *db;
  char *path;
  int busy_ms;
  int oom; /* a column copy failed (col_text): the reading function reports WEIR_ENOMEM */
  sqlite3_stmt *stmts[ST_COUNT];
} sqlite_backend;

static sqlite_backend *SB(catalog_backend *be) { return (sqlite_backend *)be; }

/* ---- errors and statements ---------------------------------------------------------- */

static int dberr(sqlite_backend *b, int rc, const char *what, weir_error *err) {
  int prim = rc & 0xff;
  if (prim == SQLITE_NOMEM) return wr_oom(err); /* SQLite ran out: the same error as ours */
  if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
    return wr_seterr(err, WEIR_ECONCURRENT,
                       "catalog %s is locked by another writer (gave up after %d ms) while %s",
                       b->path, b->busy_ms, what);
  if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB)
    return wr_seterr(err, WEIR_ECATALOG, "catalog %s is not a valid SQLite database (%s) while %s",
                       b->path, sqlite3_errstr(rc), what);
  /* SQLite says "database or disk is full", or "disk I/O error" when even its shared-memory
   * index cannot be made: name the cause, which is the disk (the database has no size limit
   * here). Nothing was written: the transaction rolled back. */
  int sys = b->db ? sqlite3_system_errno(b->db) : 0;
  if (prim == SQLITE_FULL || ((prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN) && sys == ENOSPC))
    return wr_seterr(err, WEIR_EIO, "catalog %s: %s: no space left on the disk that holds it (nothing was written)",
                       b->path, what);
  /* A lake this user may read but not write (opened read-only by SQLite): reads work,
   * this write cannot. SQLITE_READONLY_CANTINIT / _RECOVERY: the -shm index is missing
   * or stale and only a writer can make it. */
  if (prim == SQLITE_READONLY)
    return wr_seterr(err, WEIR_EIO,
                     "catalog %s is read-only for this user while %s: %s (reading the lake works; writing needs "
                     "write access to the lake's folder and its catalog files)",
                     b->path, what,
                     rc == SQLITE_READONLY_CANTINIT || rc == SQLITE_READONLY_RECOVERY
                         ? "its -shm file is missing or stale, and only a user who may write the lake can make it "
                           "(open the lake once as such a user)"
                         : "this needs to write");
  if ((prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN) && sys)
    return wr_seterr(err, WEIR_EIO, "catalog %s: %s: %s (%s)", b->path, what,
                       b->db ? sqlite3_errmsg(b->db) : sqlite3_errstr(rc), strerror(sys));
  return wr_seterr(err, WEIR_ECATALOG, "catalog %s: %s: %s", b->path, what,
                     b->db ? sqlite3_errmsg(b->db) : sqlite3_errstr(rc));
}

static sqlite3_stmt *stmt(sqlite_backend *b, int id, weir_error *err) {
  if (!b->stmts[id]) {
    int rc = sqlite3_prepare_v3(b->db, SQL[id], -1, SQLITE_PREPARE_PERSISTENT, &b->stmts[id],
                                NULL);
    if (rc != SQLITE_OK) {
      char *what = wr_asprintf("preparing \"%.60s...\"", SQL[id]);
      if (what) dberr(b, rc, what, err);
      else wr_oom(err);
      free(what);
      b->stmts[id] = NULL;
      return NULL;
    }
  }
  return b->stmts[id];
}

static void done(sqlite3_stmt *s) {
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v) {
  if (v) sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
  else sqlite3_bind_null(s, i);
}

/* A copy of a text column, or NULL for SQL NULL. Out of memory (SQLite's or ours) sets
 * b->oom, which the reading function checks with took_oom() once its row is read; the
 * col_text macro passes the `b` every reader has in scope. */
static char *col_text_b(sqlite_backend *b, sqlite3_stmt *s, int i) {
  if (sqlite3_column_type(s, i) == SQLITE_NULL) return NULL;
  const unsigned char *t = sqlite3_column_text(s, i);
  char *c = t ? wr_strdup((const char *)t) : NULL;
  if (!c) b->oom = 1;
  return c;
}
#define col_text(s, i) col_text_b(b, (s), (i))

static int took_oom(sqlite_backend *b) {
  int o = b->oom;
  b->oom = 0;
  return o;
}

static void col_hash(sqlite3_stmt *s, int i, char out[WEIR_HASH_LEN + 1]) {
  const unsigned char *t = sqlite3_column_text(s, i);
  if (!t) {
    out[0] = 0;
    return;
  }
  snprintf(out, WEIR_HASH_LEN + 1, "%s", (const char *)t);
}

/* Steps a statement that returns no rows (or ignores them). */
static int run_stmt(sqlite_backend *b, sqlite3_stmt *s, const char *what, weir_error *err) {
  int rc = sqlite3_step(s);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    dberr(b, rc, what, err);
    done(s);
    return err ? err->code : WEIR_ECATALOG;
  }
  done(s);
  return WEIR_OK;
}

static int exec_sql(sqlite_backend *b, const char *sql, const char *what, weir_error *err) {
  char *msg = NULL;
  int rc = sqlite3_exec(b->db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) {
    int prim = rc & 0xff;
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED || prim == SQLITE_NOTADB ||
        prim == SQLITE_CORRUPT || prim == SQLITE_FULL || prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN)
      dberr(b, rc, what, err);
    else
      wr_seterr(err, WEIR_ECATALOG, "catalog %s: %s: %s", b->path, what,
                  msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    return err ? err->code : WEIR_ECATALOG;
  }
  return WEIR_OK;
}

/* ---- lifecycle ---------------------------------------------------------------------- */

static void sq_close(catalog_backend *be) {
  sqlite_backend *b = SB(be);
  if (!b) return;
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(b->stmts[i]);
  if (b->db) sqlite3_close_v2(b->db);
  free(b->path);
  free(b);
}

static int sq_probe(catalog_backend *be, int *version, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v2(b->db,
                              "SELECT (SELECT count(*) FROM sqlite_master),"
                              " (SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                              "  AND name = 'weir_schema_migrations')",
                              -1, &s, NULL);
  if (rc != SQLITE_OK) return dberr(b, rc, "reading the schema", err);
  rc = sqlite3_step(s);
  if (rc != SQLITE_ROW) {
    sqlite3_finalize(s);
    return dberr(b, rc, "reading the schema", err);
  }
  int64_t n_objects = sqlite3_column_int64(s, 0), has_schema = sqlite3_column_int64(s, 1);
  sqlite3_finalize(s);
  if (!has_schema) {
    *version = n_objects == 0 ? 0 : -1;
    return WEIR_OK;
  }
  rc = sqlite3_prepare_v2(b->db, "SELECT COALESCE(MAX(version), 0) FROM weir_schema_migrations",
                          -1, &s, NULL);
  if (rc != SQLITE_OK) return dberr(b, rc, "reading the schema version", err);
  rc = sqlite3_step(s);
  if (rc != SQLITE_ROW) {
    sqlite3_finalize(s);
    return dberr(b, rc, "reading the schema version", err);
  }
  *version = (int)sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return WEIR_OK;
}

/* "CREATE TABLE name (...)" + " WITHOUT ROWID" when name is listed as clustered. */
static char *clustered_sql(const char *st, const char *const *clustered) {
  static const char prefix[] = "CREATE TABLE ";
  if (clustered && strncmp(st, prefix, sizeof prefix - 1) == 0) {
    const char *name = st + sizeof prefix - 1;
    size_t len = strcspn(name, " (");
    for (const char *const *c = clustered; *c; c++)
      if (strlen(*c) == len && strncmp(*c, name, len) == 0)
        return wr_asprintf("%s WITHOUT ROWID", st);
  }
  return wr_strdup(st);
}

static int sq_migrate(catalog_backend *be, const catalog_migration *m, weir_error *err) {
  sqlite_backend *b = SB(be);
  int rc = exec_sql(b,
                    "CREATE TABLE IF NOT EXISTS weir_schema_migrations ("
                    " version INTEGER PRIMARY KEY,"
                    " description TEXT NOT NULL,"
                    " applied_us BIGINT NOT NULL)",
                    "creating the migrations table", err);
  if (rc) return rc;
  for (int i = 0; m->statements[i]; i++) {
    char *what = wr_asprintf("applying schema migration %d (%s)", m->version, m->description);
    char *sql = clustered_sql(catalog_migration_sql(m, i, "sqlite"), m->clustered);
    rc = what && sql ? exec_sql(b, sql, what, err) : wr_oom(err);
    free(sql);
    free(what);
    if (rc) return rc;
  }
  sqlite3_stmt *s = NULL;
  int src = sqlite3_prepare_v2(b->db,
                               "INSERT INTO weir_schema_migrations (version, description,"
                               " applied_us) VALUES (?1, ?2, ?3)",
                               -1, &s, NULL);
  if (src != SQLITE_OK) return dberr(b, src, "recording a schema migration", err);
  sqlite3_bind_int(s, 1, m->version);
  sqlite3_bind_text(s, 2, m->description, -1, SQLITE_STATIC);
  sqlite3_bind_int64(s, 3, wr_now_us());
  src = sqlite3_step(s);
  sqlite3_finalize(s);
  if (src != SQLITE_DONE) return dberr(b, src, "recording a schema migration", err);
  return WEIR_OK;
}

/* ---- transactions ------------------------------------------------------------------- */

static int sq_begin(catalog_backend *be, bool write, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, write ? ST_BEGIN_WRITE : ST_BEGIN_READ, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  return run_stmt(b, s, write ? "starting a write transaction" : "starting a read transaction",
                  err);
}

static int sq_commit(catalog_backend *be, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_COMMIT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  int rc = run_stmt(b, s, "committing a transaction", err);
  if (rc && !sqlite3_get_autocommit(b->db)) exec_sql(b, "ROLLBACK", "rolling back", NULL);
  return rc;
}

static void sq_rollback(catalog_backend *be) {
  sqlite_backend *b = SB(be);
  if (!sqlite3_get_autocommit(b->db)) exec_sql(b, "ROLLBACK", "rolling back", NULL);
}

static int sq_savepoint(catalog_backend *be, int level, weir_error *err) {
  char sql[64];
  snprintf(sql, sizeof sql, "SAVEPOINT weir_sp%d", level);
  return exec_sql(SB(be), sql, "opening a nested transaction", err);
}

static int sq_release(catalog_backend *be, int level, weir_error *err) {
  char sql[64];
  snprintf(sql, sizeof sql, "RELEASE SAVEPOINT weir_sp%d", level);
  return exec_sql(SB(be), sql, "committing a nested transaction", err);
}

static void sq_rollback_to(catalog_backend *be, int level) {
  char sql[96];
  snprintf(sql, sizeof sql, "ROLLBACK TO SAVEPOINT weir_sp%d; RELEASE SAVEPOINT weir_sp%d",
           level, level);
  exec_sql(SB(be), sql, "rolling back a nested transaction", NULL);
}

/* ---- tree nodes --------------------------------------------------------------------- */

static int sq_node_get(catalog_backend *be, const char *hash, char **body, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_NODE_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, hash);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    *body = col_text(s, 0);
    done(s);
    if (took_oom(b)) return wr_oom(err);
    return WEIR_OK;
  }
  done(s);
  if (rc == SQLITE_DONE)
    return wr_seterr(err, WEIR_ECATALOG, "catalog %s is corrupt: table map node %s is missing",
                       b->path, hash);
  return dberr(b, rc, "reading a table map node", err);
}

static int sq_node_put(catalog_backend *be, const char *hash, const char *body,
                       weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_NODE_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, hash);
  bind_text(s, 2, body);
  return run_stmt(b, s, "writing a table map node", err);
}

/* ---- commits ------------------------------------------------------------------------ */

static int sq_commit_get(catalog_backend *be, const char *hash, wr_commit_rec *out,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_COMMIT_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, hash);
  int rc = sqlite3_step(s);
  if (rc != SQLITE_ROW) {
    done(s);
    if (rc == SQLITE_DONE) return wr_seterr(err, WEIR_ENOTFOUND, "commit %s not found", hash);
    return dberr(b, rc, "reading a commit", err);
  }
  memset(out, 0, sizeof *out);
  snprintf(out->hash, sizeof out->hash, "%s", hash);
  col_hash(s, 0, out->tables_root);
  out->author = col_text(s, 1);
  out->message = col_text(s, 2);
  out->time_us = sqlite3_column_int64(s, 3);
  const char *props = (const char *)sqlite3_column_text(s, 4);
  json_error_t je;
  bool joom = false;
  out->properties = props ? wr_json_loads(props, 0, &je, &joom) : NULL;
  if (joom) b->oom = 1;
  if (!json_is_object(out->properties)) {
    json_decref(out->properties);
    out->properties = json_object();
    if (!out->properties) b->oom = 1;
  }
  out->generation = sqlite3_column_int64(s, 5);
  out->run_id = col_text(s, 6);
  col_hash(s, 7, out->parents[0]);
  col_hash(s, 8, out->parents[1]);
  out->n_parents = out->parents[0][0] ? (out->parents[1][0] ? 2 : 1) : 0;
  done(s);
  if (!out->author && !b->oom) out->author = wr_strdup("");
  if (!out->message && !b->oom) out->message = wr_strdup("");
  if (took_oom(b) || !out->author || !out->message) {
    wr_commit_rec_clear(out);
    return wr_oom(err);
  }
  return WEIR_OK;
}

static int sq_commit_put(catalog_backend *be, const wr_commit_rec *c, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_COMMIT_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  char *props = wr_json_canonical(c->properties);
  if (!props) return wr_oom(err);
  bind_text(s, 1, c->hash);
  bind_text(s, 2, c->tables_root);
  bind_text(s, 3, c->author);
  bind_text(s, 4, c->message);
  sqlite3_bind_int64(s, 5, c->time_us);
  bind_text(s, 6, props);
  sqlite3_bind_int64(s, 7, c->generation);
  bind_text(s, 8, c->run_id);
  int rc = run_stmt(b, s, "writing a commit", err);
  free(props);
  if (rc) return rc;
  for (int i = 0; i < c->n_parents; i++) {
    s = stmt(b, ST_PARENT_PUT, err);
    if (!s) return err ? err->code : WEIR_ECATALOG;
    bind_text(s, 1, c->hash);
    sqlite3_bind_int(s, 2, i);
    bind_text(s, 3, c->parents[i]);
    rc = run_stmt(b, s, "writing a commit's parent", err);
    if (rc) return rc;
  }
  return WEIR_OK;
}

static int sq_commit_prefix(catalog_backend *be, const char *prefix,
                            char (*out)[WEIR_HASH_LEN + 1], size_t max, size_t *n,
                            weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_COMMIT_PREFIX, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  /* Hashes are lowercase hex, so every hash with this prefix sorts below prefix + "g". */
  char *upper = wr_asprintf("%sg", prefix);
  if (!upper) return wr_oom(err);
  bind_text(s, 1, prefix);
  bind_text(s, 2, upper);
  sqlite3_bind_int64(s, 3, (sqlite3_int64)max);
  *n = 0;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    if (*n < max) col_hash(s, 0, out[(*n)++]);
  done(s);
  free(upper);
  if (rc != SQLITE_DONE) return dberr(b, rc, "looking up a commit hash prefix", err);
  return WEIR_OK;
}

static const char *change_name(wr_change_kind k) {
  switch (k) {
  case WEIR_CHANGE_ADDED: return "added";
  case WEIR_CHANGE_CHANGED: return "changed";
  default: return "dropped";
  }
}

static int sq_changes_put(catalog_backend *be, const char *commit, const char *table,
                          wr_change_kind kind, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_CHANGE_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, commit);
  bind_text(s, 2, table);
  bind_text(s, 3, change_name(kind));
  return run_stmt(b, s, "recording a commit's table changes", err);
}

static int sq_changes_get(catalog_backend *be, const char *commit, json_t **out,
                          weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_CHANGES_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, commit);
  json_t *arr = json_array();
  int rc = SQLITE_DONE;
  if (!arr) b->oom = 1;
  while (!b->oom && (rc = sqlite3_step(s)) == SQLITE_ROW)
    if (json_array_append_new(arr, json_pack("{s:s,s:s}", "table",
                                             (const char *)sqlite3_column_text(s, 0), "change",
                                             (const char *)sqlite3_column_text(s, 1))) != 0)
      b->oom = 1;
  done(s);
  if (took_oom(b)) {
    json_decref(arr);
    return wr_oom(err);
  }
  if (rc != SQLITE_DONE) {
    json_decref(arr);
    return dberr(b, rc, "reading a commit's table changes", err);
  }
  *out = arr;
  return WEIR_OK;
}

/* ---- refs --------------------------------------------------------------------------- */

static const char *kind_name(wr_ref_kind k) { return k == WEIR_REF_TAG ? "tag" : "branch"; }

static int sq_ref_get(catalog_backend *be, wr_ref_kind kind, const char *name,
                      char out[WEIR_HASH_LEN + 1], weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_REF_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  sqlite3_bind_int(s, 1, (int)kind);
  bind_text(s, 2, name);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    col_hash(s, 0, out);
    done(s);
    return WEIR_OK;
  }
  done(s);
  if (rc == SQLITE_DONE)
    return wr_seterr(err, WEIR_ENOTFOUND, "%s '%s' not found", kind_name(kind), name);
  return dberr(b, rc, "reading a ref", err);
}

static int sq_ref_list(catalog_backend *be, wr_ref_kind kind, wr_ref_rec **out, size_t *n,
                       weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_REF_LIST, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  sqlite3_bind_int(s, 1, (int)kind);
  size_t cap = 16, len = 0;
  wr_ref_rec *v = wr_calloc(cap, sizeof *v);
  if (!v) b->oom = 1;
  int rc = SQLITE_DONE;
  while (!b->oom && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (len == cap) {
      wr_ref_rec *nv = wr_realloc(v, cap * 2 * sizeof *v);
      if (!nv) {
        b->oom = 1;
        break;
      }
      cap *= 2;
      v = nv;
    }
    v[len].name = col_text(s, 0);
    col_hash(s, 1, v[len].target);
    v[len].updated_us = sqlite3_column_int64(s, 2);
    len++;
  }
  done(s);
  if (took_oom(b)) {
    wr_ref_recs_free(v, len);
    return wr_oom(err);
  }
  if (rc != SQLITE_DONE) {
    wr_ref_recs_free(v, len);
    return dberr(b, rc, "listing refs", err);
  }
  *out = v;
  *n = len;
  return WEIR_OK;
}

static int sq_ref_create(catalog_backend *be, wr_ref_kind kind, const char *name,
                         const char *target, int64_t now_us, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_REF_CREATE, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  sqlite3_bind_int(s, 1, (int)kind);
  bind_text(s, 2, name);
  bind_text(s, 3, target);
  sqlite3_bind_int64(s, 4, now_us);
  int rc = run_stmt(b, s, "creating a ref", err);
  if (rc) return rc;
  if (sqlite3_changes(b->db) == 0)
    return wr_seterr(err, WEIR_EEXISTS, "%s '%s' already exists", kind_name(kind), name);
  return WEIR_OK;
}

static int sq_ref_delete(catalog_backend *be, wr_ref_kind kind, const char *name,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_REF_DELETE, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  sqlite3_bind_int(s, 1, (int)kind);
  bind_text(s, 2, name);
  int rc = run_stmt(b, s, "deleting a ref", err);
  if (rc) return rc;
  if (sqlite3_changes(b->db) == 0)
    return wr_seterr(err, WEIR_ENOTFOUND, "%s '%s' not found", kind_name(kind), name);
  return WEIR_OK;
}

static int sq_ref_cas(catalog_backend *be, const char *name, const char *expected,
                      const char *target, int64_t now_us, bool *swapped, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_REF_CAS, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, target);
  sqlite3_bind_int64(s, 2, now_us);
  bind_text(s, 3, name);
  bind_text(s, 4, expected);
  int rc = run_stmt(b, s, "moving a branch", err);
  if (rc) return rc;
  *swapped = sqlite3_changes(b->db) == 1;
  return WEIR_OK;
}

/* ---- provenance --------------------------------------------------------------------- */

static int sq_version_put(catalog_backend *be, const char *loc, const char *table,
                          const char *commit, const char *run_id, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_VERSION_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, loc);
  bind_text(s, 2, table);
  bind_text(s, 3, commit);
  bind_text(s, 4, run_id);
  return run_stmt(b, s, "recording a table version", err);
}

static int sq_version_get(catalog_backend *be, const char *loc, catalog_table_version *out,
                          bool *found, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_VERSION_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, loc);
  int rc = sqlite3_step(s);
  memset(out, 0, sizeof *out);
  *found = false;
  if (rc == SQLITE_ROW) {
    out->metadata_location = wr_strdup(loc);
    if (!out->metadata_location) b->oom = 1;
    out->table = col_text(s, 0);
    col_hash(s, 1, out->commit);
    out->run_id = col_text(s, 2);
    *found = true;
  }
  done(s);
  if (took_oom(b)) {
    catalog_table_version_clear(out);
    *found = false;
    return wr_oom(err);
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return dberr(b, rc, "reading a table version", err);
  return WEIR_OK;
}

static int sq_run_versions(catalog_backend *be, const char *run_id, catalog_table_version **out,
                           size_t *n, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_VERSIONS, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, run_id);
  size_t cap = 8, len = 0;
  catalog_table_version *v = wr_calloc(cap, sizeof *v);
  if (!v) b->oom = 1;
  int rc = SQLITE_DONE;
  while (!b->oom && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (len == cap) {
      catalog_table_version *nv = wr_realloc(v, cap * 2 * sizeof *v);
      if (!nv) {
        b->oom = 1;
        break;
      }
      cap *= 2;
      v = nv;
    }
    memset(&v[len], 0, sizeof v[len]);
    v[len].metadata_location = col_text(s, 0);
    v[len].table = col_text(s, 1);
    col_hash(s, 2, v[len].commit);
    v[len].run_id = wr_strdup(run_id);
    if (run_id && !v[len].run_id) b->oom = 1;
    len++;
  }
  done(s);
  if (took_oom(b)) {
    catalog_table_versions_free(v, len);
    return wr_oom(err);
  }
  if (rc != SQLITE_DONE) {
    catalog_table_versions_free(v, len);
    return dberr(b, rc, "reading a run's table versions", err);
  }
  *out = v;
  *n = len;
  return WEIR_OK;
}

static int read_strings(sqlite_backend *b, sqlite3_stmt *s, const char *what, char ***out,
                        size_t *n, weir_error *err) {
  size_t cap = 8, len = 0;
  char **v = wr_calloc(cap, sizeof *v);
  if (!v) b->oom = 1;
  int rc = SQLITE_DONE;
  while (!b->oom && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (len == cap) {
      char **nv = wr_realloc(v, cap * 2 * sizeof *v);
      if (!nv) {
        b->oom = 1;
        break;
      }
      cap *= 2;
      v = nv;
    }
    v[len++] = col_text(s, 0);
  }
  done(s);
  if (took_oom(b)) {
    catalog_strv_free(v, len);
    return wr_oom(err);
  }
  if (rc != SQLITE_DONE) {
    catalog_strv_free(v, len);
    return dberr(b, rc, what, err);
  }
  *out = v;
  *n = len;
  return WEIR_OK;
}

static int sq_run_tables(catalog_backend *be, const char *run_id, char ***out, size_t *n,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_TABLES, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, run_id);
  return read_strings(b, s, "reading the tables a run wrote", out, n, err);
}

/* ---- runs --------------------------------------------------------------------------- */

static int sq_run_create(catalog_backend *be, const catalog_run_row *r, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_CREATE, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, r->run_id);
  bind_text(s, 2, wr_run_status_name(r->status));
  bind_text(s, 3, r->project);
  bind_text(s, 4, r->project_digest);
  bind_text(s, 5, r->branch);
  bind_text(s, 6, r->run_branch);
  bind_text(s, 7, r->base_commit);
  sqlite3_bind_int64(s, 8, r->started_us);
  bind_text(s, 9, r->owner);
  int rc = run_stmt(b, s, "recording a run", err);
  if (rc) return rc;
  if (sqlite3_changes(b->db) == 0)
    return wr_seterr(err, WEIR_EEXISTS, "run %s already exists", r->run_id);
  return WEIR_OK;
}

static int sq_run_model_put(catalog_backend *be, const char *run_id, const char *model,
                            const char *body, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_MODEL_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, run_id);
  bind_text(s, 2, model);
  bind_text(s, 3, body);
  return run_stmt(b, s, "recording a model of a run", err);
}

static int sq_run_finish(catalog_backend *be, const char *run_id, wr_run_status status,
                         const char *result_commit, const char *error_json, int64_t ended_us,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_FINISH, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, wr_run_status_name(status));
  bind_text(s, 2, result_commit);
  bind_text(s, 3, error_json);
  sqlite3_bind_int64(s, 4, ended_us);
  bind_text(s, 5, run_id);
  int rc = run_stmt(b, s, "finishing a run", err);
  if (rc) return rc;
  if (sqlite3_changes(b->db) == 0)
    return wr_seterr(err, WEIR_ENOTFOUND, "run %s not found", run_id);
  return WEIR_OK;
}

static wr_run_status parse_status(const char *s) {
  if (s && strcmp(s, "succeeded") == 0) return WEIR_RUN_SUCCEEDED;
  if (s && strcmp(s, "failed") == 0) return WEIR_RUN_FAILED;
  return WEIR_RUN_RUNNING;
}

static int sq_run_get(catalog_backend *be, const char *run_id, catalog_run_row *out,
                      weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, run_id);
  int rc = sqlite3_step(s);
  if (rc != SQLITE_ROW) {
    done(s);
    if (rc == SQLITE_DONE) return wr_seterr(err, WEIR_ENOTFOUND, "run %s not found", run_id);
    return dberr(b, rc, "reading a run", err);
  }
  memset(out, 0, sizeof *out);
  out->run_id = wr_strdup(run_id);
  if (!out->run_id) b->oom = 1;
  out->status = parse_status((const char *)sqlite3_column_text(s, 0));
  out->project = col_text(s, 1);
  out->project_digest = col_text(s, 2);
  out->branch = col_text(s, 3);
  out->run_branch = col_text(s, 4);
  out->base_commit = col_text(s, 5);
  out->result_commit = col_text(s, 6);
  out->started_us = sqlite3_column_int64(s, 7);
  out->ended_us = sqlite3_column_type(s, 8) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 8);
  out->error_json = col_text(s, 9);
  out->owner = col_text(s, 10);
  done(s);
  if (took_oom(b)) {
    catalog_run_row_clear(out);
    return wr_oom(err);
  }
  return WEIR_OK;
}

static int sq_run_models(catalog_backend *be, const char *run_id, char ***bodies, size_t *n,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_MODELS, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, run_id);
  return read_strings(b, s, "reading a run's models", bodies, n, err);
}

static int sq_run_list(catalog_backend *be, int64_t max, char ***ids, size_t *n,
                       weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_RUN_LIST, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  sqlite3_bind_int64(s, 1, max > 0 ? max : -1);
  return read_strings(b, s, "listing runs", ids, n, err);
}

/* ---- access ------------------------------------------------------------------------ */

static int sq_token_put(catalog_backend *be, const catalog_token_row *r, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_TOKEN_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, r->name);
  bind_text(s, 2, r->secret_sha256);
  sqlite3_bind_int(s, 3, r->read_only ? 1 : 0);
  bind_text(s, 4, r->branches);
  sqlite3_bind_int64(s, 5, r->created_us);
  int rc = run_stmt(b, s, "recording a token", err);
  if (rc) return rc;
  if (sqlite3_changes(b->db) == 0) return wr_seterr(err, WEIR_EEXISTS, "a token named \"%s\" already exists", r->name);
  return WEIR_OK;
}

static int sq_token_find(catalog_backend *be, const char *sha256, catalog_token_row *out, bool *found,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  *found = false;
  sqlite3_stmt *s = stmt(b, ST_TOKEN_FIND, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, sha256);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) {
    done(s);
    return WEIR_OK;
  }
  if (rc != SQLITE_ROW) {
    done(s);
    return dberr(b, rc, "looking up a token", err);
  }
  memset(out, 0, sizeof *out);
  out->name = col_text(s, 0);
  snprintf(out->secret_sha256, sizeof out->secret_sha256, "%s", sha256);
  out->read_only = sqlite3_column_int(s, 1) != 0;
  out->branches = col_text(s, 2);
  out->created_us = sqlite3_column_int64(s, 3);
  out->revoked_us = sqlite3_column_type(s, 4) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 4);
  done(s);
  if (took_oom(b)) {
    catalog_token_row_clear(out);
    return wr_oom(err);
  }
  *found = true;
  return WEIR_OK;
}

static int sq_token_list(catalog_backend *be, catalog_token_row **out, size_t *n, weir_error *err) {
  sqlite_backend *b = SB(be);
  *out = NULL;
  *n = 0;
  sqlite3_stmt *s = stmt(b, ST_TOKEN_LIST, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  size_t cap = 0;
  int rc = SQLITE_DONE;
  while (!b->oom && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (*n == cap) {
      catalog_token_row *nv = wr_realloc(*out, (cap ? 2 * cap : 8) * sizeof **out);
      if (!nv) {
        b->oom = 1;
        break;
      }
      cap = cap ? 2 * cap : 8;
      *out = nv;
    }
    catalog_token_row *r = &(*out)[(*n)++];
    memset(r, 0, sizeof *r);
    r->name = col_text(s, 0);
    col_hash(s, 1, r->secret_sha256);
    r->read_only = sqlite3_column_int(s, 2) != 0;
    r->branches = col_text(s, 3);
    r->created_us = sqlite3_column_int64(s, 4);
    r->revoked_us = sqlite3_column_type(s, 5) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 5);
  }
  done(s);
  if (took_oom(b)) {
    catalog_token_rows_free(*out, *n);
    *out = NULL;
    *n = 0;
    return wr_oom(err);
  }
  if (rc != SQLITE_DONE) {
    catalog_token_rows_free(*out, *n);
    *out = NULL;
    *n = 0;
    return dberr(b, rc, "listing tokens", err);
  }
  return WEIR_OK;
}

static int sq_token_revoke(catalog_backend *be, const char *name, int64_t now_us, bool *found,
                           weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_TOKEN_REVOKE, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  sqlite3_bind_int64(s, 1, now_us);
  bind_text(s, 2, name);
  int rc = run_stmt(b, s, "revoking a token", err);
  if (rc) return rc;
  *found = sqlite3_changes(b->db) > 0;
  return WEIR_OK;
}

static int sq_protect_set(catalog_backend *be, const char *branch, bool on, int64_t now_us,
                          weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, on ? ST_PROTECT_ON : ST_PROTECT_OFF, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, branch);
  if (on) sqlite3_bind_int64(s, 2, now_us);
  return run_stmt(b, s, on ? "protecting a branch" : "unprotecting a branch", err);
}

static int sq_protect_get(catalog_backend *be, const char *branch, bool *on, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_PROTECT_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, branch);
  int rc = sqlite3_step(s);
  done(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return dberr(b, rc, "reading branch protection", err);
  *on = rc == SQLITE_ROW;
  return WEIR_OK;
}

static int sq_checks_set(catalog_backend *be, const char *branch, const char *const *projects, size_t n,
                         int64_t now_us, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_CHECKS_CLEAR, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, branch);
  int rc = run_stmt(b, s, "clearing a branch's merge checks", err);
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    if (!(s = stmt(b, ST_CHECKS_ADD, err))) return err ? err->code : WEIR_ECATALOG;
    bind_text(s, 1, branch);
    bind_text(s, 2, projects[i]);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)i);
    sqlite3_bind_int64(s, 4, now_us);
    rc = run_stmt(b, s, "recording a branch's merge check", err);
  }
  return rc;
}

static int sq_checks_get(catalog_backend *be, const char *branch, char ***projects, size_t *n, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_CHECKS_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, branch);
  return read_strings(b, s, "reading a branch's merge checks", projects, n, err);
}

static int sq_namespace_put(catalog_backend *be, const char *name, const char *properties, bool replace,
                            int64_t now_us, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, replace ? ST_NS_UPDATE : ST_NS_INSERT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, name);
  bind_text(s, 2, properties);
  if (!replace) sqlite3_bind_int64(s, 3, now_us);
  int rc = run_stmt(b, s, "recording a namespace", err);
  if (rc) return rc;
  if (sqlite3_changes(b->db) == 0)
    return replace ? wr_seterr(err, WEIR_ENOTFOUND, "namespace %s not found", name)
                   : wr_seterr(err, WEIR_EEXISTS, "namespace %s already exists", name);
  return WEIR_OK;
}

static int sq_namespace_get(catalog_backend *be, const char *name, char **properties, bool *found,
                            weir_error *err) {
  sqlite_backend *b = SB(be);
  *found = false;
  *properties = NULL;
  sqlite3_stmt *s = stmt(b, ST_NS_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, name);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    *properties = col_text(s, 0);
    *found = true;
  }
  done(s);
  if (took_oom(b)) {
    *found = false;
    return wr_oom(err);
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return dberr(b, rc, "reading a namespace", err);
  return WEIR_OK;
}

static int sq_namespace_list(catalog_backend *be, char ***names, size_t *n, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_NS_LIST, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  return read_strings(b, s, "listing namespaces", names, n, err);
}

static int sq_namespace_delete(catalog_backend *be, const char *name, bool *found, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_NS_DELETE, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, name);
  int rc = run_stmt(b, s, "dropping a namespace", err);
  if (rc) return rc;
  *found = sqlite3_changes(b->db) > 0;
  return WEIR_OK;
}

static int sq_commit_all(catalog_backend *be, char ***hashes, size_t *n, weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_COMMIT_ALL, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  return read_strings(b, s, "listing commits", hashes, n, err);
}

static int sq_expiry_put(catalog_backend *be, const char *hash, int64_t expired_us, const char *reason,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  sqlite3_stmt *s = stmt(b, ST_EXPIRY_PUT, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, hash);
  sqlite3_bind_int64(s, 2, expired_us);
  bind_text(s, 3, reason);
  return run_stmt(b, s, "recording an expired commit", err);
}

static int sq_expiry_get(catalog_backend *be, const char *hash, int64_t *expired_us, char **reason, bool *found,
                         weir_error *err) {
  sqlite_backend *b = SB(be);
  *found = false;
  sqlite3_stmt *s = stmt(b, ST_EXPIRY_GET, err);
  if (!s) return err ? err->code : WEIR_ECATALOG;
  bind_text(s, 1, hash);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    *found = true;
    *expired_us = sqlite3_column_int64(s, 0);
    *reason = col_text(s, 1);
  }
  done(s);
  if (took_oom(b)) {
    *found = false;
    return wr_oom(err);
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return dberr(b, rc, "reading an expired commit", err);
  return WEIR_OK;
}

static const catalog_backend_ops SQLITE_OPS = {
    .name = "sqlite",
    .close = sq_close,
    .probe = sq_probe,
    .migrate = sq_migrate,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .savepoint = sq_savepoint,
    .release = sq_release,
    .rollback_to = sq_rollback_to,
    .node_get = sq_node_get,
    .node_put = sq_node_put,
    .commit_get = sq_commit_get,
    .commit_put = sq_commit_put,
    .commit_prefix = sq_commit_prefix,
    .changes_put = sq_changes_put,
    .changes_get = sq_changes_get,
    .ref_get = sq_ref_get,
    .ref_list = sq_ref_list,
    .ref_create = sq_ref_create,
    .ref_delete = sq_ref_delete,
    .ref_cas = sq_ref_cas,
    .version_put = sq_version_put,
    .version_get = sq_version_get,
    .run_versions = sq_run_versions,
    .run_tables = sq_run_tables,
    .run_create = sq_run_create,
    .run_model_put = sq_run_model_put,
    .run_finish = sq_run_finish,
    .run_get = sq_run_get,
    .run_models = sq_run_models,
    .run_list = sq_run_list,
    .token_put = sq_token_put,
    .token_find = sq_token_find,
    .token_list = sq_token_list,
    .token_revoke = sq_token_revoke,
    .protect_set = sq_protect_set,
    .protect_get = sq_protect_get,
    .checks_set = sq_checks_set,
    .checks_get = sq_checks_get,
    .namespace_put = sq_namespace_put,
    .namespace_get = sq_namespace_get,
    .namespace_list = sq_namespace_list,
    .commit_all = sq_commit_all,
    .expiry_put = sq_expiry_put,
    .expiry_get = sq_expiry_get,
    .namespace_delete = sq_namespace_delete,
};

/* ---- open --------------------------------------------------------------------------- */

#define DEFAULT_BUSY_MS 30000

int catalog_backend_sqlite_open(const char *path, bool create, const wr_catalog_settings *settings,
                                catalog_backend **out, weir_error *err) {
  *out = NULL;
  wr_catalog_settings dflt = {0};
  if (!settings) settings = &dflt;
  const char *sync_sql = "PRAGMA synchronous=NORMAL";
  switch (settings->sync) {
  case WEIR_SYNC_DEFAULT:
  case WEIR_SYNC_NORMAL: break;
  case WEIR_SYNC_FULL: sync_sql = "PRAGMA synchronous=FULL"; break;
  default:
    return wr_seterr(err, WEIR_EINVALIDARG, "catalog_sync is %d: expected WEIR_SYNC_DEFAULT, _NORMAL or _FULL",
                       settings->sync);
  }
  if (settings->busy_timeout_ms < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "busy_timeout_ms is %d: expected 0 (the default) or more",
                       settings->busy_timeout_ms);
  if (!create && access(path, F_OK) != 0)
    return wr_seterr(err, WEIR_ENOTFOUND, "no catalog at %s (%s)", path, strerror(errno));

  sqlite_backend *b = wr_calloc(1, sizeof *b);
  if (!b) return wr_oom(err);
  b->base.ops = &SQLITE_OPS;
  b->path = wr_strdup(path);
  if (!b->path) {
    sq_close(&b->base);
    return wr_oom(err);
  }
  b->busy_ms = settings->busy_timeout_ms > 0 ? settings->busy_timeout_ms : DEFAULT_BUSY_MS;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path, &b->db, flags, NULL);
  if (rc != SQLITE_OK) {
    int code = (rc & 0xff) == SQLITE_NOMEM ? wr_oom(err)
               : wr_seterr(err, WEIR_ECATALOG, "cannot open catalog %s: %s", path,
                           b->db ? sqlite3_errmsg(b->db) : sqlite3_errstr(rc));
    sq_close(&b->base);
    return code;
  }
  sqlite3_extended_result_codes(b->db, 1);
  sqlite3_busy_timeout(b->db, b->busy_ms);
  /* The -wal and -shm files stay when the last connection closes (persistent WAL). A
   * reader without write access to the lake's folder cannot create them, and SQLite
   * reads a WAL database without write access only when they exist (the files take the
   * database's permissions, so who may read the catalog may read them). */
  int persist = 1;
  sqlite3_file_control(b->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
  /* WAL is a property of the database file, set once when it is made: asking for the mode
   * in force is a read, so opening needs no write access. Anything but "wal" after trying
   * to switch means the medium cannot have it, which would break the concurrency
   * guarantees. */
  sqlite3_stmt *s = NULL;
  const char *mode = NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    sqlite3_finalize(s);
    s = NULL;
    rc = sqlite3_prepare_v2(b->db, attempt ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode", -1, &s, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
      sqlite3_finalize(s);
      char *shm = wr_asprintf("%s-shm", path);
      bool no_shm = shm && access(shm, F_OK) != 0;
      free(shm);
      if ((rc & 0xff) == SQLITE_READONLY && no_shm)
        /* A WAL database is readable without write access only with its -wal and -shm
         * files present; a lake last closed before weir kept them has none. */
        wr_seterr(err, WEIR_EIO,
                  "catalog %s cannot be read without write access until its -wal and -shm files exist: open "
                  "the lake once as a user who may write it (weir tables), which makes them",
                  path);
      else
        dberr(b, rc, attempt ? "switching to WAL mode" : "opening it", err);
      int code = err ? err->code : WEIR_ECATALOG;
      sq_close(&b->base);
      return code;
    }
    mode = (const char *)sqlite3_column_text(s, 0);
    if (mode && strcmp(mode, "wal") == 0) break;
  }
  if (!mode || strcmp(mode, "wal") != 0) {
    wr_seterr(err, WEIR_ECATALOG, "catalog %s: cannot use WAL mode (journal mode is %s)", path,
                mode ? mode : "unknown");
    sqlite3_finalize(s);
    sq_close(&b->base);
    return WEIR_ECATALOG;
  }
  sqlite3_finalize(s);
  int code = exec_sql(b, sync_sql, "setting synchronous", err);
  if (!code) code = exec_sql(b, "PRAGMA foreign_keys=ON", "enabling foreign keys", err);
  if (!code) code = exec_sql(b, "PRAGMA cache_size=-16384", "sizing the page cache", err);
  if (code) {
    sq_close(&b->base);
    return code;
  }
  *out = &b->base;
  return WEIR_OK;
}
